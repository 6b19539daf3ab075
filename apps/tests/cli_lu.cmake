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

# --on-breakdown continue (issue 22 part 4): IEEE arithmetic as the GPU, the first events
# reported, exit 0; stop (the default) keeps the breakdown (catalogue B36-B39, B181).
set(bad ${CMAKE_CURRENT_LIST_DIR}/bad_inputs)
tcsim_check(NAME "lu continue: fp16 growth gives -inf, the first overflow and the NaN backward error said plainly"
  ARGS lu --unit h100 --matrix ${bad}/m_growth.mtx --scale off --alg ll --on-breakdown continue
  STDOUT "--on-breakdown continue \\(IEEE arithmetic of the fp16 storage\\), first events:"
         "  subnormal pivot: none\n  zero pivot:      none\n  overflow \\(Inf\\):  step 1 \\(block 1\\): the elimination gives A\\[1\\]\\[1\\] = -inf\n  NaN:             none\n  substitutions:   none\n"
         "\\(\\|A\\| \\+ \\|L\\|\\|U\\|\\)\\|x\\|\\)_i = nan \\(the factors hold Inf from step 1 on\\)")
file(WRITE "${dir}/g3.mtx" "%%MatrixMarket matrix array real general\n3 3\n1\n300\n300\n300\n4\n4\n300\n4\n4\n")
tcsim_check(NAME "lu continue --json: Inf - Inf spreads NaN from step 2, events with inf/nan strings"
  ARGS lu --unit h100 --matrix ${dir}/g3.mtx --scale off --alg ll --on-breakdown continue --json
  STDOUT "\"on_breakdown\":\"continue\"" "\"backward_error\":\"nan\"" "\"normwise_backward_error\":\"nan\""
         "\"backward_error_note\":\"the factors hold NaN from step 2 on\""
         "\"events\":{\"nan\":{\"block\":1,\"col\":1,\"row\":2,\"step\":2,\"value\":\"nan\",\"where\":\"the elimination\"},\"overflow\":{\"block\":1,\"col\":1,\"row\":1,\"step\":1,\"value\":\"-inf\",\"where\":\"the elimination\"},\"subnormal_pivot\":null,\"zero_pivot\":null}")
tcsim_check(NAME "lu continue: a zero pivot gives NaN multipliers, named"
  ARGS lu --unit v100 --matrix ${dir}/z.mtx --scale off --alg ref-rl --storage fp16 --on-breakdown continue
  STDOUT "  zero pivot:      step 1 \\(block 1\\): the pivot U\\[0\\]\\[0\\] = 0\n  overflow \\(Inf\\):  step 1 \\(block 1\\): the elimination gives A\\[1\\]\\[0\\] = inf\n")
file(WRITE "${dir}/sub.mtx" "%%MatrixMarket matrix array real general\n2 2\n9.5367431640625e-07\n2.384185791015625e-07\n1\n1\n")
tcsim_check(NAME "lu continue: a subnormal fp16 pivot divides as IEEE does"
  ARGS lu --unit v100 --matrix ${dir}/sub.mtx --scale off --alg ll --on-breakdown continue --json
  STDOUT "\"subnormal_pivot\":{\"block\":1,\"col\":0,\"row\":0,\"step\":1,\"value\":9.5367431640625e-07,\"where\":\"the pivot\"}"
         "\"overflow\":null" "\"backward_error\":[0-9]")
tcsim_check(NAME "lu stop (default) on the same subnormal pivot"
  ARGS lu --unit v100 --matrix ${dir}/sub.mtx --scale off --alg ll --on-breakdown stop
  EXIT 1
  STDERR "tcsim lu: LU breakdown at step 1 \\(block 1\\): pivot U\\[0\\]\\[0\\] = 9.53674316e-07 is below the normal range of fp16 \\(no pivoting: try --pivot\\)")
tcsim_check(NAME "lu continue: substitutions overflowing fp16 give a NaN backward error, said so, exit 0"
  ARGS lu --unit h100 --matrix ${bad}/m_solve_overflow.mtx --scale off --storage fp16 --solve fp16 --on-breakdown continue
  STDOUT "  substitutions:   the forward substitution \\(y\\) gives y\\[0\\] = inf\n"
         "\\(inf\\)     = nan \\(the forward substitution \\(y\\) gives y\\[0\\] = inf\\)")
tcsim_check(NAME "lu stop: substitutions overflowing fp16 are a breakdown, JSON too"
  ARGS lu --unit h100 --matrix ${bad}/m_solve_overflow.mtx --scale off --storage fp16 --solve fp16 --json
  EXIT 1
  STDOUT "\"breakdown\":\"LU breakdown in the substitutions: the forward substitution \\(y\\) gives y\\[0\\] = inf, not finite in fp16\"")
tcsim_check(NAME "lu continue with refinement on NaN factors: diverged at iteration 0"
  ARGS lu --unit h100 --matrix ${dir}/g3.mtx --scale off --alg ll --on-breakdown continue --refine lu-ir
  STDOUT "diverged: x is not finite at iteration 0")
