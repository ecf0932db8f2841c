"""The 1-D balancer in a time-step loop, from Python (docs/python.md).

N elements whose cost grows along the line (element g costs 1 + 9·g/N units
of work) start in equal blocks. Each step every rank does its elements' work,
records it with record_step() (the counted work, so every run decides the
same; a real code would use `with b.step():` and its wall time), and calls
maybe_rebalance(x, ids), which moves both arrays when a rebalance pays.
At the end the ids must be conserved and in place, x must still match ids,
and the efficiency must have risen.

    mpiexec -n 4 /usr/bin/python3 examples/python/block_balancer.py
"""
import sys

import numpy as np
from mpi4py import MPI

import isocost.mpi as im

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
N, STEPS = 4000, 30
OPTIONS = {"pipeline": {"decision_seconds": 0.0, "comm": {"latency": 1e-4, "per_byte": 1e-9}}}


def cost(ids):
    return 1 + 9 * ids / N


def efficiency(ids):
    loads = comm.allgather(float(cost(ids).sum()))
    return sum(loads) / len(loads) / max(loads)


with im.BlockBalancer(comm, im.BlockDistribution.uniform(N, size), OPTIONS) as b:
    lo, hi = b.local_range()
    ids = np.arange(lo, hi, dtype=np.int64)
    x = np.stack([np.sin(ids), np.cos(ids)], axis=1)  # two values per element
    first = efficiency(ids)
    for step in range(STEPS):
        b.record_step(float(cost(ids).sum()))
        x, ids = b.maybe_rebalance(x, ids)
        if rank == 0 and b.last_event["action"] != "none":
            print(f"step {step}: {b.last_event['action']}, {b.last_event['reason']}")
    last = efficiency(ids)
    lo, hi = b.local_range()
    in_place = comm.allreduce(int(ids.tolist() == list(range(lo, hi))), op=MPI.MIN)
    conserved = comm.allreduce(len(ids)) == N and comm.allreduce(int(ids.sum())) == N * (N - 1) // 2
    values = comm.allreduce(int(np.array_equal(x, np.stack([np.sin(ids), np.cos(ids)], axis=1))),
                            op=MPI.MIN)
ok = bool(in_place and conserved and values and (size == 1 or (last >= 0.95 and first < 0.95)))
if rank == 0:
    print(f"check: ids conserved {conserved}, in place {bool(in_place)}, values {bool(values)}, "
          f"efficiency {first:.3f} -> {last:.3f}: {'PASS' if ok else 'FAIL'}")
sys.exit(0 if ok else 1)
