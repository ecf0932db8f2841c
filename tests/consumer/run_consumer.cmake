# Installs the build tree into a scratch prefix, then configures, builds and
# runs tests/consumer against it with find_package(isocost CONFIG).
# Inputs: BUILD_DIR, SOURCE_DIR, WORK_DIR, CONFIG, and optionally CXX_FLAGS.
file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}")
  endif()
endfunction()

set(config_arg)
if(CONFIG)
  set(config_arg --config ${CONFIG})
endif()
run(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}" ${config_arg})
run(${CMAKE_COMMAND} -S "${SOURCE_DIR}" -B "${WORK_DIR}/build"
    "-DCMAKE_PREFIX_PATH=${prefix}" "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}"
    "-DCMAKE_BUILD_TYPE=${CONFIG}")
run(${CMAKE_COMMAND} --build "${WORK_DIR}/build" ${config_arg})
run("${WORK_DIR}/build/consumer")
if(EXISTS "${WORK_DIR}/build/consumer_fit")
  run("${WORK_DIR}/build/consumer_fit")
elseif(WITH_FITTERS)
  message(FATAL_ERROR "isocost::fitters was built but the consumer could not find it")
endif()
