// Internal to `contactlab reproduce` (app/reproduce/): what every experiment shares. An experiment
// is a function `void X(Experiment& ex, const ReproduceOptions& opt)` in its paper's file
// (sap_paper.cc, irrotational_paper.cc, first_order_paper.cc, al_paper.cc), declared in
// papers.h and listed in the experiment table of reproduce.cc, which builds the Experiment from
// the table row (id, title, paper, source), times the call and collects the result. Inside, the
// experiment adds rows (Row, Info), markdown (Text) and plots (Plot), and steps scenes with Run.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "app/plot_png.h"
#include "app/reproduce/reproduce.h"
#include "app/scene.h"
#include "engine/sim/simulator.h"

namespace contactlab {
namespace reproduce {

constexpr double kPi = 3.14159265358979323846;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Plot colours.
constexpr std::uint32_t kBlue = 0x1f77b4, kOrange = 0xff7f0e, kGreen = 0x2ca02c, kRed = 0xd62728,
                        kPurple = 0x9467bd, kGray = 0x7f7f7f, kBrown = 0x8c564b;
constexpr std::uint32_t kPalette[] = {kBlue, kOrange, kGreen, kRed, kPurple, kBrown, kGray};

// `v` with `digits` significant digits (%g); "n/a" for NaN, "inf"/"-inf".
std::string Fmt(double v, int digits = 4);

// Accumulates one experiment's rows, markdown and plots.
class Experiment {
 public:
  Experiment(const std::string& id, const std::string& title, const std::string& paper,
             const std::string& source, const ReproduceOptions& opt);
  const ReproduceOptions& options() const { return opt_; }
  bool quick() const { return opt_.quick; }
  // The digest section the experiment's paper values are quoted from (the table's `source`).
  const std::string& source() const { return source_; }

  // A row compared with a number: agrees when `ok` holds.
  ResultRow& Row(const std::string& metric, const std::string& paper_value, double paper_number,
                 double value, const std::string& tolerance, bool ok, const std::string& source);
  // A row the paper gives no comparable figure for (or the engine cannot express).
  ResultRow& Info(const std::string& metric, const std::string& paper_value, double value,
                  const std::string& source, const std::string& note);
  void Text(const std::string& s) { md_ << s << "\n\n"; }
  // Writes OUT/<id>_<name>.png (when options().out_dir is set) and its markdown reference.
  void Plot(const std::string& name, const PlotOptions& po, const std::vector<PlotSeries>& s,
            const std::string& caption);
  std::vector<ResultRow>& mutable_rows() { return r_.rows; }
  ExperimentResult Finish();

 private:
  const ReproduceOptions& opt_;
  std::string source_;
  ExperimentResult r_;
  std::ostringstream md_;
};

// The paper scenes' directory: options.scene_dir, else scenes/paper of the source tree.
std::string SceneDir(const ReproduceOptions& opt);

// Loads SceneDir(opt)/file with `--set`-style overrides.
Scene Load(const ReproduceOptions& opt, const std::string& file,
           const std::vector<std::string>& overrides = {});

// Per-step summary kept by Run().
struct StepLog {
  double t = 0;
  int iterations = 0;
  double momentum_error = 0;
  bool converged = true;
  double kinetic = 0, potential = 0;
  double slip = 0;  // mean stiction slip [m/s]
  int stiction = 0, sliding = 0, cones = 0;
  double penetration = 0;
  double solve_ms = 0;
};

struct RunLog {
  std::vector<StepLog> steps;
  double energy0 = 0;  // total energy of the initial state
  double wall_s = 0;
  int failures = 0;
  bool finite = true;
};

// Steps `scene` for `steps` steps; `each` sees every record.
RunLog Run(const Scene& scene, int steps,
           const std::function<void(const Simulator&, const StepRecord&)>& each = nullptr,
           Simulator** sim_out = nullptr);

// Steps covering `duration` [s] at the scene's time step (at least 1).
int Steps(const Scene& s, double duration);

// World position of `body`'s frame in state `st`.
Vec3 BodyPosition(const Simulator& sim, const State& st, int body);

// Mean of `v`; NaN when empty.
double Mean(const std::vector<double>& v);

}  // namespace reproduce
}  // namespace contactlab
