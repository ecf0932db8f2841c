// PMPI interposition (see mpi_time.hpp). The library is static and linked into
// the benchmark, so its MPI calls bind to these definitions rather than to
// libmpi's weak MPI_ symbols; each forwards to PMPI_. Covered: every
// communicating call in src/mpi/*.cpp (collectives, point to point, waits).
// A user-defined MPI_Op runs inside the call, so it counts as MPI time.
#include "mpi_time.hpp"

#include <mpi.h>

#include "mpi_bench_support.hpp"

namespace {

struct Totals {
  isocost::bench::MpiTime time;
  bool counting = false;
  int depth = 0;  // an MPI implementation may call MPI_ from MPI_: count the outer call only
};
Totals totals;

// Adds the lifetime of one MPI call to the totals.
class Timed {
 public:
  Timed() : counted_(totals.counting), outer_(counted_ && totals.depth++ == 0) {
    if (outer_) {
      wall0_ = PMPI_Wtime();
      cpu0_ = isocost::bench::thread_cpu();
    }
  }
  ~Timed() {
    if (!counted_) return;
    --totals.depth;
    if (!outer_) return;
    totals.time.wall += PMPI_Wtime() - wall0_;
    totals.time.cpu += isocost::bench::thread_cpu() - cpu0_;
    ++totals.time.calls;
  }
  Timed(const Timed&) = delete;
  Timed& operator=(const Timed&) = delete;

 private:
  bool counted_, outer_;
  double wall0_ = 0, cpu0_ = 0;
};

}  // namespace

namespace isocost::bench {

void mpi_time_start() { totals = Totals{{}, true, 0}; }

MpiTime mpi_time_stop() {
  totals.counting = false;
  return totals.time;
}

}  // namespace isocost::bench

extern "C" {

int MPI_Allreduce(const void* s, void* r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
  const Timed timed;
  return PMPI_Allreduce(s, r, n, t, op, c);
}
int MPI_Iallreduce(const void* s, void* r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c,
                   MPI_Request* q) {
  const Timed timed;
  return PMPI_Iallreduce(s, r, n, t, op, c, q);
}
int MPI_Reduce(const void* s, void* r, int n, MPI_Datatype t, MPI_Op op, int root, MPI_Comm c) {
  const Timed timed;
  return PMPI_Reduce(s, r, n, t, op, root, c);
}
int MPI_Reduce_scatter_block(const void* s, void* r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
  const Timed timed;
  return PMPI_Reduce_scatter_block(s, r, n, t, op, c);
}
int MPI_Exscan(const void* s, void* r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
  const Timed timed;
  return PMPI_Exscan(s, r, n, t, op, c);
}
int MPI_Scan(const void* s, void* r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
  const Timed timed;
  return PMPI_Scan(s, r, n, t, op, c);
}
int MPI_Bcast(void* b, int n, MPI_Datatype t, int root, MPI_Comm c) {
  const Timed timed;
  return PMPI_Bcast(b, n, t, root, c);
}
int MPI_Barrier(MPI_Comm c) {
  const Timed timed;
  return PMPI_Barrier(c);
}
int MPI_Allgather(const void* s, int ns, MPI_Datatype ts, void* r, int nr, MPI_Datatype tr,
                  MPI_Comm c) {
  const Timed timed;
  return PMPI_Allgather(s, ns, ts, r, nr, tr, c);
}
int MPI_Allgatherv(const void* s, int ns, MPI_Datatype ts, void* r, const int nr[], const int dr[],
                   MPI_Datatype tr, MPI_Comm c) {
  const Timed timed;
  return PMPI_Allgatherv(s, ns, ts, r, nr, dr, tr, c);
}
int MPI_Gather(const void* s, int ns, MPI_Datatype ts, void* r, int nr, MPI_Datatype tr, int root,
               MPI_Comm c) {
  const Timed timed;
  return PMPI_Gather(s, ns, ts, r, nr, tr, root, c);
}
int MPI_Scatterv(const void* s, const int ns[], const int ds[], MPI_Datatype ts, void* r, int nr,
                 MPI_Datatype tr, int root, MPI_Comm c) {
  const Timed timed;
  return PMPI_Scatterv(s, ns, ds, ts, r, nr, tr, root, c);
}
int MPI_Alltoall(const void* s, int ns, MPI_Datatype ts, void* r, int nr, MPI_Datatype tr,
                 MPI_Comm c) {
  const Timed timed;
  return PMPI_Alltoall(s, ns, ts, r, nr, tr, c);
}
int MPI_Alltoallv(const void* s, const int ns[], const int ds[], MPI_Datatype ts, void* r,
                  const int nr[], const int dr[], MPI_Datatype tr, MPI_Comm c) {
  const Timed timed;
  return PMPI_Alltoallv(s, ns, ds, ts, r, nr, dr, tr, c);
}
int MPI_Neighbor_allgather(const void* s, int ns, MPI_Datatype ts, void* r, int nr, MPI_Datatype tr,
                           MPI_Comm c) {
  const Timed timed;
  return PMPI_Neighbor_allgather(s, ns, ts, r, nr, tr, c);
}
int MPI_Sendrecv(const void* s, int ns, MPI_Datatype ts, int to, int tag_s, void* r, int nr,
                 MPI_Datatype tr, int from, int tag_r, MPI_Comm c, MPI_Status* st) {
  const Timed timed;
  return PMPI_Sendrecv(s, ns, ts, to, tag_s, r, nr, tr, from, tag_r, c, st);
}
int MPI_Send(const void* b, int n, MPI_Datatype t, int to, int tag, MPI_Comm c) {
  const Timed timed;
  return PMPI_Send(b, n, t, to, tag, c);
}
int MPI_Recv(void* b, int n, MPI_Datatype t, int from, int tag, MPI_Comm c, MPI_Status* st) {
  const Timed timed;
  return PMPI_Recv(b, n, t, from, tag, c, st);
}
int MPI_Wait(MPI_Request* q, MPI_Status* st) {
  const Timed timed;
  return PMPI_Wait(q, st);
}
int MPI_Waitall(int n, MPI_Request q[], MPI_Status st[]) {
  const Timed timed;
  return PMPI_Waitall(n, q, st);
}

}  // extern "C"
