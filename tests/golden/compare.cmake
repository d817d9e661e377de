# Runs one golden case (a .test file beside its expected output, llvm-mca style):
#   # RUN: ridgeline ARGS...        the command, words split at spaces (no quoting), paths
#                                   relative to the source tree so messages name them alike
#   # EXPECTED: FILE                the reviewed output, beside the case file
# Invoked as cmake -DBIN=... -DCASE=... -DSOURCE_DIR=... -P compare.cmake; fails unless stdout
# equals the expected file byte for byte. scripts/update_golden.sh reads the same lines.
file(STRINGS ${CASE} run_line REGEX "^# RUN: ridgeline ")
file(STRINGS ${CASE} expected_line REGEX "^# EXPECTED: ")
list(LENGTH run_line runs)
list(LENGTH expected_line expects)
if(NOT runs EQUAL 1 OR NOT expects EQUAL 1)
  message(FATAL_ERROR "${CASE}: expected one '# RUN: ridgeline ...' and one '# EXPECTED: FILE' line")
endif()
string(REGEX REPLACE "^# RUN: ridgeline " "" args "${run_line}")
separate_arguments(arg_list UNIX_COMMAND "${args}")
string(REGEX REPLACE "^# EXPECTED: " "" expected_name "${expected_line}")
get_filename_component(case_dir ${CASE} DIRECTORY)
set(EXPECTED ${case_dir}/${expected_name})
execute_process(COMMAND ${BIN} ${arg_list} WORKING_DIRECTORY ${SOURCE_DIR}
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
file(READ ${EXPECTED} expected)
if(NOT out STREQUAL expected)
  file(WRITE ${EXPECTED}.actual "${out}")
  message(FATAL_ERROR "output differs from ${EXPECTED} (exit ${rc}); actual written to ${EXPECTED}.actual\n${err}")
endif()
