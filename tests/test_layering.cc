// Who may include whom, checked on the sources (docs: /work/shared/DESIGN.md "Layers"):
// - engine/ never draws and never loads files through Assimp or YAML: Eigen, libccd, the standard
//   library and engine/ only;
// - engine/ folders include only their own and lower folders (the order is below), so
//   engine/contact/ (contact problems and models) never includes a solver;
// - app/reproduce/ runs the engine headless: engine/, app/ and non-GUI libraries, never ui/,
//   render/, the viewer or a window/GL header;
// - ui/ (ImGui panels of engine data) never includes app/;
// - the internal headers of app/reproduce/ and app/viewer/ stay inside their folder;
// - app/scene_reader.h and app/scene_builder.h are included only by the scene files, and only
//   the scene reader includes yaml-cpp;
// - video goes through the ffmpeg program (app/viewer/video_recorder.cc): no source includes
//   ffmpeg's libraries (libav*, libsw*).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <string>
#include <utility>
#include <vector>

namespace {

// Calls `check(path, line_no, included)` for every #include of every .h/.cc file under `dir` of
// the source tree; returns the number of files read (0 when the folder does not exist).
int ForEachInclude(const std::string& dir,
                   const std::function<void(const std::string&, int, const std::string&)>& check) {
  const std::filesystem::path root = std::filesystem::path(CONTACTLAB_SOURCE_DIR) / dir;
  if (!std::filesystem::is_directory(root)) return 0;
  const std::regex include_re(R"(^\s*#\s*include\s*[<"]([^>"]+)[>"])");
  int files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    const std::string ext = entry.path().extension().string();
    if (ext != ".h" && ext != ".cc") continue;
    ++files;
    std::ifstream in(entry.path());
    std::string line;
    int line_no = 0;
    while (std::getline(in, line)) {
      ++line_no;
      std::smatch m;
      if (std::regex_search(line, m, include_re)) check(entry.path().string(), line_no, m[1]);
    }
  }
  return files;
}

TEST(Layering, EngineIncludesOnlyEigenCcdAndStd) {
  const std::regex allowed_re(R"(^(Eigen/|ccd/|engine/|sys/[a-z_]+\.h$|[a-z_]+(\.h)?$))");
  const int files =
      ForEachInclude("engine", [&](const std::string& path, int n, const std::string& inc) {
        // Standard headers are lowercase names without a directory (<vector>, <cmath>).
        EXPECT_TRUE(std::regex_search(inc, allowed_re))
            << path << ":" << n << " includes <" << inc << ">";
        for (const char* bad : {"GL", "glfw", "GLFW", "imgui", "assimp", "epoxy", "yaml"}) {
          EXPECT_EQ(inc.find(bad), std::string::npos)
              << path << ":" << n << " includes <" << inc << ">";
        }
      });
  EXPECT_GT(files, 5);  // the directory was found and read
}

TEST(Layering, ContactNeverIncludesASolver) {
  const std::regex solver_re(R"(^engine/(sap_[a-z_]*\.h$|solvers/))");
  const int files =
      ForEachInclude("engine/contact", [&](const std::string& path, int n, const std::string& inc) {
        EXPECT_FALSE(std::regex_search(inc, solver_re))
            << path << ":" << n << " includes " << inc << " (a solver header)";
      });
  EXPECT_GE(files, 2);  // contact_model.{h,cc} at least
}

TEST(Layering, ReproduceIncludesEngineAndAppOnly) {
  const int files =
      ForEachInclude("app/reproduce", [&](const std::string& path, int n, const std::string& inc) {
        // Project headers: engine/ or app/ (not the viewer); any other header with a directory
        // is a library's (CLI/, nlohmann/, Eigen/), which must not be a GUI one.
        const bool project = inc.rfind("engine/", 0) == 0 || inc.rfind("app/", 0) == 0;
        if (inc.find('/') != std::string::npos && !project) {
          for (const char* bad : {"ui/", "render/", "imgui", "GL", "glfw", "GLFW", "epoxy"}) {
            EXPECT_EQ(inc.find(bad), std::string::npos) << path << ":" << n << " includes " << inc;
          }
        }
        EXPECT_NE(inc.rfind("app/viewer/", 0), 0u) << path << ":" << n << " includes " << inc;
      });
  EXPECT_GE(files, 6);  // reproduce, experiment, papers and the four paper files
}

TEST(Layering, NoSourceIncludesFfmpegLibraries) {
  int files = 0;
  for (const char* dir : {"engine", "app", "ui", "render", "bench", "tests"}) {
    files += ForEachInclude(dir, [&](const std::string& path, int n, const std::string& inc) {
      for (const char* lib : {"libavcodec/", "libavformat/", "libavutil/", "libswscale/",
                              "libswresample/", "libavfilter/", "libavdevice/"}) {
        EXPECT_NE(inc.rfind(lib, 0), 0u) << path << ":" << n << " includes " << inc;
      }
    });
  }
  EXPECT_GE(files, 10);
}

TEST(Layering, UiNeverIncludesApp) {
  const int files =
      ForEachInclude("ui", [&](const std::string& path, int n, const std::string& inc) {
        EXPECT_NE(inc.rfind("app/", 0), 0u) << path << ":" << n << " includes " << inc;
      });
  EXPECT_GE(files, 3);  // ui/ was found and read
}

// A folder's internal headers (those not named after the folder's public entry point) are
// included only by files in that folder.
TEST(Layering, InternalHeadersStayInTheirFolder) {
  struct Internal {
    const char* header;
    const char* folder;
  };
  const Internal internals[] = {{"app/reproduce/experiment.h", "app/reproduce/"},
                                {"app/reproduce/papers.h", "app/reproduce/"},
                                {"app/reproduce/solver_race.h", "app/reproduce/"},
                                {"app/viewer/viewer_internal.h", "app/viewer/"}};
  const std::string src = std::filesystem::path(CONTACTLAB_SOURCE_DIR).string() + "/";
  for (const char* dir : {"app", "ui", "render", "engine", "tests", "bench"}) {
    ForEachInclude(dir, [&](const std::string& path, int n, const std::string& inc) {
      for (const Internal& h : internals) {
        if (inc != h.header) continue;
        EXPECT_EQ(path.rfind(src + h.folder, 0), 0u) << path << ":" << n << " includes " << inc;
      }
    });
  }
}

// The scene reader and builder (app/scene_reader.h, app/scene_builder.h) are the two halves of
// app/scene.h: callers include app/scene.h, and only the scene files include the halves.
TEST(Layering, SceneReaderAndBuilderStayBehindSceneH) {
  const std::string src = std::filesystem::path(CONTACTLAB_SOURCE_DIR).string() + "/";
  int seen = 0;
  for (const char* dir : {"app", "ui", "render", "engine", "tests", "bench"}) {
    ForEachInclude(dir, [&](const std::string& path, int n, const std::string& inc) {
      if (inc != "app/scene_reader.h" && inc != "app/scene_builder.h") return;
      ++seen;
      EXPECT_EQ(path.rfind(src + "app/scene", 0), 0u) << path << ":" << n << " includes " << inc;
    });
  }
  EXPECT_GE(seen, 3);  // scene.cc includes both, the reader and builder their own
}

// Only the scene reader parses YAML: in app/, ui/ and render/, yaml-cpp is included directly by
// app/scene_reader.* and app/scene_text.* (the text checks) alone; the builder reaches the
// document through app/scene_reader.h (Field, Reader and its typed accessors).
TEST(Layering, OnlyTheSceneReaderIncludesYaml) {
  const std::string src = std::filesystem::path(CONTACTLAB_SOURCE_DIR).string() + "/";
  int seen = 0;
  for (const char* dir : {"app", "ui", "render"}) {
    ForEachInclude(dir, [&](const std::string& path, int n, const std::string& inc) {
      if (inc.rfind("yaml-cpp/", 0) != 0) return;
      ++seen;
      const bool reader = path.rfind(src + "app/scene_reader.", 0) == 0 ||
                          path.rfind(src + "app/scene_text.", 0) == 0;
      EXPECT_TRUE(reader) << path << ":" << n << " includes " << inc;
    });
  }
  EXPECT_GE(seen, 1);  // the reader was found
}

}  // namespace

namespace {

// engine/ is split into folders by concern, each of which may include only its own folder and
// the folders below it:
//   common < multibody < geometry < contact < solvers/common < solvers/<name> < sim < inspect
// (common: math and parameter specs; multibody: the model and its kinematics; geometry: narrow
// phase; contact: the contact problem and the contact models' laws; solvers/common: what every
// solver shares; solvers/<name>: one solver, never another (one exception: CANAL's surrogate
// problems are SAP's convex problem with R + I/β and a shifted v̂, seed 001 §2.8, so
// solvers/canal drives solvers/sap's Newton rather than keeping a second copy of it); sim: the
// step pipeline and the
// tables of all parameters; inspect: history, metrics and drawing of recorded steps.)
int EngineFolderRank(const std::string& rel, std::string* solver) {
  static const std::vector<std::pair<std::string, int>> kRanks = {
      {"common/", 0}, {"multibody/", 1}, {"geometry/", 2}, {"contact/", 3},
      {"solvers/common/", 4}, {"solvers/", 5}, {"sim/", 6}, {"inspect/", 7}};
  for (const auto& [prefix, rank] : kRanks) {
    if (rel.rfind(prefix, 0) != 0) continue;
    if (rank == 5) *solver = rel.substr(0, rel.find('/', prefix.size()));
    return rank;
  }
  return -1;
}

TEST(Layering, EngineFoldersIncludeOnlyTheirOwnAndLowerFolders) {
  const std::filesystem::path root = std::filesystem::path(CONTACTLAB_SOURCE_DIR) / "engine";
  const std::regex include_re(R"(^\s*#\s*include\s*[<"]engine/([^>"]+)[>"])");
  int files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    const std::string ext = entry.path().extension().string();
    if (ext != ".h" && ext != ".cc") continue;
    ++files;
    const std::string rel = std::filesystem::relative(entry.path(), root).generic_string();
    std::string own_solver;
    const int own = EngineFolderRank(rel, &own_solver);
    EXPECT_GE(own, 0) << "engine/" << rel << " is in no folder of the layering";
    std::ifstream in(entry.path());
    std::string line;
    int line_no = 0;
    while (std::getline(in, line)) {
      ++line_no;
      std::smatch m;
      if (!std::regex_search(line, m, include_re)) continue;
      std::string inc_solver;
      const int inc = EngineFolderRank(m[1].str(), &inc_solver);
      EXPECT_GE(inc, 0) << "engine/" << rel << ":" << line_no << " includes engine/" << m[1];
      EXPECT_LE(inc, own) << "engine/" << rel << ":" << line_no << " includes engine/" << m[1]
                          << " from a higher folder";
      if (own == 5 && inc == 5 &&
          !(own_solver == "solvers/canal" && inc_solver == "solvers/sap")) {
        EXPECT_EQ(inc_solver, own_solver)
            << "engine/" << rel << ":" << line_no << " includes another solver: " << m[1];
      }
    }
  }
  EXPECT_GT(files, 40);  // the whole engine was read
}

}  // namespace
