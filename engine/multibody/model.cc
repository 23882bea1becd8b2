// Model validation and tree construction, material combination and setpoint signals.
//
// Tree convention (see Model::Finalize): a kinematic tree starts at a body whose inbound joint has
// degrees of freedom and whose ancestors are all welded (fixed joints) to the world or to a static
// body. The tree holds that body and all of its descendants. Bodies whose motion depends on no
// coordinate at all (welded to the world or to a static body through fixed joints only) belong to
// no tree: Body::tree = -1, like static and prescribed bodies. Fixed joints have q_start = v_start
// = -1. Trees are numbered in increasing order of their root body index.
#include "engine/multibody/model.h"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <unordered_set>

#include "engine/multibody/material_table.h"

namespace contactlab {
namespace {

std::string BodyLabel(const Model& m, int b) {
  std::ostringstream s;
  s << "body '" << m.bodies[b].name << "' (index " << b << ")";
  return s.str();
}

std::string JointLabel(const Model& m, int j) {
  std::ostringstream s;
  s << "joint '" << m.joints[j].name << "' (index " << j << ")";
  return s.str();
}

std::string GeomLabel(const Model& m, int g) {
  std::ostringstream s;
  s << "geom '" << m.geoms[g].name << "' (index " << g << ")";
  return s.str();
}

[[noreturn]] void Fail(const std::string& what, const std::string& why) {
  throw std::invalid_argument(what + ": " + why);
}

bool IsFiniteVec(const Vec3& v) { return v.allFinite(); }

void ValidateSignal(const Signal& s, const std::string& what) {
  if (s.kind == Signal::Kind::kPiecewiseLinear) {
    for (size_t i = 1; i < s.points.size(); ++i) {
      if (!(s.points[i].first >= s.points[i - 1].first)) {
        Fail(what, "piecewise-linear setpoint times must be non-decreasing");
      }
    }
  }
  if (s.kind == Signal::Kind::kSquare && !(s.period > 0)) {
    Fail(what, "square-wave setpoint period must be positive");
  }
}

}  // namespace

const char* ShapeTypeName(ShapeType t) {
  switch (t) {
    case ShapeType::kHalfSpace:
      return "half_space";
    case ShapeType::kSphere:
      return "sphere";
    case ShapeType::kCapsule:
      return "capsule";
    case ShapeType::kBox:
      return "box";
    case ShapeType::kCylinder:
      return "cylinder";
    case ShapeType::kConvexMesh:
      return "mesh";  // the scene-file keyword
  }
  return "unknown";
}

const char* JointTypeName(JointType t) {
  switch (t) {
    case JointType::kFree:
      return "free";
    case JointType::kRevolute:
      return "revolute";
    case JointType::kPrismatic:
      return "prismatic";
    case JointType::kFixed:
      return "fixed";
    case JointType::kBall:
      return "ball";
  }
  return "unknown";
}

int JointNq(JointType t) {
  switch (t) {
    case JointType::kFree:
      return 7;
    case JointType::kRevolute:
      return 1;
    case JointType::kPrismatic:
      return 1;
    case JointType::kFixed:
      return 0;
    case JointType::kBall:
      return 4;
  }
  return 0;
}

int JointNv(JointType t) {
  switch (t) {
    case JointType::kFree:
      return 6;
    case JointType::kRevolute:
      return 1;
    case JointType::kPrismatic:
      return 1;
    case JointType::kFixed:
      return 0;
    case JointType::kBall:
      return 3;
  }
  return 0;
}

ContactValues CombineContactValues(const Material& a, const Material& b) {
  ContactValues c;
  const double ka = a.stiffness, kb = b.stiffness;
  if (std::isinf(ka) && std::isinf(kb)) {
    // Two rigid springs in series stay rigid; the compliance weights are equal in the limit.
    c.stiffness = ka;
    c.dissipation_time = 0.5 * (a.dissipation_time + b.dissipation_time);
    c.hunt_crossley_dissipation =
        0.5 * (a.hunt_crossley_dissipation + b.hunt_crossley_dissipation);
  } else if (std::isinf(ka)) {
    c.stiffness = kb;
    c.dissipation_time = b.dissipation_time;
    c.hunt_crossley_dissipation = b.hunt_crossley_dissipation;
  } else if (std::isinf(kb)) {
    c.stiffness = ka;
    c.dissipation_time = a.dissipation_time;
    c.hunt_crossley_dissipation = a.hunt_crossley_dissipation;
  } else {
    c.stiffness = ka * kb / (ka + kb);
    c.dissipation_time = (a.dissipation_time * kb + b.dissipation_time * ka) / (ka + kb);
    c.hunt_crossley_dissipation =
        (a.hunt_crossley_dissipation * kb + b.hunt_crossley_dissipation * ka) / (ka + kb);
  }
  const double mu_sum = a.friction + b.friction;
  c.friction = (a.friction == 0 || b.friction == 0 || mu_sum == 0)
                   ? 0.0
                   : 2.0 * a.friction * b.friction / mu_sum;
  return c;
}

Material CombineMaterials(const Material& a, const Material& b) {
  const ContactValues v = CombineContactValues(a, b);
  Material c;
  c.name = a.name + "+" + b.name;
  c.stiffness = v.stiffness;
  c.dissipation_time = v.dissipation_time;
  c.friction = v.friction;
  c.hunt_crossley_dissipation = v.hunt_crossley_dissipation;
  return c;
}

double Signal::Evaluate(double t) const {
  switch (kind) {
    case Kind::kConstant:
      return value;
    case Kind::kPiecewiseLinear: {
      if (points.empty()) return value;
      if (t <= points.front().first) return points.front().second;
      if (t >= points.back().first) return points.back().second;
      // First knot strictly after t; the segment [i-1, i] contains t.
      auto it = std::upper_bound(
          points.begin(), points.end(), t,
          [](double x, const std::pair<double, double>& p) { return x < p.first; });
      const auto& p1 = *it;
      const auto& p0 = *(it - 1);
      const double dt = p1.first - p0.first;
      if (dt <= 0) return p1.second;
      const double s = (t - p0.first) / dt;
      return p0.second + s * (p1.second - p0.second);
    }
    case Kind::kSquare: {
      if (!(period > 0)) return low;
      double phase_time = std::fmod(t, period);
      if (phase_time < 0) phase_time += period;
      return phase_time < duty * period ? high : low;
    }
    case Kind::kSine:
      return offset + amplitude * std::sin(2.0 * kPi * frequency * t + phase);
  }
  return value;
}

double Signal::Derivative(double t) const {
  switch (kind) {
    case Kind::kConstant:
    case Kind::kSquare:
      return 0.0;
    case Kind::kPiecewiseLinear: {
      if (points.size() < 2) return 0.0;
      if (t < points.front().first || t >= points.back().first) return 0.0;
      auto it = std::upper_bound(
          points.begin(), points.end(), t,
          [](double x, const std::pair<double, double>& p) { return x < p.first; });
      const auto& p1 = *it;
      const auto& p0 = *(it - 1);
      const double dt = p1.first - p0.first;
      return dt > 0 ? (p1.second - p0.second) / dt : 0.0;
    }
    case Kind::kSine: {
      const double w = 2.0 * kPi * frequency;
      return amplitude * w * std::cos(w * t + phase);
    }
  }
  return 0.0;
}

int Model::FindBody(const std::string& name) const {
  for (size_t i = 0; i < bodies.size(); ++i) {
    if (bodies[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

int Model::FindMaterial(const std::string& name) const {
  for (size_t i = 0; i < materials.size(); ++i) {
    if (materials[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

int Model::FindJoint(const std::string& name) const {
  for (size_t i = 0; i < joints.size(); ++i) {
    if (joints[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

Material Model::PairMaterial(int geom_a, int geom_b) const {
  const int ma = geoms[geom_a].material;
  const int mb = geoms[geom_b].material;
  for (const PairOverride& o : pair_overrides) {
    if ((o.material_a == ma && o.material_b == mb) || (o.material_a == mb && o.material_b == ma)) {
      Material m = o.values;
      m.name = materials[ma].name + "+" + materials[mb].name;
      return m;
    }
  }
  return CombineMaterials(materials[ma], materials[mb]);
}

ContactValues Model::PairContactValues(int geom_a, int geom_b) const {
  const int ma = geoms[geom_a].material;
  const int mb = geoms[geom_b].material;
  for (const PairOverride& o : pair_overrides) {
    if ((o.material_a == ma && o.material_b == mb) || (o.material_a == mb && o.material_b == ma)) {
      return {o.values.stiffness, o.values.dissipation_time, o.values.friction,
              o.values.hunt_crossley_dissipation};
    }
  }
  return CombineContactValues(materials[ma], materials[mb]);
}

HydroelasticProperties Model::GeomHydroelastic(int geom) const {
  const Geom& g = geoms[geom];
  const Material& m = materials[g.material];
  HydroelasticProperties h;
  h.modulus = g.hydroelastic_modulus >= 0 ? g.hydroelastic_modulus : m.hydroelastic_modulus;
  h.resolution =
      g.hydroelastic_resolution >= 0 ? g.hydroelastic_resolution : m.hydroelastic_resolution;
  if (!(h.resolution > 0)) h.resolution = DefaultHydroelasticResolution(g.shape);
  if (g.shape.type == ShapeType::kHalfSpace) h.modulus = 0;  // a half-space is always rigid
  return h;
}

bool Model::PairIsHydroelastic(int geom_a, int geom_b) const {
  if (!GeomHydroelastic(geom_a).compliant() && !GeomHydroelastic(geom_b).compliant()) {
    return false;
  }
  const int ma = geoms[geom_a].material;
  const int mb = geoms[geom_b].material;
  for (const PairOverride& o : pair_overrides) {
    if ((o.material_a == ma && o.material_b == mb) || (o.material_a == mb && o.material_b == ma)) {
      return !o.point_contact;
    }
  }
  return true;
}

double DefaultHydroelasticResolution(const Shape& shape) {
  switch (shape.type) {
    case ShapeType::kHalfSpace: return 1.0;
    case ShapeType::kSphere:
    case ShapeType::kCapsule: return 0.5 * shape.radius;
    case ShapeType::kCylinder: return 0.5 * std::min(shape.radius, 2 * shape.half_length);
    case ShapeType::kBox: return shape.half_extents.minCoeff();
    case ShapeType::kConvexMesh: {
      if (!shape.hull || shape.hull->vertices.empty()) return 1.0;
      Vec3 lo = shape.hull->vertices.front(), hi = lo;
      for (const Vec3& p : shape.hull->vertices) {
        lo = lo.cwiseMin(p);
        hi = hi.cwiseMax(p);
      }
      return std::max(0.25 * (hi - lo).minCoeff(), 1e-6);
    }
  }
  return 1.0;
}

namespace {
// Finite values, strictly increasing knots, a positive square-wave period and duty in [0, 1].
bool SignalIsValid(const Signal& s) {
  auto fin = [](double x) { return std::isfinite(x); };
  switch (s.kind) {
    case Signal::Kind::kConstant:
      return fin(s.value);
    case Signal::Kind::kPiecewiseLinear:
      if (s.points.empty()) return false;
      for (size_t i = 0; i < s.points.size(); ++i) {
        if (!fin(s.points[i].first) || !fin(s.points[i].second)) return false;
        if (i > 0 && !(s.points[i].first > s.points[i - 1].first)) return false;
      }
      return true;
    case Signal::Kind::kSquare:
      return fin(s.low) && fin(s.high) && fin(s.period) && s.period > 0 && s.duty >= 0 &&
             s.duty <= 1;
    case Signal::Kind::kSine:
      return fin(s.amplitude) && fin(s.offset) && fin(s.frequency) && fin(s.phase) &&
             s.frequency >= 0;
  }
  return false;
}
}  // namespace

void Model::Finalize() {
  const int nb = static_cast<int>(bodies.size());
  const int nj = static_cast<int>(joints.size());
  const int nm = static_cast<int>(materials.size());

  if (nm == 0) throw std::invalid_argument("model: at least one material is required");
  // Material values against their table (engine/sim/param_tables.h): e.g.
  // "materials.wood.stiffness = -1 is out of range (0, inf) N/m".
  for (int i = 0; i < nm; ++i) {
    MaterialTable().Validate(materials[i], "materials." + materials[i].name);
  }
  for (size_t i = 0; i < pair_overrides.size(); ++i) {
    const PairOverride& o = pair_overrides[i];
    const std::string what = "pair override " + std::to_string(i);
    if (o.material_a < 0 || o.material_a >= nm || o.material_b < 0 || o.material_b >= nm) {
      Fail(what, "material index out of range");
    }
    MaterialTable().Validate(o.values, "pairs." + std::to_string(i));
  }

  // Unique non-empty names, so that Find* is unambiguous (hash sets: linear in the counts).
  {
    std::unordered_set<std::string> names;
    names.reserve(nb);
    for (int i = 0; i < nb; ++i) {
      if (!bodies[i].name.empty() && !names.insert(bodies[i].name).second) {
        Fail(BodyLabel(*this, i), "duplicate body name");
      }
    }
    names.clear();
    for (int i = 0; i < nj; ++i) {
      if (!joints[i].name.empty() && !names.insert(joints[i].name).second) {
        Fail(JointLabel(*this, i), "duplicate joint name");
      }
    }
  }

  // Inbound joint of every body, from the joint list.
  std::vector<int> inbound(nb, -1);
  for (int j = 0; j < nj; ++j) {
    Joint& jt = joints[j];
    const std::string what = JointLabel(*this, j);
    if (jt.child < 0 || jt.child >= nb) Fail(what, "child body index out of range");
    if (jt.parent < -1 || jt.parent >= nb) Fail(what, "parent body index out of range");
    if (jt.parent == jt.child) Fail(what, "a body cannot be its own parent");
    const Body& child = bodies[jt.child];
    if (inbound[jt.child] != -1) {
      Fail(
          BodyLabel(*this, jt.child),
          "has two inbound joints (" + JointLabel(*this, inbound[jt.child]) + " and " + what + ")");
    }
    if (child.prescribed) {
      Fail(what, "child " + BodyLabel(*this, jt.child) + " is prescribed and cannot have a joint");
    }
    if (child.joint != -1 && child.joint != j) {
      Fail(BodyLabel(*this, jt.child),
           "Body::joint = " + std::to_string(child.joint) + " disagrees with " + what);
    }
    inbound[jt.child] = j;
    if (jt.type == JointType::kFree && jt.parent != -1) {
      Fail(what, "a free joint must connect its body to the world, but its parent is " +
                     BodyLabel(*this, jt.parent));
    }
    if (jt.parent >= 0 && bodies[jt.parent].prescribed) {
      Fail(what, "parent " + BodyLabel(*this, jt.parent) +
                     " is prescribed; joints may only hang from the world, static or jointed "
                     "bodies");
    }
    if (jt.type == JointType::kRevolute || jt.type == JointType::kPrismatic) {
      const double n = jt.axis.norm();
      if (!std::isfinite(n) || n < 1e-12) Fail(what, "axis must be a non-zero vector");
      jt.axis /= n;
    }
    if (!IsFiniteVec(jt.parent_from_joint.p) || !IsFiniteVec(jt.child_from_joint.p) ||
        !jt.parent_from_joint.q.coeffs().allFinite() ||
        !jt.child_from_joint.q.coeffs().allFinite() || jt.parent_from_joint.q.norm() < 1e-12 ||
        jt.child_from_joint.q.norm() < 1e-12) {
      Fail(what, "joint frames must be finite with non-zero quaternions");
    }
    jt.parent_from_joint.q.normalize();
    jt.child_from_joint.q.normalize();
    const bool one_dof = JointNv(jt.type) == 1;
    if (!(jt.spring_stiffness >= 0) || !(jt.damping >= 0)) {
      Fail(what, "spring stiffness and damping must be non-negative");
    }
    if (!(jt.armature >= 0) || !std::isfinite(jt.armature)) {
      Fail(what, "armature must be finite and non-negative");
    }
    if (jt.limited && !(jt.lower <= jt.upper)) Fail(what, "lower limit exceeds upper limit");
    if (jt.type == JointType::kBall) {
      if (jt.limited)
        Fail(what, "a ball joint has no limits (limits need a revolute or prismatic joint)");
      if (jt.spring_stiffness != 0) {
        Fail(what, "a ball joint has no spring (springs need a revolute or prismatic joint)");
      }
    }
    if (jt.actuator.enabled) {
      if (!one_dof) Fail(what, "actuators need a revolute or prismatic joint");
      if (!(jt.actuator.kp >= 0) || !(jt.actuator.kd >= 0)) {
        Fail(what, "actuator gains must be non-negative");
      }
      if (!(jt.actuator.effort_limit >= 0)) Fail(what, "actuator effort limit must be >= 0");
      ValidateSignal(jt.actuator.setpoint, what);
    }
  }

  // Cycles: follow parent links; with one inbound joint per body a cycle is a loop in that chain.
  // Each body is walked once (0 unvisited, 1 on the current walk, 2 known to reach the world),
  // so the check is linear in the number of bodies however long the chains are.
  {
    std::vector<char> mark(nb, 0);
    std::vector<int> walk;
    for (int b = 0; b < nb; ++b) {
      walk.clear();
      for (int cur = b; cur >= 0 && mark[cur] != 2; cur = joints[inbound[cur]].parent) {
        if (mark[cur] == 1) {
          Fail(BodyLabel(*this, cur),
               "is part of a kinematic cycle (through " + JointLabel(*this, inbound[cur]) + ")");
        }
        mark[cur] = 1;
        walk.push_back(cur);
        if (inbound[cur] < 0) break;
      }
      for (int w : walk) mark[w] = 2;
    }
  }

  for (int b = 0; b < nb; ++b) {
    Body& body = bodies[b];
    body.joint = inbound[b];
    body.tree = -1;
    const std::string what = BodyLabel(*this, b);
    if (body.joint >= 0) {
      if (!(body.mass > 0) || std::isinf(body.mass)) {
        Fail(what, "mass must be positive and finite");
      }
      if (!IsFiniteVec(body.com)) Fail(what, "center of mass must be finite");
      if (!body.inertia.allFinite()) Fail(what, "inertia must be finite");
      const double scale = body.inertia.cwiseAbs().maxCoeff();
      if ((body.inertia - body.inertia.transpose()).cwiseAbs().maxCoeff() > 1e-9 * scale) {
        Fail(what, "inertia must be symmetric");
      }
      const Mat3 sym = 0.5 * (body.inertia + body.inertia.transpose());
      Eigen::SelfAdjointEigenSolver<Mat3> eig(sym, Eigen::EigenvaluesOnly);
      if (!(eig.eigenvalues().minCoeff() > 0)) {
        Fail(what, "inertia must be symmetric positive definite");
      }
    }
    if (!IsFiniteVec(body.pose0.p) || !body.pose0.q.coeffs().allFinite() ||
        body.pose0.q.norm() < 1e-12) {
      Fail(what, "pose0 must be finite with a non-zero quaternion");
    }
  }

  const int ng = static_cast<int>(geoms.size());
  for (int g = 0; g < ng; ++g) {
    const Geom& geom = geoms[g];
    const std::string what = GeomLabel(*this, g);
    if (geom.body < -1 || geom.body >= nb) Fail(what, "body index out of range");
    if (geom.material < 0 || geom.material >= nm) Fail(what, "material index out of range");
    const Shape& s = geom.shape;
    switch (s.type) {
      case ShapeType::kHalfSpace:
        break;
      case ShapeType::kSphere:
        if (!(s.radius > 0)) Fail(what, "sphere radius must be positive");
        break;
      case ShapeType::kCapsule:
        if (!(s.radius > 0) || !(s.half_length >= 0)) {
          Fail(what, "capsule needs radius > 0 and half_length >= 0");
        }
        break;
      case ShapeType::kCylinder:
        if (!(s.radius > 0) || !(s.half_length > 0)) {
          Fail(what, "cylinder needs positive radius and half_length");
        }
        break;
      case ShapeType::kBox:
        if (!(s.half_extents.minCoeff() > 0)) Fail(what, "box half extents must be positive");
        break;
      case ShapeType::kConvexMesh:
        if (!s.hull || s.hull->vertices.empty()) Fail(what, "convex mesh has no hull vertices");
        break;
    }
    // Per-geometry hydroelastic values: negative means "the material's"; otherwise the
    // material table's ranges apply.
    if (std::isnan(geom.hydroelastic_modulus) || std::isnan(geom.hydroelastic_resolution)) {
      Fail(what, "hydroelastic modulus and resolution must not be NaN");
    }
    Material hm = materials[geom.material];
    if (geom.hydroelastic_modulus >= 0) hm.hydroelastic_modulus = geom.hydroelastic_modulus;
    if (geom.hydroelastic_resolution >= 0) hm.hydroelastic_resolution = geom.hydroelastic_resolution;
    MaterialTable().Validate(hm, "geom '" + geom.name + "'");
    if (s.type == ShapeType::kHalfSpace && geom.hydroelastic_modulus > 0) {
      Fail(what, "a half_space cannot be compliant (hydroelastic modulus must be 0)");
    }
  }

  // Children lists, then trees. A body has dofs when some joint on its path to the world has
  // dofs; tree roots are the first such bodies on each path.
  std::vector<std::vector<int>> children(nb);
  std::vector<int> world_children;
  for (int b = 0; b < nb; ++b) {
    if (inbound[b] < 0) continue;
    const int parent = joints[inbound[b]].parent;
    if (parent < 0) {
      world_children.push_back(b);
    } else {
      children[parent].push_back(b);
    }
  }
  std::vector<int> roots;
  // Depth-first walk from the world and from static bodies through welded (dof-free) bodies.
  std::vector<int> stack;
  for (int b = 0; b < nb; ++b) {
    if (inbound[b] < 0) stack.push_back(b);  // static or prescribed: walk its children
  }
  for (int b : world_children) stack.push_back(b);
  std::vector<char> visited(nb, 0);
  while (!stack.empty()) {
    const int b = stack.back();
    stack.pop_back();
    if (visited[b]) continue;
    visited[b] = 1;
    if (inbound[b] >= 0 && JointNv(joints[inbound[b]].type) > 0) {
      roots.push_back(b);
      continue;
    }
    for (int c : children[b]) stack.push_back(c);
  }
  std::sort(roots.begin(), roots.end());

  trees.clear();
  for (Joint& jt : joints) {
    jt.q_start = -1;
    jt.v_start = -1;
  }
  int q_offset = 0, v_offset = 0;
  for (int root : roots) {
    Tree tree;
    tree.root_body = root;
    tree.q_start = q_offset;
    tree.v_start = v_offset;
    const int tree_index = static_cast<int>(trees.size());
    // Breadth-first order: parents before children.
    tree.bodies.push_back(root);
    for (size_t k = 0; k < tree.bodies.size(); ++k) {
      const int b = tree.bodies[k];
      bodies[b].tree = tree_index;
      Joint& jt = joints[inbound[b]];
      const int nq_j = JointNq(jt.type), nv_j = JointNv(jt.type);
      if (nv_j > 0) {
        jt.q_start = q_offset;
        jt.v_start = v_offset;
        q_offset += nq_j;
        v_offset += nv_j;
      }
      std::vector<int> kids = children[b];
      std::sort(kids.begin(), kids.end());
      for (int c : kids) tree.bodies.push_back(c);
    }
    tree.nq = q_offset - tree.q_start;
    tree.nv = v_offset - tree.v_start;
    trees.push_back(std::move(tree));
  }
  nq = q_offset;
  nv = v_offset;

  q_default = VecX::Zero(nq);
  v_default = VecX::Zero(nv);
  for (int j = 0; j < nj; ++j) {
    const Joint& jt = joints[j];
    if (jt.type == JointType::kBall && jt.q_start >= 0) q_default[jt.q_start] = 1.0;  // identity
    if (jt.type != JointType::kFree) continue;
    const Pose& x = bodies[jt.child].pose0;
    const Quat qn = x.q.normalized();
    q_default.segment<3>(jt.q_start) = x.p;
    q_default[jt.q_start + 3] = qn.w();
    q_default[jt.q_start + 4] = qn.x();
    q_default[jt.q_start + 5] = qn.y();
    q_default[jt.q_start + 6] = qn.z();
  }

  // Loads: on a body with dofs, with well-formed signals (needs the trees built above).
  for (size_t i = 0; i < loads.size(); ++i) {
    const Load& ld = loads[i];
    const std::string what = "load " + (ld.name.empty() ? std::to_string(i) : "'" + ld.name + "'");
    if (ld.body < 0 || ld.body >= nb) Fail(what, "body index out of range");
    if (bodies[ld.body].tree < 0) {
      Fail(what, BodyLabel(*this, ld.body) +
                     " has no degrees of freedom (static, prescribed or welded to the world)");
    }
    for (int k = 0; k < 6; ++k) {
      const Signal& s = k < 3 ? ld.point[k] : ld.force[k - 3];
      const std::string field =
          std::string(k < 3 ? "point" : "force") + "[" + std::to_string(k % 3) + "]";
      if (!SignalIsValid(s))
        Fail(what, field +
                       " is not a valid signal (non-finite values, "
                       "unordered knots or a non-positive period)");
    }
  }

  // Equalities: bodies and joints in range, finite poses, a coupling between 1-dof joints with
  // coordinates, k > 0 (inf: near-rigid) and τ_d >= 0 (needs the trees built above).
  for (size_t i = 0; i < equalities.size(); ++i) {
    const Equality& e = equalities[i];
    const std::string what =
        "equality " + (e.name.empty() ? std::to_string(i) : "'" + e.name + "'");
    if (!(e.stiffness > 0)) Fail(what, "stiffness must be > 0 (inf: near-rigid)");
    if (!(e.dissipation_time >= 0) || !std::isfinite(e.dissipation_time)) {
      Fail(what, "dissipation_time must be finite and >= 0");
    }
    if (!std::isfinite(e.gear) || !std::isfinite(e.offset)) {
      Fail(what, "gear and offset must be finite");
    }
    if (e.type == EqualityType::kJointCoupling) {
      for (int side = 0; side < 2; ++side) {
        const int j = side == 0 ? e.joint_a : e.joint_b;
        const char* name = side == 0 ? "joint_a" : "joint_b";
        if (side == 1 && j < 0) continue;  // q_a = offset
        if (j < 0 || j >= nj) Fail(what, std::string(name) + " index out of range");
        const Joint& jt = joints[j];
        if (JointNv(jt.type) != 1) {
          Fail(what, std::string(name) + " " + JointLabel(*this, j) +
                         " is not a 1-dof joint (revolute or prismatic)");
        }
        if (jt.v_start < 0 || bodies[jt.child].tree < 0) {
          Fail(what, std::string(name) + " " + JointLabel(*this, j) + " has no coordinate");
        }
      }
      if (e.joint_a == e.joint_b) Fail(what, "joint_a and joint_b are the same joint");
      continue;
    }
    for (int side = 0; side < 2; ++side) {
      const int b = side == 0 ? e.body_a : e.body_b;
      if (b < -1 || b >= nb) {
        Fail(what, std::string(side == 0 ? "body_a" : "body_b") + " index out of range");
      }
      const Pose& x = side == 0 ? e.a_from_anchor : e.b_from_anchor;
      if (!IsFiniteVec(x.p) || !x.q.coeffs().allFinite() ||
          std::abs(x.q.norm() - 1.0) > 1e-6) {
        Fail(what, std::string(side == 0 ? "the anchor on A" : "the anchor on B") +
                       " is not a finite pose with a unit quaternion");
      }
    }
    if (e.body_a == e.body_b) Fail(what, "body_a and body_b are the same body");
    if (BodyTree(e.body_a) < 0 && BodyTree(e.body_b) < 0) {
      Fail(what, "neither body has degrees of freedom (static, prescribed or the world)");
    }
  }
}

}  // namespace contactlab
