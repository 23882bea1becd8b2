// `contactlab reproduce`, seed 000: the SAP paper (Castro, Permenter, Han: "An Unconstrained
// Convex Formulation of Compliant Contact"), §VI-B spring-cylinder and §VI-C clutter.
#include "app/reproduce/papers.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "app/reproduce/experiment.h"
#include "engine/inspect/metrics.h"

namespace contactlab {
namespace reproduce {

// ---------------------------------------------------------------------------------------------
// SAP paper §VI-B: spring-cylinder.

namespace {

// Rigid-rolling (or frictionless) exact solution x(t) = x0 cos(ω t).
struct CylinderModel {
  double x0 = 0.1, omega = 0;
};

CylinderModel CylinderExact(const Scene& scene, bool rolling) {
  const Model& m = scene.model;
  double mass = 0;
  for (const Body& b : m.bodies) mass += b.joint >= 0 ? b.mass : 0.0;
  const int cyl = m.FindBody("cylinder");
  const int jz = m.FindJoint("slide_z");
  const double R = 0.05;
  // The contact point sits midway between the surfaces, δ/2 below the ground plane, so the
  // rolling radius is R − δ/2 with δ the rest penetration set by slide_z's initial position.
  const double delta = -m.q_default(m.joints[jz].q_start);
  const double r_roll = R - 0.5 * delta;
  const double k_s = m.joints[m.FindJoint("slide_x")].spring_stiffness;
  const double m_eff = mass + (rolling ? m.bodies[cyl].inertia(1, 1) / (r_roll * r_roll) : 0.0);
  CylinderModel c;
  c.x0 = m.q_default(m.joints[m.FindJoint("slide_x")].q_start);
  c.omega = std::sqrt(k_s / m_eff);
  return c;
}

}  // namespace

void SpringCylinder(Experiment& ex, const ReproduceOptions& opt) {
  const std::string& src = ex.source();
  ex.Text(
      "Cylinder R = 5 cm, 0.5 kg on compliant ground (k = 1e4 N/m, τ_d = 0.02 s) tied to a wall "
      "by a 100 N/m spring, released at x0 = 0.1 m, δt = 0.02 s "
      "(scenes/paper/spring_cylinder*.yaml). "
      "Energy is kinetic + gravity + spring; the contact's own elastic energy is not included "
      "(about 1e-3 J against 0.5 J).");
  const char* integrators[] = {"midpoint", "symplectic_euler", "implicit_euler"};
  const double t_energy = 10.0;  // 500 steps: cheap, and the bands depend on the window
  std::map<std::string, std::vector<double>> band;  // per integrator and friction
  std::vector<PlotSeries> energy_series[2];
  for (int friction = 0; friction < 2; ++friction) {
    for (int k = 0; k < 3; ++k) {
      const Scene sc = Load(opt, friction ? "spring_cylinder_mu1.yaml" : "spring_cylinder.yaml",
                            {std::string("integrator=") + integrators[k]});
      const RunLog log = Run(sc, Steps(sc, t_energy));
      PlotSeries ps;
      ps.label = integrators[k];
      ps.color = kPalette[k];
      ps.markers = false;
      double lo = log.energy0, hi = log.energy0;
      for (const StepLog& s : log.steps) {
        const double e = s.kinetic + s.potential;
        ps.x.push_back(s.t);
        ps.y.push_back(e);
        lo = std::min(lo, e);
        hi = std::max(hi, e);
      }
      // Energy relative to the rest state (gravity energy of the cylinder at its rest height),
      // so the band is relative to the spring's initial energy ½ k_s x0².
      const double e_spring = 0.5 * 100.0 * 0.1 * 0.1;
      const double e_rest = log.energy0 - e_spring;
      for (double& y : ps.y) y -= e_rest;
      band[std::string(integrators[k]) + (friction ? "_mu1" : "_mu0")] = {
          100.0 * (hi - lo) / e_spring,
          (log.steps.back().kinetic + log.steps.back().potential - e_rest) / e_spring};
      // Energy after five periods (implicit Euler's dissipation).
      const CylinderModel cm = CylinderExact(sc, friction == 1);
      const double t5 = 5 * 2 * kPi / cm.omega;
      for (const StepLog& s : log.steps) {
        if (s.t >= t5) {
          band[std::string(integrators[k]) + (friction ? "_mu1" : "_mu0")].push_back(
              (s.kinetic + s.potential - e_rest) / e_spring);
          break;
        }
      }
      energy_series[friction].push_back(ps);
    }
  }
  ex.Row("μ=0 midpoint: energy band peak-to-peak [%]", "0 (conserved exactly)", 0,
         band["midpoint_mu0"][0],
         "< 0.1 % (solver tolerance 1e-10; no dissipation without friction)",
         band["midpoint_mu0"][0] < 0.1, src);
  ex.Row("μ=0 symplectic Euler: energy band peak-to-peak [%]", "28", 28,
         band["symplectic_euler_mu0"][0],
         "±3 points (the text quotes a rounded band; it equals ω δt = 0.28 for this scheme)",
         std::abs(band["symplectic_euler_mu0"][0] - 28) <= 3, src);
  const double ie5 = band["implicit_euler_mu0"].size() > 2 ? band["implicit_euler_mu0"][2] : kNaN;
  ex.Row("μ=0 implicit Euler: energy after 5 periods / initial", "dissipated within a few periods",
         kNaN, ie5, "< 0.05 (\"dissipated\" read as less than 5 % left)", ie5 < 0.05, src);
  ex.Row("μ=1 midpoint: energy band peak-to-peak [%]", "0.16", 0.16, band["midpoint_mu1"][0],
         "within a factor 2 (friction dissipation scales with R_t = σ w, and w is an estimate)",
         band["midpoint_mu1"][0] >= 0.08 && band["midpoint_mu1"][0] <= 0.32, src);
  if (band["midpoint_mu1"][0] > 0.32) {
    ex.mutable_rows().back().note =
        "Over 10 s the band is dominated by the slow decay, so it measures the same dissipation "
        "as the 10 % loss time below. ContactLab's rolling cylinder loses energy about 2x faster "
        "than the paper's. The dissipation comes from SAP's regularized stiction (slip R_t γ_t, "
        "R_t = σ w with w = ‖W_ii‖_F/3 as in eq. 29); the σ/√3 diagnostic row below shows the loss "
        "is proportional to R_t, so any difference in the effective w between the two "
        "implementations shows up directly in this rate.";
  }
  {
    // The same run with the engine's cylinder collision shape instead of the capsule.
    const Scene sc = Load(opt, "spring_cylinder_mu1.yaml",
                          {"integrator=midpoint", "bodies.cylinder.geoms.0.shape=cylinder"});
    const RunLog log = Run(sc, Steps(sc, t_energy));
    const double e_rest = log.energy0 - 0.5;
    double lo = 0.5, hi = 0.5;
    for (const StepLog& s : log.steps) {
      lo = std::min(lo, s.kinetic + s.potential - e_rest);
      hi = std::max(hi, s.kinetic + s.potential - e_rest);
    }
    const double b = 100.0 * (hi - lo) / 0.5;
    ex.Row("μ=1 midpoint, cylinder collision shape: energy band peak-to-peak [%]", "0.16", 0.16, b,
           "within a factor 2 (as above)", b >= 0.08 && b <= 0.32, src)
        .note =
        "Engine defect, not physics: the half-space vs cylinder contact of the engine (rim "
        "points) makes the rolling cylinder hop and lose energy; the scene uses a capsule "
        "of the same radius and length, which touches the ground on the same line.";
  }
  ex.Plot("energy_mu0",
          {"Spring-cylinder, frictionless: energy", "t [s]", "E - E_rest [J]", false, false},
          energy_series[0],
          "Mechanical energy above the rest state, μ = 0, δt = 0.02 s (SAP paper Fig. 5).");
  ex.Plot("energy_mu1",
          {"Spring-cylinder, mu = 1: energy", "t [s]", "E - E_rest [J]", false, false},
          energy_series[1], "Mechanical energy above the rest state, μ = 1, δt = 0.02 s (Fig. 6).");

  // Long run: time for the rolling cylinder to lose 10 % of its energy with midpoint.
  {
    const double t_long = opt.quick ? 30.0 : 600.0;
    const Scene sc = Load(opt, "spring_cylinder_mu1.yaml", {"integrator=midpoint"});
    const RunLog log = Run(sc, Steps(sc, t_long));
    const double e_spring = 0.5;
    const double e_rest = log.energy0 - e_spring;
    double t10 = kNaN;
    std::vector<double> ts, es;
    for (const StepLog& s : log.steps) {
      const double frac = (s.kinetic + s.potential - e_rest) / e_spring;
      ts.push_back(s.t);
      es.push_back(frac);
      if (std::isnan(t10) && frac < 0.9) t10 = s.t;
    }
    std::string how = "first time below 90 %";
    if (std::isnan(t10)) {
      // Not reached within the run: extrapolate the mean loss rate linearly.
      const double slope = LinearSlope(ts, es);
      t10 = slope < 0 ? 0.1 / -slope : std::numeric_limits<double>::infinity();
      how = "extrapolated from the mean loss rate over " + Fmt(t_long) + " s";
    }
    ResultRow& r =
        ex.Row("μ=1 midpoint: time to lose 10 % of the energy [s]", "600 (\"10 min\")", 600, t10,
               "within a factor 2 (same reason as the band)", t10 >= 300 && t10 <= 1200, src);
    r.note =
        how + "." + (t10 < 300 ? " Faster loss than the paper's: see the energy band row." : "");
  }
  {
    // Diagnostic for the loss rate: the energy lost in 60 s at σ and at σ/√3. A ratio near √3
    // means the loss is the regularized-friction dissipation, proportional to R_t = σ w.
    double lost[2] = {0, 0};
    const double sigma = Load(opt, "spring_cylinder_mu1.yaml").settings.sap.sigma;
    for (int i = 0; i < 2; ++i) {
      const Scene sc = Load(opt, "spring_cylinder_mu1.yaml",
                            {"integrator=midpoint",
                             "solver.sigma=" + Fmt(i == 0 ? sigma : sigma / std::sqrt(3.0), 17)});
      const RunLog log = Run(sc, Steps(sc, 60.0));
      lost[i] = log.energy0 - (log.steps.back().kinetic + log.steps.back().potential);
    }
    ex.Info("μ=1 midpoint: energy lost in 60 s at σ over that at σ/√3", "-", lost[0] / lost[1], src,
            "Diagnostic, not a paper figure: ≈√3 = 1.73 means the loss is proportional to "
            "R_t = σ w: the 10 % loss time scales as 1/(σ w).");
  }

  // Order study against the exact solution x0 cos(ω t), T = 5 s.
  // δt = 0.01 / 2^i. The order is an asymptotic property, so it is fitted over the three smallest
  // steps: at the larger ones implicit Euler's numerical damping (amplitude factor
  // exp(−ω² δt T / 2)) has removed most of the motion and its error saturates.
  std::vector<double> dts;
  for (int i = 0; i < (opt.quick ? 5 : 7); ++i) dts.push_back(0.01 / (1 << i));
  const std::vector<double> fit_dts(dts.end() - 3, dts.end());
  std::vector<PlotSeries> order_series;
  std::ostringstream tab;
  tab << "| scheme | friction |";
  for (double dt : dts) tab << " e_q(δt=" << dt << ") |";
  tab << " fitted order |\n|---|---|";
  for (size_t i = 0; i < dts.size(); ++i) tab << "---|";
  tab << "---|\n";
  const double expected[] = {2, 1, 1};
  for (int friction = 0; friction < 2; ++friction) {
    for (int k = 0; k < 3; ++k) {
      std::vector<double> errs;
      for (double dt : dts) {
        const Scene sc =
            Load(opt, friction ? "spring_cylinder_mu1.yaml" : "spring_cylinder.yaml",
                 {std::string("integrator=") + integrators[k], "time_step=" + Fmt(dt, 17)});
        const CylinderModel cm = CylinderExact(sc, friction == 1);
        const int qx = sc.model.joints[sc.model.FindJoint("slide_x")].q_start;
        Trajectory x, ref;
        VecX v1(1);
        v1(0) = cm.x0;
        x.Add(0, v1);
        Run(sc, Steps(sc, 5.0), [&](const Simulator&, const StepRecord& rec) {
          VecX xi(1);
          xi(0) = rec.after.q(qx);
          x.Add(rec.after.time, xi);
        });
        for (double t : x.t) {
          VecX e(1);
          e(0) = cm.x0 * std::cos(cm.omega * t);
          ref.Add(t, e);
        }
        errs.push_back(PositionErrorRms(x, ref));
      }
      const double order = LogLogSlope(fit_dts, std::vector<double>(errs.end() - 3, errs.end()));
      tab << "| " << integrators[k] << " | μ=" << friction << " |";
      for (double e : errs) tab << " " << Fmt(e, 3) << " |";
      tab << " " << Fmt(order, 3) << " |\n";
      PlotSeries ps;
      ps.label = std::string(integrators[k]) + (friction ? " mu=1" : " mu=0");
      ps.x = dts;
      ps.y = errs;
      ps.color = kPalette[k];
      ps.dashed = friction == 0;
      order_series.push_back(ps);
      ex.Row(std::string(integrators[k]) + (friction ? ", μ=1" : ", μ=0") + ": order of e_q in δt",
             Fmt(expected[k]), expected[k], order,
             "±0.3 (least-squares slope over the three smallest δt, " + Fmt(fit_dts.front()) +
                 " to " + Fmt(fit_dts.back()) + " s; the paper's δt range is only in its Fig. 7)",
             std::abs(order - expected[k]) <= 0.3, src);
    }
  }
  ex.Text(
      "Position error e_q of x against x0 cos(ω t) over T = 5 s (ω from the rigid model: "
      "m_eff = total sliding mass, plus I/r² when rolling, r = R − δ/2 the distance to the "
      "contact point):\n\n" +
      tab.str());
  ex.Plot("order", {"Spring-cylinder: e_q vs time step", "dt [s]", "e_q [m]", true, true},
          order_series, "Order study (SAP paper Fig. 7). Dashed: μ = 0; solid: μ = 1.");
}

// ---------------------------------------------------------------------------------------------
// SAP paper §VI-C: clutter.

namespace {

struct ClutterStats {
  double mean_steady_iterations = kNaN, max_iterations = 0, step60_iterations = kNaN;
  double max_momentum_error = 0, mean_solve_ms = 0, mean_steady_slip = kNaN;
  int failures = 0, steps = 0;
  double cond_final = kNaN;
  PlotSeries iterations;
};

ClutterStats RunClutter(const Scene& sc, double duration, double steady_from, bool cond) {
  ClutterStats cs;
  std::vector<double> steady_it, steady_slip;
  double solve = 0;
  SapParameters cond_params = sc.settings.sap;
  cond_params.compute_condition_number = true;
  const int n = Steps(sc, duration);
  const RunLog log = Run(sc, n, [&](const Simulator& sim, const StepRecord& rec) {
    if (cond && rec.step == n - 1) {
      const SolverResult r = sim.Resolve(rec, cond_params);
      // cond₂(H) as the solver declares it (SAP: "condition_number"); the last row may have
      // none when the solve stopped before assembling H there.
      const std::vector<double> cond_series = r.stats.iteration_log.Column("condition_number");
      if (!cond_series.empty()) cs.cond_final = cond_series.back();
      if (std::isnan(cs.cond_final) && cond_series.size() > 1)
        cs.cond_final = cond_series[cond_series.size() - 2];
    }
  });
  for (size_t i = 0; i < log.steps.size(); ++i) {
    const StepLog& s = log.steps[i];
    cs.iterations.x.push_back(s.t);
    cs.iterations.y.push_back(s.iterations);
    cs.max_iterations = std::max<double>(cs.max_iterations, s.iterations);
    if (i + 1 == 60) cs.step60_iterations = s.iterations;
    if (s.converged) cs.max_momentum_error = std::max(cs.max_momentum_error, s.momentum_error);
    solve += s.solve_ms;
    if (s.t > steady_from + 1e-9) {
      steady_it.push_back(s.iterations);
      steady_slip.push_back(s.slip);
    }
  }
  cs.failures = log.failures + (log.finite ? 0 : 1);
  cs.steps = static_cast<int>(log.steps.size());
  cs.mean_solve_ms = solve / std::max<size_t>(1, log.steps.size());
  cs.mean_steady_iterations = Mean(steady_it);
  cs.mean_steady_slip = Mean(steady_slip);
  return cs;
}

}  // namespace

void Clutter(Experiment& ex, const ReproduceOptions& opt) {
  const std::string& src = ex.source();
  const double T = opt.quick ? 3.0 : 10.0;
  const double steady = opt.quick ? 2.0 : 5.0;
  ex.Text(
      "40 bodies (spheres 0.524 kg, boxes 1 kg) dropped in 4 columns, k = 1e12 N/m, "
      "τ_d = δt = 10 ms, μ = 1, σ = 1e-3, ε_r = 1e-5, " +
      Fmt(T) +
      " s simulated "
      "(scenes/paper/clutter_40*.yaml). Steady state: t > " +
      Fmt(steady) + " s.");
  std::vector<PlotSeries> series;
  for (int walls = 1; walls >= 0; --walls) {
    const Scene sc = Load(opt, walls ? "clutter_40_walls.yaml" : "clutter_40.yaml");
    ClutterStats cs = RunClutter(sc, T, steady, false);
    const std::string v = walls ? "with walls" : "no walls";
    if (walls) {
      ex.Row("with walls: mean Newton iterations per step, steady state", "≈3", 3,
             cs.mean_steady_iterations,
             "1.5 to 6 (factor 2: the count depends on the pile's configuration, and the "
             "jitter of the initial columns is not the paper's)",
             cs.mean_steady_iterations >= 1.5 && cs.mean_steady_iterations <= 6, src);
      ex.Row("with walls: iterations at step 60 (transient)", "21", 21, cs.step60_iterations,
             "10 to 42 (factor 2, same reason)",
             cs.step60_iterations >= 10 && cs.step60_iterations <= 42, src);
    } else {
      ex.Info("no walls: mean Newton iterations per step, steady state", "not given (figure only)",
              cs.mean_steady_iterations, src, "");
    }
    ex.Row(v + ": max momentum error e_m over all steps", "< 1e-5 (the tolerance)", 1e-5,
           cs.max_momentum_error, "< 1e-5, and no failed step",
           cs.max_momentum_error < 1e-5 && cs.failures == 0, src)
        .note = cs.failures ? Fmt(cs.failures) + " steps did not converge." : "";
    ex.Info(v + ": max iterations in a step", "21 (walls, worst shown)", cs.max_iterations, src,
            "");
    cs.iterations.label = v;
    cs.iterations.color = walls ? kBlue : kOrange;
    cs.iterations.markers = false;
    series.push_back(cs.iterations);
  }
  ex.Plot("iterations",
          {"Clutter: Newton iterations per step", "t [s]", "iterations", false, false}, series,
          "Newton iterations per step (SAP paper Fig. 9).");
}

void ClutterScaling(Experiment& ex, const ReproduceOptions& opt) {
  const std::string& src = ex.source();
  std::vector<int> counts =
      opt.quick ? std::vector<int>{8, 20, 40} : std::vector<int>{8, 20, 40, 80, 160, 320};
  const double T = opt.quick ? 1.0 : 3.0;
  ex.Text(
      "Clutter with walls, N bodies in columns (N = 8, 20, 40: 2×2 columns; 80, 160, 320: 4×4 "
      "columns at 0.2 m spacing), " +
      Fmt(T) +
      " s each. The paper's timings are relative to "
      "Gurobi and the Geodesic IPM, which ContactLab does not have, so only accuracy and "
      "ContactLab's own cost are reported.");
  PlotSeries ms{"mean solve ms"}, it{"mean iterations"};
  std::vector<double> ns, times;
  std::ostringstream tab;
  tab << "| N | steps | mean iterations | max iterations | mean solve [ms] | max e_m | failures |\n"
         "|---|---|---|---|---|---|---|\n";
  bool all_ok = true;
  double worst_em = 0;
  for (int n : counts) {
    std::vector<std::string> ov;
    if (n <= 40) {
      ov = {"generators.body.grid.count=[2, 2, " + std::to_string(n / 4) + "]"};
    } else {
      ov = {"generators.body.grid.count=[4, 4, " + std::to_string(n / 16) + "]",
            "generators.body.grid.spacing=[0.2, 0.2, 0.15]",
            "generators.body.grid.origin=[-0.3, -0.3, 0.1]"};
    }
    const Scene sc = Load(opt, "clutter_40_walls.yaml", ov);
    const ClutterStats cs = RunClutter(sc, T, 0, false);
    tab << "| " << n << " | " << cs.steps << " | " << Fmt(cs.mean_steady_iterations, 3) << " | "
        << cs.max_iterations << " | " << Fmt(cs.mean_solve_ms, 3) << " | "
        << Fmt(cs.max_momentum_error, 2) << " | " << cs.failures << " |\n";
    ns.push_back(n);
    times.push_back(cs.mean_solve_ms);
    ms.x.push_back(n);
    ms.y.push_back(cs.mean_solve_ms);
    it.x.push_back(n);
    it.y.push_back(cs.mean_steady_iterations);
    all_ok &= cs.max_momentum_error < 1e-5 && cs.failures == 0;
    worst_em = std::max(worst_em, cs.max_momentum_error);
  }
  ex.Text(tab.str());
  ex.Row("max e_m over all sizes", "< 1e-5 at every size", 1e-5, worst_em,
         "< 1e-5 and no failed step at every N", all_ok, src);
  ex.Info("exponent of mean solve time in N", "figure only (relative to Gurobi)",
          LogLogSlope(ns, times), src,
          "ContactLab's own cost; the paper's speedups need Gurobi and Conex.");
  ms.color = kBlue;
  it.color = kOrange;
  ex.Plot("time", {"Clutter scaling: solve time per step", "bodies", "ms", true, true}, {ms},
          "Mean SAP solve time per step against body count (with walls).");
  ex.Plot("iterations",
          {"Clutter scaling: iterations per step", "bodies", "iterations", true, false}, {it},
          "Mean Newton iterations per step against body count.");
}

void SigmaSweep(Experiment& ex, const ReproduceOptions& opt) {
  const std::string& src = ex.source();
  std::vector<double> sigmas = opt.quick ? std::vector<double>{1e-4, 1e-3, 1e-2}
                                         : std::vector<double>{1e-5, 1e-4, 1e-3, 1e-2, 1e-1};
  const double T = opt.quick ? 2.0 : 5.0;
  const double steady = T - 1.0;
  ex.Text("Clutter, 40 bodies with walls, δt = 10 ms, " + Fmt(T) +
          " s per σ; slip and "
          "iterations averaged over t > " +
          Fmt(steady) +
          " s; cond(H) of the last step "
          "(re-solved with the dense eigenvalue computation), at the final Newton iterate.");
  PlotSeries slip{"mean stiction slip"}, bound{"sigma mu dt g"}, cond{"cond(H)"},
      iters{"iterations"};
  std::vector<double> conds, its, log_inv;
  const double g = 9.81, mu = 1.0, dt = 0.01;
  for (double s : sigmas) {
    const Scene sc = Load(opt, "clutter_40_walls.yaml", {"solver.sigma=" + Fmt(s, 17)});
    const ClutterStats cs = RunClutter(sc, T, steady, true);
    const double vs = s * mu * dt * g;
    ex.Row("σ=" + Fmt(s) + ": mean steady stiction slip [m/s]", "< σ μ δt g = " + Fmt(vs, 3), vs,
           cs.mean_steady_slip, "< σ μ δt g (the paper's bound)", cs.mean_steady_slip < vs, src);
    slip.x.push_back(s);
    slip.y.push_back(cs.mean_steady_slip);
    bound.x.push_back(s);
    bound.y.push_back(vs);
    cond.x.push_back(s);
    cond.y.push_back(cs.cond_final);
    iters.x.push_back(s);
    iters.y.push_back(cs.mean_steady_iterations);
    conds.push_back(cs.cond_final);
    its.push_back(cs.mean_steady_iterations);
    log_inv.push_back(std::log(1 / s));
  }
  const double cond_slope = LogLogSlope(sigmas, conds);
  ex.Row("slope of log cond(H) against log σ", "-1 (cond ∝ 1/σ)", -1, cond_slope,
         "±0.25 (a fit over the sweep; A and the normal rows bound cond(H) at large σ)",
         std::abs(cond_slope + 1) <= 0.25, src);
  const double it_slope = LinearSlope(log_inv, its);
  // Coefficient of determination of the ln(1/σ) fit.
  double r2 = kNaN;
  {
    const double mean = Mean(its);
    double ss_tot = 0, ss_res = 0;
    const double a = mean - it_slope * Mean(log_inv);
    for (size_t i = 0; i < its.size(); ++i) {
      ss_tot += (its[i] - mean) * (its[i] - mean);
      const double f = a + it_slope * log_inv[i];
      ss_res += (its[i] - f) * (its[i] - f);
    }
    r2 = ss_tot > 0 ? 1 - ss_res / ss_tot : kNaN;
  }
  ex.Row("iterations against ln(1/σ): slope", "> 0 (iterations ∝ ln 1/σ)", kNaN, it_slope,
         "slope > 0 and R² ≥ 0.8 of the linear fit in ln(1/σ) (R² = " + Fmt(r2, 3) + ")",
         it_slope > 0 && r2 >= 0.8, src)
      .note = it_slope > 0 && r2 < 0.8
                  ? "Iterations do grow with ln(1/σ), but less regularly than a straight line "
                    "over this sweep (steady-state averages over 1 s of a 40-body pile)."
                  : "";
  slip.color = kBlue;
  bound.color = kGray;
  bound.dashed = true;
  ex.Plot("slip", {"Mean steady stiction slip vs sigma", "sigma", "slip [m/s]", true, true},
          {slip, bound}, "Mean stiction slip in steady state and the bound σμδtg (Fig. 14).");
  cond.color = kRed;
  ex.Plot("cond", {"cond(H) vs sigma", "sigma", "cond(H)", true, true}, {cond},
          "Condition number of the Newton matrix at the last step (Fig. 15).");
  iters.color = kGreen;
  ex.Plot("iterations", {"Mean iterations vs sigma", "sigma", "iterations", true, false}, {iters},
          "Mean steady-state Newton iterations (Fig. 15); a straight line here is ∝ ln(1/σ).");
}

}  // namespace reproduce
}  // namespace contactlab

namespace contactlab {
namespace reproduce {

// §VI-D, Fig. 16-17: the soft-bubble gripper holds a spatula while its grip force follows a
// 16 N / 1 N square wave (period 6 s, 75 % duty). Pressure-field contact between the compliant
// bubbles and the rigid handle.
void SoftBubbleGripper(Experiment& ex, const ReproduceOptions& opt) {
  const std::string src = "seed_000_sap.md §6.3, §6.5";
  const Scene sc = Load(opt, "soft_bubble_gripper.yaml");
  const double T = opt.quick ? 6.0 : 12.0;
  const int body = sc.model.FindBody("spatula");
  const int q0 = sc.model.joints[sc.model.bodies[body].joint].q_start;
  // Pitch about the grip axis y, from the spatula's quaternion [w x y z] [deg].
  auto pitch_of = [&](const VecX& q) {
    return 2 * std::atan2(q(q0 + 5), q(q0 + 3)) * 180 / kPi;
  };
  PlotSeries iters{"Newton iterations"}, faces{"faces (contact constraints)"}, pitch{"pitch [deg]"};
  std::vector<double> cpu_ms;
  double e_m_max = 0;
  // Phases: the grip is 16 N for t mod 6 < 4.5 s, then 1 N. Stiction (held) and slip faces are
  // counted over the steady part of each phase.
  std::vector<double> faces_high, faces_low;
  double pitch_high_lo = 1e9, pitch_high_hi = -1e9;  // over t in [0.5, 4.5] s
  double pitch_low_max = 0;                          // largest |pitch change| in [4.5, 6] s
  double pitch_at_release = 0;
  bool released = false;
  const RunLog log = Run(sc, Steps(sc, T), [&](const Simulator&, const StepRecord& rec) {
    const double t = rec.after.time;
    const double p = pitch_of(rec.after.q);
    iters.x.push_back(t);
    iters.y.push_back(rec.result.stats.iterations);
    faces.x.push_back(t);
    faces.y.push_back(rec.metrics.num_faces);
    pitch.x.push_back(t);
    pitch.y.push_back(p);
    cpu_ms.push_back(rec.timings.total_ms);
    e_m_max = std::max(e_m_max, rec.result.stats.momentum_error);
    const double phase = std::fmod(rec.before.time, 6.0);
    if (phase >= 0.5 && phase < 4.5) faces_high.push_back(rec.metrics.num_faces);
    if (phase >= 4.75 && phase < 6.0) faces_low.push_back(rec.metrics.num_faces);
    if (t >= 0.5 && t <= 4.5) {
      pitch_high_lo = std::min(pitch_high_lo, p);
      pitch_high_hi = std::max(pitch_high_hi, p);
    }
    if (!released && t >= 4.5) {
      released = true;
      pitch_at_release = p;
    }
    if (t > 4.5 && t <= 6.0) pitch_low_max = std::max(pitch_low_max, std::abs(p - pitch_at_release));
  });
  double it_sum = 0;
  for (const StepLog& s : log.steps) it_sum += s.iterations;
  const double mean_it = log.steps.empty() ? kNaN : it_sum / log.steps.size();
  std::vector<double> sorted_ms = cpu_ms;
  std::sort(sorted_ms.begin(), sorted_ms.end());
  const double median_ms = sorted_ms.empty() ? kNaN : sorted_ms[sorted_ms.size() / 2];
  ex.Text("scenes/paper/soft_bubble_gripper.yaml: bubbles are compliant spheres (R = 3 cm, "
          "E = 1e5 Pa, resolution 7.5 mm), the handle a rigid box, μ = 1, δt = 5 ms, SAP with "
          "ε_r = 1e-3; " + Fmt(T) + " s (" + std::to_string(log.steps.size()) + " steps). The "
          "paper's gripper (a WSG-50 with air-filled membranes) and spatula are not given in "
          "numbers; ours are chosen so that 16 N holds and 1 N does not.");
  ex.Row("failed steps", "none (the task runs)", 0, log.failures + (log.finite ? 0 : 1),
         "0", log.failures == 0 && log.finite, src);
  ex.Row("mean Newton iterations per step", "0.62", 0.62, mean_it,
         "≤ 1: most steps are solved by the warm start, as in the paper (its 0.62 is for its "
         "own bubble and spatula models)",
         mean_it <= 1.0, src);
  ex.Row("max momentum error e_m", "9.99e-2 % (SAP, ε_r = 1e-3)", 9.99e-4, e_m_max,
         "≤ 1e-3: SAP stops at ε_r = 1e-3 on the momentum residual", e_m_max <= 1e-3, src);
  ex.Row("pitch change while gripped at 16 N, t in [0.5, 4.5] s [deg]",
         "the spatula is held", kNaN, pitch_high_hi - pitch_high_lo,
         "< 1°: torsional friction of the two patches exceeds the gravity torque",
         pitch_high_hi - pitch_high_lo < 1.0, src);
  ex.Row("largest pitch change while the grip is 1 N, t in [4.5, 6] s [deg]",
         "the spatula pitches during the loose phase", kNaN, pitch_low_max,
         "> 5°: the patches slip in rotation", pitch_low_max > 5.0, src);
  ex.Info("faces (contact constraints) per step while held at 16 N (mean)",
          "about 160 constraints in stiction", Mean(faces_high), src,
          "One constraint per contact-surface face; the count depends on the meshes (ours: "
          "spheres at h = R/4 against a box, and the two bubbles touching each other around "
          "the handle).");
  ex.Info("faces per step while slipping at 1 N (mean)", "about 60 constraints while slipping",
          Mean(faces_low), src, "As above.");
  ex.Info("median step time [ms] (δt = 5 ms)", "not given as a number (Fig. 17 plots)",
          median_ms, src,
          "Wall time of Simulator::Step on this machine, headless; below 5 ms is faster than "
          "real time.");
  iters.color = kBlue;
  ex.Plot("iterations", {"Soft-bubble gripper: Newton iterations per step", "t [s]", "iterations",
                         false, false},
          {iters}, "Newton iterations per step (the paper's mean is 0.62).");
  faces.color = kGreen;
  ex.Plot("faces", {"Soft-bubble gripper: contact constraints", "t [s]", "faces", false, false},
          {faces}, "Contact-surface faces per step (one constraint each): many while the grip "
                   "is 16 N, few while it is 1 N.");
  pitch.color = kRed;
  ex.Plot("pitch", {"Soft-bubble gripper: spatula pitch", "t [s]", "pitch [deg]", false, false},
          {pitch}, "Pitch of the spatula about the grip axis: held at 16 N, pitching at 1 N.");
}

}  // namespace reproduce
}  // namespace contactlab

namespace contactlab {
namespace reproduce {

// Fig. 1, 18-21: two arms with hands open a jar (pressure-field jar-lid contact), pour
// 16 marbles into a bowl, close the jar and set it down; 160 DOF, δt = 5 ms, ε_r = 1e-3.
namespace {

// One run of the jar task: per-step series and the outcome at the end.
struct JarRun {
  RunLog log;
  std::vector<double> t, constraints, faces, iterations, e_m, step_ms;
  int fm_unconverged = 0, fm_max_iterations = 0;
  double lid_lift_max = 0, tilt_max = 0;  // lid's largest distance from its seat [m], [deg]
  int in_bowl = 0;                        // marbles inside the bowl's walls at the end
  double lid_off_axis = kNaN, lid_tilt = kNaN, lid_seat = kNaN;  // lid against the jar [m, deg, m]
  double jar_tilt_end = kNaN, jar_height_end = kNaN;             // [deg], base height [m]
  double mean_iterations = kNaN, e_m_max = kNaN, e_m_mean = kNaN, median_ms = kNaN;
  bool lid_back() const {
    return lid_off_axis < 0.005 && lid_tilt < 3 && std::abs(lid_seat) < 0.003;
  }
  bool jar_down() const { return jar_tilt_end < 3 && std::abs(jar_height_end) < 0.005; }
};

JarRun RunJarTask(const Scene& sc, double T) {
  const Model& m = sc.model;
  const int jar = m.FindBody("jar"), lid = m.FindBody("lid"), bowl = m.FindBody("bowl");
  std::vector<int> marbles;
  for (int i = 0; i < 16; ++i) marbles.push_back(m.FindBody("marble_" + std::to_string(i)));
  const double rim = 0.135;  // jar top above the jar's frame (the generator's JAR_TOP)
  JarRun r;
  Pose X_jar, X_lid, X_bowl;
  std::vector<Vec3> marble_p(marbles.size());
  auto up_angle = [](const Vec3& a, const Vec3& b) {
    return std::acos(std::clamp(a.dot(b), -1.0, 1.0)) * 180 / kPi;
  };
  r.log = Run(sc, Steps(sc, T), [&](const Simulator& sim, const StepRecord& rec) {
    KinematicsCache kin;
    sim.multibody().UpdateKinematics(rec.after.q, rec.after.time, &kin);
    X_jar = kin.X_WB[jar];
    X_lid = kin.X_WB[lid];
    X_bowl = kin.X_WB[bowl];
    for (size_t i = 0; i < marbles.size(); ++i) marble_p[i] = kin.X_WB[marbles[i]].p;
    r.lid_lift_max =
        std::max(r.lid_lift_max, (X_jar.InverseApply(X_lid.p) - Vec3(0, 0, rim)).norm());
    r.tilt_max = std::max(r.tilt_max, up_angle(X_jar.Rotate(Vec3::UnitZ()), Vec3::UnitZ()));
    r.t.push_back(rec.after.time);
    r.constraints.push_back(rec.metrics.num_contacts);
    r.faces.push_back(rec.metrics.num_faces);
    r.iterations.push_back(rec.result.stats.iterations);
    r.e_m.push_back(rec.result.stats.momentum_error);
    r.step_ms.push_back(rec.timings.total_ms);
    if (!rec.free_motion.converged) ++r.fm_unconverged;
    r.fm_max_iterations = std::max(r.fm_max_iterations, rec.free_motion.iterations);
  });
  if (!r.t.empty()) {
    r.mean_iterations = Mean(r.iterations);
    r.e_m_max = *std::max_element(r.e_m.begin(), r.e_m.end());
    r.e_m_mean = Mean(r.e_m);
    std::vector<double> sorted_ms = r.step_ms;
    std::sort(sorted_ms.begin(), sorted_ms.end());
    r.median_ms = sorted_ms[sorted_ms.size() / 2];
  }
  // A marble is in the bowl when it lies inside the bowl's walls (20 x 20 cm outside, 1 cm
  // thick, 5 cm high), in the bowl's frame.
  for (const Vec3& p : marble_p) {
    const Vec3 b = X_bowl.InverseApply(p);
    if (std::abs(b.x()) < 0.09 && std::abs(b.y()) < 0.09 && b.z() > 0 && b.z() < 0.05) ++r.in_bowl;
  }
  const Vec3 lid_in_jar = X_jar.InverseApply(X_lid.p);
  r.lid_off_axis = std::hypot(lid_in_jar.x(), lid_in_jar.y());
  r.lid_tilt = up_angle(X_jar.Rotate(Vec3::UnitZ()), X_lid.Rotate(Vec3::UnitZ()));
  r.lid_seat = lid_in_jar.z() - rim;
  r.jar_tilt_end = up_angle(X_jar.Rotate(Vec3::UnitZ()), Vec3::UnitZ());
  r.jar_height_end = X_jar.p.z();
  return r;
}

}  // namespace

void DualArmJar(Experiment& ex, const ReproduceOptions& opt) {
  const std::string src = "seed_000_sap.md §6.4, §6.5";
  const Scene sc = Load(opt, "dual_arm_jar.yaml");
  const Model& m = sc.model;
  // The whole task in both modes (3600 steps, a few seconds).
  const double T = sc.duration;
  const JarRun run = RunJarTask(sc, T);
  const RunLog& log = run.log;
  const double mean_it = run.mean_iterations, e_m_max = run.e_m_max, median_ms = run.median_ms;
  const int in_bowl = run.in_bowl, fm_unconverged = run.fm_unconverged;
  const double lid_lift_max = run.lid_lift_max, tilt_max = run.tilt_max;
  const std::vector<double>&n_constraints = run.constraints, &n_faces = run.faces;
  PlotSeries constraints{"contact constraints"}, faces{"jar-lid faces"}, iters{"Newton iterations"};
  constraints.x = faces.x = iters.x = run.t;
  constraints.y = run.constraints;
  faces.y = run.faces;
  iters.y = run.iterations;

  ex.Text("scenes/paper/dual_arm_jar.yaml (generated by scenes/paper/tools/make_dual_arm_jar.py): "
          "two Panda-like 7-DOF arms with Allegro-like 16-DOF hands built from primitives, "
          "joint-space PD keyframes from inverse kinematics of Cartesian palm keyframes; a "
          "hexagonal jar of compliant boxes (E = 5e6 Pa) with a compliant lid (pressure-field "
          "jar-lid contact), 16 rigid 50 g marbles, a free bowl; every other pair is point "
          "contact. δt = 5 ms, SAP with ε_r = 1e-3; " + Fmt(T) + " s (" +
          std::to_string(log.steps.size()) + " steps). Events (s): 0.3-1.8 the left hand wraps "
          "the jar; 2.5-3.3 the right hand pinches the lid handle; 3.3-5.3 lid off and parked; "
          "5.0-7.0 jar lifted over the bowl; 7.0-8.2 tilted 120°; 8.2-9.7 pour; 9.7-10.9 "
          "upright; 10.9-12.6 set down; 12.8-15.6 lid back on; 16.0-17.5 hands open and back "
          "off. The paper's controllers track Cartesian keyframes with force feedback; ours "
          "track joint keyframes without feedback.");
  ex.Row("velocity dimension (DOF)", "160 (2 × 7 + 2 × 16 + 12 + 96 + 6)", 160, m.nv, "exact",
         m.nv == 160, src);
  ex.Row("failed steps (contact solve or free motion)", "none (the task runs)", 0,
         log.failures + fm_unconverged + (log.finite ? 0 : 1), "0",
         log.failures == 0 && fm_unconverged == 0 && log.finite, src);
  ex.Row("mean Newton iterations per step", "4 (SAP, ε_r = 1e-3)", 4, mean_it,
         "≤ 8: below the paper's geodesic IPM (8.3) on this task; the models and controllers "
         "differ, so the count is compared in kind, not to the digit",
         mean_it <= 8.0, src);
  ex.Row("max momentum error e_m over all steps", "task fails above ≈ 10 %", 0.1, e_m_max,
         "< 0.1 (the paper's failure threshold); SAP stops at ε_r = 1e-3 on the momentum "
         "residual",
         e_m_max < 0.1, src);
  ex.Row("mean momentum error e_m", "≈ 1e-3 at ε_r = 1e-3 (Figs. 19-20)", 1e-3, run.e_m_mean,
         "≤ 1e-3", run.e_m_mean <= 1e-3, src);
  ex.Row("lid taken off: its largest distance from its seat on the rim [m]", "the jar is opened",
         kNaN, lid_lift_max, "> 0.05 m", lid_lift_max > 0.05, src);
  ex.Row("largest jar tilt [deg]", "the jar is tilted to pour", kNaN, tilt_max, "> 100°",
         tilt_max > 100, src);
  ex.Row("marbles in the bowl at the end", "all (task success)", 16, in_bowl, "16 of 16",
         in_bowl == 16, src);
  ex.Row("lid back on the jar: lid centre off the jar's axis [m]", "the jar is closed", kNaN,
         run.lid_off_axis, "< 5 mm, lid tilt < 3° (tilt " + Fmt(run.lid_tilt, 3) + "°) and seated "
         "(lid " + Fmt(run.lid_seat, 2) + " m above the rim, |·| < 3 mm)", run.lid_back(), src);
  ex.Row("jar set down upright: tilt at the end [deg]", "the jar is put back", kNaN,
         run.jar_tilt_end, "< 3° and its base within 5 mm of the table (" +
         Fmt(run.jar_height_end, 2) + " m)", run.jar_down(), src);
  const auto c_it = std::max_element(n_constraints.begin(), n_constraints.end());
  const double c_max = c_it == n_constraints.end() ? kNaN : *c_it;
  const double t_c_max =
      c_it == n_constraints.end() ? kNaN : run.t[c_it - n_constraints.begin()];
  const double f_max =
      n_faces.empty() ? kNaN : *std::max_element(n_faces.begin(), n_faces.end());
  ex.Info("contact constraints per step (mean)", "hundreds (Fig. 18)", Mean(n_constraints), src,
          "Cone constraints of the step's problem: point-contact candidates within the margin "
          "plus one per jar-lid face; max " + Fmt(c_max) + ".");
  ex.Info("contact constraints per step (max)", "hundreds (Fig. 18)", c_max, src,
          "At t = " + Fmt(t_c_max, 3) + " s. With the lid on, the jar-lid surface alone gives "
          "about 500-700 faces; with the lid off (3.3-14.5 s) the count is about 100 point "
          "contacts (marbles, hands, jar, bowl, table).");
  ex.Info("pressure-field faces per step (mean over all steps)", "not given", Mean(n_faces), src,
          "Jar-lid contact-surface faces (StepMetrics::num_faces): zero while the lid is off; "
          "max " + Fmt(f_max) + ".");
  ex.Info("free-motion iterations per step (max)", "not given", run.fm_max_iterations, src,
          "The implicit free-motion iteration (Newton on M plus the diagonal PD and damping "
          "terms); the scene raises its cap to 400 because steps with the jar held tilted or "
          "pressed down need up to a few hundred.");
  ex.Info("median step time [ms] (δt = 5 ms)", "\"interactive rates\", no number", median_ms, src,
          "Wall time of Simulator::Step on this machine, headless; below 5 ms is faster than "
          "real time.");
  if (!opt.quick) {
    // Tolerance sweep (Figs. 19-21): mean iterations and e_m against ε_r, and whether the task
    // still succeeds (all marbles in the bowl, lid back on, jar set down).
    const double tols[] = {1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 0.5};
    PlotSeries it_tol{"mean iterations"}, em_tol{"mean e_m"};
    bool ok_small = true;  // success at every ε_r ≤ 1e-2 (max e_m ≤ 1 %)
    double largest_ok = kNaN;
    std::string outcomes;
    double it_tight = kNaN, it_loose = kNaN;
    bool fails_far_above = false;
    for (double tol : tols) {
      std::ostringstream o;
      o << "solver.rel_tolerance=" << tol;
      const JarRun r = tol == 1e-3 ? run : RunJarTask(Load(opt, "dual_arm_jar.yaml", {o.str()}), T);
      const bool success = r.in_bowl == 16 && r.lid_back() && r.jar_down() &&
                           r.log.failures == 0 && r.log.finite;
      if (tol <= 1e-2 && !success) ok_small = false;
      if (success) largest_ok = tol;
      if (tol == 0.5) fails_far_above = !success;
      if (tol == 1e-5) it_tight = r.mean_iterations;
      if (tol == 1e-1) it_loose = r.mean_iterations;
      it_tol.x.push_back(tol);
      it_tol.y.push_back(r.mean_iterations);
      em_tol.x.push_back(tol);
      em_tol.y.push_back(r.e_m_mean);
      outcomes += "ε_r = " + Fmt(tol, 2) + ": " + Fmt(r.mean_iterations, 3) + " iterations, e_m "
                  "mean " + Fmt(r.e_m_mean, 2) + " max " + Fmt(r.e_m_max, 2) + ", " +
                  std::to_string(r.in_bowl) + " marbles in the bowl, lid " +
                  (r.lid_back() ? "back on" : "not seated") + (success ? " (success)" : " (fails)") +
                  "; ";
    }
    ex.Row("tolerance sweep: mean iterations at ε_r = 1e-5 over those at 1e-1",
           "more iterations at tighter ε_r (Fig. 21)", kNaN, it_tight / it_loose, "> 1",
           it_tight > it_loose, src)
        .note = outcomes;
    ex.Row("tolerance sweep: largest ε_r at which the task succeeds",
           "fails when e_m exceeds about 10 % (Figs. 19-20)", kNaN, largest_ok,
           "success at every ε_r ≤ 1e-2 (max e_m ≤ 1 %) and failure at ε_r = 0.5 (e_m ≈ 40 %)",
           ok_small && fails_far_above, src)
        .note = "At ε_r = 0.1 (e_m up to 10 %, the paper's threshold) the outcome is marginal: "
                "see the iterations row's note.";
    it_tol.color = kGreen;
    em_tol.color = kRed;
    ex.Plot("tolerance_iterations",
            {"Dual-arm jar: mean iterations vs tolerance", "rel_tolerance", "iterations", true,
             false},
            {it_tol}, "Mean Newton iterations per step against ε_r (Fig. 21).");
    ex.Plot("tolerance_em",
            {"Dual-arm jar: mean momentum error vs tolerance", "rel_tolerance", "mean e_m", true,
             true},
            {em_tol}, "Mean momentum error e_m against ε_r (Fig. 19).");
  }
  constraints.color = kBlue;
  faces.color = kRed;
  constraints.markers = faces.markers = iters.markers = false;
  ex.Plot("constraints",
          {"Dual-arm jar: contact constraints per step", "t [s]", "constraints", false, false},
          {constraints, faces},
          "Contact constraints per step against time (Fig. 18) and the jar-lid faces among "
          "them. Events: wrap 1.3-1.8 s, lid pinched 2.5-3.3 s and lifted at 3.3 s, jar lifted "
          "5-7 s, tilted 7-8.2 s, pour 8.2-9.7 s, upright 10.9 s, set down 12.6 s, lid back "
          "14.8 s, release 15-16.5 s.");
  iters.color = kGreen;
  ex.Plot("iterations",
          {"Dual-arm jar: Newton iterations per step", "t [s]", "iterations", false, false},
          {iters}, "SAP Newton iterations per step (the paper's mean is 4).");
}

}  // namespace reproduce
}  // namespace contactlab
