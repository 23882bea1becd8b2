#include "app/reproduce/solver_race.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <string_view>

#include "engine/inspect/metrics.h"

namespace contactlab {
namespace reproduce {

std::vector<int> ConsecutiveRaceCaps(int max_cap) {
  static const int kTail[] = {15, 20, 30, 50, 75, 100, 150, 200, 300, 500, 750, 1000};
  std::vector<int> caps;
  for (int k = 1; k <= std::min(12, max_cap); ++k) caps.push_back(k);
  for (int k : kTail)
    if (k <= max_cap && k > caps.back()) caps.push_back(k);
  for (int k = 1500; k <= max_cap; k *= 2) caps.push_back(k);
  if (caps.back() != max_cap) caps.push_back(max_cap);
  return caps;
}

double CanalNewtonSteps(const SolverResult& result) {
  const IterationLog& log =
      result.stats.island_log.empty() ? result.stats.iteration_log : result.stats.island_log;
  const int col = log.table().Find("newton_iterations");
  if (col < 0) return kNaN;
  double n = 0;
  for (int i = 0; i < log.num_rows(); ++i) {
    const double x = log.row(i)[col];
    if (std::isfinite(x)) n += x;
  }
  return n;
}

std::vector<RaceSample> RaceAtCaps(const StepRecord& record, StepSettings settings,
                                   const std::vector<int>& caps, int repeats) {
  using Clock = std::chrono::steady_clock;
  std::vector<RaceSample> out;
  for (int cap : caps) {
    if (!out.empty() && out.back().status != SolverStatus::kMaxIterations) {
      RaceSample s = out.back();  // converged (or failed) below the previous cap
      s.cap = cap;
      out.push_back(s);
      continue;
    }
    SetSolverIterationCap(cap, &settings);
    RaceSample s;
    s.cap = cap;
    s.ms = 1e300;
    SolverResult result;
    for (int rep = 0; rep < std::max(1, repeats); ++rep) {
      std::unique_ptr<ContactSolver> solver = MakeSolver(settings);
      const auto t0 = Clock::now();
      solver->Solve(record.problem, record.before.v, &result);
      s.ms = std::min(s.ms, std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
      if (s.ms > 1.0) break;
    }
    s.iterations = result.stats.iterations;
    s.status = result.stats.status;
    s.e_m = result.stats.momentum_error;
    s.newton = CanalNewtonSteps(result);
    try {
      s.ncp = ComputeNcpResidual(record.problem, result).residual;
    } catch (const std::exception&) {
      s.ncp = kNaN;
    }
    out.push_back(s);
  }
  return out;
}

namespace {

double OwnResidual(const SolverResult& result) {
  const IterationLog& log = result.stats.iteration_log;
  const int col = log.table().FindRole(SeriesRole::kResidual);
  if (col < 0 || log.num_rows() == 0) return kNaN;
  const std::string_view key = log.table()[col].key;
  const bool smallest = key == "al_residual" || key == "residual";  // CANAL, SubADMM
  double v = log.row(log.num_rows() - 1)[col];
  if (smallest) {
    for (int i = 0; i < log.num_rows(); ++i) {
      const double x = log.row(i)[col];
      if (std::isfinite(x) && !(x >= v)) v = x;
    }
  }
  return v;
}

}  // namespace

SolverRun RunSolver(const Scene& scene, int steps,
                    const std::function<void(const Simulator&, const StepRecord&)>& each) {
  SolverRun r;
  double it = 0;
  const RunLog log = Run(scene, steps, [&](const Simulator& sim, const StepRecord& rec) {
    const SolverStats& st = rec.result.stats;
    r.solve_ms.push_back(st.solve_ms);
    it += st.iterations;
    r.max_iterations = std::max(r.max_iterations, st.iterations);
    if (st.status == SolverStatus::kMaxIterations) {
      ++r.at_cap;
    } else if (st.status != SolverStatus::kConverged) {
      if (r.failures++ == 0) {
        r.first_failure = "t = " + Fmt(rec.before.time, 4) + " s: " + SolverStatusName(st.status) +
                          ": " + st.message;
      }
    }
    if (!rec.problem.constraints.empty()) {
      r.own_residual.push_back(OwnResidual(rec.result));
      r.solve_ms_contact.push_back(st.solve_ms);
      r.newton.push_back(CanalNewtonSteps(rec.result));
      try {
        r.ncp.push_back(ComputeNcpResidual(rec.problem, rec.result).residual);
      } catch (const std::exception&) {
        r.ncp.push_back(kNaN);
      }
    }
    r.max_penetration = std::max(r.max_penetration, rec.metrics.max_penetration);
    if (each) each(sim, rec);
  });
  r.iterations = log.steps.empty() ? 0 : it / log.steps.size();
  r.finite = log.finite;
  r.wall_s = log.wall_s;
  return r;
}

double Quantile(std::vector<double> v, double p) {
  if (v.empty()) return kNaN;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * (v.size() - 1) + 0.5))];
}

}  // namespace reproduce
}  // namespace contactlab
