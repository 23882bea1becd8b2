// MJCF import through MuJoCo's own compiler (mj_loadXML of MuJoCo 2.2.2): the file is compiled
// by the reference implementation (defaults, includes, inertias from geoms, frames, angle units)
// and the compiled mjModel is converted to a ContactLab Scene. docs/model_files.md lists what
// comes across and what is reported.
//
// Mapping (mjModel -> Model):
//   bodies    body_pos/quat (frame in the parent), body_ipos/iquat/mass/inertia (inertial frame:
//             the principal inertia is rotated into the body axes, Body::inertia). Bodies that
//             MuJoCo welds to the world (no joint on the path to it) are static; their geoms
//             get their world poses.
//   joints    hinge -> revolute, slide -> prismatic, ball -> ball, free -> free, no joint ->
//             fixed. A joint turns the body about jnt_pos (body frame) along jnt_axis. A body with
//             several joints (MuJoCo applies them in order, each in the frame the previous ones
//             turned) becomes a chain: one link body per extra joint, with a negligible mass
//             (kLinkMass) and inertia (kLinkInertia), parent–child contact between the real bodies
//             excluded. Hinge and slide coordinates are q − qpos0 (MuJoCo turns by qpos − qpos0),
//             so ranges and spring references shift by qpos0. jnt_range (when limited),
//             dof_damping, jnt_stiffness with qpos_spring, dof_armature -> Joint::armature
//             (every joint type, free joints included).
//   geoms     plane -> half-space, sphere, capsule, cylinder, box, mesh -> convex hull of
//             mesh_vert (MuJoCo collides meshes by their hulls too). ellipsoid, hfield: reported,
//             left out. geom_friction[0] -> a material per distinct μ ("mjcf_mu_<μ>"), contype
//             = conaffinity = 0 -> collide false; other bit masks that filter pairs are
//             reported.
//   contact   <exclude> -> Model::excluded_body_pairs; MuJoCo's parent–child filter ->
//             excluded pairs (our engine already skips pairs connected by one joint).
//             Explicit <pair> elements are reported (MuJoCo's default pairs still collide).
//   actuators on joints: position -> PD kp = gear² kp_mj (q_ref = ctrl / gear = 0),
//             velocity -> kd = gear² kv, general with affine bias -> kp = −gear² biasprm[1],
//             kd = −gear² biasprm[2] (gainprm[0] = 1), force limits × |gear|. motor (effort):
//             there is no control input in a scene, so it exerts nothing and is left out
//             (reported once with its count).
//   option    timestep -> time step, gravity.
//   start     keyframe 0 if the file has one, else qpos0.
//   ignored silently: sites, cameras, lights, textures, materials (visual), sensors (they do
//             not change the dynamics). Reported by element and line: tendons, equality
//             constraints, explicit contact pairs, ellipsoid and hfield geoms, actuators not on
//             a joint.
#pragma once

#include <string>
#include <vector>

#include "app/scene.h"

namespace contactlab {

// Mass [kg] and inertia [kg m²] of the link bodies that carry a body's extra joints.
constexpr double kLinkMass = 1e-12;
// (MuJoCo's compiler refuses principal inertias at or below mjMINVAL = 1e-15, so an exported
// import still loads in MuJoCo.)
constexpr double kLinkInertia = 1e-12;

struct MjcfImportReport {
  // What could not come across, one line each: "FILE:LINE: element 'name': what".
  std::vector<std::string> warnings;
  // MuJoCo's counts for the file (nbody includes the world body).
  int mj_nbody = 0, mj_njnt = 0, mj_ngeom = 0;
  double mj_total_mass = 0;  // sum of body_mass
  // ContactLab body of each MuJoCo body (index 0, the world: -1; static bodies: their own index).
  std::vector<int> body_of_mj;
  // ContactLab joint of each MuJoCo joint.
  std::vector<int> joint_of_mj;
  int link_bodies = 0;    // chain links added for bodies with several joints
  int fixed_joints = 0;   // bodies welded to a moving parent
  int dropped_geoms = 0;  // ellipsoid / hfield
  int equalities = 0;     // connect / weld / joint equalities carried (Model::equalities)
};

// Compiles the MJCF file with MuJoCo and converts it. Throws SceneError
// "FILE:LINE: element: message" (MuJoCo's "Element 'x', line N" reformatted) when MuJoCo refuses
// the file, or "FILE: model: ..." when the converted model is invalid. The scene is finalized.
Scene ImportMjcf(const std::string& path, MjcfImportReport* report = nullptr);

}  // namespace contactlab
