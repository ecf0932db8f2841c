# pkg-config files, one per installed component (isocost.pc is the core):
#   c++ -std=c++20 app.cpp $(pkg-config --cflags --libs isocost-mpi)
# Relocatable: the prefix is found from the .pc file's own place. A static
# library needs its dependencies on every link, so for a static build
# (the default) they are in Libs; for a shared one in Libs.private.
file(RELATIVE_PATH _isocost_pc_up "/P/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/P")
set(ISOCOST_PC_PREFIX "\${pcfiledir}/${_isocost_pc_up}")
string(REGEX REPLACE "/$" "" ISOCOST_PC_PREFIX "${ISOCOST_PC_PREFIX}")
# Boost's headers, unless the compiler finds them anyway.
set(ISOCOST_PC_BOOST_CFLAGS "")
if(Boost_INCLUDE_DIRS AND NOT Boost_INCLUDE_DIRS STREQUAL "/usr/include")
  set(ISOCOST_PC_BOOST_CFLAGS "-I${Boost_INCLUDE_DIRS}")
endif()

function(isocost_pkg_config name description libs requires deps)
  set(ISOCOST_PC_NAME ${name})
  set(ISOCOST_PC_DESCRIPTION "${description}")
  set(ISOCOST_PC_REQUIRES "${requires}")
  set(ISOCOST_PC_CFLAGS "-I\${includedir} ${ISOCOST_PC_BOOST_CFLAGS}")
  if(name STREQUAL "isocost-fortran")  # the module files
    string(APPEND ISOCOST_PC_CFLAGS " -I\${includedir}/isocost/fortran")
  endif()
  set(ISOCOST_PC_PRIVATE "")
  if(BUILD_SHARED_LIBS)
    set(ISOCOST_PC_LIBS "${libs}")
    if(deps)
      set(ISOCOST_PC_PRIVATE "Libs.private: ${deps}")
    endif()
  else()
    string(STRIP "${libs} ${deps}" ISOCOST_PC_LIBS)
  endif()
  string(STRIP "${ISOCOST_PC_CFLAGS}" ISOCOST_PC_CFLAGS)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/pkgconfig/isocost.pc.in
                 ${PROJECT_BINARY_DIR}/pkgconfig/${name}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/pkgconfig/${name}.pc
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endfunction()

isocost_pkg_config(isocost "cost-balanced domain partitioning: models, cuts, partitions (core)"
                   "-lisocost_core" "" "")
set(_isocost_c_requires isocost)
set(_isocost_c_libs "-lisocost_c")
if(ISOCOST_BUILD_FITTERS)
  isocost_pkg_config(isocost-fitters "isocost fitters: Ceres fits of cost models"
                     "-lisocost_fitters" "isocost, eigen3, muparser" "-lceres -lglog")
  string(APPEND _isocost_c_requires ", isocost-fitters")
endif()
if(ISOCOST_BUILD_MPI)
  isocost_pkg_config(isocost-mpi "isocost over MPI: balancers, migration, distributed partitioners"
                     "-lisocost_mpi" "isocost, ompi-cxx" "")
  string(APPEND _isocost_c_requires ", isocost-mpi")
endif()
isocost_pkg_config(isocost-c "isocost's C interface (link with a C++ runtime)"
                   "-lisocost_c" "${_isocost_c_requires}" "-lstdc++ -lm")
if(ISOCOST_BUILD_FORTRAN)
  isocost_pkg_config(isocost-fortran "isocost's Fortran module (use isocost)"
                     "-lisocost_fortran" "isocost-c" "")
endif()
