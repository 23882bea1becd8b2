// The immutable description of a scene's mechanical system: bodies, kinematic trees, joints,
// geometry and materials. Built by the scene loader (app/) or by code (tests), then Finalize()d.
//
// Generalized coordinates (q, v with q̇ = N(q) v), per joint type:
//   free      q = [x y z qw qx qy qz] (position of the body-frame origin, unit quaternion R_WB)
//             v = [vx vy vz wx wy wz]  (velocity of the body-frame origin and angular velocity,
//                                        both expressed in the world frame)
//   revolute  q = angle [rad] about `axis`,  v = angular rate [rad/s]
//   prismatic q = offset [m] along `axis`,   v = rate [m/s]
//   ball      q = [qw qx qy qz] (unit quaternion R_FM: the child's joint frame M in the parent's
//             joint frame F, both of which sit at the joint center)
//             v = [wx wy wz]  (angular velocity of the child relative to the parent, expressed in
//                             the parent's joint frame F), q̇ = ½ [0, ω] ⊗ q
//   fixed     no coordinates
// The ball joint uses the free joint's rotational convention with F in place of the world
// (the free joint's parent): for a ball joint on the world with an identity parent frame, ω is
// the world-frame angular velocity, and the quaternion integrates with the same exponential map.
// Because ω is expressed in F, a ball joint's three dof directions are fixed in the parent body,
// like a revolute joint's axis. Ball joints have no limits, springs or actuators (damping acts
// on ω as τ = −d ω).
// A free joint may only connect a body to the world. Every body has exactly one inbound joint
// (or none, when it is prescribed or static). Bodies connected to the world through a chain of
// joints form a kinematic tree; each tree's coordinates are contiguous in q and in v.
#pragma once

#include <array>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/common/math.h"

namespace contactlab {

// Contact material. Pair values come from the combination rules in CombineMaterials().
struct Material {
  std::string name = "default";
  double stiffness = 1e6;          // k [N/m], point-contact stiffness (> 0)
  double dissipation_time = 0.01;  // τ_d [s], linear (Kelvin-Voigt) dissipation time scale (>= 0)
  double friction = 0.5;           // μ [-], Coulomb coefficient (>= 0)
  // d [s/m], Hunt–Crossley dissipation of the lagged and similar contact models (seed 004,
  // eq. 13: f_n = k x (1 + d ẋ)₊); unused by the linear model. (>= 0)
  double hunt_crossley_dissipation = 10.0;
  // Pressure-field (hydroelastic) contact, `hydroelastic: {modulus, resolution}` (docs/
  // hydroelastic.md). A geometry with a positive modulus E [Pa] is compliant: it gets a tet mesh
  // whose pressure p = E · extent grows from 0 on its surface, and any pair with a compliant side
  // touches along a contact surface instead of at points. 0: not compliant. Geom may override
  // both values. The resolution is the tet size hint [m]; 0 picks DefaultHydroelasticResolution.
  // Not combined per pair (a pair override's values are unused).
  double hydroelastic_modulus = 0;
  double hydroelastic_resolution = 0;
};

// Explicit values for one pair of materials, overriding the combination rules.
struct PairOverride {
  int material_a = -1, material_b = -1;
  Material values;  // name unused
  // `contact: point`: the pair uses point contact even when a side is compliant.
  bool point_contact = false;
};

// Combination rules (documented in docs/scene_format.md):
//   k   = k_a k_b / (k_a + k_b)              (springs in series)
//   τ_d = (τ_a k_b + τ_b k_a) / (k_a + k_b)   (series Kelvin-Voigt elements, compliance-weighted)
//   μ   = 2 μ_a μ_b / (μ_a + μ_b)             (harmonic mean; 0 if either is 0)
//   d   = (d_a k_b + d_b k_a) / (k_a + k_b)   (Hunt–Crossley d, compliance-weighted like τ_d)
Material CombineMaterials(const Material& a, const Material& b);

// The physical values of a combined pair material (no name): what each contact needs.
struct ContactValues {
  double stiffness = 0, dissipation_time = 0, friction = 0;
  double hunt_crossley_dissipation = 0;  // d [s/m]
};
ContactValues CombineContactValues(const Material& a, const Material& b);

// Convex polyhedron for collision (convex hull of a mesh). Faces are CCW seen from outside.
struct ConvexHull {
  std::vector<Vec3> vertices;            // hull vertices, geometry frame [m]
  std::vector<std::vector<int>> faces;   // vertex indices per face, CCW from outside
  std::vector<Vec3> face_normals;        // outward unit normal per face
  // Mesh used for drawing (may be the original non-convex mesh), geometry frame.
  std::vector<Vec3> render_vertices;
  std::vector<int> render_triangles;     // 3 indices per triangle
  std::string source;                    // file it came from (for messages)
};

enum class ShapeType { kHalfSpace, kSphere, kCapsule, kBox, kCylinder, kConvexMesh };
const char* ShapeTypeName(ShapeType t);

// Shape in its own geometry frame:
//   half-space: the region z <= 0 (outward normal +z);
//   sphere: radius; capsule and cylinder: axis along z, `half_length` the half-length of the
//   axis segment (cylinder: half-height), `radius`; box: `half_extents`;
//   convex mesh: `hull` (vertices in the geometry frame, already scaled).
struct Shape {
  ShapeType type = ShapeType::kSphere;
  double radius = 0.05;
  double half_length = 0.05;
  Vec3 half_extents = Vec3(0.05, 0.05, 0.05);
  std::shared_ptr<const ConvexHull> hull;
};

struct Geom {
  std::string name;
  int body = -1;      // owning body, -1 = world (static)
  Pose local;         // X_BG: geometry frame in body frame (world frame when body = -1)
  Shape shape;
  int material = 0;   // index into Model::materials
  Vec4 color = Vec4(0.7, 0.7, 0.75, 1.0);
  bool collide = true;
  // Per-geometry `hydroelastic:` values; negative: the material's (Model::GeomHydroelastic).
  double hydroelastic_modulus = -1;     // [Pa]
  double hydroelastic_resolution = -1;  // [m]
};

// The hydroelastic values a geometry uses (its own, else its material's; the resolution made
// concrete by DefaultHydroelasticResolution when 0).
struct HydroelasticProperties {
  double modulus = 0;     // E [Pa]; 0: not compliant
  double resolution = 0;  // tet size hint [m], > 0
  bool compliant() const { return modulus > 0; }
};

// Resolution used when none is given: half the radius of a sphere, capsule or cylinder (capped
// by the cylinder's half-height), the smallest half extent of a box, a quarter of the smallest
// extent of a convex mesh's bounding box; 1 for a half-space (which is never meshed).
double DefaultHydroelasticResolution(const Shape& shape);

// Scalar signal of time, used for actuator setpoints.
struct Signal {
  enum class Kind { kConstant, kPiecewiseLinear, kSquare, kSine };
  Kind kind = Kind::kConstant;
  double value = 0;                              // constant
  std::vector<std::pair<double, double>> points; // (t, value), t increasing; held at the ends
  double low = 0, high = 0, period = 1, duty = 0.5;  // square wave: high for duty*period first
  double amplitude = 0, offset = 0, frequency = 0, phase = 0;  // sine: offset + A sin(2πft + phase)
  double Evaluate(double t) const;
  // Time derivative of Evaluate() [value/s]: 0 for constants and square waves (jumps are not
  // differentiated), the segment slope for piecewise-linear signals (right-sided at knots,
  // 0 outside the knots).
  double Derivative(double t) const;
};

// Motion of a body whose pose is a function of time (it has no coordinates and is not
// pushed by contact). Pose(t) = [p0 + velocity t + axis A sin(2π f t)] with rotation
// exp(angular_velocity t) * R0 (world-frame angular velocity, rotation about the body origin).
// `surface_velocity` (body frame) is an extra tangential velocity of the body's surface at rest
// pose, as on a conveyor belt.
struct PrescribedMotion {
  Vec3 velocity = Vec3::Zero();          // [m/s], world
  Vec3 oscillation_axis = Vec3::UnitX(); // unit, world
  double amplitude = 0;                  // [m]
  double frequency = 0;                  // [Hz]
  Vec3 angular_velocity = Vec3::Zero();  // [rad/s], world
  Vec3 surface_velocity = Vec3::Zero();  // [m/s], body frame (belt)
};

struct Body {
  std::string name;
  double mass = 1.0;                   // [kg]
  Vec3 com = Vec3::Zero();             // center of mass in body frame [m]
  Mat3 inertia = Mat3::Identity() * 1e-3;  // rotational inertia about the COM, body axes [kg m²]
  int joint = -1;                      // inbound joint, -1 if static or prescribed
  int tree = -1;                       // kinematic tree, -1 if static or prescribed
  bool prescribed = false;
  PrescribedMotion motion;             // used when prescribed
  Pose pose0;                          // pose at t = 0 for static/prescribed bodies
  // Pose of this body relative to its parent's frame when all joint coordinates are zero is
  // given by the joint frames; pose0 also records the scene's initial pose for free bodies.
};

enum class JointType { kFree, kRevolute, kPrismatic, kFixed, kBall };
const char* JointTypeName(JointType t);
int JointNq(JointType t);
int JointNv(JointType t);

// PD actuator on a 1-dof joint: τ = clamp(kp (q_ref(t) − q) + kd (v_ref(t) − v), ±effort_limit),
// where v_ref is the time derivative of q_ref. It acts as a spring-damper (k1 in the paper's
// force split) and so enters A through K and D.
struct Actuator {
  bool enabled = false;
  double kp = 0;        // [N m/rad] or [N/m]
  double kd = 0;        // [N m s/rad] or [N s/m]
  Signal setpoint;      // q_ref(t)
  double effort_limit = std::numeric_limits<double>::infinity();  // [N m] or [N]
};

struct Joint {
  std::string name;
  JointType type = JointType::kRevolute;
  int parent = -1;              // parent body, -1 = world
  int child = -1;               // child body
  Pose parent_from_joint;       // X_PJ: joint frame in the parent body frame (world if parent = -1)
  Pose child_from_joint;        // X_CJ: joint frame in the child body frame
  Vec3 axis = Vec3::UnitZ();    // unit, joint frame (revolute and prismatic; unused otherwise)
  // Joint-space spring and damper: τ = −k (q − q_ref) − d v.
  double spring_stiffness = 0;  // [N m/rad] or [N/m]
  double spring_reference = 0;  // [rad] or [m]
  double damping = 0;           // [N m s/rad] or [N s/m]
  // Rotor inertia (MuJoCo's armature): added to the mass matrix's diagonal entry of each of the
  // joint's dofs (M_ii += armature), and to the kinetic energy as ½ armature v_i².
  double armature = 0;          // [kg m²] or [kg]
  // Position limits, handled as SAP constraints.
  bool limited = false;
  double lower = -std::numeric_limits<double>::infinity();
  double upper = std::numeric_limits<double>::infinity();
  Actuator actuator;
  // Filled by Model::Finalize().
  int q_start = -1, v_start = -1;
};

struct Tree {
  int root_body = -1;
  std::vector<int> bodies;   // topological order: parents before children
  int q_start = 0, nq = 0;
  int v_start = 0, nv = 0;
};

// External load: a force on a point of a dynamic body, each component a signal of time. The
// simulator applies it explicitly, like the mouse perturbation (engine/multibody/load.h): evaluated at the
// step's start time t^n and configuration q0 as the generalized force J_pᵀ f in the free-motion
// stage. It does not enter the linearization A.
struct Load {
  std::string name;
  int body = -1;                   // loaded body; must have a kinematic tree
  std::array<Signal, 3> point;     // point of application, body frame [m]
  std::array<Signal, 3> force;     // force [N], in the world frame or (force_in_body) body frame
  bool force_in_body = false;
};

// Holonomic equality constraint g(q) = 0, solved as a constraint of the contact problem (as
// Drake's SAP holonomic constraints: near-rigid regularization unless a finite stiffness is
// given). Imported from MJCF <equality> (connect, weld, joint) and URDF <mimic>.
//   connect         the point p_A (body A frame) coincides with p_B (body B frame): 3 rows
//   weld            frame F_A (in A) coincides with frame F_B (in B): 3 position + 3 rotation rows
//   joint_coupling  q_a = offset + gear q_b (1-dof joints; joint_b < 0: q_a = offset): 1 row
enum class EqualityType { kConnect, kWeld, kJointCoupling };
struct Equality {
  std::string name;
  EqualityType type = EqualityType::kConnect;
  int body_a = -1, body_b = -1;  // bodies (connect, weld); -1 = the world
  Pose a_from_anchor;            // connect: the point on A (translation); weld: F_A in A
  Pose b_from_anchor;            // connect: the point on B; weld: F_B in B
  int joint_a = -1, joint_b = -1;  // joint coupling
  double gear = 1.0;               // [-] (or [m/rad], [rad/m] between joint kinds)
  double offset = 0.0;             // [rad] or [m]
  double stiffness = std::numeric_limits<double>::infinity();  // [N/m], [N m/rad]; inf: near-rigid
  double dissipation_time = 0.0;   // τ_d [s]
  bool active = true;
};

struct Model {
  std::vector<Body> bodies;
  std::vector<Joint> joints;
  std::vector<Geom> geoms;
  std::vector<Material> materials{Material{}};
  std::vector<PairOverride> pair_overrides;
  std::vector<Load> loads;  // external forces (validated by Finalize)
  // Body pairs that never touch, besides the pairs a joint connects (which never do): imported
  // contact exclusions (MJCF <exclude>, and parent–child pairs that a chain of joint links
  // separates). Indices into bodies; order within a pair does not matter.
  std::vector<std::pair<int, int>> excluded_body_pairs;
  // Equality constraints (holonomic), see Equality.
  std::vector<Equality> equalities;

  // Filled by Finalize().
  std::vector<Tree> trees;
  int nq = 0, nv = 0;
  VecX q_default;  // initial q (free bodies at pose0, ball joints at the identity, 1-dof
                   // joints at 0 unless set)
  VecX v_default;  // initial v (zero unless set)

  // Validates indices and builds trees and coordinate offsets. Throws std::invalid_argument
  // with a message naming the offending body/joint/geom/load.
  void Finalize();

  int FindBody(const std::string& name) const;     // -1 if absent
  int FindMaterial(const std::string& name) const; // -1 if absent
  int FindJoint(const std::string& name) const;    // -1 if absent
  // Pair material for two geoms (overrides first, then the combination rules).
  Material PairMaterial(int geom_a, int geom_b) const;
  // The same values without building the name (per contact, every step).
  ContactValues PairContactValues(int geom_a, int geom_b) const;
  // Hydroelastic values of a geometry (HydroelasticProperties).
  HydroelasticProperties GeomHydroelastic(int geom) const;
  // True when the pair touches by pressure field: a side is compliant and no pair override asks
  // for point contact.
  bool PairIsHydroelastic(int geom_a, int geom_b) const;
  // Tree of a body's dofs, or -1 if the body has none (world, static, prescribed, welded).
  int BodyTree(int body) const { return body < 0 ? -1 : bodies[body].tree; }
};

}  // namespace contactlab
