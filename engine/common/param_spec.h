// Parameter tables: every tunable parameter of a model, solver or step is declared once, as a
// ParamSpec (key, symbol, unit, valid range, default, scale, help) bound to its struct field.
// The scene reader, `--set`, the viewer's parameter panel, the exports and the generated
// reference (`contactlab params`, docs/scene_format.md) all read the tables, so a range is
// written in exactly one place: the table entry.
//
// A ParamTable<S> is a list of ParamField<S>: a spec with a getter and a setter that read and
// write the field of S through a member pointer (Bind<&S::field>). Values pass through the
// table as double: integers exactly (|n| < 2^53), enums as the index of their name, booleans as
// 0 / 1. Validate(s) checks every field of s against its range and throws std::invalid_argument
// `GROUP.KEY = VALUE is out of range RANGE` (the group is the key's scene prefix, e.g.
// `solver.sigma = 2 is out of range (0, 1]`).
#pragma once

#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace contactlab {

enum class ParamType { kReal, kInteger, kEnum, kBool };
enum class ParamScale { kLinear, kLog };

constexpr double kParamInf = std::numeric_limits<double>::infinity();

struct ParamSpec {
  // Key within its group as the scene file spells it; a dotted key names a nested map
  // (`free_motion.max_iterations`).
  const char* key = "";
  const char* symbol = "";  // as in the papers (UTF-8), e.g. "σ"; "" when there is none
  const char* unit = "-";   // SI unit, "-" for a dimensionless number, "" for enums / booleans
  ParamType type = ParamType::kReal;
  // Valid range [min, max]; an open end excludes its bound. Enums: [0, names - 1], booleans
  // [0, 1] (both closed, set by the table helpers).
  double min = -kParamInf, max = kParamInf;
  bool min_open = false, max_open = false;
  double default_value = 0;  // enums: index into `names`
  ParamScale scale = ParamScale::kLinear;
  std::vector<const char*> names;  // enum values as the scene file spells them (index order)
  // Slider range of the viewer where the valid range is unbounded or a log slider cannot reach
  // its open end (e.g. stiffness (0, inf): slider [1e2, 1e10]). NaN: the valid range itself.
  // Values typed outside it are still accepted when they are in the valid range.
  double slider_min = std::numeric_limits<double>::quiet_NaN();
  double slider_max = std::numeric_limits<double>::quiet_NaN();
  bool advanced = false;  // shown under "advanced" in the viewer's panel
  const char* help = "";  // one or two sentences: what it does and what raising it does

  // Whether x (finite or not) is a valid value: within the range, an integer for integer and
  // enum parameters, 0 or 1 for booleans. NaN is never valid.
  bool Contains(double x) const;
  // "(0, 1]", "[1, 10000]", "[0, inf)"; enums: "linear | lagged | ..."; booleans "true | false".
  std::string RangeText() const;
  // A value formatted for messages and the reference: shortest round-trip form for reals
  // ("1e-06" as "1e-6"), the name for enums, true / false for booleans.
  std::string FormatValue(double x) const;
  // The slider's bounds: slider_min / slider_max, else the range's bounds.
  double SliderMin() const;
  double SliderMax() const;
  // The nearest slider-range value to x when x is not valid (e.g. a value typed into a
  // slider); x itself when it is.
  double Clamp(double x) const;
  // Index of `name` in `names`, or -1.
  int NameIndex(const std::string& name) const;
};

// Integers below 1e5 in full ("20", "10000"); otherwise the shortest form that reads back
// exactly, without exponent padding: "1e-6" rather than "1e-06", "0.001", "1e9", "inf".
std::string FormatParamNumber(double x);

namespace param_detail {
template <typename T>
struct MemberTraits;
template <typename S, typename F>
struct MemberTraits<F S::*> {
  using Struct = S;
  using Field = F;
};

template <typename F>
double ToDouble(const F& v) {
  if constexpr (std::is_enum_v<F>) {
    return static_cast<double>(static_cast<std::underlying_type_t<F>>(v));
  } else {
    return static_cast<double>(v);
  }
}

template <typename F>
F FromDouble(double x) {
  if constexpr (std::is_same_v<F, bool>) {
    return x != 0;
  } else if constexpr (std::is_enum_v<F>) {
    return static_cast<F>(static_cast<std::underlying_type_t<F>>(std::lround(x)));
  } else if constexpr (std::is_integral_v<F>) {
    return static_cast<F>(std::llround(x));
  } else {
    return static_cast<F>(x);
  }
}
}  // namespace param_detail

template <typename S>
struct ParamField {
  ParamSpec spec;
  double (*get)(const S&) = nullptr;
  void (*set)(S*, double) = nullptr;  // x must be spec.Contains(x)
};

// The getter and setter of the field M (a member pointer constant) of its struct.
template <auto M>
double GetMember(const typename param_detail::MemberTraits<decltype(M)>::Struct& s) {
  return param_detail::ToDouble(s.*M);
}
template <auto M>
void SetMember(typename param_detail::MemberTraits<decltype(M)>::Struct* s, double x) {
  using F = typename param_detail::MemberTraits<decltype(M)>::Field;
  s->*M = param_detail::FromDouble<F>(x);
}

// A table entry for the field M: Bind<&SapParameters::sigma>(spec).
template <auto M>
ParamField<typename param_detail::MemberTraits<decltype(M)>::Struct> Bind(ParamSpec spec) {
  ParamField<typename param_detail::MemberTraits<decltype(M)>::Struct> f;
  f.spec = std::move(spec);
  f.get = &GetMember<M>;
  f.set = &SetMember<M>;
  return f;
}

// Spec constructors; each returns a spec the caller completes (symbol, unit, help, ...).
ParamSpec RealParam(const char* key, double min, bool min_open, double max, bool max_open,
                    double default_value, ParamScale scale);
ParamSpec IntegerParam(const char* key, double min, double max, double default_value,
                       ParamScale scale);
ParamSpec EnumParam(const char* key, std::vector<const char*> names, int default_index);
ParamSpec BoolParam(const char* key, bool default_value);

// The message of a value outside its range: "PREFIX.KEY = VALUE is out of range RANGE" (with
// the unit after a bounded range when it has one).
std::string ParamRangeMessage(const std::string& prefix, const ParamSpec& spec, double x);

// A group of parameters of one struct: its scene prefix ("solver", "" for top-level keys,
// "materials.NAME" for materials) and its fields in the order they are documented.
template <typename S>
struct ParamTable {
  const char* group = "";   // name in the reference and in JSON exports, e.g. "solver"
  const char* prefix = "";  // scene path prefix of its keys ("" for the top level)
  const char* title = "";   // heading of the reference section
  const char* help = "";    // paragraph above the reference table
  std::vector<ParamField<S>> fields;

  const ParamField<S>* Find(const std::string& key) const {
    for (const auto& f : fields) {
      if (key == f.spec.key) return &f;
    }
    return nullptr;
  }
  std::vector<std::string> Keys() const {
    std::vector<std::string> out;
    for (const auto& f : fields) out.push_back(f.spec.key);
    return out;
  }
  std::vector<const ParamSpec*> Specs() const {
    std::vector<const ParamSpec*> out;
    for (const auto& f : fields) out.push_back(&f.spec);
    return out;
  }
  // A struct with every field at its table default (the rest value-initialized by S{}).
  S Defaults() const {
    S s{};
    for (const auto& f : fields) f.set(&s, f.spec.default_value);
    return s;
  }
  // Throws std::invalid_argument(ParamRangeMessage(prefix_for_messages, ...)) for the first
  // field out of range.
  void Validate(const S& s, const std::string& prefix_for_messages) const {
    for (const auto& f : fields) {
      const double x = f.get(s);
      if (!f.spec.Contains(x)) ThrowParamRange(prefix_for_messages, f.spec, x);
    }
  }
  void Validate(const S& s) const { Validate(s, prefix); }

 private:
  [[noreturn]] static void ThrowParamRange(const std::string& prefix, const ParamSpec& spec,
                                           double x);
};

[[noreturn]] void ThrowParamRangeError(const std::string& prefix, const ParamSpec& spec, double x);

template <typename S>
void ParamTable<S>::ThrowParamRange(const std::string& prefix, const ParamSpec& spec, double x) {
  ThrowParamRangeError(prefix, spec, x);
}

// A table without its struct type, for printing every table (the reference, exports).
struct ParamGroupInfo {
  const char* group;
  const char* prefix;
  const char* title;
  const char* help;
  std::vector<const ParamSpec*> specs;
};

template <typename S>
ParamGroupInfo GroupInfo(const ParamTable<S>& table) {
  return ParamGroupInfo{table.group, table.prefix, table.title, table.help, table.Specs()};
}

// Builders used by the tables (engine/sim/param_tables.h and the per-folder tables): a spec with
// its symbol, unit (real parameters only) and help; with a viewer slider range; marked advanced.
ParamSpec Describe(ParamSpec s, const char* symbol, const char* unit, const char* help);
ParamSpec Slider(ParamSpec s, double lo, double hi);
ParamSpec Advanced(ParamSpec s);
namespace param_dsl {
constexpr bool kOpen = true, kClosed = false;
constexpr ParamScale kLog = ParamScale::kLog, kLin = ParamScale::kLinear;
}  // namespace param_dsl

}  // namespace contactlab
