"""tcsim.fit: the row of a unit from its dump (docs/fit.md), from numpy arrays of values or bit
patterns. The dump is computed by a built-in row with tcsim.dot (seed logged), and the fitted
row, read back with tcsim.Unit.from_json, must give the same bits on further cases."""

import numpy as np
import pytest

import tcsim

SEED = 20261128


def dump(unit, n, K, seed):
    rng = np.random.default_rng(seed)
    print(f"seed {seed}")
    a = tcsim.decode(tcsim.encode(rng.uniform(-2, 2, (n, K)), "fp16"), "fp16")
    b = tcsim.decode(tcsim.encode(rng.uniform(-2, 2, (n, K)), "fp16"), "fp16")
    c = rng.uniform(-4, 4, n).astype(np.float32).astype(np.float64)
    d = tcsim.dot(unit, a, b, c, in_format="fp16", out_format="fp32")
    return a, b, c, d


def test_fit_values_give_a_row_that_reproduces_the_unit():
    a, b, c, d = dump("a100", 2000, 8, SEED)
    row, report = tcsim.fit(a, b, c, d.values, in_format="fp16", out_format="fp32")
    assert report["exact"] is True
    assert report["mismatches"] == 0
    assert row["fraction_bits"] == 24
    names = {p["name"]: p for p in report["parameters"]}
    assert names["fraction_bits"]["decided"] is True
    assert names["final_rounding.fp32"]["value"] == "rz"
    assert names["final_rounding.fp32"]["ruled_out"][0]["text"].startswith("case ")
    # The row as a unit: the same bits as a100 on further cases.
    unit = tcsim.Unit.from_json({"name": "fitted", "architecture": "user", "datapaths": [row]})
    a2, b2, c2, d2 = dump("a100", 20000, 8, SEED + 1)
    got = tcsim.dot(unit, a2, b2, c2, in_format="fp16", out_format="fp32")
    assert np.array_equal(got.bits, d2.bits)


def test_fit_bit_patterns_and_zero_c():
    a, b, c, d = dump("h100", 500, 16, SEED + 2)
    zero = tcsim.dot("h100", a, b, None, in_format="fp16", out_format="fp32")
    row, report = tcsim.fit(tcsim.encode(a, "fp16"), tcsim.encode(b, "fp16"), None, zero.bits,
                            in_format="fp16", out_format="fp32")
    assert report["exact"] is True and report["cases"] == 500


def test_fit_nothing_fits_gives_the_closest_rows():
    a, b, c, _ = dump("a100", 200, 8, SEED + 3)
    row, report = tcsim.fit(a, b, c, np.ones(200), in_format="fp16", out_format="fp32")
    assert report["exact"] is False
    assert report["closest"][0]["mismatches"] > 0
    assert report["closest"][0]["first_mismatches"][0].startswith("case ")


def test_fit_bad_inputs():
    a, b, c, d = dump("a100", 10, 8, SEED + 4)
    with pytest.raises(ValueError, match=r"^a and b must have the same shape \(n cases, K products\), got \(10, 8\) and \(10, 7\)$"):
        tcsim.fit(a, b[:, :7], c, d.values, in_format="fp16", out_format="fp32")
    with pytest.raises(ValueError, match=r"^a: the value 0\.1 at \(0, 0\) is not a fp16 value exactly$"):
        a2 = a.copy()
        a2[0, 0] = 0.1
        tcsim.fit(a2, b, c, d.values, in_format="fp16", out_format="fp32")
    with pytest.raises(ValueError, match=r"^d must hold one value per case \(10\), got 9$"):
        tcsim.fit(a, b, c, d.values[:9], in_format="fp16", out_format="fp32")
    with pytest.raises(ValueError, match=r"^give in_format and out_format"):
        tcsim.fit(a, b, c, d.values)
    with pytest.raises(TypeError, match=r"^c: dtype <U1 is not allowed"):
        tcsim.fit(a, b, np.array(["x"] * 10), d.values, in_format="fp16", out_format="fp32")
    with pytest.raises(ValueError, match=r"^base: unknown unit 'p100'"):
        tcsim.fit(a, b, c, d.values, in_format="fp16", out_format="fp32", base="p100")
