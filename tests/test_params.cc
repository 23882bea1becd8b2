// Parameter tables (engine/sim/param_tables.h): defaults, ranges and their readers. The bounds tests
// are generated from the tables, so a new entry is checked without being listed here.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "app/params.h"
#include "app/scene.h"
#include "engine/contact/contact_model.h"
#include "engine/multibody/model.h"
#include "engine/sim/param_tables.h"
#include "engine/solvers/sap/sap_solver.h"
#include "engine/sim/simulator.h"

namespace contactlab {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

bool Has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// Values just outside each finite bound (refused) and at / just inside it (accepted).
struct Probe {
  double value;
  bool valid;
  std::string what;
};
std::vector<Probe> BoundProbes(const ParamSpec& s) {
  std::vector<Probe> out;
  const bool integral = s.type != ParamType::kReal;
  if (std::isfinite(s.min)) {
    if (integral) {
      out.push_back({s.min - 1, false, "min - 1"});
      out.push_back({s.min, true, "min"});
    } else {
      out.push_back({std::nextafter(s.min, -kInf), false, "just below min"});
      out.push_back({s.min, !s.min_open, "min"});
      out.push_back({std::nextafter(s.min, kInf), true, "just above min"});
    }
  } else {
    out.push_back({-kInf, false, "-inf"});
  }
  if (std::isfinite(s.max)) {
    if (integral) {
      out.push_back({s.max + 1, false, "max + 1"});
      out.push_back({s.max, true, "max"});
    } else {
      out.push_back({std::nextafter(s.max, kInf), false, "just above max"});
      out.push_back({s.max, !s.max_open, "max"});
      out.push_back({std::nextafter(s.max, -kInf), true, "just below max"});
    }
  } else {
    out.push_back({kInf, !s.max_open, "inf"});
    out.push_back({1e300, true, "1e300"});
  }
  out.push_back({std::numeric_limits<double>::quiet_NaN(), false, "nan"});
  if (integral && s.max > s.min) out.push_back({s.min + 0.5, false, "not an integer"});
  return out;
}

// Runs `check` for each table: the table, a default-constructed struct and how the engine
// validates it (the struct's own Validate where it has one).
template <typename S>
void ForEachProbe(const ParamTable<S>& table, const std::function<void(const S&)>& validate) {
  for (const ParamField<S>& f : table.fields) {
    for (const Probe& p : BoundProbes(f.spec)) {
      EXPECT_EQ(f.spec.Contains(p.value), p.valid)
          << table.group << "." << f.spec.key << " " << p.what << " = " << p.value;
      if (!p.valid) continue;  // a refused value may not even be representable in the field
      S s{};
      f.set(&s, p.value);
      EXPECT_EQ(f.get(s), p.value) << f.spec.key << ": the binding reads back what it wrote";
      EXPECT_NO_THROW(validate(s)) << table.group << "." << f.spec.key << " " << p.what;
    }
    // Refused values, written through a real (double) field only: int/enum fields would wrap.
    if (f.spec.type == ParamType::kReal) {
      for (const Probe& p : BoundProbes(f.spec)) {
        if (p.valid) continue;
        S s{};
        f.set(&s, p.value);
        try {
          validate(s);
          ADD_FAILURE() << table.group << "." << f.spec.key << " " << p.what << " accepted";
        } catch (const std::invalid_argument& e) {
          EXPECT_TRUE(Has(e.what(), f.spec.key)) << e.what();
          EXPECT_TRUE(Has(e.what(), f.spec.RangeText())) << e.what();
        }
      }
    }
  }
}

TEST(ParamTables, DefaultsLieInTheirRangesAndMatchTheStructs) {
  auto check = [](const char* group, const std::vector<const ParamSpec*>& specs,
                  const std::function<double(size_t)>& struct_default) {
    for (size_t i = 0; i < specs.size(); ++i) {
      const ParamSpec& s = *specs[i];
      EXPECT_TRUE(s.Contains(s.default_value))
          << group << "." << s.key << " default " << s.default_value << " not in " << s.RangeText();
      // The struct's initializer and the table agree (a default is documented by the table).
      EXPECT_EQ(struct_default(i), s.default_value) << group << "." << s.key;
      if (s.type == ParamType::kReal || s.type == ParamType::kInteger) {
        // The viewer's slider covers valid values only.
        EXPECT_TRUE(s.Contains(s.SliderMin())) << s.key << " slider min " << s.SliderMin();
        EXPECT_TRUE(s.Contains(s.SliderMax())) << s.key << " slider max " << s.SliderMax();
      }
      EXPECT_LE(s.SliderMin(), s.SliderMax()) << s.key;
      if (s.scale == ParamScale::kLog) {
        EXPECT_GT(s.SliderMin(), 0) << s.key << ": log slider";
      }
      EXPECT_GT(std::string(s.help).size(), 10u) << s.key << " has no help";
    }
  };
  const StepSettings step{};
  check("step", StepSettingsTable().Specs(),
        [&](size_t i) { return StepSettingsTable().fields[i].get(step); });
  const SapParameters sap{};
  check("solver", SapParameterTable().Specs(),
        [&](size_t i) { return SapParameterTable().fields[i].get(sap); });
  const ContactModelParameters contact{};
  check("contact", ContactModelTable().Specs(),
        [&](size_t i) { return ContactModelTable().fields[i].get(contact); });
  const Material material{};
  check("material", MaterialTable().Specs(),
        [&](size_t i) { return MaterialTable().fields[i].get(material); });
}

TEST(ParamTables, EnumNamesAreTheEnginesNames) {
  const ParamSpec& model = ContactModelTable().Find("model")->spec;
  ASSERT_EQ(model.names.size(), static_cast<size_t>(kNumContactModelTypes));
  for (int i = 0; i < kNumContactModelTypes; ++i) {
    EXPECT_STREQ(model.names[i], ContactModelName(static_cast<ContactModelType>(i)));
  }
  const ParamSpec& integrator = StepSettingsTable().Find("integrator")->spec;
  for (size_t i = 0; i < integrator.names.size(); ++i) {
    Integrator parsed;
    ASSERT_TRUE(ParseIntegrator(integrator.names[i], &parsed));
    EXPECT_EQ(static_cast<size_t>(parsed), i) << integrator.names[i];
  }
  // Setting through the table writes the enum the name stands for.
  SapParameters p;
  SapParameterTable()
      .Find("linear_solver")
      ->set(&p, SapParameterTable().Find("linear_solver")->spec.NameIndex("dense"));
  EXPECT_EQ(p.linear_solver, SapParameters::LinearSolver::kDense);
  SapParameterTable()
      .Find("line_search")
      ->set(&p, SapParameterTable().Find("line_search")->spec.NameIndex("backtracking"));
  EXPECT_EQ(p.line_search, SapParameters::LineSearch::kBacktracking);
}

TEST(ParamTables, EveryBoundRefusedJustOutsideAcceptedAtOrInside) {
  ForEachProbe<StepSettings>(StepSettingsTable(), [](const StepSettings& s) { s.Validate(); });
  ForEachProbe<SapParameters>(SapParameterTable(), [](const SapParameters& s) { s.Validate(); });
  ForEachProbe<ContactModelParameters>(ContactModelTable(), [](const ContactModelParameters& c) {
    StepSettings s;
    s.contact = c;
    s.Validate();
  });
  ForEachProbe<Material>(MaterialTable(),
                         [](const Material& m) { MaterialTable().Validate(m, "materials.m"); });
}

TEST(ParamTables, EngineMessagesNameTheSceneKeyAndRange) {
  SapParameters p;
  p.ls_alpha_max = 0.5;
  try {
    p.Validate();
    ADD_FAILURE() << "ls_alpha_max 0.5 accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "solver.ls_alpha_max = 0.5 is out of range [1, 100]");
  }
  StepSettings s;
  s.contact.stiction_tolerance = 0;
  try {
    s.Validate();
    ADD_FAILURE() << "v_s = 0 accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "contact.stiction_tolerance = 0 is out of range (0, 1] m/s");
  }
  // Model::Finalize checks materials by the same table.
  Model m;
  m.materials.push_back(Material{});
  m.materials[0].hunt_crossley_dissipation = -1;
  try {
    m.Finalize();
    ADD_FAILURE() << "d = -1 accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_TRUE(Has(e.what(),
                    "materials.default.hunt_crossley_dissipation = -1 is out of range "
                    "[0, inf) s/m"))
        << e.what();
  }
}

// ---------------------------------------------------------------------------------------------
// The scene reader and --set.

std::string ParseError(const std::string& text, const std::vector<std::string>& sets = {}) {
  SceneOptions o;
  o.overrides = sets;
  try {
    ParseScene(text, "dir/test.yaml", o);
  } catch (const SceneError& e) {
    return e.what();
  }
  return "";
}

// A scene text that sets the table key `key` (dotted: nested maps) of group `group` to `value`,
// and the 1-based line of the value and the FIELD path an error names.
struct KeyScene {
  std::string text;
  int line = 0;
  std::string path;
};
KeyScene SceneWith(const std::string& group, const std::string& key, const std::string& value) {
  KeyScene k;
  std::ostringstream t;
  t << "description: generated\n";
  int line = 1;
  std::string indent;
  std::vector<std::string> segments;
  std::string rest = key;
  for (size_t dot; (dot = rest.find('.')) != std::string::npos; rest = rest.substr(dot + 1)) {
    segments.push_back(rest.substr(0, dot));
  }
  if (group == "material") {
    t << "materials:\n  - name: m\n";
    line += 2;
    indent = "    ";
    k.path = "materials.m.";
  } else if (group != "step") {
    // The group's scene prefix, one nested map per segment ("solver.canal": solver: canal:).
    std::string prefix = group;
    for (const ParamGroupInfo& g : AllParamGroups()) {
      if (group == g.group) prefix = g.prefix;
    }
    std::string seg_rest = prefix;
    for (size_t dot;; seg_rest = seg_rest.substr(dot + 1)) {
      dot = seg_rest.find('.');
      t << indent << seg_rest.substr(0, dot) << ":\n";
      ++line;
      indent += "  ";
      if (dot == std::string::npos) break;
    }
    k.path = prefix + ".";
  }
  for (const std::string& seg : segments) {
    t << indent << seg << ":\n";
    ++line;
    indent += "  ";
  }
  t << indent << rest << ": " << value << "\n";
  k.line = line + 1;
  k.path += key;
  k.text = t.str();
  return k;
}

std::string YamlValue(const ParamSpec& s, double x) {
  if (std::isinf(x)) return x > 0 ? ".inf" : "-.inf";
  if (std::isnan(x)) return ".nan";
  return FormatParamNumber(x);
}

TEST(SceneParams, EveryBadValueGivesFileLineFieldAndRange) {
  int checked = 0;
  for (const ParamGroupInfo& g : AllParamGroups()) {
    for (const ParamSpec* s : g.specs) {
      if (s->type == ParamType::kEnum || s->type == ParamType::kBool) {
        const KeyScene k = SceneWith(g.group, s->key, "not_a_name");
        const std::string msg = ParseError(k.text);
        EXPECT_TRUE(Has(msg, "dir/test.yaml:" + std::to_string(k.line) + ": " + k.path + ": "))
            << msg << "\n"
            << k.text;
        EXPECT_TRUE(Has(msg, s->type == ParamType::kBool ? "expected true or false"
                                                         : "expected one of " + s->RangeText()))
            << msg;
        ++checked;
        continue;
      }
      for (const Probe& p : BoundProbes(*s)) {
        if (p.valid || std::isnan(p.value)) continue;
        const KeyScene k = SceneWith(g.group, s->key, YamlValue(*s, p.value));
        const std::string msg = ParseError(k.text);
        const std::string where = "dir/test.yaml:" + std::to_string(k.line) + ": " + k.path + ": ";
        EXPECT_TRUE(Has(msg, where)) << msg << "\n" << k.text;
        if (s->type == ParamType::kInteger && p.value != std::floor(p.value)) {
          EXPECT_TRUE(Has(msg, "expected an integer")) << msg;
        } else {
          EXPECT_TRUE(Has(msg, "is out of range (valid range " + s->RangeText() + ")"))
              << p.what << ": " << msg << "\n"
              << k.text;
        }
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 40);
}

TEST(SceneParams, EveryValidValueIsReadIntoItsField) {
  // A value inside the range other than the default, per key: the reader must store it in the
  // field the table binds (read back through the table).
  auto inside = [](const ParamSpec& s) {
    if (s.type == ParamType::kEnum) return s.default_value == 0 ? 1.0 : 0.0;
    if (s.type == ParamType::kBool) return 1 - s.default_value;
    double x = s.SliderMin() != s.default_value ? s.SliderMin() : s.SliderMax();
    if (!s.Contains(x)) x = s.type == ParamType::kInteger ? s.min + 1 : std::nextafter(s.min, kInf);
    return x;
  };
  for (const auto& f : StepSettingsTable().fields) {
    const double x = inside(f.spec);
    std::string text = SceneWith("step", f.spec.key, f.spec.FormatValue(x)).text;
    if (std::string(f.spec.key) == "time_step") text += "duration: 0.5\n";
    const Scene scene = ParseScene(text, "t.yaml");
    EXPECT_EQ(f.get(scene.settings), x) << f.spec.key;
  }
  for (const auto& f : SapParameterTable().fields) {
    const double x = inside(f.spec);
    const Scene scene =
        ParseScene(SceneWith("solver", f.spec.key, f.spec.FormatValue(x)).text, "t.yaml");
    EXPECT_EQ(f.get(scene.settings.sap), x) << f.spec.key;
  }
  for (const auto& f : ContactModelTable().fields) {
    const double x = inside(f.spec);
    const Scene scene =
        ParseScene(SceneWith("contact", f.spec.key, f.spec.FormatValue(x)).text, "t.yaml");
    EXPECT_EQ(f.get(scene.settings.contact), x) << f.spec.key;
  }
  for (const auto& f : MaterialTable().fields) {
    const double x = inside(f.spec);
    const Scene scene =
        ParseScene(SceneWith("material", f.spec.key, f.spec.FormatValue(x)).text, "t.yaml");
    ASSERT_EQ(scene.model.materials.size(), 2u);
    EXPECT_EQ(f.get(scene.model.materials[1]), x) << f.spec.key;
  }
}

TEST(SceneParams, HandWrittenBadParameters) {
  // The ranges the issue found disagreeing: one range now, the table's.
  EXPECT_TRUE(Has(ParseError("solver:\n  ls_alpha_max: 0.5\n"),
                  "dir/test.yaml:2: solver.ls_alpha_max: value 0.5 is out of range (valid range "
                  "[1, 100])"));
  EXPECT_TRUE(Has(ParseError("solver:\n  ls_max_iterations: 5000\n"),
                  "dir/test.yaml:2: solver.ls_max_iterations: value 5000 is out of range (valid "
                  "range [1, 1000])"));
  EXPECT_TRUE(Has(ParseError("contact: {model: lagged, stiction_tolerance: 0}\n"),
                  "dir/test.yaml:1: contact.stiction_tolerance: value 0 is out of range (valid "
                  "range (0, 1])"));
  EXPECT_TRUE(Has(ParseError("contact:\n  model: hunt\n"),
                  "dir/test.yaml:2: contact.model: expected one of linear | lagged | "
                  "lagged_regularized | similar, got 'hunt'"));
  EXPECT_TRUE(Has(ParseError("contact:\n  modle: lagged\n"),
                  "dir/test.yaml:2: contact.modle: unknown key 'modle' (allowed: model, "
                  "stiction_tolerance, near_rigid_beta)"));
  EXPECT_TRUE(Has(ParseError("materials:\n  - name: a\n    hunt_crossley_dissipation: -1\n"),
                  "dir/test.yaml:3: materials.a.hunt_crossley_dissipation: value -1 is out of "
                  "range (valid range [0, inf))"));
  EXPECT_TRUE(Has(ParseError("materials:\n  - name: a\npairs:\n  - materials: [a, a]\n"
                             "    hunt_crossley_dissipation: .nan\n"),
                  "dir/test.yaml:5: pairs.0.hunt_crossley_dissipation: expected a number"));
  EXPECT_TRUE(Has(ParseError("free_motion: {max_iterations: 1001}\n"),
                  "dir/test.yaml:1: free_motion.max_iterations: value 1001 is out of range "
                  "(valid range [1, 1000])"));
  EXPECT_TRUE(Has(ParseError("free_motion: 3\n"), "free_motion: expected a map"));
}

TEST(SceneParams, SetRefusesOutOfRangeWithTheRange) {
  const std::string base = "description: x\n";
  EXPECT_EQ(ParseError(base, {"contact.model=similar", "contact.stiction_tolerance=1"}), "");
  EXPECT_EQ(ParseError(base, {"contact.stiction_tolerance=2"}),
            "dir/test.yaml: --set contact.stiction_tolerance=2: contact.stiction_tolerance: "
            "value 2 is out of range (valid range (0, 1])");
  EXPECT_TRUE(Has(ParseError(base, {"solver.max_iterations=0"}),
                  "--set solver.max_iterations=0: solver.max_iterations: value 0 is out of range "
                  "(valid range [1, 10000])"));
  EXPECT_TRUE(Has(ParseError(base, {"materials.default.hunt_crossley_dissipation=-2"}),
                  "materials.default.hunt_crossley_dissipation: value -2 is out of range (valid "
                  "range [0, inf))"));
  // An unknown key names every valid key of its table.
  const std::string unknown = ParseError(base, {"solver.sigmaa=1"});
  for (const std::string& key : SapParameterTable().Keys()) {
    EXPECT_TRUE(Has(unknown, key)) << key << " missing from: " << unknown;
  }
}

TEST(SceneParams, ContactSectionAndHuntCrossleyAreRead) {
  const Scene s = ParseScene(
      "contact: {model: lagged_regularized, stiction_tolerance: 2e-4}\n"
      "materials:\n  - {name: a, stiffness: 1e6, hunt_crossley_dissipation: 0}\n"
      "  - {name: b, stiffness: 3e6, hunt_crossley_dissipation: 4}\n"
      "pairs:\n  - {materials: [a, b], friction: 0.3}\n",
      "t.yaml");
  EXPECT_EQ(s.settings.contact.model, ContactModelType::kLaggedRegularized);
  EXPECT_EQ(s.settings.contact.stiction_tolerance, 2e-4);
  ASSERT_EQ(s.model.pair_overrides.size(), 1u);
  // Unspecified pair values follow the combination rules (engine/multibody/model.h): d = (d_a k_b + d_b
  // k_a) / (k_a + k_b) = (0 + 4 · 1e6) / 4e6 = 1 s/m, k = 1e6 · 3e6 / 4e6 = 7.5e5 N/m. (The
  // reader used to leave d at the material default 10.)
  EXPECT_NEAR(s.model.pair_overrides[0].values.hunt_crossley_dissipation, 1.0, 1e-12);
  EXPECT_NEAR(s.model.pair_overrides[0].values.stiffness, 7.5e5, 1e-6);
  EXPECT_EQ(s.model.pair_overrides[0].values.friction, 0.3);
}

// ---------------------------------------------------------------------------------------------
// The generated reference.

TEST(ParamsReference, DocsBlockIsTheGeneratedReference) {
  const std::string path = std::string(CONTACTLAB_SOURCE_DIR) + "/docs/scene_format.md";
  std::ifstream in(path);
  ASSERT_TRUE(in) << path;
  std::stringstream text;
  text << in.rdbuf();
  std::string block;
  ASSERT_TRUE(ExtractParamsBlock(text.str(), &block)) << path << " has no generated block";
  EXPECT_EQ(block, ParamsMarkdown())
      << path << ": the parameter reference differs from `contactlab params`; regenerate it with "
      << "`contactlab params --update-doc docs/scene_format.md`";
}

TEST(ParamsReference, MarkdownAndJsonListEveryParameter) {
  const std::string md = ParamsMarkdown();
  const nlohmann::json j = ParamsJson();
  int n = 0;
  for (const ParamGroupInfo& g : AllParamGroups()) {
    for (const ParamSpec* s : g.specs) {
      const std::string path =
          std::string(g.prefix).empty() ? s->key : std::string(g.prefix) + "." + s->key;
      EXPECT_TRUE(Has(md, "| `" + path + "` |")) << path;
      ++n;
    }
  }
  int json_n = 0;
  for (const auto& g : j.at("groups")) json_n += static_cast<int>(g.at("parameters").size());
  EXPECT_EQ(json_n, n);
  EXPECT_EQ(j.dump().find("null"), std::string::npos) << "infinite bounds are strings";
}

TEST(ParamsReference, ReplaceBlockRoundTrips) {
  const std::string doc =
      std::string("intro\n") + kParamsDocBegin + "\nold\n" + kParamsDocEnd + "\ntail\n";
  std::string out, block;
  ASSERT_TRUE(ReplaceParamsBlock(doc, "new\n", &out));
  ASSERT_TRUE(ExtractParamsBlock(out, &block));
  EXPECT_EQ(block, "new\n");
  EXPECT_TRUE(Has(out, "intro\n") && Has(out, "\ntail\n"));
  EXPECT_FALSE(ExtractParamsBlock("no markers", &block));
}

}  // namespace
}  // namespace contactlab
