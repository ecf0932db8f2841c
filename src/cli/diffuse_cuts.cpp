// `isocost diffuse --cuts`: a 1-D partition's transfers on the chain of ranks
// and the cuts shifted on the cost model (shift.hpp, diffuse_and_shift()).
#include <cmath>

#include "cli.hpp"
#include "diffuse.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/io.hpp"
#include "isocost/metrics.hpp"
#include "json_stream.hpp"
#include "output.hpp"

namespace isocost::cli::diffuse {

void run_cuts(const Args& a, const DiffusionOptions& diffusion, const ShiftOptions& shift,
              const CostModel& model, const std::vector<double>& loads) {
  std::vector<std::size_t> lines;  // each cut's line, for the checks below
  const std::vector<double> cuts = read_column(a.cuts, "cut", false, &lines);
  if (cuts.size() < 2)
    throw Error(a.cuts + ": expected at least 2 cuts (one rank), got " +
                std::to_string(cuts.size()));
  const int P = static_cast<int>(cuts.size()) - 1;
  if (static_cast<int>(loads.size()) != P)
    throw Error(a.loads + ": " + std::to_string(loads.size()) + " loads for the " +
                std::to_string(P) + " ranks of " + a.cuts + " (" + std::to_string(cuts.size()) +
                " cuts)");
  // Check the cuts against the model before diffusing.
  for (int k = 0; k <= P; ++k)
    if (cuts[k] < model.lo() || cuts[k] > model.hi() || (k > 0 && cuts[k] < cuts[k - 1]))
      throw Error(a.cuts + ":" + std::to_string(lines[k]) + ": " +
                  detail::expected_got("cut " + std::to_string(k),
                                       k > 0 && cuts[k] < cuts[k - 1]
                                           ? "a value >= " + detail::exact(cuts[k - 1]) + " (cut " +
                                                 std::to_string(k - 1) + "; nondecreasing cuts)"
                                           : "a value inside the model's domain [" +
                                                 detail::exact(model.lo()) + ", " +
                                                 detail::exact(model.hi()) + "]",
                                       detail::exact(cuts[k])));
  const ChainShift chain = diffuse_and_shift(model, cuts, loads, diffusion, shift);
  const DiffusionSummary& d = chain.diffusion;
  const ShiftResult& s = chain.shift;
  const bool capped = std::isfinite(shift.max_move);  // otherwise no cap (the default)
  std::vector<double> before(static_cast<std::size_t>(P));
  for (int i = 0; i < P; ++i) before[i] = model.cost(cuts[i], cuts[i + 1]);
  // The predicted loads come from the measured-load-corrected model, which
  // converts ground taken from another old range with that range's ratio.
  const double imbalance_after = isocost::imbalance(s.predicted_load);
  if (a.json) {
    // Streamed: the per-boundary and per-rank arrays are written one element at a time.
    emit_to(a.output, [&](std::ostream& out) {
      JsonStream j(out);
      j.member("command", "diffuse");
      j.member("mode", "cuts");
      j.member("model", {{"kind", model.kind()},
                         {"description", model.describe()},
                         {"lo", model.lo()},
                         {"hi", model.hi()},
                         {"total_cost", model.total()}});
      j.member("ranks", P);
      j.member("scheme", to_string(diffusion.scheme));
      j.member("alpha", diffusion.alpha);
      j.member("max_move", capped ? json(shift.max_move) : json(nullptr));
      j.member("min_width", shift.min_width);
      j.member("diffusion", diffusion_json(d));
      j.array("boundaries", static_cast<std::size_t>(P - 1), [&](std::size_t b) {
        return json{{"index", b + 1},
                    {"left_rank", b},
                    {"right_rank", b + 1},
                    {"x_old", cuts[b + 1]},
                    {"x_new", s.cuts[b + 1]},
                    {"transfer", s.requested[b]},
                    {"load_moved", s.applied[b]},
                    {"cost_moved", s.cost_moved[b]},
                    {"capped", static_cast<bool>(s.capped[b])},
                    {"conflict", static_cast<bool>(s.conflict[b])},
                    {"iterations", s.iterations[b]}};
      });
      j.array("parts", static_cast<std::size_t>(P), [&](std::size_t i) {
        return json{{"rank", i},
                    {"lo", s.cuts[i]},
                    {"hi", s.cuts[i + 1]},
                    {"load", loads[i]},
                    {"ratio", s.ratio[i]},
                    {"cost_before", before[i]},
                    {"cost_after", s.cost[i]},
                    {"predicted_load", s.predicted_load[i]}};
      });
      j.array("cuts", s.cuts.size(), [&](std::size_t k) { return json(s.cuts[k]); });
      j.member("predicted",
               {{"imbalance_before", d.initial_imbalance}, {"imbalance_after", imbalance_after}});
      j.member("solver", {{"max_abs_residual", s.max_abs_residual},
                          {"capped", s.capped_count()},
                          {"conflicts", s.conflict_count()},
                          {"converged", s.converged()}});
      j.finish();
    });
  } else {
    emit_to(a.output, [&](std::ostream& out) {  // streamed, as the JSON is
      out << "model: " << model.describe() << " on [" << num(model.lo(), 12) << ", "
          << num(model.hi(), 12) << "]\n"
          << P << " ranks in a chain; diffusion " << diffusion_line(d, diffusion.alpha)
          << "shift: max move " << (capped ? num(shift.max_move, 6) : std::string("none"))
          << ", min width " << num(shift.min_width, 6) << "; " << s.brief_report() << "\n"
          << "(transfer and load moved in load units, > 0: the left rank sends, the boundary "
             "moves left; cost moved in model units)\n\n";
      if (P > 1) {
        write_table(
            out, {"cut", "ranks", "x old", "x new", "transfer", "load moved", "cost moved", "note"},
            static_cast<std::size_t>(P - 1), [&](std::size_t b) {
              const std::string note = s.conflict[b] ? "conflict" : s.capped[b] ? "capped" : "";
              return std::vector<std::string>{
                  std::to_string(b + 1), std::to_string(b) + "-" + std::to_string(b + 1),
                  num(cuts[b + 1], 12),  num(s.cuts[b + 1], 12),
                  num(s.requested[b]),   num(s.applied[b]),
                  num(s.cost_moved[b]),  note};
            });
        out << "\n";
      }
      write_table(out, {"rank", "lo", "hi", "load", "ratio", "cost", "predicted load"},
                  static_cast<std::size_t>(P), [&](std::size_t i) {
                    return std::vector<std::string>{std::to_string(i),       num(s.cuts[i], 12),
                                                    num(s.cuts[i + 1], 12),  num(loads[i]),
                                                    num(s.ratio[i]),         num(s.cost[i]),
                                                    num(s.predicted_load[i])};
                  });
      out << "\npredicted imbalance (max/avg - 1): " << num(d.initial_imbalance, 6) << " -> "
          << num(imbalance_after, 6) << "\n";
    });
  }
  if (!d.converged())
    throw NotConverged("diffusion did not reach alpha within --max-steps " +
                       std::to_string(diffusion.max_steps));
  if (!s.converged()) throw NotConverged("a boundary's root find did not reach its tolerance");
}

}  // namespace isocost::cli::diffuse
