# partition() and load_stats(): known cuts, invariants and every error path.
import numpy as np
import pytest

import isocost

WEIGHTS = [5, 5, 9, 6, 3, 8, 2, 2]


def test_discrete_weights_into_three_parts():
    p = isocost.partition(isocost.discrete_model(WEIGHTS), 3)
    assert p.cuts.tolist() == [0, 2, 5, 8]  # costs 10, 18, 12 against targets 40/3
    assert p.cost.tolist() == [10, 18, 12]
    assert p.integer and p.converged and p.termination == "converged"


def test_speeds_set_the_shares():
    t = isocost.power_model(1.0, 1.0, 0, 10)  # t(x) = x: cuts at the speed shares
    p = isocost.partition(t, speeds=[1, 3, 1])
    assert p.cuts == pytest.approx([0, 2, 8, 10], abs=1e-12)
    assert p.time == pytest.approx([2, 2, 2], abs=1e-12)
    assert isocost.partition(t, 3, speeds=np.array([1.0, 3.0, 1.0])).cuts.tolist() == p.cuts.tolist()


def test_integer_cuts_on_a_continuous_model():
    p = isocost.partition(isocost.power_model(1.0, 2.0, 0, 10), 4, integer=True)
    assert p.cuts.tolist() == [0, 5, 7, 9, 10]  # sqrt(25), sqrt(50), sqrt(75) rounded by t
    assert np.all(p.cuts == np.round(p.cuts))


def test_sieve_partition_is_equal_cost():
    t = isocost.sieve_model(6, 1e6)
    p = isocost.partition(t, 16)
    assert p.cuts[0] == 6 and p.cuts[-1] == 1e6
    assert np.all(np.diff(p.cuts) > 0)
    assert t.cost(p.cuts[:-1], p.cuts[1:]) == pytest.approx(np.full(16, t.total / 16), rel=1e-9)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(ranks=0), "ranks: expected an integer >= 1, got 0"),
        (dict(), "ranks: expected an integer >= 1 or a list of speeds, got neither"),
        (dict(ranks=3, speeds=[1, 2]), "speeds: 2 values for 3 ranks; expected one per rank"),
        (dict(ranks=3, speeds=[1, -2, 1]),
         "speeds: speed of rank 1: expected a finite number > 0, got -2"),
        (dict(speeds=[1, float("nan"), 1]),
         "speeds: speed of rank 1: expected a finite number > 0, got nan"),
        (dict(speeds=[[1, 2]]), "speeds: expected a 1-D array, got 2 dimensions"),
    ],
)
def test_partition_errors(raises, kwargs, message):
    with raises(isocost.Error, message):
        isocost.partition(isocost.discrete_model(WEIGHTS), **kwargs)


def test_partition_type_errors(raises):
    with raises(isocost.Error, "ranks: expected an integer below 2^31, got 10000000000"):
        isocost.partition(isocost.discrete_model(WEIGHTS), 10**10)
    with raises(TypeError, "ranks: expected an integer, got <class 'str'>"):
        isocost.partition(isocost.discrete_model(WEIGHTS), "x")
    with pytest.raises(TypeError):
        isocost.partition("not a model", 3)


def test_integer_partition_needs_integer_ends(raises):
    with raises(isocost.Error,
                "integer partition: the domain ends: expected integers with |x| <= 2^53, got 0.5"):
        isocost.partition(isocost.power_model(1, 2, 0.5, 3.5), 3, integer=True)


def test_load_stats_known_values():
    s = isocost.load_stats(np.array([1.0, 2.0, 3.0, 4.0]))
    # T_avg = 2.5, T_max = 4: L_I = 60 %, L_E = 40 %, E = 0.625 (Swartz eqs 2-3).
    assert (s.li, s.le, s.efficiency, s.argmax, s.skewness) == (60, 40, 0.625, 3, 0)
    assert s.to_dict()["le"] == 40
    assert isocost.load_stats([2, 2]).skewness is None  # sigma = 0: undefined


@pytest.mark.parametrize(
    "times, message",
    [
        ([], "load: expected at least one load, got none"),
        ([1, -1], "load: load of rank 1: expected a finite number >= 0, got -1"),
        ([0, 0], "load: all loads are zero; expected a positive total"),
        ([1, float("inf")], "load: load of rank 1: expected a finite number >= 0, got inf"),
    ],
)
def test_load_stats_errors(raises, times, message):
    with raises(isocost.Error, message):
        isocost.load_stats(times)
