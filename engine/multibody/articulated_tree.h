// O(n) solves with the matrix of a kinematic tree in composite form (articulated-body algorithm,
// Featherstone, "Rigid Body Dynamics Algorithms", §7.3, written per dof in world axes).
//
// The tree is given per dof j (tree-local, parent[j] < j, -1 at the root): φ_j = Φ.col(j), the
// world-frame spatial motion [ω; v] about a reference point r0 that a unit rate of dof j gives
// every body outboard of it; a node inertia I_j (6 x 6, about r0, world axes: the bodies whose last
// dof is j, plus anything else with the same form, e.g. the contact stiffness Σ WᵀGW of contacts
// on those bodies); and a diagonal d_j (implicit spring/damper terms, joint limits). The matrix is
//
//   H(j, k) = φ_kᵀ I^C_j φ_j   for k on the path from j to the root (and symmetric),  + diag(d)
//
// with I^C_j the sum of the node inertias in j's subtree: the mass matrix of the tree (composite
// rigid body algorithm) when I_j are the body inertias. Factor() computes the articulated
// inertias I^A_j, U_j = I^A_j φ_j and D_j = φ_jᵀ U_j + d_j leaf to root (O(n), 36 numbers per
// dof); Solve() gives H⁻¹ r in two passes (O(n)); InverseOperationalInertias() gives, for every
// dof j, Ω_j = Φ_P H⁻¹ Φ_Pᵀ with Φ_P the columns of j's path (the motion of a body at j per unit
// spatial force on it), by Ω_j = P_jᵀ Ω_parent P_j + φ_j φ_jᵀ / D_j, P_j = 1 − U_j φ_jᵀ / D_j.
// No recursion: every pass is a loop over the dof order.
#pragma once

#include <vector>

#include "engine/common/math.h"

namespace contactlab {

class ArticulatedTreeSolver {
 public:
  // inertia: 36 n values, node j's 6 x 6 column-major at 36 j (symmetric PSD); diag: n values or
  // null. Phi and parent are copied. Returns false if some D_j is not positive and finite (H not
  // SPD to working precision); the solver is then unusable until the next successful Factor().
  bool Factor(const MatX& Phi, const std::vector<int>& parent, const double* inertia,
              const double* diag);
  int size() const { return static_cast<int>(parent_.size()); }
  // x (n values) <- H⁻¹ x.
  void Solve(double* x) const;
  // Omega: 36 n values, Ω_j column-major at 36 j [1/kg, 1/(kg m), 1/(kg m²)].
  void InverseOperationalInertias(std::vector<double>* Omega) const;
  // (H⁻¹)_jj from the Ω of Omega (as InverseOperationalInertias fills it):
  // (1 + U_jᵀ Ω_parent U_j / D_j) / D_j.
  double InverseDiagonal(const std::vector<double>& Omega, int j) const;

  // y = H x in O(n) (velocities root to leaf, composite forces leaf to root), for the same data
  // as Factor takes. y and x must not alias.
  static void Multiply(const MatX& Phi, const std::vector<int>& parent, const double* inertia,
                       const double* diag, const double* x, double* y);

 private:
  MatX Phi_;                  // 6 x n
  std::vector<int> parent_;   // n
  std::vector<double> U_;     // 6 n
  std::vector<double> D_;     // n
  std::vector<double> IA_;    // 36 n, articulated inertias (scratch of Factor)
  mutable std::vector<double> work_;  // 6 n, forces then accelerations of Solve
};

}  // namespace contactlab
