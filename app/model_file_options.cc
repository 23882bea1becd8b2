#include "app/model_file_options.h"

#include <CLI/CLI.hpp>

namespace contactlab {

void AddModelFileOptions(CLI::App* command, std::vector<std::string>* package_paths,
                         bool* fixed_base, bool* ground_plane) {
  command
      ->add_option("--package-path", *package_paths,
                   "URDF: where package://NAME/... is found: NAME=DIR (the package folder) or "
                   "DIR (holding a folder NAME); repeatable. Default: the model file's ancestor "
                   "folders called NAME")
      ->type_name("NAME=DIR|DIR")
      ->allow_extra_args(false);
  command->add_flag("--fixed-base", *fixed_base,
                    "URDF: weld the root link to the world (default: a free joint)");
  command->add_flag("--ground", *ground_plane,
                    "URDF: add a ground half-space z <= 0 and set the model's lowest collision "
                    "geometry on it");
}

}  // namespace contactlab
