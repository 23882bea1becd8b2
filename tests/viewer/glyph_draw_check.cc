// GlDebugDraw in a real GL 3.3 core context (run under Xvfb): instanced glyphs render where the
// camera projects them, in their colours, a per-arrow shaft radius widens its shaft, a frame of
// thousands of glyphs is still one draw call per glyph kind, and redrawing the same frame
// reallocates no GPU buffer.
//
// usage: glyph_draw_check [OUT.png]   (writes the checked frame when a path is given)
// Prints one line per check; exits 0 when all hold, 1 when one fails, 2 without a GL window.
#include <epoxy/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "render/camera.h"
#include "render/gl_debug_draw.h"
#include "render/screenshot.h"

namespace {

using namespace contactlab;

constexpr int kSize = 400;
int g_failures = 0;

void Check(bool ok, const std::string& what) {
  std::printf("%s: %s\n", ok ? "ok  " : "FAIL", what.c_str());
  if (!ok) ++g_failures;
}

struct Rgb {
  int r, g, b;
};

Rgb PixelAt(const std::vector<std::uint8_t>& rgba, double x, double y) {
  const int xi = static_cast<int>(std::floor(x)), yi = static_cast<int>(std::floor(y));
  const size_t i = 4 * (static_cast<size_t>(yi) * kSize + xi);
  return Rgb{rgba[i], rgba[i + 1], rgba[i + 2]};
}

std::string Describe(const Rgb& c) {
  return "(" + std::to_string(c.r) + "," + std::to_string(c.g) + "," + std::to_string(c.b) + ")";
}

}  // namespace

int main(int argc, char** argv) {
  if (!glfwInit()) {
    std::fprintf(stderr, "glyph_draw_check: no display\n");
    return 2;
  }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_SAMPLES, 0);
  GLFWwindow* window = glfwCreateWindow(kSize, kSize, "glyph_draw_check", nullptr, nullptr);
  if (!window) {
    std::fprintf(stderr, "glyph_draw_check: cannot create a GL 3.3 core window\n");
    glfwTerminate();
    return 2;
  }
  glfwMakeContextCurrent(window);
  int exit_code = 0;
  {
    GlDebugDraw draw;
    std::string error;
    if (!draw.Init(&error)) {
      std::fprintf(stderr, "glyph_draw_check: %s\n", error.c_str());
      return 2;
    }
    // Looking along +y at the xz plane: screen right is +x, up is +z.
    OrbitCamera camera;
    camera.Set(Vec3::Zero(), 3.0, -90.0, 0.0);
    const Eigen::Matrix4f view = camera.ViewMatrix();
    const Eigen::Matrix4f proj = camera.ProjectionMatrix(1.0);
    auto project = [&](const Vec3& p) {
      double x = 0, y = 0;
      camera.Project(p, kSize, kSize, &x, &y);
      return std::pair<double, double>{x, y};
    };
    const Color red{1.0f, 0.1f, 0.1f, 1.0f}, green{0.1f, 1.0f, 0.1f, 1.0f},
        blue{0.1f, 0.2f, 1.0f, 1.0f}, yellow{1.0f, 0.9f, 0.1f, 1.0f};
    // Pixels per metre in the plane y = 0.
    const double px_per_m = project(Vec3(1, 0, 0)).first - project(Vec3(0, 0, 0)).first;

    auto frame = [&](int extra_glyphs) {
      draw.Clear();
      draw.set_arrow_radius(0.01);
      draw.set_cone_alpha(0.5f);
      // The checked glyphs: a red arrow (default radius) high up, a yellow one with a thick
      // per-arrow shaft low down, a green cone on the right, a blue point on the left.
      draw.Arrow(Vec3(-0.8, 0, 0.6), Vec3(0.6, 0, 0.6), red);
      draw.Arrow(Vec3(-0.8, 0, -0.6), Vec3(0.6, 0, -0.6), yellow, 0.06);
      draw.Cone(Vec3(0.7, 0, -0.2), Vec3(0, 0, 1), 0.5, 0.45, green);
      draw.Point(Vec3(-0.7, 0, 0.1), 24.0, blue);
      draw.Line(Vec3(-0.9, 0, 0.95), Vec3(0.9, 0, 0.95), Color{1, 1, 1, 1});
      // Many more, tiny, in the top-left corner, away from the checked pixels.
      for (int i = 0; i < extra_glyphs; ++i) {
        const double t = double(i) / std::max(extra_glyphs, 1);
        const Vec3 p(-1.05 + 0.05 * t, 0.2, 1.05 + 0.03 * std::sin(40 * t));
        draw.Arrow(p, p + Vec3(0.02, 0, 0.01), red);
        if (i % 4 == 0) draw.Cone(p, Vec3(0, 0, 1), 0.02, 0.4, green);
        if (i % 8 == 0) draw.Point(p, 3.0, blue);
        if (i % 8 == 0) draw.Line(p, p + Vec3(0.01, 0, 0), blue);
        if (i % 16 == 0) draw.Triangle(p, p + Vec3(0.01, 0, 0), p + Vec3(0, 0, 0.01), red, green,
                                       blue);
      }
      glViewport(0, 0, kSize, kSize);
      glClearColor(0.0f, 0.0f, 0.0f, 1.0f);
      glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
      draw.Flush(view, proj, camera.Eye(), true);
      glFinish();
    };

    frame(0);
    Check(draw.draw_calls() == 5,
          "a frame of 2 arrows, a cone, a point and a line: 5 draw calls (arrows, lines, cone "
          "outlines, cone surfaces, points), got " + std::to_string(draw.draw_calls()));
    frame(4000);
    Check(draw.num_arrows() == 4002 && draw.num_cones() == 1001,
          "4002 arrows and 1001 cones batched, got " + std::to_string(draw.num_arrows()) + " and " +
              std::to_string(draw.num_cones()));
    Check(draw.draw_calls() == 6,
          "with 4000 more arrows, 1000 cones, 500 points, 500 lines and 250 triangles: 6 draw "
          "calls, got " + std::to_string(draw.draw_calls()));
    const int reallocations = draw.buffer_reallocations();
    for (int k = 0; k < 5; ++k) frame(4000);
    Check(draw.buffer_reallocations() == reallocations,
          "redrawing the same frame 5 times reallocates no buffer (" +
              std::to_string(draw.buffer_reallocations() - reallocations) + " reallocations)");
    for (int k = 0; k < 3; ++k) frame(1000);
    Check(draw.buffer_reallocations() == reallocations,
          "smaller frames reuse the buffers (" +
              std::to_string(draw.buffer_reallocations() - reallocations) + " reallocations)");
    frame(4000);
    const std::vector<std::uint8_t> rgba = ReadPixelsTopDown(kSize, kSize);
    if (argc > 1) {
      std::string write_error;
      if (!WritePng(argv[1], kSize, kSize, rgba, &write_error)) {
        std::fprintf(stderr, "glyph_draw_check: %s\n", write_error.c_str());
      }
    }

    // The red arrow's shaft at its middle, and off its axis by 3 radii (background).
    auto [rx, ry] = project(Vec3(-0.1, 0, 0.6));
    const Rgb shaft = PixelAt(rgba, rx, ry);
    Check(shaft.r > 200 && shaft.g < 110 && shaft.b < 110,
          "red arrow shaft at its projected middle " + Describe(shaft));
    const Rgb beside = PixelAt(rgba, rx, ry - 3 * 0.01 * px_per_m - 1);
    Check(beside.r < 20 && beside.g < 20 && beside.b < 20,
          "background 3 shaft radii beside the red arrow " + Describe(beside));
    // Its head: 2.4 radii wide, so 2 radii off the axis near the head's base it is red.
    auto [hx, hy] = project(Vec3(0.6 - 0.06, 0, 0.6 + 0.015));
    const Rgb head = PixelAt(rgba, hx, hy);
    Check(head.r > 150 && head.g < 110 && head.b < 110,
          "red arrow head, wider than its shaft " + Describe(head));
    // The yellow arrow's per-arrow radius 0.06: 3 default radii (0.03) off its axis is yellow.
    auto [yx, yy] = project(Vec3(-0.1, 0, -0.6 + 0.03));
    const Rgb thick = PixelAt(rgba, yx, yy);
    Check(thick.r > 150 && thick.g > 130 && thick.b < 110,
          "yellow arrow with shaft radius 0.06, 0.03 off its axis " + Describe(thick));
    // The cone (translucent green surface over black) at its middle.
    auto [cx, cy] = project(Vec3(0.7, 0, 0.1));
    const Rgb cone = PixelAt(rgba, cx, cy);
    Check(cone.g > 60 && cone.g > 2 * cone.r && cone.g > 2 * cone.b,
          "green cone surface at its projected middle " + Describe(cone));
    // Outside the cone beside its apex: background.
    auto [ox, oy] = project(Vec3(0.7 + 0.15, 0, -0.15));
    const Rgb outside = PixelAt(rgba, ox, oy);
    Check(outside.r < 20 && outside.g < 20 && outside.b < 20,
          "background beside the cone's apex " + Describe(outside));
    // The point sprite keeps its exact colour at its centre.
    auto [px, py] = project(Vec3(-0.7, 0, 0.1));
    const Rgb point = PixelAt(rgba, px, py);
    Check(std::abs(point.r - 26) <= 3 && std::abs(point.g - 51) <= 3 && std::abs(point.b - 255) <= 3,
          "blue point's centre " + Describe(point));
    // The white line.
    auto [lx, ly] = project(Vec3(0.0, 0, 0.95));
    const Rgb line_px = PixelAt(rgba, lx, ly);
    const Rgb line_px2 = PixelAt(rgba, lx, ly - 1);
    Check(std::max(line_px.r, line_px2.r) > 200 && std::max(line_px.b, line_px2.b) > 200,
          "white line " + Describe(line_px) + " " + Describe(line_px2));
    if (g_failures > 0) exit_code = 1;
  }
  glfwDestroyWindow(window);
  glfwTerminate();
  std::printf("glyph_draw_check: %s\n", g_failures == 0 ? "all checks hold" : "FAILED");
  return exit_code;
}
