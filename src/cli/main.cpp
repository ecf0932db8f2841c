// The process entry of the isocost command; the command itself is
// isocost::cli::run() (app.cpp).
#include "cli.hpp"

int main(int argc, char** argv) { return isocost::cli::run(argc, argv); }
