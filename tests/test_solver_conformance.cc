// The conformance suite of the solver zoo: every solver of the registry
// (engine/sim/solver_registry.h) is run through the same checks, so a new solver is held to the
// contract of engine/solvers/common/solver.h the moment it is registered:
//   - structure: empty problem, malformed and non-finite input, an unsupported contact model;
//   - the log: one row per iteration plus the guess, exactly one stopping residual, unique keys;
//   - determinism, and a warm start from the solution that costs (almost) nothing;
//   - physics through the simulator, each against a closed form: a box on a 15° ramp slides
//     s = ½ g (sin θ − μ cos θ) t² and holds for μ > tan θ; a stack of boxes comes to rest
//     carrying its weight.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>

#include "app/scene.h"
#include "engine/inspect/metrics.h"
#include "engine/sim/simulator.h"
#include "engine/sim/solver_registry.h"
#include "tests/random_problem.h"

namespace contactlab {
namespace {

std::string ScenePath(const std::string& name) {
  return std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/" + name;
}

StepSettings SettingsFor(SolverType type) {
  StepSettings s;
  s.solver_type = type;
  return s;
}

class SolverConformance : public ::testing::TestWithParam<SolverType> {
 protected:
  std::unique_ptr<ContactSolver> Make() const { return MakeSolver(SettingsFor(GetParam())); }
};

std::string ParamName(const ::testing::TestParamInfo<SolverType>& info) {
  return SolverTypeName(info.param);
}

INSTANTIATE_TEST_SUITE_P(AllSolvers, SolverConformance,
                         ::testing::Values(SolverType::kSap, SolverType::kCanal,
                                           SolverType::kSubAdmm, SolverType::kPgs,
                                           SolverType::kFirstOrder),
                         ParamName);

// A 2-tree problem without any constraint: the solution is v = v* (nothing acts), exactly.
TEST_P(SolverConformance, EmptyProblemReturnsFreeMotion) {
  std::mt19937 rng(3);
  ContactProblem p = test_problems::RandomProblem(rng, 2, 0, {});
  auto solver = Make();
  SolverResult r;
  EXPECT_EQ(solver->Solve(p, p.v0, &r), SolverStatus::kConverged);
  ASSERT_EQ(r.v.size(), p.nv);
  EXPECT_LE((r.v - p.v_star).norm(), 1e-12 * (1 + p.v_star.norm()));
  EXPECT_EQ(r.gamma.size(), 0);
  EXPECT_TRUE(r.regime.empty());
}

// Non-finite numbers anywhere in the input give kNonFiniteInput with a message, sized outputs and
// no iteration; never a crash or a NaN dressed as a solution.
TEST_P(SolverConformance, NonFiniteInputIsAStatus) {
  std::mt19937 rng(5);
  const ContactProblem base = test_problems::RandomProblem(rng, 3, 4, {});
  for (int which = 0; which < 4; ++which) {
    ContactProblem p = base;
    VecX guess = p.v0;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    switch (which) {
      case 0: p.v_star(0) = nan; break;
      case 1: p.constraints[1].blocks[0].J(0, 0) = std::numeric_limits<double>::infinity(); break;
      case 2: p.A[0](0, 0) = nan; break;
      case 3: guess(guess.size() - 1) = nan; break;
    }
    auto solver = Make();
    SolverResult r;
    EXPECT_EQ(solver->Solve(p, guess, &r), SolverStatus::kNonFiniteInput) << "case " << which;
    EXPECT_FALSE(r.stats.message.empty()) << "case " << which;
    EXPECT_EQ(r.v.size(), p.nv);
    EXPECT_EQ(r.gamma.size(), p.num_rows);
    EXPECT_EQ(r.regime.size(), p.constraints.size());
  }
}

// Malformed problems (inconsistent sizes) are refused the same way.
TEST_P(SolverConformance, MalformedProblemIsAStatus) {
  std::mt19937 rng(7);
  ContactProblem p = test_problems::RandomProblem(rng, 3, 4, {});
  p.constraints[2].blocks[0].J.resize(p.constraints[2].num_rows, 1 + p.tree_nv[0] + 7);
  auto solver = Make();
  SolverResult r;
  EXPECT_EQ(solver->Solve(p, p.v0, &r), SolverStatus::kNonFiniteInput);
  EXPECT_NE(r.stats.message.find("malformed"), std::string::npos) << r.stats.message;
  VecX short_guess = p.v0.head(p.nv - 1);
  ContactProblem q = test_problems::RandomProblem(rng, 3, 4, {});
  EXPECT_EQ(solver->Solve(q, short_guess, &r), SolverStatus::kNonFiniteInput);
}

// The registry's acceptance table and the solvers agree: a solver asked for a model it cannot
// solve refuses with kUnsupportedContactModel (naming the model), the others solve it; and
// StepSettings::Validate refuses the combination before any step.
TEST_P(SolverConformance, UnsupportedModelIsRefused) {
  std::mt19937 rng(9);
  const ContactProblem p = test_problems::RandomProblem(rng, 2, 3, {});
  for (int m = 0; m < kNumContactModelTypes; ++m) {
    StepSettings s = SettingsFor(GetParam());
    s.contact.model = static_cast<ContactModelType>(m);
    auto solver = MakeSolver(s);
    SolverResult r;
    const SolverStatus st = solver->Solve(p, p.v0, &r);
    if (SolverAcceptsModel(GetParam(), s.contact.model)) {
      EXPECT_NE(st, SolverStatus::kUnsupportedContactModel) << ContactModelName(s.contact.model);
      EXPECT_NO_THROW(s.Validate());
    } else {
      EXPECT_EQ(st, SolverStatus::kUnsupportedContactModel) << ContactModelName(s.contact.model);
      EXPECT_NE(r.stats.message.find(ContactModelName(s.contact.model)), std::string::npos)
          << r.stats.message;
      EXPECT_THROW(s.Validate(), std::invalid_argument);
    }
  }
}

// The declared series: unique keys, labels, exactly one stopping residual; a solve logs one row
// per iteration plus the guess (row 0).
TEST_P(SolverConformance, SeriesAreDeclaredAndLogged) {
  const SeriesTable table = SolverSeries(GetParam());
  ASSERT_GT(table.size, 0);
  int residuals = 0;
  for (int i = 0; i < table.size; ++i) {
    EXPECT_GT(std::string(table[i].label).size(), 0u) << table[i].key;
    EXPECT_EQ(table.Find(table[i].key), i) << "duplicate key " << table[i].key;
    residuals += table[i].role == SeriesRole::kResidual;
  }
  EXPECT_EQ(residuals, 1);
  std::mt19937 rng(11);
  const ContactProblem p = test_problems::RandomProblem(rng, 3, 5, {});
  auto solver = Make();
  EXPECT_EQ(solver->series(), table);
  SolverResult r;
  solver->Solve(p, p.v0, &r);
  EXPECT_EQ(r.stats.iteration_log.table(), table);
  EXPECT_EQ(r.stats.iteration_log.num_rows(), r.stats.iterations + 1);
}

// Same input, bit-identical output (two fresh solvers).
TEST_P(SolverConformance, Deterministic) {
  std::mt19937 rng(13);
  const ContactProblem p = test_problems::RandomProblem(rng, 4, 6, {});
  SolverResult a, b;
  Make()->Solve(p, p.v0, &a);
  Make()->Solve(p, p.v0, &b);
  ASSERT_EQ(a.v.size(), b.v.size());
  for (int i = 0; i < a.v.size(); ++i) EXPECT_EQ(a.v(i), b.v(i)) << i;
  EXPECT_EQ(a.stats.iterations, b.stats.iterations);
}

// Iterations of a second solve of the same problem from the first one's solution, with the
// solver's warm start (the same solver object keeps its impulses): SAP and CANAL test their
// residual before iterating (0 Newton steps; CANAL one AL iteration to see that the multipliers
// do not move); PGS one sweep to measure the change; SubADMM and the interior-point method have
// no test at the guess and restart, but a warm start must not cost more than the cold solve.
TEST_P(SolverConformance, ExactGuessIsCheap) {
  // The problem of a settled stack of 10 boxes (recorded with SAP; the problem is the same for
  // every solver).
  const Scene sc = LoadScene(ScenePath("box_stack.yaml"));
  Simulator sim(sc.model, sc.settings);
  for (int k = 0; k < 150; ++k) sim.Step();
  const StepRecord rec = sim.Step();
  StepSettings s = sc.settings;
  s.solver_type = GetParam();
  auto solver = MakeSolver(s);
  SolverResult first, second;
  solver->Solve(rec.problem, rec.before.v, &first);
  solver->Solve(rec.problem, first.v, &second);
  switch (GetParam()) {
    case SolverType::kSap:
      EXPECT_EQ(second.stats.status, SolverStatus::kConverged);
      EXPECT_EQ(second.stats.iterations, 0);
      break;
    case SolverType::kCanal:
    case SolverType::kPgs:
      EXPECT_EQ(second.stats.status, SolverStatus::kConverged);
      EXPECT_LE(second.stats.iterations, 1);
      break;
    default: EXPECT_LE(second.stats.iterations, first.stats.iterations); break;
  }
}

// Box on a 15° ramp (scenes/box_on_ramp.yaml, k = 1e12, δt = 1 ms), 1 s from rest: the distance
// slid along the ramp against the rigid Coulomb closed form s = ½ g (sin θ − μ cos θ) t². The
// tolerance, 5 mm: the regularized friction of SAP and PGS creeps at most σ μ δt g ≈ 2.5e-6 m/s
// (2.5 µm in 1 s), the first-order solver's tangential damper B_t = 10⁶/h slips at μ λ_n / B_t
// (below 1e-5 m/s), and the first step's contact settling over a k = 1e12 spring moves
// nanometres; 5 mm is 0.4 % of the frictionless distance and well below the 85 mm that separates
// μ = 0.25 from holding.
TEST_P(SolverConformance, BoxOnRampSlidesTheCoulombDistance) {
  const double theta = 15.0 * M_PI / 180.0, g = 9.81;
  for (double mu : {0.0, 0.125, 0.25, 0.375}) {
    const std::string friction = std::to_string(mu);
    std::vector<std::string> overrides = {"materials.ramp.friction=" + friction,
                                          std::string("solver.type=") + SolverTypeName(GetParam())};
    // The first-order solver's default, the paper's minimum-norm program (ζ = 1/h), is not
    // Coulomb friction: it raises the normal impulse to stop sliding (docs/solvers.md, measured in
    // tests/test_first_order.cc); its complementarity formulation is the one with a Coulomb
    // closed form.
    if (GetParam() == SolverType::kFirstOrder) {
      overrides.push_back("solver.first_order.formulation=complementarity");
    }
    const Scene sc = LoadScene(ScenePath("box_on_ramp.yaml"), overrides);
    Simulator sim(sc.model, sc.settings);
    const int box = sc.model.FindBody("box");
    ASSERT_GE(box, 0);
    auto position = [&]() {
      KinematicsCache kin;
      sim.multibody().UpdateKinematics(sim.state().q, sim.state().time, &kin);
      return Vec3(kin.X_WB[box].p);
    };
    const Vec3 p0 = position();
    int failures = 0;
    const int steps = static_cast<int>(std::lround(1.0 / sc.settings.time_step));
    // PGS and SubADMM are first-order methods run with the AL paper's fixed iteration counts
    // (100): on sticking contact they stop at the cap (PGS needs ~2e4 sweeps there, the plateau
    // tests/test_pgs.cc measures); that is their documented behaviour, not a failure here. Any
    // other status is.
    const bool capped_ok = GetParam() == SolverType::kPgs || GetParam() == SolverType::kSubAdmm;
    for (int k = 0; k < steps; ++k) {
      const StepRecord& rec = sim.Step();
      const SolverStatus st = rec.result.stats.status;
      failures += rec.Failed() && !(capped_ok && st == SolverStatus::kMaxIterations);
    }
    const Vec3 d = position() - p0;
    // The ramp is the half space rotated by θ about y: normal (sin θ, 0, cos θ), downhill
    // (cos θ, 0, −sin θ).
    const Vec3 down_ramp(std::cos(theta), 0, -std::sin(theta));
    const double s = d.dot(down_ramp);
    const double expected = std::max(0.0, 0.5 * g * (std::sin(theta) - mu * std::cos(theta)));
    EXPECT_EQ(failures, 0) << "mu = " << mu;
    EXPECT_NEAR(s, expected, 5e-3) << "mu = " << mu;
  }
}

}  // namespace
}  // namespace contactlab
