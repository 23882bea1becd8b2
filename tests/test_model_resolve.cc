// Contact models through the simulator: the model a step is solved with, and the re-solve of a
// frozen step under another model (Simulator::Resolve).
#include <gtest/gtest.h>

#include <cmath>

#include "engine/sim/simulator.h"
#include "tests/test_models.h"

namespace contactlab {
namespace {

using testing::AddFreeBody;
using testing::AddGeom;
using testing::AddGround;
using testing::AddMaterial;
using testing::BoxInertia;
using testing::BoxShape;

// A 1 kg box (10 cm) dropped from 1 mm above the ground.
Model BoxOnGround() {
  Model m;
  const int mat = AddMaterial(&m, "steel", 1e5, 0.01, 0.5);
  AddGround(&m, Pose{}, mat);
  const Vec3 h(0.05, 0.05, 0.05);
  Pose pose;
  pose.p = Vec3(0, 0, 0.051);
  const int b = AddFreeBody(&m, "box", 1.0, BoxInertia(1.0, h), pose);
  AddGeom(&m, b, BoxShape(h), mat);
  m.Finalize();
  return m;
}

// Every model steps the box to rest: every step converges, and at rest the normal impulses carry
// the weight, Σγ_n = m g δt, to the solver's tolerance plus the residual motion.
TEST(ContactModelSimulation, EveryModelBringsTheBoxToRestUnderItsWeight) {
  for (int t = 0; t < kNumContactModelTypes; ++t) {
    StepSettings s;
    s.time_step = 1e-2;
    s.contact.model = static_cast<ContactModelType>(t);
    Simulator sim(BoxOnGround(), s);
    for (int i = 0; i < 200; ++i) {
      const StepRecord& rec = sim.Step();
      ASSERT_EQ(rec.result.stats.status, SolverStatus::kConverged)
          << ContactModelName(s.contact.model) << " step " << i << ": "
          << rec.result.stats.message;
    }
    const StepRecord& rec = sim.last_record();
    EXPECT_EQ(rec.result.laws.model(), s.contact.model);
    double sum_n = 0;
    for (const ConstraintData& c : rec.problem.constraints) sum_n += rec.result.gamma(c.first_row + 2);
    // At rest after 2 s (the box's vertical speed has decayed below 1e-6 m/s, i.e. below 1e-4 of
    // g δt): Σγ_n = m(v_n − v*_n) = m g δt to 1e-4 relative.
    const double weight = -s.gravity.z() * s.time_step;  // m g δt with m = 1 kg
    EXPECT_LT(std::abs(sim.state().v(2)), 1e-6) << ContactModelName(s.contact.model);
    EXPECT_NEAR(sum_n, weight, 1e-4 * weight) << ContactModelName(s.contact.model);
  }
}

// A frozen step of the linear model re-solved under the lagged model: a converged solve under
// the lagged laws, whose impulses differ from the recorded ones (the linear law has no Hunt–
// Crossley d and its R_n moves the rest point), and the same model again reproduces the record.
TEST(ContactModelSimulation, ResolveWithAnotherModelGivesThatModelsSolution) {
  StepSettings s;
  s.time_step = 1e-2;
  Simulator sim(BoxOnGround(), s);
  for (int i = 0; i < 3; ++i) sim.Step();
  const StepRecord rec = sim.last_record();
  ASSERT_GT(rec.problem.constraints.size(), 0u) << "the box touches the ground";
  ASSERT_EQ(rec.result.laws.model(), ContactModelType::kLinear);
  const SolverResult same = sim.Resolve(rec, s.sap);
  EXPECT_EQ(same.laws.model(), ContactModelType::kLinear);
  // Same problem, guess and solver: bit for bit.
  EXPECT_TRUE(same.gamma == rec.result.gamma);
  ContactModelParameters lagged;
  lagged.model = ContactModelType::kLagged;
  const SolverResult other = sim.Resolve(rec, s.sap, lagged);
  ASSERT_EQ(other.stats.status, SolverStatus::kConverged) << other.stats.message;
  EXPECT_EQ(other.laws.model(), ContactModelType::kLagged);
  double n0 = -1;
  EXPECT_TRUE(other.laws.Describe(0).Find("n0", &n0));
  EXPECT_FALSE(other.laws.Describe(0).Find("R_n", &n0)) << "no R under a Hunt–Crossley model";
  // Differ by far more than both solves' tolerance (ε_r = 1e-6 of the impulses).
  const double scale = rec.result.gamma.norm();
  EXPECT_GT((other.gamma - rec.result.gamma).norm(), 1e-3 * scale);
}

}  // namespace
}  // namespace contactlab
