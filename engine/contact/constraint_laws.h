// The per-constraint laws a contact model is made of, as small types a solver is instantiated
// over (one dispatch per group of constraints, no virtual call per constraint).
//
// A law turns the velocity v_c,i of one constraint (3 rows t1, t2, n for a contact, 1 row for a
// joint limit) into a convex cost ℓ_i(v_c), its impulse γ_i = −∂ℓ_i/∂v_c and its Hessian
// G_i = ∂²ℓ_i/∂v_c² ⪰ 0 (seed 004, §II and §2.4 of the digest: MakeData / CalcData). Every law
// provides, as static members of its type:
//
//   kRows                      rows per constraint (3 or 1)
//   Constants                  what Prepare computes once per step (R, v̂; f₀, n₀, ε_s, ...)
//   Prepare(c, dt, vn0, p)     constants from δt, w_i, the constraint's physical data (k, τ_d,
//                              d, μ, φ0), the normal velocity v_n0 at the step's start
//                              (v_c0 = J_i v0 + b_i) and the model's parameters p
//   Cost(K, vc, γ, G, regime)  ℓ_i [J]; writes γ_i, G_i (when G != nullptr; a 1-row law uses
//                              G(0,0)) and the regime (never null). Contract: kNoContact only
//                              where γ_i = 0 and G_i = 0, so that a solver may leave it out of H.
//   Check(K)                   nullptr when the constants are usable (finite, R > 0), else what
//                              is wrong, for the solver's kNonFiniteInput message
//   Slack(K, vc, γ)            the constraint's term of e_μ: |g_iᵀγ_i| with g_i the law's own
//                              complementarity gap at (v_c, γ), as the solver evaluated the law:
//                              linear laws g_i = v_c − v̂ + Rγ (SAP paper eq. 33, the Moreau
//                              decomposition of the cone projection); Hunt–Crossley laws the
//                              normal row only, g_n = ζ − n⁻¹(γ_n) with ζ = v_n (lagged) or
//                              ζ = v_n − μ‖v_t‖_s (similar): 0 ≤ γ_n ⊥ g_n ≥ 0 holds exactly for
//                              γ_n = n(ζ), so the term is the round-off of the law's evaluation
//                              (their friction is a smooth function of v_c, with no
//                              complementarity)
//   Describe(K)                the constants with symbols and units, for the inspector
//   Physical(c, dt)            the unregularized physical normal law the law stands for
//                              (PhysicalNormalLaw), which the NCP residual measures
//   kHasFixedRegions           true for a law whose cost is quadratic (or zero) on convex
//                              regions of v_c, so that a line search can classify a constraint
//                              once over an interval of α instead of evaluating it at every α:
//     Region(K, vc)            LineRegion at v_c
//     AddQuadratic(K, vc, dvc, q)  adds ℓ_i(v_c + αΔv_c) = q0 + q1 α + ½ q2 α² of the quadratic
//                              region to q[0..2]
//     EvalFixed(K, region, vc, γ, G, regime)  γ_i, G_i and the regime in a fixed region
//   kStictionHessianDiagonal   G_i is diagonal whenever the regime is kStiction (a fast path of
//                              the Hessian assembly)
//
// (A law of kRows = 3 is a contact's (t1, t2, n) or a 3-row bilateral constraint's; the
// ConstraintKind tells them apart.)
//
// Laws here: LinearConeLaw (SAP's regularized friction cone, seed 000 eqs. 27-30), LinearLimitLaw
// (the unilateral spring-damper of joint limits), HolonomicLaw<1 or 3> (bilateral equality
// constraints), HuntCrossleyLaw<type> (seed 004's lagged,
// regularized lagged and similar laws, engine/contact/hunt_crossley.h).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>

#include "engine/common/math.h"
#include "engine/contact/contact_model.h"
#include "engine/contact/contact_problem.h"
#include "engine/contact/hunt_crossley.h"
#include "engine/contact/linear_cone.h"

namespace contactlab {

// Parameters of the laws of one step: the contact model and its v_s, and the linear law's σ and
// β (SapParameters::sigma, beta, limit_beta; σ also sets the regularized lagged ε_s, eq. 44).
struct LawParameters {
  ContactModelParameters contact;
  double sigma = 1e-3;       // σ [-]
  double beta = 1.0;         // β [-] of contacts
  double limit_beta = 0.1;   // β [-] of joint limits and equality (bilateral) constraints
};

// One named constant of a constraint's law, for the inspector and exports.
struct ModelConstant {
  const char* symbol = "";  // as in the papers: "R_n", "v̂_n", "f₀", ...
  const char* key = "";     // ASCII spelling for files and tables: "R_n", "v_hat_n", "f0", ...
  const char* unit = "";    // "1/kg", "m/s", "N", "N s", "" for flags
  double value = 0;
  bool is_flag = false;     // a yes/no value (1/0)
};
struct ModelConstants {
  int size = 0;
  std::array<ModelConstant, 6> items;
  void Add(const char* symbol, const char* key, const char* unit, double value,
           bool is_flag = false) {
    items[size++] = ModelConstant{symbol, key, unit, value, is_flag};
  }
  // Value of the constant with this key; false when the law has none.
  bool Find(const char* key, double* value) const;
};

// The physical normal law a contact model stands for, without the solver's regularization (no
// β clamp, no σ, no soft norm): γ_n = n(ζ), n >= 0 non-increasing, n(ζ) = 0 for ζ >= ζ̂, with
// the law's argument ζ = v_n (linear, lagged, joint limits) or ζ = v_n − μ‖v_t‖ (similar,
// seed 004 eq. 34 with ε_s → 0):
//   linear spring-damper (SAP paper eq. 3 over δt + τ_d): n(ζ) = D (ζ̂ − ζ)₊,
//     ζ̂ = −φ0/(δt + τ_d), D = δt k (δt + τ_d) [kg] (the inverse of the compliant R);
//   rigid (k = ∞ or k <= 0 for a linear law, or the rigid NCP of seed 001): D = ∞, ζ̂ = −φ0/δt,
//     n⁻¹ ≡ ζ̂ (the velocity-level Signorini condition);
//   Hunt–Crossley (seed 004 eqs. 6, 13): n(ζ) = δt (f₀ − δt k ζ)₊ (1 − d ζ)₊, ζ̂ = v̂.
// The NCP residual (engine/inspect/metrics.h) measures every model through one statement,
// 0 ≤ γ_n ⊥ ζ − n⁻¹(γ_n) ≥ 0, with n⁻¹: [0, ∞) → (−∞, ζ̂] (Inverse).
struct PhysicalNormalLaw {
  enum class Form : std::uint8_t { kLinear, kHuntCrossley };
  Form form = Form::kLinear;
  bool slip_coupled = false;  // ζ = v_n − μ‖v_t‖ (similar) instead of v_n
  double mu = 0;              // μ [-], for the slip coupling
  double zeta_hat = 0;        // ζ̂ [m/s]
  double D = std::numeric_limits<double>::infinity();  // [kg] (linear form; ∞: rigid)
  HuntCrossleyConstants hc;  // Hunt–Crossley form (f₀, v̂, k, d, δt)

  // ζ at the constraint velocity v_c (3 rows t1, t2, n, or 1 row n for a unilateral law).
  double Argument(const double* vc, int rows) const {
    const double vn = vc[rows - 1];
    return slip_coupled && rows == 3 ? vn - mu * std::hypot(vc[0], vc[1]) : vn;
  }
  // n(ζ) [N s]; a rigid law has no finite impulse below ζ̂ (+∞ there).
  double Impulse(double zeta) const {
    if (form == Form::kHuntCrossley) return HuntCrossleyNormal(hc, zeta).impulse;
    if (!(zeta < zeta_hat)) return 0;
    return D * (zeta_hat - zeta);
  }
  // n⁻¹(γ_n) [m/s] for γ_n >= 0 (γ_n < 0 is treated as 0).
  double Inverse(double gamma_n) const {
    const double g = std::max(gamma_n, 0.0);
    if (form == Form::kHuntCrossley) return HuntCrossleyNormalInverse(hc, g);
    return zeta_hat - g / D;
  }
  // The complementarity gap g_n = ζ − n⁻¹(γ_n) [m/s] (+∞ for an impulse the law cannot
  // produce); the linear form as (ζ − ζ̂) + γ_n/D.
  double Gap(double zeta, double gamma_n) const {
    if (form == Form::kHuntCrossley) return zeta - Inverse(gamma_n);
    return (zeta - zeta_hat) + gamma_n / D;
  }

  static PhysicalNormalLaw Linear(const ConstraintData& c, double dt) {
    PhysicalNormalLaw L;
    if (!std::isfinite(c.stiffness) || c.stiffness <= 0) return Rigid(c, dt);
    const double tau = dt + c.dissipation_time;
    L.zeta_hat = -c.phi0 / tau;
    L.D = dt * c.stiffness * tau;
    return L;
  }
  static PhysicalNormalLaw Rigid(const ConstraintData& c, double dt) {
    PhysicalNormalLaw L;
    L.zeta_hat = -c.phi0 / dt;
    return L;
  }
};

// Where a constraint is along a line search (LinearConeLaw / LinearLimitLaw only).
enum class LineRegion : std::uint8_t {
  kVaries = 0,          // not classified: evaluate at every α
  kFixedZero = 1,       // γ = 0, G = 0, ℓ = 0 (no contact)
  kFixedQuadratic = 2,  // ℓ quadratic in v_c (stiction: γ = y)
};

// The normal regularization of the linear laws (eq. 29): R = max(β²w/(4π²), 1/(δt k (δt + τ_d)))
// with w = 1 when w = 0 (see LinearConeLaw); sets *near_rigid when the β clamp sets it.
// k = +∞ gives the compliant value 0.
inline double LinearNormalRegularization(const ConstraintData& c, double dt, double beta,
                                         bool* near_rigid) {
  const double w = c.w > 0 ? c.w : 1.0;
  const double clamp = beta * beta / (4 * kPi * kPi) * w;
  const double compliant = 1.0 / (dt * c.stiffness * (dt + c.dissipation_time));
  *near_rigid = clamp > compliant;
  return std::max(clamp, compliant);
}

// SAP's law (seed 000): γ = P_F(y), y = −R⁻¹(v_c − v̂), ℓ = ½γᵀRγ, with (§V-B)
//   R_n = max(β²/(4π²) w, 1/(δt k (δt + τ_d))) (eq. 29),  R_t = σ w (eq. 30),
//   v̂ = (0, 0, −φ0/(δt + τ_d)),
// near-rigid when the β clamp sets R_n. w = 0 (J_i = 0: the constraint cannot change v) uses
// w = 1 [1/kg]: any R > 0 then gives the same v, and γ stays finite.
struct LinearConeLaw {
  static constexpr int kRows = 3;
  static constexpr bool kHasFixedRegions = true;
  static constexpr bool kStictionHessianDiagonal = true;
  struct Constants {
    double Rt = 0, Rn = 0;        // R_t, R_n [1/kg]
    double inv_t = 0, inv_n = 0;  // 1/R_t, 1/R_n [kg]
    double vn_hat = 0;            // v̂_n [m/s]
    double mu = 0;                // μ [-]
    bool near_rigid = false;      // R_n from the β clamp
    // Tresca friction (CANAL's Tresca cascade, engine/solvers/canal/canal_solver.h): when >= 0,
    // the radius r [N s] of a fixed friction disk that replaces the cone; < 0 (the default):
    // SAP's cone law above.
    double friction_bound = -1;
  };

  static Constants Prepare(const ConstraintData& c, double dt, double /*vn0*/,
                           const LawParameters& p) {
    const double tau = c.dissipation_time;
    const double w = c.w > 0 ? c.w : 1.0;
    Constants K;
    K.Rn = LinearNormalRegularization(c, dt, c.beta > 0 ? c.beta : p.beta, &K.near_rigid);
    K.Rt = p.sigma * w;
    K.inv_t = 1.0 / K.Rt;
    K.inv_n = 1.0 / K.Rn;
    K.vn_hat = -c.phi0 / (dt + tau);
    K.mu = c.friction;
    return K;
  }

  static double Cost(const Constants& K, const double* vc, double* gamma, Mat3* G,
                     Regime* regime) {
    if (K.friction_bound >= 0) return TrescaCost(K, vc, gamma, G, regime);
    const Eigen::Map<const Vec3> v(vc);
    const Vec3 vh(0, 0, K.vn_hat);
    Vec3 g;
    if (K.mu > 0) {
      // y = −R⁻¹(v_c − v̂), elementwise since R is diagonal, with R⁻¹ formed once per step.
      const Vec3 y = -(v - vh).cwiseProduct(Vec3(K.inv_t, K.inv_t, K.inv_n));
      *regime = ProjectConeWithInverses(y, K.mu, K.Rt, K.Rn, K.inv_t, K.inv_n, &g, G);
    } else {
      const Vec3 y = -(v - vh).cwiseQuotient(Vec3(K.Rt, K.Rt, K.Rn));
      *regime = SapProjectCone(y, K.mu, K.Rt, K.Rn, &g, G);
    }
    gamma[0] = g(0);
    gamma[1] = g(1);
    gamma[2] = g(2);
    return 0.5 * (K.Rt * g(0) * g(0) + K.Rt * g(1) * g(1) + K.Rn * g(2) * g(2));
  }

  // The Tresca form (friction_bound = r >= 0): the normal and tangential rows decouple,
  //   γ_n = max(0, y_n), γ_t = y_t clamped to the disk ‖γ_t‖ <= r, y = −R⁻¹(v_c − v̂),
  //   ℓ = ½R_n γ_n² + (½R_t‖y_t‖² when ‖y_t‖ <= r, else r‖v_t‖ − ½R_t r²),
  // a convex C¹ cost (a Huber function of v_t) with γ = −∂ℓ/∂v_c and G = diag(G_t, G_n),
  // G_n = R_n⁻¹ [y_n > 0], G_t = R_t⁻¹ I inside the disk, R_t⁻¹ (r/‖y_t‖)(I − ŷŷᵀ) outside.
  // Regime: kStiction when the tangential rows stick inside a disk r > 0 (G diagonal),
  // kNoContact when γ = 0 and G = 0 (y_n <= 0 and r = 0), kSliding otherwise (on the disk's
  // edge, or r = 0 with a loaded normal).
  static double TrescaCost(const Constants& K, const double* vc, double* gamma, Mat3* G,
                           Regime* regime) {
    const double yt0 = -vc[0] * K.inv_t, yt1 = -vc[1] * K.inv_t;
    const double yn = -(vc[2] - K.vn_hat) * K.inv_n;
    const double r = K.friction_bound;
    if (G) G->setZero();
    double cost = 0;
    const double gn = yn > 0 ? yn : 0.0;
    gamma[2] = gn;
    cost += 0.5 * K.Rn * gn * gn;
    if (G && yn > 0) (*G)(2, 2) = K.inv_n;
    const double ny = std::hypot(yt0, yt1);
    if (!(r > 0)) {
      gamma[0] = gamma[1] = 0;
      *regime = yn > 0 ? Regime::kSliding : Regime::kNoContact;
    } else if (ny <= r) {
      gamma[0] = yt0;
      gamma[1] = yt1;
      cost += 0.5 * K.Rt * ny * ny;
      if (G) (*G)(0, 0) = (*G)(1, 1) = K.inv_t;
      *regime = Regime::kStiction;
    } else {
      const double s = r / ny;
      gamma[0] = s * yt0;
      gamma[1] = s * yt1;
      cost += r * K.Rt * ny - 0.5 * K.Rt * r * r;  // r‖v_t‖ − ½R_t r², ‖v_t‖ = R_t‖y_t‖
      if (G) {
        const double u0 = yt0 / ny, u1 = yt1 / ny, g = K.inv_t * s;
        (*G)(0, 0) = g * (1 - u0 * u0);
        (*G)(1, 1) = g * (1 - u1 * u1);
        (*G)(0, 1) = (*G)(1, 0) = -g * u0 * u1;
      }
      *regime = Regime::kSliding;
    }
    return cost;
  }

  static LineRegion Region(const Constants& K, const Vec3& vc) {
    if (K.friction_bound >= 0) {
      // Convex regions of the Tresca form: {y_n > 0, ‖y_t‖ < r} (γ = y, r > 0) and {y_n <= 0}
      // when r = 0 (γ = 0).
      const double yn = -(vc(2) - K.vn_hat) * K.inv_n;
      const double r = K.friction_bound;
      if (!(r > 0)) return yn > 0 ? LineRegion::kVaries : LineRegion::kFixedZero;
      if (yn > 0 && std::hypot(vc(0), vc(1)) * K.inv_t < r) return LineRegion::kFixedQuadratic;
      return LineRegion::kVaries;
    }
    if (!(K.mu > 0)) return LineRegion::kVaries;
    const Vec3 y = -(vc - Vec3(0, 0, K.vn_hat)).cwiseProduct(Vec3(K.inv_t, K.inv_t, K.inv_n));
    switch (SapConeRegion(y.head<2>().norm(), y(2), K.mu, K.Rt, K.Rn)) {
      case Regime::kStiction: return LineRegion::kFixedQuadratic;
      case Regime::kNoContact: return LineRegion::kFixedZero;
      default: return LineRegion::kVaries;
    }
  }

  // In stiction γ = y and ℓ = ½ Σ_rows R y², y(α) = y0 + α dy.
  static void AddQuadratic(const Constants& K, const double* vc, const double* dvc, double* q) {
    const double R[3] = {K.Rt, K.Rt, K.Rn}, vh[3] = {0, 0, K.vn_hat};
    for (int k = 0; k < 3; ++k) {
      const double y0 = -(vc[k] - vh[k]) / R[k], dy = -dvc[k] / R[k];
      q[0] += 0.5 * R[k] * y0 * y0;
      q[1] += R[k] * y0 * dy;
      q[2] += R[k] * dy * dy;
    }
  }

  static void EvalFixed(const Constants& K, LineRegion region, const double* vc, double* gamma,
                        Mat3* G, Regime* regime) {
    G->setZero();
    if (region == LineRegion::kFixedZero) {
      gamma[0] = gamma[1] = gamma[2] = 0;
      *regime = Regime::kNoContact;
      return;
    }
    const double inv[3] = {K.inv_t, K.inv_t, K.inv_n}, vh[3] = {0, 0, K.vn_hat};
    for (int k = 0; k < 3; ++k) {
      gamma[k] = -(vc[k] - vh[k]) * inv[k];
      (*G)(k, k) = inv[k];
    }
    *regime = Regime::kStiction;
  }

  static const char* Check(const Constants& K) {
    if (!(std::isfinite(K.Rt) && std::isfinite(K.Rn) && K.Rt > 0 && K.Rn > 0)) {
      return "regularization R is not finite and positive (check w, k, tau_d)";
    }
    if (!std::isfinite(K.vn_hat)) return "non-finite stabilization velocity (check phi0)";
    return nullptr;
  }

  static double Slack(const Constants& K, const double* vc, const double* gamma) {
    const double g0 = vc[0] + K.Rt * gamma[0];
    const double g1 = vc[1] + K.Rt * gamma[1];
    const double g2 = (vc[2] - K.vn_hat) + K.Rn * gamma[2];
    if (K.friction_bound >= 0) {
      // Tresca: the normal complementarity and the disk's (g_tᵀγ_t + r‖g_t‖ = 0 at the law).
      return std::abs(g2 * gamma[2]) +
             std::abs(g0 * gamma[0] + g1 * gamma[1] + K.friction_bound * std::hypot(g0, g1));
    }
    return std::abs(g0 * gamma[0] + g1 * gamma[1] + g2 * gamma[2]);
  }

  static ModelConstants Describe(const Constants& K) {
    ModelConstants d;
    d.Add("R_n", "R_n", "1/kg", K.Rn);
    d.Add("R_t", "R_t", "1/kg", K.Rt);
    d.Add("v̂_n", "v_hat_n", "m/s", K.vn_hat);
    d.Add("near-rigid", "near_rigid", "", K.near_rigid ? 1 : 0, true);
    return d;
  }
  static PhysicalNormalLaw Physical(const ConstraintData& c, double dt) {
    return PhysicalNormalLaw::Linear(c, dt);
  }
  // The rows of R and v̂ (3 each), as SAP's paper writes them.
  static void Rows(const Constants& K, double* R, double* v_hat) {
    R[0] = R[1] = K.Rt;
    R[2] = K.Rn;
    v_hat[0] = v_hat[1] = 0;
    v_hat[2] = K.vn_hat;
  }
};

// Joint limits: SAP's law on a unilateral row, K = ℝ⁺: γ = max(0, y), y = −(v_c − v̂)/R,
// ℓ = ½Rγ², R = max(β²/(4π²) w, 1/(δt k (δt + τ_d))) with β = limit_beta, v̂ = −φ0/(δt + τ_d).
struct LinearLimitLaw {
  static constexpr int kRows = 1;
  static constexpr bool kHasFixedRegions = true;
  static constexpr bool kStictionHessianDiagonal = true;
  struct Constants {
    double R = 0;         // [1/kg] (or [1/(kg m²)])
    double inv = 0;       // 1/R
    double v_hat = 0;     // v̂ [m/s] (or [rad/s])
    bool near_rigid = false;
  };

  static Constants Prepare(const ConstraintData& c, double dt, double /*vn0*/,
                           const LawParameters& p) {
    const double tau = c.dissipation_time;
    Constants K;
    K.R = LinearNormalRegularization(c, dt, c.beta > 0 ? c.beta : p.limit_beta, &K.near_rigid);
    K.inv = 1.0 / K.R;
    K.v_hat = -c.phi0 / (dt + tau);
    return K;
  }

  static double Cost(const Constants& K, const double* vc, double* gamma, Mat3* G,
                     Regime* regime) {
    const double y = -(vc[0] - K.v_hat) / K.R;
    double dg;
    *regime = SapProjectUnilateral(y, K.R, gamma, &dg);
    if (G) {
      G->setZero();
      (*G)(0, 0) = dg;
    }
    return 0.5 * K.R * gamma[0] * gamma[0];
  }

  static LineRegion Region(const Constants& K, const Vec3& vc) {
    const double y = -(vc(0) - K.v_hat) / K.R;
    return y > 0 ? LineRegion::kFixedQuadratic : LineRegion::kFixedZero;
  }

  static void AddQuadratic(const Constants& K, const double* vc, const double* dvc, double* q) {
    const double y0 = -(vc[0] - K.v_hat) / K.R, dy = -dvc[0] / K.R;
    q[0] += 0.5 * K.R * y0 * y0;
    q[1] += K.R * y0 * dy;
    q[2] += K.R * dy * dy;
  }

  static void EvalFixed(const Constants& K, LineRegion region, const double* vc, double* gamma,
                        Mat3* G, Regime* regime) {
    G->setZero();
    if (region == LineRegion::kFixedZero) {
      gamma[0] = 0;
      *regime = Regime::kNoContact;
      return;
    }
    gamma[0] = -(vc[0] - K.v_hat) * K.inv;
    (*G)(0, 0) = K.inv;
    *regime = Regime::kStiction;
  }

  static const char* Check(const Constants& K) {
    if (!(std::isfinite(K.R) && K.R > 0)) {
      return "regularization R is not finite and positive (check w, k, tau_d)";
    }
    if (!std::isfinite(K.v_hat)) return "non-finite stabilization velocity (check phi0)";
    return nullptr;
  }

  static double Slack(const Constants& K, const double* vc, const double* gamma) {
    const double g = (vc[0] - K.v_hat) + K.R * gamma[0];
    return std::abs(g * gamma[0]);
  }

  static ModelConstants Describe(const Constants& K) {
    ModelConstants d;
    d.Add("R", "R", "1/kg", K.R);
    d.Add("v̂", "v_hat", "m/s", K.v_hat);
    d.Add("near-rigid", "near_rigid", "", K.near_rigid ? 1 : 0, true);
    return d;
  }
  static PhysicalNormalLaw Physical(const ConstraintData& c, double dt) {
    return PhysicalNormalLaw::Linear(c, dt);
  }
  static void Rows(const Constants& K, double* R, double* v_hat) {
    R[0] = K.R;
    v_hat[0] = K.v_hat;
  }
};

// Holonomic (bilateral) constraints g(q) = 0 with kRows = 1 or 3 rows, as Drake's
// SapHolonomicConstraint without impulse limits: K = ℝ^rows (no projection), per row
//   ℓ(v_c) = ½ (v_c − v̂)ᵀ R⁻¹ (v_c − v̂),  γ = −R⁻¹(v_c − v̂),  G = R⁻¹,
//   v̂ = −g0/(δt + τ_d),  R = max(β²/(4π²) w, 1/(δt k (δt + τ_d))) (SAP paper eq. 29; one R for
// the constraint's rows, from its Delassus estimate w), with β = limit_beta (0.1, Drake's
// default for holonomic constraints) unless the constraint sets its own. k = ∞ (the default of
// Model::Equality) is near-rigid: the β clamp sets R, the constraint acts as a critically damped
// spring of period β δt, and the drift after a step is g1 ≈ −δt R γ (+ the O(δt² v²) curvature
// of g that the linearization J misses). The cost is one quadratic everywhere, so the line
// search classifies it once (kFixedQuadratic). Its regime is always kStiction (active, G_i = R⁻¹
// diagonal); inspectors name it "bilateral" by its ConstraintKind (ConstraintRegimeName).
struct HolonomicConstants {
  double R = 0;         // [1/kg] (or [1/(kg m²)])
  double inv = 0;       // 1/R
  double v_hat[3] = {0, 0, 0};  // v̂ per row [m/s] (or [rad/s])
  bool near_rigid = false;
};

template <int kNumRows>
struct HolonomicLaw {
  static_assert(kNumRows == 1 || kNumRows == 3, "holonomic constraints have 1 or 3 rows");
  static constexpr int kRows = kNumRows;
  static constexpr bool kHasFixedRegions = true;
  static constexpr bool kStictionHessianDiagonal = true;
  using Constants = HolonomicConstants;

  static Constants Prepare(const ConstraintData& c, double dt, double /*vn0*/,
                           const LawParameters& p) {
    Constants K;
    K.R = LinearNormalRegularization(c, dt, c.beta > 0 ? c.beta : p.limit_beta, &K.near_rigid);
    K.inv = 1.0 / K.R;
    for (int k = 0; k < kRows; ++k) K.v_hat[k] = -c.g0(k) / (dt + c.dissipation_time);
    return K;
  }

  static double Cost(const Constants& K, const double* vc, double* gamma, Mat3* G,
                     Regime* regime) {
    double cost = 0;
    for (int k = 0; k < kRows; ++k) {
      gamma[k] = -(vc[k] - K.v_hat[k]) * K.inv;
      cost += 0.5 * K.R * gamma[k] * gamma[k];
    }
    if (G) {
      G->setZero();
      for (int k = 0; k < kRows; ++k) (*G)(k, k) = K.inv;
    }
    *regime = Regime::kStiction;
    return cost;
  }

  static LineRegion Region(const Constants&, const Vec3&) { return LineRegion::kFixedQuadratic; }

  static void AddQuadratic(const Constants& K, const double* vc, const double* dvc, double* q) {
    for (int k = 0; k < kRows; ++k) {
      const double y0 = -(vc[k] - K.v_hat[k]) * K.inv, dy = -dvc[k] * K.inv;
      q[0] += 0.5 * K.R * y0 * y0;
      q[1] += K.R * y0 * dy;
      q[2] += K.R * dy * dy;
    }
  }

  static void EvalFixed(const Constants& K, LineRegion, const double* vc, double* gamma, Mat3* G,
                        Regime* regime) {
    Cost(K, vc, gamma, G, regime);
  }

  static const char* Check(const Constants& K) {
    if (!(std::isfinite(K.R) && K.R > 0)) {
      return "regularization R is not finite and positive (check w, k, tau_d)";
    }
    for (int k = 0; k < kRows; ++k) {
      if (!std::isfinite(K.v_hat[k])) return "non-finite stabilization velocity (check g0)";
    }
    return nullptr;
  }

  // g = v_c − v̂ + Rγ (0 at the law's γ), the term |gᵀγ|.
  static double Slack(const Constants& K, const double* vc, const double* gamma) {
    double s = 0;
    for (int k = 0; k < kRows; ++k) s += ((vc[k] - K.v_hat[k]) + K.R * gamma[k]) * gamma[k];
    return std::abs(s);
  }

  static ModelConstants Describe(const Constants& K) {
    ModelConstants d;
    d.Add("R", "R", "1/kg", K.R);
    if (kRows == 1) {
      d.Add("v̂", "v_hat", "m/s", K.v_hat[0]);
    } else {
      d.Add("v̂₁", "v_hat_1", "m/s", K.v_hat[0]);
      d.Add("v̂₂", "v_hat_2", "m/s", K.v_hat[1]);
      d.Add("v̂₃", "v_hat_3", "m/s", K.v_hat[2]);
    }
    d.Add("near-rigid", "near_rigid", "", K.near_rigid ? 1 : 0, true);
    return d;
  }
  // No unilateral normal law: the linear form of the first row (the NCP residual leaves
  // bilateral constraints out).
  static PhysicalNormalLaw Physical(const ConstraintData& c, double dt) {
    return PhysicalNormalLaw::Linear(c, dt);
  }
  static void Rows(const Constants& K, double* R, double* v_hat) {
    for (int k = 0; k < kRows; ++k) {
      R[k] = K.R;
      v_hat[k] = K.v_hat[k];
    }
  }
};

// Seed 004's Hunt–Crossley laws (engine/contact/hunt_crossley.h) for kType = kLagged,
// kLaggedRegularized or kSimilar. Constants per step: k̃ = min(k, 4π²/(β_HC² w δt²)) (near-rigid
// regime, β_HC = contact.near_rigid_beta; k̃ = k for β_HC = 0), f₀ = k̃ x0 with
// x0 = −φ0, v̂ = min(x0/δt, 1/d), γ_n0 = δt (f₀)₊ (1 − d v_n0)₊ and ε_s (v_s, or max(v_s, σ w μ γ_n0) when regularized).
//
// γ_n0 comes from the state at the step's start (x0 = −φ0 of this step's geometry and v_n0 of
// v_c0 = J_i v0 + b_i), as Drake computes it, so no contact is matched between steps. For a new
// contact this means: one found already overlapping (φ0 < 0) starts with the lagged friction of
// its current overlap at its current approach speed; one found ahead of touching (φ0 >= 0, the
// speculative margin) has γ_n0 = 0, so the lagged models put no friction on it during the step
// in which it closes (its normal impulse is implicit and acts at once) and friction starts the
// step after. The similar model's friction is implicit and has no such delay.
//
// The lagged friction μ γ_n0 ‖v_t‖_s acts even on a contact that separates during the step
// (γ_n = 0): its regime is then kStiction or kSliding by ‖v_t‖ against ε_s, kNoContact only
// when μ γ_n0 = 0 as well (the solver's contract: kNoContact means γ_i = 0 and G_i = 0).
template <ContactModelType kType>
struct HuntCrossleyLaw {
  static_assert(kType != ContactModelType::kLinear, "the linear model is LinearConeLaw");
  static constexpr int kRows = 3;
  static constexpr bool kHasFixedRegions = false;
  static constexpr bool kStictionHessianDiagonal = false;
  using Constants = HuntCrossleyConstants;

  static Constants Prepare(const ConstraintData& c, double dt, double vn0,
                           const LawParameters& p) {
    const double beta = p.contact.near_rigid_beta;
    return PrepareHuntCrossley(kType, c.friction, dt, c.stiffness, c.hunt_crossley_dissipation,
                               c.phi0, vn0, p.contact.stiction_tolerance, p.sigma, c.w, beta);
  }

  static double Cost(const Constants& K, const double* vc, double* gamma, Mat3* G,
                     Regime* regime) {
    const double cost = HuntCrossleyCost(kType, K, vc, gamma, G, regime);
    if (kType != ContactModelType::kSimilar && *regime == Regime::kNoContact &&
        K.mu * K.gamma_n0 > 0) {
      *regime = std::hypot(vc[0], vc[1]) < K.eps_s ? Regime::kStiction : Regime::kSliding;
    }
    return cost;
  }

  // Not used (kHasFixedRegions is false); present so that generic code compiles.
  static LineRegion Region(const Constants&, const Vec3&) { return LineRegion::kVaries; }
  static void AddQuadratic(const Constants&, const double*, const double*, double*) {}
  static void EvalFixed(const Constants&, LineRegion, const double*, double*, Mat3*, Regime*) {}

  static const char* Check(const Constants& K) {
    if (!(std::isfinite(K.f0) && std::isfinite(K.v_hat) && std::isfinite(K.gamma_n0) &&
          std::isfinite(K.eps_s) && std::isfinite(K.k) && std::isfinite(K.d) &&
          std::isfinite(K.mu) && K.eps_s > 0)) {
      return "Hunt-Crossley constants are not finite (check k, d, mu, phi0, v0)";
    }
    return nullptr;
  }

  // The normal law's complementarity at (v_c, γ) as solved (soft norm ε_s for similar's ζ):
  // |γ_n (ζ − n⁻¹(γ_n))|, round-off where γ_n = n(ζ).
  static double Slack(const Constants& K, const double* vc, const double* gamma) {
    if (!(gamma[2] > 0)) return 0;
    double zeta = vc[2];
    if (kType == ContactModelType::kSimilar) {
      zeta -= K.mu * ComputeSoftNorm(vc[0], vc[1], K.eps_s).norm;
    }
    const double g = zeta - HuntCrossleyNormalInverse(K, gamma[2]);
    return std::isfinite(g) ? std::abs(g * gamma[2]) : 0.0;
  }

  static PhysicalNormalLaw Physical(const ConstraintData& c, double dt) {
    if (!std::isfinite(c.stiffness)) return PhysicalNormalLaw::Rigid(c, dt);
    PhysicalNormalLaw L;
    L.form = PhysicalNormalLaw::Form::kHuntCrossley;
    L.slip_coupled = kType == ContactModelType::kSimilar;
    L.mu = c.friction;
    // v_n0, v_s, σ and w only set the friction constants (γ_n0, ε_s), not the normal law.
    L.hc = PrepareHuntCrossley(kType, c.friction, dt, c.stiffness, c.hunt_crossley_dissipation,
                               c.phi0, 0.0, 1.0, 0.0, 0.0);
    L.zeta_hat = L.hc.v_hat;
    return L;
  }

  static ModelConstants Describe(const Constants& K) {
    ModelConstants d;
    d.Add("f₀", "f0", "N", K.f0);
    d.Add("n₀", "n0", "N s", K.gamma_n0);
    d.Add("ε_s", "eps_s", "m/s", K.eps_s);
    d.Add("v̂", "v_hat", "m/s", K.v_hat);
    d.Add("k̃", "k_eff", "N/m", K.k);
    d.Add("near-rigid", "near_rigid", "", K.near_rigid ? 1 : 0, true);
    return d;
  }
  static void Rows(const Constants&, double*, double*) {}
};

using LaggedLaw = HuntCrossleyLaw<ContactModelType::kLagged>;
using LaggedRegularizedLaw = HuntCrossleyLaw<ContactModelType::kLaggedRegularized>;
using SimilarLaw = HuntCrossleyLaw<ContactModelType::kSimilar>;

// The regime's name as inspectors show it: "bilateral" for a bilateral constraint (always active;
// its law reports kStiction), RegimeName otherwise.
inline const char* ConstraintRegimeName(ConstraintKind kind, Regime r) {
  return kind == ConstraintKind::kBilateral ? "bilateral" : RegimeName(r);
}

// The physical normal law of constraint c under `model` (joint limits: the linear law whatever
// the model), as the NCP residual measures it.
inline PhysicalNormalLaw PhysicalLawOf(ContactModelType model, const ConstraintData& c, double dt) {
  if (c.kind == ConstraintKind::kBilateral) return HolonomicLaw<1>::Physical(c, dt);
  if (c.kind != ConstraintKind::kFrictionCone) return LinearLimitLaw::Physical(c, dt);
  switch (model) {
    case ContactModelType::kLinear:
      return LinearConeLaw::Physical(c, dt);
    case ContactModelType::kLagged:
      return LaggedLaw::Physical(c, dt);
    case ContactModelType::kLaggedRegularized:
      return LaggedRegularizedLaw::Physical(c, dt);
    case ContactModelType::kSimilar:
      return SimilarLaw::Physical(c, dt);
  }
  return LinearConeLaw::Physical(c, dt);
}

}  // namespace contactlab
