# isocost.mpi.Balancer under mpiexec (1 and 2 ranks): a load whose cost
# per element grows with the index is rebalanced by the elements' own costs,
# the data move with their elements exactly, and bad input is named on every
# rank. Decisions are made reproducible with given costs of deciding and
# communicating (decision_seconds, comm_latency, comm_per_byte).
import numpy as np
import pytest
from mpi4py import MPI

import isocost
import isocost.mpi

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
N = 1000
COST = np.arange(N, dtype=float) + 1.0  # element i costs i + 1


def balancer(**kwargs):
    options = dict(check_every=1, policy="global", decision_seconds=0.0, comm_latency=0.0,
                   comm_per_byte=0.0, window=1)
    options.update(kwargs)
    return isocost.mpi.Balancer(comm, N, **options)


def test_a_skewed_load_is_rebalanced_and_the_data_follow():
    with balancer() as b:
        begin, count = b.local
        assert b.offsets[0] == 0 and b.offsets[-1] == N
        ids = np.arange(begin, begin + count, dtype=np.int64)  # each element's global index
        xy = np.stack([ids * 2.0, ids * 3.0], axis=1)          # two values per element
        costs = COST[begin:begin + count]
        b.set_costs(costs)
        b.record_step(float(costs.sum()))
        d = b.check(bytes_per_element=8 + 16)
        assert d["checked"]
        if size == 1:
            assert d["action"] == "none"
            return
        assert d["action"] == "global", d["reason"]
        ids, xy = b.migrate(ids, xy)
        begin, count = b.local
        assert (begin, count) == (d["new_local_begin"], d["new_local_count"])
        # Every element is where the new offsets say, with its own values.
        assert ids.tolist() == list(range(begin, begin + count))
        assert xy.shape == (count, 2)
        assert np.array_equal(xy[:, 0], ids * 2.0) and np.array_equal(xy[:, 1], ids * 3.0)
        # The new split balances the costs: each rank's share within one element's cost.
        mine = COST[begin:begin + count].sum()
        shares = comm.allgather(mine)
        assert max(shares) - min(shares) <= COST.max()
        assert comm.allreduce(count) == N


def test_bad_input_is_named():
    with balancer() as b:
        begin, count = b.local
        with pytest.raises(isocost.Error, match="policy"):
            isocost.mpi.Balancer(comm, N, policy="sometimes")
        with pytest.raises(isocost.Error, match="rank 0: migrate: array 0 has"):
            b.migrate(np.zeros(count + 1))
        # Wrong on one rank only: every rank gets that rank's error, none waits.
        with pytest.raises(isocost.Error, match=f"rank {size - 1}: migrate: array 1 has"):
            b.migrate(np.zeros(count), np.zeros(count + (rank == size - 1)))
    with pytest.raises(TypeError, match="mpi4py communicator"):
        isocost.mpi.Balancer(42, N)
    b = balancer()
    b.close()
    with pytest.raises(isocost.Error, match="closed"):
        b.record_step(1.0)
