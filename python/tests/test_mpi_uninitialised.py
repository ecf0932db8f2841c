# isocost.mpi without MPI initialised (no mpi4py.MPI imported): an Error that
# says what to do, not a crash. In a subprocess, so that no other test's
# import of mpi4py can initialise MPI first.
import subprocess
import sys

import pytest

import isocost

SCRIPT = """
import isocost, isocost.mpi

class FakeComm:
    def py2f(self):
        return 0

try:
    isocost.mpi.partition_weights(FakeComm(), [1.0, 2.0])
except isocost.Error as error:
    print(error)
"""


@pytest.mark.skipif(not isocost.has_mpi, reason="built without isocost::mpi")
def test_uninitialised_mpi_is_an_error():
    out = subprocess.run([sys.executable, "-c", SCRIPT], check=True, capture_output=True, text=True)
    assert out.stdout.strip() == (
        "comm: MPI is not initialised (import mpi4py.MPI first) or already finalised")
