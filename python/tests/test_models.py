# Models: exact values where they are known, numpy in and out, and every
# error path with its message.
import math

import numpy as np
import pytest

import isocost


def test_error_is_a_value_error():
    assert issubclass(isocost.Error, ValueError)


def test_discrete_model_prefix_sums_and_domain():
    t = isocost.discrete_model([5, 5, 9, 6, 3, 8, 2, 2], first=10)
    assert t.domain == (10.0, 18.0)
    assert t.total == 40
    assert t.is_discrete and t.kind == "discrete"
    assert t.prefix_sums.tolist() == [0, 5, 10, 19, 25, 28, 36, 38, 40]
    # cost(first + k) is the k-th prefix sum; the interval form is a difference.
    assert t.cost(np.arange(10, 19)).tolist() == t.prefix_sums.tolist()
    assert t.cost(12, 15) == 18


def test_power_model_is_vectorised_over_any_shape():
    t = isocost.power_model(2.0, 2.0, 0, 3)  # t(x) = 2 x^2, t'(x) = 4 x
    x = np.array([[0.0, 1.0], [2.0, 3.0]])
    assert t.cost(x).tolist() == [[0, 2], [8, 18]]
    assert t.density(x).tolist() == [[0, 4], [8, 12]]
    assert t.cost(x).shape == (2, 2)
    assert isinstance(t.cost(1.5), float) and t.cost(1.5) == 4.5
    assert t.cost([1, 2]).tolist() == [2, 8]  # lists and integer dtypes convert
    assert t.cost(np.array([1, 2], dtype=np.int32)).tolist() == [2, 8]


def test_sieve_model_defaults_are_swartz():
    t = isocost.sieve_model(6, 1e6)
    A, p, c = 3.9098e-7, 1.43, 1.08366
    T = lambda x: A * x**p / (math.log(x) - c)
    assert t.cost(1e6) == pytest.approx(T(1e6) - T(6), rel=1e-14)
    assert "A=3.9098e-07 p=1.43 c=1.08366" in t.describe()


def test_polynomial_and_tabulated_models():
    t = isocost.polynomial_model([0, 1, 0.5, 0.25], 0, 4)  # u + u^2/2 + u^3/4
    assert t.cost(2.0) == 2 + 2 + 2
    tab = isocost.tabulated_model([0, 1, 2, 4], [0, 1, 3, 4], "linear")
    assert tab.cost([0.5, 1.5, 3.0]).tolist() == [0.5, 2.0, 3.5]
    assert tab.kind == "linear"


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: isocost.sieve_model(6, 1e6, A=-1), "sieve model: A: expected > 0, got -1"),
        (lambda: isocost.power_model(1, 2, 5, 1),
         "power model: domain needs lo < hi, got lo=5, hi=1"),
        (lambda: isocost.polynomial_model([0, -1], 0, 1),
         "polynomial model: t'(0): expected a value >= 0 (t(x) nondecreasing on [0, 1]), got -1"),
        (lambda: isocost.tabulated_model([0, 1, 1], [0, 1, 2]),
         "pchip model: needs at least 4 samples, got 3"),
        (lambda: isocost.tabulated_model([0, 1], [0, 1, 2]), "pchip model: 2 x values but 3 t values"),
        (lambda: isocost.tabulated_model([0, 1, 2], [0, 1, 2], "cubic"),
         "interpolation: expected pchip, makima or linear, got 'cubic'"),
        (lambda: isocost.discrete_model([1, float("nan")]),
         "discrete model: weight 1: expected a finite value >= 0, got nan"),
        (lambda: isocost.discrete_model([]), "discrete model: the weight list is empty"),
        (lambda: isocost.discrete_model([[1, 2], [3, 4]]),
         "weights: expected a 1-D array, got 2 dimensions"),
        (lambda: isocost.discrete_model([1, 2]).cost(5), "x=5 is outside the model domain [0, 2]"),
        (lambda: isocost.discrete_model([1, 2]).cost(float("nan")),
         "x=nan is outside the model domain [0, 2]"),
        (lambda: isocost.discrete_model([1, 2]).density([0.5, 3]),
         "x=3 is outside the model domain [0, 2]"),
        (lambda: isocost.discrete_model([1, 2]).cost(2, 1), "cost(a, b) needs a <= b, got a=2, b=1"),
    ],
)
def test_model_errors(raises, make, message):
    with raises(isocost.Error, message):
        make()


def test_wrong_dtype_is_a_type_error(raises):
    with raises(TypeError, "weights: expected an array of numbers, got <class 'str'>"):
        isocost.discrete_model("abc")
    with pytest.raises(TypeError, match="incompatible function arguments"):
        isocost.discrete_model([1, 2]).cost(np.array(["a"]))
