#include "engine/multibody/articulated_tree.h"

#include <algorithm>
#include <cmath>

namespace contactlab {

namespace {
using Vec6 = Eigen::Matrix<double, 6, 1>;
using Mat6 = Eigen::Matrix<double, 6, 6>;
using Map6 = Eigen::Map<Mat6>;
using CMap6 = Eigen::Map<const Mat6>;
using MapV6 = Eigen::Map<Vec6>;
using CMapV6 = Eigen::Map<const Vec6>;
}  // namespace

bool ArticulatedTreeSolver::Factor(const MatX& Phi, const std::vector<int>& parent,
                                   const double* inertia, const double* diag) {
  const int n = static_cast<int>(parent.size());
  Phi_ = Phi;
  parent_ = parent;
  U_.resize(6 * static_cast<size_t>(n));
  D_.resize(n);
  IA_.assign(inertia, inertia + 36 * static_cast<size_t>(n));
  work_.resize(6 * static_cast<size_t>(n));
  // Leaf to root: children have higher indices, so I^A_j is complete when j is reached.
  for (int j = n - 1; j >= 0; --j) {
    const Map6 IA(IA_.data() + 36 * static_cast<size_t>(j));
    const Vec6 phi = Phi_.col(j);
    MapV6 U(U_.data() + 6 * static_cast<size_t>(j));
    U.noalias() = IA * phi;
    const double D = phi.dot(U) + (diag ? diag[j] : 0.0);
    if (!(D > 0) || !std::isfinite(D)) return false;
    D_[j] = D;
    const int p = parent_[j];
    if (p >= 0) {
      // I^A_p += I^A_j − U_j U_jᵀ / D_j
      Map6 IAp(IA_.data() + 36 * static_cast<size_t>(p));
      IAp += IA;
      IAp.noalias() -= (U / D) * U.transpose();
    }
  }
  return true;
}

void ArticulatedTreeSolver::Solve(double* x) const {
  const int n = size();
  std::fill(work_.begin(), work_.end(), 0.0);
  // Leaf to root: u_j = r_j − φ_jᵀ p^A_j (kept in x), p^A_parent += p^A_j + U_j u_j / D_j.
  for (int j = n - 1; j >= 0; --j) {
    const CMapV6 pA(work_.data() + 6 * static_cast<size_t>(j));
    x[j] -= Phi_.col(j).dot(pA);
    const int p = parent_[j];
    if (p >= 0) {
      MapV6 pAp(work_.data() + 6 * static_cast<size_t>(p));
      pAp += pA + CMapV6(U_.data() + 6 * static_cast<size_t>(j)) * (x[j] / D_[j]);
    }
  }
  // Root to leaf: x_j = (u_j − U_jᵀ a_parent) / D_j, a_j = a_parent + φ_j x_j. A node's slot of
  // work_ turns from p^A_j into a_j; its children come later and read a_j.
  for (int j = 0; j < n; ++j) {
    const int p = parent_[j];
    MapV6 a(work_.data() + 6 * static_cast<size_t>(j));
    if (p >= 0) {
      const CMapV6 ap(work_.data() + 6 * static_cast<size_t>(p));
      x[j] = (x[j] - CMapV6(U_.data() + 6 * static_cast<size_t>(j)).dot(ap)) / D_[j];
      a = ap + Phi_.col(j) * x[j];
    } else {
      x[j] /= D_[j];
      a = Phi_.col(j) * x[j];
    }
  }
}

void ArticulatedTreeSolver::InverseOperationalInertias(std::vector<double>* Omega) const {
  const int n = size();
  Omega->resize(36 * static_cast<size_t>(n));
  for (int j = 0; j < n; ++j) {
    Map6 Om(Omega->data() + 36 * static_cast<size_t>(j));
    const Vec6 phi = Phi_.col(j);
    const double D = D_[j];
    const int p = parent_[j];
    if (p < 0) {
      Om.noalias() = (phi / D) * phi.transpose();
      continue;
    }
    // Ω_j = P_jᵀ Ω_p P_j + φ φᵀ / D with P_j = 1 − U φᵀ / D: for y = Ω_p U, c = Uᵀ y,
    // Ω_j = Ω_p − (φ yᵀ + y φᵀ) / D + φ φᵀ (D + c) / D².
    const CMap6 Op(Omega->data() + 36 * static_cast<size_t>(p));
    const CMapV6 U(U_.data() + 6 * static_cast<size_t>(j));
    const Vec6 y = Op * U;
    const double c = U.dot(y);
    Om = Op;
    Om.noalias() -= (phi / D) * y.transpose();
    Om.noalias() -= (y / D) * phi.transpose();
    Om.noalias() += (phi * ((D + c) / (D * D))) * phi.transpose();
  }
}

double ArticulatedTreeSolver::InverseDiagonal(const std::vector<double>& Omega, int j) const {
  const int p = parent_[j];
  const double D = D_[j];
  if (p < 0) return 1.0 / D;
  const CMapV6 U(U_.data() + 6 * static_cast<size_t>(j));
  const CMap6 Op(Omega.data() + 36 * static_cast<size_t>(p));
  return (1.0 + U.dot(Op * U) / D) / D;
}

void ArticulatedTreeSolver::Multiply(const MatX& Phi, const std::vector<int>& parent,
                                     const double* inertia, const double* diag, const double* x,
                                     double* y) {
  const int n = static_cast<int>(parent.size());
  thread_local std::vector<double> vel, force;
  vel.resize(6 * static_cast<size_t>(n));
  force.resize(6 * static_cast<size_t>(n));
  // Root to leaf: V_j = V_parent + φ_j x_j; F_j = I_j V_j.
  for (int j = 0; j < n; ++j) {
    MapV6 V(vel.data() + 6 * static_cast<size_t>(j));
    V = Phi.col(j) * x[j];
    if (parent[j] >= 0) V += CMapV6(vel.data() + 6 * static_cast<size_t>(parent[j]));
    MapV6(force.data() + 6 * static_cast<size_t>(j)).noalias() =
        CMap6(inertia + 36 * static_cast<size_t>(j)) * V;
  }
  // Leaf to root: F_parent += F_j (the subtree's momentum), y_j = φ_jᵀ F_j + d_j x_j.
  for (int j = n - 1; j >= 0; --j) {
    const CMapV6 F(force.data() + 6 * static_cast<size_t>(j));
    y[j] = Phi.col(j).dot(F) + (diag ? diag[j] * x[j] : 0.0);
    if (parent[j] >= 0) MapV6(force.data() + 6 * static_cast<size_t>(parent[j])) += F;
  }
}

}  // namespace contactlab
