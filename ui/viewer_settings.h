// Viewer settings that persist between sessions: overlay toggles and scales, playback rate, which
// optional panels are open, the panel layout, auto reload and the export folder. Stored as a
// readable text file of `key = value` lines (see SerializeViewerSettings). Free of ImGui calls.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "ui/panels.h"
#include "ui/pressure_panels.h"

namespace contactlab {

struct ViewerSettings {
  // Contact overlay (ContactDrawOptions, OverlaySettings).
  bool points = true;
  bool normals = false;
  bool normal_impulses = true;
  bool friction_impulses = true;
  bool cones = true;
  bool inactive = false;  // candidates without impulse (hidden by default)
  bool gap_loads = true;  // ring + gap segment at contacts loaded at φ > 0
  bool labels = false;
  double point_size = 9;        // [px], in [1, 64]
  bool adaptive_size = true;    // glyphs sized per contact, level of detail by zoom
  std::string focus = "off";    // glyphs of: "off" (every body), "body" or "island" (selected)
  bool legend = true;           // the glyph legend and scale bar in the 3D view's corner
  double impulse_scale = 10.0;  // [m / (N s)], > 0
  bool auto_scale = true;       // refit the impulse scale to the scene
  // Glyph lengths as multiples of the scene's typical body size (TypicalGeometrySize), so they
  // suit any scene: cone_height = cone_height_per_body * size, likewise normal_length.
  double cone_height_per_body = 0.35;   // > 0
  double normal_length_per_body = 0.6;  // > 0
  bool transparent_bodies = false;
  float body_alpha = 0.35f;  // in [0.01, 1]
  bool show_grid = true;
  bool glyphs_on_top = true;
  // Pressure-field contact (PressureOverlay).
  bool pressure_show = true;
  bool pressure_outlines = false;
  bool pressure_force_arrows = true;
  bool pressure_centre_of_pressure = true;
  bool pressure_moment_arrows = true;
  bool pressure_face_glyphs = false;
  bool pressure_hover = true;
  bool pressure_tets = false;
  bool pressure_tets_all = false;
  // Playback.
  float playback_rate = 1.0f;  // simulated seconds per wall second, in [1e-4, 100]
  // Optional panels that are open.
  bool show_conditioning = false;
  bool show_time_series = false;
  bool show_profiler = false;
  bool show_scene_browser = false;
  bool show_exports = false;
  bool show_help = false;
  // Layout [logical px].
  float left_panel_width = 410.0f;     // in [150, 4000]
  float bottom_panel_height = 230.0f;  // in [50, 4000]
  float right_panel_width = 440.0f;    // analysis column (convergence, time series, ...), [150, 4000]
  bool show_analysis = true;           // the analysis column is shown
  // Scene and exports.
  bool auto_reload = true;                        // reload the scene when its files change
  std::string export_dir = "contactlab_exports";  // relative to the working directory

  bool operator==(const ViewerSettings& o) const;
  bool operator!=(const ViewerSettings& o) const { return !(*this == o); }
};

// Text form, one `key = value` per line under group comments, every field written:
//   overlay.points = true
//   overlay.point_size = 9
//   export.dir = "contactlab_exports"
// Booleans are true/false, numbers %.17g (doubles) or %.9g (floats), strings double-quoted with
// \" \\ \n \t escapes. Parsing this text gives back exactly the same settings.
std::string SerializeViewerSettings(const ViewerSettings& settings);

// Reads the text form, starting from the defaults. Blank lines and lines whose first non-blank
// character is '#' are ignored. Booleans accept true/false/1/0/yes/no/on/off, strings may be
// quoted or bare (trimmed). A line without '=', an unknown key, an unparsable value or a value out
// of its range leaves the field as it was and appends a warning to *warnings (may be null) of the
// form "line 7: overlay.point_size: 500 is out of [1, 64]; keeping 9". Never throws.
ViewerSettings ParseViewerSettings(const std::string& text, std::vector<std::string>* warnings);

// Folder of the settings file: $CONTACTLAB_CONFIG_DIR if set and non-empty, else
// $XDG_CONFIG_HOME/contactlab, else $HOME/.config/contactlab; an empty path when none of them
// is set (then there is nowhere to save).
std::filesystem::path DefaultSettingsDir();

// DefaultSettingsDir() / "viewer_settings.conf" (empty when the folder is empty).
std::filesystem::path DefaultSettingsFile();

// Writes the settings to `path`, creating its folder: the text goes to a temporary file in the
// same folder, which is then renamed over `path`, so a crash never leaves a half-written file.
// Returns false with a message in *error (may be null) when it cannot; no temporary is left.
bool SaveViewerSettingsFile(const std::filesystem::path& path, const ViewerSettings& settings,
                            std::string* error);

// Reads `path`: a missing file gives the defaults without a warning; an unreadable file gives the
// defaults and a warning; otherwise ParseViewerSettings with its warnings prefixed by the path
// ("PATH: line 7: ...").
ViewerSettings LoadViewerSettingsFile(const std::filesystem::path& path,
                                      std::vector<std::string>* warnings);

// Applies the overlay and playback settings (playback may be null). `typical_size` is the
// scene's typical body size [m] (TypicalGeometrySize) that scales the cone height and normal
// length. The per-frame request flag overlay->fit_requested is left alone.
void ApplyViewerSettings(const ViewerSettings& settings, double typical_size,
                         OverlaySettings* overlay, PlaybackState* playback);

// Copies the overlay and playback state (playback may be null) into *settings, leaving its other
// fields (panels, layout, exports) unchanged. A per-body length is recomputed only when the
// overlay's length differs from settings' factor times typical_size (kept when typical_size <= 0),
// so Collect after Apply with the same typical_size gives exactly the settings back.
void CollectViewerSettings(const OverlaySettings& overlay, const PlaybackState* playback,
                           double typical_size, ViewerSettings* settings);

// The pressure toggles, both ways (the legend's range and the colour map are not persisted: a
// held range belongs to a run).
void ApplyPressureSettings(const ViewerSettings& settings, PressureOverlay* pressure);
void CollectPressureSettings(const PressureOverlay& pressure, ViewerSettings* settings);

}  // namespace contactlab
