/* Links isocost::c from an install tree, compiled as C: t(x) = x^2 on [0, 1]
 * cut for 4 ranks gives x_i = sqrt(i/4), as main.cpp checks through C++. */
#include <math.h>
#include <stdio.h>

#include "isocost/isocost.h"

int main(void) {
  isocost_model* t = NULL;
  double cuts[5];
  if (isocost_model_power(1.0, 2.0, 0.0, 0.0, 1.0, &t) != ISOCOST_OK ||
      isocost_partition(t, 4, NULL, 0, cuts) != ISOCOST_OK) {
    fprintf(stderr, "isocost: %s\n", isocost_last_error());
    isocost_model_free(t);
    return 1;
  }
  isocost_model_free(t);
  int bad = 0;
  for (int i = 0; i <= 4; ++i) {
    const double expected = sqrt(i / 4.0);
    printf("x_%d = %.15f (expected %.15f)\n", i, cuts[i], expected);
    if (fabs(cuts[i] - expected) > 1e-12) ++bad;
  }
  return bad == 0 ? 0 : 1;
}
