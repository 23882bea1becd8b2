// Data of the viewer's compare mode and race, free of ImGui and GL so it can be unit-tested: the
// configurations' colours and labels, the per-configuration step summaries with their distance
// from the primary configuration, the overlaid series, the divergence alert, and the layout of the
// work–precision diagram (log–log) with its hover pick.
//
// Compare mode runs two to four configurations (solver, contact model, parameters) of one scene
// in lockstep. Configuration 0 is the primary: the viewer's own simulation, drawn normally; the
// others are drawn as tinted ghosts, each in its CompareColor, which their curves share.
#pragma once

#include <deque>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/inspect/colormap.h"
#include "engine/inspect/race.h"
#include "engine/inspect/step_summary.h"
#include "engine/sim/simulator.h"
#include "ui/ui_data.h"

namespace contactlab {

constexpr int kMaxCompareConfigs = 4;

// Colour of configuration `config` (0 = primary: the series blue of the analysis panels), used by
// its ghosts, contact glyphs, curves and legend. Cycles after kMaxCompareConfigs.
Color CompareColor(int config);

// "SAP", "PGS · lagged" (the model when it is not the linear one), for legends and tables.
std::string CompareConfigName(const StepSettings& settings);
// Names of several configurations; equal names get " #2", " #3", ... in order. With `specs`
// (the CONFIGs of --compare, "" for a configuration made in the panel), a CONFIG's overrides
// follow the name: "PGS (max_iterations=500)" for pgs:solver.pgs.max_iterations=500 (each key's
// last part, contact.model and solver.type left out; the text cut at 40 characters).
std::vector<std::string> CompareConfigNames(const std::vector<StepSettings>& settings,
                                            const std::vector<std::string>& specs = {});

// How visible each body of a ghost is: a factor of its alpha per body, `min` where the body lies
// where the primary's does, rising linearly to 1 at a drift of `full_distance` [m] (the distance
// between the two bodies' origins plus `radius` [m] times the angle between their orientations).
// Configurations that agree then barely tint the scene and a body that drifts away stands out.
// Bodies missing from either list get 1.
std::vector<float> GhostVisibility(const std::vector<Pose>& primary, const std::vector<Pose>& ghost,
                                   double full_distance, double radius, float min = 0.25f);

// A step summary of one configuration with its distance from the primary at the same step.
struct CompareEntry {
  StepSummary summary;
  // MaxBodyDistance to the primary's bodies at the same step [m]; NaN until both are known (and
  // always for the primary itself).
  double divergence = std::numeric_limits<double>::quiet_NaN();
  int divergence_body = -1;  // the body that is farthest away
};

// The step summaries of every configuration, up to `max_steps` per configuration (the oldest are
// dropped), and their distances from the primary.
class CompareStore {
 public:
  explicit CompareStore(int max_steps = 2000);

  // num_configs empty tracks (configuration 0 the primary).
  void Reset(int num_configs);
  int num_configs() const { return static_cast<int>(tracks_.size()); }
  int max_steps() const { return max_steps_; }
  // Adds configuration `config`'s summary. A step not newer than the track's newest replaces the
  // entries from that step on (a re-run after a resume). Fills the divergence of this entry (a
  // ghost) or of the ghosts' entries at this step (the primary).
  void Add(int config, StepSummary summary);
  // Drops every configuration's entries after `step` (the timeline branches).
  void TruncateAfter(int step);
  // Adds an empty track at the end / removes track `config` (> 0).
  void AddConfig();
  void RemoveConfig(int config);
  void Clear(int config);  // empties one track

  const std::deque<CompareEntry>& track(int config) const { return tracks_[config]; }
  // The entry of `config` at `step`, or nullptr.
  const CompareEntry* Find(int config, int step) const;
  // The newest entry of `config` at or before `step`, or nullptr.
  const CompareEntry* AtOrBefore(int config, int step) const;
  // Bumped by every change (a cache key for the series drawn from the store).
  int version() const { return version_; }

 private:
  void Divergence(const CompareEntry& primary, CompareEntry* ghost) const;

  int max_steps_;
  std::vector<std::deque<CompareEntry>> tracks_;  // per configuration, steps increasing
  int version_ = 0;
};

// The quantities overlaid per configuration.
enum class CompareQuantity {
  kIterations = 0,
  kSolveMs,
  kMaxPenetration,
  kTotalEnergy,
  kNcpResidual,
  kDivergence,
};
constexpr int kNumCompareQuantities = 6;
const char* CompareQuantityTitle(CompareQuantity q);   // "iterations", "solve [ms]", ...
const char* CompareQuantityFormat(CompareQuantity q);  // printf format of one value
bool CompareQuantityLogAxis(CompareQuantity q);        // NCP residual and divergence

// One configuration's series of a quantity: steps and values (NaN where not known, and for an NCP
// residual of 0: a step without constraints). The primary has no distance series.
struct StepSeries {
  std::vector<int> steps;
  std::vector<double> values;
};
StepSeries ExtractCompareSeries(const CompareStore& store, int config, CompareQuantity q);

// Shared step range [lo, hi] of several series (lo = hi = -1 when all are empty).
std::pair<int, int> StepRange(const std::vector<StepSeries>& series);
// Pixel of `step` on [lo, hi] spread over [x0, x1] (a one-step range sits at x0).
double StepToPixel(int step, int lo, int hi, double x0, double x1);
// Nearest step for pixel x on [lo, hi], clamped.
int PixelToStep(double x, int lo, int hi, double x0, double x1);

// The polyline of one series of an overlay plot: at most about `columns` vertices. Long series
// keep each pixel column's min and max (as Envelope does), so no spike is lost. `to_y` maps a
// value to its pixel; non-finite values are skipped.
std::vector<std::pair<double, double>> OverlayPolyline(const StepSeries& series, int lo, int hi,
                                                       const PlotRect& rect, int columns,
                                                       const std::function<double(double)>& to_y);

// A configuration drifting away from the primary: the first step (held by the store) at which a
// ghost's bodies are farther than `threshold` from the primary's, and the largest distance since.
struct DivergenceAlert {
  int config = -1;
  int first_step = -1;  // first step over the threshold
  int worst_step = -1;  // step of the largest distance
  double worst = 0;     // [m]
  int worst_body = -1;
};
// Alerts of every ghost over `threshold` [m] (> 0), in configuration order.
std::vector<DivergenceAlert> FindDivergence(const CompareStore& store, double threshold);
// "PGS drifts 3.2 cm from SAP at step 812 (box_3), over 1 cm since step 640".
std::string DivergenceText(const DivergenceAlert& alert, const std::vector<std::string>& names,
                           const std::vector<std::string>& body_names, double threshold);
// A length with a readable unit: "3.2 mm", "4.1 cm", "1.25 m", "2.0e-07 m".
std::string FormatLength(double meters);

// ---------------------------------------------------------------------------------------------
// The race on a frozen step (engine/inspect/race.h), one curve per configuration.

struct RaceEntry {
  std::string name;  // CompareConfigName
  Color color;       // CompareColor
  StepSettings settings;
  RaceCurve curve;
  std::string error;  // the configuration could not be raced (e.g. refused parameters)
};
struct RaceRun {
  int step = -1;        // timeline step raced
  int constraints = 0;  // size of its problem
  int dofs = 0;
  std::vector<RaceEntry> entries;
  double wall_s = 0;  // wall time of the whole race [s]
};

// The work–precision diagram's axis: x = solve time [ms] or iterations (at least 1, so that a
// solve that converged at its guess still shows on a log axis).
enum class RaceAxis { kTime, kIterations };
double RaceX(const RacePoint& p, RaceAxis axis);

// One diagram: decade ranges and ticks of both log axes (over every curve's finite points; a
// residual of 0 counts as 1e-16) and the pixel position of every point.
struct RacePlotLayout {
  LogRange x_range, y_range;
  std::vector<AxisTick> x_ticks, y_ticks;
  struct Point {
    int entry = -1, index = -1;  // RaceRun::entries[entry].curve.points[index]
    double x = 0, y = 0;         // pixels
  };
  std::vector<std::vector<std::pair<double, double>>> curves;  // per entry, in cap order
  std::vector<Point> points;                                   // every drawn point
};
RacePlotLayout LayoutRacePlot(const RaceRun& run, RaceAxis axis, const PlotRect& rect);
// Index into layout.points of the point nearest to (x, y) within max_distance pixels, or -1.
int PickRacePoint(const RacePlotLayout& layout, double x, double y, double max_distance);

// The hover text of a point: configuration, cap, iteration, NCP residual, time, status, e_m and
// the solver's own series at its last iteration ("key = value unit" lines).
std::string RacePointText(const RaceEntry& entry, int index);

// Per configuration: the smallest NCP residual of its curve, the time and iterations it took,
// and the status of that solve.
struct RaceBest {
  double ncp_residual = std::numeric_limits<double>::quiet_NaN();
  double solve_ms = 0;
  int iterations = 0;
  SolverStatus status = SolverStatus::kConverged;
  bool valid = false;
};
RaceBest BestRacePoint(const RaceCurve& curve);

}  // namespace contactlab
