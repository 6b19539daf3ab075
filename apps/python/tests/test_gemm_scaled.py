"""Block-scaled GEMMs from Python (issue 25): tcsim.matmul / tcsim.gemm_errors with scale_a,
scale_b, scale_format, block_size, scales run Unit::gemm_scaled as `tcsim gemm` does. Exact
bit patterns: hand-checked sums, and every entry of a random case against the exact
product rounded by hand where the unit is exact. The refusals are catalogue rows P80-P85."""
import numpy as np
import pytest

import tcsim

E4M3 = dict(unit="b200", in_format="e4m3", instruction="tcgen05.mxf8f6f4")


def test_hand_checked_scaled_sum():
    # Row 0 of A and column 0 of B are ones: 32 products scaled by 2 * 4, 32 by 0.5 * 1:
    # 256 + 16 = 272 (0x43880000).
    A = np.ones((2, 64))
    B = np.ones((64, 2))
    sa = np.array([[2.0, 0.5], [1.0, 1.0]])
    sb = np.array([[4.0, 1.0], [1.0, 1.0]])
    values, bits = tcsim.matmul(A, B, scale_a=sa, scale_b=sb, return_bits=True, **E4M3)
    assert bits.dtype == np.uint32
    assert int(bits[0, 0]) == 0x43880000
    assert values[0, 0] == 272.0
    assert values[1, 1] == 64.0


def test_scale_patterns_equal_scale_values():
    # ue8m0 patterns 0x80 (2) and 0x7e (0.5): the same D as the values.
    A = np.ones((2, 64))
    B = np.ones((64, 2))
    by_value = tcsim.matmul(A, B, scale_a=np.array([[2.0, 0.5], [2.0, 0.5]]),
                            scale_b=np.array([[2.0, 2.0], [0.5, 0.5]]), **E4M3)
    by_bits = tcsim.matmul(A, B, scale_a=np.array([[0x80, 0x7e], [0x80, 0x7e]], dtype=np.uint8),
                           scale_b=np.array([[0x80, 0x80], [0x7e, 0x7e]], dtype=np.uint8), **E4M3)
    assert np.array_equal(by_value, by_bits)
    assert by_value[0, 0] == 32 * 4 + 32 * 0.25


def test_ue4m3_per_16_largest_values():
    # e2m1's largest (6) times ue4m3's largest (448) on both sides, 32 products: 441 * 2^19.
    A = np.full((1, 32), 6.0)
    B = np.full((32, 1), 6.0)
    s = np.full((1, 2), 448.0)
    _, bits = tcsim.matmul(A, B, unit="b200", in_format="e2m1", instruction="tcgen05.mxf4nvf4", scale_format="ue4m3",
                           block_size=16, scale_a=s, scale_b=s.T, return_bits=True)
    assert int(bits[0, 0]) == 0x4D5C8000


def test_scales_from_data_hand_checked():
    # amax 12: X = 2^(floor(log2 12) - 2) = 2, elements 6; B = 1: X = 2^-2, elements 4.
    r = tcsim.gemm_errors(np.full((1, 32), 12.0), np.ones((32, 1)), unit="rtx5090", in_format="e2m1",
                          instruction="mma.sync.mxf4nvf4")
    assert r["D"][0, 0] == 384.0
    assert r["scales"] == "from-data" and r["scale_format"] == "ue8m0" and r["block_size"] == 16
    assert r["gemm"] == "Unit::gemm_scaled"
    assert r["componentwise_error"] == 0.0


def test_random_case_within_bound_and_exact_when_no_rounding():
    seed = 20251126
    print(f"seed {seed}")
    rng = np.random.default_rng(seed)
    # Small integers times powers of two: every product and partial sum exact in binary32, so
    # D must be the exact product (checked by numpy in binary64, exact here).
    A = rng.integers(-3, 4, size=(5, 64)).astype(np.float64)
    B = rng.integers(-3, 4, size=(64, 7)).astype(np.float64)
    sa = 2.0 ** rng.integers(-3, 4, size=(5, 2))
    sb = 2.0 ** rng.integers(-3, 4, size=(2, 7))
    D = tcsim.matmul(A, B, scale_a=sa, scale_b=sb, **E4M3)
    As = A * np.repeat(sa, 32, axis=1)
    Bs = B * np.repeat(sb, 32, axis=0)
    assert np.array_equal(D, As @ Bs)
    r = tcsim.gemm_errors(A, B, scale_a=sa, scale_b=sb, **E4M3)
    assert r["componentwise_error"] == 0.0 and r["scales"] == "files"


def test_refusals_name_the_argument():
    with pytest.raises(ValueError, match=r"^split_k cannot be used with block scales"):
        tcsim.matmul(np.ones((2, 32)), np.ones((32, 2)), split_k=2, **E4M3)
    with pytest.raises(ValueError, match=r"^scales: 'random' is not allowed; allowed: from-data, one$"):
        tcsim.matmul(np.ones((2, 32)), np.ones((32, 2)), scales="random", **E4M3)
    with pytest.raises(ValueError, match=r"^scale_a\[0, 0\] = 3 is not a ue8m0 value"):
        tcsim.matmul(np.ones((2, 32)), np.ones((32, 2)), scale_a=np.full((2, 1), 3.0), scale_b=np.ones((1, 2)), **E4M3)
