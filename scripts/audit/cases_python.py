"""The Python cases of the audit: bad and unusual inputs to every public function of the
tcsim package (apps/python/tcsim/__init__.py).

Each case is a snippet that sets `r` (np, tcsim, fx = the fixture folder, tmp = the case's
folder are defined). expect/names/check/finite as in cases_cli.py; py_exc: exception types a
refusal may raise (default ValueError, TypeError); py_template: the snippet with {V} where
the bad name is, to rerun it with each value of the message's "allowed:" list.
"""

FORMATS = ["fp64", "fp32", "tf32", "bf16", "fp16", "e4m3", "e5m2", "e4m3fnuz", "e5m2fnuz", "e2m3", "e3m2", "e2m1",
           "ue8m0", "ue4m3"]
# The round trip of one value through a format: NaN stays NaN, nothing else becomes NaN, the
# sign survives (or the value underflows to zero): a silently wrong encoding fails it.
ROUND_TRIP = ("(lambda d, v: bool(np.isnan(d) == np.isnan(v) and (np.isnan(v) or np.sign(d) == np.sign(v) "
              "or (d == 0 and abs(v) < 1))))(float(tcsim.decode(r, F).ravel()[0]), V)")

_cases = []
DOT_OK = "tcsim.dot('h100', np.ones((2, 4)), np.ones((2, 4)), None, in_format='fp16', out_format='fp32')"
A4 = "np.array([[4., 1, 0.5, 0.25], [1, 3, 1, 0.5], [0.5, 1, 2, 1], [0.25, 0.5, 1, 5]])"


def add(id, target, code, expect="refuse", component="Python validation", **kw):
    c = {"id": "py-" + id, "target": "py." + target, "py": code, "expect": expect, "component": component}
    c.update(kw)
    _cases.append(c)


def name_case(id, target, template, bad, names, **kw):
    """A bad name (unit, format, variant, ...): refused, naming the argument; its allowed list is rerun."""
    kw.setdefault("issue_class", "'allowed' lists with values then refused")
    add(id, target, template.replace("{V}", bad), names=names, py_template=template, probe_allowed=True, **kw)


def encode_cases():
    values = {"huge": 1e300, "hugeneg": -1e300, "nan": float("nan"), "inf": float("inf"), "neginf": float("-inf"),
              "zero": 0.0, "negzero": -0.0, "neg": -1.0, "tiny": 1e-300, "between": 0.75, "max16": 65504.0,
              "above16": 65520.0}
    for fmt in FORMATS:
        for k, v in values.items():
            vtext = repr(v) if v == v and abs(v) != float("inf") else f"float('{v}')"
            add(f"encode-{fmt}-{k}", "encode", f"r = tcsim.encode(np.array([{vtext}]), '{fmt}')", expect="either",
                names="values", check=ROUND_TRIP.replace("F", repr(fmt)).replace("V", vtext), finite=False,
                check_what="the pattern must decode to the value's NaN-ness and sign",
                issue_class="out-of-range/NaN/Inf/zero-into-ue8m0 values")
    add("encode-nan-scalar-fp16", "encode", "r = tcsim.encode(float('nan'), 'fp16')", expect="either", names="values",
        finite=False, check="bool(np.isnan(tcsim.decode(r, 'fp16')).all())", check_what="NaN must stay NaN",
        issue_class="NaN encoded as +0")
    add("encode-nan-f32-e4m3", "encode", "r = tcsim.encode(np.array([np.nan], dtype=np.float32), 'e4m3')", expect="either",
        names="values", finite=False, check="bool(np.isnan(tcsim.decode(r, 'e4m3')).all())", issue_class="NaN encoded as +0")
    add("encode-nan-f16-e2m1", "encode", "r = tcsim.encode(np.array([np.nan], dtype=np.float16), 'e2m1')", names="values",
        issue_class="NaN encoded as +0")
    add("encode-int-huge-fp16", "encode", "r = tcsim.encode(np.array([2**62]), 'fp16')", expect="either", names="values",
        finite=False, check="bool(np.isinf(tcsim.decode(r, 'fp16')).all())")
    add("encode-int-neg-ue8m0", "encode", "r = tcsim.encode(np.array([-4]), 'ue8m0')", names="values")
    add("encode-uint64-max-fp32", "encode", "r = tcsim.encode(np.array([2**64 - 1], dtype=np.uint64), 'fp32')",
        expect="either", check="float(tcsim.decode(r, 'fp32')[0]) == 2.0**64")
    for k, code, names in (
            ("strings", "tcsim.encode(np.array(['a', 'b']), 'fp16')", "values"),
            ("str", "tcsim.encode('1.5', 'fp16')", "values"),
            ("none", "tcsim.encode(None, 'fp16')", "values"),
            ("complex", "tcsim.encode(np.array([1 + 2j]), 'fp16')", "values"),
            ("object", "tcsim.encode(np.array([1, 'x'], dtype=object), 'fp16')", "values"),
            ("dict", "tcsim.encode({'a': 1}, 'fp16')", "values"),
            ("format-int", "tcsim.encode(np.ones(2), 16)", "format"),
            ("format-none", "tcsim.encode(np.ones(2), None)", "format"),
            ("format-blank", "tcsim.encode(np.ones(2), ' ')", "format"),
            ("threads-neg", "tcsim.encode(np.ones(2), 'fp16', threads=-1)", "threads"),
            ("threads-str", "tcsim.encode(np.ones(2), 'fp16', threads='2')", "threads"),
            ("threads-float", "tcsim.encode(np.ones(2), 'fp16', threads=2.5)", "threads"),
            ("threads-huge", "tcsim.encode(np.ones(2), 'fp16', threads=10**30)", "threads"),
            ("rounding-int", "tcsim.encode(np.ones(2), 'fp16', rounding=1)", "rounding"),
            ("bogus-kw", "tcsim.encode(np.ones(2), 'fp16', colour='red')", "colour")):
        add(f"encode-{k}", "encode", "r = " + code, names=names, issue_class="wrong types")
    name_case("encode-format-unknown", "encode", "r = tcsim.encode(np.ones(2), '{V}')", "fp17", "format")
    name_case("encode-rounding-unknown", "encode", "r = tcsim.encode(np.ones(2), 'fp16', rounding='{V}')", "up", "rounding")
    for k, code in (("empty", "tcsim.encode(np.ones(0), 'fp16')"), ("empty-2d", "tcsim.encode(np.ones((3, 0)), 'fp16')"),
                    ("scalar", "tcsim.encode(1.5, 'fp16')"), ("list", "tcsim.encode([1.0, 2.0], 'bf16')"),
                    ("bool", "tcsim.encode(np.array([True, False]), 'fp16')"),
                    ("f16-in", "tcsim.encode(np.ones(3, dtype=np.float16), 'e4m3')"),
                    ("noncontig", "tcsim.encode(np.ones((4, 4))[:, ::2], 'fp16')"),
                    ("rounding-ro", "tcsim.encode(np.array([1/3]), 'fp16', rounding='ro')")):
        add(f"encode-{k}", "encode", "r = " + code, expect="either")


def decode_cases():
    for k, code, names in (
            ("wide-fp16", "tcsim.decode(np.array([0x1ffff], dtype=np.uint32), 'fp16')", "bits"),
            ("wide-e2m1", "tcsim.decode(np.array([0x10], dtype=np.uint8), 'e2m1')", "bits"),
            ("wide-e4m3", "tcsim.decode(np.array([0x100], dtype=np.uint16), 'e4m3')", "bits"),
            ("float-bits", "tcsim.decode(np.array([1.5]), 'fp16')", "bits"),
            ("neg-int", "tcsim.decode(np.array([-1]), 'fp16')", "bits"),
            ("str", "tcsim.decode('0x3c00', 'fp16')", "bits"),
            ("none", "tcsim.decode(None, 'fp16')", "bits"),
            ("format-bad", "tcsim.decode(np.array([1], dtype=np.uint16), 'fp17')", "format"),
            ("threads-neg", "tcsim.decode(np.array([1], dtype=np.uint16), 'fp16', threads=-3)", "threads")):
        add(f"decode-{k}", "decode", "r = " + code, names=names, issue_class="wrong types")
    add("decode-nan-pattern", "decode", "r = tcsim.decode(np.array([0x7e00], dtype=np.uint16), 'fp16')", expect="ok",
        finite=False, check="bool(np.isnan(r).all())")
    add("decode-ue8m0-ff", "decode", "r = tcsim.decode(np.array([0xff], dtype=np.uint8), 'ue8m0')", expect="ok",
        finite=False, check="bool(np.isnan(r).all())")
    add("decode-empty", "decode", "r = tcsim.decode(np.zeros(0, dtype=np.uint16), 'fp16')", expect="ok")
    add("decode-int64-ok", "decode", "r = tcsim.decode(np.array([0x3c00]), 'fp16')", expect="either", names="bits",
        check="float(r[0]) == 1.0")


def dot_cases():
    base = "r = tcsim.dot('h100', {a}, {b}, {c}, in_format='{fi}', out_format='{fo}')"

    def d(id, a="np.ones(4)", b="np.ones(4)", c="None", fi="fp16", fo="fp32", unit="h100", **kw):
        add(id, "dot", base.format(a=a, b=b, c=c, fi=fi, fo=fo).replace("'h100'", repr(unit)), **kw)
    for fi, fo, unit in (("fp16", "fp32", "h100"), ("e4m3", "fp32", "h100"), ("e5m2", "fp32", "h100"),
                         ("bf16", "fp32", "a100"), ("tf32", "fp32", "a100"), ("fp64", "fp64", "b200")):
        for k, v, exp in (("huge", "1e300", "ok" if fi == "fp64" else "refuse"),
                          ("nan", "np.nan", "ok"), ("inf", "np.inf", "ok" if fi in ("fp16", "e5m2", "bf16", "tf32", "fp64") else "refuse"),
                          ("above-max", "1e6", "ok" if fi in ("bf16", "tf32", "fp64") else "refuse")):
            d(f"dot-{fi}-a-{k}", a=f"np.array([{v}, 1, 1, 1])", fi=fi, fo=fo, unit=unit, expect=exp, names="a",
              finite=False, issue_class="out-of-range/NaN/Inf values")
        d(f"dot-{fi}-c-huge", c="1e300" if fo != "fp64" else "np.inf", fi=fi, fo=fo, unit=unit,
          expect="refuse" if fo != "fp64" else "ok", names="c", finite=False)
    for fi in ("e2m3", "e3m2", "e2m1"):
        for k, v in (("nan", "np.nan"), ("inf", "np.inf"), ("huge", "100.0")):
            add(f"dot-{fi}-a-{k}", "dot", f"r = tcsim.dot('b200', np.array([{v}, 1.0]), np.ones(2), None, in_format='{fi}', "
                f"out_format='fp32', instruction='tcgen05.mxf8f6f4')", names="a", issue_class="out-of-range/NaN/Inf values")
    for k, a, b, c, names in (
            ("shape-mismatch", "np.ones((3, 4))", "np.ones((3, 5))", "None", ["a", "b"]),
            ("batch-mismatch", "np.ones((3, 4))", "np.ones((2, 4))", "None", ["a", "b"]),
            ("c-shape", "np.ones((3, 4))", "np.ones((3, 4))", "np.ones(5)", "c"),
            ("c-2d", "np.ones((3, 4))", "np.ones((3, 4))", "np.ones((3, 4))", "c"),
            ("scalar-a", "1.0", "1.0", "None", "a"),
            ("strings", "np.array(['1', '2'])", "np.ones(2)", "None", "a"),
            ("complex", "np.ones(2) * 1j", "np.ones(2)", "None", "a"),
            ("object", "np.array([1, None])", "np.ones(2)", "None", "a"),
            ("none-a", "None", "np.ones(2)", "None", "a"),
            ("dict-b", "np.ones(2)", "{'x': 1}", "None", "b"),
            ("c-str", "np.ones(2)", "np.ones(2)", "'zero'", "c"),
            ("c-nan-fp32", "np.ones(2)", "np.ones(2)", "np.nan", "c"),
            ("wide-bits", "np.array([0xffff, 1], dtype=np.uint32)", "np.ones(2, dtype=np.uint16)", "None", "a"),
            ("bits-mixed", "np.ones(2, dtype=np.uint16)", "np.ones(2)", "None", ["a", "b"]),
            ("c-bits-wide", "np.ones(2, dtype=np.uint16)", "np.ones(2, dtype=np.uint16)", "np.array(2**40, dtype=np.uint64)", "c")):
        d(f"dot-{k}", a=a, b=b, c=c, names=names, expect="refuse" if k != "c-nan-fp32" else "either", finite=False,
          issue_class="wrong types/shapes/dtypes")
    for k, code, names in (
            ("no-formats", "tcsim.dot('h100', np.ones(2), np.ones(2))", "in_format"),
            ("out-missing", "tcsim.dot('h100', np.ones(2), np.ones(2), in_format='fp16')", "out_format"),
            ("unit-none", "tcsim.dot(None, np.ones(2), np.ones(2), in_format='fp16', out_format='fp32')", "unit"),
            ("unit-int", "tcsim.dot(100, np.ones(2), np.ones(2), in_format='fp16', out_format='fp32')", "unit"),
            ("pair-missing", "tcsim.dot('v100', np.ones(2), np.ones(2), in_format='e4m3', out_format='fp32')", ["in_format", "e4m3"]),
            ("instruction-int", "tcsim.dot('h100', np.ones(2), np.ones(2), in_format='fp16', out_format='fp32', instruction=5)", "instruction"),
            ("threads-neg", "tcsim.dot('h100', np.ones(2), np.ones(2), in_format='fp16', out_format='fp32', threads=-1)", "threads"),
            ("threads-huge", "tcsim.dot('h100', np.ones(2), np.ones(2), in_format='fp16', out_format='fp32', threads=2**40)", "threads"),
            ("bogus-kw", "tcsim.dot('h100', np.ones(2), np.ones(2), in_format='fp16', out_format='fp32', colour=1)", "colour")):
        add(f"dot-{k}", "dot", "r = " + code, names=names, issue_class="wrong types")
    name_case("dot-unit-unknown", "dot", "r = tcsim.dot('{V}', np.ones(2), np.ones(2), in_format='fp16', out_format='fp32')",
              "x100", "unit")
    name_case("dot-in-unknown", "dot", "r = tcsim.dot('h100', np.ones(2), np.ones(2), in_format='{V}', out_format='fp32')",
              "fp17", "in_format")
    name_case("dot-instruction-unknown", "dot",
              "r = tcsim.dot('h100', np.ones(2), np.ones(2), in_format='fp16', out_format='fp32', instruction='{V}')",
              "foo", "instruction")
    for k, a in (("k0", "np.ones((3, 0))"), ("empty-batch", "np.ones((0, 4))"), ("3d", "np.ones((2, 3, 4))"),
                 ("list", "[1.0, 2.0]"), ("int-values", "np.array([1, 2])"), ("f16", "np.ones(4, dtype=np.float16)"),
                 ("bool", "np.array([True, True])")):
        b = a if k not in ("list", "int-values", "bool") else "np.ones(2)"
        add(f"dot-{k}", "dot", f"r = tcsim.dot('h100', {a}, {b}, None, in_format='fp16', out_format='fp32')",
            expect="either", names="a")
    add("dot-unit-object", "dot", "r = tcsim.dot(tcsim.unit('h100'), np.ones(2), np.ones(2), in_format='fp16', out_format='fp32')",
        expect="either", names="unit")
    add("dot-big-k", "dot", "r = tcsim.dot('h100', np.ones(10**6), np.ones(10**6), in_format='fp16', out_format='fp32')",
        expect="ok", check="float(r.values) == 1e6")


def matmul_cases():
    mm = "r = tcsim.matmul({A}, {B}, unit='h100', in_format='{fi}'{extra})"

    def m(id, A="np.ones((4, 8))", B="np.ones((8, 3))", fi="fp16", extra="", target="matmul", **kw):
        code = mm.format(A=A, B=B, fi=fi, extra=extra)
        if target == "gemm_errors":
            code = code.replace("tcsim.matmul", "tcsim.gemm_errors")
        add(id, target, code, **kw)
    for target in ("matmul", "gemm_errors"):
        t = "mm" if target == "matmul" else "ge"
        for fi in ("fp16", "e4m3", "e5m2", "bf16"):
            for k, v in (("nan", "np.nan"), ("inf", "np.inf"), ("huge", "1e300"), ("above", "1e6")):
                exp = "ok" if (k == "above" and fi == "bf16") else "refuse"
                m(f"{t}-{fi}-A-{k}", A=f"np.where(np.eye(4, 8) > 0, {v}, 1.0)", fi=fi, target=target, expect=exp,
                  names="A", issue_class="out-of-range/NaN/Inf values returning NaN/inf matrices")
            m(f"{t}-{fi}-B-nan", B="np.full((8, 3), np.nan)", fi=fi, target=target, names="B",
              issue_class="out-of-range/NaN/Inf values returning NaN/inf matrices")
        for k, A, B, names in (("1d", "np.ones(8)", "np.ones((8, 3))", "A"), ("3d", "np.ones((2, 4, 8))", "np.ones((8, 3))", "A"),
                               ("mismatch", "np.ones((4, 8))", "np.ones((7, 3))", ["A", "B"]),
                               ("strings", "np.array([['a']])", "np.ones((1, 1))", "A"),
                               ("complex", "np.ones((2, 2)) * 1j", "np.ones((2, 2))", "A"),
                               ("none-B", "np.ones((2, 2))", "None", "B"),
                               ("object", "np.array([[1, None]])", "np.ones((2, 1))", "A")):
            m(f"{t}-{k}", A=A, B=B, target=target, names=names, issue_class="wrong shapes/dtypes")
        for k, A, B in (("zero-m", "np.ones((0, 8))", "np.ones((8, 3))"), ("zero-k", "np.ones((4, 0))", "np.ones((0, 3))"),
                        ("zeros", "np.zeros((4, 8))", "np.zeros((8, 3))"), ("1x1", "np.ones((1, 1))", "np.ones((1, 1))"),
                        ("f32", "np.ones((4, 8), dtype=np.float32)", "np.ones((8, 3), dtype=np.float32)"),
                        ("fortran", "np.asfortranarray(np.ones((4, 8)))", "np.ones((8, 3))"),
                        ("int", "np.ones((4, 8), dtype=np.int64)", "np.ones((8, 3), dtype=np.int64)"),
                        ("tiny", "np.full((4, 8), 1e-300)", "np.ones((8, 3))"), ("lists", "[[1.0, 2.0]]", "[[1.0], [2.0]]")):
            m(f"{t}-{k}", A=A, B=B, target=target, expect="either", names=["A", "B", "m = 0", "k = 0"])
        for k, extra, names in (("split-k-0", ", split_k=0", "split_k"), ("split-k-neg", ", split_k=-2", "split_k"),
                                ("split-k-float", ", split_k=2.5", "split_k"), ("split-k-str", ", split_k='2'", "split_k"),
                                ("fabsum-0", ", fabsum=0", "fabsum"), ("fabsum-neg", ", fabsum=-8", "fabsum"),
                                ("words-9", ", words=9", "words"), ("words-0", ", words=0", "words"),
                                ("threads-neg", ", threads=-1", "threads"), ("unknown-kw", ", colour='red'", "colour"),
                                ("unit-none", ", unit=None", "unit"), ("in-none", ", in_format=None", "in_format"),
                                ("C-shape", ", C=np.ones((2, 2))", "C"), ("C-nan", ", C=np.full((4, 3), np.nan)", "C"),
                                ("C-huge", ", C=np.full((4, 3), 1e300)", "C"), ("scaled-words-str", ", scaled_words='yes'", "scaled_words"),
                                ("split-k-huge", ", split_k=2**40", "split_k"), ("words-true", ", words=True", "words")):
            if k in ("unit-none", "in-none"):
                code = mm.format(A="np.ones((4, 8))", B="np.ones((8, 3))", fi="fp16", extra="")
                code = code.replace("unit='h100'", "unit=None") if k == "unit-none" else code.replace("in_format='fp16'", "in_format=None")
                add(f"{t}-{k}", target, code.replace("tcsim.matmul", "tcsim." + target), names=names)
                continue
            m(f"{t}-{k}", extra=extra, target=target, names=names, expect="either" if k == "words-true" else "refuse",
              issue_class="messages naming internal fields" if "split" in k or "fabsum" in k else "wrong types")
        for opt, bad in (("unit", "x100"), ("in_format", "fp17"), ("out_format", "fp15"), ("variant", "tc64"),
                         ("input_rounding", "up"), ("word_order", "random"), ("scaling", "maybe"), ("subnormals", "yes"),
                         ("fabsum_combine", "fp8"), ("instruction", "mma.bogus")):
            tmpl = f"r = tcsim.{target}(np.ones((4, 8)), np.ones((8, 3)), unit='h100', in_format='fp16', {opt}='{{V}}')"
            if opt in ("unit", "in_format"):
                tmpl = f"r = tcsim.{target}(np.ones((4, 8)), np.ones((8, 3)), " + \
                       ("unit='{V}', in_format='fp16')" if opt == "unit" else "unit='h100', in_format='{V}')")
            name_case(f"{t}-{opt}-unknown", target, tmpl, bad, opt)
    add("ge-zeros-errors", "gemm_errors", "r = tcsim.gemm_errors(np.zeros((4, 8)), np.zeros((8, 3)), unit='h100', in_format='fp16')",
        expect="ok", issue_class="None errors")
    add("ge-check-rows-neg", "gemm_errors", "r = tcsim.gemm_errors(np.ones((4, 8)), np.ones((8, 3)), unit='h100', in_format='fp16', check_rows=-1)",
        names="check_rows")
    add("ge-check-rows-big", "gemm_errors", "r = tcsim.gemm_errors(np.ones((4, 8)), np.ones((8, 3)), unit='h100', in_format='fp16', check_rows=10**6)",
        expect="either", names="check_rows")
    add("mm-bits-nan-pattern", "matmul", "r = tcsim.matmul(np.full((2, 4), 0x7f, dtype=np.uint8), np.full((4, 2), 0x38, dtype=np.uint8), "
        "unit='h100', in_format='e4m3')", expect="either", names="A", finite=False)
    add("mm-bits-wide", "matmul", "r = tcsim.matmul(np.full((2, 4), 0x1ff, dtype=np.uint16), np.full((4, 2), 0x38, dtype=np.uint16), "
        "unit='h100', in_format='e4m3')", names="A")
    add("mm-return-bits-str", "matmul", "r = tcsim.matmul(np.ones((2, 2)), np.ones((2, 2)), unit='h100', in_format='fp16', return_bits='no')",
        expect="either", names="return_bits")
    add("mm-overflow-result", "matmul", "r = tcsim.matmul(np.full((2, 64), 60000.0), np.full((64, 2), 60000.0), unit='h100', "
        "in_format='fp16', out_format='fp16')", expect="either", names=["A", "out_format"], finite=False,
        check="bool(np.isinf(r).all())", check_what="an fp16 D that overflows is Inf")


def lu_cases():
    for target in ("lu", "solve"):
        t = target
        for k, A, names in (("nan", f"np.where(np.eye(4) > 0, np.nan, {A4})", "A"), ("inf", f"np.where(np.eye(4) > 0, np.inf, {A4})", "A"),
                            ("huge", f"{A4} * 1e300", "A"), ("nonsquare", "np.ones((3, 4))", "A"), ("1d", "np.ones(4)", "A"),
                            ("3d", "np.ones((2, 2, 2))", "A"), ("strings", "np.array([['a']])", "A"), ("none", "None", "A"),
                            ("complex", "np.eye(3) * 1j", "A"), ("empty", "np.ones((0, 0))", "A")):
            add(f"{t}-A-{k}", target, f"r = tcsim.{target}({A}, unit='h100')", names=names,
                py_exc=["ValueError", "TypeError", "LuBreakdown"] if k == "huge" else ["ValueError", "TypeError"],
                expect="either" if k == "empty" else "refuse", issue_class="silent wrong results")
        add(f"{t}-singular", target, f"r = tcsim.{target}(np.ones((4, 4)), unit='h100')", py_exc=["LuBreakdown"],
            names=["pivot", "step", "U["])
        add(f"{t}-zeros-pivot", target, f"r = tcsim.{target}(np.zeros((4, 4)), unit='h100', pivot=True)",
            py_exc=["LuBreakdown", "ValueError"], names=["pivot", "step", "U[", "A"])
        add(f"{t}-1x1", target, f"r = tcsim.{target}(np.array([[2.0]]), unit='h100')", expect="ok")
        add(f"{t}-int", target, f"r = tcsim.{target}(np.array([[2, 1], [1, 3]]), unit='h100')", expect="either", names="A")
        for k, kw, names in (("r-0", "r=0", "r"), ("s-0", "s=0", "s"), ("r-neg", "r=-4", "r"), ("r-float", "r=2.5", "r"),
                             ("pivot-str", "pivot='no'", "pivot"), ("unknown-kw", "colour=1", "colour"),
                             ("unit-none", "unit=None", "unit"), ("threads-neg", "threads=-1", "threads"),
                             ("s-gt-r", "r=2, s=4", "s"), ("r-huge", "r=2**40", "r")):
            code = f"r = tcsim.{target}({A4}, unit='h100', {kw})" if k != "unit-none" else f"r = tcsim.{target}({A4}, unit=None)"
            add(f"{t}-{k}", target, code, names=names, expect="either" if k == "s-gt-r" else "refuse",
                issue_class="messages naming internal fields" if k.startswith("s") else "wrong types")
        for opt, bad in (("unit", "x100"), ("in_format", "fp17"), ("alg", "xx"), ("variant", "tc8"), ("storage", "fp128"),
                         ("panel", "fp1"), ("instruction", "mma.bogus")):
            name_case(f"{t}-{opt}-unknown", target, f"r = tcsim.{target}({A4}, " + ("unit='{V}')" if opt == "unit" else f"unit='h100', {opt}='{{V}}')"), bad, opt)
    s = f"r = tcsim.solve({A4}, "
    for k, b, names in (("b-nan", "np.full(4, np.nan)", "b"), ("b-inf", "np.array([1, np.inf, 1, 1])", "b"),
                        ("b-short", "np.ones(3)", "b"), ("b-2d", "np.ones((4, 2))", "b"), ("b-str", "'ones'", "b"),
                        ("b-huge", "np.full(4, 1e308)", "b")):
        add(f"solve-{k}", "solve", s + f"{b}, unit='h100')", names=names, expect="either" if k in ("b-2d", "b-huge") else "refuse",
            issue_class="tcsim.solve all-NaN x with backward error 0.0")
    add("solve-b-zero", "solve", s + "np.zeros(4), unit='h100')", expect="ok", check="bool((r[0] == 0).all())")
    add("solve-ok", "solve", s + "None, unit='h100')", expect="ok")
    add("solve-refine-ok", "solve", s + "None, unit='h100', refine='gmres-ir')", expect="ok")
    for k, kw, names in (("maxit-0", "refine='lu-ir', max_iterations=0", "max_iterations"),
                         ("maxit-neg", "refine='lu-ir', max_iterations=-1", "max_iterations"),
                         ("maxit-no-refine", "max_iterations=5", ["max_iterations", "refine"]),
                         ("working-no-refine", "working='fp64'", ["working", "refine"]),
                         ("x-true-short", "x_true=np.ones(3)", "x_true"), ("x-true-nan", "x_true=np.full(4, np.nan)", "x_true"),
                         ("x-true-str", "x_true='ones'", "x_true")):
        add(f"solve-{k}", "solve", s + f"None, unit='h100', {kw})", names=names, issue_class="Python messages naming CLI options")
    for opt, bad in (("refine", "newton"), ("working", "fp80"), ("solve", "fp8")):
        name_case(f"solve-{opt}-unknown", "solve", s + f"None, unit='h100', {opt}='{{V}}')", bad, opt,
                  issue_class="Python messages naming CLI options")
    add("solve-singular-refine", "solve", "r = tcsim.solve(np.ones((4, 4)), unit='h100', pivot=True, refine='gmres-ir')",
        py_exc=["LuBreakdown", "ValueError"], names=["pivot", "step", "U[", "singular"])
    add("solve-near-singular", "solve", "r = tcsim.solve(np.array([[1.0, 1.0], [1.0, 1.0 + 2**-30]]), unit='h100', pivot=True)",
        expect="either", py_exc=["LuBreakdown", "ValueError"], names=["A", "step", "U["])


def generator_cases():
    name_case("lu_matrix-kind-unknown", "lu_matrix", "r = tcsim.lu_matrix('{V}', 8)", "hilbert", "kind")
    for k, args, names in (("n-0", "'q1dq2', 0", "n"), ("n-neg", "'q1dq2', -1", "n"), ("n-huge", "'q1dq2', 10**9", "n"),
                           ("n-float", "'q1dq2', 2.5", "n"), ("n-str", "'q1dq2', '8'", "n"), ("cond-0", "'q1dq2', 8, 0.0", "cond"),
                           ("cond-neg", "'q1dq2', 8, -5.0", "cond"), ("cond-nan", "'q1dq2', 8, float('nan')", "cond"),
                           ("cond-inf", "'q1dq2', 8, float('inf')", "cond"), ("cond-lt1", "'q1dq2', 8, 0.5", "cond"),
                           ("seed-neg", "'q1dq2', 8, 10.0, -1", "seed"), ("kind-none", "None, 8", "kind"),
                           ("kind-blank", "'', 8", "kind"), ("cond-huge", "'q1dq2', 8, 1e300", "cond")):
        add(f"lu_matrix-{k}", "lu_matrix", f"r = tcsim.lu_matrix({args})", names=names,
            expect="either" if k in ("cond-huge",) else "refuse", issue_class="huge sizes" if "huge" in k else "wrong values")
    name_case("gemm_problem-dist-unknown", "gemm_problem", "r = tcsim.gemm_problem(4, 4, 4, dist='{V}')", "gauss", "dist")
    for k, args, names in (("m-0", "0, 4, 4", "m"), ("k-neg", "4, 4, -4", "k"), ("huge", "10**7, 10**7, 10**7", ["m", "n", "k"]),
                           ("m-float", "4.5, 4, 4", "m"), ("ell-neg", "4, 4, 4, dist='pm10^phi', ell=-1", "ell"),
                           ("ell-huge", "4, 4, 4, dist='pm10^phi', ell=10**6", "ell"), ("seed-neg", "4, 4, 4, seed=-1", "seed"),
                           ("ell-uniform", "4, 4, 4, dist='uniform01', ell=3", "ell")):
        add(f"gemm_problem-{k}", "gemm_problem", f"r = tcsim.gemm_problem({args})", names=names,
            expect="either" if k == "ell-uniform" else "refuse", issue_class="huge sizes" if k == "huge" else "wrong values")
    add("gemm_problem-ell-300", "gemm_problem", "r = tcsim.gemm_problem(4, 4, 4, dist='pm10^phi', ell=300)", expect="either",
        names="ell", issue_class="generated matrices overflowing")


def misc_cases():
    name_case("unit-unknown", "unit", "r = tcsim.unit('{V}')", "x100", ["name", "unit 'x100'"])
    for k, code, names in (("unit-none", "tcsim.unit(None)", "name"), ("unit-int", "tcsim.unit(100)", "name"),
                           ("unit-blank", "tcsim.unit('')", ["name", "unit ''"]),
                           ("from_json-missing", "tcsim.Unit.from_json(fx + '/nope.json')", ["source", "nope.json"]),
                           ("from_json-dir", "tcsim.Unit.from_json(fx + '/adir')", ["source", "adir"]),
                           ("from_json-int", "tcsim.Unit.from_json(42)", ["source", "from_json"]),
                           ("from_json-empty-dict", "tcsim.Unit.from_json({})", ["source", "name"]),
                           ("from_json-bad-type", "tcsim.Unit.from_json(dict(U, datapaths=[dict(U['datapaths'][0], fma_size='4')]))",
                            "fma_size"),
                           ("from_json-nan", "tcsim.Unit.from_json(dict(U, datapaths=[dict(U['datapaths'][0], fma_size=float('nan'))]))",
                            "fma_size"),
                           ("from_json-neg-fraction", "tcsim.Unit.from_json(dict(U, datapaths=[dict(U['datapaths'][0], fraction_bits=-3)]))",
                            "fraction_bits"),
                           ("from_json-bool-carry", "tcsim.Unit.from_json(dict(U, datapaths=[dict(U['datapaths'][0], carry_bits=True)]))",
                            "carry_bits"),
                           ("from_json-list-of-two", "tcsim.Unit.from_json([{}, {}])", "source"),
                           ("from_json-text", "tcsim.Unit.from_json('{\"name\": ')", "source")):
        add(k, "unit" if k.startswith("unit") else "Unit.from_json",
            ("U = tcsim.unit('v100').to_json()\n" if "U[" in code else "") + "r = " + code, names=names,
            issue_class="raw JSON-parser texts / pybind11 texts")
    for name in ("unit_syntax", "unit_null", "unit_nested", "unit_dup_key", "unit_trailing_garbage", "unit_blank",
                 "unit_bool_fma", "unit_nan_value", "unit_type", "unit_empty_array", "unit_fma_huge"):
        add(f"from_json-file-{name}", "Unit.from_json", f"r = tcsim.Unit.from_json(fx + '/{name}.json')",
            names=["source", name, "fma_size", "unit file"], issue_class="raw JSON-parser texts")
    add("from_json-ok", "Unit.from_json", "r = tcsim.Unit.from_json(fx + '/unit_ok.json').name", expect="ok")
    for k, code, names in (("instructions-bad-in", "tcsim.unit('h100').instructions('fp17', 'fp32')", "in_format"),
                           ("row-missing-pair", "tcsim.unit('v100').row('e4m3', 'fp32')", ["in_format", "e4m3"]),
                           ("batch_path-bad-out", "tcsim.unit('h100').batch_path('fp16', 'fp99')", "out_format"),
                           ("row-instruction-bad", "tcsim.unit('h100').row('fp16', 'fp32', instruction='zz')", "instruction"),
                           ("row-instruction-int", "tcsim.unit('h100').row('fp16', 'fp32', instruction=3)", "instruction")):
        add(f"Unit-{k}", "Unit", "r = " + code, names=names)
    add("units-ok", "units", "r = tcsim.units()", expect="ok")
    add("formats-ok", "formats", "r = tcsim.formats()", expect="ok")
    add("experiments-ok", "experiments", "r = tcsim.experiments()", expect="ok")
    name_case("experiment-unknown", "experiment", "r = tcsim.experiment('{V}', out=tmp)", "nope-fig1", ["id", "experiment 'nope-fig1'"])
    for k, code, names in (("experiment-blank", "tcsim.experiment('', out=tmp)", ["id", "experiment ''"]),
                           ("experiment-none", "tcsim.experiment(None)", "id"),
                           ("experiment-out-missing", "tcsim.experiment('lopez2022-fig3a', out=fx + '/a.txt/x/y')", "out"),
                           ("experiment-out-file", "tcsim.experiment('lopez2022-fig3a', out=fx + '/a.txt')", "out"),
                           ("experiment-threads-neg", "tcsim.experiment('lopez2022-fig3a', out=tmp, threads=-1)", "threads"),
                           ("experiment-seed-neg", "tcsim.experiment('lopez2022-fig3a', out=tmp, seed=-1)", "seed"),
                           ("experiment-quick-str", "tcsim.experiment('lopez2022-fig3a', quick='no', out=tmp)", "quick")):
        add(k, "experiment", "r = " + code, names=names, issue_class="Python messages naming CLI options", timeout=60)
    name_case("probe-unit-unknown", "probe", "r = tcsim.probe('{V}', in_format='fp16', out_format='fp32', fasi2021=False)", "k80", "unit")
    name_case("probe-in-unknown", "probe", "r = tcsim.probe('v100', in_format='{V}', out_format='fp32', fasi2021=False)", "fp9", "in_format")
    for k, code, names in (("probe-pair-missing", "tcsim.probe('v100', in_format='e4m3', out_format='fp32', fasi2021=False)", ["in_format", "e4m3"]),
                           ("probe-seed-neg", "tcsim.probe('v100', in_format='fp16', out_format='fp32', seed=-1, fasi2021=False)", "seed"),
                           ("probe-seed-str", "tcsim.probe('v100', in_format='fp16', out_format='fp32', seed='x', fasi2021=False)", "seed"),
                           ("probe-fasi-str", "tcsim.probe('v100', in_format='fp16', out_format='fp32', fasi2021='no')", "fasi2021")):
        add(k, "probe", "r = " + code, names=names)
    add("probe-ok", "probe", "r = tcsim.probe('v100', in_format='fp16', out_format='fp32', fasi2021=False)", expect="ok",
        timeout=60)
    vd = "r = tcsim.validate_dump('v100', 'fp16', 'fp32', fx + '/a.txt', fx + '/b.txt', {c}, {d}{extra})"
    for k, c, d, extra, names in (("missing", "fx + '/nope.txt'", "fx + '/d.txt'", "", ["c", "nope.txt"]),
                                  ("dir", "fx + '/c.txt'", "fx + '/adir'", "", ["d", "adir"]),
                                  ("c-and-zero", "fx + '/c.txt'", "fx + '/d.txt'", ", zero_c=True", ["c", "zero_c"]),
                                  ("no-c", "None", "fx + '/d.txt'", "", ["c", "zero_c"]),
                                  ("no-d", "fx + '/c.txt'", "None", "", "d"),
                                  ("max-report-neg", "fx + '/c.txt'", "fx + '/d.txt'", ", max_report=-1", "max_report"),
                                  ("array-not-path", "np.ones(3)", "fx + '/d.txt'", "", "c"),
                                  ("empty-d", "fx + '/c.txt'", "fx + '/empty'", "", ["d", "empty"]),
                                  ("binary-d", "fx + '/c.txt'", "fx + '/binary.bin'", "", ["d", "binary.bin"]),
                                  ("short-d", "fx + '/c.txt'", "fx + '/d_one_row.txt'", "", ["d", "d_one_row"])):
        add(f"validate_dump-{k}", "validate_dump", vd.format(c=c, d=d, extra=extra), names=names, component="Python validation")
    add("validate_dump-ok", "validate_dump", vd.format(c="fx + '/c.txt'", d="fx + '/d.txt'", extra=""), expect="ok")
    add("validate_dump-pathlib", "validate_dump", "import pathlib\n" + vd.format(c="pathlib.Path(fx) / 'c.txt'", d="fx + '/d.txt'", extra=""),
        expect="either", names="c")


def fit_cases():
    """tcsim.fit (issue 26): the CLI's refusals with Python names, NaN results, progress."""
    dump = "np.ones((2, 4)), np.ones((2, 4)), np.array([1.0, 0.0]), {d}, in_format='fp16', out_format='fp32'{extra}"
    fit = "r = tcsim.fit(" + dump + ")[1]"
    # finite=False: the report's values are rule names ("inf", "nan" overflow and NaN rules), not results.
    add("fit-ok", "fit", fit.format(d="np.array([5.0, 4.0])", extra=", certainty=False"), expect="ok", finite=False)
    add("fit-nan-d-float64", "fit", fit.format(d="np.array([np.nan, 4.0])", extra=", certainty=False"), names="d",
        issue_class="NaN results whose bit pattern is lost")
    add("fit-progress-word", "fit", fit.format(d="np.array([5.0, 4.0])", extra=", progress='yes'"), names="progress")
    add("fit-progress-int", "fit", fit.format(d="np.array([5.0, 4.0])", extra=", progress=1"), names="progress")
    for name, bad in (("budget", "999"), ("seconds", "0"), ("instruction_k", "0"), ("k", "257"), ("seed", "-1")):
        add(f"fit-{name}-out-of-range", "fit", fit.format(d="np.array([5.0, 4.0])", extra=f", {name}={bad}"),
            names=name)


def cases():
    if not _cases:
        encode_cases()
        decode_cases()
        dot_cases()
        matmul_cases()
        lu_cases()
        generator_cases()
        misc_cases()
        fit_cases()
    return [dict(c) for c in _cases]
