// The viewer's panels: the layout of the window (left column, analysis column, contact
// inspector, help window) and the widgets the viewer owns there (solver, parameters, selected
// body), with the jobs they start (conditioning analysis, exports). The panels' drawing
// functions themselves are in ui/. See viewer_internal.h.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/output_files.h"
#include "app/viewer/viewer_internal.h"
#include "ui/joint_rows.h"
#include "ui/layout_data.h"

namespace contactlab {
namespace viewer_internal {

namespace {

constexpr float kMinViewportSize = 160.0f;            // [logical px] kept for the 3D view

}  // namespace

void Viewer::BuildUi() {
  ImGuiIO& io = ImGui::GetIO();
  const float W = io.DisplaySize.x, H = io.DisplaySize.y;
  // Column sizes follow the user's resizing (persisted), but always leave a 3D view.
  const float max_side = std::max(150.0f, 0.5f * (W - kMinViewportSize));
  const float L = std::clamp(vsettings_.left_panel_width, 150.0f, max_side);
  const float R = vsettings_.show_analysis
                      ? std::clamp(vsettings_.right_panel_width, 150.0f, max_side)
                      : 0.0f;
  const float B = std::clamp(vsettings_.bottom_panel_height, 50.0f,
                             std::max(50.0f, H - kMinViewportSize));

  // Left column: scene, playback, timeline, overlay, solver, parameters, exports.
  ImGui::SetNextWindowPos(ImVec2(0, 0), ImGuiCond_Always);
  ImGui::SetNextWindowSize(ImVec2(L, H), ImGuiCond_Always);
  ImGui::SetNextWindowSizeConstraints(ImVec2(150.0f, H), ImVec2(max_side, H));
  // The docked panels leave their background to the frame's clear (kPanelClearColor, the colour
  // their translucent background made over it): on a software rasterizer a million pixels of
  // blended fill less per frame. Floating windows keep their background.
  ImGui::SetNextWindowBgAlpha(0.0f);
  ImGui::Begin("ContactLab", nullptr,
               ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoCollapse |
                   ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoSavedSettings);
  const float new_l = ImGui::GetWindowWidth();
  layout_.clear();
  auto note_window = [&](const char* name) {
    const ImVec2 p = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
    layout_.push_back({"window", name, p.x, p.y, size.x, size.y});
  };
  note_window("ContactLab");
  if (scroll_to_section_frames_ > 0) --scroll_to_section_frames_;
  ImGui::TextColored(ImVec4(0.55f, 0.78f, 1.0f, 1.0f), "ContactLab");
  ImGui::SameLine();
  ImGui::TextDisabled("%s", std::filesystem::path(options_.scene_path).filename().c_str());
  if (!scene_.description.empty()) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("%s", scene_.description.c_str());
    ImGui::PopTextWrapPos();
  }
  if (!scene_error_.empty()) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextColored(ImVec4(1.0f, 0.4f, 0.35f, 1.0f), "scene not loaded: %s",
                       scene_error_.c_str());
    ImGui::PopTextWrapPos();
  }
  ImGui::Separator();

  ImGui::SetNextItemOpen(vsettings_.show_scene_browser, ImGuiCond_Once);
  vsettings_.show_scene_browser = ImGui::CollapsingHeader("Scenes");
  NoteSection("Scenes");
  if (vsettings_.show_scene_browser) {
    if (!scene_list_scanned_) RefreshSceneList();
    scene_panel_.error = scene_error_;
    const ScenePanelAction action =
        DrawScenePanel(scene_entries_, options_.scene_path, &scene_panel_);
    if (action.kind == SceneAction::kOpen) pending_open_ = action.path;
    if (action.kind == SceneAction::kReload) reload_requested_ = true;
    if (ImGui::SmallButton("Rescan scenes folder")) RefreshSceneList();
  }

  ImGui::SetNextItemOpen(vsettings_.show_exports, ImGuiCond_Once);
  vsettings_.show_exports = ImGui::CollapsingHeader("Export");
  NoteSection("Export");
  if (vsettings_.show_exports) {
    const StepRecord* shown = DisplayedRecord();
    const ExportRequest request =
        DrawExportPanel(&export_panel_, shown ? shown->step : -1, shown != nullptr);
    if (request.kind != ExportKind::kNone) HandleExport(request);
  }

  playback_.sim_time = live_state_.time;
  playback_.step = history_.empty() ? live_step_count_ : history_.newest_step() + 1;
  playback_.time_step = edit_settings_.time_step;
  playback_.real_time_factor = rate_meter_.value();
  playback_.frame_ms = 1e3 * io.DeltaTime;
  const bool playback_open = ImGui::CollapsingHeader("Playback", ImGuiTreeNodeFlags_DefaultOpen);
  NoteSection("Playback");
  if (playback_open) {
    DrawPlaybackPanel(&playback_);
    // Video: the Record button (or the key V) starts and stops a recording; while it runs the
    // button is red and names the file and the frames written.
    const bool recording = video_.active();
    if (recording) {
      ImGui::PushStyleColor(ImGuiCol_Button, ImVec4(0.70f, 0.12f, 0.10f, 1.0f));
      ImGui::PushStyleColor(ImGuiCol_ButtonHovered, ImVec4(0.85f, 0.20f, 0.16f, 1.0f));
    }
    if (ImGui::Button(recording ? "Stop recording (V)" : "Record video (V)")) {
      video_toggle_requested_ = true;
    }
    if (recording) {
      ImGui::PopStyleColor(2);
      ImGui::SameLine();
      ImGui::TextColored(ImVec4(1.0f, 0.4f, 0.35f, 1.0f), "REC %d frames, %.4g fps",
                         video_.frames(), video_.fps());
      ImGui::TextDisabled("%s", video_.path().c_str());
      if (ImGui::IsItemHovered()) {
        ImGui::SetTooltip("%dx%d H.264, %d steps per frame: the video plays in real time",
                          video_.width(), video_.height(), VideoStepsThisFrame());
      }
    } else if (!video_status_.empty()) {
      ImGui::PushTextWrapPos(0.0f);
      if (video_status_is_error_) {
        ImGui::TextColored(ImVec4(1.0f, 0.4f, 0.35f, 1.0f), "%s", video_status_.c_str());
      } else {
        ImGui::TextDisabled("%s", video_status_.c_str());
      }
      ImGui::PopTextWrapPos();
    }
    ImGui::SetNextItemOpen(vsettings_.show_profiler, ImGuiCond_Once);
    vsettings_.show_profiler = ImGui::TreeNode("Frame profile");
    NoteSection("Frame profile");
    if (vsettings_.show_profiler) {
      DrawProfilerBar(profile_);
      ImGui::TextDisabled("physics runs on its own thread, beside render and UI");
      ImGui::TreePop();
    }
  }
  const bool timeline_open =
      ImGui::CollapsingHeader("Timeline and breakpoints", ImGuiTreeNodeFlags_DefaultOpen);
  NoteSection("Timeline and breakpoints");
  if (timeline_open) {
    TimelineView view;
    view.count = history_.size();
    view.oldest_step = history_.oldest_step();
    view.newest_step = history_.newest_step();
    const StepRecord* shown = DisplayedRecord();
    view.shown_step = shown ? shown->step : -1;
    view.bytes = history_.bytes();
    view.paused = !playback_.playing;
    const ResolveComparison* comparison = DisplayedComparison();
    view.has_comparison = comparison != nullptr;
    if (comparison) view.comparison_legend = ResolveLegend(comparison->before, comparison->after);
    if (DrawTimelinePanel(view, &timeline_)) HandleTimelineRequests();
  }
  {
    const bool camera_open = ImGui::CollapsingHeader("Camera", ImGuiTreeNodeFlags_DefaultOpen);
    NoteSection("Camera");
    if (camera_open) DrawCameraPanel();
  }
  if (open_overlay_) ImGui::SetNextItemOpen(true, ImGuiCond_Once);
  const bool overlay_open = ImGui::CollapsingHeader("Contact overlay");
  NoteSection("Contact overlay");
  if (overlay_open) {
    DrawOverlayPanel(&overlay_);
  }
  {
    const int compliant = CompliantGeometryCount();
    if (open_pressure_ || compliant > 0) ImGui::SetNextItemOpen(true, ImGuiCond_Once);
    const bool pressure_open = ImGui::CollapsingHeader("Pressure");
    NoteSection("Pressure");
    if (pressure_open) {
      PressurePanelView view;
      view.compliant_geometries = compliant;
      if (const StepRecord* shown = DisplayedRecord()) {
        view.patches = static_cast<int>(shown->surfaces.size());
        for (const ContactSurface& s : shown->surfaces) {
          view.faces += static_cast<int>(s.faces.size());
        }
        view.max_pressure = MaxSurfacePressure(shown->surfaces);
      }
      DrawPressurePanel(view, &pressure_);
    }
  }
  if (selected_body_ >= 0) {
    const bool open = ImGui::CollapsingHeader("Selected body", ImGuiTreeNodeFlags_DefaultOpen);
    NoteSection("Selected body");
    if (open) DrawSelectionPanel();
  }
  const bool solver_open = ImGui::CollapsingHeader("Solver", ImGuiTreeNodeFlags_DefaultOpen);
  NoteSection("Solver");
  if (solver_open) {
    if (!step_error_.empty()) {
      ImGui::PushTextWrapPos(0.0f);
      ImGui::TextColored(ImVec4(1.0f, 0.4f, 0.35f, 1.0f), "step failed: %s", step_error_.c_str());
      ImGui::PopTextWrapPos();
    }
    if (const StepRecord* shown = DisplayedRecord()) {
      const ResolveComparison* comparison = DisplayedComparison();
      DrawSolverPanel(*shown, edit_settings_.sap.rel_tolerance,
                      comparison ? &comparison->after : nullptr);
    } else {
      ImGui::TextDisabled("no step yet: press Space to play or Right to step");
    }
  }
  if (open_parameters_) ImGui::SetNextItemOpen(true, ImGuiCond_Once);
  const bool parameters_open = ImGui::CollapsingHeader("Parameters");
  NoteSection("Parameters");
  if (parameters_open) {
    const StepSettings settings_before = edit_settings_;
    if (DrawParameterPanel(&edit_settings_, &model_.materials,
                           SceneMaterialsFirst(model_))) {
      // Validated here so the panel shows a refusal at once; applied by the next job (the
      // materials with it: sending unchanged ones again is harmless).
      try {
        edit_settings_.Validate();
        settings_error_.clear();
        settings_dirty_ = true;
      } catch (const std::exception& e) {
        settings_error_ = e.what();
        edit_settings_ = settings_before;
      }
      materials_dirty_ = true;
    }
    if (!settings_error_.empty()) {
      ImGui::PushTextWrapPos(0.0f);
      ImGui::TextColored(ImVec4(1.0f, 0.4f, 0.35f, 1.0f), "%s", settings_error_.c_str());
      ImGui::PopTextWrapPos();
    }
  }
  const bool help_open = ImGui::CollapsingHeader("Help");
  NoteSection("Help");
  if (help_open) DrawHelpPanel();
  ScrollToRequestedSection(H);
  ImGui::End();
  if (!scripted_) vsettings_.left_panel_width = new_l;

  // Right column: convergence, time series, conditioning.
  if (vsettings_.show_analysis) DrawAnalysisColumn(W - R, R, H - B);

  // Bottom strip: contact inspector.
  ImGui::SetNextWindowPos(ImVec2(L, H - B), ImGuiCond_Always);
  ImGui::SetNextWindowSize(ImVec2(W - L, B), ImGuiCond_Always);
  ImGui::SetNextWindowSizeConstraints(ImVec2(W - L, 50.0f),
                                      ImVec2(W - L, std::max(50.0f, H - kMinViewportSize)));
  ImGui::SetNextWindowBgAlpha(0.0f);  // the clear colour (see the left column)
  ImGui::Begin("Contacts", nullptr,
               ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoCollapse |
                   ImGuiWindowFlags_NoSavedSettings);
  const float new_b = ImGui::GetWindowHeight();
  note_window("Contacts");
  // Taller: the strip takes 60 % of the window (more rows); shorter: back to the default.
  const bool tall = new_b > 0.45f * H;
  bool resize = false;
  if (ImGui::SmallButton(tall ? "shorter table" : "taller table")) resize = true;
  ImGui::SameLine();
  if (const StepRecord* shown = DisplayedRecord(); shown && !patch_rows_.empty()) {
    char title[64];
    std::snprintf(title, sizeof(title), "%d pressure patch%s###patches",
                  static_cast<int>(patch_rows_.size()), patch_rows_.size() == 1 ? "" : "es");
    if (ImGui::TreeNodeEx(title, ImGuiTreeNodeFlags_DefaultOpen)) {
      DrawPatchInspector(patch_rows_, *shown, &open_patch_, &selected_contact_);
      ImGui::TreePop();
    }
  }
  if (const StepRecord* shown = DisplayedRecord(); shown && !model_.equalities.empty()) {
    const std::vector<EqualityRow> eq_rows = BuildEqualityRows(model_, *shown);
    char title[64];
    std::snprintf(title, sizeof(title), "%d equality constraint%s###equalities",
                  static_cast<int>(eq_rows.size()), eq_rows.size() == 1 ? "" : "s");
    if (ImGui::TreeNodeEx(title, ImGuiTreeNodeFlags_DefaultOpen)) {
      DrawEqualityInspector(eq_rows);
      ImGui::TreePop();
    }
  }
  if (selected_body_ >= 0 && inspector_body_only_) {
    const std::string& name = model_.bodies[selected_body_].name;
    std::vector<ContactRow> rows;
    for (const ContactRow& r : rows_) {
      if (r.body_a == name || r.body_b == name) rows.push_back(r);
    }
    DrawContactInspector(rows, &selected_contact_);
  } else {
    DrawContactInspector(rows_, &selected_contact_);
  }
  ImGui::End();
  if (!scripted_) vsettings_.bottom_panel_height = new_b;
  if (resize) vsettings_.bottom_panel_height = tall ? ViewerSettings{}.bottom_panel_height : 0.6f * H;

  if (show_help_) {
    ImGui::SetNextWindowPos(ImVec2(L + 0.5f * (W - L - R), 0.4f * H), ImGuiCond_Appearing,
                            ImVec2(0.5f, 0.5f));
    ImGui::Begin("Keyboard and mouse", &show_help_, ImGuiWindowFlags_AlwaysAutoResize);
    note_window("Keyboard and mouse");
    DrawHelpPanel();
    ImGui::End();
  }

  vp_x_ = L;
  vp_y_ = 0;
  vp_w_ = std::max(1.0f, W - L - R);
  vp_h_ = std::max(1.0f, H - B);
}

void Viewer::DrawAnalysisColumn(float x, float width, float height) {
  ImGui::SetNextWindowPos(ImVec2(x, 0), ImGuiCond_Always);
  ImGui::SetNextWindowSize(ImVec2(width, height), ImGuiCond_Always);
  ImGui::SetNextWindowBgAlpha(0.0f);  // the clear colour (see the left column in BuildUi)
  ImGui::Begin("Analysis", nullptr,
               ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoCollapse |
                   ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoSavedSettings);
  {
    const ImVec2 p = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
    layout_.push_back({"window", "Analysis", p.x, p.y, size.x, size.y});
  }
  // Resizing from the left edge moves the window: its width is the new column width.
  if (!scripted_) vsettings_.right_panel_width = ImGui::GetWindowWidth();
  const StepRecord* shown = DisplayedRecord();
  if (ImGui::BeginTabBar("analysis_tabs")) {
    auto flags = [&](int tab) {
      return analysis_tab_request_ == tab ? ImGuiTabItemFlags_SetSelected : 0;
    };
    if (ImGui::BeginTabItem("Convergence", nullptr, flags(0))) {
      if (shown) {
        ConvergenceView view;
        view.current = &shown->result;
        const ResolveComparison* comparison = DisplayedComparison();
        if (comparison) view.resolved = &comparison->after;
        view.earlier = EarlierResults(history_, shown->step, earlier_overlay_);
        view.tolerance = edit_settings_.sap.rel_tolerance;
        view.step = shown->step;
        view.plot_height = std::max(90.0f, 0.25f * height);
        DrawConvergencePanel(view, &convergence_series_);
        ImGui::SetNextItemWidth(120.0f);
        ImGui::SliderInt("earlier steps overlaid", &earlier_overlay_, 0, 30);
      } else {
        ImGui::TextDisabled("no step yet");
      }
      ImGui::EndTabItem();
    }
    if (ImGui::BeginTabItem("Time series", nullptr, flags(1))) {
      vsettings_.show_time_series = true;
      if (series_count_ != history_.size() || series_newest_ != history_.newest_step()) {
        series_ = ExtractTimeSeries(history_);
        series_count_ = history_.size();
        series_newest_ = history_.newest_step();
      }
      if (series_.size() == 0) {
        ImGui::TextDisabled("no step yet");
      } else {
        const float plot_h = std::max(40.0f, (height - 120.0f) / 6.0f - 18.0f);
        const int clicked = DrawTimeSeriesPanel(series_, shown ? shown->step : -1, plot_h);
        if (clicked >= 0 && history_.Get(clicked)) {
          // Jump the timeline there (pausing the run).
          playback_.playing = false;
          timeline_.follow_live = false;
          timeline_.slider = clicked - history_.oldest_step();
          OnNewRecord();
        }
        ImGui::TextDisabled("click a plot to show that step");
      }
      ImGui::EndTabItem();
    } else {
      vsettings_.show_time_series = false;
    }
    if (ImGui::BeginTabItem("Conditioning", nullptr, flags(2))) {
      vsettings_.show_conditioning = true;
      ImGui::Checkbox("analyze every shown step", &conditioning_auto_);
      ImGui::SameLine();
      const bool busy = conditioning_job_.valid();
      if (busy) ImGui::BeginDisabled();
      if (ImGui::Button("Analyze") && shown) StartConditioning(*shown);
      if (busy) ImGui::EndDisabled();
      if (shown && conditioning_auto_ && !busy &&
          (conditioning_step_ != shown->step || conditioning_generation_ != generation_)) {
        StartConditioning(*shown);
      }
      if (scripted_) PollConditioning();  // scripted frames show the analysis of their step
      if (busy) {
        ImGui::SameLine();
        ImGui::TextDisabled("computing step %d...", conditioning_job_step_);
      }
      if (conditioning_ && conditioning_generation_ == generation_) {
        ImGui::TextDisabled("step %d", conditioning_step_);
        auto tex = [](const std::unique_ptr<ImageTexture>& t) {
          return t && t->id() != 0
                     ? reinterpret_cast<ImTextureID>(static_cast<intptr_t>(t->id()))
                     : nullptr;
        };
        DrawConditioningPanel(*conditioning_, tex(h_texture_), tex(j_texture_));
      } else if (!busy) {
        ImGui::TextDisabled("no analysis yet");
      }
      ImGui::EndTabItem();
    } else {
      vsettings_.show_conditioning = false;
    }
    if (ImGui::BeginTabItem("Compare", nullptr, flags(3))) {
      DrawCompareTab();
      ImGui::EndTabItem();
    }
    if (ImGui::BeginTabItem("Race", nullptr, flags(4))) {
      DrawRaceTab(height);
      ImGui::EndTabItem();
    }
    ImGui::EndTabBar();
  }
  analysis_tab_request_ = -1;
  ImGui::End();
}

void Viewer::NoteSection(const char* name) {
  const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
  layout_.push_back({"section", name, a.x, a.y, b.x - a.x, b.y - a.y});
}

void Viewer::ScrollToRequestedSection(float window_height) {
  if (scroll_to_section_frames_ <= 0 || scroll_section_.empty()) return;
  for (size_t i = 0; i < layout_.size(); ++i) {
    if (layout_[i].kind != "section" || layout_[i].name != scroll_section_) continue;
    // The section runs from its header to the next section's header (or the column's end).
    const float top = layout_[i].y;
    float bottom = ImGui::GetCursorScreenPos().y;
    for (size_t j = i + 1; j < layout_.size(); ++j) {
      if (layout_[j].kind == "section") {
        bottom = layout_[j].y;
        break;
      }
    }
    if (top >= 0 && bottom <= window_height) return;  // already whole on screen
    // Scroll just enough to show its end, but never past its header.
    const float scroll = ImGui::GetScrollY();
    ImGui::SetScrollY(std::max(0.0f, std::min(scroll + top, scroll + bottom - window_height)));
    return;
  }
}

void Viewer::DrawAxesGizmo() {
  // World axes in the 3D view's bottom-right corner: x red, y green, z blue, far axes first.
  ImDrawList* dl = ImGui::GetBackgroundDrawList();
  const float len = 34.0f;
  const ImVec2 o(vp_x_ + vp_w_ - len - 18.0f, vp_y_ + vp_h_ - len - 18.0f);
  const AxesGizmo g = ComputeAxesGizmo(camera_);
  static const ImU32 kColors[3] = {IM_COL32(250, 95, 80, 255), IM_COL32(90, 210, 90, 255),
                                   IM_COL32(90, 140, 255, 255)};
  static const char* kNames[3] = {"x", "y", "z"};
  dl->AddCircleFilled(o, len + 12.0f, IM_COL32(0, 0, 0, 70));
  for (int k : g.order) {
    const ImVec2 tip(o.x + len * static_cast<float>(g.axis[k].x()),
                     o.y + len * static_cast<float>(g.axis[k].y()));
    dl->AddLine(o, tip, kColors[k], 2.5f);
    dl->AddText(ImVec2(tip.x - 3.0f, tip.y - 8.0f), kColors[k], kNames[k]);
  }
}

void Viewer::DrawCameraPanel() {
  if (ImGui::SmallButton("Front (1)")) ApplyPreset(CameraPreset::kFront);
  ImGui::SameLine();
  if (ImGui::SmallButton("Side (2)")) ApplyPreset(CameraPreset::kSide);
  ImGui::SameLine();
  if (ImGui::SmallButton("Top (3)")) ApplyPreset(CameraPreset::kTop);
  ImGui::SameLine();
  if (ImGui::SmallButton("Fit scene (0)")) ApplyPreset(CameraPreset::kFit);
  int mode = static_cast<int>(tracking_);
  ImGui::SetNextItemWidth(160.0f);
  if (ImGui::Combo("follow (Shift+C)", &mode, "off\0selected body\0active contacts\0")) {
    tracking_ = static_cast<CameraTracking>(mode);
  }
  if (tracking_ == CameraTracking::kSelectedBody && selected_body_ < 0) {
    ImGui::SameLine();
    ImGui::TextDisabled("(select a body)");
  }
  ImGui::Checkbox("world axes", &show_axes_);
}

void Viewer::DrawSelectionPanel() {
  const Body& body = model_.bodies[selected_body_];
  ImGui::Text("%s   (body %d)", body.name.c_str(), selected_body_);
  ImGui::TextDisabled("mass %.4g kg", body.mass);
  const StepRecord* shown = DisplayedRecord();
  const State& state = shown ? shown->after : live_state_;
  if (selected_body_ < static_cast<int>(shown_poses_.size())) {
    KinematicsCache kin;
    multibody_->UpdateKinematics(state.q, state.time, &kin);
    const Vec3 com = kin.com_W[selected_body_];
    const Vec3 v = multibody_->PointVelocity(kin, state.v, selected_body_, com);
    ImGui::Text("com  %+.4f %+.4f %+.4f m", com.x(), com.y(), com.z());
    ImGui::Text("v    %+.4f %+.4f %+.4f m/s", v.x(), v.y(), v.z());
  }
  // Its joints up to the root of its tree (an imported robot's names as in its file).
  const std::vector<JointRow> joints = JointPathRows(model_, state.q, state.v, selected_body_);
  if (!joints.empty() &&
      ImGui::TreeNodeEx("joints to the root", ImGuiTreeNodeFlags_DefaultOpen)) {
    constexpr ImGuiTableFlags kFlags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                       ImGuiTableFlags_SizingFixedFit |
                                       ImGuiTableFlags_ScrollY;
    const float row_h = ImGui::GetTextLineHeightWithSpacing();
    const float height = row_h * (1.5f + std::min<float>(8.0f, joints.size()));
    if (ImGui::BeginTable("joint_rows", 5, kFlags, ImVec2(0, height))) {
      ImGui::TableSetupScrollFreeze(0, 1);
      for (const char* h : {"joint", "type", "q", "v", "limits"}) ImGui::TableSetupColumn(h);
      ImGui::TableHeadersRow();
      for (const JointRow& r : joints) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(r.name.c_str());
        if (!r.actuator.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", r.actuator.c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(r.type.c_str());
        ImGui::TableNextColumn();
        if (r.at_limit) {
          ImGui::TextColored(ImVec4(1.0f, 0.6f, 0.2f, 1.0f), "%s", r.position.c_str());
        } else {
          ImGui::TextUnformatted(r.position.c_str());
        }
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(r.rate.c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(r.limits.c_str());
      }
      ImGui::EndTable();
    }
    ImGui::TreePop();
  }
  int contacts = 0;
  for (const ContactRow& r : rows_) {
    if (r.body_a == body.name || r.body_b == body.name) ++contacts;
  }
  ImGui::Text("%s", CountNoun(contacts, "contact", "contacts").c_str());
  ImGui::SameLine();
  ImGui::Checkbox("only these in the table", &inspector_body_only_);
  if (ImGui::SmallButton("Centre camera (C)")) FocusSelectedBody();
  ImGui::SameLine();
  if (ImGui::SmallButton("Clear (Esc)")) selected_body_ = -1;
  if (body_drag_) {
    const Vec3& t = drag_spring_.target_W;
    ImGui::TextColored(ImVec4(1.0f, 0.85f, 0.3f, 1.0f), "pulling: k = %.3g N/m to %.3f %.3f %.3f",
                       drag_spring_.stiffness, t.x(), t.y(), t.z());
  }
}

void Viewer::StartConditioning(const StepRecord& record) {
  ConditioningOptions options;
  options.image_width = options.image_height = 192;
  conditioning_job_step_ = record.step;
  conditioning_job_generation_ = generation_;
  conditioning_job_ = std::async(std::launch::async,
                                 [problem = record.problem, result = record.result, options] {
                                   return AnalyzeConditioning(problem, result, options);
                                 });
  if (scripted_) conditioning_job_.wait();
}

void Viewer::PollConditioning() {
  if (!conditioning_job_.valid()) return;
  if (conditioning_job_.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return;
  ConditioningReport report;
  try {
    report = conditioning_job_.get();
  } catch (const std::exception& e) {
    report.ok = false;
    report.message = e.what();
  }
  // A step of a run that was reset, resumed from an earlier step or reloaded since.
  if (conditioning_job_generation_ != generation_) return;
  conditioning_ = std::move(report);
  conditioning_step_ = conditioning_job_step_;
  conditioning_generation_ = conditioning_job_generation_;
  if (!h_texture_) h_texture_ = std::make_unique<ImageTexture>();
  if (!j_texture_) j_texture_ = std::make_unique<ImageTexture>();
  const SparsityImage& h = conditioning_->H_pattern;
  const SparsityImage& j = conditioning_->J_pattern;
  if (h.width > 0 && h.height > 0) h_texture_->Upload(h.width, h.height, SparsityImageToRgba(h));
  if (j.width > 0 && j.height > 0) j_texture_->Upload(j.width, j.height, SparsityImageToRgba(j));
}

void Viewer::HandleExport(const ExportRequest& request) {
  export_panel_.message_is_error = false;
  std::string error;
  if (!CreateExportDir(export_panel_.dir, &error)) {
    export_panel_.message = error;
    export_panel_.message_is_error = true;
    return;
  }
  const StepRecord* shown = DisplayedRecord();
  try {
    // An export never overwrites the scene, its meshes, the input script or another file the
    // viewer writes (app/output_files.h); refused with the message in the panel.
    std::vector<CliFile> kept;
    for (const std::filesystem::path& f : SceneFiles()) kept.push_back({"scene file", f.string()});
    kept.push_back({"--input", options_.input_path});
    kept.push_back({"--screenshot", options_.screenshot_path});
    kept.push_back({"--trajectory", options_.trajectory_path});
    kept.push_back({"settings file", settings_file_.string()});
    std::vector<CliFile> written;
    if (request.kind == ExportKind::kProblem) {
      for (const std::string& name : ExportStepFileNames()) {
        written.push_back({"export", (std::filesystem::path(request.path) / name).string()});
      }
    } else if (request.kind != ExportKind::kNone) {
      written.push_back({"export", request.path});
    }
    CheckOutputFiles(kept, written);
    // Writes with `write` into request.path; a stream error anywhere is a failed export.
    auto write_file = [&](const auto& write) {
      std::ofstream out(request.path);
      if (!out) throw std::runtime_error("cannot write " + request.path);
      write(out);
      out.close();
      if (!out) throw std::runtime_error("writing " + request.path + " failed");
    };
    switch (request.kind) {
      case ExportKind::kScreenshot:
        pending_screenshot_ = request.path;  // written once this frame is drawn
        return;
      case ExportKind::kStatsCsv:
        write_file([&](std::ostream& o) { WriteHistoryCsv(history_, o); });
        break;
      case ExportKind::kStatsJson:
        write_file([&](std::ostream& o) { WriteHistoryJson(history_, o); });
        break;
      case ExportKind::kIterationsCsv:
        if (!shown) return;
        write_file([&](std::ostream& o) { WriteIterationsCsv(*shown, o); });
        break;
      case ExportKind::kIterationsJson:
        if (!shown) return;
        write_file([&](std::ostream& o) { WriteIterationsJson(*shown, o); });
        break;
      case ExportKind::kProblem:
        if (!shown) return;
        ExportStepProblem(*shown, edit_settings_, request.path);
        break;
      case ExportKind::kNone:
        return;
    }
    export_panel_.message = "wrote " + request.path;
  } catch (const std::exception& e) {
    export_panel_.message = e.what();
    export_panel_.message_is_error = true;
  }
}

}  // namespace viewer_internal
}  // namespace contactlab
