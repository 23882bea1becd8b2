#include "ui/compare_data.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "engine/sim/solver_registry.h"

namespace contactlab {

namespace {

constexpr double kRaceFloor = 1e-16;  // residuals of 0 are drawn here on the log axis

// Colours of the configurations, 8-bit sRGB: blue (the analysis panels' series colour), rose,
// mint, gold. None is near the regime green / orange / grey, the cone map or the impulse arrows.
constexpr unsigned char kCompareRgb[kMaxCompareConfigs][3] = {
    {110, 190, 255}, {255, 96, 160}, {90, 230, 150}, {240, 200, 70}};

bool EntryBefore(const CompareEntry& e, int step) { return e.summary.step < step; }

}  // namespace

Color CompareColor(int config) {
  const int i = ((config % kMaxCompareConfigs) + kMaxCompareConfigs) % kMaxCompareConfigs;
  return Color{kCompareRgb[i][0] / 255.0f, kCompareRgb[i][1] / 255.0f, kCompareRgb[i][2] / 255.0f,
               1.0f};
}

std::string CompareConfigName(const StepSettings& settings) {
  std::string name = SolverDisplayName(settings.solver_type);
  if (settings.contact.model != ContactModelType::kLinear) {
    name += std::string(" · ") + ContactModelName(settings.contact.model);
  }
  return name;
}

std::vector<std::string> CompareConfigNames(const std::vector<StepSettings>& settings,
                                            const std::vector<std::string>& specs) {
  std::vector<std::string> names;
  for (size_t c = 0; c < settings.size(); ++c) {
    std::string name = CompareConfigName(settings[c]);
    const std::string spec = c < specs.size() ? specs[c] : "";
    const size_t colon = spec.find(':');
    if (colon != std::string::npos) {
      // "KEY=VALUE:KEY=VALUE" after the solver, each key by its last part.
      std::string parts;
      size_t at = colon + 1;
      while (at <= spec.size()) {
        size_t end = spec.find(':', at);
        if (end == std::string::npos) end = spec.size();
        std::string part = spec.substr(at, end - at);
        // The solver and the model are in the name already.
        if (part.rfind("contact.model=", 0) == 0 || part.rfind("solver.type=", 0) == 0) {
          at = end + 1;
          continue;
        }
        const size_t eq = part.find('=');
        const size_t dot = part.rfind('.', eq);
        if (eq != std::string::npos && dot != std::string::npos) part = part.substr(dot + 1);
        if (!part.empty()) parts += (parts.empty() ? "" : ", ") + part;
        at = end + 1;
      }
      if (parts.size() > 40) parts = parts.substr(0, 37) + "...";
      if (!parts.empty()) name += " (" + parts + ")";
    }
    names.push_back(name);
  }
  std::map<std::string, int> total, seen;
  for (const std::string& n : names) ++total[n];
  for (std::string& n : names) {
    if (total[n] < 2) continue;
    const int k = ++seen[n];
    if (k > 1) n += " #" + std::to_string(k);
  }
  return names;
}

std::vector<float> GhostVisibility(const std::vector<Pose>& primary, const std::vector<Pose>& ghost,
                                   double full_distance, double radius, float min) {
  std::vector<float> out(ghost.size(), 1.0f);
  if (!(full_distance > 0)) return out;
  const size_t n = std::min(primary.size(), ghost.size());
  for (size_t b = 0; b < n; ++b) {
    const double drift =
        (ghost[b].p - primary[b].p).norm() + radius * ghost[b].q.angularDistance(primary[b].q);
    const double t = std::isfinite(drift) ? std::clamp(drift / full_distance, 0.0, 1.0) : 1.0;
    out[b] = static_cast<float>(min + (1.0 - min) * t);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------

CompareStore::CompareStore(int max_steps) : max_steps_(std::max(1, max_steps)) {}

void CompareStore::Reset(int num_configs) {
  tracks_.assign(static_cast<size_t>(std::max(0, num_configs)), {});
  ++version_;
}

void CompareStore::Divergence(const CompareEntry& primary, CompareEntry* ghost) const {
  if (primary.summary.body_com.empty() || ghost->summary.body_com.empty()) return;
  ghost->divergence =
      MaxBodyDistance(primary.summary.body_com, ghost->summary.body_com, &ghost->divergence_body);
}

void CompareStore::Add(int config, StepSummary summary) {
  if (config < 0 || config >= num_configs()) return;
  std::deque<CompareEntry>& track = tracks_[config];
  const int step = summary.step;
  while (!track.empty() && track.back().summary.step >= step) track.pop_back();
  CompareEntry entry;
  entry.summary = std::move(summary);
  if (config > 0) {
    if (const CompareEntry* p = Find(0, step)) Divergence(*p, &entry);
  }
  track.push_back(std::move(entry));
  while (static_cast<int>(track.size()) > max_steps_) track.pop_front();
  if (config == 0) {
    const CompareEntry& p = track.back();
    for (int c = 1; c < num_configs(); ++c) {
      auto it = std::lower_bound(tracks_[c].begin(), tracks_[c].end(), step, EntryBefore);
      if (it != tracks_[c].end() && it->summary.step == step) Divergence(p, &*it);
    }
  }
  ++version_;
}

void CompareStore::TruncateAfter(int step) {
  for (auto& track : tracks_) {
    while (!track.empty() && track.back().summary.step > step) track.pop_back();
  }
  ++version_;
}

void CompareStore::AddConfig() {
  tracks_.emplace_back();
  ++version_;
}

void CompareStore::RemoveConfig(int config) {
  if (config <= 0 || config >= num_configs()) return;
  tracks_.erase(tracks_.begin() + config);
  ++version_;
}

void CompareStore::Clear(int config) {
  if (config < 0 || config >= num_configs()) return;
  tracks_[config].clear();
  ++version_;
}

const CompareEntry* CompareStore::Find(int config, int step) const {
  if (config < 0 || config >= num_configs()) return nullptr;
  const auto& track = tracks_[config];
  auto it = std::lower_bound(track.begin(), track.end(), step, EntryBefore);
  return it != track.end() && it->summary.step == step ? &*it : nullptr;
}

const CompareEntry* CompareStore::AtOrBefore(int config, int step) const {
  if (config < 0 || config >= num_configs()) return nullptr;
  const auto& track = tracks_[config];
  auto it = std::lower_bound(track.begin(), track.end(), step + 1, EntryBefore);
  if (it == track.begin()) return nullptr;
  return &*std::prev(it);
}

// ---------------------------------------------------------------------------------------------

const char* CompareQuantityTitle(CompareQuantity q) {
  switch (q) {
    case CompareQuantity::kIterations:
      return "iterations";
    case CompareQuantity::kSolveMs:
      return "solve [ms]";
    case CompareQuantity::kMaxPenetration:
      return "max penetration [m]";
    case CompareQuantity::kTotalEnergy:
      return "total energy [J]";
    case CompareQuantity::kNcpResidual:
      return "NCP residual";
    case CompareQuantity::kDivergence:
      return "distance from the primary [m]";
  }
  return "";
}

const char* CompareQuantityFormat(CompareQuantity q) {
  switch (q) {
    case CompareQuantity::kIterations:
      return "%.0f";
    case CompareQuantity::kSolveMs:
      return "%.3f";
    case CompareQuantity::kMaxPenetration:
      return "%.3e";
    case CompareQuantity::kTotalEnergy:
      return "%.6g";
    case CompareQuantity::kNcpResidual:
      return "%.3e";
    case CompareQuantity::kDivergence:
      return "%.3e";
  }
  return "%g";
}

bool CompareQuantityLogAxis(CompareQuantity q) {
  return q == CompareQuantity::kNcpResidual || q == CompareQuantity::kDivergence;
}

StepSeries ExtractCompareSeries(const CompareStore& store, int config, CompareQuantity q) {
  StepSeries out;
  if (config < 0 || config >= store.num_configs()) return out;
  if (q == CompareQuantity::kDivergence && config == 0) return out;  // the primary's own: 0
  const auto& track = store.track(config);
  out.steps.reserve(track.size());
  out.values.reserve(track.size());
  for (const CompareEntry& e : track) {
    const StepSummary& s = e.summary;
    double v = 0;
    switch (q) {
      case CompareQuantity::kIterations:
        v = s.iterations;
        break;
      case CompareQuantity::kSolveMs:
        v = s.solve_ms;
        break;
      case CompareQuantity::kMaxPenetration:
        v = s.max_penetration;
        break;
      case CompareQuantity::kTotalEnergy:
        v = s.total_energy;
        break;
      case CompareQuantity::kNcpResidual:
        // A step without constraints has nothing to measure (0): not drawn on the log axis.
        v = s.ncp_residual > 0 ? s.ncp_residual : std::numeric_limits<double>::quiet_NaN();
        break;
      case CompareQuantity::kDivergence:
        v = e.divergence;
        break;
    }
    out.steps.push_back(s.step);
    out.values.push_back(v);
  }
  return out;
}

std::pair<int, int> StepRange(const std::vector<StepSeries>& series) {
  int lo = -1, hi = -1;
  for (const StepSeries& s : series) {
    if (s.steps.empty()) continue;
    lo = lo < 0 ? s.steps.front() : std::min(lo, s.steps.front());
    hi = std::max(hi, s.steps.back());
  }
  return {lo, hi};
}

double StepToPixel(int step, int lo, int hi, double x0, double x1) {
  if (hi <= lo) return x0;
  return x0 + (x1 - x0) * (step - lo) / static_cast<double>(hi - lo);
}

int PixelToStep(double x, int lo, int hi, double x0, double x1) {
  if (hi <= lo || !(x1 > x0)) return lo;
  const double t = std::clamp((x - x0) / (x1 - x0), 0.0, 1.0);
  return lo + static_cast<int>(std::lround(t * (hi - lo)));
}

std::vector<std::pair<double, double>> OverlayPolyline(const StepSeries& series, int lo, int hi,
                                                       const PlotRect& rect, int columns,
                                                       const std::function<double(double)>& to_y) {
  std::vector<std::pair<double, double>> pts;
  const int n = static_cast<int>(std::min(series.steps.size(), series.values.size()));
  columns = std::max(1, columns);
  if (n <= 2 * columns) {
    for (int i = 0; i < n; ++i) {
      if (!std::isfinite(series.values[i])) continue;
      pts.emplace_back(StepToPixel(series.steps[i], lo, hi, rect.x0, rect.x1),
                       to_y(series.values[i]));
    }
    return pts;
  }
  // One pixel column at a time: its first, min, max and last value (in the order first, the
  // extreme met first, the other, last), so the line keeps every spike and joins its neighbours.
  int i = 0;
  while (i < n) {
    const double x = StepToPixel(series.steps[i], lo, hi, rect.x0, rect.x1);
    const long column = std::lround(std::floor(x));
    int j = i;
    int first = -1, last = -1, lo_i = -1, hi_i = -1;
    while (j < n && std::lround(std::floor(
                        StepToPixel(series.steps[j], lo, hi, rect.x0, rect.x1))) == column) {
      const double v = series.values[j];
      if (std::isfinite(v)) {
        if (first < 0) first = j;
        last = j;
        if (lo_i < 0 || v < series.values[lo_i]) lo_i = j;
        if (hi_i < 0 || v > series.values[hi_i]) hi_i = j;
      }
      ++j;
    }
    if (first >= 0) {
      const double cx = static_cast<double>(column) + 0.5;
      std::vector<int> order{first, std::min(lo_i, hi_i), std::max(lo_i, hi_i), last};
      int prev = -1;
      for (int k : order) {
        if (k == prev) continue;
        pts.emplace_back(cx, to_y(series.values[k]));
        prev = k;
      }
    }
    i = j;
  }
  return pts;
}

std::vector<DivergenceAlert> FindDivergence(const CompareStore& store, double threshold) {
  std::vector<DivergenceAlert> alerts;
  if (!(threshold > 0)) return alerts;
  for (int c = 1; c < store.num_configs(); ++c) {
    DivergenceAlert a;
    a.config = c;
    for (const CompareEntry& e : store.track(c)) {
      if (std::isnan(e.divergence)) continue;
      if (e.divergence > threshold && a.first_step < 0) a.first_step = e.summary.step;
      if (a.worst_step < 0 || e.divergence > a.worst) {
        a.worst = e.divergence;
        a.worst_step = e.summary.step;
        a.worst_body = e.divergence_body;
      }
    }
    if (a.first_step >= 0) alerts.push_back(a);
  }
  return alerts;
}

std::string FormatLength(double m) {
  char buf[48];
  const double a = std::abs(m);
  if (!std::isfinite(m)) {
    std::snprintf(buf, sizeof(buf), "%s m", std::isnan(m) ? "nan" : "inf");
  } else if (a >= 1.0) {
    std::snprintf(buf, sizeof(buf), "%.3g m", m);
  } else if (a >= 1e-2) {
    std::snprintf(buf, sizeof(buf), "%.3g cm", m * 1e2);
  } else if (a >= 1e-4) {
    std::snprintf(buf, sizeof(buf), "%.3g mm", m * 1e3);
  } else {
    std::snprintf(buf, sizeof(buf), "%.2e m", m);
  }
  return buf;
}

std::string DivergenceText(const DivergenceAlert& alert, const std::vector<std::string>& names,
                           const std::vector<std::string>& body_names, double threshold) {
  auto name = [&](int c) {
    return c >= 0 && c < static_cast<int>(names.size()) ? names[c] : "config " + std::to_string(c);
  };
  std::string out = name(alert.config) + " drifts " + FormatLength(alert.worst) + " from " +
                    name(0) + " at step " + std::to_string(alert.worst_step);
  if (alert.worst_body >= 0 && alert.worst_body < static_cast<int>(body_names.size())) {
    out += " (" + body_names[alert.worst_body] + ")";
  }
  out += ", over " + FormatLength(threshold) + " since step " + std::to_string(alert.first_step);
  return out;
}

// ---------------------------------------------------------------------------------------------

double RaceX(const RacePoint& p, RaceAxis axis) {
  return axis == RaceAxis::kTime ? p.solve_ms : std::max(p.iterations, 1);
}

RacePlotLayout LayoutRacePlot(const RaceRun& run, RaceAxis axis, const PlotRect& rect) {
  RacePlotLayout out;
  std::vector<double> xs, ys;
  for (const RaceEntry& e : run.entries) {
    for (const RacePoint& p : e.curve.points) {
      if (!std::isfinite(p.ncp_residual) || !std::isfinite(RaceX(p, axis))) continue;
      xs.push_back(RaceX(p, axis));
      ys.push_back(p.ncp_residual);
    }
  }
  out.x_range = ComputeLogRange(xs, axis == RaceAxis::kTime ? 1e-6 : 1.0);
  out.y_range = ComputeLogRange(ys, kRaceFloor);
  out.x_ticks = LogTicks(out.x_range, 6);
  out.y_ticks = LogTicks(out.y_range, 6);
  out.curves.resize(run.entries.size());
  for (size_t e = 0; e < run.entries.size(); ++e) {
    const std::vector<RacePoint>& pts = run.entries[e].curve.points;
    for (size_t i = 0; i < pts.size(); ++i) {
      const double xv = RaceX(pts[i], axis), yv = pts[i].ncp_residual;
      if (!std::isfinite(yv) || !std::isfinite(xv) || !(xv > 0)) continue;
      RacePlotLayout::Point p;
      p.entry = static_cast<int>(e);
      p.index = static_cast<int>(i);
      p.x = LogToPixel(xv, out.x_range, rect.x1, rect.x0);
      p.y = LogToPixel(std::max(yv, kRaceFloor), out.y_range, rect.y0, rect.y1);
      out.curves[e].emplace_back(p.x, p.y);
      out.points.push_back(p);
    }
  }
  return out;
}

int PickRacePoint(const RacePlotLayout& layout, double x, double y, double max_distance) {
  std::vector<std::pair<double, double>> pts;
  pts.reserve(layout.points.size());
  for (const auto& p : layout.points) pts.emplace_back(p.x, p.y);
  return PickNearest(pts, x, y, max_distance);
}

std::string RacePointText(const RaceEntry& entry, int index) {
  const std::vector<RacePoint>& pts = entry.curve.points;
  if (index < 0 || index >= static_cast<int>(pts.size())) return "";
  const RacePoint& p = pts[index];
  char buf[256];
  std::string out = entry.name + "\n";
  std::snprintf(buf, sizeof(buf),
                "iteration %d (cap %d), %s\nNCP residual %.4g\nsolve %.4g ms (median)\ne_m %.4g\n",
                p.iterations, p.cap, SolverStatusName(p.status), p.ncp_residual, p.solve_ms,
                p.momentum_error);
  out += buf;
  const SeriesTable& t = entry.curve.series;
  if (!p.final_row.empty() && t.size == static_cast<int>(p.final_row.size())) {
    std::snprintf(buf, sizeof(buf),
                  "%s's series at iteration %d:", SolverDisplayName(entry.curve.solver),
                  p.iterations);
    out += buf;
    for (int k = 0; k < t.size; ++k) {
      const double v = p.final_row[k];
      if (std::isnan(v)) continue;
      if (t[k].type == SeriesType::kInteger && std::isfinite(v)) {
        std::snprintf(buf, sizeof(buf), "\n  %s = %lld", t[k].key, static_cast<long long>(v));
      } else {
        std::snprintf(buf, sizeof(buf), "\n  %s = %.4g", t[k].key, v);
      }
      out += buf;
      if (t[k].unit && t[k].unit[0]) out += std::string(" ") + t[k].unit;
    }
  }
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

RaceBest BestRacePoint(const RaceCurve& curve) {
  RaceBest best;
  for (const RacePoint& p : curve.points) {
    if (!std::isfinite(p.ncp_residual)) continue;
    if (!best.valid || p.ncp_residual < best.ncp_residual) {
      best.valid = true;
      best.ncp_residual = p.ncp_residual;
      best.solve_ms = p.solve_ms;
      best.iterations = p.iterations;
      best.status = p.status;
    }
  }
  return best;
}

}  // namespace contactlab
