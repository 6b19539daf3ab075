# Reproduces real H100 results (KM25's published dump, ../shared/data/gpu) with tcsim.dot.
import numpy as np, tcsim
g = "../shared/data/gpu/H100/fp16/"
hex32 = lambda f: np.array([[int(x, 16) for x in l.split()] for l in open(g + f)], np.uint32).view(np.float32)
bin32 = lambda f: np.array([int(l, 2) for l in open(g + f)], np.uint32)
a, b, c = hex32("a_H100_fp16.txt"), hex32("b_H100_fp16.txt"), bin32("c_H100_fp32.txt").view(np.float32)
d = tcsim.dot("h100", a, b, c, in_format="fp16", out_format="fp32")  # 5,000 elements, K = 16
print((d.bits == bin32("d_H100_fp32.txt")).sum(), "of", len(c), "H100 results reproduced bit for bit")
i = 0
print(f"case {i}: d = {d.values[i]!r} (bits {d.bits[i]:#010x}); binary64 dot: {np.dot(a[i].astype(float), b[i]) + c[i]!r}")
