// Data preparation for the panels, free of ImGui and GL so it can be unit-tested: log-axis ticks,
// plot layout, real-time pacing and the contact inspector's rows.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "engine/multibody/model.h"
#include "engine/sim/simulator.h"

namespace contactlab {

struct AxisTick {
  double value = 0;   // data value at the tick
  bool major = true;  // major ticks carry a label
  std::string label;  // e.g. "1e-6"; empty for minor ticks
};

// Power-of-ten range [10^lo_exp, 10^hi_exp] of a log axis.
struct LogRange {
  int lo_exp = -1;
  int hi_exp = 0;
  double lo() const;
  double hi() const;
};

// Smallest decade-aligned range that holds every finite positive value; values <= floor (and
// zeros) count as `floor` (> 0). At least one decade wide. With no usable value: [floor, 1].
LogRange ComputeLogRange(const std::vector<double>& values, double floor = 1e-16);

// Ticks on a log axis: majors at powers of ten (every k-th decade, k = 1, 2, 3 or 5 × 10^j and
// the exponents multiples of k, so that at most `max_major` majors show, and at least two when
// the range allows), minors at 2..9 times each decade when the range spans at most
// three decades. Ordered by increasing value, all within the range.
std::vector<AxisTick> LogTicks(const LogRange& range, int max_major = 6);

// "1e-6" style label of 10^exponent ("1" for 10^0, "10" for 10^1).
std::string PowerOfTenLabel(int exponent);

// Vertical pixel of `value` on a log axis drawn from y_bottom (range.lo) up to y_top (range.hi)
// (window coordinates, y grows downwards). Values outside the range are clamped to its ends;
// non-positive values map to the bottom.
double LogToPixel(double value, const LogRange& range, double y_top, double y_bottom);

// Screen rectangle of a plot, y down.
struct PlotRect {
  double x0 = 0, y0 = 0, x1 = 1, y1 = 1;
};

struct LogPlotLayout {
  LogRange range;
  std::vector<AxisTick> ticks;
  std::vector<std::pair<double, double>> points;  // (x, y) pixels per plotted value
  std::vector<int> indices;                       // index into the input of each point
};

// Lays out values (one per iteration) as a polyline in `rect` with a log y axis: x spreads the
// indices evenly from x0 to x1 (a single value sits at x0), non-finite values are skipped.
LogPlotLayout LayoutLogPlot(const std::vector<double>& values, const PlotRect& rect,
                            double floor = 1e-16, int max_major = 6);

// Several series on one log plot: a shared range and ticks (over every series), and a shared x
// scale in which iteration i of any series sits at the same x; the longest series spans x0..x1.
// One layout per series (each with the shared range and ticks).
std::vector<LogPlotLayout> LayoutLogPlots(const std::vector<std::vector<double>>& series,
                                          const PlotRect& rect, double floor = 1e-16,
                                          int max_major = 6);

// The solver's residual per iteration: the series it declares with SeriesRole::kResidual (SAP:
// e_m, eq. 32). Empty when the log is empty or declares no residual.
std::vector<double> ResidualSeries(const SolverResult& result);

// Island line of the solver panel: "one problem (no island split)" when the solve was not split,
// else "N islands; slowest: I iterations, T trees, C constraints, X ms" (slowest by wall time).
std::string IslandsLine(const SolverStats& stats);
// A line split for wrapping only after its ", " and "; " separators (each segment keeps its
// trailing separator; concatenated they give the text back), so a wrapped line never breaks a
// number such as "0.007 ms" (ImGui's own wrapping also breaks after '.' and ',').
std::vector<std::string> WrapSegments(const std::string& text);
// Indices into stats.islands of the `count` slowest islands (by wall time, then iterations),
// slowest first.
std::vector<int> SlowestIslands(const SolverStats& stats, int count);

// Legend of a what-if re-solve, e.g. "iterations 12 / 7, converged / max_iterations".
std::string ResolveLegend(const SolverResult& before, const SolverResult& after);

// Timeline slider: index (0 = oldest) of the held record shown for slider position `slider`,
// clamped to [0, count - 1]; -1 when nothing is held.
int TimelineIndex(int slider, int count);

// Real-time pacing. Adds wall_dt * rate (rate = simulated seconds per wall second, 1 = real
// time) to *accumulator and returns how many steps of `time_step` to take now, consuming them;
// never more than max_steps (the excess is dropped so a slow machine does not spiral).
int StepsForFrame(double wall_dt, double rate, double time_step, int max_steps,
                  double* accumulator);

// Exponentially smoothed ratio of simulated to wall time.
class RateMeter {
 public:
  explicit RateMeter(double smoothing = 0.1) : smoothing_(smoothing) {}
  void Add(double sim_dt, double wall_dt);
  double value() const { return value_; }

 private:
  double smoothing_;
  double value_ = 0;
  bool started_ = false;
};

// Typical size of the scene's bodies [m]: the median bounding-sphere diameter of the geometries
// that are not half-spaces (0.1 when there are none). Glyph sizes are derived from it.
double TypicalGeometrySize(const Model& model);

// Index of the screen point nearest to (x, y) within max_distance pixels, or -1.
int PickNearest(const std::vector<std::pair<double, double>>& points, double x, double y,
                double max_distance);

// One row of the contact inspector.
struct ContactRow {
  int contact = -1;            // index into StepRecord::contacts
  int constraint = -1;         // index into problem.constraints, -1 if the contact has none
  std::string body_a, body_b;  // body names, "world" for -1
  double phi = 0;              // signed distance at q0 [m]
  double v_n = 0;              // normal velocity after the solve [m/s] (> 0 separating)
  double v_t = 0;              // ‖v_t‖ [m/s]
  double gamma_n = 0;          // [N s]
  double gamma_t = 0;          // ‖γ_t‖ [N s]
  double mu = 0;               // friction coefficient
  double saturation = 0;       // ‖γ_t‖ / (μ γ_n) in [0, 1]
  Regime regime = Regime::kNoContact;
  double stiffness = 0;         // k [N/m]
  double dissipation_time = 0;  // τ_d [s]
  // The constraint's law and its per-step constants with symbols and units (linear: R_n, R_t,
  // v̂_n, near-rigid; Hunt–Crossley: f₀, n₀, ε_s, v̂); size 0 without a constraint.
  LawKind law = LawKind::kLinearCone;
  ModelConstants constants;
  // γ_n > 0 at φ > 0: SAP pushes before the surfaces touch (LoadedAtPositiveGap,
  // engine/inspect/debug_draw.h), when φ < (δt + τ_d)(μ ‖v_t‖ − v_n).
  bool loaded_at_gap = false;
};

// Rows for every contact of the record, in contact order.
std::vector<ContactRow> BuildContactRows(const Model& model, const StepRecord& record);

// One pressure-field contact patch (StepRecord::surfaces[surface]) of the inspector.
struct PatchRow {
  int surface = -1;            // index into StepRecord::surfaces
  std::string body_a, body_b;  // body names of the pair's geometries, "world" for -1
  int faces = 0;               // polygons of the surface
  double area = 0;             // Σ A_e [m²]
  double normal_force = 0;     // Σ A_e p0 [N]
  double max_pressure = 0;     // largest face p0 [Pa]
  double mean_pressure = 0;    // area-weighted mean p0 = Σ A_e p0 / Σ A_e [Pa]
  // The solve's resultant on body B (PatchResultantOf): |force| [N] with friction, and |moment|
  // about the centre of pressure [N m]; NaN without a result.
  double solved_force = 0;
  double moment = 0;
  // Faces by the regime of their contact's constraint in the solve [stiction, sliding, no
  // contact]; a face without a constraint or a result counts as no contact. `skipped`: faces that
  // became no contact at all (gradient below kMinFaceGradient).
  int regimes[3] = {0, 0, 0};
  int skipped = 0;
};
// One face of a patch, listed on demand.
struct PatchFaceRow {
  int face = -1;     // index into the surface's faces
  int contact = -1;  // index into StepRecord::contacts, -1 when the face has none
  double area = 0;   // [m²]
  double p0 = 0;     // [Pa]
  double max_vertex_pressure = 0;  // [Pa]
  Vec3 centroid = Vec3::Zero();    // [m]
  Regime regime = Regime::kNoContact;
  double gamma_n = 0;  // [N s]
};
// Rows for every surface of the record, in surface order, and the faces of one of them.
std::vector<PatchRow> BuildPatchRows(const Model& model, const StepRecord& record);
std::vector<PatchFaceRow> BuildPatchFaceRows(const StepRecord& record, int surface);

// One bilateral constraint (an equality of Model::equalities, or one part of a weld) of the
// inspector.
struct EqualityRow {
  int constraint = -1;      // index into problem.constraints
  int equality = -1;        // index into Model::equalities
  std::string name;         // the equality's name
  std::string type;         // "connect", "weld position", "weld rotation", "joint_coupling"
  int rows = 0;             // 1 or 3
  double g = 0;             // ‖g(q0)‖ [m] or [rad]
  double v = 0;             // ‖v_c‖ after the solve [m/s] or [rad/s]
  double gamma = 0;         // ‖γ‖ [N s] or [N m s]
  const char* regime = "";  // "bilateral" (ConstraintRegimeName)
  ModelConstants constants;  // R, v̂, near-rigid
};
// Rows for every bilateral constraint of the record, in constraint order.
std::vector<EqualityRow> BuildEqualityRows(const Model& model, const StepRecord& record);

// Counts of contact rows per regime: [stiction, sliding, no contact].
std::vector<int> CountRegimes(const std::vector<ContactRow>& rows);

// Number of rows with loaded_at_gap.
int CountLoadedAtGap(const std::vector<ContactRow>& rows);

}  // namespace contactlab
