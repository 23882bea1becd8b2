// Dense primal-dual interior-point method for quadratic cone programs (see socp.h).
//
// Notation per block of K: the orthant rows are scalars; a second-order cone block u = (u_0, ū)
// with J = diag(1, −I), det(u) = uᵀJu = u_0² − ‖ū‖², the Jordan product
// a ∘ b = (aᵀb, a_0 b̄ + b_0 ā) and the identity e = (1, 0).
//
// Nesterov–Todd scaling of a cone block from s, z ∈ int Q (derived from the CVXOPT paper's
// construction, checked by the unit tests W z = W⁻¹ s):
//   s̄ = s/√det(s), z̄ = z/√det(z), γ = √((1 + s̄ᵀz̄)/2),
//   w̄ = (s̄ + J z̄)/(2γ)                 (the J-unit point with (2w̄w̄ᵀ − J) z̄ = s̄),
//   v = (w̄ + e)/√(2(1 + w̄_0))         (its "square root": (2vvᵀ − J)² = 2w̄w̄ᵀ − J),
//   β = (det(s)/det(z))^(1/4),  W = β(2vvᵀ − J),  W⁻¹ = (2Jv vᵀJ − J)/β,  λ = W z = W⁻¹ s.
#include "engine/solvers/first_order/socp.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace contactlab {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// u_0² − ‖ū‖² as a product (no cancellation of the squares); negative outside the cone.
inline double ConeDet(const double* u, int m) {
  double t = 0;
  for (int k = 1; k < m; ++k) t += u[k] * u[k];
  const double n = std::sqrt(t);
  return (u[0] - n) * (u[0] + n);
}

inline double TailNorm(const double* u, int m) {
  double t = 0;
  for (int k = 1; k < m; ++k) t += u[k] * u[k];
  return std::sqrt(t);
}

// Largest α >= 0 with u + α d in the cone (u in its interior); +∞ when d ∈ Q.
double ConeMaxStep(const double* u, const double* d, int m) {
  const double dn = TailNorm(d, m);
  if (d[0] >= dn) return kInf;  // d ∈ Q: the ray stays inside
  double b = u[0] * d[0], a2 = 0;
  for (int k = 1; k < m; ++k) b -= u[k] * d[k];
  a2 = (d[0] - dn) * (d[0] + dn);
  const double c = ConeDet(u, m);
  // g(α) = c + 2bα + a2 α², g(0) = c > 0; the first positive root is where the ray leaves Q.
  if (a2 == 0) return b < 0 ? -c / (2 * b) : kInf;
  const double disc = std::max(b * b - a2 * c, 0.0);
  const double sq = std::sqrt(disc);
  const double qq = -(b + std::copysign(sq, b));
  double best = kInf;
  if (qq != 0) {
    const double r1 = qq / a2, r2 = c / qq;
    if (r1 > 0) best = std::min(best, r1);
    if (r2 > 0) best = std::min(best, r2);
  } else {
    // b = 0 and disc = 0: a2 c = 0 impossible with a2 != 0, c > 0 unless disc clamped.
    const double r = std::sqrt(std::max(-c / a2, 0.0));
    if (r > 0) best = r;
  }
  return best;
}

}  // namespace

bool SocNtScaling(const double* s, const double* z, int m, double* beta, double* v) {
  const double ds = ConeDet(s, m), dz = ConeDet(z, m);
  if (!(ds > 0 && dz > 0 && s[0] > 0 && z[0] > 0)) return false;
  const double sn = std::sqrt(ds), zn = std::sqrt(dz);
  double sz = 0;  // s̄ᵀz̄
  for (int i = 0; i < m; ++i) sz += (s[i] / sn) * (z[i] / zn);
  const double gamma = std::sqrt(std::max((1 + sz) / 2, 0.0));
  if (!(gamma > 0)) return false;
  // w̄ = (s̄ + J z̄)/(2γ), then v = (w̄ + e)/√(2(1 + w̄_0)).
  const double w0 = (s[0] / sn + z[0] / zn) / (2 * gamma);
  const double vn = std::sqrt(2 * (1 + w0));
  v[0] = (w0 + 1) / vn;
  for (int i = 1; i < m; ++i) v[i] = ((s[i] / sn - z[i] / zn) / (2 * gamma)) / vn;
  *beta = std::sqrt(sn / zn);
  return std::isfinite(*beta) && std::isfinite(v[0]);
}

double SocMaxStep(const double* u, const double* du, int m) { return ConeMaxStep(u, du, m); }

const char* SocpStatusName(SocpStatus s) {
  switch (s) {
    case SocpStatus::kOptimal:
      return "optimal";
    case SocpStatus::kPrimalInfeasible:
      return "primal_infeasible";
    case SocpStatus::kDualInfeasible:
      return "dual_infeasible";
    case SocpStatus::kMaxIterations:
      return "max_iterations";
    case SocpStatus::kReducedAccuracy:
      return "reduced_accuracy";
    case SocpStatus::kNumericalFailure:
      return "numerical_failure";
  }
  return "unknown";
}

std::string SocpProblem::Check() const {
  const int n = num_vars(), m = num_rows();
  std::ostringstream os;
  if (P.rows() != n || P.cols() != n) {
    os << "P is " << P.rows() << " x " << P.cols() << ", expected " << n << " x " << n;
    return os.str();
  }
  if (G.rows() != m || G.cols() != n) {
    os << "G is " << G.rows() << " x " << G.cols() << ", expected " << m << " x " << n;
    return os.str();
  }
  int rows = num_linear;
  if (num_linear < 0) return "negative number of orthant rows";
  for (int size : cone_sizes) {
    if (size < 2) return "a second-order cone has fewer than 2 rows";
    rows += size;
  }
  if (rows != m) {
    os << "the cones cover " << rows << " rows, G has " << m;
    return os.str();
  }
  if (!(P.allFinite() && q.allFinite() && G.allFinite() && h.allFinite() && std::isfinite(r))) {
    return "non-finite problem data";
  }
  return {};
}

void SocpSolver::Setup(const SocpProblem& p, const SocpSettings& st) {
  n_ = p.num_vars();
  m_ = p.num_rows();
  l_ = p.num_linear;
  cone_offset_.clear();
  cone_size_.clear();
  int off = l_;
  for (int size : p.cone_sizes) {
    cone_offset_.push_back(off);
    cone_size_.push_back(size);
    off += size;
  }
  degree_ = l_ + static_cast<int>(cone_size_.size());
  beta_.assign(cone_size_.size(), 1.0);
  lambda_det_.assign(cone_size_.size(), 1.0);
  r_ = p.r;

  // Equilibration: x = D x̃ with D_jj = P_jj^(-1/2) (the column norm of G where P_jj = 0), then one
  // positive factor per block of rows (a cone's rows share one, which keeps K invariant).
  col_scale_.setOnes(n_);
  row_scale_.setOnes(m_);
  if (st.equilibrate) {
    for (int j = 0; j < n_; ++j) {
      const double pjj = p.P(j, j);
      const double gn = p.G.col(j).norm();
      const double d = pjj > 0 ? 1.0 / std::sqrt(pjj) : (gn > 0 ? 1.0 / gn : 1.0);
      col_scale_(j) = std::isfinite(d) && d > 0 ? d : 1.0;
    }
  }
  P_ = col_scale_.asDiagonal() * p.P * col_scale_.asDiagonal();
  q_ = col_scale_.cwiseProduct(p.q);
  G_ = p.G * col_scale_.asDiagonal();
  if (st.equilibrate) {
    for (int i = 0; i < l_; ++i) {
      const double rn = G_.row(i).norm();
      if (rn > 0 && std::isfinite(1.0 / rn)) row_scale_(i) = 1.0 / rn;
    }
    for (size_t k = 0; k < cone_size_.size(); ++k) {
      double rn = 0;
      for (int i = 0; i < cone_size_[k]; ++i) rn = std::max(rn, G_.row(cone_offset_[k] + i).norm());
      const double e = rn > 0 && std::isfinite(1.0 / rn) ? 1.0 / rn : 1.0;
      row_scale_.segment(cone_offset_[k], cone_size_[k]).setConstant(e);
    }
  }
  G_ = row_scale_.asDiagonal() * G_;
  h_ = row_scale_.cwiseProduct(p.h);
}

bool SocpSolver::ComputeScaling() {
  w_.resize(l_);
  lambda_.resize(m_);
  v_.setZero(m_);
  for (int i = 0; i < l_; ++i) {
    if (!(s_(i) > 0 && z_(i) > 0)) return false;
    w_(i) = std::sqrt(s_(i) / z_(i));
    lambda_(i) = std::sqrt(s_(i) * z_(i));
  }
  for (size_t k = 0; k < cone_size_.size(); ++k) {
    const int o = cone_offset_[k], m = cone_size_[k];
    const double* z = z_.data() + o;
    double* v = v_.data() + o;
    const double* s = s_.data() + o;
    if (!SocNtScaling(s, z, m, &beta_[k], v)) return false;
    // λ = W z = √(‖s‖_J ‖z‖_J) λ̄ with λ̄_0 = γ and
    // λ̄_1 = ((γ + z̄_0) s̄_1 + (γ + s̄_0) z̄_1) / (s̄_0 + z̄_0 + 2γ) (the form of W̄z̄ without
    // cancellation; det λ = √(det s det z) is kept exactly for the Jordan division).
    const double sn = std::sqrt(ConeDet(s, m)), zn = std::sqrt(ConeDet(z, m));
    double sz = 0;
    for (int i = 0; i < m; ++i) sz += (s[i] / sn) * (z[i] / zn);
    const double gamma = std::sqrt((1 + sz) / 2);
    const double s0 = s[0] / sn, z0 = z[0] / zn, scale = std::sqrt(sn * zn);
    const double den = s0 + z0 + 2 * gamma;
    double* lam = lambda_.data() + o;
    lam[0] = scale * gamma;
    for (int i = 1; i < m; ++i) {
      lam[i] = scale * ((gamma + z0) * (s[i] / sn) + (gamma + s0) * (z[i] / zn)) / den;
    }
    lambda_det_[k] = sn * zn;
  }
  return lambda_.allFinite();
}

void SocpSolver::ApplyW(const VecX& x, VecX* y) const {
  y->resize(m_);
  for (int i = 0; i < l_; ++i) (*y)(i) = w_(i) * x(i);
  for (size_t k = 0; k < cone_size_.size(); ++k) {
    const int o = cone_offset_[k], m = cone_size_[k];
    const double* v = v_.data() + o;
    double vx = 0;
    for (int i = 0; i < m; ++i) vx += v[i] * x(o + i);
    (*y)(o) = beta_[k] * (2 * v[0] * vx - x(o));
    for (int i = 1; i < m; ++i) (*y)(o + i) = beta_[k] * (2 * v[i] * vx + x(o + i));
  }
}

void SocpSolver::ApplyWinv(const VecX& x, VecX* y) const {
  y->resize(m_);
  for (int i = 0; i < l_; ++i) (*y)(i) = x(i) / w_(i);
  for (size_t k = 0; k < cone_size_.size(); ++k) {
    const int o = cone_offset_[k], m = cone_size_[k];
    const double* v = v_.data() + o;
    // W⁻¹ x = (2 Jv (Jv)ᵀx − Jx)/β with Jv = (v_0, −v̄).
    double jvx = v[0] * x(o);
    for (int i = 1; i < m; ++i) jvx -= v[i] * x(o + i);
    (*y)(o) = (2 * v[0] * jvx - x(o)) / beta_[k];
    for (int i = 1; i < m; ++i) (*y)(o + i) = (-2 * v[i] * jvx + x(o + i)) / beta_[k];
  }
}

void SocpSolver::JordanProduct(const VecX& a, const VecX& b, VecX* y) const {
  y->resize(m_);
  for (int i = 0; i < l_; ++i) (*y)(i) = a(i) * b(i);
  for (size_t k = 0; k < cone_size_.size(); ++k) {
    const int o = cone_offset_[k], m = cone_size_[k];
    double ab = 0;
    for (int i = 0; i < m; ++i) ab += a(o + i) * b(o + i);
    (*y)(o) = ab;
    for (int i = 1; i < m; ++i) (*y)(o + i) = a(o) * b(o + i) + b(o) * a(o + i);
  }
}

void SocpSolver::JordanDivide(const VecX& lam, const VecX& b, VecX* y) const {
  y->resize(m_);
  for (int i = 0; i < l_; ++i) (*y)(i) = b(i) / lam(i);
  for (size_t k = 0; k < cone_size_.size(); ++k) {
    const int o = cone_offset_[k], m = cone_size_[k];
    // det λ from the scaling when λ is the scaled point (exact), else from its entries.
    const double det = &lam == &lambda_ ? lambda_det_[k] : ConeDet(lam.data() + o, m);
    double lb = 0;
    for (int i = 1; i < m; ++i) lb += lam(o + i) * b(o + i);
    const double y0 = (lam(o) * b(o) - lb) / det;
    (*y)(o) = y0;
    for (int i = 1; i < m; ++i) (*y)(o + i) = (b(o + i) - y0 * lam(o + i)) / lam(o);
  }
}

double SocpSolver::MaxStep(const VecX& u, const VecX& du) const {
  double alpha = kInf;
  for (int i = 0; i < l_; ++i) {
    if (du(i) < 0) alpha = std::min(alpha, -u(i) / du(i));
  }
  for (size_t k = 0; k < cone_size_.size(); ++k) {
    const int o = cone_offset_[k];
    alpha = std::min(alpha, ConeMaxStep(u.data() + o, du.data() + o, cone_size_[k]));
  }
  return alpha;
}

bool SocpSolver::FactorP() {
  // P̂ = P + δI with δ = 1e-13 of the largest diagonal entry. When that factorization's pivots
  // stay above 1e-5 √max P_ii (P numerically definite, cond < 1e10, as in the contact programs,
  // whose equilibrated P has a unit diagonal), the
  // directions come from the dual Schur complement; otherwise (P semidefinite, e.g. a linear
  // program) from the normal equations P + GsᵀGs, which are definite when [P; G] has full column
  // rank and then lose nothing of a P that is not there.
  const double pscale = std::max(1.0, P_.diagonal().cwiseAbs().maxCoeff());
  Ph_ = P_;
  Ph_.diagonal().array() += 1e-13 * pscale;
  lp_.compute(Ph_);
  dual_schur_ = false;
  if (lp_.info() == Eigen::Success) {
    const VecX d = lp_.matrixLLT().diagonal();
    dual_schur_ = d.minCoeff() > 1e-5 * std::sqrt(pscale);
  }
  return true;
}

bool SocpSolver::Factor() {
  // Scaled dual Schur complement: with dz̃ = W dz and Gs = W⁻¹G the KKT system is
  // [P̂, Gsᵀ; Gs, −I] [dx; dz̃] = [b_x; r̃]; eliminating dx gives the SPD system
  // (I + Gs P̂⁻¹ Gsᵀ) dz̃ = Gs P̂⁻¹ b_x − r̃. Near the solution Gs has rows of size √(z/s) (1e±10
  // and beyond); in this form they scale whole rows and columns of an SPD matrix, to which the
  // Cholesky factorization is insensitive, and no W² (whose small eigenvalues a cone near its
  // boundary loses to round-off) and no P + GᵀW⁻²G (which rounds P away) is ever formed.
  Gs_.resize(m_, n_);
  for (int i = 0; i < l_; ++i) Gs_.row(i) = G_.row(i) / w_(i);
  for (size_t k = 0; k < cone_size_.size(); ++k) {
    const int o = cone_offset_[k], m = cone_size_[k];
    const double* v = v_.data() + o;
    for (int j = 0; j < n_; ++j) {
      double jvx = v[0] * G_(o, j);
      for (int i = 1; i < m; ++i) jvx -= v[i] * G_(o + i, j);
      Gs_(o, j) = (2 * v[0] * jvx - G_(o, j)) / beta_[k];
      for (int i = 1; i < m; ++i) Gs_(o + i, j) = (-2 * v[i] * jvx + G_(o + i, j)) / beta_[k];
    }
  }
  if (!dual_schur_) {
    // Normal equations K = P + GsᵀGs + δI (δ = 1e-13 of the largest diagonal entry).
    Sd_ = P_;
    Sd_.noalias() += Gs_.transpose() * Gs_;
    if (!Sd_.allFinite()) return false;
    Sd_.diagonal().array() += 1e-13 * std::max(1.0, Sd_.diagonal().maxCoeff());
  } else {
    X_ = Gs_.transpose();  // n x m, then L⁻¹Gsᵀ
    // Eigen's triangular solve binds a reference to the first coefficient even when there are
    // none (UBSan: null reference), so an empty right-hand side (m = 0) is skipped.
    if (X_.size() > 0) lp_.matrixL().solveInPlace(X_);
    Sd_.setIdentity(m_, m_);
    Sd_.noalias() += X_.transpose() * X_;
    if (!Sd_.allFinite()) return false;
  }
  lsd_.compute(Sd_);
  use_ldlt_ = lsd_.info() != Eigen::Success;
  if (use_ldlt_) {
    // The matrix is SPD in exact arithmetic, but with entries at 1e16 and beyond near the
    // solution its small eigenvalues are round-off: the pivoted LDLT still factors it, and the
    // refinement absorbs the error.
    ldsd_.compute(Sd_);
    if (ldsd_.info() == Eigen::Success) return true;
    // Static regularization as the last resort: a relative shift of the diagonal (1e-12, then
    // 1e-9 of its largest entry) makes the factorization succeed; the directions are then those
    // of a slightly proximal step, and the iterative refinement absorbs most of the error.
    const double dmax = std::max(1.0, Sd_.diagonal().cwiseAbs().maxCoeff());
    for (double shift : {1e-12, 1e-9}) {
      Sd_.diagonal().array() += shift * dmax;
      lsd_.compute(Sd_);
      if (lsd_.info() == Eigen::Success) {
        use_ldlt_ = false;
        return true;
      }
    }
    return false;
  }
  return true;
}

void SocpSolver::SolveReduced(const VecX& bx, const VecX& bz, const VecX& bs, VecX* dx, VecX* dz,
                              VecX* ds) {
  // t = λ \ b_s, r̃ = W⁻¹b_z − t. Dual Schur: y = L⁻¹b_x, dz̃ = (I + XᵀX)⁻¹(Xᵀy − r̃),
  // dx = L⁻ᵀ(y − X dz̃). Then dz = W⁻¹dz̃ (and W⁻¹ds = t − dz̃, the linearized complementarity).
  JordanDivide(lambda_, bs, &t1_);
  ApplyWinv(bz, &t2_);
  t2_ -= t1_;  // r̃
  auto solve_sd = [&](VecX* b) {
    if (b->size() == 0) return;
    if (use_ldlt_) {
      *b = ldsd_.solve(*b);
    } else {
      lsd_.solveInPlace(*b);
    }
  };
  if (dual_schur_) {
    y_ = bx;
    if (y_.size() > 0) lp_.matrixL().solveInPlace(y_);
    t3_.noalias() = X_.transpose() * y_;
    t3_ -= t2_;
    solve_sd(&t3_);  // dz̃
    y_.noalias() -= X_ * t3_;
    if (y_.size() > 0) lp_.matrixU().solveInPlace(y_);
    *dx = y_;
  } else {
    // (P + GsᵀGs) dx = b_x + Gsᵀr̃, dz̃ = Gs dx − r̃.
    *dx = bx;
    dx->noalias() += Gs_.transpose() * t2_;
    solve_sd(dx);
    t3_.noalias() = Gs_ * *dx;
    t3_ -= t2_;
  }
  ApplyWinv(t3_, dz);
  // ds from the second equation (exact up to round-off there), not from W(t − dz̃): near a cone's
  // boundary W has eigenvalues 1e±5 and beyond, and t − dz̃ cancels.
  *ds = bz;
  ds->noalias() -= G_ * *dx;
}

void SocpSolver::SolveNewton(const VecX& bx, const VecX& bz, const VecX& bs, VecX* dx, VecX* dz,
                             VecX* ds) {
  SolveReduced(bx, bz, bs, dx, dz, ds);
  // Iterative refinement on the unregularized, unreduced system while the residual of its two
  // linear equations keeps halving (the third, linearized complementarity, is evaluated with
  // the scaling's round-off and only corrected along).
  double prev = std::numeric_limits<double>::infinity();
  const double scale = bx.norm() + bz.norm();
  for (int pass = 0; pass < refinement_steps_; ++pass) {
    ex_ = bx;
    ex_.noalias() -= P_ * *dx;
    ex_.noalias() -= G_.transpose() * *dz;
    ez_ = bz - *ds;
    ez_.noalias() -= G_ * *dx;
    const double res = ex_.norm() + ez_.norm();
    if (!(res > 1e-15 * scale) || !(res < 0.5 * prev)) break;
    prev = res;
    ApplyW(*dz, &t3_);
    ApplyWinv(*ds, &t4_);
    t4_ += t3_;
    JordanProduct(lambda_, t4_, &es_);
    es_ = bs - es_;
    SolveReduced(ex_, ez_, es_, &cx_, &cz_, &cs_);
    *dx += cx_;
    *dz += cz_;
    *ds += cs_;
  }
}

void SocpSolver::Residuals() {
  // Relative to the largest term of each sum (as OSQP scales its residuals), so that the
  // measures reach round-off, not a floor of ε times the terms over a small ‖q‖ or ‖h‖.
  px_.noalias() = P_ * x_;
  gtz_.noalias() = G_.transpose() * z_;
  gx_.noalias() = G_ * x_;
  rx_ = px_ + q_ + gtz_;
  rz_ = gx_ + s_ - h_;
  pres_ = rz_.norm() / std::max({1.0, gx_.norm(), s_.norm(), h_.norm()});
  dres_ = rx_.norm() / std::max({1.0, px_.norm(), gtz_.norm(), q_.norm()});
  gap_ = s_.dot(z_);
  const double xPx = x_.dot(px_), qx = q_.dot(x_);
  pcost_ = 0.5 * xPx + qx + r_;
  // The gap relative to the objective's largest term (the constant r of the paper's program is
  // ½‖S_t ψ_t‖², which the other terms cancel at the optimum).
  gap_rel_ = gap_ / std::max({1.0, std::abs(pcost_), 0.5 * xPx, std::abs(qx), std::abs(r_)});
  mu_ = degree_ > 0 ? gap_ / degree_ : 0.0;
}

void SocpSolver::Unscale(SocpPoint* out) const {
  out->x = col_scale_.cwiseProduct(x_);
  out->s = s_.cwiseQuotient(row_scale_);
  out->z = z_.cwiseProduct(row_scale_);
}

SocpStatus SocpSolver::Solve(const SocpProblem& problem, const SocpSettings& st, SocpResult* result,
                             const SocpPoint* guess, bool guess_reduced_ok) {
  result->log.clear();
  result->iterations = 0;
  result->started_at_guess = false;
  result->message.clear();
  auto finish = [&](SocpStatus status, const std::string& message) {
    result->status = status;
    if (!message.empty()) result->message = message;
    Unscale(&result->point);
    result->pcost = pcost_;
    return status;
  };
  const std::string error = problem.Check();
  if (!error.empty()) {
    result->status = SocpStatus::kNumericalFailure;
    result->message = "malformed cone program: " + error;
    result->point = SocpPoint{};
    return result->status;
  }
  refinement_steps_ = std::max(0, st.refinement_steps);
  Setup(problem, st);

  auto log_row = [&](double step, double sigma) {
    SocpIterate it;
    it.gap = gap_rel_;
    it.primal_res = pres_;
    it.dual_res = dres_;
    it.step = step;
    it.sigma = sigma;
    it.mu = mu_;
    it.pcost = pcost_;
    result->log.push_back(it);
  };
  auto converged = [&]() {
    return pres_ <= st.feasibility_tolerance && dres_ <= st.feasibility_tolerance &&
           gap_rel_ <= st.gap_tolerance;
  };

  // The guess, if it has the sizes, is interior and passes the stopping test.
  if (guess && guess->x.size() == n_ && guess->s.size() == m_ && guess->z.size() == m_ &&
      guess->x.allFinite() && guess->s.allFinite() && guess->z.allFinite()) {
    x_ = guess->x.cwiseQuotient(col_scale_);
    s_ = guess->s.cwiseProduct(row_scale_);
    z_ = guess->z.cwiseQuotient(row_scale_);
    if (ComputeScaling()) {
      Residuals();
      const double red = st.reduced_tolerance;
      const bool reduced = pres_ <= red && dres_ <= red && gap_rel_ <= red;
      if (converged() || (guess_reduced_ok && reduced)) {
        log_row(kNaN, kNaN);
        result->started_at_guess = true;
        result->status = converged() ? SocpStatus::kOptimal : SocpStatus::kReducedAccuracy;
        if (!converged()) result->message = "the previous answer to the same program";
        result->point = *guess;  // as given, not through the equilibration's round trip
        result->pcost = pcost_;
        return result->status;
      }
    }
  }

  // Cold start: x = argmin ½xᵀPx + qᵀx + ½‖Gx − h‖², s = h − Gx, z = −s, each shifted into int K.
  if (!FactorP()) {
    return finish(SocpStatus::kNumericalFailure, "P + δI could not be factored (P not PSD?)");
  }
  // With W = I and λ = e: [P, Gᵀ; G, −I][x; z] = [−q; h], i.e. x minimizes
  // ½xᵀPx + qᵀx + ½‖Gx − h‖².
  w_.setOnes(l_);
  v_.setZero(m_);
  lambda_.setZero(m_);
  lambda_.head(l_).setOnes();
  for (size_t k = 0; k < cone_size_.size(); ++k) {
    beta_[k] = 1;
    lambda_det_[k] = 1;
    v_(cone_offset_[k]) = 1;
    lambda_(cone_offset_[k]) = 1;
  }
  if (Factor()) {
    tmp_m_.setZero(m_);
    bx_ = -q_;
    SolveNewton(bx_, h_, tmp_m_, &x_, &dz_, &ds_);
  } else {
    x_.setZero(n_);
  }
  s_ = h_;
  s_.noalias() -= G_ * x_;
  z_ = -s_;
  auto shift_into_cone = [&](VecX* u) {
    // t = max over blocks of −(smallest "eigenvalue"): orthant −u_i, cone ‖ū‖ − u_0.
    double t = -kInf;
    for (int i = 0; i < l_; ++i) t = std::max(t, -(*u)(i));
    for (size_t k = 0; k < cone_size_.size(); ++k) {
      const int o = cone_offset_[k];
      t = std::max(t, TailNorm(u->data() + o, cone_size_[k]) - (*u)(o));
    }
    if (t >= -1e-8) {
      const double a = 1 + std::max(t, 0.0);
      for (int i = 0; i < l_; ++i) (*u)(i) += a;
      for (size_t k = 0; k < cone_size_.size(); ++k) (*u)(cone_offset_[k]) += a;
    }
  };
  shift_into_cone(&s_);
  shift_into_cone(&z_);
  if (!(x_.allFinite() && s_.allFinite() && z_.allFinite()) || !ComputeScaling()) {
    x_.setZero(n_);
    s_.setZero(m_);
    z_.setZero(m_);
    shift_into_cone(&s_);
    shift_into_cone(&z_);
    ComputeScaling();
  }

  // The best iterate by the merit max(primal/ε_f, dual/ε_f, gap/ε_g): returned when round-off
  // stops the iterations (a factorization or step failure, a stall, the iteration cap), as
  // kReducedAccuracy when it meets reduced_tolerance on all three measures.
  const double ftol = st.feasibility_tolerance, gtol = st.gap_tolerance;
  auto merit = [&]() { return std::max({pres_ / ftol, dres_ / ftol, gap_rel_ / gtol}); };
  double best_merit = kInf, low_mu = kInf, low_pres = kInf, low_dres = kInf;
  int best_iteration = 0, since_progress = 0;
  auto give_up = [&](SocpStatus status, const std::string& why) {
    // Back to the best iterate; keep the log (it records what happened).
    x_ = xb_;
    s_ = sb_;
    z_ = zb_;
    Residuals();
    std::ostringstream os;
    os << why << "; best iterate (iteration " << best_iteration << "): gap " << gap_rel_
       << ", primal " << pres_ << ", dual " << dres_;
    const double red = st.reduced_tolerance;
    if (pres_ <= red && dres_ <= red && gap_rel_ <= red) status = SocpStatus::kReducedAccuracy;
    return finish(status, os.str());
  };

  int small_steps = 0;
  for (int it = 0;; ++it) {
    Residuals();
    if (it == 0) log_row(kNaN, kNaN);
    if (!(std::isfinite(pres_) && std::isfinite(dres_) && std::isfinite(gap_))) {
      if (it == 0)
        return finish(SocpStatus::kNumericalFailure, "non-finite residuals at the start");
      return give_up(SocpStatus::kNumericalFailure, "non-finite residuals");
    }
    if (converged()) return finish(SocpStatus::kOptimal, "");
    if (merit() < best_merit) {
      best_merit = merit();
      best_iteration = it;
      xb_ = x_;
      sb_ = s_;
      zb_ = z_;
    }
    // Progress: the barrier parameter or a residual fell by 10 % below its smallest value so far.
    if (mu_ < 0.9 * low_mu || pres_ < 0.9 * low_pres || dres_ < 0.9 * low_dres) {
      since_progress = 0;
    } else if (++since_progress >= 8) {
      return give_up(SocpStatus::kNumericalFailure,
                     "no progress in 8 iterations (round-off limits the accuracy)");
    }
    low_mu = std::min(low_mu, mu_);
    low_pres = std::min(low_pres, pres_);
    low_dres = std::min(low_dres, dres_);
    // Infeasibility certificates, only while the iterate is itself infeasible.
    const double eps = st.infeasibility_tolerance;
    const double hz = h_.dot(z_);
    if (pres_ > ftol && hz < 0) {
      tmp_n_.noalias() = G_.transpose() * z_;
      if (tmp_n_.norm() <= eps * (-hz)) {
        return finish(SocpStatus::kPrimalInfeasible,
                      "certificate of primal infeasibility: z ∈ K with ‖Gᵀz‖ ≤ ε (−hᵀz)");
      }
    }
    const double qx = q_.dot(x_);
    if (dres_ > ftol && qx < 0) {
      tmp_n_.noalias() = P_ * x_;
      tmp_m_ = s_;
      tmp_m_.noalias() += G_ * x_;
      if (tmp_n_.norm() <= eps * (-qx) && tmp_m_.norm() <= eps * (-qx)) {
        return finish(SocpStatus::kDualInfeasible,
                      "certificate of dual infeasibility: ‖Px‖, ‖Gx + s‖ ≤ ε (−qᵀx)");
      }
    }
    if (it >= st.max_iterations) {
      std::ostringstream os;
      os << "iteration cap " << st.max_iterations << " reached";
      return give_up(SocpStatus::kMaxIterations, os.str());
    }
    if (!Factor()) return give_up(SocpStatus::kNumericalFailure, "the KKT system is singular");
    // Predictor (affine scaling) direction.
    bx_ = -rx_;
    bz_ = -rz_;
    JordanProduct(lambda_, lambda_, &bs_);
    bs_ = -bs_;
    SolveNewton(bx_, bz_, bs_, &dxa_, &dza_, &dsa_);
    const double alpha_aff = std::min({1.0, MaxStep(s_, dsa_), MaxStep(z_, dza_)});
    const double sigma = std::pow(std::clamp(1.0 - alpha_aff, 0.0, 1.0), 3);
    // Corrector: −λ∘λ − (W⁻¹Δs_a)∘(WΔz_a) + σμe.
    ApplyWinv(dsa_, &t1_);
    ApplyW(dza_, &t2_);
    JordanProduct(t1_, t2_, &t3_);
    bs_ -= t3_;
    for (int i = 0; i < l_; ++i) bs_(i) += sigma * mu_;
    for (size_t k = 0; k < cone_size_.size(); ++k) bs_(cone_offset_[k]) += sigma * mu_;
    SolveNewton(bx_, bz_, bs_, &dx_, &dz_, &ds_);
    if (!(dx_.allFinite() && dz_.allFinite() && ds_.allFinite())) {
      return give_up(SocpStatus::kNumericalFailure, "non-finite Newton direction");
    }
    const double alpha_max = std::min(MaxStep(s_, ds_), MaxStep(z_, dz_));
    const double alpha = std::min(1.0, st.step_fraction * alpha_max);
    if (!(alpha > 1e-12)) {
      if (++small_steps >= 3) {
        std::ostringstream os;
        os << "the step to the boundary of the cones stalled (α = " << alpha << ")";
        return give_up(SocpStatus::kNumericalFailure, os.str());
      }
    } else {
      small_steps = 0;
    }
    // Commit the step; where round-off puts the new point on or outside the boundary of K (a
    // step to within 1e-14 of it), halve it.
    xs_ = x_;
    ss_ = s_;
    zs_ = z_;
    double a = alpha;
    bool inside = false;
    for (int tries = 0; tries < 30; ++tries) {
      x_ = xs_ + a * dx_;
      s_ = ss_ + a * ds_;
      z_ = zs_ + a * dz_;
      inside = ComputeScaling();
      if (inside) break;
      a *= 0.5;
    }
    if (!inside) {
      return give_up(SocpStatus::kNumericalFailure,
                     "the iterate left the interior of the cones (round-off at the boundary)");
    }
    result->iterations = it + 1;
    Residuals();
    log_row(a, sigma);
    // The residuals of this iterate are evaluated again at the top of the loop (cheap).
  }
}

}  // namespace contactlab
