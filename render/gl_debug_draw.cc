#include "render/gl_debug_draw.h"

#include <algorithm>
#include <cmath>

#include "render/shaders.h"

namespace contactlab {

namespace {

void PushVec(std::vector<float>* out, const Vec3& v) {
  out->push_back(static_cast<float>(v.x()));
  out->push_back(static_cast<float>(v.y()));
  out->push_back(static_cast<float>(v.z()));
}

void PushColor(std::vector<float>* out, const Color& c) {
  out->push_back(c.r);
  out->push_back(c.g);
  out->push_back(c.b);
  out->push_back(c.a);
}

}  // namespace

GlDebugDraw::GlDebugDraw() = default;

GlDebugDraw::~GlDebugDraw() {
  for (GLuint program :
       {line_program_, point_program_, arrow_program_, cone_program_, cone_line_program_}) {
    if (program) glDeleteProgram(program);
  }
}

bool GlDebugDraw::Init(std::string* error) {
  line_program_ = BuildProgram(shaders::kLineVertex, shaders::kLineFragment, error);
  if (!line_program_) return false;
  point_program_ = BuildProgram(shaders::kPointVertex, shaders::kPointFragment, error);
  if (!point_program_) return false;
  arrow_program_ = BuildProgram(shaders::kArrowVertex, shaders::kGlyphFragment, error);
  if (!arrow_program_) return false;
  cone_program_ = BuildProgram(shaders::kConeVertex, shaders::kGlyphFragment, error);
  if (!cone_program_) return false;
  cone_line_program_ = BuildProgram(shaders::kConeVertex, shaders::kLineFragment, error);
  if (!cone_line_program_) return false;
  line_buffer_.Create({3, 4}, false);
  point_buffer_.Create({3, 4, 1}, false);
  fill_buffer_.Create({3, 4}, false);
  const UnitMesh arrow = ArrowUnitMesh(), cone = ConeUnitMesh(), outline = ConeOutlineUnitMesh();
  arrow_mesh_.Create(arrow.vertices, kUnitVertexFloats, arrow.indices, {4, 4, 4, 4});
  cone_mesh_.Create(cone.vertices, kUnitVertexFloats, cone.indices, {4, 4, 4, 4});
  cone_outline_mesh_.CreateSharing(outline.vertices, kUnitVertexFloats, outline.indices,
                                   cone_mesh_);
  return true;
}

void GlDebugDraw::AddLineVertex(const Vec3& p, const Color& c) {
  PushVec(&lines_, p);
  PushColor(&lines_, c);
}

void GlDebugDraw::Line(const Vec3& a, const Vec3& b, const Color& color) {
  AddLineVertex(a, color);
  AddLineVertex(b, color);
  ++num_primitives_;
}

void GlDebugDraw::Point(const Vec3& p, double size, const Color& color) {
  PushVec(&points_, p);
  PushColor(&points_, color);
  points_.push_back(static_cast<float>(size));
  ++num_primitives_;
}

void GlDebugDraw::Arrow(const Vec3& from, const Vec3& to, const Color& color, double radius) {
  ArrowInstance a;
  if (!MakeArrowInstance(from, to, radius > 0 ? radius : arrow_radius_, color, &a)) return;
  arrows_.push_back(a);
  ++num_primitives_;
}

void GlDebugDraw::Cone(const Vec3& apex, const Vec3& axis, double height, double half_angle,
                       const Color& color) {
  ConeInstance c;
  if (!MakeConeInstance(apex, axis, height, half_angle, color, cone_alpha_, &c)) return;
  cones_.push_back(c);
  ++num_primitives_;
}

void GlDebugDraw::Text(const Vec3& p, const std::string& text, const Color& color) {
  texts_.push_back({p, text, color});
  ++num_primitives_;
}

void GlDebugDraw::Triangle(const Vec3& a, const Vec3& b, const Vec3& c, const Color& color_a,
                           const Color& color_b, const Color& color_c) {
  PushVec(&fills_, a);
  PushColor(&fills_, color_a);
  PushVec(&fills_, b);
  PushColor(&fills_, color_b);
  PushVec(&fills_, c);
  PushColor(&fills_, color_c);
  ++num_primitives_;
}

void GlDebugDraw::Clear() {
  fills_.clear();
  lines_.clear();
  points_.clear();
  arrows_.clear();
  cones_.clear();
  texts_.clear();
  num_primitives_ = 0;
}

void GlDebugDraw::Flush(const Eigen::Matrix4f& view, const Eigen::Matrix4f& proj, const Vec3& eye,
                        bool on_top) {
  draw_calls_ = 0;
  if (on_top) glClear(GL_DEPTH_BUFFER_BIT);
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LEQUAL);
  glEnable(GL_BLEND);
  glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
  glDisable(GL_CULL_FACE);
  const Eigen::Vector3f eye_f = eye.cast<float>();
  const Eigen::Matrix4f view_proj = proj * view;
  auto use = [&](GLuint program) {
    glUseProgram(program);
    SetUniform(program, "u_view", view);
    SetUniform(program, "u_proj", proj);
    SetUniform(program, "u_view_proj", view_proj);
  };

  // Filled surfaces (pressure maps) first, unlit with their exact vertex colours; they write
  // depth, so the glyphs drawn after them are not hidden behind them.
  if (!fills_.empty()) {
    use(line_program_);
    fill_buffer_.Upload(fills_, true);
    glDepthMask(GL_TRUE);
    fill_buffer_.Draw(GL_TRIANGLES);
    ++draw_calls_;
  }
  // Opaque arrows: they write depth.
  if (!arrows_.empty()) {
    use(arrow_program_);
    SetUniform(arrow_program_, "u_eye", eye_f);
    arrow_mesh_.UploadInstances(reinterpret_cast<const float*>(arrows_.data()),
                                static_cast<int>(arrows_.size()));
    glDepthMask(GL_TRUE);
    arrow_mesh_.Draw(GL_TRIANGLES);
    ++draw_calls_;
  }
  // Lines (normals, gaps, ...), then the cones' outlines (opaque).
  if (!lines_.empty()) {
    use(line_program_);
    line_buffer_.Upload(lines_, true);
    glLineWidth(1.0f);
    line_buffer_.Draw(GL_LINES);
    ++draw_calls_;
  }
  if (!cones_.empty()) {
    cone_mesh_.UploadInstances(reinterpret_cast<const float*>(cones_.data()),
                               static_cast<int>(cones_.size()));
    use(cone_line_program_);
    SetUniform(cone_line_program_, "u_outline", 1);
    glLineWidth(1.0f);
    cone_outline_mesh_.Draw(GL_LINES);
    ++draw_calls_;
    // Translucent cone surfaces: tested against depth, not written.
    use(cone_program_);
    SetUniform(cone_program_, "u_eye", eye_f);
    SetUniform(cone_program_, "u_outline", 0);
    glDepthMask(GL_FALSE);
    cone_mesh_.Draw(GL_TRIANGLES);
    ++draw_calls_;
    glDepthMask(GL_TRUE);
  }
  // Points last and always visible.
  if (!points_.empty()) {
    glDisable(GL_DEPTH_TEST);
    glEnable(GL_PROGRAM_POINT_SIZE);
    use(point_program_);
    SetUniform(point_program_, "u_pixel_scale", pixel_scale_);
    point_buffer_.Upload(points_, true);
    point_buffer_.Draw(GL_POINTS);
    ++draw_calls_;
    glEnable(GL_DEPTH_TEST);
  }
  glUseProgram(0);
}

}  // namespace contactlab
