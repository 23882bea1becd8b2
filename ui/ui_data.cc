#include "ui/ui_data.h"

#include "engine/inspect/pressure_draw.h"

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <limits>
#include <numeric>

#include "engine/inspect/debug_draw.h"

namespace contactlab {

double LogRange::lo() const { return std::pow(10.0, lo_exp); }
double LogRange::hi() const { return std::pow(10.0, hi_exp); }

LogRange ComputeLogRange(const std::vector<double>& values, double floor) {
  if (!(floor > 0)) floor = 1e-16;
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  for (double v : values) {
    if (!std::isfinite(v)) continue;
    const double x = std::max(v, floor);
    lo = std::min(lo, x);
    hi = std::max(hi, x);
  }
  LogRange r;
  if (!(lo <= hi)) {
    r.lo_exp = static_cast<int>(std::floor(std::log10(floor)));
    r.hi_exp = std::max(r.lo_exp + 1, 0);
    return r;
  }
  // A small relative slack keeps exact powers of ten on the inside of the range.
  r.lo_exp = static_cast<int>(std::floor(std::log10(lo) + 1e-9));
  r.hi_exp = static_cast<int>(std::ceil(std::log10(hi) - 1e-9));
  if (r.hi_exp <= r.lo_exp) r.hi_exp = r.lo_exp + 1;
  return r;
}

std::string PowerOfTenLabel(int e) {
  if (e == 0) return "1";
  if (e == 1) return "10";
  return "1e" + std::to_string(e);
}

std::vector<AxisTick> LogTicks(const LogRange& range, int max_major) {
  std::vector<AxisTick> ticks;
  const int decades = range.hi_exp - range.lo_exp;
  if (decades <= 0) return ticks;
  max_major = std::max(max_major, 2);
  // Every `stride`-th decade, aligned to multiples of stride, so majors stay at round exponents;
  // the stride itself is 1, 2, 3 or 5 × 10^k decades (a long axis reads 1e-300, 1e-200,
  // 1e-100, never a label such as 1e-101): the smallest such stride that keeps at most
  // max_major majors, or a smaller one when that would leave fewer than two.
  const int needed = std::max(1, (decades + max_major - 1) / (max_major - 1));
  std::vector<int> strides;
  for (int base = 1; strides.empty() || strides.back() < needed; base *= 10) {
    for (int m : {1, 2, 3, 5}) strides.push_back(m * base);
  }
  auto majors_with = [&](int s) {
    auto floor_div = [](int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); };
    return floor_div(range.hi_exp, s) - -floor_div(-range.lo_exp, s) + 1;
  };
  size_t pick = 0;
  while (strides[pick] < needed) ++pick;
  while (pick > 0 && majors_with(strides[pick]) < 2) --pick;
  const int stride = strides[pick];
  const bool minors = decades <= 3;
  for (int e = range.lo_exp; e <= range.hi_exp; ++e) {
    const bool is_major = ((e % stride) + stride) % stride == 0;
    if (is_major) ticks.push_back({std::pow(10.0, e), true, PowerOfTenLabel(e)});
    if (minors && e < range.hi_exp) {
      for (int m = 2; m <= 9; ++m) ticks.push_back({m * std::pow(10.0, e), false, ""});
    }
  }
  return ticks;
}

double LogToPixel(double value, const LogRange& range, double y_top, double y_bottom) {
  if (!(value > 0)) return y_bottom;
  const double t = std::clamp(
      (std::log10(value) - range.lo_exp) / static_cast<double>(range.hi_exp - range.lo_exp), 0.0,
      1.0);
  return y_bottom + t * (y_top - y_bottom);
}

LogPlotLayout LayoutLogPlot(const std::vector<double>& values, const PlotRect& rect, double floor,
                            int max_major) {
  LogPlotLayout out;
  out.range = ComputeLogRange(values, floor);
  out.ticks = LogTicks(out.range, max_major);
  const int n = static_cast<int>(values.size());
  for (int i = 0; i < n; ++i) {
    if (!std::isfinite(values[i])) continue;
    const double x = n > 1 ? rect.x0 + (rect.x1 - rect.x0) * i / (n - 1) : rect.x0;
    const double y = LogToPixel(std::max(values[i], floor), out.range, rect.y0, rect.y1);
    out.points.emplace_back(x, y);
    out.indices.push_back(i);
  }
  return out;
}

std::vector<LogPlotLayout> LayoutLogPlots(const std::vector<std::vector<double>>& series,
                                          const PlotRect& rect, double floor, int max_major) {
  std::vector<double> all;
  int longest = 0;
  for (const std::vector<double>& v : series) {
    all.insert(all.end(), v.begin(), v.end());
    longest = std::max(longest, static_cast<int>(v.size()));
  }
  const LogRange range = ComputeLogRange(all, floor);
  const std::vector<AxisTick> ticks = LogTicks(range, max_major);
  std::vector<LogPlotLayout> out(series.size());
  for (size_t s = 0; s < series.size(); ++s) {
    LogPlotLayout& layout = out[s];
    layout.range = range;
    layout.ticks = ticks;
    const std::vector<double>& values = series[s];
    for (int i = 0; i < static_cast<int>(values.size()); ++i) {
      if (!std::isfinite(values[i])) continue;
      const double x = longest > 1 ? rect.x0 + (rect.x1 - rect.x0) * i / (longest - 1) : rect.x0;
      const double y = LogToPixel(std::max(values[i], floor), range, rect.y0, rect.y1);
      layout.points.emplace_back(x, y);
      layout.indices.push_back(i);
    }
  }
  return out;
}

std::vector<double> ResidualSeries(const SolverResult& result) {
  const IterationLog& log = result.stats.iteration_log;
  return log.Column(log.table().FindRole(SeriesRole::kResidual));
}

std::vector<int> SlowestIslands(const SolverStats& stats, int count) {
  std::vector<int> order(stats.islands.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    const IslandSummary& x = stats.islands[a];
    const IslandSummary& y = stats.islands[b];
    if (x.solve_ms != y.solve_ms) return x.solve_ms > y.solve_ms;
    return x.iterations > y.iterations;
  });
  if (count >= 0 && static_cast<int>(order.size()) > count) order.resize(count);
  return order;
}

std::string IslandsLine(const SolverStats& stats) {
  if (stats.islands.empty()) return "one problem (no island split)";
  const IslandSummary& s = stats.islands[SlowestIslands(stats, 1).front()];
  auto count = [](long long n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
  };
  char ms[48];
  std::snprintf(ms, sizeof ms, "%.3f ms", s.solve_ms);
  return count(static_cast<long long>(stats.islands.size()), "island", "islands") +
         "; slowest: " + count(s.iterations, "iteration", "iterations") + ", " +
         count(s.trees, "tree", "trees") + ", " +
         count(s.constraints, "constraint", "constraints") + ", " + ms;
}

std::vector<std::string> WrapSegments(const std::string& text) {
  std::vector<std::string> out;
  size_t begin = 0;
  for (size_t i = 0; i + 1 < text.size(); ++i) {
    if ((text[i] == ',' || text[i] == ';') && text[i + 1] == ' ') {
      out.push_back(text.substr(begin, i + 2 - begin));
      begin = i + 2;
      ++i;
    }
  }
  if (begin < text.size()) out.push_back(text.substr(begin));
  return out;
}

std::string ResolveLegend(const SolverResult& before, const SolverResult& after) {
  return "iterations " + std::to_string(before.stats.iterations) + " / " +
         std::to_string(after.stats.iterations) + ", " + SolverStatusName(before.stats.status) +
         " / " + SolverStatusName(after.stats.status);
}

int TimelineIndex(int slider, int count) {
  if (count <= 0) return -1;
  return std::clamp(slider, 0, count - 1);
}

int StepsForFrame(double wall_dt, double rate, double time_step, int max_steps,
                  double* accumulator) {
  if (!(time_step > 0) || !(wall_dt > 0) || !(rate > 0)) return 0;
  *accumulator += wall_dt * rate;
  // A tiny tolerance so 1/60 s at δt = 1/600 s gives 10 steps despite rounding.
  int steps = static_cast<int>(std::floor(*accumulator / time_step + 1e-9));
  if (steps > max_steps) {
    steps = max_steps;
    *accumulator = 0;
    return steps;
  }
  *accumulator = std::max(0.0, *accumulator - steps * time_step);
  return steps;
}

void RateMeter::Add(double sim_dt, double wall_dt) {
  if (!(wall_dt > 0)) return;
  const double r = sim_dt / wall_dt;
  if (!started_) {
    value_ = r;
    started_ = true;
  } else {
    value_ += smoothing_ * (r - value_);
  }
}

double TypicalGeometrySize(const Model& model) {
  std::vector<double> sizes;
  for (const Geom& g : model.geoms) {
    const Shape& s = g.shape;
    double d = 0;
    switch (s.type) {
      case ShapeType::kHalfSpace:
        continue;
      case ShapeType::kSphere:
        d = 2 * s.radius;
        break;
      case ShapeType::kCapsule:
        d = 2 * (s.radius + s.half_length);
        break;
      case ShapeType::kBox:
        d = 2 * s.half_extents.norm();
        break;
      case ShapeType::kCylinder:
        d = 2 * std::hypot(s.radius, s.half_length);
        break;
      case ShapeType::kConvexMesh:
        if (s.hull) {
          for (const Vec3& v : s.hull->vertices) d = std::max(d, 2 * v.norm());
        }
        break;
    }
    if (d > 0 && std::isfinite(d)) sizes.push_back(d);
  }
  if (sizes.empty()) return 0.1;
  std::nth_element(sizes.begin(), sizes.begin() + sizes.size() / 2, sizes.end());
  return sizes[sizes.size() / 2];
}

int PickNearest(const std::vector<std::pair<double, double>>& points, double x, double y,
                double max_distance) {
  int best = -1;
  double best_d2 = max_distance * max_distance;
  for (int i = 0; i < static_cast<int>(points.size()); ++i) {
    const double dx = points[i].first - x, dy = points[i].second - y;
    const double d2 = dx * dx + dy * dy;
    if (d2 <= best_d2) {
      best_d2 = d2;
      best = i;
    }
  }
  return best;
}

std::vector<ContactRow> BuildContactRows(const Model& model, const StepRecord& record) {
  auto body_name = [&model](int b) -> std::string {
    if (b < 0 || b >= static_cast<int>(model.bodies.size())) return "world";
    return model.bodies[b].name.empty() ? "body " + std::to_string(b) : model.bodies[b].name;
  };
  std::vector<ContactRow> rows(record.contacts.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    const Contact& c = record.contacts[i];
    ContactRow& r = rows[i];
    r.contact = static_cast<int>(i);
    r.body_a = body_name(c.body_a);
    r.body_b = body_name(c.body_b);
    r.phi = c.phi;
    r.mu = c.friction;
    r.stiffness = c.stiffness;
    r.dissipation_time = c.dissipation_time;
  }
  const auto& cs = record.problem.constraints;
  const SolverResult& res = record.result;
  for (int k = 0; k < static_cast<int>(cs.size()); ++k) {
    const ConstraintData& cd = cs[k];
    if (cd.kind != ConstraintKind::kFrictionCone) continue;
    if (cd.source < 0 || cd.source >= static_cast<int>(rows.size())) continue;
    ContactRow& r = rows[cd.source];
    r.constraint = k;
    r.phi = cd.phi0;
    r.mu = cd.friction;
    r.stiffness = cd.stiffness;
    r.dissipation_time = cd.dissipation_time;
    const int f = cd.first_row;
    if (f + 3 <= res.gamma.size()) {
      const Vec3 g = res.gamma.segment<3>(f);
      r.gamma_n = g.z();
      r.gamma_t = g.head<2>().norm();
      r.saturation = ConeSaturation(g, cd.friction);
    }
    if (f + 3 <= res.vc.size()) {
      r.v_n = res.vc[f + 2];
      r.v_t = res.vc.segment<2>(f).norm();
    }
    if (k < res.laws.num_constraints()) {
      r.law = res.laws.Law(k);
      r.constants = res.laws.Describe(k);
    }
    if (k < static_cast<int>(res.regime.size())) r.regime = res.regime[k];
    r.loaded_at_gap = r.phi > 0 && r.gamma_n > 0;
  }
  return rows;
}

std::vector<EqualityRow> BuildEqualityRows(const Model& model, const StepRecord& record) {
  std::vector<EqualityRow> rows;
  const auto& cs = record.problem.constraints;
  const SolverResult& res = record.result;
  for (int k = 0; k < static_cast<int>(cs.size()); ++k) {
    const ConstraintData& cd = cs[k];
    if (cd.kind != ConstraintKind::kBilateral) continue;
    EqualityRow r;
    r.constraint = k;
    r.equality = cd.source;
    r.rows = cd.num_rows;
    if (cd.source >= 0 && cd.source < static_cast<int>(model.equalities.size())) {
      const Equality& e = model.equalities[cd.source];
      r.name = e.name;
      r.type = e.type == EqualityType::kConnect ? "connect"
               : e.type == EqualityType::kJointCoupling
                   ? "joint_coupling"
                   : (cd.key & 1 ? "weld rotation" : "weld position");
    }
    r.g = cd.g0.head(cd.num_rows).norm();
    const int f = cd.first_row, n = cd.num_rows;
    if (f + n <= res.gamma.size()) r.gamma = res.gamma.segment(f, n).norm();
    if (f + n <= res.vc.size()) r.v = res.vc.segment(f, n).norm();
    r.regime = ConstraintRegimeName(cd.kind, Regime::kStiction);
    if (k < res.laws.num_constraints()) r.constants = res.laws.Describe(k);
    rows.push_back(r);
  }
  return rows;
}

std::vector<int> CountRegimes(const std::vector<ContactRow>& rows) {
  std::vector<int> counts(3, 0);
  for (const ContactRow& r : rows) {
    const int i = static_cast<int>(r.regime);
    if (i >= 0 && i < 3) ++counts[i];
  }
  return counts;
}

int CountLoadedAtGap(const std::vector<ContactRow>& rows) {
  int n = 0;
  for (const ContactRow& r : rows) n += r.loaded_at_gap ? 1 : 0;
  return n;
}


namespace {

// Per contact of the record: (constraint, regime) of its cone constraint, (-1, kNoContact) when
// it has none or no result.
std::vector<std::pair<int, Regime>> ContactRegimes(const StepRecord& record) {
  std::vector<std::pair<int, Regime>> of(record.contacts.size(), {-1, Regime::kNoContact});
  const auto& cs = record.problem.constraints;
  for (int k = 0; k < static_cast<int>(cs.size()); ++k) {
    if (cs[k].kind != ConstraintKind::kFrictionCone) continue;
    const int src = cs[k].source;
    if (src < 0 || src >= static_cast<int>(of.size())) continue;
    of[src].first = k;
    if (k < static_cast<int>(record.result.regime.size())) of[src].second = record.result.regime[k];
  }
  return of;
}

}  // namespace

std::vector<PatchRow> BuildPatchRows(const Model& model, const StepRecord& record) {
  auto body_name = [&model](int geom) -> std::string {
    const int b = geom >= 0 && geom < static_cast<int>(model.geoms.size()) ? model.geoms[geom].body
                                                                          : -1;
    if (b < 0 || b >= static_cast<int>(model.bodies.size())) return "world";
    return model.bodies[b].name.empty() ? "body " + std::to_string(b) : model.bodies[b].name;
  };
  std::vector<PatchRow> rows(record.surfaces.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    const ContactSurface& s = record.surfaces[i];
    PatchRow& r = rows[i];
    r.surface = static_cast<int>(i);
    r.body_a = body_name(s.geom_a);
    r.body_b = body_name(s.geom_b);
    r.faces = static_cast<int>(s.faces.size());
    r.area = s.Area();
    r.normal_force = s.NormalForceSum();
    for (const ContactFace& f : s.faces) r.max_pressure = std::max(r.max_pressure, f.p0);
    r.mean_pressure = r.area > 0 ? r.normal_force / r.area : 0.0;
    r.skipped = r.faces;
    const PatchResultant res = PatchResultantOf(record, static_cast<int>(i));
    r.solved_force = res.solved ? res.force.norm() : std::nan("");
    r.moment = res.solved ? res.moment.norm() : std::nan("");
  }
  const auto regimes = ContactRegimes(record);
  for (size_t ci = 0; ci < record.contacts.size(); ++ci) {
    const Contact& c = record.contacts[ci];
    if (c.surface < 0 || c.surface >= static_cast<int>(rows.size())) continue;
    PatchRow& r = rows[c.surface];
    ++r.regimes[static_cast<int>(regimes[ci].second)];
    --r.skipped;
  }
  return rows;
}

std::vector<PatchFaceRow> BuildPatchFaceRows(const StepRecord& record, int surface) {
  std::vector<PatchFaceRow> rows;
  if (surface < 0 || surface >= static_cast<int>(record.surfaces.size())) return rows;
  const ContactSurface& s = record.surfaces[surface];
  rows.resize(s.faces.size());
  for (size_t e = 0; e < rows.size(); ++e) {
    const ContactFace& f = s.faces[e];
    PatchFaceRow& r = rows[e];
    r.face = static_cast<int>(e);
    r.area = f.area;
    r.p0 = f.p0;
    r.centroid = f.centroid;
    for (double p : f.pressure) r.max_vertex_pressure = std::max(r.max_vertex_pressure, p);
  }
  const auto regimes = ContactRegimes(record);
  for (size_t ci = 0; ci < record.contacts.size(); ++ci) {
    const Contact& c = record.contacts[ci];
    if (c.surface != surface || c.face < 0 || c.face >= static_cast<int>(rows.size())) continue;
    PatchFaceRow& r = rows[c.face];
    r.contact = static_cast<int>(ci);
    r.regime = regimes[ci].second;
    const int k = regimes[ci].first;
    if (k >= 0) {
      const int row = record.problem.constraints[k].first_row;
      if (row + 3 <= record.result.gamma.size()) r.gamma_n = record.result.gamma(row + 2);
    }
  }
  return rows;
}

}  // namespace contactlab
