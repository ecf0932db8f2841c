/* A plain C11 program using only isocost.h: 8 cell weights into 3 ranks, a
 * 2-D grid into 2 boxes, and (with the fitters) a fit of exact timings.
 * Prefix sums 0 5 10 19 25 28 36 38 40, TT = 40; the targets 40/3 = 13.33 and
 * 80/3 = 26.67 are nearest to the boundaries 2 (|10 − 13.33| = 3.33 against
 * |19 − 13.33| = 5.67) and 5 (|28 − 26.67| = 1.33 against |25 − 26.67| = 1.67),
 * so the cuts are 0 2 5 8. Exits 0 on success, 1 on failure. */
#include <stdio.h>
#include <string.h>

#include "isocost/isocost.h"

static int failures = 0;

static void check(int ok, const char* what) {
  if (!ok) {
    fprintf(stderr, "FAILED: %s (last error: '%s')\n", what, isocost_last_error());
    ++failures;
  }
}

int main(void) {
  const double weights[] = {5, 5, 9, 6, 3, 8, 2, 2};
  const double expected[] = {0, 2, 5, 8};
  double cuts[4] = {-1, -1, -1, -1};
  isocost_model* model = NULL;

  check(isocost_model_discrete(weights, 8, &model) == ISOCOST_OK, "isocost_model_discrete");
  check(model != NULL, "a model");
  check(isocost_partition(model, 3, NULL, 1, cuts) == ISOCOST_OK, "isocost_partition");
  for (int i = 0; i < 4; ++i) check(cuts[i] == expected[i], "cut equals its hand-computed value");
  check(strcmp(isocost_last_error(), "") == 0, "success leaves no message");
  printf("cuts: %g %g %g %g\n", cuts[0], cuts[1], cuts[2], cuts[3]);

  /* An error path: zero ranks. */
  check(isocost_partition(model, 0, NULL, 1, cuts) == ISOCOST_ERROR_INVALID_ARGUMENT,
        "ranks = 0 is ISOCOST_ERROR_INVALID_ARGUMENT");
  check(strstr(isocost_last_error(), "ranks") != NULL, "the message names ranks");
  printf("ranks = 0: %s\n", isocost_last_error());
  /* And a NULL model. */
  check(isocost_partition(NULL, 3, NULL, 1, cuts) == ISOCOST_ERROR_INVALID_ARGUMENT,
        "a NULL model is ISOCOST_ERROR_INVALID_ARGUMENT");
  check(strstr(isocost_last_error(), "model is NULL") != NULL, "the message names model");

  /* Load stats of the parts' costs: 10, 18, 12 → T_avg = 40/3, L_I = 35 %. */
  const double times[] = {10, 18, 12};
  struct isocost_load_stats stats;
  check(isocost_load_stats(times, 3, &stats) == ISOCOST_OK, "isocost_load_stats");
  check(stats.t_max == 18 && stats.t_min == 10, "t_max and t_min");
  check(stats.l_i > 34.999999 && stats.l_i < 35.000001, "L_I = 35 %");
  printf("L_I = %.4f %%, L_E = %.4f %%, efficiency = %.4f\n", stats.l_i, stats.l_e,
         stats.efficiency);

  /* A 6 x 2 grid whose cell (i, j) costs i + 1: columns cost 2 4 6 8 10 12
   * (total 42). Two parts along x: after 4 columns the heavier costs 22 (20 |
   * 22), after 5 it costs 30, so the cut is at x = 4. */
  {
    double w[12];
    const int64_t cells[2] = {6, 2};
    const int counts[1] = {2}, axes[1] = {0};
    struct isocost_part parts[2];
    struct isocost_decomposition info;
    isocost_density* grid = NULL;
    for (int j = 0; j < 2; ++j)
      for (int i = 0; i < 6; ++i) w[i + 6 * j] = i + 1;
    check(isocost_density_grid(w, 2, cells, NULL, NULL, &grid) == ISOCOST_OK,
          "isocost_density_grid");
    check(isocost_decompose(grid, 1, counts, axes, NULL, parts, &info) == ISOCOST_OK,
          "isocost_decompose");
    check(parts[0].cell_lo[0] == 0 && parts[0].cell_hi[0] == 4 && parts[1].cell_hi[0] == 6,
          "the cut after 4 columns");
    check(parts[0].cell_lo[1] == 0 && parts[0].cell_hi[1] == 2, "each part spans both rows");
    check(parts[0].cost == 20 && parts[1].cost == 22 && info.total_cost == 42, "costs 20 + 22");
    printf(
        "decompose: [%g, %g) x [%g, %g) costs %g, [%g, %g) x [%g, %g) costs %g, "
        "imbalance %.4f\n",
        parts[0].lo[0], parts[0].hi[0], parts[0].lo[1], parts[0].hi[1], parts[0].cost,
        parts[1].lo[0], parts[1].hi[0], parts[1].lo[1], parts[1].hi[1], parts[1].cost,
        info.imbalance);
    check(isocost_decompose_auto(grid, 13, NULL, parts, &info) == ISOCOST_ERROR_INVALID_ARGUMENT,
          "13 parts of 12 cells is ISOCOST_ERROR_INVALID_ARGUMENT");
    printf("13 ranks: %s\n", isocost_last_error());
    isocost_density_free(grid);
  }

#ifdef ISOCOST_TEST_FIT
  /* Fit "power" to 16 intervals of [1, 2] timed exactly by t(x) = x^2: the
   * fit gives back A = 1, p = 2, and its 2-rank cut is sqrt(2.5) = 1.5811. */
  {
    double lo[16], hi[16], dt[16], cut[3];
    struct isocost_fit_summary fit;
    isocost_model* fitted = NULL;
    for (int k = 0; k < 16; ++k) {
      lo[k] = 1 + k / 16.0;
      hi[k] = 1 + (k + 1) / 16.0;
      dt[k] = hi[k] * hi[k] - lo[k] * lo[k];
    }
    check(isocost_fit(lo, hi, dt, 16, "power", &fitted, &fit) == ISOCOST_OK, "isocost_fit");
    check(fit.converged == 1 && fit.n_parameters == 2, "a converged fit of A and p");
    check(fit.parameters[0] > 1 - 1e-6 && fit.parameters[0] < 1 + 1e-6, "A = 1");
    check(fit.parameters[1] > 2 - 1e-6 && fit.parameters[1] < 2 + 1e-6, "p = 2");
    check(isocost_partition(fitted, 2, NULL, 0, cut) == ISOCOST_OK, "partition of the fit");
    check(cut[1] > 1.58113 && cut[1] < 1.58114, "the cut at sqrt(2.5)");
    printf("fit: A = %.9f, p = %.9f, R^2 = %.12f, cut at %.6f\n", fit.parameters[0],
           fit.parameters[1], fit.r_squared, cut[1]);
    isocost_model_free(fitted);
    check(isocost_fit(lo, hi, dt, 16, "powr", &fitted, &fit) == ISOCOST_ERROR_INVALID_ARGUMENT,
          "an unknown spec is ISOCOST_ERROR_INVALID_ARGUMENT");
    check(fitted == NULL, "a failed fit sets *out = NULL");
    check(strstr(isocost_last_error(), "model: expected sieve") != NULL &&
              strstr(isocost_last_error(), "got 'powr'") != NULL,
          "the message names it");
  }
#endif

  isocost_model_free(model);
  isocost_model_free(NULL);
  return failures == 0 ? 0 : 1;
}
