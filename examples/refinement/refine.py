#!/usr/bin/env python3
"""Measure, cut, measure the new cuts, merge: `isocost cut --fit` over rounds.

A kernel whose cost has a narrow peak is timed on 16 equal intervals
(run1.csv). Each round runs

    isocost cut --fit run1.csv ... runK.csv --model pchip --ranks 8 --json

and then "times" the parts its cuts make (run<K+1>.csv), the way ranks would
time their own ranges in the next run. The cost is known here, so each
round's cuts get their true L_E next to what isocost says about them.

    python3 examples/refinement/refine.py --isocost build-dev/isocost --check

Standard library only. Exit 0, or 1 when isocost fails (an exit code other
than 0, trusted, or 3, not trusted) or a --check does not hold.
"""
import argparse
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile

LO, HI = 0.0, 1000.0
FIRST_INTERVALS = 16  # round 1 times an equal split


def cost_to(x):
    """T(x), the true cumulative cost of the density 1 + 20 exp(-((x-700)/50)^2) µs."""
    k = 20 * 50 * math.sqrt(math.pi) / 2
    return (x - LO) + k * (math.erf((x - 700) / 50) - math.erf((LO - 700) / 50))


def time_parts(cuts, rnd, noise):
    """Rows lo,hi,dt: each part's true cost, off by up to ±noise (uniform)."""
    return [(a, b, (cost_to(b) - cost_to(a)) * (1 + rnd.uniform(-noise, noise)))
            for a, b in zip(cuts, cuts[1:])]


def true_le(cuts):
    """L_E = 100·(2 − T_max/T_avg) (Swartz eq. 3) of the parts' true costs."""
    costs = [cost_to(b) - cost_to(a) for a, b in zip(cuts, cuts[1:])]
    return 100 * (2 - max(costs) / (sum(costs) / len(costs)))


def find_isocost(given):
    if given:
        return given
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for path in (shutil.which("isocost"), os.path.join(root, "build", "isocost"),
                 os.path.join(root, "build-dev", "isocost")):
        if path and os.access(path, os.X_OK):
            return path
    sys.exit("refine.py: no isocost on PATH, in build/ or in build-dev/; give --isocost PATH")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--isocost", help="the isocost program (default: PATH, build/, build-dev/)")
    ap.add_argument("--ranks", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--model", default="pchip", help="pchip, makima or auto")
    ap.add_argument("--noise", type=float, default=0.01, help="timing noise, a fraction")
    ap.add_argument("--tell-noise", action="store_true",
                    help="pass --noise to isocost too: its guarantee then allows for the noise")
    ap.add_argument("--seed", type=int, default=1, help="round k draws its noise with seed + k - 1")
    ap.add_argument("--workdir", help="where run1.csv ... go (default: a temporary directory)")
    ap.add_argument("--check", action="store_true",
                    help="exit 1 unless round 1 is not trusted and the last round's true L_E >= 97 %%")
    args = ap.parse_args()
    isocost = find_isocost(args.isocost)
    with tempfile.TemporaryDirectory() as tmp:
        workdir = args.workdir or tmp
        os.makedirs(workdir, exist_ok=True)
        rows = run_rounds(isocost, args, workdir)
    print("round  files  verdict      held-out L_E %  guaranteed L_E %   true L_E %")
    for r in rows:
        print("%5d  %5d  %-11s  %14s  %16s  %11.1f" % r)
    if args.check:
        failed = []
        if rows[0][2] == "trusted":
            failed.append("round 1 is trusted, but its 16 intervals are too coarse for the peak")
        if rows[-1][5] < 97:
            failed.append("the last round's true L_E %.1f %% < 97 %%" % rows[-1][5])
        for why in failed:
            print("refine.py: check failed: " + why, file=sys.stderr)
        return 1 if failed else 0
    return 0


def run_rounds(isocost, args, workdir):
    rows = []
    cuts = [LO + (HI - LO) * i / FIRST_INTERVALS for i in range(FIRST_INTERVALS + 1)]
    files = []
    for k in range(1, args.rounds + 1):
        # Time the parts of the last cuts (round 1: the equal split) into runK.csv.
        files.append(os.path.join(workdir, "run%d.csv" % k))
        with open(files[-1], "w") as f:
            f.write("lo,hi,dt\n")
            for row in time_parts(cuts, random.Random(args.seed + k - 1), args.noise):
                f.write("%r,%r,%r\n" % row)
        # Fit every run so far (the newest last) and cut for the next round.
        cmd = [isocost, "cut", "--fit", *files, "--model", args.model,
               "--ranks", str(args.ranks), "--json"]
        if args.tell_noise:
            cmd += ["--noise", str(args.noise)]
        try:
            done = subprocess.run(cmd, capture_output=True, text=True)
        except OSError as e:
            sys.exit("refine.py: cannot run %s: %s" % (isocost, e))
        if done.returncode not in (0, 3):  # 0 trusted, 3 not trusted; anything else fails
            sys.stderr.write(done.stderr)
            sys.exit("refine.py: %s exited with %d" % (" ".join(cmd), done.returncode))
        out = json.loads(done.stdout)
        cuts = [c["x"] for c in out["cuts"]]
        balance = out["fit"]["balance"]
        g = balance["guaranteed"] or {}
        lo = "n/a" if g.get("le_lo") is None else "%.0f" % g["le_lo"]
        hi = "n/a" if g.get("le_hi") is None else "%.0f" % g["le_hi"]
        held = "n/a" if balance.get("le_held_out") is None else "%.1f" % balance["le_held_out"]
        verdict = "trusted" if out["fit"]["verdict"]["trusted"] else "NOT TRUSTED"
        if done.returncode == 3 and verdict == "trusted":
            verdict = "no converge"  # exit 3 for a cut that did not converge
        rows.append((k, len(files), verdict, held, lo + " to " + hi, true_le(cuts)))
    return rows


if __name__ == "__main__":
    sys.exit(main())
