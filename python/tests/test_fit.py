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
