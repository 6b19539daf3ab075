"""The audit's classifier on made-up outcomes: each class is reachable, and the checks that
make a refusal unclear fire (run by ctest as "audit: classifier"; pytest or plain python3)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import classify  # noqa: E402


def cli(rc, err="", out="", seconds=0.1, timed_out=False):
    return {"rc": rc, "stdout": out, "stderr": err, "seconds": seconds, "timed_out": timed_out, "py": None, "tmp": "/tmp"}


def py(raised=False, exc_type="ValueError", msg="", nonfinite=(), nones=(), check=None):
    mro = {"ValueError": ["ValueError", "Exception"], "TypeError": ["TypeError", "Exception"],
           "LuBreakdown": ["LuBreakdown", "ArithmeticError", "Exception"],
           "RuntimeError": ["RuntimeError", "Exception"]}[exc_type]
    rec = {"raised": raised, "exc_type": exc_type, "exc_mro": mro, "exc_msg": msg,
           "nonfinite": list(nonfinite), "nones": list(nones), "summary": "", "check": check}
    return {"rc": 0, "stdout": "", "stderr": "", "seconds": 0.3, "timed_out": False, "py": rec, "tmp": "/tmp"}


REFUSE = {"id": "t", "expect": "refuse", "argv": ["gemm"], "names": "--m"}
PY_REFUSE = {"id": "t", "expect": "refuse", "py": "r = 1", "names": "split_k"}


def cls(case, outcome):
    return classify.classify(case, outcome)[0]


def test_cli_classes():
    good = "tcsim gemm: error: option '--m' for 'tcsim gemm' expects an integer in 1..1048576, got '0'\n"
    assert cls(REFUSE, cli(2, good)) == "refused-clear"
    assert cls(REFUSE, cli(2, good + "second line\n")) == "refused-unclear"
    assert cls(REFUSE, cli(1, good)) == "refused-unclear"                       # a usage error exits 2
    assert cls(REFUSE, cli(2, good, out="D = ...")) == "refused-unclear"       # a partial result
    assert cls(REFUSE, cli(2, "tcsim gemm: error: split_k must be between 1 and k\n")) == "refused-unclear"
    assert cls(REFUSE, cli(2, "tcsim dot: error: x: [json.exception.parse_error.101] ...\n")) == "refused-unclear"
    assert cls(REFUSE, cli(2, "tcsim gemm: error: cannot be written\n")) == "refused-unclear"  # --m not named
    assert cls(REFUSE, cli(2, "progress (10%)\n" + good)) == "refused-late"
    assert cls(REFUSE, cli(2, good, seconds=9.0)) == "refused-late"
    assert cls(REFUSE, cli(0, "")) == "silent-wrong"
    assert cls(REFUSE, cli(0, "tcsim dot: warning: rounded\n")) == "accepted-warned"
    assert cls(REFUSE, cli(-11, "")) == "crash"
    assert cls(REFUSE, cli(2, "terminate called after throwing\n")) == "crash"
    assert cls(REFUSE, cli(None, "", timed_out=True)) == "hang"
    ok = {"id": "t", "expect": "ok", "argv": ["gemm"]}
    assert cls(ok, cli(0, "", out="error 1e-5")) == "accepted-ok"
    assert cls(ok, cli(0, "", out='{"componentwise_error":null}')) == "silent-wrong"
    assert cls(ok, cli(0, "", out="error inf")) == "silent-wrong"
    assert cls(ok, cli(0, "", out="normwise (inf) = 1e-5")) == "accepted-ok"  # the norm's name
    assert cls(ok, cli(0, "", out='{"events":{"nan":null},"backward_error":0.0}')) == "accepted-ok"
    assert cls(ok, cli(0, "", out='{"backward_error":"inf"}')) == "silent-wrong"
    assert cls(ok, cli(0, "", out='{"x":NaN}')) == "silent-wrong"
    assert cls(ok, cli(0, "", out="x", seconds=5.0)) == "no-progress"
    assert cls(ok, cli(0, "progress\n", out="x", seconds=5.0)) == "accepted-ok"
    assert cls(ok, cli(2, "tcsim gemm: error: no\n")) == "refused-valid"
    long_ok = dict(ok, long_ok=True)
    assert cls(long_ok, cli(None, "step 1 of 9\n", timed_out=True)) == "accepted-ok"
    assert cls(long_ok, cli(None, "", timed_out=True)) == "hang"


def test_python_classes():
    assert cls(PY_REFUSE, py(True, "ValueError", "split_k must be at least 1, got 0")) == "refused-clear"
    assert cls(PY_REFUSE, py(True, "ValueError", "--split-k must be at least 1")) == "refused-unclear"
    assert cls(PY_REFUSE, py(True, "TypeError", "f(): incompatible function arguments. split_k\n  1. ...")) == \
        "refused-unclear"
    assert cls(PY_REFUSE, py(True, "ValueError", "split_k: fabsum_block must be > 0")) == "refused-unclear"
    assert cls(PY_REFUSE, py(True, "RuntimeError", "split_k std::bad_alloc")) == "crash"
    assert cls(PY_REFUSE, py(True, "LuBreakdown", "split_k")) == "refused-unclear"  # not the API's type here
    assert cls(PY_REFUSE, py(False)) == "silent-wrong"
    ok = {"id": "t", "expect": "ok", "py": "r = 1"}
    assert cls(ok, py(False)) == "accepted-ok"
    assert cls(ok, py(False, nonfinite=["r: 1 of 4 non-finite"])) == "silent-wrong"
    assert cls(ok, py(False, nones=["r['backward_error']"])) == "silent-wrong"
    assert cls(dict(ok, check="x"), py(False, check=False)) == "silent-wrong"
    assert cls({"id": "t", "expect": "either", "py": "r = 1", "finite": False}, py(False, nonfinite=["r"])) == \
        "accepted-ok"


def test_allowed_values():
    msg = "tcsim lu: error: --alg: 'xx' is not allowed; allowed: rl, ll, ll-fp32-panel, dp, ref-rl, ref-ll"
    assert classify.allowed_values(msg) == ["rl", "ll", "ll-fp32-panel", "dp", "ref-rl", "ref-ll"]
    assert classify.allowed_values("--m: allowed: 1..100") == []


if __name__ == "__main__":
    test_cli_classes()
    test_python_classes()
    test_allowed_values()
    print("audit classifier: all checks passed")
