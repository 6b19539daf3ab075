# tcsim experiment km25-cdna-multiword --quick without KM25's data files: the experiment runs,
# its checks hold, the report says why there is no comparison, and its first mi100 points are
# KM25's, from MATLAB's rng(1) stream: 2.533387e-05 (support/km25.cmake;
# cli_experiment_km25_data.cmake compares with the files when a copy is found).
include(${CMAKE_CURRENT_LIST_DIR}/support/km25.cmake)
km25_without_data_check(km25-cdna-multiword "\\| mi100 binary16 p = 1 \\| 0 \\| 2[.]533387e-05 \\| 1[.]508457e-04 \\|" "two mi100")
