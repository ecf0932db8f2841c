#!/usr/bin/env python3
"""Fit interval timings, cut the fitted model for 8 ranks, plot t(x) and the cuts.

Notebook-style: run it cell by cell or as a script.

    PYTHONPATH=build/python/module /usr/bin/python3 examples/python/fit_and_plot.py out.png

The timings are made here from Swartz's sieve model with 3 % noise; read your
own with isocost.read_intervals("timings.csv") (rows "lo,hi,dt").
"""
import sys

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt
import numpy as np

import isocost

if len(sys.argv) > 2 or (len(sys.argv) == 2 and sys.argv[1].startswith("-")):
    sys.exit(__doc__)  # usage (exit status 1), not a PNG named "--help"
out = sys.argv[1] if len(sys.argv) > 1 else "fit_and_plot.png"

# %% 1. Interval timings: 16 ranks each timed its range [lo, hi).
truth = isocost.sieve_model(6, 1e6)  # Swartz eq. (4) with his T3D constants
edges = np.linspace(6, 1e6, 17)
rng = np.random.default_rng(1)
seconds = truth.cost(edges[:-1], edges[1:]) * rng.normal(1, 0.03, 16)

# %% 2. Fit the sieve form to them.
model, summary = isocost.fit(edges[:-1], edges[1:], seconds, "sieve")
print(summary.brief_report())
if not summary.converged:
    sys.exit(f"the fit did not converge: {summary.message}")

# %% 3. Cut the fitted model for 8 ranks of equal speed.
part = isocost.partition(model, 8)
print("cuts:", np.round(part.cuts).astype(int))
print(f"predicted L_E: {part.predicted_le:.2f} %")

# %% 4. Plot t(x), the timings it was fitted to, and the cuts.
x = np.linspace(model.lo, model.hi, 400)
fig, ax = plt.subplots(figsize=(7, 4))
ax.plot(x, model.cost(x), label=f"fitted {summary.model}: R² = {summary.r_squared:.4f}")
ax.plot(edges[1:], np.cumsum(seconds), "o", ms=4, label="measured (cumulative)")
for cut in part.cuts[1:-1]:
    ax.axvline(cut, color="grey", lw=0.8)
ax.set_xlabel("x")
ax.set_ylabel("t(x), seconds")
ax.set_title("Equal-cost cuts for 8 ranks")
ax.legend()
fig.tight_layout()
fig.savefig(out, dpi=100)
print("wrote", out)
