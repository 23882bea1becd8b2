// Scene files: the public entry points of app/scene.h, a reader (app/scene_reader.h: the file and
// its text -> a checked YAML document with the --set overrides applied) followed by a builder
// (app/scene_builder.h: the document -> Model, StepSettings, camera, duration).
#include "app/scene.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#ifdef CONTACTLAB_HAVE_MUJOCO
#include "app/model_import/mjcf_import.h"
#endif
#ifdef CONTACTLAB_HAVE_URDF
#include "app/model_import/urdf_import.h"
#endif
#include "app/scene_builder.h"
#include "app/scene_reader.h"

namespace contactlab {

Scene ParseScene(const std::string& yaml_text, const std::string& path_for_messages,
                 const SceneOptions& options) {
  scene_io::SceneDocument doc =
      scene_io::ReadSceneDocument(yaml_text, path_for_messages, options.overrides);
  std::string base_dir = options.base_dir;
  if (base_dir.empty()) base_dir = std::filesystem::path(path_for_messages).parent_path().string();
  return scene_io::BuildScene(&doc, options, base_dir);
}

Scene LoadScene(const std::string& path, const SceneOptions& options) {
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".xml" || ext == ".XML" || ext == ".mjcf") {
    if (!options.overrides.empty()) {
      throw SceneError(path + ": --set " + options.overrides.front() +
                       ": overrides apply to YAML scenes, not to MJCF models");
    }
#ifdef CONTACTLAB_HAVE_MUJOCO
    MjcfImportReport report;
    Scene scene = ImportMjcf(path, &report);
    scene.warnings = report.warnings;
    return scene;
#else
    throw SceneError(path + ": MJCF models are imported through MuJoCo, which this build lacks "
                            "(libmujoco-dev, CONTACTLAB_WITH_MUJOCO)");
#endif
  }
  if (ext == ".urdf" || ext == ".URDF") {
    if (!options.overrides.empty()) {
      throw SceneError(path + ": --set " + options.overrides.front() +
                       ": overrides apply to YAML scenes, not to URDF models");
    }
#ifdef CONTACTLAB_HAVE_URDF
    UrdfImportOptions urdf_options;
    urdf_options.package_paths = options.package_paths;
    urdf_options.fixed_base = options.fixed_base;
    urdf_options.ground_plane = options.ground_plane;
    UrdfImportReport report;
    Scene scene = ImportUrdf(path, urdf_options, &report);
    scene.warnings = report.warnings;
    return scene;
#else
    throw SceneError(path + ": URDF models are imported through urdfdom and tinyxml2, which this "
                            "build lacks (liburdfdom-dev, libtinyxml2-dev, CONTACTLAB_WITH_URDF)");
#endif
  }
  return ParseScene(scene_io::ReadSceneFile(path), path, options);
}

int RunSteps(const Scene& scene, double duration, const std::string& what) {
  const double dt = scene.settings.time_step;
  const std::string problem = scene_io::RunLengthProblem(duration, dt);
  if (!problem.empty()) {
    throw SceneError(scene.path + ": " + what + ": " + problem + " (time_step " +
                     scene_io::FormatNumber(dt) + " s)");
  }
  return static_cast<int>(std::max(1.0, std::round(duration / dt)));
}

Scene LoadScene(const std::string& path, const std::vector<std::string>& overrides) {
  SceneOptions options;
  options.overrides = overrides;
  return LoadScene(path, options);
}

}  // namespace contactlab
