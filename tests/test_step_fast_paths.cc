// The step pipeline's fast paths against the computations they replace: the Delassus estimates
// with the tree LᵀDL factor (ContactProblem::ComputeDelassusEstimates with dof parents) against
// the dense path and a dense J M⁻¹ Jᵀ; the free motion of articulated trees with the same factor
// of A against a dense solve; every body's velocities in one pass
// (Multibody::BodyVelocities) against AngularVelocity / PointVelocity, and the kinetic energy
// from them against ½ vᵀ M v; and the start-of-step reuse of the last step's kinematics,
// energies and body velocities against a simulator that evaluates them afresh.
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "app/scene.h"
#include "engine/common/tree_ltdl.h"
#include "engine/contact/contact_problem.h"
#include "engine/multibody/multibody.h"
#include "engine/sim/simulator.h"

namespace contactlab {
namespace {

namespace fs = std::filesystem;

const char* const kHumanoid = "/usr/share/mujoco/model/humanoid/humanoid.xml";

#define SKIP_WITHOUT_HUMANOID() \
  if (!fs::exists(kHumanoid))   \
  GTEST_SKIP() << kHumanoid << " missing (Debian package libmujoco-samples)"

Scene Load(const std::string& relative) {
  return LoadScene(std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/" + relative);
}

bool SameBits(double a, double b) { return std::memcmp(&a, &b, sizeof(double)) == 0; }
bool SameBits(const Vec3& a, const Vec3& b) {
  return std::memcmp(a.data(), b.data(), 3 * sizeof(double)) == 0;
}
bool SameBits(const VecX& a, const VecX& b) {
  return a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<size_t>(a.size())) == 0;
}

// Per tree, each dof's parent dof, as the simulator computes them.
std::vector<std::vector<int>> DofParents(const Multibody& mb) {
  std::vector<std::vector<int>> par(mb.model().trees.size());
  std::vector<int> leaf;
  for (size_t t = 0; t < par.size(); ++t) mb.TreeDofStructure(static_cast<int>(t), &par[t], &leaf);
  return par;
}

// ---------------------------------------------------------------------------------------------
// 2. Delassus estimates: sparse (tree LᵀDL) against dense, on problems of real steps.

struct DelassusCounts {
  int problems = 0, constraints = 0, sparse_blocks = 0;
  double worst_paths = 0, worst_reference = 0;
};

// Compares, for one recorded problem, w from the sparse path (dof parents given), from the dense
// path (none), and from a dense reference ‖J_i M⁻¹ J_iᵀ‖_F / r with M⁻¹ by Eigen's LLT of the
// whole block-diagonal M. Tolerance 1e-12 relative between the paths: both factor the same SPD
// tree block by a backward-stable elimination (Cholesky vs LᵀDL, same pivots up to scaling) and
// W_ii is a quadratic form in it, so they differ by ~cond(M_t) · 1e-16 in the worst case; the
// trees here have cond(M_t) <~ 1e4 (the humanoid's armature bounds its smallest eigenvalue).
void CompareDelassus(const ContactProblem& p, const std::vector<std::vector<int>>& par,
                     DelassusCounts* counts) {
  ContactProblem sparse = p, dense = p;
  sparse.ComputeDelassusEstimates(nullptr, &par);
  dense.ComputeDelassusEstimates(nullptr, nullptr);
  const MatX J = p.DenseJ();
  const MatX Minv = Eigen::LLT<MatX>(p.DenseM()).solve(MatX::Identity(p.nv, p.nv));
  ++counts->problems;
  for (size_t i = 0; i < p.constraints.size(); ++i) {
    const ConstraintData& c = p.constraints[i];
    for (int k = 0; k < c.num_blocks; ++k) {
      const int t = c.blocks[k].tree;
      const int n = p.tree_nv[t];
      if (n != 6 && n <= 64 && tree_ltdl::ParentsPrecede(par[t].data(), n)) ++counts->sparse_blocks;
    }
    const MatX Ji = J.middleRows(c.first_row, c.num_rows);
    const double w_ref = (Ji * Minv * Ji.transpose()).norm() / c.num_rows;
    const double ws = sparse.constraints[i].w, wd = dense.constraints[i].w;
    const double e_paths = std::abs(ws - wd) / wd;
    const double e_ref = std::abs(ws - w_ref) / w_ref;
    EXPECT_LT(e_paths, 1e-12) << "constraint " << i << ": sparse " << ws << ", dense " << wd;
    EXPECT_LT(e_ref, 1e-10) << "constraint " << i << ": sparse " << ws << ", J M⁻¹ Jᵀ " << w_ref;
    // The simulator's own estimate (free-body factors it had, dof parents) is the same.
    EXPECT_LT(std::abs(c.w - wd) / wd, 1e-12) << "constraint " << i;
    counts->worst_paths = std::max(counts->worst_paths, e_paths);
    counts->worst_reference = std::max(counts->worst_reference, e_ref);
    ++counts->constraints;
  }
}

void CheckDelassusOnScene(Scene scene, int steps, int every, const char* name) {
  scene.settings.defer_limits = false;  // limit rows too: single-dof rows on the trees
  Simulator sim(scene.model, scene.settings);
  const std::vector<std::vector<int>> par = DofParents(sim.multibody());
  DelassusCounts counts;
  for (int s = 0; s < steps; ++s) {
    const StepRecord& rec = sim.Step();
    ASSERT_FALSE(rec.Failed()) << name << " step " << s;
    if (s % every == every - 1 && !rec.problem.constraints.empty()) {
      SCOPED_TRACE(std::string(name) + " step " + std::to_string(s));
      CompareDelassus(rec.problem, par, &counts);
    }
  }
  std::printf(
      "%s: %d problems, %d constraints, %d blocks on sparse-path trees; |sparse − dense| "
      "<= %.3g, |sparse − J M⁻¹ Jᵀ| <= %.3g (relative)\n",
      name, counts.problems, counts.constraints, counts.sparse_blocks, counts.worst_paths,
      counts.worst_reference);
  EXPECT_GT(counts.sparse_blocks, 0) << name << ": no constraint on an articulated tree";
}

TEST(SparseDelassus, HumanoidAgreesWithTheDensePath) {
  SKIP_WITHOUT_HUMANOID();
  // Falls for 0.6 s and lands: contacts on the 27-dof tree (free base and 21 hinges).
  CheckDelassusOnScene(LoadScene(kHumanoid), 300, 10, "humanoid");
}

TEST(SparseDelassus, RobotDishPileAgreesWithTheDensePath) {
  CheckDelassusOnScene(Load("paper/robot_dish_pile.yaml"), 120, 20, "robot_dish_pile");
}

TEST(SparseDelassus, GripperAgreesWithTheDensePath) {
  CheckDelassusOnScene(Load("gripper.yaml"), 250, 25, "gripper");
}

// Dof parents the sparse factor cannot use (a parent numbered after its child, a list of the wrong
// size) leave the tree on the dense path: the same bits as without dof parents.
TEST(SparseDelassus, UnusableDofParentsKeepTheDensePath) {
  const Scene scene = Load("paper/robot_dish_pile.yaml");
  Simulator sim(scene.model, scene.settings);
  for (int s = 0; s < 40; ++s) ASSERT_FALSE(sim.Step().Failed());
  const ContactProblem& p = sim.last_record().problem;
  ASSERT_FALSE(p.constraints.empty());
  std::vector<std::vector<int>> bad = DofParents(sim.multibody());
  int changed = 0;
  std::vector<char> is_changed(bad.size(), 0);
  for (size_t t = 0; t < bad.size(); ++t) {
    std::vector<int>& par = bad[t];
    if (par.size() < 2 || par.size() == 6) continue;
    is_changed[t] = 1;
    if (changed % 2 == 0) {
      par[1] = 1;  // its own parent
    } else {
      par.pop_back();  // one dof short
    }
    ++changed;
  }
  ASSERT_GT(changed, 0);
  ContactProblem a = p, b = p;
  a.ComputeDelassusEstimates(nullptr, &bad);
  b.ComputeDelassusEstimates(nullptr, nullptr);
  int on_changed = 0;
  for (size_t i = 0; i < p.constraints.size(); ++i) {
    EXPECT_TRUE(SameBits(a.constraints[i].w, b.constraints[i].w)) << "constraint " << i;
    for (int k = 0; k < p.constraints[i].num_blocks; ++k) {
      on_changed += is_changed[p.constraints[i].blocks[k].tree];
    }
  }
  EXPECT_GT(on_changed, 0);  // constraints on the trees with unusable parents were estimated
}

// The free motion of articulated trees (7..64 dofs and small ones), solved with the tree LᵀDL
// factor of A: for the explicit schemes (θ = 0) v* = v0 + A⁻¹ δt k(q0, v0) with the recorded
// A = M + δt θ_D D, against Eigen's LLT of the same A. Tolerance 1e-10 relative: two
// backward-stable solves of an SPD system differ by ~cond(A) · 1e-16, and these trees have
// cond(A) <~ 1e5.
void CheckFreeMotion(Scene scene, Integrator integrator, int steps, const char* name) {
  scene.settings.integrator = integrator;
  Simulator sim(scene.model, scene.settings);
  const Multibody& mb = sim.multibody();
  const Model& m = sim.model();
  ASSERT_TRUE(m.loads.empty()) << name;  // k is springs, dampers, actuators, gravity, bias
  double worst = 0;
  int solves = 0;
  for (int s = 0; s < steps; ++s) {
    const State before = sim.state();
    const StepRecord& rec = sim.Step();
    ASSERT_FALSE(rec.Failed()) << name << " step " << s;
    KinematicsCache kin;
    mb.UpdateKinematics(before.q, before.time, &kin);
    VecX k1, k2;
    mb.SpringDamperForces(before.q, before.v, before.time, &k1);
    mb.BiasForces(kin, before.v, scene.settings.gravity, &k2);
    const double dt = scene.settings.time_step;
    for (int t = 0; t < rec.problem.num_trees(); ++t) {
      const int n = rec.problem.tree_nv[t], v0 = rec.problem.tree_v_start[t];
      if (n == 0 || n == 6 || n > 64) continue;
      const VecX dv_ref =
          rec.problem.A[t].llt().solve(dt * (k1.segment(v0, n) + k2.segment(v0, n)));
      const VecX dv = rec.problem.v_star.segment(v0, n) - before.v.segment(v0, n);
      const double e = (dv - dv_ref).norm() / std::max(dv_ref.norm(), 1e-300);
      EXPECT_LT(e, 1e-10) << name << " step " << s << " tree " << t;
      worst = std::max(worst, e);
      ++solves;
    }
  }
  std::printf("%s (%s): %d tree solves, |Δv* − A⁻¹ δt k| <= %.3g (relative)\n", name,
              IntegratorName(integrator), solves, worst);
  EXPECT_GT(solves, 0) << name;
}

TEST(SparseFreeMotion, HumanoidEqualsDenseSolve) {
  SKIP_WITHOUT_HUMANOID();
  for (const Integrator i : {Integrator::kSymplecticEuler, Integrator::kImplicitDampingEuler}) {
    CheckFreeMotion(LoadScene(kHumanoid), i, 100, "humanoid");
  }
}

TEST(SparseFreeMotion, RobotAndGripperEqualDenseSolve) {
  for (const Integrator i : {Integrator::kSymplecticEuler, Integrator::kImplicitDampingEuler}) {
    CheckFreeMotion(Load("paper/robot_dish_pile.yaml"), i, 60, "robot_dish_pile");
    CheckFreeMotion(Load("gripper.yaml"), i, 100, "gripper");
  }
}

// ---------------------------------------------------------------------------------------------
// 3. Body velocities in one pass and the kinetic energy from them.

// Random q around the default (quaternions normalized) and random v.
State RandomState(const Multibody& mb, std::mt19937* rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  const Model& m = mb.model();
  State s;
  s.time = 0.1;
  s.q = m.q_default;
  for (int i = 0; i < m.nq; ++i) s.q(i) += 0.5 * u(*rng);
  mb.NormalizeQuaternions(&s.q);
  s.v.resize(m.nv);
  for (int i = 0; i < m.nv; ++i) s.v(i) = 2 * u(*rng);
  return s;
}

// Tolerances: BodyVelocities sums the same dof terms as AngularVelocity / PointVelocity, parent
// first and re-centred (v_parent + ω × (c − c_parent)), so they differ by rounding only: 1e-12
// relative to the largest body speed of the state (the magnitude of the terms summed). The
// kinetic energy is a sum of positive terms either way (bodies vs the composite-rigid-body M):
// 1e-12 relative.
void CheckBodyVelocities(const Scene& scene, const char* name) {
  Simulator sim(scene.model, scene.settings);
  const Multibody& mb = sim.multibody();
  const Model& m = mb.model();
  std::mt19937 rng(3);
  double worst_v = 0, worst_ke = 0;
  int bodies_checked = 0;
  for (int trial = 0; trial < 20; ++trial) {
    const State s = RandomState(mb, &rng);
    KinematicsCache kin;
    mb.UpdateKinematics(s.q, s.time, &kin);
    std::vector<Vec3> omega, v_com;
    mb.BodyVelocities(kin, s.v, &omega, &v_com);
    ASSERT_EQ(omega.size(), m.bodies.size());
    ASSERT_EQ(v_com.size(), m.bodies.size());
    double scale = 0;
    for (size_t b = 0; b < m.bodies.size(); ++b) {
      if (m.BodyTree(static_cast<int>(b)) < 0) continue;
      scale = std::max({scale, mb.AngularVelocity(kin, s.v, b).norm(),
                        mb.PointVelocity(kin, s.v, b, kin.com_W[b]).norm()});
    }
    ASSERT_GT(scale, 0);
    for (int b = 0; b < static_cast<int>(m.bodies.size()); ++b) {
      if (m.BodyTree(b) < 0) {
        // Static, prescribed or welded to the world: no dofs, zero.
        EXPECT_EQ(omega[b], Vec3::Zero()) << name << " body " << b;
        EXPECT_EQ(v_com[b], Vec3::Zero()) << name << " body " << b;
        continue;
      }
      const double ew = (omega[b] - mb.AngularVelocity(kin, s.v, b)).norm() / scale;
      const double ev = (v_com[b] - mb.PointVelocity(kin, s.v, b, kin.com_W[b])).norm() / scale;
      EXPECT_LT(ew, 1e-12) << name << " body " << b << " trial " << trial;
      EXPECT_LT(ev, 1e-12) << name << " body " << b << " trial " << trial;
      worst_v = std::max({worst_v, ew, ev});
      ++bodies_checked;
    }
    // ½ vᵀ M v with M per tree from the composite-rigid-body algorithm (armature included).
    double ke_ref = 0;
    for (int t = 0; t < static_cast<int>(m.trees.size()); ++t) {
      MatX M;
      mb.MassMatrix(kin, t, &M);
      const VecX vt = s.v.segment(m.trees[t].v_start, m.trees[t].nv);
      ke_ref += 0.5 * vt.dot(M * vt);
    }
    const double ke = mb.KineticEnergy(s.v, kin, omega, v_com);
    const double e = std::abs(ke - ke_ref) / ke_ref;
    EXPECT_LT(e, 1e-12) << name << " trial " << trial << ": " << ke << " vs ½ vᵀ M v " << ke_ref;
    // The one-argument form is the same computation.
    EXPECT_TRUE(SameBits(mb.KineticEnergy(kin, s.v), ke)) << name << " trial " << trial;
    worst_ke = std::max(worst_ke, e);
  }
  std::printf("%s: %d body checks, velocities <= %.3g, kinetic energy <= %.3g (relative)\n", name,
              bodies_checked, worst_v, worst_ke);
}

TEST(BodyVelocities, Humanoid) {
  SKIP_WITHOUT_HUMANOID();
  const Scene scene = LoadScene(kHumanoid);
  bool armature = false;
  for (const Joint& j : scene.model.joints) armature = armature || j.armature > 0;
  EXPECT_TRUE(armature);  // the energy check covers the armature term
  CheckBodyVelocities(scene, "humanoid");
}
TEST(BodyVelocities, FreeBodies) { CheckBodyVelocities(Load("box_stack.yaml"), "box_stack"); }
TEST(BodyVelocities, Gripper) { CheckBodyVelocities(Load("gripper.yaml"), "gripper"); }
TEST(BodyVelocities, RobotDishPile) {
  CheckBodyVelocities(Load("paper/robot_dish_pile.yaml"), "robot_dish_pile");
}

// ---------------------------------------------------------------------------------------------
// 5. Start-of-step reuse of the last step's metrics.

// What a step computes from its start state alone (kinematics, energies, body velocities for the
// speculative margin): equal bit for bit however the start state's quantities were obtained.
void ExpectSameStart(const StepRecord& a, const StepRecord& b, const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_TRUE(SameBits(a.before.q, b.before.q));
  EXPECT_TRUE(SameBits(a.before.v, b.before.v));
  EXPECT_TRUE(SameBits(a.diagnostics.energy_before, b.diagnostics.energy_before))
      << a.diagnostics.energy_before << " vs " << b.diagnostics.energy_before;
  EXPECT_TRUE(SameBits(a.metrics.margin, b.metrics.margin))
      << a.metrics.margin << " vs " << b.metrics.margin;
  ASSERT_EQ(a.contacts.size(), b.contacts.size());
  for (size_t i = 0; i < a.contacts.size(); ++i) {
    EXPECT_EQ(a.contacts[i].geom_a, b.contacts[i].geom_a) << i;
    EXPECT_EQ(a.contacts[i].geom_b, b.contacts[i].geom_b) << i;
    EXPECT_TRUE(SameBits(a.contacts[i].point, b.contacts[i].point)) << i;
    EXPECT_TRUE(SameBits(a.contacts[i].phi, b.contacts[i].phi)) << i;
  }
  ASSERT_EQ(a.problem.constraints.size(), b.problem.constraints.size());
  EXPECT_TRUE(SameBits(a.problem.v_star, b.problem.v_star));
}

// A run where every step reuses the last step's metrics against one where the reuse is disabled
// before every step (set_settings with unchanged settings drops it): the same records bit for bit.
void CheckReuseIsExact(Scene scene, int steps, const char* name) {
  Simulator reuse(scene.model, scene.settings), fresh(scene.model, scene.settings);
  for (int s = 0; s < steps; ++s) {
    fresh.set_settings(fresh.settings());
    const StepRecord& a = reuse.Step();
    const StepRecord& b = fresh.Step();
    ExpectSameStart(a, b, std::string(name) + " step " + std::to_string(s));
    ASSERT_TRUE(SameBits(a.after.v, b.after.v)) << name << " step " << s;
    ASSERT_TRUE(SameBits(a.after.q, b.after.q)) << name << " step " << s;
    EXPECT_TRUE(SameBits(a.diagnostics.energy_after, b.diagnostics.energy_after));
    EXPECT_EQ(a.diagnostics.warnings, b.diagnostics.warnings);
    EXPECT_TRUE(SameBits(a.diagnostics.speed_ratio, b.diagnostics.speed_ratio));
  }
}

TEST(StartOfStepReuse, ConsecutiveStepsEqualFreshEvaluation) {
  CheckReuseIsExact(Load("gripper.yaml"), 150, "gripper");
  CheckReuseIsExact(Load("box_stack.yaml"), 60, "box_stack");
}

TEST(StartOfStepReuse, HumanoidConsecutiveStepsEqualFreshEvaluation) {
  SKIP_WITHOUT_HUMANOID();
  CheckReuseIsExact(LoadScene(kHumanoid), 200, "humanoid");
}

// set_state between steps, to another state and to the state the simulator is in: the next step
// starts exactly as in a fresh simulator set to that state (energy, margins, contacts). The solve
// itself may differ from the fresh simulator's within the solver tolerance (its impulse memory
// comes from the earlier steps), so only the start-of-step quantities are compared bit for bit.
void CheckSetState(Scene scene, int warm, int other_steps, const char* name) {
  Simulator sim(scene.model, scene.settings);
  for (int s = 0; s < warm; ++s) sim.Step();
  // Another state: where a second simulator is after `other_steps` steps.
  Simulator other(scene.model, scene.settings);
  for (int s = 0; s < other_steps; ++s) other.Step();
  const State elsewhere = other.state();
  ASSERT_FALSE(SameBits(elsewhere.q, sim.state().q));
  for (int round = 0; round < 2; ++round) {
    // Round 0: to the other state. Round 1: to the very state the simulator is in (the reuse
    // applies: q, v, t equal bit for bit).
    const State target = round == 0 ? elsewhere : sim.state();
    sim.set_state(target);
    const StepRecord a = sim.Step();
    Simulator ref(scene.model, scene.settings);
    ref.set_state(target);
    const StepRecord& b = ref.Step();
    ExpectSameStart(a, b, std::string(name) + (round == 0 ? " other state" : " same state"));
    EXPECT_NEAR(a.diagnostics.energy_after, b.diagnostics.energy_after,
                1e-6 * (std::abs(b.diagnostics.energy_after) + 1));
  }
  // The same q and t with other velocities: not the cached state either (the kinetic energy and
  // the speculative margins change).
  State faster = sim.state();
  for (int i = 0; i < faster.v.size(); ++i) faster.v(i) += 0.05 * ((i % 3) - 1.0) + 0.02;
  sim.set_state(faster);
  const StepRecord d = sim.Step();
  Simulator ref_v(scene.model, scene.settings);
  ref_v.set_state(faster);
  ExpectSameStart(d, ref_v.Step(), std::string(name) + " other velocities");
  // A state with the same q and v but a different time is not the cached one (prescribed bodies
  // and loads depend on t): the step starts as a fresh one.
  State later = sim.state();
  later.time += scene.settings.time_step;
  sim.set_state(later);
  const StepRecord c = sim.Step();
  Simulator ref(scene.model, scene.settings);
  ref.set_state(later);
  ExpectSameStart(c, ref.Step(), std::string(name) + " shifted time");
}

TEST(StartOfStepReuse, SetStateBetweenStepsEqualsFreshSimulator) {
  CheckSetState(Load("gripper.yaml"), 100, 200, "gripper");
  CheckSetState(Load("box_stack.yaml"), 30, 60, "box_stack");
}

// Gravity changed through set_settings between steps: the next step's energy_before is
// re-evaluated with the new gravity. Closed form: the kinetic part is unchanged and the
// potential −Σ m gᵀ c changes by −Σ m (g_new − g_old)ᵀ c over the bodies with joints.
TEST(StartOfStepReuse, GravityChangeInvalidatesTheEnergyCache) {
  const Scene scene = Load("box_stack.yaml");
  Simulator sim(scene.model, scene.settings);
  for (int s = 0; s < 20; ++s) sim.Step();
  const State start = sim.state();
  const Vec3 g_old = sim.settings().gravity;
  StepSettings changed = sim.settings();
  changed.gravity = Vec3(1.0, 0.0, -4.0);
  ASSERT_NE(changed.gravity, g_old);
  // The energy the old gravity gives at `start` (what a stale cache would report).
  KinematicsCache kin;
  sim.multibody().UpdateKinematics(start.q, start.time, &kin);
  const double e_old = sim.multibody().KineticEnergy(kin, start.v) +
                       sim.multibody().PotentialEnergy(kin, start.q, g_old);
  double dpe = 0;
  const Model& m = sim.model();
  for (size_t b = 0; b < m.bodies.size(); ++b) {
    if (m.bodies[b].joint >= 0)
      dpe -= m.bodies[b].mass * (changed.gravity - g_old).dot(kin.com_W[b]);
  }
  ASSERT_GT(std::abs(dpe), 1e-3);
  sim.set_settings(changed);
  const StepRecord& rec = sim.Step();
  EXPECT_NEAR(rec.diagnostics.energy_before, e_old + dpe, 1e-9 * std::abs(e_old + dpe) + 1e-12)
      << "energy before " << rec.diagnostics.energy_before << ", with the old gravity " << e_old;
  // And the same bits as a fresh simulator with the new gravity at that state.
  Simulator ref(scene.model, changed);
  ref.set_state(start);
  EXPECT_TRUE(SameBits(ref.Step().diagnostics.energy_before, rec.diagnostics.energy_before));
}

// A joint spring's stiffness edited through mutable_model() between steps (a model tunable): the
// next step's energy_before is the energy with the new stiffness at the step's start, as a fresh
// simulator with the edited model reports it. Closed form: the spring's potential changes by
// ½ (k_new − k_old) (q − q_ref)². (The reuse once kept the last step's energies: 0.743815 J
// here instead of 0.771994 J, k 100 → 300 N/m, q − q_ref = 0.0168 m.)
TEST(StartOfStepReuse, SpringStiffnessEditChangesTheNextStepsEnergy) {
  const Scene scene = Load("spring_cylinder.yaml");
  Simulator sim(scene.model, scene.settings);
  for (int s = 0; s < 5; ++s) sim.Step();
  const State start = sim.state();
  const int j = sim.model().FindJoint("slide_x");
  ASSERT_GE(j, 0);
  const Joint& jt = sim.model().joints[j];
  const double k_old = jt.spring_stiffness, k_new = 3 * k_old;
  const double dq = start.q(jt.q_start) - jt.spring_reference;
  ASSERT_GT(std::abs(dq), 1e-3);
  const double e_before_edit = sim.last_record().diagnostics.energy_after;
  sim.mutable_model().joints[j].spring_stiffness = k_new;
  const StepRecord& rec = sim.Step();
  const double expected = e_before_edit + 0.5 * (k_new - k_old) * dq * dq;
  EXPECT_NEAR(rec.diagnostics.energy_before, expected, 1e-9 * std::abs(expected))
      << "energy before " << rec.diagnostics.energy_before << ", with the old stiffness "
      << e_before_edit;
  Model edited = scene.model;
  edited.joints[j].spring_stiffness = k_new;
  Simulator ref(edited, scene.settings);
  ref.set_state(start);
  const StepRecord& rr = ref.Step();
  EXPECT_TRUE(SameBits(rr.diagnostics.energy_before, rec.diagnostics.energy_before))
      << "fresh simulator " << rr.diagnostics.energy_before << ", edited one "
      << rec.diagnostics.energy_before;
  EXPECT_EQ(rec.diagnostics.warnings, rr.diagnostics.warnings) << rec.diagnostics.message;
}

}  // namespace
}  // namespace contactlab
