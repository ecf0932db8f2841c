// The isocost command. Errors in the input print one line on stderr and exit
// with code 2; nothing is written to stdout or to an output file then.
#include <iostream>

#include "cli.hpp"
#include "isocost/error.hpp"

int main(int argc, char** argv) {
  CLI::App app{"isocost: cost-balanced domain partitioning (cuts where every rank gets equal cost)",
               "isocost"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "isocost 0.1.0");
  isocost::cli::add_cut_command(app);
  isocost::cli::add_metrics_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "isocost: error: " << e.what() << " (see isocost --help)\n";
    return 2;
  } catch (const isocost::Error& e) {
    std::cerr << "isocost: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "isocost: internal error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
