# tcsim lu: every algorithm from the command line with its JSON keys, refinement, a Matrix
# Market file with scaling, a breakdown, and clear errors for bad options (tiny sizes: the
# findings are tested in models/tests/test_lu_algorithms.cpp and test_lu_refine.cpp).
include(${CMAKE_CURRENT_LIST_DIR}/support/cli_test.cmake)
tcsim_scratch_dir(dir)

tcsim_check(NAME "lu rl tc32 on q1dq2: errors beside blanchard2020's bound, buffer and bytes"
  ARGS lu --unit v100 --n 64 --r 16 --json
  STDOUT "\"algorithm\":\"rl\"" "\"variant\":\"tc32\"" "\"storage\":\"fp32\"" "\"backward_error\":[0-9]"
         "\"normwise_backward_error\":[0-9]" "\"bound\":[0-9]" "\"bound_source\":\"blanchard2020 Theorem 4.3"
         "\"fp32_buffer_entries\":4096" "\"bytes_moved\":[0-9]" "\"bytes_model\":\"lopez2022 \\(4.4\\)\""
         "\"seconds\":[0-9]" "\"path\":\"kernel\"")
tcsim_check(NAME "lu rl with --storage fp16 alone runs TC16 (lopez2022 Algorithm 3.1 with u = u16)"
  ARGS lu --unit v100 --n 32 --r 8 --storage fp16 --matrix hpl-ai --json
  STDOUT "\"variant\":\"tc16\"" "\"storage\":\"fp16\"" "\"fp32_buffer_entries\":0" "\"solve_precision\":\"fp32\"")
foreach(alg ll ll-fp32-panel)
  tcsim_check(NAME "lu ${alg} on hpl-ai: fp16 storage, n r fp32 entries, (4.5)"
    ARGS lu --unit a100 --alg ${alg} --n 64 --r 16 --matrix hpl-ai --json
    STDOUT "\"algorithm\":\"${alg}\"" "\"storage\":\"fp16\"" "\"fp32_buffer_entries\":1024"
           "\"bytes_model\":\"lopez2022 \\(4.5\\)\"" "\"bound_source\":\"lopez2022 Theorem")
endforeach()
foreach(panel rl-fp16 rl-fp32 ll ll-fp32-panel)
  tcsim_check(NAME "lu dp with PanelFactor ${panel}"
    ARGS lu --unit h100 --alg dp --panel ${panel} --n 48 --r 16 --s 4 --matrix hpl-ai --json
    STDOUT "\"algorithm\":\"dp\"" "\"panel\":\"${panel}\"" "\"s\":4" "\"bound_source\":\"lopez2022 Theorem 4")
endforeach()
tcsim_check(NAME "lu ref-ll in fp64 with pivoting on a normal matrix"
  ARGS lu --unit v100 --alg ref-ll --n 40 --matrix normal --pivot --json
  STDOUT "\"storage\":\"fp64\"" "\"variant\":\"uniform\"" "\"pivot\":true" "\"path\":\"uniform fp64\"")
tcsim_check(NAME "lu text output names the algorithm, the errors and the bound"
  ARGS lu --unit v100 --alg dp --n 32 --r 16 --matrix hpl-ai
  STDOUT "--alg dp, PanelFactor ll-fp32-panel, s = 8, r = 16, fp16 storage" "componentwise max_i" "bound [0-9]"
         "bytes moved")

# Refinement: LU-IR converges in fp64 on a well-conditioned matrix; the history is reported.
tcsim_check(NAME "lu with LU-IR converges to fp64 backward error"
  ARGS lu --unit v100 --n 64 --r 16 --cond 100 --pivot --refine lu-ir --json
  STDOUT "\"converged\":true" "\"iterations\":[1-9]" "\"forward_error\":[0-9]" "\"history\":" "\"refine\":\"lu-ir\"")
tcsim_check(NAME "lu with GMRES-IR in fp32"
  ARGS lu --unit v100 --n 64 --alg ll --matrix tunable --cond 100 --refine gmres-ir --working fp32 --json
  STDOUT "\"converged\":true" "\"working\":\"fp32\"" "\"gmres_iterations\":[1-9]")
tcsim_check(NAME "lu refinement that cannot converge says so"
  ARGS lu --unit v100 --n 64 --matrix tunable --cond 1e9 --storage fp16 --refine lu-ir --max-iterations 3
  STDOUT "did not converge|stagnated|diverged")

# A Matrix Market file, badly scaled: scaled into fp16's range by default.
file(WRITE "${dir}/a.mtx" "%%MatrixMarket matrix array real general\n3 3\n1e6\n2e6\n-1e6\n3e-6\n1e-5\n2e-6\n1\n2\n5\n")
tcsim_check(NAME "lu of a Matrix Market file with lopez2022's scaling"
  ARGS lu --unit v100 --alg ll --r 2 --matrix ${dir}/a.mtx --json
  STDOUT "\"n\":3" "\"scaling_mu\":[0-9]" "scaled \\(lopez2022 section 6.2\\)")
tcsim_check(NAME "lu of the unscaled file overflows fp16: a breakdown, exit 1"
  ARGS lu --unit v100 --alg ll --r 2 --matrix ${dir}/a.mtx --scale off
  EXIT 1
  STDERR "tcsim lu: A\\[0\\]\\[0\\] = 1000000 overflows the fp16 storage")
file(WRITE "${dir}/z.mtx" "%%MatrixMarket matrix array real general\n2 2\n0\n1\n1\n0\n")
tcsim_check(NAME "lu zero pivot: breakdown message with step and block, JSON too"
  ARGS lu --unit v100 --matrix ${dir}/z.mtx --scale off --json
  EXIT 1
  STDOUT "\"breakdown\":\"LU breakdown at step 1 \\(block 1\\): pivot U\\[0\\]\\[0\\] = 0 is zero \\(no pivoting: try --pivot\\)\"")
tcsim_check(NAME "lu zero pivot with --pivot succeeds"
  ARGS lu --unit v100 --matrix ${dir}/z.mtx --scale off --pivot --json
  STDOUT "\"backward_error\":0")

# Bad options.
tcsim_check(NAME "lu unknown algorithm" ARGS lu --unit v100 --n 4 --alg crout EXIT 2
  STDERR "--alg: 'crout' is not allowed; allowed: rl, ll, ll-fp32-panel, dp, ref-rl, ref-ll")
tcsim_check(NAME "lu variant with ll" ARGS lu --unit v100 --n 4 --alg ll --variant tc16 EXIT 2
  STDERR "--variant applies to --alg rl only")
tcsim_check(NAME "lu panel without dp" ARGS lu --unit v100 --n 4 --panel ll EXIT 2 STDERR "--panel applies to --alg dp only")
tcsim_check(NAME "lu s larger than r" ARGS lu --unit v100 --n 8 --alg dp --r 4 --s 8 EXIT 2
  STDERR "--s must be between 1 and --r = 4, got 8")
tcsim_check(NAME "lu generated matrix without n" ARGS lu --unit v100 --matrix hpl-ai EXIT 2
  STDERR "--n: give the order of the generated hpl-ai matrix")
tcsim_check(NAME "lu cond with hpl-ai" ARGS lu --unit v100 --n 4 --matrix hpl-ai --cond 10 EXIT 2
  STDERR "--cond applies to --matrix q1dq2 or tunable")
tcsim_check(NAME "lu bad cond" ARGS lu --unit v100 --n 4 --cond 0.5 EXIT 2 STDERR "--cond: expected a finite number >= 1, got '0.5'")
tcsim_check(NAME "lu missing file" ARGS lu --unit v100 --matrix ${dir}/missing.mtx EXIT 2 STDERR "--matrix")
tcsim_check(NAME "lu working without refine" ARGS lu --unit v100 --n 4 --working fp32 EXIT 2
  STDERR "--working needs --refine")
tcsim_check(NAME "lu bad refine method" ARGS lu --unit v100 --n 4 --refine newton EXIT 2
  STDERR "refine: 'newton' is not allowed; allowed: lu-ir, gmres-ir")
tcsim_check(NAME "lu dp with pivoting" ARGS lu --unit v100 --n 32 --r 8 --s 4 --alg dp --matrix uniform --pivot --json
  STDOUT "\"pivot\":true" "\"backward_error\":[0-9]")
file(WRITE "${dir}/r.mtx" "%%MatrixMarket matrix array real general\n2 3\n1\n2\n3\n4\n5\n6\n")
tcsim_check(NAME "lu non-square file" ARGS lu --unit v100 --matrix ${dir}/r.mtx EXIT 2
  STDERR "--matrix: '.*r.mtx' is 2 x 3; LU needs a square matrix")
