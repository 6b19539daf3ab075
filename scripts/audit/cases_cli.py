"""The CLI cases of the audit: bad and unusual inputs to every tcsim command.

Each case: id, target (the command), component (who would fix it), argv or sh, expect
("refuse": must be refused clearly; "ok": valid, must succeed; "either": a clear refusal
or a justified result), and optionally names (text the refusal must contain: the option
as typed), check (a Python expression on out/err/js/tmp, or "same" with same_as: the
output must equal that of the argv same_as), finite (default True: an accepted result
holds no nan/inf/null), rc (allowed exit codes of a refusal, default [2]), probe_at (the
argv index whose value is replaced by each value of the "allowed:" list), issue_class.
"""

DOT = ["dot", "--unit", "h100", "--in", "fp16", "--out", "fp32", "--a", "1,2", "--b", "3,4"]
GEMM = ["gemm", "--unit", "h100", "--in", "fp16", "--m", "4", "--n", "4", "--k", "16"]
LU = ["lu", "--unit", "h100", "--n", "16"]
PROBE = ["probe", "--unit", "v100", "--in", "fp16", "--out", "fp32", "--no-fasi2021"]
VD = ["validate-dump", "--unit", "v100", "--in", "fp16", "--out", "fp32", "--a", "{fx}/a.txt", "--b", "{fx}/b.txt",
      "--c", "{fx}/c.txt", "--d", "{fx}/d.txt"]
MONO = ["monotonicity", "--unit", "v100", "--in", "fp16", "--out", "fp32", "--budget", "1000"]
EXPLORE = ["explore", "--base", "v100", "--vary", "fraction_bits=22..23", "--workload", "gemm:k=64,m=4,n=4",
           "--monotonicity-budget", "100"]
BDOT = ["bench", "dot", "--unit", "h100", "--seconds", "0.2"]
BGEMM = ["bench", "gemm", "--unit", "h100", "--n", "64"]
BLU = ["bench", "lu", "--unit", "h100", "--n", "64", "--r", "16"]
BVER = ["bench", "verify", "--cases", "128"]
EXPL = ["experiment", "--list"]
UNITS = ["units"]
# tcsim fit on the catalogue's 2-case fp16 dump (K = 4; exact in 0.1 s), and a dump of it no row
# reproduces (d = 1, 1 for 5, 4: the search runs to its time limit).
FIT = ["fit", "--in", "fp16", "--out", "fp32", "--a", "{fx}/a.txt", "--b", "{fx}/b.txt", "--c", "{fx}/c.txt",
       "--d", "{fx}/d.txt", "--no-certainty"]
FIT_NONE = FIT[:12] + ["{fx}/d_none.txt"]
BFIT = ["bench", "fit", "--cases", "200", "--only", "v100 fp16 -> fp16", "--no-certainty"]

BASES = {"dot": DOT, "gemm": GEMM, "lu": LU, "probe": PROBE, "validate-dump": VD, "monotonicity": MONO,
         "explore": EXPLORE, "bench dot": BDOT, "bench gemm": BGEMM, "bench lu": BLU, "bench verify": BVER,
         "experiment": EXPL, "units": UNITS, "fit": FIT, "bench fit": BFIT}

FORMATS = ["fp64", "fp32", "tf32", "bf16", "fp16", "e4m3", "e5m2", "e4m3fnuz", "e5m2fnuz", "e2m3", "e3m2", "e2m1",
           "ue8m0", "ue4m3"]

_cases = []


def _target(argv):
    if not argv[0] or argv[0].startswith("-"):
        return "tcsim"
    if argv[0] == "bench" and len(argv) > 1:
        return "bench " + argv[1]
    return argv[0]


def add(id, argv=None, expect="refuse", component="CLI option parsing", sh=None, **kw):
    c = {"id": "cli-" + id, "expect": expect, "component": component}
    if argv is not None:
        c["argv"] = argv
        c["target"] = _target(argv)
    else:
        c["sh"] = sh
        c["target"] = kw.pop("target")
    if c["target"] == "fit":  # the report's values are rule names ("inf", "nan" overflow and NaN rules), not results
        c.setdefault("finite", False)
    c.update(kw)
    _cases.append(c)


def with_opt(base, opt, value):
    """base with --opt set to value (replaced when present, appended otherwise)."""
    argv = list(base)
    if "--" + opt in argv:
        i = argv.index("--" + opt)
        argv[i + 1] = value
        return argv, i + 1
    return argv + ["--" + opt, value], len(argv) + 1


def without(base, opt):
    argv = list(base)
    i = argv.index("--" + opt)
    del argv[i:i + 2]
    return argv


# Integer options: (command, option, a valid value, lo, hi, needs)
INT_OPTIONS = [
    ("gemm", "m", "4", 1, 1 << 20), ("gemm", "n", "4", 1, 1 << 20), ("gemm", "k", "16", 1, 1 << 26),
    ("gemm", "seed", "3", 0, None), ("gemm", "words", "2", 1, 8), ("gemm", "fabsum", "8", 1, 1 << 26),
    ("gemm", "split-k", "2", 1, 1 << 26), ("gemm", "threads", "2", 0, 1024), ("gemm", "check-rows", "2", 0, 1 << 40),
    ("gemm", "ell", "2", 0, 300),
    ("lu", "n", "12", 1, 1 << 15), ("lu", "r", "8", 1, 1 << 20), ("lu", "s", "4", 1, 1 << 20),
    ("lu", "threads", "2", 0, 1024), ("lu", "seed", "3", 0, None),
    ("monotonicity", "budget", "500", 1, 1 << 40), ("monotonicity", "seed", "3", 0, None),
    ("explore", "monotonicity-budget", "50", 0, 1 << 24), ("explore", "seed", "3", 0, None),
    ("explore", "threads", "2", 0, 1024),
    ("bench verify", "cases", "64", 1, 10 ** 12), ("bench verify", "first", "5", 0, 10 ** 15),
    ("bench verify", "seed", "3", 0, None), ("bench verify", "threads", "2", 0, 1024),
    ("bench gemm", "n", "32", 1, 16384), ("bench lu", "n", "32", 1, 16384), ("bench lu", "r", "8", 1, 16384),
    ("bench dot", "k", "16", 1, None), ("bench dot", "elements", "4096", 1, None),
    ("validate-dump", "max-report", "3", 0, 1000000), ("probe", "seed", "3", 0, None),
    ("dot", "block-size", "4", 0, 65536),
    ("fit", "k", "4", 1, 256), ("fit", "instruction-k", "4", 1, 256), ("fit", "budget", "1000", 1000, 10 ** 11),
    ("fit", "seconds", "5", 1, 3600), ("fit", "seed", "3", 0, None),
    ("bench fit", "cases", "200", 1, 1000000), ("bench fit", "seed", "3", 0, None),
]


def int_option_cases():
    for cmd, opt, good, lo, hi in INT_OPTIONS:
        base = BASES[cmd]
        tag = cmd.replace(" ", "-") + "-" + opt
        names = "--" + opt
        bad = {"neg": "-1", "word": "abc", "frac": "1.5", "empty": "", "huge": "99999999999999999999999",
               "unicode-digit": "\u0664", "inner-blank": "1 0", "hexfloat": "0x1p3"}
        if lo == 1:
            bad["zero"] = "0"
        if hi is not None:
            bad["above"] = str(hi + 1)
        for k, v in bad.items():
            argv, _ = with_opt(base, opt, v)
            add(f"{tag}-{k}", argv, names=names, issue_class="integer syntax")
        # unusual spellings of a valid value: refused, or read as the value they mean
        same = {"octal-looking": ("0" + good, good), "plus": ("+" + good, good),
                "blank-before": (" " + good, good), "hex": (hex(int(good)), good), "sci": (good + "e0", good)}
        for k, (v, meant) in same.items():
            argv, _ = with_opt(base, opt, v)
            ref, _ = with_opt(base, opt, meant)
            add(f"{tag}-{k}", argv, expect="either", names=names, check="same", same_as=ref,
                issue_class="leading-zero integers read as octal" if k == "octal-looking" else "integer syntax",
                check_what=f"'{v}' must mean {meant}")
        # repeated option: the first value silently dropped
        argv, _ = with_opt(base, opt, good)
        add(f"{tag}-repeated", argv + ["--" + opt, good if opt != "seed" else "4"], names=names,
            issue_class="repeated options silently keeping the last")


def name_option_cases():
    """Options taking a name: a wrong name must list what is allowed, and each listed value works."""
    items = [
        ("dot", "unit", "x100"), ("dot", "in", "fp17"), ("dot", "out", "fp15"), ("dot", "instruction", "foo"),
        ("gemm", "unit", "H 100"), ("gemm", "in", "FP16x"), ("gemm", "out", "fp15"), ("gemm", "variant", "tc64"),
        ("gemm", "dist", "gauss"), ("gemm", "input-rounding", "nearest"), ("gemm", "word-order", "random"),
        ("gemm", "scaling", "maybe"), ("gemm", "subnormals", "yes"), ("gemm", "fabsum-combine", "fp8"),
        ("gemm", "instruction", "mma.bogus"),
        ("lu", "unit", "gpu"), ("lu", "in", "int8"), ("lu", "alg", "xx"), ("lu", "variant", "tc8"),
        ("lu", "storage", "fp128"), ("lu", "panel", "fp1"), ("lu", "matrix", "hilbert"), ("lu", "scale", "auto"),
        ("lu", "solve", "fp8"), ("lu", "refine", "newton"), ("lu", "working", "fp80"),
        ("probe", "unit", "k80"), ("probe", "in", "e9m9"), ("probe", "out", "int32"),
        ("monotonicity", "unit", "xp"), ("monotonicity", "in", "fp99"), ("monotonicity", "out", "e4m3x"),
        ("validate-dump", "unit", "nope"), ("validate-dump", "in", "fp9"), ("validate-dump", "out", "fp33"),
        ("explore", "base", "z100"), ("explore", "in", "fp7"), ("explore", "out", "fp31"),
        ("bench dot", "unit", "a1000"), ("bench dot", "in", "fpx"), ("bench gemm", "unit", "q100"),
        ("bench lu", "unit", "w100"), ("units", "unit", "rtx"),
    ]
    for cmd, opt, v in items:
        argv, at = with_opt(BASES[cmd], opt, v)
        add(f"{cmd.replace(' ', '-')}-{opt}-unknown", argv, names=["--" + opt, f"'{v}'"], probe_at=at,
            probe_allowed=True, issue_class="'allowed' lists with values then refused")
        argv, _ = with_opt(BASES[cmd], opt, "")
        add(f"{cmd.replace(' ', '-')}-{opt}-blank", argv, names=["--" + opt, "''"], issue_class="unicode/blank strings")
    for cmd, opt, v in [("dot", "unit", "h100\u00a0"), ("dot", "in", "ｆｐ16"), ("gemm", "dist", "uniform01 "),
                        ("lu", "matrix", "q1dq2\n"), ("dot", "unit", "H100"), ("gemm", "variant", "TC32")]:
        argv, _ = with_opt(BASES[cmd], opt, v)
        add(f"{cmd}-{opt}-odd-{len(_cases)}", argv, expect="either", names=["--" + opt, repr(v)[1:-1], v],
            issue_class="unicode/blank strings")


def value_cases():
    """Values of dot's --a/--b/--c per format: out of range, NaN, Inf, zero into ue8m0, negatives into unsigned formats."""
    pairs = {"fp64": ("b200", "fp64", "fp64"), "fp32": ("a100", "tf32", "fp32"), "tf32": ("a100", "tf32", "fp32"),
             "bf16": ("a100", "bf16", "fp32"), "fp16": ("h100", "fp16", "fp32"), "e4m3": ("h100", "e4m3", "fp32"),
             "e5m2": ("h100", "e5m2", "fp32"), "e2m3": ("b200", "e2m3", "fp32"), "e3m2": ("b200", "e3m2", "fp32"),
             "e2m1": ("b200", "e2m1", "fp32")}
    for fmt, (unit, fin, fout) in pairs.items():
        base = ["dot", "--unit", unit, "--in", fin, "--out", fout]
        if fin in ("e2m3", "e3m2", "e2m1"):
            base += ["--instruction", "tcgen05.mxf8f6f4"]
        has_inf = fin in ("fp64", "fp32", "tf32", "bf16", "fp16", "e5m2")
        has_nan = fin not in ("e2m3", "e3m2", "e2m1")
        for k, v, exp in (("huge", "1e300", "ok" if fin == "fp64" else "refuse"),
                          ("hugeneg", "-1e300", "ok" if fin == "fp64" else "refuse"),
                          ("nan", "nan", "ok" if has_nan else "refuse"), ("inf", "inf", "ok" if has_inf else "refuse"),
                          ("neginf", "-inf", "ok" if has_inf else "refuse"), ("tiny", "1e-300", "either"),
                          ("negzero", "-0", "ok"), ("hexbig", "0x1p+2000", "refuse"), ("snan", "snan", "either"),
                          ("bits-wide", "bits:0x1ffffffffffffffff", "refuse"), ("max-plus", "0x1.fffffffffffffp+1023", "either"),
                          ("words", "one", "refuse"), ("percent", "50%", "refuse"), ("comma-decimal", "1,5e0", "either")):
            add(f"dot-{fmt}-a-{k}", base + ["--a", v, "--b", "1" if k != "comma-decimal" else "1,1"], expect=exp,
                names="--a", finite=False, issue_class="out-of-range values per format")
        add(f"dot-{fmt}-c-huge", base + ["--a", "1", "--b", "1", "--c", "1e309"], names="--c",
            issue_class="out-of-range values per format")
    # block-scaled dot: scale values in ue8m0 / ue4m3
    for fmt, fin, ins, bs in (("ue8m0", "e4m3", "tcgen05.mxf8f6f4", "32"), ("ue4m3", "e2m1", "tcgen05.mxf4nvf4", "16")):
        mx = ["dot", "--unit", "b200", "--in", fin, "--out", "fp32", "--instruction", ins, "--a", "1,1", "--b", "1,1",
              "--block-size", bs]
        for k, v in {"zero": "0", "neg": "-1", "nan": "nan", "inf": "inf", "huge": "1e300", "half": "0.75",
                     "two-scales": "1,1", "none": ""}.items():
            # ue8m0 has no zero, ue4m3 has one; both have a NaN (the scaled product is then NaN)
            valid = k == "nan" or (k == "zero" and fmt == "ue4m3")
            add(f"dot-scale-{fmt}-{k}", mx + ["--scale-format", fmt, "--scale-a", v, "--scale-b", "1"],
                expect="ok" if valid else "either" if k in ("half",) else "refuse", names="--scale-a", finite=False,
                issue_class="zero into ue8m0" if k == "zero" else "out-of-range values per format")
        add(f"dot-scale-{fmt}-ok", mx + ["--scale-format", fmt, "--scale-a", "2", "--scale-b", "0.5"], expect="ok",
            check="'0x40000000' in out", check_what="d = 2 * 0.5 * (1 + 1) = 2")
    add("dot-scale-format-on-plain-row", DOT + ["--scale-format", "ue8m0", "--scale-a", "1", "--scale-b", "1"],
        names=["--scale", "scale factors"])
    # lists
    for k, v in {"trailing-comma": "1,2,", "empty-item": "1,,2", "only-comma": ",", "blank": " ", "semicolon": "1;2",
                 "spaces": "1, 2", "unicode-minus": "\u22121,2", "many": ",".join(["1"] * 30000)}.items():
        argv = with_opt(DOT, "a", v)[0]
        if k == "many":
            argv = with_opt(argv, "b", v)[0]
        add(f"dot-a-list-{k}", argv,
            expect="either" if k in ("many", "spaces") else "refuse", names="--a", issue_class="value lists")
    add("dot-no-a", without(DOT, "a"), names="--a")
    add("dot-a-b-empty", with_opt(with_opt(DOT, "a", "")[0], "b", "")[0], names="--a", expect="either")
    add("dot-json-nan-out", ["dot", "--unit", "h100", "--in", "fp16", "--out", "fp32", "--a", "nan", "--b", "1",
                             "--json"], expect="ok", finite=False, check="js is not None",
        check_what="--json must print valid JSON", issue_class="non-finite JSON numbers")
    add("dot-json-inf-out", ["dot", "--unit", "h100", "--in", "fp16", "--out", "fp32", "--a", "inf", "--b", "1",
                             "--json"], expect="ok", finite=False, check="js is not None",
        check_what="--json must print valid JSON", issue_class="non-finite JSON numbers")


def conflict_cases():
    add("dot-unit-and-config", DOT + ["--unit-config", "{fx}/unit_ok.json"], names=["--unit", "--unit-config"])
    add("dot-no-unit", without(DOT, "unit"), names="--unit")
    add("gemm-files-and-sizes", GEMM + ["--a", "{fx}/m2x2.mtx", "--b", "{fx}/m2x2.mtx"], names=["--a", "--m"])
    add("gemm-a-without-b", ["gemm", "--unit", "h100", "--in", "fp16", "--a", "{fx}/m2x2.mtx"], names="--b")
    add("gemm-no-sizes", ["gemm", "--unit", "h100", "--in", "fp16"], names="--m")
    add("gemm-ell-uniform", GEMM + ["--ell", "3"], expect="either", names="--ell")
    add("gemm-splitk-gt-k", GEMM + ["--split-k", "64"], expect="either", names="--split-k")
    add("gemm-fabsum-gt-k", GEMM + ["--fabsum", "1000"], expect="either", names="--fabsum")
    add("gemm-words-unit-variant", GEMM + ["--words", "3", "--variant", "fp32"], expect="either", names=["--words", "--variant"])
    add("gemm-checkrows-gt-m", GEMM + ["--check-rows", "100"], expect="either", names="--check-rows")
    add("lu-n-and-matrix-file", LU + ["--matrix", "{fx}/m4.mtx"], names=["--n", "--matrix"])
    add("lu-r-gt-n", LU + ["--r", "64"], expect="either", names="--r")
    add("lu-s-gt-r", LU + ["--r", "8", "--s", "16"], expect="either", names="--s")
    add("lu-maxit-without-refine", LU + ["--max-iterations", "5"], names=["--max-iterations", "--refine"])
    add("lu-working-without-refine", LU + ["--working", "fp64"], names=["--working", "--refine"])
    add("lu-cond-with-file", ["lu", "--unit", "h100", "--matrix", "{fx}/m4.mtx", "--cond", "10"], names="--cond")
    add("lu-seed-with-file", ["lu", "--unit", "h100", "--matrix", "{fx}/m4.mtx", "--seed", "3"], names="--seed",
        expect="either")
    add("probe-instruction-bogus", PROBE + ["--instruction", "x"], names=["--instruction", "instruction 'x'"])
    add("vd-zero-c-and-c", VD + ["--zero-c"], names=["--zero-c", "--c"])
    add("vd-no-c", without(VD, "c"), names=["--c", "--zero-c"])
    add("bench-verify-inject-outside", BVER + ["--inject", "kernel@500"], names="--inject",
        issue_class="bench verify --inject outside the run")
    add("bench-verify-inject-first", BVER + ["--first", "1000", "--inject", "kernel@3"], names="--inject",
        issue_class="bench verify --inject outside the run")
    add("bench-verify-inject-inside", BVER + ["--inject", "kernel@5"], expect="ok", accept_rc=[1],
        check="'\"case\":5,' in out", check_what="the injected mismatch is reported at case 5")
    for k, v in {"noat": "kernel", "badcheck": "foo@1", "neg": "kernel@-1", "empty": "", "huge": "kernel@99999999999999999999",
                 "twoats": "kernel@1@2"}.items():
        add(f"bench-verify-inject-{k}", BVER + ["--inject", v], names="--inject", issue_class="--inject out of range")
    add("bench-verify-inject-octal", BVER + ["--inject", "kernel@010"], expect="either", accept_rc=[1], names="--inject",
        check="'\"case\":10,' in out", check_what="kernel@010 must mean case 10", issue_class="leading-zero integers read as octal")
    add("bench-verify-first-overflow", ["bench", "verify", "--cases", "1000", "--first", str(10 ** 15)], expect="either",
        names="--first")
    add("bench-dot-seconds-neg", with_opt(BDOT, "seconds", "-1")[0], names="--seconds")
    add("bench-dot-seconds-nan", with_opt(BDOT, "seconds", "nan")[0], names="--seconds")
    add("bench-dot-seconds-inf", with_opt(BDOT, "seconds", "inf")[0], names="--seconds")
    add("bench-dot-seconds-zero", with_opt(BDOT, "seconds", "0")[0], names="--seconds", expect="either")
    add("bench-dot-seconds-word", with_opt(BDOT, "seconds", "fast")[0], names="--seconds")
    add("bench-dot-seconds-repeated", BDOT + ["--seconds", "0.1"], names="--seconds",
        issue_class="repeated options silently keeping the last")
    add("bench-verify-positional-extra", ["bench", "verify", "extra", "--cases", "10"], names="extra")
    add("bench-two-names", ["bench", "dot", "gemm", "--unit", "h100"], names="gemm")
    add("bench-none", ["bench"], names="bench")
    add("experiment-unknown", ["experiment", "nope-fig1"], names="nope-fig1", issue_class="unknown experiment ids")
    add("experiment-two-ids", ["experiment", "lopez2022-fig3a", "blanchard2020-fig3.1", "--quick", "--out", "{tmp}/o"],
        names="blanchard2020-fig3.1")
    add("experiment-id-and-list", ["experiment", "lopez2022-fig3a", "--list"], names=["--list", "lopez2022-fig3a"])
    add("experiment-none", ["experiment"], names="experiment")
    add("experiment-blank-id", ["experiment", " "], names="experiment")
    add("experiment-case", ["experiment", "LOPEZ2022-FIG3A", "--quick", "--out", "{tmp}/o"], expect="either",
        names="LOPEZ2022-FIG3A", timeout=60)
    add("experiment-prefix", ["experiment", "lopez2022", "--quick", "--out", "{tmp}/o"], names="lopez2022")
    add("experiment-out-missing-parent", ["experiment", "lopez2022-fig3a", "--quick", "--out", "{fx}/a.txt/x/y"],
        names="--out", component="outputs", issue_class="output folders checked only after computing", timeout=60)
    add("experiment-out-is-file", ["experiment", "lopez2022-fig3a", "--quick", "--out", "{fx}/a.txt"],
        names="--out", component="outputs", issue_class="output folders checked only after computing", timeout=60)
    add("experiment-out-dev-full", ["experiment", "lopez2022-fig3a", "--quick", "--out", "/dev/full"],
        names="--out", component="outputs", timeout=60)
    add("experiment-list-json", ["experiment", "--list", "--json"], expect="ok", check="js is not None or out.strip().startswith('[')")
    add("experiment-quick-list", ["experiment", "--list", "--quick"], expect="either", names="--quick")
    add("units-json", ["units", "--json"], expect="ok", check="out.strip().startswith(('{', '['))", finite=False)
    add("units-evidence-unknown", ["units", "--unit", "v100", "--evidence", "extra"], names="extra")
    add("report-positional", ["report", "extra"], names="extra")
    add("report-unknown-option", ["report", "--unit", "h100"], names="--unit")
    add("top-empty-command", [""], names="''")
    add("top-dash-command", ["--unit"], names="--unit")
    add("top-help-typo", ["--hlep"], names="--hlep")
    add("dot-positional", DOT + ["extra"], names="extra")
    add("dot-option-equals-empty", ["dot", "--unit=", "--in", "fp16", "--out", "fp32", "--a", "1", "--b", "1"],
        names=["--unit", "''"])
    add("dot-single-dash", ["dot", "-unit", "h100", "--in", "fp16", "--out", "fp32", "--a", "1", "--b", "1"], names="-unit")
    add("dot-option-needs-value", ["dot", "--unit", "h100", "--in", "fp16", "--out", "fp32", "--a", "1", "--b"], names="--b")
    add("dot-flag-with-value", DOT + ["--json=yes"], names="--json")
    add("dot-value-looks-like-option", ["dot", "--unit", "--in", "fp16", "--out", "fp32", "--a", "1", "--b", "1"],
        names="--unit")
    add("dot-negative-value-as-next", ["dot", "--unit", "h100", "--in", "fp16", "--out", "fp32", "--a", "-1", "--b", "-2"],
        expect="ok", check="'2' in out")
    add("dot-double-dash-end", DOT + ["--"], names="--")


def explore_cases():
    for k, v in {"no-eq": "fraction_bits", "unknown-key": "colour=red", "empty-values": "fraction_bits=",
                 "reversed": "fraction_bits=28..20", "too-many": "fraction_bits=0..100000",
                 "neg": "fraction_bits=-5..-1", "word": "fraction_bits=a..b", "huge": "fraction_bits=1..99999999999",
                 "bad-round": "alignment_rounding=up", "bad-sticky": "sticky_bit=maybe", "blank": " ",
                 "dup-values": "fraction_bits=20,20", "eq-only": "=", "carry-huge": "carry_bits=0..1000",
                 "unicode": "fraction_bits=２０", "octal": "fraction_bits=010,011", "fma-zero": "fma_size=0",
                 "three-dots": "fraction_bits=1...3", "spaces": "fraction_bits = 20"}.items():
        argv = ["explore", "--base", "v100", "--vary", v, "--workload", "gemm:k=64,m=4,n=4",
                "--monotonicity-budget", "100"]
        add(f"explore-vary-{k}", argv, component="explore", names="--vary", expect="either" if k in ("dup-values", "octal") else "refuse",
            issue_class="bad --vary specs", check="'020' not in out" if k == "octal" else None)
    add("explore-vary-same-key-twice", EXPLORE + ["--vary", "fraction_bits=24..25"], component="explore", names="--vary")
    add("explore-designs-too-many", ["explore", "--base", "v100", "--vary", "fraction_bits=0..100",
                                     "--vary", "carry_bits=0..60", "--workload", "gemm:k=64,m=4,n=4"],
        component="explore", names="--vary")
    for k, v in {"notgemm": "lu:n=8", "badkey": "gemm:x=3", "k0": "gemm:k=0", "kneg": "gemm:k=-1", "khuge": "gemm:k=99999999999",
                 "dist": "gemm:dist=normal", "blank": "", "colon-only": "gemm:", "noeq": "gemm:k", "dupkey": "gemm:k=64,k=128",
                 "octal": "gemm:k=064", "mhuge": "gemm:m=100000,n=100000,k=100000", "trailing-comma": "gemm:k=64,",
                 "gemmx": "gemmx:k=64"}.items():
        argv = ["explore", "--base", "v100", "--vary", "fraction_bits=22..23", "--workload", v, "--monotonicity-budget", "100"]
        add(f"explore-workload-{k}", argv, component="explore", names="--workload",
            expect="either" if k in ("colon-only", "trailing-comma", "octal") else "refuse", issue_class="bad workload specs",
            **({"check": "same", "same_as": argv[:6] + ["gemm:k=64"] + argv[7:]} if k == "octal" else {}))
    add("explore-mono-skipped", with_opt(EXPLORE, "monotonicity-budget", "0")[0], component="explore", expect="either",
        check="'monoton' not in out.lower() or 'skip' in out.lower() or 'not checked' in out.lower() or 'n/a' in out.lower()",
        check_what="monotonicity skipped must not be reported as monotonic",
        issue_class="explore with monotonicity skipped reporting 'monotonic'")
    add("explore-mono-skipped-json", with_opt(EXPLORE, "monotonicity-budget", "0")[0] + ["--json"], component="explore",
        expect="either", check="'\"monotonic\": true' not in out.replace('\":true', '\": true')",
        check_what="monotonicity skipped must not be reported as monotonic",
        issue_class="explore with monotonicity skipped reporting 'monotonic'")
    add("explore-no-vary", ["explore", "--base", "v100", "--workload", "gemm:k=64,m=4,n=4", "--monotonicity-budget", "100"],
        component="explore", expect="either", names="--vary")
    add("explore-out-dir-missing", EXPLORE + ["--out-dir", "{fx}/a.txt/q"], component="outputs", names="--out-dir",
        issue_class="output folders checked only after computing")
    add("explore-out-dir-file", EXPLORE + ["--out-dir", "{fx}/a.txt"], component="outputs", names="--out-dir",
        issue_class="output folders checked only after computing")
    add("explore-out-dir-devfull", EXPLORE + ["--out-dir", "/dev/full"], component="outputs", names="--out-dir")
    add("explore-base-and-config", EXPLORE + ["--unit-config", "{fx}/unit_ok.json"], component="explore",
        names=["--base", "--unit-config"])
    add("explore-pair-missing", EXPLORE + ["--in", "e4m3"], component="explore", names=["--in", "e4m3"])


def file_cases():
    m = "{fx}/m2x2.mtx"
    for opt, base in (("a", ["gemm", "--unit", "h100", "--in", "fp16", "--b", m]),
                      ("matrix", ["lu", "--unit", "h100"])):
        tgt = base[0]
        for k, v in {"missing": "{fx}/nope.mtx", "dir": "{fx}/adir", "empty": "{fx}/empty", "binary": "{fx}/binary.bin",
                     "huge-dims": "{fx}/m_huge_dims.mtx", "huge-nnz": "{fx}/m_coord_huge_nnz.mtx",
                     "neg-dims": "{fx}/m_neg_dims.mtx", "extra-values": "{fx}/m_extra.mtx",
                     "npy-huge-shape": "{fx}/v_huge_shape.npy", "npy-3d": "{fx}/v_3d.npy", "npy-1d": "{fx}/v_1d.npy",
                     "npy-nan": "{fx}/v_nan.npy", "npy-zero-shape": "{fx}/v_zero_shape.npy", "zero-mtx": "{fx}/m0.mtx",
                     "dev-null": "/dev/null", "unit-json": "{fx}/unit_ok.json", "blank-name": " ",
                     "dev-zero": "/dev/zero", "proc": "/proc/self/status"}.items():
            argv = base + ["--" + opt, v]
            add(f"{tgt}-file-{k}", argv, names="--" + opt, component="matrix files",
                timeout=20, issue_class="files")
        for k, v in {"npy-f2": "{fx}/v_f2.npy", "npy-fortran": "{fx}/v2_fortran.npy", "mtx-crlf": "{fx}/m_crlf.mtx",
                     "mtx-hex": "{fx}/m_hexval.mtx", "mtx-sym": "{fx}/m_sym.mtx"}.items():
            add(f"{tgt}-file-{k}", base + ["--" + opt, v], expect="either", names="--" + opt, component="matrix files")
    # pipes
    add("gemm-a-from-pipe", sh="cat {fx}/m2x2.mtx | $TCSIM gemm --unit h100 --in fp16 --a /dev/stdin --b {fx}/m2x2.mtx",
        target="gemm", expect="ok", component="matrix files", issue_class="matrix files from pipes refused")
    add("gemm-a-process-subst", sh="$TCSIM gemm --unit h100 --in fp16 --a <(cat {fx}/m2x2.mtx) --b {fx}/m2x2.mtx",
        target="gemm", expect="ok", component="matrix files", issue_class="matrix files from pipes refused")
    add("lu-matrix-process-subst", sh="$TCSIM lu --unit h100 --matrix <(cat {fx}/m4.mtx) --pivot",
        target="lu", expect="ok", component="matrix files", issue_class="matrix files from pipes refused")
    add("vd-a-process-subst", sh="$TCSIM validate-dump --unit v100 --in fp16 --out fp32 --a <(cat {fx}/a.txt) "
        "--b {fx}/b.txt --c {fx}/c.txt --d {fx}/d.txt", target="validate-dump", expect="ok", component="files")
    add("dot-unit-config-pipe", sh="cat {fx}/unit_ok.json | $TCSIM dot --unit-config /dev/stdin --in fp16 --out fp32 --a 1 --b 1",
        target="dot", expect="ok", component="files")
    add("gemm-npy-pipe", sh="cat {fx}/v2.npy | $TCSIM gemm --unit h100 --in fp16 --a /dev/stdin --b {fx}/m2x2.mtx",
        target="gemm", expect="ok", component="matrix files", issue_class="matrix files from pipes refused")
    add("gemm-same-pipe-twice", sh="cat {fx}/m2x2.mtx | $TCSIM gemm --unit h100 --in fp16 --a /dev/stdin --b /dev/stdin",
        target="gemm", expect="either", names=["--a", "--b"], component="matrix files")
    # validate-dump files
    for k, v in {"crlf": "{fx}/a_crlf.txt", "no-newline": "{fx}/a_no_newline.txt"}.items():
        add(f"vd-a-{k}", with_opt(VD, "a", v)[0], expect="either", names="--a", component="files")
    for k, v in {"missing": "{fx}/nope.txt", "dir": "{fx}/adir", "empty": "{fx}/empty", "binary": "{fx}/binary.bin",
                 "dev-null": "/dev/null", "blank": ""}.items():
        for opt in ("a", "d"):
            add(f"vd-{opt}-{k}", with_opt(VD, opt, v)[0], names=["--" + opt, v if v else "''"], component="files")
    add("vd-max-report-0", VD + ["--max-report", "0"], expect="ok", component="files")
    # unit JSON files
    for name, expect in {"unit_empty_object": "refuse", "unit_null": "refuse", "unit_number": "refuse",
                         "unit_string": "refuse", "unit_blank": "refuse", "unit_trailing_garbage": "refuse",
                         "unit_bom": "either", "unit_dup_key": "refuse", "unit_fma_huge": "refuse",
                         "unit_fraction_float": "either", "unit_bool_fma": "refuse", "unit_no_outputs": "refuse",
                         "unit_unicode_name": "either", "unit_blank_name": "refuse", "unit_nested": "refuse",
                         "unit_deep_ok_list": "ok", "unit_two_units": "refuse", "unit_nan_value": "refuse",
                         "unit_syntax": "refuse", "unit_type": "refuse"}.items():
        for cmd, base in (("dot", ["dot", "--in", "fp16", "--out", "fp32", "--a", "1", "--b", "1"]),
                          ("gemm", ["gemm", "--in", "fp16", "--m", "2", "--n", "2", "--k", "4"]),
                          ("probe", ["probe", "--in", "fp16", "--out", "fp32", "--no-fasi2021"])):
            if cmd != "dot" and name not in ("unit_syntax", "unit_null", "unit_nested", "unit_dup_key", "unit_ok"):
                continue
            add(f"{cmd}-unit-config-{name}", base + ["--unit-config", "{fx}/" + name + ".json"], expect=expect,
                names=["--unit-config", name], component="unit JSON", issue_class="malformed JSON unit files")


def output_cases():
    add("gemm-write-d-dev-full", GEMM + ["--write-d", "/dev/full"], names="--write-d", component="outputs", rc=[1, 2],
        issue_class="unchecked last write to /dev/full")
    add("gemm-write-d-missing-dir", GEMM + ["--write-d", "{fx}/nodir/D.txt"], names="--write-d", component="outputs",
        rc=[1, 2], issue_class="output folders checked only after computing")
    add("gemm-write-d-dir", GEMM + ["--write-d", "{fx}/adir"], names="--write-d", component="outputs", rc=[1, 2])
    add("gemm-write-d-blank", GEMM + ["--write-d", ""], names="--write-d", component="outputs")
    add("gemm-write-d-ok", GEMM + ["--write-d", "{tmp}/D.txt"], expect="ok", component="outputs",
        check="exists('D.txt') and len(read('D.txt')) > 0")
    add("gemm-write-d-late", ["gemm", "--unit", "h100", "--in", "fp16", "--m", "16", "--n", "16", "--k", "65536",
                              "--write-d", "{fx}/nodir/D.txt"], names="--write-d", component="outputs", rc=[1, 2],
        issue_class="output folders checked only after computing", timeout=60)
    for cmd, base in (("units", ["units", "--json"]), ("dot", DOT + ["--json"]), ("gemm", GEMM + ["--json"]),
                      ("lu", LU + ["--json"]), ("experiment", ["experiment", "--list"]),
                      ("probe", PROBE + ["--json"]), ("monotonicity", MONO + ["--json"]),
                      ("explore", EXPLORE + ["--json"]), ("bench verify", BVER + ["--json"]),
                      ("validate-dump", VD), ("report", ["report"]), ("gemm-text", GEMM), ("lu-text", LU)):
        add(f"{cmd.replace(' ', '-')}-stdout-dev-full", sh="$TCSIM " + " ".join(base) + " > /dev/full",
            target=cmd.split("-")[0] if cmd.endswith("-text") else cmd, rc=[1, 2], component="outputs",
            issue_class="unchecked last write of --json to /dev/full", timeout=60)
    add("gemm-write-d-proc", GEMM + ["--write-d", "/proc/version"], names="--write-d", component="outputs", rc=[1, 2])
    add("gemm-write-d-stdout", GEMM + ["--write-d", "-"], expect="ok", component="outputs", check="'0x' in out or len(out) > 0")
    add("explore-out-dir-proc", EXPLORE + ["--out-dir", "/proc/tcsim-audit"], component="outputs", names="--out-dir")
    add("experiment-out-proc", ["experiment", "lopez2022-fig3a", "--quick", "--out", "/proc/tcsim-audit"],
        names="--out", component="outputs", issue_class="output folders checked only after computing", timeout=60)
    # finite=False: `tcsim units` describes rows (evidence prose saying "gives Inf", the
    # overflow rule "inf"); it prints no computed number that could be non-finite.
    add("units-evidence-no-unit", ["units", "--evidence"], expect="either", names=["--evidence", "--unit"], finite=False)
    add("units-unit-alias", ["units", "--unit", "hopper"], expect="ok", finite=False)
    add("units-unit-upper", ["units", "--unit", "H100"], expect="either", names=["--unit", "'H100'"], finite=False)
    add("report-json", ["report", "--json"], expect="ok", finite=False, check="js is not None",
        check_what="--json must print one valid JSON object", timeout=60, quiet_ok=True)
    add("report-json-twice", ["report", "--json", "--json"], names="--json")
    add("units-stdout-closed", sh="$TCSIM units --json >&-", target="units", rc=[1, 2], component="outputs")
    add("units-stdout-pipe-head", sh="$TCSIM units --json | head -c 10 > /dev/null; exit ${PIPESTATUS[0]}",
        target="units", expect="ok", accept_rc=[141], component="outputs", finite=False)


def numeric_cases():
    """Values that are valid syntax but lead to overflow or nonsense results."""
    for fmt in ("e4m3", "e5m2", "fp16", "e2m1"):
        unit = "b200" if fmt == "e2m1" else "h100"
        extra = ["--instruction", "tcgen05.mxf8f6f4"] if fmt == "e2m1" else []
        add(f"gemm-gen-overflow-{fmt}", ["gemm", "--unit", unit, "--in", fmt, "--m", "4", "--n", "4", "--k", "64",
                                         "--dist", "uniform-11", "--scaling", "off"] + extra, expect="either",
            component="gemm", issue_class="generated matrices overflowing the input format")
        # e2m1's files are k = 32 (the block-scaled instruction's scale blocks), else k = 2.
        big, tiny, right = (("m2x32_big_e4m3", "m2x32_tiny", "m32x2") if fmt == "e2m1"
                            else ("m_big_e4m3", "m_tiny", "m2x2"))
        add(f"gemm-file-overflow-{fmt}", ["gemm", "--unit", unit, "--in", fmt, "--a", f"{{fx}}/{big}.mtx",
                                          "--b", f"{{fx}}/{right}.mtx", "--scaling", "off"] + extra, expect="either",
            names="--a", component="gemm", issue_class="generated matrices overflowing the input format")
        add(f"gemm-file-tiny-{fmt}", ["gemm", "--unit", unit, "--in", fmt, "--a", f"{{fx}}/{tiny}.mtx",
                                      "--b", f"{{fx}}/{right}.mtx"] + extra, expect="either", names="--a", component="gemm")
        # k = 32 for e2m1: tcgen05.mxf8f6f4 scales blocks of 32 along k (k = 16 is refused by --block-size).
        add(f"gemm-ell-{fmt}", ["gemm", "--unit", unit, "--in", fmt, "--m", "4", "--n", "4",
                                "--k", "32" if fmt == "e2m1" else "16",
                                "--dist", "pm10^phi", "--ell", "300"] + extra, expect="either", component="gemm",
            names=["--ell", "--dist"], issue_class="generated matrices overflowing the input format")
    add("gemm-zero-matrix", ["gemm", "--unit", "h100", "--in", "fp16", "--a", "{fx}/m_zero.mtx", "--b", "{fx}/m2x2.mtx"],
        expect="either", component="gemm", names="--a")
    for k, v in {"zero": "0", "neg": "-10", "nan": "nan", "inf": "inf", "one": "1", "huge": "1e300", "word": "big",
                 "tiny": "1e-300", "hex": "0x1p10"}.items():
        argv, _ = with_opt(LU, "cond", v)
        add(f"lu-cond-{k}", argv, expect="either" if k in ("one", "hex", "huge") else "refuse",
            names=["--cond", "breakdown"] if k == "huge" else "--cond", rc=[1, 2] if k == "huge" else [2], component="LU")
    for k in ("q1dq2", "hpl-ai", "randsvd"):
        add(f"lu-matrix-{k}-n1", ["lu", "--unit", "h100", "--n", "1", "--matrix", k], expect="either",
            names=["--n", "--matrix"], component="LU")
    add("lu-singular-pivot", ["lu", "--unit", "h100", "--matrix", "{fx}/m_singular.mtx", "--pivot"], expect="either",
        rc=[1, 2], component="LU", names=["singular", "pivot"])
    add("lu-zero-matrix", ["lu", "--unit", "h100", "--matrix", "{fx}/m_zero.mtx", "--pivot"], rc=[1, 2], component="LU")
    add("lu-zero-matrix-solve", ["lu", "--unit", "h100", "--matrix", "{fx}/m_zero.mtx", "--pivot", "--refine", "lu-ir"],
        rc=[1, 2], component="LU")
    add("lu-singular-refine", ["lu", "--unit", "h100", "--matrix", "{fx}/m_singular.mtx", "--pivot", "--refine",
                               "gmres-ir"], rc=[1, 2], component="LU", expect="either")
    add("lu-tiny-matrix", ["lu", "--unit", "h100", "--matrix", "{fx}/m_tiny.mtx", "--pivot", "--json"], rc=[1, 2],
        component="LU", expect="either")
    add("lu-1x1", ["lu", "--unit", "h100", "--matrix", "{fx}/m1.mtx", "--json"], expect="ok", component="LU")
    add("lu-cond-huge-refine", ["lu", "--unit", "h100", "--n", "32", "--cond", "1e30", "--refine", "lu-ir"],
        expect="either", rc=[1, 2], component="LU")
    add("lu-n-max", ["lu", "--unit", "h100", "--n", "32768"], expect="either", component="LU", timeout=20,
        issue_class="huge sizes", long_ok=True)
    add("gemm-huge", ["gemm", "--unit", "h100", "--in", "fp16", "--m", "1048576", "--n", "1048576", "--k", "67108864"],
        expect="either", component="gemm", issue_class="huge sizes", long_ok=True)
    add("gemm-huge-k-only", ["gemm", "--unit", "h100", "--in", "fp16", "--m", "1", "--n", "1", "--k", "67108864"],
        expect="either", component="gemm", issue_class="huge sizes", long_ok=True, timeout=30)
    add("bench-gemm-max", ["bench", "gemm", "--unit", "h100", "--n", "16384"], expect="either", component="bench",
        issue_class="huge sizes", long_ok=True)
    add("bench-verify-huge", ["bench", "verify", "--cases", "1000000000000"], expect="either", component="bench verify",
        issue_class="no progress on long runs", long_ok=True)
    add("monotonicity-budget-max", ["monotonicity", "--unit", "v100", "--in", "fp16", "--out", "fp32", "--budget",
                                     "1099511627776"], expect="either", component="monotonicity", long_ok=True,
        issue_class="no progress on long runs")
    add("gemm-long-progress", ["gemm", "--unit", "h100", "--in", "fp16", "--m", "16", "--n", "16", "--k", "65536"],
        expect="ok", component="gemm", issue_class="no progress on long runs", timeout=60, long_ok=True)
    add("lu-long-progress", ["lu", "--unit", "h100", "--n", "1024"], expect="ok", component="LU",
        issue_class="no progress on long runs", timeout=60, long_ok=True)
    add("monotonicity-default", ["monotonicity", "--unit", "v100", "--in", "fp16", "--out", "fp32"], expect="ok",
        component="monotonicity", issue_class="no progress on long runs", timeout=60, long_ok=True)


def fit_cases():
    """tcsim fit beyond its integer options (issue 26): its outputs and a long search."""
    add("fit-ok", FIT, expect="ok", component="fit")
    # No row fits 500 cases: the search runs its 5 s and must show progress meanwhile; exit 1 is its answer.
    add("fit-nothing-fits", ["fit", "--in", "fp16", "--out", "fp32", "--a", "{fx}/a_many.txt", "--b", "{fx}/b_many.txt",
                             "--zero-c", "--d", "{fx}/d_many_ones.txt", "--seconds", "5"],
        expect="ok", accept_rc=[1], timeout=40, component="fit", issue_class="long runs without progress")
    add("fit-write-unit-full", FIT + ["--write-unit", "/dev/full"], component="outputs", names="--write-unit",
        issue_class="writes not checked through close")
    # Refused before a search of up to an hour (refused-late otherwise, a hang at the timeout).
    add("fit-write-unit-missing-folder", FIT_NONE + ["--seconds", "3600", "--write-unit", "{fx}/nodir/row.json"],
        component="outputs", names="--write-unit", issue_class="outputs checked after the computation")
    add("fit-suggest-dir-under-file", FIT_NONE + ["--seconds", "3600", "--suggest", "5", "--suggest-dir",
                                                   "{fx}/a.txt/ask"],
        component="outputs", names="--suggest-dir", issue_class="outputs checked after the computation")
    # Exit 1 is the benchmark's verdict (a row that differs on its check at 1,000-case dumps).
    add("bench-fit-json-progress", ["bench", "fit", "--evaluate", "random", "--rows", "2", "--cases", "1000", "--json"],
        expect="ok", accept_rc=[1], timeout=120, component="fit", issue_class="long runs without progress")


def cases():
    if not _cases:
        int_option_cases()
        name_option_cases()
        value_cases()
        conflict_cases()
        explore_cases()
        file_cases()
        output_cases()
        numeric_cases()
        fit_cases()
    return [dict(c) for c in _cases]
