// The end of every MPI example's main(): parse the command line, run the
// body, turn errors into exit codes the same way on every rank, finalize MPI.
#pragma once

#include <mpi.h>

#include <CLI/CLI.hpp>
#include <functional>
#include <iostream>
#include <string>

#include "isocost/error.hpp"

namespace examples {

/// Parses `app` (whose options are bound), then returns body()'s exit code.
/// A bad command line is exit 2 (rank 0 prints CLI11's message; --help is
/// exit 0); an isocost::Error is exit 2 with "NAME: message" from rank 0.
/// MPI must be initialised; it is finalized here, on every path.
inline int parse_and_run(CLI::App& app, int argc, char** argv, const std::string& name,
                         const std::function<int()>& body) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int code = 0;
  try {
    app.parse(argc, argv);
    code = body();
  } catch (const CLI::ParseError& e) {
    if (rank == 0) app.exit(e);  // the message (or --help) once
    code = e.get_exit_code() == 0 ? 0 : 2;
  } catch (const isocost::Error& e) {
    if (rank == 0) std::cerr << name << ": " << e.what() << "\n";
    code = 2;
  }
  MPI_Finalize();
  return code;
}

}  // namespace examples
