#include "app/model_import/mjcf_import.h"

#include <mujoco/mujoco.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "app/mesh_loader.h"

namespace contactlab {
namespace {

void ThrowOnMujocoError(const char* message) { throw std::runtime_error(message); }
void IgnoreMujocoWarning(const char*) {}

std::string Num(double x) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof(buf), x);
  return std::string(buf, r.ptr);
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The first tag opened on a 1-based line of the file ("" if none).
std::string TagOnLine(const std::string& path, int line) {
  std::ifstream in(path);
  std::string text;
  for (int k = 0; k < line && std::getline(in, text); ++k) {
  }
  static const std::regex tag_re("<([A-Za-z_][A-Za-z0-9_:-]*)");
  std::smatch m;
  return std::regex_search(text, m, tag_re) ? m[1].str() : "";
}

// "FILE:LINE: element: message" from MuJoCo's "message\nElement 'x', line N[, column M]".
std::string FormatMujocoError(const std::string& path, const std::string& raw) {
  std::string text = raw;
  std::smatch m;
  static const std::regex element_re("Element '([^']*)', line ([0-9]+)");
  static const std::regex object_re(
      "Object name = ([^,]*), id = [0-9]+(, line = ([0-9]+))?(, column = -?[0-9]+)?");
  static const std::regex name_re("Element name '([^']*)', id ([0-9]+), line ([0-9]+)");
  std::string line, element;
  if (std::regex_search(text, m, element_re)) {
    element = m[1];
    line = m[2];
    text = m.prefix().str() + m.suffix().str();
  } else if (std::regex_search(text, m, name_re)) {
    element = m[1];
    line = m[3];
    text = m.prefix().str() + m.suffix().str();
  } else if (std::regex_search(text, m, object_re)) {
    // Compiler errors name the object; the element is the tag that opens on that line.
    line = m[3];
    if (!line.empty()) element = TagOnLine(path, std::stoi(line));
    const std::string name = m[1];
    if (!name.empty()) element += (element.empty() ? "'" : " '") + name + "'";
    text = m.prefix().str() + m.suffix().str();
  }
  // One line: newlines and repeated blanks collapse, "XML Error:"/"Error:" prefixes go.
  std::string flat;
  for (char c : text) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
    if (c == ' ' && (flat.empty() || flat.back() == ' ')) continue;
    flat += c;
  }
  while (!flat.empty() && (flat.back() == ' ' || flat.back() == ',')) flat.pop_back();
  for (const char* prefix : {"XML Error: ", "Error: "}) {
    if (flat.rfind(prefix, 0) == 0) flat = flat.substr(std::string(prefix).size());
  }
  if (flat.empty()) flat = "MuJoCo could not load the file";
  if (!line.empty()) return path + ":" + line + ": " + element + ": " + flat;
  return path + ": " + (element.empty() ? "mjcf" : element) + ": " + flat;
}

// 1-based line of the element `<tag ... name="name"` in the file text (the n-th `<tag` when the
// element has no name), 0 when not found (it may come from an included file).
int LineOf(const std::string& text, const std::string& tag, const std::string& name, int nth) {
  const std::string open = "<" + tag;
  size_t pos = 0;
  int seen = 0;
  while ((pos = text.find(open, pos)) != std::string::npos) {
    const size_t after = pos + open.size();
    if (after < text.size() && (std::isspace(static_cast<unsigned char>(text[after])) ||
                                text[after] == '/' || text[after] == '>')) {
      const size_t end = text.find('>', after);
      const std::string attrs = text.substr(after, end == std::string::npos ? 0 : end - after);
      const bool match = name.empty() ? seen == nth
                                      : (attrs.find("name=\"" + name + "\"") != std::string::npos ||
                                         attrs.find("name='" + name + "'") != std::string::npos);
      if (match) return 1 + static_cast<int>(std::count(text.begin(), text.begin() + pos, '\n'));
      ++seen;
    }
    pos = after;
  }
  return 0;
}

Pose MakePose(const mjtNum* p, const mjtNum* q) {
  Pose X;
  X.p = Vec3(p[0], p[1], p[2]);
  X.q = Quat(q[0], q[1], q[2], q[3]).normalized();
  return X;
}

class Converter {
 public:
  Converter(const std::string& path, const mjModel* m, MjcfImportReport* report)
      : path_(path), m_(m), report_(report), text_(ReadText(path)) {}

  Scene Run() {
    Scene scene;
    scene.path = path_;
    Model& model = scene.model;
    model_ = &model;
    model.materials.clear();
    report_->mj_nbody = m_->nbody;
    report_->mj_njnt = m_->njnt;
    report_->mj_ngeom = m_->ngeom;
    for (int i = 0; i < m_->nbody; ++i) report_->mj_total_mass += m_->body_mass[i];

    Bodies();
    Geoms();
    FrictionPairs();
    Exclusions();
    Actuators();
    Equalities();
    Unsupported();
    if (model.materials.empty()) model.materials.push_back(Material{});

    scene.settings.time_step = m_->opt.timestep;
    scene.settings.gravity = Vec3(m_->opt.gravity[0], m_->opt.gravity[1], m_->opt.gravity[2]);
    // MuJoCo's Euler integrates joint damping implicitly; so does implicit_damping_euler. Its
    // implicit integrator (velocity-dependent forces implicit) maps to the same scheme, RK4 has
    // no counterpart.
    scene.settings.integrator = Integrator::kImplicitDampingEuler;
    if (m_->opt.integrator == mjINT_RK4) {
      report_->warnings.push_back(path_ + ": option: integrator RK4 is not carried: "
                                  "implicit_damping_euler (MuJoCo's Euler scheme) is used");
    }
    try {
      scene.settings.Validate();
      model.Finalize();
    } catch (const std::invalid_argument& e) {
      throw SceneError(path_ + ": model: " + e.what());
    }
    InitialState();
    report_->joint_of_mj = joint_of_mj_;
    // Camera: look at the first moving body's start from a distance that shows a human.
    scene.camera.distance = 4.0;
    scene.camera.target = Vec3(0, 0, 1);
    return scene;
  }

 private:
  std::string Name(int type, int id) const {
    const char* n = mj_id2name(m_, type, id);
    return n ? n : "";
  }

  void Warn(const std::string& tag, const std::string& name, int nth, const std::string& what) {
    int line = LineOf(text_, tag, name, nth);
    if (tag == "actuator" && !name.empty()) {
      for (const char* t : {"motor", "position", "velocity", "general", "muscle", "cylinder",
                            "damper", "adhesion", "intvelocity"}) {
        if (line == 0) line = LineOf(text_, t, name, -1);
      }
    }
    std::string where = path_ + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": " +
                        tag +
                        (name.empty()     ? ""
                         : name[0] == '#' ? " " + name
                                          : " '" + name + "'") +
                        ": " + what;
    report_->warnings.push_back(where);
  }

  void Bodies() {
    Model& model = *model_;
    const int nb = m_->nbody;
    world_.assign(nb, Pose{});
    static_.assign(nb, false);
    static_[0] = true;
    report_->body_of_mj.assign(nb, -1);
    joint_of_mj_.assign(m_->njnt, -1);
    for (int i = 1; i < nb; ++i) {
      const int p = m_->body_parentid[i];
      const Pose X_PB = MakePose(m_->body_pos + 3 * i, m_->body_quat + 4 * i);
      world_[i] = world_[p] * X_PB;
      const int nj = m_->body_jntnum[i];
      static_[i] = nj == 0 && static_[p];
      if (static_[i]) continue;

      const std::string name = Name(mjOBJ_BODY, i);
      // Links for all joints but the last; the real body takes the last.
      int prev = static_[p] ? -1 : report_->body_of_mj[p];
      Pose X_prev = static_[p] ? world_[i] : X_PB;
      const int adr = m_->body_jntadr[i];
      std::vector<int> link_bodies;
      for (int k = 0; k + 1 < nj; ++k) {
        Body link;
        link.name = name + "/link" + std::to_string(k + 1);
        link.mass = kLinkMass;
        link.inertia = Mat3::Identity() * kLinkInertia;
        model.bodies.push_back(link);
        link_bodies.push_back(static_cast<int>(model.bodies.size()) - 1);
        ++report_->link_bodies;
      }
      Body body;
      body.name = name.empty() ? "body" + std::to_string(i) : name;
      body.mass = m_->body_mass[i];
      body.com = Vec3(m_->body_ipos[3 * i], m_->body_ipos[3 * i + 1], m_->body_ipos[3 * i + 2]);
      const Quat iq = Quat(m_->body_iquat[4 * i], m_->body_iquat[4 * i + 1],
                           m_->body_iquat[4 * i + 2], m_->body_iquat[4 * i + 3])
                          .normalized();
      const Mat3 R = iq.toRotationMatrix();
      const Vec3 d(m_->body_inertia[3 * i], m_->body_inertia[3 * i + 1],
                   m_->body_inertia[3 * i + 2]);
      body.inertia = R * d.asDiagonal() * R.transpose();
      body.inertia = 0.5 * (body.inertia + body.inertia.transpose());
      body.pose0 = world_[i];
      model.bodies.push_back(body);
      const int rb = static_cast<int>(model.bodies.size()) - 1;
      report_->body_of_mj[i] = rb;

      if (nj == 0) {
        Joint j;
        j.name = body.name + "/weld";
        j.type = JointType::kFixed;
        j.parent = prev;
        j.child = rb;
        j.parent_from_joint = X_prev;
        model.joints.push_back(j);
        ++report_->fixed_joints;
        continue;
      }
      for (int k = 0; k < nj; ++k) {
        const int jid = adr + k;
        const int child = k + 1 < nj ? link_bodies[k] : rb;
        Joint j;
        j.name = Name(mjOBJ_JOINT, jid);
        if (j.name.empty()) j.name = body.name + "/joint" + std::to_string(k);
        j.parent = prev;
        j.child = child;
        const Pose X_J{
            Vec3(m_->jnt_pos[3 * jid], m_->jnt_pos[3 * jid + 1], m_->jnt_pos[3 * jid + 2]),
            Quat::Identity()};
        const int type = m_->jnt_type[jid];
        const int dof = m_->jnt_dofadr[jid];
        j.armature = m_->dof_armature[dof];  // MJCF gives one value per joint (all its dofs)
        if (type == mjJNT_FREE) {
          j.type = JointType::kFree;
          j.parent = -1;
        } else {
          j.parent_from_joint = X_prev * X_J;
          j.child_from_joint = X_J;
          j.damping = m_->dof_damping[dof];
          if (type == mjJNT_BALL) {
            j.type = JointType::kBall;
            if (m_->jnt_limited[jid]) {
              Warn("joint", j.name, -1, "ball joint limits are not carried (no ball-joint limits)");
            }
            if (m_->jnt_stiffness[jid] != 0) {
              Warn("joint", j.name, -1, "ball joint stiffness is not carried");
            }
          } else {
            j.type = type == mjJNT_HINGE ? JointType::kRevolute : JointType::kPrismatic;
            const Vec3 a(m_->jnt_axis[3 * jid], m_->jnt_axis[3 * jid + 1],
                         m_->jnt_axis[3 * jid + 2]);
            j.axis = a.normalized();
            const double q0 = m_->qpos0[m_->jnt_qposadr[jid]];
            if (m_->jnt_limited[jid]) {
              j.limited = true;
              j.lower = m_->jnt_range[2 * jid] - q0;
              j.upper = m_->jnt_range[2 * jid + 1] - q0;
            }
            j.spring_stiffness = m_->jnt_stiffness[jid];
            j.spring_reference = m_->qpos_spring[m_->jnt_qposadr[jid]] - q0;
          }
        }
        model.joints.push_back(j);
        joint_of_mj_[jid] = static_cast<int>(model.joints.size()) - 1;
        prev = child;
        X_prev = Pose{};
      }
    }
  }

  // A material per distinct (μ, frictionless): condim 1 geoms touch without friction.
  int MaterialFor(double mu, bool frictionless) {
    const std::pair<double, bool> key{mu, frictionless};
    auto it = material_of_mu_.find(key);
    if (it != material_of_mu_.end()) return it->second;
    Material mat;
    mat.name = "mjcf_mu_" + Num(mu) + (frictionless ? "_condim1" : "");
    mat.friction = frictionless ? 0.0 : mu;
    model_->materials.push_back(mat);
    const int id = static_cast<int>(model_->materials.size()) - 1;
    material_of_mu_[key] = id;
    mu_of_material_.push_back({mu, frictionless});
    material_ids_.push_back(id);
    return id;
  }

  // MuJoCo combines two geoms by the larger friction and the larger condim (equal priorities);
  // ContactLab's rule is the harmonic mean (0 if a side is 0). Pairs of different materials get
  // an override with MuJoCo's value (stiffness and dissipation as the combination rule gives
  // them); up to kMaxMaterialsForPairs materials, beyond that the difference is reported.
  void FrictionPairs() {
    constexpr size_t kMaxMaterialsForPairs = 16;
    Model& model = *model_;
    const size_t n = mu_of_material_.size();
    if (n > kMaxMaterialsForPairs) {
      report_->warnings.push_back(
          path_ + ": geom: " + std::to_string(n) +
          " distinct friction/condim combinations: pairs of different ones use ContactLab's "
          "harmonic-mean rule, not MuJoCo's maximum");
      return;
    }
    for (size_t a = 0; a < n; ++a) {
      for (size_t b = a + 1; b < n; ++b) {
        const auto [mu_a, fl_a] = mu_of_material_[a];
        const auto [mu_b, fl_b] = mu_of_material_[b];
        PairOverride o;
        o.material_a = material_ids_[a];
        o.material_b = material_ids_[b];
        const ContactValues c =
            CombineContactValues(model.materials[o.material_a], model.materials[o.material_b]);
        o.values.stiffness = c.stiffness;
        o.values.dissipation_time = c.dissipation_time;
        o.values.hunt_crossley_dissipation = c.hunt_crossley_dissipation;
        // The larger condim: frictionless only when both sides are condim 1; the friction is
        // the larger μ (a condim-1 side's μ counts too).
        o.values.friction = fl_a && fl_b ? 0.0 : std::max(mu_a, mu_b);
        model.pair_overrides.push_back(o);
      }
    }
  }

  void Geoms() {
    Model& model = *model_;
    std::vector<int> dropped_of_type(mjNGEOMTYPES, 0);
    for (int g = 0; g < m_->ngeom; ++g) {
      const int b = m_->geom_bodyid[g];
      const Pose X_BG = MakePose(m_->geom_pos + 3 * g, m_->geom_quat + 4 * g);
      Geom geom;
      geom.name = Name(mjOBJ_GEOM, g);
      // Unnamed geoms are named by their MuJoCo index and body in messages.
      const std::string label =
          geom.name.empty() ? "#" + std::to_string(g) + " (body '" + Name(mjOBJ_BODY, b) + "')"
                            : geom.name;
      const mjtNum* size = m_->geom_size + 3 * g;
      const int type = m_->geom_type[g];
      switch (type) {
        case mjGEOM_PLANE:
          geom.shape.type = ShapeType::kHalfSpace;
          break;
        case mjGEOM_SPHERE:
          geom.shape.type = ShapeType::kSphere;
          geom.shape.radius = size[0];
          break;
        case mjGEOM_CAPSULE:
          geom.shape.type = ShapeType::kCapsule;
          geom.shape.radius = size[0];
          geom.shape.half_length = size[1];
          break;
        case mjGEOM_CYLINDER:
          geom.shape.type = ShapeType::kCylinder;
          geom.shape.radius = size[0];
          geom.shape.half_length = size[1];
          break;
        case mjGEOM_BOX:
          geom.shape.type = ShapeType::kBox;
          geom.shape.half_extents = Vec3(size[0], size[1], size[2]);
          break;
        case mjGEOM_MESH: {
          const int mesh = m_->geom_dataid[g];
          std::vector<Vec3> points;
          for (int k = 0; k < m_->mesh_vertnum[mesh]; ++k) {
            const float* v = m_->mesh_vert + 3 * (m_->mesh_vertadr[mesh] + k);
            points.emplace_back(v[0], v[1], v[2]);
          }
          try {
            auto hull = MakeConvexHull(points);
            hull->source = path_ + " mesh '" + Name(mjOBJ_MESH, mesh) + "'";
            geom.shape.type = ShapeType::kConvexMesh;
            geom.shape.hull = hull;
          } catch (const std::exception& e) {
            Warn("geom", label, -1, std::string("mesh left out: ") + e.what());
            ++report_->dropped_geoms;
            continue;
          }
          break;
        }
        default: {
          const char* what = type == mjGEOM_ELLIPSOID ? "ellipsoid" : "hfield";
          Warn("geom", label, -1,
               std::string(what) + " geometry has no ContactLab shape: left out");
          ++report_->dropped_geoms;
          continue;
        }
      }
      if (static_[b]) {
        geom.body = -1;
        geom.local = world_[b] * X_BG;
      } else {
        geom.body = report_->body_of_mj[b];
        geom.local = X_BG;
      }
      geom.material = MaterialFor(m_->geom_friction[3 * g], m_->geom_condim[g] == 1);
      if (m_->geom_condim[g] > 3) ++torsional_;
      geom.color = Vec4(m_->geom_rgba[4 * g], m_->geom_rgba[4 * g + 1], m_->geom_rgba[4 * g + 2],
                        m_->geom_rgba[4 * g + 3]);
      geom.collide = m_->geom_contype[g] != 0 || m_->geom_conaffinity[g] != 0;
      geom_of_mj_.push_back({g, static_cast<int>(model.geoms.size())});
      model.geoms.push_back(geom);
    }
    // Colliding geom pairs that MuJoCo's contype/conaffinity bits filter: no counterpart.
    long filtered = 0;
    for (size_t a = 0; a < geom_of_mj_.size(); ++a) {
      const int ga = geom_of_mj_[a].first;
      if (!model.geoms[geom_of_mj_[a].second].collide) continue;
      for (size_t b = a + 1; b < geom_of_mj_.size(); ++b) {
        const int gb = geom_of_mj_[b].first;
        if (!model.geoms[geom_of_mj_[b].second].collide) continue;
        if (m_->geom_bodyid[ga] == m_->geom_bodyid[gb]) continue;
        if (!(m_->geom_contype[ga] & m_->geom_conaffinity[gb]) &&
            !(m_->geom_contype[gb] & m_->geom_conaffinity[ga])) {
          ++filtered;
        }
      }
    }
    if (filtered > 0) {
      report_->warnings.push_back(
          path_ + ": geom: " + std::to_string(filtered) +
          " geom pairs filtered by contype/conaffinity bits collide in ContactLab (only "
          "contype = conaffinity = 0 is carried, as collide: false)");
    }
  }

  void Exclusions() {
    Model& model = *model_;
    auto cl = [this](int mj_body) { return static_[mj_body] ? -1 : report_->body_of_mj[mj_body]; };
    for (int e = 0; e < m_->nexclude; ++e) {
      const int sig = m_->exclude_signature[e];
      // (body1 + 1) << 16 + body2 + 1
      model.excluded_body_pairs.emplace_back(cl((sig >> 16) - 1), cl((sig & 0xFFFF) - 1));
    }
    // MuJoCo's filters: bodies welded together never touch, nor (unless the parent filter is
    // disabled) a weld group and its parent's group, when neither is the world.
    const bool filter_parent = !(m_->opt.disableflags & mjDSBL_FILTERPARENT);
    std::vector<int> with_geoms;
    for (int i = 1; i < m_->nbody; ++i) {
      if (!static_[i] && m_->body_geomnum[i] > 0) with_geoms.push_back(i);
    }
    for (size_t x = 0; x < with_geoms.size(); ++x) {
      for (size_t y = x + 1; y < with_geoms.size(); ++y) {
        const int b1 = with_geoms[x], b2 = with_geoms[y];
        const int w1 = m_->body_weldid[b1], w2 = m_->body_weldid[b2];
        const int p1 = m_->body_weldid[m_->body_parentid[w1]];
        const int p2 = m_->body_weldid[m_->body_parentid[w2]];
        if (w1 == w2 || (filter_parent && w1 != 0 && w2 != 0 && (w1 == p2 || w2 == p1))) {
          model.excluded_body_pairs.emplace_back(cl(b1), cl(b2));
        }
      }
    }
  }

  void Actuators() {
    Model& model = *model_;
    int motors = 0;
    for (int a = 0; a < m_->nu; ++a) {
      const std::string name = Name(mjOBJ_ACTUATOR, a);
      if (m_->actuator_trntype[a] != mjTRN_JOINT) {
        Warn("actuator", name, a, "only actuators on joints are carried: left out");
        continue;
      }
      const int ji = joint_of_mj_[m_->actuator_trnid[2 * a]];
      if (ji < 0) continue;
      Joint& j = model.joints[ji];
      if (j.type != JointType::kRevolute && j.type != JointType::kPrismatic) {
        Warn("actuator", name, a, "actuators on free and ball joints are not carried: left out");
        continue;
      }
      if (m_->actuator_dyntype[a] != mjDYN_NONE) {
        Warn("actuator", name, a, "activation dynamics are not carried: left out");
        continue;
      }
      const double gear = m_->actuator_gear[6 * a];
      const mjtNum* bias = m_->actuator_biasprm + mjNBIAS * a;
      if (m_->actuator_biastype[a] == mjBIAS_NONE) {
        ++motors;  // force = gain · ctrl: no control input, no force
        continue;
      }
      const double kp = -gear * gear * bias[1];
      const double kd = -gear * gear * bias[2];
      if (kp < 0 || kd < 0 || (kp == 0 && kd == 0)) {
        Warn("actuator", name, a, "bias is not a PD law (kp, kd >= 0): left out");
        continue;
      }
      if (j.actuator.enabled) {
        Warn("actuator", name, a, "a second actuator on one joint: left out");
        continue;
      }
      const double q0 = m_->qpos0[m_->jnt_qposadr[m_->actuator_trnid[2 * a]]];
      j.actuator.enabled = true;
      j.actuator.kp = kp;
      j.actuator.kd = kd;
      // Joint torque with ctrl = 0: gear b0 + gear² b1 (q + qpos0) + gear² b2 v.
      j.actuator.setpoint.value = kp > 0 ? (gear * bias[0] - kp * q0) / kp : 0;
      if (m_->actuator_forcelimited[a]) {
        const double lo = m_->actuator_forcerange[2 * a], hi = m_->actuator_forcerange[2 * a + 1];
        j.actuator.effort_limit = std::max(std::abs(lo), std::abs(hi)) * std::abs(gear);
        if (lo != -hi) Warn("actuator", name, a, "asymmetric forcerange: the larger side is used");
      }
    }
    if (motors > 0) {
      report_->warnings.push_back(
          path_ + ": actuator: " + std::to_string(motors) +
          " motor (effort) actuators have no control input in ContactLab and exert no force: "
          "left out");
    }
  }

  void Unsupported() {
    if (torsional_ > 0) {
      report_->warnings.push_back(path_ + ": geom: " + std::to_string(torsional_) +
                                  " geoms with condim 4 or 6: torsional and rolling friction are "
                                  "not carried (sliding friction is)");
    }
    for (int t = 0; t < m_->ntendon; ++t) {
      Warn(m_->tendon_num[t] > 0 && m_->wrap_type[m_->tendon_adr[t]] == mjWRAP_JOINT ? "fixed"
                                                                                     : "spatial",
           Name(mjOBJ_TENDON, t), t, "tendons are not carried: left out");
    }
    for (int p = 0; p < m_->npair; ++p) {
      Warn("pair", Name(mjOBJ_PAIR, p), p,
           "explicit contact pairs are not carried (the geoms collide by the default rules)");
    }
  }

  // <equality>: connect, weld and joint become Model::equalities (MuJoCo 2.2.2's eq_data,
  // mjNEQDATA = 11, as engine_core_constraint.c uses it):
  //   connect: data[0..2] the anchor in body1, data[3..5] the same point in body2 (the compiler
  //            computes it from qpos0): p1 = X_W1 data[0..2] coincides with p2 = X_W2 data[3..5];
  //   weld:    data[0..2] the anchor in body2, data[3..5] and data[6..9] the relative pose
  //            (relpose, from qpos0 unless given) on body1, data[10] torquescale: the position
  //            error X_W1 data[3..5] − X_W2 data[0..2] and the rotation error vec(q2⁻¹ q1 relquat),
  //            i.e. F_A = (data[3..5], relquat) on body1 coincides with F_B = (data[0..2], 1) on
  //            body2;
  //   joint:   (q1 − qpos0_1) = c0 + c1 (q2 − qpos0_2) + c2 (...)² + ... (polycoef data[0..4]);
  //            our 1-dof q is q_mj − qpos0, so offset = c0 and gear = c1; nonzero c2..c4 are
  //            reported and left out (linear couplings only).
  // MuJoCo's constraints are soft (solref/solimp: a reference acceleration scaled by the
  // constraint's effective mass), which has no per-constraint k [N/m] equivalent: they come
  // across near-rigid (k = inf), as Drake's SAP treats holonomic constraints, and each equality
  // whose solref or solimp differs from MuJoCo's defaults is reported. A weld's torquescale other
  // than 1 is reported (the rotation rows are not rescaled). eq_active sets Equality::active.
  // Tendon (and distance) equalities are reported by element and line, and left out.
  void Equalities() {
    static const char* kEqTags[] = {"connect", "weld", "joint", "tendon", "distance"};
    for (int e = 0; e < m_->neq; ++e) {
      const int type = m_->eq_type[e];
      const std::string tag = type >= 0 && type < 5 ? kEqTags[type] : "equality";
      const std::string name = Name(mjOBJ_EQUALITY, e);
      // Unnamed elements are found by their order among the equalities of the same tag.
      int nth = 0;
      for (int k = 0; k < e; ++k) nth += m_->eq_type[k] == type && Name(mjOBJ_EQUALITY, k).empty();
      const int warn_nth = name.empty() ? nth : -1;
      if (type != mjEQ_CONNECT && type != mjEQ_WELD && type != mjEQ_JOINT) {
        Warn(tag, name, warn_nth, "tendon and distance equality constraints are not carried: "
                                  "left out");
        continue;
      }
      const mjtNum* data = m_->eq_data + mjNEQDATA * e;
      Equality q;
      q.name = name.empty() ? tag + std::to_string(e) : name;
      q.active = m_->eq_active[e] != 0;
      const int o1 = m_->eq_obj1id[e], o2 = m_->eq_obj2id[e];
      if (type == mjEQ_JOINT) {
        q.type = EqualityType::kJointCoupling;
        q.joint_a = o1 >= 0 ? joint_of_mj_[o1] : -1;
        q.joint_b = o2 >= 0 ? joint_of_mj_[o2] : -1;
        if (q.joint_a < 0 || (o2 >= 0 && q.joint_b < 0)) {
          Warn(tag, name, warn_nth, "its joints were not carried: left out");
          continue;
        }
        q.offset = data[0];
        q.gear = o2 >= 0 ? data[1] : 0.0;
        if (data[2] != 0 || data[3] != 0 || data[4] != 0) {
          Warn(tag, name, warn_nth,
               "polycoef terms of degree 2 and higher are not carried (linear coupling "
               "q1 = c0 + c1 q2 only)");
        }
      } else {
        q.type = type == mjEQ_WELD ? EqualityType::kWeld : EqualityType::kConnect;
        // A static MuJoCo body is part of the world: its anchor goes to world coordinates.
        auto side = [&](int mj_body, const Pose& anchor, int* body, Pose* out) {
          if (mj_body < 0 || static_[mj_body]) {
            *body = -1;
            *out = mj_body < 0 ? anchor : world_[mj_body] * anchor;
          } else {
            *body = report_->body_of_mj[mj_body];
            *out = anchor;
          }
        };
        const int b2 = o2 < 0 ? 0 : o2;  // body2 omitted: the world
        if (type == mjEQ_CONNECT) {
          side(o1, Pose{Vec3(data[0], data[1], data[2])}, &q.body_a, &q.a_from_anchor);
          side(b2, Pose{Vec3(data[3], data[4], data[5])}, &q.body_b, &q.b_from_anchor);
        } else {
          side(o1, Pose{Vec3(data[3], data[4], data[5]),
                        Quat(data[6], data[7], data[8], data[9]).normalized()},
               &q.body_a, &q.a_from_anchor);
          side(b2, Pose{Vec3(data[0], data[1], data[2])}, &q.body_b, &q.b_from_anchor);
          if (data[10] != 1) {
            Warn(tag, name, warn_nth, "torquescale " + Num(data[10]) +
                                          " is not carried (rotation rows unscaled)");
          }
        }
        if (q.body_a == q.body_b) {
          Warn(tag, name, warn_nth, "both bodies are static (part of the world): left out");
          continue;
        }
      }
      const mjtNum* ref = m_->eq_solref + mjNREF * e;
      const mjtNum* imp = m_->eq_solimp + mjNIMP * e;
      if (ref[0] != 0.02 || ref[1] != 1 || imp[0] != 0.9 || imp[1] != 0.95 || imp[2] != 0.001) {
        Warn(tag, name, warn_nth,
             "solref/solimp (MuJoCo's soft constraint) not carried: near-rigid");
      }
      model_->equalities.push_back(q);
      ++report_->equalities;
    }
  }

  void InitialState() {
    Model& model = *model_;
    const mjtNum* qpos = m_->nkey > 0 ? m_->key_qpos : m_->qpos0;
    const mjtNum* qvel = m_->nkey > 0 ? m_->key_qvel : nullptr;
    for (int jid = 0; jid < m_->njnt; ++jid) {
      const int ji = joint_of_mj_[jid];
      if (ji < 0) continue;
      const Joint& j = model.joints[ji];
      const int qa = m_->jnt_qposadr[jid], da = m_->jnt_dofadr[jid];
      switch (j.type) {
        case JointType::kFree: {
          const Quat R = Quat(qpos[qa + 3], qpos[qa + 4], qpos[qa + 5], qpos[qa + 6]).normalized();
          model.q_default.segment<3>(j.q_start) = Vec3(qpos[qa], qpos[qa + 1], qpos[qa + 2]);
          model.q_default.segment<4>(j.q_start + 3) << R.w(), R.x(), R.y(), R.z();
          if (qvel) {
            model.v_default.segment<3>(j.v_start) = Vec3(qvel[da], qvel[da + 1], qvel[da + 2]);
            model.v_default.segment<3>(j.v_start + 3) =
                R * Vec3(qvel[da + 3], qvel[da + 4], qvel[da + 5]);
          }
          model.bodies[j.child].pose0 = Pose{Vec3(qpos[qa], qpos[qa + 1], qpos[qa + 2]), R};
          break;
        }
        case JointType::kBall: {
          const Quat R = Quat(qpos[qa], qpos[qa + 1], qpos[qa + 2], qpos[qa + 3]).normalized();
          model.q_default.segment<4>(j.q_start) << R.w(), R.x(), R.y(), R.z();
          if (qvel) {
            model.v_default.segment<3>(j.v_start) = R * Vec3(qvel[da], qvel[da + 1], qvel[da + 2]);
          }
          break;
        }
        default:
          model.q_default[j.q_start] = qpos[qa] - m_->qpos0[qa];
          if (qvel) model.v_default[j.v_start] = qvel[da];
      }
    }
  }

  std::string path_;
  const mjModel* m_;
  MjcfImportReport* report_;
  std::string text_;
  Model* model_ = nullptr;
  std::vector<Pose> world_;
  std::vector<bool> static_;
  std::vector<int> joint_of_mj_;
  std::vector<std::pair<int, int>> geom_of_mj_;  // (MuJoCo geom, ContactLab geom)
  std::map<std::pair<double, bool>, int> material_of_mu_;
  std::vector<std::pair<double, bool>> mu_of_material_;  // per created material: (μ, condim 1)
  std::vector<int> material_ids_;                        // and its index
  int torsional_ = 0;  // geoms with condim 4 or 6
};

}  // namespace

Scene ImportMjcf(const std::string& path, MjcfImportReport* report) {
  MjcfImportReport local;
  if (!report) report = &local;
  *report = MjcfImportReport{};
  {
    std::ifstream probe(path);
    if (!probe) throw SceneError(path + ": cannot open the file");
  }
  mju_user_error = ThrowOnMujocoError;
  mju_user_warning = IgnoreMujocoWarning;
  char error[2048] = "";
  mjModel* m = nullptr;
  try {
    m = mj_loadXML(path.c_str(), nullptr, error, sizeof(error));
  } catch (const std::exception& e) {
    throw SceneError(FormatMujocoError(path, e.what()));
  }
  if (!m) throw SceneError(FormatMujocoError(path, error));
  try {
    Scene scene = Converter(path, m, report).Run();
    mj_deleteModel(m);
    return scene;
  } catch (...) {
    mj_deleteModel(m);
    throw;
  }
}

}  // namespace contactlab
