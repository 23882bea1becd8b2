// Output files of the command-line program never overwrite its inputs or each other.
//
// Every command that writes a file checks it here before writing anything: `run --stats
// --trajectory` (inputs: the scene, its meshes, --reference), `bench --json --mjcf-dir`,
// `export-step --out`, `reproduce --out` (inputs: the files of the paper-scene directory and
// their meshes), `view --screenshot --trajectory --settings` (inputs: the scene, its meshes,
// --input) and the viewer's export panel. If an output were the scene file, a mesh the scene
// reads, or another output of the same command, a run would silently destroy its own input or
// interleave two outputs in one file. Files are compared as files (device and inode, so links and
// other spellings of a path are caught), not as strings; a file that does not exist yet is compared
// by its absolute path with the symbolic links of its existing directories resolved.
#pragma once

#include <string>
#include <vector>

#include "app/scene.h"

namespace contactlab {

struct CliFile {
  std::string option;  // how the command line named it: "scene", "mesh", "--stats", ...
  std::string path;
};

// True when `a` and `b` name the same file (or, for files that do not exist yet, would).
bool SameFile(const std::string& a, const std::string& b);

// The files `scene` was read from: the scene file (as `option`) and each mesh file ("mesh").
std::vector<CliFile> SceneInputFiles(const Scene& scene, const std::string& option = "scene");

// Throws SceneError "OPTION PATH: is the same file as OPTION2 PATH2 (...)" when an output is the
// same file as an input or as another output. Empty paths are ignored.
void CheckOutputFiles(const std::vector<CliFile>& inputs, const std::vector<CliFile>& outputs);

// The regular files directly inside `dir` (not recursive; symbolic links followed), each as
// {option, path}, sorted by path. A directory that does not exist or cannot be read gives none.
std::vector<CliFile> FilesInDirectory(const std::string& dir, const std::string& option);

}  // namespace contactlab
