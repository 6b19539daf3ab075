"""Shared fixtures: the tcsim CLI beside the package (TCSIM_CLI, set by ctest), run as a
subprocess for the same-bits comparisons, and the real-GPU data folder."""
import json
import os
import pathlib
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(os.environ.get("TCSIM_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[3]))


def cli_path():
    path = os.environ.get("TCSIM_CLI") or shutil.which("tcsim")
    if not path:
        beside = pathlib.Path(__import__("tcsim").__file__).resolve().parents[2] / "tcsim"
        path = str(beside) if beside.is_file() else None
    return path


@pytest.fixture(scope="session")
def cli():
    """run(args...) -> CompletedProcess of the tcsim CLI; json(args...) -> its --json output parsed."""
    path = cli_path()
    assert path, "the tcsim executable is needed (TCSIM_CLI, set by ctest, or on PATH)"

    class Cli:
        def run(self, *args, check=True):
            r = subprocess.run([path, *map(str, args)], capture_output=True, text=True)
            if check and r.returncode != 0:
                raise AssertionError(f"tcsim {' '.join(map(str, args))} failed ({r.returncode}): {r.stderr}")
            return r

        def json(self, *args):
            return json.loads(self.run(*args, "--json").stdout)

        def error(self, *args):
            """The CLI's error message (after 'tcsim <cmd>: error: ')."""
            r = self.run(*args, check=False)
            assert r.returncode == 2, r
            line = r.stderr.strip().splitlines()[-1]
            return line.split(": error: ", 1)[1]

    return Cli()


@pytest.fixture(scope="session")
def gpu_data():
    """The real-GPU dump folder ($TCSIM_GPU_DATA, else ../shared/data/gpu beside the repository)."""
    d = pathlib.Path(os.environ.get("TCSIM_GPU_DATA", ROOT.parent / "shared" / "data" / "gpu"))
    if not d.is_dir():
        pytest.skip(f"real-GPU data not found at {d} (set TCSIM_GPU_DATA)")
    return d


def random_seed(name):
    """The seed of a random test: $TCSIM_TEST_SEED, else a fresh one; printed (pytest shows it on failure)."""
    seed = int(os.environ.get("TCSIM_TEST_SEED", "0")) or int.from_bytes(os.urandom(4), "little")
    print(f"{name}: seed {seed} (rerun with TCSIM_TEST_SEED={seed})")
    return seed
