#include "engine/solvers/first_order/bilateral_step.h"

#include <Eigen/Cholesky>
#include <cmath>
#include <sstream>
#include <vector>

namespace contactlab {

namespace {

std::string CheckSizes(const BilateralStepInput& in) {
  const Eigen::Index n = in.M.rows(), nb = in.G.rows();
  std::ostringstream os;
  if (!(in.h > 0)) return "h must be > 0";
  if (in.M.cols() != n || in.v0.size() != n || in.f.size() != n || in.G.cols() != n) {
    return "M, v0, f and G disagree in the number of velocities";
  }
  if (in.phi0.size() != nb || in.K.size() != nb || in.B.size() != nb ||
      (in.Gdot_v0.size() != 0 && in.Gdot_v0.size() != nb)) {
    return "phi0, K, B and Gdot_v0 must have one entry per row of G";
  }
  if ((in.K.array() < 0).any() || (in.B.array() < 0).any()) return "K and B must be >= 0";
  return {};
}

// M̂Ġv₀ = W⁻¹Ġv₀ when W = GM⁻¹Gᵀ is numerically invertible (its LDLT pivots all above 1e-12 of
// the largest), else empty (the term is dropped).
VecX MhatGdotV(const BilateralStepInput& in, const MatX& W, bool* used) {
  *used = false;
  const Eigen::Index nb = in.G.rows();
  if (!in.include_mhat_gdot || in.Gdot_v0.size() == 0 || nb == 0) return VecX::Zero(nb);
  Eigen::LDLT<MatX> ldlt(W);
  if (ldlt.info() != Eigen::Success) return VecX::Zero(nb);
  const VecX D = ldlt.vectorD();
  const double dmax = D.cwiseAbs().maxCoeff();
  if (!(dmax > 0) || D.minCoeff() <= 1e-12 * dmax) return VecX::Zero(nb);
  *used = true;
  return ldlt.solve(in.Gdot_v0);
}

void Finish(const BilateralStepInput& in, const VecX& mhat_gdot, BilateralStepResult* out) {
  const Eigen::Index nb = in.G.rows();
  const VecX gdot = in.Gdot_v0.size() == 0 ? VecX::Zero(nb) : in.Gdot_v0;
  out->phi_dot1 = in.G * out->v1 + in.h * gdot;
  out->phi1 = in.phi0 + in.h * out->phi_dot1;
  out->lambda = -in.K.cwiseProduct(out->phi1) - in.B.cwiseProduct(out->phi_dot1) - mhat_gdot;
}

}  // namespace

bool BilateralStep(const BilateralStepInput& in, BilateralStepResult* out) {
  out->message = CheckSizes(in);
  if (!out->message.empty()) return false;
  const double h = in.h;
  const Eigen::Index nb = in.G.rows();
  Eigen::LLT<MatX> mllt(in.M);
  if (mllt.info() != Eigen::Success) {
    out->message = "M is not positive definite";
    return false;
  }
  const MatX MinvGt = mllt.solve(in.G.transpose());
  const VecX mhat_gdot = MhatGdotV(in, in.G * MinvGt, &out->mhat_term_used);
  const VecX gdot = in.Gdot_v0.size() == 0 ? VecX::Zero(nb) : in.Gdot_v0;
  const VecX S = h * h * in.K + h * in.B;
  const VecX kappa = h * in.K + in.B;
  // (M + GᵀSG) v₁ = M v₀ + h f + h Gᵀ[−Kφ₀ − hκĠv₀ − M̂Ġv₀].
  MatX H = in.M;
  H.noalias() += in.G.transpose() * S.asDiagonal() * in.G;
  const VecX p = -in.K.cwiseProduct(in.phi0) - h * kappa.cwiseProduct(gdot) - mhat_gdot;
  VecX rhs = in.M * in.v0 + h * in.f;
  rhs.noalias() += h * (in.G.transpose() * p);
  Eigen::LLT<MatX> llt(H);
  if (llt.info() != Eigen::Success) {
    out->message = "M + GᵀSG is not numerically positive definite";
    return false;
  }
  out->v1 = llt.solve(rhs);
  // One step of iterative refinement (H has entries of order S, up to 1e13 for K = 1e15).
  const VecX res = rhs - H * out->v1;
  out->v1 += llt.solve(res);
  Finish(in, mhat_gdot, out);
  return true;
}

bool BilateralStepForceForm(const BilateralStepInput& in, BilateralStepResult* out) {
  out->message = CheckSizes(in);
  if (!out->message.empty()) return false;
  const double h = in.h;
  const Eigen::Index nb = in.G.rows();
  Eigen::LLT<MatX> mllt(in.M);
  if (mllt.info() != Eigen::Success) {
    out->message = "M is not positive definite";
    return false;
  }
  const MatX MinvGt = mllt.solve(in.G.transpose());
  const MatX W = in.G * MinvGt;
  const VecX mhat_gdot = MhatGdotV(in, W, &out->mhat_term_used);
  const VecX gdot = in.Gdot_v0.size() == 0 ? VecX::Zero(nb) : in.Gdot_v0;
  const VecX S = h * h * in.K + h * in.B;
  const VecX kappa = h * in.K + in.B;
  const VecX Minv_f = mllt.solve(in.f);
  // rhs = −Kφ₀ − κ(Gv₀ + hGM⁻¹f + hĠv₀) − M̂Ġv₀.
  const VecX rhs = -in.K.cwiseProduct(in.phi0) -
                   kappa.cwiseProduct(in.G * in.v0 + h * (in.G * Minv_f) + h * gdot) - mhat_gdot;
  // Rows with S = 0 (K = B = 0) have λ = rhs; the others solve (S⁻¹ + W)λ = S⁻¹ rhs − W λ_0.
  std::vector<Eigen::Index> soft, free_rows;
  for (Eigen::Index i = 0; i < nb; ++i) (S(i) > 0 ? soft : free_rows).push_back(i);
  VecX lambda = VecX::Zero(nb);
  for (Eigen::Index i : free_rows) lambda(i) = rhs(i);
  if (!soft.empty()) {
    const Eigen::Index ns = static_cast<Eigen::Index>(soft.size());
    MatX Ks(ns, ns);
    VecX bs(ns);
    for (Eigen::Index a = 0; a < ns; ++a) {
      bs(a) = rhs(soft[a]) / S(soft[a]);
      for (Eigen::Index i : free_rows) bs(a) -= W(soft[a], i) * lambda(i);
      for (Eigen::Index b = 0; b < ns; ++b) Ks(a, b) = W(soft[a], soft[b]);
      Ks(a, a) += 1.0 / S(soft[a]);
    }
    Eigen::LDLT<MatX> ldlt(Ks);
    if (ldlt.info() != Eigen::Success) {
      out->message = "S⁻¹ + W could not be factored";
      return false;
    }
    const VecX ls = ldlt.solve(bs);
    for (Eigen::Index a = 0; a < ns; ++a) lambda(soft[a]) = ls(a);
  }
  out->v1 = in.v0 + h * (MinvGt * lambda + Minv_f);
  Finish(in, mhat_gdot, out);
  // λ₁ from eq. 53 at the predicted φ₁, φ̇₁ equals the solved λ up to round-off; keep the solved
  // one (it is what moved v₁).
  out->lambda = lambda;
  return true;
}

}  // namespace contactlab
