// The scene reader: scene text -> a YAML document checked at the text level (size, syntax, the
// nesting and alias bounds of app/scene_text.h), with the --set overrides applied, and typed
// access to it with the messages of app/scene.h:
//   FILE:LINE: FIELD: what is wrong (valid range / expected type / allowed keys)
// (`FILE: --set KEY=VALUE: FIELD: ...` for a value that came from an override).
//
// The seam with the builder (app/scene_builder.h): the reader owns the file, the YAML library and
// every way of naming a place in the text (Reporter: node -> FILE:LINE or the --set text);
// the builder interprets a SceneDocument through Reader's typed accessors (numbers in ranges,
// vectors, rotations, choices, parameter tables) into a Model and StepSettings, and never parses
// text. Internal to app/: callers use app/scene.h.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <limits>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "app/scene.h"
#include "engine/common/param_spec.h"

namespace contactlab {
namespace scene_io {

inline constexpr double kInf = std::numeric_limits<double>::infinity();

std::string Join(const std::vector<std::string>& items, const char* sep = ", ");

// x with 10 significant digits; "inf" and "-inf" for the infinities.
std::string FormatNumber(double x);

// A closed, open or half-open interval of admissible values.
struct Range {
  double lo = -kInf, hi = kInf;
  bool lo_open = false, hi_open = false;
  bool Contains(double x) const {
    if (std::isnan(x)) return false;
    if (lo_open ? !(x > lo) : !(x >= lo)) return false;
    if (hi_open ? !(x < hi) : !(x <= hi)) return false;
    return true;
  }
  std::string ToString() const {
    return std::string(lo_open ? "(" : "[") + FormatNumber(lo) + ", " + FormatNumber(hi) +
           (hi_open ? ")" : "]");
  }
};
inline Range Closed(double lo, double hi) { return Range{lo, hi, false, false}; }
inline Range LeftOpen(double lo, double hi) { return Range{lo, hi, true, false}; }
inline Range Open(double lo, double hi) { return Range{lo, hi, true, true}; }
inline Range RightOpen(double lo, double hi) { return Range{lo, hi, false, true}; }
inline Range Finite() { return Open(-kInf, kInf); }

// A node of the document together with the dotted path that names it in messages.
struct Field {
  YAML::Node node;
  std::string path;
};

inline std::string Child(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

// Formats and throws errors; knows which nodes came from --set overrides.
class Reporter {
 public:
  explicit Reporter(std::string file) : file_(std::move(file)) {}

  const std::string& file() const { return file_; }

  // Marks `node` and everything under it as coming from the override `text`. Iterative; the
  // value's expanded size is bounded by kMaxOverrideNodes before this is called.
  void RegisterOverride(const YAML::Node& node, const std::string& text) {
    const size_t index = override_texts_.size();
    override_texts_.push_back(text);
    std::vector<YAML::Node> stack{node};
    while (!stack.empty()) {
      const YAML::Node n = stack.back();
      stack.pop_back();
      override_nodes_.emplace_back(n, index);
      if (n.IsMap()) {
        for (auto it = n.begin(); it != n.end(); ++it) stack.push_back(it->second);
      } else if (n.IsSequence()) {
        for (auto it = n.begin(); it != n.end(); ++it) stack.push_back(*it);
      }
    }
  }

  bool IsOverride(const YAML::Node& node) const {
    if (!node.IsDefined()) return false;
    for (const auto& entry : override_nodes_) {
      if (entry.first.is(node)) return true;
    }
    return false;
  }

  std::string Location(const YAML::Node& node) const {
    if (node.IsDefined()) {
      for (const auto& [n, index] : override_nodes_) {
        if (n.is(node)) return file_ + ": --set " + override_texts_[index];
      }
      const YAML::Mark mark = node.Mark();
      if (!mark.is_null() && mark.line >= 0) return file_ + ":" + std::to_string(mark.line + 1);
    }
    return file_;
  }

  [[noreturn]] void Fail(const YAML::Node& node, const std::string& field,
                         const std::string& what) const {
    throw SceneError(Location(node) + ": " + field + ": " + what);
  }
  [[noreturn]] void Fail(const Field& f, const std::string& what) const {
    Fail(f.node, f.path, what);
  }

 private:
  std::string file_;
  std::vector<std::string> override_texts_;                    // each --set KEY=VALUE
  std::vector<std::pair<YAML::Node, size_t>> override_nodes_;  // node, index of its text
};

// How a node is shown in a message: its scalar text quoted, or "a list", "a map", ...
std::string Describe(const YAML::Node& node);

// Typed access to the document with precise messages.
class Reader {
 public:
  explicit Reader(const Reporter* rep) : rep_(rep) {}

  const Reporter& rep() const { return *rep_; }
  [[noreturn]] void Fail(const Field& f, const std::string& what) const { rep_->Fail(f, what); }
  [[noreturn]] void Fail(const YAML::Node& node, const std::string& field,
                         const std::string& what) const {
    rep_->Fail(node, field, what);
  }

  void ExpectMap(const Field& f) const;
  void ExpectSequence(const Field& f) const;

  // Checks that `f` is a map whose keys are all in `allowed`, without duplicates.
  void CheckKeys(const Field& f, const std::vector<std::string>& allowed,
                 const std::string& context = "") const;

  std::optional<Field> Get(const Field& map, const std::string& key) const;
  bool Has(const Field& map, const std::string& key) const { return Get(map, key).has_value(); }

  // Path of a named list item: LIST.NAME when it has a usable name, else LIST.INDEX.
  std::string ItemPath(const Field& list, size_t index, const YAML::Node& item) const;

  Field Require(const Field& map, const std::string& key, const std::string& expected) const;

  double Number(const Field& f, const Range& range) const;
  double Number(const Field& map, const std::string& key, const Range& range,
                double fallback) const;

  int Integer(const Field& f, int lo, int hi) const;

  bool Bool(const Field& f) const;
  bool Bool(const Field& map, const std::string& key, bool fallback) const;

  std::string String(const Field& f) const;

  std::string Name(const Field& f) const;

  std::string Choice(const Field& f, const std::vector<std::string>& allowed) const;

  // A value of a table parameter (engine/sim/param_tables.h), checked against its spec: a number
  // in its range, an integer, one of its names or a boolean. Returns the value as the table
  // passes it (enum: the name's index; bool: 0 / 1).
  double Param(const Field& f, const ParamSpec& spec) const;

  // The node of a dotted table key (`free_motion.max_iterations`) under `map`, if present. An
  // intermediate that is not a map is refused (CheckKeys of the intermediate does the same).
  std::optional<Field> GetPath(const Field& map, const std::string& dotted) const;

  // Reads every key of `table` present under `map` into *s (dotted keys from nested maps);
  // absent keys leave *s unchanged. The keys themselves are checked by CheckKeys.
  template <typename S>
  void ReadParams(const Field& map, const ParamTable<S>& table, S* s) const {
    for (const ParamField<S>& pf : table.fields) {
      if (std::optional<Field> f = GetPath(map, pf.spec.key)) pf.set(s, Param(*f, pf.spec));
    }
  }

  std::vector<double> Numbers(const Field& f, size_t min_n, size_t max_n,
                              const Range& range) const;

  Vec3 Vector(const Field& f, const Range& range = Finite()) const;
  Vec3 Vector(const Field& map, const std::string& key, const Vec3& fallback,
              const Range& range = Finite()) const;
  Vec3 UnitVector(const Field& f) const;

  // {axis_angle: [x, y, z, degrees]} | {rpy_deg: [roll, pitch, yaw]} | {quat: [w, x, y, z]}.
  Quat Rotation(const Field& f) const;

  // {position: [x, y, z], rotation: {...}}
  Pose Frame(const Field& f) const;

 private:
  const Reporter* rep_;
};

// A scene document: the YAML tree after the --set overrides, and the reporter that names its
// nodes in messages.
struct SceneDocument {
  explicit SceneDocument(std::string path_for_messages) : rep(std::move(path_for_messages)) {}
  Reporter rep;
  YAML::Node root;
};

// Reads `yaml_text` (at most kMaxSceneFileBytes, checked by ScanYamlText, aliases expanding to
// at most kMaxExpandedNodes nodes) and applies `overrides` (`KEY=VALUE`, see
// docs/scene_format.md). Throws SceneError naming `path_for_messages`.
SceneDocument ReadSceneDocument(const std::string& yaml_text, const std::string& path_for_messages,
                                const std::vector<std::string>& overrides);

// The text of the scene file at `path`: a regular file (not a FIFO, device or directory) of at
// most kMaxSceneFileBytes, read to its end. Throws SceneError `PATH: ...`.
std::string ReadSceneFile(const std::string& path);

}  // namespace scene_io
}  // namespace contactlab
