// isocost partition --points FILE (points_command.hpp).
#include "points_command.hpp"
#include "arguments.hpp"
#include "density_args.hpp"
#include "output.hpp"

#include <algorithm>
#include <optional>

#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"
#include "isocost/metrics.hpp"
#include "json_stream.hpp"
#include "mpi_world.hpp"

#if ISOCOST_CLI_MPI
#include "isocost/mpi/files.hpp"
#include "isocost/mpi/partition_points.hpp"
#include "isocost/mpi/partition_points_jagged.hpp"
#endif

namespace isocost::cli {

namespace {

// What either method found, in the words of the output.
struct PointsResult {
  std::string method;
  std::int64_t points = 0;
  int dims = 0;
  std::vector<double> lo, hi, part_weight;
  double total = 0, max_time = 0, ideal_time = 0, max_point = 0;
  int rounds = 0;
  std::string grid;                      // jagged: the process grid's name
  std::vector<double> part_lo, part_hi;  // jagged: each part's box
};

void reject_density_options(const DensityArgs& d) {
  const std::pair<const std::string*, const char*> density_only[] = {
      {&d.formula, "--density"},       {&d.box, "--box"},
      {&d.weights, "--weights"},       {&d.shape, "--shape"},
      {&d.quadrature, "--quadrature"}, {&d.tolerance, "--tolerance"},
      {&d.order, "--order"},           {&d.min_width, "--min-width"}};
  for (const auto& [value, name] : density_only)
    if (!value->empty()) throw Error(std::string(name) + " is not for --points");
}

Speeds points_speeds(const DensityArgs& d, const PointsArgs& p) {
  const std::optional<Speeds> speeds = parse_speeds(d.speeds, d.node_types);
  if (!p.parts.empty() && !d.ranks.empty())
    throw Error("--parts and --ranks both given; with --points use --parts");
  const std::string& text = p.parts.empty() ? d.ranks : p.parts;
  const char* name = p.parts.empty() ? "--ranks" : "--parts";
  if (text.empty()) {
    if (speeds) return *speeds;
    throw Error("--points needs the number of parts: --parts P (or --speeds / --node-types)");
  }
  const int P = parse_count(text, name, "parts");
  if (speeds && speeds->ranks() != P)
    throw Error(std::string(name) + " " + text + " does not match the " +
                std::to_string(speeds->ranks()) + " ranks given by " +
                (d.speeds.empty() ? "--node-types" : "--speeds"));
  return speeds ? *speeds : Speeds::uniform(P);
}

#if ISOCOST_CLI_MPI
PointsResult partition_file(const DensityArgs& d, const PointsArgs& p, const std::string& method,
                            const Speeds& speeds) {
  const MPI_Comm comm = world();
  const mpi::PointsSlice slice = mpi::read_points(comm, p.points);
  PointsResult r;
  r.method = method;
  std::vector<int> part;
  // Either partitioner's result, in the words of the output; its errors name
  // the file.
  const auto take = [&](auto&& run) {
    auto res = [&] {
      try {
        return run();
      } catch (const Error& e) {
        throw Error(p.points + ": " + e.what());
      }
    }();
    r.points = res.points;
    r.lo = res.lo;
    r.hi = res.hi;
    r.part_weight = res.part_weight;
    r.total = res.total;
    r.max_time = res.max_time;
    r.ideal_time = res.ideal_time;
    r.max_point = res.max_point;
    r.rounds = res.rounds;
    part = std::move(res.part);
    return res;
  };
  if (method == "sfc") {
    if (!d.grid.empty()) throw Error("--grid is for --method jagged, not sfc");
    take([&] {
      return mpi::partition_points(comm, slice.dims, slice.coords, slice.weights, speeds);
    });
  } else {
    // The given grid, or (auto) the one from P and the points' extents.
    const bool automatic = d.grid.empty() || d.grid == "auto";
    const ProcessGrid grid = automatic ? ProcessGrid{} : parse_process_grid(d.grid, slice.dims);
    if (!automatic && grid.ranks() != speeds.ranks())
      throw Error("--grid " + d.grid + " has " + std::to_string(grid.ranks()) + " parts but " +
                  std::to_string(speeds.ranks()) + " were asked for");
    const auto res = take([&] {
      return automatic ? mpi::partition_points_jagged(comm, slice.dims, slice.coords, slice.weights,
                                                      speeds)
                       : mpi::partition_points_jagged(comm, slice.dims, slice.coords, slice.weights,
                                                      grid, speeds);
    });
    r.grid = res.grid.name();
    r.part_lo = res.part_lo;
    r.part_hi = res.part_hi;
  }
  r.dims = slice.dims;
  if (!p.assignment.empty()) mpi::write_parts(comm, p.assignment, slice.first, part);
  return r;
}
#else
PointsResult partition_file(const DensityArgs&, const PointsArgs&, const std::string&,
                            const Speeds&) {
  throw Error("--points needs MPI, and this isocost was built without it (ISOCOST_BUILD_MPI=OFF)");
}
#endif

nlohmann::ordered_json vec(const std::vector<double>& v) {
  auto j = nlohmann::ordered_json::array();
  for (const double x : v) j.push_back(number(x));
  return j;
}

void write_result(const PointsArgs& p, const std::string& output, bool json, const Speeds& speeds,
                  const PointsResult& r) {
  const int P = speeds.ranks();
  std::vector<double> time(static_cast<std::size_t>(P));
  int heaviest = 0;
  for (int k = 0; k < P; ++k) {
    time[static_cast<std::size_t>(k)] =
        r.part_weight[static_cast<std::size_t>(k)] / speeds.speed(k);
    if (time[static_cast<std::size_t>(k)] > time[static_cast<std::size_t>(heaviest)]) heaviest = k;
  }
  const double le = load_stats(time).le;
  const double S = speeds.total();
  const bool show_speed = !speeds.is_uniform();
  if (json) {
    emit_to(output, [&](std::ostream& out) {
      JsonStream j(out);
      j.member("command", "partition");
      j.member("points", {{"source", p.points},
                          {"count", r.points},
                          {"dims", r.dims},
                          {"box", {{"lo", vec(r.lo)}, {"hi", vec(r.hi)}}},
                          {"total", number(r.total)},
                          {"max_point", number(r.max_point)}});
      j.member("method", r.method);
      if (!r.grid.empty()) j.member("grid", r.grid);
      const auto d = static_cast<std::ptrdiff_t>(r.dims);
      auto box = [&](const std::vector<double>& v, std::size_t k) {
        const auto at = v.begin() + static_cast<std::ptrdiff_t>(k) * d;
        return vec(std::vector<double>(at, at + d));
      };
      j.array("parts", static_cast<std::size_t>(P), [&](std::size_t k) {
        const double w = r.part_weight[k];
        nlohmann::ordered_json e{
            {"part", k},
            {"speed", speeds.speed(static_cast<int>(k))},
            {"weight", number(w)},
            {"target", number(r.total * speeds.speed(static_cast<int>(k)) / S)},
            {"share", number(w / r.total)},
            {"time", number(time[k])}};
        if (!r.part_lo.empty()) {  // jagged: the part's box
          e["lo"] = box(r.part_lo, k);
          e["hi"] = box(r.part_hi, k);
        }
        return e;
      });
      j.member("predicted", {{"le", number(le)},
                             {"max_time", number(r.max_time)},
                             {"ideal_time", number(r.ideal_time)},
                             {"imbalance", number(r.max_time / r.ideal_time - 1)},
                             {"heaviest_part", heaviest}});
      j.member("assignment", p.assignment.empty() ? nlohmann::ordered_json()
                                                  : nlohmann::ordered_json(p.assignment));
      j.member("solver", {{"rounds", r.rounds}, {"converged", true}});
      j.finish();
    });
    return;
  }
  std::vector<std::string> header{"part"};
  if (show_speed) header.push_back("speed");
  header.insert(header.end(), {"weight", "share %"});
  if (show_speed) header.push_back("time");
  emit_to(output, [&](std::ostream& out) {
    out << "points: " << r.points << " in " << r.dims << "-D from " << p.points << ", total weight "
        << g10(r.total) << ", heaviest point " << g10(r.max_point) << "\n"
        << P << " parts, method " << r.method << (r.grid.empty() ? "" : " (grid " + r.grid + ")")
        << "\n\n";
    write_table(out, header, static_cast<std::size_t>(P), [&](std::size_t k) {
      std::vector<std::string> row{std::to_string(k)};
      if (show_speed) row.push_back(g(speeds.speed(static_cast<int>(k)), 6));
      row.push_back(g(r.part_weight[k], 8));
      row.push_back(g(100 * r.part_weight[k] / r.total, 6));
      if (show_speed) row.push_back(g(time[k], 8));
      return row;
    });
    out << "\npredicted L_E = " << g10(le) << " %\n"
        << "heaviest part: " << heaviest << ", "
        << (show_speed ? "time (weight/speed) " : "weight ") << g10(r.max_time) << " (ideal "
        << g10(r.ideal_time) << ", imbalance " << g(r.max_time / r.ideal_time - 1, 6) << ")\n";
    if (!p.assignment.empty()) out << "assignment: " << p.assignment << " (one part per line)\n";
  });
}

}  // namespace

void add_points_options(CLI::App* cmd, PointsArgs& args) {
  cmd->add_option("--points", args.points,
                  "weighted points: CSV x,y[,z],w or raw (\"ISOCOSTP\" header, float64); cut "
                  "into --parts P by --method sfc (Hilbert curve, default) or jagged");
  cmd->add_option("--parts", args.parts, "number of parts P for --points");
  cmd->add_option("--assignment", args.assignment,
                  "with --points: write each point's part, one per line in file order");
}

bool points_given(const PointsArgs& a) { return !a.points.empty(); }

void reject_points_options(const PointsArgs& a) {
  if (!a.parts.empty()) throw Error("--parts is for --points; use --ranks or --grid");
  if (!a.assignment.empty()) throw Error("--assignment is for --points");
}

void run_points(const DensityArgs& d, const PointsArgs& p, const std::string& output, bool json) {
  reject_density_options(d);
  const std::string method = d.method.empty() ? "sfc" : d.method;
  if (method != "sfc" && method != "jagged")
    throw Error("--method: with --points expected sfc or jagged, got '" + d.method + "'");
  if (!p.assignment.empty() && p.assignment == p.points)
    throw Error("--assignment " + p.assignment + " would overwrite the --points file");
  const Speeds speeds = points_speeds(d, p);
  const PointsResult r = partition_file(d, p, method, speeds);
  write_result(p, output, json, speeds, r);
}

}  // namespace isocost::cli
