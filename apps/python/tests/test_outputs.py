"""Non-finite numbers in the returned dicts (floats, never None or strings; the CLI's JSON holds
"inf"), the progress= argument of the long functions, and gemm_errors' default row sample
(docs/design.md, "Outputs, JSON numbers and progress")."""
import math

import numpy as np
import pytest

import tcsim

# fp16 accumulation overflows: D = 60000 * 60000 * 2 = inf, both errors +inf.
A_BIG = np.array([[60000.0, 60000.0]])
B_BIG = np.array([[60000.0], [60000.0]])


def test_non_finite_errors_are_floats(cli, tmp_path):
    got = tcsim.gemm_errors(A_BIG, B_BIG, unit="v100", in_format="fp16", out_format="fp16")
    for key in ["componentwise_error", "normwise_error"]:
        assert isinstance(got[key], float) and math.isinf(got[key]) and got[key] > 0, (key, got[key])
    assert math.isinf(got["D"][0, 0])
    # The CLI writes the same numbers as the string "inf".
    np.save(tmp_path / "A.npy", A_BIG)
    np.save(tmp_path / "B.npy", B_BIG)
    report = cli.json("gemm", "--unit", "v100", "--in", "fp16", "--out", "fp16", "--a", tmp_path / "A.npy", "--b",
                      tmp_path / "B.npy")
    assert report["componentwise_error"] == "inf" and report["normwise_error"] == "inf"


def test_progress_lines_off_a_terminal(capfd, monkeypatch):
    monkeypatch.setenv("TCSIM_PROGRESS_AFTER", "0")
    monkeypatch.setenv("TCSIM_PROGRESS_INTERVAL", "0")
    A, B = tcsim.gemm_problem(64, 8, 16)
    tcsim.gemm_errors(A, B, unit="h100", in_format="fp16", progress=True)
    err = capfd.readouterr().err
    assert "tcsim.gemm_errors: exact errors (MPFR): " in err and "(64/64) after " in err, err
    tcsim.lu(tcsim.lu_matrix("q1dq2", 64), unit="v100", r=16, progress=True)
    assert "tcsim.lu: simulated LU: " in capfd.readouterr().err
    # False, and None off a terminal (pytest captures stderr): nothing.
    tcsim.gemm_errors(A, B, unit="h100", in_format="fp16", progress=False)
    tcsim.gemm_errors(A, B, unit="h100", in_format="fp16")
    tcsim.solve(tcsim.lu_matrix("q1dq2", 64), unit="v100", r=16, progress=False)
    assert capfd.readouterr().err == ""


def test_progress_waits_two_seconds_by_default(capfd, monkeypatch):
    monkeypatch.delenv("TCSIM_PROGRESS_AFTER", raising=False)
    A, B = tcsim.gemm_problem(16, 8, 16)
    tcsim.gemm_errors(A, B, unit="h100", in_format="fp16", progress=True)  # milliseconds: nothing
    assert capfd.readouterr().err == ""


def test_progress_argument_checked():
    A, B = tcsim.gemm_problem(4, 4, 4)
    with pytest.raises(TypeError, match=r"^argument 'progress' of tcsim.gemm_errors expects None, True or False, got 'yes'$"):
        tcsim.gemm_errors(A, B, unit="h100", in_format="fp16", progress="yes")
    with pytest.raises(TypeError, match=r"^argument 'progress' of tcsim.lu expects None, True or False, got 1$"):
        tcsim.lu(tcsim.lu_matrix("q1dq2", 8), unit="v100", progress=1)


def test_check_rows_sample_and_all():
    A, B = tcsim.gemm_problem(64, 8, 8)
    got = tcsim.gemm_errors(A, B, unit="h100", in_format="fp16", check_rows=4)
    assert got["rows_checked"] == 4 and got["sampled"] and got["checked_rows"] == [0, 21, 42, 63]
    every = tcsim.gemm_errors(A, B, unit="h100", in_format="fp16", check_rows="all")
    assert every["rows_checked"] == 64 and not every["sampled"] and "checked_rows" not in every
