// Layer rules of the GUI code, checked on the sources: ui/ builds panels with ImGui and never
// touches OpenGL or the window system; render/ draws with OpenGL and knows nothing of ImGui or
// GLFW (the app wires them together).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

namespace {

// Calls `check(path, line_no, line)` for every line of every .h/.cc file under `dir`; returns the
// number of files read.
template <typename F>
int ForEachLine(const std::string& dir, F check) {
  const std::filesystem::path root = std::filesystem::path(CONTACTLAB_SOURCE_DIR) / dir;
  int files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    const std::string ext = entry.path().extension().string();
    if (ext != ".h" && ext != ".cc") continue;
    ++files;
    std::ifstream in(entry.path());
    std::string line;
    int line_no = 0;
    while (std::getline(in, line)) check(entry.path().string(), ++line_no, line);
  }
  return files;
}

const std::regex kInclude(R"(^\s*#\s*include\s*[<"]([^>"]+)[>"])");

TEST(GuiLayering, UiNeverCallsGl) {
  // OpenGL entry points are glSomething( ; ImGui's own names (ImGui::, ImDrawList) do not match.
  const std::regex gl_call(R"((^|[^A-Za-z0-9_:])gl[A-Z][A-Za-z0-9]*\s*\()");
  const int files = ForEachLine("ui", [&](const std::string& path, int n, const std::string& l) {
    std::smatch m;
    if (std::regex_search(l, m, kInclude)) {
      const std::string inc = m[1];
      for (const char* bad : {"epoxy", "GL/", "GLFW", "glad", "render/"}) {
        EXPECT_EQ(inc.find(bad), std::string::npos) << path << ":" << n << " includes " << inc;
      }
    }
    EXPECT_FALSE(std::regex_search(l, gl_call)) << path << ":" << n << " calls GL: " << l;
  });
  EXPECT_GE(files, 3) << "ui/ was found and read";
}

TEST(GuiLayering, RenderKnowsNoImGuiOrWindowSystem) {
  const int files =
      ForEachLine("render", [&](const std::string& path, int n, const std::string& l) {
        std::smatch m;
        if (!std::regex_search(l, m, kInclude)) return;
        const std::string inc = m[1];
        for (const char* bad : {"imgui", "GLFW", "ui/", "app/"}) {
          EXPECT_EQ(inc.find(bad), std::string::npos) << path << ":" << n << " includes " << inc;
        }
      });
  EXPECT_GE(files, 8) << "render/ was found and read";
}

}  // namespace
