// External loads (Model::loads, engine/multibody/load.h) against closed forms, and the scene key `loads`.
//
// The simulator applies each load explicitly, evaluated once per step at the step's start
// (signals at t^n, point at q0), as the generalized force J_pᵀ f in the free motion. With
// symplectic Euler (θ = 0), no gravity, no contacts and no initial angular velocity, the free
// motion is v* = v0 + δt M(q0)⁻¹ J_pᵀ f and SAP returns v = v* (no constraints), so one step's
// velocity change is exactly Δv = δt f / m, Δω = δt I_W⁻¹ (r × f) for a free body with its COM at
// the frame origin. Tolerance 1e-12 on velocities of order 1e-2: the closed forms and the
// simulator differ by a 6x6 Cholesky solve and a few products (a few ulps, ~1e-17 here).
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "app/scene.h"
#include "engine/multibody/load.h"
#include "engine/sim/simulator.h"
#include "tests/test_models.h"

namespace contactlab {
namespace {

using namespace contactlab::testing;  // NOLINT

constexpr double kTol = 1e-12;

Signal Constant(double v) {
  Signal s;
  s.value = v;
  return s;
}

struct FreeBody {
  Model m;
  int body = -1;
  double mass = 2.0;
  Mat3 inertia = Vec3(0.02, 0.03, 0.05).asDiagonal();
  Pose pose;
  FreeBody() {
    pose.p = Vec3(0.1, 0.2, 1.0);
    pose.q = AxisAngleDeg(Vec3(1, 2, 3), 30);
    body = AddFreeBody(&m, "b", mass, inertia, pose);
  }
  void AddLoad(const Vec3& point_B, const Vec3& f, bool in_body = false) {
    Load ld;
    ld.body = body;
    for (int k = 0; k < 3; ++k) {
      ld.point[k] = Constant(point_B[k]);
      ld.force[k] = Constant(f[k]);
    }
    ld.force_in_body = in_body;
    m.loads.push_back(ld);
  }
};

TEST(Load, ForceAtComChangesVelocityByImpulseOverMass) {
  // No moment at the COM: Δv = δt f / m and Δω = 0, in every scheme (f is explicit, and with
  // ω = 0 the mass matrix and bias forces do not change over the step).
  for (Integrator integ : {Integrator::kSymplecticEuler, Integrator::kExplicitEuler,
                           Integrator::kImplicitEuler, Integrator::kMidpoint}) {
    FreeBody fb;
    const Vec3 f(10, -20, 30);
    fb.AddLoad(Vec3::Zero(), f);
    fb.m.Finalize();
    Simulator sim(fb.m, NoGravity(integ));
    sim.Step();
    EXPECT_NEAR((sim.state().v.head<3>() - 1e-3 * f / fb.mass).lpNorm<Eigen::Infinity>(), 0,
                kTol)
        << IntegratorName(integ);
    EXPECT_NEAR(sim.state().v.tail<3>().lpNorm<Eigen::Infinity>(), 0, kTol)
        << IntegratorName(integ);
  }
}

TEST(Load, OffComForceProducesTorqueRCrossF) {
  // Point r from the COM: Δv = δt f / m and Δω = δt I_W⁻¹ (r × f), I_W = R I_B Rᵀ. Two loads
  // add up: the second one, given in the body frame, is R f_B in the world.
  FreeBody fb;
  const Vec3 point_B(0.1, -0.05, 0.2), f(10, -20, 30);
  const Vec3 point2_B(-0.2, 0.1, 0.0), f2_B(0, 5, -4);
  fb.AddLoad(point_B, f);
  fb.AddLoad(point2_B, f2_B, /*in_body=*/true);
  fb.m.Finalize();
  Simulator sim(fb.m, NoGravity());
  sim.Step();
  const Mat3 R = fb.pose.R();
  const Vec3 r = R * point_B, r2 = R * point2_B, f2 = R * f2_B;
  const Mat3 I_W = R * fb.inertia * R.transpose();
  const Vec3 dv = 1e-3 * (f + f2) / fb.mass;
  const Vec3 dw = 1e-3 * I_W.inverse() * (r.cross(f) + r2.cross(f2));
  EXPECT_NEAR((sim.state().v.head<3>() - dv).lpNorm<Eigen::Infinity>(), 0, kTol);
  EXPECT_NEAR((sim.state().v.tail<3>() - dw).lpNorm<Eigen::Infinity>(), 0, kTol)
      << sim.state().v.tail<3>().transpose() << " vs " << dw.transpose();
  EXPECT_GT(dw.norm(), 1e-2);  // the moment is not negligible: the check above can fail
}

TEST(Load, SignalsAreEvaluatedAtTheStepsStartTime) {
  // f_x(t) = 100 t (piecewise linear through (0, 0) and (1, 100)); the point moves along x in the
  // body frame as 0.1 sin(2π t) but stays on the line through the COM parallel to f, so there is
  // no moment. Step n (from t^n = n δt) must change v_x by δt · 100 t^n / m exactly; at
  // t^0 = 0 the force is zero.
  FreeBody fb;
  fb.pose.q = Quat::Identity();
  fb.body = -1;
  fb.m = Model{};
  fb.body = AddFreeBody(&fb.m, "b", fb.mass, fb.inertia, fb.pose);
  Load ld;
  ld.body = fb.body;
  ld.point[0].kind = Signal::Kind::kSine;
  ld.point[0].amplitude = 0.1;
  ld.point[0].frequency = 1;
  ld.force[0].kind = Signal::Kind::kPiecewiseLinear;
  ld.force[0].points = {{0.0, 0.0}, {1.0, 100.0}};
  fb.m.loads.push_back(ld);
  fb.m.Finalize();
  StepSettings st = NoGravity();
  st.time_step = 0.01;
  Simulator sim(fb.m, st);
  double vx = 0;
  for (int n = 0; n < 5; ++n) {
    const double tn = sim.state().time;
    EXPECT_NEAR(tn, n * 0.01, 1e-15);
    sim.Step();
    vx += 0.01 * 100 * tn / fb.mass;
    EXPECT_NEAR(sim.state().v(0), vx, kTol) << "step " << n;
    EXPECT_NEAR(sim.state().v.tail<3>().norm(), 0, kTol) << "step " << n;
  }
  EXPECT_NEAR(vx, 0.01 * 100 * (0 + 0.01 + 0.02 + 0.03 + 0.04) / fb.mass, 1e-15);

  // EvaluateLoad reports the point and force at time t.
  KinematicsCache kin;
  sim.multibody().UpdateKinematics(sim.state().q, 0.25, &kin);
  const LoadForce lf = EvaluateLoad(kin, fb.m.loads[0], 0.25);
  EXPECT_NEAR(lf.force_W.x(), 25.0, 1e-12);
  EXPECT_NEAR((lf.point_W - (kin.X_WB[fb.body].p + Vec3(0.1, 0, 0))).norm(), 0, 1e-12);
}

TEST(Load, FinalizeRejectsLoadsOnBodiesWithoutDofs) {
  Model m;
  Body post;  // static: no inbound joint
  post.name = "post";
  m.bodies.push_back(post);
  Load ld;
  ld.name = "push";
  ld.body = 0;
  m.loads.push_back(ld);
  try {
    m.Finalize();
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("load 'push'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("degrees of freedom"), std::string::npos) << e.what();
  }
  m.loads[0].body = 7;
  EXPECT_THROW(m.Finalize(), std::invalid_argument);
}

constexpr const char* kSceneHead = R"(gravity: [0, 0, 0]
time_step: 0.001
bodies:
  - name: ground
    static: true
    geoms: [{shape: half_space}]
  - name: cube
    mass: 2.0
    position: [0, 0, 5]
    geoms: [{shape: box, size: [1, 1, 1]}]
)";

TEST(Load, SceneKeyBuildsLoads) {
  const Scene sc = ParseScene(std::string(kSceneHead) + R"(loads:
  - name: rotating
    body: cube
    point: [{sine: {amplitude: 0.5, frequency: 1.5915494309189535, phase: 1.5707963267948966}},
            {sine: {amplitude: 0.5, frequency: 1.5915494309189535}}, 0.5]
    force: [0, 0, -50]
  - body: cube
    force: [1, {piecewise_linear: [[0, 0], [1, 2]]}, 0]
    frame: body
)",
                              "loads.yaml");
  ASSERT_EQ(sc.model.loads.size(), 2u);
  const Load& a = sc.model.loads[0];
  EXPECT_EQ(a.name, "rotating");
  EXPECT_EQ(a.body, sc.model.FindBody("cube"));
  EXPECT_FALSE(a.force_in_body);
  // s/2 [cos 10t, sin 10t, 1] at t = 0.1.
  EXPECT_NEAR(a.point[0].Evaluate(0.1), 0.5 * std::cos(1.0), 1e-12);
  EXPECT_NEAR(a.point[1].Evaluate(0.1), 0.5 * std::sin(1.0), 1e-12);
  EXPECT_NEAR(a.point[2].Evaluate(0.1), 0.5, 0);
  EXPECT_EQ(a.force[2].Evaluate(3.0), -50);
  const Load& b = sc.model.loads[1];
  EXPECT_TRUE(b.force_in_body);
  EXPECT_NEAR(b.force[1].Evaluate(0.5), 1.0, 1e-12);
  EXPECT_EQ(b.point[0].Evaluate(0), 0);  // point defaults to the body origin
  // The scene's load drives the simulation: Δv_z = δt f_z / m over the first step (at the COM of
  // the cube the moment of the z force is r × f with r = (0.5, 0, 0.5) at t = 0).
  Simulator sim(sc.model, sc.settings);
  sim.Step();
  EXPECT_NEAR(sim.state().v(2), 1e-3 * -50 / 2.0, kTol);
  EXPECT_NEAR(sim.state().v(0), 1e-3 * 1 / 2.0, kTol);
}

void ExpectSceneError(const std::string& loads, const std::string& needle) {
  try {
    ParseScene(std::string(kSceneHead) + loads, "bad.yaml");
    ADD_FAILURE() << "expected SceneError containing '" << needle << "'";
  } catch (const SceneError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(Load, SceneErrorsNameFileLineAndField) {
  ExpectSceneError("loads:\n  - {body: nobody, force: [0, 0, 1]}\n",
                   "bad.yaml:12: loads.0.body: unknown body 'nobody'");
  ExpectSceneError("loads:\n  - {body: ground, force: [0, 0, 1]}\n",
                   "bad.yaml:12: loads.0.body: body 'ground' is static");
  ExpectSceneError("loads:\n  - {body: cube}\n", "bad.yaml:12: loads.0.force: missing required field");
  ExpectSceneError("loads:\n  - {body: cube, force: [0, 1]}\n",
                   "bad.yaml:12: loads.0.force: expected a list of 3 entries");
  ExpectSceneError("loads:\n  - {body: cube, force: [0, 0, {cosine: 1}]}\n",
                   "bad.yaml:12: loads.0.force.2.cosine: unknown key 'cosine'");
  ExpectSceneError("loads:\n  - {body: cube, force: [0, 0, 1], frame: local}\n",
                   "bad.yaml:12: loads.0.frame: expected one of world | body");
  ExpectSceneError("loads:\n  - {body: cube, force: [0, 0, 1], torque: [0, 0, 1]}\n",
                   "bad.yaml:12: loads.0.torque: unknown key 'torque' in a load");
  // A body welded to the world has no dofs: reported at the load's body field.
  try {
    ParseScene(R"(gravity: [0, 0, 0]
bodies:
  - name: post
    mass: 1.0
    joint: {type: fixed}
    geoms: [{shape: sphere, radius: 0.1}]
loads:
  - {body: post, force: [0, 0, 1]}
)",
               "weld.yaml");
    ADD_FAILURE() << "expected SceneError";
  } catch (const SceneError& e) {
    EXPECT_NE(std::string(e.what()).find("weld.yaml:8: loads.0.body: body 'post' is welded"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace contactlab
