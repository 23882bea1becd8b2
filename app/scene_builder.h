// The scene builder: a scene document (app/scene_reader.h) -> the engine's Model, StepSettings,
// camera and run length. It interprets the document through the reader's typed accessors
// (every value checked against its range, with the FILE:LINE: FIELD messages of app/scene.h)
// and checks what needs the whole scene: references between materials, templates, bodies and
// joints, duplicate names, generated bodies, mesh files, loads, and Model::Finalize.
// Internal to app/: callers use app/scene.h.
#pragma once

#include <string>

#include "app/scene.h"
#include "app/scene_reader.h"

namespace contactlab {
namespace scene_io {

// The scene of `doc` (from ReadSceneDocument). `base_dir`: the directory relative mesh paths are
// resolved against first. With options.finalize, finalizes the model, validates the settings and
// checks the run length. Throws SceneError.
Scene BuildScene(SceneDocument* doc, const SceneOptions& options, const std::string& base_dir);

// Why a run of `duration` seconds at time step `dt` is refused ("" when it is fine): it must be
// at least one step and at most kMaxRunSteps steps (steps = round(duration / dt)).
std::string RunLengthProblem(double duration, double dt);

}  // namespace scene_io
}  // namespace contactlab
