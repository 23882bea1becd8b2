// `contactlab reproduce`: runs the experiments of the papers ContactLab follows (SAP, irrotational
// contact fields, Drumwright's constraint solver, the AL paper) and compares ContactLab's figures
// with the published ones. Writes OUT/results.json (one row per compared figure) and
// OUT/report.md with PNG plots. See docs/reproduce.md.
//
// Files: reproduce.cc holds the experiment table (id, paper, title, sources, quick and full
// settings, function), the driver, the report writer and the CLI; experiment.{h,cc} what the
// experiments share (rows, plots, the run loop); one file per paper holds its experiments
// (sap_paper.cc: seed 000, al_paper.cc: 001, first_order_paper.cc: 002, irrotational_paper.cc:
// 004), declared in papers.h.
#pragma once

#include <limits>
#include <ostream>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace contactlab {

struct ReproduceOptions {
  bool quick = false;             // shorter runs and fewer sweep points
  std::string out_dir;            // where results.json, report.md and plots go; empty: no files
  std::string scene_dir;          // directory of the paper scenes; empty: scenes/paper/ of the
                                  // source tree
  std::vector<std::string> only;  // experiment ids to run; empty: all
};

enum class Agreement { kAgrees, kDisagrees, kNotComparable };

// One compared figure.
struct ResultRow {
  std::string experiment;
  std::string metric;
  std::string paper_value;  // as quoted (number or statement)
  double paper_number = std::numeric_limits<double>::quiet_NaN();  // numeric form, if any
  double value = std::numeric_limits<double>::quiet_NaN();         // ContactLab's figure
  std::string tolerance;  // the acceptance rule and its reason
  Agreement agrees = Agreement::kNotComparable;
  std::string source;  // digest section the paper value comes from
  std::string note;    // why it differs / what the engine cannot express
};

struct ExperimentResult {
  std::string id, title, paper;
  std::vector<ResultRow> rows;
  std::string markdown;  // the experiment's section of report.md (setup, tables, plots, notes)
  double seconds = 0;    // wall time of the experiment
};

// Experiment ids in report order.
std::vector<std::string> ReproduceExperimentIds();

// One row of the experiment table (app/reproduce/reproduce.cc), without its function.
struct ReproduceExperimentInfo {
  std::string id;      // --only ID, the anchor in report.md, the prefix of its plots
  std::string seed;    // the paper: "000" SAP, "001" AL, "002" Drumwright, "004" irrotational
  std::string title;   // section title in report.md
  std::string paper;   // the paper's section and figures (ExperimentResult::paper)
  std::string source;  // digest section the paper values are quoted from
  std::string quick;   // what --quick runs
  std::string full;    // what the full run runs
};

// The experiment table in report order.
std::vector<ReproduceExperimentInfo> ReproduceExperimentTable();

// Prints the table as `contactlab reproduce --list` does: per experiment, a line
// "ID (seed NNN, PAPER SECTION): TITLE", then its quick and full settings, indented.
void PrintReproduceExperiments(std::ostream& out);

// Runs one experiment. Plots go to options.out_dir (when non-empty). Throws std::invalid_argument
// for an unknown id and SceneError for a broken paper scene.
ExperimentResult RunReproduceExperiment(const std::string& id, const ReproduceOptions& options);

// Runs the selected experiments and writes results.json and report.md to options.out_dir.
// Progress goes to `log`. Returns 0, or 1 if a file cannot be written.
int RunReproduce(const ReproduceOptions& options, std::ostream& log);

struct RunOptions;

// Registers the `reproduce` subcommand. It runs from its CLI11 callback and ends parsing with
// CLI::RuntimeError(exit status) (0 on success), which CLI11_PARSE turns into main's return
// value; `reproduce --list` prints the table and ends parsing with CLI::Success. When `run_options`
// is given and `app` has a `run` subcommand, also adds `run --reference FILE`
// (RunOptions::reference_path: per-step position error e_q against a trajectory CSV).
void AddReproduceCommand(CLI::App& app, RunOptions* run_options);

}  // namespace contactlab
