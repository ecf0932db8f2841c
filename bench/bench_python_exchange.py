"""isocost.mpi.exchange() and BlockBalancer.apply() against the plain mpi4py
code a Python user would write instead, in the same run (medians).

    mpiexec -n 4 python3 bench/bench_python_exchange.py [--n 200000] [--repeats 21]

exchange: every rank holds n elements (an int64 key and two float64 values)
of which a fraction leaves for the owners of their keys in a block
distribution. The plain version: owners by np.searchsorted, a stable sort by
owner, Alltoall of the counts, one Alltoallv per array.
apply: a global rebalance (on costs growing along the elements) moving an
id array and the values from equal blocks to the plan's; the plain version
computes each element's new owner and exchanges as above.
"""
import argparse
import time

import numpy as np
from mpi4py import MPI

import isocost.mpi as im

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()


def plain_exchange(offsets, keys, *arrays):
    owner = np.searchsorted(offsets, keys, side="right") - 1
    order = np.argsort(owner, kind="stable")
    send = np.bincount(owner, minlength=size).astype(np.int64)
    recv = np.empty(size, dtype=np.int64)
    comm.Alltoall(send, recv)
    sdis = np.concatenate(([0], np.cumsum(send)[:-1]))
    rdis = np.concatenate(([0], np.cumsum(recv)[:-1]))
    out = []
    for a in (keys,) + arrays:
        mine = np.ascontiguousarray(a[order])
        got = np.empty((int(recv.sum()),) + a.shape[1:], dtype=a.dtype)
        row = int(np.prod(a.shape[1:], dtype=np.int64))
        t = MPI._typedict[a.dtype.char]
        comm.Alltoallv([mine, send * row, sdis * row, t], [got, recv * row, rdis * row, t])
        out.append(got)
    return out


def median_time(f, repeats):
    times = []
    for _ in range(repeats):
        comm.Barrier()
        t0 = time.perf_counter()
        f()
        t = comm.allreduce(time.perf_counter() - t0, op=MPI.MAX)
        times.append(t)
    return float(np.median(times))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=200000)
    p.add_argument("--repeats", type=int, default=21)
    a = p.parse_args()
    N = a.n * size
    d = im.BlockDistribution.uniform(N, size)
    lo = d.begin(rank)
    rng = np.random.default_rng(rank)
    rows = []
    for leaving in (0.01, 0.1, 1.0):
        keys = lo + np.arange(a.n, dtype=np.int64)
        move = rng.random(a.n) < leaving
        keys[move] = rng.integers(0, N, size=int(move.sum()))
        x = np.stack([keys * 0.5, keys * 0.25], axis=1)
        ours = median_time(lambda: im.exchange(comm, d, keys, x), a.repeats)
        plain = median_time(lambda: plain_exchange(d.offsets, keys, x), a.repeats)
        rows.append(("exchange, %g %% leave" % (100 * leaving), ours, plain))

    ids = lo + np.arange(a.n, dtype=np.int64)
    x = np.stack([ids * 0.5, ids * 0.25], axis=1)
    options = {"pipeline": {"trigger": {"every": 1}, "monitor": {"window": 1}, "policy": "global",
                            "decision_seconds": 0.0, "comm": {"latency": 0.0, "per_byte": 0.0}}}

    # Per repeat: a balancer decides on costs that make the plan (untimed);
    # apply() moves the arrays (timed) against the plain move to the same
    # blocks.
    times = []
    for _ in range(a.repeats):
        with im.BlockBalancer(comm, d, options) as b:
            b.set_costs(1.0 + np.arange(lo, d.end(rank), dtype=float))
            b.record_step(1.0 + rank)
            plan = b.decide(bytes_per_element=24)
            comm.Barrier()
            t0 = time.perf_counter()
            b.apply(plan, ids, x)
            times.append(comm.allreduce(time.perf_counter() - t0, op=MPI.MAX))
            target = plan.target
    rows.append(("apply(plan, ids, x): a global rebalance", float(np.median(times)),
                 median_time(lambda: plain_exchange(target.offsets, ids, x), a.repeats)))
    if rank == 0:
        print("%d ranks, %d elements per rank, medians of %d, wall ms (slowest rank)"
              % (size, a.n, a.repeats))
        print("%-44s %10s %10s %7s" % ("case", "isocost", "plain", "ratio"))
        for name, o, q in rows:
            print("%-44s %10.2f %10.2f %7.2f" % (name, 1e3 * o, 1e3 * q, o / q))


main()
