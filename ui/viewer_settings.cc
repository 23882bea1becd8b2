#include "ui/viewer_settings.h"

#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <system_error>

namespace contactlab {

namespace fs = std::filesystem;

namespace {

enum class Type { kBool, kDouble, kFloat, kString };

// One persisted field: its key, where it lives and its valid range (numbers).
struct Field {
  const char* group_comment;  // written before the field when not null
  const char* key;
  Type type;
  void* ptr;
  double lo = 0, hi = 0;  // closed range; for lo_open the lower end is excluded
  bool lo_open = false;
};

std::vector<Field> Fields(ViewerSettings* s) {
  const double kInf = HUGE_VAL;
  return {
      {"# Contact overlay", "overlay.points", Type::kBool, &s->points},
      {nullptr, "overlay.normals", Type::kBool, &s->normals},
      {nullptr, "overlay.normal_impulses", Type::kBool, &s->normal_impulses},
      {nullptr, "overlay.friction_impulses", Type::kBool, &s->friction_impulses},
      {nullptr, "overlay.cones", Type::kBool, &s->cones},
      {nullptr, "overlay.inactive", Type::kBool, &s->inactive},
      {nullptr, "overlay.gap_loads", Type::kBool, &s->gap_loads},
      {nullptr, "overlay.labels", Type::kBool, &s->labels},
      {nullptr, "overlay.point_size", Type::kDouble, &s->point_size, 1, 64},
      {nullptr, "overlay.adaptive_size", Type::kBool, &s->adaptive_size},
      {nullptr, "overlay.focus", Type::kString, &s->focus},
      {nullptr, "overlay.legend", Type::kBool, &s->legend},
      {nullptr, "overlay.impulse_scale", Type::kDouble, &s->impulse_scale, 0, kInf, true},
      {nullptr, "overlay.auto_scale", Type::kBool, &s->auto_scale},
      {nullptr, "overlay.cone_height_per_body", Type::kDouble, &s->cone_height_per_body, 0, kInf,
       true},
      {nullptr, "overlay.normal_length_per_body", Type::kDouble, &s->normal_length_per_body, 0,
       kInf, true},
      {nullptr, "overlay.transparent_bodies", Type::kBool, &s->transparent_bodies},
      {nullptr, "overlay.body_alpha", Type::kFloat, &s->body_alpha, 0.01, 1},
      {nullptr, "overlay.grid", Type::kBool, &s->show_grid},
      {nullptr, "overlay.glyphs_on_top", Type::kBool, &s->glyphs_on_top},
      {"# Pressure-field contact", "pressure.show", Type::kBool, &s->pressure_show},
      {nullptr, "pressure.outlines", Type::kBool, &s->pressure_outlines},
      {nullptr, "pressure.force_arrows", Type::kBool, &s->pressure_force_arrows},
      {nullptr, "pressure.centre_of_pressure", Type::kBool, &s->pressure_centre_of_pressure},
      {nullptr, "pressure.moment_arrows", Type::kBool, &s->pressure_moment_arrows},
      {nullptr, "pressure.face_glyphs", Type::kBool, &s->pressure_face_glyphs},
      {nullptr, "pressure.hover", Type::kBool, &s->pressure_hover},
      {nullptr, "pressure.tets", Type::kBool, &s->pressure_tets},
      {nullptr, "pressure.tets_all", Type::kBool, &s->pressure_tets_all},
      {"# Playback", "playback.rate", Type::kFloat, &s->playback_rate, 1e-4, 100},
      {"# Optional panels", "panels.conditioning", Type::kBool, &s->show_conditioning},
      {nullptr, "panels.time_series", Type::kBool, &s->show_time_series},
      {nullptr, "panels.profiler", Type::kBool, &s->show_profiler},
      {nullptr, "panels.scene_browser", Type::kBool, &s->show_scene_browser},
      {nullptr, "panels.exports", Type::kBool, &s->show_exports},
      {nullptr, "panels.help", Type::kBool, &s->show_help},
      {"# Layout [logical px]", "layout.left_panel_width", Type::kFloat, &s->left_panel_width, 150,
       4000},
      {nullptr, "layout.bottom_panel_height", Type::kFloat, &s->bottom_panel_height, 50, 4000},
      {nullptr, "layout.right_panel_width", Type::kFloat, &s->right_panel_width, 150, 4000},
      {nullptr, "layout.show_analysis", Type::kBool, &s->show_analysis},
      {"# Scene and exports", "scene.auto_reload", Type::kBool, &s->auto_reload},
      {nullptr, "export.dir", Type::kString, &s->export_dir},
  };
}

std::string FormatNumber(double v, bool is_float) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), is_float ? "%.9g" : "%.17g", v);
  return buf;
}

std::string Quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        out += c;
        break;
    }
  }
  return out + "\"";
}

// Parses a double-quoted string (with the quotes); false when malformed.
bool Unquote(const std::string& s, std::string* out) {
  if (s.size() < 2 || s.front() != '"' || s.back() != '"') return false;
  out->clear();
  for (std::size_t i = 1; i + 1 < s.size(); ++i) {
    char c = s[i];
    if (c == '"') return false;  // an unescaped quote inside
    if (c == '\\') {
      if (i + 2 >= s.size()) return false;  // a backslash escaping the closing quote
      switch (s[++i]) {
        case '"':
          c = '"';
          break;
        case '\\':
          c = '\\';
          break;
        case 'n':
          c = '\n';
          break;
        case 't':
          c = '\t';
          break;
        case 'r':
          c = '\r';
          break;
        default:
          return false;
      }
    }
    *out += c;
  }
  return true;
}

std::string Trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

bool ParseBool(const std::string& v, bool* out) {
  std::string l;
  for (char c : v) l += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (l == "true" || l == "1" || l == "yes" || l == "on") {
    *out = true;
    return true;
  }
  if (l == "false" || l == "0" || l == "no" || l == "off") {
    *out = false;
    return true;
  }
  return false;
}

bool ParseDouble(const std::string& v, double* out) {
  if (v.empty()) return false;
  errno = 0;
  char* end = nullptr;
  const double d = std::strtod(v.c_str(), &end);
  if (end != v.c_str() + v.size() || errno == ERANGE || !std::isfinite(d)) return false;
  *out = d;
  return true;
}

std::string RangeText(const Field& f) {
  std::string lo = FormatNumber(f.lo, false), hi = FormatNumber(f.hi, false);
  if (std::isinf(f.hi)) return std::string(f.lo_open ? "> " : ">= ") + lo;
  return std::string(f.lo_open ? "(" : "[") + lo + ", " + hi + "]";
}

std::string CurrentText(const Field& f) {
  switch (f.type) {
    case Type::kBool:
      return *static_cast<bool*>(f.ptr) ? "true" : "false";
    case Type::kDouble:
      return FormatNumber(*static_cast<double*>(f.ptr), false);
    case Type::kFloat:
      return FormatNumber(*static_cast<float*>(f.ptr), true);
    case Type::kString:
      return Quote(*static_cast<std::string*>(f.ptr));
  }
  return "";
}

std::string Getenv(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

}  // namespace

bool ViewerSettings::operator==(const ViewerSettings& o) const {
  ViewerSettings a = *this, b = o;
  const std::vector<Field> fa = Fields(&a), fb = Fields(&b);
  for (std::size_t i = 0; i < fa.size(); ++i) {
    if (CurrentText(fa[i]) != CurrentText(fb[i])) return false;
  }
  return true;
}

std::string SerializeViewerSettings(const ViewerSettings& settings) {
  ViewerSettings copy = settings;
  std::string out = "# ContactLab viewer settings: key = value, one per line.\n";
  for (const Field& f : Fields(&copy)) {
    if (f.group_comment) out += std::string("\n") + f.group_comment + "\n";
    out += std::string(f.key) + " = " + CurrentText(f) + "\n";
  }
  return out;
}

ViewerSettings ParseViewerSettings(const std::string& text, std::vector<std::string>* warnings) {
  ViewerSettings s;
  const std::vector<Field> fields = Fields(&s);
  auto warn = [&](int line, const std::string& msg) {
    if (warnings) warnings->push_back("line " + std::to_string(line) + ": " + msg);
  };
  std::istringstream in(text);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    const std::string t = Trim(line);
    if (t.empty() || t[0] == '#') continue;
    const auto eq = t.find('=');
    if (eq == std::string::npos) {
      warn(n, "expected KEY = VALUE, got '" + t + "'");
      continue;
    }
    const std::string key = Trim(t.substr(0, eq));
    const std::string value = Trim(t.substr(eq + 1));
    const Field* field = nullptr;
    for (const Field& f : fields) {
      if (key == f.key) field = &f;
    }
    if (!field) {
      warn(n, "unknown key '" + key + "'");
      continue;
    }
    const std::string keep = "; keeping " + CurrentText(*field);
    switch (field->type) {
      case Type::kBool: {
        bool b = false;
        if (!ParseBool(value, &b)) {
          warn(n, key + ": '" + value + "' is not true or false" + keep);
        } else {
          *static_cast<bool*>(field->ptr) = b;
        }
        break;
      }
      case Type::kDouble:
      case Type::kFloat: {
        double d = 0;
        if (!ParseDouble(value, &d)) {
          warn(n, key + ": '" + value + "' is not a number" + keep);
          break;
        }
        const bool below = field->lo_open ? d <= field->lo : d < field->lo;
        if (below || d > field->hi) {
          warn(n, key + ": " + value + " is out of " + RangeText(*field) + keep);
          break;
        }
        if (field->type == Type::kDouble) {
          *static_cast<double*>(field->ptr) = d;
        } else {
          *static_cast<float*>(field->ptr) = static_cast<float>(d);
        }
        break;
      }
      case Type::kString: {
        std::string str = value;
        if (!value.empty() && value[0] == '"' && !Unquote(value, &str)) {
          warn(n, key + ": malformed quoted string " + value + keep);
          break;
        }
        *static_cast<std::string*>(field->ptr) = str;
        break;
      }
    }
  }
  return s;
}

fs::path DefaultSettingsDir() {
  const std::string own = Getenv("CONTACTLAB_CONFIG_DIR");
  if (!own.empty()) return fs::path(own);
  const std::string xdg = Getenv("XDG_CONFIG_HOME");
  if (!xdg.empty()) return fs::path(xdg) / "contactlab";
  const std::string home = Getenv("HOME");
  if (!home.empty()) return fs::path(home) / ".config" / "contactlab";
  return fs::path();
}

fs::path DefaultSettingsFile() {
  const fs::path dir = DefaultSettingsDir();
  return dir.empty() ? dir : dir / "viewer_settings.conf";
}

bool SaveViewerSettingsFile(const fs::path& path, const ViewerSettings& settings,
                            std::string* error) {
  auto fail = [&](const std::string& msg) {
    if (error) *error = path.string() + ": " + msg;
    return false;
  };
  if (path.empty() || path.filename().empty()) return fail("not a file path");
  std::error_code ec;
  const fs::path dir = path.parent_path();
  if (!dir.empty()) {
    fs::create_directories(dir, ec);
    if (ec) return fail("cannot create " + dir.string() + ": " + ec.message());
  }
  const fs::path tmp = path.string() + ".tmp-" + std::to_string(static_cast<long long>(::getpid()));
  const std::string text = SerializeViewerSettings(settings);
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) return fail(std::string("cannot write ") + tmp.string() + ": " + std::strerror(errno));
  bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  ok = std::fflush(f) == 0 && ok;
  ok = ::fsync(::fileno(f)) == 0 && ok;
  const int saved_errno = errno;
  ok = std::fclose(f) == 0 && ok;
  if (!ok) {
    fs::remove(tmp, ec);
    return fail(std::string("cannot write ") + tmp.string() + ": " + std::strerror(saved_errno));
  }
  fs::rename(tmp, path, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(tmp, ignored);
    return fail("cannot replace the file: " + ec.message());
  }
  return true;
}

ViewerSettings LoadViewerSettingsFile(const fs::path& path, std::vector<std::string>* warnings) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return ViewerSettings();
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  if (in) text << in.rdbuf();
  if (!in || in.bad()) {
    if (warnings) warnings->push_back(path.string() + ": cannot read; using the defaults");
    return ViewerSettings();
  }
  std::vector<std::string> own;
  ViewerSettings s = ParseViewerSettings(text.str(), &own);
  if (warnings) {
    for (const std::string& w : own) warnings->push_back(path.string() + ": " + w);
  }
  return s;
}

void ApplyViewerSettings(const ViewerSettings& s, double typical_size, OverlaySettings* overlay,
                         PlaybackState* playback) {
  ContactDrawOptions& o = overlay->contacts;
  o.points = s.points;
  o.normals = s.normals;
  o.normal_impulses = s.normal_impulses;
  o.friction_impulses = s.friction_impulses;
  o.cones = s.cones;
  o.inactive = s.inactive;
  o.gap_loads = s.gap_loads;
  o.labels = s.labels;
  o.point_size = s.point_size;
  o.adaptive_size = s.adaptive_size;
  overlay->focus = ParseGlyphFocus(s.focus);
  overlay->show_legend = s.legend;
  o.impulse_scale = s.impulse_scale;
  if (typical_size > 0) {
    o.cone_height = s.cone_height_per_body * typical_size;
    o.normal_length = s.normal_length_per_body * typical_size;
  }
  overlay->auto_scale = s.auto_scale;
  overlay->transparent_bodies = s.transparent_bodies;
  overlay->body_alpha = s.body_alpha;
  overlay->show_grid = s.show_grid;
  overlay->glyphs_on_top = s.glyphs_on_top;
  if (playback) playback->rate = s.playback_rate;
}

void CollectViewerSettings(const OverlaySettings& overlay, const PlaybackState* playback,
                           double typical_size, ViewerSettings* s) {
  const ContactDrawOptions& o = overlay.contacts;
  s->points = o.points;
  s->normals = o.normals;
  s->normal_impulses = o.normal_impulses;
  s->friction_impulses = o.friction_impulses;
  s->cones = o.cones;
  s->inactive = o.inactive;
  s->gap_loads = o.gap_loads;
  s->labels = o.labels;
  s->point_size = o.point_size;
  s->adaptive_size = o.adaptive_size;
  s->focus = GlyphFocusName(overlay.focus);
  s->legend = overlay.show_legend;
  s->impulse_scale = o.impulse_scale;
  if (typical_size > 0) {
    if (s->cone_height_per_body * typical_size != o.cone_height) {
      s->cone_height_per_body = o.cone_height / typical_size;
    }
    if (s->normal_length_per_body * typical_size != o.normal_length) {
      s->normal_length_per_body = o.normal_length / typical_size;
    }
  }
  s->auto_scale = overlay.auto_scale;
  s->transparent_bodies = overlay.transparent_bodies;
  s->body_alpha = overlay.body_alpha;
  s->show_grid = overlay.show_grid;
  s->glyphs_on_top = overlay.glyphs_on_top;
  if (playback) s->playback_rate = playback->rate;
}

void ApplyPressureSettings(const ViewerSettings& s, PressureOverlay* p) {
  p->show = s.pressure_show;
  p->draw.outlines = s.pressure_outlines;
  p->draw.force_arrows = s.pressure_force_arrows;
  p->draw.centre_of_pressure = s.pressure_centre_of_pressure;
  p->draw.moment_arrows = s.pressure_moment_arrows;
  p->face_glyphs = s.pressure_face_glyphs;
  p->hover = s.pressure_hover;
  p->tets = s.pressure_tets;
  p->tets_all = s.pressure_tets_all;
}

void CollectPressureSettings(const PressureOverlay& p, ViewerSettings* s) {
  s->pressure_show = p.show;
  s->pressure_outlines = p.draw.outlines;
  s->pressure_force_arrows = p.draw.force_arrows;
  s->pressure_centre_of_pressure = p.draw.centre_of_pressure;
  s->pressure_moment_arrows = p.draw.moment_arrows;
  s->pressure_face_glyphs = p.face_glyphs;
  s->pressure_hover = p.hover;
  s->pressure_tets = p.tets;
  s->pressure_tets_all = p.tets_all;
}

}  // namespace contactlab
