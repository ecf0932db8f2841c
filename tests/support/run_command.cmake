# run(COMMAND...): runs a command for the CTest scripts that build and run
# programs as users would (tests/consumer, python/tests), prints its output,
# and fails the test, naming the command, unless it exits 0. It runs in
# RUN_DIRECTORY when the script sets that.
function(run)
  set(where)
  if(RUN_DIRECTORY)
    set(where WORKING_DIRECTORY "${RUN_DIRECTORY}")
  endif()
  execute_process(COMMAND ${ARGN} ${where} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  message("${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}")
  endif()
endfunction()
