#include "engine/contact/hunt_crossley.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

namespace contactlab {

double HuntCrossleyNearRigidStiffness(double dt, double w, double beta) {
  if (!(beta > 0)) return std::numeric_limits<double>::infinity();
  const double w_eff = w > 0 ? w : 1.0;
  return 4 * kPi * kPi / (beta * beta * w_eff * dt * dt);
}

HuntCrossleyConstants PrepareHuntCrossley(ContactModelType type, double mu, double dt, double k,
                                          double d, double phi0, double vn0, double v_s,
                                          double sigma, double w, double beta) {
  assert(type != ContactModelType::kLinear);
  HuntCrossleyConstants c;
  c.mu = mu;
  c.dt = dt;
  // Near-rigid regime: k̃ = min(k, k_nr) (hunt_crossley.h).
  c.k_nr = HuntCrossleyNearRigidStiffness(dt, w, beta);
  c.near_rigid = c.k_nr < k;
  c.k = c.near_rigid ? c.k_nr : k;
  c.d = d;
  const double x0 = -phi0;  // penetration at the step's start [m]
  c.f0 = c.k * x0;
  // v̂ = min(x0/δt, 1/d): x0/δt directly (not f0/(δt k)), so k = 0 needs no guard; 1/d only for
  // d > 0.
  c.v_hat = x0 / dt;
  if (d > 0) c.v_hat = std::min(c.v_hat, 1.0 / d);
  // γ_n0 = δt f_n(x0, ẋ0) with ẋ0 = −v_n0 (eqs. 13, 29).
  c.gamma_n0 = dt * std::max(c.f0, 0.0) * std::max(1.0 - d * vn0, 0.0);
  // v_s > 0 is a precondition; the floor keeps t̂_s = v_t/√(‖v_t‖² + ε²) finite regardless.
  c.eps_s = std::max(v_s, std::numeric_limits<double>::min());
  if (type == ContactModelType::kLaggedRegularized) {
    c.eps_s = std::max(c.eps_s, sigma * w * mu * c.gamma_n0);  // eq. 44
  }
  return c;
}

HuntCrossleyNormalTerms HuntCrossleyNormal(const HuntCrossleyConstants& c, double v) {
  HuntCrossleyNormalTerms t;
  const double s = c.v_hat - v;  // [m/s], > 0 inside contact
  if (!(s > 0)) return t;        // v >= v̂: n = 0, ℓ_n = 0 (eq. 16)
  const double ck = c.dt * c.k;  // δt k [N s/m]
  // The factors at v̂; one of them is 0 up to rounding (the one that set v̂), the other >= 0.
  const double a = std::max(c.f0 - ck * c.v_hat, 0.0);  // (f0 − δt k v̂)₊ [N]
  const double b = std::max(1.0 - c.d * c.v_hat, 0.0);  // (1 − d v̂)₊ [-]
  const double fe = a + ck * s;                         // f0 − δt k v [N]
  const double he = b + c.d * s;                        // 1 − d v [-]
  t.impulse = c.dt * fe * he;
  t.hessian = c.dt * (ck * he + c.d * fe);
  t.cost = c.dt * s * (a * b + s * (0.5 * (a * c.d + b * ck) + s * (ck * c.d / 3.0)));
  return t;
}

double HuntCrossleyNormalInverse(const HuntCrossleyConstants& c, double gamma) {
  const double ck = c.dt * c.k;
  const double a = std::max(c.f0 - ck * c.v_hat, 0.0);
  const double b = std::max(1.0 - c.d * c.v_hat, 0.0);
  const double q = gamma / c.dt - a * b;  // [N]
  if (!(q > 0)) return c.v_hat;
  const double A = ck * c.d;          // [N s²/m²]
  const double B = a * c.d + b * ck;  // [N s/m]
  const double den = B + std::sqrt(B * B + 4 * A * q);
  if (!(den > 0)) return -std::numeric_limits<double>::infinity();
  return c.v_hat - 2 * q / den;
}

double HuntCrossleyAntiderivative(const HuntCrossleyConstants& c, double v) {
  const double df = -c.dt * c.k * v;  // Δf [N]
  return c.dt * (v * (c.f0 + 0.5 * df) - c.d * 0.5 * v * v * (c.f0 + (2.0 / 3.0) * df));
}

SoftNorm ComputeSoftNorm(double vt1, double vt2, double eps) {
  SoftNorm s;
  const double r2 = vt1 * vt1 + vt2 * vt2;
  if ((r2 == 0 || (r2 >= std::numeric_limits<double>::min() && r2 <= 1e300)) && eps >= 1e-150 &&
      eps <= 1e150) {
    // Squares neither overflow nor lose precision as subnormals: plain square roots (std::hypot
    // costs several times more).
    s.magnitude = std::sqrt(r2);
    s.root = std::sqrt(r2 + eps * eps);
  } else {
    s.magnitude = std::hypot(vt1, vt2);
    s.root = std::hypot(s.magnitude, eps);
  }
  // √(r² + ε²) − ε = r² / (√(r² + ε²) + ε), written r (r / (root + ε)) to avoid overflow.
  s.norm = s.magnitude * (s.magnitude / (s.root + eps));
  s.t_hat << vt1 / s.root, vt2 / s.root;
  return s;
}

namespace {

// (I − t̂_s t̂_sᵀ) / root, scaled: the Hessian of the soft norm (eq. 47) times `scale`.
inline void AddSoftNormHessian(const SoftNorm& sn, double scale, Mat3* G) {
  const double f = scale / sn.root;
  const double t1 = sn.t_hat(0), t2 = sn.t_hat(1);
  (*G)(0, 0) += f * (1 - t1 * t1);
  (*G)(1, 1) += f * (1 - t2 * t2);
  const double off = -f * (t1 * t2);
  (*G)(0, 1) += off;
  (*G)(1, 0) += off;
}

}  // namespace

double HuntCrossleyCost(ContactModelType type, const HuntCrossleyConstants& c, const double* vc,
                        double* gamma, Mat3* G, Regime* regime) {
  assert(type != ContactModelType::kLinear);
  const SoftNorm sn = ComputeSoftNorm(vc[0], vc[1], c.eps_s);
  double cost = 0;
  double gn = 0;
  if (type == ContactModelType::kSimilar) {
    // z = v_n − μ‖v_t‖_s (eq. 34); ℓ = ℓ_n(z) (eq. 39).
    const double z = vc[2] - c.mu * sn.norm;
    const HuntCrossleyNormalTerms nt = HuntCrossleyNormal(c, z);
    cost = nt.cost;
    gn = nt.impulse;
    const double mn = c.mu * nt.impulse;  // μ n(z) [N s]
    gamma[0] = -mn * sn.t_hat(0);
    gamma[1] = -mn * sn.t_hat(1);
    gamma[2] = gn;
    if (G) {
      // −n'(z) u uᵀ, u = (−μ t̂_s, 1), plus μ n(z) times the soft norm's Hessian in the tt block.
      const Vec3 u(-c.mu * sn.t_hat(0), -c.mu * sn.t_hat(1), 1.0);
      G->noalias() = nt.hessian * (u * u.transpose());
      AddSoftNormHessian(sn, mn, G);
    }
  } else {
    // Lagged (eqs. 31, 33): separable, friction from the lagged impulse γ_n0.
    const HuntCrossleyNormalTerms nt = HuntCrossleyNormal(c, vc[2]);
    const double mg = c.mu * c.gamma_n0;  // μ γ_n0 [N s]
    cost = nt.cost + mg * sn.norm;
    gn = nt.impulse;
    gamma[0] = -mg * sn.t_hat(0);
    gamma[1] = -mg * sn.t_hat(1);
    gamma[2] = gn;
    if (G) {
      G->setZero();
      AddSoftNormHessian(sn, mg, G);
      (*G)(2, 2) = nt.hessian;
    }
  }
  if (regime) {
    // No contact only when the whole law is inactive (γ = 0 and G = 0): the lagged friction
    // μ γ_n0 ‖v_t‖_s acts even when n(v_n) = 0.
    const bool lagged_friction =
        type != ContactModelType::kSimilar && c.mu * c.gamma_n0 > 0;
    if (!(gn > 0) && !lagged_friction) {
      *regime = Regime::kNoContact;
    } else {
      *regime = sn.magnitude < c.eps_s ? Regime::kStiction : Regime::kSliding;
    }
  }
  return cost;
}

}  // namespace contactlab
