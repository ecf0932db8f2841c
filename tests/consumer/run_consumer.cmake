# Builds and runs a consumer project of isocost, as a user would.
#   MODE=install       installs the build tree into a scratch prefix, then
#                      builds SOURCE_DIR against it with find_package(isocost)
#   MODE=subdirectory  builds SOURCE_DIR, which add_subdirectory()s ISOCOST_SOURCE_DIR
# Inputs: MODE, BUILD_DIR, SOURCE_DIR, WORK_DIR, CONFIG, PROGRAMS (the built
# programs to run, '|'-separated; each must exist), and optionally CXX_FLAGS,
# ISOCOST_SOURCE_DIR, CONFIGURE_ARGS ('|'-separated), LAUNCHER ('|'-separated
# command prefix, e.g. mpiexec|-n|2).
file(REMOVE_RECURSE "${WORK_DIR}")
foreach(list PROGRAMS CONFIGURE_ARGS LAUNCHER)
  string(REPLACE "|" ";" ${list} "${${list}}")
endforeach()
set(prefix "${WORK_DIR}/prefix")

include(${CMAKE_CURRENT_LIST_DIR}/../support/run_command.cmake)  # run()

set(config_arg)
if(CONFIG)
  set(config_arg --config ${CONFIG})
endif()
set(configure -S "${SOURCE_DIR}" -B "${WORK_DIR}/build" "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}"
    ${CONFIGURE_ARGS})
if(MODE STREQUAL "install")
  run(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}" ${config_arg})
  run(${CMAKE_COMMAND} ${configure} "-DCMAKE_BUILD_TYPE=${CONFIG}" "-DCMAKE_PREFIX_PATH=${prefix}")
elseif(MODE STREQUAL "subdirectory")
  # No build type: isocost must leave the parent's (empty) choice alone.
  run(${CMAKE_COMMAND} ${configure} "-DCMAKE_BUILD_TYPE=" "-DEXPECTED_BUILD_TYPE="
      "-DISOCOST_SOURCE_DIR=${ISOCOST_SOURCE_DIR}")
else()
  message(FATAL_ERROR "MODE must be install or subdirectory, got '${MODE}'")
endif()
run(${CMAKE_COMMAND} --build "${WORK_DIR}/build" ${config_arg} -j2)
foreach(program IN LISTS PROGRAMS)
  if(NOT EXISTS "${WORK_DIR}/build/${program}")
    message(FATAL_ERROR "expected the consumer to build ${program}")
  endif()
  run(${LAUNCHER} "${WORK_DIR}/build/${program}")
endforeach()
