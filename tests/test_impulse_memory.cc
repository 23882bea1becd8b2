// The dual warm start (engine/solvers/common/impulse_memory.h): impulses matched per constraint
// identity across reordered, shrunk and grown problems, carried in world coordinates through a
// change of contact frame; and the simulator's keys.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "app/scene.h"
#include "engine/contact/contact_problem.h"
#include "engine/sim/simulator.h"
#include "engine/solvers/common/impulse_memory.h"
#include "engine/solvers/pgs/pgs_solver.h"
#include "engine/solvers/subadmm/subadmm_solver.h"
#include "tests/random_problem.h"

namespace contactlab {
namespace {

// A problem of cones (key, anchor, normal per constraint) and one limit row; no Jacobians (the
// memory reads only the identities and the row layout).
struct Row {
  std::uint64_t key;
  Vec3 anchor;
  Vec3 normal;
  int rows = 3;
};
ContactProblem Layout(const std::vector<Row>& rows) {
  ContactProblem p;
  int r = 0;
  for (const Row& x : rows) {
    ConstraintData c;
    c.kind = x.rows == 3 ? ConstraintKind::kFrictionCone : ConstraintKind::kUnilateral;
    c.num_rows = x.rows;
    c.first_row = r;
    c.key = x.key;
    c.anchor = x.anchor;
    c.normal = x.normal.normalized();
    p.constraints.push_back(c);
    r += x.rows;
  }
  p.num_rows = r;
  return p;
}

TEST(ImpulseMemory, MatchesByKeyAndNearestAnchorWhateverTheOrder) {
  const std::uint64_t ab = ConstraintKeyOfContact(0, 1), ac = ConstraintKeyOfContact(0, 2);
  const std::uint64_t lim = ConstraintKeyOfLimit(3, 1);
  const Vec3 z = Vec3::UnitZ();
  const ContactProblem before = Layout({{ab, Vec3(0, 0, 0), z},
                                        {ab, Vec3(1, 0, 0), z},
                                        {ac, Vec3(5, 0, 0), z},
                                        {lim, Vec3::Zero(), z, 1}});
  VecX g(before.num_rows);
  g << 1, 2, 3, 4, 5, 6, 7, 8, 9, 10;
  ImpulseMemory m;
  m.Store(before, g);
  EXPECT_EQ(m.size(), 4);
  // Reordered; the pair ab moved a little (nearest: the one at 0.9 is the old x = 1); ac gone;
  // a new pair ad; the limit kept; a constraint with key 0.
  const ContactProblem after = Layout({{lim, Vec3::Zero(), z, 1},
                                       {ConstraintKeyOfContact(0, 3), Vec3(5, 0, 0), z},
                                       {ab, Vec3(0.9, 0, 0), z},
                                       {0, Vec3(0, 0, 0), z},
                                       {ab, Vec3(0.1, 0, 0), z}});
  VecX g0;
  std::vector<char> matched;
  EXPECT_EQ(m.Recall(after, &g0, &matched), 3);
  EXPECT_EQ(matched, (std::vector<char>{1, 0, 1, 0, 1}));
  VecX expect(after.num_rows);
  expect << 10, 0, 0, 0, 4, 5, 6, 0, 0, 0, 1, 2, 3;
  // Same normal: C Cᵀ = I up to round-off.
  EXPECT_LT((g0 - expect).norm(), 1e-14 * expect.norm()) << g0.transpose();
}

TEST(ImpulseMemory, KeepsTheWorldImpulseAcrossAChangeOfFrame) {
  // The normal turns from x-dominant to y-dominant: AnyOrthogonal switches its reference axis,
  // the tangent basis jumps, and the frame coordinates of the same force change completely.
  const std::uint64_t k = ConstraintKeyOfContact(4, 7);
  const Vec3 n0 = Vec3(1, 0.5, 0.2).normalized(), n1 = Vec3(0.5, 1, 0.2).normalized();
  const ContactProblem before = Layout({{k, Vec3::Zero(), n0}});
  const Vec3 g(0.3, -0.2, 1.5);
  ImpulseMemory m;
  m.Store(before, g);
  const ContactProblem after = Layout({{k, Vec3(1e-3, 0, 0), n1}});
  VecX g0;
  ASSERT_EQ(m.Recall(after, &g0), 1);
  const Vec3 world_before = ContactFrame(n0).transpose() * g;
  const Vec3 world_after = ContactFrame(n1).transpose() * g0.head<3>();
  EXPECT_LT((world_after - world_before).norm(), 1e-14);
  // The frame coordinates did change (the test would pass trivially otherwise).
  EXPECT_GT((g0.head<3>() - g).norm(), 0.1);
}

TEST(ImpulseMemory, RowCountMustAgreeAndBadImpulsesAreNotStored) {
  const std::uint64_t k = ConstraintKeyOfContact(1, 2);
  ImpulseMemory m;
  const ContactProblem cone = Layout({{k, Vec3::Zero(), Vec3::UnitZ()}});
  m.Store(cone, Vec3(1, 2, 3));
  VecX g0;
  EXPECT_EQ(m.Recall(Layout({{k, Vec3::Zero(), Vec3::UnitZ(), 1}}), &g0), 0);
  EXPECT_EQ(g0, VecX::Zero(1));
  m.Store(cone, Vec3(1, std::nan(""), 3));
  EXPECT_TRUE(m.empty());
  m.Store(cone, VecX::Zero(2));  // wrong size
  EXPECT_TRUE(m.empty());
}

TEST(ImpulseMemory, LargeGroupsMatchOnlyTheirFirstEntries) {
  const std::uint64_t k = ConstraintKeyOfContact(0, 1);
  std::vector<Row> rows;
  const int n = ImpulseMemory::kMaxGroup + 10;
  for (int i = 0; i < n; ++i) rows.push_back({k, Vec3(i, 0, 0), Vec3::UnitZ(), 1});
  const ContactProblem p = Layout(rows);
  VecX g = VecX::LinSpaced(n, 1, n);
  ImpulseMemory m;
  m.Store(p, g);
  VecX g0;
  EXPECT_EQ(m.Recall(p, &g0), ImpulseMemory::kMaxGroup);
  EXPECT_EQ(g0.head(ImpulseMemory::kMaxGroup), g.head(ImpulseMemory::kMaxGroup));
  EXPECT_EQ(g0.tail(10), VecX::Zero(10));
}

TEST(DualWarmStart, UnkeyedProblemsKeepTheRowCountRuleAndChildrenReadTheParent) {
  ContactProblem p = Layout({{0, Vec3::Zero(), Vec3::UnitZ()}, {0, Vec3::Zero(), Vec3::UnitZ()}});
  VecX g = VecX::LinSpaced(6, 1, 6);
  DualWarmStart parent, child;
  parent.Store(p, g);
  VecX g0;
  EXPECT_EQ(parent.Recall(p, &g0), 2);
  EXPECT_EQ(g0, g);
  ContactProblem q = Layout({{0, Vec3::Zero(), Vec3::UnitZ()}});
  EXPECT_EQ(parent.Recall(q, &g0), 0);
  EXPECT_EQ(g0, VecX::Zero(3));
  // A child recalls keyed problems from the parent's memory and stores nothing there; unkeyed
  // problems use its own last γ (the row-count rule per island).
  child.set_parent(&parent);
  EXPECT_EQ(child.Recall(p, &g0), 0);  // unkeyed, nothing of its own yet
  child.Store(p, 2 * g);
  EXPECT_EQ(child.Recall(p, &g0), 2);
  EXPECT_EQ(g0, 2 * g);
  EXPECT_EQ(parent.Recall(p, &g0), 2);
  EXPECT_EQ(g0, g);
  ContactProblem keyed = p;
  keyed.constraints[0].key = ConstraintKeyOfContact(0, 1);
  keyed.constraints[1].key = ConstraintKeyOfContact(0, 2);
  parent.Store(keyed, g);
  child.Store(keyed, VecX::Zero(6));
  EXPECT_EQ(child.Recall(keyed, &g0), 2);
  EXPECT_LT((g0 - g).norm(), 1e-14 * g.norm());
  parent.Clear();
  EXPECT_EQ(child.Recall(keyed, &g0), 0);
}

// The same random problem with its constraints in another order (rows renumbered).
ContactProblem Permuted(const ContactProblem& p, const std::vector<int>& perm, VecX* gamma_in,
                        VecX* gamma_out) {
  ContactProblem q = p;
  q.constraints.clear();
  int r = 0;
  if (gamma_out) gamma_out->resize(p.num_rows);
  for (int i : perm) {
    ConstraintData c = p.constraints[i];
    if (gamma_out) gamma_out->segment(r, c.num_rows) = gamma_in->segment(c.first_row, c.num_rows);
    c.first_row = r;
    r += c.num_rows;
    q.constraints.push_back(c);
  }
  return q;
}

void GiveKeys(ContactProblem* p) {
  for (size_t i = 0; i < p->constraints.size(); ++i) {
    ConstraintData& c = p->constraints[i];
    c.key = ConstraintKeyOfContact(static_cast<int>(i), 1000);
    c.anchor = Vec3(static_cast<double>(i), 0, 0);
    c.normal = Vec3::UnitZ();
  }
}

// PGS and SubADMM: re-solving a converged problem with its constraints shuffled. With keys the
// second solve starts from the first solve's impulses; without keys (the row-count rule) it
// starts from the impulses of other constraints. Summed over trials, the keyed re-solves must
// take fewer iterations (a wrong start is only slower, so the unkeyed re-solves still converge).
template <class Solver>
void ExpectKeyedReSolveIsCheaper(Solver&& make_solver, const char* name) {
  std::mt19937 rng(31);
  int keyed = 0, unkeyed = 0;
  for (int trial = 0; trial < 12; ++trial) {
    ContactProblem p = test_problems::RandomProblem(rng, 3, 6, {});
    std::vector<int> perm(p.constraints.size());
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    for (bool with_keys : {true, false}) {
      ContactProblem a = p;
      if (with_keys) GiveKeys(&a);
      auto solver = make_solver();
      SolverResult r1, r2;
      solver.Solve(a, a.v0, &r1);
      const ContactProblem b = Permuted(a, perm, nullptr, nullptr);
      solver.Solve(b, r1.v, &r2);
      (with_keys ? keyed : unkeyed) += r2.stats.iterations;
    }
  }
  EXPECT_LT(keyed, unkeyed) << name;
  std::printf("%s: re-solve iterations over 12 shuffled problems: keyed %d, row-count rule %d\n",
              name, keyed, unkeyed);
}

TEST(DualWarmStart, PgsReSolveOfAShuffledProblemStartsFromItsImpulses) {
  ExpectKeyedReSolveIsCheaper([] { return PgsSolver(); }, "PGS");
}

TEST(DualWarmStart, SubAdmmReSolveOfAShuffledProblemStartsFromItsImpulses) {
  ExpectKeyedReSolveIsCheaper([] { return SubAdmmSolver(); }, "SubADMM");
}

// The simulator keys every constraint: contacts by geometry pair with the contact point and
// normal, joint limits by joint and side.
TEST(DualWarmStart, SimulatorKeysEveryConstraint) {
  const Scene scene = LoadScene(std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/box_stack.yaml");
  Simulator sim(scene.model, scene.settings);
  int checked = 0;
  for (int k = 0; k < 50; ++k) {
    const StepRecord& rec = sim.Step();
    for (const ConstraintData& c : rec.problem.constraints) {
      ASSERT_NE(c.key, 0u);
      if (c.kind != ConstraintKind::kFrictionCone) continue;
      const Contact& ct = rec.contacts[c.source];
      EXPECT_EQ(c.key, ConstraintKeyOfContact(ct.geom_a, ct.geom_b));
      EXPECT_EQ(c.anchor, ct.point);
      EXPECT_EQ(c.normal, ct.normal);
      ++checked;
    }
  }
  EXPECT_GT(checked, 0);
}

}  // namespace
}  // namespace contactlab
