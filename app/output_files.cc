#include "app/output_files.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <system_error>

namespace contactlab {
namespace {

namespace fs = std::filesystem;

fs::path Normal(const std::string& p) {
  std::error_code ec;
  fs::path out = fs::weakly_canonical(fs::path(p), ec);
  if (ec) out = fs::absolute(fs::path(p), ec).lexically_normal();
  return out;
}

}  // namespace

bool SameFile(const std::string& a, const std::string& b) {
  std::error_code ea, eb;
  const bool a_exists = fs::exists(a, ea), b_exists = fs::exists(b, eb);
  if (a_exists && b_exists) {
    std::error_code ec;
    const bool same = fs::equivalent(a, b, ec);
    return !ec && same;
  }
  if (a_exists != b_exists) return false;
  return Normal(a) == Normal(b);
}

std::vector<CliFile> SceneInputFiles(const Scene& scene, const std::string& option) {
  std::vector<CliFile> files{{option, scene.path}};
  std::set<std::string> meshes;
  for (const Geom& g : scene.model.geoms) {
    if (g.shape.hull && !g.shape.hull->source.empty()) meshes.insert(g.shape.hull->source);
  }
  for (const std::string& m : meshes) files.push_back({"mesh", m});
  return files;
}

void CheckOutputFiles(const std::vector<CliFile>& inputs, const std::vector<CliFile>& outputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const CliFile& out = outputs[i];
    if (out.path.empty()) continue;
    for (const CliFile& in : inputs) {
      if (!in.path.empty() && SameFile(out.path, in.path)) {
        throw SceneError(out.option + " " + out.path + ": is the same file as the " + in.option +
                         " " + in.path + " (an output never overwrites an input)");
      }
    }
    for (size_t k = 0; k < i; ++k) {
      if (!outputs[k].path.empty() && SameFile(out.path, outputs[k].path)) {
        throw SceneError(out.option + " " + out.path + ": is the same file as " +
                         outputs[k].option + " " + outputs[k].path +
                         " (two outputs never share a file)");
      }
    }
  }
}

std::vector<CliFile> FilesInDirectory(const std::string& dir, const std::string& option) {
  std::vector<CliFile> files;
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  for (const fs::directory_iterator end; !ec && it != end; it.increment(ec)) {
    std::error_code ef;
    if (it->is_regular_file(ef)) files.push_back({option, it->path().string()});
  }
  std::sort(files.begin(), files.end(),
            [](const CliFile& a, const CliFile& b) { return a.path < b.path; });
  return files;
}

}  // namespace contactlab
