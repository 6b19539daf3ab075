# tcsim probe: the black-box probe of a built-in or JSON unit, text and JSON.
include(${CMAKE_CURRENT_LIST_DIR}/support/cli_test.cmake)

tcsim_check(NAME "probe v100 fp16->fp32: fasi2021 parameters and vectors"
  ARGS probe --unit v100 --in fp16 --out fp32
  EXIT 0
  STDOUT "fraction bits F +23" "fma size k +4" "alignment rounding +rz" "final rounding +rz"
         "normalization +deferred" "monotonic +no" "3.1.4/no-guard-digit +d = 0x1p-23 +V100 PASS +T4/A100 FAIL"
  STDERR "^$")

tcsim_check(NAME "probe --json: keys and values"
  ARGS probe --unit a100 --in fp16 --out fp32 --json
  EXIT 0
  STDOUT "\"fma_size\": 8" "\"fraction_bits\": 24" "\"final_rounding\": \"rz\"" "\"alignment_rounding\": \"rz\""
         "\"monotonic\": false" "\"monotonic_counterexample\": {" "\"fasi2021\": "
  OUTPUT_VARIABLE out)
string(JSON k GET "${out}" fma_size)
if(NOT k EQUAL 8)
  tcsim_fail("fma_size is '${k}', expected 8")
endif()

tcsim_scratch_dir(dir)
file(WRITE "${dir}/unit.json" [=[
{"name": "probe-test", "input_formats": ["bf16"], "output_formats": ["fp32"],
 "fma_size": 6, "fraction_bits": 27, "carry_bits": 4,
 "alignment_rounding": "rd", "sticky_bit": false,
 "normalization": "deferred", "order": "largest-first", "c_placement": "aligned",
 "final_rounding": {"fp32": "rne"}, "subnormal_inputs": true, "subnormal_outputs": true}
]=])
tcsim_check(NAME "probe a unit from JSON (user-defined: k=6, F=27, rd alignment, rne)"
  ARGS probe --unit-config ${dir}/unit.json --in bf16 --out fp32 --json --no-fasi2021
  EXIT 0
  STDOUT "\"fma_size\": 6" "\"fraction_bits\": 27" "\"alignment_rounding\": \"rd\"" "\"final_rounding\": \"rne\"")

tcsim_check(NAME "probe every pair of a unit"
  ARGS probe --unit v100 --no-fasi2021
  EXIT 0
  STDOUT "fp16 -> fp32" "fp16 -> fp16" "final rounding +rne")

tcsim_check(NAME "probe: a pair the unit does not serve"
  ARGS probe --unit v100 --in bf16 --out fp32
  EXIT 2
  STDERR "v100" "bf16")

tcsim_check(NAME "probe: needs a unit"
  ARGS probe --in fp16 --out fp32
  EXIT 2
  STDERR "unit")

# Issue 6 audit: a JSON unit with fma_size 1 (k found, F unknown with the reason, no "k >= 128").
tcsim_scratch_dir(kdir)
file(WRITE "${kdir}/k1.json" [=[
{"name": "k1", "input_formats": ["fp16"], "output_formats": ["fp32"], "fma_size": 1,
 "fraction_bits": 3, "carry_bits": 3, "alignment_rounding": "rz", "sticky_bit": false,
 "normalization": "deferred", "order": "largest-first", "c_placement": "aligned",
 "final_rounding": "rz", "subnormal_inputs": true, "subnormal_outputs": true}
]=])
tcsim_check(NAME "probe: fma_size 1 is found; F is unknown and says why"
  ARGS probe --unit-config ${kdir}/k1.json --in fp16 --out fp32 --no-fasi2021
  STDOUT "fma size k +1\n" "fraction bits F +unknown\n +unknown: with one product per block"
  NOT_OUTPUT "k >= 128")
# The fp8 mma.sync emulation: two blocks of 16 (k mod 4), F, the blocks' and c's roundings.
tcsim_check(NAME "probe: b200 e5m2 -> fp32 mma.sync reads back the emulation"
  ARGS probe --unit b200 --in e5m2 --out fp32 --instruction mma.sync --no-fasi2021 --json
  STDOUT "\"block_fraction_bits\": *25" "\"block_rounding\": *\"rz\"" "\"final_add_rounding\": *\"rne\""
         "k mod 4 in \\{0,1\\} / \\{2,3\\}")
