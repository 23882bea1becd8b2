// `contactlab reproduce`, seed 004: "A Theory of Irrotational Contact Fields" (Castro, Han,
// Masterjohn), §IX-A conveyor belt, §IX-B falling sphere, §IX-C sliding rod, §X-A clutter
// stiffness.
#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "app/reproduce/experiment.h"
#include "app/reproduce/papers.h"
#include "engine/contact/contact_model.h"
#include "engine/inspect/metrics.h"

namespace contactlab {
namespace reproduce {

// ---------------------------------------------------------------------------------------------
// The four contact models of the paper (engine/contact/contact_model.h), run side by side.

namespace {

struct ModelDef {
  ContactModelType type;
  const char* label;  // the name in rows, tables and plots
};
constexpr ModelDef kModels[] = {{ContactModelType::kLinear, "SAP (linear)"},
                                {ContactModelType::kLagged, "Lagged"},
                                {ContactModelType::kLaggedRegularized, "Regularized Lagged"},
                                {ContactModelType::kSimilar, "Similar"}};
constexpr int kLinearIdx = 0, kLaggedIdx = 1, kRegularizedIdx = 2, kSimilarIdx = 3;

// Loads a paper scene under contact model `m`. d >= 0 [s/m]: the Hunt–Crossley dissipation of
// every material (the paper gives d per experiment; the linear model ignores it and uses τ_d).
Scene LoadModel(const ReproduceOptions& opt, const std::string& file, ContactModelType m, double d,
                const std::vector<std::string>& overrides = {}) {
  Scene s = Load(opt, file, overrides);
  s.settings.contact.model = m;
  if (d >= 0)
    for (Material& mat : s.model.materials) mat.hunt_crossley_dissipation = d;
  return s;
}

// The friction cones of one step: loaded contacts (γ_n > 0), their total normal impulse, the
// γ_n-weighted normal velocity, regimes and the largest slip of a loaded contact.
struct ConeSums {
  int loaded = 0, stick = 0, slide = 0;
  double gn = 0, gn_vn = 0, max_slip = 0;
  double phi0 = std::numeric_limits<double>::infinity();  // smallest φ0 of a loaded contact [m]
  double vn() const { return gn > 0 ? gn_vn / gn : kNaN; }
};

ConeSums SumCones(const StepRecord& rec) {
  ConeSums s;
  for (size_t i = 0; i < rec.problem.constraints.size(); ++i) {
    const ConstraintData& c = rec.problem.constraints[i];
    if (c.kind != ConstraintKind::kFrictionCone) continue;
    const double gn = rec.result.gamma(c.first_row + 2);
    if (gn <= 0) continue;
    ++s.loaded;
    s.gn += gn;
    s.gn_vn += gn * rec.result.vc(c.first_row + 2);
    s.max_slip = std::max(s.max_slip, rec.result.vc.segment<2>(c.first_row).norm());
    s.phi0 = std::min(s.phi0, c.phi0);
    if (rec.result.regime[i] == Regime::kStiction) ++s.stick;
    if (rec.result.regime[i] == Regime::kSliding) ++s.slide;
  }
  return s;
}

double Rms(const std::vector<double>& v) {
  if (v.empty()) return kNaN;
  double s = 0;
  for (double x : v) s += x * x;
  return std::sqrt(s / v.size());
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Irrotational contact fields §IX-A: oscillating conveyor belt.

namespace {

// Box on a belt with exact Coulomb friction (1D): box velocity u, belt velocity V(t). Integrated
// with a fine step; sticks when the relative velocity reaches 0 and the belt's acceleration is
// within μg. Returns box x at the requested times.
std::vector<double> BeltReference(const std::vector<double>& times, double amp, double freq,
                                  double mu, double g) {
  const double w = 2 * kPi * freq;
  auto V = [&](double t) { return amp * w * std::cos(w * t); };
  auto Acc = [&](double t) { return -amp * w * w * std::sin(w * t); };
  const double h = 1e-6;
  double t = 0, x = 0, u = 0;
  bool stuck = false;
  std::vector<double> out;
  size_t k = 0;
  while (k < times.size()) {
    while (k < times.size() && times[k] <= t + 0.5 * h) {
      out.push_back(x);
      ++k;
    }
    if (stuck) {
      if (std::abs(Acc(t)) > mu * g) {
        stuck = false;
      } else {
        const double u1 = V(t + h);
        x += 0.5 * (u + u1) * h;
        u = u1;
        t += h;
        continue;
      }
    }
    const double rel = V(t) - u;
    const double a = mu * g * (rel > 0 ? 1 : -1);
    double u1 = u + a * h;
    const double rel1 = V(t + h) - u1;
    if ((rel > 0) != (rel1 > 0) && std::abs(Acc(t + h)) <= mu * g) {
      u1 = V(t + h);
      stuck = true;
    }
    x += 0.5 * (u + u1) * h;
    u = u1;
    t += h;
  }
  return out;
}

}  // namespace

void ConveyorBelt(Experiment& ex, const ReproduceOptions& opt) {
  const std::string& src = ex.source();
  const double T = opt.quick ? 3.0 : 5.0;
  ex.Text(
      "1 kg box on a belt oscillating at 1 Hz, amplitude 0.2 m, μ = 0.7, k = 1e7 N/m "
      "(scenes/paper/conveyor_belt.yaml), " +
      Fmt(T) +
      " s. The first rows and tables are SAP's (the linear model); the per-model rows follow. "
      "Reference: the 1D box with exact Coulomb friction integrated at 1e-6 s.");
  // Main run at δt = 0.01.
  const Scene sc = Load(opt, "conveyor_belt.yaml");
  const int box = sc.model.FindBody("box");
  PlotSeries bx{"box x"}, belt_x{"belt x"}, ref_x{"exact Coulomb"};
  int stick_steps = 0, slide_steps = 0, contact_steps = 0;
  std::vector<double> glide_pred, glide_meas;
  const double dt = sc.settings.time_step;
  const double tau = sc.model.materials[sc.model.FindMaterial("belt")].dissipation_time;
  const double mu = 0.7;
  const double z_rest = 0.025;
  Run(sc, Steps(sc, T), [&](const Simulator& sim, const StepRecord& rec) {
    const Vec3 p = BodyPosition(sim, rec.after, box);
    bx.x.push_back(rec.after.time);
    bx.y.push_back(p.x());
    belt_x.x.push_back(rec.after.time);
    belt_x.y.push_back(0.2 * std::sin(2 * kPi * rec.after.time));
    int st = 0, sl = 0;
    double slip = 0, rest_offset = 0;
    for (size_t i = 0; i < rec.problem.constraints.size(); ++i) {
      const ConstraintData& c = rec.problem.constraints[i];
      if (c.kind != ConstraintKind::kFrictionCone) continue;
      if (rec.result.regime[i] == Regime::kStiction) ++st;
      if (rec.result.regime[i] == Regime::kSliding) {
        ++sl;
        rest_offset += (dt + tau) * rec.result.laws.Constant(static_cast<int>(i), "R_n") *
                       rec.result.gamma(c.first_row + 2);
        slip = std::max(slip, rec.result.vc.segment<2>(c.first_row).norm());
      }
    }
    if (st + sl > 0) ++contact_steps;
    if (sl > 0)
      ++slide_steps;
    else if (st > 0)
      ++stick_steps;
    // Gliding: while sliding SAP holds each contact at φ = (δt+τ_d)(μ‖v_t‖ − v_n) −
    // (δt+τ_d) R_n (1+μ̃²) γ_n (the projection's sliding branch); the last term is the
    // penetration the same load would have at rest, whichever branch of eq. 29 sets R_n.
    // Measure the box's height above that rest depth against (δt+τ_d) μ ‖v_t‖.
    if (sl > 0 && st == 0 && slip > 0.2) {
      glide_pred.push_back((dt + tau) * mu * slip);
      glide_meas.push_back(p.z() - z_rest + rest_offset / sl);
    }
  });
  const double stick_frac = contact_steps ? static_cast<double>(stick_steps) / contact_steps : kNaN;
  ex.Row("fraction of steps in stiction (δt = 0.01)", "stick-slip: both phases occur", kNaN,
         stick_frac, "between 0.05 and 0.95 (both regimes present)",
         stick_frac > 0.05 && stick_frac < 0.95, src);
  const double glide_slope = LinearSlope(glide_pred, glide_meas);
  ex.Row("gliding height / ((δt+τ_d) μ ‖v_t‖) while sliding", "1 (SAP model, paper §V analysis)", 1,
         glide_slope, "±0.15 (linear fit over sliding steps with ‖v_t‖ > 0.2 m/s)",
         std::abs(glide_slope - 1) <= 0.15, "seed_000_sap.md §1.5; seed_004 §5.5")
      .note =
      "ContactLab reproduces SAP's gliding artifact, which the paper's Lagged model removes. "
      "With eq. 29's Delassus estimate w = ‖W_ii‖_F/3 the fitted slope is about 0.76 (it was "
      "0.90 with w = ‖W_ii‖_F/√3); the single-contact analysis predicts 1 independent of w, so "
      "the shortfall comes from the box's four corner contacts sharing the load unevenly while "
      "it rocks. Not yet explained quantitatively.";
  ref_x.x = bx.x;
  ref_x.y = BeltReference(bx.x, 0.2, 1.0, mu, 9.81);
  bx.color = kBlue;
  belt_x.color = kGray;
  belt_x.dashed = true;
  belt_x.markers = bx.markers = ref_x.markers = false;
  ref_x.color = kRed;
  ex.Plot("x", {"Conveyor belt: positions", "t [s]", "x [m]", false, false}, {belt_x, ref_x, bx},
          "Box and belt positions, δt = 0.01 s, against exact Coulomb stick-slip (Fig. 2).");

  // Convergence in δt against the exact Coulomb reference.
  std::vector<double> dts = {5e-2, 1e-2, 2e-3};
  if (!opt.quick) dts.push_back(5e-4);
  // e_q of the box's position (x, z) against the rigid exact solution (x_ref, 0.025), and of x
  // alone.
  std::vector<double> errs, errs_x, lifts;
  for (double h : dts) {
    double lift = 0;
    const Scene s2 = Load(opt, "conveyor_belt.yaml", {"time_step=" + Fmt(h, 17)});
    Trajectory xz, x;
    Run(s2, Steps(s2, T), [&](const Simulator& sim, const StepRecord& rec) {
      const Vec3 p = BodyPosition(sim, rec.after, box);
      xz.Add(rec.after.time, Eigen::Vector2d(p.x(), p.z()));
      lift = std::max(lift, p.z() - z_rest);
      x.Add(rec.after.time, VecX::Constant(1, p.x()));
    });
    const std::vector<double> r = BeltReference(xz.t, 0.2, 1.0, mu, 9.81);
    Trajectory ref_xz, ref_x;
    for (size_t i = 0; i < xz.t.size(); ++i) {
      ref_xz.Add(xz.t[i], Eigen::Vector2d(r[i], z_rest));
      ref_x.Add(xz.t[i], VecX::Constant(1, r[i]));
    }
    errs.push_back(PositionErrorRms(xz, ref_xz));
    errs_x.push_back(PositionErrorRms(x, ref_x));
    lifts.push_back(lift);
  }
  // Local orders between δt = 1e-2 and 2e-3 (the paper's two smallest steps).
  const double small_slope = std::log(errs[2] / errs[1]) / std::log(dts[2] / dts[1]);
  const double small_slope_x = std::log(errs_x[2] / errs_x[1]) / std::log(dts[2] / dts[1]);
  std::ostringstream tab;
  tab << "| δt [s] | e_q of (x, z) [m] | e_q of x [m] | max lift of the box [m] |\n"
         "|---|---|---|---|\n";
  for (size_t i = 0; i < dts.size(); ++i)
    tab << "| " << dts[i] << " | " << Fmt(errs[i], 3) << " | " << Fmt(errs_x[i], 3) << " | "
        << Fmt(lifts[i], 3) << " |\n";
  ex.Text("e_q against the rigid exact Coulomb solution (box centre at z = 0.025 m):\n\n" +
          tab.str());
  ResultRow& r =
      ex.Row("order of e_q (x, z) between δt = 1e-2 and 2e-3", "plateau (SAP's error floor)", 0,
             small_slope, "< 0.5 (a plateau: the error stops decreasing at first order)",
             small_slope < 0.5, src);
  if (small_slope >= 0.5) {
    r.note =
        "ContactLab's SAP error keeps decreasing at this δt. The gliding offset "
        "(δt + τ_d) μ‖v_t‖ tends to τ_d μ‖v_t‖ ≈ 0.3 mm as δt → 0, which would set a floor "
        "once the other errors fall below it; at δt = 2e-3 they are still larger. The paper's "
        "τ_d mantissa is lost (the scene uses 4.9e-4 s), and a larger τ_d would raise the "
        "floor.";
  }
  ex.Info("order of e_q (x only) between δt = 1e-2 and 2e-3", "-", small_slope_x, src,
          "The tangential motion alone follows regularized Coulomb friction.");
  ex.Text(
      "The box starts at rest on a belt already moving at 1.26 m/s. In the first 0.2 s "
      "SAP's sliding response lifts and pitches the 3D box (four corner contacts; the "
      "paper's case is planar) by the lift shown above, and the offset this leaves in x "
      "persists for the rest of the run, so e_q is dominated by the start and need not "
      "decrease monotonically with δt. The lift is larger than SAP's gliding offset "
      "(δt + τ_d) μ‖v_t‖ (at most " +
      Fmt((0.05 + tau) * mu * 1.2566, 2) +
      " m even at δt = "
      "0.05 s, " +
      Fmt((2e-3 + tau) * mu * 1.2566, 2) +
      " m at 2e-3 s), so it comes from the "
      "box pitching on its corner contacts; it is an open question for the engine, not a "
      "paper figure.");

  // Every model at δt = 0.01 (paper Fig. 2) and its convergence (Fig. 3). d = 500 s/m for the
  // Hunt–Crossley models (the paper's value); the linear model keeps τ_d = 4.9e-4 s.
  const double d_hc = 500, g = 9.81, m_box = 1.0;
  ex.Text(
      "Per contact model (Hunt–Crossley d = 500 s/m for Lagged, Regularized Lagged and Similar; "
      "τ_d = " +
      Fmt(tau) +
      " s for SAP). \"Sliding\" steps: every loaded contact slides and the slip exceeds "
      "0.2 m/s. v_n is the γ_n-weighted normal velocity of the loaded contacts at the end of the "
      "step; height is the box centre above 0.025 m.");
  std::ostringstream mt;
  mt << "| model | sliding steps | RMS v_n while sliding [m/s] | mean Σγ_n/(m g δt) while sliding "
        "| max deviation of Σγ_n/(m g δt) from 1 while sliding | mean height while sliding [m] | "
        "height / (μ δt ‖v_t‖) |\n|---|---|---|---|---|---|---|\n";
  // The paper's reference for e_q: Lagged at δt_min / 10.
  const double h_ref = dts.back() / 10;
  Trajectory lagged_ref;
  {
    const Scene s2 = LoadModel(opt, "conveyor_belt.yaml", ContactModelType::kLagged, d_hc,
                               {"time_step=" + Fmt(h_ref, 17)});
    Run(s2, Steps(s2, T), [&](const Simulator& sim, const StepRecord& rec) {
      const Vec3 p = BodyPosition(sim, rec.after, box);
      lagged_ref.Add(rec.after.time, Eigen::Vector2d(p.x(), p.z()));
    });
  }
  std::vector<PlotSeries> conv;
  std::vector<std::vector<double>> model_errs(4);
  for (int mi = 0; mi < 4; ++mi) {
    const ModelDef& md = kModels[mi];
    const Scene sm = LoadModel(opt, "conveyor_belt.yaml", md.type, d_hc);
    std::vector<double> vns, loads, heights, glide_x;
    double max_load_dev = 0;
    Run(sm, Steps(sm, T), [&](const Simulator& sim, const StepRecord& rec) {
      const ConeSums cs = SumCones(rec);
      if (cs.loaded == 0 || cs.slide != cs.loaded || cs.max_slip <= 0.2) return;
      const double load = cs.gn / (m_box * g * dt);
      vns.push_back(cs.vn());
      loads.push_back(load);
      max_load_dev = std::max(max_load_dev, std::abs(load - 1));
      const double h = BodyPosition(sim, rec.after, box).z() - z_rest;
      heights.push_back(h);
      glide_x.push_back(mu * dt * cs.max_slip);
    });
    const double rms_vn = Rms(vns), mean_load = Mean(loads), mean_h = Mean(heights);
    const double slope = LinearSlope(glide_x, heights);
    mt << "| " << md.label << " | " << vns.size() << " | " << Fmt(rms_vn, 3) << " | "
       << Fmt(mean_load, 4) << " | " << Fmt(max_load_dev, 3) << " | " << Fmt(mean_h, 3) << " | "
       << Fmt(slope, 3) << " |\n";
    const std::string L = md.label;
    if (mi == kLaggedIdx || mi == kRegularizedIdx) {
      ex.Row(L + ": RMS normal velocity v_n while sliding [m/s] (δt = 0.01)",
             "0 (Lagged: zero normal velocity while sliding)", 0, rms_vn,
             "< 5e-3 m/s (10× below SAP's gliding v_n ≈ μ(δt+τ_d)‖a_t‖ ≈ 5e-2 m/s; the 3D "
             "box's four corner contacts pitch under the friction torque, the paper's case is "
             "planar)",
             rms_vn < 5e-3, src);
      ex.Row(L + ": mean normal force / weight while sliding (δt = 0.01)",
             "1 (Lagged: normal force = weight)", 1, mean_load, "±1 %",
             std::abs(mean_load - 1) <= 0.01, src);
      ex.Row(L + ": mean height above rest while sliding [m] (δt = 0.01)", "0 (Lagged: no gliding)",
             0, mean_h, "‖h‖ < 1e-4 m (SAP glides (δt+τ_d)μ‖v_t‖ ≈ 5e-3 m at 0.7 m/s)",
             std::abs(mean_h) < 1e-4, src);
    } else {
      ex.Row(L + ": RMS normal velocity v_n while sliding [m/s] (δt = 0.01)",
             "≠ 0 (SAP and Similar glide: v_n ≠ 0 while sliding)", kNaN, rms_vn,
             "> 5e-3 m/s (the Lagged bound)", rms_vn > 5e-3, src);
      ex.Row(L + ": max deviation of normal force / weight from 1 while sliding (δt = 0.01)",
             "spurious normal-force transients (SAP, Similar)", kNaN, max_load_dev,
             "> 0.05 (Lagged's own deviation is bounded by 1 % above)", max_load_dev > 0.05, src);
    }
    if (mi == kSimilarIdx) {
      ResultRow& gr =
          ex.Row("Similar: gliding height / (μ δt ‖v_t‖) while sliding",
                 "1 (Similar floats μ δt ‖v_t‖ above the Lagged equilibrium, §V analysis)", 1,
                 slope, "±0.15 (linear fit over sliding steps with ‖v_t‖ > 0.2 m/s)",
                 std::abs(slope - 1) <= 0.15, "seed_004_irrotational.md §5.5");
      gr.note =
          "Steady Similar sliding: n(z) = m g δt with z = v_n − μ‖v_t‖_s gives a penetration "
          "mg/(k(1+dμ‖v_t‖)) − δt μ ‖v_t‖, i.e. a height δt μ ‖v_t‖ above rest (the compliance "
          "modulation term is below mg/k ≈ 1e-6 m). Fit over " +
          std::to_string(heights.size()) + " sliding steps.";
    }
    std::vector<double> e;
    for (double h : dts) {
      const Scene s2 =
          LoadModel(opt, "conveyor_belt.yaml", md.type, d_hc, {"time_step=" + Fmt(h, 17)});
      Trajectory xz;
      Run(s2, Steps(s2, T), [&](const Simulator& sim, const StepRecord& rec) {
        const Vec3 p = BodyPosition(sim, rec.after, box);
        xz.Add(rec.after.time, Eigen::Vector2d(p.x(), p.z()));
      });
      e.push_back(PositionErrorRms(xz, lagged_ref));
    }
    model_errs[mi] = e;
    conv.push_back({md.label, dts, e, kPalette[mi]});
  }
  ex.Text(mt.str());
  std::ostringstream ct;
  ct << "| δt [s] |";
  for (const ModelDef& md : kModels) ct << " e_q " << md.label << " [m] |";
  ct << "\n|---|---|---|---|---|\n";
  for (size_t i = 0; i < dts.size(); ++i) {
    ct << "| " << dts[i] << " |";
    for (int mi = 0; mi < 4; ++mi) ct << " " << Fmt(model_errs[mi][i], 3) << " |";
    ct << "\n";
  }
  ex.Text("e_q of (x, z) per model against Lagged at δt = " + Fmt(h_ref) +
          " s (the paper's reference, δt_min/10):\n\n" + ct.str());
  const size_t n_dt = dts.size();
  for (int mi = 0; mi < 4; ++mi) {
    const std::vector<double>& e = model_errs[mi];
    const double order =
        std::log(e[n_dt - 1] / e[n_dt - 2]) / std::log(dts[n_dt - 1] / dts[n_dt - 2]);
    const std::string span = "between δt = " + Fmt(dts[n_dt - 2]) + " and " + Fmt(dts[n_dt - 1]);
    if (mi == kLinearIdx) {
      ResultRow& orow = ex.Row("SAP (linear): order of e_q (x, z) " + span + " against Lagged",
                               "plateau (SAP's error floor, the τ_d μ‖v_t‖ term)", 0, order,
                               "< 0.5 (a plateau; negative: the error grows)", order < 0.5, src);
      if (order < 0)
        orow.note = "SAP's e_q grows from " + Fmt(e[n_dt - 2], 3) + " m to " + Fmt(e[n_dt - 1], 3) +
                    " m: at the smallest step the 3D box hops and pitches on its corner contacts "
                    "while gliding (see the lift column of the SAP table), so the error does not "
                    "only plateau but grows; the paper's planar box shows a plateau.";
      if (order >= 0.5)
        orow.note =
            "SAP's error still decreases here: its gliding offset (δt+τ_d)μ‖v_t‖ tends to "
            "τ_d μ‖v_t‖ ≈ 0.3 mm (τ_d = 4.9e-4 s; the paper's τ_d mantissa is lost), a floor "
            "reached only once the O(δt) errors fall below it.";
      continue;
    }
    ResultRow& orow =
        ex.Row(std::string(kModels[mi].label) + ": order of e_q (x, z) " + span + " against Lagged",
               "1 (Lagged and Similar are first order)", 1, order,
               "0.7 to 1.5 (a two-point local order)", order >= 0.7 && order <= 1.5, src);
    if (!(order >= 0.7 && order <= 1.5))
      orow.note =
          "Not yet explained. The 3D box starts at rest on a belt already moving at 1.26 m/s; "
          "its first slide and the stick-slip transition times set a phase error in x that "
          "persists for the whole run and need not shrink at first order over one factor 5 of "
          "δt (the paper's box is planar and its initial state is not stated).";
  }
  {
    const double ratio = model_errs[kSimilarIdx][2] / model_errs[kLaggedIdx][2];
    ex.Row("Similar e_q / Lagged e_q at δt = 2e-3 (against Lagged)",
           "> 1 (Similar's error is higher)", kNaN, ratio, "> 1", ratio > 1, src);
  }
  ex.Plot("convergence", {"Conveyor belt: e_q vs dt", "dt [s]", "e_q [m]", true, true}, conv,
          "Box position error against Lagged at δt_min/10, per contact model (Fig. 3).");
}

// Irrotational contact fields §IX-B: falling sphere.
void FallingSphere(Experiment& ex, const ReproduceOptions& opt) {
  const std::string& src = ex.source();
  const double U0 = 2.0, mu = 0.5, g = 9.81, r = 0.025, z0 = 0.05;
  const double t_touch = std::sqrt(2 * (z0 - r) / g);
  // Rigid model: a plastic landing with a Coulomb friction impulse μ m v_td, then sliding with
  // slip decreasing at 7/2 μ g until v = ω r.
  const double v_td = g * t_touch;
  const double slip0 = std::max(0.0, U0 - 3.5 * mu * v_td);
  const double t_roll = t_touch + slip0 / (3.5 * mu * g);
  ex.Text(
      "Steel sphere 0.5 kg, r = 2.5 cm, centre at 5 cm, U0 = 2 m/s, μ = 0.5, k = 1e7 N/m "
      "(scenes/paper/falling_sphere.yaml). Rigid Coulomb predictions: touchdown at " +
      Fmt(t_touch, 3) + " s, rolling from " + Fmt(t_roll, 3) +
      " s at 5/7 U0 = " + Fmt(5.0 / 7 * U0, 5) + " m/s.");
  const Scene sc = Load(opt, "falling_sphere.yaml");
  const int ball = sc.model.FindBody("ball");
  PlotSeries vx{"v_x"}, wr{"omega r"};
  double first_contact = kNaN, roll_onset = kNaN;
  double final_v = kNaN;
  std::vector<double> ts, rel;
  Run(sc, Steps(sc, 0.5), [&](const Simulator& sim, const StepRecord& rec) {
    const auto& fv = rec.after.v;
    const int vs = sim.model().joints[sim.model().bodies[ball].joint].v_start;
    vx.x.push_back(rec.after.time);
    vx.y.push_back(fv(vs));
    wr.x.push_back(rec.after.time);
    wr.y.push_back(fv(vs + 4) * r);
    final_v = fv(vs);
    ts.push_back(rec.after.time);
    rel.push_back(std::abs(fv(vs) - fv(vs + 4) * r));
    for (size_t i = 0; i < rec.problem.constraints.size(); ++i) {
      if (rec.problem.constraints[i].kind != ConstraintKind::kFrictionCone) continue;
      const double gn = rec.result.gamma(rec.problem.constraints[i].first_row + 2);
      if (gn > 0 && std::isnan(first_contact)) first_contact = rec.before.time;
    }
  });
  // Rolling starts when the slip v_x − ω r falls below 1 % of U0 for the rest of the run.
  for (size_t i = rel.size(); i-- > 0;) {
    if (rel[i] >= 0.01 * U0) break;
    roll_onset = ts[i];
  }
  ex.Row("final speed / U0", "5/7 = 0.7143 (rolling without slip)", 5.0 / 7, final_v / U0,
         "±1 % (stiction creep ~σμδtg is 1e-5 m/s; the landing keeps angular momentum about the "
         "contact point)",
         std::abs(final_v / U0 - 5.0 / 7) <= 0.01 * 5.0 / 7, src);
  ResultRow& rr =
      ex.Row("onset of rolling [s]", "≈0.07", 0.07, roll_onset,
             "±0.01 s (read from the paper's figure)", std::abs(roll_onset - 0.07) <= 0.01, src);
  rr.note = "The rigid Coulomb prediction for the stated setup is " + Fmt(t_roll, 3) +
            " s (touchdown at " + Fmt(t_touch, 3) +
            " s with a friction impulse, then sliding); "
            "ContactLab is " +
            (std::abs(roll_onset - t_roll) < 0.01 ? "within 0.01 s of it" : "off it too") +
            ". The paper's initial height and body (sphere or disk) are ambiguous (digest §9), so "
            "its 0.07 s cannot be matched without guessing.";
  ex.Row("first contact impulse before rigid touchdown",
         "yes: SAP contacts early (\"action at a distance\")", kNaN, first_contact,
         "first γ_n > 0 at t < " + Fmt(t_touch, 3) + " s", first_contact < t_touch, src);
  vx.color = kBlue;
  wr.color = kOrange;
  vx.markers = wr.markers = false;
  ex.Plot("velocity", {"Falling sphere: v_x and omega r", "t [s]", "m/s", false, false}, {vx, wr},
          "Translational speed and ω r meet at 5/7 U0 when rolling starts (Fig. 5).");

  // Every model (d = 500 s/m for the Hunt–Crossley models, τ_d = 2.45e-4 s for SAP).
  const double d_hc = 500;
  struct SphereRun {
    double onset_t = kNaN, onset_gap = kNaN, final_v = kNaN, roll = kNaN, vn_slide = kNaN;
    Trajectory xz;
  };
  auto run_sphere = [&](ContactModelType m, double h) {
    SphereRun out;
    const Scene s = LoadModel(opt, "falling_sphere.yaml", m, d_hc, {"time_step=" + Fmt(h, 17)});
    std::vector<double> t, slip, vn;
    Run(s, Steps(s, 0.5), [&](const Simulator& sim, const StepRecord& rec) {
      const int vs = sim.model().joints[sim.model().bodies[ball].joint].v_start;
      const VecX& v = rec.after.v;
      const ConeSums cs = SumCones(rec);
      if (cs.loaded > 0 && std::isnan(out.onset_t)) {
        out.onset_t = rec.before.time;
        out.onset_gap = cs.phi0;
      }
      t.push_back(rec.after.time);
      slip.push_back(std::abs(v(vs) - v(vs + 4) * r));
      vn.push_back(cs.loaded > 0 ? cs.vn() : kNaN);
      out.final_v = v(vs);
      const Vec3 p = BodyPosition(sim, rec.after, ball);
      out.xz.Add(rec.after.time, Eigen::Vector2d(p.x(), p.z()));
    });
    for (size_t i = slip.size(); i-- > 0;) {
      if (slip[i] >= 0.01 * U0) break;
      out.roll = t[i];
    }
    // RMS v_n of the loaded contact while it slides, from 10 steps after the first contact to
    // the onset of rolling.
    std::vector<double> w;
    for (size_t i = 0; i < t.size(); ++i)
      if (t[i] > out.onset_t + 10 * h && (std::isnan(out.roll) || t[i] < out.roll) &&
          !std::isnan(vn[i]))
        w.push_back(vn[i]);
    out.vn_slide = Rms(w);
    return out;
  };
  SphereRun runs[4];
  std::ostringstream st;
  st << "| model | first γ_n > 0 at t [s] | gap φ0 then [m] | onset of rolling [s] | final v / U0 "
        "| "
        "RMS v_n while sliding [m/s] |\n|---|---|---|---|---|---|\n";
  for (int mi = 0; mi < 4; ++mi) {
    runs[mi] = run_sphere(kModels[mi].type, sc.settings.time_step);
    const SphereRun& o = runs[mi];
    st << "| " << kModels[mi].label << " | " << Fmt(o.onset_t, 4) << " | " << Fmt(o.onset_gap, 3)
       << " | " << Fmt(o.roll, 4) << " | " << Fmt(o.final_v / U0, 5) << " | " << Fmt(o.vn_slide, 3)
       << " |\n";
  }
  ex.Text("Per contact model, δt = 2e-3 s (Hunt–Crossley d = 500 s/m):\n\n" + st.str());
  for (int mi = 1; mi < 4; ++mi) {
    const std::string L = kModels[mi].label;
    const SphereRun& o = runs[mi];
    ex.Row(L + ": final speed / U0", "5/7 = 0.7143 (rolling without slip)", 5.0 / 7, o.final_v / U0,
           "±1 % (angular momentum about the contact point is conserved)",
           std::abs(o.final_v / U0 - 5.0 / 7) <= 0.01 * 5.0 / 7, src);
    ResultRow& rrow =
        ex.Row(L + ": onset of rolling [s]", "≈0.07", 0.07, o.roll,
               "±0.01 s (read from the paper's figure)", std::abs(o.roll - 0.07) <= 0.01, src);
    if (!(std::abs(o.roll - 0.07) <= 0.01))
      rrow.note = "As for SAP: the rigid Coulomb prediction for the stated setup is " +
                  Fmt(t_roll, 3) +
                  " s; the paper's initial height and body are ambiguous (digest §9). 0.07 s is "
                  "the rigid touchdown time from a 2.5 cm gap, not a slide-to-roll time.";
  }
  for (int mi = 0; mi < 4; ++mi) {
    const std::string L = kModels[mi].label;
    const double vn = runs[mi].vn_slide;
    if (mi == kLaggedIdx || mi == kRegularizedIdx)
      ex.Row(L + ": RMS normal velocity while sliding [m/s]", "≈0 (Lagged: v_n → 0 at once)", 0, vn,
             "< 2e-3 m/s (SAP's gliding v_n ≈ μ(δt+τ_d)·(7/2)μg ≈ 2e-2 m/s)", vn < 2e-3, src);
    else
      ex.Row(L + ": RMS normal velocity while sliding [m/s]",
             "≠ 0 until stiction (SAP and Similar glide)", kNaN, vn, "> 2e-3 m/s", vn > 2e-3, src);
  }
  {
    // At δt = 2e-3 s one step of the fall (≈1.4 mm) is coarser than the difference between SAP's
    // and Similar's activation gaps ((δt+τ_d) against δt times μ‖v_t‖ − v_n, τ_d = 2.45e-4 s),
    // so the order is measured at δt = 1e-4 s, where a step covers 0.07 mm.
    const double h_on = 1e-4;
    SphereRun on[4];
    for (int mi : {kLinearIdx, kLaggedIdx, kSimilarIdx})
      on[mi] = run_sphere(kModels[mi].type, h_on);
    const double gs = on[kLinearIdx].onset_gap, gsim = on[kSimilarIdx].onset_gap,
                 gl = on[kLaggedIdx].onset_gap;
    const bool order = gs > gsim && gsim > gl &&
                       on[kLinearIdx].onset_t <= on[kSimilarIdx].onset_t &&
                       on[kSimilarIdx].onset_t <= on[kLaggedIdx].onset_t;
    ResultRow& orow0 = ex.Info(
        "δt = 2e-3: first loaded step SAP / Similar / Lagged [s]",
        "SAP earliest, then Similar, "
        "Lagged last",
        runs[kLinearIdx].onset_t, src,
        "SAP " + Fmt(runs[kLinearIdx].onset_t, 4) + " s (gap " +
            Fmt(runs[kLinearIdx].onset_gap, 3) + " m), Similar " +
            Fmt(runs[kSimilarIdx].onset_t, 4) + " s (gap " + Fmt(runs[kSimilarIdx].onset_gap, 3) +
            " m), Lagged " + Fmt(runs[kLaggedIdx].onset_t, 4) + " s (gap " +
            Fmt(runs[kLaggedIdx].onset_gap, 3) +
            " m): SAP and Similar load in the same step here, both before Lagged.");
    (void)orow0;
    ResultRow& orow = ex.Row(
        "contact onset order SAP < Similar < Lagged (gap at the first loaded step, δt = 1e-4)",
        "SAP earliest, then Similar, Lagged last (\"action at a distance\")", kNaN, order ? 1 : 0,
        "1 = gap φ0 at first γ_n > 0 strictly decreasing SAP > Similar > Lagged and onset times "
        "in the same order",
        order, src);
    orow.note = "Gaps at the first loaded step: SAP " + Fmt(gs, 3) + " m, Similar " + Fmt(gsim, 3) +
                " m, Lagged " + Fmt(gl, 3) + " m (times " + Fmt(on[kLinearIdx].onset_t, 5) + ", " +
                Fmt(on[kSimilarIdx].onset_t, 5) + ", " + Fmt(on[kLaggedIdx].onset_t, 5) + " s).";
  }

  // Error floors (paper Fig. 6): e_q against Lagged at δt_min / 10.
  std::vector<double> fdts = {1e-2, 2e-3, 4e-4};
  const double href = 4e-5;
  const SphereRun ref = run_sphere(ContactModelType::kLagged, href);
  std::vector<PlotSeries> conv;
  std::ostringstream ft;
  ft << "| model | e_q δt = 1e-2 [m] | e_q δt = 2e-3 [m] | e_q δt = 4e-4 [m] | order (2e-3 → 4e-4) "
        "|\n|---|---|---|---|---|\n";
  for (int mi = 0; mi < 4; ++mi) {
    std::vector<double> e;
    for (double h : fdts) e.push_back(PositionErrorRms(run_sphere(kModels[mi].type, h).xz, ref.xz));
    const double order = std::log(e[2] / e[1]) / std::log(fdts[2] / fdts[1]);
    ft << "| " << kModels[mi].label << " | " << Fmt(e[0], 3) << " | " << Fmt(e[1], 3) << " | "
       << Fmt(e[2], 3) << " | " << Fmt(order, 3) << " |\n";
    conv.push_back({kModels[mi].label, fdts, e, kPalette[mi]});
    const std::string L = kModels[mi].label;
    if (mi == kLinearIdx) {
      ResultRow& fr = ex.Row(L + ": order of e_q between δt = 2e-3 and 4e-4",
                             "error floor (SAP's constant error)", 0, order,
                             "< 0.5 (a floor: the error stops decreasing)", order < 0.5, src);
      if (order >= 0.5)
        fr.note =
            "Against a Lagged reference, SAP's gliding (δt+τ_d)μ‖v_t‖ leaves a τ_d μ‖v_t‖ ≈ "
            "1e-4 m offset in z while sliding; at these δt the other errors still dominate.";
    } else {
      ex.Row(L + ": order of e_q between δt = 2e-3 and 4e-4", "1 (first order)", 1, order,
             "0.7 to 1.5 (two-point local order; reference Lagged at δt = 4e-5)",
             order >= 0.7 && order <= 1.5, src);
    }
  }
  ex.Text("e_q of the sphere's (x, z) against Lagged at δt = 4e-5 s (Fig. 6):\n\n" + ft.str());
  ex.Plot("convergence", {"Falling sphere: e_q vs dt", "dt [s]", "e_q [m]", true, true}, conv,
          "Sphere position error against Lagged at 4e-5 s, per model (Fig. 6).");
}

// Irrotational contact fields §IX-C: Painlevé sliding rod.
void SlidingRod(Experiment& ex, const ReproduceOptions& opt) {
  const std::string& src = ex.source();
  ex.Text(
      "Rod 0.5 m, 0.3 kg, 30° to the ground, sliding at 10 m/s lower end first, μ = 2.3, "
      "k = 1e7 N/m, δt = 1e-5 s (scenes/paper/sliding_rod.yaml). Runs without dissipation "
      "and with τ_d = 4e-6 s. The paper's reference uses δt = 1e-7 s.");
  double stick_len[2] = {0, 0}, liftoff[2] = {kNaN, kNaN}, min_slip[2] = {kNaN, kNaN};
  std::vector<PlotSeries> vt_series;
  for (int diss = 0; diss < 2; ++diss) {
    const Scene sc = Load(opt, "sliding_rod.yaml",
                          {std::string("materials.rod.dissipation_time=") + (diss ? "4e-6" : "0")});
    PlotSeries vt{diss ? "tau_d = 4e-6 s" : "tau_d = 0"};
    bool touched = false;
    const double dt = sc.settings.time_step;
    Run(sc, Steps(sc, sc.duration), [&](const Simulator&, const StepRecord& rec) {
      int active = 0;
      bool stick = false;
      double slip = 0;
      for (size_t i = 0; i < rec.problem.constraints.size(); ++i) {
        const ConstraintData& c = rec.problem.constraints[i];
        if (c.kind != ConstraintKind::kFrictionCone) continue;
        if (rec.result.gamma(c.first_row + 2) <= 0) continue;
        ++active;
        stick |= rec.result.regime[i] == Regime::kStiction;
        slip = std::max(slip, rec.result.vc.segment<2>(c.first_row).norm());
      }
      const double t = rec.after.time;
      vt.x.push_back(t * 1e3);
      vt.y.push_back(active > 0 ? slip : kNaN);
      if (active > 0) {
        touched = true;
        min_slip[diss] = std::isnan(min_slip[diss]) ? slip : std::min(min_slip[diss], slip);
        // Stiction as the paper counts it: SAP's stiction regime or slip below v_s = 1e-4 m/s.
        if (stick || slip < 1e-4) stick_len[diss] += dt;
      } else if (touched && std::isnan(liftoff[diss])) {
        liftoff[diss] = t;
      }
    });
    vt.color = diss ? kOrange : kBlue;
    vt.markers = false;
    vt_series.push_back(vt);
  }
  ResultRow& r0 = ex.Row("τ_d = 0: duration of stiction at the jam [ms]", "≈0.2", 0.2,
                         stick_len[0] * 1e3, "0.1 to 0.4 ms (factor 2: read from a figure inset)",
                         stick_len[0] * 1e3 >= 0.1 && stick_len[0] * 1e3 <= 0.4, src);
  if (stick_len[0] == 0) {
    r0.note = "ContactLab's rod never sticks: friction slows the slip from 10 m/s to " +
              Fmt(min_slip[0], 3) + " m/s and the rod leaves the ground at " +
              Fmt(liftoff[0] * 1e3, 3) +
              " ms while still sliding. Possible causes: SAP glides at "
              "φ = δt μ‖v_t‖ (0.23 mm at δt = 1e-5 s, against 3e-7 m of elastic compression), so "
              "the normal force builds differently than in the paper's 1e-7 s reference; and "
              "the paper's initial conditions (sliding direction, initial contact state) are "
              "only summarized in the digest. The result also changes with δt (not converged "
              "at 1e-5 s). The per-model rows below show it: Lagged sticks at the jam at 1e-5 s, "
              "and in the full mode SAP and Similar stick too at δt = 1e-6 s.";
  }
  ex.Row("τ_d = 0: rod jumps (loses contact) after sliding in contact", "yes (the rod jumps)", kNaN,
         std::isnan(liftoff[0]) ? 0 : 1, "1 = contact lost after the contact phase",
         !std::isnan(liftoff[0]), src);
  ResultRow& r1 =
      ex.Row("dissipation delays the lift-off [ms]", "later with dissipation (SAP)", kNaN,
             (liftoff[1] - liftoff[0]) * 1e3, "> 0", liftoff[1] > liftoff[0], src);
  if (!(liftoff[1] > liftoff[0]))
    r1.note =
        "With τ_d = 4e-6 s the gliding offset (δt + τ_d) μ‖v_t‖ grows and the friction "
        "impulse ends sooner in ContactLab.";
  ex.Plot("slip", {"Sliding rod: slip speed at the contact", "t [ms]", "|v_t| [m/s]", false, true},
          vt_series,
          "Tangential contact speed while in contact (the paper's Figs. 8-11 show a "
          "stiction phase before the jump).");

  // Every model, without and with dissipation (paper: d = 0.2 s/m for the Hunt–Crossley models,
  // τ_d = 4e-6 s for SAP), at the scene's δt = 1e-5 s.
  struct RodRun {
    double contact = kNaN;             // first loaded step [s]
    double jam = kNaN;                 // first loaded step in stiction (or slip < v_s) [s]
    double stick = 0;                  // time loaded in stiction or slip < v_s [s]
    double liftoff = kNaN;             // first unloaded step after the contact phase [s]
    double peak_t = kNaN, peak_f = 0;  // largest normal force and its time
    double min_slip = kNaN;
    double period = kNaN;    // mean period of the normal force's oscillation before the jam [s]
    double slip_osc = kNaN;  // mean slip over that window [m/s]
  };
  auto run_rod = [&](ContactModelType m, bool diss, double h) {
    RodRun o;
    const Scene s =
        LoadModel(opt, "sliding_rod.yaml", m, diss ? 0.2 : 0.0,
                  {std::string("materials.rod.dissipation_time=") + (diss ? "4e-6" : "0"),
                   "time_step=" + Fmt(h, 17)});
    std::vector<double> t, f, sl;
    Run(s, Steps(s, s.duration), [&](const Simulator&, const StepRecord& rec) {
      const ConeSums cs = SumCones(rec);
      const double tt = rec.after.time;
      if (cs.loaded > 0) {
        if (std::isnan(o.contact)) o.contact = rec.before.time;
        o.min_slip = std::isnan(o.min_slip) ? cs.max_slip : std::min(o.min_slip, cs.max_slip);
        const bool stuck = cs.stick > 0 || cs.max_slip < 1e-4;
        if (stuck) {
          o.stick += h;
          if (std::isnan(o.jam)) o.jam = tt;
        }
        const double force = cs.gn / h;
        if (force > o.peak_f) {
          o.peak_f = force;
          o.peak_t = tt;
        }
        if (std::isnan(o.jam) && std::isnan(o.liftoff)) {
          t.push_back(tt);
          f.push_back(force);
          sl.push_back(cs.max_slip);
        }
      } else if (!std::isnan(o.contact) && std::isnan(o.liftoff)) {
        o.liftoff = tt;
      }
    });
    std::vector<double> peaks;
    for (size_t i = 1; i + 1 < f.size(); ++i)
      if (f[i] > f[i - 1] && f[i] >= f[i + 1]) peaks.push_back(t[i]);
    if (peaks.size() >= 3) o.period = (peaks.back() - peaks.front()) / (peaks.size() - 1);
    o.slip_osc = Mean(sl);
    return o;
  };
  const double h_rod = 1e-5;
  RodRun rods[4][2];
  std::ostringstream rt;
  rt << "| model | dissipation | first contact [ms] | jam (stiction) [ms] | stiction [ms] | "
        "lift-off [ms] | peak force [N] at [ms] | min slip [m/s] | force period before jam [ms] "
        "|\n|---|---|---|---|---|---|---|---|---|\n";
  for (int mi = 0; mi < 4; ++mi) {
    for (int diss = 0; diss < 2; ++diss) {
      rods[mi][diss] = run_rod(kModels[mi].type, diss == 1, h_rod);
      const RodRun& o = rods[mi][diss];
      rt << "| " << kModels[mi].label << " | "
         << (diss ? (mi == kLinearIdx ? "τ_d = 4e-6 s" : "d = 0.2 s/m") : "none") << " | "
         << Fmt(o.contact * 1e3, 4) << " | " << Fmt(o.jam * 1e3, 4) << " | "
         << Fmt(o.stick * 1e3, 3) << " | " << Fmt(o.liftoff * 1e3, 4) << " | " << Fmt(o.peak_f, 4)
         << " at " << Fmt(o.peak_t * 1e3, 4) << " | " << Fmt(o.min_slip, 3) << " | "
         << Fmt(o.period * 1e3, 3) << " |\n";
    }
  }
  ex.Text("Per contact model, δt = 1e-5 s:\n\n" + rt.str());
  for (int mi = 1; mi < 4; ++mi) {
    const std::string L = kModels[mi].label;
    const RodRun& o = rods[mi][0];
    ResultRow& sr = ex.Row(L + ", no dissipation: duration of stiction at the jam [ms]", "≈0.2",
                           0.2, o.stick * 1e3, "0.1 to 0.4 ms (factor 2: read from a figure inset)",
                           o.stick * 1e3 >= 0.1 && o.stick * 1e3 <= 0.4, src);
    if (o.stick == 0)
      sr.note = "The contact never reaches ‖v_t‖ < v_s: the slip falls to " + Fmt(o.min_slip, 3) +
                " m/s and the rod leaves the ground at " + Fmt(o.liftoff * 1e3, 4) +
                " ms while still sliding (SAP's behaviour; see the "
                "impact-time rows).";
    ex.Row(L + ", no dissipation: rod jumps (loses contact) after the contact phase",
           "yes (the rod jumps)", kNaN, std::isnan(o.liftoff) ? 0 : 1,
           "1 = contact lost after the contact phase", !std::isnan(o.liftoff), src);
  }
  // SAP and Similar couple the normal response to μ‖v_t‖ (gliding: φ ≈ δt μ‖v_t‖ while sliding,
  // 0.23 mm at δt = 1e-5 s and 10 m/s with μ = 2.3), so at this δt they can lift the rod off at
  // once; Lagged's normal law ignores v_t.
  const std::string glide_note =
      "At δt = 1e-5 s SAP and Similar lose contact after " +
      Fmt((rods[kLinearIdx][0].liftoff - rods[kLinearIdx][0].contact) * 1e3, 3) + " and " +
      Fmt((rods[kSimilarIdx][0].liftoff - rods[kSimilarIdx][0].contact) * 1e3, 3) +
      " ms of sliding (slip still " + Fmt(rods[kLinearIdx][0].min_slip, 3) +
      " m/s): their friction-coupled normal law (gliding offset δt μ‖v_t‖ = " +
      Fmt(1e-5 * 2.3 * 10, 3) +
      " m at 10 m/s, against mg/k ≈ 3e-7 m of elastic compression) pushes the rod off before it "
      "can "
      "jam, and the peak force is the first contact step. Lagged, whose normal law ignores v_t, "
      "slides " +
      Fmt((rods[kLaggedIdx][0].jam - rods[kLaggedIdx][0].contact) * 1e3, 4) +
      " ms, jams and jumps as in the paper. The paper's figures use a finer δt (reference 1e-7 "
      "s), where the gliding offset is 100× smaller.";
  {
    // "All three models nearly identical, including the impact location" (no dissipation).
    double lo = 1e9, hi = -1e9;
    for (int mi : {kLinearIdx, kLaggedIdx, kSimilarIdx}) {
      lo = std::min(lo, rods[mi][0].peak_t);
      hi = std::max(hi, rods[mi][0].peak_t);
    }
    const double spread = (hi - lo) * 1e3;
    ResultRow& spr = ex.Row(
        "no dissipation: spread of the impact time (peak normal force) over SAP, Lagged, "
        "Similar [ms]",
        "nearly identical, including the impact location", kNaN, spread,
        "< 0.5 ms (a few compliance periods; the contact phase lasts several ms)", spread < 0.5,
        src);
    if (!(spread < 0.5)) spr.note = glide_note;
  }
  for (int mi : {kLinearIdx, kLaggedIdx, kSimilarIdx}) {
    const double shift = (rods[mi][1].peak_t - rods[mi][0].peak_t) * 1e3;
    const std::string L = kModels[mi].label;
    if (mi == kLaggedIdx) {
      ex.Row(L + ": impact time shift with dissipation [ms]", "barely moves", 0, shift,
             "‖shift‖ < 0.1 ms", std::abs(shift) < 0.1, src);
    } else {
      const bool earlier = mi == kSimilarIdx;
      ResultRow& sh = ex.Row(L + ": impact time shift with dissipation [ms]",
                             earlier ? "earlier (< 0)" : "later (> 0)", kNaN, shift,
                             earlier ? "< 0" : "> 0", earlier ? shift < 0 : shift > 0, src);
      if (!(earlier ? shift < 0 : shift > 0)) sh.note = glide_note;
    }
  }
  {
    // Similar's compliance is modulated: k_eff = k (1 + μ‖v_t‖ d), so the contact oscillation
    // before the jam is faster with d by √(1 + μ‖v_t‖ d) (slip averaged over the window).
    const RodRun& a = rods[kSimilarIdx][0];
    const RodRun& b = rods[kSimilarIdx][1];
    const double ratio = a.period / b.period;
    const double pred = std::sqrt(1 + 2.3 * b.slip_osc * 0.2);
    ResultRow& fr =
        ex.Row("Similar: frequency ratio of the contact oscillation with / without d = 0.2 s/m",
               "frequency shift from k_eff = k(1 + μ‖v_t‖d)", pred, ratio,
               "> 1.1 and within 30 % of √(1 + μ‖v̄_t‖d) = " + Fmt(pred, 3) +
                   " (mean slip over the window; damping and the varying slip move it)",
               ratio > 1.1 && std::abs(ratio / pred - 1) <= 0.3, src);
    fr.note = (std::isnan(ratio) ? "Not measurable at δt = 1e-5 s: Similar's rod leaves the "
                                   "ground before its normal force oscillates (see the impact "
                                   "rows). "
                                 : std::string()) +
              "Periods " + Fmt(a.period * 1e3, 3) + " ms without and " + Fmt(b.period * 1e3, 3) +
              " ms with dissipation (mean spacing of normal-force maxima before the jam). "
              "Lagged: " +
              Fmt(rods[kLaggedIdx][0].period * 1e3, 3) + " / " +
              Fmt(rods[kLaggedIdx][1].period * 1e3, 3) + " ms (its normal law ignores v_t).";
  }
  // Lagged misses the impact for δt ≳ 1e-3 s (paper Fig. 12): the jam is the first stiction.
  std::vector<double> big = {1e-3};
  if (!opt.quick) big = {1e-3, 6.4e-4, 1.6e-4, 4e-5};
  std::ostringstream bt;
  bt << "| δt [s] | model | jam (stiction) [ms] | peak force [N] at [ms] | lift-off [ms] |\n"
        "|---|---|---|---|---|\n";
  for (double h : big) {
    for (int mi : {kLinearIdx, kLaggedIdx, kSimilarIdx}) {
      const RodRun o = run_rod(kModels[mi].type, false, h);
      bt << "| " << h << " | " << kModels[mi].label << " | " << Fmt(o.jam * 1e3, 4) << " | "
         << Fmt(o.peak_f, 4) << " at " << Fmt(o.peak_t * 1e3, 4) << " | " << Fmt(o.liftoff * 1e3, 4)
         << " |\n";
      if (mi == kLaggedIdx && h == 1e-3) {
        const double ref_t = rods[kLaggedIdx][0].peak_t;
        const bool missed = std::isnan(o.jam) || std::abs(o.peak_t - ref_t) > 2 * h;
        ex.Row("Lagged at δt = 1e-3 s: misses the impact", "yes (Lagged misses it for δt ≳ 1e-3)",
               kNaN, missed ? 1 : 0,
               "1 = no stiction, or the peak force more than 2 δt from the δt = 1e-5 impact (" +
                   Fmt(ref_t * 1e3, 4) + " ms)",
               missed, src);
      }
    }
  }
  ex.Text("Large steps, no dissipation:\n\n" + bt.str());
  if (!opt.quick) {
    // Does the gliding lift-off of SAP and Similar go away at a finer step?
    std::ostringstream ft;
    ft << "| δt [s] | model | jam (stiction) [ms] | stiction [ms] | lift-off [ms] | min slip [m/s] "
          "|\n|---|---|---|---|---|---|\n";
    for (double h : {2e-6, 1e-6}) {
      for (int mi : {kLinearIdx, kSimilarIdx}) {
        const RodRun o = run_rod(kModels[mi].type, false, h);
        ft << "| " << h << " | " << kModels[mi].label << " | " << Fmt(o.jam * 1e3, 4) << " | "
           << Fmt(o.stick * 1e3, 3) << " | " << Fmt(o.liftoff * 1e3, 4) << " | "
           << Fmt(o.min_slip, 3) << " |\n";
        if (h == 1e-6) {
          ResultRow& fr = ex.Row(
              std::string(kModels[mi].label) +
                  ", no dissipation, δt = 1e-6 s: duration of stiction at the jam [ms]",
              "≈0.2", 0.2, o.stick * 1e3, "0.1 to 0.4 ms (factor 2: read from a figure inset)",
              o.stick * 1e3 >= 0.1 && o.stick * 1e3 <= 0.4, src);
          fr.note = "Jam at " + Fmt(o.jam * 1e3, 4) + " ms, smallest slip " + Fmt(o.min_slip, 3) +
                    " m/s (a first loss of contact at " + Fmt(o.liftoff * 1e3, 4) +
                    " ms is an early hop; the rod lands again). At δt = 1e-5 s this model lifts "
                    "the rod off at the first contact (gliding offset δt μ‖v_t‖); at 1e-6 s the "
                    "offset is 10× smaller.";
        }
      }
    }
    ex.Text("Finer steps, no dissipation (SAP and Similar):\n\n" + ft.str());
  }
}

// Irrotational contact fields §X-A: clutter stiffness sweep.
void ClutterStiffness(Experiment& ex, const ReproduceOptions& opt) {
  const std::string& src = ex.source();
  std::vector<double> ks =
      opt.quick ? std::vector<double>{1e5, 1e7, 1e12}
                : std::vector<double>{1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13};
  const double T = opt.quick ? 1.0 : 3.0;
  ex.Text("40 bodies with walls, τ_d = 1e-4 s, δt = 5 ms, " + Fmt(T) +
          " s per stiffness (scenes/paper/clutter_stiffness.yaml). Penetration is the mean of the "
          "step's deepest contact over the last 1.25 s (last third in quick mode).");
  PlotSeries it{"mean iterations"}, pen{"mean penetration"};
  std::ostringstream tab;
  tab << "| k [N/m] | mean iterations | max iterations | failed steps | mean penetration [m] |\n"
         "|---|---|---|---|---|\n";
  bool robust = true;
  double fail13 = kNaN;
  for (double k : ks) {
    const Scene sc =
        Load(opt, "clutter_stiffness.yaml", {"materials.clutter.stiffness=" + Fmt(k, 17)});
    const double from = opt.quick ? 2.0 * T / 3 : T - 1.25;
    std::vector<double> p;
    double iters = 0, max_it = 0;
    const RunLog log = Run(sc, Steps(sc, T));
    for (const StepLog& s : log.steps) {
      iters += s.iterations;
      max_it = std::max<double>(max_it, s.iterations);
      if (s.t > from) p.push_back(s.penetration);
    }
    const int failed = log.failures + (log.finite ? 0 : 1);
    iters /= std::max<size_t>(1, log.steps.size());
    tab << "| " << Fmt(k) << " | " << Fmt(iters, 3) << " | " << max_it << " | " << failed << " | "
        << Fmt(Mean(p), 3) << " |\n";
    if (k <= 1e12) robust &= failed == 0;
    if (k > 1e12) fail13 = failed;
    it.x.push_back(k);
    it.y.push_back(iters);
    pen.x.push_back(k);
    pen.y.push_back(Mean(p));
  }
  ex.Text(tab.str());
  ex.Text(
      "SAP's near-rigid clamp R_n ≥ β² w/(4π²) (SAP paper eq. 29) is active for every k above "
      "about 4π² m/(β² δt²) ≈ 1e6 N/m at δt = 5 ms, so the solve, and the whole run, is "
      "identical for all larger k: the sweep is flat from there.");
  ex.Row("no failed step for k ≤ 1e12", "robust up to 1e12", kNaN, robust ? 1 : 0,
         "every solve converges", robust, src);
  if (!std::isnan(fail13)) {
    ResultRow& r = ex.Row("failed steps at k = 1e13", "fails (round-off)", kNaN, fail13,
                          "> 0 failed steps", fail13 > 0, src);
    if (fail13 == 0) {
      r.note =
          "SAP's near-rigid clamp makes every k above ≈1e6 N/m at this δt behave the same, "
          "so k never reaches the solver and there is no round-off failure. The paper's "
          "failure at 1e13 is for its own models (its SAP comparison may not clamp R_n the "
          "same way); ContactLab's k sweep cannot reproduce it by construction.";
    }
  }
  // The Hunt–Crossley models have no near-rigid clamp: k reaches the solver. Full mode only.
  if (!opt.quick) {
    const std::vector<double> kk = {1e7, 1e10, 1e12, 1e13};
    const double Tm = 1.0;
    std::ostringstream mt;
    mt << "| model | k [N/m] | mean iterations | max iterations | failed steps | mean penetration "
          "[m] |\n|---|---|---|---|---|---|\n";
    for (int mi : {kLaggedIdx, kRegularizedIdx, kSimilarIdx}) {
      bool ok12 = true;
      double f13 = kNaN, it7 = kNaN, it12 = kNaN;
      for (double k : kk) {
        const Scene sc = LoadModel(opt, "clutter_stiffness.yaml", kModels[mi].type, 10.0,
                                   {"materials.clutter.stiffness=" + Fmt(k, 17)});
        const RunLog log = Run(sc, Steps(sc, Tm));
        double iters = 0, max_it = 0;
        std::vector<double> p;
        for (const StepLog& s : log.steps) {
          iters += s.iterations;
          max_it = std::max<double>(max_it, s.iterations);
          if (s.t > 2.0 * Tm / 3) p.push_back(s.penetration);
        }
        iters /= std::max<size_t>(1, log.steps.size());
        const int failed = log.failures + (log.finite ? 0 : 1);
        mt << "| " << kModels[mi].label << " | " << Fmt(k) << " | " << Fmt(iters, 3) << " | "
           << max_it << " | " << failed << " | " << Fmt(Mean(p), 3) << " |\n";
        if (k <= 1e12) ok12 &= failed == 0;
        if (k == 1e7) it7 = iters;
        if (k == 1e12) it12 = iters;
        if (k == 1e13) f13 = failed;
      }
      const std::string L = kModels[mi].label;
      ResultRow& rk = ex.Row(L + ": no failed step for k ≤ 1e12 (1 s each)", "robust up to 1e12",
                             kNaN, ok12 ? 1 : 0, "every solve converges", ok12, src);
      if (!ok12)
        rk.note =
            "Steps hit the scene's iteration cap (max_iterations 100); the table gives "
            "the failed steps per k." +
            std::string(mi == kSimilarIdx
                            ? " Similar's coupled Hessian (compliance modulated by "
                              "k(1+μ‖v_t‖d) in the friction block) is the hardest of the "
                              "models at large k."
                            : "");
      ResultRow& r13 = ex.Row(L + ": failed steps at k = 1e13 (1 s)", "fails (round-off)", kNaN,
                              f13, "> 0 failed steps", f13 > 0, src);
      if (!(f13 > 0))
        r13.note =
            "ContactLab's solve converges at k = 1e13 for this model (no round-off "
            "failure in 1 s); see the table for iterations.";
      ex.Info(L + ": mean iterations at k = 1e12 / at 1e7",
              "grows with k, within 20 % up to steel stiffness (Fig. 18)", it12 / it7, src,
              "Mean Newton iterations per step over 1 s.");
    }
    ex.Text("Hunt–Crossley models, 1 s per stiffness (no near-rigid clamp):\n\n" + mt.str());
  }
  it.color = kBlue;
  pen.color = kRed;
  ex.Plot("iterations", {"Stiffness sweep: mean iterations", "k [N/m]", "iterations", true, false},
          {it}, "Mean Newton iterations per step against contact stiffness (Fig. 18).");
  ex.Plot("penetration", {"Stiffness sweep: penetration", "k [N/m]", "m", true, true}, {pen},
          "Mean steady penetration against stiffness (Fig. 17); flat above the near-rigid k.");
}

// Irrotational contact fields §X-A: clutter per contact model (Figs. 14-16).

namespace {

struct ClutterModelStats {
  double it_transient = kNaN, it_steady = kNaN, max_it = 0;
  double cond_transient = kNaN, cond_steady = kNaN;  // medians of the sampled cond₂(H)
  double eps_s = kNaN;  // median over sampled steps of the mean effective stiction tolerance
  int failures = 0, steps = 0;
  PlotSeries iterations;
};

double Median(std::vector<double> v) {
  if (v.empty()) return kNaN;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Runs `sc` for `T` seconds; "transient" is t < split, "steady" t >= split. cond₂(H) at the
// converged iterate of a re-solve with the condition number on, every `stride` steps.
ClutterModelStats RunClutterModel(const Scene& sc, double T, double split, int stride) {
  ClutterModelStats cs;
  SapParameters cond_params = sc.settings.sap;
  cond_params.compute_condition_number = true;
  std::vector<double> it_tr, it_st, c_tr, c_st, eps;
  const RunLog log = Run(sc, Steps(sc, T), [&](const Simulator& sim, const StepRecord& rec) {
    if (rec.step % stride != stride - 1) return;
    const SolverResult r = sim.Resolve(rec, cond_params);
    double c = kNaN;
    // cond₂(H) as the solver declares it (SAP: "condition_number"), the last recorded value.
    const std::vector<double> cond_series = r.stats.iteration_log.Column("condition_number");
    for (size_t k = cond_series.size(); k-- > 0 && std::isnan(c);) c = cond_series[k];
    (rec.after.time < split ? c_tr : c_st).push_back(c);
    // Effective stiction tolerance: ε_s of the Hunt–Crossley laws; for SAP the slip at which its
    // regularized friction γ_t = −v_t / R_t reaches the cone, R_t μ γ_n (R_t = σ w).
    double sum = 0;
    int n = 0;
    for (size_t i = 0; i < rec.problem.constraints.size(); ++i) {
      const ConstraintData& cd = rec.problem.constraints[i];
      if (cd.kind != ConstraintKind::kFrictionCone) continue;
      const double gn = rec.result.gamma(cd.first_row + 2);
      if (gn <= 0) continue;
      const int ii = static_cast<int>(i);
      const double e = sc.settings.contact.model == ContactModelType::kLinear
                           ? rec.result.laws.Constant(ii, "R_t") * cd.friction * gn
                           : rec.result.laws.Constant(ii, "eps_s", kNaN);
      if (std::isfinite(e)) {
        sum += e;
        ++n;
      }
    }
    if (n > 0) eps.push_back(sum / n);
  });
  for (const StepLog& s : log.steps) {
    (s.t < split ? it_tr : it_st).push_back(s.iterations);
    cs.max_it = std::max<double>(cs.max_it, s.iterations);
    cs.iterations.x.push_back(s.t);
    cs.iterations.y.push_back(s.iterations);
  }
  cs.it_transient = Mean(it_tr);
  cs.it_steady = Mean(it_st);
  cs.cond_transient = Median(c_tr);
  cs.cond_steady = Median(c_st);
  cs.eps_s = Median(eps);
  cs.failures = log.failures + (log.finite ? 0 : 1);
  cs.steps = static_cast<int>(log.steps.size());
  return cs;
}

}  // namespace

void ClutterModels(Experiment& ex, const ReproduceOptions& opt) {
  const std::string& src = ex.source();
  const double T = opt.quick ? 1.0 : 3.0;
  const double split = opt.quick ? 1e9 : 2.0;  // the paper's transient lasts until ≈2 s
  const int stride = opt.quick ? 40 : 20;
  ex.Text(
      "40 bodies with walls (scenes/paper/clutter_stiffness.yaml: k = 1e7 N/m, τ_d = 1e-4 s, "
      "d = 10 s/m, μ = 1, σ = 1e-3, v_s = 1e-4 m/s, ε_r = 1e-5), δt = 5 ms, " +
      Fmt(T) + " s per model; " +
      (opt.quick ? std::string("the whole run is the transient (quick mode)")
                 : "transient t < " + Fmt(split) + " s") +
      ". cond₂(H) at the converged iterate of a re-solve every " + std::to_string(stride) +
      " steps (median over the samples). Effective stiction tolerance: ε_s of the "
      "Hunt–Crossley laws, R_t μ γ_n for SAP (mean over loaded contacts, median over "
      "samples).");
  ClutterModelStats cm[4];
  std::ostringstream tab;
  tab << "| model | mean iterations, transient | mean iterations, steady | max iterations | "
         "cond(H) transient | cond(H) steady | effective stiction tolerance [m/s] | failed "
         "steps |\n|---|---|---|---|---|---|---|---|\n";
  std::vector<PlotSeries> its;
  for (int mi = 0; mi < 4; ++mi) {
    const Scene sc = LoadModel(opt, "clutter_stiffness.yaml", kModels[mi].type, 10.0);
    cm[mi] = RunClutterModel(sc, T, split, stride);
    const ClutterModelStats& c = cm[mi];
    tab << "| " << kModels[mi].label << " | " << Fmt(c.it_transient, 3) << " | "
        << Fmt(c.it_steady, 3) << " | " << c.max_it << " | " << Fmt(c.cond_transient, 3) << " | "
        << Fmt(c.cond_steady, 3) << " | " << Fmt(c.eps_s, 3) << " | " << c.failures << " |\n";
    PlotSeries p = c.iterations;
    p.label = kModels[mi].label;
    p.color = kPalette[mi];
    p.markers = false;
    its.push_back(p);
    ex.Row(std::string(kModels[mi].label) + ": failed steps", "none (every model converges)", 0,
           c.failures, "0", c.failures == 0, src);
  }
  ex.Text(tab.str());
  const ClutterModelStats &sap = cm[kLinearIdx], &lag = cm[kLaggedIdx], &reg = cm[kRegularizedIdx],
                          &sim = cm[kSimilarIdx];
  ex.Row("Lagged / SAP mean iterations in the transient",
         "> 1 (Lagged and Similar iterate more during the transient)", kNaN,
         lag.it_transient / sap.it_transient, "> 1", lag.it_transient > sap.it_transient, src);
  ex.Row("Similar / SAP mean iterations in the transient",
         "> 1 (Lagged and Similar iterate more during the transient)", kNaN,
         sim.it_transient / sap.it_transient, "> 1", sim.it_transient > sap.it_transient, src);
  ex.Row("Regularized Lagged / Lagged mean iterations in the transient",
         "< 1 (regularization cuts transient iterations)", kNaN,
         reg.it_transient / lag.it_transient, "< 1", reg.it_transient < lag.it_transient, src);
  ResultRow& ctr = ex.Row(
      "Lagged / SAP cond(H) in the transient", "> 1 (higher during the transient)", kNaN,
      lag.cond_transient / sap.cond_transient, "> 1", lag.cond_transient > sap.cond_transient, src);
  if (!(lag.cond_transient > sap.cond_transient))
    ctr.note = "The median over samples in t < " + Fmt(split) +
               " s; Lagged's cond(H) is far above SAP's in the first second (the quick mode's "
               "row) and falls below it as the pile settles. The iterations follow the paper.";
  if (!opt.quick) {
    ex.Row("SAP / Lagged mean iterations at steady state",
           "> 1 (SAP's are higher after the transient)", kNaN, sap.it_steady / lag.it_steady, "> 1",
           sap.it_steady > lag.it_steady, src);
    ex.Row("SAP / Lagged cond(H) at steady state", "> 1 (SAP's are higher after the transient)",
           kNaN, sap.cond_steady / lag.cond_steady, "> 1", sap.cond_steady > lag.cond_steady, src);
  }
  ex.Row("Lagged effective stiction tolerance [m/s]", "flat at v_s = 1e-4 (Fig. 15)", 1e-4,
         lag.eps_s, "±1 % (ε_s = v_s by definition)", std::abs(lag.eps_s / 1e-4 - 1) <= 0.01, src);
  ex.Info("Regularized Lagged effective stiction tolerance [m/s]",
          "varies with γ_n: max(v_s, σ w μ γ_n0) (Fig. 15)", reg.eps_s, src,
          "Median over the sampled steps of the mean over loaded contacts.");
  ex.Plot("iterations",
          {"Clutter per model: Newton iterations", "t [s]", "iterations", false, false}, its,
          "Newton iterations per step against time, per contact model (Fig. 14).");

  // δt sweep of the conditioning (Fig. 16): full mode only.
  if (opt.quick) return;
  const std::vector<double> hs = {1e-2, 5e-3, 2.5e-3};
  std::ostringstream dt_tab;
  dt_tab << "| δt [s] |";
  for (const ModelDef& md : kModels) dt_tab << " " << md.label << ": iterations, cond(H) |";
  dt_tab << "\n|---|---|---|---|---|\n";
  double cond[4][3];
  std::vector<PlotSeries> cs_series(4);
  for (size_t hi = 0; hi < hs.size(); ++hi) {
    dt_tab << "| " << hs[hi] << " |";
    for (int mi = 0; mi < 4; ++mi) {
      const Scene sc = LoadModel(opt, "clutter_stiffness.yaml", kModels[mi].type, 10.0,
                                 {"time_step=" + Fmt(hs[hi], 17)});
      const int n = Steps(sc, 1.5);
      const ClutterModelStats c = RunClutterModel(sc, 1.5, 10.0, std::max(1, n / 15));
      cond[mi][hi] = c.cond_transient;
      dt_tab << " " << Fmt(c.it_transient, 3) << ", " << Fmt(c.cond_transient, 3) << " |";
      cs_series[mi].label = kModels[mi].label;
      cs_series[mi].color = kPalette[mi];
      cs_series[mi].x.push_back(hs[hi]);
      cs_series[mi].y.push_back(c.cond_transient);
    }
    dt_tab << "\n";
  }
  ex.Text("δt sweep (1.5 s each; mean iterations, median cond(H) over 15 samples):\n\n" +
          dt_tab.str());
  {
    const double lo = std::min({cond[0][0], cond[0][1], cond[0][2]});
    const double hi = std::max({cond[0][0], cond[0][1], cond[0][2]});
    ex.Row("SAP: max / min cond(H) over δt = 1e-2 … 2.5e-3",
           "≈1 (SAP's conditioning is nearly "
           "independent of δt)",
           1, hi / lo, "< 3 (a factor 4 in δt)", hi / lo < 3, src);
  }
  ex.Row("Lagged: cond(H) at δt = 1e-2 / at 2.5e-3", "> 1 (improves as δt drops)", kNaN,
         cond[kLaggedIdx][0] / cond[kLaggedIdx][2], "> 1",
         cond[kLaggedIdx][0] > cond[kLaggedIdx][2], src);
  ex.Row("Similar: cond(H) at δt = 1e-2 / at 2.5e-3", "> 1 (improves as δt drops)", kNaN,
         cond[kSimilarIdx][0] / cond[kSimilarIdx][2], "> 1",
         cond[kSimilarIdx][0] > cond[kSimilarIdx][2], src);
  ex.Row("Regularized Lagged / Lagged cond(H) at δt = 1e-2",
         "< 1 (regularization helps at large δt)", kNaN,
         cond[kRegularizedIdx][0] / cond[kLaggedIdx][0], "< 1",
         cond[kRegularizedIdx][0] < cond[kLaggedIdx][0], src);
  ex.Plot("cond_dt", {"Clutter per model: cond(H) vs dt", "dt [s]", "cond(H)", true, true},
          cs_series, "Median condition number of H against δt, per model (Fig. 16).");
}

}  // namespace reproduce
}  // namespace contactlab
