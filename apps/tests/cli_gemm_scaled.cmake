# tcsim gemm on block-scaled instructions (issue 25, Unit::gemm_scaled): D from element and
# scale files equals tcsim dot with the same scales entry by entry (checked from outside), two
# hand-checked sums, scales chosen from the data (--scales from-data, the default), --json, and
# bench gemm on a block-scaled row. The refusals are catalogue rows B320-B329.
include(${CMAKE_CURRENT_LIST_DIR}/support/cli_test.cmake)
tcsim_scratch_dir(dir)

# A 2 x 64 (row 1 all ones, row 2 a cycle of e4m3 values), B 64 x 2 (column 1 all ones,
# column 2 another cycle), as Matrix Market coordinate files; scales per block of 32.
set(va 1.5 -2 0.25 448 0x1p-9 3 -0.875 0)
set(vb 2 -0.5 1.25 -448 0.0625 6 -1 0x1p-6)
set(a_text "%%MatrixMarket matrix coordinate real general\n2 64 128\n")
set(b_text "%%MatrixMarket matrix coordinate real general\n64 2 128\n")
set(row1 "")
set(row2 "")
set(col2 "")
foreach(t RANGE 1 64)
  math(EXPR r "(${t} - 1) % 8")
  list(GET va ${r} x)
  list(GET vb ${r} y)
  string(APPEND a_text "1 ${t} 1\n2 ${t} ${x}\n")
  string(APPEND b_text "${t} 1 1\n${t} 2 ${y}\n")
  list(APPEND row1 1)
  list(APPEND row2 ${x})
  list(APPEND col2 ${y})
endforeach()
string(REPLACE ";" "," row1 "${row1}")
string(REPLACE ";" "," row2 "${row2}")
string(REPLACE ";" "," col2 "${col2}")
file(WRITE "${dir}/a.mtx" "${a_text}")
file(WRITE "${dir}/b.mtx" "${b_text}")
# scale_a (2 x 2: rows of A, blocks), scale_b (2 x 2: blocks, columns of B), C (2 x 2), all
# Matrix Market arrays (column-major).
file(WRITE "${dir}/sa.mtx" "%%MatrixMarket matrix array real general\n2 2\n2\n0x1p-3\n0.5\n0x1p10\n")
file(WRITE "${dir}/sb.mtx" "%%MatrixMarket matrix array real general\n2 2\n4\n1\n0x1p5\n0x1p-7\n")
file(WRITE "${dir}/c.mtx" "%%MatrixMarket matrix array real general\n2 2\n0\n0.5\n-1\n0x1p-10\n")
set(sa_rows "2,0.5" "0x1p-3,0x1p10")
set(sb_cols "4,1" "0x1p5,0x1p-7")
set(c_entries "0;-1;0.5;0x1p-10")

tcsim_check(NAME "gemm: b200 tcgen05.mxf8f6f4 with scale files"
  ARGS gemm --unit b200 --in e4m3 --instruction tcgen05.mxf8f6f4 --a ${dir}/a.mtx --b ${dir}/b.mtx --c ${dir}/c.mtx
       --scale-a ${dir}/sa.mtx --scale-b ${dir}/sb.mtx --write-d ${dir}/d.txt
  STDOUT "unit b200, e4m3 -> fp32, tcgen05.mxf8f6f4, variant tc32 \\(D held in fp32\\), path kernel"
         "block scales: ue8m0 per 32 along k, from --scale-a: " "m = 2, n = 2, k = 64"
         "Unit::gemm_scaled" "errors against the exact product of the scaled operands \\(MPFR\\), all 2 rows"
         "componentwise max")
file(READ "${dir}/d.txt" d)
string(REGEX MATCHALL "0x[0-9a-f]+" d_bits "${d}")
list(LENGTH d_bits d_count)
if(NOT d_count EQUAL 4)
  tcsim_fail("--write-d: expected 2 x 2 patterns, got:\n${d}")
else()
  # Hand-checked: row 1 of A and column 1 of B are ones; 32 products scaled by 2 * 4 and 32 by
  # 0.5 * 1 give 256 + 16 = 272 = 0x43880000 (C = 0).
  list(GET d_bits 0 d11)
  if(NOT d11 STREQUAL "0x43880000")
    tcsim_fail("D[1][1] = ${d11}, expected 272 = 0x43880000")
  endif()
  # Every entry equals tcsim dot (Unit::dot_scaled) of its row, column, scales and C.
  set(rows "${row1}" "${row2}")
  set(cols "${row1}" "${col2}")
  foreach(i 0 1)
    foreach(j 0 1)
      list(GET rows ${i} ra)
      list(GET cols ${j} cb)
      list(GET sa_rows ${i} s_a)
      list(GET sb_cols ${j} s_b)
      math(EXPR e "${i} * 2 + ${j}")
      list(GET c_entries ${e} c)
      list(GET d_bits ${e} want)
      tcsim_check(NAME "gemm: D[${i}][${j}] is tcsim dot with the scales"
        ARGS dot --unit b200 --in e4m3 --out fp32 --instruction tcgen05.mxf8f6f4 --a ${ra} --b ${cb} --c=${c}
             --scale-format ue8m0 --scale-a ${s_a} --scale-b ${s_b} --json
        OUTPUT_VARIABLE dot_out)
      string(JSON bits GET "${dot_out}" bits)
      if(NOT bits STREQUAL want)
        tcsim_fail("D[${i}][${j}] of tcsim gemm is ${want}, tcsim dot gives ${bits}")
      endif()
    endforeach()
  endforeach()
endif()

# mxf4nvf4 with ue4m3 scales per 16: e2m1's largest (6) everywhere, every scale 448 (ue4m3's
# largest): 32 products of 36 * 448^2 = 441 * 2^19 = 0x4d5c8000, exact in binary32.
set(f4 "%%MatrixMarket matrix array real general\n1 32\n")
set(f4b "%%MatrixMarket matrix array real general\n32 1\n")
foreach(t RANGE 1 32)
  string(APPEND f4 "6\n")
  string(APPEND f4b "6\n")
endforeach()
file(WRITE "${dir}/a4.mtx" "${f4}")
file(WRITE "${dir}/b4.mtx" "${f4b}")
file(WRITE "${dir}/sa4.mtx" "%%MatrixMarket matrix array real general\n1 2\n448\n448\n")
file(WRITE "${dir}/sb4.mtx" "%%MatrixMarket matrix array real general\n2 1\n448\n448\n")
tcsim_check(NAME "gemm: b200 tcgen05.mxf4nvf4 with ue4m3 scales per 16"
  ARGS gemm --unit b200 --in e2m1 --instruction tcgen05.mxf4nvf4 --a ${dir}/a4.mtx --b ${dir}/b4.mtx
       --scale-format ue4m3 --block-size 16 --scale-a ${dir}/sa4.mtx --scale-b ${dir}/sb4.mtx --write-d -
  STDOUT "^0x4d5c8000\n")

# Scales from the data (the default): A = 12 everywhere (amax 12: X = 2^(3 - 2) = 2, elements
# 6), B = 1 (X = 2^-2, elements 4): every product is 12 again, D = 32 * 12 = 384 = 0x43c00000.
string(REPLACE "6\n" "12\n" a12 "${f4}")
string(REPLACE "6\n" "1\n" b1 "${f4b}")
file(WRITE "${dir}/a12.mtx" "${a12}")
file(WRITE "${dir}/b1.mtx" "${b1}")
tcsim_check(NAME "gemm: scales chosen from the data (OCP MX), hand-checked"
  ARGS gemm --unit rtx5090 --in e2m1 --instruction mma.sync.mxf4nvf4 --a ${dir}/a12.mtx --b ${dir}/b1.mtx --json
  STDOUT "\"scales\":\"from-data\"" "\"scale_format\":\"ue8m0\"" "\"block_size\":16" "\"gemm\":\"Unit::gemm_scaled\""
         "\"componentwise_error\":0" "\"bound_source\":\"blanchard2020 Thm 3.1")
tcsim_check(NAME "gemm: scales chosen from the data, --write-d"
  ARGS gemm --unit rtx5090 --in e2m1 --instruction mma.sync.mxf4nvf4 --a ${dir}/a12.mtx --b ${dir}/b1.mtx --write-d -
  STDOUT "^0x43c00000\n")
# --scales one: the elements as given (12 is beyond e2m1: refused as every GEMM refuses it).
tcsim_check(NAME "gemm: --scales one converts A into e2m1 unscaled"
  ARGS gemm --unit rtx5090 --in e2m1 --instruction mma.sync.mxf4nvf4 --a ${dir}/a12.mtx --b ${dir}/b1.mtx --scales one
  EXIT 2 STDERR "is out of the range of e2m1, the format A is converted into")

# A generated problem: the errors are within the bound.
tcsim_check(NAME "gemm: generated problem on tcgen05.mxf8f6f4 e5m2, from-data scales"
  ARGS gemm --unit b200 --in e5m2 --instruction tcgen05.mxf8f6f4 --m 16 --n 8 --k 96 --dist normal --json
  OUTPUT_VARIABLE gen)
string(JSON err GET "${gen}" componentwise_error)
string(JSON bound GET "${gen}" componentwise_bound)
if(err GREATER bound OR NOT gen MATCHES "\"scales_how\":\"ue8m0 per 32 along k, chosen per block from the data")
  tcsim_fail("generated block-scaled GEMM: error ${err} above the bound ${bound}, or no scales_how:\n${gen}")
endif()

# bench gemm on the block-scaled row runs gemm_scaled and checks against dot_scaled.
tcsim_check(NAME "bench gemm on a block-scaled row runs Unit::gemm_scaled"
  ARGS bench gemm --unit b200 --in e2m1 --instruction tcgen05.mxf4nvf4 --n 32 --k 64 --json --quiet
  STDOUT "gemm_scaled, random ue8m0 scales in \\[2\\^-4, 2\\^4\\] per 16" "\"k\":64" "\"peak_bytes\":[0-9]"
         "\"mismatches\":0")
