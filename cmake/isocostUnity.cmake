# Unity builds: the libraries, the command and the test programs compile
# their files in batches of ISOCOST_UNITY_BATCH, so that a batch parses the
# heavy headers (the C++ library, nlohmann-json, CLI11, Eigen, Ceres,
# GoogleTest) and instantiates their templates once, not once per file
# (the build times before and after are in docs/testing.md).
# -DISOCOST_UNITY_BUILD=OFF compiles file by file (e.g. to check that each file
# includes what it uses). Files of one target must not define the same name
# at file scope (an anonymous namespace does not separate them in a batch).
option(ISOCOST_UNITY_BUILD "Compile the libraries, command and tests in unity batches" ON)
set(ISOCOST_UNITY_BATCH 8 CACHE STRING "Source files per unity batch")

function(isocost_unity target)
  if(ISOCOST_UNITY_BUILD)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON
                                               UNITY_BUILD_BATCH_SIZE ${ISOCOST_UNITY_BATCH})
  endif()
endfunction()
