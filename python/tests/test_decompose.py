# decompose(): the boxes tile the grid, their costs are the weights inside
# them and sum to the total; every error path with its message.
import numpy as np
import pytest

import isocost


def weights_2d():
    i, j = np.meshgrid(np.arange(12), np.arange(9), indexing="ij")
    return 1.0 + i + 2 * j  # weights[i, j] is cell (i, j): x = axis 0


def check_tiles(w, d):
    """Every cell in exactly one box; each box's cost is the sum of its cells."""
    owner = np.full(w.shape, -1)
    for r in range(d.ranks):
        box = tuple(slice(lo, hi) for lo, hi in zip(d.cell_lo[r], d.cell_hi[r]))
        assert np.all(owner[box] == -1), "boxes overlap"
        owner[box] = r
        assert d.cost[r] == pytest.approx(w[box].sum(), rel=1e-12)
    assert np.all(owner >= 0), "boxes leave cells out"
    assert d.cost.sum() == pytest.approx(w.sum(), rel=1e-12)
    assert d.total_cost == w.sum()


@pytest.mark.parametrize("grid, axes", [((4,), None), (4, (1,)), ((2, 3), None),
                                        ((3, 2), (1, 0)), ("2x2", None)])
def test_2d_grids_tile(grid, axes):
    w = weights_2d()
    d = isocost.decompose(w, grid, axes=axes)
    check_tiles(w, d)
    assert d.lo.tolist() == d.cell_lo.tolist()  # cell units by default
    assert d.on_grid_lines and d.converged


def test_3d_grid_and_auto_choice():
    w = np.random.default_rng(5).integers(1, 10, size=(6, 5, 4)).astype(float)
    d = isocost.decompose(w, (2, 2, 2))
    check_tiles(w, d)
    assert d.cell_lo.shape == (8, 3)
    auto = isocost.decompose(w, ranks=4)
    check_tiles(w, auto)
    assert auto.ranks == 4


def test_rows_of_a_grid_match_the_1d_partition_of_its_row_sums():
    # One level along y: the heaviest-slab optimum of the row sums (rows are
    # cut at grid lines minimising the heaviest slab).
    w = weights_2d()
    d = isocost.decompose(w, (3,), axes=(1,))
    rows = w.sum(axis=0)
    slabs = [rows[lo:hi].sum() for lo, hi in zip(d.cell_lo[:, 1], d.cell_hi[:, 1])]
    assert d.cost.tolist() == pytest.approx(slabs)
    assert max(slabs) == d.max_time


def test_box_places_the_cells():
    w = weights_2d()  # 12 x 9 cells on [0, 6] x [-1, 2]: cells 0.5 wide and 1/3 high
    d = isocost.decompose(w, (2, 3), box=((0, -1), (6, 2)))
    cells = isocost.decompose(w, (2, 3))
    assert d.cell_lo.tolist() == cells.cell_lo.tolist()
    np.testing.assert_allclose(d.lo, cells.cell_lo * [0.5, 1 / 3] + [0, -1], rtol=0, atol=1e-14)
    np.testing.assert_allclose(d.hi, cells.cell_hi * [0.5, 1 / 3] + [0, -1], rtol=0, atol=1e-14)
    assert d.cost.tolist() == cells.cost.tolist()


def test_speeds_weight_the_parts():
    w = np.ones((12, 1))
    d = isocost.decompose(w, (3,), speeds=[1, 2, 3])
    assert d.cell_hi[:, 0].tolist() == [2, 6, 12]


@pytest.mark.parametrize(
    "args, kwargs, message",
    [
        ((np.ones((4, 4)), (2, 2)), dict(axes=(0, 0)), "process grid: axis x is cut twice"),
        ((np.ones((4, 4)), (2, 2)), dict(speeds=[1, 1, 1]),
         "the process grid 2x2 along x,y has 4 ranks but 3 speeds were given"),
        ((np.ones((4, 4, 2, 2)), (2,)), {}, "weights: expected a 1-D, 2-D or 3-D array, got 4 dimensions"),
        ((np.zeros((4, 4)), (2,)), {}, "grid density: all weights are zero; the total must be > 0"),
        ((np.array([[1, -1], [1, 1]]), (2,)), {},
         "grid density: weight of cell (0, 1): expected a finite value >= 0, got -1"),
        ((np.array([[1, np.nan], [1, 1]]), (2,)), {},
         "grid density: weight of cell (0, 1): expected a finite value >= 0, got nan"),
        ((np.ones((4, 4)), (5,)), {},
         "5 parts of width >= 0 along x do not fit in 4 cells of width 1 (4 wide)"),
        ((np.ones((4, 4)), "2y2"), {},
         "--grid: expected counts like 4x2 (parts along x, y, z) or auto, got '2y2'"),
        ((np.ones((4, 4)),), {}, "ranks: expected an integer >= 1 or a list of speeds, got neither"),
        ((np.ones((4, 4)), []), {}, "grid: expected at least one count, got none"),
        ((np.ones((4, 4)), "2x2"), dict(axes=(1, 0)),
         "axes: give them with a list of counts, not with '2x2'"),
        ((np.ones((4, 4)), (2,)), dict(min_width=[1, 2, 3]),
         "min_width: 3 values for 2 dimensions; expected one per axis"),
        ((np.ones((4, 4)), (2,)), dict(box=((0, 0), (1,))),
         "box: expected corners of 2 values, one per axis, got 2 and 1"),
        ((np.ones((4, 4)), (2,)), dict(box=(0, 1, 2)), "box: expected (lo, hi), two corners"),
        ((np.ones((4, 4)), (2,)), dict(box=((0, 1), (1, 1))),
         "grid density box: y range needs lo < hi, got lo=1, hi=1"),
        ((np.ones((4, 4)), (2,)), dict(min_width=3),
         "2 parts of width >= 3 along x do not fit in 4 cells of width 1 (4 wide)"),
    ],
)
def test_decompose_errors(raises, args, kwargs, message):
    with raises(isocost.Error, message):
        isocost.decompose(*args, **kwargs)


def test_decompose_type_error(raises):
    with raises(TypeError, "weights: expected an array of numbers, got <class 'str'>"):
        isocost.decompose("grid", (2,))
    with raises(TypeError, "grid: expected counts such as (4, 2), '4x2' or None, got <class 'float'>"):
        isocost.decompose(np.ones((4, 4)), 2.5)
    with raises(TypeError, "grid: expected an integer, got <class 'str'>"):
        isocost.decompose(np.ones((4, 4)), (2, "a"))
