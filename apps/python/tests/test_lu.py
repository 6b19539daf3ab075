"""tcsim.lu / tcsim.solve / tcsim.lu_matrix: the same errors, bounds and refinement as
`tcsim lu --json` on the same generated matrices, factors that multiply back to A, and the
argument errors; on_breakdown="continue" (IEEE arithmetic as the GPU, the first events) and
the solve fix (a NaN/Inf x never comes with a finite backward error)."""
import math

import numpy as np
import pytest

import tcsim

KEYS = ["algorithm", "variant", "storage", "panel", "r", "path", "unit_calls", "solve_precision", "backward_error",
        "normwise_backward_error", "bound", "bound_source", "fp32_buffer_entries", "bytes_moved", "bytes_model",
        "unit", "in", "n", "pivot", "on_breakdown", "events", "solve_events"]

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


GROWTH = np.array([[1.0, 300.0], [300.0, 4.0]])  # apps/tests/bad_inputs/m_growth.mtx
GROWTH3 = np.array([[1.0, 300, 300], [300, 4, 4], [300, 4, 4]])


def test_continue_exact_ieee_factors_and_events():
    L, U, report = tcsim.lu(GROWTH3, unit="h100", alg="ll", on_breakdown="continue")
    assert report["on_breakdown"] == "continue"
    np.testing.assert_array_equal(U, [[1, 300, 300], [0, -np.inf, -np.inf], [0, 0, np.nan]])
    np.testing.assert_array_equal(L, [[1, 0, 0], [300, 1, 0], [300, np.nan, 1]])
    ev = report["events"]
    assert ev["overflow"] == {"step": 1, "block": 1, "row": 1, "col": 1, "value": -math.inf, "where": "the elimination"}
    assert ev["nan"]["step"] == 2 and (ev["nan"]["row"], ev["nan"]["col"]) == (2, 1)
    assert isinstance(ev["nan"]["value"], float) and math.isnan(ev["nan"]["value"])
    assert ev["subnormal_pivot"] is None and ev["zero_pivot"] is None


def test_continue_subnormal_pivot():
    A = np.array([[2.0**-20, 1], [2.0**-22, 1]])  # 2^-20 is subnormal in fp16; l = 0.25 exactly
    L, U, report = tcsim.lu(A, unit="v100", alg="ll", on_breakdown="continue")
    np.testing.assert_array_equal(U, [[2.0**-20, 1], [0, 0.75]])
    assert L[1, 0] == 0.25
    assert report["events"]["subnormal_pivot"] == {"step": 1, "block": 1, "row": 0, "col": 0, "value": 2.0**-20,
                                                   "where": "the pivot"}
    with pytest.raises(tcsim.LuBreakdown, match=r"is below the normal range of fp16"):
        tcsim.lu(A, unit="v100", alg="ll")


def test_continue_solve_reports_nan_backward_error():
    x, report = tcsim.solve(GROWTH3, unit="h100", alg="ll", on_breakdown="continue")
    assert math.isnan(report["backward_error"]) and math.isnan(report["normwise_backward_error"])
    assert report["backward_error_note"] == "the factors hold NaN from step 2 on"
    assert np.isnan(x).any()


def test_stop_raises_breakdown_unchanged():
    with pytest.raises(tcsim.LuBreakdown) as e:
        tcsim.lu(GROWTH, unit="h100", alg="ll")
    assert str(e.value) == ("LU breakdown at step 1 (block 1): the elimination gives A[1][1] = -inf, "
                            "not finite in fp16 storage")


def test_solve_overflow_never_has_a_finite_backward_error():
    # The audit's case: fp16 substitutions overflow (y[1] = -120000), then 0 * -inf = NaN in x;
    # tcsim.solve returned such an x with a normwise backward error of 0.0.
    A, b = np.array([[1.0, 0], [1, 1]]), np.array([60000.0, -60000])
    opts = dict(unit="h100", alg="ref-rl", storage="fp32", solve="fp16")
    with pytest.raises(tcsim.LuBreakdown) as e:
        tcsim.solve(A, b, **opts)
    assert str(e.value) == ("LU breakdown in the substitutions: the forward substitution (y) gives y[1] = -inf, "
                            "not finite in fp16")
    x, report = tcsim.solve(A, b, on_breakdown="continue", **opts)
    assert math.isnan(x[0]) and x[1] == -math.inf
    assert math.isnan(report["normwise_backward_error"])
    assert not math.isfinite(report["backward_error"])
    assert report["backward_error_note"] == "the forward substitution (y) gives y[1] = -inf"
    assert report["solve_events"]["overflow"]["value"] == -math.inf
    assert report["solve_events"]["nan"]["where"] == "the back substitution (x)"


def test_continue_same_as_cli(cli, tmp_path):
    path = tmp_path / "g3.mtx"
    path.write_text("%%MatrixMarket matrix array real general\n3 3\n" + "\n".join(str(v) for v in GROWTH3.T.ravel()) + "\n")
    want = cli.json("lu", "--unit", "h100", "--matrix", path, "--scale", "off", "--alg", "ll", "--on-breakdown", "continue")
    _, got = tcsim.solve(GROWTH3, unit="h100", alg="ll", on_breakdown="continue")

    def as_cli(v):  # Python floats as the CLI's JSON writes them
        if isinstance(v, dict):
            return {k: as_cli(e) for k, e in v.items()}
        if isinstance(v, float) and not math.isfinite(v):
            return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
        return v
    for key in ("events", "solve_events", "backward_error", "normwise_backward_error", "backward_error_note"):
        assert as_cli(got[key]) == want[key], key


def test_on_breakdown_errors(cli):
    with pytest.raises(ValueError, match=r"^on_breakdown: 'maybe' is not allowed; allowed: stop, continue$"):
        tcsim.lu(GROWTH, unit="h100", on_breakdown="maybe")
    with pytest.raises(ValueError, match=r"^on_breakdown: 'maybe' is not allowed; allowed: stop, continue$"):
        tcsim.solve(GROWTH, unit="h100", on_breakdown="maybe")
    assert cli.error("lu", "--unit", "h100", "--n", "4", "--on-breakdown", "maybe") == \
        "--on-breakdown: 'maybe' is not allowed; allowed: stop, continue"
