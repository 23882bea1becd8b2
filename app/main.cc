// contactlab: command-line entry point.
//   contactlab run SCENE [--steps N | --duration T] [--set KEY=VALUE ...] [--stats FILE]
//                        [--trajectory FILE]
//   contactlab validate SCENE [--set KEY=VALUE ...]
//   (run, validate, view, bench on a model file: [--package-path NAME=DIR|DIR ...] [--fixed-base]
//    [--ground], app/model_file_options.h)
//   contactlab export-step SCENE --step N --out DIR
//   contactlab view SCENE [--frames N] [--screenshot FILE.png] [--video FILE.mp4]
//                         [--set KEY=VALUE ...]
//                         [--width W] [--height H] [--msaa N] [--transparent] [--labels]
//                         [--panel NAME ...] [--select BODY] [--settings FILE] [--no-settings]
//                         [--seconds S] [--input FILE] [--trajectory FILE]
//                         [--compare CONFIG,CONFIG[,...]]   (app/viewer/viewer.h)
//   contactlab bench [--peer mujoco] [--json FILE] SCENES...   (app/bench.h)
//   contactlab compare SCENE --configs sap,canal,... [--step N [--plot F]] [--json F] (app/compare.h)
//   contactlab params [--json] [--check-doc FILE | --update-doc FILE]   (app/params.h)
// Exit status: 0 success, 2 scene or usage error (message on stderr: a bad option value is
// refused with its valid range), 1 other runtime failure; `run` also: 3 a step failed or the state
// became non-finite (the run stops there), 4 divergence warnings without failed steps
// (RunSummary::ExitStatus). A run is 1 to kMaxRunSteps (10^8) steps (--steps, --duration and the
// scene's duration; exit 2 otherwise), and no output file may be an input file (the scene, its
// meshes, --reference; reproduce: the paper scenes) or another output (exit 2; app/output_files.h).
#include <CLI/CLI.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "app/bench.h"
#include "app/compare.h"
#include "app/export.h"
#include "app/model_file_options.h"
#include "app/output_files.h"
#include "app/params.h"
#include "app/reproduce/reproduce.h"
#include "app/runner.h"
#include "app/scene.h"
#ifdef CONTACTLAB_HAVE_VIEWER
#include "app/viewer/viewer.h"
#endif

namespace {

constexpr int kExitSceneError = 2;
constexpr int kExitFailure = 1;

// CLI11 check: a finite number > 0.
std::string CheckPositive(const std::string& text) {
  try {
    size_t used = 0;
    const double x = std::stod(text, &used);
    if (used == text.size() && std::isfinite(x) && x > 0) return "";
  } catch (const std::exception&) {
  }
  return "must be a number > 0, got '" + text + "'";
}

// `reproduce --out OUT [--scenes DIR]` writes OUT/results.json, OUT/report.md and
// OUT/EXPERIMENT_PLOT.png (app/reproduce.h); it reads the scene files of DIR (default: the
// source tree's scenes/paper) and their meshes. A PNG that does not exist yet cannot be an input,
// so the PNGs checked are those already in OUT.
void CheckReproduceOutputs(const CLI::App& cmd) {
  const std::string out = cmd.get_option("--out")->as<std::string>();
  const CLI::Option* scenes_opt = cmd.get_option("--scenes");
  const std::string scene_dir = scenes_opt->count() > 0
                                    ? scenes_opt->as<std::string>()
                                    : std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/paper";
  std::vector<contactlab::CliFile> inputs = contactlab::FilesInDirectory(scene_dir, "scene");
  for (const contactlab::CliFile& f : std::vector<contactlab::CliFile>(inputs)) {
    const std::string ext = std::filesystem::path(f.path).extension().string();
    if (ext != ".yaml" && ext != ".yml") continue;
    try {
      const contactlab::Scene scene = contactlab::LoadScene(f.path);
      for (contactlab::CliFile& m : contactlab::SceneInputFiles(scene)) {
        if (m.option == "mesh") inputs.push_back(std::move(m));
      }
    } catch (const std::exception&) {
      // A scene that does not load is reported by the experiment that reads it.
    }
  }
  std::vector<contactlab::CliFile> outputs{
      {"--out", (std::filesystem::path(out) / "results.json").string()},
      {"--out", (std::filesystem::path(out) / "report.md").string()}};
  for (contactlab::CliFile& f : contactlab::FilesInDirectory(out, "--out")) {
    if (std::filesystem::path(f.path).extension() == ".png") outputs.push_back(std::move(f));
  }
  contactlab::CheckOutputFiles(inputs, outputs);
}

// `contactlab params`: prints the reference, or checks / rewrites a document's generated block.
int RunParams(bool json, const std::string& check_doc, const std::string& update_doc) {
  const std::string block = contactlab::ParamsMarkdown();
  const std::string doc_path = !check_doc.empty() ? check_doc : update_doc;
  if (doc_path.empty()) {
    if (json) {
      std::cout << contactlab::ParamsJson().dump(2) << '\n';
    } else {
      std::cout << block;
    }
    return 0;
  }
  std::ifstream in(doc_path, std::ios::binary);
  if (!in) {
    std::cerr << doc_path << ": cannot read\n";
    return kExitSceneError;
  }
  std::ostringstream text;
  text << in.rdbuf();
  std::string doc = text.str(), current, updated;
  if (!contactlab::ExtractParamsBlock(doc, &current) ||
      !contactlab::ReplaceParamsBlock(doc, block, &updated)) {
    std::cerr << doc_path << ": no generated block (the lines " << contactlab::kParamsDocBegin
              << " and " << contactlab::kParamsDocEnd << ")\n";
    return kExitSceneError;
  }
  if (!check_doc.empty()) {
    if (current == block) return 0;
    std::cerr << doc_path << ": the parameter reference differs from `contactlab params` (a "
              << "table in engine/sim/param_tables.cc changed); regenerate it with\n  contactlab "
              << "params --update-doc " << doc_path << "\n";
    return kExitFailure;
  }
  if (current == block) return 0;
  std::ofstream out(doc_path, std::ios::binary | std::ios::trunc);
  out << updated;
  out.close();
  if (!out) {
    std::cerr << doc_path << ": cannot write\n";
    return kExitFailure;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  using contactlab::SceneError;
  CLI::App app{"ContactLab: compliant frictional contact simulator and debugger"};
  app.require_subcommand(1);

  std::string scene_path;
  std::vector<std::string> overrides;
  contactlab::SceneOptions scene_options;  // model-file options of run and validate
  contactlab::RunOptions run_options;

  CLI::App* run = app.add_subcommand("run", "Run a scene headless and report statistics");
  run->add_option("scene", scene_path, "Scene file (YAML), or a model file (.xml MJCF, .urdf URDF)")->required();
  CLI::Option* steps = run->add_option("--steps", run_options.steps, "Number of steps")
                           ->check(CLI::Validator(CheckPositive, "N > 0"));
  CLI::Option* duration = run->add_option("--duration", run_options.duration,
                                          "Simulated time [s] (default: the scene's duration)")
                              ->check(CLI::Validator(CheckPositive, "T > 0"));
  steps->excludes(duration);
  run->add_option("--set", overrides, "Override a scene value, e.g. solver.sigma=1e-4")
      ->allow_extra_args(false);
  run->add_option("--stats", run_options.stats_path, "Write per-step statistics (JSON Lines)");
  run->add_option("--trajectory", run_options.trajectory_path, "Write body poses (CSV)");
  contactlab::AddModelFileOptions(run, &scene_options.package_paths, &scene_options.fixed_base,
                                  &scene_options.ground_plane);

  CLI::App* validate = app.add_subcommand("validate", "Check a scene file and exit");
  validate->add_option("scene", scene_path, "Scene file (YAML), or a model file (.xml MJCF, .urdf URDF)")->required();
  validate->add_option("--set", overrides, "Override a scene value")->allow_extra_args(false);
  contactlab::AddModelFileOptions(validate, &scene_options.package_paths,
                                  &scene_options.fixed_base, &scene_options.ground_plane);

  int export_step = 0;
  std::string export_dir;
  CLI::App* export_cmd = app.add_subcommand(
      "export-step", "Run a scene to step N and export that step's contact problem to DIR");
  export_cmd->add_option("scene", scene_path, "Scene file (YAML)")->required();
  export_cmd->add_option("--step", export_step, "Step index (0 = first step)")->required();
  export_cmd->add_option("--out", export_dir, "Output directory")->required();
  export_cmd->add_option("--set", overrides, "Override a scene value, e.g. solver.type=canal")
      ->allow_extra_args(false);
  contactlab::AddReproduceCommand(app, &run_options);
  // reproduce --out: checked once its options are parsed, before its callback runs anything.
  for (CLI::App* sub : app.get_subcommands({})) {
    if (sub->get_name() != "reproduce") continue;
    sub->parse_complete_callback([sub]() {
      try {
        CheckReproduceOutputs(*sub);
      } catch (const SceneError& e) {
        std::cerr << e.what() << std::endl;
        throw CLI::RuntimeError(kExitSceneError);
      }
    });
  }

#ifdef CONTACTLAB_HAVE_VIEWER
  contactlab::ViewerOptions view_options;
  CLI::App* view = app.add_subcommand("view", "Open the interactive viewer on a scene");
  view->add_option("scene", view_options.scene_path,
                   "Scene file (YAML); none: the default scene (scenes/clutter_40_walls.yaml) "
                   "with the scene browser open");
  view->add_option("--frames", view_options.frames,
                   "Scripted mode: run N frames with the overlays on, then exit");
  view->add_option("--screenshot", view_options.screenshot_path,
                   "Scripted mode: write a PNG after the last frame");
  view->add_option("--video", view_options.video_path,
                   "Record the run as an H.264 MP4 (through the ffmpeg program) at the scene's "
                   "real-time rate");
  view->add_option("--set", view_options.overrides, "Override a scene value")
      ->allow_extra_args(false);
  contactlab::AddModelFileOptions(view, &view_options.package_paths, &view_options.fixed_base,
                                  &view_options.ground_plane);
  view->add_option("--width", view_options.width, "Window width [px]");
  view->add_option("--height", view_options.height, "Window height [px]");
  view->add_option("--msaa", view_options.msaa_samples,
                   "Samples per pixel (0 off; default: auto, off on software GL)");
  view->add_flag("--transparent", view_options.transparent, "Start with transparent bodies");
  view->add_flag("--labels", view_options.labels, "Start with contact labels");
  view->add_flag("--no-pressure", view_options.no_pressure,
                 "Start with the pressure-field contact patches hidden");
  view->add_flag("--tets", view_options.tets,
                 "Start with the compliant geometries' tet meshes drawn (boundary edges)");
  view->add_flag("--all-tets", view_options.all_tets,
                 "Start with every tet edge of the compliant geometries drawn");
  std::string view_pressure_range;
  view->add_option("--pressure-range", view_pressure_range,
                   "Fixed pressure legend range MIN,MAX [Pa] (default: held from the first step "
                   "with pressure)");
  view->add_option("--panel", view_options.panels,
                   "Open a panel at start (" + contactlab::ViewerPanelNames() + ")")
      ->allow_extra_args(false)
      ->check([](const std::string& name) {
        return contactlab::IsViewerPanelName(name)
                   ? std::string()
                   : "unknown panel " + name + " (" + contactlab::ViewerPanelNames() + ")";
      });
  view->add_option("--settings", view_options.settings_path,
                   "Viewer settings file (default: the user's in interactive runs, none in "
                   "scripted runs)");
  view->add_flag("--no-settings", view_options.no_settings, "Neither read nor write settings");
  view->add_flag("--print-layout", view_options.print_layout,
                 "At exit, print each window's and left-column section's rectangle and the "
                 "camera");
  view->add_option("--select", view_options.select_body, "Body index selected at start")
      ->check(CLI::NonNegativeNumber);
  view->add_option("--seconds", view_options.seconds,
                   "Play in real time from the start and exit after this many wall seconds, "
                   "printing frame-time statistics")
      ->check(CLI::PositiveNumber);
  view->add_option("--input", view_options.input_path,
                   "Scripted mode: keyboard and mouse events per frame (docs/viewer.md)");
  view->add_option("--trajectory", view_options.trajectory_path,
                   "CSV of body poses per step (as contactlab run --trajectory)");
  std::string view_compare;
  view->add_option("--compare", view_compare,
                   "Compare mode: 2 to 4 configurations SOLVER[:KEY=VALUE...] in lockstep, the "
                   "first the primary, e.g. sap,canal,pgs:solver.pgs.max_iterations=500");
#endif

  bool params_json = false;
  std::string params_check_doc, params_update_doc;
  CLI::App* params_cmd = app.add_subcommand(
      "params", "Print the reference of every parameter (key, symbol, unit, range, default, "
                "scale, help) as Markdown");
  params_cmd->add_flag("--json", params_json, "Print the reference as JSON");
  CLI::Option* check_doc = params_cmd->add_option(
      "--check-doc", params_check_doc,
      "Exit 1 when FILE's generated block (docs/scene_format.md) differs from the reference");
  CLI::Option* update_doc = params_cmd->add_option(
      "--update-doc", params_update_doc, "Rewrite FILE's generated block with the reference");
  check_doc->excludes(update_doc);

  contactlab::AddBenchCommand(app);  // `bench`: runs inside the parse (app/bench.h)
  contactlab::AddCompareCommand(app);  // `compare`: likewise (app/compare.h)
  // A first word that is neither an option nor a command is named (CLI11 would only say that a
  // subcommand is required).
  if (argc > 1 && argv[1][0] != '-') {
    std::string names;
    bool known = false;
    for (const CLI::App* sub : app.get_subcommands({})) {
      names += (names.empty() ? "" : ", ") + sub->get_name();
      known = known || sub->get_name() == argv[1];
    }
    if (!known) {
      std::cerr << "unknown command '" << argv[1] << "' (commands: " << names << ")\n";
      return kExitSceneError;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version exit 0; every usage error (unknown option, a value out of its range,
    // a missing argument) is refused with CLI11's message and exit status 2, like a scene error.
    const int status = app.exit(e);
    return status == 0 ? 0 : kExitSceneError;
  }

#ifdef CONTACTLAB_HAVE_VIEWER
  if (*view) {
    if (view_options.all_tets) view_options.tets = true;
    if (!view_pressure_range.empty()) {
      std::string error;
      if (!contactlab::ParsePressureRange(view_pressure_range, &view_options.pressure_min,
                                          &view_options.pressure_max, &error)) {
        std::cerr << error << "\n";
        return kExitSceneError;
      }
    }
    if (!view_compare.empty()) {
      std::string error;
      if (!contactlab::ParseCompareConfigs(view_compare, &view_options.compare, &error)) {
        std::cerr << error << "\n";
        return kExitSceneError;
      }
    }
    return contactlab::RunViewer(view_options);
  }
#endif
  if (*params_cmd) return RunParams(params_json, params_check_doc, params_update_doc);

  if (*export_cmd) {
    // The step range and the output files are checked here; ExportStepFromRun loads the scene
    // again and runs it.
    try {
      if (export_step < 0 || export_step >= contactlab::kMaxRunSteps) {
        throw SceneError("export-step: --step " + std::to_string(export_step) +
                         ": out of range (valid range [0, " +
                         std::to_string(contactlab::kMaxRunSteps - 1) + "])");
      }
      const contactlab::Scene scene = contactlab::LoadScene(scene_path, overrides);
      std::vector<contactlab::CliFile> outputs;
      for (const std::string& name : contactlab::ExportStepFileNames()) {
        outputs.push_back({"--out", (std::filesystem::path(export_dir) / name).string()});
      }
      contactlab::CheckOutputFiles(contactlab::SceneInputFiles(scene), outputs);
    } catch (const SceneError& e) {
      std::cerr << e.what() << std::endl;
      return kExitSceneError;
    } catch (const std::exception& e) {
      std::cerr << "error: " << e.what() << std::endl;
      return kExitFailure;
    }
    return contactlab::ExportStepFromRun(scene_path, export_step, export_dir, overrides);
  }

  try {
    scene_options.overrides = overrides;
    contactlab::Scene scene = contactlab::LoadScene(scene_path, scene_options);
    for (const std::string& w : scene.warnings) std::cerr << "warning: " << w << "\n";
    if (*validate) {
      std::cout << scene_path << ": ok (" << scene.model.bodies.size() << " bodies, "
                << scene.model.joints.size() << " joints, " << scene.model.geoms.size() << " geoms)"
                << std::endl;
      return 0;
    }
    if (run_options.steps > contactlab::kMaxRunSteps) {
      throw SceneError(scene_path + ": --steps " + std::to_string(run_options.steps) +
                       ": out of range (valid range [1, " +
                       std::to_string(contactlab::kMaxRunSteps) + "])");
    }
    if (run_options.steps == 0 && run_options.duration > 0) {
      contactlab::RunSteps(scene, run_options.duration,
                           "--duration " + duration->as<std::string>());
    }
    std::vector<contactlab::CliFile> inputs = contactlab::SceneInputFiles(scene);
    inputs.push_back({"--reference", run_options.reference_path});
    contactlab::CheckOutputFiles(inputs, {{"--stats", run_options.stats_path},
                                          {"--trajectory", run_options.trajectory_path}});
    const contactlab::RunSummary summary = contactlab::RunHeadless(scene, run_options, std::cout);
    if (summary.stopped_at_step >= 0) std::cerr << "run stopped: " << summary.stop_reason << '\n';
    return summary.ExitStatus();
  } catch (const SceneError& e) {
    std::cerr << e.what() << std::endl;
    return kExitSceneError;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << std::endl;
    return kExitFailure;
  }
}
