"""python3 -m tcsim.bench runs and its layouts agree (speed targets are not tested here: the
benchmark reports them, docs/python.md)."""
import json
import subprocess
import sys


def test_bench_runs_and_layouts_agree():
    out = subprocess.run([sys.executable, "-m", "tcsim.bench", "--elements", "5000", "--seconds", "0.01", "--no-cli",
                          "--json"], capture_output=True, text=True, check=True).stdout
    report = json.loads(out)
    assert report["layouts_same_bits"] is True
    assert set(report["python_elements_per_second"]) == {"planar", "c_order", "float64_values"}
    assert all(v > 0 for v in report["python_elements_per_second"].values())
