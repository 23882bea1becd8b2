// OpenGL implementation of the engine's DebugDraw sink. Primitives are batched on the CPU into
// streams reused from frame to frame (unlit filled triangles with vertex colours, lines, points
// as point sprites) and instance records (arrows, cones: render/glyph_instances.h, placed by the
// vertex shaders on one unit mesh per glyph type), and drawn by Flush() after the scene,
// optionally on top of it: one draw call per kind, whatever the number of primitives.
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "engine/inspect/debug_draw.h"
#include "render/gl_util.h"
#include "render/glyph_instances.h"

namespace contactlab {

class GlDebugDraw final : public DebugDraw {
 public:
  struct TextItem {
    Vec3 p;
    std::string text;
    Color color;
  };

  GlDebugDraw();
  ~GlDebugDraw() override;

  // Compiles the programs; needs a current GL 3.3 core context. Returns false with `error`.
  bool Init(std::string* error);

  void Line(const Vec3& a, const Vec3& b, const Color& color) override;
  void Point(const Vec3& p, double size, const Color& color) override;
  using DebugDraw::Arrow;
  void Arrow(const Vec3& from, const Vec3& to, const Color& color, double radius) override;
  void Cone(const Vec3& apex, const Vec3& axis, double height, double half_angle,
            const Color& color) override;
  void Text(const Vec3& p, const std::string& text, const Color& color) override;
  void Triangle(const Vec3& a, const Vec3& b, const Vec3& c, const Color& color_a,
                const Color& color_b, const Color& color_c) override;

  // Shaft radius of arrows [m] (heads are wider); set from the view scale each frame.
  void set_arrow_radius(double r) { arrow_radius_ = r; }
  // Opacity of cone surfaces; cone outlines stay opaque.
  void set_cone_alpha(float a) { cone_alpha_ = a; }
  // Device pixels per logical pixel (point sizes are logical).
  void set_pixel_scale(float s) { pixel_scale_ = s; }

  // Draws everything batched since the last Clear(). With on_top the depth buffer is cleared
  // first so glyphs show through bodies while still occluding each other.
  void Flush(const Eigen::Matrix4f& view, const Eigen::Matrix4f& proj, const Vec3& eye,
             bool on_top);
  void Clear();

  // Labels are drawn by the caller (the UI layer owns fonts).
  const std::vector<TextItem>& texts() const { return texts_; }
  int num_primitives() const { return num_primitives_; }
  // Draw calls issued by the last Flush (at most one per kind: fills, arrows, lines, cone
  // outlines, cone surfaces, points).
  int draw_calls() const { return draw_calls_; }
  int num_arrows() const { return static_cast<int>(arrows_.size()); }
  int num_cones() const { return static_cast<int>(cones_.size()); }
  // Times a GPU stream grew its storage since Init (constant once the largest frame was drawn).
  int buffer_reallocations() const {
    return line_buffer_.reallocations() + point_buffer_.reallocations() +
           fill_buffer_.reallocations() + arrow_mesh_.reallocations() + cone_mesh_.reallocations();
  }

 private:
  void AddLineVertex(const Vec3& p, const Color& c);

  GLuint line_program_ = 0, point_program_ = 0, arrow_program_ = 0, cone_program_ = 0,
         cone_line_program_ = 0;
  VertexBuffer line_buffer_, point_buffer_, fill_buffer_;
  InstancedMesh arrow_mesh_, cone_mesh_, cone_outline_mesh_;
  std::vector<float> fills_;   // x y z r g b a per vertex, three per triangle
  std::vector<float> lines_;   // x y z r g b a per vertex
  std::vector<float> points_;  // x y z r g b a size
  std::vector<ArrowInstance> arrows_;
  std::vector<ConeInstance> cones_;
  std::vector<TextItem> texts_;
  double arrow_radius_ = 0.002;
  float cone_alpha_ = 0.30f;
  float pixel_scale_ = 1.0f;
  int num_primitives_ = 0;
  int draw_calls_ = 0;
};

}  // namespace contactlab
