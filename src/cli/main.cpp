// The process entry of the isocost command; the command itself is
// isocost::cli::run() (app.cpp).
#include <iostream>

#include "cli.hpp"
#include "mpi_world.hpp"

int main(int argc, char** argv) {
  // The command writes through iostreams only: unsynchronised, std::cout
  // buffers itself instead of calling fwrite for every insertion (a 10^7-row
  // table twice as fast). Streams are flushed when main returns.
  std::ios_base::sync_with_stdio(false);
  isocost::cli::MpiSession mpi(&argc, &argv);  // under mpiexec: MPI_Init
  return mpi.finish(isocost::cli::run(argc, argv));
}
