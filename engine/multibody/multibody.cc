// Rigid multibody kinematics and dynamics. All quantities are in the world frame; Jacobians are
// built column by column from the per-dof world motions in KinematicsCache (O(n²) per tree). The
// mass matrix comes from the Composite Rigid Body Algorithm and the bias forces from the Recursive
// Newton-Euler Algorithm (O(n) per tree), both in world-axis spatial algebra (engine/common/spatial.h).
// The Jacobian-based formulations they replaced are kept at the end of this file as test
// references (engine/multibody/multibody_reference.h).
#include "engine/multibody/multibody.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "engine/multibody/multibody_reference.h"
#include "engine/common/spatial.h"

namespace contactlab {
namespace {

// Pose of the joint J(q) relative to the joint frame for a 1-dof joint.
Pose JointMotion(const Joint& jt, double qj) {
  Pose x;
  if (jt.type == JointType::kRevolute) {
    x.q = Quat(Eigen::AngleAxisd(qj, jt.axis));
  } else if (jt.type == JointType::kPrismatic) {
    x.p = qj * jt.axis;
  }
  return x;
}

// Unit quaternion of a free joint stored as [qw qx qy qz] at q[start + 3].
Quat FreeQuat(const VecX& q, int start) {
  Quat r(q[start + 3], q[start + 4], q[start + 5], q[start + 6]);
  const double n = r.norm();
  if (n > 0) r.coeffs() /= n;
  return r;
}

// Unit quaternion of a ball joint stored as [qw qx qy qz] at q[start].
Quat BallQuat(const VecX& q, int start) {
  Quat r(q[start], q[start + 1], q[start + 2], q[start + 3]);
  const double n = r.norm();
  if (n > 0) r.coeffs() /= n;
  return r;
}

// Offset of a joint's quaternion in q: 3 for a free joint, 0 for a ball joint, -1 otherwise.
int QuatOffset(JointType t) { return t == JointType::kFree ? 3 : t == JointType::kBall ? 0 : -1; }

// exp(h ω / 2) as a unit quaternion: the rotation by angle |hω| about ω.
Quat RotationVectorToQuat(const Vec3& rv) {
  const double angle = rv.norm();
  if (angle < 1e-300) return Quat::Identity();
  return Quat(Eigen::AngleAxisd(angle, rv / angle));
}

// Pose of a prescribed body at time t (see PrescribedMotion in model.h).
Pose PrescribedPose(const Body& body, double t) {
  const PrescribedMotion& m = body.motion;
  Pose x;
  x.p = body.pose0.p + m.velocity * t +
        m.oscillation_axis * (m.amplitude * std::sin(2.0 * kPi * m.frequency * t));
  x.q = (RotationVectorToQuat(m.angular_velocity * t) * body.pose0.q.normalized()).normalized();
  return x;
}

}  // namespace

Multibody::Multibody(const Model* model) : model_(model) {}

void Multibody::UpdateKinematics(const VecX& q, double t, KinematicsCache* kin) const {
  const Model& m = *model_;
  const int nb = static_cast<int>(m.bodies.size());
  kin->time = t;
  kin->X_WB.assign(nb, Pose());
  kin->com_W.assign(nb, Vec3::Zero());
  kin->dof_angular.assign(m.nv, Vec3::Zero());
  kin->dof_linear.assign(m.nv, Vec3::Zero());
  kin->dof_origin.assign(m.nv, Vec3::Zero());

  // Scratch kept per thread (no allocation in the steady-state step).
  thread_local std::vector<char> done;
  thread_local std::vector<int> chain;
  done.assign(nb, 0);
  for (int b0 = 0; b0 < nb; ++b0) {
    // Collect the not-yet-computed ancestors of b0 (inclusive), then compute them top-down.
    chain.clear();
    for (int b = b0; b >= 0 && !done[b];) {
      chain.push_back(b);
      const int j = m.bodies[b].joint;
      b = j >= 0 ? m.joints[j].parent : -1;
    }
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      const int b = *it;
      const Body& body = m.bodies[b];
      Pose& X = kin->X_WB[b];
      if (body.joint < 0) {
        if (body.prescribed) {
          X = PrescribedPose(body, t);
        } else {
          X = Pose{body.pose0.p, body.pose0.q.normalized()};
        }
      } else {
        const Joint& jt = m.joints[body.joint];
        const Pose X_WP = jt.parent >= 0 ? kin->X_WB[jt.parent] : Pose();
        if (jt.type == JointType::kFree) {
          X.p = q.segment<3>(jt.q_start);
          X.q = FreeQuat(q, jt.q_start);
          for (int k = 0; k < 3; ++k) {
            kin->dof_linear[jt.v_start + k] = Vec3::Unit(k);
            kin->dof_angular[jt.v_start + 3 + k] = Vec3::Unit(k);
            kin->dof_origin[jt.v_start + k] = X.p;
            kin->dof_origin[jt.v_start + 3 + k] = X.p;
          }
        } else if (jt.type == JointType::kBall) {
          // ω is expressed in the parent's joint frame F: the dof directions are F's axes, fixed
          // in the parent body, through the joint center.
          const Pose X_WF = X_WP * jt.parent_from_joint;
          X = X_WF * Pose{Vec3::Zero(), BallQuat(q, jt.q_start)} * jt.child_from_joint.Inverse();
          const Mat3 R_WF = X_WF.R();
          for (int k = 0; k < 3; ++k) {
            kin->dof_angular[jt.v_start + k] = R_WF.col(k);
            kin->dof_origin[jt.v_start + k] = X_WF.p;
          }
        } else {
          const Pose X_WJ = X_WP * jt.parent_from_joint;
          const double qj = jt.type == JointType::kFixed ? 0.0 : q[jt.q_start];
          X = X_WJ * JointMotion(jt, qj) * jt.child_from_joint.Inverse();
          if (jt.type == JointType::kRevolute) {
            kin->dof_angular[jt.v_start] = X_WJ.Rotate(jt.axis);
            kin->dof_origin[jt.v_start] = X_WJ.p;
          } else if (jt.type == JointType::kPrismatic) {
            kin->dof_linear[jt.v_start] = X_WJ.Rotate(jt.axis);
            kin->dof_origin[jt.v_start] = X_WJ.p;
          }
        }
      }
      kin->com_W[b] = X.Apply(body.com);
      done[b] = 1;
    }
  }
}

namespace {

// Calls f(column_in_tree, dof_index) for every dof on the path from `body` up to the world.
template <typename F>
void ForEachAncestorDof(const Model& m, int body, F f) {
  const int tree = m.BodyTree(body);
  if (tree < 0) return;
  const int v0 = m.trees[tree].v_start;
  for (int b = body; b >= 0;) {
    const int j = m.bodies[b].joint;
    if (j < 0) break;
    const Joint& jt = m.joints[j];
    const int nvj = JointNv(jt.type);
    for (int k = 0; k < nvj; ++k) f(jt.v_start + k - v0, jt.v_start + k);
    b = jt.parent;
  }
}

}  // namespace

void Multibody::AddPointForce(const KinematicsCache& kin, int body, const Vec3& p_W,
                              const Vec3& f_W, VecX* tau) const {
  if (body < 0 || model_->BodyTree(body) < 0) return;
  // τ += J_pᵀ f, one column of J_p per ancestor dof (no Jacobian is formed).
  ForEachAncestorDof(*model_, body, [&](int, int dof) {
    (*tau)[dof] +=
        (kin.dof_linear[dof] + kin.dof_angular[dof].cross(p_W - kin.dof_origin[dof])).dot(f_W);
  });
}

void Multibody::PointJacobian(const KinematicsCache& kin, int body, const Vec3& p_W,
                              MatX* J) const {
  const int tree = model_->BodyTree(body);
  const int nv_t = tree < 0 ? 0 : model_->trees[tree].nv;
  J->setZero(3, nv_t);
  ForEachAncestorDof(*model_, body, [&](int col, int dof) {
    J->col(col) = kin.dof_linear[dof] + kin.dof_angular[dof].cross(p_W - kin.dof_origin[dof]);
  });
}

void Multibody::AngularJacobian(const KinematicsCache& kin, int body, MatX* J) const {
  const int tree = model_->BodyTree(body);
  const int nv_t = tree < 0 ? 0 : model_->trees[tree].nv;
  J->setZero(3, nv_t);
  ForEachAncestorDof(*model_, body, [&](int col, int dof) { J->col(col) = kin.dof_angular[dof]; });
}

void Multibody::AddRotatedPointJacobian(const KinematicsCache& kin, int body, const Vec3& p_W,
                                        const Mat3& C, double sign, double* J) const {
  ForEachAncestorDof(*model_, body, [&](int col, int dof) {
    Eigen::Map<Vec3>(J + 3 * col) +=
        sign * (C * (kin.dof_linear[dof] + kin.dof_angular[dof].cross(p_W - kin.dof_origin[dof])));
  });
}

void Multibody::TreeDofStructure(int tree, std::vector<int>* dof_parent,
                                 std::vector<int>* body_leaf) const {
  const Tree& tr = model_->trees[tree];
  dof_parent->assign(tr.nv, -1);
  body_leaf->resize(model_->bodies.size(), -1);
  // Bodies in topological order: a parent's leaf is known before its children's.
  for (const int b : tr.bodies) {
    const int j = model_->bodies[b].joint;
    int parent_leaf = -1;
    int nvj = 0, l0 = 0;
    if (j >= 0) {
      const Joint& jt = model_->joints[j];
      if (jt.parent >= 0 && model_->BodyTree(jt.parent) == tree) parent_leaf = (*body_leaf)[jt.parent];
      nvj = JointNv(jt.type);
      l0 = jt.v_start - tr.v_start;
    }
    for (int k = 0; k < nvj; ++k) (*dof_parent)[l0 + k] = k == 0 ? parent_leaf : l0 + k - 1;
    (*body_leaf)[b] = nvj > 0 ? l0 + nvj - 1 : parent_leaf;
  }
}

Vec3 Multibody::AngularVelocity(const KinematicsCache& kin, const VecX& v, int body) const {
  Vec3 w = Vec3::Zero();
  ForEachAncestorDof(*model_, body, [&](int, int dof) { w += kin.dof_angular[dof] * v[dof]; });
  return w;
}

Vec3 Multibody::PrescribedPointVelocity(int body, const Vec3& p_W, double t) const {
  if (body < 0) return Vec3::Zero();
  const Body& b = model_->bodies[body];
  if (!b.prescribed) return Vec3::Zero();  // static, or welded to a static body or the world
  const PrescribedMotion& mo = b.motion;
  const Pose X = PrescribedPose(b, t);
  const double w = 2.0 * kPi * mo.frequency;
  const Vec3 v_origin = mo.velocity + mo.oscillation_axis * (mo.amplitude * w * std::cos(w * t));
  return v_origin + mo.angular_velocity.cross(p_W - X.p) + X.Rotate(mo.surface_velocity);
}

Vec3 Multibody::PointVelocity(const KinematicsCache& kin, const VecX& v, int body,
                              const Vec3& p_W) const {
  if (body < 0) return Vec3::Zero();
  const int tree = model_->BodyTree(body);
  if (tree < 0) return PrescribedPointVelocity(body, p_W, kin.time);
  Vec3 vp = Vec3::Zero();
  ForEachAncestorDof(*model_, body, [&](int, int dof) {
    vp += (kin.dof_linear[dof] + kin.dof_angular[dof].cross(p_W - kin.dof_origin[dof])) * v[dof];
  });
  return vp;
}

namespace {

// Motion subspace column of dof `dof`: the spatial velocity (about r0) a unit rate produces.
SpatialMotion DofMotion(const KinematicsCache& kin, int dof, const Vec3& r0) {
  const Vec3& w = kin.dof_angular[dof];
  return {w, kin.dof_linear[dof] + w.cross(r0 - kin.dof_origin[dof])};
}

// Spatial inertia of body b about r0, world axes.
SpatialInertia BodySpatialInertia(const Model& m, const KinematicsCache& kin, int b,
                                  const Vec3& r0) {
  const Body& body = m.bodies[b];
  const Mat3 R = kin.X_WB[b].R();
  return SpatialInertia::FromBody(body.mass, kin.com_W[b] - r0, R * body.inertia * R.transpose());
}

// Per-tree work arrays of the recursive algorithms, reused across calls.
struct TreeWorkspace {
  std::vector<int> parent;          // per tree body: index of its parent in Tree::bodies, or -1
  std::vector<int> dof0, ndof;      // per tree body: first tree dof and dof count of its joint
  std::vector<SpatialMotion> S;     // per tree dof: motion subspace column
  std::vector<SpatialInertia> Ic;   // per tree body: composite inertia (CRBA)
  std::vector<SpatialMotion> V, A;  // per tree body: velocity, velocity-product acceleration
  std::vector<SpatialForce> F;      // per tree body: net force, then subtree force (RNEA)

  // Sizes the arrays and fills `parent`, `dof0`, `ndof` and `S` for tree `tr`, with reference
  // point r0.
  void Prepare(const Model& m, const Tree& tr, const KinematicsCache& kin, const Vec3& r0) {
    const int n = static_cast<int>(tr.bodies.size());
    parent.resize(n);
    dof0.resize(n);
    ndof.resize(n);
    S.resize(tr.nv);
    Ic.resize(n);
    V.resize(n);
    A.resize(n);
    F.resize(n);
    for (int i = 0; i < n; ++i) {
      // Bodies are in topological order, so the parent precedes the body (usually just before).
      const Joint& jt = m.joints[m.bodies[tr.bodies[i]].joint];
      ndof[i] = JointNv(jt.type);
      dof0[i] = ndof[i] > 0 ? jt.v_start - tr.v_start : 0;  // fixed joints: v_start = -1
      const int P = jt.parent;
      parent[i] = -1;
      for (int k = i - 1; k >= 0; --k) {
        if (tr.bodies[k] == P) {
          parent[i] = k;
          break;
        }
      }
    }
    for (int k = 0; k < tr.nv; ++k) S[k] = DofMotion(kin, tr.v_start + k, r0);
  }
};

TreeWorkspace& Workspace() {
  thread_local TreeWorkspace ws;
  return ws;
}

// M_ii += armature of dof i's joint, for the dofs of tree `tr` (M is nv_t x nv_t).
void AddArmature(const Model& m, const Tree& tr, MatX* M) {
  for (const int b : tr.bodies) {
    const Joint& jt = m.joints[m.bodies[b].joint];
    if (jt.armature == 0 || jt.v_start < 0) continue;
    for (int k = 0; k < JointNv(jt.type); ++k) {
      const int i = jt.v_start - tr.v_start + k;
      (*M)(i, i) += jt.armature;
    }
  }
}

}  // namespace

// Composite Rigid Body Algorithm. Spatial quantities are taken about the tree root's origin (a
// point fixed in space at this instant), in world axes, so no frame transforms are needed and
// coordinates stay small wherever the tree is. The composite inertia I^c_b of each body's subtree
// is accumulated leaf to root; for each dof j of b's joint, F = I^c_b S_j is the force that
// accelerates the subtree rigidly along S_j, and M_kj = M_jk = S_kᵀ F for every dof k of b's
// joint and of its ancestors' joints.
void Multibody::MassMatrix(const KinematicsCache& kin, int tree, MatX* M) const {
  const Model& m = *model_;
  const Tree& tr = m.trees[tree];
  M->setZero(tr.nv, tr.nv);
  const Vec3 r0 = kin.X_WB[tr.root_body].p;
  TreeWorkspace& ws = Workspace();
  ws.Prepare(m, tr, kin, r0);
  const int n = static_cast<int>(tr.bodies.size());
  for (int i = 0; i < n; ++i) ws.Ic[i] = BodySpatialInertia(m, kin, tr.bodies[i], r0);
  for (int i = n - 1; i >= 0; --i) {
    // All descendants of i come after it, so Ic[i] is complete here.
    for (int a = 0; a < ws.ndof[i]; ++a) {
      const int col = ws.dof0[i] + a;
      const SpatialForce f = ws.Ic[i] * ws.S[col];
      // The joint's own block; each entry is written to both triangles, so M is exactly
      // symmetric.
      for (int row = ws.dof0[i]; row <= col; ++row) {
        (*M)(row, col) = (*M)(col, row) = Dot(ws.S[row], f);
      }
      for (int k = ws.parent[i]; k >= 0; k = ws.parent[k]) {
        for (int row = ws.dof0[k]; row < ws.dof0[k] + ws.ndof[k]; ++row) {
          (*M)(row, col) = (*M)(col, row) = Dot(ws.S[row], f);
        }
      }
    }
    if (ws.parent[i] >= 0) ws.Ic[ws.parent[i]] += ws.Ic[i];
  }
  AddArmature(m, tr, M);
}

void Multibody::TreeArmature(int tree, std::vector<double>* armature) const {
  const Model& m = *model_;
  const Tree& tr = m.trees[tree];
  armature->clear();
  for (const int b : tr.bodies) {
    const Joint& jt = m.joints[m.bodies[b].joint];
    if (jt.armature == 0 || jt.v_start < 0) continue;
    if (armature->empty()) armature->assign(tr.nv, 0.0);
    for (int k = 0; k < JointNv(jt.type); ++k) (*armature)[jt.v_start - tr.v_start + k] = jt.armature;
  }
}

void Multibody::TreeDofMotion(const KinematicsCache& kin, int tree, const Vec3& r0,
                              MatX* Phi) const {
  const Tree& tr = model_->trees[tree];
  Phi->resize(6, tr.nv);
  for (int i = 0; i < tr.nv; ++i) {
    const SpatialMotion s = DofMotion(kin, tr.v_start + i, r0);
    Phi->col(i).head<3>() = s.w;
    Phi->col(i).tail<3>() = s.v;
  }
}

void Multibody::TreeNodeInertias(const KinematicsCache& kin, int tree, const Vec3& r0,
                                 const std::vector<int>& body_leaf,
                                 std::vector<double>* inertia) const {
  const Model& m = *model_;
  const Tree& tr = m.trees[tree];
  inertia->assign(36 * static_cast<size_t>(tr.nv), 0.0);
  for (const int b : tr.bodies) {
    const int leaf = body_leaf[b];
    if (leaf < 0) continue;  // no dof on the body's path: it does not move with the tree
    const SpatialInertia S = BodySpatialInertia(m, kin, b, r0);
    Eigen::Map<Eigen::Matrix<double, 6, 6>> I(inertia->data() + 36 * static_cast<size_t>(leaf));
    Mat3 hx;  // [h]×
    hx << 0, -S.h.z(), S.h.y(), S.h.z(), 0, -S.h.x(), -S.h.y(), S.h.x(), 0;
    I.topLeftCorner<3, 3>() += S.I;
    I.topRightCorner<3, 3>() += hx;
    I.bottomLeftCorner<3, 3>() -= hx;
    I.bottomRightCorner<3, 3>().diagonal().array() += S.m;
  }
}

void Multibody::SpringDamperForces(const VecX& q, const VecX& v, double t, VecX* k1) const {
  const Model& m = *model_;
  k1->setZero(m.nv);
  for (const Joint& jt : m.joints) {
    if (jt.type == JointType::kBall && jt.v_start >= 0) {
      // Isotropic damping of the relative angular velocity; no spring or actuator.
      k1->segment<3>(jt.v_start) = -jt.damping * v.segment<3>(jt.v_start);
      continue;
    }
    if (JointNv(jt.type) != 1 || jt.v_start < 0) continue;
    const double qj = q[jt.q_start], vj = v[jt.v_start];
    double tau = -jt.spring_stiffness * (qj - jt.spring_reference) - jt.damping * vj;
    const Actuator& a = jt.actuator;
    if (a.enabled) {
      const double u =
          a.kp * (a.setpoint.Evaluate(t) - qj) + a.kd * (a.setpoint.Derivative(t) - vj);
      tau += std::clamp(u, -a.effort_limit, a.effort_limit);
    }
    (*k1)[jt.v_start] = tau;
  }
}

void Multibody::SpringDamperDiagonals(const VecX& q, const VecX& v, double t, VecX* K,
                                      VecX* D) const {
  const Model& m = *model_;
  K->setZero(m.nv);
  D->setZero(m.nv);
  for (const Joint& jt : m.joints) {
    if (jt.type == JointType::kBall && jt.v_start >= 0) {
      D->segment<3>(jt.v_start).setConstant(jt.damping);
      continue;
    }
    if (JointNv(jt.type) != 1 || jt.v_start < 0) continue;
    double kk = jt.spring_stiffness, dd = jt.damping;
    const Actuator& a = jt.actuator;
    if (a.enabled) {
      const double qj = q[jt.q_start], vj = v[jt.v_start];
      const double u =
          a.kp * (a.setpoint.Evaluate(t) - qj) + a.kd * (a.setpoint.Derivative(t) - vj);
      // A saturated actuator exerts a constant torque: its contribution to K and D vanishes.
      if (std::abs(u) <= a.effort_limit) {
        kk += a.kp;
        dd += a.kd;
      }
    }
    (*K)[jt.v_start] = kk;
    (*D)[jt.v_start] = dd;
  }
}

// Recursive Newton-Euler Algorithm with v̇ = 0, per tree, about the tree root's origin in world
// axes. Forward pass: body velocities V_i = V_p + S_i v_i and velocity-product accelerations
// A_i = A_p + V_p ×ₘ (S_i v_i) (a revolute, prismatic or ball subspace is fixed in the parent
// body; a ball joint's ω is expressed in the parent's joint frame for this reason). A
// free joint's columns depend on the body origin x, which moves: with v = [ẋ, ω] constant the
// velocity of the point at r0, ẋ + ω × (r0 − x), changes at ẋ × ω. Backward pass: net forces
// F_i = I_i (A_i − [0; g]) + V_i ×f I_i V_i summed over subtrees; k2_i = −S_iᵀ F_i.
void Multibody::BiasForces(const KinematicsCache& kin, const VecX& v, const Vec3& gravity,
                           VecX* k2) const {
  const Model& m = *model_;
  k2->setZero(m.nv);
  TreeWorkspace& ws = Workspace();
  for (const Tree& tr : m.trees) {
    const Vec3 r0 = kin.X_WB[tr.root_body].p;
    ws.Prepare(m, tr, kin, r0);
    const int n = static_cast<int>(tr.bodies.size());
    for (int i = 0; i < n; ++i) {
      const int b = tr.bodies[i];
      const Joint& jt = m.joints[m.bodies[b].joint];
      const int P = ws.parent[i];
      SpatialMotion vj;  // joint velocity S_i v_i
      for (int a = 0; a < ws.ndof[i]; ++a) {
        vj += ws.S[ws.dof0[i] + a] * v[tr.v_start + ws.dof0[i] + a];
      }
      if (P >= 0) {
        ws.V[i] = ws.V[P] + vj;
        ws.A[i] = ws.A[P] + CrossMotion(ws.V[P], vj);
      } else {
        // Tree root: the parent (world, a static body or a welded chain) does not move.
        ws.V[i] = vj;
        ws.A[i] = SpatialMotion();
        if (jt.type == JointType::kFree) {
          ws.A[i].v = v.segment<3>(jt.v_start).cross(v.segment<3>(jt.v_start + 3));
        }
      }
      const SpatialInertia I = BodySpatialInertia(m, kin, b, r0);
      // Gravity is the uniform acceleration field [0; g], so it enters as A_i − [0; g].
      ws.F[i] =
          I * SpatialMotion{ws.A[i].w, ws.A[i].v - gravity} + CrossForce(ws.V[i], I * ws.V[i]);
    }
    for (int i = n - 1; i >= 0; --i) {
      for (int a = 0; a < ws.ndof[i]; ++a) {
        const int d = ws.dof0[i] + a;
        (*k2)[tr.v_start + d] = -Dot(ws.S[d], ws.F[i]);
      }
      if (ws.parent[i] >= 0) ws.F[ws.parent[i]] += ws.F[i];
    }
  }
}

void Multibody::QDot(const VecX& q, const VecX& v, VecX* qdot) const {
  const Model& m = *model_;
  qdot->setZero(m.nq);
  for (const Joint& jt : m.joints) {
    const int qo = QuatOffset(jt.type);
    if (qo >= 0 && jt.q_start >= 0) {
      // Free: ẋ = v. Both: q̇ = ½ [0, ω] ⊗ q, ω in the parent frame (the world for a free joint,
      // the parent's joint frame F for a ball joint).
      if (jt.type == JointType::kFree) {
        qdot->segment<3>(jt.q_start) = v.segment<3>(jt.v_start);
      }
      const int qs = jt.q_start + qo, vs = jt.v_start + qo;
      const Vec3 om = v.segment<3>(vs);
      const Quat qq(q[qs], q[qs + 1], q[qs + 2], q[qs + 3]);
      const Quat dq = Quat(0.0, om.x(), om.y(), om.z()) * qq;
      (*qdot)[qs] = 0.5 * dq.w();
      (*qdot)[qs + 1] = 0.5 * dq.x();
      (*qdot)[qs + 2] = 0.5 * dq.y();
      (*qdot)[qs + 3] = 0.5 * dq.z();
    } else if (JointNv(jt.type) == 1) {
      (*qdot)[jt.q_start] = v[jt.v_start];
    }
  }
}

void Multibody::IntegratePositions(const VecX& q0, const VecX& v, double h, VecX* q) const {
  const Model& m = *model_;
  *q = q0;
  for (const Joint& jt : m.joints) {
    const int qo = QuatOffset(jt.type);
    if (qo >= 0 && jt.q_start >= 0) {
      if (jt.type == JointType::kFree) {
        q->segment<3>(jt.q_start) += h * v.segment<3>(jt.v_start);
      }
      // Left multiplication by exp(h ω / 2): ω in the parent frame (see QDot).
      const int qs = jt.q_start + qo, vs = jt.v_start + qo;
      const Quat r0 = BallQuat(q0, qs);
      const Quat r = (RotationVectorToQuat(h * v.segment<3>(vs)) * r0).normalized();
      (*q)[qs] = r.w();
      (*q)[qs + 1] = r.x();
      (*q)[qs + 2] = r.y();
      (*q)[qs + 3] = r.z();
    } else if (JointNv(jt.type) == 1) {
      (*q)[jt.q_start] += h * v[jt.v_start];
    }
  }
}

void Multibody::NormalizeQuaternions(VecX* q) const {
  for (const Joint& jt : model_->joints) {
    const int qo = QuatOffset(jt.type);
    if (qo < 0 || jt.q_start < 0) continue;
    auto seg = q->segment<4>(jt.q_start + qo);
    const double n = seg.norm();
    if (n > 0) seg /= n;
  }
}

void Multibody::BodyVelocities(const KinematicsCache& kin, const VecX& v, std::vector<Vec3>* omega,
                               std::vector<Vec3>* v_com) const {
  const Model& m = *model_;
  omega->assign(m.bodies.size(), Vec3::Zero());
  v_com->assign(m.bodies.size(), Vec3::Zero());
  // Parents first (each tree's body list is topological): a body moves with its parent (rigidly,
  // about the parent's centre of mass) plus its own joint's dofs.
  for (const Tree& tree : m.trees) {
    for (const int b : tree.bodies) {
      const int j = m.bodies[b].joint;
      if (j < 0) continue;
      const Joint& jt = m.joints[j];
      const Vec3& c = kin.com_W[b];
      Vec3 w = Vec3::Zero(), vc = Vec3::Zero();
      if (jt.parent >= 0 && m.BodyTree(jt.parent) >= 0) {
        w = (*omega)[jt.parent];
        vc = (*v_com)[jt.parent] + w.cross(c - kin.com_W[jt.parent]);
      }
      const int nvj = JointNv(jt.type);
      for (int k = 0; k < nvj; ++k) {
        const int dof = jt.v_start + k;
        w += kin.dof_angular[dof] * v[dof];
        vc += (kin.dof_linear[dof] + kin.dof_angular[dof].cross(c - kin.dof_origin[dof])) * v[dof];
      }
      (*omega)[b] = w;
      (*v_com)[b] = vc;
    }
  }
}

double Multibody::KineticEnergy(const KinematicsCache& kin, const VecX& v) const {
  thread_local std::vector<Vec3> omega, v_com;
  BodyVelocities(kin, v, &omega, &v_com);
  return KineticEnergy(v, kin, omega, v_com);
}

double Multibody::KineticEnergy(const VecX& v, const KinematicsCache& kin,
                                const std::vector<Vec3>& omega,
                                const std::vector<Vec3>& v_com) const {
  // Σ_b ½ m_b |v_com|² + ½ ω_bᵀ I_b,W ω_b: the same ½ vᵀ M v without forming M.
  const Model& m = *model_;
  double e = 0;
  for (int b = 0; b < static_cast<int>(m.bodies.size()); ++b) {
    if (m.BodyTree(b) < 0) continue;  // static and prescribed bodies carry no energy here
    const Mat3 R = kin.X_WB[b].R();
    const Vec3 wb = R.transpose() * omega[b];  // body axes, where the inertia is given
    e += 0.5 * (m.bodies[b].mass * v_com[b].squaredNorm() + wb.dot(m.bodies[b].inertia * wb));
  }
  for (const Joint& jt : m.joints) {
    if (jt.armature == 0 || jt.v_start < 0) continue;
    e += 0.5 * jt.armature * v.segment(jt.v_start, JointNv(jt.type)).squaredNorm();
  }
  return e;
}

double Multibody::PotentialEnergy(const KinematicsCache& kin, const VecX& q,
                                  const Vec3& gravity) const {
  const Model& m = *model_;
  double e = 0;
  for (int b = 0; b < static_cast<int>(m.bodies.size()); ++b) {
    if (m.bodies[b].joint < 0) continue;  // static and prescribed bodies have no energy budget
    e -= m.bodies[b].mass * gravity.dot(kin.com_W[b]);
  }
  for (const Joint& jt : m.joints) {
    if (JointNv(jt.type) != 1 || jt.q_start < 0) continue;
    const double dq = q[jt.q_start] - jt.spring_reference;
    e += 0.5 * jt.spring_stiffness * dq * dq;
  }
  return e;
}

namespace internal {

void ReferenceMassMatrix(const Multibody& mb, const KinematicsCache& kin, int tree, MatX* M) {
  const Model& m = mb.model();
  const Tree& tr = m.trees[tree];
  M->setZero(tr.nv, tr.nv);
  MatX Jc, Jw;
  for (int b : tr.bodies) {
    const Body& body = m.bodies[b];
    mb.PointJacobian(kin, b, kin.com_W[b], &Jc);
    mb.AngularJacobian(kin, b, &Jw);
    const Mat3 R = kin.X_WB[b].R();
    const Mat3 I_W = R * body.inertia * R.transpose();
    M->noalias() += body.mass * Jc.transpose() * Jc;
    M->noalias() += Jw.transpose() * I_W * Jw;
  }
  // Remove round-off asymmetry so that M is exactly symmetric.
  *M = 0.5 * (*M + M->transpose()).eval();
  for (const int b : tr.bodies) {
    const Joint& jt = m.joints[m.bodies[b].joint];
    for (int k = 0; k < JointNv(jt.type) && jt.v_start >= 0; ++k) {
      (*M)(jt.v_start - tr.v_start + k, jt.v_start - tr.v_start + k) += jt.armature;
    }
  }
}

void ReferenceBiasForces(const Multibody& mb, const KinematicsCache& kin, const VecX& v,
                         const Vec3& gravity, VecX* k2) {
  const Model& m = mb.model();
  const int nb = static_cast<int>(m.bodies.size());
  k2->setZero(m.nv);
  // Per body (world frame): angular velocity, velocity-product angular acceleration, velocity and
  // velocity-product acceleration of the body-frame origin (accelerations with v̇ = 0).
  std::vector<Vec3> w(nb, Vec3::Zero()), alpha(nb, Vec3::Zero());
  std::vector<Vec3> v_o(nb, Vec3::Zero()), a_o(nb, Vec3::Zero());
  MatX Jc, Jw;
  for (int t = 0; t < static_cast<int>(m.trees.size()); ++t) {
    const Tree& tr = m.trees[t];
    VecX k2_tree = VecX::Zero(tr.nv);
    for (int b : tr.bodies) {
      const Body& body = m.bodies[b];
      const Joint& jt = m.joints[body.joint];
      const Vec3& x = kin.X_WB[b].p;  // origin of b
      if (jt.type == JointType::kFree) {
        v_o[b] = v.segment<3>(jt.v_start);
        w[b] = v.segment<3>(jt.v_start + 3);
        alpha[b].setZero();
        a_o[b].setZero();
      } else {
        // Parent motion (zero for the world and for bodies without dofs).
        const int P = jt.parent;
        const bool moving = P >= 0 && m.bodies[P].tree >= 0;
        const Vec3 w_P = moving ? w[P] : Vec3::Zero();
        const Vec3 alpha_P = moving ? alpha[P] : Vec3::Zero();
        const Vec3 r = moving ? Vec3(x - kin.X_WB[P].p) : Vec3::Zero();
        // Velocity and acceleration of the point of P coincident with x.
        const Vec3 v_Px = moving ? Vec3(v_o[P] + w_P.cross(r)) : Vec3::Zero();
        const Vec3 a_Px =
            moving ? Vec3(a_o[P] + alpha_P.cross(r) + w_P.cross(w_P.cross(r))) : Vec3::Zero();
        Vec3 w_rel = Vec3::Zero(), v_rel = Vec3::Zero(), a_rel = Vec3::Zero();
        if (jt.type == JointType::kRevolute || jt.type == JointType::kBall) {
          // A rotation about a point fixed in P, at a rate constant in P's frame.
          const int d = jt.v_start;
          for (int k = 0; k < JointNv(jt.type); ++k) w_rel += kin.dof_angular[d + k] * v[d + k];
          const Vec3 rx = x - kin.dof_origin[d];
          v_rel = w_rel.cross(rx);
          a_rel = w_rel.cross(v_rel);  // centripetal acceleration of the relative rotation
        } else if (jt.type == JointType::kPrismatic) {
          const int d = jt.v_start;
          v_rel = kin.dof_linear[d] * v[d];
        }
        w[b] = w_P + w_rel;
        alpha[b] = alpha_P + w_P.cross(w_rel);
        v_o[b] = v_Px + v_rel;
        a_o[b] = a_Px + a_rel + 2.0 * w_P.cross(v_rel);
      }
      // Velocity-product acceleration of the COM and the resulting generalized forces.
      const Vec3 rc = kin.com_W[b] - x;
      const Vec3 a_com = a_o[b] + alpha[b].cross(rc) + w[b].cross(w[b].cross(rc));
      const Mat3 R = kin.X_WB[b].R();
      const Mat3 I_W = R * body.inertia * R.transpose();
      const Vec3 force = body.mass * (gravity - a_com);
      const Vec3 torque = -(I_W * alpha[b]) - w[b].cross(I_W * w[b]);
      mb.PointJacobian(kin, b, kin.com_W[b], &Jc);
      mb.AngularJacobian(kin, b, &Jw);
      k2_tree.noalias() += Jc.transpose() * force;
      k2_tree.noalias() += Jw.transpose() * torque;
    }
    k2->segment(tr.v_start, tr.nv) = k2_tree;
  }
}

}  // namespace internal
}  // namespace contactlab
