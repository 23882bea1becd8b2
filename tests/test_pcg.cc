// Tests of SAP's iterative Newton direction (SapParameters::LinearSolver::kPcg and kAuto): the
// no-fill block pattern (IC(0), block Jacobi, H x), the step it gives against the block Cholesky
// path on random problems and on a 100-box pile, the forcing term of every direction (checked
// against H and ∇ℓ rebuilt densely), the failure status, and the `auto` rule.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "app/scene.h"
#include "engine/contact/contact_problem.h"
#include "engine/sim/simulator.h"
#include "engine/solvers/common/sap_supernodal.h"
#include "engine/solvers/sap/sap_solver.h"
#include "tests/random_problem.h"

namespace contactlab {
namespace {

using LinearSolver = SapParameters::LinearSolver;

using test_problems::RandomMatrix;
using test_problems::Uniform;

double RelativeDifference(const VecX& a, const VecX& b) {
  return (a - b).norm() / std::max(b.norm(), 1e-300);
}

// Random coupled problem (tests/random_problem.h): constraints on one or two trees of any pair
// (70 % on two: one island with much fill in the block Cholesky).
ContactProblem RandomProblem(std::mt19937& rng, int num_trees, int num_constraints) {
  return test_problems::RandomProblem(rng, num_trees, num_constraints, {0, 0.7});
}

SapParameters Params(LinearSolver ls, double rel_tol) {
  SapParameters prm;
  prm.linear_solver = ls;
  prm.islands = false;
  prm.rel_tolerance = rel_tol;
  return prm;
}

// Random SPD H with blocks at the diagonal and at `pairs`, written into a no-fill pattern.
MatX FillRandomH(std::mt19937& rng, const std::vector<int>& nv,
                 const std::vector<std::pair<int, int>>& pairs, BlockSparseCholesky* chol) {
  std::vector<int> start;
  int n = 0;
  for (int k : nv) {
    start.push_back(n);
    n += k;
  }
  MatX H = MatX::Zero(n, n);
  for (size_t t = 0; t < nv.size(); ++t) {
    const MatX B = RandomMatrix(rng, nv[t], nv[t]);
    H.block(start[t], start[t], nv[t], nv[t]) =
        B * B.transpose() + 6 * MatX::Identity(nv[t], nv[t]);
  }
  for (const auto& [a, b] : pairs) {
    const MatX C = 0.3 * RandomMatrix(rng, nv[a], nv[b]);
    H.block(start[a], start[b], nv[a], nv[b]) = C;
    H.block(start[b], start[a], nv[b], nv[a]) = C.transpose();
  }
  chol->SetZero();
  for (int b = 0; b < chol->num_blocks(); ++b) {
    const int ti = chol->BlockRowTree(b), tj = chol->BlockColTree(b);
    Eigen::Map<MatX> blk(chol->BlockData(b), nv[ti], nv[tj]);
    blk = H.block(start[ti], start[tj], nv[ti], nv[tj]);
    // The solver assembles diagonal blocks in their lower triangle only: leave garbage above.
    if (ti == tj) blk.triangularView<Eigen::StrictlyUpper>().setConstant(1e30);
  }
  return H;
}

// On a pattern without fill (a path of trees: eliminating in the natural order creates no new
// block), IC(0) is the complete factor: its Solve is H⁻¹ b. Multiply is H x from the lower
// triangle of the diagonal blocks, and the block-Jacobi factor solves with blockdiag(H).
TEST(BlockSparseCholesky, IncompleteFactorOnAPathIsExactAndMultiplyIsH) {
  std::mt19937 rng(7);
  const std::vector<int> nv = {6, 3, 6, 1, 6, 2, 6};
  std::vector<std::pair<int, int>> pairs;
  for (int t = 0; t + 1 < static_cast<int>(nv.size()); ++t) pairs.emplace_back(t + 1, t);
  BlockSparseCholesky chol;
  chol.set_incomplete(true);
  chol.SetPattern(nv, pairs);
  EXPECT_EQ(chol.num_blocks(), static_cast<int>(nv.size() + pairs.size()));
  const MatX H = FillRandomH(rng, nv, pairs, &chol);
  chol.SaveMatrix();
  const VecX x = RandomMatrix(rng, static_cast<int>(H.rows()), 1).col(0);
  VecX y;
  chol.Multiply(x, &y);
  // Sums of a few products of O(1) numbers: round-off ~1e-15 relative.
  EXPECT_LT(RelativeDifference(y, H * x), 1e-13);
  ASSERT_TRUE(chol.Factor());
  VecX z;
  chol.Solve(x, &z);
  // Backward-stable Cholesky solves of a matrix with cond ~ 10.
  EXPECT_LT(RelativeDifference(z, H.llt().solve(x)), 1e-12);
  ASSERT_TRUE(chol.FactorBlockDiagonal());
  chol.Solve(x, &z);
  VecX z_ref(H.rows());
  for (int t = 0, s = 0; t < static_cast<int>(nv.size()); s += nv[t], ++t) {
    z_ref.segment(s, nv[t]) = H.block(s, s, nv[t], nv[t]).llt().solve(x.segment(s, nv[t]));
  }
  EXPECT_LT(RelativeDifference(z, z_ref), 1e-12);
}

// On a grid (fill dropped), IC(0) is not H⁻¹ but is SPD and close to it for a diagonally
// dominant H: preconditioned, the error of one Solve is well below that of no preconditioning.
TEST(BlockSparseCholesky, IncompleteFactorOnAGridDropsFillAndApproximatesTheInverse) {
  std::mt19937 rng(11);
  const int side = 6;
  std::vector<int> nv(side * side, 6);
  std::vector<std::pair<int, int>> pairs;
  for (int i = 0; i < side; ++i) {
    for (int j = 0; j < side; ++j) {
      const int t = i * side + j;
      if (j + 1 < side) pairs.emplace_back(t, t + 1);
      if (i + 1 < side) pairs.emplace_back(t, t + side);
    }
  }
  BlockSparseCholesky complete, incomplete;
  incomplete.set_incomplete(true);
  complete.SetPattern(nv, pairs);
  incomplete.SetPattern(nv, pairs);
  EXPECT_LT(incomplete.num_blocks(), complete.num_blocks());  // the grid's fill is dropped
  EXPECT_EQ(incomplete.num_blocks(), static_cast<int>(nv.size() + pairs.size()));
  const MatX H = FillRandomH(rng, nv, pairs, &incomplete);
  ASSERT_TRUE(incomplete.Factor());
  const VecX b = RandomMatrix(rng, static_cast<int>(H.rows()), 1).col(0);
  VecX z;
  incomplete.Solve(b, &z);
  const VecX x = H.llt().solve(b);
  EXPECT_GT(RelativeDifference(z, x), 1e-8);  // not exact: fill was dropped
  EXPECT_LT(RelativeDifference(z, x), 0.5);   // but much closer than b / ‖H‖-type guesses
}

// The PCG path reaches the same solution as the block Cholesky path: both stop by eq. 26 at
// ε_r = 1e-10, so their velocities differ by at most ~cond(H) ε_r (H of cond ~ 1e4 here).
TEST(Pcg, MatchesTheBlockCholeskyOnRandomProblems) {
  std::mt19937 rng(2026);
  for (int trial = 0; trial < 12; ++trial) {
    const ContactProblem p = RandomProblem(rng, 12 + trial, 30 + 4 * trial);
    const VecX guess = p.v0;
    SapSolver direct(Params(LinearSolver::kBlockSparse, 1e-10));
    SolverResult rd;
    ASSERT_EQ(direct.Solve(p, guess, &rd), SolverStatus::kConverged) << rd.stats.message;
    for (const auto pre : {SapParameters::Preconditioner::kIncompleteCholesky,
                           SapParameters::Preconditioner::kBlockJacobi}) {
      SapParameters prm = Params(LinearSolver::kPcg, 1e-10);
      prm.pcg_preconditioner = pre;
      SapSolver pcg(prm);
      SolverResult rp;
      ASSERT_EQ(pcg.Solve(p, guess, &rp), SolverStatus::kConverged)
          << "trial " << trial << ": " << rp.stats.message;
      EXPECT_LT(RelativeDifference(rp.v, rd.v), 1e-6) << "trial " << trial;
      int cg = 0;
      for (int m = 0; m < rp.stats.iterations; ++m) cg += rp.stats.iteration_log(m, kSapLinearIterations);
      EXPECT_GT(cg, 0);
      // The last record has no direction; direct solves record none either.
      EXPECT_EQ(rp.stats.iteration_log.Last(kSapLinearIterations), 0);
      EXPECT_TRUE(std::isnan(rp.stats.iteration_log.Last(kSapLinearResidual)));
      EXPECT_EQ(rd.stats.iteration_log(0, kSapLinearIterations), 0);
      EXPECT_TRUE(std::isnan(rd.stats.iteration_log(0, kSapForcingTerm)));
    }
  }
}

// Every inexact direction meets its forcing term: with H and ∇ℓ rebuilt densely at the iterate
// (laws evaluated at v_c = J v + b), Δv = (v_{m+1} − v_m)/α_{m+1} satisfies
// ‖D(HΔv + ∇ℓ)‖ <= η_m ‖D∇ℓ‖ (up to round-off), η_0 = η_max, and η_m <= η_max. The solve is
// replayed one Newton iteration at a time (max_iterations = m + 1 from the same guess gives the
// same first m + 1 iterates: the solve is deterministic).
TEST(Pcg, EveryDirectionMeetsItsForcingTerm) {
  std::mt19937 rng(99);
  const ContactProblem p = RandomProblem(rng, 16, 60);
  SapParameters prm = Params(LinearSolver::kPcg, 1e-9);
  prm.pcg_forcing_max = 0.3;
  prm.pcg_preconditioner = SapParameters::Preconditioner::kBlockJacobi;
  SapSolver full(prm);
  SolverResult r;
  ASSERT_EQ(full.Solve(p, p.v0, &r), SolverStatus::kConverged) << r.stats.message;
  ASSERT_GE(r.stats.iterations, 2);
  EXPECT_DOUBLE_EQ(r.stats.iteration_log(0, kSapForcingTerm), 0.3);
  const ConstraintBundle laws = PrepareSapLaws(p, prm);
  const MatX A = p.DenseA(), J = p.DenseJ();
  VecX D(p.nv);
  for (int t = 0; t < p.num_trees(); ++t) {
    D.segment(p.tree_v_start[t], p.tree_nv[t]) = p.M[t].diagonal().cwiseSqrt().cwiseInverse();
  }
  VecX v = p.v0;
  for (int m = 0; m < r.stats.iterations; ++m) {
    const double* rec = r.stats.iteration_log.row(m);
    ASSERT_GT(rec[kSapLinearIterations], 0);
    EXPECT_LE(rec[kSapForcingTerm], 0.3);
    EXPECT_LE(rec[kSapLinearResidual], rec[kSapForcingTerm]);
    // Dense H and ∇ℓ at v_m.
    VecX vc;
    p.ConstraintVelocities(v, &vc);
    VecX gamma;
    std::vector<Mat3> G;
    std::vector<Regime> regime;
    laws.Evaluate(vc, &gamma, &G, &regime);
    MatX GJ(p.num_rows, p.nv);
    for (size_t i = 0; i < p.constraints.size(); ++i) {
      const ConstraintData& c = p.constraints[i];
      GJ.middleRows(c.first_row, c.num_rows) =
          G[i].topLeftCorner(c.num_rows, c.num_rows) * J.middleRows(c.first_row, c.num_rows);
    }
    const MatX H = A + J.transpose() * GJ;
    const VecX grad = A * (v - p.v_star) - J.transpose() * gamma;
    // v_{m+1} from a solve capped at m + 1 iterations.
    SapParameters capped = prm;
    capped.max_iterations = m + 1;
    SapSolver step(capped);
    SolverResult rs;
    step.Solve(p, p.v0, &rs);
    const double alpha = rs.stats.iteration_log(m + 1, kSapAlpha);
    ASSERT_GT(alpha, 0);
    const VecX dv = (rs.v - v) / alpha;
    const double rel = D.cwiseProduct(H * dv + grad).norm() / D.cwiseProduct(grad).norm();
    // The solver's own residual is the true one (recomputed after CG); the dense one differs by
    // round-off of v_{m+1} − v_m (relative 1e-12 of v over a step of relative size >= 1e-6).
    EXPECT_LE(rel, rec[kSapForcingTerm] * (1 + 1e-3) + 1e-6) << "iteration " << m;
    EXPECT_NEAR(rel, rec[kSapLinearResidual], 1e-3 * rec[kSapForcingTerm] + 1e-6) << "iteration " << m;
    v = rs.v;
  }
}

// A forcing tolerance out of reach within the CG cap is a status with the iterate kept, not a
// silent bad direction.
TEST(Pcg, CgCapWithoutTheForcingToleranceIsALinearSolverFailure) {
  std::mt19937 rng(5);
  const ContactProblem p = RandomProblem(rng, 20, 80);
  SapParameters prm = Params(LinearSolver::kPcg, 1e-10);
  prm.pcg_max_iterations = 1;
  prm.pcg_forcing_max = 1e-9;
  prm.pcg_preconditioner = SapParameters::Preconditioner::kBlockJacobi;
  SapSolver solver(prm);
  SolverResult r;
  EXPECT_EQ(solver.Solve(p, p.v0, &r), SolverStatus::kLinearSolverFailure);
  EXPECT_EQ(std::string(SolverStatusName(r.stats.status)), "linear_solver_failure");
  EXPECT_NE(r.stats.message.find("forcing tolerance"), std::string::npos) << r.stats.message;
  EXPECT_EQ(r.stats.iterations, 0);
  EXPECT_EQ(r.v, p.v0);  // no step was taken along the unfinished direction
  ASSERT_EQ(r.stats.iteration_log.num_rows(), 1);
  EXPECT_EQ(r.stats.iteration_log(0, kSapLinearIterations), 1);
  EXPECT_GT(r.stats.iteration_log(0, kSapLinearResidual), r.stats.iteration_log(0, kSapForcingTerm));
  // With room for CG the same problem converges.
  prm.pcg_max_iterations = 2000;
  prm.pcg_forcing_max = 0.1;
  solver.set_parameters(prm);
  EXPECT_EQ(solver.Solve(p, p.v0, &r), SolverStatus::kConverged) << r.stats.message;
}

// A pile of 100 touching 10 cm boxes (5 x 5 x 4 on a floor, one island): after 5 steps of
// settling, the step's problem solved by PCG and by the block Cholesky gives the same velocities
// to the solver's tolerance (ε_r = 1e-8: |Δv| ~ 1e-6 of |v| with cond(H) ~ 1e2 after D scaling).
std::string PileScene(int nx, int ny, int nz) {
  return "time_step: 0.01\n"
         "solver: {rel_tolerance: 1e-5}\n"
         "materials:\n"
         "  - {name: m, stiffness: 1e12, dissipation_time: 0.01, friction: 1.0}\n"
         "templates:\n"
         "  - name: brick\n"
         "    density: 1000\n"
         "    geoms: [{shape: box, size: [0.1, 0.1, 0.1], material: m}]\n"
         "bodies:\n"
         "  - name: floor\n"
         "    static: true\n"
         "    geoms: [{shape: half_space, material: m}]\n"
         "generators:\n"
         "  - grid:\n"
         "      name: body\n"
         "      templates: [brick]\n"
         "      count: [" +
         std::to_string(nx) + ", " + std::to_string(ny) + ", " + std::to_string(nz) +
         "]\n"
         "      spacing: [0.1, 0.1, 0.1]\n"
         "      origin: [-0.2, -0.2, 0.05]\n";
}

TEST(Pcg, HundredBoxPileStepMatchesTheBlockCholesky) {
  Scene scene = ParseScene(PileScene(5, 5, 4), "pile_100.yaml");
  ASSERT_EQ(scene.model.bodies.size(), 101u);  // 100 boxes and the floor
  Simulator sim(scene.model, scene.settings);
  for (int n = 0; n < 5; ++n) ASSERT_EQ(sim.Step().result.stats.status, SolverStatus::kConverged);
  const StepRecord& rec = sim.Step();
  ASSERT_GT(rec.problem.constraints.size(), 500u);
  SapParameters base = scene.settings.sap;
  base.rel_tolerance = 1e-8;
  SapParameters pb = base, pp = base;
  pb.linear_solver = LinearSolver::kBlockSparse;
  pp.linear_solver = LinearSolver::kPcg;
  SapSolver sb(pb), sp(pp);
  SolverResult rb, rp;
  ASSERT_EQ(sb.Solve(rec.problem, rec.before.v, &rb), SolverStatus::kConverged);
  ASSERT_EQ(sp.Solve(rec.problem, rec.before.v, &rp), SolverStatus::kConverged) << rp.stats.message;
  EXPECT_LT(RelativeDifference(rp.v, rb.v), 1e-5);
  EXPECT_LT((rp.v - rb.v).lpNorm<Eigen::Infinity>(), 1e-6);  // [m/s]
  EXPECT_GT(rp.stats.iteration_log(0, kSapLinearIterations), 0);
}

// `auto` keeps the block Cholesky (bit for bit) where its factorization is cheap, and switches
// to PCG when the fill work passes pcg_auto_gflop.
TEST(Pcg, AutoPicksTheDirectPathForSmallFillAndPcgBeyondTheLimit) {
  Scene scene = ParseScene(PileScene(5, 5, 4), "pile_100.yaml");
  Simulator sim(scene.model, scene.settings);
  for (int n = 0; n < 3; ++n) sim.Step();
  const StepRecord& rec = sim.Step();
  SapParameters pa = scene.settings.sap, pb = scene.settings.sap;
  ASSERT_EQ(pa.linear_solver, LinearSolver::kAuto);  // the default
  pb.linear_solver = LinearSolver::kBlockSparse;
  SapSolver sa(pa), sb(pb);
  SolverResult ra, rb;
  sa.Solve(rec.problem, rec.before.v, &ra);
  sb.Solve(rec.problem, rec.before.v, &rb);
  EXPECT_EQ(ra.v, rb.v);
  for (int m = 0; m < ra.stats.iteration_log.num_rows(); ++m) {
    EXPECT_EQ(ra.stats.iteration_log(m, kSapLinearIterations), 0);
  }
  pa.pcg_auto_gflop = 1e-6;  // 1000 multiply-adds: less than the pile's fill needs
  sa.set_parameters(pa);
  ASSERT_EQ(sa.Solve(rec.problem, rec.before.v, &ra), SolverStatus::kConverged);
  EXPECT_GT(ra.stats.iteration_log(0, kSapLinearIterations), 0);
  EXPECT_LT(RelativeDifference(ra.v, rb.v), 1e-3);  // both within ε_r = 1e-5 of the minimizer
}

// The multiply-add estimate that a work-budget message reports after `marker`.
double EstimateIn(const std::string& message, const std::string& marker) {
  const size_t at = message.find(marker);
  if (at == std::string::npos) return -1;
  return std::stod(message.substr(at + marker.size()));
}

// `auto` also switches to PCG when the factorization is over the work budget but PCG's bound
// (the preconditioner plus pcg_max_iterations CG iterations) fits it; over both, the step is
// refused with work_budget_exceeded and the PCG bound in the message. (The 10 000-box pile's
// third pattern, 1.18e11 multiply-adds against the default budget of 1e11, failed so before.)
TEST(Pcg, AutoSwitchesToPcgWhenTheFactorizationIsOverTheWorkBudget) {
  // 600 boxes: the factorization's fill grows faster than the pattern without fill.
  Scene scene = ParseScene(PileScene(10, 10, 6), "pile_600.yaml");
  Simulator sim(scene.model, scene.settings);
  for (int n = 0; n < 3; ++n) sim.Step();
  const StepRecord& rec = sim.Step();
  SapParameters p = scene.settings.sap;
  p.pcg_max_iterations = 10;
  p.pcg_forcing_max = 0.5;
  p.pcg_auto_gflop = 1e9;       // the fill limit never switches here: only the budget does
  p.work_budget_gflop = 1e-9;   // one multiply-add: the direct path is refused; read its estimate
  SolverResult r;
  p.linear_solver = LinearSolver::kBlockSparse;
  SapSolver direct(p);
  ASSERT_EQ(direct.Solve(rec.problem, rec.before.v, &r), SolverStatus::kWorkBudgetExceeded);
  const double factor = EstimateIn(r.stats.message, "needs an estimated ");
  // PCG's bound: its message at a budget above the preconditioner's factorization (the direct
  // factor's work is an upper bound of IC(0)'s) and below the bound itself.
  p.work_budget_gflop = factor * 1e-9;
  p.linear_solver = LinearSolver::kPcg;
  p.pcg_max_iterations = 1000000;  // a bound far above the budget
  SapSolver pcg(p);
  ASSERT_EQ(pcg.Solve(rec.problem, rec.before.v, &r), SolverStatus::kWorkBudgetExceeded);
  ASSERT_NE(r.stats.message.find("per PCG direction"), std::string::npos) << r.stats.message;
  const double values = EstimateIn(r.stats.message, "coupled tree pairs; ");
  ASSERT_GT(values, 0) << r.stats.message;
  const double ic0 = EstimateIn(r.stats.message, "needs up to an estimated ") - 4e6 * values;
  p.pcg_max_iterations = 10;
  const double bound = ic0 + 4.0 * p.pcg_max_iterations * values;  // PCG's bound at 10 CG steps
  ASSERT_GT(factor, 2 * bound) << "the factorization must cost more than PCG's bound";

  // Budget between the two: block_sparse refused, auto solves by PCG.
  p.work_budget_gflop = std::sqrt(factor * bound) * 1e-9;
  p.linear_solver = LinearSolver::kBlockSparse;
  direct.set_parameters(p);
  EXPECT_EQ(direct.Solve(rec.problem, rec.before.v, &r), SolverStatus::kWorkBudgetExceeded);
  p.linear_solver = LinearSolver::kAuto;
  SapSolver automatic(p);
  ASSERT_EQ(automatic.Solve(rec.problem, rec.before.v, &r), SolverStatus::kConverged)
      << r.stats.message;
  EXPECT_GT(r.stats.iteration_log(0, kSapLinearIterations), 0);

  // Budget below PCG's bound: auto refuses, naming the PCG bound.
  p.work_budget_gflop = 0.5 * bound * 1e-9;
  automatic.set_parameters(p);
  EXPECT_EQ(automatic.Solve(rec.problem, rec.before.v, &r), SolverStatus::kWorkBudgetExceeded);
  EXPECT_NE(r.stats.message.find("per PCG direction"), std::string::npos) << r.stats.message;
}

}  // namespace
}  // namespace contactlab
