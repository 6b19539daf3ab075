# tcsim units: the built-in rows as text (every parameter of a row on its line) and as JSON
# in the user-unit schema (loadable again with --unit-config).
include(${CMAKE_CURRENT_LIST_DIR}/support/cli_test.cmake)

tcsim_check(NAME "units lists every built-in unit"
  ARGS units
  STDOUT "^v100 \\(architecture volta" "\nt4 " "\na100 " "\nl40s " "\nh100 " "\nb200 " "\nrtx5090 " "\nmi100 "
         "\nmi250x " "\nmi300x ")

# The AMD rows (issue 24): their row parameters and their paths (issue 25: after-add,
# binary32-tree, exact-block, fma-chain for binary32 FMA chains).
tcsim_check(NAME "units mi300x: c after, v1 row, xf32 row, after-add path"
  ARGS units --unit mi300a
  STDOUT "fp16,bf16 -> fp32: k=8 F=24 [^\n]*c after \\(sum 32 bits, c 24 bits, rd, renormalized 31\\), product_overflow inf"
         "\n      batch path: after-add"
         "\n  v1 +fp16,bf16 -> fp32: k=8 F=24 [^\n]*c after \\(sum 31 bits, c 24 bits, rd\\)"
         "xf32 +fp32 -> fp32: [^\n]*inputs truncated to 10 fraction bits")
tcsim_check(NAME "units mi100: exact blocks"
  ARGS units --unit mi100
  STDOUT "fp16 -> fp32: k=4 F=exact [^\n]*\n[^\n]*\n      batch path: exact-block" "\n      batch path: fma-chain")
tcsim_check(NAME "units mi250x: binary32 trees"
  ARGS units --unit mi250x
  STDOUT "fp16 -> fp32: k=4 [^\n]*\n[^\n]*\n      batch path: binary32-tree")

# units.md 3b: the CDNA3 v1/v2 vector through the CLI, and the same through the unit's JSON.
set(v1v2_a "bits:0x2f67,bits:0x14fd,bits:0xacef,bits:0xa96a,bits:0x944c,bits:0x97f3,bits:0x1805,bits:0xaacb")
set(v1v2_b "bits:0x21d5,bits:0x2530,bits:0x1b5d,bits:0x1c83,bits:0x1955,bits:0x23aa,bits:0x17b0,bits:0x16c2")
tcsim_scratch_dir(amd_dir)
tcsim_check(NAME "units --json of mi300x" ARGS units --unit mi300x --json OUTPUT_VARIABLE mi300x_json)
file(WRITE "${amd_dir}/mi300x.json" "${mi300x_json}")
foreach(source "--unit;mi300x" "--unit-config;${amd_dir}/mi300x.json")
  tcsim_check(NAME "dot ${source} CDNA3 v2 vector"
    ARGS dot ${source} --in fp16 --out fp32 --a ${v1v2_a} --b ${v1v2_b} --c -1
    STDOUT "\nd += 0xbf7fcdff ")
  tcsim_check(NAME "dot ${source} CDNA3 v1 vector"
    ARGS dot ${source} --in fp16 --out fp32 --instruction v1 --a ${v1v2_a} --b ${v1v2_b} --c -1
    STDOUT "\nd += 0xbf7fce00 ")
endforeach()

# The fp8 mma.sync emulation rows show their structure and both roundings.
foreach(unit h100 b200)
  tcsim_check(NAME "units ${unit}: fp8 mma.sync emulation row"
    ARGS units --unit ${unit}
    STDOUT "mma.sync +e4m3,e5m2 -> fp32,fp16: k=16 F=25 [^\n]*rounding fp16:rne fp32:rz[^\n]*, k_split pairs-mod4, c_entry final-add \\(c added last, final_add_rounding fp16:rne fp32:rne\\)")
endforeach()

tcsim_check(NAME "units --json writes final_add_rounding"
  ARGS units --unit b200 --json
  STDOUT "\"final_add_rounding\": {\n *\"fp16\": \"rne\",\n *\"fp32\": \"rne\"" "\"c_entry\": \"final-add\"")

# The JSON of one unit loads back as a user unit and computes the same bits (fp8 -> fp32
# emulation: blocks RZ, c by an RNE addition; tests/test_units.cpp has the derivation).
tcsim_scratch_dir(dir)
tcsim_check(NAME "units --json of b200" ARGS units --unit b200 --json OUTPUT_VARIABLE json)
file(WRITE "${dir}/b200.json" "${json}")
foreach(source "--unit;b200" "--unit-config;${dir}/b200.json")
  tcsim_check(NAME "dot ${source} e4m3 -> fp32 mma.sync"
    ARGS dot ${source} --in e4m3 --out fp32 --instruction mma.sync --a 8,0x3p-9 --b 8,0x1p-9 --c -0x1p-40
    STDOUT "\nd += 0x42800001 ")
endforeach()

tcsim_check(NAME "units --unit of an unknown name lists the names"
  ARGS units --unit p100
  EXIT 2
  STDERR "unknown unit 'p100'; built-in units: v100 \\(volta\\)")

# Which path dot_batch and gemm take: the block kernel or the reference adder, with the reason.
tcsim_check(NAME "units shows each row's batch path"
  ARGS units --unit a100
  STDOUT "fp16 -> fp32,fp16: [^\n]*\n      shapes: [^\n]*\n      batch path: kernel\n"
         "fp64 -> fp64: [^\n]*\n      shapes: [^\n]*\n      batch path: fma-chain")
tcsim_check(NAME "units --json writes batch_paths per format pair"
  ARGS units --unit h100 --json
  STDOUT "\"batch_paths\": {\n *\"fp16->fp16\": \"kernel\",\n *\"fp16->fp32\": \"kernel\"\n *}"
         "\"fp64->fp64\": \"fma-chain\""
         "\"planar_paths\": {\n *\"fp16->fp16\": \"kernel \\(planar\\)\",\n *\"fp16->fp32\": \"kernel \\(planar\\)\"\n *}"
         "\"bf16->fp32\": \"kernel \\(planar\\)\"" "\"e4m3->fp32\": \"kernel \\(planar, pairs-mod4 rows permuted per instruction\\)\"")
