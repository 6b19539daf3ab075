# tcsim experiment km25-cdna-multiword --quick beside KM25's data files: every point agrees with
# them to all 7 printed digits (support/km25.cmake; prints SKIPPED without their data).
include(${CMAKE_CURRENT_LIST_DIR}/support/km25.cmake)
km25_data_check(km25-cdna-multiword 147 21)
