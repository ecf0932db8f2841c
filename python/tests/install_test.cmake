# Installs the python component of BUILD_DIR into a scratch prefix and imports
# isocost from there (PYTHONPATH = <prefix>/MODULE_DIR), checking that it is
# the installed module and that it partitions.
# Inputs: PYTHON, BUILD_DIR, WORK_DIR, MODULE_DIR (relative to the prefix), CONFIG,
# SHARED (BUILD_SHARED_LIBS).
file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")
set(config_arg)
if(CONFIG)
  set(config_arg --config ${CONFIG})
endif()

include(${CMAKE_CURRENT_LIST_DIR}/../../tests/support/run_command.cmake)  # run()

# A module over shared libraries needs them installed too (all components).
set(component_arg --component python)
if(SHARED)
  set(component_arg)
endif()
run(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}" ${component_arg} ${config_arg})
if(IS_ABSOLUTE "${MODULE_DIR}")
  set(module_dir "${MODULE_DIR}")
else()
  set(module_dir "${prefix}/${MODULE_DIR}")
endif()
# Discrete weights [5,5,9,6,3,8,2,2] into 3 parts: cuts 0, 2, 5, 8 (costs 10, 18, 12).
run(${CMAKE_COMMAND} -E env "PYTHONPATH=${module_dir}" PYTHONDONTWRITEBYTECODE=1
    "${PYTHON}" -c "
import os, isocost
assert os.path.realpath(isocost.__file__).startswith(os.path.realpath('${module_dir}')), isocost.__file__
cuts = isocost.partition(isocost.discrete_model([5, 5, 9, 6, 3, 8, 2, 2]), 3).cuts
assert cuts.tolist() == [0, 2, 5, 8], cuts
print('installed isocost', isocost.__version__, 'at', isocost.__file__, 'cuts', cuts)
")
