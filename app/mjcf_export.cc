#include "app/mjcf_export.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace contactlab {
namespace {

// Shortest decimal text that reads back as the same double.
std::string Num(double x) {
  if (x == 0) return "0";  // also turns -0 into 0
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof(buf), x);
  return std::string(buf, r.ptr);
}

std::string Vec(const Vec3& v) { return Num(v.x()) + " " + Num(v.y()) + " " + Num(v.z()); }

// MJCF quaternions are "w x y z".
std::string QuatText(const Quat& q) {
  const Quat n = q.normalized();
  return Num(n.w()) + " " + Num(n.x()) + " " + Num(n.y()) + " " + Num(n.z());
}

std::string Escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

// pos/quat attributes of a pose, omitting identity parts.
std::string PoseAttributes(const Pose& X) {
  std::string s;
  if (!X.p.isZero(0)) s += " pos=\"" + Vec(X.p) + "\"";
  const Quat q = X.q.normalized();
  if (!(q.w() == 1 && q.vec().isZero(0))) s += " quat=\"" + QuatText(q) + "\"";
  return s;
}

// MuJoCo 2.2.2's XML reader rejects keyframe attributes with more numbers than this (mesh
// vertex lists are read without that limit).
constexpr size_t kMaxAttributeNumbers = 1000;

bool SameMu(double a, double b) { return std::abs(a - b) <= 1e-12 * std::max(1.0, std::abs(b)); }

class Exporter {
 public:
  Exporter(const Scene& scene, const MjcfExportOptions& options)
      : scene_(scene), model_(scene.model), options_(options) {}

  MjcfExport Run() {
    const Model& m = model_;
    bool finalized = m.q_default.size() == m.nq && m.v_default.size() == m.nv;
    for (const Joint& j : m.joints) {
      if (j.type != JointType::kFixed && (j.q_start < 0 || j.v_start < 0)) finalized = false;
    }
    if (!finalized) throw std::invalid_argument("ExportMjcf: the scene's model is not finalized");
    const int nb = static_cast<int>(m.bodies.size());
    out_.body_names.assign(nb, "");
    children_.assign(nb, {});
    geoms_of_.assign(nb, {});
    for (int g = 0; g < static_cast<int>(m.geoms.size()); ++g) {
      if (m.geoms[g].body >= 0) geoms_of_[m.geoms[g].body].push_back(g);
    }
    NameEverything();

    std::vector<int> roots;
    for (int b = 0; b < nb; ++b) {
      const Body& body = m.bodies[b];
      if (body.joint < 0) continue;  // static or prescribed: handled separately
      const Joint& j = m.joints[body.joint];
      if (j.parent >= 0) {
        children_[j.parent].push_back(b);
      } else {
        roots.push_back(b);
      }
    }

    Notes();
    std::ostringstream body_xml;
    // Static geoms, in world coordinates: world geoms (body -1), then static bodies' geoms.
    for (int g = 0; g < static_cast<int>(m.geoms.size()); ++g) {
      if (m.geoms[g].body < 0) WriteGeom(body_xml, g, m.geoms[g].local, "    ");
    }
    for (int b = 0; b < nb; ++b) {
      const Body& body = m.bodies[b];
      if (body.joint >= 0 || body.prescribed) continue;
      for (int g : geoms_of_[b]) WriteGeom(body_xml, g, body.pose0 * m.geoms[g].local, "    ");
    }
    // Prescribed bodies: mocap bodies at their t = 0 pose.
    for (int b = 0; b < nb; ++b) {
      const Body& body = m.bodies[b];
      if (!body.prescribed) continue;
      out_.body_names[b] = body_name_[b];
      out_.mocap_bodies.push_back(b);
      body_xml << "    <body name=\"" << Escape(body_name_[b]) << "\" mocap=\"true\""
               << PoseAttributes(body.pose0) << ">\n";
      for (int g : geoms_of_[b]) WriteGeom(body_xml, g, m.geoms[g].local, "      ");
      body_xml << "    </body>\n";
    }
    for (int b : roots) WriteBody(body_xml, b, "    ");

    EstimateSizes();
    std::ostringstream xml;
    xml << "<mujoco model=\"" << Escape(ModelName()) << "\">\n";
    xml << "  <!-- Exported by ContactLab (app/mjcf_export.h). -->\n";
    xml << "  <compiler angle=\"radian\" inertiafromgeom=\"false\"/>\n";
    xml << "  <option timestep=\"" << Num(scene_.settings.time_step) << "\" gravity=\""
        << Vec(scene_.settings.gravity)
        << "\" integrator=\"Euler\" cone=\"elliptic\" solver=\"Newton\"";
    if (options_.iterations > 0) xml << " iterations=\"" << options_.iterations << "\"";
    if (options_.tolerance > 0) xml << " tolerance=\"" << Num(options_.tolerance) << "\"";
    xml << "/>\n";
    xml << "  <size nconmax=\"" << out_.nconmax << "\" njmax=\"" << out_.njmax << "\"/>\n";
    if (!mesh_xml_.str().empty()) xml << "  <asset>\n" << mesh_xml_.str() << "  </asset>\n";
    xml << "  <worldbody>\n" << body_xml.str() << "  </worldbody>\n";
    WriteExclusions(xml);
    WriteContactOverrides(xml);
    WriteActuators(xml);
    WriteKeyframe(xml);
    xml << "</mujoco>\n";
    out_.xml = xml.str();
    return std::move(out_);
  }

 private:
  std::string ModelName() const {
    std::string name = scene_.path;
    const size_t slash = name.find_last_of('/');
    if (slash != std::string::npos) name = name.substr(slash + 1);
    return name.empty() ? "contactlab" : name;
  }

  // MJCF names must be unique per element type; "world" is MuJoCo's world body.
  void NameEverything() {
    const Model& m = model_;
    std::set<std::string> used{"world"};
    auto unique = [&used](std::string base, const std::string& fallback) {
      if (base.empty()) base = fallback;
      std::string name = base;
      for (int k = 1; used.count(name); ++k) name = base + "_" + std::to_string(k);
      used.insert(name);
      return name;
    };
    for (const Body& b : m.bodies) body_name_.push_back(unique(b.name, "body"));
    used = {};
    for (size_t g = 0; g < m.geoms.size(); ++g) {
      geom_name_.push_back(unique(m.geoms[g].name, "geom" + std::to_string(g)));
    }
    used = {};
    for (const Joint& j : m.joints) joint_name_.push_back(unique(j.name, "joint"));
  }

  void Notes() {
    const Model& m = model_;
    auto note = [this](const std::string& s) { out_.notes.push_back(s); };
    note("contact stiffness and dissipation are not exported: MuJoCo's default solref/solimp "
         "are used");
    if (scene_.settings.integrator != Integrator::kSymplecticEuler) {
      note(std::string("integrator ") + IntegratorName(scene_.settings.integrator) +
           " exported as MuJoCo's semi-implicit Euler");
    }
    int compliant = 0;
    for (int g = 0; g < static_cast<int>(m.geoms.size()); ++g) {
      if (m.geoms[g].collide && m.GeomHydroelastic(g).compliant()) ++compliant;
    }
    if (compliant > 0) {
      note(std::to_string(compliant) +
           " compliant (hydroelastic) geometries exported as rigid geometry with point contact: "
           "MuJoCo has no pressure-field contact");
    }
    for (const Body& b : m.bodies) {
      if (!b.prescribed) continue;
      if (!b.motion.surface_velocity.isZero(0)) {
        note("body " + b.name + ": surface_velocity (conveyor) is not exported");
      }
      note("body " + b.name + ": prescribed motion is a mocap body (MuJoCo sees its pose, not "
           "its velocity)");
    }
  }

  std::string JointAttributes(const Joint& j) const {
    std::ostringstream s;
    const Vec3 axis_C = j.child_from_joint.q * j.axis;
    s << " type=\"" << (j.type == JointType::kRevolute ? "hinge" : "slide") << "\"";
    if (!j.child_from_joint.p.isZero(0)) s << " pos=\"" << Vec(j.child_from_joint.p) << "\"";
    s << " axis=\"" << Vec(axis_C.normalized()) << "\"";
    if (j.spring_stiffness > 0) {
      s << " stiffness=\"" << Num(j.spring_stiffness) << "\" springref=\""
        << Num(j.spring_reference) << "\"";
    }
    if (j.damping > 0) s << " damping=\"" << Num(j.damping) << "\"";
    if (j.armature > 0) s << " armature=\"" << Num(j.armature) << "\"";
    if (j.limited && (std::isfinite(j.lower) || std::isfinite(j.upper))) {
      // MuJoCo ranges are finite; an open side gets a bound far outside any motion.
      const double lo = std::isfinite(j.lower) ? j.lower : -1e10;
      const double hi = std::isfinite(j.upper) ? j.upper : 1e10;
      s << " limited=\"true\" range=\"" << Num(lo) << " " << Num(hi) << "\"";
    }
    return s.str();
  }

  void WriteBody(std::ostream& xml, int b, const std::string& indent) {
    const Model& m = model_;
    const Body& body = m.bodies[b];
    const Joint& j = m.joints[body.joint];
    out_.body_names[b] = body_name_[b];
    // Pose relative to the parent body frame with zero joint coordinates.
    const Pose X_PB =
        j.type == JointType::kFree ? body.pose0
                                   : j.parent_from_joint * j.child_from_joint.Inverse();
    xml << indent << "<body name=\"" << Escape(body_name_[b]) << "\"" << PoseAttributes(X_PB)
        << ">\n";
    const std::string in2 = indent + "  ";
    const Mat3& I = body.inertia;
    xml << in2 << "<inertial pos=\"" << Vec(body.com) << "\" mass=\"" << Num(body.mass)
        << "\" fullinertia=\"" << Num(I(0, 0)) << " " << Num(I(1, 1)) << " " << Num(I(2, 2)) << " "
        << Num(I(0, 1)) << " " << Num(I(0, 2)) << " " << Num(I(1, 2)) << "\"/>\n";
    switch (j.type) {
      case JointType::kFree:
        if (j.armature > 0) {  // <freejoint> takes no armature
          xml << in2 << "<joint name=\"" << Escape(joint_name_[body.joint])
              << "\" type=\"free\" armature=\"" << Num(j.armature) << "\"/>\n";
        } else {
          xml << in2 << "<freejoint name=\"" << Escape(joint_name_[body.joint]) << "\"/>\n";
        }
        break;
      case JointType::kRevolute:
      case JointType::kPrismatic:
        xml << in2 << "<joint name=\"" << Escape(joint_name_[body.joint]) << "\""
            << JointAttributes(j) << "/>\n";
        break;
      case JointType::kBall:
        // MuJoCo's ball joint turns about pos (child frame); no axis, limits or springs.
        xml << in2 << "<joint name=\"" << Escape(joint_name_[body.joint]) << "\" type=\"ball\"";
        if (!j.child_from_joint.p.isZero(0)) xml << " pos=\"" << Vec(j.child_from_joint.p) << "\"";
        if (j.damping > 0) xml << " damping=\"" << Num(j.damping) << "\"";
        if (j.armature > 0) xml << " armature=\"" << Num(j.armature) << "\"";
        xml << "/>\n";
        break;
      case JointType::kFixed:
        break;
    }
    if (j.type != JointType::kFixed) {
      out_.joint_order.push_back(body.joint);
      out_.nq += JointNq(j.type);
      out_.nv += JointNv(j.type);
      if (j.actuator.enabled) out_.actuated_joints.push_back(body.joint);
    }
    for (int g : geoms_of_[b]) WriteGeom(xml, g, m.geoms[g].local, in2);
    for (int c : children_[b]) WriteBody(xml, c, in2);
    xml << indent << "</body>\n";
  }

  void WriteGeom(std::ostream& xml, int g, const Pose& X, const std::string& indent) {
    const Geom& geom = model_.geoms[g];
    const Shape& s = geom.shape;
    std::string type, size;
    switch (s.type) {
      case ShapeType::kHalfSpace:
        // Infinite for collision; the size only sets how MuJoCo draws it.
        type = "plane";
        size = "10 10 0.1";
        break;
      case ShapeType::kSphere:
        type = "sphere";
        size = Num(s.radius);
        break;
      case ShapeType::kBox:
        type = "box";
        size = Vec(s.half_extents);
        break;
      case ShapeType::kCapsule:
        type = "capsule";
        size = Num(s.radius) + " " + Num(s.half_length);
        break;
      case ShapeType::kCylinder:
        type = "cylinder";
        size = Num(s.radius) + " " + Num(s.half_length);
        break;
      case ShapeType::kConvexMesh: {
        type = "mesh";
        const std::string mesh = "mesh_" + geom_name_[g];
        mesh_xml_ << "    <mesh name=\"" << Escape(mesh) << "\" vertex=\"";
        if (s.hull) {
          for (size_t i = 0; i < s.hull->vertices.size(); ++i) {
            mesh_xml_ << (i ? " " : "") << Vec(s.hull->vertices[i]);
          }
        }
        mesh_xml_ << "\"/>\n";

        xml << indent << "<geom name=\"" << Escape(geom_name_[g]) << "\" type=\"mesh\" mesh=\""
            << Escape(mesh) << "\"" << PoseAttributes(X) << GeomCommon(g) << "/>\n";
        return;
      }
    }
    xml << indent << "<geom name=\"" << Escape(geom_name_[g]) << "\" type=\"" << type
        << "\" size=\"" << size << "\"" << PoseAttributes(X) << GeomCommon(g) << "/>\n";
  }

  std::string GeomCommon(int g) const {
    const Geom& geom = model_.geoms[g];
    std::string s = " condim=\"3\" friction=\"" + MjcfFriction(GeomMu(g)) + "\"";
    if (!geom.collide) s += " contype=\"0\" conaffinity=\"0\"";
    const Vec4& c = geom.color;
    s += " rgba=\"" + Num(c[0]) + " " + Num(c[1]) + " " + Num(c[2]) + " " + Num(c[3]) + "\"";
    return s;
  }

  double GeomMu(int g) const { return model_.materials[model_.geoms[g].material].friction; }

  // Bodies as MuJoCo sees them for collision: static bodies are all the world (-1).
  int MjBody(int b) const {
    const Body& body = model_.bodies[b];
    return (body.joint < 0 && !body.prescribed) ? -1 : b;
  }
  std::string MjBodyName(int mb) const { return mb < 0 ? "world" : body_name_[mb]; }

  // Model::excluded_body_pairs (imported exclusions) as <exclude>; pairs with a static body
  // (MuJoCo's world) or between two static bodies need none or cannot be named.
  void WriteExclusions(std::ostream& xml) {
    std::set<std::pair<int, int>> written;
    std::ostringstream rows;
    const int nb = static_cast<int>(model_.bodies.size());
    for (const auto& [a, b] : model_.excluded_body_pairs) {
      if (a < 0 || b < 0 || a >= nb || b >= nb) continue;
      const int ma = MjBody(a), mb = MjBody(b);
      if (ma < 0 || mb < 0 || ma == mb) continue;
      if (!written.insert({std::min(ma, mb), std::max(ma, mb)}).second) continue;
      rows << "    <exclude body1=\"" << Escape(MjBodyName(ma)) << "\" body2=\""
           << Escape(MjBodyName(mb)) << "\"/>\n";
    }
    if (!written.empty()) xml << "  <contact>\n" << rows.str() << "  </contact>\n";
  }

  // Geom pairs whose ContactLab μ differs from MuJoCo's max rule, grouped by body pair.
  void WriteContactOverrides(std::ostream& xml) {
    const Model& m = model_;
    const int ng = static_cast<int>(m.geoms.size());
    // Material pairs that need an override; usually none, so the scan below is skipped.
    const int nm = static_cast<int>(m.materials.size());
    std::vector<std::vector<char>> differs(nm, std::vector<char>(nm, 0));
    bool any = false;
    for (int a = 0; a < nm; ++a) {
      for (int b = 0; b < nm; ++b) {
        // PairMaterial takes geoms; emulate it with the material rules directly.
        Material pair = CombineMaterials(m.materials[a], m.materials[b]);
        for (const PairOverride& o : m.pair_overrides) {
          if ((o.material_a == a && o.material_b == b) ||
              (o.material_a == b && o.material_b == a)) {
            pair = o.values;
          }
        }
        const double mj = std::max(m.materials[a].friction, m.materials[b].friction);
        if (!SameMu(pair.friction, mj)) differs[a][b] = 1, any = true;
      }
    }
    if (!any) return;
    std::vector<std::pair<int, int>> jointed;
    for (const Joint& j : m.joints) {
      if (j.parent >= 0) {
        jointed.emplace_back(std::min(j.parent, j.child), std::max(j.parent, j.child));
      }
    }
    // (mj body a, mj body b) -> geom pairs.
    std::map<std::pair<int, int>, std::vector<std::pair<int, int>>> by_bodies;
    for (int ga = 0; ga < ng; ++ga) {
      const Geom& a = m.geoms[ga];
      if (!a.collide || a.body < 0) continue;
      for (int gb = ga + 1; gb < ng; ++gb) {
        const Geom& b = m.geoms[gb];
        if (!b.collide || b.body < 0 || !differs[a.material][b.material]) continue;
        const int ba = MjBody(a.body), bb = MjBody(b.body);
        if (ba == bb) continue;
        if (m.BodyTree(a.body) < 0 && m.BodyTree(b.body) < 0) continue;
        const std::pair<int, int> key(std::min(ba, bb), std::max(ba, bb));
        if (std::find(jointed.begin(), jointed.end(), key) != jointed.end()) continue;
        by_bodies[key].emplace_back(ga, gb);
      }
    }
    if (by_bodies.empty()) return;
    // Every colliding geom pair between an excluded body pair must then be explicit.
    xml << "  <contact>\n";
    int pairs = 0;
    for (const auto& [key, unused] : by_bodies) {
      xml << "    <exclude body1=\"" << Escape(MjBodyName(key.first)) << "\" body2=\""
          << Escape(MjBodyName(key.second)) << "\"/>\n";
      for (int ga = 0; ga < ng; ++ga) {
        const Geom& a = m.geoms[ga];
        if (!a.collide || a.body < 0 || MjBody(a.body) != key.first) continue;
        for (int gb = 0; gb < ng; ++gb) {
          const Geom& b = m.geoms[gb];
          if (!b.collide || b.body < 0 || MjBody(b.body) != key.second) continue;
          const double mu = m.PairMaterial(ga, gb).friction;
          xml << "    <pair geom1=\"" << Escape(geom_name_[ga]) << "\" geom2=\""
              << Escape(geom_name_[gb]) << "\" condim=\"3\" friction=\"" << Num(mu) << " "
              << Num(mu) << " 0.005 0.0001 0.0001\"/>\n";
          ++pairs;
        }
      }
    }
    xml << "  </contact>\n";
    out_.notes.push_back("friction: " + std::to_string(pairs) +
                         " explicit contact pairs carry ContactLab's pair μ where MuJoCo's max "
                         "rule differs");
  }

  void WriteActuators(std::ostream& xml) {
    if (out_.actuated_joints.empty()) return;
    xml << "  <actuator>\n";
    for (int ji : out_.actuated_joints) {
      const Joint& j = model_.joints[ji];
      const Actuator& a = j.actuator;
      xml << "    <general name=\"" << Escape(joint_name_[ji]) << "\" joint=\""
          << Escape(joint_name_[ji]) << "\" gainprm=\"1\" biastype=\"affine\" biasprm=\"0 "
          << Num(-a.kp) << " " << Num(-a.kd) << "\" ctrllimited=\"false\"";
      if (std::isfinite(a.effort_limit)) {
        xml << " forcelimited=\"true\" forcerange=\"" << Num(-a.effort_limit) << " "
            << Num(a.effort_limit) << "\"";
      } else {
        xml << " forcelimited=\"false\"";
      }
      xml << "/>\n";
    }
    xml << "  </actuator>\n";
  }

  // The initial state in MuJoCo's layout, and as a keyframe when MuJoCo can read it back.
  void WriteKeyframe(std::ostream& xml) {
    const Model& m = model_;
    std::vector<double>& qpos = out_.initial_qpos;
    std::vector<double>& qvel = out_.initial_qvel;
    for (int ji : out_.joint_order) {
      const Joint& j = m.joints[ji];
      if (j.type == JointType::kFree) {
        const VecX q = m.q_default.segment(j.q_start, 7);
        for (int k = 0; k < 7; ++k) qpos.push_back(q[k]);
        const Quat R(q[3], q[4], q[5], q[6]);
        const Vec3 v = m.v_default.segment<3>(j.v_start);
        const Vec3 w_B = R.normalized().conjugate() * Vec3(m.v_default.segment<3>(j.v_start + 3));
        for (int k = 0; k < 3; ++k) qvel.push_back(v[k]);
        for (int k = 0; k < 3; ++k) qvel.push_back(w_B[k]);
      } else if (j.type == JointType::kBall) {
        // MuJoCo's ball quaternion rotates the child body frame B about the joint, in B's zero
        // pose axes: q_mj = R_CM R_FM R_CM⁻¹ (C child body, M child joint frame); its velocity
        // is the relative angular velocity in B's axes, R_BF ω_F = R_CM R_FMᵀ ω_F.
        const VecX q = m.q_default.segment(j.q_start, 4);
        const Quat R_FM = Quat(q[0], q[1], q[2], q[3]).normalized();
        const Quat R_CM = j.child_from_joint.q.normalized();
        const Quat q_mj = (R_CM * R_FM * R_CM.conjugate()).normalized();
        qpos.push_back(q_mj.w());
        qpos.push_back(q_mj.x());
        qpos.push_back(q_mj.y());
        qpos.push_back(q_mj.z());
        const Vec3 w_B = R_CM * (R_FM.conjugate() * Vec3(m.v_default.segment<3>(j.v_start)));
        for (int k = 0; k < 3; ++k) qvel.push_back(w_B[k]);
      } else {
        qpos.push_back(m.q_default[j.q_start]);
        qvel.push_back(m.v_default[j.v_start]);
      }
    }
    if (qpos.empty()) return;
    if (qpos.size() > kMaxAttributeNumbers || qvel.size() > kMaxAttributeNumbers) {
      out_.notes.push_back("no keyframe: MuJoCo 2.2.2 reads at most " +
                           std::to_string(kMaxAttributeNumbers) +
                           " numbers per attribute; the initial state is set through mjData");
      return;
    }
    auto join = [](const std::vector<double>& x) {
      std::string s;
      for (double v : x) s += (s.empty() ? "" : " ") + Num(v);
      return s;
    };
    xml << "  <keyframe>\n    <key name=\"initial\" qpos=\"" << join(qpos) << "\" qvel=\""
        << join(qvel) << "\"/>\n  </keyframe>\n";
  }

  void EstimateSizes() {
    int colliding = 0, limits = 0;
    for (const Geom& g : model_.geoms) {
      if (g.collide && g.body >= 0 && model_.BodyTree(g.body) >= 0) ++colliding;
    }
    for (const Joint& j : model_.joints) limits += j.limited ? 2 : 0;
    // A resting box touches its support at 4 points; neighbors add a few more.
    out_.nconmax = options_.nconmax > 0 ? options_.nconmax : 4 * colliding + 64;
    // Elliptic cones: 3 rows per contact (condim 3); limits one row each.
    out_.njmax = options_.njmax > 0 ? options_.njmax : 3 * out_.nconmax + limits + 64;
    const int cap = MjcfMaxConstraintRows(out_.nv);
    if (out_.njmax > cap) {
      out_.njmax = cap;
      out_.nconmax = std::min(out_.nconmax, (cap - limits) / 3);
      out_.notes.push_back("MuJoCo's constraint rows capped at njmax = " + std::to_string(cap) +
                           " (MuJoCo 2.2.2 cannot allocate mjData beyond 2 GB)");
    }
  }

  const Scene& scene_;
  const Model& model_;
  MjcfExportOptions options_;
  MjcfExport out_;
  std::vector<std::vector<int>> children_, geoms_of_;
  std::vector<std::string> body_name_, geom_name_, joint_name_;
  std::ostringstream mesh_xml_;
};

}  // namespace

std::string MjcfFriction(double mu) { return Num(mu) + " 0.005 0.0001"; }

int MjcfMaxConstraintRows(int nv) {
  // mjData of MuJoCo 2.2.2 holds, per constraint row, about 24 nv + 12 njmax + 150 bytes (J, Jᵀ
  // and their column indices, the dense AR and its indices, and per-row scalars); the buffer is
  // indexed with an int. Keep the rows' share below 1.75e9 bytes, 12 x² + (24 nv + 150) x =
  // 1.75e9 (at nv = 6000, 7500 rows load and 9000 do not).
  const double b = 24.0 * nv + 150;
  const double x = (-b + std::sqrt(b * b + 4 * 12 * 1.75e9)) / (2 * 12);
  return static_cast<int>(x);
}

MjcfExport ExportMjcf(const Scene& scene, const MjcfExportOptions& options) {
  return Exporter(scene, options).Run();
}

}  // namespace contactlab
