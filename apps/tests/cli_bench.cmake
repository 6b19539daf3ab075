# tcsim bench dot: runs, reports the path and the rate, and checks a sample bit for bit
# (tiny sizes: this is a test of the command, not a measurement).
include(${CMAKE_CURRENT_LIST_DIR}/support/cli_test.cmake)

tcsim_check(NAME "bench dot h100 fp16 -> fp32: kernel path, sample equal to Unit::dot"
  ARGS bench dot --unit h100 --in fp16 --out fp32 --elements 256 --seconds 0.01 --threads 2 --json
  STDOUT "\"path\":\"kernel\"" "\"K\":16" "\"mismatches\":0" "\"checked\":256" "\"elements_per_second\":[0-9]"
         "\"reference_elements_per_second\":[0-9]" "\"threads\":2"
         "\"planar_path\":\"kernel \\(planar\\)\"" "\"planar_elements_per_second\":[0-9]"
         "\"element_major_elements_per_second\":[0-9]")

tcsim_check(NAME "bench dot on the fp8 emulation defaults to one instruction's K (32)"
  ARGS bench dot --unit b200 --in e5m2 --out fp16 --elements 64 --seconds 0.01 --json
  STDOUT "\"K\":32" "\"path\":\"kernel\"" "\"mismatches\":0")

# No built-in row is left on the reference path (issue 25): a user row with per-step
# normalization that is not an FMA chain is.
tcsim_check(NAME "bench dot on a reference-path row says why"
  ARGS bench dot --unit-config ${CMAKE_CURRENT_LIST_DIR}/support/unit_per_step_reference.json --in fp16 --out fp32
       --elements 64 --seconds 0.01
  STDOUT "dot_batch, element-major 64-bit patterns \\(reference: per-step normalization\\)" "check: 64 of 64")

tcsim_check(NAME "bench dot on the block-scaled mxf4nvf4 row runs the group-sum lanes"
  ARGS bench dot --unit b200 --in e2m1 --out fp32 --instruction tcgen05.mxf4nvf4 --elements 64 --seconds 0.01
  STDOUT "dot_batch, element-major 64-bit patterns \\(kernel \\(group sums(, binary32 lanes)?\\)\\)" "check: 64 of 64")

tcsim_check(NAME "bench dot on an fp64 row runs the FMA chain"
  ARGS bench dot --unit a100 --in fp64 --out fp64 --elements 64 --seconds 0.01
  STDOUT "dot_batch, element-major 64-bit patterns \\(fma-chain\\)" "check: 64 of 64")

tcsim_check(NAME "bench without a benchmark name"
  ARGS bench --unit h100
  EXIT 2
  STDERR "name one benchmark: 'tcsim bench dot', 'tcsim bench gemm', 'tcsim bench lu', 'tcsim bench verify' or 'tcsim bench fit'; allowed: dot, gemm, lu, verify, fit")

tcsim_check(NAME "bench dot with elements out of range"
  ARGS bench dot --unit h100 --elements 0
  EXIT 2
  STDERR "'--elements' for 'tcsim bench' expects an integer in 1..16777216, got '0'")

tcsim_check(NAME "bench dot with a bad --seconds"
  ARGS bench dot --unit h100 --seconds fast
  EXIT 2
  STDERR "'--seconds' for 'tcsim bench' must be a number in 0.01..600, got 'fast'")

tcsim_check(NAME "bench gemm: simulated and native times, ratio, a sample equal to Unit::dot"
  ARGS bench gemm --unit h100 --in fp16 --out fp32 --n 48 --json
  STDOUT "\"benchmark\":\"gemm\"" "\"path\":\"kernel\"" "\"sim_seconds\":[0-9]" "\"native_seconds\":[0-9]"
         "\"ratio\":[0-9]" "\"macs_per_second\":[0-9]" "\"native_gflops\":[0-9]" "\"mismatches\":0")

# Issue 25: fp64 rows beside Eigen's binary64 GEMM of the same matrices; the GEMM runs the FMA
# chains in SIMD lanes where the machine's vectors fuse.
tcsim_check(NAME "bench gemm on an fp64 row compares with Eigen's binary64 GEMM"
  ARGS bench gemm --unit a100 --in fp64 --out fp64 --n 40 --json
  STDOUT "\"benchmark\":\"gemm\"" "\"native\":\"binary64\"" "\"path\":\"fma-chain \\((lanes|scalar)\\)\""
         "\"ratio\":[0-9]" "\"mismatches\":0")

tcsim_check(NAME "bench gemm on an fp64 row names the binary64 baseline in text"
  ARGS bench gemm --unit mi250x --in fp64 --out fp64 --n 33 --quiet
  STDOUT "unit mi250x, fp64 -> fp64, n = 33 \\(fma-chain \\((lanes|scalar)\\)\\)" "native binary64 GEMM \\(Eigen, "
         "check: 64 of 64 sampled elements equal Unit::dot")

tcsim_check(NAME "bench gemm on an fp32 FMA-chain row compares with binary32"
  ARGS bench gemm --unit mi100 --in fp32 --out fp32 --n 33 --json
  STDOUT "\"native\":\"binary32\"" "\"path\":\"fma-chain \\((lanes|scalar)\\)\"" "\"mismatches\":0")

tcsim_check(NAME "bench gemm refuses fp64 input with binary32 output"
  ARGS bench gemm --unit a100 --in fp64 --out fp32 --n 8
  EXIT 2
  STDERR_IS "tcsim bench: error: tcsim bench gemm compares with a binary32 GEMM, or a binary64 one for fp64 output: --out must be fp32 and --in a format binary32 holds (fp16, bf16, tf32, fp8, ...), or --out fp64\n")

tcsim_check(NAME "bench gemm needs binary32 output"
  ARGS bench gemm --unit h100 --in fp16 --out fp16 --n 8
  EXIT 2
  STDERR "--out must be fp32")

tcsim_check(NAME "bench lu: simulated and native LU times and their ratio"
  ARGS bench lu --unit h100 --n 64 --r 16 --json
  STDOUT "\"benchmark\":\"lu\"" "\"algorithm\":\"rl\"" "\"variant\":\"tc32\"" "\"sim_seconds\":[0-9]"
         "\"sim_cpu_seconds\":[0-9]" "\"native_seconds\":[0-9]" "\"ratio\":[0-9]" "\"unit_calls\":3" "\"r\":16"
         "\"runs\":3")

tcsim_check(NAME "bench lu --runs: the best of R runs on both sides, in text"
  ARGS bench lu --unit h100 --n 64 --r 16 --runs 2 --quiet
  STDOUT "simulated LU: [0-9.]+ s \\(3 GEMMs through the unit; best of 2 runs\\)" "ratio simulated / native: [0-9]")

tcsim_check(NAME "bench lu --runs out of range"
  ARGS bench lu --unit h100 --n 64 --runs 0
  EXIT 2
  STDERR "--runs")

tcsim_check(NAME "bench gemm does not take --runs"
  ARGS bench gemm --unit h100 --n 8 --runs 2
  EXIT 2
  STDERR "--runs applies to 'tcsim bench lu' only")

tcsim_check(NAME "bench gemm does not take --r"
  ARGS bench gemm --unit h100 --n 8 --r 4
  EXIT 2
  STDERR "--r applies to 'tcsim bench lu' only")

tcsim_check(NAME "bench gemm --all-rows --unit: one line per datapath, path, native baseline (binary64 for fp64)"
  ARGS bench gemm --all-rows --unit a100 --n 32 --json --quiet
  STDOUT "\"benchmark\":\"gemm-all-rows\"" "\"in\":\"bf16\"" "\"in\":\"tf32\"" "\"path\":\"kernel \\(tiles\\)\""
         "\"path\":\"fma-chain \\((lanes|scalar)\\)\",\"peak_bytes\":[0-9]+,\"ratio\":[0-9]" "\"native\":\"binary64\"" "\"native\":\"binary32\""
         "\"native_gflops\":[0-9]" "\"instructions\":\\[\"wmma\",\"mma.sync\"\\]" "\"load_average_before\":\"[0-9]"
         "\"mismatches\":0")

# mi100's rows left the reference path (issue 25: exact-block, fma-chain): they run at the n asked.
tcsim_check(NAME "bench gemm --all-rows runs mi100's rows on exact-block and fma-chain at the n asked"
  ARGS bench gemm --all-rows --unit mi100 --n 300 --quiet
  STDOUT "\\| mi100 \\| fp16 -> fp32 \\| v_mfma_f32_32x32x4f16[^|]*\\| exact-block \\(lanes\\) \\| 300 \\|"
         "\\| mi100 \\| fp32 -> fp32 \\| [^|]*\\| fma-chain \\((lanes|scalar)\\) \\| 300 \\|" "check: 0 mismatches")

# Issue 25: bench dot --all-rows, one line per datapath row: layout and path, elements per
# second beside the target (1e8; 3e8 for h100 fp16), a sample of both layouts against Unit::dot.
# The layout of each row is the faster one as measured, so either path name may appear.
tcsim_check(NAME "bench dot --all-rows --unit: one line per datapath, layout, path, target, sample equal to Unit::dot"
  ARGS bench dot --all-rows --unit mi250x --elements 300 --seconds 0.01 --threads 2 --json --quiet
  STDOUT "\"benchmark\":\"dot-all-rows\"" "\"in\":\"fp16\"" "\"in\":\"bf16\"" "\"in\":\"fp64\""
         "\"path\":\"binary32-tree( \\(lanes, planar\\))?\"" "\"path\":\"fma-chain\"" "\"K\":4"
         "\"elements_per_second\":[0-9]" "\"element_major_elements_per_second\":[0-9]"
         "\"planar_elements_per_second\":[0-9]" "\"target\":100000000" "\"meets_target\":(true|false)"
         "\"checked\":300" "\"load_average_before\":\"[0-9]" "\"threads\":2" "\"mismatches\":0")

tcsim_check(NAME "bench dot --all-rows in text: h100's rows with their targets, 0 mismatches"
  ARGS bench dot --all-rows --unit h100 --elements 200 --seconds 0.01 --quiet
  STDOUT "\\| unit \\| in -> out \\| instruction \\| K \\| layout, path \\| elements/s \\| target \\| check \\|"
         "\\| h100 \\| fp16 -> fp32 \\| wmma, mma.sync \\| 16 \\| [a-z-]+, kernel[^|]*\\| [0-9.e+]+ \\| 3e\\+08( \\(met\\))? \\| 200/200 \\|"
         "\\| h100 \\| e4m3 -> fp32 \\| wgmma \\| 32 \\| "
         "\\| h100 \\| tf32 -> fp32 \\| [^|]*\\| 8 \\| element-major, kernel \\| [0-9.e+]+ \\| 1e\\+08"
         "rows below their target; check: 0 mismatches against Unit::dot")

# --specials: NaN/Inf operands in A and B (the GEMM's NaN/Inf path), half the checked sample in
# their rows and columns.
tcsim_check(NAME "bench gemm --specials: NaN/Inf operands, the sample equal to Unit::dot"
  ARGS bench gemm --unit h100 --n 64 --specials 8 --json
  STDOUT "\"specials\":8," "\"checked\":64," "\"mismatches\":0,")
