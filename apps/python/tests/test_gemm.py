"""tcsim.matmul / tcsim.gemm_errors: the same D bits as `tcsim gemm --write-d` on the same
matrices (.npy files) for the variants and options, the same errors and bounds as
`tcsim gemm --json`, and the argument errors."""
import numpy as np
import pytest

import tcsim
from conftest import random_seed


def cli_gemm(cli, tmp_path, A, B, C=None, *options):
    np.save(tmp_path / "A.npy", A)
    np.save(tmp_path / "B.npy", B)
    files = ["--a", tmp_path / "A.npy", "--b", tmp_path / "B.npy"]
    if C is not None:
        np.save(tmp_path / "C.npy", C)
        files += ["--c", tmp_path / "C.npy"]
    d = tmp_path / "D.txt"
    report = cli.json("gemm", *files, *options, "--write-d", d)
    bits = np.array([[int(x, 16) for x in line.split()] for line in d.read_text().splitlines()], dtype=np.uint64)
    return bits, report


CASES = [  # CLI options, the same as Python keyword arguments
    (["--unit", "h100", "--in", "fp16"], dict(unit="h100", in_format="fp16")),
    (["--unit", "v100", "--in", "fp16", "--out", "fp16"], dict(unit="v100", in_format="fp16", out_format="fp16")),
    (["--unit", "v100", "--in", "fp16", "--variant", "fp16"], dict(unit="v100", in_format="fp16", variant="fp16")),
    (["--unit", "v100", "--in", "fp16", "--variant", "tc16"], dict(unit="v100", in_format="fp16", variant="tc16")),
    (["--unit", "a100", "--in", "bf16", "--split-k", "3"], dict(unit="a100", in_format="bf16", split_k=3)),
    (["--unit", "a100", "--in", "fp16", "--fabsum", "8", "--fabsum-combine", "fp64"],
     dict(unit="a100", in_format="fp16", fabsum=8, fabsum_combine="fp64")),
    (["--unit", "h100", "--in", "e4m3", "--scaling", "on"], dict(unit="h100", in_format="e4m3", scaling=True)),
    (["--unit", "a100", "--in", "bf16", "--words", "3", "--all-word-products", "--word-order", "largest-first"],
     dict(unit="a100", in_format="bf16", words=3, all_word_products=True, word_order="largest-first")),
    (["--unit", "a100", "--in", "fp16", "--words", "2", "--scaled-words"],
     dict(unit="a100", in_format="fp16", words=2, scaled_words=True)),
    (["--unit", "h100", "--in", "fp16", "--input-rounding", "rz", "--subnormals", "off"],
     dict(unit="h100", in_format="fp16", input_rounding="rz", subnormals=False)),
    (["--unit", "b200", "--in", "e2m1", "--instruction", "tcgen05"], dict(unit="b200", in_format="e2m1", instruction="tcgen05")),
]


@pytest.mark.parametrize("options, kwargs", CASES, ids=[" ".join(c[0][1::2][:4]) + str(i) for i, c in enumerate(CASES)])
def test_same_bits_and_errors_as_cli(cli, tmp_path, options, kwargs):
    seed = random_seed("gemm-vs-cli")
    rng = np.random.default_rng(seed)
    m, k, n = 7, 37, 5
    A = rng.uniform(-1, 1, (m, k)).astype(np.float32).astype(np.float64)
    B = rng.uniform(-1, 1, (k, n)).astype(np.float32).astype(np.float64)
    C = rng.uniform(-1, 1, (m, n)).astype(np.float32).astype(np.float64)
    want_bits, report = cli_gemm(cli, tmp_path, A, B, C, *options)
    values, bits = tcsim.matmul(A, B, C, return_bits=True, **kwargs)
    assert values.shape == (m, n) and values.dtype == np.float64
    assert np.array_equal(bits.astype(np.uint64), want_bits), f"seed {seed}"
    got = tcsim.gemm_errors(A, B, C, **kwargs)
    for key in ["variant", "storage", "path", "path_detail", "unit_calls", "componentwise_error", "normwise_error",
                "componentwise_bound", "bound_source", "rows_checked", "sampled", "m", "n", "k", "unit", "in", "out"]:
        assert got[key] == report[key], (key, seed)
    assert np.array_equal(got["D"], values)


def test_patterns_as_inputs_and_float32():
    seed = random_seed("gemm-patterns")
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((6, 20))
    B = rng.standard_normal((20, 4))
    d = tcsim.matmul(A, B, unit="h100", in_format="e4m3")
    d_bits = tcsim.matmul(tcsim.encode(A, "e4m3"), tcsim.encode(B, "e4m3"), unit="h100", in_format="e4m3")
    assert np.array_equal(d, d_bits)
    d32 = tcsim.matmul(A.astype(np.float32), B.astype(np.float32), unit="h100", in_format="e4m3")
    d64 = tcsim.matmul(A.astype(np.float32).astype(np.float64), B.astype(np.float32).astype(np.float64), unit="h100",
                       in_format="e4m3")
    assert np.array_equal(d32, d64)
    # D = C + A B with k = 16 = one h100 block: the same bits as tcsim.dot on each element.
    A, B = rng.standard_normal((3, 16)), rng.standard_normal((16, 2))
    C = rng.standard_normal((3, 2)).astype(np.float32).astype(np.float64)
    _, bits = tcsim.matmul(A, B, C, unit="h100", in_format="fp16", return_bits=True)
    for i in range(3):
        for j in range(2):
            assert tcsim.dot("h100", A[i], B[:, j], C[i, j], in_format="fp16", out_format="fp32").bits == bits[i, j]


def test_errors():
    A, B = np.ones((2, 3)), np.ones((3, 4))
    with pytest.raises(ValueError, match=r"^A is 2 x 3 and B is 4 x 3: A's columns must equal B's rows$"):
        tcsim.matmul(A, np.ones((4, 3)), unit="h100", in_format="fp16")
    with pytest.raises(ValueError, match=r"^C is 3 x 3; D = C \+ A B needs 2 x 4$"):
        tcsim.matmul(A, B, np.ones((3, 3)), unit="h100", in_format="fp16")
    with pytest.raises(ValueError, match=r"^A: expected a 2-D array \(a matrix\), got shape \(3,\)$"):
        tcsim.matmul(np.ones(3), B, unit="h100", in_format="fp16")
    with pytest.raises(TypeError, match=r"^A: dtype int64 is not allowed"):
        tcsim.matmul(np.ones((2, 3), np.int64), B, unit="h100", in_format="fp16")
    with pytest.raises(ValueError, match=r"^argument 'words' of tcsim.matmul expects an integer in 1..8, got 9$"):
        tcsim.matmul(A, B, unit="h100", in_format="fp16", words=9)
    with pytest.raises(TypeError, match=r"^argument 'words' of tcsim.matmul expects an integer"):
        tcsim.matmul(A, B, unit="h100", in_format="fp16", words=2.5)
    with pytest.raises(ValueError, match=r"^scaled_words needs words 2 or more$"):
        tcsim.matmul(A, B, unit="h100", in_format="fp16", scaled_words=True)
    with pytest.raises(ValueError, match=r"^fabsum_combine needs fabsum$"):
        tcsim.matmul(A, B, unit="h100", in_format="fp16", fabsum_combine="fp64")
    with pytest.raises(ValueError, match=r"^variant: 'tc8' is not"):
        tcsim.matmul(A, B, unit="h100", in_format="fp16", variant="tc8")
    with pytest.raises(ValueError, match=r"^word_order: 'up' is not an order; allowed: smallest-first, largest-first$"):
        tcsim.matmul(A, B, unit="h100", in_format="fp16", words=2, word_order="up")
    with pytest.raises(TypeError, match=r"^unknown argument 'foo' for tcsim.matmul; allowed: A, B, C, unit"):
        tcsim.matmul(A, B, unit="h100", in_format="fp16", foo=1)
    with pytest.raises(TypeError, match=r"^argument 'scaling' of tcsim.matmul expects True or False"):
        tcsim.matmul(A, B, unit="h100", in_format="fp16", scaling="on")
    with pytest.raises(TypeError, match=r"give unit="):
        tcsim.matmul(A, B, in_format="fp16")


def test_variant_error_is_the_clis(cli):
    want = cli.error("gemm", "--unit", "h100", "--in", "fp16", "--m", "2", "--n", "2", "--k", "2", "--variant", "tc8")
    with pytest.raises(ValueError) as e:
        tcsim.matmul(np.ones((2, 2)), np.ones((2, 2)), unit="h100", in_format="fp16", variant="tc8")
    assert str(e.value) == want.replace("--variant", "variant")


def test_torch_in_torch_out():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed (optional): torch in/out untested here")
    A, B = torch.randn(4, 8), torch.randn(8, 3)
    D = tcsim.matmul(A, B, unit="h100", in_format="fp16")
    assert isinstance(D, torch.Tensor) and D.dtype == torch.float64
    assert np.array_equal(D.numpy(), tcsim.matmul(A.numpy(), B.numpy(), unit="h100", in_format="fp16"))


@pytest.mark.parametrize("dist, seed, ell", [("uniform01", 1, None), ("normal", 3, None), ("pm10^phi", 7, 4)])
def test_generated_problem_is_the_clis(cli, tmp_path, dist, seed, ell):
    """tcsim.gemm_problem gives `tcsim gemm --m --n --k --dist --seed --ell`'s matrices: the same D bits and errors."""
    extra = ["--ell", ell] if ell is not None else []
    d = tmp_path / "D.txt"
    want = cli.json("gemm", "--unit", "v100", "--in", "fp16", "--m", 6, "--n", 5, "--k", 300, "--dist", dist, "--seed",
                    seed, *extra, "--write-d", d)
    want_bits = [[int(x, 16) for x in line.split()] for line in d.read_text().splitlines()]
    A, B = tcsim.gemm_problem(6, 5, 300, dist=dist, seed=seed, ell=ell)
    assert A.shape == (6, 300) and B.shape == (300, 5)
    assert np.array_equal(A.astype(np.float32).astype(np.float64), A)  # binary32 entries
    _, bits = tcsim.matmul(A, B, unit="v100", in_format="fp16", return_bits=True)
    assert bits.tolist() == want_bits
    got = tcsim.gemm_errors(A, B, unit="v100", in_format="fp16")
    assert (got["componentwise_error"], got["componentwise_bound"]) == (want["componentwise_error"],
                                                                        want["componentwise_bound"])
    with pytest.raises(ValueError, match=r"^dist: 'gauss' is not a distribution; allowed: uniform01, uniform-11"):
        tcsim.gemm_problem(2, 2, 2, dist="gauss")
