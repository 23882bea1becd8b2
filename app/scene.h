// Scene files: a YAML description of a Model, its StepSettings, a camera and a run duration.
// The format is documented key by key in docs/scene_format.md.
//
// Every problem with a scene (YAML syntax, unknown keys, wrong types, out-of-range values,
// missing fields, unknown references, duplicate names, missing mesh files, bad --set overrides)
// throws SceneError with a message of the form
//   FILE:LINE: FIELD: what is wrong (valid range / expected type / allowed keys)
// where LINE is 1-based and FIELD is a dotted path such as `bodies.box.mass`. Values that came
// from a --set override are reported as `FILE: --set KEY=VALUE: FIELD: ...` instead.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "engine/multibody/model.h"
#include "engine/sim/simulator.h"

namespace contactlab {

class SceneError : public std::runtime_error {
 public:
  explicit SceneError(const std::string& message) : std::runtime_error(message) {}
};

// Orbit camera of the viewer.
struct CameraDef {
  Vec3 target = Vec3::Zero();  // point looked at [m], world
  double distance = 2.0;       // [m], > 0
  double azimuth = 30.0;       // [deg] about world +z, from +x
  double elevation = 20.0;     // [deg] above the xy plane, [-90, 90]
};

struct Scene {
  std::string path;  // file the scene came from (or the name given to ParseScene)
  Model model;
  StepSettings settings;
  CameraDef camera;
  double duration = 1.0;  // default run length [s]
  std::string description;
  // What an imported model file (MJCF) could not carry, "FILE:LINE: element 'name': what" each.
  std::vector<std::string> warnings;
};

struct SceneOptions {
  // `key=value` overrides applied to the YAML document before it is interpreted (the
  // `--set` option of the command-line program). See docs/scene_format.md.
  std::vector<std::string> overrides;
  // Calls Model::Finalize() and StepSettings::Validate(), then writes the initial joint
  // positions and velocities into model.q_default / model.v_default. Without it the model's
  // bodies, joints, geoms and materials are filled but trees and coordinates are not.
  bool finalize = true;
  // Directory that relative mesh paths are resolved against first. Empty: the directory of
  // `path_for_messages` (ParseScene) or of the scene file (LoadScene).
  std::string base_dir;
  // Nesting depth of `models:` includes (a model file included by a scene is loaded at depth
  // 1); includes deeper than 8 are refused.
  int include_depth = 0;
  // Model files (URDF; `--package-path`): where package://NAME/... mesh paths are looked up,
  // each "NAME=DIR" (the package NAME is the folder DIR) or a plain DIR (NAME is DIR/NAME),
  // before the model file's ancestor folders called NAME (app/model_import/urdf_import.h).
  std::vector<std::string> package_paths;
  // Model files (URDF; `--fixed-base`): weld the root link to the world instead of giving it a
  // free joint.
  bool fixed_base = false;
  // Model files (URDF; `--ground`): add a ground half-space z <= 0 and place a free or fixed
  // root so that its lowest collision geometry touches z = 0.
  bool ground_plane = false;
};

// Longest run of a scene in time steps (run, bench, export-step and the scene's own duration).
constexpr int kMaxRunSteps = 100'000'000;

// Reads and interprets the scene file at `path`. A path ending in `.xml` is an MJCF model,
// imported through MuJoCo's compiler (ImportMjcf, app/model_import/mjcf_import.h; --set
// overrides are refused for it); without MuJoCo in the build it is refused with a SceneError.
// A path ending in `.urdf` is a URDF model (ImportUrdf, app/model_import/urdf_import.h, with
// options.package_paths, fixed_base and ground_plane; --set refused; without urdfdom in the
// build it is refused with a SceneError).
// Otherwise the file is YAML: a regular file of at most 64 MiB
// (kMaxSceneFileBytes in app/scene_text.h). Throws SceneError.
Scene LoadScene(const std::string& path, const std::vector<std::string>& overrides = {});
Scene LoadScene(const std::string& path, const SceneOptions& options);

// Interprets scene text; `path_for_messages` names it in error messages. Throws SceneError.
// With options.finalize, the scene's duration must be 1 to kMaxRunSteps time steps.
Scene ParseScene(const std::string& yaml_text, const std::string& path_for_messages,
                 const SceneOptions& options = {});

// Number of steps of a run of `duration` seconds of `scene`: round(duration / time_step). Throws
// SceneError `PATH: WHAT: ...` with the valid range in seconds when `duration` is not finite, is
// shorter than one time step or is more than kMaxRunSteps steps; `what` names the source, e.g.
// "--duration 1e308".
int RunSteps(const Scene& scene, double duration, const std::string& what);

}  // namespace contactlab
