// The --plot figures of examples/particles.
#pragma once

#include <string>
#include <vector>

#include "particles_run.hpp"

namespace particles {

/// Writes into `dir` (created if missing): particles_efficiency.png (the
/// DSMC runs' efficiency per step, Watts §4.1), and when the PIC runs are
/// there particles_phases.png (their phase-synchronised efficiency per step)
/// and particles_phase_detail.png (push and field efficiency per step of the
/// total and the vector run, Watts §4.2). `runs` as particles.cpp makes them,
/// on `ranks` ranks.
void plot(const std::string& dir, const std::vector<Outcome>& runs, int ranks);

}  // namespace particles
