"""Runs one Python audit case (a snippet that sets `r`) and writes what happened as JSON:
the exception (type, message, whether the traceback ends in the C++ layer) or a summary of
`r` (where it holds NaN, Inf, or None under an error/bound key) and the case's check."""
import json
import math
import sys
import traceback


def scan(x, path, nonfinite, nones, depth=0):
    if depth > 6 or len(nonfinite) > 20:
        return
    import numpy as np
    if x is None:
        if any(w in path.lower() for w in ("error", "bound", "residual")):
            nones.append(path)
        return
    if isinstance(x, str):
        # a unit row's overflow rules are words of their vocabulary ("inf": Inf whatever the
        # rounding mode), not numbers
        if path.endswith("['overflow']") or path.endswith("['product_overflow']"):
            return
        if x.strip().lower() in ("inf", "-inf", "+inf", "nan", "-nan", "infinity", "-infinity"):
            nonfinite.append(f"{path} = {x!r} (a string)")
        return
    if isinstance(x, (bool, int, bytes)):
        return
    if isinstance(x, float):
        if not math.isfinite(x):
            nonfinite.append(f"{path} = {x}")
        return
    if isinstance(x, np.ndarray):
        if x.dtype.kind in "fc" and x.size and not np.isfinite(x).all():
            bad = np.argwhere(~np.isfinite(x))
            nonfinite.append(f"{path}: {len(bad)} of {x.size} non-finite (first at {tuple(int(i) for i in bad[0])})")
        elif x.dtype.kind == "O":
            for i, v in enumerate(x.flat[:50]):
                scan(v, f"{path}[{i}]", nonfinite, nones, depth + 1)
        return
    if isinstance(x, np.generic):
        scan(x.item(), path, nonfinite, nones, depth + 1)
        return
    if isinstance(x, dict):
        for k, v in list(x.items())[:200]:
            scan(v, f"{path}[{k!r}]", nonfinite, nones, depth + 1)
        return
    if isinstance(x, (list, tuple)):
        for i, v in enumerate(x[:200]):
            scan(v, f"{path}[{i}]", nonfinite, nones, depth + 1)
        return
    if hasattr(x, "values") and hasattr(x, "bits"):  # tcsim.DotResult
        scan(x.values, path + ".values", nonfinite, nones, depth + 1)


def run_spec(spec_file):
    with open(spec_file) as f:
        spec = json.load(f)
    out = {"raised": False}
    import numpy as np
    import tcsim
    ns = {"np": np, "tcsim": tcsim, "fx": spec["fx"], "tmp": spec["tmp"], "r": None}
    try:
        exec(spec["code"], ns)
    except BaseException as e:  # noqa: B902 - every outcome is recorded
        tb = traceback.extract_tb(e.__traceback__)
        out.update(raised=True, exc_type=type(e).__name__,
                   exc_mro=[c.__name__ for c in type(e).__mro__], exc_msg=str(e),
                   last_frame=(tb[-1].filename if tb else ""), traceback=traceback.format_exc()[-3000:])
    if not out["raised"]:
        r = ns.get("r")
        nonfinite, nones = [], []
        scan(r, "r", nonfinite, nones)
        out.update(nonfinite=nonfinite, nones=nones, summary=repr(r)[:600])
        check = spec.get("check")
        if check:
            try:
                out["check"] = bool(eval(check, ns))
            except Exception as e:  # a check that cannot be evaluated fails
                out["check"] = False
                out["check_error"] = f"{type(e).__name__}: {e}"
    with open(spec["result"], "w") as f:
        json.dump(out, f)


def serve():
    """Runs one case per line of stdin (a spec file), answering "done" on the original stdout;
    the cases' own output goes to /dev/null (one interpreter for many cases: numpy and tcsim
    are imported once)."""
    import io
    import os
    proto = os.fdopen(os.dup(1), "w")
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    for line in sys.stdin:
        spec_file = line.strip()
        if not spec_file:
            continue
        with open(spec_file) as f:
            os.chdir(json.load(f)["tmp"])
        sys.stdout = io.StringIO()
        run_spec(spec_file)
        sys.stdout = sys.__stdout__
        proto.write("done\n")
        proto.flush()


if __name__ == "__main__":
    if sys.argv[1] == "--serve":
        serve()
    else:
        run_spec(sys.argv[1])
