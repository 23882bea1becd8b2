// The engine never draws and never loads files through Assimp: its sources include Eigen, libccd
// and the standard library only. This test reads every file under engine/.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

namespace {

TEST(Layering, EngineIncludesOnlyEigenCcdAndStd) {
  const std::filesystem::path root = std::filesystem::path(CONTACTLAB_SOURCE_DIR) / "engine";
  const std::regex include_re(R"(^\s*#\s*include\s*[<"]([^>"]+)[>"])");
  const std::regex allowed_re(R"(^(Eigen/|ccd/|engine/|sys/[a-z_]+\.h$|[a-z_]+(\.h)?$))");
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
      if (!std::regex_search(line, m, include_re)) continue;
      const std::string inc = m[1];
      // Standard headers are lowercase names without a directory (<vector>, <cmath>, <cstdint>).
      EXPECT_TRUE(std::regex_search(inc, allowed_re))
          << entry.path() << ":" << line_no << " includes <" << inc << ">";
      for (const char* bad : {"GL", "glfw", "GLFW", "imgui", "assimp", "epoxy", "yaml"}) {
        EXPECT_EQ(inc.find(bad), std::string::npos)
            << entry.path() << ":" << line_no << " includes <" << inc << ">";
      }
    }
  }
  EXPECT_GT(files, 5);  // the directory was found and read
}

}  // namespace

namespace {

// engine/common/ (math, small kernels, parameter tables' ParamSpec) is the bottom of the engine:
// it includes nothing of the engine outside engine/common/.
TEST(Layering, EngineCommonIncludesOnlyCommon) {
  const std::filesystem::path root =
      std::filesystem::path(CONTACTLAB_SOURCE_DIR) / "engine" / "common";
  const std::regex include_re(R"(^\s*#\s*include\s*[<"](engine/[^>"]+)[>"])");
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
      if (!std::regex_search(line, m, include_re)) continue;
      EXPECT_EQ(m[1].str().rfind("engine/common/", 0), 0u)
          << entry.path() << ":" << line_no << " includes " << m[1];
    }
  }
  EXPECT_GT(files, 0);
}

}  // namespace
