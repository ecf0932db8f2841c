/* Preloaded into the processes of sanitized MPI tests (cmake/isocostTesting.cmake):
 * a dlclose() that leaves every library loaded, so that LeakSanitizer's report
 * at exit can still name the OpenMPI components (mca_*.so) whose allocations
 * tests/mpi/lsan.supp suppresses. Nothing else changes: a library that is not
 * unloaded keeps its memory until exit, as the process does anyway. */
int dlclose(void* handle);

int dlclose(void* handle) {
  (void)handle;
  return 0;
}
