"""tcsim.lu / tcsim.solve / tcsim.lu_matrix: the same errors, bounds and refinement as
`tcsim lu --json` on the same generated matrices, factors that multiply back to A, and the
argument errors."""
import numpy as np
import pytest

import tcsim

KEYS = ["algorithm", "variant", "storage", "panel", "r", "path", "unit_calls", "solve_precision", "backward_error",
        "normwise_backward_error", "bound", "bound_source", "fp32_buffer_entries", "bytes_moved", "bytes_model",
        "unit", "in", "n", "pivot"]

CASES = [
    (["--n", "48", "--r", "8"], dict(r=8), ("q1dq2", 48, 1e3, 1)),
    (["--n", "40", "--r", "8", "--alg", "ll", "--matrix", "hpl-ai", "--seed", "5"], dict(r=8, alg="ll"), ("hpl-ai", 40, 1e3, 5)),
    (["--n", "32", "--r", "16", "--s", "4", "--alg", "dp", "--panel", "rl-fp32"], dict(r=16, s=4, alg="dp", panel="rl-fp32"),
     ("q1dq2", 32, 1e3, 1)),
    (["--n", "32", "--r", "8", "--storage", "fp16", "--pivot", "--matrix", "uniform"], dict(r=8, storage="fp16", pivot=True),
     ("uniform", 32, 1e3, 1)),
    (["--n", "40", "--r", "8", "--cond", "1e6", "--refine", "gmres-ir", "--working", "fp64"],
     dict(r=8, refine="gmres-ir", working="fp64"), ("q1dq2", 40, 1e6, 1)),
    (["--n", "24", "--r", "8", "--alg", "ref-rl", "--storage", "fp32", "--refine", "lu-ir", "--max-iterations", "3"],
     dict(r=8, alg="ref-rl", storage="fp32", refine="lu-ir", max_iterations=3), ("q1dq2", 24, 1e3, 1)),
]


@pytest.mark.parametrize("options, kwargs, matrix", CASES, ids=[str(i) for i in range(len(CASES))])
def test_same_report_as_cli(cli, options, kwargs, matrix):
    want = cli.json("lu", "--unit", "h100", *options)
    kind, n, cond, seed = matrix
    A = tcsim.lu_matrix(kind, n, cond=cond, seed=seed)
    x, got = tcsim.solve(A, unit="h100", **kwargs)
    for key in KEYS + (["s"] if "s" in want else []) + [k for k in want if k in (
            "iterations", "converged", "stop_reason", "forward_error", "refined_normwise_backward_error",
            "refined_componentwise_backward_error", "gmres_iterations", "history", "refine", "working")]:
        assert got[key] == want[key], key
    assert x.shape == (n,)


def test_factors_multiply_back():
    A = tcsim.lu_matrix("q1dq2", 32, seed=2)
    L, U, report = tcsim.lu(A, unit="h100", r=8, storage="fp32", pivot=True)
    assert np.array_equal(np.tril(L), L) and np.all(np.diag(L) == 1) and np.array_equal(np.triu(U), U)
    P = A[report["perm"]]
    # Componentwise |LU - PA| <= c |L||U|: the updates round L and U to fp16 (u = 2^-11) for the
    # unit; with the fp32 variant (no tensor core) only binary32 roundings remain.
    assert np.max(np.abs(L @ U - P) / (np.abs(L) @ np.abs(U))) <= 3 * 2.0**-11
    L32, U32, _ = tcsim.lu(A, unit="h100", r=8, storage="fp32", pivot=True, variant="fp32")
    assert np.max(np.abs(L32 @ U32 - P) / (np.abs(L32) @ np.abs(U32))) <= 32 * 2.0**-24
    # fp32 storage: every factor entry is a binary32 number.
    assert np.array_equal(U.astype(np.float32).astype(np.float64), U)
    _, solved = tcsim.solve(A, unit="h100", r=8, storage="fp32", pivot=True)
    assert {k: report[k] for k in ("unit_calls", "bytes_moved", "perm")} == {k: solved[k] for k in ("unit_calls", "bytes_moved", "perm")}


def test_given_rhs_and_forward_error():
    A = tcsim.lu_matrix("q1dq2", 16, seed=4)
    x_true = np.linspace(-1, 1, 16)
    b = A @ x_true
    x, report = tcsim.solve(A, b, unit="a100", r=4, storage="fp32", refine="lu-ir", x_true=x_true)
    assert report["converged"] and np.abs(x - x_true).max() < 1e-10


def test_errors(cli):
    A = tcsim.lu_matrix("q1dq2", 8)
    with pytest.raises(ValueError, match=r"^A is 2 x 3; LU needs a square matrix$"):
        tcsim.lu(np.ones((2, 3)), unit="h100")
    with pytest.raises(ValueError, match=r"^variant applies to alg 'rl' only$"):
        tcsim.lu(A, unit="h100", alg="ll", variant="tc16")
    with pytest.raises(ValueError, match=r"^working needs refine$"):
        tcsim.solve(A, unit="h100", working="fp32")
    with pytest.raises(ValueError, match=r"^b: expected a vector of 8 values, got shape \(3,\)$"):
        tcsim.solve(A, np.ones(3), unit="h100")
    with pytest.raises(ValueError, match=r"^kind: 'magic' is not a matrix; allowed: q1dq2, hpl-ai, tunable, uniform, normal$"):
        tcsim.lu_matrix("magic", 8)
    with pytest.raises(TypeError, match=r"^unknown argument 'block' for tcsim.lu"):
        tcsim.lu(A, unit="h100", block=8)
    with pytest.raises(ValueError) as e:
        tcsim.lu(A, unit="h100", alg="nosuch")
    assert str(e.value) == cli.error("lu", "--unit", "h100", "--n", "8", "--alg", "nosuch").replace("--alg", "alg")
    with pytest.raises(tcsim.LuBreakdown, match=r"pivot|zero"):
        tcsim.lu(np.zeros((4, 4)), unit="h100", r=2)
    assert issubclass(tcsim.LuBreakdown, ArithmeticError)
