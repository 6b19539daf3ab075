# Seconds of the longest Catch2 tests (either pass of scripts/test.sh, session 31-32 runs),
# as ctest's COST: under -j ctest starts the costliest first, so that no long test starts
# last and keeps one core busy alone at the end. (ctest's own cost data cannot order these:
# Testing/Temporary/CTestCostData.txt keeps a name up to its first space.) Included by each
# test folder's CTestTestfile after its discovered tests (cmake/TcsimHelpers.cmake); names of
# other folders are ignored there. The CLI, Python and fuzz tests set theirs where they are added.
foreach(entry
    "53|models:kernel differential: b200"
    "42|models:kernel differential: h100"
    "41|models:pairs-mod4 rows on the planar lanes and the tiles equal Unit::dot"
    "40|models:lu: blanchard2020 Fig. 4.2 at n 1024 with and without pivoting"
    "35|models:after-add gemm chain: c in registers, int32 epilogue, every SIMD target, against Unit::dot"
    "30|models:mixed formats: block-scaled kind::mxf8f6f4 pairs with each operand's scales against the exact model"
    "26|models:pairs-mod4 chains: the fp8 mma.sync emulation lines chain whole instructions in registers"
    "26|models:kernel differential: pairs-mod4 chains (the fp8 mma.sync emulation), every SIMD target"
    "23|validation:fit: dumps of built-in rows fit back to an equivalent row"
    "22|models:kernel differential: bf16 and tf32 beyond binary32's range (tiles, planar)"
    "15|models:mixed formats: b200 tcgen05 kind::f8f6f4 pairs against the exact model"
    "15|validation:fit: the active loop's directed batches make random 192 agree where the pool saw one group"
    "15|validation:fit: the simulated loop on a small dump with a coupled alternative to split"
    "13|models:kernel differential: l40s"
    "10|validation:fit: the active loop makes random 51 agree where its dump alone did not")
  string(FIND "${entry}" "|" bar)
  string(SUBSTRING "${entry}" 0 ${bar} cost)
  math(EXPR from "${bar} + 1")
  string(SUBSTRING "${entry}" ${from} -1 name)
  set_tests_properties("${name}" PROPERTIES COST ${cost})
endforeach()
