// Tests of the rigid multibody layer: kinematics, Jacobians, mass matrix, bias forces, springs and
// actuators, integration of positions and prescribed motion. The recursive mass matrix (CRBA) and
// bias forces (RNEA) are also compared with the Jacobian-based references.
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "app/scene.h"
#include "engine/multibody/multibody.h"
#include "engine/multibody/multibody_reference.h"
#include "engine/sim/simulator.h"

namespace contactlab {
namespace {

Quat RandomQuat(std::mt19937* rng) {
  std::normal_distribution<double> n(0.0, 1.0);
  Quat q(n(*rng), n(*rng), n(*rng), n(*rng));
  return q.normalized();
}

Vec3 RandomVec(std::mt19937* rng, double scale) {
  std::uniform_real_distribution<double> u(-scale, scale);
  return Vec3(u(*rng), u(*rng), u(*rng));
}

// Symmetric positive definite inertia with distinct principal moments and rotated axes.
Mat3 AsymmetricInertia(std::mt19937* rng, double a, double b, double c) {
  const Mat3 R = RandomQuat(rng).toRotationMatrix();
  return R * Vec3(a, b, c).asDiagonal() * R.transpose();
}

int AddBody(Model* m, const std::string& name, double mass, const Vec3& com, const Mat3& inertia) {
  Body b;
  b.name = name;
  b.mass = mass;
  b.com = com;
  b.inertia = inertia;
  m->bodies.push_back(b);
  return static_cast<int>(m->bodies.size()) - 1;
}

int AddJoint(Model* m, const std::string& name, JointType type, int parent, int child,
             const Pose& X_PJ, const Pose& X_CJ, const Vec3& axis) {
  Joint j;
  j.name = name;
  j.type = type;
  j.parent = parent;
  j.child = child;
  j.parent_from_joint = X_PJ;
  j.child_from_joint = X_CJ;
  j.axis = axis;
  m->joints.push_back(j);
  return static_cast<int>(m->joints.size()) - 1;
}

// One free body, COM offset from its origin, asymmetric inertia.
Model FreeBodyModel(std::mt19937* rng) {
  Model m;
  const int b =
      AddBody(&m, "box", 2.5, Vec3(0.1, -0.05, 0.2), AsymmetricInertia(rng, 0.1, 0.2, 0.35));
  m.bodies[b].pose0 = Pose{Vec3(0.3, -0.2, 1.0), RandomQuat(rng)};
  AddJoint(&m, "free", JointType::kFree, -1, b, Pose(), Pose(), Vec3::UnitZ());
  m.Finalize();
  return m;
}

// Three links: revolute (tilted axis), prismatic, revolute, with offset joint frames and COMs.
Model ChainModel(std::mt19937* rng) {
  Model m;
  const int l1 =
      AddBody(&m, "l1", 1.2, Vec3(0.05, 0.0, -0.2), AsymmetricInertia(rng, 0.02, 0.03, 0.04));
  const int l2 =
      AddBody(&m, "l2", 0.8, Vec3(0.0, 0.1, -0.1), AsymmetricInertia(rng, 0.01, 0.015, 0.02));
  const int l3 =
      AddBody(&m, "l3", 0.5, Vec3(0.02, 0.03, -0.25), AsymmetricInertia(rng, 0.005, 0.007, 0.011));
  AddJoint(&m, "j1", JointType::kRevolute, -1, l1, Pose{Vec3(0, 0, 1.5), RandomQuat(rng)},
           Pose{Vec3(0.0, 0.0, 0.1), Quat::Identity()}, Vec3(0.3, 1.0, 0.2));
  AddJoint(&m, "j2", JointType::kPrismatic, l1, l2, Pose{Vec3(0.1, 0, -0.4), RandomQuat(rng)},
           Pose{Vec3(0, -0.05, 0.05), RandomQuat(rng)}, Vec3(1.0, 0.0, 0.5));
  AddJoint(&m, "j3", JointType::kRevolute, l2, l3, Pose{Vec3(0, 0.2, -0.2), RandomQuat(rng)},
           Pose{Vec3(0, 0, 0.05), RandomQuat(rng)}, Vec3(0.0, 0.2, 1.0));
  m.Finalize();
  return m;
}

// Floating base with two children (revolute, then prismatic) and a welded tip: exercises the
// free joint's influence on descendants and a fixed joint inside a tree.
Model FloatingChainModel(std::mt19937* rng) {
  Model m;
  const int base =
      AddBody(&m, "base", 3.0, Vec3(0.02, 0.01, -0.03), AsymmetricInertia(rng, 0.05, 0.08, 0.1));
  const int arm =
      AddBody(&m, "arm", 1.0, Vec3(0.0, 0.0, -0.15), AsymmetricInertia(rng, 0.01, 0.012, 0.004));
  const int slider =
      AddBody(&m, "slider", 0.6, Vec3(0.03, 0.0, 0.0), AsymmetricInertia(rng, 0.002, 0.003, 0.004));
  const int tip =
      AddBody(&m, "tip", 0.3, Vec3(0.0, 0.02, 0.0), AsymmetricInertia(rng, 0.001, 0.0015, 0.002));
  m.bodies[base].pose0 = Pose{Vec3(0.1, 0.2, 0.8), RandomQuat(rng)};
  AddJoint(&m, "free", JointType::kFree, -1, base, Pose(), Pose(), Vec3::UnitZ());
  AddJoint(&m, "hinge", JointType::kRevolute, base, arm, Pose{Vec3(0.1, 0, 0), RandomQuat(rng)},
           Pose{Vec3(0, 0, 0.1), Quat::Identity()}, Vec3(1, 0, 0));
  AddJoint(&m, "slide", JointType::kPrismatic, arm, slider, Pose{Vec3(0, 0, -0.3), RandomQuat(rng)},
           Pose(), Vec3(0, 1, 0));
  AddJoint(&m, "weld", JointType::kFixed, slider, tip, Pose{Vec3(0.05, 0, 0), RandomQuat(rng)},
           Pose(), Vec3::UnitZ());
  m.Finalize();
  return m;
}

// Arm on a base welded to a rotated, displaced static body: the tree hangs from a non-world frame.
Model ArmOnStaticBaseModel(std::mt19937* rng) {
  Model m;
  const int ground = AddBody(&m, "ground", 1.0, Vec3::Zero(), Mat3::Identity());
  m.bodies[ground].pose0 = Pose{Vec3(0.4, -0.3, 0.2), RandomQuat(rng)};
  const int base = AddBody(&m, "base", 4.0, Vec3::Zero(), Mat3::Identity() * 0.1);
  const int a =
      AddBody(&m, "a", 1.0, Vec3(0.0, 0.05, -0.2), AsymmetricInertia(rng, 0.01, 0.02, 0.03));
  const int b =
      AddBody(&m, "b", 0.5, Vec3(0.1, 0.0, -0.1), AsymmetricInertia(rng, 0.004, 0.006, 0.009));
  AddJoint(&m, "weld", JointType::kFixed, ground, base, Pose{Vec3(0, 0, 0.3), RandomQuat(rng)},
           Pose(), Vec3::UnitZ());
  AddJoint(&m, "ja", JointType::kRevolute, base, a, Pose{Vec3(0.1, 0, 0), RandomQuat(rng)},
           Pose{Vec3(0, 0, 0.05), Quat::Identity()}, Vec3(0, 1, 0));
  AddJoint(&m, "jb", JointType::kPrismatic, a, b, Pose{Vec3(0, 0, -0.4), RandomQuat(rng)}, Pose(),
           Vec3(0.2, 0.1, 1.0));
  m.Finalize();
  return m;
}

VecX RandomConfiguration(const Model& m, const Multibody& mb, std::mt19937* rng) {
  VecX q = m.q_default;
  VecX dv = VecX::Zero(m.nv);
  for (int i = 0; i < m.nv; ++i) dv[i] = RandomVec(rng, 0.6).x();
  VecX out;
  mb.IntegratePositions(q, dv, 1.0, &out);
  return out;
}

VecX RandomVelocity(const Model& m, std::mt19937* rng, double scale) {
  VecX v(m.nv);
  for (int i = 0; i < m.nv; ++i) v[i] = RandomVec(rng, scale).x();
  return v;
}

// Block-diagonal mass matrix of all trees.
MatX FullMassMatrix(const Multibody& mb, const KinematicsCache& kin) {
  const Model& m = mb.model();
  MatX M = MatX::Zero(m.nv, m.nv);
  MatX Mt;
  for (int t = 0; t < static_cast<int>(m.trees.size()); ++t) {
    mb.MassMatrix(kin, t, &Mt);
    M.block(m.trees[t].v_start, m.trees[t].v_start, m.trees[t].nv, m.trees[t].nv) = Mt;
  }
  return M;
}

// v̇ = M⁻¹ (k1 + k2).
VecX Acceleration(const Multibody& mb, const VecX& q, const VecX& v, double t, const Vec3& g) {
  KinematicsCache kin;
  mb.UpdateKinematics(q, t, &kin);
  VecX k1, k2;
  mb.SpringDamperForces(q, v, t, &k1);
  mb.BiasForces(kin, v, g, &k2);
  return FullMassMatrix(mb, kin).llt().solve(k1 + k2);
}

// One classical RK4 step of (q̇ = N(q) v, M v̇ = k1 + k2); quaternions renormalized after the step.
void Rk4Step(const Multibody& mb, double t, double h, const Vec3& g, VecX* q, VecX* v) {
  VecX qd1, qd2, qd3, qd4;
  const VecX q0 = *q, v0 = *v;
  mb.QDot(q0, v0, &qd1);
  const VecX a1 = Acceleration(mb, q0, v0, t, g);
  const VecX q2 = q0 + 0.5 * h * qd1, v2 = v0 + 0.5 * h * a1;
  mb.QDot(q2, v2, &qd2);
  const VecX a2 = Acceleration(mb, q2, v2, t + 0.5 * h, g);
  const VecX q3 = q0 + 0.5 * h * qd2, v3 = v0 + 0.5 * h * a2;
  mb.QDot(q3, v3, &qd3);
  const VecX a3 = Acceleration(mb, q3, v3, t + 0.5 * h, g);
  const VecX q4 = q0 + h * qd3, v4 = v0 + h * a3;
  mb.QDot(q4, v4, &qd4);
  const VecX a4 = Acceleration(mb, q4, v4, t + h, g);
  *q = q0 + h / 6.0 * (qd1 + 2 * qd2 + 2 * qd3 + qd4);
  *v = v0 + h / 6.0 * (a1 + 2 * a2 + 2 * a3 + a4);
  mb.NormalizeQuaternions(q);
}

Vec3 BodyAngularVelocity(const Multibody& mb, const KinematicsCache& kin, const VecX& v, int b) {
  const int t = mb.model().BodyTree(b);
  if (t < 0) return Vec3::Zero();
  MatX Jw;
  mb.AngularJacobian(kin, b, &Jw);
  return Jw * v.segment(mb.model().trees[t].v_start, mb.model().trees[t].nv);
}

// Linear and angular momentum (about the world origin) of all bodies with joints.
void Momentum(const Multibody& mb, const VecX& q, const VecX& v, Vec3* P, Vec3* L) {
  KinematicsCache kin;
  mb.UpdateKinematics(q, 0.0, &kin);
  P->setZero();
  L->setZero();
  const Model& m = mb.model();
  for (int b = 0; b < static_cast<int>(m.bodies.size()); ++b) {
    if (m.bodies[b].joint < 0) continue;
    const Vec3 vc = mb.PointVelocity(kin, v, b, kin.com_W[b]);
    const Vec3 w = BodyAngularVelocity(mb, kin, v, b);
    const Mat3 R = kin.X_WB[b].R();
    *P += m.bodies[b].mass * vc;
    *L += m.bodies[b].mass * kin.com_W[b].cross(vc) + R * m.bodies[b].inertia * R.transpose() * w;
  }
}

// Rotation vector of R_a R_bᵀ.
Vec3 RotationDifference(const Quat& a, const Quat& b) {
  const Eigen::AngleAxisd aa(a * b.conjugate());
  return aa.angle() * aa.axis();
}

TEST(MultibodyTest, FreeBodyMassMatrixMatchesClosedForm) {
  std::mt19937 rng(1);
  const Model m = FreeBodyModel(&rng);
  const Multibody mb(&m);
  KinematicsCache kin;
  mb.UpdateKinematics(m.q_default, 0.0, &kin);
  MatX M;
  mb.MassMatrix(kin, 0, &M);
  // Closed form for v = [v_origin, ω]: v_com = v_origin − [r]× ω with r = R com.
  const Body& b = m.bodies[0];
  const Mat3 R = m.bodies[0].pose0.q.normalized().toRotationMatrix();
  const Vec3 r = R * b.com;
  const Mat3 I_W = R * b.inertia * R.transpose();
  MatX expected(6, 6);
  expected.topLeftCorner<3, 3>() = b.mass * Mat3::Identity();
  expected.topRightCorner<3, 3>() = -b.mass * Skew(r);
  expected.bottomLeftCorner<3, 3>() = b.mass * Skew(r);
  expected.bottomRightCorner<3, 3>() = I_W - b.mass * Skew(r) * Skew(r);
  // Both sides are a handful of products of O(1) numbers: only round-off separates them.
  EXPECT_LT((M - expected).cwiseAbs().maxCoeff(), 1e-12 * expected.cwiseAbs().maxCoeff());
  // The free body pose comes straight from q_default (pose0).
  EXPECT_LT((kin.X_WB[0].p - b.pose0.p).norm(), 1e-15);  // copied, not computed
}

TEST(MultibodyTest, ChainMassMatrixIsSymmetricPositiveDefinite) {
  std::mt19937 rng(2);
  const Model m = ChainModel(&rng);
  const Multibody mb(&m);
  ASSERT_EQ(m.trees.size(), 1u);
  ASSERT_EQ(m.nv, 3);
  for (int trial = 0; trial < 10; ++trial) {
    KinematicsCache kin;
    mb.UpdateKinematics(RandomConfiguration(m, mb, &rng), 0.0, &kin);
    MatX M;
    mb.MassMatrix(kin, 0, &M);
    // Symmetry is exact up to round-off of O(1) entries.
    EXPECT_LT((M - M.transpose()).cwiseAbs().maxCoeff(), 1e-14);
    Eigen::SelfAdjointEigenSolver<MatX> eig(M);
    // The smallest eigenvalue is bounded below by the rotational inertias (≥ ~1e-3 here); a
    // singular M would give ~1e-16.
    EXPECT_GT(eig.eigenvalues().minCoeff(), 1e-4);
    EXPECT_EQ(M.llt().info(), Eigen::Success);
  }
}

// Material points and body rotations moved by IntegratePositions(q, ±h v) against J v.
void CheckJacobiansByFiniteDifferences(const Model& m, std::mt19937* rng) {
  const Multibody mb(&m);
  for (int trial = 0; trial < 5; ++trial) {
    const VecX q = RandomConfiguration(m, mb, rng);
    const VecX v = RandomVelocity(m, rng, 1.0);
    const double h = 1e-6;
    VecX qp, qm;
    mb.IntegratePositions(q, v, h, &qp);
    mb.IntegratePositions(q, v, -h, &qm);
    KinematicsCache k0, kp, km;
    mb.UpdateKinematics(q, 0.0, &k0);
    mb.UpdateKinematics(qp, 0.0, &kp);
    mb.UpdateKinematics(qm, 0.0, &km);
    for (int b = 0; b < static_cast<int>(m.bodies.size()); ++b) {
      const int t = m.BodyTree(b);
      if (t < 0) continue;  // static or welded: no dofs (checked in WeldedBodiesHaveNoDofs)
      const VecX vt = v.segment(m.trees[t].v_start, m.trees[t].nv);
      const Vec3 local = RandomVec(rng, 0.3);
      const Vec3 p = k0.X_WB[b].Apply(local);
      MatX J, Jw;
      mb.PointJacobian(k0, b, p, &J);
      mb.AngularJacobian(k0, b, &Jw);
      const Vec3 fd = (kp.X_WB[b].Apply(local) - km.X_WB[b].Apply(local)) / (2 * h);
      // Central differences: truncation O(h²) ~ 1e-12, round-off ~ 1e-16 / h ~ 1e-10.
      EXPECT_LT((J * vt - fd).norm(), 1e-8) << "body " << m.bodies[b].name;
      const Vec3 w_fd = RotationDifference(kp.X_WB[b].q, km.X_WB[b].q) / (2 * h);
      EXPECT_LT((Jw * vt - w_fd).norm(), 1e-8) << "body " << m.bodies[b].name;
      // PointVelocity is J v evaluated without forming J.
      EXPECT_LT((mb.PointVelocity(k0, v, b, p) - J * vt).norm(), 1e-13);  // round-off only
    }
  }
}

TEST(MultibodyTest, PointJacobianMatchesFiniteDifferencesChain) {
  std::mt19937 rng(3);
  CheckJacobiansByFiniteDifferences(ChainModel(&rng), &rng);
}

TEST(MultibodyTest, PointJacobianMatchesFiniteDifferencesFloatingChain) {
  std::mt19937 rng(4);
  CheckJacobiansByFiniteDifferences(FloatingChainModel(&rng), &rng);
}

TEST(MultibodyTest, PointJacobianMatchesFiniteDifferencesOnStaticBase) {
  std::mt19937 rng(15);
  const Model m = ArmOnStaticBaseModel(&rng);
  ASSERT_EQ(m.BodyTree(m.FindBody("base")), -1);
  ASSERT_EQ(m.BodyTree(m.FindBody("a")), 0);
  CheckJacobiansByFiniteDifferences(m, &rng);
}

TEST(MultibodyTest, QDotMatchesIntegratePositions) {
  std::mt19937 rng(5);
  const Model m = FloatingChainModel(&rng);
  const Multibody mb(&m);
  const VecX q = RandomConfiguration(m, mb, &rng);
  const VecX v = RandomVelocity(m, &rng, 2.0);
  VecX qd, qp, qm;
  mb.QDot(q, v, &qd);
  const double h = 1e-6;
  mb.IntegratePositions(q, v, h, &qp);
  mb.IntegratePositions(q, v, -h, &qm);
  // Central difference of the exact flow: truncation O(h²), round-off ~ 1e-10.
  EXPECT_LT(((qp - qm) / (2 * h) - qd).cwiseAbs().maxCoeff(), 1e-8);
}

TEST(MultibodyTest, IntegratePositionsRotatesByWorldAngularVelocity) {
  std::mt19937 rng(6);
  const Model m = FreeBodyModel(&rng);
  const Multibody mb(&m);
  VecX v = VecX::Zero(6);
  v.segment<3>(0) = Vec3(0.5, -1.0, 2.0);
  v.segment<3>(3) = Vec3(3.0, -2.0, 1.0);
  const double h = 0.37;  // a large step: the exponential map is exact for constant ω
  VecX q;
  mb.IntegratePositions(m.q_default, v, h, &q);
  const Quat q0 = m.bodies[0].pose0.q.normalized();
  const Vec3 w = v.segment<3>(3);
  const Quat expected = Quat(Eigen::AngleAxisd(w.norm() * h, w.normalized())) * q0;
  const Quat got(q[3], q[4], q[5], q[6]);
  // Same rotation computed two ways; round-off only.
  EXPECT_LT(RotationDifference(got, expected).norm(), 1e-12);
  EXPECT_NEAR(got.norm(), 1.0, 1e-14);  // exp map output renormalized: unit to round-off
  EXPECT_LT((q.segment<3>(0) - (m.bodies[0].pose0.p + h * v.segment<3>(0))).norm(), 1e-14);
}

TEST(MultibodyTest, KineticEnergyMatchesBodySum) {
  std::mt19937 rng(7);
  for (const Model& m : {ChainModel(&rng), FloatingChainModel(&rng), FreeBodyModel(&rng)}) {
    const Multibody mb(&m);
    const VecX q = RandomConfiguration(m, mb, &rng);
    const VecX v = RandomVelocity(m, &rng, 1.5);
    KinematicsCache kin;
    mb.UpdateKinematics(q, 0.0, &kin);
    double sum = 0;
    for (int b = 0; b < static_cast<int>(m.bodies.size()); ++b) {
      const Vec3 vc = mb.PointVelocity(kin, v, b, kin.com_W[b]);
      const Vec3 w = BodyAngularVelocity(mb, kin, v, b);
      const Mat3 R = kin.X_WB[b].R();
      sum += 0.5 * m.bodies[b].mass * vc.squaredNorm() +
             0.5 * w.dot(R * m.bodies[b].inertia * R.transpose() * w);
    }
    const double ke = mb.KineticEnergy(kin, v);
    EXPECT_GT(ke, 0.0);
    // Two summation orders of the same quadratic form: round-off only.
    EXPECT_NEAR(ke, sum, 1e-12 * sum);
    // And the mass matrix of the CRBA: ½ vᵀ M v per tree (KineticEnergy no longer forms M).
    double vmv = 0;
    for (int t = 0; t < static_cast<int>(m.trees.size()); ++t) {
      MatX M;
      mb.MassMatrix(kin, t, &M);
      const auto vt = v.segment(m.trees[t].v_start, m.trees[t].nv);
      vmv += 0.5 * vt.dot(M * vt);
    }
    EXPECT_NEAR(ke, vmv, 1e-12 * vmv);
  }
}

TEST(MultibodyTest, FreeBodyBiasForcesMatchNewtonEuler) {
  std::mt19937 rng(8);
  const Model m = FreeBodyModel(&rng);
  const Multibody mb(&m);
  const VecX q = RandomConfiguration(m, mb, &rng);
  const VecX v = RandomVelocity(m, &rng, 3.0);
  const Vec3 g(0.3, -0.4, -9.81);
  KinematicsCache kin;
  mb.UpdateKinematics(q, 0.0, &kin);
  VecX k2;
  mb.BiasForces(kin, v, g, &k2);
  // Newton-Euler about the body origin with v̇ = 0: the COM has centripetal acceleration
  // ω × (ω × r), the rotation contributes the gyroscopic torque −ω × I ω.
  const Body& b = m.bodies[0];
  const Mat3 R = kin.X_WB[0].R();
  const Vec3 r = R * b.com;
  const Mat3 I_W = R * b.inertia * R.transpose();
  const Vec3 w = v.segment<3>(3);
  const Vec3 f = b.mass * (g - w.cross(w.cross(r)));
  const Vec3 tau = r.cross(f) - w.cross(I_W * w);
  // O(10) quantities from a few products; round-off only.
  EXPECT_LT((k2.segment<3>(0) - f).norm(), 1e-12);
  EXPECT_LT((k2.segment<3>(3) - tau).norm(), 1e-12);
}

// For 1-dof joints (q̇ = v), Lagrange's equations give k2 = −Ṁ v + ∂T/∂q + gravity.
void CheckBiasAgainstLagrangian(const Model& m, std::mt19937* rng) {
  const Multibody mb(&m);
  for (int trial = 0; trial < 5; ++trial) {
    const VecX q = RandomConfiguration(m, mb, rng);
    const VecX v = RandomVelocity(m, rng, 2.0);
    KinematicsCache kin;
    mb.UpdateKinematics(q, 0.0, &kin);
    VecX k2;
    mb.BiasForces(kin, v, Vec3::Zero(), &k2);
    const double h = 1e-5;
    auto mass = [&](const VecX& qq) {
      KinematicsCache k;
      mb.UpdateKinematics(qq, 0.0, &k);
      return FullMassMatrix(mb, k);
    };
    const MatX Mdot = (mass(q + h * v) - mass(q - h * v)) / (2 * h);
    VecX dTdq(m.nv);
    for (int i = 0; i < m.nv; ++i) {
      VecX dq = VecX::Zero(m.nv);
      dq[i] = h;
      dTdq[i] = 0.5 * v.dot((mass(q + dq) - mass(q - dq)) * v) / (2 * h);
    }
    const VecX expected = -Mdot * v + dTdq;
    // Central differences with h = 1e-5: truncation ~ h² |M'''| ~ 1e-10, round-off ~ 1e-11.
    EXPECT_LT((k2 - expected).cwiseAbs().maxCoeff(), 1e-7)
        << "k2 = " << k2.transpose() << "\nexpected = " << expected.transpose();
  }
}

TEST(MultibodyTest, ChainBiasForcesMatchLagrangian) {
  std::mt19937 rng(9);
  CheckBiasAgainstLagrangian(ChainModel(&rng), &rng);
}

TEST(MultibodyTest, StaticBaseArmBiasForcesMatchLagrangian) {
  std::mt19937 rng(16);
  CheckBiasAgainstLagrangian(ArmOnStaticBaseModel(&rng), &rng);
}

// The same check for a planar double pendulum (two revolute joints about parallel axes).
TEST(MultibodyTest, DoublePendulumBiasForcesMatchLagrangian) {
  Model m;
  const Mat3 I = Vec3(0.01, 0.02, 0.015).asDiagonal();
  const int a = AddBody(&m, "a", 1.0, Vec3(0, 0, -0.5), I);
  const int b = AddBody(&m, "b", 0.7, Vec3(0, 0, -0.4), I);
  AddJoint(&m, "ja", JointType::kRevolute, -1, a, Pose(), Pose(), Vec3::UnitY());
  AddJoint(&m, "jb", JointType::kRevolute, a, b, Pose{Vec3(0, 0, -1.0), Quat::Identity()}, Pose(),
           Vec3::UnitY());
  m.Finalize();
  const Multibody mb(&m);
  const Vec3 g(0, 0, -9.81);
  const VecX q = Eigen::Vector2d(0.4, -0.9);
  const VecX v = Eigen::Vector2d(1.3, 2.1);
  KinematicsCache kin;
  mb.UpdateKinematics(q, 0.0, &kin);
  VecX k2;
  mb.BiasForces(kin, v, g, &k2);
  // Textbook double pendulum: c_a, c_b COM distances, l = 1 link length, J_a, J_b = I_yy.
  const double ma = 1.0, mbb = 0.7, ca = 0.5, cb = 0.4, l = 1.0, gz = 9.81;
  const double s = std::sin(q[1]);
  const double h = mbb * l * cb * s;
  // k2 = −C v + gravity; −C v = [h (2 q̇1 q̇2 + q̇2²), −h q̇1²] for angles measured about +y.
  Eigen::Vector2d expected(h * (2 * v[0] * v[1] + v[1] * v[1]), -h * v[0] * v[0]);
  // Gravity torques for θ about +y with the links hanging along −z: −∂V/∂θ.
  expected[0] += -(ma * ca + mbb * l) * gz * std::sin(q[0]) - mbb * cb * gz * std::sin(q[0] + q[1]);
  expected[1] += -mbb * cb * gz * std::sin(q[0] + q[1]);
  // Closed form versus O(1) sums: round-off only.
  EXPECT_LT((k2 - expected).cwiseAbs().maxCoeff(), 1e-12)
      << "k2 = " << k2.transpose() << "\nexpected = " << expected.transpose();
}

TEST(MultibodyTest, GravityForcesAreMinusPotentialGradient) {
  std::mt19937 rng(10);
  const Vec3 g(0.5, 1.0, -9.81);
  for (const Model& m : {ChainModel(&rng), FloatingChainModel(&rng), ArmOnStaticBaseModel(&rng)}) {
    const Multibody mb(&m);
    const VecX q = RandomConfiguration(m, mb, &rng);
    KinematicsCache kin;
    mb.UpdateKinematics(q, 0.0, &kin);
    VecX k2;
    mb.BiasForces(kin, VecX::Zero(m.nv), g, &k2);  // v = 0: gravity part only
    const double h = 1e-6;
    for (int i = 0; i < m.nv; ++i) {
      VecX e = VecX::Zero(m.nv);
      e[i] = 1.0;
      VecX qp, qm;
      mb.IntegratePositions(q, e, h, &qp);
      mb.IntegratePositions(q, e, -h, &qm);
      KinematicsCache kp, km;
      mb.UpdateKinematics(qp, 0.0, &kp);
      mb.UpdateKinematics(qm, 0.0, &km);
      const double dV = (mb.PotentialEnergy(kp, qp, g) - mb.PotentialEnergy(km, qm, g)) / (2 * h);
      // Energies ~ 100 J: round-off 1e-14 / h ~ 1e-8; truncation ~ h² ~ 1e-12.
      EXPECT_NEAR(k2[i], -dV, 1e-6) << "dof " << i;
    }
  }
}

// No gravity, no springs: RK4 with small steps must conserve kinetic energy and, for the floating
// systems, world linear and angular momentum.
void CheckConservation(const Model& m, std::mt19937* rng, bool floating, double v_scale) {
  const Multibody mb(&m);
  VecX q = RandomConfiguration(m, mb, rng);
  VecX v = RandomVelocity(m, rng, v_scale);
  KinematicsCache kin;
  mb.UpdateKinematics(q, 0.0, &kin);
  const double e0 = mb.KineticEnergy(kin, v);
  Vec3 P0, L0;
  Momentum(mb, q, v, &P0, &L0);
  const double h = 1e-3;
  for (int step = 0; step < 1000; ++step) Rk4Step(mb, step * h, h, Vec3::Zero(), &q, &v);
  mb.UpdateKinematics(q, 0.0, &kin);
  const double e1 = mb.KineticEnergy(kin, v);
  // RK4 global error ~ h⁴ = 1e-12 per unit time times derivative bounds; 1e-8 relative leaves
  // margin, while a wrong Coriolis or gyroscopic term changes the energy at O(1).
  EXPECT_NEAR(e1, e0, 1e-8 * e0);
  if (floating) {
    Vec3 P1, L1;
    Momentum(mb, q, v, &P1, &L1);
    EXPECT_LT((P1 - P0).norm(), 1e-8 * (P0.norm() + 1.0));  // same RK4 accuracy argument
    EXPECT_LT((L1 - L0).norm(), 1e-8 * (L0.norm() + 1.0));
  }
}

// Joint armature: M with armature equals M without it plus the armature on the diagonal entries
// of each joint's dofs (free joint 6, hinge 1, slide 1; the weld has none), in the CRBA and the
// Jacobian reference, and the kinetic energy gains ½ Σ a v². Exact up to round-off (the same
// sums with one term added to the diagonal).
TEST(MultibodyTest, ArmatureAddsToTheMassMatrixDiagonal) {
  std::mt19937 rng(5), rng_same(5);
  const Model plain = FloatingChainModel(&rng);
  Model with = FloatingChainModel(&rng_same);
  const double armature[] = {0.3, 0.02, 0.05, 0.7};  // free, hinge, slide, weld (no dofs)
  for (int j = 0; j < 4; ++j) with.joints[j].armature = armature[j];
  const Multibody mb0(&plain), mb1(&with);
  VecX diag = VecX::Zero(with.nv);
  for (const Joint& jt : with.joints) {
    for (int k = 0; k < JointNv(jt.type); ++k) diag[jt.v_start + k] = jt.armature;
  }
  ASSERT_EQ(with.nv, 8);
  EXPECT_EQ(diag.sum(), 6 * 0.3 + 0.02 + 0.05);
  for (int trial = 0; trial < 5; ++trial) {
    const VecX q = RandomConfiguration(plain, mb0, &rng);
    const VecX v = RandomVelocity(plain, &rng, 1.5);
    KinematicsCache kin;
    mb0.UpdateKinematics(q, 0.0, &kin);
    MatX M0, M1, R1;
    mb0.MassMatrix(kin, 0, &M0);
    mb1.MassMatrix(kin, 0, &M1);
    internal::ReferenceMassMatrix(mb1, kin, 0, &R1);
    const MatX expected = M0 + MatX(diag.asDiagonal());
    EXPECT_LT((M1 - expected).cwiseAbs().maxCoeff(), 1e-14 * expected.norm());
    EXPECT_LT((R1 - expected).cwiseAbs().maxCoeff(), 1e-12 * expected.norm());
    std::vector<double> a;
    mb1.TreeArmature(0, &a);
    ASSERT_EQ(a.size(), 8u);
    for (int i = 0; i < 8; ++i) EXPECT_EQ(a[i], diag[i]);
    mb0.TreeArmature(0, &a);
    EXPECT_TRUE(a.empty());
    const double ke0 = mb0.KineticEnergy(kin, v), ke1 = mb1.KineticEnergy(kin, v);
    const double extra = 0.5 * v.dot(diag.asDiagonal() * v);
    EXPECT_NEAR(ke1, ke0 + extra, 1e-13 * ke1);
    EXPECT_NEAR(ke1, 0.5 * v.dot(M1 * v), 1e-12 * ke1);
  }
  // A negative or non-finite armature is refused by Finalize.
  for (const double bad : {-1.0, std::nan("")}) {
    std::mt19937 r(5);
    Model m = FloatingChainModel(&r);
    m.joints[1].armature = bad;
    EXPECT_THROW(m.Finalize(), std::invalid_argument);
  }
}

// With armature the dynamics (M with armature, the same bias forces: armature is constant)
// still conserve energy: KineticEnergy and MassMatrix agree on it.
TEST(MultibodyTest, FloatingChainWithArmatureConservesEnergy) {
  std::mt19937 rng(12);
  Model m = FloatingChainModel(&rng);
  for (Joint& jt : m.joints) jt.armature = 0.05;
  CheckConservation(m, &rng, false, 2.0);
}

TEST(MultibodyTest, ChainConservesKineticEnergy) {
  std::mt19937 rng(11);
  CheckConservation(ChainModel(&rng), &rng, false, 2.0);
}

TEST(MultibodyTest, FloatingChainConservesEnergyAndMomentum) {
  std::mt19937 rng(12);
  CheckConservation(FloatingChainModel(&rng), &rng, true, 2.0);
}

TEST(MultibodyTest, TorqueFreeAsymmetricBodyConservesAngularMomentum) {
  std::mt19937 rng(13);
  const Model m = FreeBodyModel(&rng);
  const Multibody mb(&m);
  VecX q = m.q_default;
  VecX v(6);
  v << 0.2, -0.1, 0.3, 1.0, 3.0, -2.0;  // spin near no principal axis: strong precession
  Vec3 P0, L0;
  Momentum(mb, q, v, &P0, &L0);
  KinematicsCache kin;
  mb.UpdateKinematics(q, 0.0, &kin);
  const double e0 = mb.KineticEnergy(kin, v);
  const Vec3 w0 = v.segment<3>(3);
  const double h = 1e-3;
  for (int step = 0; step < 2000; ++step) Rk4Step(mb, step * h, h, Vec3::Zero(), &q, &v);
  Vec3 P1, L1;
  Momentum(mb, q, v, &P1, &L1);
  mb.UpdateKinematics(q, 0.0, &kin);
  // RK4 with h = 1e-3 over 2 s: error ~ 1e-11 relative; the gyroscopic term is O(1).
  EXPECT_LT((L1 - L0).norm(), 1e-8 * L0.norm());
  EXPECT_LT((P1 - P0).norm(), 1e-8 * P0.norm());
  EXPECT_NEAR(mb.KineticEnergy(kin, v), e0, 1e-8 * e0);
  // The test is not vacuous: the angular velocity changed direction substantially.
  EXPECT_GT((v.segment<3>(3) - w0).norm(), 0.1);
}

TEST(MultibodyTest, PendulumSmallAmplitudePeriod) {
  Model m;
  const double L = 0.8, g = 9.81;
  const int b = AddBody(&m, "bob", 1.0, Vec3::Zero(), Mat3::Identity() * 1e-8);
  // Joint frame at the pivot, which is L above the bob's origin.
  AddJoint(&m, "pivot", JointType::kRevolute, -1, b, Pose{Vec3(0, 0, 2.0), Quat::Identity()},
           Pose{Vec3(0, 0, L), Quat::Identity()}, Vec3::UnitY());
  m.Finalize();
  const Multibody mb(&m);
  VecX q(1), v(1);
  q << 0.02;
  v << 0.0;
  const double h = 1e-3;
  double t = 0, prev = q[0];
  std::vector<double> crossings;  // downward zero crossings of θ
  while (t < 10.0 && crossings.size() < 4) {
    Rk4Step(mb, t, h, Vec3(0, 0, -g), &q, &v);
    t += h;
    if (prev > 0 && q[0] <= 0) crossings.push_back(t - h * q[0] / (q[0] - prev));
    prev = q[0];
  }
  ASSERT_EQ(crossings.size(), 4u);
  const double period = (crossings[3] - crossings[0]) / 3.0;
  const double expected = 2 * kPi * std::sqrt(L / g);
  // The brief's 0.5%: the amplitude correction (θ₀²/16 = 2.5e-5), the 1e-8 inertia and RK4 plus
  // linear-interpolation errors are all far below it.
  EXPECT_NEAR(period, expected, 0.005 * expected);
}

TEST(MultibodyTest, PrescribedVelocityMatchesPoseFiniteDifference) {
  Model m;
  Body belt;
  belt.name = "belt";
  belt.prescribed = true;
  belt.pose0 = Pose{Vec3(0.5, -0.2, 0.1), Quat(Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized()))};
  belt.motion.velocity = Vec3(0.1, 0.2, -0.05);
  belt.motion.oscillation_axis = Vec3(0, 0.6, 0.8);
  belt.motion.amplitude = 0.05;
  belt.motion.frequency = 1.5;
  belt.motion.angular_velocity = Vec3(0.3, -0.8, 1.1);
  m.bodies.push_back(belt);
  m.Finalize();
  EXPECT_EQ(m.BodyTree(0), -1);
  const Multibody mb(&m);
  const VecX q0 = VecX::Zero(0);
  const Vec3 local(0.2, -0.1, 0.3);
  for (double t : {0.0, 0.37, 1.9}) {
    KinematicsCache k0, kp, km;
    const double h = 1e-5;
    mb.UpdateKinematics(q0, t, &k0);
    mb.UpdateKinematics(q0, t + h, &kp);
    mb.UpdateKinematics(q0, t - h, &km);
    const Vec3 p = k0.X_WB[0].Apply(local);
    const Vec3 fd = (kp.X_WB[0].Apply(local) - km.X_WB[0].Apply(local)) / (2 * h);
    const Vec3 vp = mb.PrescribedPointVelocity(0, p, t);
    // Truncation h² |p'''| ~ 1e-10 · (2π·1.5)³ · 0.05 ~ 4e-9; round-off ~ 1e-16 / h ~ 1e-11.
    EXPECT_LT((vp - fd).norm(), 1e-7) << "t = " << t;
    // PointVelocity of a prescribed body delegates to the prescribed motion.
    EXPECT_LT((mb.PointVelocity(k0, VecX(), 0, p) - vp).norm(), 1e-15);  // same computation
  }
  // The belt surface velocity is added in the body frame.
  m.bodies[0].motion.surface_velocity = Vec3(0.4, 0.0, 0.0);
  const double t = 0.6;
  KinematicsCache kin;
  mb.UpdateKinematics(q0, t, &kin);
  const Vec3 p = kin.X_WB[0].Apply(local);
  const Vec3 with_belt = mb.PrescribedPointVelocity(0, p, t);
  m.bodies[0].motion.surface_velocity.setZero();
  const Vec3 without = mb.PrescribedPointVelocity(0, p, t);
  EXPECT_LT((with_belt - without - kin.X_WB[0].Rotate(Vec3(0.4, 0, 0))).norm(), 1e-15);  // exact
  // Static bodies and the world do not move.
  EXPECT_EQ(mb.PrescribedPointVelocity(-1, p, t), Vec3::Zero());
}

TEST(MultibodyTest, WeldedBodiesHaveNoDofs) {
  Model m;
  const int base = AddBody(&m, "base", 5.0, Vec3::Zero(), Mat3::Identity());
  const int link = AddBody(&m, "link", 1.0, Vec3(0, 0, -0.2), Mat3::Identity() * 0.01);
  AddJoint(&m, "weld", JointType::kFixed, -1, base, Pose{Vec3(0, 0, 1), Quat::Identity()}, Pose(),
           Vec3::UnitZ());
  AddJoint(&m, "hinge", JointType::kRevolute, base, link, Pose{Vec3(0.3, 0, 0), Quat::Identity()},
           Pose(), Vec3::UnitX());
  m.Finalize();
  const Multibody mb(&m);
  EXPECT_EQ(m.BodyTree(base), -1);
  EXPECT_EQ(m.BodyTree(link), 0);
  KinematicsCache kin;
  VecX q(1), v(1);
  q << 0.3;
  v << 2.0;
  mb.UpdateKinematics(q, 0.0, &kin);
  // The welded body sits at its joint frame: placement copied through one pose product.
  EXPECT_LT((kin.X_WB[base].p - Vec3(0, 0, 1)).norm(), 1e-15);
  MatX J;
  mb.PointJacobian(kin, base, kin.X_WB[base].p, &J);
  EXPECT_EQ(J.rows(), 3);
  EXPECT_EQ(J.cols(), 0);
  EXPECT_EQ(mb.PointVelocity(kin, v, base, Vec3(1, 2, 3)), Vec3::Zero());
  mb.PointJacobian(kin, link, kin.com_W[link], &J);
  EXPECT_EQ(J.cols(), 1);
  // The hinge moves the link COM: |J| = distance from the hinge axis = 0.2 m, exact to round-off.
  EXPECT_NEAR(J.norm(), 0.2, 1e-14);
}

TEST(MultibodyTest, SpringDamperDiagonalsMatchFiniteDifferences) {
  std::mt19937 rng(14);
  Model m = ChainModel(&rng);
  m.joints[0].spring_stiffness = 30.0;
  m.joints[0].spring_reference = 0.2;
  m.joints[0].damping = 1.5;
  Actuator& a = m.joints[1].actuator;
  a.enabled = true;
  a.kp = 200.0;
  a.kd = 5.0;
  a.setpoint.kind = Signal::Kind::kSine;
  a.setpoint.amplitude = 0.1;
  a.setpoint.frequency = 0.5;
  a.setpoint.offset = 0.05;
  a.effort_limit = 1e3;
  m.Finalize();
  const Multibody mb(&m);
  const VecX q = Eigen::Vector3d(0.4, 0.1, -0.3);
  const VecX v = Eigen::Vector3d(0.5, -0.2, 0.7);
  const double t = 0.3;
  VecX k1, K, D;
  mb.SpringDamperForces(q, v, t, &k1);
  mb.SpringDamperDiagonals(q, v, t, &K, &D);
  const double h = 1e-6;
  for (int i = 0; i < 3; ++i) {
    VecX e = VecX::Zero(3);
    e[i] = h;
    VecX kp, km;
    mb.SpringDamperForces(q + e, v, t, &kp);
    mb.SpringDamperForces(q - e, v, t, &km);
    // k1 is linear in q and v away from saturation: differences are exact up to round-off
    // (|k1| ~ 100, eps · 100 / h ~ 1e-8).
    EXPECT_NEAR(K[i], -(kp[i] - km[i]) / (2 * h), 1e-6);
    mb.SpringDamperForces(q, v + e, t, &kp);
    mb.SpringDamperForces(q, v - e, t, &km);
    EXPECT_NEAR(D[i], -(kp[i] - km[i]) / (2 * h), 1e-6);
  }
  // Tracking the reference exactly (q = q_ref, v = dq_ref/dt) leaves no actuator force; a wrong
  // v_ref would leave kd · error.
  VecX q_track = q, v_track = v;
  q_track[1] = a.setpoint.Evaluate(t);
  v_track[1] = 0.1 * 2 * kPi * 0.5 * std::cos(2 * kPi * 0.5 * t);  // d/dt of A sin(2πft)
  mb.SpringDamperForces(q_track, v_track, t, &k1);
  EXPECT_NEAR(k1[1], 0.0, 1e-12);  // O(10) terms cancelling: round-off
  // Saturation: a tiny limit clamps the force and removes the actuator from K and D.
  m.joints[1].actuator.effort_limit = 0.5;
  mb.SpringDamperForces(q, v, t, &k1);
  mb.SpringDamperDiagonals(q, v, t, &K, &D);
  EXPECT_EQ(std::abs(k1[1]), 0.5);  // exactly the clamp value
  EXPECT_EQ(K[1], 0.0);
  EXPECT_EQ(D[1], 0.0);
  // The passive spring and damper of joint 0 keep their constants.
  EXPECT_EQ(K[0], 30.0);
  EXPECT_EQ(D[0], 1.5);
}

// The implicit free motion of an effort-limited PD actuator (eq. 14). One revolute joint about
// the vertical axis through the COM (no gravity or gyroscopic torque), I = 1e-3 kg m², v0 = 10
// rad/s, setpoint 0, kp = 500, kd = 10, u_max = 12 N m, δt = 1/240 s, implicit Euler
// (q^θ = q0 + δt v*): m(v) = I (v − v0) − δt clamp(−e v, ±u_max), e = kp δt + kd. The root lies
// in the unsaturated band: v* = I v0 / (I + δt e) = 0.195 rad/s (|u| = 2.36 N m < 12). Full
// Newton steps from v0 (saturated, A = I) 2-cycle between v = −40 and 60 rad/s with |m| =
// 2 δt u_max = 0.1 (the non-convergence of scenes/paper/robot_dish_pile.yaml at t = 3.46 s and
// 4.75 s); with backtracking the solve converges to the closed form.
TEST(MultibodyTest, ImplicitFreeMotionOfASaturatedActuatorConverges) {
  Model m;
  const int b = AddBody(&m, "rotor", 1.0, Vec3::Zero(), Mat3::Identity() * 1e-3);
  AddJoint(&m, "hinge", JointType::kRevolute, -1, b, Pose(), Pose(), Vec3::UnitZ());
  Actuator& a = m.joints[0].actuator;
  a.enabled = true;
  a.kp = 500;
  a.kd = 10;
  a.effort_limit = 12;  // setpoint: the default signal, 0
  m.Finalize();
  m.v_default[0] = 10;
  StepSettings settings;
  settings.time_step = 1.0 / 240;
  settings.integrator = Integrator::kImplicitEuler;
  Simulator sim(m, settings);
  const StepRecord& rec = sim.Step();
  const double dt = settings.time_step, I = 1e-3, e = a.kp * dt + a.kd;
  const double v_exact = I * 10 / (I + dt * e);
  EXPECT_TRUE(rec.free_motion.converged)
      << "iterations " << rec.free_motion.iterations << ", residual " << rec.free_motion.residual;
  ASSERT_EQ(rec.free_motion.iterations <= settings.free_motion_max_iterations, true);
  // The residual tolerance 1e-12 relative to |I v| + δt |u| ~ 0.01 N m s bounds the error in v*
  // by 1e-14 / (I + δt e) ~ 2e-13 rad/s; 1e-9 leaves room for round-off in the kinematics.
  EXPECT_NEAR(rec.after.v[0], v_exact, 1e-9);
}

TEST(MultibodyTest, PotentialEnergyIncludesSprings) {
  Model m;
  const int b = AddBody(&m, "slider", 2.0, Vec3::Zero(), Mat3::Identity() * 0.01);
  AddJoint(&m, "slide", JointType::kPrismatic, -1, b, Pose(), Pose(), Vec3::UnitX());
  m.joints[0].spring_stiffness = 40.0;
  m.joints[0].spring_reference = 0.1;
  m.Finalize();
  const Multibody mb(&m);
  VecX q(1);
  q << 0.35;
  KinematicsCache kin;
  mb.UpdateKinematics(q, 0.0, &kin);
  const Vec3 g(-1.0, 0.0, -9.81);
  // −m gᵀ x + ½ k (q − q_ref)² with x = (0.35, 0, 0): a handful of flops, round-off only.
  const double expected = -2.0 * (-1.0 * 0.35) + 0.5 * 40.0 * 0.25 * 0.25;
  EXPECT_NEAR(mb.PotentialEnergy(kin, q, g), expected, 1e-13);
}

// Free base carrying two branches (a two-link arm and a single slider), the whole system far from
// the world origin: exercises composite inertias that merge at a branching body, and spatial
// quantities of bodies whose coordinates are large compared with their sizes.
Model BranchedFloatingModel(std::mt19937* rng) {
  Model m;
  const int base =
      AddBody(&m, "base", 5.0, Vec3(0.03, -0.02, 0.01), AsymmetricInertia(rng, 0.1, 0.15, 0.2));
  const int upper =
      AddBody(&m, "upper", 1.5, Vec3(0.0, 0.02, -0.2), AsymmetricInertia(rng, 0.02, 0.025, 0.006));
  const int lower =
      AddBody(&m, "lower", 0.9, Vec3(0.01, 0.0, -0.18), AsymmetricInertia(rng, 0.01, 0.012, 0.003));
  const int slider = AddBody(&m, "slider", 0.4, Vec3(0.02, 0.01, 0.0),
                             AsymmetricInertia(rng, 0.001, 0.002, 0.0025));
  m.bodies[base].pose0 = Pose{Vec3(40.0, -25.0, 12.0), RandomQuat(rng)};
  AddJoint(&m, "free", JointType::kFree, -1, base, Pose(), Pose(), Vec3::UnitZ());
  AddJoint(&m, "shoulder", JointType::kRevolute, base, upper,
           Pose{Vec3(0.15, 0.05, 0), RandomQuat(rng)}, Pose{Vec3(0, 0, 0.05), RandomQuat(rng)},
           Vec3(0.2, 1.0, -0.3));
  AddJoint(&m, "elbow", JointType::kRevolute, upper, lower, Pose{Vec3(0, 0, -0.4), RandomQuat(rng)},
           Pose{Vec3(0.01, 0, 0.04), Quat::Identity()}, Vec3(1.0, 0.1, 0.0));
  AddJoint(&m, "rail", JointType::kPrismatic, base, slider,
           Pose{Vec3(-0.1, 0, 0.1), RandomQuat(rng)}, Pose{Vec3(0, 0.02, 0), RandomQuat(rng)},
           Vec3(0.3, -0.2, 1.0));
  m.Finalize();
  return m;
}

// Serial chain of n revolute links with alternating, tilted axes hanging from the world.
Model LongChainModel(int n, std::mt19937* rng) {
  Model m;
  int parent = -1;
  for (int i = 0; i < n; ++i) {
    const int b = AddBody(&m, "l" + std::to_string(i), 0.5 + 0.05 * i, Vec3(0.01, 0.0, -0.1),
                          AsymmetricInertia(rng, 0.002, 0.003, 0.004));
    const Pose X_PJ = parent < 0 ? Pose{Vec3(0, 0, 3), Quat::Identity()}
                                 : Pose{Vec3(0, 0.01, -0.2), RandomQuat(rng)};
    AddJoint(&m, "j" + std::to_string(i), JointType::kRevolute, parent, b, X_PJ, Pose(),
             i % 2 ? Vec3(1.0, 0.1, 0.0) : Vec3(0.0, 1.0, 0.2));
    parent = b;
  }
  m.Finalize();
  return m;
}

// Compares MassMatrix and BiasForces with the Jacobian-based references on `trials` random
// configurations and velocities (with gravity, so both the gravity and the velocity-product
// parts of k2 are checked).
void CheckAgainstReference(const Model& m, std::mt19937* rng, int trials, double v_scale) {
  const Multibody mb(&m);
  const Vec3 g(0.4, -0.7, -9.81);
  for (int trial = 0; trial < trials; ++trial) {
    const VecX q = RandomConfiguration(m, mb, rng);
    const VecX v = RandomVelocity(m, rng, v_scale);
    KinematicsCache kin;
    mb.UpdateKinematics(q, 0.0, &kin);
    double max_mass_entry = 0;  // largest |M_ij| over all trees
    for (int t = 0; t < static_cast<int>(m.trees.size()); ++t) {
      MatX M, M_ref;
      mb.MassMatrix(kin, t, &M);
      internal::ReferenceMassMatrix(mb, kin, t, &M_ref);
      ASSERT_EQ(M.rows(), M_ref.rows());
      ASSERT_EQ(M.cols(), M_ref.cols());
      // Both are sums of a few products of O(1)-conditioned terms per entry (the spatial
      // quantities are taken about the tree's root, so positions far from the origin do not
      // cancel): the two orders of summation differ by round-off, ~1e-15 of the largest entry.
      // A wrong subspace or a missing parallel-axis term would be O(1) relative.
      EXPECT_LE((M - M_ref).cwiseAbs().maxCoeff(), 1e-12 * M_ref.cwiseAbs().maxCoeff())
          << "tree " << t << "\nM =\n"
          << M << "\nreference =\n"
          << M_ref;
      EXPECT_EQ(M, M.transpose());  // CRBA mirrors each entry it computes
      max_mass_entry = std::max(max_mass_entry, M_ref.cwiseAbs().maxCoeff());
    }
    if (m.nv == 0) continue;  // nothing moves: no bias forces to compare
    VecX k2, k2_ref;
    mb.BiasForces(kin, v, g, &k2);
    internal::ReferenceBiasForces(mb, kin, v, g, &k2_ref);
    ASSERT_EQ(k2.size(), k2_ref.size());
    // RNEA accumulates forces over subtrees and the reference projects per-body forces through
    // Jacobians; both sum the same products of masses, lever arms, gravity and velocities, so
    // they differ by round-off, a few ulps of the largest term (~1e-15 relative here). A missing
    // Coriolis, centripetal or gyroscopic term would be O(1) relative, so 1e-10 leaves a wide
    // margin without hiding errors. An entry can be small by cancellation (ω × I ω of a body
    // with isotropic inertia vanishes), so the scale is at least the size of the products being
    // summed, |M| (|g| + |v|²).
    const double v_max = v.cwiseAbs().maxCoeff();
    const double scale =
        std::max(k2_ref.cwiseAbs().maxCoeff(), max_mass_entry * (g.norm() + v_max * v_max));
    EXPECT_LE((k2 - k2_ref).cwiseAbs().maxCoeff(), 1e-10 * scale)
        << "k2 = " << k2.transpose() << "\nreference = " << k2_ref.transpose();
    // The velocity-product part alone (no gravity), which is smaller than the gravity part; same
    // round-off argument with products of size |M| |v|².
    mb.BiasForces(kin, v, Vec3::Zero(), &k2);
    internal::ReferenceBiasForces(mb, kin, v, Vec3::Zero(), &k2_ref);
    const double scale_v = std::max(k2_ref.cwiseAbs().maxCoeff(), max_mass_entry * v_max * v_max);
    EXPECT_LE((k2 - k2_ref).cwiseAbs().maxCoeff(), 1e-10 * scale_v)
        << "k2 = " << k2.transpose() << "\nreference = " << k2_ref.transpose();
  }
}

TEST(MultibodyTest, CrbaAndRneaMatchReferenceOnChain) {
  std::mt19937 rng(21);
  CheckAgainstReference(ChainModel(&rng), &rng, 20, 3.0);
}

TEST(MultibodyTest, CrbaAndRneaMatchReferenceOnFloatingBaseWithChildren) {
  std::mt19937 rng(22);
  CheckAgainstReference(FloatingChainModel(&rng), &rng, 20, 3.0);
  CheckAgainstReference(BranchedFloatingModel(&rng), &rng, 20, 3.0);
}

TEST(MultibodyTest, CrbaAndRneaMatchReferenceOnFreeBodyStaticBaseAndLongChain) {
  std::mt19937 rng(23);
  CheckAgainstReference(FreeBodyModel(&rng), &rng, 20, 3.0);
  CheckAgainstReference(ArmOnStaticBaseModel(&rng), &rng, 20, 3.0);
  CheckAgainstReference(LongChainModel(20, &rng), &rng, 5, 2.0);
}

// Several independent trees in one model: each block and each segment of k2 is checked.
TEST(MultibodyTest, CrbaAndRneaMatchReferenceWithSeveralTrees) {
  std::mt19937 rng(24);
  Model m = FloatingChainModel(&rng);
  const Model chain = ChainModel(&rng);
  const int offset_b = static_cast<int>(m.bodies.size());
  const int offset_j = static_cast<int>(m.joints.size());
  for (Body b : chain.bodies) {
    b.joint += offset_j;  // every chain body has an inbound joint
    m.bodies.push_back(b);
  }
  for (Joint j : chain.joints) {
    j.parent = j.parent < 0 ? -1 : j.parent + offset_b;
    j.child += offset_b;
    m.joints.push_back(j);
  }
  m.Finalize();
  ASSERT_EQ(m.trees.size(), 2u);
  CheckAgainstReference(m, &rng, 10, 3.0);
}

// Every shipped scene's model (free bodies, grippers, pendulum chains, prescribed bodies).
TEST(MultibodyTest, CrbaAndRneaMatchReferenceOnShippedScenes) {
  std::vector<std::string> files;
  const std::filesystem::path root = std::filesystem::path(CONTACTLAB_SOURCE_DIR) / "scenes";
  for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
    if (e.path().extension() == ".yaml") files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  ASSERT_FALSE(files.empty());
  std::mt19937 rng(25);
  for (const std::string& f : files) {
    SCOPED_TRACE(f);
    const Scene scene = LoadScene(f);
    CheckAgainstReference(scene.model, &rng, 2, 2.0);
  }
}

// ---------------------------------------------------------------------------------------------
// Ball joints: q = unit quaternion R_FM, v = relative angular velocity in the parent joint frame F.

// Two ball joints and a revolute joint in series, with rotated and offset joint frames.
Model BallChainModel(std::mt19937* rng) {
  Model m;
  const int l1 =
      AddBody(&m, "l1", 1.2, Vec3(0.05, 0.0, -0.2), AsymmetricInertia(rng, 0.02, 0.03, 0.04));
  const int l2 =
      AddBody(&m, "l2", 0.8, Vec3(0.0, 0.1, -0.1), AsymmetricInertia(rng, 0.01, 0.015, 0.02));
  const int l3 =
      AddBody(&m, "l3", 0.5, Vec3(0.02, 0.03, -0.25), AsymmetricInertia(rng, 0.005, 0.007, 0.011));
  AddJoint(&m, "b1", JointType::kBall, -1, l1, Pose{Vec3(0, 0, 1.5), RandomQuat(rng)},
           Pose{Vec3(0.0, 0.0, 0.1), RandomQuat(rng)}, Vec3::UnitZ());
  AddJoint(&m, "b2", JointType::kBall, l1, l2, Pose{Vec3(0.1, 0, -0.4), RandomQuat(rng)},
           Pose{Vec3(0, -0.05, 0.05), RandomQuat(rng)}, Vec3::UnitZ());
  AddJoint(&m, "j3", JointType::kRevolute, l2, l3, Pose{Vec3(0, 0.2, -0.2), RandomQuat(rng)},
           Pose{Vec3(0, 0, 0.05), RandomQuat(rng)}, Vec3(0.0, 0.2, 1.0));
  m.Finalize();
  return m;
}

// A free base with a ball-jointed arm and a prismatic slider on the arm.
Model FloatingBallModel(std::mt19937* rng) {
  Model m;
  const int base =
      AddBody(&m, "base", 3.0, Vec3(0.02, 0.01, -0.03), AsymmetricInertia(rng, 0.05, 0.08, 0.1));
  const int arm =
      AddBody(&m, "arm", 1.0, Vec3(0.0, 0.0, -0.15), AsymmetricInertia(rng, 0.01, 0.012, 0.004));
  const int slider =
      AddBody(&m, "slider", 0.6, Vec3(0.03, 0.0, 0.0), AsymmetricInertia(rng, 0.002, 0.003, 0.004));
  m.bodies[base].pose0 = Pose{Vec3(0.1, 0.2, 0.8), RandomQuat(rng)};
  AddJoint(&m, "free", JointType::kFree, -1, base, Pose(), Pose(), Vec3::UnitZ());
  AddJoint(&m, "shoulder", JointType::kBall, base, arm, Pose{Vec3(0.1, 0, 0), RandomQuat(rng)},
           Pose{Vec3(0, 0, 0.1), RandomQuat(rng)}, Vec3::UnitZ());
  AddJoint(&m, "slide", JointType::kPrismatic, arm, slider, Pose{Vec3(0, 0, -0.3), RandomQuat(rng)},
           Pose(), Vec3(0, 1, 0));
  m.Finalize();
  return m;
}

TEST(MultibodyTest, BallJointLayoutAndDefaults) {
  std::mt19937 rng(40);
  const Model m = BallChainModel(&rng);
  EXPECT_STREQ(JointTypeName(JointType::kBall), "ball");
  EXPECT_EQ(JointNq(JointType::kBall), 4);
  EXPECT_EQ(JointNv(JointType::kBall), 3);
  ASSERT_EQ(m.nq, 9);
  ASSERT_EQ(m.nv, 7);
  // Identity quaternions [1 0 0 0] at the start: the bodies sit at their zero-coordinate poses.
  EXPECT_EQ(m.q_default.segment<4>(0), Eigen::Vector4d(1, 0, 0, 0));
  EXPECT_EQ(m.q_default.segment<4>(4), Eigen::Vector4d(1, 0, 0, 0));
  EXPECT_EQ(m.q_default[8], 0.0);
}

// N(q): QDot against a finite difference of a known quaternion motion, q(t) = exp(t ω/2) ⊗ q0
// for a constant ω in the parent joint frame (the motion the ball joint's v describes).
TEST(MultibodyTest, BallJointQDotMatchesQuaternionMotion) {
  std::mt19937 rng(41);
  const Model m = BallChainModel(&rng);
  const Multibody mb(&m);
  for (int trial = 0; trial < 10; ++trial) {
    const VecX q = RandomConfiguration(m, mb, &rng);
    const VecX v = RandomVelocity(m, &rng, 3.0);
    VecX qd;
    mb.QDot(q, v, &qd);
    const double h = 1e-6;
    for (const int j : {0, 1}) {
      const Joint& jt = m.joints[j];
      const Quat q0(q[jt.q_start], q[jt.q_start + 1], q[jt.q_start + 2], q[jt.q_start + 3]);
      const Vec3 w = v.segment<3>(jt.v_start);
      auto at = [&](double t) {
        const Quat r = Quat(Eigen::AngleAxisd(w.norm() * t, w.normalized())) * q0;
        return Eigen::Vector4d(r.w(), r.x(), r.y(), r.z());
      };
      const Eigen::Vector4d fd = (at(h) - at(-h)) / (2 * h);
      // Central difference of a smooth unit-quaternion path with |ω| <= 5.2 rad/s: truncation
      // ~ h² |ω|³ / 48 ~ 1e-13, round-off ~ 1e-16 / h = 1e-10.
      EXPECT_LT((qd.segment<4>(jt.q_start) - fd).cwiseAbs().maxCoeff(), 1e-9) << "joint " << j;
      // q̇ is tangent to the unit sphere: q · q̇ = 0.
      EXPECT_NEAR(q.segment<4>(jt.q_start).dot(qd.segment<4>(jt.q_start)), 0.0, 1e-14);
    }
  }
}

// N(q) against the kinematics: moving q along ±h N(q) v (renormalized) moves every body as the
// Jacobians say, independently of IntegratePositions.
TEST(MultibodyTest, BallJointQDotMatchesKinematics) {
  std::mt19937 rng(42);
  for (const Model& m : {BallChainModel(&rng), FloatingBallModel(&rng)}) {
    const Multibody mb(&m);
    for (int trial = 0; trial < 5; ++trial) {
      const VecX q = RandomConfiguration(m, mb, &rng);
      const VecX v = RandomVelocity(m, &rng, 1.0);
      VecX qd;
      mb.QDot(q, v, &qd);
      const double h = 1e-6;
      VecX qp = q + h * qd, qm = q - h * qd;
      mb.NormalizeQuaternions(&qp);
      mb.NormalizeQuaternions(&qm);
      KinematicsCache k0, kp, km;
      mb.UpdateKinematics(q, 0.0, &k0);
      mb.UpdateKinematics(qp, 0.0, &kp);
      mb.UpdateKinematics(qm, 0.0, &km);
      for (int b = 0; b < static_cast<int>(m.bodies.size()); ++b) {
        const Vec3 local = RandomVec(&rng, 0.3);
        const Vec3 p = k0.X_WB[b].Apply(local);
        const Vec3 fd = (kp.X_WB[b].Apply(local) - km.X_WB[b].Apply(local)) / (2 * h);
        // Central differences: truncation O(h²) ~ 1e-12, round-off ~ 1e-16 / h ~ 1e-10.
        EXPECT_LT((mb.PointVelocity(k0, v, b, p) - fd).norm(), 1e-8) << m.bodies[b].name;
        const Vec3 w_fd = RotationDifference(kp.X_WB[b].q, km.X_WB[b].q) / (2 * h);
        EXPECT_LT((mb.AngularVelocity(k0, v, b) - w_fd).norm(), 1e-8) << m.bodies[b].name;
      }
    }
  }
}

TEST(MultibodyTest, BallJointQDotMatchesIntegratePositionsAndJacobians) {
  std::mt19937 rng(43);
  for (const Model& m : {BallChainModel(&rng), FloatingBallModel(&rng)}) {
    const Multibody mb(&m);
    const VecX q = RandomConfiguration(m, mb, &rng);
    const VecX v = RandomVelocity(m, &rng, 2.0);
    VecX qd, qp, qm;
    mb.QDot(q, v, &qd);
    const double h = 1e-6;
    mb.IntegratePositions(q, v, h, &qp);
    mb.IntegratePositions(q, v, -h, &qm);
    // Central difference of the exact flow: truncation O(h²), round-off ~ 1e-10.
    EXPECT_LT(((qp - qm) / (2 * h) - qd).cwiseAbs().maxCoeff(), 1e-8);
    CheckJacobiansByFiniteDifferences(m, &rng);
  }
}

// The exponential map rotates by exp(h ω) in the parent joint frame F, exactly for constant ω,
// and the quaternion stays unit over many large steps.
TEST(MultibodyTest, BallJointIntegrationStaysUnit) {
  std::mt19937 rng(44);
  const Model m = BallChainModel(&rng);
  const Multibody mb(&m);
  VecX q = m.q_default;
  VecX v = VecX::Zero(m.nv);
  v.segment<3>(0) = Vec3(3.0, -2.0, 1.0);
  v.segment<3>(3) = Vec3(-0.5, 4.0, 2.5);
  const double h = 0.37;
  for (int step = 0; step < 1000; ++step) {
    VecX next;
    mb.IntegratePositions(q, v, h, &next);
    q = next;
  }
  for (const int j : {0, 1}) {
    const Joint& jt = m.joints[j];
    const Vec3 w = v.segment<3>(jt.v_start);
    const Quat expected(Eigen::AngleAxisd(std::fmod(w.norm() * h * 1000, 4 * kPi), w.normalized()));
    const Quat got(q[jt.q_start], q[jt.q_start + 1], q[jt.q_start + 2], q[jt.q_start + 3]);
    // 1000 renormalized products: round-off grows ~ 1000 × 1e-16.
    EXPECT_NEAR(q.segment<4>(jt.q_start).norm(), 1.0, 1e-14);
    EXPECT_LT(RotationDifference(got, expected).norm(), 1e-11);
  }
}

TEST(MultibodyTest, BallJointMassMatrixIsSymmetricPositiveDefinite) {
  std::mt19937 rng(45);
  for (const Model& m : {BallChainModel(&rng), FloatingBallModel(&rng)}) {
    const Multibody mb(&m);
    ASSERT_EQ(m.trees.size(), 1u);
    for (int trial = 0; trial < 10; ++trial) {
      KinematicsCache kin;
      mb.UpdateKinematics(RandomConfiguration(m, mb, &rng), 0.0, &kin);
      MatX M;
      mb.MassMatrix(kin, 0, &M);
      EXPECT_EQ(M, M.transpose());  // CRBA mirrors each entry it computes
      Eigen::SelfAdjointEigenSolver<MatX> eig(M);
      // Bounded below by the rotational inertias (>= ~1e-3 here); singular would be ~1e-16.
      EXPECT_GT(eig.eigenvalues().minCoeff(), 1e-4);
      EXPECT_EQ(M.llt().info(), Eigen::Success);
    }
  }
}

TEST(MultibodyTest, BallJointCrbaAndRneaMatchReference) {
  std::mt19937 rng(46);
  CheckAgainstReference(BallChainModel(&rng), &rng, 20, 3.0);
  CheckAgainstReference(FloatingBallModel(&rng), &rng, 20, 3.0);
}

// No gravity: RK4 conserves kinetic energy (both models) and momentum (floating base); a wrong
// velocity-product term for the ball joint would change them at O(1).
TEST(MultibodyTest, BallJointModelsConserveEnergyAndMomentum) {
  std::mt19937 rng(47);
  CheckConservation(BallChainModel(&rng), &rng, false, 2.0);
  CheckConservation(FloatingBallModel(&rng), &rng, true, 2.0);
}

// The same chain built with ball joints and with three hinges about x, y, z in sequence at each
// ball (two near-massless bodies between the hinges). Hinge angles (a, b, c) correspond to
// R_FM = Rx(a) Ry(b) Rz(c) and the hinge rates θ̇ to ω_F = E(a, b) θ̇ with
// E = [e_x, Rx(a) e_y, Rx(a) Ry(b) e_z].
struct BallAndHingeChains {
  Model ball, hinge;
  std::vector<int> ball_links, hinge_links;  // the same physical links in both models
};

constexpr double kDummyMass = 1e-12;  // the bodies between hinges [kg], inertia 1e-12 kg m²

BallAndHingeChains MakeBallAndHingeChains(std::mt19937* rng, bool rotated_frames) {
  BallAndHingeChains c;
  const double masses[3] = {1.2, 0.8, 0.5};
  const Vec3 coms[3] = {Vec3(0.05, 0.0, -0.2), Vec3(0.0, 0.1, -0.15), Vec3(0.02, 0.03, -0.25)};
  Mat3 inertias[3];
  inertias[0] = AsymmetricInertia(rng, 0.02, 0.03, 0.04);
  inertias[1] = AsymmetricInertia(rng, 0.01, 0.015, 0.02);
  inertias[2] = AsymmetricInertia(rng, 0.005, 0.007, 0.011);
  Pose X_PF[3], X_CM[3];
  for (int i = 0; i < 3; ++i) {
    const Quat rf = rotated_frames ? RandomQuat(rng) : Quat::Identity();
    const Quat rc = rotated_frames ? RandomQuat(rng) : Quat::Identity();
    X_PF[i] = Pose{i == 0 ? Vec3(0, 0, 1.5) : Vec3(0.05, 0.02, -0.4), rf};
    X_CM[i] = Pose{Vec3(0.0, 0.01, 0.05), rc};
  }
  int parent_b = -1, parent_h = -1;
  for (int i = 0; i < 3; ++i) {
    const std::string n = "l" + std::to_string(i);
    const int b = AddBody(&c.ball, n, masses[i], coms[i], inertias[i]);
    AddJoint(&c.ball, n + "_ball", JointType::kBall, parent_b, b, X_PF[i], X_CM[i], Vec3::UnitZ());
    c.ball_links.push_back(b);
    parent_b = b;
    const Mat3 I_d = Mat3::Identity() * kDummyMass;
    const int dx = AddBody(&c.hinge, n + "_dx", kDummyMass, Vec3::Zero(), I_d);
    const int dy = AddBody(&c.hinge, n + "_dy", kDummyMass, Vec3::Zero(), I_d);
    const int h = AddBody(&c.hinge, n, masses[i], coms[i], inertias[i]);
    AddJoint(&c.hinge, n + "_x", JointType::kRevolute, parent_h, dx, X_PF[i], Pose(),
             Vec3::UnitX());
    AddJoint(&c.hinge, n + "_y", JointType::kRevolute, dx, dy, Pose(), Pose(), Vec3::UnitY());
    AddJoint(&c.hinge, n + "_z", JointType::kRevolute, dy, h, Pose(), X_CM[i], Vec3::UnitZ());
    c.hinge_links.push_back(h);
    parent_h = h;
  }
  c.ball.Finalize();
  c.hinge.Finalize();
  return c;
}

Mat3 HingeRateMap(double a, double b) {
  const Mat3 Rx = Eigen::AngleAxisd(a, Vec3::UnitX()).toRotationMatrix();
  const Mat3 Ry = Eigen::AngleAxisd(b, Vec3::UnitY()).toRotationMatrix();
  Mat3 E;
  E.col(0) = Vec3::UnitX();
  E.col(1) = Rx * Vec3::UnitY();
  E.col(2) = Rx * Ry * Vec3::UnitZ();
  return E;
}

// Ball-chain state from the hinge chain's (θ, θ̇): q per ball, ω_F = E θ̇, and the 9 x 9 map T
// with v_ball = T θ̇.
void HingeToBall(const VecX& th, const VecX& thd, VecX* q, VecX* v, MatX* T) {
  q->resize(12);
  v->resize(9);
  T->setZero(9, 9);
  for (int i = 0; i < 3; ++i) {
    const double a = th[3 * i], b = th[3 * i + 1], c = th[3 * i + 2];
    const Quat r = Quat(Eigen::AngleAxisd(a, Vec3::UnitX()) * Eigen::AngleAxisd(b, Vec3::UnitY()) *
                        Eigen::AngleAxisd(c, Vec3::UnitZ()));
    q->segment<4>(4 * i) << r.w(), r.x(), r.y(), r.z();
    const Mat3 E = HingeRateMap(a, b);
    T->block<3, 3>(3 * i, 3 * i) = E;
    v->segment<3>(3 * i) = E * thd.segment<3>(3 * i);
  }
}

// Ball-joint damping: τ = −d ω on the three dofs, D = d on the diagonal, K = 0; the revolute
// joint's spring and damper next to it are unchanged.
TEST(MultibodyTest, BallJointDampingForcesAndDiagonals) {
  std::mt19937 rng(51);
  Model m = BallChainModel(&rng);
  m.joints[0].damping = 0.7;
  m.joints[2].damping = 0.2;
  m.joints[2].spring_stiffness = 3.0;
  m.Finalize();
  const Multibody mb(&m);
  const VecX q = RandomConfiguration(m, mb, &rng);
  const VecX v = RandomVelocity(m, &rng, 2.0);
  VecX k1, K, D;
  mb.SpringDamperForces(q, v, 0.0, &k1);
  mb.SpringDamperDiagonals(q, v, 0.0, &K, &D);
  VecX k1_expected = VecX::Zero(m.nv), D_expected = VecX::Zero(m.nv), K_expected = VecX::Zero(m.nv);
  k1_expected.segment<3>(0) = -0.7 * v.segment<3>(0);  // b1; b2 has no damping
  D_expected.segment<3>(0).setConstant(0.7);
  k1_expected[6] = -3.0 * q[8] - 0.2 * v[6];
  D_expected[6] = 0.2;
  K_expected[6] = 3.0;
  // Same products: round-off only.
  EXPECT_LT((k1 - k1_expected).cwiseAbs().maxCoeff(), 1e-15);
  EXPECT_EQ(D, D_expected);
  EXPECT_EQ(K, K_expected);
  // The damper dissipates: vᵀ k1 over the ball dofs is −d |ω|².
  EXPECT_LT(v.segment<3>(0).dot(k1.segment<3>(0)), 0.0);
}

TEST(MultibodyTest, BallChainMassMatrixEqualsThreeHingeChain) {
  std::mt19937 rng(48);
  for (const bool rotated : {false, true}) {
    const BallAndHingeChains c = MakeBallAndHingeChains(&rng, rotated);
    ASSERT_EQ(c.ball.nv, 9);
    ASSERT_EQ(c.hinge.nv, 9);
    const Multibody mbb(&c.ball), mbh(&c.hinge);
    for (int trial = 0; trial < 10; ++trial) {
      // Trial 0 at zero angles (E = 1: the matrices are equal), then random angles with |b| <= 1.
      VecX th = VecX::Zero(9);
      if (trial > 0) th = RandomVelocity(c.hinge, &rng, 1.0);
      VecX q, v;
      MatX T;
      HingeToBall(th, VecX::Zero(9), &q, &v, &T);
      KinematicsCache kb, kh;
      mbb.UpdateKinematics(q, 0.0, &kb);
      mbh.UpdateKinematics(th, 0.0, &kh);
      // The same configuration: every link at the same pose.
      for (int i = 0; i < 3; ++i) {
        const Pose& xb = kb.X_WB[c.ball_links[i]];
        const Pose& xh = kh.X_WB[c.hinge_links[i]];
        EXPECT_LT((xb.p - xh.p).norm(), 1e-14);
        EXPECT_LT(RotationDifference(xb.q, xh.q).norm(), 1e-14);
      }
      MatX Mb, Mh;
      mbb.MassMatrix(kb, 0, &Mb);
      mbh.MassMatrix(kh, 0, &Mh);
      const MatX Mb_h = T.transpose() * Mb * T;
      // Kinetic energy ½ θ̇ᵀ Tᵀ M_ball T θ̇ is the hinge chain's up to the dummy bodies (mass and
      // inertia 1e-12 at the joint centers, |J| <= ~2: contributions <= ~1e-11) and round-off
      // (~1e-16 of entries ~1).
      EXPECT_LT((Mb_h - Mh).cwiseAbs().maxCoeff(), 1e-10) << "trial " << trial;
      if (trial == 0) {
        EXPECT_LT((Mb - Mh).cwiseAbs().maxCoeff(), 1e-10);
      }
    }
  }
}

// Instantaneous dynamics: with gravity and velocities, the ball chain's ω̇ equals d/dt (E θ̇) =
// E θ̈ + Ė θ̇ from the hinge chain's θ̈.
TEST(MultibodyTest, BallChainAccelerationsMatchThreeHingeChain) {
  std::mt19937 rng(49);
  const Vec3 g(0.3, -0.5, -9.81);
  const BallAndHingeChains c = MakeBallAndHingeChains(&rng, true);
  const Multibody mbb(&c.ball), mbh(&c.hinge);
  for (int trial = 0; trial < 10; ++trial) {
    const double scale = trial < 5 ? 0.1 : 1.0;  // small angles first, then up to 1 rad
    const VecX th = RandomVelocity(c.hinge, &rng, scale);
    const VecX thd = RandomVelocity(c.hinge, &rng, 2.0);
    VecX q, v;
    MatX T;
    HingeToBall(th, thd, &q, &v, &T);
    const VecX vd_b = Acceleration(mbb, q, v, 0.0, g);
    const VecX thdd = Acceleration(mbh, th, thd, 0.0, g);
    // Ė θ̇ by a central difference along the motion (E is smooth; truncation ~ s² ~ 1e-12).
    const double s = 1e-6;
    VecX qx, vp, vm;
    MatX Tp, Tm;
    HingeToBall(th + s * thd, thd, &qx, &vp, &Tp);
    HingeToBall(th - s * thd, thd, &qx, &vm, &Tm);
    const VecX expected = T * thdd + (vp - vm) / (2 * s);
    // Accelerations ~ 10-100 rad/s²; the dummy bodies' 1e-12 kg change them by ~1e-11 relative
    // (the dummy rotational inertia 1e-12 kg m² against link inertias ~1e-3 after the solve:
    // ~1e-9 relative); the finite difference adds ~1e-10 (round-off / s).
    EXPECT_LT((vd_b - expected).cwiseAbs().maxCoeff(),
              1e-7 * (1.0 + expected.cwiseAbs().maxCoeff()))
        << "trial " << trial << "\nball " << vd_b.transpose() << "\nhinges "
        << expected.transpose();
  }
}

// Over a 3 s run with gravity (RK4, h = 1e-3), the link poses of the two chains agree.
TEST(MultibodyTest, BallChainTrajectoryMatchesThreeHingeChain) {
  std::mt19937 rng(50);
  const Vec3 g(0, 0, -9.81);
  // Joint frames aligned with the world: the chain hangs near zero hinge angles, far from the
  // hinges' gimbal lock at b = ±π/2.
  const BallAndHingeChains c = MakeBallAndHingeChains(&rng, false);
  const Multibody mbb(&c.ball), mbh(&c.hinge);
  VecX th = RandomVelocity(c.hinge, &rng, 0.4);
  VecX thd = RandomVelocity(c.hinge, &rng, 1.0);
  VecX q, v;
  MatX T;
  HingeToBall(th, thd, &q, &v, &T);
  const double h = 1e-3;
  double max_dp = 0, max_dr = 0, max_b = 0;
  for (int step = 0; step < 3000; ++step) {
    Rk4Step(mbb, step * h, h, g, &q, &v);
    Rk4Step(mbh, step * h, h, g, &th, &thd);
    for (int i = 0; i < 3; ++i) max_b = std::max(max_b, std::abs(th[3 * i + 1]));
    if (step % 100 != 99) continue;
    KinematicsCache kb, kh;
    mbb.UpdateKinematics(q, 0.0, &kb);
    mbh.UpdateKinematics(th, 0.0, &kh);
    for (int i = 0; i < 3; ++i) {
      const Pose& xb = kb.X_WB[c.ball_links[i]];
      const Pose& xh = kh.X_WB[c.hinge_links[i]];
      max_dp = std::max(max_dp, (xb.p - xh.p).norm());
      max_dr = std::max(max_dr, RotationDifference(xb.q, xh.q).norm());
    }
  }
  // The hinge chain stays away from its gimbal lock (|b| < π/2) so both describe one motion.
  EXPECT_LT(max_b, 1.3);
  // Both integrate the same equations with RK4 (local error ~ h⁵ per step, ~1e-10 over the run
  // for these rates), and the 1e-12 kg dummy bodies perturb the hinge chain by ~1e-9 relative;
  // growth of differences along the motion takes that to about 1e-8. A wrong ball-joint term
  // would show at O(1) within the first swing.
  EXPECT_LT(max_dp, 1e-6) << "max position difference " << max_dp;
  EXPECT_LT(max_dr, 1e-6) << "max rotation difference " << max_dr;
  RecordProperty("max_position_difference_m", std::to_string(max_dp));
  RecordProperty("max_rotation_difference_rad", std::to_string(max_dr));
  std::printf("ball vs 3-hinge chain, 3 s: max position difference %.3g m, rotation %.3g rad\n",
              max_dp, max_dr);
}

// Spherical pendulum: a bob on a massless rod hung from a ball joint, tilted and started with an
// angular velocity about the vertical. Gravity exerts no torque about the vertical through the
// pivot, so L_z about the pivot is conserved, and so is the energy.
Model SphericalPendulum() {
  Model m;
  const int b = AddBody(&m, "bob", 1.0, Vec3::Zero(), Mat3::Identity() * 4e-4);
  // Pivot 1 m above the bob's origin, joint frame aligned with the world.
  AddJoint(&m, "pivot", JointType::kBall, -1, b, Pose{Vec3(0, 0, 2.0), Quat::Identity()},
           Pose{Vec3(0, 0, 1.0), Quat::Identity()}, Vec3::UnitZ());
  m.Finalize();
  return m;
}

double PivotAngularMomentumZ(const Multibody& mb, const VecX& q, const VecX& v) {
  KinematicsCache kin;
  mb.UpdateKinematics(q, 0.0, &kin);
  const Model& m = mb.model();
  const Vec3 pivot(0, 0, 2.0);
  const Vec3 c = kin.com_W[0];
  const Vec3 vc = mb.PointVelocity(kin, v, 0, c);
  const Mat3 R = kin.X_WB[0].R();
  const Vec3 L = m.bodies[0].mass * (c - pivot).cross(vc) +
                 R * m.bodies[0].inertia * R.transpose() * mb.AngularVelocity(kin, v, 0);
  return L.z();
}

TEST(MultibodyTest, SphericalPendulumConservesVerticalAngularMomentumRk4) {
  const Model m = SphericalPendulum();
  const Multibody mb(&m);
  const Vec3 g(0, 0, -9.81);
  VecX q(4), v(3);
  const Quat tilt(Eigen::AngleAxisd(0.6, Vec3::UnitX()));
  q << tilt.w(), tilt.x(), tilt.y(), tilt.z();
  v << 0.0, 0.5, 2.5;  // a swing plus a spin about the vertical
  KinematicsCache kin;
  mb.UpdateKinematics(q, 0.0, &kin);
  const double e0 = mb.KineticEnergy(kin, v) + mb.PotentialEnergy(kin, q, g);
  const double lz0 = PivotAngularMomentumZ(mb, q, v);
  const double h = 1e-3;
  double max_dlz = 0, max_de = 0, max_dn = 0;
  for (int step = 0; step < 5000; ++step) {
    Rk4Step(mb, step * h, h, g, &q, &v);
    mb.UpdateKinematics(q, 0.0, &kin);
    max_de =
        std::max(max_de, std::abs(mb.KineticEnergy(kin, v) + mb.PotentialEnergy(kin, q, g) - e0));
    max_dlz = std::max(max_dlz, std::abs(PivotAngularMomentumZ(mb, q, v) - lz0));
    max_dn = std::max(max_dn, std::abs(q.norm() - 1.0));
  }
  // RK4 at h = 1e-3 on a ~2 s swing period: energy and L_z errors ~ h⁴ ω⁵ t ~ 1e-10 relative.
  EXPECT_LT(max_dlz, 1e-8 * std::abs(lz0)) << max_dlz;
  EXPECT_LT(max_de, 1e-8 * 10.0) << max_de;  // energies ~ 10 J
  EXPECT_LT(max_dn, 1e-14);                  // renormalized every step
  std::printf("spherical pendulum RK4 5 s: |dLz| %.3g (Lz %.3g), |dE| %.3g J\n", max_dlz, lz0,
              max_de);
}

// The same pendulum through the Simulator's default time stepping (symplectic Euler, no
// contact: one free-motion solve per step) for 3 s, about two swings. The scheme is first order:
// L_z and the energy are not invariants of the discrete map, but they stay within O(δt) of their
// initial values (no drift), so halving δt halves the largest deviation.
struct PendulumRunErrors {
  double lz0 = 0, e0 = 0, max_dlz = 0, max_de = 0, max_dn = 0;
};

PendulumRunErrors RunSphericalPendulumInSimulator(double dt) {
  Model m = SphericalPendulum();
  const Quat tilt(Eigen::AngleAxisd(0.6, Vec3::UnitX()));
  m.q_default << tilt.w(), tilt.x(), tilt.y(), tilt.z();
  m.v_default << 0.0, 0.5, 2.5;
  const Multibody mb(&m);
  StepSettings settings;
  settings.time_step = dt;
  EXPECT_EQ(settings.integrator, Integrator::kSymplecticEuler);
  Simulator sim(m, settings);
  const Vec3 g = settings.gravity;
  KinematicsCache kin;
  mb.UpdateKinematics(m.q_default, 0.0, &kin);
  PendulumRunErrors r;
  r.e0 = mb.KineticEnergy(kin, m.v_default) + mb.PotentialEnergy(kin, m.q_default, g);
  r.lz0 = PivotAngularMomentumZ(mb, m.q_default, m.v_default);
  const int steps = static_cast<int>(std::lround(3.0 / dt));
  for (int step = 0; step < steps; ++step) {
    sim.Step();
    const VecX& q = sim.state().q;
    const VecX& v = sim.state().v;
    mb.UpdateKinematics(q, 0.0, &kin);
    const double e = mb.KineticEnergy(kin, v) + mb.PotentialEnergy(kin, q, g);
    r.max_de = std::max(r.max_de, std::abs(e - r.e0));
    r.max_dlz = std::max(r.max_dlz, std::abs(PivotAngularMomentumZ(mb, q, v) - r.lz0));
    r.max_dn = std::max(r.max_dn, std::abs(q.norm() - 1.0));
  }
  std::printf(
      "spherical pendulum, simulator dt %.0e, 3 s: |dLz| %.3g (Lz %.3g), |dE| %.3g J "
      "(E %.3g J)\n",
      dt, r.max_dlz, r.lz0, r.max_de, r.e0);
  return r;
}

TEST(MultibodyTest, SphericalPendulumSimulatorConservesVerticalAngularMomentum) {
  const PendulumRunErrors a = RunSphericalPendulumInSimulator(2e-4);
  const PendulumRunErrors b = RunSphericalPendulumInSimulator(1e-4);
  // At δt = 1e-4 (measured: |ΔL_z| 2.9e-4 of 1.03, |ΔE| 1.0e-3 J of 13.2 J): bounds ~3x above.
  EXPECT_LT(b.max_dlz, 1e-3 * std::abs(b.lz0));
  EXPECT_LT(b.max_de, 3e-3);
  // First order: the deviations scale with δt (ratio 2 for a halved step; a drift or an
  // inconsistent ball-joint term would not shrink with δt).
  EXPECT_GT(a.max_dlz / b.max_dlz, 1.6);
  EXPECT_LT(a.max_dlz / b.max_dlz, 2.4);
  EXPECT_GT(a.max_de / b.max_de, 1.6);
  EXPECT_LT(a.max_de / b.max_de, 2.4);
  EXPECT_LT(b.max_dn, 1e-14);  // the exponential map's output is renormalized every step
}

}  // namespace
}  // namespace contactlab
