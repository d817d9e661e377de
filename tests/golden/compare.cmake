# Runs BIN with ARGS ('|'-separated) and, if given, --input INPUT (relative to SOURCE_DIR, so
# error messages name the same path everywhere); fails unless stdout equals EXPECTED.
string(REPLACE "|" ";" arg_list "${ARGS}")
if(DEFINED INPUT)
  list(APPEND arg_list --input ${INPUT})
endif()
execute_process(COMMAND ${BIN} ${arg_list} WORKING_DIRECTORY ${SOURCE_DIR}
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
file(READ ${EXPECTED} expected)
if(NOT out STREQUAL expected)
  file(WRITE ${EXPECTED}.actual "${out}")
  message(FATAL_ERROR "output differs from ${EXPECTED} (exit ${rc}); actual written to ${EXPECTED}.actual\n${err}")
endif()
