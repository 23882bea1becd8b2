#include "ui/export_panel.h"

#include <imgui.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <system_error>

namespace contactlab {

namespace fs = std::filesystem;

namespace {

const ImVec4 kGoodText(0.45f, 0.90f, 0.45f, 1.0f);
const ImVec4 kBadText(1.00f, 0.40f, 0.35f, 1.0f);
const ImVec4 kDimText(0.62f, 0.64f, 0.68f, 1.0f);

std::string Join(const std::string& dir, const std::string& name) {
  if (dir.empty() || dir == ".") return name;
  if (dir.back() == '/') return dir + name;
  return dir + "/" + name;
}

std::string Counter(int n) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%04d", n);
  return buf;
}

}  // namespace

bool ExportNeedsStep(ExportKind kind) {
  return kind == ExportKind::kIterationsCsv || kind == ExportKind::kIterationsJson ||
         kind == ExportKind::kProblem;
}

std::string ExportPath(const std::string& dir, ExportKind kind, int step,
                       const std::string& scene_stem) {
  const std::string scene = scene_stem.empty() ? "scene" : scene_stem;
  if ((ExportNeedsStep(kind) || kind == ExportKind::kScreenshot) && step < 0) return "";
  switch (kind) {
    case ExportKind::kNone:
      return "";
    case ExportKind::kScreenshot:
      return Join(dir, scene + "_" + Counter(step) + ".png");
    case ExportKind::kStatsCsv:
      return Join(dir, scene + "_stats.csv");
    case ExportKind::kStatsJson:
      return Join(dir, scene + "_stats.json");
    case ExportKind::kIterationsCsv:
      return Join(dir, scene + "_step" + Counter(step) + "_iterations.csv");
    case ExportKind::kIterationsJson:
      return Join(dir, scene + "_step" + Counter(step) + "_iterations.json");
    case ExportKind::kProblem:
      return Join(dir, scene + "_step" + Counter(step) + "_problem");
  }
  return "";
}

std::string NextFreeScreenshotPath(const std::string& dir, const std::string& scene_stem) {
  const std::string prefix = (scene_stem.empty() ? "scene" : scene_stem) + "_";
  int largest = 0;
  std::error_code ec;
  const fs::path folder = dir.empty() ? fs::path(".") : fs::path(dir);
  fs::directory_iterator it(folder, ec);
  for (const fs::directory_iterator end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() <= prefix.size() + 4 || name.compare(0, prefix.size(), prefix) != 0 ||
        name.compare(name.size() - 4, 4, ".png") != 0) {
      continue;
    }
    const std::string digits = name.substr(prefix.size(), name.size() - prefix.size() - 4);
    if (digits.size() > 9) continue;
    bool all_digits = true;
    for (char c : digits) all_digits = all_digits && std::isdigit(static_cast<unsigned char>(c));
    if (all_digits) largest = std::max(largest, std::stoi(digits));
  }
  // Stat the candidate too, in case the listing missed a file.
  int n = largest + 1;
  while (fs::exists(ExportPath(dir, ExportKind::kScreenshot, n, scene_stem), ec)) ++n;
  return ExportPath(dir, ExportKind::kScreenshot, n, scene_stem);
}

bool CreateExportDir(const std::string& dir, std::string* error) {
  if (dir.empty() || dir == ".") return true;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir, ec)) {
    if (error) *error = "cannot create " + dir + (ec ? ": " + ec.message() : "");
    return false;
  }
  return true;
}

ExportRequest DrawExportPanel(ExportPanelState* state, int shown_step, bool has_step) {
  ExportRequest request;
  char buffer[1024];
  std::snprintf(buffer, sizeof(buffer), "%s", state->dir.c_str());
  ImGui::SetNextItemWidth(-70);
  if (ImGui::InputText("folder", buffer, sizeof(buffer))) state->dir = buffer;
  auto button = [&](const char* label, ExportKind kind) {
    const bool enabled = !ExportNeedsStep(kind) || (has_step && shown_step >= 0);
    if (!enabled) ImGui::BeginDisabled();
    if (ImGui::Button(label) && enabled) {
      request.kind = kind;
      request.path = kind == ExportKind::kScreenshot
                         ? NextFreeScreenshotPath(state->dir, state->scene_stem)
                         : ExportPath(state->dir, kind, shown_step, state->scene_stem);
    }
    if (!enabled) ImGui::EndDisabled();
  };
  button("Screenshot (PNG)", ExportKind::kScreenshot);
  button("Run statistics CSV", ExportKind::kStatsCsv);
  ImGui::SameLine();
  button("Run statistics JSON", ExportKind::kStatsJson);
  if (has_step && shown_step >= 0) {
    ImGui::TextColored(kDimText, "shown step %d", shown_step);
  } else {
    ImGui::TextColored(kDimText, "no step shown: step the simulation first");
  }
  button("Iterations of shown step CSV", ExportKind::kIterationsCsv);
  button("Iterations of shown step JSON", ExportKind::kIterationsJson);
  button("Contact problem of shown step", ExportKind::kProblem);
  if (!state->message.empty()) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextColored(state->message_is_error ? kBadText : kGoodText, "%s",
                       state->message.c_str());
    ImGui::PopTextWrapPos();
  }
  return request;
}

}  // namespace contactlab
