// Rigid multibody kinematics and dynamics in generalized coordinates (see engine/multibody/model.h for the
// coordinate conventions). Everything is computed per kinematic tree; trees are independent, so
// the mass matrix is block diagonal with one block per tree.
//
// Dynamics: M(q) v̇ = k(q, v, t) + Jᵀλ with k = k1 + k2 (SAP paper §II-D):
//   k1: joint springs, joint dampers and PD actuators (∂k1/∂q, ∂k1/∂v negative semi-definite,
//       diagonal: −K and −D below),
//   k2: gravity and the velocity-product terms −C(q, v) v (Coriolis, centrifugal, gyroscopic).
#pragma once

#include <vector>

#include "engine/multibody/model.h"

namespace contactlab {

// Poses and world-frame joint axes at one configuration.
struct KinematicsCache {
  double time = 0;
  std::vector<Pose> X_WB;         // per body: body frame in world
  std::vector<Vec3> com_W;        // per body: center of mass in world [m]
  // Per generalized velocity (size nv): the world-frame motion each dof produces.
  // A dof with unit rate moves a point p of any descendant body with velocity
  //   dof_linear[i] + dof_angular[i] × (p − dof_origin[i]).
  std::vector<Vec3> dof_angular;  // angular velocity per unit rate (zero for translations)
  std::vector<Vec3> dof_linear;   // translational velocity per unit rate
  std::vector<Vec3> dof_origin;   // reference point of the dof [m]
};

class Multibody {
 public:
  explicit Multibody(const Model* model);  // model must outlive this and be Finalize()d

  const Model& model() const { return *model_; }

  // Body poses and dof motions at configuration q and time t (prescribed bodies move with t).
  void UpdateKinematics(const VecX& q, double t, KinematicsCache* kin) const;

  // Jacobian of the world velocity of a point fixed to `body` that is at p_W now, w.r.t. the
  // velocities of the body's tree: v_p = J v_tree, J is 3 x nv_tree. J_angular likewise gives
  // the body's angular velocity. Bodies without a tree give 3 x 0.
  void PointJacobian(const KinematicsCache& kin, int body, const Vec3& p_W, MatX* J) const;
  void AngularJacobian(const KinematicsCache& kin, int body, MatX* J) const;
  // J += sign C J_p for the point Jacobian J_p of PointJacobian and a 3 x 3 C (e.g. the rotation
  // into a contact frame); J is 3 x nv_tree, column-major, sized by the caller. No allocation.
  void AddRotatedPointJacobian(const KinematicsCache& kin, int body, const Vec3& p_W,
                               const Mat3& C, double sign, double* J) const;
  // Dof structure of one tree: dof_parent[i] (tree-local, size nv_t) is the dof before dof i on
  // the path to the root (-1 at the root): dofs of one joint follow each other, a joint's first
  // dof follows its parent body's last. body_leaf[b] (indexed by body, resized to the number of
  // bodies; set for the tree's bodies only) is the last dof on b's path, -1 if none: a point on b
  // moves with exactly the dofs on the dof_parent path from body_leaf[b]. O(bodies + nv_t).
  void TreeDofStructure(int tree, std::vector<int>* dof_parent, std::vector<int>* body_leaf) const;
  // Angular velocity [rad/s] of `body` given v (zero for bodies without a tree).
  Vec3 AngularVelocity(const KinematicsCache& kin, const VecX& v, int body) const;
  // Adds the generalized force J_pᵀ f of a force f_W [N] applied at p_W on `body` to *tau
  // (size nv; only the body's tree changes). No-op for bodies without a tree.
  void AddPointForce(const KinematicsCache& kin, int body, const Vec3& p_W, const Vec3& f_W,
                     VecX* tau) const;

  // Velocity at t of the material point of a static or prescribed body at p_W (world, includes
  // the belt surface velocity). Zero for the world (body = -1). Used for the constraint bias b.
  Vec3 PrescribedPointVelocity(int body, const Vec3& p_W, double t) const;
  // Velocity of the material point of any body at p_W given v.
  Vec3 PointVelocity(const KinematicsCache& kin, const VecX& v, int body, const Vec3& p_W) const;

  // Mass matrix block of one tree, nv_t x nv_t, SPD (composite rigid body algorithm), with each
  // joint's armature added to the diagonal entries of its dofs.
  void MassMatrix(const KinematicsCache& kin, int tree, MatX* M) const;
  // Per tree dof, the armature of its joint (Joint::armature), nv_t values; empty when every
  // joint of the tree has armature 0. The per-dof form below (TreeNodeInertias) holds the bodies
  // only: M = that form + diag(armature).
  void TreeArmature(int tree, std::vector<double>* armature) const;
  // The same mass matrix in the per-dof form of ArticulatedTreeSolver
  // (engine/multibody/articulated_tree.h): Phi (6 x nv_t) column i = [ω_i; v_i + ω_i × (r0 − o_i)]
  // the world-frame motion of dof i about r0, dof_parent as TreeDofStructure gives it, and
  // inertia (36 nv_t values, 6 x 6 column-major per dof) the spatial inertias about r0 in world
  // axes, [[I, [h]×], [−[h]×, m 1]] (h = m (c − r0)), of the bodies whose last dof is i, so that
  // M(j, k) = Φ_kᵀ (Σ over j's subtree of inertia) Φ_j. body_leaf as TreeDofStructure gives it.
  // O(bodies + nv_t).
  void TreeDofMotion(const KinematicsCache& kin, int tree, const Vec3& r0, MatX* Phi) const;
  void TreeNodeInertias(const KinematicsCache& kin, int tree, const Vec3& r0,
                        const std::vector<int>& body_leaf, std::vector<double>* inertia) const;

  // k1(q, v, t): springs, dampers, PD actuators (effort-limited), size nv.
  void SpringDamperForces(const VecX& q, const VecX& v, double t, VecX* k1) const;
  // Diagonal stiffness K = −∂k1/∂q and damping D = −∂k1/∂v (size nv; zero for free joints and
  // for actuators saturated at their effort limit).
  void SpringDamperDiagonals(const VecX& q, const VecX& v, double t, VecX* K, VecX* D) const;
  // k2(q, v) = gravity − C(q, v) v, size nv (recursive Newton-Euler, O(n) per tree).
  void BiasForces(const KinematicsCache& kin, const VecX& v, const Vec3& gravity, VecX* k2) const;

  // q̇ = N(q) v.
  void QDot(const VecX& q, const VecX& v, VecX* qdot) const;
  // q = q0 + h N v, integrating quaternions with the exponential map (stays unit).
  void IntegratePositions(const VecX& q0, const VecX& v, double h, VecX* q) const;
  // Normalizes the quaternions of free joints in place.
  void NormalizeQuaternions(VecX* q) const;

  // ½ vᵀ M v [J] (bodies and joint armature).
  double KineticEnergy(const KinematicsCache& kin, const VecX& v) const;
  // The same from the body velocities BodyVelocities gave for (kin, v).
  double KineticEnergy(const VecX& v, const KinematicsCache& kin, const std::vector<Vec3>& omega,
                       const std::vector<Vec3>& v_com) const;
  // Every body's angular velocity ω_b and centre-of-mass velocity (world) given v, in one pass
  // over the trees from the roots (O(bodies + nv); zero for bodies without a tree), equal to
  // AngularVelocity(kin, v, b) and PointVelocity(kin, v, b, com_W[b]) up to summation order.
  void BodyVelocities(const KinematicsCache& kin, const VecX& v, std::vector<Vec3>* omega,
                      std::vector<Vec3>* v_com) const;
  // Gravity potential −Σ m gᵀ com (zero at the world origin) plus joint-spring energy [J].
  double PotentialEnergy(const KinematicsCache& kin, const VecX& q, const Vec3& gravity) const;

 private:
  const Model* model_;
};

}  // namespace contactlab
