// `contactlab reproduce`, seed 004: "A Theory of Irrotational Contact Fields" (Castro, Han,
// Masterjohn), §IX-A conveyor belt, §IX-B falling sphere, §IX-C sliding rod, §X-A clutter stiffness.
#include "app/reproduce/papers.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "app/reproduce/experiment.h"
#include "engine/inspect/metrics.h"

namespace contactlab {
namespace reproduce {

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
      " s. Only SAP exists in ContactLab; the "
      "paper's Lagged and Similar models are not implemented. Reference: the 1D box with exact "
      "Coulomb friction integrated at 1e-6 s.");
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
  ex.Plot("convergence", {"Conveyor belt: e_q vs dt", "dt [s]", "e_q [m]", true, true},
          {{"SAP", dts, errs, kBlue}}, "Box position error against exact Coulomb (Fig. 3).");
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
              "at 1e-5 s).";
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
  it.color = kBlue;
  pen.color = kRed;
  ex.Plot("iterations", {"Stiffness sweep: mean iterations", "k [N/m]", "iterations", true, false},
          {it}, "Mean Newton iterations per step against contact stiffness (Fig. 18).");
  ex.Plot("penetration", {"Stiffness sweep: penetration", "k [N/m]", "m", true, true}, {pen},
          "Mean steady penetration against stiffness (Fig. 17); flat above the near-rigid k.");
}

}  // namespace reproduce
}  // namespace contactlab
