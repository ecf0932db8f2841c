#include "isocost/fitters/expression.hpp"

#include <muParser.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <deque>
#include <mutex>
#include <numbers>
#include <optional>
#include <string_view>
#include <utility>

#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"

namespace isocost {

using detail::exact;

namespace {

std::string join(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& name : names) s += (s.empty() ? "" : ", ") + name;
  return s;
}

bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// muParser ends most syntax messages with " at position N"; we report the
// position ourselves (clamped to the formula), so drop its copy.
std::string strip_position(std::string message) {
  const std::string marker = " at position ";
  const auto at = message.rfind(marker);
  if (at != std::string::npos && at + marker.size() < message.size() &&
      std::all_of(message.begin() + static_cast<std::ptrdiff_t>(at + marker.size()), message.end(),
                  [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    message.erase(at);
  return message;
}

// "foo(x)" makes muParser say only 'Unexpected parenthesis "("': name the
// identifier in front of the parenthesis, which is what the user got wrong.
std::string unknown_function_hint(const std::string& formula, std::size_t pos) {
  std::size_t end = std::min(pos, formula.size());
  while (end > 0 && formula[end - 1] == ' ') --end;
  std::size_t begin = end;
  while (begin > 0 && is_name_char(formula[begin - 1])) --begin;
  if (begin == end || std::isdigit(static_cast<unsigned char>(formula[begin]))) return "";
  return "; '" + formula.substr(begin, end - begin) + "' is not a muParser function";
}

Error syntax_error(const std::string& formula, const mu::Parser::exception_type& e) {
  std::string where;
  if (e.GetPos() >= 0) {
    // muParser parses formula + " ", so positions past the text mean its end.
    const auto pos = static_cast<std::size_t>(e.GetPos());
    if (pos >= formula.size())
      where = " at position " + std::to_string(formula.size()) + " (end of formula)";
    else
      where = " at position " + std::to_string(pos) +
              (e.GetToken().empty() ? "" : " ('" + e.GetToken() + "')");
  }
  std::string message = strip_position(e.GetMsg());
  if (e.GetCode() == mu::ecUNEXPECTED_PARENS && e.GetToken() == "(" && e.GetPos() >= 0)
    message += unknown_function_hint(formula, static_cast<std::size_t>(e.GetPos()));
  return Error("formula '" + formula + "': syntax error" + where + ": " + message);
}

// muParser's "=" assigns to a variable ("x = 3" evaluates to 3 whatever x
// is): never what a cost formula means, so refuse it up front.
void reject_assignment(const std::string& formula) {
  for (std::size_t k = 0; k < formula.size(); ++k) {
    if (formula[k] != '=') continue;
    const bool after_comparison =
        k > 0 && std::string_view("<>!=").find(formula[k - 1]) != std::string_view::npos;
    const bool before_equal = k + 1 < formula.size() && formula[k + 1] == '=';
    if (after_comparison) continue;
    if (before_equal) {
      ++k;  // "==": skip its second character
      continue;
    }
    throw Error("formula '" + formula + "': assignment ('=' at position " + std::to_string(k) +
                ") is not allowed; use == to compare");
  }
}

}  // namespace

// Owns the parser and the storage its variables point to. Never moved or
// copied once built (the parser holds raw pointers into it): Expression
// copies build a fresh Impl from the formula instead.
struct Expression::Impl {
  explicit Impl(std::string text) : formula(std::move(text)) {
    reject_assignment(formula);
    try {
      // muParser built with GCC defines _pi as 3.141592653589 (a speed hack in
      // muParserTemplateMagic.h), 2.5e-13 relative error: use the full value.
      parser.DefineConst("_pi", std::numbers::pi);
      parser.DefineVar("x", &x);
      // Every unknown identifier becomes a parameter with its own slot; the
      // deque keeps the slots' addresses stable as it grows.
      parser.SetVarFactory(
          [](const char*, void* self) -> double* {
            auto& slots = static_cast<Impl*>(self)->storage;
            slots.push_back(0.0);
            return &slots.back();
          },
          this);
      parser.SetExpr(formula);
      const mu::varmap_type& used = parser.GetUsedVar();  // parses; calls the factory
      bool uses_x = false;
      for (const auto& [name, slot] : used) {  // std::map: already sorted
        if (name == "x") {
          uses_x = true;
          continue;
        }
        names.push_back(name);
        slots.push_back(slot);
      }
      if (!uses_x)
        throw Error("formula '" + formula + "': does not use the variable x" +
                    (names.empty() ? "" : " (its identifiers: " + join(names) + ")"));
      // Compile to bytecode now, so later Eval() calls do not reparse.
      parser.Eval();
      if (parser.GetNumResults() != 1)
        throw Error(detail::expected_got(
            "formula '" + formula + "'", "one expression",
            std::to_string(parser.GetNumResults()) + " comma-separated expressions"));
    } catch (const mu::Parser::exception_type& e) {
      throw syntax_error(formula, e);
    }
  }
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  std::string formula;
  std::vector<std::string> names;
  std::vector<double*> slots;  // slots[i] holds the value of names[i]
  double x = 0;
  std::deque<double> storage;
  mu::Parser parser;
};

Expression::Expression(std::string formula) : impl_(std::make_unique<Impl>(std::move(formula))) {}

Expression::Expression(const Expression& other)
    : impl_(other.impl_ ? std::make_unique<Impl>(other.impl_->formula) : nullptr) {}

Expression& Expression::operator=(const Expression& other) {
  if (this != &other) impl_ = other.impl_ ? std::make_unique<Impl>(other.impl_->formula) : nullptr;
  return *this;
}

Expression::Expression(Expression&&) noexcept = default;
Expression& Expression::operator=(Expression&&) noexcept = default;
Expression::~Expression() = default;

const std::string& Expression::formula() const noexcept { return impl_->formula; }

const std::vector<std::string>& Expression::parameters() const noexcept { return impl_->names; }

double Expression::evaluate(double x, std::span<const double> values) const {
  Impl& impl = *impl_;
  if (values.size() != impl.names.size())
    throw Error("formula '" + impl.formula + "': expected " + std::to_string(impl.names.size()) +
                " parameter values" + (impl.names.empty() ? "" : " (" + join(impl.names) + ")") +
                ", got " + std::to_string(values.size()));
  impl.x = x;
  for (std::size_t i = 0; i < values.size(); ++i) *impl.slots[i] = values[i];
  try {
    return impl.parser.Eval();
  } catch (const mu::Parser::exception_type& e) {
    throw Error("formula '" + impl.formula + "': evaluation at x=" + exact(x) +
                " failed: " + e.GetMsg());
  }
}

// ---------------------------------------------------------------------------

namespace {

// One Expression shared by every copy of the model; muParser's Eval() writes
// to the parser, hence the lock.
struct GuardedExpression {
  GuardedExpression(Expression e, std::vector<double> v)
      : expression(std::move(e)), values(std::move(v)) {}
  double operator()(double x) {
    std::lock_guard lock(mutex);
    return expression.evaluate(x, values);
  }
  std::mutex mutex;
  Expression expression;
  const std::vector<double> values;
};

// Delegates to the analytic model (which validated t and supplies the numeric
// density) and only renames it, so kind() and describe() show the formula.
class ExpressionModelImpl final : public detail::CostModelImpl {
 public:
  ExpressionModelImpl(CostModel inner, std::string description)
      : inner_(std::move(inner)), description_(std::move(description)) {}
  CostPoint evaluate(double x) const override { return inner_.impl().evaluate(x); }
  double cost(double x) const override { return inner_.impl().cost(x); }
  std::string kind() const override { return "expression"; }
  std::string describe() const override { return description_; }

 private:
  CostModel inner_;
  std::string description_;
};

}  // namespace

CostModel expression_model(const std::string& formula, const std::map<std::string, double>& values,
                           double lo, double hi) {
  Expression expression(formula);
  const auto& names = expression.parameters();

  std::vector<std::string> missing, unknown;
  std::vector<double> ordered;
  std::string assigned;
  for (const auto& name : names) {
    const auto it = values.find(name);
    if (it == values.end()) {
      missing.push_back(name);
      continue;
    }
    if (!std::isfinite(it->second))
      throw Error(detail::expected_got("expression model '" + formula + "': parameter " + name,
                                       "a finite number", exact(it->second)));
    ordered.push_back(it->second);
    assigned += " " + name + "=" + exact(it->second);
  }
  for (const auto& [name, value] : values)
    if (!std::binary_search(names.begin(), names.end(), name)) unknown.push_back(name);
  if (!missing.empty() || !unknown.empty()) {
    std::string message = "expression model '" + formula + "':";
    if (!missing.empty()) message += " no value for parameter(s) " + join(missing) + ";";
    if (!unknown.empty()) message += " unknown parameter(s) " + join(unknown) + ";";
    message += names.empty() ? " the formula has no parameters"
                             : " the formula's parameters are " + join(names);
    throw Error(message);
  }

  auto guarded = std::make_shared<GuardedExpression>(std::move(expression), std::move(ordered));
  auto make_inner = [&] {
    try {
      return analytic_model([guarded](double x) { return (*guarded)(x); }, nullptr, lo, hi);
    } catch (const Error& e) {
      // Name the formula rather than "analytic model", which the user never wrote.
      const std::string prefix = "analytic model: ";
      std::string message = e.what();
      if (message.rfind(prefix, 0) == 0) message.erase(0, prefix.size());
      throw Error("expression model '" + formula + "': " + message);
    }
  };
  CostModel inner = make_inner();
  std::string description = "expression t(x) = " + formula + (assigned.empty() ? "" : ",") +
                            assigned + " (numeric density)";
  return CostModel(std::make_shared<ExpressionModelImpl>(std::move(inner), std::move(description)),
                   lo, hi);
}

// ---------------------------------------------------------------------------
// Densities from formulas in x, y, z.

namespace {

constexpr const char* kDensityVariables[] = {"x", "x, y", "x, y, z"};

// A parameterless formula with its own parser, shared by every copy of the
// density; muParser's Eval() writes to the parser, hence the lock. Never moved
// once built: the parser holds pointers into it.
struct DensityFormula {
  DensityFormula(std::string text, int dims) : formula(std::move(text)) {
    reject_assignment(formula);
    std::vector<std::string> unknown;
    try {
      parser.DefineConst("_pi", std::numbers::pi);  // see Expression::Impl
      for (int a = 0; a < dims; ++a) parser.DefineVar(std::string(1, "xyz"[a]), &point[a]);
      // Unknown identifiers get a slot so that parsing can go on and name them all.
      parser.SetVarFactory(
          [](const char*, void* self) -> double* {
            auto& slots = static_cast<DensityFormula*>(self)->storage;
            slots.push_back(0.0);
            return &slots.back();
          },
          this);
      parser.SetExpr(formula);
      for (const auto& [name, slot] : parser.GetUsedVar())
        if (!(name.size() == 1 && name[0] >= 'x' && name[0] < 'x' + dims)) unknown.push_back(name);
      if (unknown.empty()) {
        parser.Eval();  // compile to bytecode now
        if (parser.GetNumResults() != 1)
          throw Error(detail::expected_got(
              "expression density '" + formula + "'", "one expression",
              std::to_string(parser.GetNumResults()) + " comma-separated expressions"));
      }
    } catch (const mu::Parser::exception_type& e) {
      throw syntax_error(formula, e);
    }
    if (!unknown.empty())
      throw Error("expression density '" + formula + "': unknown identifier(s) " + join(unknown) +
                  "; a " + std::to_string(dims) + "-D density is a formula in " +
                  kDensityVariables[dims - 1] + " without parameters");
  }
  DensityFormula(const DensityFormula&) = delete;
  DensityFormula& operator=(const DensityFormula&) = delete;

  double operator()(std::span<const double> p) {
    std::lock_guard lock(mutex);
    // At most three coordinates: a loop, not the memmove std::copy calls for a
    // runtime length (8 % of a 10^5-part decomposition).
    for (std::size_t a = 0; a < p.size() && a < kMaxDims; ++a) point[a] = p[a];
    try {
      return parser.Eval();
    } catch (const mu::Parser::exception_type& e) {
      std::string at;
      for (double v : p) at += (at.empty() ? "" : ", ") + exact(v);
      throw Error("expression density '" + formula + "': evaluation at (" + at +
                  ") failed: " + e.GetMsg());
    }
  }

  std::mutex mutex;
  std::string formula;
  double point[kMaxDims] = {0, 0, 0};
  std::deque<double> storage;
  mu::Parser parser;
};

// "analytic density: …" from the density underneath names something the user
// never wrote: name the formula instead.
Error renamed(const std::string& formula, const Error& e) {
  const std::string prefix = "analytic density: ";
  std::string message = e.what();
  if (message.rfind(prefix, 0) == 0) message.erase(0, prefix.size());
  return Error("expression density '" + formula + "': " + message);
}

// Delegates to the analytic density and renames it, as ExpressionModelImpl does.
class ExpressionDensityImpl final : public detail::DensityImpl {
 public:
  ExpressionDensityImpl(Density inner, std::string formula, std::string description)
      : inner_(std::move(inner)),
        formula_(std::move(formula)),
        description_(std::move(description)) {}
  double mass(const Box& b) const override {
    try {
      return inner_.impl().mass(b);
    } catch (const Error& e) {
      throw renamed(formula_, e);
    }
  }
  double cross_section(const Box& b, int axis, double x) const override {
    try {
      return inner_.impl().cross_section(b, axis, x);
    } catch (const Error& e) {
      throw renamed(formula_, e);
    }
  }
  std::string describe() const override { return description_; }

 private:
  Density inner_;
  std::string formula_, description_;
};

}  // namespace

Density expression_density(const std::string& formula, const Box& box,
                           const DensityOptions& options) {
  box.validate("expression density '" + formula + "': box");
  auto guarded = std::make_shared<DensityFormula>(formula, box.dims);
  std::optional<Density> inner;
  try {
    inner = analytic_density([guarded](std::span<const double> p) { return (*guarded)(p); }, box,
                             options);
  } catch (const Error& e) {
    throw renamed(formula, e);
  }
  // "analytic density (…) on …" becomes "expression density rho(x, y) = F (…) on …".
  const std::string head = "analytic density";
  std::string rest = inner->describe();
  if (rest.rfind(head, 0) == 0) rest.erase(0, head.size());
  std::string description = "expression density rho(" +
                            std::string(kDensityVariables[box.dims - 1]) + ") = " + formula + rest;
  return Density(std::make_shared<ExpressionDensityImpl>(*inner, formula, std::move(description)),
                 box);
}

}  // namespace isocost
