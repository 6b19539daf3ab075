#!/usr/bin/env python3
"""The audit of bad and unusual inputs (issue 22): runs every case of cases_cli.py and
cases_python.py against a build, classifies each outcome, and writes a Markdown summary and
a JSON file with every case.

    python3 scripts/audit/audit.py --build build [--jobs 2] [--only REGEX] [--out DIR]
                                   [--fail-on silent-wrong,crash,hang,refused-unclear]

Classes (classify.py): refused-clear, refused-unclear, refused-late, accepted-ok,
silent-wrong, crash, hang, no-progress. Exit 1 when a case falls in a --fail-on class
(the ctest "audit: ..." uses this), else 0.
"""
import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cases_cli  # noqa: E402
import cases_python  # noqa: E402
import classify  # noqa: E402
import fixtures  # noqa: E402
import open_findings  # noqa: E402
import report  # noqa: E402
import runner  # noqa: E402


def all_cases():
    cases = cases_cli.cases() + cases_python.cases()
    seen = set()
    for c in cases:
        if c["id"] in seen:
            raise SystemExit(f"audit: duplicate case id {c['id']}")
        seen.add(c["id"])
    return cases


def _normal(text):
    """Output without timings and rates (they differ between two runs of the same input)."""
    text = re.sub(r'"[a-z_]*(second|time|rate|per_s)[a-z_]*":\s*[-0-9.e+]+,?', "", text)
    text = re.sub(r"\d+\.\d*(e[-+]?\d+)?|\d+e[-+]?\d+", "#", text)
    text = re.sub(r"\d+ runs\b", "# runs", text)  # bench dot repeats until --seconds pass
    return [ln for ln in text.splitlines()
            if not re.search(r"second|elapsed|/s\b|time|ratio|GFLOP|MAC|cases/s", ln, re.IGNORECASE)]


def run_one(case, env):
    outcome = runner.run(case, env)
    if case.get("check") == "same" and outcome["rc"] == 0 and not outcome["timed_out"]:
        ref = runner.run(dict(case, argv=case["same_as"], id=case["id"] + "~ref"), env)
        outcome["same"] = ref["rc"] == 0 and _normal(ref["stdout"]) == _normal(outcome["stdout"])
    cls, reason = classify.classify(case, outcome)
    if cls == "refused-clear" and case.get("probe_allowed"):
        bad = classify.probe_allowed(case, outcome, env)
        if bad:
            cls, reason = "refused-unclear", bad
    return {"id": case["id"], "component": case["component"], "target": case["target"],
            "issue_class": case.get("issue_class", ""), "expect": case["expect"],
            "what": case.get("what", ""), "command": runner.describe(case), "class": cls, "reason": reason,
            "exit": outcome["rc"], "seconds": round(outcome["seconds"], 2),
            "stdout": (outcome["stdout"] or _py_text(outcome["py"]))[:2000], "stderr": outcome["stderr"][:2000]}


def _py_text(py):
    """A Python case's outcome as text: the exception, or the result's repr and where it is not finite."""
    if not py:
        return ""
    if py["raised"]:
        return f"{py['exc_type']}: {py['exc_msg']}"
    return py.get("summary", "") + "".join("\nnon-finite: " + x for x in py.get("nonfinite", []))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build", help="the build folder (holds apps/tcsim and apps/python)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", help="run the cases whose id matches this regular expression")
    ap.add_argument("--out", default=None, help="folder for audit.md and audit.json (default: <build>/audit)")
    ap.add_argument("--fail-on", default="silent-wrong,crash,hang,refused-unclear")
    ap.add_argument("--list", action="store_true", help="print the cases and exit")
    ap.add_argument("--quick", action="store_true",
                    help="every third case, without the long runs and explore's accepted runs (the ctest)")
    ap.add_argument("--python", default=None, help="the interpreter for Python cases (default: the one running this)")
    ap.add_argument("--fresh-interpreters", action="store_true",
                    help="one Python interpreter per case (slower; default: one per job, restarted after a crash or hang)")
    ap.add_argument("--summarize", metavar="JSON", help="no run: write the findings (not-OK cases by component and "
                    "class) of an earlier run's audit.json to --findings")
    ap.add_argument("--findings", metavar="MD", help="with --summarize: the Markdown file to write")
    ap.add_argument("--merge-into", metavar="JSON", help="with --only: replace these cases' results in an earlier "
                    "run's audit.json (after a fix to the harness) and rewrite its audit.md")
    args = ap.parse_args()
    if args.summarize:
        with open(args.summarize) as f:
            results = json.load(f)["cases"]
        with open(args.findings, "w") as f:
            f.write(report.findings(results, "Audit findings"))
        return 0

    cases = all_cases()
    if args.quick:
        cases = [c for i, c in enumerate(cases)
                 if i % 3 == 0 and not c.get("long_ok") and c.get("timeout", runner.DEFAULT_TIMEOUT) <= 20
                 and not (c["target"] == "explore" and c["expect"] != "refuse")]  # an explore run: ~8 s
    if args.only:
        cases = [c for c in cases if re.search(args.only, c["id"])]
    if args.list:
        for c in cases:
            print(c["id"], "|", runner.describe(c))
        print(len(cases), "cases", file=sys.stderr)
        return 0

    build = os.path.abspath(args.build)
    tcsim = os.path.join(build, "apps", "tcsim")
    if not os.access(tcsim, os.X_OK):
        raise SystemExit(f"audit: no tcsim at {tcsim}; give --build")
    probe = subprocess.run([args.python or sys.executable, "-c", "import numpy, tcsim"], capture_output=True, text=True,
                           env=dict(os.environ, PYTHONPATH=os.path.join(build, "apps", "python")))
    if probe.returncode != 0:
        raise SystemExit("audit: the Python package of this build does not import (is it being rebuilt?): " +
                         probe.stderr.strip().splitlines()[-1])
    out_dir = os.path.abspath(args.out or os.path.join(build, "audit"))
    os.makedirs(out_dir, exist_ok=True)
    scratch = tempfile.mkdtemp(prefix="tcsim-audit-")
    try:
        fx = os.path.join(scratch, "fx")
        fixtures.make(fx, os.path.join(os.path.dirname(os.path.dirname(HERE)), "apps", "tests", "bad_inputs"), tcsim)
        env = {"tcsim": tcsim, "fx": fx, "scratch": scratch, "python": args.python or sys.executable,
               "pythonpath": os.path.join(build, "apps", "python"), "worker": os.path.join(HERE, "py_case.py"),
               "serve": not args.fresh_interpreters}
        start = time.time()
        results = []
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            futures = [pool.submit(run_one, c, env) for c in cases]
            for i, f in enumerate(futures):
                results.append(f.result())
                if (i + 1) % 50 == 0:
                    print(f"audit: {i + 1}/{len(cases)} cases, {time.time() - start:.0f} s", file=sys.stderr)
        elapsed = time.time() - start
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    if args.merge_into:
        with open(args.merge_into) as f:
            old = json.load(f)
        fresh = {r["id"]: r for r in results}
        merged = [fresh.pop(r["id"], r) for r in old["cases"]] + list(fresh.values())
        results, elapsed, out_dir = merged, old["seconds"], os.path.dirname(os.path.abspath(args.merge_into))
    with open(os.path.join(out_dir, "audit.json"), "w") as f:
        json.dump({"build": build, "seconds": round(elapsed, 1), "cases": results}, f, indent=1)
    md = report.markdown(results, elapsed)
    with open(os.path.join(out_dir, "audit.md"), "w") as f:
        f.write(md)
    counts = report.counts(results)
    print("audit: " + ", ".join(f"{k} {v}" for k, v in counts.items()) + f" ({len(results)} cases, {elapsed:.0f} s)")
    print(f"audit: {out_dir}/audit.md, {out_dir}/audit.json")
    not_ok = [r for r in results if r["class"] in set(args.fail_on.split(","))]
    known = [r for r in not_ok if r["id"] in open_findings.OPEN]
    failing = [r for r in not_ok if r["id"] not in open_findings.OPEN]
    for r in known:
        print(f"audit: open (open_findings.py): {r['class']}: {r['id']}: {open_findings.OPEN[r['id']]}")
    ran = {r["id"]: r["class"] for r in results}
    for cid in sorted(open_findings.OPEN):
        if cid in ran and cid not in {r["id"] for r in known}:
            print(f"audit: {cid} is listed in open_findings.py but is now {ran[cid]}: remove it from the list")
    for r in failing:
        print(f"audit: {r['class']}: {r['id']}: {r['command'][:300]}\n    {r['reason'][:500]}")
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
