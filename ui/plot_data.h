// Data preparation of the analysis panels (convergence, time series, profiler bar, conditioning),
// free of ImGui and GL so it can be unit-tested: reference convergence slopes, per-iteration
// series, time series over a History, min/max envelopes, linear "nice" ticks, the profiler bar
// layout and the RGBA image of a sparsity pattern.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/inspect/colormap.h"
#include "engine/inspect/conditioning.h"
#include "engine/inspect/history.h"
#include "engine/sim/simulator.h"
#include "engine/solvers/common/solver.h"
#include "ui/ui_data.h"

namespace contactlab {

// ---------------------------------------------------------------------------------------------
// Convergence of one solve.

// Reference curves drawn on the e_m plot, both starting at e_0 (index 0 = iteration 0).
struct ReferenceSeries {
  std::vector<double> linear;     // e_k = e_0 r^k
  std::vector<double> quadratic;  // e_{k+1} = e_k² / e_scale
  double e_scale = 0;             // scale of the quadratic model, e_0 / quadratic_ratio
};

// Reference slopes for n iterates (n values each at most) starting at e0 > 0:
//   linear:    e_k = e0 · rate^k (rate in (0, 1), default 0.5: "halves every iteration");
//   quadratic: e_{k+1} = e_k² / e_scale with e_scale = e0 / quadratic_ratio, so that
//              e_k / e_scale = quadratic_ratio^(2^k): the ratio to e_scale squares every step.
//              With the default quadratic_ratio = 0.5 the first step halves e_0 like the linear
//              curve and the next ones fall away (e0/8, e0/128, e0/32768, ...), which is how
//              Newton's local quadratic convergence looks on a log axis.
// Each series stops before its first value below `floor` (> 0; the bottom of the plot), so a
// series can be shorter than n. e0 <= 0 or non-finite, or n <= 0, gives empty series.
ReferenceSeries ReferenceSlopes(double e0, int n, double floor = 1e-16, double rate = 0.5,
                                double quadratic_ratio = 0.5);

// Observed order of convergence of a residual sequence e_k: the least-squares slope q of
// log e_{k+1} against log e_k over the last `window` (3 or 4) points of its tail, so that
// e_{k+1} ≈ C e_k^q (q = 1: linear, q = 2: quadratic). The tail is the final run of finite,
// positive, strictly decreasing values (NaN entries end a run); the window is its last up to
// `window` points and starts at `start`. q is NaN with fewer than 3 points in the window or when
// the points are degenerate (equal log e_k).
struct ConvergenceTail {
  int start = -1;   // index of the first point of the window (-1: no usable tail)
  int points = 0;   // points in the window (0, or 2..window)
  double order = std::numeric_limits<double>::quiet_NaN();  // q
};
ConvergenceTail ObservedOrder(const std::vector<double>& e, int window = 4);

// Reference slopes anchored at the start of the tail they explain: NaN before `start`, then
// ReferenceSlopes from e[start] over iterations [start, n) with both the linear rate and the
// quadratic ratio set to the first step of the tail, e[start + 1] / e[start] (when it is in
// (0, 1); else the defaults 0.5), so both curves pass through the tail's first two points and
// part from there: the data follows the one that explains it. Length n at most; empty when
// start is out of range or e[start] is not > 0.
ReferenceSeries AnchoredReferenceSlopes(const std::vector<double>& e, int start, int n,
                                        double floor = 1e-16);

// Iteration under the mouse on a plot whose x axis holds `count` iterations over [x0, x1], or -1
// when that iteration is past `last` (the last iteration of the solves shown) or count <= 0: no
// tooltip past the last iteration.
int HoveredIteration(double x, int count, int last, double x0, double x1);

// Gap to the final value, y_k − y_final, per iterate (the plot of a SeriesRole::kObjective such
// as SAP's cost ℓ [J]). Same length as `values` so it shares the iteration axis; the final
// iterate's own gap (0 by definition) is NaN, i.e. omitted from the plot. Gaps below the
// round-off level of the values, relative_floor · max_k |y_k| (negative gaps from round-off
// included), are raised to that level, so every finite entry is > 0 and fits a log axis (if every
// value is 0 the level is the smallest positive normal double).
std::vector<double> GapToFinal(const std::vector<double>& values, double relative_floor = 1e-15);

// Series `key` of a solve's iteration log as the convergence panel plots it, one entry per row
// (iteration): a kSeriesPerStep series has NaN at iteration 0 (the guess, which no step
// produced), an objective is its GapToFinal, any other series is the logged values. Empty when
// the solver does not declare `key`.
std::vector<double> PlottedSeries(const SolverResult& result, std::string_view key);
// The same for rows [first_row, first_row + rows) of `log` (one island's own solve in
// SolverStats::island_log: IslandSummary::log_first_row, log_rows).
std::vector<double> PlottedSeries(const IterationLog& log, std::string_view key, int first_row,
                                  int rows);

// The series the convergence panel shows for a solver until the user picks others: its residual
// (SeriesRole::kResidual) first, then the kSeriesDefaultPlot series in declaration order.
std::vector<std::string> DefaultSeriesKeys(const SeriesTable& table);

// Axis title of a series: "label [unit]" (no brackets for a dimensionless one); an objective
// reads "label: gap to final [unit]".
std::string SeriesAxisTitle(const SeriesSpec& spec);

// Solver results of up to `count` held records before timeline step `shown_step`, oldest first
// (the faint "earlier steps" of the convergence panel). Pointers into `history`, valid until it
// changes.
std::vector<const SolverResult*> EarlierResults(const History& history, int shown_step,
                                                int count);

// ---------------------------------------------------------------------------------------------
// Linear axes and plots.

// x pixel of sample i of `count` spread evenly over [x0, x1] (a single sample sits at x0).
double IndexToPixel(int i, int count, double x0, double x1);

// Inverse of IndexToPixel: the nearest sample index for pixel x, clamped to [0, count − 1]; -1
// when count <= 0.
int PixelToIndex(double x, int count, double x0, double x1);

// Vertical pixel of `value` on a linear axis [lo, hi] drawn from y_bottom (lo) up to y_top (hi);
// values outside are clamped to the ends. A degenerate range maps everything to the middle.
double LinearToPixel(double value, double lo, double hi, double y_top, double y_bottom);

// "Nice" tick step for [lo, hi] with at most max_ticks ticks: 1, 2 or 5 × 10^k, the smallest
// such step >= (hi − lo) / (max_ticks − 1).
double NiceStep(double lo, double hi, int max_ticks);

// Ticks at the multiples of NiceStep inside [lo, hi] (ends included up to round-off), all major,
// labelled with at most the decimals the step needs, trailing zeros dropped ("0.2", "1", "15";
// "%.3g" style such as "1.5e+06" from 1e5 up or for steps below 1e-4).
// For [0, 1] and max_ticks 6: 0, 0.2, 0.4, 0.6, 0.8, 1. Empty for a non-finite or empty range.
std::vector<AxisTick> NiceTicks(double lo, double hi, int max_ticks);

// Axis range for a linear plot of `values` (non-finite skipped): [min, max] widened to the
// multiples of NiceStep around them, and with `include_zero` extended to 0. A constant series v
// gets v ± |v|/2 (with include_zero and v = 0: [0, 1]; without: [-0.5, 0.5]) before widening; no
// finite value gives [0, 1].
std::pair<double, double> NiceRange(const std::vector<double>& values, int max_ticks,
                                    bool include_zero = false);

// Min/max of the samples that fall into one pixel column, plus the first and last of them in
// order so consecutive columns can be joined.
struct MinMax {
  double min = 0, max = 0;      // extremes of the finite samples (NaN when the column has none)
  double first = 0, last = 0;   // first and last finite sample of the column (NaN when none)
  int begin = 0, end = 0;       // sample indices [begin, end) of the column
};

// Per-column min/max envelope of y with at most `columns` columns: column c covers samples
// [c n / C, (c + 1) n / C) with C = min(columns, n). With n <= columns every sample is its own
// column (min = max = the sample). Non-finite samples are skipped. Every finite extreme of y is
// the min or max of some column, so a one-sample spike is never lost by downsampling.
std::vector<MinMax> Envelope(const std::vector<double>& y, int columns);

// ---------------------------------------------------------------------------------------------
// Time series over the steps held by a History.

struct TimeSeries {
  std::vector<int> steps;             // timeline step of each held record, oldest first
  std::vector<double> time;           // simulated time at the end of the step [s]
  std::vector<double> iterations;     // Newton iterations of the solve
  std::vector<double> solve_ms;       // wall time of the solve phase [ms] (StepTimings)
  std::vector<double> contacts;       // friction cones of the step's problem
  std::vector<double> total_energy;   // kinetic + potential after the step [J]
  std::vector<double> max_penetration;  // [m]
  std::vector<double> momentum_error;   // e_m at the returned velocities [-]
  std::vector<int> failures;          // indices (into steps) whose status is not converged
  int size() const { return static_cast<int>(steps.size()); }
};

TimeSeries ExtractTimeSeries(const History& history);

// Index into series.steps of timeline step `step`, or -1 when it is not held.
int IndexOfStep(const TimeSeries& series, int step);

// ---------------------------------------------------------------------------------------------
// Frame profiler.

// Where a frame's wall time went [ms]. "other physics" is kinematics + integration.
struct FrameProfile {
  double collision_ms = 0;
  double assembly_ms = 0;
  double solve_ms = 0;
  double other_physics_ms = 0;
  double render_ms = 0;
  double ui_ms = 0;
  double frame_ms = 0;  // whole frame; the part not covered by the above shows as empty bar
};

// Adds the phases of one step (a frame may take several) to the profile's physics parts.
void AddStepTimings(const StepTimings& timings, FrameProfile* profile);

enum class FramePart { kCollision = 0, kAssembly, kSolve, kOtherPhysics, kRender, kUi };
constexpr int kNumFrameParts = 6;
const char* FramePartName(FramePart part);  // "collision", ..., "UI"
Color FramePartColor(FramePart part);
double FramePartMs(const FrameProfile& profile, FramePart part);

struct BarSegment {
  FramePart part = FramePart::kCollision;
  double x0 = 0, x1 = 0;  // pixels
  double ms = 0;
};

// Segments of the stacked bar over [x0, x1] in FramePart order, contiguous (each starts where
// the previous ends, the first at x0), widths proportional to the parts' ms on the scale
// max(frame_ms, sum of parts): a frame longer than its parts leaves the remainder of the bar
// empty, parts that add up to more than frame_ms are squeezed to the full width. Parts with
// zero, negative or non-finite ms are skipped.
std::vector<BarSegment> LayoutProfileBar(const FrameProfile& profile, double x0, double x1);

// The main thread's frame time split as the viewer prints it at exit: per frame, UI building,
// rendering (with glFinish when scripted or profiled), the buffer swap / present (where the GL
// work and the vsync wait land otherwise) and the rest of the main thread (events, input, the
// physics hand-off, screenshots), so that ui + render + swap + other = frame. Totals over
// `frames` frames [ms]; "other" is clamped at 0 (then the parts can exceed the frame by timer
// round-off).
struct FrameSplit {
  double frame_ms = 0, ui_ms = 0, render_ms = 0, swap_ms = 0, other_ms = 0;  // per frame
};
FrameSplit SplitFrameTime(int frames, double wall_ms_total, double ui_ms_total,
                          double render_ms_total, double swap_ms_total);
// "43.90 ms per frame = ui 0.27 + render 39.30 + swap 3.10 + other 1.23 ms".
std::string FrameSplitText(const FrameSplit& split);

// ---------------------------------------------------------------------------------------------
// Sparsity images.

// Colours of SparsityImageToRgba (8-bit sRGB): empty cells are kSparsityBackground; a filled
// cell with fill value v in 1..255 is the linear blend from kSparsityLow (v = 1, one nonzero in a
// big cell) to kSparsityHigh (v = 255, cell full), t = (v − 1) / 254, rounded to nearest.
// All opaque.
struct Rgba8 {
  std::uint8_t r = 0, g = 0, b = 0, a = 255;
};
constexpr Rgba8 kSparsityBackground{44, 48, 56, 255};  // grey-blue, lighter than the panel
constexpr Rgba8 kSparsityLow{60, 110, 210, 255};       // blue
constexpr Rgba8 kSparsityHigh{255, 225, 90, 255};      // yellow

Rgba8 SparsityCellColor(std::uint8_t value);

// width × height × 4 bytes, row-major from the top row (matrix row 0), RGBA per cell.
std::vector<std::uint8_t> SparsityImageToRgba(const SparsityImage& image);

// A horizontal run of equal non-empty cells [x0, x1) in row y.
struct CellRun {
  int y = 0, x0 = 0, x1 = 0;
  std::uint8_t value = 0;
};
// The non-empty cells merged into horizontal runs of equal value, row by row, left to right.
std::vector<CellRun> SparsityRuns(const SparsityImage& image);

// The largest rectangle of the matrix's aspect ratio (cols : rows) centred in `area`, so every
// matrix entry is a square. An empty matrix gives a zero-size rectangle at the area's centre.
PlotRect FitAspect(int rows, int cols, const PlotRect& area);

// Pixel rectangle of a matrix block drawn in `image` (the FitAspect rectangle of a rows × cols
// matrix).
PlotRect BlockToPixels(const MatrixBlock& block, int rows, int cols, const PlotRect& image);

// "1.234e+05" style, for the conditioning numbers. Through FormatNumber: no "-0.000e+00".
std::string Scientific(double value, int digits = 3);

// printf of one double with `format` (one conversion, e.g. "%.2e", "%.3f ms"), except that a
// result that reads as zero carries no minus sign: -0.0, and values that round to zero, print
// "0.00e+00" / "0.000", never "-0.00e+00" / "-0.000" (with the space flag, "% .3e", the sign's
// place becomes a space: " 0.000e+00"). NaN prints "nan", infinities "inf"/"-inf".
std::string FormatNumber(const char* format, double value);

// "1 iteration", "2 iterations", "0 iterations": count and noun, plural unless count == 1.
std::string CountNoun(long long count, const char* singular, const char* plural);

}  // namespace contactlab
