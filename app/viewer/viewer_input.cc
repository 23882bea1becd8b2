// The viewer's input: keyboard shortcuts, the mouse in the 3D view (orbit, pan, zoom, picking
// contacts and bodies, the Ctrl+drag mouse spring) and the scripted events of --input, which set
// ImGui's mouse and key state frame by frame. See viewer_internal.h.
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "app/params.h"
#include "app/viewer/viewer_internal.h"

namespace contactlab {
namespace viewer_internal {

std::optional<RayHit> Viewer::PickBody(float x, float y) const {
  const Ray ray = camera_.PickRay(x - vp_x_, y - vp_y_, vp_w_, vp_h_);
  if (shown_poses_.size() != model_.bodies.size() || !ray.direction.allFinite() ||
      ray.direction.squaredNorm() == 0) {
    return std::nullopt;
  }
  try {
    return CastRay(model_, shown_poses_, ray.origin, ray.direction, /*include_static=*/false);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

void Viewer::BeginBodyDrag(float x, float y) {
  const std::optional<RayHit> hit = PickBody(x, y);
  if (!hit || hit->body < 0) return;
  const Pose& X_WB = shown_poses_[hit->body];
  const Vec3 point_B = X_WB.Inverse().q * hit->point + X_WB.Inverse().p;
  drag_spring_ = MakeMouseSpring(model_, hit->body, point_B, hit->point);
  drag_depth_ = (hit->point - camera_.Eye()).dot(camera_.Forward());
  selected_body_ = hit->body;
  body_drag_ = true;
  spring_dirty_ = true;
}

void Viewer::UpdateBodyDrag(float x, float y) {
  // The target is where the cursor's ray meets the plane through the grab point facing the eye.
  const Ray ray = camera_.PickRay(x - vp_x_, y - vp_y_, vp_w_, vp_h_);
  const double along = ray.direction.dot(camera_.Forward());
  if (!(along > 1e-6)) return;
  const Vec3 target = ray.origin + (drag_depth_ / along) * ray.direction;
  if (!target.allFinite()) return;
  drag_spring_.target_W = target;
  spring_dirty_ = true;
}

void Viewer::FocusSelectedBody() {
  if (selected_body_ < 0 || selected_body_ >= static_cast<int>(shown_poses_.size())) return;
  const Pose& X_WB = shown_poses_[selected_body_];
  camera_.target = X_WB.q * model_.bodies[selected_body_].com + X_WB.p;
  camera_.distance = std::max(camera_.min_distance, 6.0 * typical_size_);
}

void Viewer::ApplyPreset(CameraPreset preset) {
  const Bounds3 bounds = FiniteGeometryBounds(model_, ShownPoses());
  ApplyCameraPreset(preset, bounds, vp_h_ > 0 ? vp_w_ / vp_h_ : 1.0, &camera_);
  // A preset frames the scene: a tracking camera would pull the target away again.
  if (preset == CameraPreset::kFit) tracking_ = CameraTracking::kOff;
}

void Viewer::CycleTracking() {
  switch (tracking_) {
    case CameraTracking::kOff:
      tracking_ = selected_body_ >= 0 ? CameraTracking::kSelectedBody
                                      : CameraTracking::kActiveContacts;
      break;
    case CameraTracking::kSelectedBody:
      tracking_ = CameraTracking::kActiveContacts;
      break;
    case CameraTracking::kActiveContacts:
      tracking_ = CameraTracking::kOff;
      break;
  }
}

bool Viewer::TrackingGoal(Vec3* goal) {
  if (tracking_ == CameraTracking::kSelectedBody) {
    const std::vector<Pose>& X = ShownPoses();
    if (selected_body_ < 0 || selected_body_ >= static_cast<int>(X.size())) return false;
    *goal = X[selected_body_].q * model_.bodies[selected_body_].com + X[selected_body_].p;
    return goal->allFinite();
  }
  if (tracking_ == CameraTracking::kActiveContacts) {
    const StepRecord* shown = DisplayedRecord();
    if (!shown || shown->contacts.empty()) return false;
    Vec3 sum = Vec3::Zero(), all = Vec3::Zero();
    int n = 0;
    for (size_t i = 0; i < shown->contacts.size(); ++i) {
      const Vec3& p = shown->contacts[i].point;
      if (!p.allFinite()) continue;
      all += p;
      if (i < rows_.size() && rows_[i].gamma_n > 0) {
        sum += p;
        ++n;
      }
    }
    *goal = n > 0 ? Vec3(sum / n) : Vec3(all / static_cast<double>(shown->contacts.size()));
    return goal->allFinite();
  }
  return false;
}

void Viewer::UpdateTracking(double dt) {
  if (tracking_ == CameraTracking::kOff) return;
  Vec3 goal;
  if (!TrackingGoal(&goal)) return;
  camera_.target = SmoothFollow(camera_.target, goal, dt, tracking_time_constant_);
}

int Viewer::BodyIndex(const std::string& s) const {
  if (const int b = model_.FindBody(s); b >= 0) return b;
  try {
    size_t used = 0;
    const int b = std::stoi(s, &used);
    if (used == s.size() && b >= 0 && b < static_cast<int>(model_.bodies.size())) return b;
  } catch (const std::exception&) {
  }
  return -1;
}

void Viewer::InjectInput(int frame) {
  ImGuiIO& io = ImGui::GetIO();
  for (int k : input_keys_down_) io.KeysDown[k] = false;
  input_keys_down_.clear();
  bool key_ctrl = false, key_shift = false;
  for (const InputEvent* e : EventsAtFrame(input_events_, frame)) {
    switch (e->kind) {
      case InputEvent::Kind::kKey: {
        int code = 0;
        if (e->key == "space") code = GLFW_KEY_SPACE;
        else if (e->key.size() == 1 && e->key[0] >= '0' && e->key[0] <= '9')
          code = GLFW_KEY_0 + (e->key[0] - '0');
        else if (e->key == "right") code = GLFW_KEY_RIGHT;
        else if (e->key == "backspace") code = GLFW_KEY_BACKSPACE;
        else if (e->key == "escape") code = GLFW_KEY_ESCAPE;
        else code = GLFW_KEY_A + (e->key[0] - 'a');
        io.KeysDown[code] = true;
        input_keys_down_.push_back(code);
        key_ctrl = key_ctrl || e->ctrl;
        key_shift = key_shift || e->shift;
        break;
      }
      case InputEvent::Kind::kMove:
        input_mouse_ = ImVec2(static_cast<float>(e->x), static_cast<float>(e->y));
        break;
      case InputEvent::Kind::kMoveBy:
        input_mouse_.x += static_cast<float>(e->x);
        input_mouse_.y += static_cast<float>(e->y);
        break;
      case InputEvent::Kind::kMoveToBody: {
        const int b = BodyIndex(e->body);
        if (b < 0) break;
        const std::vector<Pose>& poses = ShownPoses();
        const Vec3 com = poses[b].q * model_.bodies[b].com + poses[b].p;
        double px = 0, py = 0;
        if (camera_.Project(com, vp_w_, vp_h_, &px, &py)) {
          input_mouse_ = ImVec2(static_cast<float>(vp_x_ + px + e->x),
                                static_cast<float>(vp_y_ + py + e->y));
        }
        break;
      }
      case InputEvent::Kind::kDown:
        input_down_[e->button] = true;
        input_ctrl_ = e->ctrl;
        input_shift_ = e->shift;
        break;
      case InputEvent::Kind::kUp:
        input_down_[e->button] = false;
        if (!input_down_[0] && !input_down_[1] && !input_down_[2]) {
          input_ctrl_ = input_shift_ = false;
        }
        break;
      case InputEvent::Kind::kWheel:
        io.MouseWheel += static_cast<float>(e->x);
        break;
      case InputEvent::Kind::kPause:
        playback_.playing = false;
        break;
      case InputEvent::Kind::kPlay:
        playback_.playing = true;
        break;
      case InputEvent::Kind::kStep:
        playback_.playing = false;
        steps_requested_ += e->count;
        break;
      case InputEvent::Kind::kScrub:
        // The timeline's slider: pauses and shows that recorded step (clamped to the history).
        playback_.playing = false;
        if (!history_.empty()) {
          WaitIdleKeepingShownStep();
          timeline_.follow_live = false;
          timeline_.slider = std::clamp(e->count - history_.oldest_step(), 0, history_.size() - 1);
          OnNewRecord();
          HandleTimelineRequests();
        }
        break;
      case InputEvent::Kind::kResolve:
        timeline_.resolve_requested = true;
        HandleTimelineRequests();
        break;
      case InputEvent::Kind::kResume:
        timeline_.resume_requested = true;
        HandleTimelineRequests();
        break;
      case InputEvent::Kind::kSet: {
        // As the parameter panel: validated at once, sent with the next job.
        StepSettings s = edit_settings_;
        try {
          SetStepParam(e->param, e->value, &s);
          s.Validate();
          edit_settings_ = s;
          settings_error_.clear();
          settings_dirty_ = true;
        } catch (const std::exception& ex) {
          settings_error_ = ex.what();
        }
        break;
      }
    }
  }
  io.MousePos = input_mouse_;
  for (int b = 0; b < 3; ++b) io.MouseDown[b] = input_down_[b];
  io.KeyCtrl = input_ctrl_ || key_ctrl;
  io.KeyShift = input_shift_ || key_shift;
}

void Viewer::PressScriptedKeys() {
  // After ImGui::NewFrame: a key of the script is pressed anew on each frame of its range (ImGui
  // would see a key down on consecutive frames as held, pressed once, then auto-repeated by the
  // wall clock).
  ImGuiIO& io = ImGui::GetIO();
  for (int k : input_keys_down_) io.KeysDownDuration[k] = 0.0f;
}

bool Viewer::PickContact(float x, float y) {
  // Only a drawn contact can be clicked: not a hidden face contact (the patch is drawn
  // instead), a hidden candidate without impulse or one outside the focus.
  selected_contact_ = ContactUnder(x, y);
  return selected_contact_ >= 0;
}

void Viewer::HandleInput() {
  ImGuiIO& io = ImGui::GetIO();
  if (!io.WantCaptureKeyboard) {
    if (ImGui::IsKeyPressed(GLFW_KEY_SPACE, false)) playback_.playing = !playback_.playing;
    if (ImGui::IsKeyPressed(GLFW_KEY_RIGHT, true)) {
      playback_.playing = false;
      playback_.step_requested = true;
    }
    if (ImGui::IsKeyPressed(GLFW_KEY_BACKSPACE, false)) playback_.reset_requested = true;
    if (ImGui::IsKeyPressed(GLFW_KEY_H, false)) show_help_ = !show_help_;
    if (ImGui::IsKeyPressed(GLFW_KEY_T, false)) {
      overlay_.transparent_bodies = !overlay_.transparent_bodies;
    }
    if (ImGui::IsKeyPressed(GLFW_KEY_F, false)) overlay_.fit_requested = true;
    // G: contact glyphs of every body, of the selected body, of its island.
    if (ImGui::IsKeyPressed(GLFW_KEY_G, false)) overlay_.focus = NextGlyphFocus(overlay_.focus);
    // P: refit the pressure legend's held range to the shown step (from fixed mode too).
    if (ImGui::IsKeyPressed(GLFW_KEY_P, false)) {
      pressure_.range.mode = PressureRangeMode::kHold;
      pressure_.range.refit_requested = true;
    }
    if (io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_R, false)) reload_requested_ = true;
    // R: "Re-solve with current parameters" of the timeline (honoured while paused).
    if (!io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_R, false)) {
      timeline_.resolve_requested = true;
      HandleTimelineRequests();
    }
    // C: centre on the selected body; Shift+C: the tracking camera's next mode.
    if (ImGui::IsKeyPressed(GLFW_KEY_C, false)) {
      if (io.KeyShift) {
        CycleTracking();
      } else {
        FocusSelectedBody();
      }
    }
    // Camera presets: 1 front, 2 side, 3 top, 0 fit the scene.
    if (ImGui::IsKeyPressed(GLFW_KEY_1, false)) ApplyPreset(CameraPreset::kFront);
    if (ImGui::IsKeyPressed(GLFW_KEY_2, false)) ApplyPreset(CameraPreset::kSide);
    if (ImGui::IsKeyPressed(GLFW_KEY_3, false)) ApplyPreset(CameraPreset::kTop);
    if (ImGui::IsKeyPressed(GLFW_KEY_0, false)) ApplyPreset(CameraPreset::kFit);
    // V: start / stop recording a video (the Record button of the playback panel).
    if (!io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_V, false)) video_toggle_requested_ = true;
    if (ImGui::IsKeyPressed(GLFW_KEY_A, false)) {
      vsettings_.show_analysis = !vsettings_.show_analysis;
    }
    if (ImGui::IsKeyPressed(GLFW_KEY_ESCAPE, false)) {
      selected_body_ = -1;
      selected_contact_ = -1;
    }
  }
  // Mouse: a drag belongs to the viewport only if it started there.
  const ImVec2 m = io.MousePos;
  const bool in_viewport =
      m.x >= vp_x_ && m.y >= vp_y_ && m.x < vp_x_ + vp_w_ && m.y < vp_y_ + vp_h_;
  if (drag_button_ < 0 && !io.WantCaptureMouse && in_viewport) {
    for (int b = 0; b < 3; ++b) {
      if (ImGui::IsMouseClicked(b)) {
        drag_button_ = b;
        drag_distance_ = 0;
        // Ctrl + left drag on a body pulls it with a spring.
        if (b == 0 && io.KeyCtrl) BeginBodyDrag(m.x, m.y);
      }
    }
    if (ImGui::IsMouseDoubleClicked(0) && !io.KeyCtrl) {
      if (const std::optional<RayHit> hit = PickBody(m.x, m.y)) {
        selected_body_ = hit->body;
        FocusSelectedBody();
      }
    }
    if (io.MouseWheel != 0) camera_.Zoom(std::pow(0.88, io.MouseWheel));
  }
  if (drag_button_ >= 0) {
    drag_distance_ += std::abs(io.MouseDelta.x) + std::abs(io.MouseDelta.y);
    if (!ImGui::IsMouseDown(drag_button_)) {
      if (body_drag_) {
        body_drag_ = false;  // released: the next job clears the spring
        spring_dirty_ = true;
      } else if (drag_button_ == 0 && drag_distance_ < 4.0f) {
        // A left click that did not orbit selects the contact under the cursor, else the body
        // under it (or nothing).
        if (!PickContact(m.x, m.y)) {
          const std::optional<RayHit> hit = PickBody(m.x, m.y);
          selected_body_ = hit ? hit->body : -1;
        }
      }
      drag_button_ = -1;
    } else if (body_drag_) {
      if (io.MouseDelta.x != 0 || io.MouseDelta.y != 0) UpdateBodyDrag(m.x, m.y);
    } else if (io.MouseDelta.x != 0 || io.MouseDelta.y != 0) {
      const bool pan = drag_button_ != 0 || io.KeyShift;
      if (pan) {
        camera_.Pan(io.MouseDelta.x, io.MouseDelta.y, vp_h_);
        tracking_ = CameraTracking::kOff;  // the user moves the target away
      } else {
        camera_.Orbit(-0.008 * io.MouseDelta.x, 0.008 * io.MouseDelta.y);
      }
    }
  }
}

}  // namespace viewer_internal
}  // namespace contactlab
