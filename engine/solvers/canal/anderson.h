// Anderson acceleration (type II, Walker and Ni, SIAM J. Numer. Anal. 49(4), 2011) of a
// fixed-point iteration x ← F(x), as CANAL uses it on its cascade (canal_solver.h).
//
// With the residual g(x) = F(x) − x and the differences of the last k <= m iterations,
//   ΔX = [x_{j+1} − x_j],  ΔG = [g_{j+1} − g_j]  (n x k),
// the next iterate is
//   x_{k+1} = F(x_k) − (ΔX + ΔG) γ,   γ = argmin ‖g_k − ΔG γ‖₂,
// i.e. the combination of the last k + 1 images F(x_j) whose linearized residual is smallest.
// For an affine F(x) = M x + c with I − M invertible it is equivalent to GMRES on
// (I − M) x = c (Walker and Ni, Theorem 2.2), so it converges where the plain iteration
// contracts slowly (eigenvalues of M near 1) and where it does not contract at all (eigenvalues
// outside the unit disc), which damping cannot. The least-squares problem is solved by a
// column-pivoted QR; columns whose pivot is below kRankTolerance times the largest are dropped
// (nearly dependent differences, e.g. a stalled component), so γ stays bounded.
#pragma once

#include "engine/common/math.h"

namespace contactlab {

class AndersonAccelerator {
 public:
  // Relative pivot below which a difference column is treated as dependent.
  static constexpr double kRankTolerance = 1e-10;

  // Vectors of `size` entries and a memory of m = `memory` >= 1 differences; forgets the history.
  void Reset(int size, int memory);
  // Forgets the history (the next Next() returns F(x)).
  void Clear();
  // Given x_k and its image f = F(x_k) (both `size`), writes x_{k+1} to *x_next (may alias
  // neither input) and records (x_k, g_k) for the following call.
  void Next(const VecX& x, const VecX& f, VecX* x_next);
  // Differences currently combined (0 after Reset or Clear, at most the memory).
  int history() const { return count_; }

 private:
  int size_ = 0, memory_ = 1;
  int count_ = 0;  // valid columns of dX_, dG_
  int head_ = 0;   // column the next difference goes to (a ring)
  MatX dX_, dG_;   // size x memory
  VecX x_prev_, g_prev_, g_;
  bool have_prev_ = false;
};

}  // namespace contactlab
