// The isocost command. Exit codes: 0 success; 2 bad input (one line on
// stderr, nothing on stdout, no output file; also when memory runs out); 3
// result written but some cut did not converge; 1 the result could not be
// written, or an internal error.
#include <iostream>
#include <new>

#include "cli.hpp"
#include "isocost/error.hpp"
#include "mpi_world.hpp"

namespace {

// An empty value ("--order ''") is never a choice: several options would
// otherwise read it as "not given" and silently use their default.
void reject_empty_values(CLI::App& app) {
  const auto non_empty = [](const std::string& value) {
    return value.empty() ? std::string("expected a value, got ''") : std::string();
  };
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    for (CLI::Option* option : sub->get_options())
      if (option->get_type_size_max() > 0)
        option->check(
            std::function<std::string(const std::string&)>(non_empty));  // flags take no value
}

}  // namespace

// The whole command but the process entry (entry.cpp), so that the fuzz
// harness (fuzz/fuzz_cli.cpp) runs exactly what the binary runs.
int isocost::cli::run(int argc, char** argv) {
  CLI::App app{"isocost: cost-balanced domain partitioning (cuts where every rank gets equal cost)",
               "isocost"};
  // At most one command; "no command" is reported after parsing, so that an
  // unknown word is named as such by CLI11 first.
  app.require_subcommand(0, 1);
  app.set_version_flag("--version", "isocost 0.1.0");
  isocost::cli::add_fit_command(app);
  isocost::cli::add_cut_command(app);
  isocost::cli::add_partition_command(app);
  isocost::cli::add_plot_command(app);
  isocost::cli::add_metrics_command(app);
  isocost::cli::add_diffuse_command(app);
  reject_empty_values(app);
  try {
    app.parse(argc, argv);
    if (app.get_subcommands().empty())
      throw isocost::Error(
          "a subcommand is required: fit, cut, partition, plot, metrics or diffuse (see isocost "
          "--help)");
  } catch (const isocost::cli::SkippedRank&) {
    return 0;  // rank 0 ran a form that is not distributed; its exit code is taken
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // CLI11 names an unexpected argument after a colon: an empty one would
    // leave nothing there.
    std::string what = e.what();
    if (what.size() >= 2 && what.compare(what.size() - 2, 2, ": ") == 0)
      what += "\"\" (an empty argument)";
    std::cerr << "isocost: error: " << what << " (see isocost --help)\n";
    return 2;
  } catch (const isocost::cli::NotConverged& e) {
    std::cerr << "isocost: warning: " << e.what() << "\n";
    return 3;
  } catch (const isocost::cli::OutputFailed& e) {
    std::cerr << "isocost: error: " << e.what() << "\n";
    return 1;
  } catch (const isocost::Error& e) {
    std::cerr << "isocost: error: " << e.what() << "\n";
    return 2;
  } catch (const std::bad_alloc&) {
    // A last resort: the commands name the value that needed the memory
    // (limits.hpp); an allocation that still fails is too big an input too.
    std::cerr << "isocost: error: out of memory: the input is too large for this machine\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "isocost: internal error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
