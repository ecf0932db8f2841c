# What the test programs of every directory share (tests/, examples/,
# fortran/, python/): labels per layer, the build speed-ups of the test
# programs, and the environment and command of a test under mpiexec.
# docs/testing.md describes the suite.

# Compile each test program in unity batches (isocostUnity.cmake): its files
# share the parse of GoogleTest, the C++ library and isocost's headers and
# their template instantiations. Unsanitized, a test program's own code
# compiles at -Og: 40 % faster than at -O2 (a batch of test_core: 24.6 ->
# 14.2 s), and GCC's flow warnings (-Wmaybe-uninitialized) still see it; the
# library it tests keeps the tree's flags. (Sanitized trees choose in
# tests/CMakeLists.txt.)
function(isocost_test_speedups target)
  isocost_unity(${target})
  if(NOT ISOCOST_SANITIZE AND CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${target} PRIVATE $<$<NOT:$<CONFIG:Debug>>:-Og>)
  endif()
endfunction()

# tests_<label>: a target that builds everything the tests labelled <label>
# need, so that `cmake --build . --target tests_core && ctest -L core` is the
# loop for one layer (scripts/dev core).
function(isocost_label_targets label)
  if(NOT TARGET tests_${label})
    add_custom_target(tests_${label})
    if(TARGET isocost_keep_modules)  # preloaded by the tests under mpiexec
      add_dependencies(tests_${label} isocost_keep_modules)
    endif()
  endif()
  if(ARGN)
    add_dependencies(tests_${label} ${ARGN})
  endif()
endfunction()

# tests_<label> builds every executable and module target defined in DIR and
# its subdirectories (call it at the end of DIR's CMakeLists.txt).
function(isocost_label_directory label dir)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  foreach(target IN LISTS targets)
    get_target_property(type ${target} TYPE)
    if(type MATCHES "EXECUTABLE|MODULE_LIBRARY")
      isocost_label_targets(${label} ${target})
    endif()
  endforeach()
  get_property(subdirectories DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(subdirectory IN LISTS subdirectories)
    isocost_label_directory(${label} ${subdirectory})
  endforeach()
endfunction()

# The environment of every test under mpiexec: OpenMPI as root with more ranks
# than cores, and OpenMPI's own allocations kept out of LeakSanitizer's report
# (tests/mpi/lsan.supp). Tests that launch mpiexec themselves get it as
# ISOCOST_MPI_TEST_ENV, the same list with '|' between its entries.
#
# OpenMPI unloads its components (mca_*.so) at MPI_Finalize, before the leak
# check at exit, and what they allocated and keep is then reported from an
# unknown module that no suppression can name. Sanitized builds therefore
# preload tests/mpi/keep_modules.c, a dlclose() that leaves libraries loaded
# and an asprintf() with frame pointers, so that LeakSanitizer's default
# (fast) unwinder reaches the OpenMPI library of every such allocation. (The
# slow unwinder also reached OpenMPI's frames, but cost 2-3 s per run: half
# of the sanitized suite.) Our own allocations are checked as before.
#
# Every suppression names a library, so the leak check needs no symbolizer:
# symbolize=0 spares each rank an llvm-symbolizer process (a third of a
# sanitized MPI run's CPU time at 2 ranks). Reports from these runs show
# module+offset; docs/testing.md says how to get their function names.
set(ISOCOST_LSAN_OPTIONS
    "suppressions=${PROJECT_SOURCE_DIR}/tests/mpi/lsan.supp:print_suppressions=0")
set(ISOCOST_MPI_PRELOAD "")
if(ISOCOST_SANITIZE AND ISOCOST_BUILD_MPI AND CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  enable_language(C)
  add_library(isocost_keep_modules SHARED ${PROJECT_SOURCE_DIR}/tests/mpi/keep_modules.c)
  # Uninstrumented: it is loaded before any sanitizer runtime is set up.
  # Frame pointers: the unwinder walks through its asprintf().
  target_compile_options(isocost_keep_modules PRIVATE -fno-sanitize=all -fno-omit-frame-pointer)
  target_link_options(isocost_keep_modules PRIVATE -fno-sanitize=all)
  set(ISOCOST_MPI_PRELOAD $<TARGET_FILE:isocost_keep_modules>)
  string(APPEND ISOCOST_LSAN_OPTIONS ":symbolize=0")
elseif(ISOCOST_SANITIZE)
  # GCC's sanitizer runtime is a shared library that must be loaded first: no
  # preload there, the slow unwinder instead.
  string(APPEND ISOCOST_LSAN_OPTIONS ":fast_unwind_on_malloc=0")
endif()
# OpenMPI's ob1 messaging over shared memory (vader), as the tests have one
# node: selecting it saves the UCX start-up, 0.3 s of each mpiexec here.
# When a rank exits with an error code, mpiexec signals the others and, by
# default, waits 1 s before SIGKILL; the tests' ranks all exit on their own
# (an agreed error), and the wait cost 1 s in about a third of such runs.
set(ISOCOST_MPI_TEST_ENV
    OMPI_ALLOW_RUN_AS_ROOT=1
    OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    OMPI_MCA_rmaps_base_oversubscribe=1
    OMPI_MCA_pml=ob1
    OMPI_MCA_odls_base_sigkill_timeout=0
    LSAN_OPTIONS=${ISOCOST_LSAN_OPTIONS})
if(ISOCOST_MPI_PRELOAD)
  list(APPEND ISOCOST_MPI_TEST_ENV LD_PRELOAD=${ISOCOST_MPI_PRELOAD})
endif()

# Runs COMMAND… under mpiexec with RANKS ranks as test NAME, labelled LABEL.
#   isocost_mpi_test(NAME RANKS LABEL COMMAND…)
function(isocost_mpi_test name ranks label)
  add_test(NAME ${name}
           COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${ranks} ${MPIEXEC_PREFLAGS}
                   ${ARGN} ${MPIEXEC_POSTFLAGS})
  # A deadlock in a collective shows up as this timeout.
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "${ISOCOST_MPI_TEST_ENV}" TIMEOUT 300
                                          PROCESSORS ${ranks} LABELS "${label}")
endfunction()
