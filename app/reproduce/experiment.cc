#include "app/reproduce/experiment.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>

namespace contactlab {
namespace reproduce {

std::string Fmt(double v, int digits) {
  if (std::isnan(v)) return "n/a";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*g", digits, v);
  return buf;
}

Experiment::Experiment(const std::string& id, const std::string& title, const std::string& paper,
                       const std::string& source, const ReproduceOptions& opt)
    : opt_(opt), source_(source) {
  r_.id = id;
  r_.title = title;
  r_.paper = paper;
}

ResultRow& Experiment::Row(const std::string& metric, const std::string& paper_value,
                           double paper_number, double value, const std::string& tolerance, bool ok,
                           const std::string& source) {
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

ResultRow& Experiment::Info(const std::string& metric, const std::string& paper_value, double value,
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

void Experiment::Plot(const std::string& name, const PlotOptions& po,
                      const std::vector<PlotSeries>& s, const std::string& caption) {
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

ExperimentResult Experiment::Finish() {
  r_.markdown = md_.str();
  return r_;
}

std::string SceneDir(const ReproduceOptions& opt) {
  if (!opt.scene_dir.empty()) return opt.scene_dir;
#ifdef CONTACTLAB_SOURCE_DIR
  return std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/paper";
#else
  return "scenes/paper";
#endif
}

Scene Load(const ReproduceOptions& opt, const std::string& file,
           const std::vector<std::string>& overrides) {
  return LoadScene(SceneDir(opt) + "/" + file, overrides);
}

// Steps `scene` for `steps` steps; `each` sees every record.
RunLog Run(const Scene& scene, int steps,
           const std::function<void(const Simulator&, const StepRecord&)>& each,
           Simulator** sim_out) {
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

double Mean(const std::vector<double>& v) {
  if (v.empty()) return kNaN;
  double s = 0;
  for (double x : v) s += x;
  return s / v.size();
}

}  // namespace reproduce
}  // namespace contactlab
