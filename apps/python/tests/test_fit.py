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
    # No row gives d = 1 everywhere, so the search runs to its end: a work budget (--budget)
    # ends it at the same point on every run and machine (the clock's 90 s would not).
    a, b, c, _ = dump("a100", 200, 8, SEED + 3)
    row, report = tcsim.fit(a, b, c, np.ones(200), in_format="fp16", out_format="fp32", budget=300000)
    assert report["exact"] is False
    assert report["closest"][0]["mismatches"] > 0
    assert report["closest"][0]["first_mismatches"][0].startswith("case ")
    assert report["case_evaluations"] >= 300000
    again_row, again = tcsim.fit(a, b, c, np.ones(200), in_format="fp16", out_format="fp32", budget=300000)
    assert (again_row, again["closest"], again["case_evaluations"]) == (row, report["closest"], report["case_evaluations"])


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


def test_fit_says_how_sure_it_is():
    # Moderate random values cannot decide subnormal results or the sign of an exact zero sum:
    # the report lists such changes, each with a case on which the other row answers otherwise.
    a, b, c, d = dump("a100", 2000, 8, SEED + 5)
    row, report = tcsim.fit(a, b, c, d.values, in_format="fp16", out_format="fp32")
    cert = report["certainty"]
    assert cert["exact"] is True and cert["sure"] is False
    (s,) = cert["sets"]
    assert (s["in"], s["out"], s["k"]) == ("fp16", "fp32", 8)
    assert s["groups"] > 1 and s["mix"] == 8000 and s["differing"]
    unit = tcsim.Unit.from_json({"name": "fitted", "architecture": "user", "datapaths": [row]})
    for alt in s["differing"]:
        w = alt["case"]
        assert alt["change"] and alt["keys"] and w["d_fitted"] != w["d_other"]
        # The fitted row gives d_fitted on the case (bit patterns in, bit patterns out).
        pa = np.array([[int(x, 16) for x in w["a"]]], dtype=np.uint16)
        pb = np.array([[int(x, 16) for x in w["b"]]], dtype=np.uint16)
        pc = np.array([int(w["c"], 16)], dtype=np.uint32)
        got = tcsim.dot(unit, pa, pb, pc, in_format="fp16", out_format="fp32")
        assert int(got.bits[0]) == int(w["d_fitted"], 16)
    # The same seed gives the same report; certainty=False leaves it out.
    _, again = tcsim.fit(a, b, c, d.values, in_format="fp16", out_format="fp32", seed=1)
    assert again["certainty"] == cert
    _, without = tcsim.fit(a, b, c, d.values, in_format="fp16", out_format="fp32", certainty=False)
    assert "certainty" not in without
    with pytest.raises(TypeError, match=r"^argument 'certainty' of tcsim.fit expects True or False, got 'yes'$"):
        tcsim.fit(a, b, c, d.values, in_format="fp16", out_format="fp32", certainty="yes")
    with pytest.raises(ValueError, match=r"^argument 'seed' of tcsim.fit expects an integer in 0\.\.4611686018427387904, got -1$"):
        tcsim.fit(a, b, c, d.values, in_format="fp16", out_format="fp32", seed=-1)


def test_fit_instruction_k_chains_the_dump_by_instructions():
    # A row of fma_size 8 run as instructions of K_i = 4 (as CDNA3's 16x16x4 f16 on its blocks
    # of 8): a dump of K = 16 is 4 chained instructions. tcsim.fit(instruction_k=4) must name the
    # shape and reproduce the hidden row through it on further cases (the CLI's --instruction-k).
    hidden = {"input_formats": ["fp16"], "output_formats": ["fp32"], "fma_size": 8, "fraction_bits": 24,
              "carry_bits": 3, "alignment_rounding": "rz", "sticky_bit": False, "normalization": "deferred",
              "order": "largest-first", "c_placement": "aligned", "final_rounding": {"fp32": "rz"},
              "subnormal_inputs": True, "subnormal_outputs": True, "shapes": ["fit.m16n16k4"]}
    unit = tcsim.Unit.from_json({"name": "hidden", "architecture": "user", "datapaths": [hidden]})

    def hidden_dump(n, seed):
        a, b, c, _ = dump("a100", n, 16, seed)
        d = tcsim.dot(unit, a, b, c, in_format="fp16", out_format="fp32", instruction="fit.m16n16k4")
        return a, b, c, d

    a, b, c, d = hidden_dump(2000, SEED + 5)
    row, report = tcsim.fit(a, b, c, d.values, in_format="fp16", out_format="fp32", instruction_k=4)
    assert report["exact"] is True
    assert row["shapes"] == ["fit.m16n16k4"]
    fitted = tcsim.Unit.from_json({"name": "fitted", "architecture": "user", "datapaths": [row]})
    a2, b2, c2, d2 = hidden_dump(20000, SEED + 6)
    got = tcsim.dot(fitted, a2, b2, c2, in_format="fp16", out_format="fp32", instruction="fit.m16n16k4")
    assert np.array_equal(got.bits, d2.bits)


def test_fit_instruction_k_refusals_match_the_cli():
    # The CLI refuses --instruction-k outside 1..256 and non-integers (B268, B269, B315);
    # Python refuses the same with the parameter's Python name (P77-P79); the same for
    # --budget / budget and --seconds / seconds (B271-B274, P72-P74).
    a, b, c, d = dump("a100", 10, 8, SEED + 7)
    for bad in (0, 257):
        with pytest.raises(ValueError, match=rf"^argument 'instruction_k' of tcsim\.fit expects an integer in 1\.\.256, got {bad}$"):
            tcsim.fit(a, b, c, d.values, in_format="fp16", out_format="fp32", instruction_k=bad)
    with pytest.raises(TypeError, match=r"^argument 'instruction_k' of tcsim\.fit expects an integer in 1\.\.256, got 'x'$"):
        tcsim.fit(a, b, c, d.values, in_format="fp16", out_format="fp32", instruction_k="x")
    for name, bad in (("budget", 999), ("budget", 10**11 + 1), ("seconds", 0), ("seconds", 3601)):
        lo, hi = (1000, 100000000000) if name == "budget" else (1, 3600)
        with pytest.raises(ValueError, match=rf"^argument '{name}' of tcsim\.fit expects an integer in {lo}\.\.{hi}, got {bad}$"):
            tcsim.fit(a, b, c, d.values, in_format="fp16", out_format="fp32", **{name: bad})


def test_fit_progress_lines_as_the_cli(capfd, monkeypatch):
    # progress=True prints the search's share of its limit and the how-sure check per format
    # pair on stderr, as `tcsim fit` does; None off a terminal and False print nothing.
    monkeypatch.setenv("TCSIM_PROGRESS_AFTER", "0")
    monkeypatch.setenv("TCSIM_PROGRESS_INTERVAL", "0")
    a, b, c, d = dump("a100", 50, 8, SEED + 8)
    tcsim.fit(a, b, c, d.values, in_format="fp16", out_format="fp32", progress=True)
    err = capfd.readouterr().err
    assert "tcsim.fit: search (share of its 90 s limit): " in err, err
    assert "tcsim.fit: how sure: the fitting rows on fresh cases, per format pair: 100% (1/1) after " in err, err
    tcsim.fit(a, b, c, d.values, in_format="fp16", out_format="fp32", budget=1000, certainty=False, progress=True)
    assert "tcsim.fit: search (share of its budget of 1000 case evaluations): " in capfd.readouterr().err
    tcsim.fit(a, b, c, d.values, in_format="fp16", out_format="fp32", certainty=False)
    tcsim.fit(a, b, c, d.values, in_format="fp16", out_format="fp32", certainty=False, progress=False)
    assert capfd.readouterr().err == ""
    with pytest.raises(TypeError, match=r"^argument 'progress' of tcsim.fit expects None, True or False, got 'yes'$"):
        tcsim.fit(a, b, c, d.values, in_format="fp16", out_format="fp32", progress="yes")


def test_fit_nan_results_keep_the_units_pattern():
    # Inf - Inf makes NaN results; the fit reads the unit's NaN pattern (A100: 0x7fffffff) from d.
    # As float64 values the NaNs carry no fp32 pattern (it would fit 0x7fc00000): refused, naming d.
    # As float32 (fp32's own type) or as bit patterns, the pattern is the unit's.
    a, b, c, _ = dump("a100", 300, 8, SEED + 9)
    a[:20, 0], a[:20, 1], b[:20, 0], b[:20, 1] = np.inf, -np.inf, 1.0, 1.0
    d = tcsim.dot("a100", a, b, c, in_format="fp16", out_format="fp32")
    assert int(d.bits[0]) == 0x7FFFFFFF
    with pytest.raises(ValueError, match=r"^d: the NaN at 0 has no fp32 bit pattern as a float64 value"):
        tcsim.fit(a, b, c, d.values, in_format="fp16", out_format="fp32", certainty=False)
    for dd in (d.bits.astype(np.uint32).view(np.float32), d.bits):
        row, report = tcsim.fit(a, b, c, dd, in_format="fp16", out_format="fp32", certainty=False)
        assert report["exact"] is True and row["nan_pattern"] == {"fp32": "0x7fffffff"}
