"""No call leaks memory: 10^4 calls of each function (small inputs; the error paths too),
with the heap's bytes in use (glibc mallinfo2: every C++ and numpy allocation) and the
process's resident set measured before and after, after a warm-up."""
import ctypes
import ctypes.util

import numpy as np
import pytest

import tcsim


class MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in
                ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks",
                 "keepcost")]


libc = ctypes.CDLL(ctypes.util.find_library("c"))
if not hasattr(libc, "mallinfo2"):
    pytest.skip("glibc without mallinfo2 (needs glibc 2.33)", allow_module_level=True)
libc.mallinfo2.restype = MallInfo2


def heap_in_use():
    info = libc.mallinfo2()
    return info.uordblks + info.hblkhd


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


a16 = np.random.default_rng(1).standard_normal((4, 16))
pat = tcsim.encode(a16, "fp16")
A, B = np.ones((3, 5)), np.ones((5, 2))
h100 = tcsim.unit("h100")


def bad_dot():
    try:
        tcsim.dot("v100", a16, a16, None, in_format="e4m3", out_format="fp32")
    except ValueError:
        pass
    try:
        tcsim.dot("v100", np.ones((2, 2), np.int32), a16, None, in_format="fp16", out_format="fp32")
    except TypeError:
        pass


CALLS = {
    "dot (values)": lambda: tcsim.dot(h100, a16, a16, 1.0, in_format="fp16", out_format="fp32"),
    "dot (patterns)": lambda: tcsim.dot("h100", pat, pat, None, in_format="fp16", out_format="fp32"),
    "dot (fp64)": lambda: tcsim.dot("a100", a16[:, :4], a16[:, :4], None, in_format="fp64", out_format="fp64"),
    "encode, decode": lambda: tcsim.decode(tcsim.encode(a16, "e4m3"), "e4m3"),
    "matmul": lambda: tcsim.matmul(A, B, unit="h100", in_format="fp16", return_bits=True, threads=1),
    "errors": bad_dot,
    "units": lambda: tcsim.unit("b200").rows,
}


@pytest.mark.parametrize("name", list(CALLS))
def test_no_leak_in_10k_calls(name):
    call = CALLS[name]
    for _ in range(2000):  # warm-up: caches, pools, first-touch pages
        call()
    heap0, rss0 = heap_in_use(), rss_bytes()
    for _ in range(10_000):
        call()
    heap1, rss1 = heap_in_use(), rss_bytes()
    # A leak of 8 bytes per call would add 80 KB of heap in use.
    assert heap1 - heap0 < 64 * 1024, f"{name}: heap in use grew by {heap1 - heap0} bytes in 10^4 calls"
    assert rss1 - rss0 < 4 << 20, f"{name}: resident set grew by {rss1 - rss0} bytes in 10^4 calls"
