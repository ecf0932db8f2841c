// python/src/balancers.cpp — isocost.mpi.BlockBalancer and GridBalancer: the
// C++ balancers (isocost/mpi/block_balancer.hpp, grid_balancer.hpp) on numpy
// arrays, written once for both. numpy arrays cannot grow in place, so
// apply() and maybe_rebalance() return the arrays of the new ownership; the
// rows move through redistribute_rows() and the balancer then adopts the plan.
#include <pybind11/stl.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "isocost/error.hpp"
#include "isocost/mpi/block_balancer.hpp"
#include "isocost/mpi/grid_balancer.hpp"
#include "mpi_support.hpp"
#include "options.hpp"

namespace isocost::python {

using namespace pybind11::literals;

py::tuple exchange_arrays(MPI_Comm comm, py::handle distribution, py::handle keys,
                          const py::args& arrays);  // exchange.cpp

namespace {

template <class B>
struct Layout;
template <>
struct Layout<mpi::BlockBalancer> {
  using Plan = mpi::BlockPlan;
  static const mpi::BlockDistribution& of(const mpi::BlockBalancer& b) { return b.distribution(); }
};
template <>
struct Layout<mpi::GridBalancer> {
  using Plan = mpi::GridPlan;
  static const mpi::BoxDistribution& of(const mpi::GridBalancer& b) { return b.boxes(); }
};

// A step timed by the balancer's StepScope (constructed in place: it cannot
// move).
template <class B>
struct StepHolder {
  StepScope scope;
  explicit StepHolder(B& b) : scope(b.step()) {}
};

// One balancer and its own duplicate of the communicator (for agreeing on
// the arrays). Created and closed collectively.
template <class B>
class Balancer {
 public:
  using Plan = typename Layout<B>::Plan;

  Balancer(MPI_Comm comm, std::unique_ptr<B> b) : b_(std::move(b)) { MPI_Comm_dup(comm, &comm_); }
  ~Balancer() { close(); }
  Balancer(const Balancer&) = delete;
  Balancer& operator=(const Balancer&) = delete;

  void close() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) {
      // Too late for the collective teardown: leave it to the process's end.
      (void)b_.release();
      return;
    }
    step_.reset();
    if (b_) {
      b_.reset();
      MPI_Comm_free(&comm_);
    }
  }
  B& get() const {
    if (!b_) throw Error("balancer: closed");
    return *b_;
  }
  MPI_Comm comm() const { return comm_; }

  void enter_step() {
    if (step_) throw Error("step(): a step is already open");
    step_ = std::make_unique<StepHolder<B>>(get());
  }
  // StepScope abandons the step when it is destroyed during unwinding (a C++
  // exception); a Python exception in the with block is made one for it.
  void exit_step(bool failed) {
    if (!failed) {
      step_.reset();
      return;
    }
    try {
      struct Unwind {
        std::unique_ptr<StepHolder<B>>& step;
        ~Unwind() { step.reset(); }
      } unwind{step_};
      throw 0;
    } catch (int) {
    }
  }

  // The arrays of plan.to, in order; the balancer adopts the plan.
  py::tuple apply(const Plan& plan, const py::args& arrays) {
    B& b = get();
    if (!plan.moves()) {
      py::gil_scoped_release release;
      b.apply(plan);  // a plan that moves nothing is a no-op
      return arrays;
    }
    Rows rows = take_rows(arrays, plan.from.count(comm_rank(comm_)), "apply");
    // The same on every rank (plans are): before the rows, which follow it.
    if (plan.from.hash() != Layout<B>::of(b).hash())
      rows.problem = "apply: the plan is not for the current distribution (decide() again)";
    return carry_out(plan, rows, false);
  }

  py::tuple maybe_rebalance(const py::args& arrays) {
    B& b = get();
    Rows rows = take_rows(arrays, b.local_count(), "maybe_rebalance");
    agree_rows(comm_, rows);
    Plan plan;
    {
      py::gil_scoped_release release;
      plan = b.decide(static_cast<double>(rows.record()));
    }
    // The rows were agreed before deciding; a fresh plan is the current one.
    return plan.moves() ? carry_out(plan, rows, true) : py::tuple(arrays);
  }

 private:
  // Allocates the arrays of plan.to, agrees (the rows too, unless they
  // already were), moves the rows and adopts the plan. Collective.
  py::tuple carry_out(const Plan& plan, Rows& rows, bool rows_agreed) {
    B& b = get();
    std::vector<py::array> fresh;
    std::string memory;
    if (rows.problem.empty()) memory = fresh_rows(rows, plan.to.count(comm_rank(comm_)), fresh);
    if (rows_agreed) {
      agree(comm_, memory);
    } else {
      if (rows.problem.empty()) rows.problem = memory;
      agree_rows(comm_, rows);
    }
    {
      py::gil_scoped_release release;
      if (!rows.arrays.empty()) {
        mpi::RedistributeOptions o;
        o.verify = b.options().pipeline.verify;
        mpi::detail::redistribute_rows(comm_, plan.from, plan.to, row_arrays(rows, fresh), o);
      }
      b.apply(plan);  // adopts plan.to; collective
    }
    py::tuple out(fresh.size());
    for (std::size_t k = 0; k < fresh.size(); ++k) out[k] = fresh[k];
    return out;
  }

  std::unique_ptr<B> b_;
  std::unique_ptr<StepHolder<B>> step_;
  MPI_Comm comm_ = MPI_COMM_NULL;
};

// What a Python with-block needs from b.step().
template <class B>
struct Step {
  Balancer<B>* b;
};

template <class Plan>
void bind_plan(py::module_& m, const char* name) {
  py::class_<Plan>(m, name, "What decide() decided, identical on every rank")
      .def_property_readonly(
          "moves", [](const Plan& p) { return p.moves(); }, "apply() moves data")
      .def_property_readonly("action",
                             [](const Plan& p) { return std::string(to_string(p.action)); })
      .def_property_readonly("reason", [](const Plan& p) { return p.reason; })
      .def_property_readonly("step", [](const Plan& p) { return p.step; })
      .def_property_readonly("checked", [](const Plan& p) { return p.checked; })
      .def_property_readonly("fired", [](const Plan& p) { return p.check.fired; })
      .def_property_readonly("efficiency", [](const Plan& p) { return p.check.efficiency; })
      .def_property_readonly("t_max", [](const Plan& p) { return p.check.t_max; })
      .def_property_readonly("t_avg", [](const Plan& p) { return p.check.t_avg; })
      .def_readonly("used_costs", &Plan::used_costs)
      .def_readonly("source", &Plan::from, "The distribution the plan starts from")
      .def_readonly("target", &Plan::to, "The distribution it moves to (== source if none)")
      .def("brief_report", [](const Plan& p) { return p.brief_report(); })
      .def("full_report", [](const Plan& p) { return p.full_report(); })
      .def("__repr__", [name](const Plan& p) {
        return "<isocost.mpi." + std::string(name) + " " + p.brief_report() + ">";
      });
}

template <class B, class Class>
void bind_common(Class& c) {
  using Plan = typename Layout<B>::Plan;
  using S = Step<B>;
  c.def(
       "record_step", [](Balancer<B>& b, double s) { b.get().record_step(s); }, "seconds"_a,
       "Records one step of this rank's work timed elsewhere (not collective)")
      .def(
          "step", [](Balancer<B>& b) { return S{&b}; }, py::keep_alive<0, 1>(),
          "A with block that times one step of this rank's work (not collective)")
      .def(
          "set_costs",
          [](Balancer<B>& b, py::object costs) {
            const std::vector<double> v = to_vector(costs, "costs");
            b.get().set_costs(v);
          },
          "costs"_a, "This rank's cost of each local element, for the next check's plan")
      .def("clear_costs", [](Balancer<B>& b) { b.get().clear_costs(); })
      .def("next_decide_is_check", [](Balancer<B>& b) { return b.get().next_decide_is_check(); })
      .def(
          "decide",
          [](Balancer<B>& b, double bytes) {
            py::gil_scoped_release release;
            return b.get().decide(bytes);
          },
          "bytes_per_element"_a = 8.0,
          "Collective on check steps: whether and how to rebalance (a plan; apply() it)")
      .def("apply", &Balancer<B>::apply, "plan"_a,
           "Collective: carries out a plan of decide(); each array holds this rank's elements, "
           "one row each; returns the arrays of the new ownership, in order")
      .def("maybe_rebalance", &Balancer<B>::maybe_rebalance,
           "Collective: decide(the arrays' bytes per element), and apply() when it moves "
           "data; returns the arrays of the (new) ownership, in order")
      .def(
          "exchange",
          [](Balancer<B>& b, py::object keys, const py::args& arrays) {
            return exchange_arrays(b.comm(), py::cast(Layout<B>::of(b.get())), keys, arrays);
          },
          "keys"_a, "Collective: isocost.mpi.exchange() over this balancer's distribution")
      .def("local_count", [](Balancer<B>& b) { return b.get().local_count(); })
      .def_property_readonly(
          "steps", [](Balancer<B>& b) { return b.get().monitor().steps(); },
          "Steps recorded so far (an abandoned step does not count)")
      .def_property_readonly(
          "last_event",
          [](Balancer<B>& b) {
            return py::module_::import("json").attr("loads")(b.get().last_event().to_json());
          })
      .def_property_readonly("options",
                             [](Balancer<B>& b) { return options_dict(b.get().options()); })
      .def("close", &Balancer<B>::close, "Frees the balancer (collective: on every rank)")
      .def("__enter__", [](Balancer<B>& b) -> Balancer<B>& { return b; })
      .def("__exit__", [](Balancer<B>& b, py::args) { b.close(); });
  (void)sizeof(Plan);
}

template <class B>
void bind_step(py::module_& m, const char* name) {
  py::class_<Step<B>>(m, name)
      .def("__enter__", [](Step<B>& s) { s.b->enter_step(); })
      .def("__exit__", [](Step<B>& s, py::object type, py::object, py::object) {
        s.b->exit_step(!type.is_none());
      });
}

}  // namespace

void bind_balancers(py::module_& m) {
  bind_plan<mpi::BlockPlan>(m, "BlockPlan");
  bind_plan<mpi::GridPlan>(m, "GridPlan");
  bind_step<mpi::BlockBalancer>(m, "_BlockStep");
  bind_step<mpi::GridBalancer>(m, "_GridStep");

  using Block = Balancer<mpi::BlockBalancer>;
  py::class_<Block> block(m, "BlockBalancer",
                          "The balancing pipeline over a 1-D block distribution "
                          "(isocost::mpi::BlockBalancer). Collective to create and to close "
                          "(close() or a with block, on every rank).");
  block.def(py::init([](py::object comm, const mpi::BlockDistribution& d, py::object options) {
              const MPI_Comm c = comm_from(comm);
              auto o = options_from<mpi::BlockBalancerOptions>(options);
              py::gil_scoped_release release;
              return std::make_unique<Block>(c, std::make_unique<mpi::BlockBalancer>(c, d, o));
            }),
            "comm"_a, "distribution"_a, "options"_a = py::none(),
            "options: a dict of BlockBalancerOptions fields, nested as in C++, e.g. "
            "{'pipeline': {'trigger': {'every': 1}}, 'speeds': [1, 3]}");
  bind_common<mpi::BlockBalancer>(block);
  block
      .def(
          "local_range",
          [](Block& b) {
            const auto& d = b.get().distribution();
            const int r = comm_rank(b.comm());
            return py::make_tuple(d.begin(r), d.end(r));
          },
          "(begin, end): this rank's global indices [begin, end)")
      .def_property_readonly("distribution", [](Block& b) { return b.get().distribution(); });

  using Grid = Balancer<mpi::GridBalancer>;
  py::class_<Grid> grid(m, "GridBalancer",
                        "The balancing pipeline over a grid of cells in one box per rank "
                        "(isocost::mpi::GridBalancer). Collective to create and to close.");
  grid.def(py::init([](py::object comm, py::object cells, py::object process_grid, py::object axes,
                       py::object decomposition, py::object options) {
             const MPI_Comm c = comm_from(comm);
             GridShape shape;
             std::vector<std::int64_t> n;
             for (py::handle x : py::iter(cells)) n.push_back(as_int64(x, "cells"));
             if (n.empty() || n.size() > kMaxDims)
               throw Error("cells: expected 1 to 3 cell counts, got " + std::to_string(n.size()));
             shape.dims = static_cast<int>(n.size());
             for (std::size_t a = 0; a < n.size(); ++a) shape.cells[a] = n[a];
             Decomposition start;
             if (!decomposition.is_none()) {
               start = decomposition.cast<Decomposition>();
             } else {
               const ProcessGrid pg = process_grid_from(process_grid, axes, shape.dims);
               if (pg.counts.empty())
                 throw Error(
                     "grid: expected counts per level (e.g. (2, 2) or '2x2'), or pass "
                     "a decomposition");
               start = decompose_uniform(shape, pg);
             }
             auto o = options_from<mpi::GridBalancerOptions>(options);
             py::gil_scoped_release release;
             return std::make_unique<Grid>(
                 c, std::make_unique<mpi::GridBalancer>(c, shape, std::move(start), o));
           }),
           "comm"_a, "cells"_a, "grid"_a = py::none(), py::kw_only(), "axes"_a = py::none(),
           "decomposition"_a = py::none(), "options"_a = py::none(),
           "cells: (nx, ny[, nz]); grid: the process grid, counts per level ((px, py) or "
           "'2x2'; axes default 0, 1, …), started from equal boxes; or decomposition: a "
           "start in cell units (isocost.decompose()). options: GridBalancerOptions fields");
  bind_common<mpi::GridBalancer>(grid);
  grid.def(
          "local_box",
          [](Grid& b) {
            const auto& box =
                b.get().boxes().boxes.at(static_cast<std::size_t>(comm_rank(b.comm())));
            return py::make_tuple(py::make_tuple(box.lo[0], box.lo[1], box.lo[2]),
                                  py::make_tuple(box.hi[0], box.hi[1], box.hi[2]));
          },
          "(lo, hi): this rank's cells [lo, hi) along x, y, z; its arrays hold them x fastest")
      .def_property_readonly("distribution", [](Grid& b) { return b.get().boxes(); });
}

}  // namespace isocost::python
