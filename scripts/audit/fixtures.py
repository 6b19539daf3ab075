"""The fixture folder of an audit run ("{fx}" in the cases): the catalogue's files of
apps/tests/bad_inputs/ plus files made here (small, so nothing large is committed)."""
import json
import os
import shutil
import struct
import subprocess


def _npy(path, dtype_descr, shape, payload, fortran=False):
    header = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (
        dtype_descr, "True" if fortran else "False", "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")")
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + payload)


def _mtx_array(path, rows, cols, values):
    with open(path, "w") as f:
        f.write("%%MatrixMarket matrix array real general\n")
        f.write(f"{rows} {cols}\n")
        for v in values:
            f.write(f"{v}\n")


def _dump_no_row_fits(fx):
    """500 cases of K = 8 fp16 values k/1024 (|k| < 2048, exact in fp16; a fixed generator, so
    the files are the same every run) with c = 0 and every d = 1: no row fits, so a fit's search
    runs to its time limit (fit-nothing-fits)."""
    state = 20261129

    def value():
        nonlocal state
        state = (state * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        return ((state >> 33) % 4095 - 2047) / 1024

    bits = lambda v: format(struct.unpack("<I", struct.pack("<f", v))[0], "08x")
    for name in ("a_many.txt", "b_many.txt"):
        with open(os.path.join(fx, name), "w") as f:
            for _ in range(500):
                f.write(" ".join(bits(value()) for _ in range(8)) + "\n")
    with open(os.path.join(fx, "d_many_ones.txt"), "w") as f:
        f.write("00111111100000000000000000000000\n" * 500)


def _unit(tcsim):
    """A valid user unit: the V100 as `tcsim units --unit v100 --json` prints it, renamed."""
    out = subprocess.run([tcsim, "units", "--unit", "v100", "--json"], check=True, capture_output=True, text=True)
    unit = json.loads(out.stdout)[0]
    unit["name"] = "u"
    unit["aliases"] = []
    for row in unit["datapaths"]:
        row["name"] = "u"
    return unit


def _row(unit, **changes):
    u = json.loads(json.dumps(unit))
    u["datapaths"][0].update(changes)
    return u


def make(fx, bad_inputs, tcsim):
    UNIT = _unit(tcsim)
    shutil.copytree(bad_inputs, fx)
    os.makedirs(os.path.join(fx, "adir"))
    open(os.path.join(fx, "empty"), "w").close()
    _mtx_array(os.path.join(fx, "m4.mtx"), 4, 4, [1, 0.5, 0.25, 2, 3, 1, 0.5, 0.25, 1, 2, 4, 1, 0.5, 1, 1, 3])
    _mtx_array(os.path.join(fx, "m1.mtx"), 1, 1, [2])
    _mtx_array(os.path.join(fx, "m0.mtx"), 0, 0, [])
    _mtx_array(os.path.join(fx, "m_big_e4m3.mtx"), 2, 2, [1, 1000, 1, 1])
    _mtx_array(os.path.join(fx, "m_tiny.mtx"), 2, 2, [1e-300, 1, 1, 1])
    _mtx_array(os.path.join(fx, "m_zero.mtx"), 2, 2, [0, 0, 0, 0])
    with open(os.path.join(fx, "d_none.txt"), "w") as f:  # 1, 1 where the dump a, b, c gives 5, 4
        f.write("00111111100000000000000000000000\n" * 2)
    _dump_no_row_fits(fx)
    # k = 32 forms for the block-scaled fp4 instruction (its scale blocks are 32 products long).
    _mtx_array(os.path.join(fx, "m2x32_big_e4m3.mtx"), 2, 32, [1, 1000] + [1] * 62)
    _mtx_array(os.path.join(fx, "m2x32_tiny.mtx"), 2, 32, [1e-300] + [1] * 63)
    _mtx_array(os.path.join(fx, "m32x2.mtx"), 32, 2, [1] * 64)
    with open(os.path.join(fx, "m_huge_dims.mtx"), "w") as f:
        f.write("%%MatrixMarket matrix array real general\n100000000 100000000\n1\n")
    with open(os.path.join(fx, "m_coord_huge_nnz.mtx"), "w") as f:
        f.write("%%MatrixMarket matrix coordinate real general\n2 2 99999999999\n1 1 1\n")
    with open(os.path.join(fx, "m_neg_dims.mtx"), "w") as f:
        f.write("%%MatrixMarket matrix array real general\n-2 2\n1\n1\n1\n1\n")
    with open(os.path.join(fx, "m_extra.mtx"), "w") as f:
        f.write("%%MatrixMarket matrix array real general\n1 1\n1\n2\n")
    with open(os.path.join(fx, "m_hexval.mtx"), "w") as f:
        f.write("%%MatrixMarket matrix array real general\n1 1\n0x1p-3\n")
    with open(os.path.join(fx, "m_sym.mtx"), "w") as f:
        f.write("%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n1 1 1\n2 1 2\n")
    with open(os.path.join(fx, "m_crlf.mtx"), "w") as f:
        f.write("%%MatrixMarket matrix array real general\r\n2 2\r\n1\r\n2\r\n3\r\n4\r\n")
    _npy(os.path.join(fx, "v2.npy"), "<f8", (2, 2), struct.pack("<4d", 1, 2, 3, 4))
    _npy(os.path.join(fx, "v2_fortran.npy"), "<f8", (2, 2), struct.pack("<4d", 1, 3, 2, 4), fortran=True)
    _npy(os.path.join(fx, "v_f2.npy"), "<f2", (2, 2), struct.pack("<4e", 1, 2, 3, 4))
    _npy(os.path.join(fx, "v_1d.npy"), "<f8", (4,), struct.pack("<4d", 1, 2, 3, 4))
    _npy(os.path.join(fx, "v_3d.npy"), "<f8", (1, 2, 2), struct.pack("<4d", 1, 2, 3, 4))
    _npy(os.path.join(fx, "v_huge_shape.npy"), "<f8", (4000000000, 4000000000), b"")
    _npy(os.path.join(fx, "v_nan.npy"), "<f8", (2, 2), struct.pack("<4d", 1, float("nan"), 3, 4))
    _npy(os.path.join(fx, "v_zero_shape.npy"), "<f8", (0, 2), b"")
    with open(os.path.join(fx, "unit_ok.json"), "w") as f:
        json.dump(UNIT, f)
    for name, text in {
        "unit_empty_object.json": "{}", "unit_null.json": "null", "unit_number.json": "42",
        "unit_string.json": '"v100"', "unit_blank.json": "   \n",
        "unit_trailing_garbage.json": json.dumps(UNIT) + " }",
        "unit_bom.json": "\ufeff" + json.dumps(UNIT),
        "unit_dup_key.json": json.dumps(UNIT)[:-1] + ', "name": "w"}',
        "unit_fma_huge.json": json.dumps(_row(UNIT, fma_size=10**12)),
        "unit_fraction_float.json": json.dumps(_row(UNIT, fraction_bits=23.0)),
        "unit_bool_fma.json": json.dumps(_row(UNIT, fma_size=True)),
        "unit_no_outputs.json": json.dumps(_row(UNIT, output_formats=[])),
        "unit_unicode_name.json": json.dumps(dict(UNIT, name="ünït ✓")),
        "unit_blank_name.json": json.dumps(dict(UNIT, name="  ")),
        "unit_nested.json": "[" * 100000 + "]" * 100000,
        "unit_deep_ok_list.json": json.dumps([UNIT]),
        "unit_two_units.json": json.dumps([UNIT, dict(UNIT, name="w")]),
        "unit_nan_value.json": json.dumps(UNIT).replace('"fma_size": 4', '"fma_size": NaN'),
    }.items():
        with open(os.path.join(fx, name), "w", encoding="utf-8") as f:
            f.write(text)
    # dump files: a and b of one case with values e4m3 cannot hold, and a CRLF copy of a.txt
    with open(os.path.join(bad_inputs, "a.txt")) as f:
        a = f.read()
    with open(os.path.join(fx, "a_crlf.txt"), "w", newline="") as f:
        f.write(a.replace("\n", "\r\n"))
    with open(os.path.join(fx, "a_no_newline.txt"), "w") as f:
        f.write(a.rstrip("\n"))
    with open(os.path.join(fx, "binary.bin"), "wb") as f:
        f.write(bytes(range(256)) * 4)
