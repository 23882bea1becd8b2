// The scene reader: scene text -> checked YAML document with --set overrides (see
// scene_reader.h).
#include "app/scene_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "app/scene_text.h"

namespace contactlab {
namespace scene_io {

std::string Join(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += sep;
    out += items[i];
  }
  return out;
}

std::string FormatNumber(double x) {
  if (x == kInf) return "inf";
  if (x == -kInf) return "-inf";
  std::ostringstream s;
  s.precision(10);
  s << x;
  return s.str();
}

std::string Describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Null:
      return "nothing (null)";
    case YAML::NodeType::Scalar:
      return "'" + node.Scalar() + "'";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Map:
      return "a map";
    default:
      return "an undefined value";
  }
}

void Reader::ExpectMap(const Field& f) const {
  if (!f.node.IsMap()) Fail(f, "expected a map, got " + Describe(f.node));
}

void Reader::ExpectSequence(const Field& f) const {
  if (!f.node.IsSequence()) Fail(f, "expected a list, got " + Describe(f.node));
}

void Reader::CheckKeys(const Field& f, const std::vector<std::string>& allowed,
                       const std::string& context) const {
  ExpectMap(f);
  std::set<std::string> seen;
  for (auto it = f.node.begin(); it != f.node.end(); ++it) {
    const YAML::Node key = it->first;
    if (!key.IsScalar()) {
      rep_->Fail(key, f.path.empty() ? "(document)" : f.path, "map keys must be plain names");
    }
    const std::string k = key.Scalar();
    const std::string path = Child(f.path, k);
    bool known = false;
    for (const auto& a : allowed) known = known || a == k;
    if (!known) {
      // The key's line, unless the entry came from an override (keys are not recorded).
      const YAML::Node value = it->second;
      rep_->Fail(rep_->IsOverride(value) ? value : key, path,
                 "unknown key '" + k + "'" + context + " (allowed: " + Join(allowed) + ")");
    }
    if (!seen.insert(k).second) rep_->Fail(key, path, "duplicate key '" + k + "'");
  }
}

std::optional<Field> Reader::Get(const Field& map, const std::string& key) const {
  if (!map.node.IsMap()) return std::nullopt;
  for (auto it = map.node.begin(); it != map.node.end(); ++it) {
    if (it->first.IsScalar() && it->first.Scalar() == key) {
      return Field{it->second, Child(map.path, key)};
    }
  }
  return std::nullopt;
}

std::string Reader::ItemPath(const Field& list, size_t index, const YAML::Node& item) const {
  if (item.IsMap()) {
    for (auto it = item.begin(); it != item.end(); ++it) {
      if (it->first.IsScalar() && it->first.Scalar() == "name" && it->second.IsScalar() &&
          !it->second.Scalar().empty()) {
        return Child(list.path, it->second.Scalar());
      }
    }
  }
  return Child(list.path, std::to_string(index));
}

Field Reader::Require(const Field& map, const std::string& key, const std::string& expected) const {
  std::optional<Field> f = Get(map, key);
  if (!f) rep_->Fail(map.node, Child(map.path, key), "missing required field (" + expected + ")");
  return *f;
}

double Reader::Number(const Field& f, const Range& range) const {
  double x = 0;
  if (!f.node.IsScalar() || !YAML::convert<double>::decode(f.node, x)) {
    Fail(f, "expected a number, got " + Describe(f.node));
  }
  if (std::isnan(x)) Fail(f, "expected a number, got nan");
  if (!range.Contains(x)) {
    Fail(f, "value " + FormatNumber(x) + " is out of range (valid range " + range.ToString() + ")");
  }
  return x;
}

double Reader::Number(const Field& map, const std::string& key, const Range& range,
                      double fallback) const {
  std::optional<Field> f = Get(map, key);
  return f ? Number(*f, range) : fallback;
}

int Reader::Integer(const Field& f, int lo, int hi) const {
  double x = 0;
  if (!f.node.IsScalar() || !YAML::convert<double>::decode(f.node, x) || x != std::floor(x) ||
      !std::isfinite(x)) {
    Fail(f, "expected an integer, got " + Describe(f.node));
  }
  if (x < lo || x > hi) {
    Fail(f, "value " + FormatNumber(x) + " is out of range (valid range [" + std::to_string(lo) +
                ", " + std::to_string(hi) + "])");
  }
  return static_cast<int>(x);
}

bool Reader::Bool(const Field& f) const {
  bool b = false;
  if (!f.node.IsScalar() || !YAML::convert<bool>::decode(f.node, b)) {
    Fail(f, "expected true or false, got " + Describe(f.node));
  }
  return b;
}

bool Reader::Bool(const Field& map, const std::string& key, bool fallback) const {
  std::optional<Field> f = Get(map, key);
  return f ? Bool(*f) : fallback;
}

std::string Reader::String(const Field& f) const {
  if (!f.node.IsScalar()) Fail(f, "expected a string, got " + Describe(f.node));
  return f.node.Scalar();
}

std::string Reader::Name(const Field& f) const {
  std::string s = String(f);
  if (s.empty()) Fail(f, "names must not be empty");
  if (s.find('.') != std::string::npos) {
    Fail(f, "name '" + s + "' must not contain '.' (names are used in --set paths)");
  }
  return s;
}

std::string Reader::Choice(const Field& f, const std::vector<std::string>& allowed) const {
  std::string s = f.node.IsScalar() ? f.node.Scalar() : "";
  for (const auto& a : allowed) {
    if (f.node.IsScalar() && a == s) return s;
  }
  Fail(f, "expected one of " + Join(allowed, " | ") + ", got " + Describe(f.node));
}

double Reader::Param(const Field& f, const ParamSpec& spec) const {
  switch (spec.type) {
    case ParamType::kEnum: {
      std::vector<std::string> names(spec.names.begin(), spec.names.end());
      return spec.NameIndex(Choice(f, names));
    }
    case ParamType::kBool:
      return Bool(f) ? 1 : 0;
    case ParamType::kInteger: {
      double x = 0;
      if (!f.node.IsScalar() || !YAML::convert<double>::decode(f.node, x) || x != std::floor(x) ||
          !std::isfinite(x)) {
        Fail(f, "expected an integer, got " + Describe(f.node));
      }
      if (!spec.Contains(x)) {
        Fail(f, "value " + FormatNumber(x) + " is out of range (valid range " + spec.RangeText() +
                    ")");
      }
      return x;
    }
    case ParamType::kReal:
      break;
  }
  double x = 0;
  if (!f.node.IsScalar() || !YAML::convert<double>::decode(f.node, x)) {
    Fail(f, "expected a number, got " + Describe(f.node));
  }
  if (std::isnan(x)) Fail(f, "expected a number, got nan");
  if (!spec.Contains(x)) {
    Fail(f, "value " + FormatNumber(x) + " is out of range (valid range " + spec.RangeText() + ")");
  }
  return x;
}

std::optional<Field> Reader::GetPath(const Field& map, const std::string& dotted) const {
  // YAML::Node assignment writes through to the node it refers to: rebind with reset().
  Field cur;
  cur.node.reset(map.node);
  cur.path = map.path;
  size_t start = 0;
  while (true) {
    const size_t dot = dotted.find('.', start);
    const std::string seg = dotted.substr(start, dot == std::string::npos ? dot : dot - start);
    std::optional<Field> next = Get(cur, seg);
    if (!next) return std::nullopt;
    if (dot == std::string::npos) return next;
    ExpectMap(*next);
    cur.node.reset(next->node);
    cur.path = next->path;
    start = dot + 1;
  }
}

std::vector<double> Reader::Numbers(const Field& f, size_t min_n, size_t max_n,
                                    const Range& range) const {
  const std::string count = min_n == max_n ? std::to_string(min_n)
                                           : std::to_string(min_n) + " to " + std::to_string(max_n);
  if (!f.node.IsSequence() || f.node.size() < min_n || f.node.size() > max_n) {
    Fail(f, "expected a list of " + count + " numbers, got " +
                (f.node.IsSequence() ? "a list of " + std::to_string(f.node.size())
                                     : Describe(f.node)));
  }
  std::vector<double> out;
  for (size_t i = 0; i < f.node.size(); ++i) {
    out.push_back(Number(Field{f.node[i], Child(f.path, std::to_string(i))}, range));
  }
  return out;
}

Vec3 Reader::Vector(const Field& f, const Range& range) const {
  std::vector<double> v = Numbers(f, 3, 3, range);
  return Vec3(v[0], v[1], v[2]);
}

Vec3 Reader::Vector(const Field& map, const std::string& key, const Vec3& fallback,
                    const Range& range) const {
  std::optional<Field> f = Get(map, key);
  return f ? Vector(*f, range) : fallback;
}

Vec3 Reader::UnitVector(const Field& f) const {
  Vec3 v = Vector(f);
  if (v.norm() < 1e-12) Fail(f, "expected a non-zero direction vector");
  return v.normalized();
}

Quat Reader::Rotation(const Field& f) const {
  CheckKeys(f, {"axis_angle", "rpy_deg", "quat"});
  if (f.node.size() != 1) {
    Fail(f,
         "expected exactly one of axis_angle, rpy_deg, quat; got " + std::to_string(f.node.size()));
  }
  if (auto a = Get(f, "axis_angle")) {
    std::vector<double> v = Numbers(*a, 4, 4, Finite());
    Vec3 axis(v[0], v[1], v[2]);
    if (axis.norm() < 1e-12) Fail(*a, "the axis (first three numbers) must be non-zero");
    return Quat(Eigen::AngleAxisd(v[3] * kPi / 180.0, axis.normalized()));
  }
  if (auto a = Get(f, "rpy_deg")) {
    Vec3 rpy = Vector(*a) * (kPi / 180.0);
    // Extrinsic x-y-z: R = Rz(yaw) Ry(pitch) Rx(roll).
    return Quat(Eigen::AngleAxisd(rpy.z(), Vec3::UnitZ()) *
                Eigen::AngleAxisd(rpy.y(), Vec3::UnitY()) *
                Eigen::AngleAxisd(rpy.x(), Vec3::UnitX()));
  }
  Field qf = *Get(f, "quat");
  std::vector<double> v = Numbers(qf, 4, 4, Finite());
  Quat q(v[0], v[1], v[2], v[3]);
  if (q.norm() < 1e-12) Fail(qf, "the quaternion must be non-zero");
  q.normalize();
  return q;
}

Pose Reader::Frame(const Field& f) const {
  CheckKeys(f, {"position", "rotation"});
  Pose pose;
  pose.p = Vector(f, "position", Vec3::Zero());
  if (auto r = Get(f, "rotation")) pose.q = Rotation(*r);
  return pose;
}

namespace {

// Splits a --set path into segments.
std::vector<std::string> SplitPath(const std::string& key) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : key) {
    if (c == '.') {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

// Name of a sequence item for path lookup: its `name`, or the `name` inside a single-key map
// item (generators: `- grid: {name: ...}`).
std::string ItemName(const YAML::Node& item) {
  YAML::Node cur = item;
  // One level of single-key wrapping is all a scene uses; the loop is bounded by the nesting.
  for (int level = 0; level < 2 && cur.IsMap(); ++level) {
    for (auto it = cur.begin(); it != cur.end(); ++it) {
      if (it->first.IsScalar() && it->first.Scalar() == "name" && it->second.IsScalar()) {
        return it->second.Scalar();
      }
    }
    if (cur.size() != 1) break;
    const YAML::Node inner = cur.begin()->second;
    cur.reset(inner);
  }
  return "";
}

// Index of the sequence item named by `segment` (a name or a 0-based index), or -1.
int FindItem(const YAML::Node& seq, const std::string& segment) {
  for (size_t i = 0; i < seq.size(); ++i) {
    if (ItemName(seq[i]) == segment) return static_cast<int>(i);
  }
  char* end = nullptr;
  long index = std::strtol(segment.c_str(), &end, 10);
  if (!segment.empty() && *end == '\0' && index >= 0 && index < static_cast<long>(seq.size())) {
    return static_cast<int>(index);
  }
  return -1;
}

void ApplyOverride(YAML::Node root, const std::string& text, Reporter* rep) {
  const std::string where = rep->file() + ": --set " + text + ": ";
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw SceneError(where + "expected KEY=VALUE, e.g. solver.sigma=1e-4");
  }
  const std::string key = text.substr(0, eq);
  const std::string value_text = text.substr(eq + 1);
  if (value_text.find_first_not_of(" \t") == std::string::npos) {
    throw SceneError(where + key + ": empty value");
  }
  YamlTextFacts facts;
  if (auto issue = ScanYamlText(value_text, &facts)) {
    throw SceneError(where + key + ": cannot parse the value as YAML (" + issue->what + ")");
  }
  YAML::Node value;
  try {
    value = YAML::Load(value_text);
  } catch (const YAML::Exception& e) {
    throw SceneError(where + key + ": cannot parse value '" + value_text + "' as YAML (" + e.msg +
                     ")");
  }
  if (facts.aliases > 0 && ExpandedNodeCount(value, kMaxOverrideNodes) > kMaxOverrideNodes) {
    throw SceneError(where + key + ": the value's aliases expand it to more than " +
                     std::to_string(kMaxOverrideNodes) + " nodes (the limit for a --set value)");
  }
  const std::vector<std::string> segments = SplitPath(key);
  for (const auto& s : segments) {
    if (s.empty()) throw SceneError(where + key + ": empty path segment");
  }
  if (segments.size() > static_cast<size_t>(kMaxYamlNesting)) {
    // Each missing segment creates a map: the path is bounded like the document's nesting.
    throw SceneError(where + key.substr(0, 80) + "...: the path has " +
                     std::to_string(segments.size()) + " segments (at most " +
                     std::to_string(kMaxYamlNesting) + ")");
  }
  if (!root.IsMap()) throw SceneError(where + key + ": the scene document is not a map");
  if (segments.size() >= 2 && segments[0] == "materials" && segments[1] == "default") {
    // The implicit default material has no item in the file: materials.default.KEY adds one
    // ({name: default}, to the list or to a new list) for the path below to reach.
    YAML::Node list;
    bool has_list = false;
    for (auto it = root.begin(); it != root.end(); ++it) {
      if (it->first.IsScalar() && it->first.Scalar() == "materials") {
        list.reset(it->second);
        has_list = true;
        break;
      }
    }
    if (!has_list) {
      YAML::Node created(YAML::NodeType::Sequence);
      root["materials"] = created;
      rep->RegisterOverride(created, text);
      list.reset(created);
    }
    if (list.IsSequence() && FindItem(list, "default") < 0) {
      YAML::Node item(YAML::NodeType::Map);
      item["name"] = "default";
      list.push_back(item);
      rep->RegisterOverride(item, text);
    }
  }

  YAML::Node cur;
  cur.reset(root);
  std::string path;
  for (size_t i = 0; i < segments.size(); ++i) {
    const std::string& seg = segments[i];
    const bool last = i + 1 == segments.size();
    const std::string parent_path = path.empty() ? "the top level" : "'" + path + "'";
    path = Child(path, seg);
    if (cur.IsSequence()) {
      const int index = FindItem(cur, seg);
      if (index < 0) {
        std::vector<std::string> names;
        for (size_t k = 0; k < cur.size(); ++k) {
          const std::string n = ItemName(cur[k]);
          names.push_back(n.empty() ? std::to_string(k) : n);
        }
        throw SceneError(where + key + ": no item '" + seg + "' in " + parent_path +
                         " (items: " + Join(names) + ")");
      }
      if (last) {
        cur[index] = value;
        rep->RegisterOverride(value, text);
      } else {
        YAML::Node next = cur[index];
        cur.reset(next);
      }
    } else if (cur.IsMap()) {
      YAML::Node existing;
      bool found = false;
      for (auto it = cur.begin(); it != cur.end(); ++it) {
        if (it->first.IsScalar() && it->first.Scalar() == seg) {
          existing.reset(it->second);
          found = true;
          break;
        }
      }
      if (last) {
        cur[seg] = value;
        rep->RegisterOverride(value, text);
      } else if (found) {
        cur.reset(existing);
      } else {
        // A missing intermediate map; the schema check that follows rejects unknown keys.
        YAML::Node created(YAML::NodeType::Map);
        cur[seg] = created;
        rep->RegisterOverride(created, text);
        cur.reset(created);
      }
    } else {
      throw SceneError(where + key + ": " + parent_path + " is " + Describe(cur) +
                       ", not a map or list, so it has no '" + seg + "'");
    }
  }
}

}  // namespace

SceneDocument ReadSceneDocument(const std::string& yaml_text, const std::string& path_for_messages,
                                const std::vector<std::string>& overrides) {
  SceneDocument doc(path_for_messages);
  if (yaml_text.size() > kMaxSceneFileBytes) {
    throw SceneError(path_for_messages + ": the scene text is " + std::to_string(yaml_text.size()) +
                     " bytes; at most " + std::to_string(kMaxSceneFileBytes) +
                     " (64 MiB) are read");
  }
  // Problems yaml-cpp would pass over or report without a line (docs/scene_format.md).
  YamlTextFacts facts;
  if (auto issue = ScanYamlText(yaml_text, &facts)) {
    throw SceneError(path_for_messages + ":" + std::to_string(issue->line) +
                     ": yaml: " + issue->what);
  }
  try {
    doc.root = YAML::Load(yaml_text);
  } catch (const YAML::Exception& e) {
    const std::string line = e.mark.is_null() ? "" : ":" + std::to_string(e.mark.line + 1);
    throw SceneError(path_for_messages + line + ": yaml: syntax error: " + e.msg);
  }
  if (facts.aliases > 0 && ExpandedNodeCount(doc.root, kMaxExpandedNodes) > kMaxExpandedNodes) {
    throw SceneError(path_for_messages + ":" + std::to_string(facts.first_alias_line) +
                     ": yaml: the document's aliases (*name, the first here) expand it to more "
                     "than " +
                     std::to_string(kMaxExpandedNodes) + " nodes");
  }
  for (const std::string& text : overrides) ApplyOverride(doc.root, text, &doc.rep);
  return doc;
}

std::string ReadSceneFile(const std::string& path) {
  // Only a regular file is read, and at most kMaxSceneFileBytes of it: a FIFO would block the
  // program and a device such as /dev/zero would never end. O_NONBLOCK keeps open() of a FIFO
  // from waiting for a writer; the type is then checked on the open descriptor.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    throw SceneError(path + ": cannot open the scene file (" + std::strerror(errno) + ")");
  }
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    throw SceneError(path + ": cannot read the scene file (" + std::strerror(errno) + ")");
  }
  if (!S_ISREG(st.st_mode)) {
    const char* kind = S_ISDIR(st.st_mode)    ? "a directory"
                       : S_ISFIFO(st.st_mode) ? "a FIFO (named pipe)"
                       : S_ISCHR(st.st_mode)  ? "a character device"
                       : S_ISBLK(st.st_mode)  ? "a block device"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                                              : "not a regular file";
    throw SceneError(path + ": the scene must be a regular file, this is " + kind);
  }
  if (static_cast<uint64_t>(st.st_size) > kMaxSceneFileBytes) {
    throw SceneError(path + ": the scene file is " + std::to_string(st.st_size) +
                     " bytes; at most " + std::to_string(kMaxSceneFileBytes) +
                     " (64 MiB) are read");
  }
  // Read to the end, but never past the bound (the file may grow while it is read).
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      throw SceneError(path + ": cannot read the scene file (" + std::strerror(errno) + ")");
    }
    if (got == 0) break;
    text.append(buffer, static_cast<size_t>(got));
    if (text.size() > kMaxSceneFileBytes) {
      throw SceneError(path + ": the scene file is more than " +
                       std::to_string(kMaxSceneFileBytes) + " bytes (64 MiB), the most read");
    }
  }
  return text;
}

}  // namespace scene_io
}  // namespace contactlab
