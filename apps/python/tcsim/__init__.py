"""tcsim: bit-accurate simulation of GPU tensor-core MMA units, from numpy and PyTorch.

The same bits as the ``tcsim`` CLI (one C++ core): ``dot`` on batches, ``matmul`` (the GEMM
engine of ``tcsim gemm``) with ``gemm_errors``, ``lu`` and ``solve``, ``probe``,
``validate_dump``, ``experiment``, ``encode``/``decode`` of every format. Arrays in and out;
no per-element Python; the GIL is released while C++ runs; ``threads=0`` uses all cores
and the bits never depend on it. Errors: ValueError (bad values, shapes, names; the CLI's
messages with the Python argument's name) and TypeError (wrong types or dtypes).
See docs/python.md.
"""
from . import _tcsim
from ._tcsim import (LuBreakdown, Unit, experiment, experiments, formats, gemm_problem, lu_matrix, probe, unit, units,
                     validate_dump)

__all__ = ["DotResult", "LuBreakdown", "Unit", "decode", "dot", "encode", "experiment", "experiments", "fit", "formats",
           "gemm_errors", "gemm_problem", "lu", "lu_matrix", "matmul", "probe", "solve", "unit", "units", "validate_dump"]


class DotResult:
    """Result of tcsim.dot: ``values`` (float64) and ``bits`` (unsigned patterns of the output format)."""

    __slots__ = ("values", "bits")

    def __init__(self, values, bits):
        self.values = values
        self.bits = bits

    def __iter__(self):  # values, bits = tcsim.dot(...)
        return iter((self.values, self.bits))

    def __repr__(self):
        return f"DotResult(values={self.values!r}, bits={self.bits!r})"


def _is_torch(x):
    return type(x).__module__.startswith("torch") and hasattr(x, "detach")


def _numpy(x):
    """A torch tensor as a numpy array (bfloat16 through float32: exact); anything else as is."""
    if not _is_torch(x):
        return x
    import torch  # only reached when a tensor was given
    t = x.detach().cpu()
    if t.dtype == torch.bfloat16:
        t = t.to(torch.float32)
    return t.numpy()


def _like(template_inputs, array):
    """A torch tensor when any input was one (PyTorch in, PyTorch out), else the numpy array."""
    if any(_is_torch(x) for x in template_inputs):
        import torch
        return torch.from_numpy(array)
    return array


def encode(values, format, rounding="rne", threads=0):
    """Bit patterns of ``format`` nearest to ``values`` (float16/32/64 or integer arrays, or
    torch tensors, bfloat16 included) with ``rounding`` (rne, rz, ru, rd, ro): an unsigned
    numpy array of the same shape (uint8 .. uint64 by the format's width)."""
    return _tcsim.encode(_numpy(values), format, rounding, threads)


def decode(bits, format, threads=0):
    """Values (float64 numpy array, exact for every built-in format) of unsigned bit patterns
    of ``format`` (numpy arrays or torch uint8 tensors)."""
    return _tcsim.decode(_numpy(bits), format, threads)


def _fit_bits(x, fmt, name, ndim):
    """Bit patterns (uint64) of ``x``: unsigned arrays are patterns, float or integer arrays
    values, which must be values of ``fmt`` exactly (a dump's values are)."""
    import numpy as np
    x = np.asarray(_numpy(x))
    if x.ndim != ndim:
        raise ValueError(f"{name}: expected a {'(n, K)' if ndim == 2 else '(n,)'} array, got shape {x.shape}")
    if x.dtype.kind == "u":
        return x.astype(np.uint64)
    if x.dtype.kind not in "fi":
        raise TypeError(f"{name}: dtype {x.dtype} is not allowed; allowed: float or integer values, "
                        f"or unsigned bit patterns of {fmt}")
    own = {"fp32": np.float32, "binary32": np.float32, "float": np.float32, "fp16": np.float16,
           "binary16": np.float16, "half": np.float16}.get(str(fmt).lower())
    if own is not None and x.dtype == own:
        # The array's own bits are the format's: exact, NaN patterns and -0 included.
        return x.view(np.uint32 if own is np.float32 else np.uint16).astype(np.uint64)
    if name == "d" and x.dtype.kind == "f" and np.isnan(x).any():
        # A NaN converted to another float type keeps no pattern, so the row's NaN pattern would
        # be the conversion's (0x7fc00000), not the unit's (e.g. 0x7fffffff on NVIDIA).
        i = tuple(int(v) for v in np.argwhere(np.isnan(x))[0])
        raise ValueError(f"d: the NaN at {i[0]} has no {fmt} bit pattern as a {x.dtype} value, and the fit reads "
                         f"the unit's NaN pattern from d; pass d as unsigned bit patterns of {fmt} (a DotResult's "
                         f".bits, a float32 array's .view(np.uint32)) or as an array of {fmt}'s own float type")
    bits = _tcsim.encode(x.astype(np.float64), fmt, "rne", 0)
    back = _tcsim.decode(bits, fmt, 0)
    bad = ~((back == x) | (np.isnan(back) & np.isnan(x.astype(np.float64))))
    if bad.any():
        i = tuple(int(v) for v in np.argwhere(bad)[0])
        raise ValueError(f"{name}: the value {x[i]!r} at {i if len(i) > 1 else i[0]} is not a {fmt} value exactly")
    return bits.astype(np.uint64)


def fit(a, b, c, d, in_format=None, out_format=None, k=None, base=None, instruction_k=None, budget=None,
        seconds=None, certainty=True, seed=None, progress=None):
    """The unit row that reproduces a dump d = c + sum a_i b_i (``tcsim fit --json``, docs/fit.md).

    ``a``, ``b``: (n, K) arrays, ``c``, ``d``: (n,) arrays (None for c: c = 0), as values (float,
    exact values of the formats) or unsigned bit patterns of ``in_format`` / ``out_format``.
    ``k`` fixes the block FMA size (``--k``); ``instruction_k`` (``--instruction-k``): the dump's
    K is chained by instructions of that many products, and the row names the shape
    ``fit.m16n16k<instruction_k>`` (evaluate it with ``instruction=`` that name).
    ``budget`` (``--budget``, 1000..10^11): the search's work in cases run through candidate
    rows, so that the report is the same on any machine at any load; ``seconds`` (``--seconds``,
    1..3600): its time limit (default 90 s, or 120 s as a cap with a budget).
    Returns ``(row, report)``: the row as a dict in the schema ``Unit.from_json`` reads, and the
    report (``exact``, ``parameters`` with the values that fit and the deciding cases in hex,
    ``closest`` rows when nothing fits, ``seconds``) and, unless ``certainty=False``, how sure
    the fit is (``certainty``: ``sure``, and per format pair the rows that also reproduce every
    case, the groups their answers fall into on fresh cases of the harness's mix, and the
    changes the dump cannot decide with a case that shows each; ``tcsim fit``'s "how sure"
    lines, docs/fit.md). ``seed``: the fresh cases' seed (``--seed``, default 1). ``progress``:
    lines on stderr while the search and the check run (None: when stderr is a terminal; True;
    False), as ``tcsim fit`` prints them unless ``--quiet``."""
    import numpy as np
    if in_format is None or out_format is None:
        raise ValueError("give in_format and out_format (e.g. in_format='fp16', out_format='fp32')")
    A = _fit_bits(a, in_format, "a", 2)
    B = _fit_bits(b, in_format, "b", 2)
    if A.shape != B.shape:
        raise ValueError(f"a and b must have the same shape (n cases, K products), got {A.shape} and {B.shape}")
    C = np.zeros(A.shape[0], dtype=np.uint64) if c is None else _fit_bits(c, out_format, "c", 1)
    D = _fit_bits(d, out_format, "d", 1)
    for name, v in (("c", C), ("d", D)):
        if v.shape[0] != A.shape[0]:
            raise ValueError(f"{name} must hold one value per case ({A.shape[0]}), got {v.shape[0]}")
    report = _tcsim._fit(A, B, C, D, in_format, out_format, k, base, instruction_k, budget, seconds, certainty, seed,
                         progress)
    return report["row"], report


def dot(unit, a, b, c=None, in_format=None, out_format=None, instruction=None, threads=0, in_format_a=None,
        in_format_b=None):
    """d = c + sum_i a_i b_i for every element of a batch, through ``unit``.

    a, b: shape (..., K); c: shape (...), a scalar, or None (+0). Float arrays are values,
    rounded to nearest even into ``in_format`` (``out_format`` for c); unsigned-integer arrays
    are bit patterns. Returns a DotResult whose ``values`` (float64) and ``bits`` have shape
    (...). Fastest with uint16 patterns laid out product-major (``a = at.T`` for a C-order
    (K, n) array ``at``): they reach the kernel without a copy. ``in_format_a`` / ``in_format_b``:
    a and b in different formats on rows with mixed_inputs (e.g. e4m3 x e5m2; ``tcsim units``),
    together or one of them with ``in_format`` for the other.
    """
    if (in_format is None and (in_format_a is None or in_format_b is None)) or out_format is None:
        raise TypeError("tcsim.dot: give in_format= and out_format= (e.g. in_format='fp16', out_format='fp32'), or "
                        "in_format_a= and in_format_b= for operands in different formats")
    values, bits = _tcsim._dot(unit, _numpy(a), _numpy(b), None if c is None else _numpy(c), in_format, out_format,
                               instruction, threads, in_format_a, in_format_b)
    return DotResult(values, bits)


def matmul(A, B, C=None, unit=None, in_format=None, out_format="fp32", variant=None, return_bits=False, **options):
    """D = C + A B simulated on ``unit``: the GEMM engine of ``tcsim gemm`` with every option.

    A (m x k), B (k x n), C (m x n or None): float arrays (values, converted with
    ``input_rounding``, RNE by default) or unsigned arrays (patterns of ``in_format``, C of
    ``out_format``). Options as ``tcsim gemm``'s: instruction, input_rounding, words,
    scaled_words, all_word_products, word_order, scaling, subnormals, fabsum, fabsum_combine,
    split_k, threads, progress (None: on when stderr is a terminal; True; False). Returns D's
    values (float64; a torch tensor for torch inputs); with
    ``return_bits=True`` the pair (values, bits), bits in D's storage format.

    Block-scaled instructions (b200 ``tcgen05.mxf8f6f4`` / ``tcgen05.mxf4nvf4``, rtx5090
    ``mma.sync.mxf8f6f4`` / ``mma.sync.mxf4nvf4``) run ``Unit::gemm_scaled`` as ``tcsim gemm``
    does: ``scale_a`` (m x k/block_size) and ``scale_b`` (k/block_size x n) give the scales
    (float values of ``scale_format`` exactly, or unsigned patterns of it), else ``scales``
    chooses them: "from-data" (default: per block from the data, OCP MX conversion) or "one".
    ``scale_format`` and ``block_size`` default to the row's first. docs/gemm.md.
    """
    values, bits, _info = _tcsim._matmul(_numpy(A), _numpy(B), None if C is None else _numpy(C), unit=unit,
                                         in_format=in_format, out_format=out_format, variant=variant, **options)
    values = _like((A, B, C), values)
    return (values, bits) if return_bits else values


def gemm_errors(A, B, C=None, unit=None, in_format=None, out_format="fp32", variant=None, check_rows=None,
                progress=None, **options):
    """``tcsim gemm --json``'s report of D = C + A B on ``unit``: componentwise and normwise errors
    against the exact product (MPFR), the variant's bound and its source, how it ran; D's
    values under "D". ``check_rows``: rows checked, "all" (or 0) or a count spread evenly
    (default: all when m n k <= 2^25, else as many as fit that work, at least 8; the report's
    "checked_rows" lists them). Errors that are not finite are float('inf'), never None.
    ``progress``: None (a bar when stderr is a terminal), True, False; docs/python.md.
    Block-scaled instructions take scale_a, scale_b, scale_format, block_size, scales as
    ``matmul``; the errors are then against the exact product of the scaled operands."""
    return _tcsim._gemm_errors(_numpy(A), _numpy(B), None if C is None else _numpy(C), unit=unit,
                               in_format=in_format, out_format=out_format, variant=variant, check_rows=check_rows,
                               progress=progress, **options)


def lu(A, unit=None, in_format="fp16", alg="rl", **options):
    """Simulated LU factorization of A (``tcsim lu``): returns (L, U, report), L unit lower
    triangular and U upper triangular (values of the storage format; rows permuted as
    report["perm"] with pivot=True). Options: variant, storage, panel, r, s, pivot,
    instruction, threads, on_breakdown, progress (None: on when stderr is a terminal; True;
    False). on_breakdown="stop" (default) raises tcsim.LuBreakdown
    (an ArithmeticError) when a pivot is zero, subnormal or not finite or a value overflows;
    "continue" carries on in the storage format's IEEE arithmetic as the GPU does (Inf, NaN
    in the factors) and report["events"] names the first "subnormal_pivot", "zero_pivot",
    "overflow" and "nan" (each None or a dict step, block, row, col, value, where; value a
    Python float, inf and nan included)."""
    L, U, report = _tcsim._lu(_numpy(A), unit=unit, in_format=in_format, alg=alg, **options)
    return _like((A,), L), _like((A,), U), report


def solve(A, b=None, unit=None, in_format="fp16", alg="rl", **options):
    """Solves Ax = b with the simulated LU factors (``tcsim lu``): returns (x, report).

    b None: x = ones and b = A x in binary64, as the CLI (the report's errors then match
    ``tcsim lu --json``). Options of lu, plus solve (substitution precision), refine ("lu-ir",
    "gmres-ir"), working ("fp32", "fp64"), max_iterations, x_true (for forward errors). With
    refine, x is the refined solution and the report holds the history.

    on_breakdown="stop" (default): tcsim.LuBreakdown for the factorization as in lu, and also
    when the substitutions give an Inf or NaN in x ("LU breakdown in the substitutions: ...").
    "continue": x as IEEE arithmetic gives it, report["events"] as in lu and
    report["solve_events"] ("overflow", "nan" of the substitutions); the backward errors are
    then Python floats that may be inf or nan (never finite for a non-finite x), with
    report["backward_error_note"] saying why ("the factors hold NaN from step 17 on")."""
    x, report = _tcsim._solve(_numpy(A), None if b is None else _numpy(b), unit=unit, in_format=in_format, alg=alg,
                              **{k: (_numpy(v) if k == "x_true" else v) for k, v in options.items()})
    return _like((A, b), x), report
