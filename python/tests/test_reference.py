# The module's results equal the C++ API's on the same inputs, bit for bit
# (reference.cpp prints them; JSON doubles round-trip exactly).
import numpy as np
import pytest

import isocost


def build(case):
    return getattr(isocost, case["factory"])(**case["args"])


def test_models_equal_cpp(reference):
    for case in reference["models"]:
        t = build(case)
        x = np.array(case["x"])
        assert t.cost(x).tolist() == case["cost"], case["factory"]
        assert t.density(x).tolist() == case["density"], case["factory"]
        assert t.total == case["total"]
        assert t.describe() == case["describe"]
        # A number in gives a number out, equal to the array's element.
        assert t.cost(case["x"][3]) == case["cost"][3]


def test_partitions_equal_cpp(reference):
    for case in reference["partitions"]:
        t = build(reference["models"][case["model"]])
        speeds = case["speeds"] or None
        p = isocost.partition(t, case["ranks"], speeds=speeds, integer=case["integer"])
        assert p.cuts.tolist() == case["cuts"], case
        assert p.time.tolist() == case["time"], case
        assert p.predicted_le == case["predicted_le"]
        assert p.converged


def test_load_stats_equal_cpp(reference):
    case = reference["load_stats"]
    s = isocost.load_stats(np.array(case["times"]))
    for key in ("le", "li", "efficiency", "sigma", "skewness", "kurtosis"):
        assert getattr(s, key) == case[key], key


def test_fit_equals_cpp(reference):
    case = reference["fit"]
    model, summary = isocost.fit(np.array(case["lo"]), np.array(case["hi"]),
                                 np.array(case["seconds"]), case["spec"])
    assert summary.converged == case["converged"]
    assert summary.parameters == case["parameters"]
    assert summary.rmse == case["rmse"]
    assert summary.r_squared == case["r_squared"]
    assert model.kind == "sieve"


def test_decompositions_equal_cpp(reference):
    for case in reference["decompose"]:
        # The C++ weights are x fastest: axis 0 of a Fortran-order reshape.
        w = np.array(case["weights"]).reshape(case["nx"], case["ny"], order="F")
        d = isocost.decompose(w, case["counts"], axes=case["axes"])
        assert d.cell_lo.tolist() == case["cell_lo"]
        assert d.cell_hi.tolist() == case["cell_hi"]
        assert d.cost.tolist() == case["cost"]
        assert d.total_cost == case["total"]
