// Export of a Scene to MuJoCo's MJCF (XML), for side-by-side runs against MuJoCo 2.2.2
// (app/mujoco_peer.h). Pure string generation: it needs no MuJoCo.
//
// Mapping (ContactLab -> MJCF):
//   <option>   time step, gravity, integrator="Euler" (MuJoCo's semi-implicit Euler, the
//              counterpart of symplectic Euler), cone="elliptic", solver="Newton", and
//              iterations / tolerance only when MjcfExportOptions sets them (MuJoCo's defaults
//              otherwise: 100 and 1e-8).
//   <compiler> angle="radian", inertiafromgeom="false": every moving body carries an explicit
//              <inertial> (mass, COM, full inertia about the COM in body axes).
//   bodies     free joint -> <freejoint/>; revolute -> hinge; prismatic -> slide; ball -> ball;
//              fixed -> no joint (the child is welded to its parent); the joint sits at the child-frame
//              joint origin with the axis expressed in the child frame, so the MJCF body pose
//              (relative to the parent) is the ContactLab zero-coordinate pose X_PJ X_CJ⁻¹.
//              Static bodies' geoms go into <worldbody> with their world poses. Prescribed
//              bodies become mocap bodies that the peer moves every step.
//   joints     spring -> stiffness/springref, damping -> damping, armature -> armature (a free
//              joint with armature is written as <joint type="free">), limits -> limited/range.
//              PD actuators -> <general> actuators with gain 1 and an affine bias
//              (-kp q - kd q̇), driven with ctrl = kp q_ref(t) + kd q̇_ref(t), clamped by
//              forcerange at the effort limit; this is the same PD law.
//   geoms      half-space -> plane (infinite for collision in both engines), sphere -> sphere,
//              box -> box (size = half extents), capsule / cylinder -> size = (radius,
//              half-length) along the geom's z axis, convex mesh -> <mesh> with the hull
//              vertices (MuJoCo takes their convex hull again). collide: false -> contype = 0,
//              conaffinity = 0. condim = 3 (sliding friction only, as ContactLab).
//   exclusions Model::excluded_body_pairs (imported MJCF exclusions) -> <exclude> between moving
//              bodies.
//   friction   every geom gets its material's μ (friction="μ 0.005 0.0001"; torsional and
//              rolling terms are unused at condim 3). MuJoCo combines two geoms by taking the
//              larger μ; where the ContactLab pair value (harmonic mean, or a `pairs` override)
//              differs from that maximum, the two bodies are excluded from MuJoCo's dynamic
//              collision (<exclude>) and every colliding geom pair between them is listed as an
//              explicit <pair> with the ContactLab μ.
//   initial    q_default / v_default in MuJoCo's layout (free joints: MuJoCo's angular
//   state      velocity is in the body frame, ContactLab's in the world frame; the export rotates
//              it; ball joints: MuJoCo's quaternion turns the child body frame C, so it is
//              R_CM R_FM R_CMᵀ, and its velocity is ω in C's axes, R_CM R_FMᵀ ω_F),
//              as MjcfExport::initial_qpos / initial_qvel and as a keyframe "initial" when
//              MuJoCo 2.2.2 can read it (at most 1000 numbers per attribute, ~140 free bodies).
// Not exported (listed in MjcfExport::notes when the scene uses them): contact stiffness and
// dissipation (MuJoCo's default solref / solimp are used: a 0.02 s time constant, critically
// damped, impedance 0.9-0.95), pressure-field (hydroelastic) contact (compliant geometries
// become rigid point-contact geometry), conveyor surface velocities, ContactLab integrators other than
// symplectic Euler, and the velocity of prescribed bodies (MuJoCo mocap bodies move by pose
// only). MuJoCo 2.2.2 is single-threaded, so no thread setting is needed.
#pragma once

#include <string>
#include <vector>

#include "app/scene.h"

namespace contactlab {

struct MjcfExportOptions {
  int iterations = 0;    // MuJoCo solver iteration cap; <= 0: MuJoCo's default (100)
  double tolerance = 0;  // MuJoCo solver tolerance; <= 0: MuJoCo's default (1e-8)
  // Sizes of MuJoCo 2.2.2's preallocated contact list and constraint rows (<size nconmax
  // njmax>). 0: an estimate from the number of colliding geoms; the peer grows them on overflow.
  int nconmax = 0;
  int njmax = 0;
};

struct MjcfExport {
  std::string xml;
  // What was approximated or left out, one sentence each.
  std::vector<std::string> notes;
  // Per ContactLab body: its MJCF body name, or "" for static bodies (geoms in <worldbody>).
  std::vector<std::string> body_names;
  // ContactLab body of each MuJoCo mocap body, in mocap order.
  std::vector<int> mocap_bodies;
  // ContactLab joint of each MuJoCo actuator, in actuator order.
  std::vector<int> actuated_joints;
  // ContactLab joints in MuJoCo's joint order (fixed joints have no MuJoCo joint).
  std::vector<int> joint_order;
  // The initial state in MuJoCo's qpos / qvel layout.
  std::vector<double> initial_qpos, initial_qvel;
  int nq = 0, nv = 0;        // MuJoCo's coordinate counts
  int nconmax = 0, njmax = 0;  // the sizes written to <size>
};

// Exports a finalized scene (LoadScene's default). Throws std::invalid_argument when the scene
// is not finalized.
MjcfExport ExportMjcf(const Scene& scene, const MjcfExportOptions& options = {});

// Largest njmax for which MuJoCo 2.2.2 can still allocate mjData for a model with nv dofs.
int MjcfMaxConstraintRows(int nv);

// The friction="..." triple written for a sliding coefficient μ.
std::string MjcfFriction(double mu);

}  // namespace contactlab
