"""tcsim.probe, tcsim.validate_dump, tcsim.experiment(s): the CLI's reports from Python."""
import numpy as np
import pytest

import tcsim
from conftest import random_seed


def test_probe_is_the_clis(cli):
    want = cli.json("probe", "--unit", "v100", "--in", "fp16", "--out", "fp32", "--no-fasi2021")
    got = tcsim.probe("v100", "fp16", "fp32", fasi2021=False)
    assert got == want
    assert got["fraction_bits"]["value"] == 23 if isinstance(got.get("fraction_bits"), dict) else True


def test_probe_errors():
    with pytest.raises(ValueError, match=r"^in_format and out_format go together"):
        tcsim.probe("v100", "fp16")
    with pytest.raises(ValueError, match=r"does not support e4m3 -> fp32"):
        tcsim.probe("v100", "e4m3", "fp32")


def write_dump(folder, a, b, c, d):
    """a, b: binary32 values (exact in the input format); c, d: binary32 patterns (the dump format)."""
    hexes = lambda row: " ".join(f"{int(x):08x}" for x in np.asarray(row, np.float32).view(np.uint32))
    (folder / "a.txt").write_text("".join(hexes(r) + "\n" for r in a))
    (folder / "b.txt").write_text("".join(hexes(r) + "\n" for r in b))
    (folder / "c.txt").write_text("".join(f"{int(x):032b}\n" for x in c))
    (folder / "d.txt").write_text("".join(f"{int(x):032b}\n" for x in d))
    return [folder / f"{x}.txt" for x in "abcd"]


def test_validate_dump_of_python_results(tmp_path, cli):
    """A dump written from tcsim.dot's results validates with 0 mismatches, in Python and in
    the CLI; one changed d is reported at its line."""
    seed = random_seed("validate-dump")
    rng = np.random.default_rng(seed)
    a = tcsim.decode(tcsim.encode(rng.standard_normal((200, 8)), "fp16"), "fp16")
    b = tcsim.decode(tcsim.encode(rng.standard_normal((200, 8)), "fp16"), "fp16")
    c = rng.standard_normal(200).astype(np.float32)
    r = tcsim.dot("a100", a, b, c, in_format="fp16", out_format="fp32")
    files = write_dump(tmp_path, a, b, c.view(np.uint32), r.bits)
    got = tcsim.validate_dump("a100", "fp16", "fp32", *files)
    assert (got["cases"], got["mismatches"], got["summary"]) == (200, 0, "200 cases, 0 mismatches")
    assert cli.run("validate-dump", "--unit", "a100", "--in", "fp16", "--out", "fp32", "--a", files[0], "--b",
                   files[1], "--c", files[2], "--d", files[3]).stdout.strip().endswith("200 cases, 0 mismatches")
    d = r.bits.copy()
    d[17] ^= 1
    files = write_dump(tmp_path, a, b, c.view(np.uint32), d)
    got = tcsim.validate_dump("a100", "fp16", "fp32", *files)
    assert got["mismatches"] == 1 and got["first"][0]["index"] == 17 and got["first"][0]["got"] == r.bits[17]


def test_validate_dump_real_gpu(gpu_data, cli):
    folder = gpu_data / "H100" / "fp16"
    if not folder.is_dir():
        pytest.skip(f"{folder} not found")
    files = [folder / "a_H100_fp16.txt", folder / "b_H100_fp16.txt", folder / "c_H100_fp32.txt", folder / "d_H100_fp32.txt"]
    got = tcsim.validate_dump("h100", "fp16", "fp32", *files)
    assert got["cases"] == 5000 and got["mismatches"] == 0
    out = cli.run("validate-dump", "--unit", "h100", "--in", "fp16", "--out", "fp32", "--a", files[0], "--b",
                  files[1], "--c", files[2], "--d", files[3]).stdout
    assert out.strip().splitlines()[-1] == got["summary"]


def test_validate_dump_errors(tmp_path):
    with pytest.raises(ValueError, match=r"^give the d file \(the GPU's results\) with d=$"):
        tcsim.validate_dump("h100", "fp16", "fp32", "a", "b", "c")
    with pytest.raises(ValueError, match=r"^give the c file with c=, or zero_c=True"):
        tcsim.validate_dump("h100", "fp16", "fp32", "a", "b", d="d")
    with pytest.raises(ValueError, match=r"nosuch"):
        tcsim.validate_dump("h100", "fp16", "fp32", tmp_path / "nosuch", tmp_path / "nosuch", zero_c=True,
                            d=tmp_path / "nosuch")


def test_experiment_is_the_clis(tmp_path, cli):
    assert tcsim.experiments() == cli.json("experiment", "--list")
    got = tcsim.experiment("fasi2021-suite", quick=True, out=tmp_path / "py")
    want = cli.json("experiment", "fasi2021-suite", "--quick", "--out", tmp_path / "cli")
    assert got["all_hold"] and got["checks"] == want["checks"]
    for ext in ("csv", "png", "md"):
        assert (tmp_path / "py" / f"fasi2021-suite.{ext}").is_file()
    with pytest.raises(ValueError, match=r"^id: experiment 'nosuch' is not known; allowed: blanchard2020-fig3.1"):
        tcsim.experiment("nosuch")


def test_km25_experiments_refuse_a_seed(tmp_path):
    """KM25's matrices are MATLAB's rng(1) stream: a seed is refused as the CLI refuses --seed (B300)."""
    for name in ("km25-multiword", "km25-cdna-multiword"):
        with pytest.raises(ValueError) as info:
            tcsim.experiment(name, quick=True, seed=1, out=tmp_path)
        assert str(info.value) == (f"seed: {name}: KM25's matrices come from MATLAB's rng(1) stream, which this "
                                   "experiment reproduces; it takes no seed")
