# Builds a program as docs/fortran.md tells a user to, against the installed
# package: the page's one ```cmake block, copied as the whole CMakeLists.txt
# beside SOURCES, then its `mpif90 …` line (pkg-config), each program run
# under LAUNCHER. Inputs: DOC, SOURCES ('|'-separated), WORK_DIR, PROGRAM (the
# executable both make), LIBDIR, and those of tests/consumer/run_consumer.cmake
# (BUILD_DIR, CONFIG, CXX_FLAGS, CONFIGURE_ARGS, LAUNCHER).
file(READ "${DOC}" doc)
string(REGEX MATCHALL "\n```cmake\n" blocks "${doc}")
list(LENGTH blocks n)
if(NOT n EQUAL 1)
  message(FATAL_ERROR "${DOC}: expected one ```cmake block (the whole CMakeLists.txt), found ${n}")
endif()
string(FIND "${doc}" "\n```cmake\n" begin)
math(EXPR begin "${begin} + 10")
string(SUBSTRING "${doc}" ${begin} -1 rest)
string(FIND "${rest}" "\n```" end)
math(EXPR end "${end} + 1")
string(SUBSTRING "${rest}" 0 ${end} cmakelists)
string(REGEX MATCH "\nmpif90 [^\n]*" mpif90 "${doc}")
if(NOT mpif90)
  message(FATAL_ERROR "${DOC}: no line starting with `mpif90 `")
endif()

set(base "${WORK_DIR}")
set(src "${base}/src")
file(REMOVE_RECURSE "${base}")
file(WRITE "${src}/CMakeLists.txt" "${cmakelists}")
string(REPLACE "|" ";" SOURCES "${SOURCES}")
file(COPY ${SOURCES} DESTINATION "${src}")

# Installs, configures with the page's CMakeLists.txt, builds, runs PROGRAM.
set(MODE install)
set(SOURCE_DIR "${src}")
set(WORK_DIR "${base}/cmake")
set(PROGRAMS "${PROGRAM}")
include(${CMAKE_CURRENT_LIST_DIR}/run_consumer.cmake)

# The page's mpif90 line, run by the shell in the sources' directory.
set(ENV{PKG_CONFIG_PATH} "${prefix}/${LIBDIR}/pkgconfig")
set(ENV{LD_LIBRARY_PATH} "${prefix}/${LIBDIR}")  # shared libraries, as run_pkg_config.cmake
string(STRIP "${mpif90}" mpif90)
set(RUN_DIRECTORY "${src}")
message("${mpif90}")
run(sh -c "${mpif90} ${CXX_FLAGS}")
run(${LAUNCHER} "${src}/${PROGRAM}")
