# isocost.mpi under mpiexec (1 and 2 ranks): the distributed partitioners
# equal the serial ones on the gathered data. Every rank runs every test, so
# the collectives match; the inputs are the same on every rank (fixed seeds).
import numpy as np
import pytest
from mpi4py import MPI

import isocost
import isocost.mpi

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()


def bounds(n):
    """Where each rank's contiguous share of n items starts, in rank order (uneven on purpose)."""
    return [0] + sorted(np.random.default_rng(7).integers(0, n + 1, size - 1).tolist()) + [n]


def my_slice(n):
    b = bounds(n)
    return slice(b[rank], b[rank + 1])


WEIGHTS = np.random.default_rng(3).integers(0, 20, 61).astype(float)


@pytest.mark.parametrize("parts", [1, 2, 3, 7])
@pytest.mark.parametrize("speeds", [False, True])
def test_partition_weights_equals_serial(parts, speeds):
    s = np.arange(1.0, parts + 1) if speeds else None
    got = isocost.mpi.partition_weights(comm, WEIGHTS[my_slice(len(WEIGHTS))], parts, speeds=s)
    serial = isocost.partition(isocost.discrete_model(WEIGHTS), parts, speeds=s)
    assert got.cuts.tolist() == serial.cuts.tolist()
    assert got.cells == len(WEIGHTS) and got.total == WEIGHTS.sum()
    assert got.converged


def test_partition_weights_own_range_and_default_ranks():
    got = isocost.mpi.partition_weights(comm, WEIGHTS[my_slice(len(WEIGHTS))], all_cuts=False)
    serial = isocost.partition(isocost.discrete_model(WEIGHTS), size).cuts
    assert (got.begin, got.end) == (serial[rank], serial[rank + 1])
    assert got.cuts.size == 0


@pytest.mark.parametrize("parts", [2, 5])
def test_optimal_weights_equal_serial_bottleneck(parts):
    got = isocost.mpi.partition_weights(comm, WEIGHTS[my_slice(len(WEIGHTS))], parts, optimal=True)
    # decompose() of the weights as a 1-D grid cuts them by the same exact
    # chains-on-chains optimum, every part at least one cell.
    serial = isocost.decompose(WEIGHTS, (parts,))
    assert got.cuts.tolist() == [0] + serial.cell_hi[:, 0].tolist()
    assert got.max_time == serial.max_time


def test_partition_points_equals_one_rank_holding_all():
    rng = np.random.default_rng(11)
    xyz, w = rng.random((40, 3)), rng.integers(1, 5, 40).astype(float)
    mine = my_slice(len(w))
    got = isocost.mpi.partition_points(comm, xyz[mine], w[mine], 4)
    alone = isocost.mpi.partition_points(MPI.COMM_SELF, xyz, w, 4)
    assert got.part.tolist() == alone.part[mine].tolist()
    assert got.key.tolist() == alone.key[mine].tolist()
    assert got.part_weight.tolist() == alone.part_weight.tolist()
    assert got.part_weight.sum() == w.sum() and got.points == 40


GRID = np.random.default_rng(2).integers(0, 9, size=(10, 7)).astype(float)


@pytest.mark.parametrize("grid, axes", [((4,), None), ((2, 2), None), ((3, 2), (1, 0)), (None, None)])
def test_decompose_grid_equals_serial(grid, axes):
    rows = my_slice(GRID.shape[1])  # each rank holds a band of rows (y)
    lo, hi = (0, rows.start), (GRID.shape[0], rows.stop)
    got = isocost.mpi.decompose_grid(comm, GRID.shape, lo, hi, GRID[:, rows], grid, axes=axes,
                                     ranks=4 if grid is None else None)
    serial = isocost.decompose(GRID, grid, axes=axes, ranks=4 if grid is None else None)
    assert got.counts == serial.counts and got.axes == serial.axes
    assert got.cell_lo.tolist() == serial.cell_lo.tolist()
    assert got.cell_hi.tolist() == serial.cell_hi.tolist()
    assert got.cost.tolist() == serial.cost.tolist()


def test_errors_are_raised_on_every_rank(raises):
    bad = WEIGHTS.copy()
    bad[40] = -1.0
    holder = max(r for r in range(size) if bounds(len(bad))[r] <= 40)
    local = 40 - bounds(len(bad))[holder]
    # The same message on every rank, naming the rank and the cell.
    with raises(isocost.Error, f"partition_weights: invalid input on 1 rank (rank {holder}: "
                               f"weight of local cell {local} (global 40): expected a finite "
                               "number >= 0, got -1)"):
        isocost.mpi.partition_weights(comm, bad[my_slice(len(bad))], 2)
    with raises(isocost.Error, "speeds: 2 values for 3 ranks; expected one per rank"):
        isocost.mpi.partition_weights(comm, WEIGHTS, 3, speeds=[1, 2])
    with raises(TypeError, "comm: expected an mpi4py communicator (with py2f()), got <class 'int'>"):
        isocost.mpi.partition_weights(0, WEIGHTS)
    with raises(isocost.Error, "comm: expected a communicator, got MPI.COMM_NULL"):
        isocost.mpi.partition_weights(MPI.COMM_NULL, WEIGHTS)
    with raises(isocost.Error, "coords: expected a 2-D array (one row per point), got 1 dimensions"):
        isocost.mpi.partition_points(comm, [1.0, 2.0], [1.0, 1.0])
    with raises(isocost.Error, "weights: expected an array of shape hi - lo, one value per cell "
                               "of this rank's box"):
        isocost.mpi.decompose_grid(comm, (4, 4), (0, 0), (4, 4), np.ones((2, 8)), (2,))
    with raises(isocost.Error, "lo: expected 2 values, one per axis, got 1"):
        isocost.mpi.decompose_grid(comm, (4, 4), (0,), (4, 4), np.ones((4, 4)), (2,))
    with raises(TypeError, "shape: expected an integer, got <class 'float'>"):
        isocost.mpi.decompose_grid(comm, (4.5, 4), (0, 0), (4, 4), np.ones((4, 4)), (2,))
    with raises(TypeError, "hi: expected an integer, got <class 'float'>"):
        isocost.mpi.decompose_grid(comm, (4, 4), (0, 0), (4, 4.0), np.ones((4, 4)), (2,))
    with raises(isocost.Error, "lo: expected an integer below 2^63, got 18446744073709551616"):
        isocost.mpi.decompose_grid(comm, (4, 4), (2**64, 0), (4, 4), np.ones((4, 4)), (2,))
    with raises(isocost.Error, "shape: expected 1 to 3 cell counts, got 4"):
        isocost.mpi.decompose_grid(comm, (4, 4, 4, 4), (0,), (4, 4), np.ones((4, 4)), (2,))
    # Every rank has the same bad option: one line names them all.
    # Runs of three or more ranks are named as a range (agreement.cpp's rank_list).
    every = ", ".join(map(str, range(size))) if size <= 2 else f"0-{size - 1}"
    who = "1 rank (rank 0" if size == 1 else f"{size} ranks (ranks {every}"
    with raises(isocost.Error, f"partition_points: invalid input on {who}: options: buckets: "
                               "expected an integer in [2, 65536], got 1)"):
        isocost.mpi.partition_points(comm, np.ones((3, 2)), np.ones(3), buckets=1)
