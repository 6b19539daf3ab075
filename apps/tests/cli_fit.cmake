# tcsim fit on the real A100 fp16 -> fp32 dump: a row that reproduces every case, written with
# --write-unit and read back by validate-dump --unit-config (0 mismatches); --json holds the row.
include(${CMAKE_CURRENT_LIST_DIR}/support/cli_test.cmake)

tcsim_scratch_dir(dir)
set(data "${SOURCE_DIR}/../shared/data/gpu")
if(DEFINED ENV{TCSIM_GPU_DATA})
  set(data "$ENV{TCSIM_GPU_DATA}")
endif()
set(g "${data}/A100/fp16")
if(EXISTS "${g}/d_A100_fp32.txt")
  set(files --a ${g}/a_A100_fp16.txt --b ${g}/b_A100_fp16.txt --c ${g}/c_A100_fp32.txt --d ${g}/d_A100_fp32.txt)
  tcsim_check(NAME "fit: real A100 fp16 -> fp32 reproduced, row written"
    ARGS fit --in fp16 --out fp32 ${files} --write-unit ${dir}/fitted.json
    EXIT 0
    STDOUT "a row reproduces every case" "fraction_bits = 24: decided"
           "\ncheck through validate-dump's path: 5000 cases, 0 mismatches\n$")
  tcsim_check(NAME "fit: the written row passes validate-dump"
    ARGS validate-dump --unit-config ${dir}/fitted.json --in fp16 --out fp32 ${files}
    EXIT 0
    STDOUT "\n5000 cases, 0 mismatches\n$")
  tcsim_check(NAME "fit: --json"
    ARGS fit --in fp16 --out fp32 ${files} --json --base v100
    EXIT 0
    STDOUT "\"exact\": true" "\"mismatches\": 0" "\"fraction_bits\": 24")
else()
  message(STATUS "real-GPU data not found in ${data}: skipping the fit of a real dump")
endif()
