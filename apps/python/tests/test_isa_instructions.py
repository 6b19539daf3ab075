"""Instructions by their ISA names in the Python API (issue 24): the AMD MFMA names and the RTX
Blackwell mma forms select the row and the K of one instruction in tcsim.dot, tcsim.matmul and
tcsim.lu, as in the CLI (models/tests/test_isa_instructions.cpp has the derivations)."""
import numpy as np
import pytest

import tcsim

# CDNA3 f16: four products 2^-26, then 1 - 1. One block of 8 truncates the small products (0);
# the K = 4 forms chain instructions of 4 and keep their sum 2^-24 (0x33800000).
A = np.array([2.0**-13] * 4 + [1.0, -1.0, 0.0, 0.0])
B = np.array([2.0**-13] * 4 + [1.0, 1.0, 0.0, 0.0])


@pytest.mark.parametrize("instruction, bits", [
    (None, 0x00000000),
    ("v_mfma_f32_32x32x8_f16", 0x00000000),
    ("v_mfma_f32_32x32x4_2b_f16", 0x33800000),
    ("mfma_f32_16x16x4_4b_f16", 0x33800000),   # "v_" optional
    ("V_MFMA_F32_4X4X4_16B_F16", 0x33800000),  # any case
    ("v_mfma_f32_32x32x4_2b_f16.v1", 0x33800000),
])
def test_dot_takes_the_k_of_the_instruction(instruction, bits):
    r = tcsim.dot("mi300x", A, B, None, in_format="fp16", out_format="fp32", instruction=instruction)
    assert int(r.bits) == bits


def test_matmul_uses_the_instruction_k():
    # The element above as a 1 x 8 times 8 x 1 product.
    d = tcsim.matmul(A.reshape(1, 8), B.reshape(8, 1), unit="mi300x", in_format="fp16",
                     instruction="v_mfma_f32_32x32x4_2b_f16")
    assert float(d[0, 0]) == 2.0**-24
    d = tcsim.matmul(A.reshape(1, 8), B.reshape(8, 1), unit="mi300x", in_format="fp16",
                     instruction="v_mfma_f32_32x32x8_f16")
    assert float(d[0, 0]) == 0.0


def test_rtx_mma_sync_k16_chains_blocks_of_16():
    a = np.array([256.0, -256.0] + [0.0] * 14 + [2.0**-9] * 16)
    b = np.array([256.0, 256.0] + [0.0] * 14 + [2.0**-9] * 16)
    k32 = tcsim.dot("rtx5090", a, b, None, in_format="e4m3", out_format="fp32", instruction="mma.sync.m16n8k32")
    k16 = tcsim.dot("rtx5090", a, b, None, in_format="e4m3", out_format="fp32", instruction="mma.sync.m16n8k16")
    assert int(k32.bits) == 0 and int(k16.bits) == 0x38800000


def test_lu_takes_an_isa_name():
    # CDNA2 f16: K = 8 per instruction is two of the row's blocks of 4, so the same factors.
    m = tcsim.lu_matrix("q1dq2", 16)
    L, U, report = tcsim.lu(m, unit="mi250x", r=8, instruction="v_mfma_f32_32x32x8f16")
    L0, U0, _ = tcsim.lu(m, unit="mi250x", r=8)
    assert report["unit"] == "mi250x" and report["unit_calls"] > 0
    assert np.array_equal(U, U0) and np.array_equal(L, L0)


def test_wrong_names_are_refused_clearly():
    with pytest.raises(ValueError, match=r"^unit 'mi300x': instruction 'v_mfma_f32_32x32x8_bf16' takes bf16->fp32, "
                                         r"not fp16->fp32$"):
        tcsim.dot("mi300x", A, B, None, in_format="fp16", out_format="fp32", instruction="v_mfma_f32_32x32x8_bf16")


# CDNA3's mixed fp8 MFMAs: fp8_bf8 is a in fp8 (e4m3fnuz), b in bf8 (e5m2fnuz); bf8_fp8 the other
# way round. The pattern 0x38 is 0.5 in e4m3fnuz and 0.25 in e5m2fnuz.
@pytest.mark.parametrize("instruction, fa, fb", [
    ("v_mfma_f32_16x16x32_fp8_bf8", "e4m3fnuz", "e5m2fnuz"),
    ("v_mfma_f32_32x32x16_fp8_bf8.v1", "e4m3fnuz", "e5m2fnuz"),
    ("mfma_f32_16x16x32_bf8_fp8", "e5m2fnuz", "e4m3fnuz"),
    ("V_MFMA_F32_32X32X16_BF8_FP8", "e5m2fnuz", "e4m3fnuz"),
])
def test_mixed_fp8_names_take_each_operands_format(instruction, fa, fb):
    a = np.array([0.5 if fa == "e4m3fnuz" else 0.25])
    b = np.array([0.25 if fb == "e5m2fnuz" else 0.5])
    r = tcsim.dot("mi300x", a, b, None, in_format_a=fa, in_format_b=fb, out_format="fp32", instruction=instruction)
    assert int(r.bits) == 0x3e000000  # 0.125


def test_mixed_fp8_name_in_matmul():
    # units.md 3b's vector with a in bf8, b in fp8: 2^23 - 2^20 - 0.875 rounds to 7340031 (0x4adffffe).
    a = np.array([[-8192.0, -0.5, -0.25, -0.125] + [0.0] * 12])
    b = np.array([[128.0, 1.0, 1.0, 1.0] + [0.0] * 12]).T
    d = tcsim.matmul(a, b, 2.0**23 * np.ones((1, 1)), unit="mi300x", in_format_a="e5m2fnuz", in_format_b="e4m3fnuz",
                     instruction="v_mfma_f32_16x16x32_bf8_fp8")
    assert float(d[0, 0]) == 7340031.0


def test_mixed_fp8_names_whose_formats_contradict_are_refused():
    one = np.ones(1)
    with pytest.raises(ValueError, match=r"^unit 'mi300x': instruction 'v_mfma_f32_16x16x32_fp8_bf8' takes "
                                         r"e4m3fnuz x e5m2fnuz->fp32, not e5m2fnuz x e4m3fnuz->fp32$"):
        tcsim.dot("mi300x", one, one, None, in_format_a="e5m2fnuz", in_format_b="e4m3fnuz", out_format="fp32",
                  instruction="v_mfma_f32_16x16x32_fp8_bf8")
    with pytest.raises(ValueError, match=r"^unit 'mi300x': instruction 'v_mfma_f32_16x16x32_fp8_fp8' takes "
                                         r"e4m3fnuz->fp32, not e4m3fnuz x e5m2fnuz->fp32$"):
        tcsim.dot("mi300x", one, one, None, in_format_a="e4m3fnuz", in_format_b="e5m2fnuz", out_format="fp32",
                  instruction="v_mfma_f32_16x16x32_fp8_fp8")
