// Command-line options of model files (URDF), shared by run, validate, view and bench:
//   --package-path NAME=DIR | DIR   (repeatable) where package://NAME/... is looked up
//   --fixed-base                    weld the model's root link to the world
//   --ground                        add a ground half-space and set the model on it
// They fill SceneOptions::package_paths, fixed_base and ground_plane (app/scene.h).
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace contactlab {

void AddModelFileOptions(CLI::App* command, std::vector<std::string>* package_paths,
                         bool* fixed_base, bool* ground_plane);

}  // namespace contactlab
