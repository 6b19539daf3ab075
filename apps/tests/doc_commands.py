#!/usr/bin/env python3
"""Every command shown in the docs runs against the build (issue 22 part 5), so the docs
cannot drift from the code. ctest runs it as "docs: every command in the docs runs".

Fences of README.md, docs/*.md and docs/*/*.md say by their language what they hold:
  ```bash, ```sh    commands: every line runs. `#` starts a comment, a trailing `\\`
                    continues the line, a `NAME=value` line sets a variable for the block's
                    later lines. A comment saying `exits N` expects exit status N, else 0.
  ```console        only the lines after a `$ ` prompt run; the others are their output.
  ```python         the block runs as one script, the package on PYTHONPATH.
  ```text, ```json, ```cmake, ```csv, ```cpp
                    shown only: outputs, samples, synopses, other tools' code.
  ``` (none), any other language: an error; say which of the above the block is.
Commands run as written, from a scratch copy of the repository root (its folders symlinked,
`build/apps/tcsim` and `build/apps/python` pointing at this build, `tcsim` and the package's
`python3` first on PATH, ../shared/data/gpu* beside it pointing at the real-GPU data), so that
relative paths mean what they mean in the docs and output files land in the scratch folder.
The blocks run two at a time, the commands of one block in order. Explicit tables, each
entry with its reason, adapt them: SUBSTITUTIONS (regex -> replacement: big sizes to small
ones), SKIPS (commands and python blocks that cannot run here), PRELUDES (names a python
fragment uses) and FIXTURES (input files the docs assume, such as my_unit.json). Commands
that read ../shared/data skip with a message when the data is absent. A command is either
run or skipped with a reason; there is no third way. Failures name the doc file, the line
and the command; a table entry that matches nothing is noted.
Code spans in the prose that start `tcsim <command> `, and `tcsim ...` lines of ```text
blocks (synopses, fragments), do not run, but their command and every `--option` they name
must exist (`tcsim <command> --help`).
"""
import argparse
import concurrent.futures
import glob
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time

# (regex, replacement, reason): applied in order to each command (and python block) before it
# runs; the report counts a command as substituted when one of them changed it.
SUBSTITUTIONS = [
    (r"(tcsim (?:lu|bench lu) .*--n )(?:1024|4096)\b", r"\g<1>64", "LU of order 1024 takes 8 s here (4096: minutes); 64 runs the same code"),
    (r"(tcsim lu .*--n )512\b", r"\g<1>64", "LU of order 512 with GMRES-IR takes 3 s here; 64 runs the same code"),
    (r"(tcsim lu .*--r )64\b", r"\g<1>16", "block size 64 > the substituted order 64 would leave one block; 16 keeps several"),
    (r"(tcsim (?:gemm|bench gemm) .*--n )1024\b", r"\g<1>64", "a 1024 x 1024 GEMM takes seconds; 64 runs the same code"),
    (r"(tcsim gemm .*--k )65536\b", r"\g<1>4096", "k = 65536 with MPFR errors takes 2 s here; 4096 still chains 512 blocks"),
    (r"(tcsim experiment \S+ --sizes )1000,2000,4000\b", r"\g<1>64,128", "the LU sweep at 1000, 2000, 4000 takes 3 minutes here; 64, 128 runs the same code"),
    (r"(tcsim bench verify .*--cases )\d+", r"\g<1>20000", "the campaign's 10^6 cases take a minute; 20000 take a second"),
    (r"(tcsim bench (?:dot|gemm|lu)\b)", r"\g<1> --seconds 0.05", "a benchmark measures for 1 s by default"),
    (r"(tcsim bench fit)$", r"\g<1> --cases 1000 --fit-seconds 2", "the fit benchmark's spoiled dump searches for 90 s by default"),
    (r"(tcsim monotonicity .*)", r"\g<1> --budget 20000", "the default budget of 10^6 pairs takes 11 s here"),
    (r"(tcsim explore .*)", r"\g<1> --workload gemm:k=256,m=4,n=4 --monotonicity-budget 200",
     "the default workload (k = 4096) for every design takes a minute"),
    (r"\b10\*\*6\b", "10**4", "python: 10^6 elements; 10^4 run the same code"),
    (r"np\.random\.rand\(64, 1024\), np\.random\.rand\(1024, 64\)", "np.random.rand(8, 256), np.random.rand(256, 8)",
     "python: a 64 x 1024 x 64 GEMM with MPFR errors takes seconds; 8 x 256 x 8 runs the same code"),
    (r'lu_matrix\("q1dq2", 256\)', 'lu_matrix("q1dq2", 64)', "python: LU of order 256; 64 runs the same code"),
]

# (regex searched in the command, reason): commands that cannot run here.
SKIPS = [
    (r"^(\w+=\S+ )*bash scripts/(run|test|setup|build)\.sh\b", "installs packages / builds / runs the whole test suite: this test runs inside it"),
    (r"^ctest\b", "runs the test suite this test is part of"),
    (r"^cmake --install build\b", "installs into a system prefix; the ctest 'install: find_package consumer' installs and imports"),
    (r"^python3 -c \"import tcsim\"", "needs the package installed by 'cmake --install build' into /usr/local"),
    (r"^CXX=clang\+\+-14 cmake .*-DTCSIM_FUZZ=ON", "configures a clang fuzzing build (docs/reliability.md); ctest -L fuzz runs there"),
    (r"^ninja -C build-fuzz\b", "builds the fuzzing build"),
    (r"^ctest --test-dir build-fuzz\b", "runs the fuzzing build's tests"),
    (r"^build-fuzz/", "a long fuzz run in the fuzzing build"),
    (r"^(mpirun|srun)\b", "an MPI or Slurm launch of several processes (docs/scale.md): not run as root on this machine"),
    (r"^(nice )?python3 scripts/audit/audit\.py --build\b",
     "runs the audit harness (minutes); the ctest 'audit: bad inputs' runs it (--list still runs here)"),
]

# name -> (writer, reason): input files the docs name without shipping them, created in each
# scratch root before its commands run.
def _write_unit_json(path, tcsim):
    out = subprocess.run([tcsim, "units", "--unit", "v100", "--json"], capture_output=True, text=True, check=True)
    with open(path, "w") as f:
        f.write(out.stdout)


def _write_mtx(rows, cols, symmetric=False):
    def write(path, tcsim):
        with open(path, "w") as f:
            f.write("%%MatrixMarket matrix array real " + ("symmetric" if symmetric else "general") + "\n")
            f.write(f"{rows} {cols}\n")
            for j in range(cols):
                for i in range(j if symmetric else 0, rows):
                    f.write(f"{(rows if i == j else 0) + 1.0 / (1 + i + 2 * j):.17g}\n")
    return write


def _write_values_mtx(rows, cols, column_major):
    def write(path, tcsim):
        with open(path, "w") as f:
            f.write(f"%%MatrixMarket matrix array real general\n{rows} {cols}\n")
            f.write("".join(f"{v!r}\n" for v in column_major))
    return write


def _write_npy(rows, cols):
    def write(path, tcsim):
        header = "{'descr': '<f8', 'fortran_order': False, 'shape': (%d, %d), }" % (rows, cols)
        header += " " * (63 - (10 + len(header)) % 64) + "\n"
        with open(path, "wb") as f:
            f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
            f.write(struct.pack(f"<{rows * cols}d", *[(i % 7 + 1) / 8.0 for i in range(rows * cols)]))
    return write


FIXTURES = {
    "my_unit.json": (_write_unit_json, "README's user-defined unit: the V100 as JSON (tcsim units --unit v100 --json)"),
    "A.mtx": (_write_mtx(8, 32), "README's GEMM from files: A, 8 x 32 Matrix Market"),
    "B.npy": (_write_npy(32, 8), "README's GEMM from files: B, 32 x 8 .npy"),
    "bcsstk01.mtx": (_write_mtx(12, 12, symmetric=True),
                     "docs/lu.md's SuiteSparse matrix is not shipped: a 12 x 12 symmetric diagonally dominant stand-in"),
    "g3.mtx": (_write_values_mtx(3, 3, [1.0, 300.0, 300.0, 300.0, 4.0, 4.0, 300.0, 4.0, 4.0]),
               "docs/lu.md's --on-breakdown example: A = [1 300 300; 300 4 4; 300 4 4], as the text gives it"),
}

# (regex matched against a python block, code run before it, reason): blocks that are
# fragments of a larger example get the names they use.
PRELUDES = [
    (r"^r = tcsim\.gemm_errors\(A, B,", "import numpy as np, tcsim\nA, B = (x.astype(np.float32) for x in tcsim.gemm_problem(8, 8, 256))\n",
     "docs/python.md's fragment uses A, B of the example above it"),
]

RUN_LANGS = {"bash", "sh", "console", "python"}
SHOWN_LANGS = {"text", "json", "cmake", "csv", "cpp"}
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([^\s`]*)")
ASSIGNMENT = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(\S*)$")
EXITS = re.compile(r"\bexits? (?:with )?(?:status |code )?(\d+)\b")


class Item:
    """One command (or python block) of a doc: where it is, what runs, how it is judged."""

    def __init__(self, doc, line, kind, text, expected=0, variables=None):
        self.doc, self.line, self.kind, self.text, self.expected = doc, line, kind, text, expected
        self.variables = dict(variables or {})  # NAME=value lines above it in its block
        self.block = None  # (doc, line of the fence): commands of one block share a scratch root
        self.run_text, self.substituted, self.skip, self.result = text, [], None, None

    def where(self):
        return f"{self.doc}:{self.line}"

    def shown(self):
        return self.text if self.kind == "shell" else f"python block ({self.text.count(chr(10)) + 1} lines)"


def strip_comment(line):
    """(code, comment) of a shell line: `#` at the start of a word, outside quotes."""
    quote = None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip(), line[i + 1:].strip()
    return line.rstrip(), ""


def shell_items(doc, lines, first_line, console):
    """The commands of a bash/sh/console block (lines after the fence, first_line = its number)."""
    items, variables, pending, start, comments = [], {}, "", 0, []
    for offset, raw in enumerate(lines):
        number = first_line + offset
        if console:
            if pending:
                raw = raw
            elif raw.startswith("$ "):
                raw = raw[2:]
            else:
                continue  # output shown to the reader
        code, comment = strip_comment(raw)
        if comment:
            comments.append(comment)
        if not pending:
            start = number
        if code.endswith("\\"):
            pending += code[:-1].strip() + " "
            continue
        command = (pending + code.strip()).strip()
        pending = ""
        if not command:
            # A comment line continues the previous command's comment (README's long lines).
            if comment and items and not code.strip():
                m = EXITS.search(comment)
                if m:
                    items[-1].expected = int(m.group(1))
            comments = []
            continue
        m = ASSIGNMENT.match(command)
        if m:
            variables[m.group(1)] = m.group(2)
            comments = []
            continue
        exits = [EXITS.search(c) for c in comments]
        expected = next((int(e.group(1)) for e in exits if e), 0)
        items.append(Item(doc, start, "shell", command, expected, variables))
        comments = []
    if pending:
        raise ValueError(f"{doc}:{start}: the block ends inside a continued line (a trailing '\\')")
    return items


def extract(doc, rel):
    """(items, errors) of one markdown file."""
    items, errors = [], []
    with open(doc, encoding="utf-8") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        marker, lang, fence_line = m.group(2), m.group(3).lower(), i + 1
        end = i + 1
        while end < len(lines) and not lines[end].strip().startswith(marker):
            end += 1
        body = [l[len(m.group(1)):] if l.startswith(m.group(1)) else l for l in lines[i + 1:end]]
        i = end + 1
        if lang in SHOWN_LANGS:
            continue
        if lang not in RUN_LANGS:
            errors.append(f"{rel}:{fence_line}: fence language '{lang or '(none)'}': mark the block ```bash (commands that run), "
                          f"```console ($ prompts), ```python (a script that runs) or ```text/```json (shown only)")
            continue
        if lang == "python":
            block = [Item(rel, fence_line + 1, "python", "\n".join(body))]
        else:
            try:
                block = shell_items(rel, body, fence_line + 1, lang == "console")
            except ValueError as e:
                errors.append(str(e))
                continue
        for item in block:
            item.block = (rel, fence_line)
        items += block
    return items, errors


INLINE = re.compile(r"`(tcsim ([a-z][a-z-]*)(?=[\s`])[^`]*)`")


def inline_commands(doc, rel):
    """(line, command, subcommand) of the `tcsim <command> ...` code spans outside fences:
    synopses and fragments, not run, but their options must exist."""
    found, in_fence, lang = [], None, ""
    with open(doc, encoding="utf-8") as f:
        lines = f.read().split("\n")
    text = []
    for line in lines:
        m = FENCE.match(line)
        if m and (in_fence is None or line.strip().startswith(in_fence)):
            in_fence, lang = (None, "") if in_fence else (m.group(2), m.group(3).lower())
            text.append("")
            continue
        if in_fence and lang == "text" and line.startswith("tcsim "):
            text.append("`" + line.replace("`", "") + "`")  # a synopsis in a ```text block
            continue
        text.append("" if in_fence else line)
    joined = "\n".join(text)
    for m in INLINE.finditer(joined):
        found.append((joined.count("\n", 0, m.start()) + 1, " ".join(m.group(1).split()), m.group(2)))
    return found


def check_inline_options(files, tcsim):
    """Errors for inline commands naming a command or an option that does not exist."""
    commands = set(re.findall(r"^  ([a-z][a-z-]*)  ", subprocess.run([tcsim, "--help"], capture_output=True,
                                                                     text=True).stdout, re.M))
    options, errors, count = {}, [], 0
    for path, rel in files:
        for line, command, sub in inline_commands(path, rel):
            count += 1
            if sub not in commands:
                errors.append(f"{rel}:{line}: `{command}`: there is no command '{sub}' (tcsim --help: {', '.join(sorted(commands))})")
                continue
            if sub not in options:
                h = subprocess.run([tcsim, sub, "--help"], capture_output=True, text=True).stdout
                options[sub] = set(re.findall(r"^  (--[a-z][a-z0-9-]*)", h, re.M))
            for opt in re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", command):
                if opt not in options[sub]:
                    errors.append(f"{rel}:{line}: `{command}`: 'tcsim {sub}' has no option {opt}")
    return count, errors


def doc_files(source, docs):
    if docs:
        return [(os.path.abspath(d), os.path.relpath(os.path.abspath(d), source)) for d in docs]
    found = ["README.md"] + sorted(glob.glob("docs/*.md", root_dir=source)) + sorted(glob.glob("docs/*/*.md", root_dir=source))
    return [(os.path.join(source, r), r) for r in found]


def plan(item, have_python, gpu_data):
    """Substitutions and skips of one item."""
    text = item.text
    for pattern, replacement, reason in SUBSTITUTIONS:
        new = re.sub(pattern, replacement, text)
        if new != text:
            item.substituted.append(reason)
            text = new
    if item.kind == "python":
        for pattern, prelude, reason in PRELUDES:
            if re.search(pattern, text):
                text = prelude + text
                item.substituted.append(reason)
    item.run_text = text
    for pattern, reason in SKIPS:
        if re.search(pattern, item.text, re.M):
            item.skip = reason
            return
    used = [v for k, v in item.variables.items() if re.search(r"\$\{?" + k + r"\b", item.text)]
    uses = " ".join([item.text] + used)
    if item.kind == "python" or re.search(r"(^|\s)PYTHONPATH=|(^|\s)python3\b", item.text):
        if not have_python:
            item.skip = "the Python package is not built (TCSIM_BUILD_PYTHON off or pybind11/numpy missing)"
            return
    for folder, path in gpu_data.items():
        if f"../shared/data/{folder}/" in uses or uses.endswith(f"../shared/data/{folder}"):
            if not path:
                item.skip = f"../shared/data/{folder} (real-GPU data) is absent here (set TCSIM_GPU_DATA / TCSIM_GPU_VECTORS)"
                return


def make_root(scratch, source, tcsim, python_dir, gpu_data):
    """A scratch repository root: the source's folders symlinked except docs/ and build/ (so
    that outputs never land in the source tree), build/apps/{tcsim,python} -> this build, and
    ../shared/data/gpu* -> the real-GPU data."""
    root = os.path.join(scratch, "repo")
    os.makedirs(os.path.join(root, "build", "apps"))
    os.makedirs(os.path.join(root, "docs"))
    for entry in os.listdir(source):
        if entry not in ("docs", "build") and not entry.startswith(".") and not entry.startswith("build"):
            os.symlink(os.path.join(source, entry), os.path.join(root, entry))
    os.symlink(tcsim, os.path.join(root, "build", "apps", "tcsim"))
    if python_dir:
        os.symlink(python_dir, os.path.join(root, "build", "apps", "python"))
    os.makedirs(os.path.join(scratch, "shared", "data"))
    for folder, path in gpu_data.items():
        if path:
            os.symlink(path, os.path.join(scratch, "shared", "data", folder))
    for name, (write, _) in FIXTURES.items():
        write(os.path.join(root, name), tcsim)
    return root


def run_block(items, scratch, args, env, gpu_data):
    root = make_root(scratch, args.source, args.tcsim, args.python_path, gpu_data)
    for n, item in enumerate(items):
        if item.skip:
            continue
        start = time.monotonic()
        if item.kind == "python":
            script = os.path.join(scratch, f"block{n}.py")
            with open(script, "w") as f:
                f.write(item.run_text + "\n")
            argv = [args.python, script]
        else:
            prefix = "".join(f"{k}={v}\n" for k, v in item.variables.items())
            argv = ["bash", "-o", "pipefail", "-c", prefix + item.run_text]
        try:
            p = subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, timeout=args.timeout)
            item.result = (p.returncode, p.stdout, p.stderr, time.monotonic() - start)
        except subprocess.TimeoutExpired as e:
            item.result = (None, e.stdout or "", f"timed out after {args.timeout} s", time.monotonic() - start)


def tail(text, n=12):
    if isinstance(text, bytes):
        text = text.decode(errors="replace")
    lines = text.rstrip().split("\n")
    return "\n".join("      | " + l for l in lines[-n:]) if text.strip() else "      | (empty)"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--source", required=True, help="the repository root")
    ap.add_argument("--tcsim", required=True, help="the built tcsim")
    ap.add_argument("--python-path", default="", help="build/apps/python of this build (empty: Python package not built)")
    ap.add_argument("--python", default=sys.executable, help="the interpreter of python blocks")
    ap.add_argument("--docs", nargs="*", help="markdown files (default README.md, docs/*.md, docs/*/*.md)")
    ap.add_argument("--jobs", type=int, default=2, help="blocks run in parallel")
    ap.add_argument("--timeout", type=int, default=240, help="seconds per command")
    ap.add_argument("--only", default="", help="run only items whose file:line or command matches this regex")
    ap.add_argument("--list", action="store_true", help="print the commands and what would be done; run nothing")
    ap.add_argument("--self-test", action="store_true", help="check that a broken command fails with its file and line")
    args = ap.parse_args(argv)
    args.source, args.tcsim = os.path.abspath(args.source), os.path.abspath(args.tcsim)
    args.python_path = os.path.abspath(args.python_path) if args.python_path else ""
    if args.self_test:
        return self_test(args)

    gpu_data = {}
    for folder, var in (("gpu", "TCSIM_GPU_DATA"), ("gpu-vectors", "TCSIM_GPU_VECTORS")):
        path = os.environ.get(var) or os.path.join(args.source, "..", "shared", "data", folder)
        gpu_data[folder] = os.path.abspath(path) if os.path.isdir(path) else ""

    items, errors = [], []
    files = doc_files(args.source, args.docs)
    for path, rel in files:
        got, bad = extract(path, rel)
        items += got
        errors += bad
    inline_count, inline_errors = check_inline_options(files, args.tcsim) if not args.list else (0, [])
    errors += inline_errors
    for item in items:
        plan(item, bool(args.python_path), gpu_data)
    if not args.docs and not args.only:
        # Entries that match nothing are left over from docs that changed: say so (not an error).
        texts = [i.text for i in items]
        for pattern, _, reason in SUBSTITUTIONS + PRELUDES:
            if not any(re.search(pattern, t) for t in texts):
                print(f"note: the substitution '{pattern}' ({reason}) matches no command in the docs")
        for pattern, reason in SKIPS:
            if not any(re.search(pattern, t) for t in texts):
                print(f"note: the skip '{pattern}' ({reason}) matches no command in the docs")
    if args.only:
        items = [i for i in items if re.search(args.only, i.where()) or re.search(args.only, i.text)]

    if args.list:
        for item in items:
            state = f"skip ({item.skip})" if item.skip else ("run, substituted" if item.substituted else "run")
            print(f"{item.where()}: [{state}] {item.shown()}")
            if item.substituted and not item.skip and item.kind == "shell":
                print(f"    runs: {item.run_text}")
        for e in errors:
            print("ERROR " + e)
        return 0

    env = dict(os.environ)
    bindir = tempfile.mkdtemp(prefix="tcsim-doc-bin-")
    os.symlink(args.tcsim, os.path.join(bindir, "tcsim"))
    os.symlink(args.python, os.path.join(bindir, "python3"))  # the interpreter the package was built for
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["MPLBACKEND"] = "Agg"
    if args.python_path:
        env["PYTHONPATH"] = args.python_path + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    for var in ("TCSIM_GPU_DATA", "TCSIM_GPU_VECTORS"):
        env.pop(var, None)  # the docs' commands find the data at ../shared/data, as a reader's do

    blocks = {}
    for item in items:
        blocks.setdefault(item.block, []).append(item)
    scratch = tempfile.mkdtemp(prefix="tcsim-doc-commands-")
    start = time.monotonic()
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            futures = [pool.submit(run_block, block_items, os.path.join(scratch, f"b{n}"), args, env, gpu_data)
                       for n, block_items in enumerate(blocks.values())]
            for f in futures:
                f.result()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        shutil.rmtree(bindir, ignore_errors=True)

    failures = []
    for item in items:
        if item.skip:
            print(f"skip {item.where()}: {item.shown()}\n       because {item.skip}")
            continue
        code, out, err, seconds = item.result
        ok = code == item.expected
        print(f"{'ok  ' if ok else 'FAIL'} {item.where()} ({seconds:.1f} s): {item.shown()}")
        if item.substituted:
            print("       substituted: " + "; ".join(item.substituted))
        if not ok:
            failures.append(item)
    for item in failures:
        code, out, err, _ = item.result
        print(f"\nFAIL {item.where()}: {item.shown()}")
        if item.kind == "shell" and item.run_text != item.text:
            print(f"    ran (after the substitutions): {item.run_text}")
        elif item.kind == "python":
            print("    the block:\n" + "\n".join("      > " + l for l in item.run_text.split("\n")))
        print(f"    exit status {code if code is not None else 'none (timeout)'}, expected {item.expected}")
        print("    stderr:\n" + tail(err))
        if not err.strip():
            print("    stdout:\n" + tail(out))
    for e in errors:
        print("\nERROR " + e)
    ran = sum(1 for i in items if not i.skip)
    substituted = sum(1 for i in items if not i.skip and i.substituted)
    skipped = len(items) - ran
    print(f"\ndoc commands: {len(items)} found, {ran} ran ({substituted} of them substituted), {skipped} skipped, "
          f"{len(failures)} failed, {len(errors) - len(inline_errors)} fence errors; {inline_count} inline commands' options checked, "
          f"{len(inline_errors)} wrong; {time.monotonic() - start:.0f} s")
    return 1 if failures or errors or inline_errors else 0


SELF_TEST_DOC = """# self test
```bash
tcsim units --json > /dev/null     # runs
tcsim dot --no-such-option 1       # broken on purpose
tcsim dot --in e9m9                # exits 2
```
```
tcsim units
```
```console
$ tcsim dot --unit v100 --in fp16 --out fp32 \\
    --a 1 --b 2
d = 2 (bits 0x40000000)
```
```python
import tcsim
tcsim.unit("no-such-unit")
```
Prose: `tcsim lu --n 8 --nn 3`, `tcsim nosuch --x` and `tcsim dot: error: unknown option '--colour'`.
"""


def self_test(args):
    """The test can fail: a broken command and an untagged fence are reported with file:line."""
    with tempfile.TemporaryDirectory(prefix="tcsim-doc-self-test-") as d:
        doc = os.path.join(d, "broken.md")
        with open(doc, "w") as f:
            f.write(SELF_TEST_DOC)
        argv = [sys.executable, os.path.abspath(__file__), "--source", args.source, "--tcsim", args.tcsim, "--docs", doc,
                "--python", args.python, "--python-path", args.python_path]
        p = subprocess.run(argv, capture_output=True, text=True)
    print(p.stdout + p.stderr)
    rel = os.path.relpath(doc, args.source)
    wanted = [f"FAIL {rel}:4: tcsim dot --no-such-option 1", f"ok   {rel}:3", f"ok   {rel}:5",
              f"ERROR {rel}:7: fence language '(none)'",
              f"{rel}:11 (", "tcsim dot --unit v100 --in fp16 --out fp32 --a 1 --b 2"]
    wanted += [f"ERROR {rel}:19: `tcsim lu --n 8 --nn 3`: 'tcsim lu' has no option --nn",
               f"ERROR {rel}:19: `tcsim nosuch --x`: there is no command 'nosuch'", "2 inline commands' options checked, 2 wrong"]
    if args.python_path:
        wanted += [f"FAIL {rel}:16: python block (2 lines)", "unknown unit 'no-such-unit'"]
    wanted.append("5 found, 5 ran (0 of them substituted), 0 skipped, 2 failed, 1 fence errors" if args.python_path else
                  "5 found, 4 ran (0 of them substituted), 1 skipped, 1 failed, 1 fence errors")
    missing = [w for w in wanted if w not in p.stdout]
    if p.returncode != 1 or missing:
        print(f"self test FAILED: exit status {p.returncode} (expected 1); missing lines: {missing}")
        return 1
    print("self test: the broken command and the untagged fence were reported with their file and line")
    return 0


if __name__ == "__main__":
    sys.exit(main())
