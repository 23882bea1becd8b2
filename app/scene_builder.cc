// The scene builder: scene document -> Model, StepSettings, camera (see scene_builder.h).
#include "app/scene_builder.h"

#include <Eigen/Cholesky>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "app/mesh_loader.h"
#include "app/model_include.h"
#include "engine/geometry/hydroelastic/volume_mesh.h"
#include "engine/multibody/multibody.h"
#include "engine/sim/param_tables.h"

namespace contactlab {
namespace scene_io {

std::string RunLengthProblem(double duration, double dt) {
  const std::string range = "valid range [" + FormatNumber(dt) + ", " +
                            FormatNumber(dt * kMaxRunSteps) + "] s: one to " +
                            std::to_string(kMaxRunSteps) + " steps";
  if (!std::isfinite(duration) || !(duration > 0)) return "not a positive number (" + range + ")";
  const double steps = duration / dt;
  // A relative slack of 1e-9 keeps a duration of exactly one step (up to rounding) valid.
  if (!(steps >= 1 - 1e-9)) return "shorter than one time step (" + range + ")";
  if (!(std::round(steps) <= kMaxRunSteps)) {
    return "that is " +
           (std::isfinite(steps) ? FormatNumber(std::round(steps))
                                 : "more than " + std::to_string(kMaxRunSteps)) +
           " steps (" + range + ")";
  }
  return "";
}

namespace {

namespace fs = std::filesystem;

// Volume, centroid and unit-density inertia (about the centroid) of a shape in its own frame.
struct VolumeProperties {
  double volume = 0;
  Vec3 centroid = Vec3::Zero();
  Mat3 inertia = Mat3::Zero();
};

VolumeProperties HullVolumeProperties(const ConvexHull& hull) {
  VolumeProperties out;
  if (hull.vertices.empty()) return out;
  Vec3 o = Vec3::Zero();
  for (const Vec3& v : hull.vertices) o += v;
  o /= static_cast<double>(hull.vertices.size());
  Mat3 canonical;
  canonical << 2, 1, 1, 1, 2, 1, 1, 1, 2;
  canonical /= 120.0;
  Mat3 covariance = Mat3::Zero();
  Vec3 first_moment = Vec3::Zero();
  double volume = 0;
  for (const auto& face : hull.faces) {
    for (size_t k = 1; k + 1 < face.size(); ++k) {
      Mat3 A;
      A.col(0) = hull.vertices[face[0]] - o;
      A.col(1) = hull.vertices[face[k]] - o;
      A.col(2) = hull.vertices[face[k + 1]] - o;
      const double det = A.determinant();
      volume += det / 6.0;
      first_moment += det / 6.0 * (A.col(0) + A.col(1) + A.col(2)) / 4.0;
      covariance += det * A * canonical * A.transpose();
    }
  }
  if (!(volume > 0)) return out;
  const Vec3 c = first_moment / volume;
  const Mat3 cov_c = covariance - volume * c * c.transpose();
  out.volume = volume;
  out.centroid = o + c;
  out.inertia = cov_c.trace() * Mat3::Identity() - cov_c;
  return out;
}

VolumeProperties ShapeVolumeProperties(const Shape& s) {
  VolumeProperties out;
  switch (s.type) {
    case ShapeType::kHalfSpace:
      break;
    case ShapeType::kSphere: {
      const double r = s.radius;
      out.volume = 4.0 / 3.0 * kPi * r * r * r;
      out.inertia = Mat3::Identity() * (0.4 * out.volume * r * r);
      break;
    }
    case ShapeType::kBox: {
      const Vec3 e = 2.0 * s.half_extents;
      out.volume = e.x() * e.y() * e.z();
      out.inertia = (out.volume / 12.0 *
                     Vec3(e.y() * e.y() + e.z() * e.z(), e.x() * e.x() + e.z() * e.z(),
                          e.x() * e.x() + e.y() * e.y()))
                        .asDiagonal();
      break;
    }
    case ShapeType::kCylinder: {
      const double r = s.radius, h = 2.0 * s.half_length;
      out.volume = kPi * r * r * h;
      const double ixx = out.volume * (3 * r * r + h * h) / 12.0;
      out.inertia = Vec3(ixx, ixx, out.volume * r * r / 2.0).asDiagonal();
      break;
    }
    case ShapeType::kCapsule: {
      const double r = s.radius, h = 2.0 * s.half_length;
      const double m_cyl = kPi * r * r * h;
      const double m_hemi = 2.0 / 3.0 * kPi * r * r * r;
      out.volume = m_cyl + 2 * m_hemi;
      const double izz = m_cyl * r * r / 2.0 + 2 * m_hemi * 0.4 * r * r;
      const double ixx = m_cyl * (h * h / 12.0 + r * r / 4.0) +
                         2 * m_hemi * (0.4 * r * r + h * h / 4.0 + 3.0 * h * r / 8.0);
      out.inertia = Vec3(ixx, ixx, izz).asDiagonal();
      break;
    }
    case ShapeType::kConvexMesh:
      if (s.hull) out = HullVolumeProperties(*s.hull);
      break;
  }
  return out;
}

// Deterministic uniform numbers in [-1, 1] from the standard-specified mt19937_64 sequence.
class JitterRng {
 public:
  explicit JitterRng(uint64_t seed) : engine_(seed) {}
  double Symmetric() {
    const double u = static_cast<double>(engine_() >> 11) * (1.0 / 9007199254740992.0);
    return 2.0 * u - 1.0;
  }

 private:
  std::mt19937_64 engine_;
};

// Keys of a map holding the parameters of `table` (its first path segments, in table order),
// after `extra`; `under` selects the keys below a nested map ("free_motion").
template <typename S>
std::vector<std::string> TableKeys(const ParamTable<S>& table, std::vector<std::string> extra,
                                   const std::string& under = "") {
  for (const auto& pf : table.fields) {
    std::string key = pf.spec.key;
    if (!under.empty()) {
      if (key.rfind(under + ".", 0) != 0) continue;
      key = key.substr(under.size() + 1);
    }
    key = key.substr(0, key.find('.'));
    if (std::find(extra.begin(), extra.end(), key) == extra.end()) extra.push_back(key);
  }
  return extra;
}

// The top level: the step table's keys (time_step, integrator, ..., free_motion) and the rest.
std::vector<std::string> TopKeys() {
  std::vector<std::string> keys = TableKeys(StepSettingsTable(), {"description"});
  for (const char* k : {"duration", "gravity", "solver", "contact", "camera", "materials", "pairs",
                        "templates", "bodies", "generators", "models", "loads",
                        "equalities"}) {
    if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
  }
  return keys;
}
const std::vector<std::string> kBodyKeys = {
    "name",           "template",       "static",     "mass",
    "density",        "inertia",        "com",        "joint",
    "position",       "rotation",       "velocity",   "angular_velocity",
    "joint_position", "joint_velocity", "prescribed", "geoms"};
const std::vector<std::string> kGeomCommonKeys = {"name",     "shape", "material", "position",
                                                  "rotation", "color", "collide", "hydroelastic"};

std::vector<std::string> GeomKeys(const std::string& shape) {
  std::vector<std::string> keys = kGeomCommonKeys;
  if (shape == "sphere") keys.push_back("radius");
  if (shape == "capsule" || shape == "cylinder") {
    keys.push_back("radius");
    keys.push_back("length");
  }
  if (shape == "box") {
    keys.push_back("size");
    keys.push_back("half_extents");
  }
  if (shape == "mesh") {
    keys.push_back("file");
    keys.push_back("scale");
  }
  return keys;
}

std::vector<std::string> JointKeys(const std::string& type) {
  if (type == "free") return {"type", "name"};
  if (type == "fixed") return {"type", "name", "parent", "parent_frame", "child_frame"};
  // A ball joint has no axis; spring, limits and actuator are accepted here only to be refused
  // with a message saying why (ReadJoint).
  if (type == "ball") {
    return {"type",    "name",   "parent", "parent_frame", "child_frame",
            "damping", "armature", "spring", "limits", "actuator"};
  }
  return {"type", "name",   "parent",  "parent_frame", "child_frame", "axis",
          "spring", "damping", "armature", "limits",    "actuator"};
}

// One body to build: its definition maps (a template first, then the body's own keys, which
// win) and, for generated bodies, a placement.
struct BodyItem {
  std::string name;
  Field name_field;
  std::vector<Field> sources;
  std::string path;
  Vec3 offset = Vec3::Zero();
  Quat extra_rotation = Quat::Identity();
};

enum class BodyKind { kStatic, kPrescribed, kDynamic };

struct JointSpec {
  bool present = false;
  Field field;
  std::optional<Field> parent_field;
  int parent = -1;
  bool has_parent_frame = false;
};

struct PoseSpec {
  Pose pose;  // from position/rotation (+ generator placement)
  bool given = false;
  Field where;  // for messages
};

struct InitialCondition {
  int joint = -1;
  Field where;
  bool has_velocity = false, has_angular_velocity = false;
  Vec3 velocity = Vec3::Zero(), angular_velocity = Vec3::Zero();
  bool has_position = false, has_rate = false;
  double position = 0, rate = 0;
  // Ball joints: the initial rotation R_FM and angular velocity ω (parent joint frame F).
  bool has_rotation = false;
  Quat rotation = Quat::Identity();
};

class SceneBuilder {
 public:
  SceneBuilder(Reporter* rep, const SceneOptions& options, std::string base_dir)
      : rep_(rep), in_(rep), options_(options), base_dir_(std::move(base_dir)) {}

  Scene Build(const YAML::Node& root) {
    Scene scene;
    scene.path = rep_->file();
    const Field top{root, ""};
    if (root.IsNull()) in_.Fail(Field{root, "(document)"}, "the scene file is empty");
    if (!root.IsMap()) {
      in_.Fail(Field{root, "(document)"},
               "expected a map of top-level keys, got " + Describe(root));
    }
    in_.CheckKeys(top, TopKeys(), " at the top level");
    model_ = &scene.model;
    ReadSettings(top, &scene);
    ReadMaterials(top);
    ReadPairs(top);
    ReadTemplates(top);
    CollectBodies(top);
    for (size_t i = 0; i < items_.size(); ++i) ReadBody(static_cast<int>(i));
    ResolvePoses();
    ReadModels(top, scene.settings);
    ReadLoads(top);
    ReadEqualities(top);
    if (options_.finalize) Finalize(&scene);
    for (const ModelWarning& mw : model_warnings_) {
      scene.warnings.push_back(
          mw.where +
          (mw.repeats > 0 ? " (and " + std::to_string(mw.repeats) + " more models)" : "") + ": " +
          mw.text);
    }
    return scene;
  }

 private:
  std::optional<Field> BodyGet(const BodyItem& item, const std::string& key) const {
    for (auto it = item.sources.rbegin(); it != item.sources.rend(); ++it) {
      if (auto f = in_.Get(*it, key)) return f;
    }
    return std::nullopt;
  }

  template <typename P>
  void ReadSolverMap(const Field& solver, const char* key, const ParamTable<P>& table, P* params) {
    if (auto g = in_.Get(solver, key)) {
      in_.CheckKeys(*g, TableKeys(table, {}));
      in_.ReadParams(*g, table, params);
    }
  }

  void ReadSettings(const Field& top, Scene* scene) {
    if (auto f = in_.Get(top, "description")) scene->description = in_.String(*f);
    StepSettings& s = scene->settings;
    // time_step, integrator, contact_margin, speculative_margin, free_motion.*: the step table.
    if (auto f = in_.Get(top, "free_motion")) {
      in_.CheckKeys(*f, TableKeys(StepSettingsTable(), {}, "free_motion"));
    }
    in_.ReadParams(top, StepSettingsTable(), &s);
    scene->duration = in_.Number(top, "duration", LeftOpen(0, 1e6), scene->duration);
    time_step_field_ = in_.Get(top, "time_step");
    duration_field_ = in_.Get(top, "duration");
    s.gravity = in_.Vector(top, "gravity", s.gravity);
    // solver.type is read with the step table; SAP's keys sit in `solver:` itself, each other
    // solver's in its own map (`solver: {type: canal, canal: {beta0: 1e5}}`).
    if (auto f = in_.Get(top, "solver")) {
      std::vector<std::string> keys = TableKeys(SapParameterTable(), {"type"});
      for (const char* k : {"canal", "subadmm", "pgs", "first_order"}) keys.push_back(k);
      in_.CheckKeys(*f, keys);
      in_.ReadParams(*f, SapParameterTable(), &s.sap);
      ReadSolverMap(*f, "canal", CanalParameterTable(), &s.canal);
      ReadSolverMap(*f, "subadmm", SubAdmmParameterTable(), &s.subadmm);
      ReadSolverMap(*f, "pgs", PgsParameterTable(), &s.pgs);
      ReadSolverMap(*f, "first_order", FirstOrderParameterTable(), &s.first_order);
    }
    if (auto f = in_.Get(top, "contact")) {
      in_.CheckKeys(*f, TableKeys(ContactModelTable(), {}));
      in_.ReadParams(*f, ContactModelTable(), &s.contact);
    }
    if (auto f = in_.Get(top, "camera")) {
      CameraDef& c = scene->camera;
      in_.CheckKeys(*f, {"target", "distance", "azimuth", "elevation"});
      c.target = in_.Vector(*f, "target", c.target);
      c.distance = in_.Number(*f, "distance", LeftOpen(0, 1e6), c.distance);
      c.azimuth = in_.Number(*f, "azimuth", Closed(-360, 360), c.azimuth);
      c.elevation = in_.Number(*f, "elevation", Closed(-90, 90), c.elevation);
    }
  }

  void ReadMaterials(const Field& top) {
    material_index_["default"] = 0;
    auto list = in_.Get(top, "materials");
    if (!list) return;
    in_.ExpectSequence(*list);
    std::set<std::string> defined;
    for (size_t i = 0; i < list->node.size(); ++i) {
      Field item{list->node[i], in_.ItemPath(*list, i, list->node[i])};
      in_.CheckKeys(item, TableKeys(MaterialTable(), {"name"}));
      Field name_f = in_.Require(item, "name", "a material name");
      const std::string name = in_.Name(name_f);
      if (!defined.insert(name).second) {
        in_.Fail(Field{name_f.node, Child(list->path, std::to_string(i)) + ".name"},
                 "duplicate material name '" + name + "'");
      }
      Material m;
      m.name = name;
      if (auto h = in_.Get(item, "hydroelastic")) {
        in_.CheckKeys(*h, TableKeys(MaterialTable(), {}, "hydroelastic"));
      }
      in_.ReadParams(item, MaterialTable(), &m);
      if (name == "default") {
        model_->materials[0] = m;
      } else {
        material_index_[name] = static_cast<int>(model_->materials.size());
        model_->materials.push_back(m);
      }
    }
  }

  int MaterialRef(const Field& f) const {
    const std::string name = in_.String(f);
    auto it = material_index_.find(name);
    if (it == material_index_.end()) {
      std::vector<std::string> names;
      for (const auto& m : model_->materials) names.push_back(m.name);
      in_.Fail(f, "unknown material '" + name + "' (defined: " + Join(names) + ")");
    }
    return it->second;
  }

  void ReadPairs(const Field& top) {
    auto list = in_.Get(top, "pairs");
    if (!list) return;
    in_.ExpectSequence(*list);
    std::set<std::pair<int, int>> seen;
    for (size_t i = 0; i < list->node.size(); ++i) {
      Field item{list->node[i], Child(list->path, std::to_string(i))};
      // A pair takes the material keys except the per-geometry hydroelastic values, and
      // `contact: point | hydroelastic` (hydroelastic: the default, by field when a side is
      // compliant).
      std::vector<std::string> pair_keys = TableKeys(MaterialTable(), {"materials", "contact"});
      pair_keys.erase(std::remove(pair_keys.begin(), pair_keys.end(), "hydroelastic"),
                      pair_keys.end());
      in_.CheckKeys(item, pair_keys);
      Field mats = in_.Require(item, "materials", "a list of two material names");
      if (!mats.node.IsSequence() || mats.node.size() != 2) {
        in_.Fail(mats, "expected a list of two material names, got " + Describe(mats.node));
      }
      PairOverride po;
      po.material_a = MaterialRef(Field{mats.node[0], Child(mats.path, "0")});
      po.material_b = MaterialRef(Field{mats.node[1], Child(mats.path, "1")});
      const auto key = std::minmax(po.material_a, po.material_b);
      if (!seen.insert(key).second) {
        in_.Fail(mats, "duplicate pair: values for these two materials were already given");
      }
      // Unspecified values follow the combination rules (engine/multibody/model.h).
      po.values = CombineMaterials(model_->materials[po.material_a],
                                   model_->materials[po.material_b]);
      in_.ReadParams(item, MaterialTable(), &po.values);
      if (auto c = in_.Get(item, "contact")) {
        po.point_contact = in_.Choice(*c, {"point", "hydroelastic"}) == "point";
      }
      model_->pair_overrides.push_back(po);
    }
  }

  void ReadTemplates(const Field& top) {
    auto list = in_.Get(top, "templates");
    if (!list) return;
    in_.ExpectSequence(*list);
    std::vector<std::string> keys;
    for (const auto& k : kBodyKeys) {
      if (k != "template") keys.push_back(k);
    }
    for (size_t i = 0; i < list->node.size(); ++i) {
      Field item{list->node[i], in_.ItemPath(*list, i, list->node[i])};
      in_.CheckKeys(item, keys, " in a template");
      Field name_f = in_.Require(item, "name", "a template name");
      const std::string name = in_.Name(name_f);
      if (templates_.count(name)) {
        in_.Fail(Field{name_f.node, Child(list->path, std::to_string(i)) + ".name"},
                 "duplicate template name '" + name + "'");
      }
      templates_[name] = item;
    }
  }

  Field TemplateRef(const Field& f) const {
    const std::string name = in_.String(f);
    auto it = templates_.find(name);
    if (it == templates_.end()) {
      std::vector<std::string> names;
      for (const auto& [n, t] : templates_) names.push_back(n);
      in_.Fail(f, "unknown template '" + name +
                      "' (defined: " + (names.empty() ? std::string("none") : Join(names)) + ")");
    }
    return it->second;
  }

  void AddItem(BodyItem item) {
    // A scene-wide bound, checked before the body's storage grows: 2 000 000 generated bodies
    // exhausted a 2 GB address space while loading.
    constexpr size_t kMaxBodies = 500000;
    if (items_.size() >= kMaxBodies) {
      in_.Fail(item.name_field, "too many bodies: body '" + item.name + "' would be body " +
                                    std::to_string(items_.size() + 1) + " (at most " +
                                    std::to_string(kMaxBodies) + " in a scene)");
    }
    auto it = body_index_.find(item.name);
    if (it != body_index_.end()) {
      in_.Fail(item.name_field, "duplicate body name '" + item.name + "' (first defined at " +
                                    rep_->Location(items_[it->second].name_field.node) + ")");
    }
    body_index_[item.name] = static_cast<int>(items_.size());
    items_.push_back(std::move(item));
  }

  void CollectBodies(const Field& top) {
    if (auto list = in_.Get(top, "bodies")) {
      in_.ExpectSequence(*list);
      for (size_t i = 0; i < list->node.size(); ++i) {
        Field def{list->node[i], in_.ItemPath(*list, i, list->node[i])};
        in_.CheckKeys(def, kBodyKeys, " in a body");
        BodyItem item;
        item.name_field = in_.Require(def, "name", "a body name");
        item.name = in_.Name(item.name_field);
        if (item.name == "world") {
          in_.Fail(Field{item.name_field.node, Child(def.path, "name")},
                   "'world' is reserved: `parent: world` names the world frame, so no body may "
                   "be called world");
        }
        // Names are unique, so the index identifies a duplicate in messages.
        item.name_field.path = body_index_.count(item.name)
                                   ? Child(list->path, std::to_string(i)) + ".name"
                                   : Child(def.path, "name");
        item.path = def.path;
        if (auto t = in_.Get(def, "template")) item.sources.push_back(TemplateRef(*t));
        item.sources.push_back(def);
        AddItem(std::move(item));
      }
    }
    if (auto list = in_.Get(top, "generators")) {
      in_.ExpectSequence(*list);
      for (size_t i = 0; i < list->node.size(); ++i) {
        Field gen{list->node[i], Child(list->path, std::to_string(i))};
        in_.CheckKeys(gen, {"grid"}, " in a generator");
        if (gen.node.size() != 1) in_.Fail(gen, "expected exactly one layout key (grid)");
        ExpandGrid(*in_.Get(gen, "grid"));
      }
    }
  }

  void ExpandGrid(Field g) {
    in_.CheckKeys(g, {"name", "templates", "count", "spacing", "origin", "jitter"}, " in grid");
    Field name_f = in_.Require(g, "name", "a name prefix; bodies are named PREFIX_0, PREFIX_1...");
    const std::string prefix = in_.Name(name_f);
    Field tl = in_.Require(g, "templates", "a list of template names, used in turn");
    if (!tl.node.IsSequence() || tl.node.size() == 0) {
      in_.Fail(tl, "expected a non-empty list of template names, got " + Describe(tl.node));
    }
    std::vector<Field> templates;
    for (size_t k = 0; k < tl.node.size(); ++k) {
      templates.push_back(TemplateRef(Field{tl.node[k], Child(tl.path, std::to_string(k))}));
    }
    Field count_f = in_.Require(g, "count", "[nx, ny, nz], integers >= 1");
    if (!count_f.node.IsSequence() || count_f.node.size() != 3) {
      in_.Fail(count_f, "expected [nx, ny, nz], got " + Describe(count_f.node));
    }
    int n[3];
    for (int k = 0; k < 3; ++k) {
      n[k] = in_.Integer(Field{count_f.node[k], Child(count_f.path, std::to_string(k))}, 1, 100000);
    }
    if (static_cast<long>(n[0]) * n[1] * n[2] > 100000) {
      in_.Fail(count_f, "too many bodies (at most 100000 per generator)");
    }
    const Vec3 spacing = in_.Vector(in_.Require(g, "spacing", "[sx, sy, sz] in m"), Closed(0, 1e6));
    const Vec3 origin = in_.Vector(g, "origin", Vec3::Zero());
    double jitter_position = 0, jitter_rotation = 0;
    uint64_t seed = 0;
    if (auto j = in_.Get(g, "jitter")) {
      in_.CheckKeys(*j, {"position", "rotation", "seed"});
      jitter_position = in_.Number(*j, "position", Closed(0, 1e3), 0.0);
      jitter_rotation = in_.Number(*j, "rotation", Closed(0, 180), 0.0);
      if (auto s = in_.Get(*j, "seed")) seed = in_.Integer(*s, 0, 2147483647);
    }
    JitterRng rng(seed);
    int index = 0;
    for (int iz = 0; iz < n[2]; ++iz) {
      for (int iy = 0; iy < n[1]; ++iy) {
        for (int ix = 0; ix < n[0]; ++ix, ++index) {
          BodyItem item;
          item.name = prefix + "_" + std::to_string(index);
          item.name_field = name_f;
          item.path = Child(g.path, item.name);
          item.sources.push_back(templates[index % templates.size()]);
          Vec3 d(rng.Symmetric(), rng.Symmetric(), rng.Symmetric());
          Vec3 rpy(rng.Symmetric(), rng.Symmetric(), rng.Symmetric());
          item.offset = origin + Vec3(ix * spacing.x(), iy * spacing.y(), iz * spacing.z()) +
                        jitter_position * d;
          rpy *= jitter_rotation * kPi / 180.0;
          item.extra_rotation = Quat(Eigen::AngleAxisd(rpy.z(), Vec3::UnitZ()) *
                                     Eigen::AngleAxisd(rpy.y(), Vec3::UnitY()) *
                                     Eigen::AngleAxisd(rpy.x(), Vec3::UnitX()));
          AddItem(std::move(item));
        }
      }
    }
  }

  [[noreturn]] void FailNotAllowed(const Field& f, const std::string& why) const {
    in_.Fail(f, "not allowed: " + why);
  }

  void ReadBody(int b) {
    const BodyItem& item = items_[b];
    model_->bodies.emplace_back();
    Body& body = model_->bodies.back();
    body.name = item.name;
    const Field where{item.name_field.node, item.path};

    auto get = [&](const std::string& key) { return BodyGet(item, key); };
    const auto static_f = get("static");
    const auto prescribed_f = get("prescribed");
    const auto joint_f = get("joint");
    const bool has_mass_keys = get("mass") || get("density") || get("inertia");
    BodyKind kind = BodyKind::kDynamic;
    if (static_f && in_.Bool(*static_f)) {
      kind = BodyKind::kStatic;
      if (prescribed_f) FailNotAllowed(*prescribed_f, "a static body cannot be prescribed");
    } else if (prescribed_f) {
      kind = BodyKind::kPrescribed;
    } else if (!static_f && !joint_f && !has_mass_keys) {
      kind = BodyKind::kStatic;  // no joint and no mass: fixed in the world
    }
    if (kind != BodyKind::kDynamic) {
      const char* what = kind == BodyKind::kStatic ? "static" : "prescribed";
      for (const char* key : {"joint", "mass", "density", "inertia", "com", "velocity",
                              "angular_velocity", "joint_position", "joint_velocity"}) {
        if (auto f = get(key)) {
          FailNotAllowed(*f, std::string(what) + " bodies do not move under forces, so they " +
                                 "take no '" + key + "'");
        }
      }
    }
    kinds_.push_back(kind);

    // Pose from position/rotation plus any generator placement.
    PoseSpec ps;
    ps.where = where;
    if (auto f = get("position")) {
      ps.pose.p = in_.Vector(*f);
      ps.given = true;
      ps.where = *f;
    }
    if (auto f = get("rotation")) {
      ps.pose.q = in_.Rotation(*f);
      if (!ps.given) ps.where = *f;
      ps.given = true;
    }
    ps.pose.p += item.offset;
    ps.pose.q = item.extra_rotation * ps.pose.q;
    pose_specs_.push_back(ps);

    if (kind == BodyKind::kPrescribed) ReadPrescribed(*prescribed_f, &body.motion);
    body.prescribed = kind == BodyKind::kPrescribed;

    first_geom_ = model_->geoms.size();
    ReadGeoms(item, b, kind);
    if (kind == BodyKind::kDynamic) ReadMassProperties(item, b);

    JointSpec js;
    if (kind == BodyKind::kDynamic) {
      Field jf = joint_f ? *joint_f : Field{YAML::Node(YAML::NodeType::Map), item.path + ".joint"};
      if (!joint_f) jf.node["type"] = "free";
      ReadJoint(item, b, jf, &js);
    }
    joint_specs_.push_back(js);
  }

  void ReadPrescribed(const Field& f, PrescribedMotion* m) {
    in_.CheckKeys(f, {"velocity", "oscillation", "angular_velocity", "surface_velocity"});
    m->velocity = in_.Vector(f, "velocity", Vec3::Zero());
    m->angular_velocity = in_.Vector(f, "angular_velocity", Vec3::Zero());
    m->surface_velocity = in_.Vector(f, "surface_velocity", Vec3::Zero());
    if (auto o = in_.Get(f, "oscillation")) {
      in_.CheckKeys(*o, {"axis", "amplitude", "frequency"});
      m->oscillation_axis = in_.UnitVector(in_.Require(*o, "axis", "a direction [x, y, z]"));
      m->amplitude = in_.Number(in_.Require(*o, "amplitude", "m"), Closed(0, 1e3));
      m->frequency = in_.Number(in_.Require(*o, "frequency", "Hz"), Closed(0, 1e4));
    }
  }

  void ReadGeoms(const BodyItem& item, int b, BodyKind kind) {
    auto list = BodyGet(item, "geoms");
    if (!list) return;
    in_.ExpectSequence(*list);
    for (size_t i = 0; i < list->node.size(); ++i) {
      Field gf{list->node[i], Child(list->path, std::to_string(i))};
      in_.ExpectMap(gf);
      Field shape_f =
          in_.Require(gf, "shape", "one of half_space | sphere | box | capsule | cylinder | mesh");
      const std::string shape =
          in_.Choice(shape_f, {"half_space", "sphere", "box", "capsule", "cylinder", "mesh"});
      in_.CheckKeys(gf, GeomKeys(shape), " for shape " + shape);
      Geom g;
      g.body = b;
      g.name = item.name + "/" + std::to_string(i);
      if (auto f = in_.Get(gf, "name")) g.name = in_.String(*f);
      if (auto f = in_.Get(gf, "material")) g.material = MaterialRef(*f);
      if (auto f = in_.Get(gf, "position")) g.local.p = in_.Vector(*f);
      if (auto f = in_.Get(gf, "rotation")) g.local.q = in_.Rotation(*f);
      if (auto f = in_.Get(gf, "color")) {
        std::vector<double> c = in_.Numbers(*f, 3, 4, Closed(0, 1));
        g.color = Vec4(c[0], c[1], c[2], c.size() == 4 ? c[3] : 1.0);
      }
      g.collide = in_.Bool(gf, "collide", true);
      if (auto h = in_.Get(gf, "hydroelastic")) {
        // The material table's ranges; a value not given here stays the material's.
        in_.CheckKeys(*h, TableKeys(MaterialTable(), {}, "hydroelastic"));
        Material tmp;
        tmp.hydroelastic_modulus = tmp.hydroelastic_resolution = -1;
        in_.ReadParams(gf, MaterialTable(), &tmp);
        g.hydroelastic_modulus = tmp.hydroelastic_modulus;
        g.hydroelastic_resolution = tmp.hydroelastic_resolution;
        if (shape == "half_space" && g.hydroelastic_modulus > 0) {
          in_.Fail(*h, "a half_space cannot be compliant: it is rigid in hydroelastic contact "
                       "(give the other geometry a modulus)");
        }
      }
      const Range length_range = LeftOpen(0, 1e4);
      if (shape == "half_space") {
        g.shape.type = ShapeType::kHalfSpace;
        if (kind == BodyKind::kDynamic) {
          in_.Fail(shape_f,
                   "a half_space has infinite mass; it may only belong to a static "
                   "or prescribed body");
        }
      } else if (shape == "sphere") {
        g.shape.type = ShapeType::kSphere;
        g.shape.radius = in_.Number(in_.Require(gf, "radius", "m"), length_range);
      } else if (shape == "capsule" || shape == "cylinder") {
        g.shape.type = shape == "capsule" ? ShapeType::kCapsule : ShapeType::kCylinder;
        g.shape.radius = in_.Number(in_.Require(gf, "radius", "m"), length_range);
        g.shape.half_length = 0.5 * in_.Number(in_.Require(gf, "length", "m"), length_range);
      } else if (shape == "box") {
        g.shape.type = ShapeType::kBox;
        auto size = in_.Get(gf, "size");
        auto half = in_.Get(gf, "half_extents");
        if (size && half) in_.Fail(*half, "give either size or half_extents, not both");
        if (!size && !half) {
          in_.Fail(gf.node, Child(gf.path, "size"),
                   "missing required field (size: full extents [x, y, z] in m, or "
                   "half_extents)");
        }
        g.shape.half_extents =
            size ? 0.5 * in_.Vector(*size, length_range) : in_.Vector(*half, length_range);
      } else {
        g.shape.type = ShapeType::kConvexMesh;
        Field file_f = in_.Require(gf, "file", "a mesh file path");
        Vec3 scale = Vec3::Ones();
        if (auto s = in_.Get(gf, "scale")) {
          if (s->node.IsScalar()) {
            scale = Vec3::Constant(in_.Number(*s, LeftOpen(0, 1e6)));
          } else {
            scale = in_.Vector(*s, LeftOpen(0, 1e6));
          }
        }
        const std::string resolved = ResolveMesh(file_f);
        std::shared_ptr<ConvexHull> hull;
        try {
          hull = LoadConvexMesh(resolved, scale);
        } catch (const std::exception& e) {
          in_.Fail(file_f, "cannot load mesh '" + resolved + "': " + e.what());
        }
        if (!hull || hull->vertices.size() < 4) {
          in_.Fail(file_f, "mesh '" + resolved +
                               "' has no volume (needs >= 4 non-coplanar "
                               "vertices)");
        }
        g.shape.hull = hull;
      }
      model_->geoms.push_back(std::move(g));
      geom_fields_.push_back(gf);
    }
  }

  std::string ResolveMesh(const Field& f) const {
    const std::string file = in_.String(f);
    if (file.empty()) in_.Fail(f, "empty mesh file name");
    std::vector<fs::path> tried;
    const fs::path p(file);
    if (p.is_absolute()) {
      tried.push_back(p);
    } else {
      tried.push_back(fs::path(base_dir_.empty() ? "." : base_dir_) / p);
#ifdef CONTACTLAB_SOURCE_DIR
      tried.push_back(fs::path(CONTACTLAB_SOURCE_DIR) / "assets" / p);
#endif
    }
    std::vector<std::string> names;
    for (const auto& t : tried) {
      std::error_code ec;
      if (fs::is_regular_file(t, ec)) return t.lexically_normal().string();
      names.push_back(t.lexically_normal().string());
    }
    in_.Fail(f, "mesh file '" + file + "' not found (looked in: " + Join(names) + ")");
  }

  void ReadMassProperties(const BodyItem& item, int b) {
    Body& body = model_->bodies[b];
    auto mass_f = BodyGet(item, "mass");
    auto density_f = BodyGet(item, "density");
    auto inertia_f = BodyGet(item, "inertia");
    auto com_f = BodyGet(item, "com");
    if (mass_f && density_f) in_.Fail(*density_f, "give either mass or density, not both");
    if (!mass_f && !density_f) {
      in_.Fail(Field{item.name_field.node, Child(item.path, "mass")},
               "missing required field (mass in kg or density in kg/m^3; or static: true)");
    }
    // Volume properties of the body's geoms, in body axes about their common centroid.
    double volume = 0;
    Vec3 first = Vec3::Zero();
    std::vector<std::pair<VolumeProperties, Pose>> parts;
    // The body's geoms are the ones ReadGeoms just appended.
    for (size_t gi = first_geom_; gi < model_->geoms.size(); ++gi) {
      const Geom& g = model_->geoms[gi];
      if (g.body != b) continue;
      VolumeProperties vp = ShapeVolumeProperties(g.shape);
      if (vp.volume <= 0) continue;
      parts.emplace_back(vp, g.local);
      volume += vp.volume;
      first += vp.volume * g.local.Apply(vp.centroid);
    }
    Vec3 centroid = volume > 0 ? Vec3(first / volume) : Vec3::Zero();
    Mat3 unit_inertia = Mat3::Zero();
    for (const auto& [vp, X] : parts) {
      const Mat3 R = X.R();
      const Vec3 d = X.Apply(vp.centroid) - centroid;
      unit_inertia += R * vp.inertia * R.transpose() +
                      vp.volume * (d.squaredNorm() * Mat3::Identity() - d * d.transpose());
    }
    double density = 0;
    if (density_f) {
      density = in_.Number(*density_f, Open(0, kInf));
      if (volume <= 0) {
        in_.Fail(*density_f,
                 "density needs geoms with volume to compute the mass from (this "
                 "body has none); give mass and inertia instead");
      }
      body.mass = density * volume;
    } else {
      body.mass = in_.Number(*mass_f, Open(0, kInf));
      if (volume > 0) density = body.mass / volume;
    }
    body.com = com_f ? in_.Vector(*com_f) : centroid;
    if (inertia_f) {
      body.inertia = ReadInertia(*inertia_f);
    } else {
      if (volume <= 0) {
        in_.Fail(Field{(mass_f ? mass_f : density_f)->node, Child(item.path, "inertia")},
                 "missing required field (inertia [ixx, iyy, izz] or a 3x3 matrix in kg m^2; it "
                 "can only be computed when the body has geoms with volume)");
      }
      if (com_f) {
        // Shift the geometric inertia from the centroid to the given center of mass.
        const Vec3 d = body.com - centroid;
        unit_inertia += volume * (d.squaredNorm() * Mat3::Identity() - d * d.transpose());
      }
      body.inertia = density * unit_inertia;
    }
  }

  Mat3 ReadInertia(const Field& f) const {
    Mat3 I = Mat3::Zero();
    if (f.node.IsSequence() && f.node.size() == 3 && f.node[0].IsSequence()) {
      for (int r = 0; r < 3; ++r) {
        Field row{f.node[r], Child(f.path, std::to_string(r))};
        std::vector<double> v = in_.Numbers(row, 3, 3, Finite());
        for (int c = 0; c < 3; ++c) I(r, c) = v[c];
      }
      if ((I - I.transpose()).norm() > 1e-9 * I.norm()) in_.Fail(f, "matrix is not symmetric");
    } else {
      if (!f.node.IsSequence() || f.node.size() != 3) {
        in_.Fail(f, "expected [ixx, iyy, izz] or a 3x3 matrix (list of 3 rows), got " +
                        Describe(f.node));
      }
      I = in_.Vector(f, Open(0, kInf)).asDiagonal();
    }
    Eigen::LLT<Mat3> llt(I);
    if (llt.info() != Eigen::Success) in_.Fail(f, "inertia must be positive definite");
    const Vec3 d = I.diagonal();
    if (d.x() > d.y() + d.z() + 1e-12 * d.sum() || d.y() > d.x() + d.z() + 1e-12 * d.sum() ||
        d.z() > d.x() + d.y() + 1e-12 * d.sum()) {
      in_.Fail(f, "principal moments violate the triangle inequality (ixx <= iyy + izz, ...)");
    }
    return I;
  }

  Signal ReadSignal(const Field& f) const {
    Signal s;
    if (f.node.IsScalar()) {
      s.kind = Signal::Kind::kConstant;
      s.value = in_.Number(f, Finite());
      return s;
    }
    in_.CheckKeys(f, {"constant", "piecewise_linear", "square", "sine"});
    if (f.node.size() != 1) {
      in_.Fail(f, "expected a number or exactly one of constant, piecewise_linear, square, sine");
    }
    if (auto c = in_.Get(f, "constant")) {
      s.value = in_.Number(*c, Finite());
    } else if (auto p = in_.Get(f, "piecewise_linear")) {
      s.kind = Signal::Kind::kPiecewiseLinear;
      if (!p->node.IsSequence() || p->node.size() == 0) {
        in_.Fail(*p, "expected a non-empty list of [t, value] points, got " + Describe(p->node));
      }
      for (size_t i = 0; i < p->node.size(); ++i) {
        Field pt{p->node[i], Child(p->path, std::to_string(i))};
        std::vector<double> v = in_.Numbers(pt, 2, 2, Finite());
        if (!s.points.empty() && !(v[0] > s.points.back().first)) {
          in_.Fail(pt, "times must be strictly increasing");
        }
        s.points.emplace_back(v[0], v[1]);
      }
    } else if (auto q = in_.Get(f, "square")) {
      s.kind = Signal::Kind::kSquare;
      in_.CheckKeys(*q, {"low", "high", "period", "duty"});
      s.low = in_.Number(in_.Require(*q, "low", "value"), Finite());
      s.high = in_.Number(in_.Require(*q, "high", "value"), Finite());
      s.period = in_.Number(in_.Require(*q, "period", "s"), Open(0, kInf));
      s.duty = in_.Number(*q, "duty", Closed(0, 1), 0.5);
    } else {
      Field w = *in_.Get(f, "sine");
      s.kind = Signal::Kind::kSine;
      in_.CheckKeys(w, {"amplitude", "offset", "frequency", "phase"});
      s.amplitude = in_.Number(in_.Require(w, "amplitude", "value"), Finite());
      s.frequency = in_.Number(in_.Require(w, "frequency", "Hz"), RightOpen(0, kInf));
      s.offset = in_.Number(w, "offset", Finite(), 0.0);
      s.phase = in_.Number(w, "phase", Finite(), 0.0);
    }
    return s;
  }

  // loads: [{name, body, point: [3 signals], force: [3 signals], frame: world | body}]
  // `models:` — model files (MJCF, URDF, YAML) placed beside the scene's bodies
  // (app/model_include.h). Each is loaded on its own with LoadScene; its errors keep their own
  // FILE:LINE and are prefixed with the include's location.
  void ReadModels(const Field& top, const StepSettings& settings) {
    auto list = in_.Get(top, "models");
    if (!list) return;
    in_.ExpectSequence(*list);
    constexpr int kMaxIncludeDepth = 8;
    for (size_t i = 0; i < list->node.size(); ++i) {
      Field item{list->node[i], Child(list->path, std::to_string(i))};
      in_.ExpectMap(item);
      in_.CheckKeys(item,
                    {"file", "name", "base", "rotation", "fixed", "material", "joint_positions",
                     "pd", "world_geometry", "package_paths", "ground"},
                    " in a model");
      Field file_f = in_.Require(item, "file", "a model file (.xml MJCF, .urdf, .yaml)");
      const std::string file = in_.String(file_f);
      if (file.empty()) in_.Fail(file_f, "empty model file name");
      fs::path path(file);
      if (!path.is_absolute()) path = fs::path(base_dir_.empty() ? "." : base_dir_) / path;
      path = path.lexically_normal();
      std::error_code ec;
      if (!fs::is_regular_file(path, ec)) {
        in_.Fail(file_f, "model file '" + file + "' not found (looked at " + path.string() + ")");
      }
      if (options_.include_depth >= kMaxIncludeDepth) {
        in_.Fail(file_f, "models nested more than " + std::to_string(kMaxIncludeDepth) +
                             " deep (does a model include itself?)");
      }
      ModelPlacement place;
      if (auto f = in_.Get(item, "base")) place.base.p = in_.Vector(*f);
      if (auto f = in_.Get(item, "rotation")) place.base.q = in_.Rotation(*f);
      place.fixed = in_.Bool(item, "fixed", false);
      place.world_geometry = in_.Bool(item, "world_geometry", true);
      std::string prefix = path.stem().string();
      if (auto f = in_.Get(item, "name")) prefix = in_.Name(*f);
      place.prefix = prefix;
      if (auto f = in_.Get(item, "material")) {
        const std::string m = in_.String(*f);
        auto it = material_index_.find(m);
        if (it == material_index_.end()) in_.Fail(*f, "unknown material '" + m + "'");
        place.material = it->second;
      }
      SceneOptions sub;
      sub.include_depth = options_.include_depth + 1;
      // package:// folders: the entry's own, then the command line's (--package-path).
      if (auto f = in_.Get(item, "package_paths")) {
        in_.ExpectSequence(*f);
        for (size_t k = 0; k < f->node.size(); ++k) {
          sub.package_paths.push_back(
              in_.String(Field{f->node[k], Child(f->path, std::to_string(k))}));
        }
      }
      sub.package_paths.insert(sub.package_paths.end(), options_.package_paths.begin(),
                               options_.package_paths.end());
      // URDF: lift the model so that its lowest collision geometry touches z = 0 (the ground
      // half-space the importer adds with it is left out with world_geometry: false).
      sub.ground_plane = in_.Bool(item, "ground", false);
      Scene part;
      try {
        part = LoadScene(path.string(), sub);
      } catch (const SceneError& e) {
        in_.Fail(file_f, std::string("in the model: ") + e.what());
      }
      AppendedModel appended;
      try {
        appended = AppendModel(part.model, place, model_);
      } catch (const std::invalid_argument& e) {
        in_.Fail(item, e.what());
      }
      ReadModelJoints(item, part.model, &appended);
      for (int b = 0; b < appended.num_bodies; ++b) {
        const Body& body = model_->bodies[appended.first_body + b];
        body_index_[body.name] = appended.first_body + b;
        kinds_.push_back(body.prescribed ? BodyKind::kPrescribed
                         : body.joint < 0 ? BodyKind::kStatic
                                          : BodyKind::kDynamic);
      }
      for (int j = 0; j < appended.num_joints; ++j) {
        joint_names_.insert(model_->joints[appended.first_joint + j].name);
      }
      for (int g = 0; g < appended.num_geoms; ++g) geom_fields_.push_back(file_f);
      for (size_t l = 0; l < part.model.loads.size(); ++l) load_fields_.push_back(file_f);
      // The part's equalities keep their anchors; errors about them point at this entry.
      for (size_t e = 0; e < part.model.equalities.size(); ++e) {
        equality_specs_.push_back({file_f, false});
      }
      // The scene's integrator rules; a model whose file asks for another is told so (an MJCF
      // model's light limbs need implicit damping: app/model_import/mjcf_import.h).
      std::vector<std::string> warnings = part.warnings;
      if (part.settings.integrator != settings.integrator) {
        warnings.push_back(std::string("the model's file asks for integrator ") +
                           IntegratorName(part.settings.integrator) + ", the scene uses " +
                           IntegratorName(settings.integrator) + " (set `integrator: " +
                           IntegratorName(part.settings.integrator) + "` to follow it)");
      }
      // A warning repeated by several models (the same file placed many times) is listed once.
      for (const std::string& w : warnings) {
        bool repeated = false;
        for (ModelWarning& mw : model_warnings_) {
          if (mw.text == w) {
            ++mw.repeats;
            repeated = true;
          }
        }
        if (!repeated) {
          model_warnings_.push_back({rep_->Location(file_f.node) + ": " + file_f.path, w, 0});
        }
      }
      appended_.push_back(std::move(appended));
    }
  }

  // A model's `joint_positions: {JOINT: value}` (1-dof joints, by their name in the model file;
  // rad or m from the model's reference pose) and `pd: {kp, kd, effort_limit}` (a PD actuator
  // holding every 1-dof joint that has none at its start position).
  void ReadModelJoints(const Field& item, const Model& part, AppendedModel* appended) {
    auto start_of = [&](int scene_joint) -> AppendedModel::JointStart* {
      for (auto& s : appended->starts) {
        if (s.joint == scene_joint) return &s;
      }
      return nullptr;
    };
    if (auto f = in_.Get(item, "joint_positions")) {
      in_.ExpectMap(*f);
      for (const auto& kv : f->node) {
        const std::string name = kv.first.as<std::string>();
        const Field vf{kv.second, Child(f->path, name)};
        const int pj = part.FindJoint(name);
        if (pj < 0) in_.Fail(vf, "the model has no joint '" + name + "'");
        const JointType t = part.joints[pj].type;
        if (t != JointType::kRevolute && t != JointType::kPrismatic) {
          in_.Fail(vf, "joint '" + name + "' is " + JointTypeName(t) +
                           ": joint_positions sets revolute and prismatic joints");
        }
        AppendedModel::JointStart* s = start_of(appended->first_joint + pj);
        if (!s) in_.Fail(vf, "joint '" + name + "' has no coordinates in the scene");
        s->q[0] = in_.Number(vf, Finite());
      }
    }
    if (auto f = in_.Get(item, "pd")) {
      in_.CheckKeys(*f, {"kp", "kd", "effort_limit"}, " in a model's pd");
      const double kp = in_.Number(*f, "kp", Closed(0, 1e12), 0.0);
      const double kd = in_.Number(*f, "kd", Closed(0, 1e12), 0.0);
      const double limit = in_.Number(*f, "effort_limit", LeftOpen(0, kInf),
                                      std::numeric_limits<double>::infinity());
      for (int j = 0; j < appended->num_joints; ++j) {
        Joint& joint = model_->joints[appended->first_joint + j];
        if (joint.type != JointType::kRevolute && joint.type != JointType::kPrismatic) continue;
        if (joint.actuator.enabled) continue;
        const AppendedModel::JointStart* s = start_of(appended->first_joint + j);
        if (!s) continue;
        joint.actuator.enabled = true;
        joint.actuator.kp = kp;
        joint.actuator.kd = kd;
        joint.actuator.effort_limit = limit;
        joint.actuator.setpoint = Signal{};
        joint.actuator.setpoint.value = s->q[0];
      }
    }
  }

  void ReadLoads(const Field& top) {
    auto list = in_.Get(top, "loads");
    if (!list) return;
    in_.ExpectSequence(*list);
    for (size_t i = 0; i < list->node.size(); ++i) {
      Field item{list->node[i], Child(list->path, std::to_string(i))};
      in_.ExpectMap(item);
      in_.CheckKeys(item, {"name", "body", "point", "force", "frame"}, " in a load");
      Load ld;
      if (auto n = in_.Get(item, "name")) ld.name = in_.Name(*n);
      Field body_f = in_.Require(item, "body", "a body name");
      const std::string body = in_.String(body_f);
      auto it = body_index_.find(body);
      if (it == body_index_.end()) in_.Fail(body_f, "unknown body '" + body + "'");
      if (kinds_[it->second] != BodyKind::kDynamic) {
        in_.Fail(body_f, "body '" + body + "' is " +
                             (kinds_[it->second] == BodyKind::kStatic ? "static" : "prescribed") +
                             ": loads need a body that moves under forces");
      }
      ld.body = it->second;
      auto signals = [&](const Field& f, std::array<Signal, 3>* out) {
        if (!f.node.IsSequence() || f.node.size() != 3) {
          in_.Fail(f, "expected a list of 3 entries (each a number or a signal), got " +
                          Describe(f.node));
        }
        for (int k = 0; k < 3; ++k) {
          (*out)[k] = ReadSignal(Field{f.node[k], Child(f.path, std::to_string(k))});
        }
      };
      if (auto p = in_.Get(item, "point")) signals(*p, &ld.point);
      signals(in_.Require(item, "force", "[fx, fy, fz] in N, each a number or a signal"),
              &ld.force);
      if (auto fr = in_.Get(item, "frame"))
        ld.force_in_body = in_.Choice(*fr, {"world", "body"}) == "body";
      model_->loads.push_back(ld);
      load_fields_.push_back(body_f);
    }
  }

  // equalities: [{name, type: connect | weld | joint_coupling, ...}] (docs/scene_format.md):
  //   connect: body_a, body_b (a body name or world), point_a (in A) and point_b (in B; default:
  //            the point of B at point_a at the initial configuration);
  //   weld:    body_a, body_b, frame_a ({position, rotation} in A, default identity) and frame_b
  //            (in B; default: where F_A is at the initial configuration: the current relative pose);
  //   joint_coupling: joint_a, joint_b (1-dof joint names; none: q_a = offset), gear, offset;
  //   all: stiffness (default inf: near-rigid), dissipation_time (default 0), active (true).
  // Anchors left to their defaults are resolved by ResolveEqualityAnchors once the model is built.
  void ReadEqualities(const Field& top) {
    auto list = in_.Get(top, "equalities");
    if (!list) return;
    in_.ExpectSequence(*list);
    for (size_t i = 0; i < list->node.size(); ++i) {
      Field item{list->node[i], Child(list->path, std::to_string(i))};
      in_.ExpectMap(item);
      const std::string type =
          in_.Choice(in_.Require(item, "type", "connect, weld or joint_coupling"),
                     {"connect", "weld", "joint_coupling"});
      const std::vector<std::string> common = {"name", "type", "stiffness", "dissipation_time",
                                               "active"};
      std::vector<std::string> keys = common;
      if (type == "connect") {
        keys.insert(keys.end(), {"body_a", "body_b", "point_a", "point_b"});
      } else if (type == "weld") {
        keys.insert(keys.end(), {"body_a", "body_b", "frame_a", "frame_b"});
      } else {
        keys.insert(keys.end(), {"joint_a", "joint_b", "gear", "offset"});
      }
      in_.CheckKeys(item, keys, " in a " + type + " equality");
      Equality e;
      e.name = "equality" + std::to_string(i);
      if (auto n = in_.Get(item, "name")) e.name = in_.Name(*n);
      e.stiffness = in_.Number(item, "stiffness", LeftOpen(0, kInf),
                               std::numeric_limits<double>::infinity());
      e.dissipation_time = in_.Number(item, "dissipation_time", RightOpen(0, kInf), 0.0);
      e.active = in_.Bool(item, "active", true);
      EqualityAnchorSpec spec;
      spec.item = item;
      if (type == "joint_coupling") {
        e.type = EqualityType::kJointCoupling;
        auto joint = [&](const char* key, bool required) {
          std::optional<Field> f = required
                                       ? std::optional<Field>(in_.Require(item, key, "a joint name"))
                                       : in_.Get(item, key);
          if (!f) return -1;
          const std::string name = in_.String(*f);
          const int j = model_->FindJoint(name);
          if (j < 0) in_.Fail(*f, "unknown joint '" + name + "'");
          if (JointNv(model_->joints[j].type) != 1) {
            in_.Fail(*f, "joint '" + name + "' is " + JointTypeName(model_->joints[j].type) +
                             ": a coupling needs a 1-dof joint (revolute or prismatic)");
          }
          return j;
        };
        e.joint_a = joint("joint_a", true);
        e.joint_b = joint("joint_b", false);
        if (e.joint_a == e.joint_b) {
          in_.Fail(*in_.Get(item, "joint_b"), "joint_a and joint_b are the same joint");
        }
        e.gear = in_.Number(item, "gear", Finite(), 1.0);
        e.offset = in_.Number(item, "offset", Finite(), 0.0);
      } else {
        e.type = type == "weld" ? EqualityType::kWeld : EqualityType::kConnect;
        auto body = [&](const char* key) {
          const Field f = in_.Require(item, key, "a body name or world");
          const std::string name = in_.String(f);
          if (name == "world") return -1;
          auto it = body_index_.find(name);
          if (it == body_index_.end()) {
            in_.Fail(f, "unknown body '" + name + "' (use 'world' or a body name)");
          }
          return it->second;
        };
        e.body_a = body("body_a");
        e.body_b = body("body_b");
        if (e.body_a == e.body_b) {
          in_.Fail(*in_.Get(item, "body_b"), "body_a and body_b are the same body");
        }
        if (e.type == EqualityType::kConnect) {
          e.a_from_anchor.p = in_.Vector(item, "point_a", Vec3::Zero());
          if (auto f = in_.Get(item, "point_b")) {
            e.b_from_anchor.p = in_.Vector(*f);
          } else {
            spec.resolve_b = true;
          }
        } else {
          if (auto f = in_.Get(item, "frame_a")) e.a_from_anchor = in_.Frame(*f);
          if (auto f = in_.Get(item, "frame_b")) {
            e.b_from_anchor = in_.Frame(*f);
          } else {
            spec.resolve_b = true;
          }
        }
      }
      model_->equalities.push_back(e);
      equality_specs_.push_back(spec);
    }
  }

  // A Model::Finalize message about an equality ("equality 'NAME': why", known only once the
  // trees are built, e.g. both bodies without degrees of freedom) at the equality's line.
  void FailEqualityWithLine(const std::string& what) {
    const std::string prefix = "equality '";
    if (what.rfind(prefix, 0) != 0) return;
    const size_t end = what.find("': ", prefix.size());
    if (end == std::string::npos) return;
    const std::string name = what.substr(prefix.size(), end - prefix.size());
    for (size_t i = 0; i < model_->equalities.size() && i < equality_specs_.size(); ++i) {
      if (model_->equalities[i].name == name) in_.Fail(equality_specs_[i].item, what.substr(end + 3));
    }
  }

  // Anchors on B left to their defaults: where A's anchor is at the initial configuration
  // (q_default), so that g(q0) = 0. Then every equality that still has both sides without
  // degrees of freedom is refused with its line.
  void ResolveEqualityAnchors() {
    if (model_->equalities.empty()) return;
    Multibody mb(model_);
    KinematicsCache kin;
    mb.UpdateKinematics(model_->q_default, 0.0, &kin);
    auto pose = [&](int b) { return b < 0 ? Pose{} : kin.X_WB[b]; };
    for (size_t i = 0; i < model_->equalities.size() && i < equality_specs_.size(); ++i) {
      Equality& e = model_->equalities[i];
      if (!equality_specs_[i].resolve_b || e.type == EqualityType::kJointCoupling) continue;
      const Pose X_WFa = pose(e.body_a) * e.a_from_anchor;
      if (e.type == EqualityType::kConnect) {
        e.b_from_anchor = Pose{pose(e.body_b).InverseApply(X_WFa.p), Quat::Identity()};
      } else {
        e.b_from_anchor = pose(e.body_b).Inverse() * X_WFa;
        e.b_from_anchor.q.normalize();
      }
    }
  }

  void ReadJoint(const BodyItem& item, int b, const Field& jf, JointSpec* js) {
    in_.ExpectMap(jf);
    std::string type = "free";
    if (auto t = in_.Get(jf, "type")) {
      type = in_.Choice(*t, {"free", "revolute", "prismatic", "fixed", "ball"});
    }
    in_.CheckKeys(jf, JointKeys(type), " for a " + type + " joint");
    Joint j;
    j.name = item.name;
    if (auto n = in_.Get(jf, "name")) j.name = in_.Name(*n);
    if (!joint_names_.insert(j.name).second) {
      in_.Fail(in_.Get(jf, "name") ? *in_.Get(jf, "name") : jf,
               "duplicate joint name '" + j.name + "'");
    }
    j.type = type == "free"        ? JointType::kFree
             : type == "revolute"  ? JointType::kRevolute
             : type == "prismatic" ? JointType::kPrismatic
             : type == "ball"      ? JointType::kBall
                                   : JointType::kFixed;
    j.child = b;
    js->present = true;
    js->field = jf;
    if (auto p = in_.Get(jf, "parent")) {
      js->parent_field = p;
      const std::string parent = in_.String(*p);
      if (parent == "world") {
        js->parent = -1;
      } else {
        auto it = body_index_.find(parent);
        if (it == body_index_.end()) {
          in_.Fail(*p, "unknown parent body '" + parent + "' (use 'world' or a body name)");
        }
        if (it->second == b) in_.Fail(*p, "a body cannot be its own parent");
        js->parent = it->second;
      }
    }
    if (auto f = in_.Get(jf, "parent_frame")) {
      j.parent_from_joint = in_.Frame(*f);
      js->has_parent_frame = true;
      if (pose_specs_[b].given) {
        in_.Fail(pose_specs_[b].where,
                 "not allowed with joint.parent_frame: the joint frames define this body's pose");
      }
    }
    if (auto f = in_.Get(jf, "child_frame")) j.child_from_joint = in_.Frame(*f);
    if (j.type == JointType::kBall) {
      // Ball joints have three rotational dofs and none of the 1-dof extras.
      for (const char* key : {"spring", "limits", "actuator"}) {
        if (auto f = in_.Get(jf, key)) {
          in_.Fail(*f, "ball joint '" + j.name + "' cannot have " + key + " (" + key +
                           " apply to revolute and prismatic joints only)");
        }
      }
    }
    if (auto f = in_.Get(jf, "axis")) j.axis = in_.UnitVector(*f);
    if (auto f = in_.Get(jf, "spring")) {
      in_.CheckKeys(*f, {"stiffness", "reference"});
      j.spring_stiffness =
          in_.Number(in_.Require(*f, "stiffness", "N m/rad or N/m"), RightOpen(0, kInf));
      j.spring_reference = in_.Number(*f, "reference", Finite(), 0.0);
    }
    j.damping = in_.Number(jf, "damping", RightOpen(0, kInf), 0.0);
    j.armature = in_.Number(jf, "armature", RightOpen(0, kInf), 0.0);
    if (auto f = in_.Get(jf, "limits")) {
      // One side may be infinite (a one-sided limit, e.g. [0, .inf]); NaN is refused.
      std::vector<double> v = in_.Numbers(*f, 2, 2, Closed(-kInf, kInf));
      if (!(v[0] < v[1])) in_.Fail(*f, "expected [lower, upper] with lower < upper");
      j.limited = true;
      j.lower = v[0];
      j.upper = v[1];
    }
    if (auto f = in_.Get(jf, "actuator")) {
      in_.CheckKeys(*f, {"kp", "kd", "setpoint", "effort_limit"});
      j.actuator.enabled = true;
      j.actuator.kp = in_.Number(*f, "kp", RightOpen(0, kInf), 0.0);
      j.actuator.kd = in_.Number(*f, "kd", RightOpen(0, kInf), 0.0);
      if (auto s = in_.Get(*f, "setpoint")) j.actuator.setpoint = ReadSignal(*s);
      j.actuator.effort_limit = in_.Number(*f, "effort_limit", LeftOpen(0, kInf), kInf);
    }
    const int joint_index = static_cast<int>(model_->joints.size());
    model_->bodies[b].joint = joint_index;

    // Initial conditions.
    InitialCondition ic;
    ic.joint = joint_index;
    auto vel = BodyGet(item, "velocity");
    auto ang = BodyGet(item, "angular_velocity");
    auto jp = BodyGet(item, "joint_position");
    auto jv = BodyGet(item, "joint_velocity");
    if (j.type == JointType::kFree) {
      if (jp) FailNotAllowed(*jp, "a free body's initial pose is position/rotation");
      if (jv) FailNotAllowed(*jv, "use velocity/angular_velocity for a free body");
      if (vel) ic.velocity = in_.Vector(*vel), ic.has_velocity = true;
      if (ang) ic.angular_velocity = in_.Vector(*ang), ic.has_angular_velocity = true;
    } else if (j.type == JointType::kFixed) {
      for (auto* f : {&vel, &ang, &jp, &jv}) {
        if (*f) FailNotAllowed(**f, "a fixed joint has no coordinates");
      }
    } else if (j.type == JointType::kBall) {
      if (vel) FailNotAllowed(*vel, "use joint_velocity for a ball joint");
      if (ang) FailNotAllowed(*ang, "use joint_velocity for a ball joint");
      if (jp) {
        if (!jp->node.IsMap()) {
          in_.Fail(*jp,
                   "a ball joint's joint_position is a rotation ({axis_angle: [x, y, z, "
                   "degrees]}, {rpy_deg: [r, p, y]} or {quat: [w, x, y, z]}), got " +
                       Describe(jp->node));
        }
        ic.rotation = in_.Rotation(*jp);
        ic.has_rotation = true;
      }
      if (jv) ic.angular_velocity = in_.Vector(*jv), ic.has_angular_velocity = true;
    } else {
      if (vel) FailNotAllowed(*vel, "use joint_velocity for a " + type + " joint");
      if (ang) FailNotAllowed(*ang, "use joint_velocity for a " + type + " joint");
      if (jp) {
        ic.position = in_.Number(*jp, Finite());
        ic.has_position = true;
        if (j.limited && (ic.position < j.lower || ic.position > j.upper)) {
          in_.Fail(*jp, "value " + FormatNumber(ic.position) + " is outside the joint limits [" +
                            FormatNumber(j.lower) + ", " + FormatNumber(j.upper) + "]");
        }
      }
      if (jv) ic.rate = in_.Number(*jv, Finite()), ic.has_rate = true;
    }
    if (ic.has_velocity || ic.has_angular_velocity || ic.has_position || ic.has_rate ||
        ic.has_rotation) {
      ic.where = jf;
      initial_.push_back(ic);
    }
    model_->joints.push_back(std::move(j));
  }

  // World poses of all bodies with every joint coordinate at zero; fills the joint frames.
  // A body's pose needs its parent's, so each body's chain of unresolved ancestors is collected
  // first (with an explicit stack: chains as long as the body list must not recurse), checked,
  // then resolved from the top down. state: 0 unvisited, 1 on the chain being collected, 2 done.
  void ResolvePoses() {
    const int nb = static_cast<int>(model_->bodies.size());
    std::vector<char> state(nb, 0);
    std::vector<int> chain;
    for (int start = 0; start < nb; ++start) {
      chain.clear();
      for (int b = start; b >= 0 && state[b] != 2;) {
        if (state[b] == 1) {
          in_.Fail(*joint_specs_[b].parent_field,
                   "the joint parents form a cycle through body '" + model_->bodies[b].name + "'");
        }
        state[b] = 1;
        chain.push_back(b);
        const JointSpec& js = joint_specs_[b];
        if (!js.present || js.parent < 0) break;
        if (kinds_[js.parent] == BodyKind::kPrescribed) {
          in_.Fail(*js.parent_field, "parent '" + model_->bodies[js.parent].name +
                                         "' is prescribed; joints to prescribed bodies are "
                                         "not supported");
        }
        if (model_->joints[model_->bodies[b].joint].type == JointType::kFree) {
          in_.Fail(*js.parent_field, "a free joint can only connect a body to the world");
        }
        b = js.parent;
      }
      for (auto it = chain.rbegin(); it != chain.rend(); ++it) ZeroPose(*it);
      for (int b : chain) state[b] = 2;
    }
  }

  // Pose of body b with its joint at zero, its parent's pose known; fills the joint's frames.
  void ZeroPose(int b) {
    Pose X_WB = pose_specs_[b].pose;
    const JointSpec& js = joint_specs_[b];
    if (js.present) {
      Joint& j = model_->joints[model_->bodies[b].joint];
      const Pose X_WP = js.parent >= 0 ? model_->bodies[js.parent].pose0 : Pose{};
      if (j.type != JointType::kFree) {
        if (js.has_parent_frame) {
          X_WB = X_WP * j.parent_from_joint * j.child_from_joint.Inverse();
        } else {
          j.parent_from_joint = X_WP.Inverse() * X_WB * j.child_from_joint;
        }
        if (js.parent >= 0 && kinds_[js.parent] == BodyKind::kStatic) {
          // Static parents are part of the world.
          j.parent_from_joint = X_WP * j.parent_from_joint;
          j.parent = -1;
        } else {
          j.parent = js.parent;
        }
      } else {
        j.parent = -1;
      }
    }
    Body& body = model_->bodies[b];
    body.pose0 = X_WB;
    body.pose0.q.normalize();
  }

  void Finalize(Scene* scene) {
    try {
      scene->settings.Validate();
    } catch (const std::invalid_argument& e) {
      throw SceneError(rep_->file() + ": settings: " + e.what());
    }
    // The scene's own run length, checked like --duration (a run is 1 to kMaxRunSteps steps).
    const double dt = scene->settings.time_step;
    const std::string problem = RunLengthProblem(scene->duration, dt);
    if (!problem.empty()) {
      // The field to blame: an overridden time_step, else duration, else time_step.
      const bool step_overridden = time_step_field_ && rep_->IsOverride(time_step_field_->node);
      const std::optional<Field>& f =
          duration_field_ && !step_overridden ? duration_field_ : time_step_field_;
      const std::string what = "duration " + FormatNumber(scene->duration) + " s with time_step " +
                               FormatNumber(dt) + " s: " + problem;
      if (f) in_.Fail(*f, what);
      throw SceneError(rep_->file() + ": duration: " + what);
    }
    // Loads are checked here, with their line: a body welded to the world has no dofs, which
    // is known only once the trees are built.
    std::vector<Load> loads = std::move(model_->loads);
    model_->loads.clear();
    try {
      model_->Finalize();
    } catch (const std::invalid_argument& e) {
      FailEqualityWithLine(e.what());
      throw SceneError(rep_->file() + ": model: " + e.what());
    }
    // Compliant geometries whose mesh would be too large for the resolution asked for, named
    // by their `hydroelastic` field (the simulator builds the meshes).
    if (geom_fields_.size() == model_->geoms.size()) {
      for (size_t g = 0; g < model_->geoms.size(); ++g) {
        const HydroelasticProperties h = model_->GeomHydroelastic(static_cast<int>(g));
        if (!h.compliant()) continue;
        const std::string why = VolumeMeshSizeError(model_->geoms[g].shape, h.resolution);
        if (why.empty()) continue;
        const Field& gf = geom_fields_[g];
        if (auto hf = in_.Get(gf, "hydroelastic")) in_.Fail(*hf, why);
        in_.Fail(gf, why + " (resolution from material '" +
                         model_->materials[model_->geoms[g].material].name + "')");
      }
    }
    // Refused before any step allocates: the dense matrices of very large trees.
    if (const std::string why = CheckDenseTreeMemory(*model_, scene->settings); !why.empty()) {
      throw SceneError(rep_->file() + ": model: " + why);
    }
    for (size_t i = 0; i < loads.size(); ++i) {
      if (model_->bodies[loads[i].body].tree < 0) {
        in_.Fail(load_fields_[i], "body '" + model_->bodies[loads[i].body].name +
                                      "' is welded to the world (no degrees of freedom): loads "
                                      "need a body that moves under forces");
      }
    }
    model_->loads = std::move(loads);
    for (const InitialCondition& ic : initial_) {
      const Joint& j = model_->joints[ic.joint];
      if (j.type == JointType::kFree) {
        if (ic.has_velocity) model_->v_default.segment<3>(j.v_start) = ic.velocity;
        if (ic.has_angular_velocity) {
          model_->v_default.segment<3>(j.v_start + 3) = ic.angular_velocity;
        }
      } else if (j.type == JointType::kBall) {
        if (ic.has_rotation) {
          const Quat r = ic.rotation.normalized();
          model_->q_default.segment<4>(j.q_start) << r.w(), r.x(), r.y(), r.z();
        }
        if (ic.has_angular_velocity) {
          model_->v_default.segment<3>(j.v_start) = ic.angular_velocity;
        }
      } else {
        if (ic.has_position) model_->q_default[j.q_start] = ic.position;
        if (ic.has_rate) model_->v_default[j.v_start] = ic.rate;
      }
    }
    for (const AppendedModel& a : appended_) ApplyAppendedStart(a, model_);
    ResolveEqualityAnchors();
  }

  Reporter* rep_;
  Reader in_;
  SceneOptions options_;
  std::string base_dir_;
  Model* model_ = nullptr;
  std::map<std::string, int> material_index_;
  std::map<std::string, Field> templates_;
  std::vector<BodyItem> items_;
  std::unordered_map<std::string, int> body_index_;
  std::unordered_set<std::string> joint_names_;
  size_t first_geom_ = 0;  // index of the first geom of the body being read
  std::vector<BodyKind> kinds_;
  std::vector<PoseSpec> pose_specs_;
  std::vector<JointSpec> joint_specs_;
  std::vector<Field> geom_fields_;
  std::vector<InitialCondition> initial_;
  std::vector<Field> load_fields_;  // each load's `body` field, for messages
  // Per equality: its item (for messages) and whether the anchor on B is left to its default.
  struct EqualityAnchorSpec {
    Field item;
    bool resolve_b = false;
  };
  std::vector<EqualityAnchorSpec> equality_specs_;
  std::optional<Field> time_step_field_, duration_field_;
  std::vector<AppendedModel> appended_;      // the `models:` parts, for their start state
  // What the parts' importers reported: where (the first `models` entry), what, and how many
  // more entries reported the same.
  struct ModelWarning {
    std::string where, text;
    int repeats = 0;
  };
  std::vector<ModelWarning> model_warnings_;
};

}  // namespace

Scene BuildScene(SceneDocument* doc, const SceneOptions& options, const std::string& base_dir) {
  SceneBuilder builder(&doc->rep, options, base_dir);
  try {
    return builder.Build(doc->root);
  } catch (const YAML::Exception& e) {
    // Defensive: any yaml-cpp failure not anticipated by the reader still becomes a SceneError.
    const std::string line = e.mark.is_null() ? "" : ":" + std::to_string(e.mark.line + 1);
    throw SceneError(doc->rep.file() + line + ": yaml: " + e.msg);
  }
}

}  // namespace scene_io
}  // namespace contactlab
