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

# Issue 6 audit: a JSON unit with fma_size 1 read "F 28" and "k >= 128"; k and F are found
# (F with c carrying the bits, as c and two products never share a block).
tcsim_scratch_dir(kdir)
file(WRITE "${kdir}/k1.json" [=[
{"name": "k1", "input_formats": ["fp16"], "output_formats": ["fp32"], "fma_size": 1,
 "fraction_bits": 3, "carry_bits": 3, "alignment_rounding": "rz", "sticky_bit": false,
 "normalization": "deferred", "order": "largest-first", "c_placement": "aligned",
 "final_rounding": "rz", "subnormal_inputs": true, "subnormal_outputs": true}
]=])
tcsim_check(NAME "probe: fma_size 1 is found, and F with it"
  ARGS probe --unit-config ${kdir}/k1.json --in fp16 --out fp32 --no-fasi2021
  EXIT 0
  STDOUT "fma size k +1\n" "fraction bits F +3\n +c=-\\(2\\^e-2\\^\\(e-j\\)\\), a1b1=2\\^e"
  NOT_OUTPUT "k ?>=")
# Issue 6 audit: fraction_bits 0 failed naming an internal format (fp32-0); F = 0 is reported.
foreach(out fp32 fp16)
  file(WRITE "${kdir}/f0.json" "{\"name\": \"f0\", \"input_formats\": [\"fp16\"], \"output_formats\": [\"${out}\"],
 \"fma_size\": 4, \"fraction_bits\": 0, \"carry_bits\": 3, \"alignment_rounding\": \"rz\", \"sticky_bit\": false,
 \"normalization\": \"deferred\", \"order\": \"largest-first\", \"c_placement\": \"aligned\",
 \"final_rounding\": \"rz\", \"subnormal_inputs\": true, \"subnormal_outputs\": true}")
  tcsim_check(NAME "probe: fraction_bits 0 -> ${out} is measured"
    ARGS probe --unit-config ${kdir}/f0.json --in fp16 --out ${out} --no-fasi2021
    EXIT 0
    STDOUT "fraction bits F +0\n" "fma size k +4\n"
    STDERR "^$"
    NOT_OUTPUT "fp(16|32)-0" "subnormal inputs +no")
endforeach()

# The fp8 mma.sync emulation of Hopper/Blackwell read back: two blocks of 16 (k mod 4), F,
# each block's rounding, and c added last with its own rounding.
tcsim_check(NAME "probe: b200 e5m2 -> fp32 mma.sync reads back the emulation"
  ARGS probe --unit b200 --in e5m2 --out fp32 --instruction mma.sync --no-fasi2021 --json
  EXIT 0
  OUTPUT_VARIABLE out)
foreach(kv "c_entry=final-add" "final_add_rounding=rne" "k_split=pairs-mod4" "block_chain=rounded"
           "fma_size=16" "fraction_bits=25" "final_rounding=rz" "alignment_rounding=rz" "c_placement=late")
  string(REPLACE "=" ";" kv "${kv}")
  list(GET kv 0 key)
  list(GET kv 1 want)
  string(JSON got GET "${out}" ${key})
  if(NOT got STREQUAL want)
    tcsim_fail("${key} is '${got}', expected '${want}'")
  endif()
endforeach()
string(JSON nblocks LENGTH "${out}" blocks)
if(NOT nblocks EQUAL 2)
  tcsim_fail("blocks has ${nblocks} entries, expected 2")
endif()
foreach(b 0 1)
  string(JSON n LENGTH "${out}" blocks ${b})
  if(NOT n EQUAL 16)
    tcsim_fail("block ${b} has ${n} positions, expected 16")
  endif()
  foreach(i RANGE 15)
    string(JSON pos GET "${out}" blocks ${b} ${i})
    math(EXPR want "(${i} / 2) * 4 + 2 * ${b} + ${i} % 2")  # i mod 4 in {0,1}, then {2,3}
    if(NOT pos EQUAL want)
      tcsim_fail("blocks[${b}][${i}] is ${pos}, expected ${want}")
    endif()
  endforeach()
endforeach()
tcsim_check(NAME "probe: h100 e4m3 -> fp16 (mma.sync, the only row) in text"
  ARGS probe --unit h100 --in e4m3 --out fp16 --no-fasi2021
  EXIT 0
  STDOUT "c is added last \\(c entry final-add\\)" "fraction bits F +25\n +\\[blocks, c = \\+0\\]"
         "fma size k +16\n" "final rounding +rne\n" "c entry +final-add\n" "c added with +rne\n"
         "instruction blocks +2 blocks of 16 \\(pairs-mod4\\)\n" "block chain +rounded\n" "not observed\n +zero signs")

# --corners: the NVIDIA corner rules of issue 22 (docs/units/README.md "Corner cases").
tcsim_check(NAME "probe --corners: h100 bf16 -> fp32 overflows to Inf under RZ, all -0 gives +0"
  ARGS probe --corners --unit h100 --in bf16 --out fp32
  EXIT 0
  STDOUT "overflow: inf\n +2\\^127 \\+ 2\\^127 -> 0x7f800000; largest finite \\+ half its ulp -> 0x7f7fffff"
         "zero_sign: positive\n +128 products -0 \\* 1 and c = -0 -> 0x00000000"
         "binary16_floor: unknown"
  STDERR "^$")
tcsim_check(NAME "probe --corners --json: the wgmma binary16 floor and its decider"
  ARGS probe --corners --unit h100 --in fp16 --out fp16 --instruction wgmma --json
  EXIT 0
  STDOUT "\"value\": \"lsb 2\\^-46\"" "\"d\": \"0x0002\""
  STDERR "^$")
