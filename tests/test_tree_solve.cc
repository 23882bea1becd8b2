// O(n) solves with large kinematic trees (engine/multibody/articulated_tree.h): the
// articulated-body recursion against dense factorizations of the same matrices, and the
// simulator/solver paths that use it (free motion, Delassus estimates, SAP Newton system)
// against the dense per-tree paths they replace.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "app/scene.h"
#include "engine/contact/contact_problem.h"
#include "engine/multibody/articulated_tree.h"
#include "engine/sim/simulator.h"
#include "engine/solvers/sap/sap_solver.h"

namespace contactlab {
namespace {

// A branched tree of `links` links lying on a floor: links 0..2L/3 a chain, the rest a branch from
// link 10. Joints cycle revolute about y, revolute about z, prismatic along x; every fifth link is
// welded (fixed joint) to its parent, so that a body without dofs carries inertia at its parent's
// last dof; every seventh joint has limits and every third a spring (A's implicit diagonal).
// free_base: link 0 has a free joint (6 dofs) instead of a revolute one. armature > 0: every
// revolute and prismatic joint has that armature (M's diagonal beyond the bodies' per-dof form).
std::string TreeScene(int links, bool free_base, const char* integrator, double armature = 0) {
  std::string y = std::string("time_step: 0.002\nintegrator: ") + integrator +
                  "\nmaterials: [{name: m, stiffness: 1e8, dissipation_time: 0.002, friction: "
                  "0.4}]\ntemplates:\n  - {name: link, mass: 0.05, geoms: [{shape: capsule, radius: "
                  "0.01, length: 0.05, material: m, rotation: {axis_angle: [0, 1, 0, 90]}}]}\n"
                  "bodies:\n  - {name: floor, static: true, geoms: [{shape: half_space, material: "
                  "m}]}\n";
  const int chain = 2 * links / 3;
  char buf[600];
  for (int i = 0; i < links; ++i) {
    const bool branch = i >= chain;
    const int k = branch ? i - chain : i;
    const double x = branch ? 0.05 * 10.5 : (k + 0.5) * 0.05;
    const double yy = branch ? (k + 1) * 0.05 : 0.0;
    const int parent = i == chain ? 10 : i - 1;
    const double cx = branch ? 0.0 : -0.025, cy = branch ? -0.025 : 0.0;
    if (i == 0 && free_base) {
      std::snprintf(buf, sizeof(buf),
                    "  - {name: l0, template: link, position: [%g, 0, 0.0099]}\n", x);
    } else if (i > 0 && i % 5 == 0) {
      std::snprintf(buf, sizeof(buf),
                    "  - {name: l%d, template: link, position: [%g, %g, 0.0099], joint: {type: "
                    "fixed, parent: l%d, child_frame: {position: [%g, %g, 0]}}}\n",
                    i, x, yy, parent, cx, cy);
    } else {
      const int kind = i % 3;
      const char* type = kind == 2 ? "prismatic" : "revolute";
      const char* axis = kind == 0 ? "[0, 1, 0]" : (kind == 1 ? "[0, 0, 1]" : "[1, 0, 0]");
      std::string extra;
      if (i % 7 == 3) extra += ", limits: [-0.2, 0.2]";
      if (i % 3 == 0) extra += ", spring: {stiffness: 0.5, reference: 0}";
      if (armature > 0) extra += ", armature: " + std::to_string(armature);
      const std::string par = i == 0 ? "" : "parent: l" + std::to_string(parent) + ", ";
      std::snprintf(buf, sizeof(buf),
                    "  - {name: l%d, template: link, position: [%g, %g, 0.0099], joint: {type: "
                    "%s, %saxis: %s, child_frame: {position: [%g, %g, 0]}, damping: 0.001%s}}\n",
                    i, x, yy, type, par.c_str(), axis, cx, cy, extra.c_str());
    }
    y += buf;
  }
  return y;
}

double RelativeError(const VecX& a, const VecX& b) { return (a - b).norm() / b.norm(); }

// ArticulatedTreeSolver against dense Cholesky on the matrix it represents: M (composite rigid
// body algorithm, Multibody::MassMatrix) plus contact stiffnesses Σ JᵀGJ with J = W Φ on a path
// and a positive diagonal. Solve, Multiply, the inverse operational-space inertias Ω and the
// inverse diagonal. Tolerance 1e-10 relative: both are backward-stable factorizations of the
// same SPD matrix, whose condition number here is ~3e6-2e7 (1e-16 · cond plus summation order);
// the backward error ‖H x − r‖ / (‖H‖ ‖x‖) of the recursion is checked at 1e-15 besides.
TEST(TreeSolve, ArticulatedRecursionEqualsDenseFactorization) {
  std::mt19937 rng(7);  // fixed seed: the same matrices every run
  std::uniform_real_distribution<double> u(-1, 1);
  for (const bool free_base : {false, true}) {
    Scene scene = ParseScene(TreeScene(90, free_base, "symplectic_euler"), "tree.yaml");
    Simulator sim(scene.model, scene.settings);
    for (int i = 0; i < 3; ++i) sim.Step();
    const Multibody& mb = sim.multibody();
    KinematicsCache kin;
    mb.UpdateKinematics(sim.state().q, sim.state().time, &kin);
    ASSERT_EQ(sim.model().trees.size(), 1u);
    const int n = sim.model().trees[0].nv;
    ASSERT_GT(n, 64);
    MatX M;
    mb.MassMatrix(kin, 0, &M);
    std::vector<int> parent, body_leaf;
    mb.TreeDofStructure(0, &parent, &body_leaf);
    const Vec3 r0 = kin.dof_origin[sim.model().trees[0].v_start] + Vec3(0.3, -0.1, 0.2);
    MatX Phi;
    mb.TreeDofMotion(kin, 0, r0, &Phi);
    std::vector<double> inertia;
    mb.TreeNodeInertias(kin, 0, r0, body_leaf, &inertia);

    // The per-dof form reproduces M: H x = M x for a random x (no diagonal, no contacts).
    VecX x(n), y(n);
    for (int i = 0; i < n; ++i) x(i) = u(rng);
    ArticulatedTreeSolver::Multiply(Phi, parent, inertia.data(), nullptr, x.data(), y.data());
    EXPECT_LT(RelativeError(y, M * x), 1e-12);

    // Without and with contacts and a diagonal.
    for (const bool contacts : {false, true}) {
      std::vector<double> node = inertia;
      VecX diag = VecX::Zero(n);
      MatX H = M;
      if (contacts) {
        for (int c = 0; c < 40; ++c) {
          const int leaf = static_cast<int>(rng() % n);
          Eigen::Matrix<double, 3, 6> W;
          for (int a = 0; a < 3; ++a) {
            for (int b = 0; b < 6; ++b) W(a, b) = u(rng);
          }
          Mat3 B;
          for (int a = 0; a < 3; ++a) {
            for (int b = 0; b < 3; ++b) B(a, b) = u(rng);
          }
          const Mat3 G = B * B.transpose() + 0.1 * Mat3::Identity();  // [s/kg]-like
          Eigen::Map<Eigen::Matrix<double, 6, 6>>(node.data() + 36 * leaf) +=
              W.transpose() * G * W;
          MatX J = MatX::Zero(3, n);
          for (int k = leaf; k >= 0; k = parent[k]) J.col(k) = W * Phi.col(k);
          H += J.transpose() * G * J;
        }
        for (int i = 0; i < n; i += 4) diag(i) = 0.01 * (1 + u(rng));
        H.diagonal() += diag;
      }
      ArticulatedTreeSolver aba;
      ASSERT_TRUE(aba.Factor(Phi, parent, node.data(), diag.data()));
      ArticulatedTreeSolver::Multiply(Phi, parent, node.data(), diag.data(), x.data(), y.data());
      EXPECT_LT(RelativeError(y, H * x), 1e-12);
      const Eigen::LLT<MatX> llt(H);
      ASSERT_EQ(llt.info(), Eigen::Success);
      const VecX ref = llt.solve(x);
      VecX sol = x;
      aba.Solve(sol.data());
      // Backward error of the recursion: round-off of O(n) operations, whatever the conditioning.
      EXPECT_LT((H * sol - x).norm() / (H.norm() * sol.norm()), 1e-15);
      // The forward comparison below is meaningful because cond₂(H) stays below ~1e8 here
      // (3e6 for M, 2e7 with the contacts): 1e-10 is cond · 1e-16 with margin.
      Eigen::SelfAdjointEigenSolver<MatX> es(H, Eigen::EigenvaluesOnly);
      ASSERT_LT(es.eigenvalues()(n - 1) / es.eigenvalues()(0), 1e8);
      EXPECT_LT(RelativeError(sol, ref), 1e-10) << "free_base " << free_base << " contacts "
                                                << contacts;
      // Ω_j = Φ_P H⁻¹ Φ_Pᵀ and (H⁻¹)_jj.
      const MatX Hinv = llt.solve(MatX::Identity(n, n));
      std::vector<double> omega;
      aba.InverseOperationalInertias(&omega);
      for (int j = 0; j < n; j += 7) {
        MatX PhiP = MatX::Zero(6, n);
        for (int k = j; k >= 0; k = parent[k]) PhiP.col(k) = Phi.col(k);
        const MatX ref_omega = PhiP * Hinv * PhiP.transpose();
        const Eigen::Map<const Eigen::Matrix<double, 6, 6>> Om(omega.data() + 36 * j);
        EXPECT_LT((Om - ref_omega).norm(), 1e-10 * ref_omega.norm()) << "dof " << j;
        EXPECT_NEAR(aba.InverseDiagonal(omega, j), Hinv(j, j), 1e-10 * Hinv(j, j));
      }
    }
  }
}

// The simulator's per-dof form of a large tree (TreeMotion::inertia) reproduces the dense M it
// also stores, on branched trees with free and fixed bases, hinge, slide and welded joints.
// With joint armature (1e-4 kg m², ten times a link's inertia) the per-dof form carries it as
// TreeMotion::armature, the diagonal term of the recursion.
TEST(TreeSolve, TreeMotionInertiasReproduceTheMassMatrix) {
  for (const double armature : {0.0, 1e-4})
  for (const bool free_base : {false, true}) {
    Scene scene = ParseScene(TreeScene(90, free_base, "symplectic_euler", armature), "tree.yaml");
    Simulator sim(scene.model, scene.settings);
    const ContactProblem& p = sim.Step().problem;
    ASSERT_EQ(p.num_trees(), 1);
    const TreeMotion& tm = p.tree_motion[0];
    ASSERT_TRUE(tm.has_inertia());
    const int n = p.tree_nv[0];
    MatX H(n, n);
    VecX e = VecX::Zero(n);
    for (int j = 0; j < n; ++j) {
      e.setZero();
      e(j) = 1;
      VecX col(n);
      ArticulatedTreeSolver::Multiply(tm.Phi, tm.parent, tm.inertia.data(),
                                      tm.armature_or_null(), e.data(), col.data());
      H.col(j) = col;
    }
    EXPECT_EQ(tm.armature.empty(), armature == 0);
    // Round-off of two summation orders of the same composite inertias.
    EXPECT_LT((H - p.M[0]).norm(), 1e-12 * p.M[0].norm());
    EXPECT_TRUE(TreeMotionMatches(tm, p.A[0]));
    // A changed A is not taken for the per-dof form.
    MatX A2 = p.A[0];
    A2(n / 2, n / 2) *= 1.01;
    EXPECT_FALSE(TreeMotionMatches(tm, A2));
  }
  // Implicit integrators evaluate A and M at q_θ, not at the q0 of Φ: no inertias.
  Scene scene = ParseScene(TreeScene(90, false, "implicit_euler"), "tree.yaml");
  Simulator sim(scene.model, scene.settings);
  EXPECT_FALSE(sim.Step().problem.tree_motion[0].has_inertia());
}

// Free motion, Delassus estimates and Newton sequence of the O(n) paths against the dense
// per-tree paths over 3 steps of a branched tree on the floor with joint limits, springs, and
// free and fixed bases:
//  * v* = v0 + δt M⁻¹ k (explicit free motion) equals the dense solve with k from the same
//    multibody functions (1e-10 relative: the condition number of M times round-off);
//  * w_i of every constraint equals the dense path's (the problem without inertias, estimated
//    again by Cholesky factors of M), 1e-10 relative: w sets R (eq. 29), so iteration counts
//    depend on it;
//  * the SAP solve through the articulated-body recursion takes exactly the Newton iterations
//    of the block-Cholesky solve of the same problem (dense tree block) and ends at the same v
//    (both stop at a relative gradient of 1e-9: 1e-7 relative).
// The same with joint armature (1e-4 kg m² on every hinge and slide): the recursion's diagonal
// term against the dense M that includes it.
TEST(TreeSolve, StepsMatchTheDensePerTreePath) {
  for (const double armature : {0.0, 1e-4})
  for (const bool free_base : {false, true}) {
    Scene scene =
        ParseScene(TreeScene(120, free_base, "symplectic_euler", armature), "tree.yaml");
    scene.settings.sap.rel_tolerance = 1e-9;
    scene.settings.defer_limits = false;  // every limit side a row: the comparison covers them
    Simulator sim(scene.model, scene.settings);
    int limits = 0, contacts = 0, iterations = 0;
    for (int step = 0; step < 3; ++step) {
      const State before = sim.state();
      const StepRecord& rec = sim.Step();
      ASSERT_EQ(rec.result.stats.status, SolverStatus::kConverged) << rec.result.stats.message;
      const ContactProblem& p = rec.problem;
      ASSERT_TRUE(p.tree_motion[0].has_inertia());
      const int n = p.tree_nv[0];
      // Free motion.
      const Multibody& mb = sim.multibody();
      KinematicsCache kin;
      mb.UpdateKinematics(before.q, before.time, &kin);
      VecX k1, k2;
      mb.SpringDamperForces(before.q, before.v, before.time, &k1);
      mb.BiasForces(kin, before.v, scene.settings.gravity, &k2);
      MatX M;
      mb.MassMatrix(kin, 0, &M);
      const VecX dv_ref = M.llt().solve(scene.settings.time_step * (k1 + k2));
      EXPECT_LT(RelativeError(p.v_star - before.v, dv_ref), 1e-10) << "step " << step;
      // Delassus estimates.
      ContactProblem q = p;
      for (TreeMotion& tm : q.tree_motion) tm.inertia.clear();
      q.ComputeDelassusEstimates();
      for (size_t i = 0; i < p.constraints.size(); ++i) {
        EXPECT_NEAR(p.constraints[i].w, q.constraints[i].w, 1e-10 * q.constraints[i].w)
            << "constraint " << i;
        if (p.constraints[i].kind == ConstraintKind::kUnilateral) ++limits;
        else ++contacts;
      }
      // Newton sequence from the simulator's guess (v0 after a reset-free step).
      SapSolver tree_solver(scene.settings.sap, scene.settings.contact);
      SapSolver dense_solver(scene.settings.sap, scene.settings.contact);
      SolverResult rt, rd;
      ASSERT_EQ(tree_solver.Solve(p, p.v0, &rt), SolverStatus::kConverged);
      ASSERT_EQ(dense_solver.Solve(q, q.v0, &rd), SolverStatus::kConverged);
      EXPECT_TRUE(rt.stats.tree_recursion);   // the O(n) path ran
      EXPECT_FALSE(rd.stats.tree_recursion);  // the reference did not
      EXPECT_EQ(rt.stats.iterations, rd.stats.iterations) << "step " << step;
      EXPECT_LT((rt.v - rd.v).norm(), 1e-7 * (1 + rd.v.norm()));
      EXPECT_NEAR(rt.stats.cost, rd.stats.cost, 1e-9 * std::abs(rd.stats.cost) + 1e-15);
      iterations += rt.stats.iterations;
      // A problem whose A no longer equals the per-dof form is solved by the block path: the
      // same result as that path on the same changed problem.
      ContactProblem p2 = p;
      p2.A[0](n / 2, n / 2) *= 1.5;
      ContactProblem q2 = p2;
      for (TreeMotion& tm : q2.tree_motion) tm.inertia.clear();
      SapSolver s2(scene.settings.sap, scene.settings.contact), s3(scene.settings.sap,
                                                                  scene.settings.contact);
      SolverResult r2, r3;
      s2.Solve(p2, p2.v0, &r2);
      s3.Solve(q2, q2.v0, &r3);
      EXPECT_FALSE(r2.stats.tree_recursion);
      EXPECT_EQ(r2.stats.iterations, r3.stats.iterations);
      EXPECT_EQ(r2.v, r3.v);
    }
    EXPECT_GT(limits, 0);     // the comparison covers joint limits
    EXPECT_GT(contacts, 100);  // and floor contacts
    EXPECT_GT(iterations, 0);  // and Newton iterations that use the recursion
  }
}

// Implicit integrators keep the dense Newton path (A at q_θ) but solve the free motion's Newton
// steps with the recursion on A = M(q_θ) + diag(δt² θ θ_vq K + δt θ D): the free motion converges
// and its residual M(v* − v0) − δt k at q_θ is within the free-motion tolerance.
TEST(TreeSolve, ImplicitFreeMotionConverges) {
  for (const char* integrator : {"implicit_euler", "midpoint"}) {
    Scene scene = ParseScene(TreeScene(90, true, integrator, 1e-4), "tree.yaml");
    Simulator sim(scene.model, scene.settings);
    for (int step = 0; step < 3; ++step) {
      const StepRecord& rec = sim.Step();
      EXPECT_TRUE(rec.free_motion.converged) << integrator;
      EXPECT_LT(rec.free_motion.residual, scene.settings.free_motion_tolerance) << integrator;
      EXPECT_EQ(rec.result.stats.status, SolverStatus::kConverged) << integrator;
      EXPECT_TRUE(rec.problem.v_star.allFinite());
    }
  }
}

}  // namespace
}  // namespace contactlab
