# Shared by the Python tests: the module under test comes from PYTHONPATH
# (CTest points it at the build); `reference` is what the C++ API printed.
import json
import os
import subprocess

import pytest


@pytest.fixture(scope="session")
def reference():
    """The JSON that python/tests/reference.cpp printed (inputs and C++ results)."""
    program = os.environ.get("ISOCOST_REFERENCE")
    if not program:
        pytest.skip("ISOCOST_REFERENCE is not set (the fitters are not built)")
    return json.loads(subprocess.run([program], check=True, capture_output=True, text=True).stdout)
