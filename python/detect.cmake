# Sets ISOCOST_PYTHON_DEFAULT, the default of ISOCOST_BUILD_PYTHON: ON when
# isocost is the top-level project, no sanitizer is on, and Python 3 (with its
# development files) and pybind11 are found.
#
# Sanitizers: an ASan/TSan-instrumented extension module cannot be loaded by
# the uninstrumented python3 (the runtime must come first in the process), so
# sanitizer builds leave the module out.
#
# The interpreter: the first python3 on PATH may be one without numpy or mpi4py
# (e.g. a pyenv shim), so the system one, /usr/bin/python3, is the default
# when it exists; -DPython3_EXECUTABLE=… picks another. pybind11 is looked for
# after FindPython3, so it builds for that same interpreter (pybind11's
# "new" FindPython mode).
set(ISOCOST_PYTHON_DEFAULT OFF)
if(PROJECT_IS_TOP_LEVEL AND NOT ISOCOST_SANITIZE)
  if(NOT DEFINED Python3_EXECUTABLE AND EXISTS /usr/bin/python3)
    set(Python3_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "The Python the isocost module is for")
  endif()
  find_package(Python3 3.8 QUIET COMPONENTS Interpreter Development.Module)
  if(Python3_FOUND)
    find_package(pybind11 2.6 CONFIG QUIET)
    if(pybind11_FOUND)
      set(ISOCOST_PYTHON_DEFAULT ON)
    endif()
  endif()
endif()
