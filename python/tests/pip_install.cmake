# Installs the Python module the Python way and runs the tests against the
# installed package: a venv (with the system's site-packages: numpy, pytest),
# `pip install --no-build-isolation --no-index` of the source tree (setup.py
# builds through CMake, here reusing BUILD_DIR, configured for this Python),
# then pytest from outside the source and build trees, without PYTHONPATH;
# and `python3 -m build --wheel --no-isolation` makes a wheel holding the
# module (python3-build).
# Inputs: PYTHON, SOURCE_DIR, BUILD_DIR, WORK_DIR, TESTS (the tests' dir),
# and optionally REFERENCE (ISOCOST_REFERENCE for test_reference.py).
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

set(RUN_DIRECTORY "${WORK_DIR}")  # outside the source and build trees
include(${CMAKE_CURRENT_LIST_DIR}/../../tests/support/run_command.cmake)  # run()

set(venv "${WORK_DIR}/v")
run("${PYTHON}" -m venv --system-site-packages "${venv}")
run(${CMAKE_COMMAND} -E env "ISOCOST_BUILD_DIR=${BUILD_DIR}"
    "ISOCOST_PYTHON_BUILD_BASE=${WORK_DIR}/build" --unset=PYTHONPATH
    "${venv}/bin/python" -m pip install --no-build-isolation --no-index -q "${SOURCE_DIR}")
# The module imported is the installed one, and it partitions.
run(${CMAKE_COMMAND} -E env --unset=PYTHONPATH "${venv}/bin/python" -c "
import os, isocost
assert os.path.realpath(isocost.__file__).startswith(os.path.realpath('${venv}')), isocost.__file__
cuts = isocost.partition(isocost.discrete_model([5, 5, 9, 6, 3, 8, 2, 2]), 3).cuts
assert cuts.tolist() == [0, 2, 5, 8], cuts
print('pip-installed isocost', isocost.__version__, 'at', isocost.__file__)
")
run(${CMAKE_COMMAND} -E env --unset=PYTHONPATH "ISOCOST_REFERENCE=${REFERENCE}"
    PYTHONDONTWRITEBYTECODE=1 MPLBACKEND=Agg
    "${venv}/bin/python" -m pytest -q -p no:cacheprovider --color=no "${TESTS}"
    "--ignore=${TESTS}/mpi")

# A wheel, as `python3 -m build --wheel --no-isolation` makes it (offline),
# holding the module built for this interpreter.
run(${CMAKE_COMMAND} -E env "ISOCOST_BUILD_DIR=${BUILD_DIR}"
    "ISOCOST_PYTHON_BUILD_BASE=${WORK_DIR}/build" --unset=PYTHONPATH
    "${PYTHON}" -m build --wheel --no-isolation --outdir "${WORK_DIR}/dist" "${SOURCE_DIR}")
file(GLOB wheels "${WORK_DIR}/dist/isocost-*.whl")
list(LENGTH wheels count)
if(NOT count EQUAL 1)
  message(FATAL_ERROR "expected one wheel in ${WORK_DIR}/dist, found: ${wheels}")
endif()
run("${PYTHON}" -c "
import sys, sysconfig, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
module = 'isocost' + sysconfig.get_config_var('EXT_SUFFIX')
assert module in names, names
print('wheel', sys.argv[1].rsplit('/', 1)[-1], 'holds', module)
" "${wheels}")
