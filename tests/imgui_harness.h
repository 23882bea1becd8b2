// A headless Dear ImGui context for drawing panels in tests: no window and no renderer, the
// draw data is built and dropped. The mouse is driven by hand, one frame at a time.
#pragma once

#include <imgui.h>

#include <cfloat>
#include <functional>

namespace contactlab {

class ImGuiHarness {
 public:
  ImGuiHarness() {
    IMGUI_CHECKVERSION();
    context_ = ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.DisplaySize = ImVec2(800, 600);
    io.IniFilename = nullptr;
    unsigned char* pixels = nullptr;
    int w = 0, h = 0;
    io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);  // builds the default font
  }
  ~ImGuiHarness() { ImGui::DestroyContext(context_); }
  ImGuiHarness(const ImGuiHarness&) = delete;
  ImGuiHarness& operator=(const ImGuiHarness&) = delete;

  // One frame with the mouse at (x, y), the left button down or up, drawing `body` inside a
  // 400 x 560 window at the origin (no title bar).
  void Frame(const std::function<void()>& body, float x = -1, float y = -1, bool down = false) {
    ImGuiIO& io = ImGui::GetIO();
    io.DeltaTime = 1.0f / 60.0f;
    io.MousePos = x < 0 ? ImVec2(-FLT_MAX, -FLT_MAX) : ImVec2(x, y);
    io.MouseDown[0] = down;
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(ImVec2(400, 560));
    ImGui::Begin("panel", nullptr,
                 ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoCollapse |
                     ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize);
    body();
    ImGui::End();
    ImGui::Render();
  }

  // A click (press then release) at (x, y): two frames.
  void Click(const std::function<void()>& body, float x, float y) {
    Frame(body, x, y, true);
    Frame(body, x, y, false);
  }

 private:
  ImGuiContext* context_ = nullptr;
};

}  // namespace contactlab
