# tcsim dot: results as bit patterns (fasi2021 vectors), --json, user-defined units, and
# clear errors for bad input (unknown unit/format, malformed literal, wrong dimensions,
# invalid JSON unit) that name the field and what is allowed.
include(${CMAKE_CURRENT_LIST_DIR}/support/cli_test.cmake)

# fasi2021 3.1.4 non-monotonicity on V100: c = 1 - 2^-24 plus four 2^-24 gives 1 + 2^-23 ...
tcsim_check(NAME "dot: v100 normalization in addition"
  ARGS dot --unit v100 --in fp16 --out fp32 --a 1,1,1,1 --b 0x1p-24,0x1p-24,0x1p-24,0x1p-24 --c 0x1.fffffep-1
  STDOUT "0x3f800001")
# ... while c = 1 gives 1 (JSON output).
tcsim_check(NAME "dot: v100 --json"
  ARGS dot --unit volta --in FP16 --out fp32 --a 1,1,1,1 --b 0x1p-24,0x1p-24,0x1p-24,0x1p-24 --c 1 --json
  STDOUT "\"bits\":\"0x3f800000\"" "\"value\":1")
# T4's extra bit keeps 1 + 2^-24 + 2^-24 exactly; binary16 output rounds to nearest even.
tcsim_check(NAME "dot: t4 keeps one more bit"
  ARGS dot --unit t4 --in fp16 --out fp32 --a 1,1 --b 0x1p-24,0x1p-24 --c 1 --json
  STDOUT "\"bits\":\"0x3f800001\"")
tcsim_check(NAME "dot: fp16 output rounds to nearest"
  ARGS dot --unit v100 --in fp16 --out fp16 --a 0x1p-24,0x1p-24 --b 0.5,0.25 --json
  STDOUT "\"bits\":\"0x0001\"")
# Hopper fp8 mma.sync -> fp16: the products with k mod 4 in {0,1} form the first block.
tcsim_check(NAME "dot: h100 fp8 mma.sync emulation"
  ARGS dot --unit h100 --in e4m3 --out fp16 --instruction mma.sync --a 1,0x1p-6,0,0,0x1p-6 --b 1,0x1p-5,0,0,0x1p-5 --c 0x1p-11 --json
  STDOUT "\"bits\":\"0x3c02\"")

# A user-defined unit from JSON (the issue's schema).
tcsim_scratch_dir(dir)
file(WRITE "${dir}/unit.json" [=[
{"name": "toy", "input_formats": ["fp16"], "output_formats": ["fp32"], "fma_size": 2,
 "fraction_bits": 3, "carry_bits": 2, "alignment_rounding": "rz", "sticky_bit": false,
 "normalization": "deferred", "order": "largest-first", "c_placement": "aligned",
 "final_rounding": {"fp32": "rz"}, "min_exponent": null,
 "subnormal_inputs": true, "subnormal_outputs": true}
]=])
# F = 3: 1 + 0.0625 loses the 2^-4 term.
tcsim_check(NAME "dot: --unit-config"
  ARGS dot --unit-config ${dir}/unit.json --in fp16 --out fp32 --a 1,1 --b 1,0.0625 --json
  STDOUT "\"bits\":\"0x3f800000\"")
file(WRITE "${dir}/bad.json" [=[
{"name": "toy", "input_formats": ["fp16"], "output_formats": ["fp32"], "fma_size": 2,
 "fraction_bits": 3, "carry_bits": 2, "alignment_rounding": "sideways", "sticky_bit": false,
 "normalization": "deferred", "order": "largest-first", "c_placement": "aligned",
 "final_rounding": {"fp32": "rz"}, "subnormal_inputs": true, "subnormal_outputs": true}
]=])
tcsim_check(NAME "dot: invalid JSON unit names the key and the allowed values"
  ARGS dot --unit-config ${dir}/bad.json --in fp16 --out fp32 --a 1 --b 1
  EXIT 2 STDERR "alignment_rounding" "rz, rd, ru, rne")
file(WRITE "${dir}/broken.json" "{\"name\": \"toy\",\n  \"fma_size\": }\n")
tcsim_check(NAME "dot: malformed JSON file is an error, not a crash"
  ARGS dot --unit-config ${dir}/broken.json --in fp16 --out fp32 --a 1 --b 1
  EXIT 2 STDERR "broken.json")

# Bad input: every error names the field and what is allowed; nothing crashes.
tcsim_check(NAME "dot: unknown unit"
  ARGS dot --unit v99 --in fp16 --out fp32 --a 1 --b 1
  EXIT 2 STDERR "unknown unit 'v99'" "v100" "h100")
tcsim_check(NAME "dot: unknown format"
  ARGS dot --unit v100 --in fp17 --out fp32 --a 1 --b 1
  EXIT 2 STDERR "fp17" "allowed" "e4m3")
tcsim_check(NAME "dot: unsupported format for the unit"
  ARGS dot --unit v100 --in e4m3 --out fp32 --a 1 --b 1
  EXIT 2 STDERR "does not support e4m3 -> fp32" "fp16->fp32")
tcsim_check(NAME "dot: malformed literal"
  ARGS dot --unit v100 --in fp16 --out fp32 --a 1.2.3 --b 1
  EXIT 2 STDERR "1\\.2\\.3" "not a number")
tcsim_check(NAME "dot: wrong dimensions"
  ARGS dot --unit v100 --in fp16 --out fp32 --a 1,2 --b 1
  EXIT 2 STDERR "--a has 2 values but --b has 1")
tcsim_check(NAME "dot: unknown option"
  ARGS dot --unit v100 --in fp16 --out fp32 --a 1 --b 1 --colour red
  EXIT 2 STDERR "--colour" "allowed")
tcsim_check(NAME "dot: unknown instruction"
  ARGS dot --unit h100 --in e4m3 --out fp16 --instruction tcgen05 --a 1 --b 1
  EXIT 2 STDERR "tcgen05" "mma.sync")

# Defects found by an independent audit (issue 6): each stays an error (exit 2) that names
# the option, or the file and key, and what is allowed.
set(literal_hint "allowed: one literal without blanks (1.5, -0x1p-24, inf, nan, bits:0x3c00)")
tcsim_check(NAME "dot: blanks inside a value are an error, not deleted"
  ARGS dot --unit v100 --in fp16 --out fp32 --a "1 2" --b 1
  EXIT 2
  STDERR_IS "tcsim dot: error: --a[0]: '1 2' has blanks inside a value; ${literal_hint}, values separated by commas\n")
tcsim_check(NAME "dot: blanks inside an exponent"
  ARGS dot --unit v100 --in fp16 --out fp32 --a "-1 e3" --b 1
  EXIT 2
  STDERR_IS "tcsim dot: error: --a[0]: '-1 e3' has blanks inside a value; ${literal_hint}, values separated by commas\n")
tcsim_check(NAME "dot: a tab inside the second value of b"
  ARGS dot --unit v100 --in fp16 --out fp32 --a 1,1 --b "1,2\t3"
  EXIT 2
  STDERR_IS "tcsim dot: error: --b[1]: '2\\t3' has blanks inside a value; ${literal_hint}, values separated by commas\n")
tcsim_check(NAME "dot: blanks inside c"
  ARGS dot --unit v100 --in fp16 --out fp32 --a 1 --b 1 --c "1 5"
  EXIT 2
  STDERR_IS "tcsim dot: error: --c: '1 5' has blanks inside a value; ${literal_hint}\n")
tcsim_check(NAME "dot: blanks around values are trimmed"
  ARGS dot --unit v100 --in fp16 --out fp32 --a " 1 , 2 " --b "1,\t1" --c " 0.5 " --json
  STDOUT "\"bits\":\"0x40600000\"" STDERR "^$")
tcsim_check(NAME "dot: c takes exactly one value"
  ARGS dot --unit v100 --in fp16 --out fp32 --a 1 --b 1 --c 1,2
  EXIT 2
  STDERR_IS "tcsim dot: error: --c takes exactly one value (the accumulator input in fp32), got '1,2'\n")
tcsim_check(NAME "dot: c with a bad second value is still one value too many"
  ARGS dot --unit v100 --in fp16 --out fp32 --a 1 --b 1 --c 1,x
  EXIT 2
  STDERR_IS "tcsim dot: error: --c takes exactly one value (the accumulator input in fp32), got '1,x'\n")
# (--c= is the shell's --c "": tcsim_check cannot pass an empty argument.)
tcsim_check(NAME "dot: an empty c"
  ARGS dot --unit v100 --in fp16 --out fp32 --a 1 --b 1 --c=
  EXIT 2
  STDERR_IS "tcsim dot: error: --c takes exactly one value (the accumulator input in fp32), got ''\n")
tcsim_check(NAME "dot: a blank c"
  ARGS dot --unit v100 --in fp16 --out fp32 --a 1 --b 1 --c " "
  EXIT 2
  STDERR_IS "tcsim dot: error: --c takes exactly one value (the accumulator input in fp32), got ' '\n")
set(scaled dot --unit b200 --in e2m1 --out fp32 --instruction tcgen05.mxf8f6f4 --a 1 --b 1
    --scale-format ue8m0 --scale-a 1 --scale-b 1)
tcsim_check(NAME "dot: integer options do not wrap"
  ARGS ${scaled} --block-size 4294967328
  EXIT 2
  STDERR_IS "tcsim dot: error: option '--block-size' for 'tcsim dot' expects an integer in 0..65536, got '4294967328'\n")
tcsim_check(NAME "dot: an integer option beyond 32 bits quotes the text"
  ARGS ${scaled} --block-size 99999999999
  EXIT 2
  STDERR_IS "tcsim dot: error: option '--block-size' for 'tcsim dot' expects an integer in 0..65536, got '99999999999'\n")
tcsim_check(NAME "dot: an integer option beyond 64 bits quotes the text"
  ARGS ${scaled} --block-size 99999999999999999999
  EXIT 2
  STDERR_IS "tcsim dot: error: option '--block-size' for 'tcsim dot' expects an integer in 0..65536, got '99999999999999999999'\n")
tcsim_check(NAME "dot: a block size in range"
  ARGS ${scaled} --block-size 32 --json
  STDOUT "\"bits\":\"0x3f800000\"")
tcsim_check(NAME "dot: a directory as --unit-config"
  ARGS dot --unit-config ${dir} --in fp16 --out fp32 --a 1 --b 1
  EXIT 2
  STDERR_IS "tcsim dot: error: unit file '${dir}' is a directory; give a JSON file\n")
if(EXISTS /proc/self/mem)  # reading it from offset 0 fails with EIO: a read error, not EOF
  tcsim_check(NAME "dot: an unreadable --unit-config names the file"
    ARGS dot --unit-config /proc/self/mem --in fp16 --out fp32 --a 1 --b 1
    EXIT 2
    STDERR_IS "tcsim dot: error: unit file '/proc/self/mem': cannot be read (Input/output error)\n")
endif()
file(WRITE "${dir}/huge.json" [=[
{"name": "toy", "input_formats": ["fp16"], "output_formats": ["fp32"],
 "fma_size": 1e400,
 "fraction_bits": 23, "carry_bits": 3, "alignment_rounding": "rz", "sticky_bit": false,
 "normalization": "deferred", "order": "largest-first", "c_placement": "aligned",
 "final_rounding": "rz", "subnormal_inputs": true, "subnormal_outputs": true}
]=])
tcsim_check(NAME "dot: a JSON number beyond binary64 names the file, line and key"
  ARGS dot --unit-config ${dir}/huge.json --in fp16 --out fp32 --a 1 --b 1
  EXIT 2
  STDERR_IS "tcsim dot: error: unit file '${dir}/huge.json': line 2: key 'fma_size': the number 1e400 is beyond binary64; allowed: the schema's numbers are small integers, e.g. \"fma_size\": 16\n")
file(WRITE "${dir}/nonan.json" [=[
{"name": "toy", "input_formats": ["e2m1"], "output_formats": ["e2m1"], "fma_size": 4,
 "fraction_bits": 10, "carry_bits": 3, "alignment_rounding": "rz", "sticky_bit": false,
 "normalization": "deferred", "order": "largest-first", "c_placement": "aligned",
 "final_rounding": "rne", "subnormal_inputs": true, "subnormal_outputs": true}
]=])
tcsim_check(NAME "dot: an output format without NaN names the file and the key"
  ARGS dot --unit-config ${dir}/nonan.json --in e2m1 --out e2m1 --a 1 --b 1
  EXIT 2
  STDERR_IS "tcsim dot: error: unit file '${dir}/nonan.json': unit 'toy' datapath 0: output_formats: 'e2m1' has no NaN, which the unit's results need (NaN operands, Inf - Inf, Inf * 0); allowed: output formats with a NaN (fp64, fp32, fp16, bf16, e4m3, e5m2, ...)\n")
