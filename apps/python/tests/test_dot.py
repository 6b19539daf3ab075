"""tcsim.dot: the same bits as `tcsim dot` on shared cases and on 1,000 random ones, the same
bits for every layout, dtype and thread count, and every shape and dtype error."""
import concurrent.futures
import json

import numpy as np
import pytest

import tcsim
from conftest import random_seed


def cli_bits(cli, unit, fin, fout, a, b, c, instruction=None):
    """`tcsim dot --json` on patterns (bits:0x.. literals): d's pattern as an int."""
    lit = lambda xs: ",".join(f"bits:{int(x):#x}" for x in xs)
    args = ["dot", "--unit", unit, "--in", fin, "--out", fout, "--a", lit(a), "--b", lit(b), "--c", f"bits:{int(c):#x}"]
    if instruction:
        args += ["--instruction", instruction]
    return int(cli.json(*args)["bits"], 16)


SHARED = [  # unit, in, out, a, b, c, instruction (values exact in the formats)
    ("v100", "fp16", "fp32", [1.0, 2.0**-24, -3.5, 0.25], [1.0, 1.0, 2.0, -8.0], 2.0**-20, None),
    ("v100", "fp16", "fp16", [65504.0, 1.0, 2.0**-14], [1.0, -1.0, 0.5], 1.0, None),
    ("a100", "bf16", "fp32", [3.0, -2.0**-100, 1.5] * 3, [2.0**-7, 1.0, 3.0] * 3, -1.0, None),
    ("a100", "tf32", "fp32", [1.0 + 2.0**-10, 2.0**20, -(2.0**20)], [1.0, 1.0, 1.0], 2.0**-30, None),
    ("a100", "fp64", "fp64", [0.1, 0.2, 0.3, 1e300], [3.0, -7.0, 11.0, 1e-300], 0.5, None),
    ("h100", "e4m3", "fp32", [448.0, -448.0, 2.0**-9, 1.75] * 8, [1.0, 1.0, 2.0**-6, -0.5] * 8, 1e-3, None),
    ("h100", "e5m2", "fp16", [57344.0, 2.0**-16, -1.5, 3.0] * 8, [1.0, 2.0, 2.0, 0.75] * 8, 0.0, None),
    ("h100", "fp16", "fp32", [1.0, 2.0**-11] * 17, [1.0, 1.0] * 17, 0.0, "wgmma"),
    ("b200", "e2m1", "fp32", [6.0, -0.5, 1.5, 4.0] * 8, [0.5, 3.0, -2.0, 1.0] * 8, 0.25, None),
    ("l40s", "e4m3", "fp32", [1.0, 2.0**-3, 240.0] * 11, [-1.0, 3.0, 0.5] * 11, 7.0, None),
    ("t4", "fp16", "fp32", [], [], 1.5, None),
]


@pytest.mark.parametrize("case", SHARED, ids=[f"{c[0]}-{c[1]}-{c[2]}-K{len(c[3])}" for c in SHARED])
def test_shared_cases_same_bits_as_cli(cli, case):
    unit, fin, fout, a, b, c, instruction = case
    want = cli.json("dot", "--unit", unit, "--in", fin, "--out", fout, "--a", ",".join(x.hex() for x in a),
                    "--b", ",".join(x.hex() for x in b), "--c", c.hex(),
                    *(["--instruction", instruction] if instruction else []))
    r = tcsim.dot(unit, np.array(a, dtype=np.float64).reshape(len(a)), np.array(b, dtype=np.float64), c,
                  in_format=fin, out_format=fout, instruction=instruction)
    assert r.bits.shape == () and r.values.shape == ()
    assert int(r.bits) == int(want["bits"], 16)
    value = want["value"] if not isinstance(want["value"], str) else float(want["value"])
    assert float(r.values) == value or (np.isnan(r.values) and np.isnan(value))
    # The same through patterns.
    ra = tcsim.dot(tcsim.unit(unit), tcsim.encode(a, fin).reshape(len(a)), tcsim.encode(b, fin).reshape(len(b)),
                   tcsim.encode(c, fout), in_format=fin, out_format=fout, instruction=instruction)
    assert int(ra.bits) == int(want["bits"], 16)


def random_case(rng, units):
    unit = units[rng.integers(len(units))]
    pairs = tcsim.unit(unit).format_pairs()
    fin, fout = pairs[rng.integers(len(pairs))].split("->")
    widths = {f["name"]: f["width"] for f in tcsim.formats()}
    K = int(rng.integers(0, 41))
    pattern = lambda w, n: rng.integers(0, 1 << w, size=n, dtype=np.uint64) if w < 64 else rng.integers(
        0, np.iinfo(np.uint64).max, size=n, dtype=np.uint64, endpoint=True)
    # Each in the dtype encode returns for its format (dot refuses another width).
    typed = lambda f, n: pattern(widths[f], n).astype(tcsim.encode(np.zeros(0), f).dtype)
    return unit, fin, fout, typed(fin, K), typed(fin, K), typed(fout, 1)[0]


def test_random_cases_same_bits_as_cli(cli):
    """1,000 random elements (unit, format pair, K in 0..40, any patterns: NaN, Inf, subnormals)."""
    seed = random_seed("dot-vs-cli")
    rng = np.random.default_rng(seed)
    units = [u["name"] for u in tcsim.units()]
    cases = [random_case(rng, units) for _ in range(1000)]

    def python_bits(case):
        unit, fin, fout, a, b, c = case
        try:
            return int(tcsim.dot(unit, a, b, c, in_format=fin, out_format=fout).bits)
        except ValueError as e:
            return f"error: {e}"

    def cli_result(case):
        unit, fin, fout, a, b, c = case
        try:
            return cli_bits(cli, unit, fin, fout, a, b, c)
        except AssertionError as e:
            return f"cli error: {e}"

    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        want = list(pool.map(cli_result, cases))
    got = [python_bits(case) for case in cases]
    bad = [(i, cases[i][:3], got[i], want[i]) for i in range(len(cases)) if got[i] != want[i]]
    assert not bad, f"seed {seed}: {len(bad)} mismatches, first: {bad[:3]}"


def test_batch_layouts_threads_and_shapes_agree():
    seed = random_seed("dot-layouts")
    rng = np.random.default_rng(seed)
    n, K = 3000, 16
    for unit, fin, fout in [("h100", "fp16", "fp32"), ("h100", "e4m3", "fp32"), ("a100", "tf32", "fp32"),
                            ("v100", "fp16", "fp16"), ("a100", "fp64", "fp64"), ("b200", "e2m1", "fp32")]:
        x = rng.standard_normal((n, K)) * 4
        if fin == "e2m1":  # within its range: beyond, the saturating e2m1 refuses a value (issue 22)
            x = np.clip(x, -6, 6)
        y = rng.standard_normal((n, K))
        c = rng.standard_normal(n)
        base = tcsim.dot(unit, x, y, c, in_format=fin, out_format=fout, threads=1)
        xa, ya = tcsim.encode(x, fin), tcsim.encode(y, fin)
        variants = {
            "patterns": (xa, ya, tcsim.encode(c, fout)),
            "product-major": (np.ascontiguousarray(xa.T).T, np.ascontiguousarray(ya.T).T, c),
            "float32": (x.astype(np.float32).astype(np.float64), y, c),
        }
        for name, (a, b, cc) in variants.items():
            if name == "float32":
                continue
            for threads in (0, 1, 2):
                r = tcsim.dot(unit, a, b, cc, in_format=fin, out_format=fout, threads=threads)
                assert np.array_equal(r.bits, base.bits), (unit, fin, fout, name, threads, seed)
        # Batch shapes: (2, 1500, K) and a strided view give the per-element bits.
        r3 = tcsim.dot(unit, x.reshape(2, n // 2, K), y.reshape(2, n // 2, K), c.reshape(2, n // 2),
                       in_format=fin, out_format=fout)
        assert np.array_equal(r3.bits.reshape(n), base.bits)
        rs = tcsim.dot(unit, x[::3, ::2], y[::3, ::2], c[::3], in_format=fin, out_format=fout)
        want = tcsim.dot(unit, np.ascontiguousarray(x[::3, ::2]), np.ascontiguousarray(y[::3, ::2]),
                         np.ascontiguousarray(c[::3]), in_format=fin, out_format=fout)
        assert np.array_equal(rs.bits, want.bits)
        # Per element (a few): the batch is the element.
        for i in rng.integers(0, n, 5):
            one = tcsim.dot(unit, x[i], y[i], c[i], in_format=fin, out_format=fout)
            assert one.bits == base.bits[i]
        assert np.array_equal(base.values, tcsim.decode(base.bits, fout), equal_nan=True)


def test_result_dtypes_and_scalar_c():
    r = tcsim.dot("h100", np.ones((4, 16)), np.ones((4, 16)), 1.0, in_format="fp16", out_format="fp32")
    assert r.bits.dtype == np.uint32 and r.values.dtype == np.float64 and r.values.tolist() == [17.0] * 4
    values, bits = tcsim.dot("v100", np.ones((2, 4)), np.ones((2, 4)), None, in_format="fp16", out_format="fp16")
    assert bits.dtype == np.uint16 and values.tolist() == [4.0, 4.0]
    r = tcsim.dot("h100", np.ones((0, 16)), np.ones((0, 16)), None, in_format="fp16", out_format="fp32")
    assert r.bits.shape == (0,)


def test_user_unit_from_dict_and_file(tmp_path):
    h100 = tcsim.unit("h100")
    spec = h100.to_json()
    mine = tcsim.Unit.from_json(spec)
    assert mine == h100 and mine.name == "h100"
    path = tmp_path / "unit.json"
    path.write_text(json.dumps(spec))
    from_file = tcsim.Unit.from_json(path)
    a = np.arange(32, dtype=np.float64).reshape(2, 16) / 8
    assert np.array_equal(tcsim.dot(from_file, a, a, None, in_format="fp16", out_format="fp32").bits,
                          tcsim.dot("h100", a, a, None, in_format="fp16", out_format="fp32").bits)
    assert isinstance(h100.rows, list) and all(isinstance(r, dict) for r in h100.rows)


def test_units_are_the_clis(cli):
    """The schema rows of `tcsim units --json` (without its informational batch_paths)."""
    want = cli.json("units")
    for u in want:
        for row in u["datapaths"]:
            row.pop("batch_paths", None)
            row.pop("planar_paths", None)
    assert tcsim.units() == want
    assert tcsim.unit("hopper").name == "h100"


def test_shape_errors():
    one = np.ones((3, 4))
    with pytest.raises(ValueError, match=r"^a has shape \(3, 4\) but b has shape \(3, 5\); every a_i needs its b_i$"):
        tcsim.dot("v100", one, np.ones((3, 5)), None, in_format="fp16", out_format="fp32")
    with pytest.raises(ValueError, match=r"^c has shape \(4,\) but a and b have 4 products per element in a batch of shape \(3,\)"):
        tcsim.dot("v100", one, one, np.ones(4), in_format="fp16", out_format="fp32")
    with pytest.raises(ValueError, match=r"^a: expected an array of shape \(\.\.\., K\)"):
        tcsim.dot("v100", 1.0, 1.0, None, in_format="fp16", out_format="fp32")


def test_dtype_errors():
    one = np.ones((3, 4))
    with pytest.raises(TypeError, match=r"^a: dtype int64 is not allowed \(signed integers are ambiguous here"):
        tcsim.dot("v100", np.ones((3, 4), np.int64), one, None, in_format="fp16", out_format="fp32")
    with pytest.raises(TypeError, match=r"^b: dtype bool is not allowed"):
        tcsim.dot("v100", one, one > 0, None, in_format="fp16", out_format="fp32")
    with pytest.raises(TypeError, match=r"^c: dtype complex128 is not allowed"):
        tcsim.dot("v100", one, one, np.ones(3) * 1j, in_format="fp16", out_format="fp32")
    with pytest.raises(TypeError, match=r"^a: dtype object is not allowed"):
        tcsim.dot("v100", np.array([[None]]), one, None, in_format="fp16", out_format="fp32")
    with pytest.raises(TypeError, match=r"^unit: expected a tcsim.Unit or a built-in unit's name"):
        tcsim.dot(3, one, one, None, in_format="fp16", out_format="fp32")
    with pytest.raises(TypeError, match=r"^argument 'instruction' of tcsim.dot expects a str, got 3$"):
        tcsim.dot("h100", one, one, None, in_format="fp16", out_format="fp32", instruction=3)
    with pytest.raises(TypeError, match=r"give in_format= and out_format="):
        tcsim.dot("v100", one, one)


def test_pattern_errors_name_the_element():
    a = np.zeros((2, 3), np.uint8)
    a[1, 2] = 0x1F
    with pytest.raises(ValueError, match=r"^a\[1, 2\] 0x1f has bits set above the 4-bit width of format 'e2m1'$"):
        tcsim.dot("b200", a, np.zeros((2, 3), np.uint8), None, in_format="e2m1", out_format="fp32")
    with pytest.raises(TypeError, match=r"^c: dtype uint32 is not allowed for bit patterns of fp16 \(its storage width is 16 bits\)"):
        tcsim.dot("v100", np.ones((1, 4)), np.ones((1, 4)), np.array([0x10000], np.uint32), in_format="fp16",
                  out_format="fp16")


@pytest.mark.parametrize("args, python", [
    (["--unit", "v100", "--in", "e4m3", "--out", "fp32"], dict(unit="v100", in_format="e4m3", out_format="fp32")),
    (["--unit", "nosuch", "--in", "fp16", "--out", "fp32"], dict(unit="nosuch", in_format="fp16", out_format="fp32")),
    (["--unit", "v100", "--in", "fp16", "--out", "e4m3"], dict(unit="v100", in_format="fp16", out_format="e4m3")),
    (["--unit", "h100", "--in", "fp16", "--out", "fp32", "--instruction", "nosuch"],
     dict(unit="h100", in_format="fp16", out_format="fp32", instruction="nosuch")),
])
def test_errors_are_the_clis(cli, args, python):
    """ValueError with the CLI's message (options named as the Python arguments)."""
    want = cli.error("dot", *args, "--a", "1", "--b", "1")
    unit = python.pop("unit")
    with pytest.raises(ValueError) as e:
        tcsim.dot(unit, np.ones(1), np.ones(1), None, **python)
    assert str(e.value) == want.replace("--in", "in_format").replace("--out", "out_format").replace("--unit", "unit")


def test_gil_is_released_while_cpp_runs():
    """Another Python thread keeps running during a long dot. Holding the GIL, the call would
    stall this thread's loop for its whole duration (the largest gap between iterations)."""
    import threading
    import time
    n = 4_000_000
    a = np.ones((16, n), np.uint16).T  # product-major fp16 patterns: straight to the kernel
    done = threading.Event()

    def work():
        tcsim.dot("h100", a, a, None, in_format="fp16", out_format="fp32", threads=1)
        done.set()

    t = threading.Thread(target=work)
    t0 = last = time.perf_counter()
    t.start()
    gap = 0.0
    while not done.is_set():
        now = time.perf_counter()
        gap, last = max(gap, now - last), now
    t.join()
    elapsed = time.perf_counter() - t0
    assert elapsed > 0.05 and gap < elapsed / 2, (elapsed, gap)
