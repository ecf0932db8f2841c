# Builds the consumer programs with pkg-config alone, as a user without CMake
# would: installs the build tree into a scratch prefix, then for each program
#   <compiler> <source> $(pkg-config --cflags --libs <package>) -o <program>
# and runs it. Inputs: BUILD_DIR, WORK_DIR, CONFIG, LIBDIR (the install's
# CMAKE_INSTALL_LIBDIR), PROGRAMS ('|'-separated entries
# "package,compiler,flags,source[,libs]": libs (e.g. -lm for the program's own
# needs) follow pkg-config's), and optionally LAUNCHER
# ('|'-separated prefix for the isocost-mpi program).
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
string(REPLACE "|" ";" PROGRAMS "${PROGRAMS}")
string(REPLACE "|" ";" LAUNCHER "${LAUNCHER}")
set(prefix "${WORK_DIR}/prefix")

include(${CMAKE_CURRENT_LIST_DIR}/../support/run_command.cmake)  # run()

find_program(pkg_config pkg-config REQUIRED)
set(config_arg)
if(CONFIG)
  set(config_arg --config ${CONFIG})
endif()
run(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}" ${config_arg})
set(ENV{PKG_CONFIG_PATH} "${prefix}/${LIBDIR}/pkgconfig")
# Shared libraries (BUILD_SHARED_LIBS=ON) are found at run time as a user
# finds them outside the system's directories (pkg-config sets no RPATH).
set(ENV{LD_LIBRARY_PATH} "${prefix}/${LIBDIR}")
foreach(entry IN LISTS PROGRAMS)
  string(REPLACE "," ";" entry "${entry}")
  list(GET entry 0 package)
  list(GET entry 1 compiler)
  list(GET entry 2 flags)
  list(GET entry 3 source)
  set(libs "")
  list(LENGTH entry fields)
  if(fields GREATER 4)
    list(GET entry 4 libs)
  endif()
  execute_process(COMMAND ${pkg_config} --cflags --libs ${package} RESULT_VARIABLE rc
                  OUTPUT_VARIABLE pc ERROR_VARIABLE err OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "pkg-config --cflags --libs ${package} failed: ${err}")
  endif()
  message("${package}: ${pc}")
  separate_arguments(pc UNIX_COMMAND "${pc}")
  separate_arguments(flags UNIX_COMMAND "${flags}")
  set(program "${WORK_DIR}/${package}")
  run(${compiler} ${flags} ${source} -o ${program} ${pc} ${libs})
  if(package STREQUAL "isocost-mpi")
    run(${LAUNCHER} ${program})
  else()
    run(${program})
  endif()
endforeach()
