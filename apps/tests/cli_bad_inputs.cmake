# The catalogue of bad inputs (docs/reliability.md, issue 11): every row of its table is run
# here, so the document and the program cannot drift apart. A row is
#   | B<n> | <category> | <what is wrong> | `<tcsim arguments>` | <exit code> | `<exact stderr>` |
# where '@' stands for a scratch folder holding the fixture files of apps/tests/bad_inputs/
# (plus long_line.txt, made here: 64 KiB are not worth committing), and `<LF>` in the arguments
# stands for a newline inside a value (a table row cannot hold one). The exit code must match,
# stderr must be the text exactly (one line), and stdout must be empty: no bad input may
# print a result.
include(${CMAKE_CURRENT_LIST_DIR}/support/cli_test.cmake)

tcsim_scratch_dir(dir)
file(GLOB fixtures "${CMAKE_CURRENT_LIST_DIR}/bad_inputs/*")
file(COPY ${fixtures} DESTINATION "${dir}")
string(REPEAT "3" 65537 long_line)
file(WRITE "${dir}/long_line.txt" "${long_line}\n")

file(READ "${SOURCE_DIR}/docs/reliability.md" doc)
set(rest "${doc}")
set(rows 0)
set(expected_id 1)
set(at 0)
while(NOT at EQUAL -1)
  string(FIND "${rest}" "\n| B" at)
  if(at EQUAL -1)
    break()
  endif()
  math(EXPR at "${at} + 1")
  string(SUBSTRING "${rest}" ${at} -1 rest)
  string(FIND "${rest}" "\n" eol)
  string(SUBSTRING "${rest}" 0 ${eol} row)
  string(SUBSTRING "${rest}" ${eol} -1 rest)
  # | B<n> | ... | `args` | exit | `stderr` |
  if(NOT row MATCHES "^\\| B([0-9]+) \\|")
    continue()
  endif()
  set(id ${CMAKE_MATCH_1})
  # Increasing numbers; gaps allowed (ranges of rows are assigned to parallel work, issue 22).
  if(id LESS expected_id)
    tcsim_fail("docs/reliability.md: row B${id} follows a row numbered B${expected_id} or higher; number the rows in increasing order")
  endif()
  math(EXPR expected_id "${id} + 1")
  string(FIND "${row}" "`" q1)
  math(EXPR s1 "${q1} + 1")
  string(SUBSTRING "${row}" ${s1} -1 tail)
  string(FIND "${tail}" "`" q2)
  string(SUBSTRING "${tail}" 0 ${q2} args)
  math(EXPR s2 "${q2} + 1")
  string(SUBSTRING "${tail}" ${s2} -1 tail)
  # tail: " | <exit> | `<stderr>` |"
  string(FIND "${tail}" "`" q3)
  string(SUBSTRING "${tail}" 0 ${q3} exit_field)
  string(REGEX REPLACE "[ |]" "" exit_code "${exit_field}")
  math(EXPR s3 "${q3} + 1")
  string(SUBSTRING "${tail}" ${s3} -1 tail)
  string(FIND "${tail}" "` |" q4 REVERSE)
  string(SUBSTRING "${tail}" 0 ${q4} err)
  string(REPLACE "\\|" "|" err "${err}")
  string(REPLACE "@" "${dir}" err "${err}")
  # '@' between a word and a digit is no folder: bench verify --inject kernel@5.
  string(REGEX REPLACE "([a-z])@([0-9])" "\\1<at>\\2" args "${args}")
  string(REPLACE "@" "${dir}" args "${args}")
  string(REPLACE "<at>" "@" args "${args}")
  separate_arguments(arg_list UNIX_COMMAND "${args}")
  string(REPLACE "<LF>" "\n" arg_list "${arg_list}")
  tcsim_check(NAME "catalogue B${id}: ${args}"
    ARGS ${arg_list}
    EXIT ${exit_code}
    STDOUT "^$"
    STDERR_IS "${err}\n")
  math(EXPR rows "${rows} + 1")
endwhile()
message(STATUS "catalogue rows run: ${rows}")
if(rows LESS 70)
  tcsim_fail("docs/reliability.md: only ${rows} catalogue rows found (the table is read from '| B<n> |' lines)")
endif()
