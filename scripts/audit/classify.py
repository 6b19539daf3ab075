"""The classes of an audit outcome, and why.

refused-clear    refused (CLI: exit 2, or the exit codes the case allows; Python: ValueError or
                 TypeError, or the exceptions the case allows) with one line that names the
                 option/argument as the user wrote it, no library text, no internal name, no
                 partial result on stdout; and (probe_allowed) every value its "allowed:" list
                 names is accepted
refused-unclear  refused, but the message fails one of those checks
refused-late     refused clearly, but only after > LATE_SECONDS (e.g. an output folder checked
                 after the computation)
refused-valid    a valid input (expect "ok") refused
accepted-ok      accepted with a justified result (finite where the case asks, its check true)
accepted-warned  accepted with a warning on stderr although it must be refused (e.g. 1e300
                 saturated into a format without Inf)
silent-wrong     accepted although it must be refused, or a result with NaN/Inf/None where the
                 input was valid or invalid, or the case's check of the result false
crash            a signal, an abort, "terminate called", a Python exception other than the
                 API's (RuntimeError from the C++ layer, IndexError, ...), a dead interpreter
hang             the timeout passed
no-progress      an accepted run longer than SILENT_SECONDS that printed nothing on stderr
"""
import re

LATE_SECONDS = 4.0
SILENT_SECONDS = 3.0
PROBE_SECONDS = 5.0  # a rerun with a listed value: refused within this time, or accepted
OK_CLASSES = ("refused-clear", "accepted-ok")
CLASSES = ("refused-clear", "accepted-ok", "refused-unclear", "refused-late", "refused-valid", "accepted-warned",
           "silent-wrong",
           "crash", "hang", "no-progress")

RAW_TEXTS = [
    (r"incompatible function arguments", "raw pybind11 text"),
    (r"Invoked with:", "raw pybind11 text"),
    (r"json\.exception", "raw JSON-parser text"),
    (r"std::|basic_string|what\(\)|\bstoi\b|\bstod\b|\bstoll\b|\bstoull?\b|vector::|_M_", "C++ library text"),
    (r"terminate called|Segmentation fault|core dumped", "crash text"),
    (r"Unable to cast|unable to convert|TypeError: __init__", "raw pybind11 text"),
]
# Names of internal fields (the CLI and Python spell options differently, e.g. --split-k).
INTERNAL_CLI = r"\b(split_k|fabsum_block|inner_block|fabsum_combine|check_rows|input_rounding|word_order|" \
               r"scaled_words|max_iterations|all_word_products)\b|(?<!working )(?<!machine )(?<!binary)\bprecision\b(?=\s*[=:'])|'precision'"
INTERNAL_PY = r"\b(fabsum_block|inner_block)\b|'precision'|\bprecision\s*[=:]"
CLI_OPTION = r"(^|[\s'\"(])--[a-z][a-z0-9-]*"
# Not after "overflow " or "overflow: ": a unit row's overflow rule ("inf": Inf whatever the
# rounding mode) is a word of its vocabulary, not a result.
NONFINITE = re.compile(r"(?<![A-Za-z_(])(?<!overflow )(?<!overflow: )(?<!overflow=)(-?nan|[-+]?inf|[-+]?infinity|null)(?![A-Za-z_)])",
                       re.IGNORECASE)


def _names_ok(case, msg):
    names = case.get("names")
    if not names:
        return True
    if isinstance(names, str):
        names = [names]
    return any(n.replace("{fx}/", "") in msg for n in names)


def _message_problems(case, msg, python):
    problems = []
    text = msg.strip()
    if not text:
        return ["no message"]
    if "\n" in text:
        problems.append(f"{len(text.splitlines())} lines")
    for pat, what in RAW_TEXTS:
        if re.search(pat, text):
            problems.append(what)
    m = re.search(INTERNAL_PY if python else INTERNAL_CLI, text)
    if m:
        problems.append(f"names the internal field '{m.group(0).strip()}'")
    if python and re.search(CLI_OPTION, text):
        problems.append("a Python message naming a CLI option (" + re.search(CLI_OPTION, text).group(0).strip() + ")")
    if not _names_ok(case, text):
        problems.append("does not name " + " or ".join(repr(n) for n in ([case["names"]] if isinstance(case["names"], str) else case["names"])))
    return problems


def _accepted(case, outcome, text_out, nonfinite, nones, check):
    expect = case["expect"]
    if expect == "refuse":
        if re.search(r"\bwarning\b", outcome["stderr"]):
            return "accepted-warned", "accepted with a warning only: " + outcome["stderr"].strip().splitlines()[0][:300]
        return "silent-wrong", "accepted: " + case.get("why", "this input must be refused")
    if check is False:
        return "silent-wrong", "the result fails its check: " + case.get("check_what", case.get("check", ""))
    if case.get("finite", True):
        if nonfinite:
            return "silent-wrong", "non-finite result: " + "; ".join(nonfinite[:3])
    if nones:
        return "silent-wrong", "None where a number belongs: " + ", ".join(nones[:3])
    if "py" not in case and outcome["seconds"] > SILENT_SECONDS and not outcome["stderr"].strip() \
            and not case.get("quiet_ok"):
        return "no-progress", f"{outcome['seconds']:.1f} s with nothing on stderr"
    return "accepted-ok", ""


def classify(case, outcome):
    if outcome["timed_out"]:
        if case.get("long_ok") and outcome["stderr"].strip():
            return "accepted-ok", "a long run, still running with progress on stderr at the timeout"
        return "hang", f"no answer within {case.get('timeout', 20)} s" + (
            " and nothing on stderr" if not outcome["stderr"].strip() else "")
    python = "py" in case
    if python:
        py = outcome["py"]
        if py is None:
            return "crash", f"the interpreter died (exit {outcome['rc']}): " + outcome["stderr"].strip()[-300:]
        if py["raised"]:
            allowed = case.get("py_exc", ["ValueError", "TypeError"])
            if not any(t in py["exc_mro"] for t in allowed) and py["exc_type"] == "LuBreakdown":
                return "refused-unclear", f"LuBreakdown where {'/'.join(allowed)} belongs: {py['exc_msg'][:300]}"
            if not any(t in py["exc_mro"] for t in allowed):
                if py["exc_type"] in ("OverflowError", "KeyError"):
                    return "refused-unclear", f"{py['exc_type']} (not ValueError/TypeError): {py['exc_msg'][:300]}"
                return "crash", f"uncaught {py['exc_type']}: {py['exc_msg'][:300]}"
            if case["expect"] == "ok":
                return "refused-valid", f"{py['exc_type']}: {py['exc_msg'][:300]}"
            problems = _message_problems(case, py["exc_msg"], True)
            if problems:
                return "refused-unclear", "; ".join(problems) + f": {py['exc_type']}: {py['exc_msg'][:400]}"
            return "refused-clear", ""
        return _accepted(case, outcome, py.get("summary", ""), py.get("nonfinite", []), py.get("nones", []),
                         py.get("check"))

    rc, out, err = outcome["rc"], outcome["stdout"], outcome["stderr"]
    if rc in case.get("accept_rc", []):
        rc = 0
    if rc < 0 or rc in (134, 136, 139) or re.search(r"terminate called|Segmentation fault|AddressSanitizer|Aborted", err):
        return "crash", f"exit {rc}: " + err.strip()[-300:]
    if rc == 0:
        nonfinite = []
        if case.get("finite", True):
            nonfinite = nonfinite_in_output(out)
        check = None
        if case.get("check"):
            check = eval_cli_check(case, outcome)
        return _accepted(case, outcome, out, nonfinite, [], check)
    # refused
    allowed_rc = case.get("rc", [2])
    if case["expect"] == "ok":
        return "refused-valid", f"exit {rc}: " + err.strip()[:300]
    problems = []
    # progress lines before the error: the message is the last line, and it came late
    lines = [ln for ln in err.strip().splitlines() if ln.strip()]
    progress_first = len(lines) > 1 and re.match(r"tcsim [a-z -]+: (error|LU breakdown)", lines[-1]) and \
        not any(re.match(r"tcsim [a-z -]+: error", ln) for ln in lines[:-1])
    if progress_first:
        err = lines[-1]
    if rc not in allowed_rc:
        problems.append(f"exit {rc} (expected {' or '.join(map(str, allowed_rc))})")
    first = err.strip().splitlines()[0] if err.strip() else ""
    if first and not first.startswith("tcsim"):
        problems.append("does not start with 'tcsim <command>:'")
    problems += _message_problems(case, err, False)
    if out.strip() and not case.get("stdout_ok"):
        problems.append("printed a partial result on stdout (" + out.strip().splitlines()[0][:80] + ")")
    if problems:
        return "refused-unclear", "; ".join(problems) + ": " + err.strip()[:400]
    if progress_first:
        return "refused-late", f"refused after computing ({len(lines) - 1} progress lines, {outcome['seconds']:.1f} s): " + err.strip()[:300]
    if outcome["seconds"] > LATE_SECONDS:
        return "refused-late", f"refused after {outcome['seconds']:.1f} s: " + err.strip()[:300]
    return "refused-clear", ""


def _json_nonfinite(x, path, found):
    """NaN/Inf numbers, "inf"/"nan" strings, and nulls under error/bound keys (a null elsewhere,
    e.g. "events": {"nan": null}, means none)."""
    if isinstance(x, dict):
        for k, v in x.items():
            _json_nonfinite(v, f"{path}.{k}", found)
    elif isinstance(x, list):
        for i, v in enumerate(x[:1000]):
            _json_nonfinite(v, f"{path}[{i}]", found)
    elif isinstance(x, float) and x != x or x in (float("inf"), float("-inf")):
        found.append(f"{path} = {x}")
    elif isinstance(x, str) and path.endswith(".overflow"):
        pass  # a unit row's overflow rule is a word ("inf": Inf whatever the rounding mode), not a number
    elif isinstance(x, str) and x.strip().lower() in ("inf", "-inf", "+inf", "nan", "-nan", "infinity", "-infinity"):
        found.append(f"{path} = {x!r}")
    elif x is None and any(w in path.rsplit(".", 1)[-1].lower() for w in ("error", "bound", "residual")):
        found.append(f"{path} = null")


def nonfinite_in_output(out):
    """Where stdout holds a non-finite result: JSON values when stdout is JSON (one object, or
    one per line), else the words nan/inf/null in the text (not "(inf)", a norm's name)."""
    import json
    docs = []
    try:
        docs = [json.loads(out)]
    except ValueError:
        lines = [ln for ln in out.splitlines() if ln.strip()]
        try:
            docs = [json.loads(ln) for ln in lines] if lines and all(ln.lstrip()[:1] in "{[" for ln in lines) else []
        except ValueError:
            docs = []
    if docs:
        found = []
        for d in docs:
            _json_nonfinite(d, "", found)
        return found[:3]
    return [m.group(0) for m in NONFINITE.finditer(out)][:3]


def eval_cli_check(case, outcome):
    import json
    if case["check"] == "same":
        return outcome.get("same")

    def strict(text):  # JSON as the standard has it: no NaN or Infinity literals
        return json.loads(text, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
    js = None
    try:
        js = strict(outcome["stdout"])
    except ValueError:
        lines = [ln for ln in outcome["stdout"].splitlines() if ln.strip().startswith("{")]
        if lines:
            try:
                js = strict(lines[-1])
            except ValueError:
                js = None
    import os
    ns = {"out": outcome["stdout"], "err": outcome["stderr"], "js": js, "tmp": outcome["tmp"], "os": os,
          "exists": lambda p: os.path.exists(os.path.join(outcome["tmp"], p)),
          "read": lambda p: open(os.path.join(outcome["tmp"], p)).read()}
    try:
        return bool(eval(case["check"], ns))
    except Exception:
        return False


def allowed_values(msg):
    """The values of the message's "allowed: a, b, c" list (single words only)."""
    m = re.search(r"allowed(?: keys)?:\s*(.*)$", msg.strip().splitlines()[0] if msg.strip() else "")
    if not m:
        return []
    items = re.split(r",\s*|\s+or\s+|\s*\|\s*", m.group(1).rstrip(". )"))
    vals = []
    for it in items:
        it = it.strip().strip("'\"`")
        it = re.sub(r"\s*\(.*$", "", it)
        if re.fullmatch(r"[A-Za-z0-9_.+:\-]+", it) and ".." not in it:
            vals.append(it)
    return vals


def probe_allowed(case, outcome, env):
    """Reruns the case with each value its "allowed:" list names; returns a problem or None."""
    import runner
    python = "py" in case
    msg = outcome["py"]["exc_msg"] if python else outcome["stderr"]
    vals = allowed_values(msg)
    refused = []
    for v in vals[:16]:
        if python:
            if "py_template" not in case:
                return None
            # a listed value is accepted when it is not refused at once (a run that goes on is accepted)
            o = runner.run(dict(case, id=case["id"] + "~" + v, timeout=PROBE_SECONDS), env,
                           py_override=case["py_template"].replace("{V}", v))
            py = o["py"]
            if py and py["raised"] and f"'{v}'" in py["exc_msg"] and ("not" in py["exc_msg"] or "unknown" in py["exc_msg"]):
                refused.append(f"{v} ({py['exc_msg'].splitlines()[0][:150]})")
        else:
            if "probe_at" not in case:
                return None
            argv = list(case["argv"])
            argv[case["probe_at"]] = v
            o = runner.run(dict(case, argv=argv, id=case["id"] + "~" + v, timeout=PROBE_SECONDS), env)
            if o["rc"] == 2 and f"'{v}'" in o["stderr"] and not o["timed_out"]:
                refused.append(f"{v} ({o['stderr'].strip().splitlines()[0][:150]})")
    if refused:
        return "its 'allowed:' list names values that are then refused: " + "; ".join(refused[:4])
    return None
