#include "engine/inspect/step_summary.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/inspect/race.h"

namespace contactlab {

StepSummary SummarizeStep(const Multibody& multibody, const StepRecord& record,
                          KinematicsCache* kin) {
  StepSummary s;
  s.step = record.step;
  s.time = record.after.time;
  s.iterations = record.result.stats.iterations;
  s.solve_ms = record.timings.solve_ms;
  s.max_penetration = record.metrics.max_penetration;
  s.total_energy = record.metrics.kinetic_energy + record.metrics.potential_energy;
  s.ncp_residual = NcpResidualOrNan(record.problem, record.result);
  s.status = record.result.stats.status;
  s.failed = record.Failed();
  s.q = record.after.q;
  if (record.after.q.size() == multibody.model().nq) {
    multibody.UpdateKinematics(record.after.q, record.after.time, kin);
    s.body_com = kin->com_W;
  }
  return s;
}

double MaxBodyDistance(const std::vector<Vec3>& a, const std::vector<Vec3>& b, int* body) {
  double largest = 0;
  int at = -1;
  const size_t n = std::min(a.size(), b.size());
  for (size_t i = 0; i < n; ++i) {
    double d = (a[i] - b[i]).norm();
    if (!std::isfinite(d)) d = std::numeric_limits<double>::infinity();
    if (d > largest || (at < 0 && d >= largest)) {
      largest = d;
      at = static_cast<int>(i);
    }
  }
  if (body) *body = at;
  return largest;
}

}  // namespace contactlab
