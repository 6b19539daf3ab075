"""Runs one audit case in its own temporary folder, with a timeout; returns what happened.

A case is a dict with one of
  argv: the tcsim arguments (a list; "{fx}" = the fixture folder, "{tmp}" = the case's folder),
  sh:   a bash command ($TCSIM is the tcsim binary; same placeholders),
  py:   a Python snippet run by py_case.py (it sets `r`; `np`, `tcsim`, `fx`, `tmp` are defined),
and optionally stdin (text fed to the command), timeout (seconds, default 20).
"""
import json
import resource
import select
import threading
import os
import re
import shlex
import signal
import subprocess
import time

DEFAULT_TIMEOUT = 20
MEMORY_LIMIT = 6 << 30  # address space per case: a huge size must be refused, not tried


def _limit():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def _fill(text, tmp, fx):
    return text.replace("{fx}", fx).replace("{tmp}", tmp)


def case_dir(case, env):
    d = os.path.join(env["scratch"], "cases", re.sub(r"[^A-Za-z0-9_.-]", "_", case["id"]))
    os.makedirs(d, exist_ok=True)
    return d


def describe(case):
    """The case as a user would type it (placeholders kept)."""
    if "argv" in case:
        return "tcsim " + " ".join(shlex.quote(a) for a in case["argv"])
    if "sh" in case:
        return case["sh"].replace("$TCSIM", "tcsim")
    return "python: " + case["py"].replace("\n", "; ")


_local = threading.local()


def _worker(env):
    w = getattr(_local, "worker", None)
    if w is None or w.poll() is not None:
        proc_env = dict(os.environ, PYTHONPATH=env["pythonpath"], TCSIM=env["tcsim"])
        err = open(os.path.join(env["scratch"], f"worker-{threading.get_ident()}.err"), "w+")
        w = subprocess.Popen([env["python"], env["worker"], "--serve"], env=proc_env, stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=err, text=True, start_new_session=True, preexec_fn=_limit)
        w.err = err
        _local.worker = w
    return w


def _run_served(spec_file, timeout, env):
    """A Python case on this thread's long-lived interpreter; (timed_out, died, stderr tail)."""
    w = _worker(env)
    start_err = w.err.tell()
    w.stdin.write(spec_file + "\n")
    w.stdin.flush()
    ready, _, _ = select.select([w.stdout], [], [], timeout)
    if ready and w.stdout.readline().strip() == "done":
        return False, False, ""
    timed_out = not ready
    if not timed_out:
        try:
            w.wait(timeout=2)  # it ended by itself: keep its exit status
        except subprocess.TimeoutExpired:
            pass
    rc = w.poll()
    try:
        os.killpg(w.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    w.wait()
    w.err.seek(start_err)
    tail = w.err.read()[-2000:]
    _local.worker = None
    return timed_out, rc if rc is not None else -9, tail


def run(case, env, py_override=None):
    """{"rc", "stdout", "stderr", "seconds", "timed_out", "py"}; py: the Python case's result record."""
    tmp = case_dir(case, env)
    fx = env["fx"]
    timeout = case.get("timeout", DEFAULT_TIMEOUT)
    proc_env = dict(os.environ)
    proc_env["TCSIM"] = env["tcsim"]
    proc_env["PYTHONPATH"] = env["pythonpath"]
    proc_env.pop("TCSIM_THREADS", None)
    result_file = None
    if "argv" in case:
        cmd = [env["tcsim"]] + [_fill(a, tmp, fx) for a in case["argv"]]
    elif "sh" in case:
        cmd = ["bash", "-c", _fill(case["sh"], tmp, fx)]
    else:
        result_file = os.path.join(tmp, "py_result.json")
        if os.path.exists(result_file):
            os.remove(result_file)
        code = py_override if py_override is not None else case["py"]
        spec = {"code": code, "tmp": tmp, "fx": fx, "result": result_file, "check": case.get("check")}
        spec_file = os.path.join(tmp, "py_case.json")
        with open(spec_file, "w") as f:
            json.dump(spec, f)
        cmd = [env["python"], env["worker"], spec_file]
        if env.get("serve"):
            start = time.time()
            timed_out, died, tail = _run_served(spec_file, timeout, env)
            py = None
            if not timed_out and not died and os.path.exists(result_file):
                with open(result_file) as f:
                    py = json.load(f)
            return {"rc": died if died else 0, "stdout": "", "stderr": tail, "seconds": time.time() - start,
                    "timed_out": timed_out, "py": py, "tmp": tmp}
    stdin = case.get("stdin")
    start = time.time()
    p = subprocess.Popen(cmd, cwd=tmp, env=proc_env, stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True, preexec_fn=_limit)
    timed_out = False
    try:
        out, err = p.communicate(input=stdin.encode() if stdin is not None else None, timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, err = p.communicate()
    seconds = time.time() - start
    py = None
    if result_file and os.path.exists(result_file):
        with open(result_file) as f:
            py = json.load(f)
    rc = p.returncode
    # bash reports a child killed by signal N as 128 + N
    if "sh" in case and rc is not None and rc > 128 and rc - 128 in (4, 6, 7, 8, 9, 11):
        rc = -(rc - 128)
    return {"rc": rc, "stdout": out.decode(errors="replace"), "stderr": err.decode(errors="replace"),
            "seconds": seconds, "timed_out": timed_out, "py": py, "tmp": tmp}
