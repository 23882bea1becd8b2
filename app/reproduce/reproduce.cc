#include "app/reproduce/reproduce.h"

#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "app/reproduce/experiment.h"
#include "app/reproduce/papers.h"
#include "app/runner.h"

namespace contactlab {
namespace reproduce {
namespace {

// One experiment: its row of the table and its function (papers.h).
struct ExperimentDef {
  const char* id;      // --only ID, the anchor in report.md, the prefix of its plots
  const char* seed;    // the paper: 000 SAP, 001 AL, 002 Drumwright, 004 irrotational fields
  const char* title;   // section title in report.md
  const char* paper;   // the paper's section and figures (ExperimentResult::paper)
  const char* source;  // digest section (shared/research/) the paper values are quoted from
  const char* quick;   // what --quick runs (the function reads ReproduceOptions::quick)
  const char* full;    // what the full run runs
  void (*run)(Experiment& ex, const ReproduceOptions& opt);
};

// The experiments, in report order.
const ExperimentDef kExperiments[] = {
    // sap_paper.cc
    {"spring_cylinder", "000", "Spring-cylinder: energy and order of accuracy",
     "SAP paper §VI-B (Figs. 4-7)", "seed_000_sap.md §6.1",
     "energy over 10 s; 10 % loss over 30 s (extrapolated); order study δt = 0.01/2^i, i < 5",
     "energy over 10 s; 10 % loss over 600 s; order study δt = 0.01/2^i, i < 7", SpringCylinder},
    {"clutter", "000", "Clutter: 40 bodies with and without walls", "SAP paper §VI-C (Figs. 8-10)",
     "seed_000_sap.md §6.2", "3 s, steady state from 2 s", "10 s, steady state from 5 s", Clutter},
    {"clutter_scaling", "000", "Clutter: scaling with the number of bodies",
     "SAP paper §VI-C (Figs. 11-13)", "seed_000_sap.md §6.2", "N = 8, 20, 40; 1 s each",
     "N = 8, 20, 40, 80, 160, 320; 3 s each", ClutterScaling},
    {"sigma_sweep", "000", "Clutter: friction regularization σ sweep",
     "SAP paper §VI-C (Figs. 14-15)", "seed_000_sap.md §6.2", "σ = 1e-4, 1e-3, 1e-2; 2 s each",
     "σ = 1e-5 … 1e-1 (5 values); 5 s each", SigmaSweep},
    {"soft_bubble_gripper", "000", "Soft-bubble gripper: slip control (pressure-field contact)",
     "SAP paper §VI-D (Figs. 16-17)", "seed_000_sap.md §6.3", "6 s (one grip period)",
     "12 s (two grip periods)", SoftBubbleGripper},
    {"dual_arm_jar", "000", "Dual-arm jar: open, pour, close (160 DOF, pressure-field jar-lid)",
     "SAP paper, dual-arm manipulation (Figs. 1, 18-21)", "seed_000_sap.md §6.4",
     "18 s (the whole task, as full)", "18 s (the whole task)", DualArmJar},
    // irrotational_paper.cc
    {"conveyor_belt", "004", "Oscillating conveyor belt (stick-slip)",
     "Irrotational contact fields §IX-A (Figs. 2-3)", "seed_004_irrotational.md §7 (IX-A)",
     "3 s; convergence at δt = 5e-2, 1e-2, 2e-3", "5 s; convergence at δt = 5e-2, 1e-2, 2e-3, 5e-4",
     ConveyorBelt},
    {"falling_sphere", "004", "Falling sphere that slides, then rolls",
     "Irrotational contact fields §IX-B (Figs. 4-6)", "seed_004_irrotational.md §7 (IX-B)",
     "0.5 s (as full)", "0.5 s", FallingSphere},
    {"sliding_rod", "004", "Sliding rod (Painlevé)",
     "Irrotational contact fields §IX-C (Figs. 8-12)", "seed_004_irrotational.md §7 (IX-C)",
     "the scene's duration (as full)", "the scene's duration, with and without dissipation",
     SlidingRod},
    {"clutter_stiffness", "004", "Clutter: contact stiffness sweep up to 1e12 N/m",
     "Irrotational contact fields §X-A (Figs. 17-18)", "seed_004_irrotational.md §7 (X-A)",
     "k = 1e5, 1e7, 1e12 N/m; 1 s each", "k = 1e4 … 1e13 N/m (10 values); 3 s each",
     ClutterStiffness},
    {"clutter_models", "004", "Clutter per contact model: iterations and conditioning",
     "Irrotational contact fields §X-A (Figs. 14-16)", "seed_004_irrotational.md §7 (X-A)",
     "4 models; 1 s each (transient only)",
     "4 models; 3 s each (transient and steady state); δt = 1e-2, 5e-3, 2.5e-3, 1.5 s each",
     ClutterModels},
    // first_order_paper.cc
    {"box_on_ramp", "002", "Box on a 15° ramp", "Drumwright §8 E7 (Fig. 9)",
     "seed_002_drumwright.md §8 (E7)",
     "μ = 0, .125, .25, .375; 1 s each; SAP and first-order (both programs) (as full)",
     "μ = 0, .125, .25, .375; 1 s each; SAP and first-order (both programs)", BoxOnRamp},
    {"sphere_stack", "002", "Stack of up to 100 spheres", "Drumwright §8 E8 (Fig. 10)",
     "seed_002_drumwright.md §8 (E8)",
     "500 steps each; SAP and first-order (complementarity) N = 10, 25; first-order (paper) N = 10",
     "500 steps each; SAP and first-order (complementarity) N = 10, 25, 50, 100; first-order "
     "(paper) N = 10, 25, 50",
     SphereStack},
    {"stiff_pendulum", "002", "Pendulum onto a very stiff joint limit",
     "Drumwright §8 E4-E5 (Figs. 4, 6)", "seed_002_drumwright.md §8 (E4, E5)",
     "E5: h = 1e-3, 1e-4 s, 1 s each, SAP and first-order (k = 1e12, 1e15); E4: h = 0.1 … 1e-4",
     "E5: h = 1e-3, 1e-4, 1e-5 s, 1 s each, SAP and first-order (k = 1e12, 1e15); E4: h = 0.1 … "
     "1e-4",
     StiffPendulum},
    {"cube_foundation", "002", "Cube on an elastic (Winkler) foundation",
     "Drumwright §8 E6 (Fig. 7, Tables 1-2)", "seed_002_drumwright.md §8 (E6, Tables 1-2)",
     "100 elements; reference h = 2.5e-4 s; first-order (complementarity) at E = 1e7",
     "100 and 900 elements; reference h = 1e-4 s; first-order (both programs) at 100 elements, "
     "one step at 900",
     CubeFoundation},
    // al_paper.cc
    {"dish_pile", "001", "Dish pile with a 50:1 mass ratio (single steps)",
     "AL paper B1 (Fig. 9), Table II", "seed_001_al.md §5 (B1)",
     "10 kicked single steps raced by CANAL, SubADMM (to 200 iterations), PGS (to 100), SAP",
     "100 kicked single steps raced by CANAL, SubADMM (to 1000 iterations), PGS (to 500), SAP",
     DishPile},
    {"robot_dish_pile", "001", "Dish pile manipulated by an arm and hand (47 DOF)",
     "AL paper B2 (Fig. 1)", "seed_001_al.md §5 (B2)",
     "6 s per solver: SAP, CANAL, SubADMM, PGS (as full)",
     "6 s per solver: SAP, CANAL, SubADMM, PGS", RobotDishPile},
    {"bolt_nut", "001", "Bolt and nut (single steps; assembly with a robot)",
     "AL paper A1-A2 (Figs. 1, 7)", "seed_001_al.md §5 (A1, A2)", "not run (not expressible)",
     "not run (not expressible)", BoltNut},
    {"pouring", "001", "Pouring small spheres", "AL paper C (Figs. 10-11)", "seed_001_al.md §5 (C)",
     "N = 9, 18, 27; 0.5 s per solver (CANAL 5, SubADMM 100, PGS 100 iterations; SAP)",
     "N = 9, 18, 27, 36, 45; 1 s per solver (CANAL 5, SubADMM 100, PGS 100 iterations; SAP)",
     Pouring},
};

// Markdown table of an experiment's rows.
std::string RowsTable(const std::vector<ResultRow>& rows) {
  std::ostringstream o;
  o << "| metric | paper | ContactLab | tolerance | agrees |\n|---|---|---|---|---|\n";
  for (const ResultRow& r : rows) {
    const char* a = r.agrees == Agreement::kAgrees      ? "**yes**"
                    : r.agrees == Agreement::kDisagrees ? "**no**"
                                                        : "n/a";
    o << "| " << r.metric << " | " << r.paper_value << " | " << Fmt(r.value) << " | " << r.tolerance
      << " | " << a << " |\n";
  }
  bool notes = false;
  for (const ResultRow& r : rows) notes |= !r.note.empty();
  if (notes) {
    o << "\nNotes:\n\n";
    for (const ResultRow& r : rows)
      if (!r.note.empty()) o << "- *" << r.metric << "*: " << r.note << "\n";
  }
  return o.str();
}

nlohmann::json RowJson(const ResultRow& r) {
  nlohmann::json j;
  j["experiment"] = r.experiment;
  j["metric"] = r.metric;
  if (std::isfinite(r.paper_number)) {
    j["paper_value"] = r.paper_number;
  } else {
    j["paper_value"] = r.paper_value;
  }
  j["paper_statement"] = r.paper_value;
  j["contactlab_value"] = std::isfinite(r.value) ? nlohmann::json(r.value) : nlohmann::json();
  j["tolerance"] = r.tolerance;
  j["agrees"] = r.agrees == Agreement::kAgrees      ? nlohmann::json(true)
                : r.agrees == Agreement::kDisagrees ? nlohmann::json(false)
                                                    : nlohmann::json();
  j["source"] = r.source;
  if (!r.note.empty()) j["note"] = r.note;
  return j;
}

}  // namespace
}  // namespace reproduce

using reproduce::Fmt;
using reproduce::kExperiments;
using reproduce::RowJson;
using reproduce::RowsTable;

std::vector<std::string> ReproduceExperimentIds() {
  std::vector<std::string> ids;
  for (const reproduce::ExperimentDef& e : kExperiments) ids.push_back(e.id);
  return ids;
}

std::vector<ReproduceExperimentInfo> ReproduceExperimentTable() {
  std::vector<ReproduceExperimentInfo> table;
  for (const reproduce::ExperimentDef& e : kExperiments)
    table.push_back({e.id, e.seed, e.title, e.paper, e.source, e.quick, e.full});
  return table;
}

void PrintReproduceExperiments(std::ostream& out) {
  for (const reproduce::ExperimentDef& e : kExperiments) {
    out << e.id << " (seed " << e.seed << ", " << e.paper << "): " << e.title << "\n"
        << "    quick: " << e.quick << "\n"
        << "    full:  " << e.full << "\n";
  }
}

ExperimentResult RunReproduceExperiment(const std::string& id, const ReproduceOptions& options) {
  for (const reproduce::ExperimentDef& e : kExperiments) {
    if (id == e.id) {
      const auto start = std::chrono::steady_clock::now();
      reproduce::Experiment ex(e.id, e.title, e.paper, e.source, options);
      e.run(ex, options);
      ExperimentResult r = ex.Finish();
      r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      return r;
    }
  }
  std::string known;
  for (const reproduce::ExperimentDef& e : kExperiments)
    known += std::string(known.empty() ? "" : ", ") + e.id;
  throw std::invalid_argument("unknown experiment '" + id + "' (known: " + known + ")");
}

int RunReproduce(const ReproduceOptions& options, std::ostream& log) {
  std::vector<std::string> ids = options.only.empty() ? ReproduceExperimentIds() : options.only;
  if (!options.out_dir.empty()) std::filesystem::create_directories(options.out_dir);
  const auto start = std::chrono::steady_clock::now();
  std::vector<ExperimentResult> results;
  for (const std::string& id : ids) {
    log << "reproduce: " << id << " ..." << std::flush;
    results.push_back(RunReproduceExperiment(id, options));
    int agree = 0, disagree = 0;
    for (const ResultRow& r : results.back().rows) {
      agree += r.agrees == Agreement::kAgrees;
      disagree += r.agrees == Agreement::kDisagrees;
    }
    log << " " << Fmt(results.back().seconds, 3) << " s, " << agree << " agree, " << disagree
        << " disagree" << std::endl;
  }
  const double total =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (options.out_dir.empty()) return 0;

  nlohmann::json rows = nlohmann::json::array();
  int n_agree = 0, n_disagree = 0, n_na = 0;
  for (const ExperimentResult& e : results) {
    for (const ResultRow& r : e.rows) {
      rows.push_back(RowJson(r));
      n_agree += r.agrees == Agreement::kAgrees;
      n_disagree += r.agrees == Agreement::kDisagrees;
      n_na += r.agrees == Agreement::kNotComparable;
    }
  }
  nlohmann::json doc;
  doc["mode"] = options.quick ? "quick" : "full";
  doc["seconds"] = total;
  doc["rows"] = rows;
  const std::filesystem::path out(options.out_dir);
  {
    std::ofstream f(out / "results.json");
    f << std::setw(2) << doc << '\n';
    if (!f) {
      log << "error: cannot write " << (out / "results.json").string() << std::endl;
      return 1;
    }
  }
  std::ofstream md(out / "report.md");
  md << "# ContactLab: reproduction of the papers' experiments\n\n"
     << "Mode: **" << (options.quick ? "quick" : "full") << "**, " << Fmt(total, 3)
     << " s wall time. Rows: " << n_agree << " agree, " << n_disagree << " disagree, " << n_na
     << " not comparable (no paper number, or not expressible in ContactLab).\n\n"
     << "Solvers: SAP's Newton method in every experiment; the seed 001 experiments (dish pile, "
        "robot dish pile, pouring) also run that paper's CANAL and SubADMM and its PGS baseline, "
        "and the seed 002 experiments (ramp, stack, pendulum, foundation) Drumwright's "
        "first-order solver in both of its programs (docs/solvers.md); each such row names its "
        "solver, rows without a name are SAP's. Contact model: SAP's linear model, except in the "
        "seed 004 experiments, which also run the Lagged, Regularized Lagged and Similar models "
        "(each such row names its model). Paper values are quoted from the digests in "
        "shared/research/ (section given per row in results.json).\n\n"
     << "## Summary\n\n| experiment | paper | rows | agree | disagree | n/a | time [s] |\n"
     << "|---|---|---|---|---|---|---|\n";
  for (const ExperimentResult& e : results) {
    int a = 0, d = 0, n = 0;
    for (const ResultRow& r : e.rows) {
      a += r.agrees == Agreement::kAgrees;
      d += r.agrees == Agreement::kDisagrees;
      n += r.agrees == Agreement::kNotComparable;
    }
    md << "| [" << e.title << "](#" << e.id << ") | " << e.paper << " | " << e.rows.size() << " | "
       << a << " | " << d << " | " << n << " | " << Fmt(e.seconds, 3) << " |\n";
  }
  md << "\n";
  for (const ExperimentResult& e : results) {
    md << "<a id=\"" << e.id << "\"></a>\n\n## " << e.title << "\n\n*" << e.paper << "*\n\n"
       << e.markdown << RowsTable(e.rows) << "\n";
  }
  if (!md.flush()) {
    log << "error: cannot write " << (out / "report.md").string() << std::endl;
    return 1;
  }
  log << "reproduce: " << n_agree << " agree, " << n_disagree << " disagree, " << n_na
      << " n/a; wrote " << (out / "results.json").string() << " and "
      << (out / "report.md").string() << std::endl;
  return 0;
}

void AddReproduceCommand(CLI::App& app, RunOptions* run_options) {
  if (run_options != nullptr) {
    for (CLI::App* sub : app.get_subcommands({})) {
      if (sub->get_name() == "run") {
        sub->add_option("--reference", run_options->reference_path,
                        "Trajectory CSV to measure the position error e_q against");
      }
    }
  }
  auto opt = std::make_shared<ReproduceOptions>();
  CLI::App* cmd = app.add_subcommand(
      "reproduce", "Run the papers' experiments and write results.json and report.md");
  cmd->add_flag("--quick", opt->quick, "Shorter runs and fewer sweep points");
  cmd->add_option("--out", opt->out_dir, "Output directory")->required();
  cmd->add_option("--scenes", opt->scene_dir,
                  "Directory of the paper scenes (default: "
                  "scenes/paper of the source tree)");
  cmd->add_option("--only", opt->only, "Run only these experiment ids")
      ->check(CLI::IsMember(ReproduceExperimentIds()));
  // Runs while the command line is parsed, before --out is required (like --help): prints the
  // experiment table and ends parsing with exit status 0.
  cmd->add_flag_callback(
      "--list",
      []() {
        PrintReproduceExperiments(std::cout);
        std::cout << std::flush;
        throw CLI::Success();
      },
      "Print the experiments (id, paper, title, quick and full settings) and exit");
  cmd->callback([opt]() {
    int code = 1;
    try {
      code = RunReproduce(*opt, std::cout);
    } catch (const std::exception& e) {
      std::cerr << "error: " << e.what() << std::endl;
      code = 1;
    }
    throw CLI::RuntimeError(code);
  });
}

}  // namespace contactlab
