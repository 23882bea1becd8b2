// implicit_damping_euler (engine/sim/simulator.h): symplectic Euler with the joint dampers taken
// implicitly, as MuJoCo's Euler. Closed form on a damped rotor (no gravity, no spring, no
// contact): ω_{n+1} = ω_n / (1 + δt d / I) exactly, against symplectic Euler's
// ω_n (1 − δt d / I), which grows without bound once δt d / I > 2.
#include <gtest/gtest.h>

#include <cmath>

#include "app/scene.h"
#include "engine/sim/simulator.h"

namespace contactlab {
namespace {

// A rotor about z with I_zz = 2e-4 kg m² (a light limb) and joint damping d = 0.2 N m s/rad
// (humanoid.xml's default) at δt = 5 ms: δt d / I = 5.
const char* kRotor = R"(
time_step: 0.005
gravity: [0, 0, 0]
bodies:
  - name: rotor
    mass: 0.1
    inertia: [2e-4, 2e-4, 2e-4]
    joint: {type: revolute, axis: [0, 0, 1], damping: 0.2}
    joint_velocity: 1.0
    geoms: [{shape: sphere, radius: 0.02, collide: false}]
)";

TEST(Integrators, ImplicitDampingEulerMatchesTheClosedForm) {
  Scene scene = ParseScene(kRotor, "rotor.yaml");
  scene.settings.integrator = Integrator::kImplicitDampingEuler;
  Simulator sim(scene.model, scene.settings);
  const double r = 1.0 / (1.0 + 0.005 * 0.2 / 2e-4);  // 1/6 per step
  double w = 1.0, q = 0.0;
  for (int n = 0; n < 10; ++n) {
    ASSERT_FALSE(sim.Step().Failed());
    w *= r;
    q += 0.005 * w;  // θ_vq = 1: the new rate advances q
    // Relative round-off of 10 solves of a 1 x 1 system.
    EXPECT_NEAR(sim.state().v[0], w, 1e-14 * std::max(1.0, std::abs(w))) << "step " << n;
    EXPECT_NEAR(sim.state().q[0], q, 1e-14) << "step " << n;
  }
}

TEST(Integrators, SymplecticEulerDampingIsExplicit) {
  Scene scene = ParseScene(kRotor, "rotor.yaml");
  scene.settings.integrator = Integrator::kSymplecticEuler;
  Simulator sim(scene.model, scene.settings);
  double w = 1.0;
  for (int n = 0; n < 10; ++n) {
    sim.Step();
    w *= 1.0 - 0.005 * 0.2 / 2e-4;  // × (−4): the explicit damper diverges
    EXPECT_NEAR(sim.state().v[0], w, 1e-12 * std::abs(w)) << "step " << n;
  }
  EXPECT_GT(std::abs(sim.state().v[0]), 1e5);
}

TEST(Integrators, ImplicitDampingEulerNamesAndParses) {
  Integrator i = Integrator::kExplicitEuler;
  ASSERT_TRUE(ParseIntegrator("implicit_damping_euler", &i));
  EXPECT_EQ(i, Integrator::kImplicitDampingEuler);
  EXPECT_EQ(IntegratorTheta(i), 0.0);
  EXPECT_EQ(IntegratorThetaVq(i), 1.0);
  EXPECT_EQ(IntegratorThetaDamping(i), 1.0);
  const Scene s = ParseScene(std::string(kRotor) + "integrator: implicit_damping_euler\n", "r.yaml");
  EXPECT_EQ(s.settings.integrator, Integrator::kImplicitDampingEuler);
}

}  // namespace
}  // namespace contactlab
