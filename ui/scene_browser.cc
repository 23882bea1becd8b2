#include "ui/scene_browser.h"

#include <imgui.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <system_error>
#include <utility>

namespace contactlab {

namespace fs = std::filesystem;

namespace {

const ImVec4 kBadText(1.00f, 0.40f, 0.35f, 1.0f);
const ImVec4 kCurrentText(0.45f, 0.90f, 0.45f, 1.0f);

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string Trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

bool IsSceneExtension(const fs::path& p) {
  const std::string ext = Lower(p.extension().string());
  return ext == ".yaml" || ext == ".yml";
}

bool IsHidden(const fs::path& p) {
  const std::string name = p.filename().string();
  return !name.empty() && name[0] == '.';
}

// Absolute, lexically normal; relative paths are taken relative to `base`.
fs::path Normalized(const fs::path& p, const fs::path& base) {
  if (p.is_absolute()) return p.lexically_normal();
  return (base / p).lexically_normal();
}

fs::path CurrentDir() {
  std::error_code ec;
  fs::path cwd = fs::current_path(ec);
  return ec ? fs::path("/") : cwd;
}

// Double-quoted YAML scalar starting after the opening quote.
std::string UnquoteDouble(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '"') break;
    if (c == '\\' && i + 1 < s.size()) {
      const char n = s[++i];
      switch (n) {
        case 'n':
          out += ' ';
          break;
        case 't':
          out += ' ';
          break;
        default:
          out += n;
          break;
      }
      continue;
    }
    out += c;
  }
  return out;
}

// Single-quoted YAML scalar starting after the opening quote ('' is a quote).
std::string UnquoteSingle(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\'') {
      if (i + 1 < s.size() && s[i + 1] == '\'') {
        out += '\'';
        ++i;
        continue;
      }
      break;
    }
    out += s[i];
  }
  return out;
}

// Position of a " #" comment in a plain scalar, or npos.
std::size_t CommentStart(const std::string& s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '#' && (i == 0 || s[i - 1] == ' ' || s[i - 1] == '\t')) return i;
  }
  return std::string::npos;
}

// Sort key: a folder's own files before its subfolders.
bool EntryLess(const SceneEntry& a, const SceneEntry& b) {
  if (a.folder != b.folder) {
    // Compare folders component by component so "a" < "a/b" < "a-b".
    const fs::path fa(a.folder), fb(b.folder);
    return std::lexicographical_compare(
        fa.begin(), fa.end(), fb.begin(), fb.end(),
        [](const fs::path& x, const fs::path& y) { return x.string() < y.string(); });
  }
  return a.relative_path < b.relative_path;
}

}  // namespace

std::string ReadSceneDescription(const fs::path& file) {
  try {
    std::ifstream in(file);
    if (!in) return "";
    std::string line;
    const int kMaxLines = 400;
    for (int n = 0; n < kMaxLines && std::getline(in, line); ++n) {
      if (n == 0 && line.compare(0, 3, "\xEF\xBB\xBF") == 0) line.erase(0, 3);  // UTF-8 BOM
      if (line.compare(0, 11, "description") != 0) continue;
      std::size_t i = 11;
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
      if (i >= line.size() || line[i] != ':') continue;
      const std::string value = Trim(line.substr(i + 1));
      if (value.empty()) return "";
      if (value[0] == '"') return UnquoteDouble(value.substr(1));
      if (value[0] == '\'') return UnquoteSingle(value.substr(1));
      if (value[0] == '|' || value[0] == '>') {
        // Block scalar: the following indented lines, joined with spaces.
        std::string out;
        while (std::getline(in, line) && ++n < kMaxLines) {
          if (Trim(line).empty()) continue;
          if (line[0] != ' ' && line[0] != '\t') break;
          if (!out.empty()) out += ' ';
          out += Trim(line);
        }
        return out;
      }
      return Trim(value.substr(0, CommentStart(value)));
    }
  } catch (...) {
  }
  return "";
}

std::vector<SceneEntry> ListSceneFiles(const fs::path& root) {
  std::vector<SceneEntry> entries;
  std::error_code ec;
  const fs::path abs_root = Normalized(root, CurrentDir());
  if (!fs::is_directory(abs_root, ec)) return entries;
  try {
    fs::recursive_directory_iterator it(abs_root, fs::directory_options::skip_permission_denied,
                                        ec);
    const fs::recursive_directory_iterator end;
    for (; !ec && it != end; it.increment(ec)) {
      const fs::directory_entry& e = *it;
      if (IsHidden(e.path())) {
        if (e.is_directory(ec)) it.disable_recursion_pending();
        continue;
      }
      if (!IsSceneExtension(e.path()) || !e.is_regular_file(ec)) continue;
      SceneEntry entry;
      const fs::path rel = e.path().lexically_relative(abs_root);
      entry.relative_path = rel.generic_string();
      entry.folder = rel.parent_path().generic_string();
      entry.absolute_path = e.path().lexically_normal();
      entry.description = ReadSceneDescription(e.path());
      entries.push_back(std::move(entry));
    }
  } catch (...) {
    // A directory that vanished while iterating: keep what was found.
  }
  std::sort(entries.begin(), entries.end(), EntryLess);
  return entries;
}

fs::path FindScenesRoot(const fs::path& opened_scene, const fs::path& cwd) {
  std::error_code ec;
  const fs::path base = Normalized(cwd, CurrentDir());
  fs::path scene_dir = base;
  if (!opened_scene.empty()) {
    scene_dir = Normalized(opened_scene, base).parent_path();
    for (fs::path dir = scene_dir; !dir.empty(); dir = dir.parent_path()) {
      if (dir.filename() == "scenes") return dir;
      if (dir == dir.parent_path()) break;  // the root
    }
  }
  const fs::path candidate = base / "scenes";
  if (fs::is_directory(candidate, ec)) return candidate;
  return scene_dir;
}

fs::path DefaultScenePath(const fs::path& cwd, const std::string& preferred) {
  std::error_code ec;
  const fs::path base = Normalized(cwd, CurrentDir());
  for (fs::path dir = base; !dir.empty(); dir = dir.parent_path()) {
    const fs::path root = dir / "scenes";
    if (fs::is_directory(root, ec)) {
      const fs::path file = root / preferred;
      if (!preferred.empty() && fs::is_regular_file(file, ec)) return file;
      const std::vector<SceneEntry> entries = ListSceneFiles(root);
      if (!entries.empty()) return entries.front().absolute_path;
      return {};
    }
    if (dir == dir.parent_path()) break;  // the root
  }
  return {};
}

std::vector<int> FilterSceneEntries(const std::vector<SceneEntry>& entries,
                                    const std::string& filter) {
  std::vector<std::string> words;
  std::istringstream in(Lower(filter));
  for (std::string w; in >> w;) words.push_back(w);
  std::vector<int> out;
  for (int i = 0; i < static_cast<int>(entries.size()); ++i) {
    const std::string hay = Lower(entries[i].relative_path) + "\n" + Lower(entries[i].description);
    bool all = true;
    for (const std::string& w : words) all = all && hay.find(w) != std::string::npos;
    if (all) out.push_back(i);
  }
  return out;
}

bool SameScenePath(const fs::path& a, const fs::path& b) {
  if (a.empty() || b.empty()) return false;
  const fs::path cwd = CurrentDir();
  return Normalized(a, cwd) == Normalized(b, cwd);
}

// ---- FileWatcher ----

FileWatcher::FileWatcher(double settle_seconds, Clock clock)
    : settle_seconds_(settle_seconds), clock_(std::move(clock)) {
  if (!clock_) {
    clock_ = [] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
          .count();
    };
  }
}

void FileWatcher::SetFiles(std::vector<fs::path> files) {
  files_ = std::move(files);
  reference_ = Poll();
  last_.clear();
  pending_ = false;
}

std::vector<FileWatcher::FileState> FileWatcher::Poll() const {
  std::vector<FileState> states(files_.size());
  for (std::size_t i = 0; i < files_.size(); ++i) {
    std::error_code ec;
    FileState& s = states[i];
    if (!fs::is_regular_file(files_[i], ec)) continue;
    s.time = fs::last_write_time(files_[i], ec);
    if (ec) continue;
    s.size = fs::file_size(files_[i], ec);
    if (ec) continue;
    s.exists = true;
  }
  return states;
}

bool FileWatcher::Changed() {
  if (files_.empty()) return false;
  const std::vector<FileState> now_state = Poll();
  // A file that disappears is no change by itself, but its reappearance will be.
  for (std::size_t i = 0; i < now_state.size(); ++i) {
    if (!now_state[i].exists) reference_[i] = now_state[i];
  }
  if (now_state == reference_) {
    pending_ = false;
    return false;
  }
  const double now = clock_();
  if (!pending_ || now_state != last_) {
    pending_ = true;
    last_ = now_state;
    pending_since_ = now;
  }
  if (now - pending_since_ >= settle_seconds_) {
    reference_ = now_state;
    pending_ = false;
    return true;
  }
  return false;
}

// ---- Panel ----

ScenePanelAction DrawScenePanel(const std::vector<SceneEntry>& entries,
                                const std::string& current_path, ScenePanelState* state) {
  ScenePanelAction action;
  char buffer[256];
  std::snprintf(buffer, sizeof(buffer), "%s", state->filter.c_str());
  ImGui::SetNextItemWidth(-1);
  if (ImGui::InputTextWithHint("##scene_filter", "filter (words in path or description)", buffer,
                               sizeof(buffer))) {
    state->filter = buffer;
  }
  const std::vector<int> shown = FilterSceneEntries(entries, state->filter);
  const float list_height = 12.0f * ImGui::GetTextLineHeightWithSpacing();
  if (ImGui::BeginChild("##scene_list", ImVec2(0, list_height), true)) {
    std::string folder = "\x01";  // no folder yet
    for (int i : shown) {
      const SceneEntry& e = entries[i];
      if (e.folder != folder) {
        folder = e.folder;
        ImGui::TextDisabled("%s/", folder.empty() ? "." : folder.c_str());
      }
      const std::string abs = e.absolute_path.string();
      const bool current = SameScenePath(e.absolute_path, current_path);
      const bool selected = state->selected == abs;
      const std::string name = e.absolute_path.filename().string();
      const std::string label = std::string(current ? "> " : "  ") + name + "##" + abs;
      if (current) ImGui::PushStyleColor(ImGuiCol_Text, kCurrentText);
      ImGui::Indent(8.0f);
      if (ImGui::Selectable(label.c_str(), selected, ImGuiSelectableFlags_AllowDoubleClick)) {
        state->selected = abs;
        if (ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) {
          action.kind = SceneAction::kOpen;
          action.path = abs;
        }
      }
      ImGui::Unindent(8.0f);
      if (current) ImGui::PopStyleColor();
      if (ImGui::IsItemHovered()) {
        ImGui::BeginTooltip();
        ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30.0f);
        ImGui::TextUnformatted(e.description.empty() ? "(no description)" : e.description.c_str());
        ImGui::TextDisabled("%s", e.relative_path.c_str());
        ImGui::PopTextWrapPos();
        ImGui::EndTooltip();
      }
    }
    if (shown.empty()) {
      ImGui::TextDisabled(entries.empty() ? "no scene files found" : "no scene matches");
    }
  }
  ImGui::EndChild();

  const bool can_open = !state->selected.empty();
  if (!can_open) ImGui::BeginDisabled();
  if (ImGui::Button("Open") && can_open) {
    action.kind = SceneAction::kOpen;
    action.path = state->selected;
  }
  if (!can_open) ImGui::EndDisabled();
  ImGui::SameLine();
  const bool can_reload = !current_path.empty();
  if (!can_reload) ImGui::BeginDisabled();
  if (ImGui::Button("Reload (Ctrl+R)") && can_reload) action.kind = SceneAction::kReload;
  if (!can_reload) ImGui::EndDisabled();
  ImGui::Checkbox("reload when the file changes", &state->auto_reload);
  if (!state->error.empty()) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextColored(kBadText, "%s", state->error.c_str());
    ImGui::PopTextWrapPos();
  }
  return action;
}

}  // namespace contactlab
