#include "ui/plot_data.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace contactlab {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace

// ---------------------------------------------------------------------------------------------
// Convergence.

ReferenceSeries ReferenceSlopes(double e0, int n, double floor, double rate,
                                double quadratic_ratio) {
  ReferenceSeries out;
  if (!(e0 > 0) || !std::isfinite(e0) || n <= 0) return out;
  if (!(floor > 0)) floor = 1e-16;
  if (!(rate > 0 && rate < 1)) rate = 0.5;
  if (!(quadratic_ratio > 0 && quadratic_ratio < 1)) quadratic_ratio = 0.5;
  out.e_scale = e0 / quadratic_ratio;
  double lin = e0, quad = e0;
  for (int k = 0; k < n; ++k) {
    if (lin >= floor) out.linear.push_back(lin);
    if (quad >= floor) out.quadratic.push_back(quad);
    if (lin < floor && quad < floor) break;
    lin *= rate;
    quad = quad * quad / out.e_scale;
  }
  // Keep each series contiguous from iteration 0: a value below the floor ends it.
  return out;
}

std::vector<double> GapToFinal(const std::vector<double>& values, double relative_floor) {
  std::vector<double> out(values.size(), kNaN);
  if (values.empty()) return out;
  const double final_value = values.back();
  double scale = 0;
  for (double y : values) {
    if (std::isfinite(y)) scale = std::max(scale, std::abs(y));
  }
  double level = relative_floor * scale;
  if (!(level > 0)) level = std::numeric_limits<double>::min();
  for (size_t k = 0; k + 1 < values.size(); ++k) {
    const double gap = values[k] - final_value;
    if (!std::isfinite(gap)) continue;
    out[k] = std::max(gap, level);
  }
  return out;
}

std::vector<double> PlottedSeries(const SolverResult& result, std::string_view key) {
  return PlottedSeries(result.stats.iteration_log, key, 0, -1);
}

std::vector<double> PlottedSeries(const IterationLog& log, std::string_view key, int first_row,
                                  int rows) {
  const int s = log.table().Find(key);
  if (s < 0) return {};
  std::vector<double> y = log.Column(s, first_row, rows);
  const SeriesSpec& spec = log.table()[s];
  if (spec.role == SeriesRole::kObjective) return GapToFinal(y);
  if ((spec.flags & kSeriesPerStep) && !y.empty()) y[0] = kNaN;
  return y;
}

std::vector<std::string> DefaultSeriesKeys(const SeriesTable& table) {
  std::vector<std::string> out;
  const int residual = table.FindRole(SeriesRole::kResidual);
  if (residual >= 0) out.emplace_back(table[residual].key);
  for (int i = 0; i < table.size; ++i) {
    if (i != residual && (table[i].flags & kSeriesDefaultPlot)) out.emplace_back(table[i].key);
  }
  return out;
}

std::string SeriesAxisTitle(const SeriesSpec& spec) {
  std::string t = spec.label;
  if (spec.role == SeriesRole::kObjective) t += ": gap to final";
  if (spec.unit && spec.unit[0]) {
    t += " [";
    t += spec.unit;
    t += "]";
  }
  return t;
}

std::vector<const SolverResult*> EarlierResults(const History& history, int shown_step,
                                                int count) {
  std::vector<const SolverResult*> out;
  if (count <= 0) return out;
  for (int i = history.size() - 1; i >= 0 && static_cast<int>(out.size()) < count; --i) {
    const StepRecord& r = history.At(i);
    if (r.step < shown_step) out.push_back(&r.result);
  }
  std::reverse(out.begin(), out.end());
  return out;
}

// ---------------------------------------------------------------------------------------------
// Linear axes.

double IndexToPixel(int i, int count, double x0, double x1) {
  return count > 1 ? x0 + (x1 - x0) * i / (count - 1) : x0;
}

int PixelToIndex(double x, int count, double x0, double x1) {
  if (count <= 0) return -1;
  if (count == 1 || !(x1 != x0)) return 0;
  const double t = (x - x0) / (x1 - x0) * (count - 1);
  if (!std::isfinite(t)) return 0;
  return std::clamp(static_cast<int>(std::lround(t)), 0, count - 1);
}

double LinearToPixel(double value, double lo, double hi, double y_top, double y_bottom) {
  if (!(hi > lo)) return 0.5 * (y_top + y_bottom);
  if (std::isnan(value)) return y_bottom;
  const double t = std::clamp((value - lo) / (hi - lo), 0.0, 1.0);
  return y_bottom + t * (y_top - y_bottom);
}

double NiceStep(double lo, double hi, int max_ticks) {
  const double span = hi - lo;
  if (!(span > 0) || !std::isfinite(span)) return 1.0;
  max_ticks = std::max(max_ticks, 2);
  const double raw = span / (max_ticks - 1);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double norm = raw / mag;
  // A small tolerance so that exact quotients (0.2 / 0.1) do not jump to the next step.
  double m = 10;
  if (norm <= 1 + 1e-9) m = 1;
  else if (norm <= 2 + 1e-9) m = 2;
  else if (norm <= 5 + 1e-9) m = 5;
  return m * mag;
}

namespace {

std::string TickLabel(double v, double step) {
  char buf[48];
  const double mag = std::max(std::abs(v), step);
  if (v == 0) return "0";
  if (mag >= 1e5 || step < 1e-4) {
    std::snprintf(buf, sizeof(buf), "%.3g", v);
  } else {
    const int decimals = std::max(0, -static_cast<int>(std::floor(std::log10(step) + 1e-9)));
    std::snprintf(buf, sizeof(buf), "%.*f", decimals, v);
  }
  // Trailing zeros of a fixed-point label go ("1.0" -> "1"); exponent labels are left alone.
  std::string label = buf;
  if (label.find('.') != std::string::npos && label.find('e') == std::string::npos) {
    while (label.back() == '0') label.pop_back();
    if (label.back() == '.') label.pop_back();
  }
  if (label == "-0") label = "0";
  return label;
}

}  // namespace

std::vector<AxisTick> NiceTicks(double lo, double hi, int max_ticks) {
  std::vector<AxisTick> ticks;
  if (!std::isfinite(lo) || !std::isfinite(hi) || !(hi > lo)) return ticks;
  const double step = NiceStep(lo, hi, max_ticks);
  const double eps = 1e-9 * step;
  const long long k0 = static_cast<long long>(std::ceil((lo - eps) / step));
  const long long k1 = static_cast<long long>(std::floor((hi + eps) / step));
  for (long long k = k0; k <= k1; ++k) {
    double v = k * step;
    if (std::abs(v) < eps) v = 0;
    ticks.push_back({v, true, TickLabel(v, step)});
  }
  return ticks;
}

std::pair<double, double> NiceRange(const std::vector<double>& values, int max_ticks,
                                    bool include_zero) {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -lo;
  for (double v : values) {
    if (!std::isfinite(v)) continue;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  if (!(lo <= hi)) return {0.0, 1.0};
  if (include_zero) {
    lo = std::min(lo, 0.0);
    hi = std::max(hi, 0.0);
  }
  if (!(hi > lo)) {
    // Constant (and, with include_zero, 0): a window of half its magnitude either side.
    const double half = std::abs(lo) > 0 ? 0.5 * std::abs(lo) : 0.5;
    if (include_zero && lo == 0) {
      hi = 1;
    } else {
      lo -= half;
      hi += half;
    }
  }
  const double step = NiceStep(lo, hi, max_ticks);
  return {std::floor(lo / step + 1e-9) * step, std::ceil(hi / step - 1e-9) * step};
}

std::vector<MinMax> Envelope(const std::vector<double>& y, int columns) {
  std::vector<MinMax> out;
  const int n = static_cast<int>(y.size());
  if (n == 0 || columns <= 0) return out;
  const int c_count = std::min(columns, n);
  out.resize(c_count);
  for (int c = 0; c < c_count; ++c) {
    MinMax& m = out[c];
    m.begin = static_cast<int>(static_cast<long long>(c) * n / c_count);
    m.end = static_cast<int>(static_cast<long long>(c + 1) * n / c_count);
    m.min = m.max = m.first = m.last = kNaN;
    for (int i = m.begin; i < m.end; ++i) {
      const double v = y[i];
      if (!std::isfinite(v)) continue;
      if (std::isnan(m.first)) {
        m.first = m.min = m.max = v;
      } else {
        m.min = std::min(m.min, v);
        m.max = std::max(m.max, v);
      }
      m.last = v;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Time series.

TimeSeries ExtractTimeSeries(const History& history) {
  TimeSeries s;
  const int n = history.size();
  s.steps.reserve(n);
  for (std::vector<double>* v : {&s.time, &s.iterations, &s.solve_ms, &s.contacts,
                                 &s.total_energy, &s.max_penetration, &s.momentum_error}) {
    v->reserve(n);
  }
  for (int i = 0; i < n; ++i) {
    const StepRecord& r = history.At(i);
    const SolverStats& st = r.result.stats;
    s.steps.push_back(r.step);
    s.time.push_back(r.after.time);
    s.iterations.push_back(st.iterations);
    s.solve_ms.push_back(r.timings.solve_ms);
    s.contacts.push_back(r.metrics.num_contacts);
    s.total_energy.push_back(r.metrics.kinetic_energy + r.metrics.potential_energy);
    s.max_penetration.push_back(r.metrics.max_penetration);
    s.momentum_error.push_back(st.momentum_error);
    if (st.status != SolverStatus::kConverged) s.failures.push_back(i);
  }
  return s;
}

int IndexOfStep(const TimeSeries& series, int step) {
  const auto it = std::lower_bound(series.steps.begin(), series.steps.end(), step);
  if (it == series.steps.end() || *it != step) return -1;
  return static_cast<int>(it - series.steps.begin());
}

// ---------------------------------------------------------------------------------------------
// Profiler.

void AddStepTimings(const StepTimings& t, FrameProfile* p) {
  p->collision_ms += t.collision_ms;
  p->assembly_ms += t.assembly_ms;
  p->solve_ms += t.solve_ms;
  p->other_physics_ms += t.kinematics_ms + t.integrate_ms;
}

const char* FramePartName(FramePart part) {
  switch (part) {
    case FramePart::kCollision: return "collision";
    case FramePart::kAssembly: return "assembly";
    case FramePart::kSolve: return "solve";
    case FramePart::kOtherPhysics: return "other physics";
    case FramePart::kRender: return "render";
    case FramePart::kUi: return "UI";
  }
  return "?";
}

Color FramePartColor(FramePart part) {
  switch (part) {
    case FramePart::kCollision: return Color{0.95f, 0.55f, 0.20f, 1.0f};     // orange
    case FramePart::kAssembly: return Color{0.85f, 0.80f, 0.25f, 1.0f};      // yellow
    case FramePart::kSolve: return Color{0.90f, 0.30f, 0.30f, 1.0f};         // red
    case FramePart::kOtherPhysics: return Color{0.65f, 0.45f, 0.85f, 1.0f};  // violet
    case FramePart::kRender: return Color{0.30f, 0.60f, 0.95f, 1.0f};        // blue
    case FramePart::kUi: return Color{0.35f, 0.80f, 0.55f, 1.0f};            // green
  }
  return Color{};
}

double FramePartMs(const FrameProfile& p, FramePart part) {
  switch (part) {
    case FramePart::kCollision: return p.collision_ms;
    case FramePart::kAssembly: return p.assembly_ms;
    case FramePart::kSolve: return p.solve_ms;
    case FramePart::kOtherPhysics: return p.other_physics_ms;
    case FramePart::kRender: return p.render_ms;
    case FramePart::kUi: return p.ui_ms;
  }
  return 0;
}

std::vector<BarSegment> LayoutProfileBar(const FrameProfile& profile, double x0, double x1) {
  std::vector<BarSegment> out;
  double sum = 0;
  for (int i = 0; i < kNumFrameParts; ++i) {
    const double ms = FramePartMs(profile, static_cast<FramePart>(i));
    if (ms > 0 && std::isfinite(ms)) sum += ms;
  }
  const double frame = std::isfinite(profile.frame_ms) ? profile.frame_ms : 0.0;
  const double total = std::max(frame, sum);
  if (!(total > 0) || !(x1 > x0)) return out;
  double acc = 0;
  double x = x0;
  for (int i = 0; i < kNumFrameParts; ++i) {
    const FramePart part = static_cast<FramePart>(i);
    const double ms = FramePartMs(profile, part);
    if (!(ms > 0) || !std::isfinite(ms)) continue;
    acc += ms;
    // From the running sum, so round-off never opens gaps and the last end is exact.
    const double end = acc >= total ? x1 : x0 + (x1 - x0) * (acc / total);
    out.push_back({part, x, end, ms});
    x = end;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Sparsity images.

Rgba8 SparsityCellColor(std::uint8_t value) {
  if (value == 0) return kSparsityBackground;
  const double t = (value - 1) / 254.0;
  auto mix = [t](std::uint8_t a, std::uint8_t b) {
    return static_cast<std::uint8_t>(std::lround(a + (b - a) * t));
  };
  return Rgba8{mix(kSparsityLow.r, kSparsityHigh.r), mix(kSparsityLow.g, kSparsityHigh.g),
               mix(kSparsityLow.b, kSparsityHigh.b), 255};
}

std::vector<std::uint8_t> SparsityImageToRgba(const SparsityImage& image) {
  const size_t cells = static_cast<size_t>(std::max(0, image.width)) *
                       static_cast<size_t>(std::max(0, image.height));
  std::vector<std::uint8_t> out(cells * 4);
  for (size_t i = 0; i < cells && i < image.cells.size(); ++i) {
    const Rgba8 c = SparsityCellColor(image.cells[i]);
    out[4 * i + 0] = c.r;
    out[4 * i + 1] = c.g;
    out[4 * i + 2] = c.b;
    out[4 * i + 3] = c.a;
  }
  // Cells missing from a malformed image stay background.
  for (size_t i = image.cells.size(); i < cells; ++i) {
    out[4 * i + 0] = kSparsityBackground.r;
    out[4 * i + 1] = kSparsityBackground.g;
    out[4 * i + 2] = kSparsityBackground.b;
    out[4 * i + 3] = kSparsityBackground.a;
  }
  return out;
}

std::vector<CellRun> SparsityRuns(const SparsityImage& image) {
  std::vector<CellRun> runs;
  if (image.cells.size() < static_cast<size_t>(image.width) * image.height) return runs;
  for (int y = 0; y < image.height; ++y) {
    int x = 0;
    while (x < image.width) {
      const std::uint8_t v = image.at(x, y);
      int end = x + 1;
      while (end < image.width && image.at(end, y) == v) ++end;
      if (v != 0) runs.push_back({y, x, end, v});
      x = end;
    }
  }
  return runs;
}

PlotRect FitAspect(int rows, int cols, const PlotRect& area) {
  const double cx = 0.5 * (area.x0 + area.x1), cy = 0.5 * (area.y0 + area.y1);
  const double w = area.x1 - area.x0, h = area.y1 - area.y0;
  if (rows <= 0 || cols <= 0 || !(w > 0) || !(h > 0)) return PlotRect{cx, cy, cx, cy};
  const double s = std::min(w / cols, h / rows);  // pixels per matrix entry
  const double hw = 0.5 * s * cols, hh = 0.5 * s * rows;
  return PlotRect{cx - hw, cy - hh, cx + hw, cy + hh};
}

PlotRect BlockToPixels(const MatrixBlock& b, int rows, int cols, const PlotRect& image) {
  if (rows <= 0 || cols <= 0) return PlotRect{image.x0, image.y0, image.x0, image.y0};
  const double sx = (image.x1 - image.x0) / cols, sy = (image.y1 - image.y0) / rows;
  return PlotRect{image.x0 + b.col * sx, image.y0 + b.row * sy, image.x0 + (b.col + b.cols) * sx,
                  image.y0 + (b.row + b.rows) * sy};
}

std::string Scientific(double value, int digits) {
  char fmt[16];
  std::snprintf(fmt, sizeof(fmt), "%%.%de", std::clamp(digits, 0, 17));
  return FormatNumber(fmt, value);
}

std::string FormatNumber(const char* format, double value) {
  char buf[128];
  std::snprintf(buf, sizeof(buf), format, value);
  std::string out = buf;
  // A minus sign of a number (not an exponent's, after 'e' or 'E') is dropped when only zeros
  // and a decimal point follow it up to the end of the mantissa: "-0.00e+00", "-0.000", "-0".
  if (!std::isfinite(value)) return out;
  for (size_t minus = out.find('-'); minus != std::string::npos; minus = out.find('-', minus + 1)) {
    if (minus > 0 && (out[minus - 1] == 'e' || out[minus - 1] == 'E')) continue;
    size_t i = minus + 1;
    bool digits = false, nonzero = false;
    for (; i < out.size(); ++i) {
      const char c = out[i];
      if (c >= '1' && c <= '9') nonzero = true;
      if (c >= '0' && c <= '9') {
        digits = true;
      } else if (c != '.') {
        break;
      }
    }
    if (digits && !nonzero) {
      // A "% " (space flag) format keeps its column: the sign becomes the space it would be.
      if (std::string(format).find("% ") != std::string::npos) {
        out[minus] = ' ';
      } else {
        out.erase(minus, 1);
      }
      break;
    }
  }
  return out;
}

FrameSplit SplitFrameTime(int frames, double wall_ms_total, double ui_ms_total,
                          double render_ms_total, double swap_ms_total) {
  FrameSplit f;
  if (frames <= 0) return f;
  f.frame_ms = wall_ms_total / frames;
  f.ui_ms = ui_ms_total / frames;
  f.render_ms = render_ms_total / frames;
  f.swap_ms = swap_ms_total / frames;
  f.other_ms = std::max(0.0, f.frame_ms - f.ui_ms - f.render_ms - f.swap_ms);
  return f;
}

std::string FrameSplitText(const FrameSplit& f) {
  return FormatNumber("%.2f", f.frame_ms) + " ms per frame = ui " + FormatNumber("%.2f", f.ui_ms) +
         " + render " + FormatNumber("%.2f", f.render_ms) + " + swap " +
         FormatNumber("%.2f", f.swap_ms) + " + other " + FormatNumber("%.2f", f.other_ms) + " ms";
}

std::string CountNoun(long long count, const char* singular, const char* plural) {
  return std::to_string(count) + " " + (count == 1 ? singular : plural);
}

ConvergenceTail ObservedOrder(const std::vector<double>& e, int window) {
  ConvergenceTail tail;
  window = std::clamp(window, 3, 4);
  // Last finite positive value, then back while strictly decreasing.
  int end = static_cast<int>(e.size()) - 1;
  while (end >= 0 && !(std::isfinite(e[end]) && e[end] > 0)) --end;
  if (end < 0) return tail;
  int begin = end;
  while (begin > 0 && std::isfinite(e[begin - 1]) && e[begin - 1] > e[begin]) --begin;
  tail.start = std::max(begin, end - window + 1);
  tail.points = end - tail.start + 1;
  if (tail.points < 2) {
    tail.start = -1;
    tail.points = 0;
    return tail;
  }
  if (tail.points < 3) return tail;
  // Least squares of y = log e_{k+1} on x = log e_k over the pairs of the window.
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  const int m = tail.points - 1;
  for (int k = tail.start; k < end; ++k) {
    const double x = std::log(e[k]), y = std::log(e[k + 1]);
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
  }
  const double den = m * sxx - sx * sx;
  if (!(std::abs(den) > 1e-12 * std::max(1.0, m * sxx))) return tail;
  tail.order = (m * sxy - sx * sy) / den;
  return tail;
}

ReferenceSeries AnchoredReferenceSlopes(const std::vector<double>& e, int start, int n,
                                        double floor) {
  ReferenceSeries out;
  if (start < 0 || start >= static_cast<int>(e.size()) || start >= n) return out;
  const double e0 = e[start];
  if (!(e0 > 0) || !std::isfinite(e0)) return out;
  double ratio = 0.5;
  if (start + 1 < static_cast<int>(e.size())) {
    const double r = e[start + 1] / e0;
    if (std::isfinite(r) && r > 0 && r < 1) ratio = r;
  }
  const ReferenceSeries tail = ReferenceSlopes(e0, n - start, floor, ratio, ratio);
  out.e_scale = tail.e_scale;
  out.linear.assign(start, kNaN);
  out.linear.insert(out.linear.end(), tail.linear.begin(), tail.linear.end());
  out.quadratic.assign(start, kNaN);
  out.quadratic.insert(out.quadratic.end(), tail.quadratic.begin(), tail.quadratic.end());
  return out;
}

int HoveredIteration(double x, int count, int last, double x0, double x1) {
  if (count <= 0 || last < 0) return -1;
  const int i = PixelToIndex(x, count, x0, x1);
  return i > last ? -1 : i;
}

}  // namespace contactlab
