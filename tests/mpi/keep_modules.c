/* Preloaded into the processes of sanitized MPI tests (cmake/isocostTesting.cmake)
 * so that LeakSanitizer can tell OpenMPI's allocations, kept until exit on
 * purpose, from ours by the library they come from alone (tests/mpi/lsan.supp),
 * without starting a symbolizer in every rank:
 *
 * - a dlclose() that leaves every library loaded, so that the report at exit
 *   can still name the OpenMPI components (mca_*.so) that allocated;
 * - asprintf() and vasprintf(), and their _FORTIFY_SOURCE forms that OpenMPI
 *   calls, with frame pointers: glibc's have none, so the fast unwinder
 *   stopped inside them, before reaching the OpenMPI caller whose library the
 *   suppression names.
 *
 * Nothing else changes: a library that is not unloaded keeps its memory until
 * exit, as the process does anyway, and the strings are those glibc formats. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

int dlclose(void* handle);

int dlclose(void* handle) {
  (void)handle;
  return 0;
}

int __vsnprintf_chk(char* text, size_t size, int flag, size_t capacity, const char* format,
                    va_list args);

/* glibc's __vasprintf_chk: `flag` > 0 rejects %n in writable formats. */
int __vasprintf_chk(char** out, int flag, const char* format, va_list args) {
  va_list count;
  va_copy(count, args);
  const int n = __vsnprintf_chk(NULL, 0, flag, 0, format, count);
  va_end(count);
  if (n < 0) return -1;
  char* text = malloc((size_t)n + 1);
  if (text == NULL) return -1;
  __vsnprintf_chk(text, (size_t)n + 1, flag, (size_t)n + 1, format, args);
  *out = text;
  return n;
}

int __asprintf_chk(char** out, int flag, const char* format, ...) {
  va_list args;
  va_start(args, format);
  const int n = __vasprintf_chk(out, flag, format, args);
  va_end(args);
  return n;
}

int vasprintf(char** out, const char* format, va_list args) {
  return __vasprintf_chk(out, 0, format, args);
}

int asprintf(char** out, const char* format, ...) {
  va_list args;
  va_start(args, format);
  const int n = __vasprintf_chk(out, 0, format, args);
  va_end(args);
  return n;
}
