// The contact problem of one time step, as in the SAP paper (§II-III):
//
//   min_v  ½‖v − v*‖²_A + Σ_i ℓ_R,i(J_i v + b_i)      (eq. 24 with v_c = J v + b)
//
// A ≻ 0 is block diagonal with one block per kinematic tree (eq. 15), v* the free-motion
// velocities (eq. 14), J the constraint Jacobian built per tree, b the constraint velocity due to
// prescribed (non-dof) motion. Each constraint keeps its physical data (k, τ_d, μ, φ0) and the
// Delassus estimate w_i = ‖W_ii‖_F / 3 (W = J M⁻¹ Jᵀ); a solver turns these into its own
// regularization (SAP: R and v̂ from eqs. 29-30 with σ and β), so a frozen problem can be
// re-solved with other solver parameters.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "engine/common/math.h"

namespace contactlab {

enum class ConstraintKind {
  kFrictionCone,  // 3 rows (t1, t2, n): γ ∈ F = {‖γ_t‖ <= μ γ_n}
  kUnilateral,    // 1 row: γ >= 0 (joint limits)
  // 1 or 3 rows: γ ∈ ℝ^rows, unbounded both ways (holonomic equality constraints g(q) = 0 of
  // Model::equalities: a joint coupling (1 row), a connect, a weld's position or its rotation
  // (3 rows each)). Per row, g(q0) is ConstraintData::g0.
  kBilateral,
};
// "friction_cone", "unilateral", "bilateral".
const char* ConstraintKindName(ConstraintKind kind);

// Block of a constraint Jacobian that acts on the velocities of one tree.
struct TreeJacobianBlock {
  int tree = -1;  // index into ContactProblem::tree_v_start / tree_nv
  MatX J;         // rows x nv_tree
  // Spatial form, set by the simulator for contacts on trees with a TreeMotion (leaf >= 0):
  // J = W Φ on the dofs of the path leaf → root (ContactProblem::tree_motion), zero elsewhere.
  // leaf < 0: no spatial form (joint limits, a contact between two bodies of one tree); J alone
  // is authoritative in every case.
  int leaf = -1;
  Eigen::Matrix<double, 3, 6> W = Eigen::Matrix<double, 3, 6>::Zero();  // rows 0..num_rows
};

// Spatial form of the Jacobians of a large tree, for an assembly of JᵀGJ that follows the tree
// (composite stiffness, like the composite rigid body algorithm for M): Φ's column i is the
// world-frame motion of dof i about the point r0, [ω_i; v_i + ω_i × (r0 − o_i)], and parent[i]
// the dof before i on the path to the root (-1 at the root).
//
// With `inertia` set (the simulator sets it when A_t = M_t and both are evaluated at the
// configuration of Φ: explicit and symplectic Euler), M_t = A_t is also known in per-dof form:
// inertia holds, per dof j, the 6 x 6 spatial inertia about r0 (world axes, column-major) of the
// bodies whose last dof is j, and M_t(j, k) = Φ_kᵀ I^C_j Φ_j (I^C_j: the sum over j's subtree).
// The Delassus estimates and the SAP Newton system of such a tree are then solved in O(nv_t) by
// the articulated-body recursion (engine/multibody/articulated_tree.h) instead of a dense
// Cholesky factorization.
struct TreeMotion {
  Vec3 r0 = Vec3::Zero();       // reference point [m]
  MatX Phi;                     // 6 x nv_t
  std::vector<int> parent;      // nv_t
  std::vector<double> inertia;  // 36 nv_t, or empty [kg, kg m, kg m²]
  // Joint armature per dof (nv_t values), or empty (none): with inertias, M_t(j, j) gets
  // armature[j] on top of the per-dof form (the articulated-body recursion takes it as a
  // diagonal term).
  std::vector<double> armature;
  const double* armature_or_null() const { return armature.empty() ? nullptr : armature.data(); }
  bool empty() const { return parent.empty(); }
  bool has_inertia() const {
    return !parent.empty() && Phi.cols() == static_cast<Eigen::Index>(parent.size()) &&
           inertia.size() == 36 * parent.size();
  }
};

// True when `tm` has inertias, its dof parents precede their children (parent[j] < j), and the
// diagonal of the dense tree block A (or M) equals that of the per-dof form (with its armature)
// within rel_tol
// (relative to A's largest diagonal entry): a problem whose A was changed after the simulator
// filled tm is not solved with the per-dof form.
bool TreeMotionMatches(const TreeMotion& tm, const MatX& A, double rel_tol = 1e-9);

// Trees with more dofs than this get a TreeMotion from the simulator.
constexpr int kTreeMotionMinDofs = 65;

struct ConstraintData {
  ConstraintKind kind = ConstraintKind::kFrictionCone;
  int first_row = 0;   // offset of this constraint's rows in the stacked v_c
  int num_rows = 3;    // 3 for cones, 1 for unilateral, 1 or 3 for bilateral
  int num_blocks = 0;  // 1 or 2 trees
  std::array<TreeJacobianBlock, 2> blocks;
  Eigen::Vector3d bias = Eigen::Vector3d::Zero();  // b_i (first num_rows used) [m/s]
  double stiffness = 0;                            // k [N/m] (or [N m/rad] for limits)
  double dissipation_time = 0;                     // τ_d [s]
  double friction = 0;                             // μ (cones only)
  double hunt_crossley_dissipation = 0;            // d [s/m] (cones; Hunt–Crossley models)
  double phi0 = 0;   // signed distance / constraint function at q0 [m] or [rad]
                     // (bilateral: ‖g0‖, for display; the law reads g0)
  // Bilateral constraints: the constraint function g(q0) per row (first num_rows used) [m] or
  // [rad]; the law's v̂ = −g0/(δt + τ_d), as Drake's SapHolonomicConstraint.
  Eigen::Vector3d g0 = Eigen::Vector3d::Zero();
  double w = 0;      // Delassus estimate ‖W_ii‖_F / num_rows [1/kg] (or [1/(kg m²)])
  double beta = -1;  // near-rigid parameter for this constraint; < 0 = solver default
  int source = -1;   // index of the Contact (cones), Joint (limits) or Equality (bilateral) it
                     // came from
  // Identity across time steps (the solvers' dual warm start, solvers/common/impulse_memory.h):
  // what the constraint acts between (ConstraintKeyOfContact, ConstraintKeyOfLimit; 0 = none),
  // where (a cone's contact point in world [m]) and its normal (the frame is ContactFrame(normal)).
  std::uint64_t key = 0;
  Vec3 anchor = Vec3::Zero();
  Vec3 normal = Vec3::UnitZ();
};

// Constraint keys: a contact between geometries a and b (ids as in the model, in the order the
// collision detector reports them), and side 0 (lower) or 1 (upper) of joint j's limit. Never 0.
inline std::uint64_t ConstraintKeyOfContact(int geom_a, int geom_b) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(geom_a + 1)) << 32) |
         static_cast<std::uint32_t>(geom_b + 1);
}
inline std::uint64_t ConstraintKeyOfLimit(int joint, int side) {
  return (std::uint64_t{1} << 63) | (static_cast<std::uint64_t>(joint) << 1) |
         static_cast<std::uint64_t>(side & 1);
}

// Equality e of Model::equalities, part 0 (a connect, a coupling, a weld's position rows) or 1
// (a weld's rotation rows). Bits 63 and 62 set: apart from contacts and limits.
inline std::uint64_t ConstraintKeyOfEquality(int equality, int part) {
  return (std::uint64_t{3} << 62) | (static_cast<std::uint64_t>(equality) << 1) |
         static_cast<std::uint64_t>(part & 1);
}

// Per tree, L⁻¹ with M_t = L Lᵀ (6 x 6, as InverseCholesky6 writes it) where `valid` is set;
// storage is kept when the flags are reset.
struct InverseCholeskyFactors {
  std::vector<MatX> Li;
  std::vector<char> valid;
  bool Has(int tree) const { return tree < static_cast<int>(valid.size()) && valid[tree]; }
};

struct ContactProblem {
  double time_step = 0;           // δt [s]
  int nv = 0;                     // generalized velocities
  std::vector<int> tree_v_start;  // per tree, offset into v
  std::vector<int> tree_nv;       // per tree, dofs
  std::vector<MatX> A;            // per tree, nv_t x nv_t, SPD (eq. 15)
  std::vector<MatX> M;            // per tree, nv_t x nv_t, mass matrix at q0 (for scaling D)
  VecX v_star;                    // nv, free-motion velocities (eq. 14)
  VecX v0;                        // nv, velocities at the start of the step
  std::vector<ConstraintData> constraints;
  int num_rows = 0;  // Σ num_rows
  // Per tree (or empty): the spatial form of large trees' Jacobians (TreeMotion::empty() for the
  // others). Optional: a problem without it is assembled from J alone.
  std::vector<TreeMotion> tree_motion;

  int num_trees() const { return static_cast<int>(tree_nv.size()); }
  // Dense views for the reference path and for export.
  MatX DenseA() const;       // nv x nv
  MatX DenseM() const;       // nv x nv
  MatX DenseJ() const;       // num_rows x nv
  VecX StackedBias() const;  // num_rows
  // Connected components of the tree graph whose edges are the constraints acting on two trees:
  // root[t] is the smallest tree index of t's component (root resized to num_trees, its storage
  // kept between calls).
  void TreeComponentRoots(std::vector<int>* root) const;
  // v_c = J v + b.
  void ConstraintVelocities(const VecX& v, VecX* vc) const;
  // out += Jᵀ γ  (out has size nv).
  void AddJacobianTransposeTimes(const VecX& gamma, VecX* out) const;
  // Fills w for every constraint from M: w_i = ‖J_i M⁻¹ J_iᵀ‖_F / num_rows, the RMS of the
  // entries of W_ii as printed in eq. 29 (1/(√3 m) for a point mass).
  // known (may be null): inverse Cholesky factors of 6-dof trees the caller has already.
  // dof_parent (may be null): per tree, each dof's parent dof in the tree (−1 at the root, as
  // Multibody::TreeDofStructure gives it); an articulated tree up to 64 dofs whose dofs are
  // numbered parents first is then factored with its branch-induced sparsity
  // (engine/common/tree_ltdl.h) instead of densely. The estimates agree to round-off.
  void ComputeDelassusEstimates(const InverseCholeskyFactors* known = nullptr,
                                const std::vector<std::vector<int>>* dof_parent = nullptr);
};

// Li = L⁻¹ for a 6 x 6 SPD M = L Lᵀ (column-major, lower triangular, zeros above), so that
// M⁻¹ = Liᵀ Li. Fixed-size, no allocation (free bodies).
void InverseCholesky6(const double* M, double* Li);

}  // namespace contactlab
