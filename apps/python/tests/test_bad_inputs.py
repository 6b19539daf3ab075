"""The Python catalogue of bad inputs (docs/reliability.md, section 3b, issue 22): every row of
its table is run here, so that the document and the package cannot drift apart. A row is

    | P<n> | <category> | <what is wrong> | `<Python expression>` | <exception type> | `<exact message>` |

The expression is evaluated with ``tcsim``, ``np`` (numpy), ``nan``, ``inf`` and ``AT`` (a
scratch folder holding the fixture files of apps/tests/bad_inputs/, also written ``@/`` in
the expression and the message). It must raise exactly that type (not a subclass standing in
for it) with exactly that message: no raw pybind11 or JSON-parser text, no CLI option names.
"""
import math
import os
import pathlib
import re
import shutil

import numpy as np
import pytest

import tcsim

ROOT = pathlib.Path(os.environ.get("TCSIM_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[3]))
ROW = re.compile(r"^\| P(\d+) \| [^|]* \| [^|]* \| `(.+?)` \| (\w+(?:\.\w+)?) \| `(.*)` \|$")


def catalogue_rows():
    rows = []
    for line in (ROOT / "docs" / "reliability.md").read_text().splitlines():
        if not re.match(r"\| P\d+ \|", line):  # catalogue rows only (other tables start "| P..." too)
            continue
        m = ROW.match(line)
        assert m, f"docs/reliability.md: malformed Python catalogue row: {line}"
        rows.append((int(m.group(1)), m.group(2), m.group(3), m.group(4).replace("\\|", "|")))
    return rows


ROWS = catalogue_rows()


def test_catalogue_is_numbered_and_long_enough():
    ids = [r[0] for r in ROWS]
    assert ids == sorted(ids) and len(set(ids)) == len(ids), f"rows P<n> must increase: {ids}"
    assert len(ROWS) >= 20, f"only {len(ROWS)} Python catalogue rows found ('| P<n> |' lines)"


@pytest.fixture(scope="module")
def at(tmp_path_factory):
    d = tmp_path_factory.mktemp("bad_inputs")
    for f in (ROOT / "apps" / "tests" / "bad_inputs").iterdir():
        shutil.copy(f, d / f.name)
    return str(d)


@pytest.mark.parametrize("row", ROWS, ids=[f"P{r[0]}" for r in ROWS])
def test_catalogue_row(row, at):
    _, expr, exc_name, message = row
    expr = expr.replace("@/", at + "/")
    message = message.replace("@/", at + "/")
    exc_type = getattr(tcsim, exc_name.split(".")[-1]) if exc_name.startswith("tcsim.") else getattr(__builtins__, exc_name, None) \
        if not isinstance(__builtins__, dict) else __builtins__.get(exc_name)
    assert isinstance(exc_type, type) and issubclass(exc_type, BaseException), f"unknown exception type {exc_name}"
    env = {"tcsim": tcsim, "np": np, "nan": math.nan, "inf": math.inf, "AT": at}
    with pytest.raises(BaseException) as info:
        eval(expr, env)  # noqa: S307 - the catalogue's own expressions
    assert type(info.value) is exc_type, f"{expr}: raised {type(info.value).__name__}: {info.value}"
    assert str(info.value) == message
    text = str(info.value)
    assert "incompatible function arguments" not in text and "json.exception" not in text
    assert not re.search(r"(^|[\s(])--[a-z]", text), f"a CLI option named in a Python message: {text}"


# docs/python.md's API table names the keys of the returned dicts: they must be the code's.
def test_documented_return_keys(cli, tmp_path):
    A = np.array([[2.0, 1.0], [1.0, 1.0]])
    assert set(tcsim.formats()[0]) == {"name", "width", "precision", "emin", "emax", "subnormals", "dtype"}
    L, U, report = tcsim.lu(tcsim.lu_matrix("q1dq2", 16), unit="v100")
    # The documented keys are there (a report may hold more, e.g. breakdown events).
    assert {"unit", "in", "n", "algorithm", "variant", "storage", "panel", "r", "pivot", "perm", "path", "unit_calls",
            "bytes_moved", "bytes_model", "fp32_buffer_entries", "seconds"} <= set(report)
    x, solve_report = tcsim.solve(tcsim.lu_matrix("q1dq2", 16), unit="v100")
    lu_json = cli.json("lu", "--unit", "v100", "--n", "16")
    assert (set(lu_json) - {"matrix"}) | {"perm"} <= set(solve_report)
    assert "matrix" not in solve_report
    at = ROOT / "apps" / "tests" / "bad_inputs"
    v = tcsim.validate_dump("v100", "fp16", "fp32", str(at / "a.txt"), str(at / "b.txt"), c=str(at / "c.txt"),
                            d=str(at / "d.txt"))
    assert set(v) == {"unit", "in", "out", "k", "cases", "mismatches", "match_rate", "first", "summary"}
    (tmp_path / "A.mtx").write_text("%%MatrixMarket matrix array real general\n2 2\n2\n1\n1\n1\n")
    (tmp_path / "B.mtx").write_text("%%MatrixMarket matrix array real general\n2 2\n1\n0\n0\n1\n")
    gemm_json = cli.json("gemm", "--unit", "h100", "--in", "fp16", "--a", tmp_path / "A.mtx", "--b", tmp_path / "B.mtx")
    assert set(tcsim.gemm_errors(A, np.eye(2), unit="h100", in_format="fp16")) == (set(gemm_json) - {"problem"}) | {"D"}
