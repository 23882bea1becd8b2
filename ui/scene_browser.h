// Scene browser: the scene files under a folder, a file watcher for reload-on-change, and the
// panel that lists them. Everything but DrawScenePanel is free of ImGui and unit-tested.
//
// The scene format has no include mechanism (no templates or partial files under scenes/), so
// every *.yaml / *.yml file is a complete scene and all of them are listed; only hidden files
// and folders (names starting with '.') are skipped.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace contactlab {

// One scene file found under the scenes root.
struct SceneEntry {
  std::string relative_path;            // from the root, '/' separated, e.g. "paper/pouring.yaml"
  std::string folder;                   // relative folder, e.g. "paper" ("" at the root)
  std::filesystem::path absolute_path;  // absolute and lexically normal
  std::string description;              // the file's top-level `description:`, "" if none
};

// Every *.yaml / *.yml file (extension case-insensitive) under `root`, recursively, skipping
// hidden files and folders. Ordered folder by folder: a folder's own files (by name) come
// before its subfolders, so root files come first and "bench/", "paper/" each form one
// contiguous group. Never throws: unreadable folders or files are skipped or listed without a
// description; a missing root gives an empty list.
// Reads the head of every file: call it when the list is shown or refreshed, not every frame.
std::vector<SceneEntry> ListSceneFiles(const std::filesystem::path& root);

// The value of the top-level `description:` key of a scene file, found by a line scan of the
// first 400 lines (no YAML parse): double- or single-quoted strings are unquoted, a plain value
// loses a trailing " # comment", a block scalar (| or >) has its lines joined with spaces.
// "" when there is none or the file cannot be read; never throws.
std::string ReadSceneDescription(const std::filesystem::path& file);

// Folder to browse for an opened scene: the nearest ancestor directory named "scenes" of
// `opened_scene` (a relative scene path is taken relative to `cwd`), else cwd/scenes if that is
// a directory, else the scene's own directory (cwd when `opened_scene` is empty).
std::filesystem::path FindScenesRoot(const std::filesystem::path& opened_scene,
                                     const std::filesystem::path& cwd);

// The scene `contactlab view` opens without one: under the scenes folder of `cwd` or of its
// nearest ancestor that has one (cwd/scenes, cwd/../scenes, ...), the file named `preferred`
// (default clutter_40_walls.yaml, the README's default scene) if it exists, else the first scene
// ListSceneFiles lists there. Empty when there is no scenes folder or it holds no scene.
std::filesystem::path DefaultScenePath(const std::filesystem::path& cwd,
                                       const std::string& preferred = "clutter_40_walls.yaml");

// Indices of the entries that match `filter`: every whitespace-separated word of the filter
// must occur, case-insensitively, in the relative path or the description. An empty filter
// keeps every entry. In entry order.
std::vector<int> FilterSceneEntries(const std::vector<SceneEntry>& entries,
                                    const std::string& filter);

// Whether two paths name the same file, compared as absolute, lexically normal paths (no file
// system access beyond the current directory).
bool SameScenePath(const std::filesystem::path& a, const std::filesystem::path& b);

// Polls a set of files (the scene and the files it references, e.g. meshes) for changes of their
// last-write time or size. A change is reported once, and only after every watched file has
// kept the same state for `settle_seconds` (so a file that is still being written is not
// loaded). A file that disappears is not a change by itself (editors often replace a file by
// deleting and rewriting it); when it reappears that is a change, even with the same time and
// size. Poll Changed() once per frame; each poll stats every file.
class FileWatcher {
 public:
  // Seconds on a monotonic clock; the default reads std::chrono::steady_clock.
  using Clock = std::function<double()>;

  explicit FileWatcher(double settle_seconds = 0.2, Clock clock = {});

  // Watches `files` from now on: their current state is the reference, so nothing is reported
  // until one of them changes. Call again after a reload (the list of referenced files may
  // have changed).
  void SetFiles(std::vector<std::filesystem::path> files);
  const std::vector<std::filesystem::path>& files() const { return files_; }

  // True once per change, after the files have settled (see the class comment).
  bool Changed();

  // Whether a change has been seen but has not settled yet.
  bool pending() const { return pending_; }

 private:
  struct FileState {
    bool exists = false;
    std::filesystem::file_time_type time{};
    std::uintmax_t size = 0;
    bool operator==(const FileState& o) const {
      return exists == o.exists && (!exists || (time == o.time && size == o.size));
    }
    bool operator!=(const FileState& o) const { return !(*this == o); }
  };
  std::vector<FileState> Poll() const;

  double settle_seconds_;
  Clock clock_;
  std::vector<std::filesystem::path> files_;
  std::vector<FileState> reference_;  // state last reported (or set)
  std::vector<FileState> last_;       // state of the pending change
  bool pending_ = false;
  double pending_since_ = 0;  // clock time at which last_ was first seen
};

// Scene panel state, edited by the panel; `error` is set by the caller.
struct ScenePanelState {
  std::string filter;
  std::string selected;     // absolute path of the highlighted row ("" for none)
  bool auto_reload = true;  // reload when the scene or a file it references changes
  std::string error;        // last load error ("FILE:LINE: FIELD: ..."), shown in red
};

enum class SceneAction { kNone, kOpen, kReload };

// What the user asked for in the scene panel.
struct ScenePanelAction {
  SceneAction kind = SceneAction::kNone;
  std::string path;  // the scene to open (absolute) for kOpen
};

// Filter box, the list of scenes grouped by folder (the current scene highlighted, the
// description on hover; double-click opens), "Open" (the selected row), "Reload (Ctrl+R)"
// (the current scene; the key itself is the caller's), the auto-reload checkbox and the last
// load error. Draws into the current window; the caller owns Begin/End.
ScenePanelAction DrawScenePanel(const std::vector<SceneEntry>& entries,
                                const std::string& current_path, ScenePanelState* state);

}  // namespace contactlab
