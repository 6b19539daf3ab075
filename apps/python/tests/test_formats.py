"""encode / decode: round trips over every pattern of the 8-bit and smaller formats, exact
patterns of the rounding modes, numpy's own IEEE conversions as an oracle for fp16 and fp32,
and every dtype and value error with its message."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tcsim
from conftest import random_seed

SMALL_FORMATS = ["e4m3", "e5m2", "e4m3fnuz", "e5m2fnuz", "ue8m0", "ue4m3", "e2m3", "e3m2", "e2m1"]


@pytest.mark.parametrize("fmt", SMALL_FORMATS)
def test_every_pattern_round_trips(fmt):
    width = next(f["width"] for f in tcsim.formats() if f["name"] == fmt)
    bits = np.arange(1 << width, dtype=np.uint8)
    values = tcsim.decode(bits, fmt)
    assert values.dtype == np.float64 and values.shape == bits.shape
    again = tcsim.encode(values, fmt)
    assert again.dtype == np.uint8
    nan = np.isnan(values)
    assert np.array_equal(again[~nan], bits[~nan]), fmt
    # A NaN encodes to a NaN pattern of the format.
    assert np.isnan(tcsim.decode(again[nan], fmt)).all()
    # Every rounding mode leaves a representable value alone.
    for mode in ["rz", "ru", "rd", "ro"]:
        assert np.array_equal(tcsim.encode(values[~nan], fmt, rounding=mode), bits[~nan]), (fmt, mode)


def test_known_values():
    assert tcsim.decode(np.array([0x7E, 0x01, 0x38, 0xFE], np.uint8), "e4m3").tolist() == [448.0, 2.0**-9, 1.0, -448.0]
    assert tcsim.decode(np.array([0x7B, 0x7C], np.uint8), "e5m2").tolist() == [57344.0, np.inf]
    assert tcsim.decode(np.array(0x3C00, np.uint16), "fp16") == 1.0
    assert tcsim.decode(np.uint32(0x3F800000), "fp32") == 1.0
    assert tcsim.encode(1.0, "bf16") == 0x3F80 and tcsim.encode(1.0, "bf16").dtype == np.uint16
    assert tcsim.encode(1.0, "tf32").dtype == np.uint32


def test_rounding_modes_give_their_patterns():
    tie = 1 + 2.0**-4  # halfway between 1 and 1.125 in e4m3 (3 fraction bits)
    expect = {"rne": 0x38, "rz": 0x38, "rd": 0x38, "ru": 0x39, "ro": 0x39}
    for mode, bits in expect.items():
        assert tcsim.encode(tie, "e4m3", rounding=mode) == bits, mode
    assert tcsim.encode(-tie, "e4m3", rounding="rd") == 0xB9
    assert tcsim.encode(1 + 3 * 2.0**-5, "e4m3") == 0x39  # above the tie: up
    # Beyond e4m3's range: refused as the CLI refuses it (it would become NaN, e4m3 has no
    # infinities); toward zero it is the largest finite value.
    with pytest.raises(ValueError, match=r"^values = 1000 is out of the range of e4m3 \(it would become NaN\)"):
        tcsim.encode(1000.0, "e4m3")
    assert tcsim.encode(1000.0, "e4m3", rounding="rz") == 0x7E


@pytest.mark.filterwarnings("ignore:overflow encountered in cast")
def test_ieee_formats_match_numpy_conversions():
    seed = random_seed("ieee-oracle")
    rng = np.random.default_rng(seed)
    x = np.ldexp(rng.standard_normal(100_000), rng.integers(-30, 20, 100_000))
    x[:5] = [0.0, -0.0, np.inf, -np.inf, 65519.0]
    # Finite values that would overflow to Inf are refused (as by the CLI): compared apart.
    fits = np.isinf(x) | np.isfinite(x.astype(np.float16))
    assert np.array_equal(tcsim.encode(x[fits], "fp16"), x[fits].astype(np.float16).view(np.uint16)), seed
    assert (~fits).sum() > 0, seed
    with pytest.raises(ValueError, match="is out of the range of fp16 \\(it would become Inf\\)"):
        tcsim.encode(x, "fp16")
    y = np.ldexp(rng.standard_normal(100_000), rng.integers(-160, 130, 100_000))
    fits = np.isfinite(y.astype(np.float32))
    assert np.array_equal(tcsim.encode(y[fits], "fp32"), y[fits].astype(np.float32).view(np.uint32)), seed
    # float16 and float32 inputs are taken as their exact values.
    h = x.astype(np.float16)
    assert np.array_equal(tcsim.encode(h, "fp16"), h.view(np.uint16))
    assert np.array_equal(tcsim.decode(h.view(np.uint16), "fp16")[np.isfinite(h)], h[np.isfinite(h)].astype(np.float64))


def max_finite(fmt):
    width = next(f["width"] for f in tcsim.formats() if f["name"] == fmt)
    v = tcsim.decode(np.arange(1 << width, dtype=np.uint32), fmt)
    return np.abs(v[np.isfinite(v)]).max()


MAX_FINITE = {fmt: max_finite(fmt) for fmt in ["fp16", "bf16", "e4m3", "e5m2", "e2m1", "tf32"]}


@settings(max_examples=300, deadline=None)
@given(st.floats(allow_nan=False, width=64), st.sampled_from(sorted(MAX_FINITE)))
def test_encode_is_nearest(x, fmt):
    """Within the range, rd <= x <= ru with RNE one of the two and the nearer one; beyond it
    the format's overflow rule (Inf, NaN or saturation) applies."""
    if abs(x) > MAX_FINITE[fmt]:
        return
    v = tcsim.decode(tcsim.encode(x, fmt), fmt)
    lo = tcsim.decode(tcsim.encode(x, fmt, rounding="rd"), fmt)
    hi = tcsim.decode(tcsim.encode(x, fmt, rounding="ru"), fmt)
    assert lo <= x <= hi and v in (lo, hi)
    assert abs(v - x) <= min(abs(lo - x), abs(hi - x))


def test_shapes_and_layouts_are_kept():
    x = np.arange(24, dtype=np.float64).reshape(2, 3, 4)[:, ::2, ::-1]
    bits = tcsim.encode(x, "fp16")
    assert bits.shape == x.shape
    assert np.array_equal(bits, x.astype(np.float16).view(np.uint16))
    assert tcsim.encode([], "fp16").shape == (0,)
    assert tcsim.encode(np.float32(2.5), "fp16").shape == ()


def test_byte_order_is_respected():
    x = np.array([1.5, -2.0, 65504.0])
    assert np.array_equal(tcsim.encode(x.astype(">f8"), "fp16"), tcsim.encode(x, "fp16"))
    bits = tcsim.encode(x, "fp16")
    assert np.array_equal(tcsim.decode(bits.astype(">u2"), "fp16"), x)


def test_integer_values_are_exact():
    big = np.array([2**60 + 1, -(2**53) - 1, 3], np.int64)
    assert np.array_equal(tcsim.decode(tcsim.encode(big, "fp64"), "fp64"), [2.0**60, -(2.0**53), 3.0])
    assert tcsim.encode(2**60 + 2**8, "fp64", rounding="ru") == np.float64(2.0**60 + 2**8).view(np.uint64)


def test_dtype_errors():
    with pytest.raises(TypeError, match=r"values: dtype complex128 is not allowed; allowed: float16, float32, float64"):
        tcsim.encode(np.array([1j]), "fp16")
    with pytest.raises(TypeError, match=r"values: dtype <U1 is not allowed"):
        tcsim.encode(["a"], "fp16")
    with pytest.raises(TypeError, match=r"values: dtype bool is not allowed"):
        tcsim.encode(np.array([True]), "fp16")
    with pytest.raises(TypeError, match=r"bits: dtype float64 is not allowed; allowed: uint8, uint16, uint32, uint64 \(bit patterns of e4m3\)"):
        tcsim.decode(np.array([1.0]), "e4m3")
    with pytest.raises(TypeError, match=r"bits: dtype int64 is not allowed"):
        tcsim.decode([1, 2], "e4m3")
    with pytest.raises(TypeError, match=r"bits: None is not an array"):
        tcsim.decode(None, "e4m3")


def test_value_errors_name_the_element():
    with pytest.raises(ValueError, match=r"^bits\[1, 0\] 0x100 has bits set above the 8-bit width of format 'e4m3'$"):
        tcsim.decode(np.array([[1], [256]], np.uint16), "e4m3")
    with pytest.raises(ValueError, match=r"format: unknown format 'e9m9'|format.*e9m9"):
        tcsim.encode(1.0, "e9m9")
    with pytest.raises(ValueError, match=r"rounding: 'sr' is not allowed \(stochastic rounding needs random bits a conversion does not have\); allowed: rne, rz, ru, rd, ro"):
        tcsim.encode(1.0, "fp16", rounding="sr")
    with pytest.raises(ValueError, match=r"rounding"):
        tcsim.encode(1.0, "fp16", rounding="nearest")


def test_format_error_is_the_clis(cli):
    """The CLI's message for an unknown format, with the argument's name for --in."""
    with pytest.raises(ValueError) as e:
        tcsim.encode(1.0, "e9m9")
    want = cli.error("dot", "--unit", "v100", "--in", "e9m9", "--out", "fp32", "--a", "1", "--b", "1")
    assert str(e.value) == want.replace("--in", "format")
