# fit(): exact sieve data recovers Swartz's constants; interval helpers; every
# error path with its message.
import numpy as np
import pytest

import isocost

pytestmark = pytest.mark.skipif(not isocost.has_fitters, reason="built without the fitters")

A, P, C = 3.9098e-7, 1.43, 1.08366


def sieve_intervals():
    t = isocost.sieve_model(6, 1e6)
    edges = np.geomspace(100, 1e6, 13)
    return edges[:-1], edges[1:], t.cost(edges[:-1], edges[1:])


def test_fit_of_exact_sieve_data_recovers_swartz():
    lo, hi, dt = sieve_intervals()
    model, summary = isocost.fit(lo, hi, dt, "sieve+c")
    assert summary.converged and summary.termination == "converged"
    assert list(summary.parameters) == ["A", "p", "c", "q"]
    assert summary.parameters["A"] == pytest.approx(A, rel=1e-6)
    assert summary.parameters["p"] == pytest.approx(P, rel=1e-6)
    assert summary.parameters["c"] == pytest.approx(C, rel=1e-6)
    assert summary.parameter("q") == 1
    assert summary.r_squared == pytest.approx(1, abs=1e-12)
    assert summary.rmse < 1e-8
    assert summary.to_dict()["parameters"] == summary.parameters
    assert (model.lo, model.hi) == (100, 1e6)
    assert model.cost(hi[-1]) == pytest.approx(dt.sum(), rel=1e-8)


def test_auto_picks_a_sieve_form_on_sieve_data():
    lo, hi, dt = sieve_intervals()
    model, summary = isocost.fit(lo, hi, dt, "auto", ranks=8)
    assert summary.model.startswith("sieve"), summary.model
    assert summary.trusted, summary.untrusted_reason()
    assert summary.le_held_out is None  # a parametric form is checked on the samples
    g = summary.guaranteed
    assert g is not None and g["le_lo"] <= g["le_hi"] <= 100


def peak_cost(a, b):
    """The cost of [a, b) under the density 1 + 20 exp(-((x - 700)/50)^2) on [0, 1000]."""
    from math import erf, pi, sqrt
    T = lambda x: x + 500 * sqrt(pi) * erf((x - 700) / 50)
    return np.array([T(y) - T(x) for x, y in zip(np.atleast_1d(a), np.atleast_1d(b))])


def test_pchip_on_two_runs_merges_them_and_is_checked_held_out():
    # Round 1: 16 equal intervals; round 2: the parts round 1's cuts made.
    edges = np.linspace(0, 1000, 17)
    model, first = isocost.fit(edges[:-1], edges[1:], peak_cost(edges[:-1], edges[1:]), "pchip",
                               ranks=8)
    assert first.runs_merged == 1
    assert not first.trusted and "held out" in first.untrusted_reason()
    assert first.le_held_out < 90
    cuts = isocost.partition(model, 8).cuts
    lo = np.concatenate([edges[:-1], cuts[:-1]])
    hi = np.concatenate([edges[1:], cuts[1:]])
    model2, second = isocost.fit(lo, hi, peak_cost(lo, hi), "pchip", ranks=8)
    assert second.runs_merged == 2
    cuts2 = isocost.partition(model2, 8).cuts
    costs = peak_cost(cuts2[:-1], cuts2[1:])
    assert 100 * (2 - costs.max() / costs.mean()) >= 97
    assert second.guaranteed["le_lo"] > first.guaranteed["le_lo"]
    assert second.to_dict()["le_held_out"] == second.le_held_out


def test_fit_result_object_and_domain():
    lo, hi, dt = sieve_intervals()
    result = isocost.fit(lo, hi, dt, "power", domain_lo=50.0, domain_hi=2e6)
    assert result.converged and result.model.kind == "power"
    assert result.model.domain == (50, 2e6)
    assert result.summary.model == "power"


def test_intervals_from_partition_and_read_intervals(tmp_path):
    lo, hi, dt = isocost.intervals_from_partition([0, 1, 3, 3, 6], [2, 4, 9, 5])
    assert (lo.tolist(), hi.tolist(), dt.tolist()) == ([0, 1, 3], [1, 3, 6], [2, 4, 5])
    path = tmp_path / "timings.csv"
    path.write_text("lo,hi,dt\n0,1,2\n1,3,4\n")
    assert [a.tolist() for a in isocost.read_intervals(str(path))] == [[0, 1], [1, 3], [2, 4]]


def test_expression_model():
    t = isocost.expression_model("A*x^p", {"A": 2, "p": 2}, 0, 3)
    assert t.kind == "expression"
    assert t.cost(3.0) == pytest.approx(18)


@pytest.mark.parametrize(
    "args, kwargs, message",
    [
        (([1, 2], [2, 3], [1, 1], "nonsense"), {},
         "model: expected sieve, sieve+c, sieve+q, sieve+c+q, power, poly:N, exp, expr:FORMULA, "
         "pchip or makima, got 'nonsense'"),
        (([1, 2], [2, 3], [1], "sieve"), {},
         "samples: lo, hi and seconds must have one value per sample, got 2, 2 and 1"),
        (([100, 200], [200, 300], [1, 1], "sieve"), {},
         "fit of sieve: 2 samples for 2 parameters; need at least parameters + 1 = 3"),
        (([1, 2], [2, 1], [1, 1], "power"), {}, "samples: sample 1 (lo=2, hi=1, dt=1): expected lo < hi"),
        (([1, 2], [2, 3], [1, -1], "power"), {},
         "samples: sample 1 (lo=2, hi=3, dt=-1): expected dt > 0 (every measured range takes some time)"),
        (([1, 2], [2, 3], [1, 1], "power"), dict(loss="l1"),
         "loss: expected none, huber or cauchy, got 'l1'"),
    ],
)
def test_fit_errors(raises, args, kwargs, message):
    with raises(isocost.Error, message):
        isocost.fit(*args, **kwargs)


def test_other_fitter_errors(raises):
    with raises(isocost.Error,
                "formula 'A*x^^p': syntax error at position 4 ('^'): Unexpected operator \"^\" found"):
        isocost.expression_model("A*x^^p", {}, 0, 1)
    with raises(isocost.Error, "cannot open '/nonexistent.csv': no such file or directory"):
        isocost.read_intervals("/nonexistent.csv")
    with raises(isocost.Error,
                "samples from a partition: expected P + 1 = 2 cuts for P = 1 times, got 3"):
        isocost.intervals_from_partition([0, 1, 2], [1])
