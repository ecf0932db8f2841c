/* c_mpi_example.c — the example of docs/c_api_mpi.md, compiled as C99 and run
 * under mpiexec by CTest: N elements, the first quarter 4 times as costly;
 * a balancer checks every 2 steps and migrates two arrays (ids, values).
 * Exits 1 if any call fails or any element is out of place after a
 * migration, 0 otherwise. Loads are synthetic (each rank records the sum of
 * its elements' costs), so the output is the same on every run. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "isocost/isocost_mpi.h"

#define N 1000

static double cost(int64_t i) { return i < N / 4 ? 4.0 : 1.0; }

static int fail(const char* what) {
  fprintf(stderr, "%s: %s\n", what, isocost_last_error());
  return 1;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, bad = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);

  isocost_balancer_options o;
  isocost_balancer_options_init(&o);
  o.check_every = 2;      /* check every 2 steps */
  o.window = 1;           /* on the last step's loads */
  o.decision_seconds = 0; /* decisions independent of the machine's timing */
  o.comm_latency = 0;
  o.comm_per_byte = 0;
  isocost_balancer* b = NULL;
  if (isocost_balancer_create(MPI_COMM_WORLD, N, NULL, &o, &b) != ISOCOST_OK) bad = fail("create");

  int64_t begin = 0, count = 0;
  isocost_balancer_local(b, &begin, &count);
  int64_t* ids = malloc((size_t)count * sizeof *ids + 1);
  double* values = malloc((size_t)count * sizeof *values + 1);
  for (int64_t k = 0; k < count; ++k) {
    ids[k] = begin + k;
    values[k] = 0.5 * (double)(begin + k);
  }

  for (int step = 0; step < 6 && !bad; ++step) {
    double load = 0; /* this rank's work: the sum of its elements' costs */
    double* costs = malloc((size_t)count * sizeof *costs + 1);
    for (int64_t k = 0; k < count; ++k) load += costs[k] = cost(ids[k]);
    isocost_balancer_record_step(b, load);
    /* Optional: per-element costs let the plan place the cuts exactly. */
    isocost_balancer_set_costs(b, costs, count);
    free(costs);

    isocost_balancer_decision d;
    if (isocost_balancer_check(b, sizeof(int64_t) + sizeof(double), &d) != ISOCOST_OK) {
      bad = fail("check");
      break;
    }
    if (d.checked && rank == 0)
      printf("step %lld: efficiency %.3f, %s\n", d.step, d.efficiency, d.reason);
    if (d.action == ISOCOST_ACTION_NONE) continue;

    /* Allocate the new arrays, migrate both in one exchange, swap. */
    int64_t* ids2 = malloc((size_t)d.new_local_count * sizeof *ids2 + 1);
    double* values2 = malloc((size_t)d.new_local_count * sizeof *values2 + 1);
    const void* olds[2] = {ids, values};
    void* news[2] = {ids2, values2};
    const size_t bytes[2] = {sizeof *ids, sizeof *values};
    if (isocost_balancer_migrate(b, 2, olds, news, bytes) != ISOCOST_OK) bad = fail("migrate");
    free(ids);
    free(values);
    ids = ids2;
    values = values2;
    isocost_balancer_local(b, &begin, &count);
    for (int64_t k = 0; k < count; ++k)
      if (ids[k] != begin + k || values[k] != 0.5 * (double)(begin + k)) bad = 1;
  }

  int64_t offsets[64];
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (!bad && size < 64 && isocost_balancer_offsets(b, offsets) == ISOCOST_OK && rank == 0) {
    printf("offsets:");
    for (int r = 0; r <= size; ++r) printf(" %lld", (long long)offsets[r]);
    printf("\n");
  }
  isocost_balancer_free(b); /* collective */
  free(ids);
  free(values);
  int any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return any;
}
