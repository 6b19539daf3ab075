"""PyTorch tensors in every function that takes arrays: the same bits as the numpy arrays they
hold (float16, bfloat16, float32, float64 values; uint8 patterns; non-contiguous and
requires-grad tensors); matmul, lu and solve return tensors. Skipped without PyTorch."""
import numpy as np
import pytest

import tcsim

torch = pytest.importorskip("torch", reason="PyTorch is not installed (optional): torch in/out untested here")


SEED = 20251123


@pytest.fixture
def gen():
    print(f"torch generator seed {SEED}")  # shown by pytest when a test fails
    return torch.Generator().manual_seed(SEED)


def assert_same_bits(got, want, what="bits"):
    """Equal arrays, else the first differing elements as hex patterns (or float.hex values)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    if got.dtype.kind == "f":
        same = (got == want) | (np.isnan(got) & np.isnan(want))
        show = lambda x: float(x).hex()
    else:
        same = got == want
        show = lambda x: hex(int(x))
    bad = np.argwhere(~same)
    assert bad.size == 0, f"{what}: {len(bad)} differ; first: " + ", ".join(
        f"{tuple(int(i) for i in ix)}: got {show(got[tuple(ix)])} want {show(want[tuple(ix)])}" for ix in bad[:5])


@pytest.mark.parametrize("dtype, fin", [("float16", "fp16"), ("bfloat16", "bf16"), ("float32", "fp16"),
                                        ("float64", "fp16")])
def test_dot_tensors_give_the_bits_of_their_values(gen, dtype, fin):
    a = torch.randn(300, 16, generator=gen).to(getattr(torch, dtype))
    b = torch.randn(300, 16, generator=gen).to(getattr(torch, dtype))
    c = torch.randn(300, generator=gen)
    got = tcsim.dot("h100", a, b, c, in_format=fin, out_format="fp32")
    # bfloat16 has no numpy dtype: its values are exact in float32
    want = tcsim.dot("h100", a.float().numpy(), b.float().numpy(), c.numpy(), in_format=fin, out_format="fp32")
    assert_same_bits(got.bits, want.bits)


def test_dot_non_contiguous_and_requires_grad_tensors(gen):
    at = torch.randn(16, 200, generator=gen)  # a = at.T: product-major, not contiguous
    b = torch.randn(200, 16, generator=gen, requires_grad=True)
    got = tcsim.dot("a100", at.T, b, None, in_format="fp16", out_format="fp32", instruction="mma.sync")
    want = tcsim.dot("a100", at.numpy().T.copy(), b.detach().numpy(), None, in_format="fp16", out_format="fp32",
                     instruction="mma.sync")
    assert_same_bits(got.bits, want.bits)


def test_dot_uint8_pattern_tensors(gen):
    a = torch.randint(0, 256, (100, 32), generator=gen, dtype=torch.uint8)
    b = torch.randint(0, 256, (100, 32), generator=gen, dtype=torch.uint8)
    got = tcsim.dot("h100", a, b, None, in_format="e4m3", out_format="fp32")
    want = tcsim.dot("h100", a.numpy(), b.numpy(), None, in_format="e4m3", out_format="fp32")
    assert_same_bits(got.bits, want.bits)


@pytest.mark.parametrize("dtype, fin", [("float16", "fp16"), ("bfloat16", "bf16")])
def test_matmul_tensors_in_tensors_out(gen, dtype, fin):
    A = torch.randn(8, 32, generator=gen).to(getattr(torch, dtype)).requires_grad_()
    B = torch.randn(32, 5, generator=gen).to(getattr(torch, dtype))
    D, bits = tcsim.matmul(A, B, unit="h100", in_format=fin, return_bits=True)
    assert isinstance(D, torch.Tensor) and D.dtype == torch.float64 and D.shape == (8, 5)
    want_D, want_bits = tcsim.matmul(A.detach().float().numpy(), B.float().numpy(), unit="h100", in_format=fin,
                                     return_bits=True)
    assert_same_bits(D.numpy(), want_D, "D")
    assert_same_bits(bits, want_bits)


def test_gemm_errors_tensors(gen):
    A, B = torch.rand(6, 64, generator=gen), torch.rand(64, 4, generator=gen)
    got = tcsim.gemm_errors(A, B, unit="v100", in_format="fp16")
    want = tcsim.gemm_errors(A.numpy(), B.numpy(), unit="v100", in_format="fp16")
    assert got["componentwise_error"] == want["componentwise_error"]
    assert_same_bits(got["D"], want["D"], "D")


def test_lu_and_solve_tensors_in_tensors_out():
    A = tcsim.lu_matrix("q1dq2", 48, cond=1e3, seed=2)
    At = torch.from_numpy(A)
    L, U, report = tcsim.lu(At, unit="v100", r=16)
    wL, wU, _ = tcsim.lu(A, unit="v100", r=16)
    assert isinstance(L, torch.Tensor) and isinstance(U, torch.Tensor)
    assert_same_bits(L.numpy(), wL, "L")
    assert_same_bits(U.numpy(), wU, "U")
    b = torch.ones(48, dtype=torch.float64)
    x, _ = tcsim.solve(At, b, unit="v100", r=16)
    wx, _ = tcsim.solve(A, b.numpy(), unit="v100", r=16)
    assert isinstance(x, torch.Tensor)
    assert_same_bits(x.numpy(), wx, "x")


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_encode_tensors(gen, dtype):
    v = torch.randn(1000, generator=gen).to(getattr(torch, dtype))
    for fmt in ["fp16", "bf16", "e4m3", "e5m2"]:
        assert_same_bits(tcsim.encode(v, fmt), tcsim.encode(v.float().double().numpy(), fmt), fmt)


def test_encode_requires_grad_and_decode_uint8_tensors(gen):
    v = torch.randn(100, generator=gen, requires_grad=True)
    assert_same_bits(tcsim.encode(v, "fp16", rounding="rz"), tcsim.encode(v.detach().numpy(), "fp16", "rz"))
    bits = torch.arange(256, dtype=torch.uint8)
    assert_same_bits(tcsim.decode(bits, "e4m3"), tcsim.decode(bits.numpy(), "e4m3"), "values")
