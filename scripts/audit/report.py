"""The audit's Markdown summary: counts by class, by command and class, and every case that
is not OK with its command, outcome and reason."""
import collections

from classify import CLASSES, OK_CLASSES


def counts(results):
    c = collections.Counter(r["class"] for r in results)
    return {k: c[k] for k in CLASSES if c[k]}


def _cell(text, n=300):
    text = " ".join(text.split())
    if len(text) > n:
        text = text[:n] + " ..."
    return text.replace("|", "\\|")


def markdown(results, seconds):
    lines = ["# tcsim audit of bad and unusual inputs", "",
             f"{len(results)} cases in {seconds:.0f} s (scripts/audit/audit.py).", "",
             "## Counts by class", "", "| class | cases | share |", "|---|---|---|"]
    total = len(results) or 1
    for k, v in counts(results).items():
        lines.append(f"| {k} | {v} | {100 * v / total:.1f} % |")
    lines += ["", "## By command", ""]
    targets = sorted({r["target"] for r in results})
    present = [k for k in CLASSES if any(r["class"] == k for r in results)]
    lines.append("| command | cases | " + " | ".join(present) + " |")
    lines.append("|---|---|" + "---|" * len(present))
    for t in targets:
        rs = [r for r in results if r["target"] == t]
        c = collections.Counter(r["class"] for r in rs)
        lines.append(f"| {t} | {len(rs)} | " + " | ".join(str(c[k] or "") for k in present) + " |")
    lines += ["", "## Cases that are not OK", ""]
    bad = [r for r in results if r["class"] not in OK_CLASSES]
    if not bad:
        lines.append("None.")
    for k in CLASSES:
        rs = [r for r in bad if r["class"] == k]
        if not rs:
            continue
        lines += [f"### {k} ({len(rs)})", "", "| id | component | command | exit | reason |", "|---|---|---|---|---|"]
        for r in sorted(rs, key=lambda r: (r["component"], r["id"])):
            lines.append(f"| {r['id']} | {r['component']} | `{_cell(r['command'], 200)}` | {r['exit']} | "
                         f"{_cell(r['reason'])} |")
        lines.append("")
    return "\n".join(lines) + "\n"


def findings(results, title):
    """The cases that are not OK grouped by the component that should fix them, then by class."""
    bad = [r for r in results if r["class"] not in OK_CLASSES]
    lines = [f"# {title}", "", f"{len(results)} cases; {len(bad)} not OK. Counts by class:", "",
             "| class | cases |", "|---|---|"]
    lines += [f"| {k} | {v} |" for k, v in counts(results).items()]
    lines += ["", "Not OK, by component and class:", "", "| component | " + " | ".join(
        k for k in CLASSES if k not in OK_CLASSES) + " |", "|---|" + "---|" * (len(CLASSES) - len(OK_CLASSES))]
    comps = sorted({r["component"] for r in bad})
    for comp in comps:
        c = collections.Counter(r["class"] for r in bad if r["component"] == comp)
        lines.append(f"| {comp} | " + " | ".join(str(c[k] or "") for k in CLASSES if k not in OK_CLASSES) + " |")
    for comp in comps:
        lines += ["", f"## {comp}"]
        for k in CLASSES:
            rs = sorted((r for r in bad if r["component"] == comp and r["class"] == k), key=lambda r: r["id"])
            if not rs:
                continue
            lines += ["", f"### {k} ({len(rs)})", ""]
            for r in rs:
                lines.append(f"- `{r['id']}`: `{_cell(r['command'], 240)}` (exit {r['exit']}, {r['seconds']} s): "
                             f"{_cell(r['reason'], 400)}")
    return "\n".join(lines) + "\n"
