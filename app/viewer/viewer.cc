// The viewer's window and frame loop: GLFW/ImGui setup, Run (one iteration per frame: input,
// physics, panels, the 3D view, labels, screenshots), the 3D view and its labels, and the public
// functions of viewer.h. The rest of the Viewer class: viewer_session.cc, viewer_panels.cc,
// viewer_input.cc (see viewer_internal.h).
#include "app/viewer/viewer.h"

// epoxy must come before any other GL header; GLFW is told not to include one.
#include <epoxy/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <exception>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "app/compare.h"
#include "app/output_files.h"
#include "app/viewer/video_recorder.h"
#include "app/viewer/viewer_internal.h"
#include "render/screenshot.h"
#include "ui/param_widgets.h"

namespace contactlab {
namespace viewer_internal {

std::vector<std::string> StepAlerts(const StepRecord& r) {
  std::vector<std::string> alerts;
  const SolverStats& st = r.result.stats;
  const std::string step = "step " + std::to_string(r.step);
  if (st.status != SolverStatus::kConverged) {
    alerts.push_back(step + " FAILED: " + SolverStatusName(st.status) +
                     (st.message.empty() ? "" : ": " + st.message));
  }
  if (!r.free_motion.converged) alerts.push_back(step + " FAILED: free motion did not converge");
  if (r.diagnostics.warnings != 0) alerts.push_back(step + " WARNING: " + r.diagnostics.message);
  return alerts;
}

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

constexpr const char* kFontPath = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

// Files dropped on the window: the last one is opened on the next frame.
std::string* g_dropped_path = nullptr;
void GlfwDropCallback(GLFWwindow*, int count, const char** paths) {
  if (g_dropped_path && count > 0) *g_dropped_path = paths[count - 1];
}

void GlfwErrorCallback(int code, const char* description) {
  std::fprintf(stderr, "GLFW error %d: %s\n", code, description);
}

// WindowBg (0.085, 0.09, 0.10) at alpha 0.96 over (0.05, 0.05, 0.06).
constexpr float kPanelClearColor[3] = {0.96f * 0.085f + 0.04f * 0.05f,
                                       0.96f * 0.09f + 0.04f * 0.05f,
                                       0.96f * 0.10f + 0.04f * 0.06f};

void SetupStyle() {
  ImGui::StyleColorsDark();
  ImGuiStyle& s = ImGui::GetStyle();
  s.WindowRounding = 0.0f;
  s.FrameRounding = 3.0f;
  s.GrabRounding = 3.0f;
  s.WindowBorderSize = 0.0f;
  s.FramePadding = ImVec2(6, 3);
  s.ItemSpacing = ImVec2(7, 5);
  s.WindowPadding = ImVec2(10, 8);
  ImVec4* c = s.Colors;
  c[ImGuiCol_WindowBg] = ImVec4(0.085f, 0.09f, 0.10f, 0.96f);
  c[ImGuiCol_Header] = ImVec4(0.20f, 0.28f, 0.38f, 1.0f);
  c[ImGuiCol_HeaderHovered] = ImVec4(0.26f, 0.36f, 0.50f, 1.0f);
  c[ImGuiCol_TitleBgActive] = ImVec4(0.14f, 0.20f, 0.28f, 1.0f);
}

}  // namespace

Viewer::~Viewer() {
  g_dropped_path = nullptr;
  worker_.reset();  // joins the physics thread before the simulator goes
  renderer_.reset();
  glyphs_.reset();
  h_texture_.reset();
  j_texture_.reset();
  if (imgui_ready_) {
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
  }
  if (window_) glfwDestroyWindow(window_);
  glfwTerminate();
}

bool Viewer::CreateWindow() {
  glfwSetErrorCallback(GlfwErrorCallback);
  if (!glfwInit()) {
    std::fprintf(stderr, "viewer: cannot initialize GLFW (is a display available?)\n");
    return false;
  }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  const std::string title =
      "ContactLab - " + std::filesystem::path(options_.scene_path).filename().string();
  auto open_window = [&](int samples) {
    glfwWindowHint(GLFW_SAMPLES, samples);
    window_ = glfwCreateWindow(options_.width, options_.height, title.c_str(), nullptr, nullptr);
    if (window_) glfwMakeContextCurrent(window_);
    return window_ != nullptr;
  };
  const bool auto_msaa = options_.msaa_samples < 0;
  if (!open_window(auto_msaa ? 4 : options_.msaa_samples)) {
    std::fprintf(stderr, "viewer: cannot create a %dx%d OpenGL 3.3 core window\n", options_.width,
                 options_.height);
    return false;
  }
  // Software rasterizers pay for every sample; without a GPU, auto means no multisampling.
  const char* renderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
  const std::string renderer_name = renderer ? renderer : "";
  if (auto_msaa && (renderer_name.find("llvmpipe") != std::string::npos ||
                    renderer_name.find("softpipe") != std::string::npos)) {
    glfwDestroyWindow(window_);
    window_ = nullptr;
    if (!open_window(0)) {
      std::fprintf(stderr, "viewer: cannot create an OpenGL 3.3 core window\n");
      return false;
    }
  }
  glfwSwapInterval(scripted_ ? 0 : 1);
  glGetIntegerv(GL_SAMPLES, &msaa_samples_);
  gl_renderer_ = reinterpret_cast<const char*>(glGetString(GL_RENDERER));

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  // ImGui's own layout (table columns, floating windows) lives beside the settings file; never
  // in the working directory.
  io.IniFilename = nullptr;
  if (!imgui_ini_.empty()) ImGui::LoadIniSettingsFromDisk(imgui_ini_.c_str());
  if (std::filesystem::exists(kFontPath)) {
    // Latin plus the characters of the parameter tables' tooltips (σ, δt, ‖v_t‖, ...); the
    // ranges must outlive the font atlas's build.
    static ImVector<ImWchar> glyph_ranges;
    ImFontGlyphRangesBuilder glyphs;
    glyphs.AddRanges(io.Fonts->GetGlyphRangesDefault());
    AddParamGlyphs(&glyphs);
    glyph_ranges.clear();
    glyphs.BuildRanges(&glyph_ranges);
    io.Fonts->AddFontFromFileTTF(kFontPath, 15.0f, nullptr, glyph_ranges.Data);
  }
  SetupStyle();
  ImGui_ImplGlfw_InitForOpenGL(window_, true);
  g_dropped_path = &pending_open_;
  glfwSetDropCallback(window_, GlfwDropCallback);
  ImGui_ImplOpenGL3_Init("#version 330 core");
  imgui_ready_ = true;

  std::string error;
  renderer_ = std::make_unique<SceneRenderer>();
  glyphs_ = std::make_unique<GlDebugDraw>();
  if (!renderer_->Init(&error) || !glyphs_->Init(&error)) {
    std::fprintf(stderr, "viewer: %s\n", error.c_str());
    return false;
  }
  glEnable(GL_MULTISAMPLE);
  UploadModel();
  return true;
}

void Viewer::ResetCamera() {
  const CameraDef& c = scene_.camera;
  camera_.Set(c.target, c.distance, c.azimuth, c.elevation);
}

void Viewer::UploadModel() {
  renderer_->SetModel(model_);
  // Half-spaces that bound each other (a floor and walls) as the faces of the box they form, up
  // to a height above the bodies where they start.
  wall_faces_ = ComputeHalfSpaceFaces(model_, ShownPoses());
  renderer_->SetHalfSpaceFaces(wall_faces_);
}

void Viewer::RenderScene() {
  int fb_w = 0, fb_h = 0;
  glfwGetFramebufferSize(window_, &fb_w, &fb_h);
  const ImGuiIO& io = ImGui::GetIO();
  const float sx = io.DisplaySize.x > 0 ? fb_w / io.DisplaySize.x : 1.0f;
  const float sy = io.DisplaySize.y > 0 ? fb_h / io.DisplaySize.y : 1.0f;
  // GL viewport origin is the bottom-left corner.
  const int x = static_cast<int>(std::lround(vp_x_ * sx));
  const int w = static_cast<int>(std::lround(vp_w_ * sx));
  const int h = static_cast<int>(std::lround(vp_h_ * sy));
  const int y = fb_h - static_cast<int>(std::lround(vp_y_ * sy)) - h;

  RenderOptions ro;
  ro.transparent_bodies = overlay_.transparent_bodies;
  ro.body_alpha = overlay_.body_alpha;
  ro.show_grid = overlay_.show_grid;
  ro.glyphs_on_top = overlay_.glyphs_on_top;
  ro.grid_spacing = static_cast<float>(GridSpacingForDistance(scene_.camera.distance));

  glViewport(0, 0, fb_w, fb_h);
  // The docked panels' background: their window colour (SetupStyle) at its alpha over the
  // former clear colour (0.05, 0.05, 0.06), drawn by the clear instead of by ImGui.
  glClearColor(kPanelClearColor[0], kPanelClearColor[1], kPanelClearColor[2], 1.0f);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  renderer_->BeginFrame(x, y, w, h, camera_, ro);
  // Bodies at the end of the displayed step (the live state when following the simulation).
  const StepRecord* shown = DisplayedRecord();
  // Walls follow the bodies: remade when one rises above them or the pile settled far below.
  if (wall_faces_.boxed &&
      WallTopOutdated(wall_faces_.bodies_top, FiniteGeometryBounds(model_, ShownPoses()))) {
    wall_faces_ = ComputeHalfSpaceFaces(model_, ShownPoses());
    renderer_->SetHalfSpaceFaces(wall_faces_);
  }
  renderer_->DrawModel(model_, ShownPoses(), ro);

  glyphs_->Clear();
  glyphs_->set_arrow_radius(0.0022 * camera_.distance);
  glyphs_->set_pixel_scale(sx);
  glyph_view_ = CurrentGlyphView();
  selection_labels_.clear();
  drawn_contacts_.clear();
  hidden_inactive_ = 0;
  glyph_counts_ = ContactDrawResult{};
  // A patch stands for its faces' contacts: their glyphs only on request (for the ghosts too).
  overlay_.contacts.face_contacts = !pressure_.show || pressure_.face_glyphs;
  // Compare mode: the other configurations' bodies as tinted ghosts (and their contacts).
  if (compare_.active()) RenderGhosts(shown);
  DrawPressureOverlay(shown);
  if (shown) {
    const ContactGlyphContext context = GlyphContextFor(*shown);
    ContactDrawResult drawn = DrawContacts(*shown, overlay_.contacts, context, glyphs_.get());
    glyph_counts_.AddCounts(drawn);
    drawn_contacts_ = std::move(drawn.drawn);
    hidden_inactive_ = drawn.hidden_inactive;
    if (selected_contact_ >= 0 && selected_contact_ < static_cast<int>(shown->contacts.size())) {
      const Contact& c = shown->contacts[selected_contact_];
      const double ppm = glyph_view_.PixelsPerMetre(c.point);
      // A ring around the contact's dot and its normal, 40 px long whatever the zoom.
      glyphs_->Point(c.point, 2.2 * overlay_.contacts.point_size, kSelectionColor);
      const double normal_len = ppm > 0 ? 40.0 / ppm : 0.08 * camera_.distance;
      glyphs_->Line(c.point, c.point + normal_len * c.normal, kSelectionColor);
      selection_labels_.push_back({c.point, "#" + std::to_string(selected_contact_),
                                   kSelectionColor});
    }
  }
  // Selected body: a frame at its centre of mass and its name.
  if (selected_body_ >= 0 && selected_body_ < static_cast<int>(shown_poses_.size())) {
    const Pose& X = shown_poses_[selected_body_];
    const Vec3 com = X.q * model_.bodies[selected_body_].com + X.p;
    const double len = 1.2 * typical_size_;
    const Mat3 Rm = X.q.toRotationMatrix();
    glyphs_->Arrow(com, com + len * Rm.col(0), kAxisXColor);
    glyphs_->Arrow(com, com + len * Rm.col(1), kAxisYColor);
    glyphs_->Arrow(com, com + len * Rm.col(2), kAxisZColor);
    selection_labels_.push_back({com, model_.bodies[selected_body_].name, kSelectionColor});
  }
  // Mouse spring: from the grabbed point to the cursor target.
  if (body_drag_ && drag_spring_.body >= 0 &&
      drag_spring_.body < static_cast<int>(shown_poses_.size())) {
    const Pose& X = shown_poses_[drag_spring_.body];
    const Vec3 grabbed = X.q * drag_spring_.point_B + X.p;
    const Color spring{1.0f, 0.85f, 0.3f, 1.0f};
    glyphs_->Line(grabbed, drag_spring_.target_W, spring);
    glyphs_->Point(grabbed, 0.8 * overlay_.contacts.point_size, spring);
    glyphs_->Point(drag_spring_.target_W, 1.2 * overlay_.contacts.point_size, spring);
  }
  glyphs_->Flush(renderer_->view(), renderer_->projection(), renderer_->eye(), ro.glyphs_on_top);
  glViewport(0, 0, fb_w, fb_h);
}

GlyphView Viewer::CurrentGlyphView() const {
  GlyphView v;
  v.eye = camera_.Eye();
  v.forward = camera_.Forward();
  v.right = camera_.Right();
  v.up = camera_.Up();
  v.focal_px = 0.5 * vp_h_ / std::tan(0.5 * camera_.fov_y);
  if (!(v.focal_px > 0) || !std::isfinite(v.focal_px)) v.focal_px = 0;
  return v;
}

ContactGlyphContext Viewer::GlyphContextFor(const StepRecord& record) const {
  ContactGlyphContext c;
  c.geom_radius = geom_radius_;
  c.view = glyph_view_;
  if (overlay_.focus != GlyphFocus::kOff && selected_body_ >= 0) {
    c.focus_body = FocusBodies(record, model_, selected_body_, overlay_.focus);
  }
  c.selected_contact = selected_contact_;
  return c;
}

int Viewer::ContactUnder(float x, float y) const {
  const StepRecord* shown = DisplayedRecord();
  if (!shown) return -1;
  std::vector<std::pair<double, double>> screen;
  std::vector<int> index;
  for (int ci : drawn_contacts_) {
    if (ci < 0 || ci >= static_cast<int>(shown->contacts.size())) continue;
    double px = 0, py = 0;
    if (!camera_.Project(shown->contacts[ci].point, vp_w_, vp_h_, &px, &py)) continue;
    screen.emplace_back(vp_x_ + px, vp_y_ + py);
    index.push_back(ci);
  }
  const int i = PickNearest(screen, x, y, 12.0);
  return i >= 0 ? index[i] : -1;
}

LegendInfo Viewer::LegendNow() const {
  LegendInfo info;
  info.contacts = &overlay_.contacts;
  info.px_per_m = glyph_view_.PixelsPerMetre(camera_.target);
  info.focus = overlay_.focus;
  info.body_selected = selected_body_ >= 0;
  info.hidden_inactive = hidden_inactive_;
  info.drawn = &glyph_counts_;
  const StepRecord* shown = DisplayedRecord();
  info.contact_selected = shown && selected_contact_ >= 0 &&
                          selected_contact_ < static_cast<int>(shown->contacts.size());
  return info;
}

ImVec2 Viewer::LegendSize() const { return DrawContactLegendOverlay(nullptr, ImVec2(0, 0), LegendNow()); }

void Viewer::DrawContactHover() {
  hover_tooltip_.clear();
  // A scripted run without --input has no user's pointer: wherever the display's pointer happens
  // to be, no tooltip (so screenshots do not depend on it).
  if (scripted_ && input_events_.empty()) return;
  const ImGuiIO& io = ImGui::GetIO();
  const ImVec2 m = io.MousePos;
  if (io.WantCaptureMouse || drag_button_ >= 0 || m.x < vp_x_ || m.y < vp_y_ ||
      m.x >= vp_x_ + vp_w_ || m.y >= vp_y_ + vp_h_) {
    return;
  }
  const StepRecord* shown = DisplayedRecord();
  const int ci = ContactUnder(m.x, m.y);
  if (!shown || ci < 0) return;
  const std::vector<ContactRow> rows = BuildContactRows(model_, *shown);
  if (ci >= static_cast<int>(rows.size())) return;
  const std::vector<std::string> lines = ContactTooltipLines(rows[ci]);
  hover_tooltip_ = lines;
  ImGui::BeginTooltip();
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i == 0) {
      ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(
                             ToImU32(RegimeColor(static_cast<int>(rows[ci].regime)))),
                         "%s", lines[i].c_str());
    } else {
      ImGui::TextUnformatted(lines[i].c_str());
    }
  }
  ImGui::EndTooltip();
}

int Viewer::CompliantGeometryCount() const {
  int n = 0;
  for (int g = 0; g < static_cast<int>(model_.geoms.size()); ++g) {
    const Geom& geom = model_.geoms[g];
    if (geom.collide && geom.shape.type != ShapeType::kHalfSpace &&
        model_.GeomHydroelastic(g).compliant()) {
      ++n;
    }
  }
  return n;
}

double Viewer::PressureNoiseFloor() const {
  double modulus = 0;
  for (int g = 0; g < static_cast<int>(model_.geoms.size()); ++g) {
    modulus = std::max(modulus, model_.GeomHydroelastic(g).modulus);
  }
  return kPressureNoiseFraction * modulus;
}

void Viewer::RefreshTetMeshes() {
  if (!sim_ || (worker_ && worker_->busy())) return;
  const int ng = static_cast<int>(model_.geoms.size());
  tet_meshes_.resize(ng);
  for (int g = 0; g < ng; ++g) {
    TetMeshCache& cache = tet_meshes_[g];
    const CompliantGeometry* mesh = sim_->compliant_geometry(g);
    const int num_tets = mesh ? mesh->field.mesh().num_tets() : 0;
    if (mesh == cache.source && num_tets == cache.num_tets && cache.all == pressure_.tets_all) {
      continue;
    }
    cache = TetMeshCache{};
    cache.source = mesh;
    cache.num_tets = num_tets;
    cache.all = pressure_.tets_all;
    if (!mesh) continue;
    // Geometries that share one mesh share its edges too.
    bool copied = false;
    for (int h = 0; h < g; ++h) {
      if (tet_meshes_[h].source == mesh && tet_meshes_[h].all == cache.all) {
        cache.vertices = tet_meshes_[h].vertices;
        cache.edges = tet_meshes_[h].edges;
        copied = true;
        break;
      }
    }
    if (!copied) {
      cache.vertices = mesh->field.mesh().vertices;
      cache.edges = TetMeshEdges(mesh->field.mesh(), /*boundary_only=*/!cache.all);
    }
  }
  tet_meshes_stale_ = false;
}

void Viewer::DrawPressureOverlay(const StepRecord* shown) {
  if (pressure_.tets) {
    if (tet_meshes_stale_ || tet_meshes_.size() != model_.geoms.size() ||
        (!tet_meshes_.empty() && std::any_of(tet_meshes_.begin(), tet_meshes_.end(),
                                             [&](const TetMeshCache& c) {
                                               return c.source && c.all != pressure_.tets_all;
                                             }))) {
      RefreshTetMeshes();
    }
    const std::vector<Pose>& X_WB = ShownPoses();
    for (int g = 0; g < static_cast<int>(tet_meshes_.size()); ++g) {
      const TetMeshCache& cache = tet_meshes_[g];
      if (cache.edges.empty()) continue;
      const Geom& geom = model_.geoms[g];
      const Pose X_WG =
          geom.body < static_cast<int>(X_WB.size()) ? GeomPose(geom, X_WB) : geom.local;
      DrawTetMeshEdges(cache.vertices, cache.edges, X_WG, kTetEdgeColor, glyphs_.get());
    }
  }
  if (!shown || !pressure_.show || shown->surfaces.empty()) return;
  // A refit asked for while paused applies to the step on screen; a shown step above the held
  // range grows it (UpdatePressureRange).
  pressure_.range = UpdatePressureRange(pressure_.range, MaxSurfacePressure(shown->surfaces),
                                        shown->step, PressureNoiseFloor());
  // Patch force arrows have their own scale (a patch carries the load of all its faces, which
  // the impulse arrows' scale draws one by one): the longest is about a body size, refitted
  // only when it leaves [1/4, 3/2] of that (AutoImpulseScale's hysteresis), and named in the
  // legend.
  double largest_force = 0;
  for (const ContactSurface& s : shown->surfaces) {
    const Vec3 f = s.Force();
    if (f.allFinite()) largest_force = std::max(largest_force, f.norm());
  }
  pressure_.draw.force_scale =
      AutoImpulseScale(pressure_.draw.force_scale, largest_force, typical_size_);
  pressure_.arrow_reference = typical_size_;
  PressureDrawOptions o = pressure_.draw;
  const auto range = PressureRangeOf(pressure_.range);
  o.p_min = range[0];
  o.p_max = range[1];
  o.offset = 5e-3 * typical_size_;
  o.marker_size = overlay_.contacts.point_size;
  // The contact glyphs' rules: focus on the selected body or island, sizes from the view.
  o.view = overlay_.contacts.adaptive_size ? glyph_view_ : GlyphView{};
  if (overlay_.focus != GlyphFocus::kOff && selected_body_ >= 0) {
    const std::vector<char> focus = FocusBodies(*shown, model_, selected_body_, overlay_.focus);
    auto in_focus = [&](int geom) {
      const int b = geom >= 0 && geom < static_cast<int>(model_.geoms.size())
                        ? model_.geoms[geom].body
                        : -1;
      return b >= 0 && b < static_cast<int>(focus.size()) && focus[b];
    };
    o.surface_shown.resize(shown->surfaces.size());
    for (size_t i = 0; i < shown->surfaces.size(); ++i) {
      o.surface_shown[i] = in_focus(shown->surfaces[i].geom_a) || in_focus(shown->surfaces[i].geom_b);
    }
  }
  DrawPressureSurfaces(*shown, o, glyphs_.get());
}

void Viewer::DrawPressureLegendAndHover() {
  if (!pressure_.show || CompliantGeometryCount() == 0) return;
  ImDrawList* dl = ImGui::GetBackgroundDrawList();
  DrawPressureLegend(dl, ImVec2(vp_x_ + 10.0f, vp_y_ + vp_h_ - 10.0f), pressure_);
  if (!pressure_.hover) return;
  const StepRecord* shown = DisplayedRecord();
  if (!shown || shown->surfaces.empty()) return;
  const ImGuiIO& io = ImGui::GetIO();
  const ImVec2 m = io.MousePos;
  if (io.WantCaptureMouse || m.x < vp_x_ || m.y < vp_y_ || m.x >= vp_x_ + vp_w_ ||
      m.y >= vp_y_ + vp_h_) {
    return;
  }
  const Ray ray = camera_.PickRay(m.x - vp_x_, m.y - vp_y_, vp_w_, vp_h_);
  if (!ray.direction.allFinite() || ray.direction.squaredNorm() == 0) return;
  const std::optional<PressurePick> pick =
      PickPressure(shown->surfaces, ray.origin, ray.direction);
  if (!pick) return;
  const ContactSurface& s = shown->surfaces[pick->surface];
  const ContactFace& f = s.faces[pick->face];
  auto body_name = [&](int geom) -> std::string {
    const int b = geom >= 0 && geom < static_cast<int>(model_.geoms.size())
                      ? model_.geoms[geom].body
                      : -1;
    return b >= 0 ? model_.bodies[b].name : "world";
  };
  ImGui::BeginTooltip();
  ImGui::Text("p = %s", FormatPressure(pick->pressure).c_str());
  ImGui::TextDisabled("patch %d (%s / %s), face %d: p0 %s, area %.3e m^2", pick->surface,
                      body_name(s.geom_a).c_str(), body_name(s.geom_b).c_str(), pick->face,
                      FormatPressure(f.p0).c_str(), f.area);
  ImGui::EndTooltip();
}

void Viewer::DrawLabels() {
  ImDrawList* dl = ImGui::GetBackgroundDrawList();
  // Status line in the viewport's top-left corner.
  {
    char line[512];
    const StepRecord* shown = DisplayedRecord();
    const bool browsing = shown && shown->step != history_.newest_step();
    const double time = shown ? shown->after.time : live_state_.time;
    const int contacts = shown ? static_cast<int>(shown->contacts.size()) : 0;
    const int iterations = shown ? shown->result.stats.iterations : 0;
    std::string mode = playback_.playing ? "playing" : "paused (Space to play)";
    if (browsing) mode = "viewing recorded step " + std::to_string(shown->step);
    if (!playback_.playing && !timeline_.break_reason.empty()) {
      mode += "   break at " + timeline_.break_reason;
    }
    std::snprintf(line, sizeof(line), "t = %.3f s   %s   %s   %s", time,
                  CountNoun(contacts, "contact", "contacts").c_str(),
                  CountNoun(iterations, "iteration", "iterations").c_str(), mode.c_str());
    const ImVec2 pos(vp_x_ + 12.0f, vp_y_ + 10.0f);
    dl->AddText(ImVec2(pos.x + 1, pos.y + 1), IM_COL32(0, 0, 0, 180), line);
    dl->AddText(pos, IM_COL32(235, 238, 242, 255), line);
    // A failed step and the step's divergence warnings, in red under the status line, with a
    // dark backing so that they read over any scene.
    std::vector<std::string> alerts;
    if (shown) alerts = StepAlerts(*shown);
    if (alerts.empty() && !last_alert_.empty()) alerts.push_back("latest: " + last_alert_);
    for (std::string& a : CompareAlerts()) alerts.push_back(std::move(a));
    {
      float y = pos.y + ImGui::GetTextLineHeightWithSpacing();
      // Wrapped clear of the glyph legend in the top-right corner.
      const float legend_w = overlay_.show_legend ? LegendSize().x + 20.0f : 0.0f;
      const float wrap = std::max(200.0f, vp_w_ - 24.0f - legend_w);
      for (const std::string& a : alerts) {
        const ImVec2 size = ImGui::CalcTextSize(a.c_str(), nullptr, false, wrap);
        dl->AddRectFilled(ImVec2(pos.x - 4, y - 2), ImVec2(pos.x + size.x + 4, y + size.y + 2),
                          IM_COL32(20, 0, 0, 200), 3.0f);
        dl->AddText(ImGui::GetFont(), ImGui::GetFontSize(), ImVec2(pos.x, y),
                    IM_COL32(255, 110, 100, 255), a.c_str(), nullptr, wrap);
        y += size.y + 6;
      }
    }
  }
  if (compare_.active()) DrawCompareLegend();
  DrawPressureLegendAndHover();
  if (show_axes_) DrawAxesGizmo();
  // Labels: the selection's first, then the contacts' (largest impulse first, as DrawContacts
  // emits them), each placed where it overlaps no label placed before it, or dropped.
  {
    struct Label {
      std::string text;
      Color color;
    };
    std::vector<Label> labels;
    std::vector<LabelCandidate> candidates;
    auto add = [&](const Vec3& p, const std::string& text, const Color& color) {
      double px = 0, py = 0;
      if (!camera_.Project(p, vp_w_, vp_h_, &px, &py)) return;
      const ImVec2 size = ImGui::CalcTextSize(text.c_str());
      // A pixel or two of room around each label's text.
      candidates.push_back({vp_x_ + px, vp_y_ + py, size.x + 4.0, size.y + 2.0});
      labels.push_back({text, color});
    };
    for (const SelectionLabel& l : selection_labels_) add(l.p, l.text, l.color);
    for (const GlDebugDraw::TextItem& t : glyphs_->texts()) add(t.p, t.text, t.color);
    // Below the status line, clear of the legend's corner.
    const LabelBox bounds{vp_x_, vp_y_ + 30.0, vp_x_ + vp_w_, vp_y_ + vp_h_};
    std::vector<LabelBox> blocked;
    if (overlay_.show_legend) {
      const ImVec2 size = LegendSize();
      const double x1 = vp_x_ + vp_w_ - 10.0;
      blocked.push_back({x1 - size.x, vp_y_ + 10.0, x1, vp_y_ + 10.0 + size.y});
    }
    for (const PlacedLabel& p : PlaceLabels(candidates, bounds, 5.0, blocked)) {
      const auto x0 = static_cast<float>(p.box.x0), y0 = static_cast<float>(p.box.y0);
      dl->AddRectFilled(ImVec2(x0, y0),
                        ImVec2(static_cast<float>(p.box.x1), static_cast<float>(p.box.y1)),
                        IM_COL32(0, 0, 0, 130), 2.0f);
      dl->AddText(ImVec2(x0 + 2, y0 + 1), ToImU32(labels[p.index].color),
                  labels[p.index].text.c_str());
    }
  }
  // The glyph legend and the arrows' scale bar, top right of the 3D view.
  if (overlay_.show_legend) {
    DrawContactLegendOverlay(dl, ImVec2(vp_x_ + vp_w_ - 10.0f, vp_y_ + 10.0f), LegendNow());
  }
  DrawContactHover();
}

int Viewer::VideoStepsThisFrame() const {
  const double dt = edit_settings_.time_step;
  if (!(dt > 0) || !(video_.fps() > 0)) return 1;
  return std::max(1, static_cast<int>(std::lround(1.0 / (video_.fps() * dt))));
}

bool Viewer::StartVideo(const std::string& path) {
  int fb_w = 0, fb_h = 0;
  glfwGetFramebufferSize(window_, &fb_w, &fb_h);
  // yuv420p needs even sizes: an odd window loses its last column or its bottom row.
  const int w = EvenVideoSize(fb_w), h = EvenVideoSize(fb_h);
  std::string error;
  if (w == 0 || h == 0) {
    error = "video: the window is too small to record";
  } else if (video_.Start(path, w, h, VideoFrameRate(edit_settings_.time_step), &error)) {
    video_ms_total_ = 0;
    video_status_.clear();
    video_status_is_error_ = false;
    std::printf("viewer: recording %s, %dx%d at %.6g fps (%d steps of %.6g s per frame)\n",
                path.c_str(), w, h, video_.fps(), VideoStepsThisFrame(),
                edit_settings_.time_step);
    std::fflush(stdout);
    return true;
  }
  video_status_ = error;
  video_status_is_error_ = true;
  std::fprintf(stderr, "viewer: %s\n", error.c_str());
  return false;
}

bool Viewer::CaptureVideoFrame() {
  if (!video_.active()) return true;
  const auto start = Clock::now();
  int fb_w = 0, fb_h = 0;
  glfwGetFramebufferSize(window_, &fb_w, &fb_h);
  const int w = video_.width(), h = video_.height();
  std::string error;
  if (fb_w < w || fb_h < h) {
    // The window shrank below the video's size: the recording ends with what it has.
    const int frames = video_.frames();
    const std::string path = video_.path();
    const bool ok = video_.Stop(&error);
    video_status_ = "video: the window shrank below " + std::to_string(w) + "x" +
                    std::to_string(h) + "; stopped " + path + " after " +
                    std::to_string(frames) + " frames" + (ok ? "" : "; " + error);
    video_status_is_error_ = true;
    std::fprintf(stderr, "viewer: %s\n", video_status_.c_str());
    return false;
  }
  // The top-left w x h pixels of the drawn back buffer, rows bottom first (ffmpeg flips them).
  video_pixels_.resize(static_cast<size_t>(w) * h * 3);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, fb_h - h, w, h, GL_RGB, GL_UNSIGNED_BYTE, video_pixels_.data());
  const bool ok = video_.AddFrame(video_pixels_, &error);
  video_ms_total_ += 1e3 * Seconds(Clock::now() - start);
  if (!ok) {
    video_status_ = error;
    video_status_is_error_ = true;
    std::fprintf(stderr, "viewer: %s\n", error.c_str());
  }
  return ok;
}

bool Viewer::StopVideo() {
  if (!video_.active()) return true;
  const int frames = video_.frames();
  const std::string path = video_.path();
  const double ms = frames > 0 ? video_ms_total_ / frames : 0;
  char line[512];
  std::snprintf(line, sizeof(line), "%dx%d at %.6g fps, read-back and pipe %.2f ms per frame",
                video_.width(), video_.height(), video_.fps(), ms);
  std::string error;
  const bool ok = video_.Stop(&error);
  if (ok) {
    video_status_ = "wrote " + path + ": " + std::to_string(frames) + " frames, " + line;
    video_status_is_error_ = false;
    std::printf("viewer: video %s\n", video_status_.c_str());
  } else {
    video_status_ = error;
    video_status_is_error_ = true;
    std::fprintf(stderr, "viewer: %s\n", error.c_str());
  }
  return ok;
}

void Viewer::ToggleVideo() {
  if (video_.active()) {
    StopVideo();
    return;
  }
  // contactlab_<scene>_<date-time>.mp4 in the working directory, never over an existing file.
  const std::string stem = std::filesystem::path(options_.scene_path).stem().string();
  std::string path = DefaultVideoFileName(stem, std::time(nullptr));
  std::error_code ec;
  for (int n = 2; std::filesystem::exists(path, ec); ++n) {
    path = DefaultVideoFileName(stem, std::time(nullptr));
    path = path.substr(0, path.size() - 4) + "_" + std::to_string(n) + ".mp4";
  }
  StartVideo(path);
}

int Viewer::Run() {
  scripted_ = options_.frames > 0;
  if (!options_.input_path.empty()) {
    std::ifstream in(options_.input_path);
    std::string error;
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) error = "cannot read the file";
    if (error.empty() && !ParseInputScript(text, &input_events_, &error)) {
      // error set by the parser
    }
    if (!error.empty()) {
      std::fprintf(stderr, "%s: %s\n", options_.input_path.c_str(), error.c_str());
      return 2;
    }
  }
  try {
    StartSimulation();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", options_.scene_path.c_str(), e.what());
    return 2;
  }
  try {
    StartCompareFromOptions();  // refused before any window opens
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  // Refused before any window opens, so that a wrong index never needs a display.
  if (options_.select_body >= static_cast<int>(model_.bodies.size())) {
    std::fprintf(stderr, "viewer: --select %d is out of range [0, %d] (the scene's bodies)\n",
                 options_.select_body, static_cast<int>(model_.bodies.size()) - 1);
    return 2;
  }
  LoadSettings();
  if (!CreateWindow()) return 1;
  ResetCamera();
  FitGlyphsToScene();
  ApplyViewerSettings(vsettings_, typical_size_, &overlay_, &playback_);
  ApplyPressureSettings(vsettings_, &pressure_);
  playback_.playing = scripted_ || options_.seconds > 0;
  show_help_ = vsettings_.show_help;
  if (options_.transparent) overlay_.transparent_bodies = true;
  if (options_.labels) overlay_.contacts.labels = true;
  if (options_.no_pressure) pressure_.show = false;
  if (options_.tets) pressure_.tets = true;
  if (options_.all_tets) pressure_.tets_all = true;
  if (std::isfinite(options_.pressure_min) && std::isfinite(options_.pressure_max)) {
    pressure_.range.mode = PressureRangeMode::kFixed;
    pressure_.range.fixed_min = options_.pressure_min;
    pressure_.range.fixed_max = options_.pressure_max;
  }
  for (const std::string& panel : options_.panels) {
    if (panel == "convergence") analysis_tab_request_ = 0;
    if (panel == "timeseries") analysis_tab_request_ = 1;
    if (panel == "conditioning") analysis_tab_request_ = 2;
    if (panel == "compare") analysis_tab_request_ = 3;
    if (panel == "race") {
      analysis_tab_request_ = 4;
      race_at_end_ = scripted_;  // scripted: race the shown step of the last frame
    }
    if (panel == "convergence" || panel == "timeseries" || panel == "conditioning" ||
        panel == "compare" || panel == "race") {
      vsettings_.show_analysis = true;
    }
    if (panel == "scenes") vsettings_.show_scene_browser = true;
    if (panel == "exports") vsettings_.show_exports = true;
    if (panel == "profiler") vsettings_.show_profiler = true;
    if (panel == "overlay") open_overlay_ = true;
    if (panel == "parameters") open_parameters_ = true;
    if (panel == "pressure") open_pressure_ = true;
    if (panel == "help") show_help_ = true;
  }
  // A left-column section opened by --panel is scrolled into view: on every frame of a scripted
  // run, on the first second of an interactive one (then the user's scrolling rules).
  for (const std::string& panel : options_.panels) {
    static const char* kSections[][2] = {
        {"scenes", "Scenes"},           {"exports", "Export"},
        {"profiler", "Frame profile"},  {"overlay", "Contact overlay"},
        {"parameters", "Parameters"},   {"pressure", "Pressure"}};
    for (const auto& [name, section] : kSections) {
      if (panel != name) continue;
      scroll_section_ = section;
      scroll_to_section_frames_ = scripted_ ? options_.frames + 1 : 60;
    }
  }
  if (options_.select_body >= 0) selected_body_ = options_.select_body;
  watcher_.SetFiles(SceneFiles());
  export_panel_.scene_stem = std::filesystem::path(options_.scene_path).stem().string();
  if (!options_.trajectory_path.empty()) {
    trajectory_.open(options_.trajectory_path);
    if (!trajectory_) {
      std::fprintf(stderr, "viewer: cannot write %s\n", options_.trajectory_path.c_str());
      return 1;
    }
    trajectory_bodies_ = TrajectoryBodies(model_);
    WriteTrajectoryHeader(trajectory_);
    WriteTrajectoryRows(trajectory_, *multibody_, trajectory_bodies_, 0, live_state_);
  }
  if (!options_.video_path.empty() && !StartVideo(options_.video_path)) return 1;

  int frame = 0;
  auto last = Clock::now();
  const auto loop_start = last;
  int exit_code = 0;
  std::vector<double> frame_ms_list;  // wall time of every frame [ms]
  while (!glfwWindowShouldClose(window_)) {
    const auto frame_start = Clock::now();
    if (frame > 0) frame_ms_list.push_back(1e3 * Seconds(frame_start - last));
    // Timed interactive run (--seconds): real-time pacing, then exit like a closed window.
    if (options_.seconds > 0 && Seconds(frame_start - loop_start) >= options_.seconds) break;
    glfwPollEvents();
    const double wall_dt = Seconds(frame_start - last);
    last = frame_start;

    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    if (!input_events_.empty()) InjectInput(frame);
    ImGui::NewFrame();
    if (!input_events_.empty()) PressScriptedKeys();
    if (!scripted_ || !input_events_.empty()) HandleInput();
    if (video_toggle_requested_) {
      video_toggle_requested_ = false;
      ToggleVideo();
    }
    PollSceneFiles();
    PollConditioning();
    if (playback_.reset_requested) {
      DoReset();
      playback_.reset_requested = false;
    }
    if (!pending_open_.empty()) {
      const std::string path = std::move(pending_open_);
      pending_open_.clear();
      OpenScene(path, false);
    }
    if (reload_requested_) {
      reload_requested_ = false;
      OpenScene(options_.scene_path, true);
    }
    StepPhysics(scripted_ ? kScriptedFrameSeconds : wall_dt);
    if (race_at_end_ && frame == options_.frames - 1) {
      // The race of --panel race: the step shown at the end, raced before the last frame is
      // drawn (the physics is idle: scripted frames wait for their steps).
      if (const StepRecord* shown = DisplayedRecord()) {
        StartRace(*shown);
        race_job_.wait();
        PollRace();
      }
      analysis_tab_request_ = 4;
    }
    PollRace();
    UpdateImpulseScale();
    const auto ui_start = Clock::now();
    BuildUi();
    const auto render_start = Clock::now();
    UpdateTracking(scripted_ ? kScriptedFrameSeconds : wall_dt);
    RenderScene();
    DrawLabels();
    ImGui::Render();
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    // With the profiler on, wait for the GL work so that it counts as render time (and while
    // recording, so that the video's read-back time is the read and the pipe alone).
    if (scripted_ || vsettings_.show_profiler || video_.active()) glFinish();
    const auto render_end = Clock::now();
    // The frame's profile: physics phases of the steps taken this frame, UI and render.
    profile_ = profile_accum_;
    profile_accum_ = FrameProfile{};
    profile_.ui_ms = 1e3 * Seconds(render_start - ui_start);
    profile_.render_ms = 1e3 * Seconds(render_end - render_start);
    profile_.frame_ms = 1e3 * wall_dt;
    ui_ms_total_ += profile_.ui_ms;
    render_ms_total_ += profile_.render_ms;
    // The frame as drawn (3D view, overlays, panels) into the video; a failed write ends the
    // recording, and a --video run then exits 1.
    if (video_.active() && !CaptureVideoFrame() && !options_.video_path.empty()) exit_code = 1;
    if (!pending_screenshot_.empty()) {
      int fb_w = 0, fb_h = 0;
      glfwGetFramebufferSize(window_, &fb_w, &fb_h);
      std::string error;
      if (SaveScreenshot(pending_screenshot_, fb_w, fb_h, &error)) {
        export_panel_.message = "wrote " + pending_screenshot_;
        export_panel_.message_is_error = false;
      } else {
        export_panel_.message = error;
        export_panel_.message_is_error = true;
      }
      pending_screenshot_.clear();
    }
    ++frame;
    if (scripted_ && frame >= options_.frames) {
      if (!options_.screenshot_path.empty()) {
        int fb_w = 0, fb_h = 0;
        glfwGetFramebufferSize(window_, &fb_w, &fb_h);
        std::string error;
        if (!SaveScreenshot(options_.screenshot_path, fb_w, fb_h, &error)) {
          std::fprintf(stderr, "viewer: %s\n", error.c_str());
          exit_code = 1;
        }
      }
      break;
    }
    const auto swap_start = Clock::now();
    glfwSwapBuffers(window_);
    swap_ms_total_ += 1e3 * Seconds(Clock::now() - swap_start);
  }
  if (video_.active() && !StopVideo() && !options_.video_path.empty()) exit_code = 1;
  if (frame > 0) {
    // Wall time per frame split into the main thread's parts, the buffer swap (present, vsync
    // wait and GL work not finished before it) its own item, so the parts sum to the frame.
    const FrameSplit split = SplitFrameTime(frame, 1e3 * Seconds(Clock::now() - loop_start),
                                            ui_ms_total_, render_ms_total_, swap_ms_total_);
    std::printf(
        "viewer: %d frames, %s (physics %.2f ms per frame on its thread), %d steps, t = %.4f s "
        "[%s, %d samples]\n",
        frame, FrameSplitText(split).c_str(), physics_ms_total_ / frame, live_step_count_,
        live_state_.time, gl_renderer_.c_str(), msaa_samples_);
    if (frame_ms_list.size() >= 2) {
      std::vector<double> sorted = frame_ms_list;
      std::sort(sorted.begin(), sorted.end());
      auto quantile = [&](double q) {
        return sorted[static_cast<size_t>(q * static_cast<double>(sorted.size() - 1))];
      };
      std::printf(
          "viewer: frame time median %.2f ms (%.1f fps), p95 %.2f ms, max %.2f ms; physics %.1f%% "
          "of real time\n",
          quantile(0.5), 1e3 / std::max(quantile(0.5), 1e-9), quantile(0.95), sorted.back(),
          100.0 * live_state_.time / std::max(1e-9, Seconds(Clock::now() - loop_start)));
    }
    if (selected_body_ >= 0) {
      std::printf("viewer: selected body %d (%s)\n", selected_body_,
                  model_.bodies[selected_body_].name.c_str());
    }
    if (options_.print_layout) {
      // The last frame's windows and left-column sections: x y w h in window pixels (y down), and
      // whether the rectangle lies inside the window.
      const ImVec2 size = ImGui::GetIO().DisplaySize;
      for (const LayoutRect& r : layout_) {
        const bool inside = r.x >= 0 && r.y >= 0 && r.x + r.w <= size.x + 0.5f &&
                            r.y + r.h <= size.y + 0.5f;
        std::printf("viewer: layout %s \"%s\" %.0f %.0f %.0f %.0f %s\n", r.kind.c_str(),
                    r.name.c_str(), r.x, r.y, r.w, r.h, inside ? "on-screen" : "off-screen");
      }
      if (!scene_error_.empty()) {
        std::printf("viewer: scene browser shows the error: %s\n", scene_error_.c_str());
      }
      std::printf("viewer: camera target %.4f %.4f %.4f distance %.4f azimuth %.2f elevation "
                  "%.2f deg, follow %s\n",
                  camera_.target.x(), camera_.target.y(), camera_.target.z(), camera_.distance,
                  camera_.azimuth * 180.0 / kPi, camera_.elevation * 180.0 / kPi,
                  CameraTrackingName(tracking_));
    }
    // Scripted runs: the contact tooltip on screen at the last frame, one line each.
    if (scripted_) {
      for (const std::string& line : hover_tooltip_) std::printf("viewer: tooltip: %s\n", line.c_str());
      std::printf("viewer: contact glyphs: %d drawn, %d candidates without impulse hidden, focus %s\n",
                  static_cast<int>(drawn_contacts_.size()), hidden_inactive_,
                  GlyphFocusName(overlay_.focus));
      std::printf("viewer: summary markers: %d, standing for %d contacts\n",
                  glyph_counts_.summary_markers, glyph_counts_.summarized);
      // The corner legend's rows as drawn at the last frame (none when it is switched off).
      std::string legend;
      if (overlay_.show_legend) {
        const LegendContent content = ContactLegendContent(LegendNow());
        for (const LegendRow& row : content.rows) legend += (legend.empty() ? "" : "; ") + row.text;
        if (content.cone_bar) legend += std::string(legend.empty() ? "" : "; ") + "cone bar";
        if (content.scale_bar) legend += std::string(legend.empty() ? "" : "; ") + "scale bar";
      }
      std::printf("viewer: legend: %s\n", legend.empty() ? "(none)" : legend.c_str());
    }
    if (scripted_) PrintShownSolves();
    if (scripted_) PrintCompareSummary();
  }
  SaveSettings();
  return exit_code;
}

namespace {

// "model M, N iterations (status), residual r0,r1,..." with the residual per iteration in %.17g.
std::string SolveSummary(const SolverResult& r) {
  std::string out = "model ";
  out += r.laws.empty() ? "none" : ContactModelName(r.laws.model());
  char buf[64];
  std::snprintf(buf, sizeof(buf), ", %s (%s), residual ",
                CountNoun(r.stats.iterations, "iteration", "iterations").c_str(),
                SolverStatusName(r.stats.status));
  out += buf;
  const std::vector<double> res = ResidualSeries(r);
  for (size_t i = 0; i < res.size(); ++i) {
    std::snprintf(buf, sizeof(buf), "%s%.17g", i ? "," : "", res[i]);
    out += buf;
  }
  return out;
}

bool SameLog(const IterationLog& a, const IterationLog& b) {
  if (a.table() != b.table() || a.num_rows() != b.num_rows()) return false;
  for (int r = 0; r < a.num_rows(); ++r) {
    for (int k = 0; k < a.num_series(); ++k) {
      const double x = a(r, k), y = b(r, k);
      if (!(x == y || (std::isnan(x) && std::isnan(y)))) return false;
    }
  }
  return true;
}

// Same iteration log and same velocities, bit for bit.
bool SameSolve(const SolverResult& a, const SolverResult& b) {
  return SameLog(a.stats.iteration_log, b.stats.iteration_log) && a.v.size() == b.v.size() &&
         a.v == b.v;
}

}  // namespace

void Viewer::PrintShownSolves() const {
  const StepRecord* shown = DisplayedRecord();
  if (!shown) return;
  std::printf("viewer: shown step %d: %s\n", shown->step, SolveSummary(shown->result).c_str());
  const ResolveComparison* c = DisplayedComparison();
  if (!c) return;
  std::printf("viewer: re-solve of step %d: %s\n", shown->step, SolveSummary(c->after).c_str());
  std::printf("viewer: re-solve %s the recorded solve; recorded solve %s\n",
              SameSolve(c->after, shown->result) ? "equals" : "differs from",
              SameSolve(c->before, shown->result) ? "unchanged" : "CHANGED");
}

}  // namespace viewer_internal
}  // namespace contactlab

namespace contactlab {

const std::vector<std::string>& ViewerPanels() {
  static const std::vector<std::string> kPanels{
      "convergence", "timeseries", "conditioning", "scenes",  "exports", "profiler",
      "overlay",     "parameters", "help",         "compare", "race",    "pressure"};
  return kPanels;
}

bool IsViewerPanelName(const std::string& name) {
  const std::vector<std::string>& p = ViewerPanels();
  return std::find(p.begin(), p.end(), name) != p.end();
}

std::string ViewerPanelNames() {
  std::string out;
  for (const std::string& p : ViewerPanels()) out += (out.empty() ? "" : ", ") + p;
  return out;
}

bool ParseCompareConfigs(const std::string& text, std::vector<std::string>* configs,
                         std::string* error) {
  configs->clear();
  std::string part;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == ',') {
      if (part.empty()) {
        *error = "--compare: an empty configuration in '" + text + "'";
        return false;
      }
      configs->push_back(part);
      part.clear();
    } else {
      part += text[i];
    }
  }
  if (configs->size() < 2 || configs->size() > 4) {
    *error = "--compare: give 2 to 4 configurations (the first is the primary), got " +
             std::to_string(configs->size()) + " in '" + text + "'";
    return false;
  }
  return true;
}

SceneOptions ViewerSceneOptions(const ViewerOptions& options,
                                const std::vector<std::string>& overrides) {
  SceneOptions scene_options;
  scene_options.overrides = overrides;
  scene_options.package_paths = options.package_paths;
  scene_options.fixed_base = options.fixed_base;
  scene_options.ground_plane = options.ground_plane;
  return scene_options;
}

int RunViewer(const ViewerOptions& given) {
  ViewerOptions options = given;
  Scene scene;
  // Scripted runs keep the exit status 2 of a scene that cannot be loaded; an interactive one
  // (a timed --seconds run too) opens the default scene with the scene browser showing the error.
  const bool scripted = options.frames > 0 || !options.screenshot_path.empty() ||
                        !options.input_path.empty() || !options.video_path.empty() ||
                        !options.compare.empty();
  std::string shown_error;
  if (options.scene_path.empty()) {
    // No scene: the default scene, with the scene browser open.
    std::error_code ec;
    options.scene_path = DefaultScenePath(std::filesystem::current_path(ec)).string();
    if (options.scene_path.empty()) {
      std::fprintf(stderr,
                   "viewer: no scene given and no scenes folder with a scene (scenes/) in the "
                   "working directory or above it\n");
      return 2;
    }
    std::printf("viewer: no scene given: opening %s\n", options.scene_path.c_str());
    options.panels.push_back("scenes");
  }
  try {
    // Compare mode: the first configuration's overrides are the primary's, kept on reloads.
    if (!options.compare.empty()) {
      for (std::string& o : ConfigOverrides(options.compare[0], "--compare")) {
        options.overrides.push_back(std::move(o));
      }
    }
    try {
      scene = LoadScene(options.scene_path, ViewerSceneOptions(options, options.overrides));
    } catch (const SceneError& e) {
      std::error_code ec;
      const std::filesystem::path fallback = DefaultScenePath(std::filesystem::current_path(ec));
      if (scripted || fallback.empty() || SameScenePath(fallback, options.scene_path)) throw;
      // Interactive: the error on stderr as before and in the scene browser, over the default
      // scene (without the --set overrides, which were given for the other scene).
      std::fprintf(stderr, "%s\n", e.what());
      shown_error = e.what();
      options.scene_path = fallback.string();
      options.overrides.clear();
      options.panels.push_back("scenes");
      scene = LoadScene(options.scene_path, ViewerSceneOptions(options, options.overrides));
    }
    // No output (the screenshot, the trajectory, the settings file written at exit and the
    // imgui.ini beside it) may be the scene, a mesh, the input script or another output; checked
    // before any window opens (app/output_files.h).
    std::vector<CliFile> inputs = SceneInputFiles(scene);
    inputs.push_back({"--input", options.input_path});
    std::vector<CliFile> outputs{{"--screenshot", options.screenshot_path},
                                 {"--trajectory", options.trajectory_path},
                                 {"--video", options.video_path}};
    // The settings file as Viewer::LoadSettings chooses it.
    std::string settings;
    if (!options.no_settings && !options.settings_path.empty()) {
      settings = options.settings_path;
    } else if (!options.no_settings && options.frames <= 0) {
      settings = DefaultSettingsFile().string();
    }
    if (!settings.empty()) {
      outputs.push_back({"--settings", settings});
      outputs.push_back({"--settings (its imgui.ini)",
                         (std::filesystem::path(settings).parent_path() / "imgui.ini").string()});
    }
    CheckOutputFiles(inputs, outputs);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  // ffmpeg is looked for before any window opens: a missing one needs no display to report.
  if (!options.video_path.empty() && FindProgram("ffmpeg").empty()) {
    std::fprintf(stderr, "viewer: %s\n", FfmpegMissingMessage().c_str());
    return 1;
  }
  viewer_internal::Viewer viewer(options, std::move(scene));
  if (!shown_error.empty()) viewer.ShowSceneError(shown_error);
  return viewer.Run();
}

bool ParsePressureRange(const std::string& text, double* min, double* max, std::string* error) {
  const size_t comma = text.find(',');
  double lo = 0, hi = 0;
  bool ok = comma != std::string::npos;
  if (ok) {
    try {
      size_t used_lo = 0, used_hi = 0;
      const std::string a = text.substr(0, comma), b = text.substr(comma + 1);
      lo = std::stod(a, &used_lo);
      hi = std::stod(b, &used_hi);
      ok = used_lo == a.size() && used_hi == b.size() && std::isfinite(lo) && std::isfinite(hi) &&
           lo < hi;
    } catch (const std::exception&) {
      ok = false;
    }
  }
  if (!ok) {
    *error = "--pressure-range needs MIN,MAX in Pa with MIN < MAX, got " + text;
    return false;
  }
  *min = lo;
  *max = hi;
  return true;
}

bool ParseViewerArgs(int argc, const char* const* argv, ViewerOptions* options,
                     std::string* error) {
  auto need_value = [&](int i) {
    if (i + 1 >= argc) {
      *error = std::string("missing value after ") + argv[i];
      return false;
    }
    return true;
  };
  auto parse_int = [&](const char* s, int* out) {
    try {
      size_t used = 0;
      const int v = std::stoi(s, &used);
      if (used != std::string(s).size()) throw std::invalid_argument(s);
      *out = v;
      return true;
    } catch (const std::exception&) {
      *error = std::string("not an integer: ") + s;
      return false;
    }
  };
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--frames" || a == "--width" || a == "--height" || a == "--msaa") {
      if (!need_value(i)) return false;
      int v = 0;
      if (!parse_int(argv[++i], &v)) return false;
      if (a == "--frames") options->frames = v;
      if (a == "--width") options->width = v;
      if (a == "--height") options->height = v;
      if (a == "--msaa") options->msaa_samples = v;
      if ((a == "--width" || a == "--height") && v <= 0) {
        *error = a + " must be positive";
        return false;
      }
    } else if (a == "--transparent") {
      options->transparent = true;
    } else if (a == "--labels") {
      options->labels = true;
    } else if (a == "--no-pressure") {
      options->no_pressure = true;
    } else if (a == "--tets") {
      options->tets = true;
    } else if (a == "--all-tets") {
      options->tets = options->all_tets = true;
    } else if (a == "--pressure-range") {
      if (!need_value(i)) return false;
      if (!ParsePressureRange(argv[++i], &options->pressure_min, &options->pressure_max, error)) {
        return false;
      }
    } else if (a == "--panel") {
      if (!need_value(i)) return false;
      const std::string name = argv[++i];
      if (!IsViewerPanelName(name)) {
        *error = "unknown panel " + name + " (" + ViewerPanelNames() + ")";
        return false;
      }
      options->panels.push_back(name);
    } else if (a == "--seconds") {
      if (!need_value(i)) return false;
      try {
        size_t used = 0;
        options->seconds = std::stod(argv[++i], &used);
        if (used != std::string(argv[i]).size() || !(options->seconds > 0)) throw 0;
      } catch (...) {
        *error = std::string("--seconds needs a positive number, got ") + argv[i];
        return false;
      }
    } else if (a == "--input") {
      if (!need_value(i)) return false;
      options->input_path = argv[++i];
    } else if (a == "--trajectory") {
      if (!need_value(i)) return false;
      options->trajectory_path = argv[++i];
    } else if (a == "--settings") {
      if (!need_value(i)) return false;
      options->settings_path = argv[++i];
    } else if (a == "--no-settings") {
      options->no_settings = true;
    } else if (a == "--package-path") {
      if (!need_value(i)) return false;
      options->package_paths.push_back(argv[++i]);
    } else if (a == "--fixed-base") {
      options->fixed_base = true;
    } else if (a == "--ground") {
      options->ground_plane = true;
    } else if (a == "--print-layout") {
      options->print_layout = true;
    } else if (a == "--select") {
      if (!need_value(i)) return false;
      if (!parse_int(argv[++i], &options->select_body)) return false;
      if (options->select_body < 0) {
        *error = "--select needs a body index >= 0";
        return false;
      }
    } else if (a == "--screenshot") {
      if (!need_value(i)) return false;
      options->screenshot_path = argv[++i];
    } else if (a == "--video") {
      if (!need_value(i)) return false;
      options->video_path = argv[++i];
      if (options->video_path.empty()) {
        *error = "--video needs a file name";
        return false;
      }
    } else if (a == "--set") {
      if (!need_value(i)) return false;
      options->overrides.push_back(argv[++i]);
    } else if (a == "--compare") {
      if (!need_value(i)) return false;
      if (!ParseCompareConfigs(argv[++i], &options->compare, error)) return false;
    } else if (!a.empty() && a[0] == '-') {
      *error = "unknown option " + a;
      return false;
    } else if (options->scene_path.empty()) {
      options->scene_path = a;
    } else {
      *error = "more than one scene given: " + a;
      return false;
    }
  }
  // No scene: RunViewer opens the default scene (DefaultScenePath) and the scene browser.
  return true;
}

}  // namespace contactlab
