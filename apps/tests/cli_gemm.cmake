# tcsim gemm: D from files equals tcsim dot entry by entry (checked from outside), the errors
# and bounds (text, JSON), blanchard2020 Fig. 3.1 (TC32 at least 100 times more accurate than
# TC16 for k = 65536, uniform [0, 1e-3] on V100), and clear errors for bad input.
include(${CMAKE_CURRENT_LIST_DIR}/support/cli_test.cmake)
tcsim_scratch_dir(dir)

# A (2 x 5, Matrix Market array: column-major), B (5 x 3, coordinate), C (2 x 3).
file(WRITE "${dir}/a.mtx" "%%MatrixMarket matrix array real general\n% A\n2 5\n1\n2\n0.5\n-1\n0.25\n3\n0x1p-3\n0.1\n7\n-0.375\n")
file(WRITE "${dir}/b.mtx" "%%MatrixMarket matrix coordinate real general\n5 3 7\n1 1 1\n2 1 2\n3 2 -4\n4 3 0.5\n5 3 1e-3\n1 3 8\n2 2 0.75\n")
file(WRITE "${dir}/c.mtx" "%%MatrixMarket matrix array real general\n2 3\n1\n-1\n0.5\n0\n0x1p-20\n2\n")
tcsim_check(NAME "gemm: D from Matrix Market files"
  ARGS gemm --unit v100 --in fp16 --out fp32 --a ${dir}/a.mtx --b ${dir}/b.mtx --c ${dir}/c.mtx --write-d ${dir}/d.txt
  STDOUT "variant tc32 \\(D held in fp32\\), path kernel" "m = 2, n = 3, k = 5" "componentwise max")
file(READ "${dir}/d.txt" d)
# Row 2 of A (2, -1, 3, 0.1, -0.375) and column 3 of B (8, 0, 0, 0.5, 1e-3) with C[2][3] = 2:
# 0.1 and 1e-3 are rounded to binary16 (RNE) by both commands.
tcsim_check(NAME "gemm: D[2][3] is tcsim dot of row 2 and column 3"
  ARGS dot --unit v100 --in fp16 --out fp32 --a 2,-1,3,0x1.998p-4,-0.375 --b 8,0,0,0.5,0x1.06p-10 --c 2 --json
  OUTPUT_VARIABLE dot_out)
string(JSON bits GET "${dot_out}" bits)
if(NOT d MATCHES "^0x[0-9a-f]+ 0x[0-9a-f]+ 0x[0-9a-f]+\n0x[0-9a-f]+ 0x[0-9a-f]+ ${bits}\n$")
  tcsim_fail("D[2][3] of tcsim gemm is not tcsim dot's ${bits}:\n${d}")
endif()

# The same A and B as .npy (float64 C order, float32 Fortran order) give the same D.
function(write_npy path descr fortran shape bytes)
  string(LENGTH "{'descr': '${descr}', 'fortran_order': ${fortran}, 'shape': ${shape}, }" len)
  math(EXPR pad "64 - (10 + ${len} + 1) % 64")
  string(REPEAT " " ${pad} spaces)
  set(header "{'descr': '${descr}', 'fortran_order': ${fortran}, 'shape': ${shape}, }${spaces}\n")
  string(LENGTH "${header}" hlen)
  math(EXPR lo "${hlen} % 256" OUTPUT_FORMAT HEXADECIMAL)
  math(EXPR hi "${hlen} / 256" OUTPUT_FORMAT HEXADECIMAL)
  string(HEX "${header}" hex_header)
  string(REGEX REPLACE "^0x" "" lo "${lo}")
  string(REGEX REPLACE "^0x" "" hi "${hi}")
  if(lo MATCHES "^.$")
    set(lo "0${lo}")
  endif()
  if(hi MATCHES "^.$")
    set(hi "0${hi}")
  endif()
  set(all "934e554d50590100${lo}${hi}${hex_header}${bytes}")
  # perl-base is essential on Debian: hex text to bytes.
  execute_process(COMMAND perl -e "print pack('H*', '${all}')" OUTPUT_FILE "${path}")
endfunction()
# B (5 x 3) as float32 Fortran order: columns (1 2 0 0 0), (0 0.75 -4 0 0), (8 0 0 0.5 1e-3f).
write_npy("${dir}/b.npy" "<f4" "True" "(5, 3)"
  "0000803f00000040000000000000000000000000000000000000403f000080c000000000000000000000004100000000000000000000003f6f12833a")
tcsim_check(NAME "gemm: B from .npy (float32, Fortran order) gives the same D"
  ARGS gemm --unit v100 --in fp16 --out fp32 --a ${dir}/a.mtx --b ${dir}/b.npy --c ${dir}/c.mtx --write-d -
  STDOUT "${d}")

# JSON keys.
tcsim_check(NAME "gemm: --json"
  ARGS gemm --unit h100 --in fp16 --out fp32 --m 16 --n 8 --k 100 --dist uniform-11 --seed 3 --json
  STDOUT "\"m\":16" "\"n\":8" "\"k\":100" "\"unit\":\"h100\"" "\"variant\":\"tc32\"" "\"componentwise_error\":[0-9]"
         "\"normwise_error\":[0-9]" "\"componentwise_bound\":[0-9]" "\"seconds\":" "\"path\":\"kernel\""
         "\"bound_source\":\"blanchard2020 Thm 3.2 eq. \\(3.6\\)")
tcsim_check(NAME "gemm: fp32 variant, split-K, FABsum, multiword, scaling run"
  ARGS gemm --unit h100 --in fp16 --out fp32 --m 4 --n 4 --k 64 --variant fp32 --json
  STDOUT "\"path\":\"ieee\"" "\"storage\":\"fp32\"")
tcsim_check(NAME "gemm: split-K"
  ARGS gemm --unit h100 --in fp16 --out fp32 --m 4 --n 4 --k 64 --split-k 4 --json
  STDOUT "\"unit_calls\":4")
# The fp32 variant uses no tensor core: it runs on binary32 data on a unit without fp32 input,
# and in split-K slices (unit_calls 0: no GEMM went through the unit).
tcsim_check(NAME "gemm: fp32 variant on binary32 data in split-K slices, v100"
  ARGS gemm --unit v100 --in fp32 --out fp32 --m 8 --n 8 --k 1024 --dist uniform0-1e-3 --variant fp32 --split-k 16 --json
  STDOUT "\"path\":\"ieee\"" "\"variant\":\"fp32\"" "\"unit_calls\":0" "\"storage\":\"fp32\""
         "Thm 3.1 eq. \\(3.5\\), standard summation")
tcsim_check(NAME "gemm: FABsum in binary64"
  ARGS gemm --unit h100 --in bf16 --out fp32 --m 4 --n 4 --k 64 --fabsum 16 --fabsum-combine fp64 --json
  STDOUT "\"unit_calls\":4" "\"storage\":\"fp64\"" "mary2021[^\"]*FABsum")
tcsim_check(NAME "gemm: scaled multiword with scaling"
  ARGS gemm --unit h100 --in e4m3 --out fp32 --instruction wgmma --m 4 --n 4 --k 64 --dist pm10^phi --ell 3 --words 2 --scaled-words --scaling on --json
  STDOUT "\"unit_calls\":3" "\"storage\":\"fp64\"")

# A row whose output is neither binary16 nor binary32 (a100 fp64: IEEE FMA chains) runs as
# variant "unit", and its bound uses binary64's unit roundoff: the error stays below it.
tcsim_check(NAME "gemm: a100 fp64 runs as variant unit with a binary64 bound"
  ARGS gemm --unit a100 --in fp64 --out fp64 --m 8 --n 8 --k 256 --dist uniform-11 --json
  STDOUT "\"variant\":\"unit\"" "\"path\":\"fma-chain\"" "\"storage\":\"fp64\"" "block FMA \\(unit\\)"
  OUTPUT_VARIABLE fp64_out)
string(JSON fp64_err GET "${fp64_out}" componentwise_error)
string(JSON fp64_bound GET "${fp64_out}" componentwise_bound)
execute_process(COMMAND awk "BEGIN { exit !(${fp64_err} <= ${fp64_bound} && ${fp64_bound} < 1e-13) }" RESULT_VARIABLE fp64_rc)
if(NOT fp64_rc EQUAL 0)
  tcsim_fail("a100 fp64: error ${fp64_err} above the bound ${fp64_bound}, or the bound is not binary64's")
endif()

# blanchard2020 Fig. 3.1 at n = 65536 (their k), m = t = 8: TC32 >= 100 x more accurate than TC16.
tcsim_check(NAME "gemm: Fig 3.1, TC16"
  ARGS gemm --unit v100 --in fp16 --out fp32 --m 8 --n 8 --k 65536 --dist uniform0-1e-3 --variant tc16 --json
  OUTPUT_VARIABLE tc16)
tcsim_check(NAME "gemm: Fig 3.1, TC32"
  ARGS gemm --unit v100 --in fp16 --out fp32 --m 8 --n 8 --k 65536 --dist uniform0-1e-3 --variant tc32 --json
  OUTPUT_VARIABLE tc32)
string(JSON e16 GET "${tc16}" componentwise_error)
string(JSON e32 GET "${tc32}" componentwise_error)
# CMake has no floating point: compare e16 >= 100 e32 through their decimal exponents and digits.
execute_process(COMMAND awk "BEGIN { exit !(${e16} >= 100 * ${e32}) }" RESULT_VARIABLE ratio_rc)
if(NOT ratio_rc EQUAL 0)
  tcsim_fail("Fig 3.1: TC16 error ${e16} is not 100 times TC32's ${e32}")
else()
  message(STATUS "ok: Fig 3.1: TC16 ${e16}, TC32 ${e32}")
endif()

# Errors.
tcsim_check(NAME "gemm: no problem given"
  ARGS gemm --unit v100 --in fp16
  EXIT 2 STDERR_IS "tcsim gemm: error: give --m, --n and --k (a generated problem) or --a and --b files; --m is missing\n")
tcsim_check(NAME "gemm: unknown distribution"
  ARGS gemm --unit v100 --in fp16 --m 2 --n 2 --k 2 --dist gauss
  EXIT 2 STDERR "--dist: 'gauss' is not a distribution; allowed: uniform01, uniform-11, uniform0-1e-3, normal, pm10\\^phi")
tcsim_check(NAME "gemm: unknown variant"
  ARGS gemm --unit v100 --in fp16 --m 2 --n 2 --k 2 --variant tc64
  EXIT 2 STDERR "--variant: 'tc64' is not a variant; allowed: unit, fp16, tc16, tc32, fp32")
tcsim_check(NAME "gemm: split-K larger than k"
  ARGS gemm --unit v100 --in fp16 --m 2 --n 2 --k 2 --split-k 3
  EXIT 2 STDERR "--split-k must be between 1 and k = 2, got 3")
tcsim_check(NAME "gemm: dimensions that do not match"
  ARGS gemm --unit v100 --in fp16 --a ${dir}/a.mtx --b ${dir}/c.mtx
  EXIT 2 STDERR "--a is 2 x 5 and --b is 2 x 3: A's columns must equal B's rows")
file(WRITE "${dir}/bad.mtx" "%%MatrixMarket matrix array real general\n2 2\n1\nabc\n3\n4\n")
tcsim_check(NAME "gemm: a malformed Matrix Market value names file and line"
  ARGS gemm --unit v100 --in fp16 --a ${dir}/bad.mtx --b ${dir}/bad.mtx
  EXIT 2 STDERR "--a: .*bad.mtx: line 4: 'abc' is not a number")
file(WRITE "${dir}/short.mtx" "%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1\n2 2 1\n")
tcsim_check(NAME "gemm: a short coordinate file"
  ARGS gemm --unit v100 --in fp16 --a ${dir}/short.mtx --b ${dir}/short.mtx
  EXIT 2 STDERR "the file ends after 2 of 3 entries")
file(WRITE "${dir}/junk.txt" "hello\n")
tcsim_check(NAME "gemm: neither format"
  ARGS gemm --unit v100 --in fp16 --a ${dir}/junk.txt --b ${dir}/junk.txt
  EXIT 2 STDERR "--a: .*junk.txt: neither a Matrix Market file")
tcsim_check(NAME "gemm: generated problem with --c"
  ARGS gemm --unit v100 --in fp16 --m 2 --n 2 --k 2 --c ${dir}/c.mtx
  EXIT 2 STDERR "--c needs --a and --b files")
