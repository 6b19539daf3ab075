"""python3 -m tcsim.bench: elements per second of tcsim.dot beside the C++ ``tcsim bench dot``.

A batch of n = 10^6 elements of K = 16 random finite inputs (exponents in [-4, 1], as the
C++ bench draws them) through tcsim.dot, measured in three layouts: uint16 patterns laid
out product-major (``at.T`` of a C-order (K, n) array: no copy, the C++ planar layout),
uint16 patterns in C order (n, K) (transposed inside), and float64 values (rounded inside).
Each call is repeated for at least ``--seconds``; the C++ figure comes from running
``tcsim bench dot`` with the same unit, formats, n, K and threads in the same run. The
target: Python within 2x of C++ (ratio <= 2).
"""
import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys
import time

import numpy as np

import tcsim


def random_patterns(fmt, shape, rng):
    """Finite values with leading exponents in [-4, 1] and random signs and fractions, as patterns of fmt."""
    e = rng.integers(-4, 2, size=shape)
    x = np.ldexp(1.0 + rng.random(shape), e) * rng.choice([-1.0, 1.0], size=shape)
    return tcsim.encode(x, fmt, rounding="rz")


def rate(call, n, min_seconds):
    call()  # warm-up
    runs, elapsed = 0, 0.0
    while elapsed < min_seconds:
        t0 = time.perf_counter()
        call()
        elapsed += time.perf_counter() - t0
        runs += 1
    return runs * n / elapsed


def find_cli(given):
    if given:
        return given
    if os.environ.get("TCSIM_CLI"):
        return os.environ["TCSIM_CLI"]
    beside = pathlib.Path(__file__).resolve().parents[2] / "tcsim"  # <build>/apps/python/tcsim -> <build>/apps/tcsim
    if beside.is_file():
        return str(beside)
    return shutil.which("tcsim")


def main(argv=None):
    p = argparse.ArgumentParser(prog="python3 -m tcsim.bench", description=__doc__.splitlines()[0])
    p.add_argument("--unit", default="h100")
    p.add_argument("--in", dest="in_format", default="fp16")
    p.add_argument("--out", dest="out_format", default="fp32")
    p.add_argument("--elements", type=int, default=10**6)
    p.add_argument("--k", type=int, default=16)
    p.add_argument("--threads", type=int, default=0, help="0: all cores (the default of both benches)")
    p.add_argument("--seconds", type=float, default=1.0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--cli", help="the tcsim executable (default: beside the package in a build tree, or on PATH)")
    p.add_argument("--no-cli", action="store_true", help="do not run the C++ bench")
    p.add_argument("--json", action="store_true")
    a = p.parse_args(argv)

    rng = np.random.default_rng(a.seed)
    n, K = a.elements, a.k
    at = random_patterns(a.in_format, (K, n), rng)  # product-major: column i is element i
    bt = random_patterns(a.in_format, (K, n), rng)
    c = random_patterns(a.out_format, (n,), rng)
    a_planar, b_planar = at.T, bt.T  # shape (n, K), no copy
    a_rows, b_rows = np.ascontiguousarray(a_planar), np.ascontiguousarray(b_planar)
    a_values, b_values = tcsim.decode(a_rows, a.in_format), tcsim.decode(b_rows, a.in_format)
    kw = dict(in_format=a.in_format, out_format=a.out_format, threads=a.threads)

    results = {}
    bits = {}
    for name, (x, y) in {"planar": (a_planar, b_planar), "c_order": (a_rows, b_rows),
                         "float64_values": (a_values, b_values)}.items():
        results[name] = rate(lambda: tcsim.dot(a.unit, x, y, c, **kw), n, a.seconds)
        bits[name] = tcsim.dot(a.unit, x, y, c, **kw).bits
    same = all(np.array_equal(bits["planar"], v) for v in bits.values())

    report = {"benchmark": "python dot", "unit": a.unit, "in": a.in_format, "out": a.out_format, "elements": n,
              "k": K, "threads": a.threads, "python_elements_per_second": results, "layouts_same_bits": bool(same)}
    cli = None if a.no_cli else find_cli(a.cli)
    if cli:
        out = subprocess.run([cli, "bench", "dot", "--unit", a.unit, "--in", a.in_format, "--out", a.out_format,
                              "--k", str(K), "--elements", str(n), "--threads", str(a.threads), "--seconds",
                              str(a.seconds), "--json"], check=True, capture_output=True, text=True).stdout
        j = json.loads(out)
        cpp = {"best": j.get("elements_per_second"), "layout": j.get("layout"),
               "planar": j.get("planar_elements_per_second"),
               "element_major": j.get("element_major_elements_per_second")}
        report["cpp_bench_dot"] = cpp
        report["ratio_cpp_best_over_python_planar"] = cpp["best"] / results["planar"]
        report["within_2x"] = report["ratio_cpp_best_over_python_planar"] <= 2.0

    if a.json:
        print(json.dumps(report))
    else:
        print(f"tcsim.dot, unit {a.unit}, {a.in_format} -> {a.out_format}, n = {n}, K = {K}, threads {a.threads}:")
        for name, r in results.items():
            print(f"  {name:16s} {r:.3g} elements/s")
        print(f"  same bits in every layout: {same}")
        if "cpp_bench_dot" in report:
            cpp = report["cpp_bench_dot"]
            print(f"tcsim bench dot (C++, same run): {cpp['best']:.3g} elements/s ({cpp['layout']}); "
                  f"element-major {cpp['element_major']:.3g}")
            print(f"ratio C++ / Python (planar): {report['ratio_cpp_best_over_python_planar']:.2f} "
                  f"({'within' if report['within_2x'] else 'NOT within'} 2x)")
        else:
            print("(no tcsim executable found: --cli PATH to compare with the C++ bench)")
    return 0 if same and report.get("within_2x", True) else 1


if __name__ == "__main__":
    sys.exit(main())
