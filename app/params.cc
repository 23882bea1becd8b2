#include "app/params.h"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace contactlab {
namespace {

const char* TypeName(ParamType t) {
  switch (t) {
    case ParamType::kReal:
      return "real";
    case ParamType::kInteger:
      return "integer";
    case ParamType::kEnum:
      return "enum";
    case ParamType::kBool:
      return "bool";
  }
  return "real";
}

const char* ScaleName(const ParamSpec& s) {
  if (s.type == ParamType::kEnum || s.type == ParamType::kBool) return "-";
  return s.scale == ParamScale::kLog ? "log" : "linear";
}

// A Markdown table cell: '|' escaped, line breaks as spaces.
std::string Cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

nlohmann::json Bound(double x) {
  if (std::isfinite(x)) return x;
  return std::isnan(x) ? "nan" : (x > 0 ? "inf" : "-inf");
}

std::string Path(const ParamGroupInfo& g, const ParamSpec& s) {
  return std::string(g.prefix).empty() ? s.key : std::string(g.prefix) + "." + s.key;
}

}  // namespace

nlohmann::json ParamValueJson(const ParamSpec& spec, double x) {
  switch (spec.type) {
    case ParamType::kEnum:
      return spec.FormatValue(x);
    case ParamType::kBool:
      return x != 0;
    case ParamType::kInteger:
      if (std::isfinite(x)) return static_cast<long long>(std::llround(x));
      return Bound(x);
    case ParamType::kReal:
      return Bound(x);
  }
  return Bound(x);
}

std::string ParamsMarkdown() {
  std::ostringstream md;
  md << "Generated from the parameter tables (`engine/sim/param_tables.cc`) by `contactlab params`"
        " (`--json` for the same as JSON). `--set PATH=VALUE` reaches every row. A value out of "
        "its range is refused with `FILE:LINE: PATH: value V is out of range (valid range R)`."
        " Ranges: `(` `)` exclude the bound, `[` `]` include it. Scale: how the viewer's slider "
        "moves (the slider covers the valid range, or the slider range given where the valid "
        "range is unbounded; a typed value may leave the slider range but not the valid "
        "range).\n";
  for (const ParamGroupInfo& g : AllParamGroups()) {
    md << "\n### " << g.title << "\n\n" << g.help << "\n\n";
    md << "| path | symbol | unit | type | default | valid range | scale | slider | help |\n";
    md << "|---|---|---|---|---|---|---|---|---|\n";
    for (const ParamSpec* s : g.specs) {
      std::string slider = "-";
      if (s->type == ParamType::kReal || s->type == ParamType::kInteger) {
        slider = "[" + FormatParamNumber(s->SliderMin()) + ", " +
                 FormatParamNumber(s->SliderMax()) + "]";
      }
      md << "| `" << Path(g, *s) << "` | " << Cell(s->symbol) << " | "
         << Cell(s->unit[0] ? s->unit : "") << " | " << TypeName(s->type) << " | `"
         << s->FormatValue(s->default_value) << "` | " << Cell(s->RangeText()) << " | "
         << ScaleName(*s) << " | " << slider << " | " << Cell(s->help) << " |\n";
    }
  }
  return md.str();
}

nlohmann::json ParamsJson() {
  nlohmann::json groups = nlohmann::json::array();
  for (const ParamGroupInfo& g : AllParamGroups()) {
    nlohmann::json params = nlohmann::json::array();
    for (const ParamSpec* s : g.specs) {
      nlohmann::json p;
      p["key"] = s->key;
      p["path"] = Path(g, *s);
      p["symbol"] = s->symbol;
      p["unit"] = s->unit;
      p["type"] = TypeName(s->type);
      p["min"] = Bound(s->min);
      p["max"] = Bound(s->max);
      p["min_open"] = s->min_open;
      p["max_open"] = s->max_open;
      p["range"] = s->RangeText();
      p["default"] = ParamValueJson(*s, s->default_value);
      p["scale"] = ScaleName(*s);
      nlohmann::json names = nlohmann::json::array();
      for (const char* n : s->names) names.push_back(n);
      p["names"] = names;
      p["slider_min"] = Bound(s->SliderMin());
      p["slider_max"] = Bound(s->SliderMax());
      p["advanced"] = s->advanced;
      p["help"] = s->help;
      params.push_back(p);
    }
    groups.push_back({{"group", g.group},
                      {"prefix", g.prefix},
                      {"title", g.title},
                      {"help", g.help},
                      {"parameters", params}});
  }
  return {{"format", "contactlab-params"}, {"version", 1}, {"groups", groups}};
}

nlohmann::json StepParamsJson(const StepSettings& settings) {
  nlohmann::json j;
  j[StepSettingsTable().group] = ParamValuesJson(StepSettingsTable(), settings);
  j[SapParameterTable().group] = ParamValuesJson(SapParameterTable(), settings.sap);
  // The chosen solver's own table when it is not SAP (its group name is the solver's).
  switch (settings.solver_type) {
    case SolverType::kSap: break;
    case SolverType::kCanal:
      j[CanalParameterTable().group] = ParamValuesJson(CanalParameterTable(), settings.canal);
      break;
    case SolverType::kSubAdmm:
      j[SubAdmmParameterTable().group] =
          ParamValuesJson(SubAdmmParameterTable(), settings.subadmm);
      break;
    case SolverType::kPgs:
      j[PgsParameterTable().group] = ParamValuesJson(PgsParameterTable(), settings.pgs);
      break;
    case SolverType::kFirstOrder:
      j[FirstOrderParameterTable().group] =
          ParamValuesJson(FirstOrderParameterTable(), settings.first_order);
      break;
  }
  j[ContactModelTable().group] = ParamValuesJson(ContactModelTable(), settings.contact);
  return j;
}

namespace {

// The value of `text` for `spec`, or throws with the valid range.
double ParseParamValue(const std::string& path, const ParamSpec& spec, const std::string& text) {
  double x = std::numeric_limits<double>::quiet_NaN();
  if (spec.type == ParamType::kEnum) {
    const int i = spec.NameIndex(text);
    if (i >= 0) x = i;
  } else if (spec.type == ParamType::kBool) {
    if (text == "true") x = 1;
    if (text == "false") x = 0;
  } else {
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (!text.empty() && end == text.c_str() + text.size()) x = v;
  }
  if (!spec.Contains(x)) {
    throw std::invalid_argument(path + " = " + text + ": expected " + spec.RangeText());
  }
  return x;
}

template <typename S>
bool SetInTable(const ParamTable<S>& table, const std::string& key, const std::string& value,
                S* s) {
  const std::string prefix =
      std::string(table.prefix).empty() ? "" : std::string(table.prefix) + ".";
  if (key.compare(0, prefix.size(), prefix) != 0) return false;
  const ParamField<S>* f = table.Find(key.substr(prefix.size()));
  if (!f) return false;
  f->set(s, ParseParamValue(key, f->spec, value));
  return true;
}

}  // namespace

void SetStepParam(const std::string& key, const std::string& value, StepSettings* settings) {
  if (SetInTable(CanalParameterTable(), key, value, &settings->canal)) return;
  if (SetInTable(SubAdmmParameterTable(), key, value, &settings->subadmm)) return;
  if (SetInTable(PgsParameterTable(), key, value, &settings->pgs)) return;
  if (SetInTable(FirstOrderParameterTable(), key, value, &settings->first_order)) return;
  if (SetInTable(SapParameterTable(), key, value, &settings->sap)) return;
  if (SetInTable(ContactModelTable(), key, value, &settings->contact)) return;
  if (SetInTable(StepSettingsTable(), key, value, settings)) return;
  throw std::invalid_argument("unknown parameter '" + key +
                              "' (a key of the step, solver or contact table: see "
                              "`contactlab params`)");
}

bool ExtractParamsBlock(const std::string& doc, std::string* block) {
  const size_t b = doc.find(kParamsDocBegin);
  if (b == std::string::npos) return false;
  const size_t start = doc.find('\n', b);
  const size_t e = doc.find(kParamsDocEnd, b);
  if (start == std::string::npos || e == std::string::npos || e < start) return false;
  *block = doc.substr(start + 1, e - start - 1);
  return true;
}

bool ReplaceParamsBlock(const std::string& doc, const std::string& block, std::string* out) {
  const size_t b = doc.find(kParamsDocBegin);
  if (b == std::string::npos) return false;
  const size_t start = doc.find('\n', b);
  const size_t e = doc.find(kParamsDocEnd, b);
  if (start == std::string::npos || e == std::string::npos || e < start) return false;
  *out = doc.substr(0, start + 1) + block + doc.substr(e);
  return true;
}

}  // namespace contactlab
