// python/src/balancer.cpp — isocost.mpi.Balancer: the 1-D balancer for
// Python, over the C interface's (isocost_mpi.h), which already agrees its
// arguments across ranks and migrates any number of arrays in one exchange.
// numpy arrays go in and new ones come out, each row one element.
#include <mpi.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "isocost/error.hpp"
#include "isocost/isocost.h"
#include "isocost/isocost_mpi.h"

namespace isocost::python {

using namespace pybind11::literals;

namespace {

// The C status as the module's exception (isocost.Error), with its message.
void check(int status) {
  if (status != ISOCOST_OK) throw Error(isocost_last_error());
}

const char* action_name(int action) {
  switch (action) {
    case ISOCOST_ACTION_GLOBAL:
      return "global";
    case ISOCOST_ACTION_DIFFUSION:
      return "diffusion";
    default:
      return "none";
  }
}

int policy_code(const std::string& policy) {
  if (policy == "choose") return ISOCOST_POLICY_CHOOSE;
  if (policy == "global") return ISOCOST_POLICY_GLOBAL;
  if (policy == "diffusion") return ISOCOST_POLICY_DIFFUSION;
  throw Error("policy: expected choose, global or diffusion, got '" + policy + "'");
}

py::dict decision_dict(const isocost_balancer_decision& d) {
  return py::dict("step"_a = d.step, "checked"_a = d.checked != 0, "fired"_a = d.fired != 0,
                  "t_min"_a = d.t_min, "t_avg"_a = d.t_avg, "t_max"_a = d.t_max,
                  "drift"_a = d.drift, "efficiency"_a = d.efficiency,
                  "action"_a = action_name(d.action), "decision_seconds"_a = d.decision_seconds,
                  "new_local_begin"_a = d.new_local_begin, "new_local_count"_a = d.new_local_count,
                  "reason"_a = std::string(d.reason));
}

// A balancer: created and freed collectively (close(), or the with block).
class Balancer {
 public:
  Balancer(MPI_Comm comm, std::int64_t n, std::optional<std::vector<std::int64_t>> offsets,
           const isocost_balancer_options& options) {
    check(isocost_balancer_create(comm, n, offsets ? offsets->data() : nullptr, &options, &b_));
    MPI_Comm_dup(comm, &comm_);  // for agreeing on the arrays before a migration
    MPI_Comm_size(comm, &ranks_);
    MPI_Comm_rank(comm, &rank_);
  }
  ~Balancer() { close(); }
  Balancer(const Balancer&) = delete;
  Balancer& operator=(const Balancer&) = delete;

  void close() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (b_ && !finalized) {
      isocost_balancer_free(b_);
      MPI_Comm_free(&comm_);
    }
    b_ = nullptr;
  }
  // Throws the same Error on every rank when `problem` is not empty on any:
  // the lowest such rank's, named. Collective.
  void agree(const std::string& problem) const {
    int bad = problem.empty() ? ranks_ : rank_;
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MIN, comm_);
    if (bad == ranks_) return;
    std::vector<char> text(512, '\0');
    if (bad == rank_) problem.copy(text.data(), text.size() - 1);
    MPI_Bcast(text.data(), static_cast<int>(text.size()), MPI_CHAR, bad, comm_);
    throw Error("rank " + std::to_string(bad) + ": " + text.data());
  }
  isocost_balancer* get() const {
    if (!b_) throw Error("Balancer: closed");
    return b_;
  }
  int ranks() const { return ranks_; }

 private:
  isocost_balancer* b_ = nullptr;
  MPI_Comm comm_ = MPI_COMM_NULL;
  int ranks_ = 0, rank_ = 0;
};

std::pair<std::int64_t, std::int64_t> local_range(const Balancer& b) {
  std::int64_t begin = 0, count = 0;
  check(isocost_balancer_local(b.get(), &begin, &count));
  return {begin, count};
}

// The pending migration for numpy arrays of one row per local element.
py::tuple migrate(Balancer& b, py::args arrays) {
  isocost_balancer_decision d{};
  check(isocost_balancer_last_decision(b.get(), &d));
  const std::int64_t count = local_range(b).second;
  std::vector<py::array> old_arrays, new_arrays;
  std::vector<const void*> from;
  std::vector<void*> to;
  std::vector<std::size_t> bytes;
  // One rank's wrong array would leave the others waiting in the exchange:
  // the arrays are agreed first, and a problem on any rank is every rank's.
  std::string problem;
  for (std::size_t k = 0; k < arrays.size() && problem.empty(); ++k) {
    auto a = py::array::ensure(arrays[k], py::array::c_style);
    if (!a || a.ndim() < 1) {
      problem = "migrate: array " + std::to_string(k) +
                ": expected a numpy array with one row per local element";
    } else if (a.shape(0) != count) {
      problem = "migrate: array " + std::to_string(k) + " has " + std::to_string(a.shape(0)) +
                " rows; expected this rank's " + std::to_string(count) + " elements";
    } else {
      std::vector<py::ssize_t> shape(a.shape(), a.shape() + a.ndim());
      shape[0] = static_cast<py::ssize_t>(d.new_local_count);
      py::array fresh(a.dtype(), shape);
      std::size_t row = static_cast<std::size_t>(a.itemsize());  // one element's bytes
      for (py::ssize_t i = 1; i < a.ndim(); ++i) row *= static_cast<std::size_t>(a.shape(i));
      bytes.push_back(row);
      from.push_back(a.data());
      to.push_back(fresh.mutable_data());
      old_arrays.push_back(a);
      new_arrays.push_back(fresh);
    }
  }
  b.agree(problem);
  {
    py::gil_scoped_release release;
    check(isocost_balancer_migrate(b.get(), static_cast<int>(bytes.size()), from.data(), to.data(),
                                   bytes.data()));
  }
  py::tuple out(new_arrays.size());
  for (std::size_t k = 0; k < new_arrays.size(); ++k) out[k] = new_arrays[k];
  return out;
}

}  // namespace

void bind_balancer(py::module_& m, MPI_Comm (*comm_from)(py::object)) {
  py::class_<Balancer>(m, "Balancer",
                       "The 1-D balancer (isocost::mpi::BlockBalancer through the C "
                       "interface): time steps, check, migrate numpy arrays. Collective to "
                       "create and to close (close() or a with block, on every rank).")
      .def(py::init([comm_from](py::object comm, std::int64_t n,
                                std::optional<std::vector<std::int64_t>> offsets, int check_every,
                                double drift_threshold, const std::string& policy,
                                double decision_seconds, double comm_latency, double comm_per_byte,
                                int window, bool verify, std::optional<std::string> log_path) {
             isocost_balancer_options o;
             check(isocost_balancer_options_init(&o));
             o.check_every = check_every;
             o.drift_threshold = drift_threshold;
             o.policy = policy_code(policy);
             o.decision_seconds = decision_seconds;
             o.comm_latency = comm_latency;
             o.comm_per_byte = comm_per_byte;
             o.window = window;
             o.verify = verify ? 1 : 0;
             o.log_path = log_path ? log_path->c_str() : nullptr;
             return std::make_unique<Balancer>(comm_from(comm), n, std::move(offsets), o);
           }),
           "comm"_a, "n"_a, "offsets"_a = py::none(), py::kw_only(), "check_every"_a = 10,
           "drift_threshold"_a = 0.10, "policy"_a = "choose", "decision_seconds"_a = -1.0,
           "comm_latency"_a = -1.0, "comm_per_byte"_a = -1.0, "window"_a = 10, "verify"_a = false,
           "log_path"_a = py::none())
      .def(
          "record_step",
          [](Balancer& b, double seconds) {
            check(isocost_balancer_record_step(b.get(), seconds));
          },
          "seconds"_a, "This rank's time for one step (not collective)")
      .def(
          "set_costs",
          [](Balancer& b, py::object costs) {
            const std::vector<double> c = to_vector(costs, "costs");
            check(isocost_balancer_set_costs(b.get(), c.empty() ? nullptr : c.data(),
                                             static_cast<std::int64_t>(c.size())));
          },
          "costs"_a, "This rank's cost of each local element, for the next check's plan")
      .def(
          "check",
          [](Balancer& b, double bytes_per_element) {
            isocost_balancer_decision d{};
            {
              py::gil_scoped_release release;
              check(isocost_balancer_check(b.get(), bytes_per_element, &d));
            }
            return decision_dict(d);
          },
          "bytes_per_element"_a = 8.0,
          "Decides whether to rebalance (collective on check steps); a dict with 'action' "
          "('none', 'global', 'diffusion'), the loads, and the new local range")
      .def("migrate", &migrate,
           "Carries out the pending migration (collective): each array has one row per local "
           "element; returns the new arrays, one row per new local element")
      .def_property_readonly("local", &local_range, "(begin, count) of this rank's elements")
      .def_property_readonly("offsets",
                             [](const Balancer& b) {
                               std::vector<std::int64_t> o(static_cast<std::size_t>(b.ranks()) + 1);
                               check(isocost_balancer_offsets(b.get(), o.data()));
                               return to_array(o);
                             })
      .def("close", &Balancer::close, "Frees the balancer (collective: on every rank)")
      .def("__enter__", [](Balancer& b) -> Balancer& { return b; })
      .def("__exit__", [](Balancer& b, py::args) { b.close(); });
}

}  // namespace isocost::python
