#include "engine/common/param_spec.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace contactlab {

std::string FormatParamNumber(double x) {
  if (std::isnan(x)) return "nan";
  if (x == kParamInf) return "inf";
  if (x == -kParamInf) return "-inf";
  char buf[64];
  if (x == std::floor(x) && std::fabs(x) < 1e5) {  // small integers in full: 20, 10000
    std::snprintf(buf, sizeof(buf), "%.0f", x);
    return buf;
  }
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*g", precision, x);
    if (std::strtod(buf, nullptr) == x) break;
  }
  // Exponents without '+' and leading zeros: 1e-06 -> 1e-6, 1e+09 -> 1e9.
  std::string s = buf;
  const size_t e = s.find('e');
  if (e != std::string::npos) {
    std::string mantissa = s.substr(0, e);
    std::string exponent = s.substr(e + 1);
    std::string sign;
    if (!exponent.empty() && (exponent[0] == '+' || exponent[0] == '-')) {
      if (exponent[0] == '-') sign = "-";
      exponent = exponent.substr(1);
    }
    const size_t nz = exponent.find_first_not_of('0');
    exponent = nz == std::string::npos ? "0" : exponent.substr(nz);
    s = mantissa + "e" + sign + exponent;
  }
  return s;
}

bool ParamSpec::Contains(double x) const {
  if (std::isnan(x)) return false;
  if (min_open ? !(x > min) : !(x >= min)) return false;
  if (max_open ? !(x < max) : !(x <= max)) return false;
  if (type != ParamType::kReal && x != std::floor(x)) return false;
  return true;
}

std::string ParamSpec::RangeText() const {
  if (type == ParamType::kEnum) {
    std::string out;
    for (size_t i = 0; i < names.size(); ++i) out += (i ? " | " : "") + std::string(names[i]);
    return out;
  }
  if (type == ParamType::kBool) return "true | false";
  return std::string(min_open ? "(" : "[") + FormatParamNumber(min) + ", " +
         FormatParamNumber(max) + (max_open ? ")" : "]");
}

std::string ParamSpec::FormatValue(double x) const {
  if (type == ParamType::kEnum) {
    const long i = std::lround(x);
    if (x == std::floor(x) && i >= 0 && i < static_cast<long>(names.size())) return names[i];
    return FormatParamNumber(x);
  }
  if (type == ParamType::kBool && (x == 0 || x == 1)) return x != 0 ? "true" : "false";
  return FormatParamNumber(x);
}

double ParamSpec::SliderMin() const { return std::isnan(slider_min) ? min : slider_min; }
double ParamSpec::SliderMax() const { return std::isnan(slider_max) ? max : slider_max; }

double ParamSpec::Clamp(double x) const {
  if (Contains(x)) return x;
  if (std::isnan(x)) return default_value;
  double y = std::clamp(x, SliderMin(), SliderMax());
  if (type != ParamType::kReal) y = std::round(y);
  return Contains(y) ? y : default_value;
}

int ParamSpec::NameIndex(const std::string& name) const {
  for (size_t i = 0; i < names.size(); ++i) {
    if (name == names[i]) return static_cast<int>(i);
  }
  return -1;
}

ParamSpec RealParam(const char* key, double min, bool min_open, double max, bool max_open,
                    double default_value, ParamScale scale) {
  ParamSpec s;
  s.key = key;
  s.type = ParamType::kReal;
  s.min = min;
  s.min_open = min_open;
  s.max = max;
  s.max_open = max_open;
  s.default_value = default_value;
  s.scale = scale;
  return s;
}

ParamSpec IntegerParam(const char* key, double min, double max, double default_value,
                       ParamScale scale) {
  ParamSpec s = RealParam(key, min, false, max, false, default_value, scale);
  s.type = ParamType::kInteger;
  s.unit = "";
  return s;
}

ParamSpec EnumParam(const char* key, std::vector<const char*> names, int default_index) {
  ParamSpec s;
  s.key = key;
  s.type = ParamType::kEnum;
  s.unit = "";
  s.min = 0;
  s.max = static_cast<double>(names.size()) - 1;
  s.names = std::move(names);
  s.default_value = default_index;
  return s;
}

ParamSpec BoolParam(const char* key, bool default_value) {
  ParamSpec s;
  s.key = key;
  s.type = ParamType::kBool;
  s.unit = "";
  s.min = 0;
  s.max = 1;
  s.default_value = default_value ? 1 : 0;
  return s;
}

std::string ParamRangeMessage(const std::string& prefix, const ParamSpec& spec, double x) {
  const std::string key = prefix.empty() ? spec.key : prefix + "." + spec.key;
  std::string range = spec.RangeText();
  if (spec.type == ParamType::kReal && spec.unit[0] != '\0' && std::string(spec.unit) != "-") {
    range += std::string(" ") + spec.unit;
  }
  return key + " = " + spec.FormatValue(x) + " is out of range " + range;
}

void ThrowParamRangeError(const std::string& prefix, const ParamSpec& spec, double x) {
  throw std::invalid_argument(ParamRangeMessage(prefix, spec, x));
}

ParamSpec Describe(ParamSpec s, const char* symbol, const char* unit, const char* help) {
  s.symbol = symbol;
  if (s.type == ParamType::kReal) s.unit = unit;
  s.help = help;
  return s;
}
ParamSpec Slider(ParamSpec s, double lo, double hi) {
  s.slider_min = lo;
  s.slider_max = hi;
  return s;
}
ParamSpec Advanced(ParamSpec s) {
  s.advanced = true;
  return s;
}

}  // namespace contactlab
