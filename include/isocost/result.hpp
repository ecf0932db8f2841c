// isocost/result.hpp — the one vocabulary of results.
//
// Every result of a computation that can fall short of what its options ask
// (a cut, a partition, a decomposition, a diffusion, a fit …) says so in the
// same words: a `termination` of this enum (with, where it has more to say,
// its own detailed reason), `converged()`, a `brief_report()` of one line and
// a `full_report()` for the rest, and the settings given (`options`) next to
// any the computation chose itself (named `…_used`). Not converging is a
// result, reported there; only invalid input throws. One exception, for size:
// a CutSummary, of which a Partition holds P + 1, keeps only the method it was
// asked for (`requested`); its options are Partition::options.cut, or those
// the caller gave solve_cut().
#pragma once

#include <cstdint>
#include <string_view>

namespace isocost {

/// Why a computation stopped.
enum class Termination : std::uint8_t {
  converged,        ///< every tolerance the options ask for was met
  iteration_limit,  ///< a budget (iterations, steps, passes) ran out first
  failed,           ///< the method stopped without a usable answer
};
/// "converged", "iteration_limit", "failed" ("?" for other values).
std::string_view to_string(Termination termination);

}  // namespace isocost
