"""GEMM on fp8 (E4M3) with its error: componentwise error of D = A B on a simulated H100 against
the exact product (MPFR), beside the bound, for growing k; fp16 and bf16 inputs for comparison.

    PYTHONPATH=build/apps/python python3 apps/python/examples/fp8_gemm_error.py [out.png]
"""
import sys

import numpy as np

import tcsim

rng = np.random.default_rng(1)
ks = [64, 256, 1024, 4096, 16384]
rows = {}
for fmt in ["e4m3", "fp16", "bf16"]:
    for k in ks:
        A = rng.uniform(0, 1, (32, k)).astype(np.float32)  # blanchard2020 section 3.3: binary32 in [0, 1)
        B = rng.uniform(0, 1, (k, 32)).astype(np.float32)
        r = tcsim.gemm_errors(A, B, unit="h100", in_format=fmt)
        bound = float(r["componentwise_bound"])  # "inf" when the theorem gives none
        rows.setdefault(fmt, []).append((k, r["componentwise_error"], bound))
        print(f"h100 {fmt:5s} k = {k:5d}: componentwise error {r['componentwise_error']:.3g}, bound {bound:.3g}")
    print(f"  bound: {r['bound_source']}")

if len(sys.argv) > 1:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6, 4))
    for (fmt, pts), colour in zip(rows.items(), ["C0", "C1", "C2"]):
        k, err, bound = np.array(pts).T
        ax.loglog(k, err, "o-", color=colour, label=f"{fmt} (h100, tc32)")
        ax.loglog(k, bound, "--", color=colour, label=f"{fmt} bound")
    ax.set_xlabel("k")
    ax.set_ylabel("componentwise error of D = A B")
    ax.set_title("Simulated H100 GEMM, A, B uniform in [0, 1)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(sys.argv[1], dpi=100)
    print("plot:", sys.argv[1])
