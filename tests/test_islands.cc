// Tests of the common island split and merge (engine/solvers/common/islands.h): the split
// partitions the problem into its connected components and the merge puts the pieces back
// exactly; a solve by islands equals the monolithic solve for SAP and for a toy solver that is
// not SAP; island storage survives from call to call; a failing island is reported (and SAP
// falls back to the monolithic solve).
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "engine/contact/contact_problem.h"
#include "engine/solvers/common/islands.h"
#include "engine/solvers/sap/sap_solver.h"
#include "tests/random_problem.h"

namespace contactlab {
namespace {

using test_problems::RandomMatrix;
using test_problems::Uniform;

// Random problem (tests/random_problem.h): two-tree constraints couple trees only within groups
// of `group` consecutive trees, so the problem has several islands when group < num_trees. Trees
// listed in `free_trees` get no constraint (they form the island of constraint-free trees).
// Constraint i has source i.
ContactProblem RandomProblem(std::mt19937& rng, int num_trees, int num_constraints, int group,
                             const std::set<int>& free_trees = {}) {
  test_problems::RandomProblemOptions o;
  o.group = group;
  o.free_trees = free_trees;
  ContactProblem p = test_problems::RandomProblem(rng, num_trees, num_constraints, o);
  for (size_t i = 0; i < p.constraints.size(); ++i) p.constraints[i].source = static_cast<int>(i);
  return p;
}

double RelativeDifference(const VecX& a, const VecX& b) {
  return (a - b).norm() / std::max(b.norm(), 1e-300);
}

// A toy contact solver that is not SAP: one explicit penalty step. With the penalty impulse
// γ = −κ (J v* + b), κ = 1 / (num_rows w_i) per constraint, it returns v = v* + A⁻¹ Jᵀγ,
// v_c = J v + b, the regime from the sign of the normal impulse, and an iteration record with
// ℓ = ½‖v − v*‖²_A. Every quantity is a sum over the trees a constraint touches, so a solve of
// each island gives the monolithic solve's numbers up to round-off. `fail_tree` >= 0: a problem
// containing a tree of A(0,0) equal to `fail_a00` reports kMaxIterations (a failing island).
// The toy solver's declared series (engine/solvers/common/iteration_log.h).
enum ToySeries { kToyCost, kToyStiction, kToyNoContact };
constexpr SeriesSpec kToySeriesSpecs[] = {
    {"cost", "cost", "J", SeriesAxis::kLog, SeriesType::kReal, SeriesRole::kObjective,
     kSeriesDefaultPlot, "penalty step's cost"},
    {"num_stiction", "loaded", "", SeriesAxis::kLinear, SeriesType::kInteger, SeriesRole::kPlain,
     0u, "constraints with an impulse"},
    {"num_no_contact", "unloaded", "", SeriesAxis::kLinear, SeriesType::kInteger,
     SeriesRole::kPlain, 0u, "constraints without an impulse"},
};

class PenaltyStepSolver final : public ContactSolver {
 public:
  SeriesTable series() const override { return SeriesTable::Of(kToySeriesSpecs); }
  double fail_a00 = std::numeric_limits<double>::quiet_NaN();
  int solves = 0;

  const char* name() const override { return "penalty step"; }
  SolverStatus Solve(const ContactProblem& p, const VecX& v_guess, SolverResult* result) override {
    static_cast<void>(v_guess);
    ++solves;
    VecX vc;
    p.ConstraintVelocities(p.v_star, &vc);
    VecX gamma(p.num_rows);
    for (const ConstraintData& c : p.constraints) {
      const double kappa = 1.0 / (c.num_rows * std::max(c.w, 1e-12));
      gamma.segment(c.first_row, c.num_rows) = -kappa * vc.segment(c.first_row, c.num_rows);
    }
    VecX jt = VecX::Zero(p.nv);
    p.AddJacobianTransposeTimes(gamma, &jt);
    result->v = p.v_star;
    double cost = 0;
    bool fail = false;
    for (int t = 0; t < p.num_trees(); ++t) {
      const int s = p.tree_v_start[t], n = p.tree_nv[t];
      const VecX dv = p.A[t].llt().solve(jt.segment(s, n));
      result->v.segment(s, n) += dv;
      cost += 0.5 * dv.dot(p.A[t] * dv);
      if (p.A[t](0, 0) == fail_a00) fail = true;
    }
    p.ConstraintVelocities(result->v, &result->vc);
    result->gamma = gamma;
    result->regime.clear();
    result->stats = SolverStats{};
    IterationLog& log = result->stats.iteration_log;
    log.Reset(series());
    double* r0 = log.AddRow();
    r0[kToyCost] = 0;
    r0[kToyStiction] = 0;
    r0[kToyNoContact] = static_cast<double>(p.constraints.size());
    double* r1 = log.AddRow();
    r1[kToyCost] = cost;
    r1[kToyStiction] = r1[kToyNoContact] = 0;
    for (const ConstraintData& c : p.constraints) {
      const double gn = gamma(c.first_row + c.num_rows - 1);
      result->regime.push_back(gn > 0 ? Regime::kStiction : Regime::kNoContact);
      r1[gn > 0 ? kToyStiction : kToyNoContact] += 1;
    }
    result->stats.iterations = 1;
    result->stats.cost = cost;
    result->stats.status = fail ? SolverStatus::kMaxIterations : SolverStatus::kConverged;
    if (fail) result->stats.message = "toy failure";
    return result->stats.status;
  }
};

// The islands of a problem reassembled: each tree and each constraint in exactly one island, no
// constraint across two islands, the sub-problems' data equal to the problem's (bit for bit:
// they are copies), local indices mapping back to the problem's.
TEST(Islands, SplitPartitionsTheProblemIntoCopies) {
  std::mt19937 rng(5);
  int split = 0;
  for (int trial = 0; trial < 30; ++trial) {
    const std::set<int> free_trees = trial % 2 ? std::set<int>{1} : std::set<int>{};
    const ContactProblem p = RandomProblem(rng, 5 + trial % 9, 3 + trial % 17, 3, free_trees);
    VecX guess = RandomMatrix(rng, p.nv, 1).col(0);
    IslandSplitter splitter;
    const int num = splitter.Split(p, guess);
    std::vector<int> root;
    p.TreeComponentRoots(&root);
    std::set<int> components;
    for (const ConstraintData& c : p.constraints) components.insert(root[c.blocks[0].tree]);
    bool has_free = false;
    for (int t = 0; t < p.num_trees(); ++t) {
      bool touched = false;
      for (const ConstraintData& c : p.constraints) {
        for (int k = 0; k < c.num_blocks; ++k) touched |= root[c.blocks[k].tree] == root[t];
      }
      has_free |= !touched;
    }
    // Islands: the constrained components, plus one for all constraint-free trees.
    const int expected = static_cast<int>(components.size()) + (has_free ? 1 : 0);
    if (expected < 2) {
      EXPECT_EQ(num, expected) << "trial " << trial;
      continue;
    }
    ASSERT_EQ(num, expected) << "trial " << trial;
    ++split;
    std::vector<int> tree_island(p.num_trees(), -1), constraint_island(p.constraints.size(), -1);
    int rows = 0, first_tree = -1;
    for (int k = 0; k < num; ++k) {
      const IslandSplitter::Island& isl = splitter.island(k);
      const ContactProblem& sub = isl.problem;
      ASSERT_EQ(sub.num_trees(), static_cast<int>(isl.trees.size()));
      ASSERT_EQ(sub.constraints.size(), isl.constraints.size());
      // Ids in order of first tree; the free island (no constraints) last.
      if (k + 1 < num || !has_free) {
        EXPECT_GT(isl.trees.front(), first_tree);
        first_tree = isl.trees.front();
        EXPECT_FALSE(isl.constraints.empty());
      } else {
        EXPECT_TRUE(isl.constraints.empty());
      }
      EXPECT_EQ(sub.time_step, p.time_step);
      for (size_t j = 0; j < isl.trees.size(); ++j) {
        const int t = isl.trees[j];
        EXPECT_EQ(tree_island[t], -1);
        tree_island[t] = k;
        const int n = p.tree_nv[t];
        ASSERT_EQ(sub.tree_nv[j], n);
        EXPECT_EQ(sub.A[j], p.A[t]);
        EXPECT_EQ(sub.M[j], p.M[t]);
        EXPECT_EQ(sub.v_star.segment(sub.tree_v_start[j], n),
                  p.v_star.segment(p.tree_v_start[t], n));
        EXPECT_EQ(sub.v0.segment(sub.tree_v_start[j], n), p.v0.segment(p.tree_v_start[t], n));
        EXPECT_EQ(isl.guess.segment(sub.tree_v_start[j], n), guess.segment(p.tree_v_start[t], n));
      }
      int sub_rows = 0;
      for (size_t j = 0; j < isl.constraints.size(); ++j) {
        const int i = isl.constraints[j];
        constraint_island[i] = k;
        const ConstraintData& c = p.constraints[i];
        const ConstraintData& d = sub.constraints[j];
        EXPECT_EQ(d.first_row, sub_rows);
        sub_rows += d.num_rows;
        EXPECT_EQ(d.kind, c.kind);
        EXPECT_EQ(d.num_rows, c.num_rows);
        ASSERT_EQ(d.num_blocks, c.num_blocks);
        for (int b = 0; b < c.num_blocks; ++b) {
          EXPECT_EQ(isl.trees[d.blocks[b].tree], c.blocks[b].tree);  // local -> global
          EXPECT_EQ(d.blocks[b].J, c.blocks[b].J);
        }
        EXPECT_EQ(d.bias, c.bias);
        EXPECT_EQ(d.friction, c.friction);
        EXPECT_EQ(d.phi0, c.phi0);
        EXPECT_EQ(d.w, c.w);
        EXPECT_EQ(d.source, c.source);
      }
      EXPECT_EQ(sub.num_rows, sub_rows);
      rows += sub_rows;
    }
    EXPECT_EQ(rows, p.num_rows);
    for (int t = 0; t < p.num_trees(); ++t) EXPECT_GE(tree_island[t], 0) << "tree " << t;
    for (size_t i = 0; i < p.constraints.size(); ++i) {
      const ConstraintData& c = p.constraints[i];
      for (int b = 0; b < c.num_blocks; ++b) {
        EXPECT_EQ(tree_island[c.blocks[b].tree], constraint_island[i]) << "constraint " << i;
      }
    }
  }
  EXPECT_GT(split, 20);  // the generator does give several islands
}

// Merge inverts Split: per-island vectors made from the sub-problems (v = v*, v_c = J v* + b,
// γ = the rows' index in the full problem) come back as the full problem's vectors.
TEST(Islands, MergeOfTheSplitIsTheIdentity) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 20; ++trial) {
    const ContactProblem p = RandomProblem(rng, 6 + trial % 7, 5 + trial % 13, 2, {0});
    IslandSplitter splitter;
    const int num = splitter.Split(p, p.v0);
    ASSERT_GE(num, 2) << "tree 0 is constraint-free: at least its island and another";
    for (int k = 0; k < num; ++k) {
      IslandSplitter::Island& isl = splitter.island(k);
      SolverResult& r = isl.result;
      r.v = isl.problem.v_star;
      isl.problem.ConstraintVelocities(r.v, &r.vc);
      r.gamma.resize(isl.problem.num_rows);
      r.regime.clear();
      for (size_t j = 0; j < isl.constraints.size(); ++j) {
        const ConstraintData& c = p.constraints[isl.constraints[j]];
        for (int q = 0; q < c.num_rows; ++q) {
          r.gamma(isl.problem.constraints[j].first_row + q) = c.first_row + q;
        }
        r.regime.push_back(isl.constraints[j] % 3 == 0 ? Regime::kSliding : Regime::kStiction);
      }
      r.stats = SolverStats{};
      r.stats.iteration_log.Reset(SeriesTable::Of(kToySeriesSpecs));
      r.stats.iteration_log.AddRow();
    }
    SolverResult merged;
    splitter.Merge(p, &merged);
    EXPECT_EQ(merged.v, p.v_star);
    VecX vc;
    p.ConstraintVelocities(p.v_star, &vc);
    // Same products in the same order per row: equal to round-off of the block sums.
    EXPECT_LT(RelativeDifference(merged.vc, vc), 1e-15);
    for (int row = 0; row < p.num_rows; ++row) EXPECT_EQ(merged.gamma(row), row);
    for (size_t i = 0; i < p.constraints.size(); ++i) {
      EXPECT_EQ(merged.regime[i], i % 3 == 0 ? Regime::kSliding : Regime::kStiction);
    }
    EXPECT_EQ(merged.stats.status, SolverStatus::kConverged);
    EXPECT_EQ(static_cast<int>(merged.stats.islands.size()), num);
  }
}

// A solve by islands equals the monolithic solve of the same solver: the toy penalty step (a sum
// over trees, so equal up to the round-off of the per-tree solves) and SAP (the unique minimizer
// of the strongly convex ℓ_p, reached by both to a relative gradient of 1e-12).
TEST(Islands, SolveByIslandsEqualsMonolithicSolve) {
  std::mt19937 rng(29);
  int made = 0;
  for (int trial = 0; trial < 25; ++trial) {
    const ContactProblem p = RandomProblem(rng, 4 + trial % 10, 4 + trial % 20, 3);
    IslandSplitter splitter;
    auto make_toy = [&]() {
      ++made;
      return std::make_unique<PenaltyStepSolver>();
    };
    auto nothing = [](ContactSolver&) {};
    PenaltyStepSolver mono_toy;
    SolverResult rm, ri;
    mono_toy.Solve(p, p.v0, &rm);
    if (!SolveByIslands(&splitter, p, p.v0, make_toy, nothing, &ri)) {
      EXPECT_LT(splitter.Split(p, p.v0), 2);
      continue;
    }
    // Round-off of the same per-tree LLT solves on the same data: 1e-13 relative.
    EXPECT_LT(RelativeDifference(ri.v, rm.v), 1e-13) << "trial " << trial;
    EXPECT_LT(RelativeDifference(ri.vc, rm.vc), 1e-13) << "trial " << trial;
    EXPECT_LT(RelativeDifference(ri.gamma, rm.gamma), 1e-13) << "trial " << trial;
    EXPECT_EQ(ri.regime, rm.regime) << "trial " << trial;
    EXPECT_NEAR(ri.stats.cost, rm.stats.cost, 1e-12 * rm.stats.cost);
    EXPECT_EQ(ri.stats.iterations, 1);
    // The islands' own logs, one after the other: their last rows' counts add up to the
    // monolithic solve's (each constraint is in one island).
    ASSERT_EQ(static_cast<int>(ri.stats.islands.size()), splitter.num_islands());
    double stiction = 0, no_contact = 0;
    for (const IslandSummary& is : ri.stats.islands) {
      ASSERT_EQ(is.log_rows, 2);
      const double* last = ri.stats.island_log.row(is.log_first_row + 1);
      stiction += last[kToyStiction];
      no_contact += last[kToyNoContact];
    }
    EXPECT_EQ(stiction, rm.stats.iteration_log(1, kToyStiction));
    EXPECT_EQ(no_contact, rm.stats.iteration_log(1, kToyNoContact));

    // SAP's children through the same helper (islands off in the children, as SapSolver does).
    SapParameters prm;
    prm.rel_tolerance = 1e-12;
    prm.islands = false;
    SapSolver mono_sap(prm);
    IslandSplitter sap_splitter;
    auto make_sap = [&]() { return std::make_unique<SapSolver>(prm); };
    SolverResult sm, si;
    ASSERT_EQ(mono_sap.Solve(p, p.v0, &sm), SolverStatus::kConverged);
    ASSERT_TRUE(SolveByIslands(&sap_splitter, p, p.v0, make_sap, nothing, &si));
    ASSERT_EQ(si.stats.status, SolverStatus::kConverged) << si.stats.message;
    // Relative gradient 1e-12 times cond(H) up to ~1e4 on these problems bounds the distance to
    // the minimizer by ~1e-8 relative.
    EXPECT_LT(RelativeDifference(si.v, sm.v), 1e-7) << "trial " << trial;
    EXPECT_LT(RelativeDifference(si.gamma, sm.gamma), 1e-6) << "trial " << trial;
    EXPECT_EQ(si.regime, sm.regime) << "trial " << trial;
    EXPECT_NEAR(si.stats.cost, sm.stats.cost, 1e-9 * std::abs(sm.stats.cost) + 1e-15);
  }
  EXPECT_GT(made, 40);  // several multi-island problems were solved by islands
}

// Island storage survives: the same islands renumbered (the trees in reverse order, so the
// constrained islands' ids come in reverse order and every first tree changes) keep their slots,
// solvers and sub-problem storage, and solving the two numberings alternately makes no new
// solver. (Storage indexed by island id would hand each island another island's slot.)
TEST(Islands, StorageIsReusedAcrossCalls) {
  std::mt19937 rng(3);
  const int nt = 7;
  ContactProblem p = RandomProblem(rng, nt, 10, 2, {6});
  // q: the trees of p in reverse order (tree t of p is tree order_inv[t] of q).
  std::vector<int> order(nt), new_index(nt);
  for (int j = 0; j < nt; ++j) order[j] = nt - 1 - j;
  for (int j = 0; j < nt; ++j) new_index[order[j]] = j;
  ContactProblem q = p;
  {
    int nv = 0;
    for (int j = 0; j < nt; ++j) {
      const int t = order[j];
      q.tree_v_start[j] = nv;
      q.tree_nv[j] = p.tree_nv[t];
      q.A[j] = p.A[t];
      q.M[j] = p.M[t];
      q.v_star.segment(nv, p.tree_nv[t]) = p.v_star.segment(p.tree_v_start[t], p.tree_nv[t]);
      q.v0.segment(nv, p.tree_nv[t]) = p.v0.segment(p.tree_v_start[t], p.tree_nv[t]);
      nv += p.tree_nv[t];
    }
    for (ConstraintData& c : q.constraints) {
      for (int b = 0; b < c.num_blocks; ++b) c.blocks[b].tree = new_index[c.blocks[b].tree];
    }
  }
  IslandSplitter splitter;
  int made = 0;
  auto make = [&]() {
    ++made;
    return std::make_unique<PenaltyStepSolver>();
  };
  auto nothing = [](ContactSolver&) {};
  SolverResult rp, rq;
  ASSERT_TRUE(SolveByIslands(&splitter, p, p.v0, make, nothing, &rp));
  const int num = splitter.num_islands();
  ASSERT_GE(num, 2);
  EXPECT_EQ(made, num);
  // Per island (identified by its constraints, which q does not renumber): its solver and the
  // storage of its sub-problem's v* (the same size in both numberings).
  std::vector<std::pair<const ContactSolver*, const double*>> before(p.constraints.size());
  std::vector<std::vector<int>> p_constraints(num);
  for (int k = 0; k < num; ++k) {
    const IslandSplitter::Island& isl = splitter.island(k);
    p_constraints[k] = isl.constraints;
    for (int i : isl.constraints) before[i] = {isl.solver.get(), isl.problem.v_star.data()};
  }
  for (int round = 0; round < 3; ++round) {
    ASSERT_TRUE(SolveByIslands(&splitter, q, q.v0, make, nothing, &rq));
    ASSERT_TRUE(SolveByIslands(&splitter, p, p.v0, make, nothing, &rp));
  }
  EXPECT_EQ(made, num) << "no solver made after the first call";
  EXPECT_EQ(splitter.num_slots(), num);
  // In q the constrained islands come in the reverse order of p's: ids changed, slots did not.
  ASSERT_TRUE(SolveByIslands(&splitter, q, q.v0, make, nothing, &rq));
  ASSERT_EQ(splitter.num_islands(), num);
  ASSERT_GE(num, 3) << "two constrained islands at least, to be reordered";
  const int constrained = splitter.island(num - 1).constraints.empty() ? num - 1 : num;
  for (int k = 0; k < constrained; ++k) {
    EXPECT_EQ(splitter.island(k).constraints, p_constraints[constrained - 1 - k]) << k;
  }
  for (int k = 0; k < num; ++k) {
    const IslandSplitter::Island& isl = splitter.island(k);
    for (int i : isl.constraints) {
      EXPECT_EQ(before[i].first, isl.solver.get()) << "constraint " << i;
      EXPECT_EQ(before[i].second, isl.problem.v_star.data()) << "constraint " << i;
    }
  }
  // Same islands, same arithmetic: the velocities agree bit for bit after the permutation.
  for (int j = 0; j < nt; ++j) {
    const int t = order[j];
    EXPECT_EQ(rq.v.segment(q.tree_v_start[j], q.tree_nv[j]),
              rp.v.segment(p.tree_v_start[t], p.tree_nv[t]));
  }
}

// A failing island: the merge reports the first failing island's status and message, keeps the
// other islands' answers and every island's summary; SAP, whose island hits the iteration cap,
// re-solves the whole problem and reports that solve (no island summaries).
TEST(Islands, FailingIslandIsReported) {
  std::mt19937 rng(41);
  const ContactProblem p = RandomProblem(rng, 9, 18, 3);
  IslandSplitter splitter;
  ASSERT_GE(splitter.Split(p, p.v0), 2);
  const int failing = 1;
  const double a00 = p.A[splitter.island(failing).trees.front()](0, 0);
  auto make = [&]() {
    auto s = std::make_unique<PenaltyStepSolver>();
    s->fail_a00 = a00;
    return s;
  };
  auto nothing = [](ContactSolver&) {};
  SolverResult r;
  ASSERT_TRUE(SolveByIslands(&splitter, p, p.v0, make, nothing, &r));
  EXPECT_EQ(r.stats.status, SolverStatus::kMaxIterations);
  EXPECT_EQ(r.stats.message, "island 1: toy failure");
  ASSERT_EQ(static_cast<int>(r.stats.islands.size()), splitter.num_islands());
  for (int k = 0; k < splitter.num_islands(); ++k) {
    EXPECT_EQ(r.stats.islands[k].status,
              k == failing ? SolverStatus::kMaxIterations : SolverStatus::kConverged);
  }
  PenaltyStepSolver mono;
  SolverResult rm;
  mono.Solve(p, p.v0, &rm);
  EXPECT_LT(RelativeDifference(r.v, rm.v), 1e-13);  // the answers are still merged

  // SAP: with a cap of 2 Newton iterations some island of these random problems needs more; the
  // island path then gives way to one monolithic solve, reported as is.
  SapParameters capped;
  capped.max_iterations = 2;
  capped.rel_tolerance = 1e-12;
  SapParameters mono_prm = capped;
  mono_prm.islands = false;
  SapSolver sap(capped), sap_mono(mono_prm);
  SolverResult si, sm;
  const SolverStatus status = sap.Solve(p, p.v0, &si);
  sap_mono.Solve(p, p.v0, &sm);
  ASSERT_NE(status, SolverStatus::kConverged) << "the cap must bind for this test";
  EXPECT_TRUE(si.stats.islands.empty()) << "the monolithic re-solve is reported";
  EXPECT_EQ(si.stats.status, sm.stats.status);
  EXPECT_EQ(si.stats.iterations, sm.stats.iterations);
  EXPECT_EQ(si.v, sm.v);  // the same Newton sequence on the whole problem, bit for bit
}

}  // namespace
}  // namespace contactlab
