# Runs a Python example that writes PNG and checks that the file it wrote is
# a PNG (its 8-byte signature). Inputs: PYTHON, SCRIPT, PNG.
file(REMOVE "${PNG}")
execute_process(COMMAND "${PYTHON}" "${SCRIPT}" "${PNG}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${SCRIPT} failed (${rc})")
endif()
if(NOT EXISTS "${PNG}")
  message(FATAL_ERROR "${SCRIPT} did not write ${PNG}")
endif()
file(READ "${PNG}" signature LIMIT 8 HEX)
if(NOT signature STREQUAL "89504e470d0a1a0a")
  message(FATAL_ERROR "${PNG} is not a PNG (starts with ${signature})")
endif()
