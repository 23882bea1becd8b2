#include "app/reproduce.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iomanip>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <stdexcept>

#include "app/plot_png.h"
#include "app/runner.h"
#include "app/scene.h"
#include "engine/load.h"
#include "engine/metrics.h"
#include "engine/simulator.h"

namespace contactlab {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Plot colours.
constexpr std::uint32_t kBlue = 0x1f77b4, kOrange = 0xff7f0e, kGreen = 0x2ca02c, kRed = 0xd62728,
                        kPurple = 0x9467bd, kGray = 0x7f7f7f, kBrown = 0x8c564b;
const std::uint32_t kPalette[] = {kBlue, kOrange, kGreen, kRed, kPurple, kBrown, kGray};

std::string Fmt(double v, int digits = 4) {
  if (std::isnan(v)) return "n/a";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*g", digits, v);
  return buf;
}

// Accumulates one experiment's rows, markdown and plots.
class Experiment {
 public:
  Experiment(const std::string& id, const std::string& title, const std::string& paper,
             const ReproduceOptions& opt)
      : opt_(opt) {
    r_.id = id;
    r_.title = title;
    r_.paper = paper;
  }
  const ReproduceOptions& options() const { return opt_; }
  bool quick() const { return opt_.quick; }

  // A row compared with a number: agrees when `ok` holds.
  ResultRow& Row(const std::string& metric, const std::string& paper_value, double paper_number,
                 double value, const std::string& tolerance, bool ok, const std::string& source) {
    ResultRow row;
    row.experiment = r_.id;
    row.metric = metric;
    row.paper_value = paper_value;
    row.paper_number = paper_number;
    row.value = value;
    row.tolerance = tolerance;
    row.agrees = std::isfinite(value) && ok ? Agreement::kAgrees : Agreement::kDisagrees;
    row.source = source;
    r_.rows.push_back(row);
    return r_.rows.back();
  }
  // A row the paper gives no comparable figure for (or the engine cannot express).
  ResultRow& Info(const std::string& metric, const std::string& paper_value, double value,
                  const std::string& source, const std::string& note) {
    ResultRow row;
    row.experiment = r_.id;
    row.metric = metric;
    row.paper_value = paper_value;
    row.value = value;
    row.tolerance = "-";
    row.agrees = Agreement::kNotComparable;
    row.source = source;
    row.note = note;
    r_.rows.push_back(row);
    return r_.rows.back();
  }
  void Text(const std::string& s) { md_ << s << "\n\n"; }
  void Plot(const std::string& name, const PlotOptions& po, const std::vector<PlotSeries>& s,
            const std::string& caption) {
    const std::string file = r_.id + "_" + name + ".png";
    if (!opt_.out_dir.empty()) {
      std::string err;
      if (!WritePlotPng((std::filesystem::path(opt_.out_dir) / file).string(), po, s, &err)) {
        md_ << "*(plot not written: " << err << ")*\n\n";
        return;
      }
    }
    md_ << "![" << po.title << "](" << file << ")\n\n*" << caption << "*\n\n";
  }
  std::vector<ResultRow>& mutable_rows() { return r_.rows; }
  ExperimentResult Finish() {
    r_.markdown = md_.str();
    return r_;
  }

 private:
  const ReproduceOptions& opt_;
  ExperimentResult r_;
  std::ostringstream md_;
};

std::string SceneDir(const ReproduceOptions& opt) {
  if (!opt.scene_dir.empty()) return opt.scene_dir;
#ifdef CONTACTLAB_SOURCE_DIR
  return std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/paper";
#else
  return "scenes/paper";
#endif
}

Scene Load(const ReproduceOptions& opt, const std::string& file,
           const std::vector<std::string>& overrides = {}) {
  return LoadScene(SceneDir(opt) + "/" + file, overrides);
}

// Per-step summary kept by Run().
struct StepLog {
  double t = 0;
  int iterations = 0;
  double momentum_error = 0;
  bool converged = true;
  double kinetic = 0, potential = 0;
  double slip = 0;  // mean stiction slip [m/s]
  int stiction = 0, sliding = 0, cones = 0;
  double penetration = 0;
  double solve_ms = 0;
};

struct RunLog {
  std::vector<StepLog> steps;
  double energy0 = 0;  // total energy of the initial state
  double wall_s = 0;
  int failures = 0;
  bool finite = true;
};

// Steps `scene` for `steps` steps; `each` sees every record.
RunLog Run(const Scene& scene, int steps,
           const std::function<void(const Simulator&, const StepRecord&)>& each = nullptr,
           Simulator** sim_out = nullptr) {
  RunLog log;
  static thread_local std::unique_ptr<Simulator> keep;
  keep = std::make_unique<Simulator>(scene.model, scene.settings);
  Simulator& sim = *keep;
  const StepMetrics m0 = sim.ComputeMetrics(sim.state(), {});
  log.energy0 = m0.kinetic_energy + m0.potential_energy;
  const auto start = std::chrono::steady_clock::now();
  for (int n = 0; n < steps; ++n) {
    const StepRecord& rec = sim.Step();
    StepLog s;
    s.t = rec.after.time;
    s.iterations = rec.result.stats.iterations;
    s.momentum_error = rec.result.stats.momentum_error;
    s.converged = rec.result.stats.status == SolverStatus::kConverged;
    if (!s.converged) ++log.failures;
    s.kinetic = rec.metrics.kinetic_energy;
    s.potential = rec.metrics.potential_energy;
    s.slip = rec.metrics.mean_stiction_slip;
    s.penetration = rec.metrics.max_penetration;
    s.solve_ms = rec.result.stats.solve_ms;
    for (size_t i = 0; i < rec.problem.constraints.size(); ++i) {
      if (rec.problem.constraints[i].kind != ConstraintKind::kFrictionCone) continue;
      ++s.cones;
      if (i < rec.result.regime.size()) {
        if (rec.result.regime[i] == Regime::kStiction) ++s.stiction;
        if (rec.result.regime[i] == Regime::kSliding) ++s.sliding;
      }
    }
    if (!rec.after.q.allFinite() || !rec.after.v.allFinite()) log.finite = false;
    if (each) each(sim, rec);
    log.steps.push_back(s);
    if (!log.finite) break;
  }
  log.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (sim_out) *sim_out = &sim;
  return log;
}

int Steps(const Scene& s, double duration) {
  return std::max(1, static_cast<int>(std::lround(duration / s.settings.time_step)));
}

Vec3 BodyPosition(const Simulator& sim, const State& st, int body) {
  KinematicsCache kin;
  sim.multibody().UpdateKinematics(st.q, st.time, &kin);
  return kin.X_WB[body].p;
}

// Markdown table of an experiment's rows.
std::string RowsTable(const std::vector<ResultRow>& rows) {
  std::ostringstream o;
  o << "| metric | paper | ContactLab | tolerance | agrees |\n|---|---|---|---|---|\n";
  for (const ResultRow& r : rows) {
    const char* a = r.agrees == Agreement::kAgrees      ? "**yes**"
                    : r.agrees == Agreement::kDisagrees ? "**no**"
                                                        : "n/a";
    o << "| " << r.metric << " | " << r.paper_value << " | " << Fmt(r.value) << " | " << r.tolerance
      << " | " << a << " |\n";
  }
  bool notes = false;
  for (const ResultRow& r : rows) notes |= !r.note.empty();
  if (notes) {
    o << "\nNotes:\n\n";
    for (const ResultRow& r : rows)
      if (!r.note.empty()) o << "- *" << r.metric << "*: " << r.note << "\n";
  }
  return o.str();
}

double Mean(const std::vector<double>& v) {
  if (v.empty()) return kNaN;
  double s = 0;
  for (double x : v) s += x;
  return s / v.size();
}

// ---------------------------------------------------------------------------------------------
// SAP paper §VI-B: spring-cylinder.

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

ExperimentResult SpringCylinder(const ReproduceOptions& opt) {
  Experiment ex("spring_cylinder", "Spring-cylinder: energy and order of accuracy",
                "SAP paper §VI-B (Figs. 4-7)", opt);
  const std::string src = "seed_000_sap.md §6.1";
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
  return ex.Finish();
}

// ---------------------------------------------------------------------------------------------
// SAP paper §VI-C: clutter.

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
      cs.cond_final = r.stats.history.back().condition_number;
      if (std::isnan(cs.cond_final) && r.stats.history.size() > 1)
        cs.cond_final = r.stats.history[r.stats.history.size() - 2].condition_number;
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

ExperimentResult Clutter(const ReproduceOptions& opt) {
  Experiment ex("clutter", "Clutter: 40 bodies with and without walls",
                "SAP paper §VI-C (Figs. 8-10)", opt);
  const std::string src = "seed_000_sap.md §6.2";
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
  return ex.Finish();
}

ExperimentResult ClutterScaling(const ReproduceOptions& opt) {
  Experiment ex("clutter_scaling", "Clutter: scaling with the number of bodies",
                "SAP paper §VI-C (Figs. 11-13)", opt);
  const std::string src = "seed_000_sap.md §6.2";
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
  return ex.Finish();
}

ExperimentResult SigmaSweep(const ReproduceOptions& opt) {
  Experiment ex("sigma_sweep", "Clutter: friction regularization σ sweep",
                "SAP paper §VI-C (Figs. 14-15)", opt);
  const std::string src = "seed_000_sap.md §6.2";
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
  return ex.Finish();
}

// ---------------------------------------------------------------------------------------------
// Irrotational contact fields §IX-A: oscillating conveyor belt.

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

ExperimentResult ConveyorBelt(const ReproduceOptions& opt) {
  Experiment ex("conveyor_belt", "Oscillating conveyor belt (stick-slip)",
                "Irrotational contact fields §IX-A (Figs. 2-3)", opt);
  const std::string src = "seed_004_irrotational.md §7 (IX-A)";
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
        rest_offset += (dt + tau) * rec.result.laws.Constant(static_cast<int>(i), "R_n") * rec.result.gamma(c.first_row + 2);
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
  return ex.Finish();
}

// Irrotational contact fields §IX-B: falling sphere.
ExperimentResult FallingSphere(const ReproduceOptions& opt) {
  Experiment ex("falling_sphere", "Falling sphere that slides, then rolls",
                "Irrotational contact fields §IX-B (Figs. 4-6)", opt);
  const std::string src = "seed_004_irrotational.md §7 (IX-B)";
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
  return ex.Finish();
}

// Irrotational contact fields §IX-C: Painlevé sliding rod.
ExperimentResult SlidingRod(const ReproduceOptions& opt) {
  Experiment ex("sliding_rod", "Sliding rod (Painlevé)",
                "Irrotational contact fields §IX-C (Figs. 8-12)", opt);
  const std::string src = "seed_004_irrotational.md §7 (IX-C)";
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
  return ex.Finish();
}

// Irrotational contact fields §X-A: clutter stiffness sweep.
ExperimentResult ClutterStiffness(const ReproduceOptions& opt) {
  Experiment ex("clutter_stiffness", "Clutter: contact stiffness sweep up to 1e12 N/m",
                "Irrotational contact fields §X-A (Figs. 17-18)", opt);
  const std::string src = "seed_004_irrotational.md §7 (X-A)";
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
  return ex.Finish();
}

// ---------------------------------------------------------------------------------------------
// Drumwright.

ExperimentResult BoxOnRamp(const ReproduceOptions& opt) {
  Experiment ex("box_on_ramp", "Box on a 15° ramp", "Drumwright §8 E7 (Fig. 9)", opt);
  const std::string src = "seed_002_drumwright.md §8 (E7)";
  ex.Text(
      "1 kg box released at rest on a 15° ramp, h = 0.01 s, 1 s "
      "(scenes/paper/box_on_ramp.yaml). The paper gives the qualitative outcome; the numbers "
      "compared are Coulomb's law, s = g (sin θ − μ cos θ) t²/2.");
  const double th = 15 * kPi / 180, g = 9.81;
  PlotSeries got{"ContactLab"}, exact{"Coulomb"};
  for (double mu : {0.0, 0.125, 0.25, 0.375}) {
    const Scene sc = Load(opt, "box_on_ramp.yaml", {"materials.ramp.friction=" + Fmt(mu)});
    const int box = sc.model.FindBody("box");
    Vec3 p0 = Vec3::Zero(), p1 = Vec3::Zero();
    bool first = true;
    Run(sc, Steps(sc, 1.0), [&](const Simulator& sim, const StepRecord& rec) {
      if (first) p0 = BodyPosition(sim, rec.before, box);
      first = false;
      p1 = BodyPosition(sim, rec.after, box);
    });
    const double s = (p1 - p0).norm();
    const double s_exact = std::max(0.0, g * (std::sin(th) - mu * std::cos(th)) * 0.5);
    const std::string pv = mu == 0       ? "slides freely"
                           : mu >= 0.375 ? "sticks"
                                         : "slides less as μ grows";
    ex.Row("μ=" + Fmt(mu) + ": distance in 1 s [m]", pv + "; Coulomb " + Fmt(s_exact, 4), s_exact,
           s,
           "±(2 % + 1e-4 m): symplectic Euler's O(h) error is 1 % at h = 0.01 s; creep bound "
           "σμδtg·1 s = 3.7e-5 m",
           std::abs(s - s_exact) <= 0.02 * s_exact + 1e-4, src);
    got.x.push_back(mu);
    got.y.push_back(s);
    exact.x.push_back(mu);
    exact.y.push_back(s_exact);
  }
  got.color = kBlue;
  exact.color = kGray;
  exact.dashed = true;
  ex.Plot("distance", {"Box on ramp: distance slid in 1 s", "mu", "m", false, false}, {exact, got},
          "Distance slid against μ.");
  ex.Text(
      "The paper's box stands on four rigid spherical feet on an elastic half-space; "
      "ContactLab uses the box face on a half-space (k = 1e10 N/m), which gives the same "
      "Coulomb behaviour.");
  return ex.Finish();
}

ExperimentResult SphereStack(const ReproduceOptions& opt) {
  Experiment ex("sphere_stack", "Stack of up to 100 spheres", "Drumwright §8 E8 (Fig. 10)", opt);
  const std::string src = "seed_002_drumwright.md §8 (E8)";
  std::vector<int> ns = opt.quick ? std::vector<int>{10, 25} : std::vector<int>{10, 25, 50, 100};
  ex.Text(
      "Spheres r = 5 cm released in mid-air, aligned, no walls, h = 0.01 s, 500 steps "
      "(scenes/paper/sphere_stack.yaml).");
  std::ostringstream tab;
  tab << "| N | mean iterations | mean solve [ms] | final KE [J] | top drift [m] | bottom "
         "penetration [m] | failed |\n|---|---|---|---|---|---|---|\n";
  PlotSeries ms{"solve ms"};
  std::vector<double> xs, ys;
  bool stable = true, at_rest = true;
  double worst_ke = 0;
  for (int n : ns) {
    const Scene sc = Load(opt, "sphere_stack.yaml",
                          {"generators.ball.grid.count=[1, 1, " + std::to_string(n) + "]"});
    const int top = sc.model.FindBody("ball_" + std::to_string(n - 1));
    Vec3 top0 = Vec3::Zero(), top1 = Vec3::Zero();
    double ke = 0, pen = 0;
    bool first = true;
    const RunLog log = Run(sc, 500, [&](const Simulator& sim, const StepRecord& rec) {
      if (first) top0 = BodyPosition(sim, rec.before, top);
      first = false;
      top1 = BodyPosition(sim, rec.after, top);
      ke = rec.metrics.kinetic_energy;
      pen = rec.metrics.max_penetration;
    });
    double it = 0, sms = 0;
    for (const StepLog& s : log.steps) {
      it += s.iterations;
      sms += s.solve_ms;
    }
    it /= log.steps.size();
    sms /= log.steps.size();
    const double drift = (top1 - top0).head<2>().norm();
    stable &= log.finite && log.failures == 0 && drift < 0.005;
    at_rest &= ke < 1e-3 * n;
    worst_ke = std::max(worst_ke, ke / n);
    tab << "| " << n << " | " << Fmt(it, 3) << " | " << Fmt(sms, 3) << " | " << Fmt(ke, 3) << " | "
        << Fmt(drift, 3) << " | " << Fmt(pen, 3) << " | " << log.failures << " |\n";
    ms.x.push_back(n);
    ms.y.push_back(sms);
    xs.push_back(n);
    ys.push_back(sms);
  }
  ex.Text(tab.str());
  ex.Row("stack stands (every N)", "forms a stable stack without walls", kNaN, stable ? 1 : 0,
         "no failed step and the top sphere drifts < 5 mm sideways", stable, src);
  ResultRow& rest =
      ex.Row("at rest after 500 steps: largest final KE per sphere [J]", "stable stack (at rest)",
             kNaN, worst_ke, "< 1e-3 J per sphere at every N", at_rest, src);
  if (!at_rest) {
    rest.note =
        "The tallest column still oscillates vertically after 5 s. SAP's per-contact "
        "Delassus estimate w_i sees one sphere's mass, so the near-rigid normal compliance "
        "of the lower contacts is sized for one sphere while they carry the whole column "
        "(the SAP paper's own stated limitation for stacks): the column acts as a soft, "
        "lightly damped spring chain (see the bottom penetration column).";
  }
  ex.Info("exponent of solve time in N", "figure only (Hessian sparse, ≤ 18m non-zeros)",
          LogLogSlope(xs, ys), src, "Block-tridiagonal H: linear cost is expected.");
  ms.color = kBlue;
  ex.Plot("time", {"Sphere stack: solve time per step", "spheres", "ms", true, true}, {ms},
          "Mean SAP solve time per step against the number of spheres (Fig. 10).");
  ex.Text(
      "The SAP paper notes (digest §8) that its Delassus estimate w_i underestimates the load "
      "at the bottom of a stack; the bottom penetration column shows the consequence.");
  return ex.Finish();
}

ExperimentResult StiffPendulum(const ReproduceOptions& opt) {
  Experiment ex("stiff_pendulum", "Pendulum onto a very stiff joint limit",
                "Drumwright §8 E4-E5 (Figs. 4, 6)", opt);
  const std::string src = "seed_002_drumwright.md §8 (E4, E5)";
  std::vector<double> hs =
      opt.quick ? std::vector<double>{1e-3, 1e-4} : std::vector<double>{1e-3, 1e-4, 1e-5};
  ex.Text(
      "1 kg bob on a 1 m arm released from horizontal (θ = π/2) onto the limit θ ≥ 0 at the "
      "bottom, 1 s (scenes/paper/stiff_pendulum.yaml). The paper's limit is a k = 1e12 spring; "
      "ContactLab's limits are rigid SAP constraints (near-rigid regularization), the closest "
      "expressible form.");
  std::vector<PlotSeries> series;
  bool stable = true, dead = true;
  double worst_bounce = 0;
  int c = 0;
  for (double h : hs) {
    const Scene sc = Load(opt, "stiff_pendulum.yaml", {"time_step=" + Fmt(h, 17)});
    PlotSeries th{"h = " + Fmt(h)};
    double max_after = 0, e_end = 0;
    bool hit = false;
    const RunLog log = Run(sc, Steps(sc, 1.0), [&](const Simulator&, const StepRecord& rec) {
      const double q = rec.after.q(0);
      th.x.push_back(rec.after.time);
      th.y.push_back(q);
      if (q < 0.05) hit = true;
      if (hit) max_after = std::max(max_after, q);
      e_end = rec.metrics.kinetic_energy + rec.metrics.potential_energy;
    });
    stable &= log.finite && e_end <= log.energy0 + 1e-9;
    const double bounce = max_after / (kPi / 2);
    worst_bounce = std::max(worst_bounce, bounce);
    dead &= hit && bounce < 0.05;
    th.color = kPalette[c++];
    th.markers = false;
    series.push_back(th);
  }
  ex.Row("stable at every h (no energy gain)", "stable for every h", kNaN, stable ? 1 : 0,
         "finite state and E(1 s) ≤ E(0)", stable, src);
  ex.Row("rebound height after the impact / release height", "≈0 (\"dead\" impact for h ≥ 1e-5)", 0,
         worst_bounce, "< 0.05 at every h", dead, src);
  ex.Info("E4: joint deviation of a k = 1e15 joint spring in absolute coordinates", "∝ h²", kNaN,
          src,
          "Not expressible: ContactLab models joints in generalized coordinates, where the joint "
          "deviation is zero by construction; it has no spatial spring between bodies.");
  ex.Plot("theta", {"Stiff pendulum: joint angle", "t [s]", "theta [rad]", false, false}, series,
          "Joint angle against time (paper Fig. 6).");
  return ex.Finish();
}

// Drumwright E6: a rigid cube on a frictionless Winkler foundation. Each foundation element is a
// linear spring K = E A / depth under the centre of its patch of the bottom face, which is exactly
// ContactLab's compliant point contact (force k max(0, −φ), Kelvin-Voigt time τ_d): one small
// sphere per element, fixed to the cube with its lowest point on the bottom face, touches a
// frictionless half-space; a pair override makes the contact's k exactly K and τ_d = B / K.
struct FoundationSetup {
  int n_side = 10;       // elements per side (N = n_side²)
  double E = 1e7;        // Young's modulus [N/m²]
  double load = 5;       // downward load [N]
  double h = 0.01;       // time step [s]
  double rel_tol = 1e-6; // SAP ε_r
};

constexpr double kCubeSide = 1.0, kCubeDensity = 8.0, kFoundationDepth = 1.0,
                 kElementDamping = 1.0, kElementRadius = 1e-3, kLoadRate = 10.0;

double ElementStiffness(const FoundationSetup& f) {
  const double area = kCubeSide * kCubeSide / (f.n_side * f.n_side);
  return f.E * area / kFoundationDepth;
}

// Element centres (x, y) on the bottom face, cube frame [m].
std::vector<Vec3> ElementCentres(int n_side) {
  std::vector<Vec3> c;
  const double a = kCubeSide / n_side;
  for (int i = 0; i < n_side; ++i)
    for (int j = 0; j < n_side; ++j)
      c.emplace_back(-kCubeSide / 2 + (i + 0.5) * a, -kCubeSide / 2 + (j + 0.5) * a,
                     -kCubeSide / 2);
  return c;
}

Scene FoundationScene(const FoundationSetup& f) {
  Scene sc;
  sc.path = "(generated) cube_foundation";
  sc.description = "Cube on a Winkler foundation (Drumwright E6)";
  Model& m = sc.model;
  const double K = ElementStiffness(f);
  const double tau = kElementDamping / K;
  // Both materials carry K; the pair override fixes the contact's k = K exactly (the series rule
  // alone would give K/2).
  m.materials = {Material{"foundation", K, tau, 0.0}, Material{"element", K, tau, 0.0}};
  PairOverride po;
  po.material_a = 0;
  po.material_b = 1;
  po.values = Material{"", K, tau, 0.0};
  m.pair_overrides.push_back(po);
  Body ground;
  ground.name = "foundation";
  m.bodies.push_back(ground);
  Geom hs;
  hs.name = "foundation";
  hs.body = 0;
  hs.shape.type = ShapeType::kHalfSpace;
  hs.material = 0;
  m.geoms.push_back(hs);
  Body cube;
  cube.name = "cube";
  cube.mass = kCubeDensity * kCubeSide * kCubeSide * kCubeSide;
  cube.inertia = Mat3::Identity() * cube.mass * kCubeSide * kCubeSide / 6.0;
  cube.pose0.p = Vec3(0, 0, kCubeSide / 2);  // at rest on the undeformed foundation
  m.bodies.push_back(cube);
  Joint j;
  j.name = "cube_free";
  j.type = JointType::kFree;
  j.parent = -1;
  j.child = 1;
  m.joints.push_back(j);
  m.bodies[1].joint = 0;
  int e = 0;
  for (const Vec3& c : ElementCentres(f.n_side)) {
    Geom g;
    g.name = "element_" + std::to_string(e++);
    g.body = 1;
    g.local.p = c + Vec3(0, 0, kElementRadius);  // lowest point on the bottom face
    g.shape.type = ShapeType::kSphere;
    g.shape.radius = kElementRadius;
    g.material = 1;
    m.geoms.push_back(g);
  }
  // Downward load at s/2 [cos 10t, sin 10t, 1] (cube frame); the force is along world −z.
  contactlab::Load ld;  // (Load alone names the scene loader above)
  ld.name = "rotating_load";
  ld.body = 1;
  ld.point[0].kind = ld.point[1].kind = Signal::Kind::kSine;
  ld.point[0].amplitude = ld.point[1].amplitude = kCubeSide / 2;
  ld.point[0].frequency = ld.point[1].frequency = kLoadRate / (2 * kPi);
  ld.point[0].phase = kPi / 2;  // cos
  ld.point[2].value = kCubeSide / 2;
  ld.force[2].value = -f.load;
  m.loads.push_back(ld);
  m.Finalize();
  sc.settings.time_step = f.h;
  sc.settings.sap.rel_tolerance = f.rel_tol;
  sc.duration = 1.0;
  return sc;
}

// Quasi-static no-tension Winkler solution for the load at angle `angle` [rad] (cube frame):
// compressions d_i = w0 + a x_i + b y_i ≥ 0 carry the weight W at the centre and the load F at
// (s/2 cos, s/2 sin); elements with d_i < 0 are out of contact (active-set iteration).
struct WinklerStatic {
  double w0 = 0, tilt = 0;  // compression at the face centre [m], |∇d| [rad]
  int out_of_contact = 0;
};
WinklerStatic WinklerQuasiStatic(const FoundationSetup& f, double angle, double g) {
  const std::vector<Vec3> c = ElementCentres(f.n_side);
  const double K = ElementStiffness(f);
  const double W = kCubeDensity * std::pow(kCubeSide, 3) * g;
  const Vec3 rhs(W + f.load, f.load * kCubeSide / 2 * std::cos(angle),
                 f.load * kCubeSide / 2 * std::sin(angle));
  std::vector<char> active(c.size(), 1);
  Vec3 x = Vec3::Zero();
  for (int it = 0; it < 100; ++it) {
    Mat3 A = Mat3::Zero();
    for (size_t i = 0; i < c.size(); ++i) {
      if (!active[i]) continue;
      const Vec3 r(1, c[i].x(), c[i].y());
      A += K * r * r.transpose();
    }
    x = A.ldlt().solve(rhs);
    bool changed = false;
    for (size_t i = 0; i < c.size(); ++i) {
      const bool on = x[0] + x[1] * c[i].x() + x[2] * c[i].y() > 0;
      changed |= on != static_cast<bool>(active[i]);
      active[i] = on;
    }
    if (!changed) break;
  }
  WinklerStatic out;
  out.w0 = x[0];
  out.tilt = std::hypot(x[1], x[2]);
  for (char a : active) out.out_of_contact += !a;
  return out;
}

// Compressions −z of the element points (bottom-face centres) at pose X_WB [m].
std::vector<double> ElementCompressions(const Pose& X_WB, int n_side) {
  std::vector<double> d;
  for (const Vec3& c : ElementCentres(n_side)) d.push_back(-X_WB.Apply(c).z());
  return d;
}

struct FoundationRun {
  VecX q_final;
  double wall_s = 0;         // wall time of the run [s]
  double sim_s = 0;          // simulated time [s]
  double w0 = 0, tilt = 0;   // face-centre compression and tilt at the end
  int out_final = 0;         // elements out of contact at the end
  int out_max = 0;           // most elements out of contact over the last half
  double ke_final = 0;       // kinetic energy at the end [J]
  double w0_spread = 0;      // max − min of w0 over the last half [m]
  double tilt_spread = 0;    // max − min of the tilt over the last half [rad]
  int failures = 0;
  int near_rigid_max = 0;    // most contacts on SAP's near-rigid clamp in a step
  bool loaded_side_max = true;  // the most compressed element is on the load's side
  PlotSeries out_series;
};

FoundationRun RunFoundation(const FoundationSetup& f) {
  const Scene sc = FoundationScene(f);
  const int steps = Steps(sc, 1.0);
  FoundationRun r;
  double w0_lo = 1e300, w0_hi = -1e300, t_lo = 1e300, t_hi = -1e300;
  const RunLog log = Run(sc, steps, [&](const Simulator& sim, const StepRecord& rec) {
    int nr = 0;
    for (int i = 0; i < rec.result.laws.num_constraints(); ++i) {
      nr += rec.result.laws.Constant(i, "near_rigid") != 0 ? 1 : 0;
    }
    r.near_rigid_max = std::max(r.near_rigid_max, nr);
    const double t = rec.after.time;
    // Record every 10 ms of simulated time (cheap: 100 or fewer samples a run).
    const bool sample = rec.step % std::max(1, static_cast<int>(std::lround(0.01 / f.h))) == 0 ||
                        rec.step == steps - 1;
    if (!sample && t < 0.5) return;
    KinematicsCache kin;
    sim.multibody().UpdateKinematics(rec.after.q, t, &kin);
    const Pose& X = kin.X_WB[1];
    const std::vector<double> d = ElementCompressions(X, f.n_side);
    int out = 0;
    for (double di : d) out += di <= 0;
    const Mat3 R = X.R();
    const double w0 = -X.Apply(Vec3(0, 0, -kCubeSide / 2)).z();
    const double tilt = std::hypot(R(2, 0), R(2, 1));
    if (sample) {
      r.out_series.x.push_back(t);
      r.out_series.y.push_back(out);
    }
    if (t >= 0.5) {
      r.out_max = std::max(r.out_max, out);
      w0_lo = std::min(w0_lo, w0);
      w0_hi = std::max(w0_hi, w0);
      t_lo = std::min(t_lo, tilt);
      t_hi = std::max(t_hi, tilt);
    }
    if (rec.step == steps - 1) {
      r.q_final = rec.after.q;
      r.out_final = out;
      r.w0 = w0;
      r.tilt = tilt;
      r.ke_final = rec.metrics.kinetic_energy;
      // Pressure: the most compressed element lies on the side of the load (load angle at t^n).
      const double ang = kLoadRate * rec.before.time;
      const std::vector<Vec3> c = ElementCentres(f.n_side);
      const size_t imax = std::max_element(d.begin(), d.end()) - d.begin();
      r.loaded_side_max = c[imax].x() * std::cos(ang) + c[imax].y() * std::sin(ang) > 0;
    }
  });
  r.wall_s = log.wall_s;
  r.sim_s = steps * f.h;
  r.failures = log.failures + (log.finite ? 0 : 1);
  r.w0_spread = w0_hi - w0_lo;
  r.tilt_spread = t_hi - t_lo;
  return r;
}

ExperimentResult CubeFoundation(const ReproduceOptions& opt) {
  Experiment ex("cube_foundation", "Cube on an elastic (Winkler) foundation",
                "Drumwright §8 E6 (Fig. 7, Tables 1-2)", opt);
  const std::string src = "seed_002_drumwright.md §8 (E6, Tables 1-2)";
  // Quick mode: a coarser reference, still resolving every contact's compliance (checked below).
  const double h_ref = opt.quick ? 2.5e-4 : 1e-4;
  const std::vector<int> sides = opt.quick ? std::vector<int>{10} : std::vector<int>{10, 30};
  ex.Text(
      "Rigid cube, s = 1 m, density 8 kg/m³ (m = 8 kg, the digest's reading), starting at rest on "
      "the undeformed foundation, gravity 9.81 m/s², 1 s. The frictionless Winkler foundation of "
      "N ∈ {100, 900} elements (depth 1 m) is modelled exactly as N compliant point contacts: one "
      "sphere (r = 1 mm) per element centre, fixed to the cube with its lowest point on the bottom "
      "face, on a frictionless half-space; a pair override sets the contact stiffness to "
      "K = E A_elem / depth (1e5 / 1e9 N/m for 100 elements, 1.11e4 / 1.11e8 N/m for 900) and the "
      "Kelvin-Voigt time to τ_d = B / K with the paper's B = 1 N·s/m per element (1e-5 s down to "
      "9e-9 s: practically undamped). The load (Model::loads) is F ∈ {5, 50} N along world −z at "
      "s/2 [cos 10t, sin 10t, 1] in the cube frame, evaluated explicitly at each step's start. "
      "SAP, symplectic Euler, h = 0.01 s, ε_r = 1e-6." +
      std::string(opt.quick ? " Quick mode: the 100-element cases only." : ""));
  ex.Text(
      "The paper's errors are against MATLAB's ode45; ContactLab has no such integrator, so the "
      "reference is ContactLab itself at h = " + Fmt(h_ref) + " s (ε_r = 1e-10), where every "
      "contact's compliance is resolved (SAP's near-rigid clamp, which replaces k when 1/(h² k) "
      "falls below β² w/(4π²), is inactive: checked in the rows below). The error is the Euclidean norm of the difference of the "
      "generalized coordinates q = [x y z qw qx qy qz] at t = 1 s; relative = abs / ‖q_ref‖.");
  const double g = 9.81;
  std::ostringstream tab;
  tab << "| N | E [N/m²] | load [N] | wall [s] per simulated s | paper constraint-based [s] | "
         "abs err | paper abs err | rel err | paper rel err | out of contact at 1 s (max, last "
         "0.5 s) | quasi-static prediction | face-centre compression [m] | tilt [rad] | "
         "near-rigid contacts (h = 0.01; ref) |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  // Paper Tables 1-2, keyed by (N, E, load).
  struct PaperRow {
    int n;
    double E, load, wall, abs_err, rel_err;
  };
  const std::vector<PaperRow> paper = {
      {100, 1e7, 5, 0.331, 2.96e-5, 2.65e-5},   {100, 1e11, 5, 0.286, 2.91e-7, 2.60e-7},
      {100, 1e7, 50, 0.332, 0.813, 0.724},      {100, 1e11, 50, 0.396, 0.814, 0.728},
      {900, 1e7, 5, 7.40, 1.98e-5, 1.77e-5},    {900, 1e11, 5, 8.23, 2.71e-9, 2.42e-9},
      {900, 1e7, 50, 12.98, 1.0e-2, 8.87e-3},   {900, 1e11, 50, 26.00, 1.0e-2, 8.95e-3}};
  auto paper_of = [&](int n, double E, double load) {
    for (const PaperRow& p : paper)
      if (p.n == n && p.E == E && p.load == load) return p;
    return PaperRow{};
  };
  std::vector<PlotSeries> out_plot;
  bool ordering = true, steady = true, separates = true, pressure = true, no_failure = true;
  bool winkler_ok = true, count_ok = true;
  int worst_count = 0, ref_near_rigid = 0;
  double worst_steady_w0 = 0, worst_steady_tilt = 0;
  int c = 0;
  for (int n_side : sides) {
    const int N = n_side * n_side;
    for (double E : {1e7, 1e11}) {
      double err5 = kNaN;
      for (double load : {5.0, 50.0}) {
        FoundationSetup f;
        f.n_side = n_side;
        f.E = E;
        f.load = load;
        // Wall time: best of 3 runs of 1 s at h = 0.01 (the machine may be shared); two plain
        // runs and the instrumented one (its per-step bookkeeping is small next to the solve).
        const FoundationRun run = RunFoundation(f);
        double best_wall = run.wall_s;
        for (int rep = 0; rep < 2; ++rep) {
          const Scene sc = FoundationScene(f);
          best_wall = std::min(best_wall, Run(sc, Steps(sc, 1.0)).wall_s);
        }
        const VecX& q = run.q_final;
        FoundationSetup fr = f;
        fr.h = h_ref;
        fr.rel_tol = 1e-10;
        const FoundationRun ref_run = RunFoundation(fr);
        const VecX& q_ref = ref_run.q_final;
        const double abs_err = (q - q_ref).norm();
        const double rel_err = abs_err / q_ref.norm();
        const WinklerStatic qs = WinklerQuasiStatic(f, kLoadRate * (1.0 - f.h), g);
        const PaperRow p = paper_of(N, E, load);
        const std::string label =
            std::to_string(N) + " elements, E = " + Fmt(E) + ", " + Fmt(load) + " N";
        ex.Info(label + ": wall time per simulated second [s]",
                Fmt(p.wall, 4) + " (MATLAB, constraint-based)", best_wall, src,
                "Not comparable: different machine, language and solver; shown side by side "
                "only. Best of 3 runs.");
        ex.Info(label + ": final-pose error after 1 s, h = 0.01 (relative)",
                Fmt(p.rel_err, 3) + " (vs ode45)", rel_err, src,
                "Against ContactLab at h = " + Fmt(h_ref) +
                    " s, not ode45: measures ContactLab's own step-size error.");
        no_failure &= run.failures == 0 && ref_run.failures == 0;
        ref_near_rigid = std::max(ref_near_rigid, ref_run.near_rigid_max);
        pressure &= run.loaded_side_max;
        if (load == 5) {
          err5 = abs_err;
          steady &= run.out_max == 0 && run.ke_final < 1e-6;
          if (E == 1e7) {
            // Compliance resolved at h = 0.01: the steady response is the closed form.
            const double ew = std::abs(run.w0 / qs.w0 - 1), et = std::abs(run.tilt / qs.tilt - 1);
            worst_steady_w0 = std::max(worst_steady_w0, ew);
            worst_steady_tilt = std::max(worst_steady_tilt, et);
            winkler_ok &= ew < 0.02 && et < 0.02;
          }
        } else {
          ordering &= err5 < abs_err;
          separates &= run.out_final > 0 && ref_run.out_final > 0;
          if (E == 1e7) {
            worst_count = std::max(worst_count, std::abs(run.out_final - qs.out_of_contact));
            count_ok &= std::abs(run.out_final - qs.out_of_contact) <= n_side;
          }
        }
        tab << "| " << N << " | " << Fmt(E) << " | " << Fmt(load) << " | " << Fmt(best_wall, 3)
            << " | " << Fmt(p.wall, 4) << " | " << Fmt(abs_err, 3) << " | " << Fmt(p.abs_err, 3)
            << " | " << Fmt(rel_err, 3) << " | " << Fmt(p.rel_err, 3) << " | " << run.out_final
            << " (" << run.out_max << "); ref " << ref_run.out_final << " | "
            << qs.out_of_contact << " | " << Fmt(run.w0, 3) << " (static " << Fmt(qs.w0, 3)
            << ") | " << Fmt(run.tilt, 3) << " (static " << Fmt(qs.tilt, 3) << ") | "
            << run.near_rigid_max << "; " << ref_run.near_rigid_max << " |\n";
        PlotSeries s = run.out_series;
        s.label = std::to_string(N) + ", E=" + Fmt(E) + ", " + Fmt(load) + " N";
        s.color = kPalette[c++ % 7];
        s.markers = false;
        if (load == 50) out_plot.push_back(s);
      }
    }
  }
  ex.Text(tab.str());
  ex.Row("5 N: steady state (no element lifts over the last 0.5 s, KE < 1e-6 J at 1 s), every case",
         "5 N reaches a steady state", kNaN, steady ? 1 : 0,
         "qualitative: the quasi-static no-tension solution keeps every element in contact at 5 N",
         steady, src);
  ex.Row("50 N: elements out of contact at 1 s (h = 0.01 and reference), every case",
         "50 N rocks; the opposite side separates slightly", kNaN, separates ? 1 : 0,
         "> 0 in every case: the resultant's eccentricity 25/128.5 = 0.195 m exceeds the kern "
         "(s/6 = 0.167 m)",
         separates, src);
  ex.Row("most compressed element on the loaded side (every case)",
         "higher pressure on the loaded side", kNaN, pressure ? 1 : 0,
         "sign of its position along the load direction", pressure, src);
  ex.Row("error ordering: 5 N error < 50 N error at every (N, E)",
         "5 N errors 2.7e-9..3e-5, 50 N errors 1e-2..0.81", kNaN, ordering ? 1 : 0,
         "ordering only: the magnitudes depend on the reference (ode45 there, ContactLab at small "
         "h here)",
         ordering, src);
  ex.Row(
      "E = 1e7, 5 N: steady compression and tilt / Winkler closed form, worst deviation",
      "(derived: w0 = (mg + F)/(N K), tilt = F s/2 / (K Σx²))", 0,
      std::max(worst_steady_w0, worst_steady_tilt),
      "< 2 %: the load direction lags one step (0.1 rad), which turns the tilt but keeps its "
      "size; the rest is SAP's ε_r",
      winkler_ok, "derived from " + src);
  ex.Row("E = 1e7, 50 N: elements out of contact at 1 s − quasi-static no-tension count, worst abs difference",
         "(derived: no-tension Winkler solution for the load at t = 0.99 s)", 0, worst_count,
         "≤ one row of elements (n_side): elements at the contact boundary have d ≈ 0 and flip "
         "with the one-step (0.1 rad) lag of the load direction",
         count_ok, "derived from " + src);
  ex.Row("reference runs: contacts on SAP's near-rigid clamp (most in a step)",
         "(the reference must resolve the compliance)", 0, ref_near_rigid,
         "0: otherwise the reference would not be the compliant model", ref_near_rigid == 0,
         "derived from " + src);
  ex.Row("no failed solve (all runs)", "never fails", kNaN, no_failure ? 1 : 0,
         "every SAP solve converged", no_failure, src);
  ex.Plot("separation", {"Cube on Winkler foundation, 50 N: elements out of contact", "t [s]",
                         "elements", false, false},
          out_plot, "Elements out of contact against time under the 50 N rotating load (h = 0.01).");
  ex.Text(
      "Wall times are ContactLab's (C++, one thread) beside the paper's MATLAB figures; they are "
      "not comparable (machine, language, solver) and are not judged. At E = 1e11 and h = 0.01 "
      "the per-contact stiffness (1e8-1e9 N/m) is beyond what the step resolves, so SAP's "
      "near-rigid clamp replaces it (the near-rigid column): the cube sinks 0.05-0.4 µm instead "
      "of the physical 0.8 nm, and that regularization, not the step's truncation error, dominates the "
      "E = 1e11 errors. The cube responds quasi-statically (rocking frequency ≈ 800 rad/s against "
      "the load's 10 rad/s), so ContactLab's 50 N errors stay small; the paper's 50 N errors "
      "(up to 0.81) are far larger than any quasi-static tilt here could produce, so only their "
      "ordering is compared.");
  return ex.Finish();
}

// ---------------------------------------------------------------------------------------------
// AL paper (seed 001).

ExperimentResult DishPile(const ReproduceOptions& opt) {
  Experiment ex("dish_pile", "Dish pile with a 50:1 mass ratio (single steps)",
                "AL paper B1 (Fig. 9), Table II", opt);
  const std::string src = "seed_001_al.md §5 (B1)";
  const int cases = opt.quick ? 20 : 100;
  ex.Text("Bowl, bowl, plate (0.1 kg) and a 5 kg pot as cylinders, settled for 0.5 s, then " +
          std::to_string(cases) +
          " single steps from the settled state with random velocity "
          "kicks v += M⁻¹ w δt for random wrenches w (|f| ≤ 5 N, |τ| ≤ 0.2 N m per dish), which is "
          "what a wrench applied over one step does (scenes/paper/dish_pile.yaml). The residual "
          "is the NCP residual of engine/metrics.h.");
  const Scene sc = Load(opt, "dish_pile.yaml");
  Simulator sim(sc.model, sc.settings);
  for (int i = 0; i < Steps(sc, 0.5); ++i) sim.Step();
  const State settled = sim.state();
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> U(-1, 1);
  std::vector<double> res_c, res_r, iters;
  for (int c = 0; c < cases; ++c) {
    State s = settled;
    for (size_t b = 0; b < sc.model.bodies.size(); ++b) {
      const Body& body = sc.model.bodies[b];
      if (body.joint < 0) continue;
      const int vs = sc.model.joints[body.joint].v_start;
      const double dt = sc.settings.time_step;
      for (int k = 0; k < 3; ++k) s.v(vs + k) += 5.0 * U(rng) * dt / body.mass;
      Vec3 tau(U(rng), U(rng), U(rng));
      s.v.segment<3>(vs + 3) += body.inertia.inverse() * (0.2 * tau) * dt;
    }
    sim.set_state(s);
    const StepRecord& rec = sim.Step();
    res_c.push_back(ComputeNcpResidual(rec.problem, rec.result, NcpModel::kCompliant).residual);
    res_r.push_back(ComputeNcpResidual(rec.problem, rec.result, NcpModel::kRigid).residual);
    iters.push_back(rec.result.stats.iterations);
  }
  std::vector<double> sorted = res_c;
  std::sort(sorted.begin(), sorted.end());
  ex.Info("SAP: mean NCP residual, compliant model", "CANAL < 1e-8; SubADMM ≈ 1e-6", Mean(res_c),
          src,
          "CANAL and SubADMM are not implemented; SAP solves a regularized (convex) model, so "
          "its residual against exact Signorini-Coulomb is bounded below by its friction "
          "regularization (stiction slip R_t γ_t) and the near-rigid clamp, not by a tolerance.");
  ex.Info("SAP: mean NCP residual, rigid model", "CANAL < 1e-8", Mean(res_r), src,
          "Against the rigid velocity-level NCP of the AL paper (gap φ0/δt, no compliance).");
  ex.Info("SAP: Newton iterations per step", "CANAL: 30.55 inner Newton iterations (10 AL loops)",
          Mean(iters), "seed_001_al.md §5 (D1)",
          "Not the same algorithm: SAP is a single Newton solve.");
  PlotSeries h{"NCP residual (compliant)"};
  for (size_t i = 0; i < sorted.size(); ++i) {
    h.x.push_back(static_cast<double>(i + 1) / sorted.size());
    h.y.push_back(sorted[i]);
  }
  h.color = kBlue;
  ex.Plot("residual",
          {"Dish pile: NCP residual over cases", "fraction of cases", "residual", false, true}, {h},
          "Sorted NCP residuals of SAP's single steps (paper Fig. 9 plots CANAL/SubADMM/PGS).");
  return ex.Finish();
}

// AL paper A1/A2: the M48 bolt and nut. Reported as not expressible, with the reason.
ExperimentResult BoltNut(const ReproduceOptions& opt) {
  Experiment ex("bolt_nut", "Bolt and nut (single steps; assembly with a robot)",
                "AL paper A1-A2 (Figs. 1, 7)", opt);
  const std::string src = "seed_001_al.md §5 (A1, A2)";
  ex.Text(
      "Not run. The paper's bolt is a neural signed-distance field and its nut a triangle mesh "
      "with an M48 thread, in contact at hundreds of points along the helix (clustered above 120 "
      "contacts). ContactLab's geometry is convex: meshes become their convex hull (Qhull) and a "
      "body is a union of convex geometries, so a thread would have to be hand-decomposed into "
      "hundreds of convex pieces per turn, and the paper gives neither the decomposition nor the "
      "10 nut poses and 10 wrenches of its 100 cases. Nothing is compared rather than a scene that "
      "is not the paper's.");
  ex.Info("A1: CANAL/SubADMM residual on 100 single steps", "both ≤ 1e-8; PGS stalls past 1e-4",
          kNaN, src, "Not expressible: non-convex threaded geometry (see the text).");
  ex.Info("A2: assembly with a Panda arm at 0.5 ms/step", "CANAL and SubADMM complete; PGS fails",
          kNaN, src,
          "Not expressible: the same thread geometry. The robot itself can be expressed (see "
          "robot_dish_pile).");
  return ex.Finish();
}

// AL paper B2: the dish pile manipulated by a 7-DOF arm with a 16-DOF hand (47 DOF).
ExperimentResult RobotDishPile(const ReproduceOptions& opt) {
  Experiment ex("robot_dish_pile", "Dish pile manipulated by an arm and hand (47 DOF)",
                "AL paper B2 (Fig. 1)", opt);
  const std::string src = "seed_001_al.md §5 (B2)";
  const Scene sc = Load(opt, "robot_dish_pile.yaml");
  const double dt = sc.settings.time_step;
  ex.Text(
      "A Panda-like 7-DOF arm (capsule links, Panda DH lengths and published link masses, PD "
      "joints with the Panda's torque limits) with an Allegro-like 16-DOF hand (capsule "
      "phalanges, PD joints) presses its fingertips 2 cm into the top of the B1 pile's 5 kg pot, "
      "holds (quiet phase A, 2.25-2.75 s), curls the fingers, pushes the pot 8 cm sideways, opens "
      "and lifts, then holds still (quiet phase B, 5.0-6.0 s); δt = 1/240 s, 6 s "
      "(scenes/paper/robot_dish_pile.yaml, whose header lists the approximations). Timings are "
      "SAP's solve time per step on this machine (the paper's budget is for its own hardware "
      "and solvers). Jitter is the RMS linear speed of the four dishes over a quiet phase.");
  std::vector<int> robot(sc.model.bodies.size(), 0), dish(sc.model.bodies.size(), 0);
  for (size_t b = 0; b < sc.model.bodies.size(); ++b) {
    const std::string& n = sc.model.bodies[b].name;
    for (const char* d : {"bowl_1", "bowl_2", "plate", "pot"}) dish[b] |= n == d;
    robot[b] = sc.model.bodies[b].joint >= 0 && !dish[b];
  }
  auto is_robot = [&](int b) { return b >= 0 && robot[b]; };
  std::vector<double> ms, ncp;
  double max_em = 0, pen_dish = 0, pen_hand = 0, hand_steps = 0;
  // The deepest dish/table contact: when, its normal force and whether R_n was clamped.
  double pen_dish_time = 0, pen_dish_force = 0;
  bool pen_dish_clamped = false;
  double va2 = 0, vb2 = 0, vmax_b = 0;
  int na = 0, nb = 0, max_it = 0;
  double sum_it = 0;
  const RunLog log = Run(sc, Steps(sc, 6.0),
                         [&](const Simulator&, const StepRecord& rec) {
    ms.push_back(rec.result.stats.solve_ms);
    sum_it += rec.result.stats.iterations;
    max_it = std::max(max_it, rec.result.stats.iterations);
    max_em = std::max(max_em, rec.result.stats.momentum_error);
    if (!rec.problem.constraints.empty())
      ncp.push_back(ComputeNcpResidual(rec.problem, rec.result, NcpModel::kCompliant).residual);
    bool touch = false;
    for (size_t ci = 0; ci < rec.contacts.size(); ++ci) {
      const Contact& c = rec.contacts[ci];
      const bool r = is_robot(c.body_a) || is_robot(c.body_b);
      const bool d = (c.body_a >= 0 && dish[c.body_a]) || (c.body_b >= 0 && dish[c.body_b]);
      if (r && d) touch = true;
      if (r) {
        pen_hand = std::max(pen_hand, -c.phi);
      } else if (-c.phi > pen_dish) {
        pen_dish = -c.phi;
        pen_dish_time = rec.before.time;
        for (size_t k = 0; k < rec.problem.constraints.size(); ++k) {
          const ConstraintData& cd = rec.problem.constraints[k];
          if (cd.kind != ConstraintKind::kFrictionCone || cd.source != static_cast<int>(ci))
            continue;
          pen_dish_force = rec.result.gamma(cd.first_row + 2) / dt;
          pen_dish_clamped = rec.result.laws.Constant(static_cast<int>(k), "near_rigid") != 0;
        }
      }
    }
    hand_steps += touch;
    const double t = rec.after.time;
    const bool qa = t > 2.25 + 1e-9 && t <= 2.75 + 1e-9, qb = t > 5.0 + 1e-9;
    if (!qa && !qb) return;
    for (size_t b = 0; b < sc.model.bodies.size(); ++b) {
      if (!dish[b]) continue;
      const double v = rec.after.v.segment<3>(sc.model.joints[sc.model.bodies[b].joint].v_start).norm();
      if (qa) { va2 += v * v; ++na; }
      if (qb) { vb2 += v * v; ++nb; vmax_b = std::max(vmax_b, v); }
    }
  });
  std::vector<double> sorted = ms;
  std::sort(sorted.begin(), sorted.end());
  auto pct = [&](double p) {
    return sorted.empty() ? kNaN : sorted[std::min(sorted.size() - 1,
                                                   static_cast<size_t>(p * (sorted.size() - 1) + 0.5))];
  };
  const double med = pct(0.5), p95 = pct(0.95), mx = sorted.empty() ? kNaN : sorted.back();
  const double rms_a = na ? std::sqrt(va2 / na) : kNaN, rms_b = nb ? std::sqrt(vb2 / nb) : kNaN;
  const std::string jit_tol =
      "< 1 mm/s: a dish creeping at 1 mm/s moves 1 mm per second (visible); the stops of a "
      "non-converged solver are of order g δt = 41 mm/s";
  ex.Row("velocity dimension of the system", "47 (= 7 + 16 + 4 × 6)", 47, sc.model.nv, "exact",
         sc.model.nv == 47, src);
  ex.Row("SAP solve time per step, median [ms]", "budget 1 ms/step", 1.0, med, "≤ 1 ms",
         med <= 1.0, src)
      .note = "Wall-clock time of SAP on the shared 2-core machine that runs the report.";
  ex.Row("SAP solve time per step, p95 [ms]", "budget 1 ms/step", 1.0, p95, "≤ 1 ms", p95 <= 1.0,
         src);
  ex.Info("SAP solve time per step, max [ms]", "budget 1 ms/step", mx, src,
          "Single-step wall-clock maxima on a shared machine include preemption; not judged.");
  ex.Row("failed solves (every step converges)", "CANAL and SubADMM succeed; PGS jitters", 0,
         log.failures + (log.finite ? 0 : 1), "0 failed steps, finite state", log.failures == 0 && log.finite, src)
      .note = "The statement is about the AL solvers; the row asks whether SAP completes the same "
              "task (the physics), not how CANAL/SubADMM compare.";
  ex.Info("SAP Newton iterations per step, mean / max", "no figure (CANAL ≈ 10 AL loops)",
          sum_it / std::max<size_t>(1, ms.size()), src,
          "Max over the run: " + std::to_string(max_it) + ".");
  ex.Info("max momentum error e_m over all steps", "no figure", max_em, src,
          "SAP's own convergence measure (stopping tolerance ε_r = 1e-6).");
  ex.Info("mean NCP residual (compliant model) over steps with contact", "CANAL < 1e-8; PGS ≈ 1e-4",
          Mean(ncp), src,
          "About the AL solvers' accuracy; SAP's residual against exact Coulomb is bounded "
          "below by its friction regularization (see dish_pile). Max: " +
              Fmt(ncp.empty() ? kNaN : *std::max_element(ncp.begin(), ncp.end()), 3) + ".");
  ex.Row("max penetration between dishes / table [m]", "no large penetrations (A2: PGS fails "
         "with large penetrations)", kNaN, pen_dish,
         "< 1 mm (a tenth of the 1 cm plate)", pen_dish < 1e-3, "seed_001_al.md §5 (A2, B2)")
      .note = "Deepest at t = " + Fmt(pen_dish_time, 4) + " s, carrying a normal force of " +
              Fmt(pen_dish_force, 4) + " N (" + Fmt(pen_dish_force / 9.81, 3) +
              " kg-weight; the pot weighs 5 kg), so the contact's effective stiffness is " +
              Fmt(pen_dish_force / std::max(pen_dish, 1e-12), 3) + " N/m" +
              (pen_dish_clamped
                   ? ": R_n comes from the near-rigid clamp (β), which caps the stiffness a "
                     "step of δt = 1/240 s can resolve for the light dishes, so the hand's "
                     "press shows up as millimetres of overlap rather than a numerical failure."
                   : ": R_n from the material (no clamp).") +
              " The hand presses with the arm's PD gains (kp 3000 N m/rad, no gravity "
              "compensation), far harder than a grasp needs.";
  ex.Info("max penetration hand / arm contacts [m]", "no figure", pen_hand, src,
          "The hand is rubber-like (k = 1e6 N/m) and its phalanges weigh 26-65 g, so SAP's "
          "near-rigid clamp makes these contacts compliant.");
  ex.Info("steps with hand-dish contact", "contact-rich manipulation", hand_steps, src,
          "Out of " + std::to_string(ms.size()) + " steps.");
  ex.Row("dish jitter, phase A (hand pressing, held): RMS dish speed [m/s]",
         "CANAL/SubADMM: no jitter; PGS jitters", 0, rms_a, jit_tol, rms_a < 1e-3, src);
  ex.Row("dish jitter, phase B (hand withdrawn): RMS dish speed [m/s]",
         "CANAL/SubADMM: no jitter; PGS jitters", 0, rms_b, jit_tol, rms_b < 1e-3, src)
      .note = "Largest dish speed in phase B: " + Fmt(vmax_b, 3) + " m/s.";
  PlotSeries t{"solve ms"};
  for (size_t i = 0; i < ms.size(); ++i) {
    t.x.push_back((i + 1) * dt);
    t.y.push_back(ms[i]);
  }
  t.color = kBlue;
  t.markers = false;
  ex.Plot("solve_time", {"Robot dish pile: SAP solve time per step", "t [s]", "ms", false, true},
          {t}, "SAP solve time per step over the manipulation (budget 1 ms).");
  return ex.Finish();
}

ExperimentResult Pouring(const ReproduceOptions& opt) {
  Experiment ex("pouring", "Pouring small spheres", "AL paper C (Figs. 10-11)", opt);
  const std::string src = "seed_001_al.md §5 (C)";
  std::vector<int> ns =
      opt.quick ? std::vector<int>{9, 27, 45} : std::vector<int>{9, 18, 27, 36, 45};
  const double T = opt.quick ? 0.5 : 1.0;
  ex.Text("Spheres r = 5 mm, ρ = 10 g/cm³ dropped into a cup of primitives, δt = 1/240 s, " +
          Fmt(T) +
          " s (scenes/paper/pouring.yaml). The paper's humanoid and bottle are not "
          "modelled.");
  PlotSeries res{"mean NCP residual"}, ms{"solve ms"};
  std::vector<double> xs, rs, ts;
  for (int n : ns) {
    const Scene sc = Load(opt, "pouring.yaml",
                          {"generators.grain.grid.count=[3, 3, " + std::to_string(n / 9) + "]"});
    std::vector<double> r;
    double sms = 0;
    int steps = 0;
    Run(sc, Steps(sc, T), [&](const Simulator&, const StepRecord& rec) {
      if (!rec.problem.constraints.empty())
        r.push_back(ComputeNcpResidual(rec.problem, rec.result).residual);
      sms += rec.result.stats.solve_ms;
      ++steps;
    });
    xs.push_back(n);
    rs.push_back(Mean(r));
    ts.push_back(sms / std::max(1, steps));
  }
  res.x = ms.x = xs;
  res.y = rs;
  ms.y = ts;
  const double mx = *std::max_element(rs.begin(), rs.end());
  const double mn = *std::min_element(rs.begin(), rs.end());
  ex.Row("NCP residual spread over N (max/min)", "roughly independent of N", kNaN, mx / mn,
         "< 10 (within one decade on the paper's log axis)", mx / mn < 10, src)
      .note =
      "The paper's statement is about CANAL/SubADMM/PGS at fixed iteration counts; "
      "ContactLab runs SAP to its tolerance.";
  ex.Info("exponent of solve time in N", "CANAL superlinear, well below 3", LogLogSlope(xs, ts),
          src, "SAP, not CANAL.");
  res.color = kBlue;
  ms.color = kOrange;
  ex.Plot("residual", {"Pouring: NCP residual vs N", "spheres", "residual", false, true}, {res},
          "Mean NCP residual per step (paper Fig. 11).");
  ex.Plot("time", {"Pouring: solve time vs N", "spheres", "ms", true, true}, {ms},
          "Mean SAP solve time per step (paper Fig. 11).");
  return ex.Finish();
}

struct ExperimentDef {
  const char* id;
  ExperimentResult (*run)(const ReproduceOptions&);
};

const ExperimentDef kExperiments[] = {
    {"spring_cylinder", SpringCylinder},
    {"clutter", Clutter},
    {"clutter_scaling", ClutterScaling},
    {"sigma_sweep", SigmaSweep},
    {"conveyor_belt", ConveyorBelt},
    {"falling_sphere", FallingSphere},
    {"sliding_rod", SlidingRod},
    {"clutter_stiffness", ClutterStiffness},
    {"box_on_ramp", BoxOnRamp},
    {"sphere_stack", SphereStack},
    {"stiff_pendulum", StiffPendulum},
    {"cube_foundation", CubeFoundation},
    {"dish_pile", DishPile},
    {"robot_dish_pile", RobotDishPile},
    {"bolt_nut", BoltNut},
    {"pouring", Pouring},
};

nlohmann::json RowJson(const ResultRow& r) {
  nlohmann::json j;
  j["experiment"] = r.experiment;
  j["metric"] = r.metric;
  if (std::isfinite(r.paper_number)) {
    j["paper_value"] = r.paper_number;
  } else {
    j["paper_value"] = r.paper_value;
  }
  j["paper_statement"] = r.paper_value;
  j["contactlab_value"] = std::isfinite(r.value) ? nlohmann::json(r.value) : nlohmann::json();
  j["tolerance"] = r.tolerance;
  j["agrees"] = r.agrees == Agreement::kAgrees      ? nlohmann::json(true)
                : r.agrees == Agreement::kDisagrees ? nlohmann::json(false)
                                                    : nlohmann::json();
  j["source"] = r.source;
  if (!r.note.empty()) j["note"] = r.note;
  return j;
}

}  // namespace

std::vector<std::string> ReproduceExperimentIds() {
  std::vector<std::string> ids;
  for (const ExperimentDef& e : kExperiments) ids.push_back(e.id);
  return ids;
}

ExperimentResult RunReproduceExperiment(const std::string& id, const ReproduceOptions& options) {
  for (const ExperimentDef& e : kExperiments) {
    if (id == e.id) {
      const auto start = std::chrono::steady_clock::now();
      ExperimentResult r = e.run(options);
      r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      return r;
    }
  }
  std::string known;
  for (const ExperimentDef& e : kExperiments)
    known += std::string(known.empty() ? "" : ", ") + e.id;
  throw std::invalid_argument("unknown experiment '" + id + "' (known: " + known + ")");
}

int RunReproduce(const ReproduceOptions& options, std::ostream& log) {
  std::vector<std::string> ids = options.only.empty() ? ReproduceExperimentIds() : options.only;
  if (!options.out_dir.empty()) std::filesystem::create_directories(options.out_dir);
  const auto start = std::chrono::steady_clock::now();
  std::vector<ExperimentResult> results;
  for (const std::string& id : ids) {
    log << "reproduce: " << id << " ..." << std::flush;
    results.push_back(RunReproduceExperiment(id, options));
    int agree = 0, disagree = 0;
    for (const ResultRow& r : results.back().rows) {
      agree += r.agrees == Agreement::kAgrees;
      disagree += r.agrees == Agreement::kDisagrees;
    }
    log << " " << Fmt(results.back().seconds, 3) << " s, " << agree << " agree, " << disagree
        << " disagree" << std::endl;
  }
  const double total =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (options.out_dir.empty()) return 0;

  nlohmann::json rows = nlohmann::json::array();
  int n_agree = 0, n_disagree = 0, n_na = 0;
  for (const ExperimentResult& e : results) {
    for (const ResultRow& r : e.rows) {
      rows.push_back(RowJson(r));
      n_agree += r.agrees == Agreement::kAgrees;
      n_disagree += r.agrees == Agreement::kDisagrees;
      n_na += r.agrees == Agreement::kNotComparable;
    }
  }
  nlohmann::json doc;
  doc["mode"] = options.quick ? "quick" : "full";
  doc["seconds"] = total;
  doc["rows"] = rows;
  const std::filesystem::path out(options.out_dir);
  {
    std::ofstream f(out / "results.json");
    f << std::setw(2) << doc << '\n';
    if (!f) {
      log << "error: cannot write " << (out / "results.json").string() << std::endl;
      return 1;
    }
  }
  std::ofstream md(out / "report.md");
  md << "# ContactLab: reproduction of the papers' experiments\n\n"
     << "Mode: **" << (options.quick ? "quick" : "full") << "**, " << Fmt(total, 3)
     << " s wall time. Rows: " << n_agree << " agree, " << n_disagree << " disagree, " << n_na
     << " not comparable (no paper number, or not expressible in ContactLab).\n\n"
     << "Solver: SAP for every experiment. The Hunt-Crossley, Lagged and Similar contact models "
        "and the CANAL, SubADMM and PGS solvers of the other papers are not implemented in "
        "ContactLab; their experiments are run with SAP and compared where the paper's statement "
        "is about the physics rather than about its solver. Paper values are quoted from the "
        "digests in shared/research/ (section given per row in results.json).\n\n"
     << "## Summary\n\n| experiment | paper | rows | agree | disagree | n/a | time [s] |\n"
     << "|---|---|---|---|---|---|---|\n";
  for (const ExperimentResult& e : results) {
    int a = 0, d = 0, n = 0;
    for (const ResultRow& r : e.rows) {
      a += r.agrees == Agreement::kAgrees;
      d += r.agrees == Agreement::kDisagrees;
      n += r.agrees == Agreement::kNotComparable;
    }
    md << "| [" << e.title << "](#" << e.id << ") | " << e.paper << " | " << e.rows.size() << " | "
       << a << " | " << d << " | " << n << " | " << Fmt(e.seconds, 3) << " |\n";
  }
  md << "\n";
  for (const ExperimentResult& e : results) {
    md << "<a id=\"" << e.id << "\"></a>\n\n## " << e.title << "\n\n*" << e.paper << "*\n\n"
       << e.markdown << RowsTable(e.rows) << "\n";
  }
  if (!md.flush()) {
    log << "error: cannot write " << (out / "report.md").string() << std::endl;
    return 1;
  }
  log << "reproduce: " << n_agree << " agree, " << n_disagree << " disagree, " << n_na
      << " n/a; wrote " << (out / "results.json").string() << " and "
      << (out / "report.md").string() << std::endl;
  return 0;
}

void AddReproduceCommand(CLI::App& app, RunOptions* run_options) {
  if (run_options != nullptr) {
    for (CLI::App* sub : app.get_subcommands({})) {
      if (sub->get_name() == "run") {
        sub->add_option("--reference", run_options->reference_path,
                        "Trajectory CSV to measure the position error e_q against");
      }
    }
  }
  auto opt = std::make_shared<ReproduceOptions>();
  CLI::App* cmd = app.add_subcommand(
      "reproduce", "Run the papers' experiments and write results.json and report.md");
  cmd->add_flag("--quick", opt->quick, "Shorter runs and fewer sweep points");
  cmd->add_option("--out", opt->out_dir, "Output directory")->required();
  cmd->add_option("--scenes", opt->scene_dir,
                  "Directory of the paper scenes (default: "
                  "scenes/paper of the source tree)");
  cmd->add_option("--only", opt->only, "Run only these experiment ids")
      ->check(CLI::IsMember(ReproduceExperimentIds()));
  cmd->callback([opt]() {
    int code = 1;
    try {
      code = RunReproduce(*opt, std::cout);
    } catch (const std::exception& e) {
      std::cerr << "error: " << e.what() << std::endl;
      code = 1;
    }
    throw CLI::RuntimeError(code);
  });
}

}  // namespace contactlab
