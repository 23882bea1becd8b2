#include "engine/inspect/race.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <limits>
#include <memory>

#include "engine/inspect/metrics.h"
#include "engine/sim/solver_registry.h"

namespace contactlab {

namespace {

using Clock = std::chrono::steady_clock;

double MsSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

bool Cancelled(const RaceOptions& options) {
  return options.cancel && options.cancel->load(std::memory_order_relaxed);
}

}  // namespace

std::vector<int> RaceCaps(int cap) {
  std::vector<int> caps;
  for (int k = 1; k <= cap; k = k < 4 ? k + 1 : k + k / 2 - (k / 2) % 2) {
    caps.push_back(k);
    if (caps.size() > 64) break;
  }
  if (caps.empty() || caps.back() != cap) caps.push_back(std::max(cap, 1));
  return caps;
}

double NcpResidualOrNan(const ContactProblem& problem, const SolverResult& result,
                        NcpModel model) {
  try {
    return ComputeNcpResidual(problem, result, model).residual;
  } catch (const std::exception&) {
    return std::numeric_limits<double>::quiet_NaN();
  }
}

RaceCurve RaceFrozenStep(const StepRecord& record, const StepSettings& given,
                         const RaceOptions& options) {
  StepSettings settings = given;
  RaceCurve curve;
  curve.solver = settings.solver_type;
  curve.model = settings.contact.model;
  curve.series = SolverSeries(settings.solver_type);
  const int own_cap = SolverIterationCap(settings);
  for (int cap : RaceCaps(own_cap)) {
    if (Cancelled(options)) {
      curve.cancelled = true;
      break;
    }
    SetSolverIterationCap(cap, &settings);
    RacePoint pt;
    pt.cap = cap;
    std::vector<double> times;
    SolverResult result;
    const auto t_all = Clock::now();
    for (int rep = 0; rep < options.max_repeats &&
                      (rep < options.min_repeats || MsSince(t_all) < options.budget_ms);
         ++rep) {
      if (rep > 0 && Cancelled(options)) break;
      std::unique_ptr<ContactSolver> solver = MakeSolver(settings);
      const auto t0 = Clock::now();
      solver->Solve(record.problem, record.before.v, &result);
      times.push_back(MsSince(t0));
    }
    pt.solve_ms = Median(times);
    pt.iterations = result.stats.iterations;
    pt.ncp_residual = NcpResidualOrNan(record.problem, result);
    pt.momentum_error = result.stats.momentum_error;
    pt.status = result.stats.status;
    const IterationLog& log = result.stats.iteration_log;
    if (!log.empty()) {
      const double* row = log.row(log.num_rows() - 1);
      pt.final_row.assign(row, row + log.num_series());
      curve.series = log.table();
    }
    curve.points.push_back(std::move(pt));
    if (options.on_point) options.on_point(curve.points.back());
    if (result.stats.status != SolverStatus::kMaxIterations) break;  // converged or failed
  }
  return curve;
}

}  // namespace contactlab
