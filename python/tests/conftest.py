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


class Raises:
    """`with raises(isocost.Error, "message"):` — the exception type and its exact text."""

    def __init__(self, kind, message):
        self.kind, self.message = kind, message

    def __enter__(self):
        return self

    def __exit__(self, kind, value, traceback):
        assert kind is not None, f"expected {self.kind.__name__}: {self.message}"
        assert issubclass(kind, self.kind), f"{kind.__name__}: {value}"
        assert str(value) == self.message
        return True


@pytest.fixture
def raises():
    return Raises
