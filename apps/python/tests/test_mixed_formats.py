"""Mixed operand formats (issue 24): in_format_a / in_format_b in tcsim.dot, tcsim.matmul and
tcsim.validate_dump give the bits of `tcsim dot --in-a --in-b` and of the unit's dot on each
element; refusals are rows P54-P59 of docs/reliability.md (test_bad_inputs.py)."""
import numpy as np

import tcsim
from conftest import random_seed
from test_validation import write_dump


def test_each_operand_in_its_own_format():
    # 0x38 is 1.0 in e4m3 and 0.5 in e5m2.
    p = np.array([[0x38]], np.uint8)
    mixed = tcsim.dot("rtx5090", p, p, None, in_format_a="e4m3", in_format_b="e5m2", out_format="fp32")
    same = tcsim.dot("rtx5090", p, p, None, in_format="e4m3", out_format="fp32")
    one_side = tcsim.dot("rtx5090", p, p, None, in_format="e4m3", in_format_b="e5m2", out_format="fp32")
    assert (int(mixed.bits[0]), int(same.bits[0]), int(one_side.bits[0])) == (0x3F000000, 0x3F800000, 0x3F000000)
    # Values: 448 fits e4m3, 57344 only e5m2.
    r = tcsim.dot("rtx5090", np.array([448.0]), np.array([57344.0]), None, in_format="e4m3", in_format_b="e5m2",
                  out_format="fp32")
    assert float(r.values) == 448.0 * 57344.0


def test_batches_equal_the_cli(cli):
    """Random patterns of every mixed pair of rtx5090 and mi300x: tcsim.dot's batch (planar
    kernel or reference) equals `tcsim dot --in-a --in-b` on sampled elements."""
    seed = random_seed("mixed-dot")
    rng = np.random.default_rng(seed)
    for unit, fa, fb, k in [("rtx5090", "e4m3", "e5m2", 32), ("rtx5090", "e5m2", "e4m3", 32),
                            ("mi300x", "e4m3fnuz", "e5m2fnuz", 16), ("b200", "e3m2", "e2m1", 32)]:
        a = rng.integers(0, 1 << 8, (300, k), dtype=np.uint8)
        b = rng.integers(0, 1 << 8, (300, k), dtype=np.uint8)
        if fb == "e2m1":
            b &= 0xF
        if fa == "e3m2":
            a &= 0x3F
        d = tcsim.dot(unit, a, b, None, in_format_a=fa, in_format_b=fb, out_format="fp32")
        for i in (0, 7, 299):
            lit = lambda xs: ",".join(f"bits:{int(x):#x}" for x in xs)
            got = cli.json("dot", "--unit", unit, "--in-a", fa, "--in-b", fb, "--out", "fp32", "--a", lit(a[i]),
                           "--b", lit(b[i]))
            assert int(got["bits"], 16) == int(d.bits[i]), (unit, fa, fb, i, seed)


def test_matmul_mixed_equals_dot():
    seed = random_seed("mixed-matmul")
    rng = np.random.default_rng(seed)
    A = tcsim.decode(tcsim.encode(rng.standard_normal((6, 40)), "e4m3"), "e4m3")
    B = tcsim.decode(tcsim.encode(rng.standard_normal((40, 5)), "e5m2"), "e5m2")
    D = tcsim.matmul(A, B, unit="rtx5090", in_format_a="e4m3", in_format_b="e5m2")
    d = tcsim.dot("rtx5090", np.repeat(A, 5, axis=0), np.tile(B.T, (6, 1)), None, in_format_a="e4m3",
                  in_format_b="e5m2", out_format="fp32")
    assert np.array_equal(D.ravel(), d.values), seed
    report = tcsim.gemm_errors(A, B, unit="rtx5090", in_format="e4m3", in_format_b="e5m2")
    assert report["in"] == "e4m3 x e5m2" and report["path"] == "kernel"


def test_validate_dump_mixed(tmp_path):
    a = np.full((3, 2), 1.125)     # needs 3 fraction bits: e4m3
    b = np.full((3, 2), 57344.0)   # beyond e4m3: e5m2
    d = np.full(3, 2 * 1.125 * 57344.0, np.float32).view(np.uint32)
    files = write_dump(tmp_path, a, b, np.zeros(3, np.uint32), d)
    got = tcsim.validate_dump("rtx5090", None, "fp32", *files, in_format_a="e4m3", in_format_b="e5m2")
    assert (got["cases"], got["mismatches"]) == (3, 0)
