#include "render/gl_debug_draw.h"

#include <algorithm>
#include <cmath>

#include "render/shaders.h"

namespace contactlab {

namespace {

constexpr int kArrowSegments = 12;
constexpr int kConeSegments = 28;

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
  if (line_program_) glDeleteProgram(line_program_);
  if (point_program_) glDeleteProgram(point_program_);
  if (glyph_program_) glDeleteProgram(glyph_program_);
}

bool GlDebugDraw::Init(std::string* error) {
  line_program_ = BuildProgram(shaders::kLineVertex, shaders::kLineFragment, error);
  if (!line_program_) return false;
  point_program_ = BuildProgram(shaders::kPointVertex, shaders::kPointFragment, error);
  if (!point_program_) return false;
  glyph_program_ = BuildProgram(shaders::kGlyphVertex, shaders::kGlyphFragment, error);
  if (!glyph_program_) return false;
  line_buffer_.Create({3, 4}, false);
  point_buffer_.Create({3, 4, 1}, false);
  solid_buffer_.Create({3, 3, 4}, false);
  cone_buffer_.Create({3, 3, 4}, false);
  fill_buffer_.Create({3, 4}, false);
  return true;
}

void GlDebugDraw::AddLineVertex(const Vec3& p, const Color& c) {
  PushVec(&lines_, p);
  PushColor(&lines_, c);
}

void GlDebugDraw::AddTriangle(std::vector<float>* out, const Vec3& a, const Vec3& b, const Vec3& c,
                              const Vec3& na, const Vec3& nb, const Vec3& nc, const Color& color) {
  PushVec(out, a);
  PushVec(out, na);
  PushColor(out, color);
  PushVec(out, b);
  PushVec(out, nb);
  PushColor(out, color);
  PushVec(out, c);
  PushVec(out, nc);
  PushColor(out, color);
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
  const Vec3 d = to - from;
  const double length = d.norm();
  if (!(length > 1e-12) || !d.allFinite()) return;
  ++num_primitives_;
  const Vec3 u = d / length;
  const Vec3 e1 = AnyOrthogonal(u);
  const Vec3 e2 = u.cross(e1);
  const double r = radius > 0 ? radius : arrow_radius_;
  const double head_length = std::min(0.45 * length, 7.0 * r);
  const double head_radius = 2.4 * r;
  const double shaft_length = length - head_length;
  const Vec3 head_base = from + shaft_length * u;
  // Cone slope for the head normals.
  const double slope = head_radius / head_length;
  for (int i = 0; i < kArrowSegments; ++i) {
    const double a0 = 2.0 * kPi * i / kArrowSegments;
    const double a1 = 2.0 * kPi * (i + 1) / kArrowSegments;
    const Vec3 r0 = std::cos(a0) * e1 + std::sin(a0) * e2;
    const Vec3 r1 = std::cos(a1) * e1 + std::sin(a1) * e2;
    // Shaft side.
    const Vec3 p00 = from + r * r0, p01 = from + r * r1;
    const Vec3 p10 = head_base + r * r0, p11 = head_base + r * r1;
    AddTriangle(&solid_, p00, p01, p11, r0, r1, r1, color);
    AddTriangle(&solid_, p00, p11, p10, r0, r1, r0, color);
    // Head side.
    const Vec3 h0 = head_base + head_radius * r0, h1 = head_base + head_radius * r1;
    const Vec3 n0 = (r0 + slope * u).normalized(), n1 = (r1 + slope * u).normalized();
    AddTriangle(&solid_, h0, h1, to, n0, n1, (n0 + n1).normalized(), color);
    // Head base disk.
    AddTriangle(&solid_, head_base, h1, h0, -u, -u, -u, color);
  }
}

void GlDebugDraw::Cone(const Vec3& apex, const Vec3& axis, double height, double half_angle,
                       const Color& color) {
  if (!(height > 0) || !(half_angle > 0) || !(half_angle < 0.5 * kPi)) return;
  const double n = axis.norm();
  if (!(n > 0)) return;
  ++num_primitives_;
  const Vec3 u = axis / n;
  const Vec3 e1 = AnyOrthogonal(u);
  const Vec3 e2 = u.cross(e1);
  const double radius = height * std::tan(half_angle);
  const Vec3 base = apex + height * u;
  const Color fill = WithAlpha(color, color.a * cone_alpha_);
  const double c = std::cos(half_angle), s = std::sin(half_angle);
  Vec3 prev_rim, prev_radial;
  for (int i = 0; i <= kConeSegments; ++i) {
    const double a = 2.0 * kPi * i / kConeSegments;
    const Vec3 radial = std::cos(a) * e1 + std::sin(a) * e2;
    const Vec3 rim = base + radius * radial;
    if (i > 0) {
      // Outward normal of the lateral surface: cos θ radial − sin θ axis.
      const Vec3 n_prev = c * prev_radial - s * u;
      const Vec3 n_cur = c * radial - s * u;
      const Vec3 n_mid = (n_prev + n_cur).normalized();
      AddTriangle(&cones_, apex, prev_rim, rim, n_mid, n_prev, n_cur, fill);
      // Rim outline.
      AddLineVertex(prev_rim, color);
      AddLineVertex(rim, color);
    }
    prev_rim = rim;
    prev_radial = radial;
  }
  // Four generators so the opening angle reads at a glance.
  for (int k = 0; k < 4; ++k) {
    const double a = 0.5 * kPi * k;
    AddLineVertex(apex, color);
    AddLineVertex(base + radius * (std::cos(a) * e1 + std::sin(a) * e2), color);
  }
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
  solid_.clear();
  cones_.clear();
  texts_.clear();
  num_primitives_ = 0;
}

void GlDebugDraw::Flush(const Eigen::Matrix4f& view, const Eigen::Matrix4f& proj, const Vec3& eye,
                        bool on_top) {
  if (on_top) glClear(GL_DEPTH_BUFFER_BIT);
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LEQUAL);
  glEnable(GL_BLEND);
  glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
  glDisable(GL_CULL_FACE);
  const Eigen::Vector3f eye_f = eye.cast<float>();

  // Filled surfaces (pressure maps) first, unlit with their exact vertex colours; they write
  // depth, so the glyphs drawn after them are not hidden behind them.
  if (!fills_.empty()) {
    glUseProgram(line_program_);
    SetUniform(line_program_, "u_view", view);
    SetUniform(line_program_, "u_proj", proj);
    fill_buffer_.Upload(fills_, true);
    glDepthMask(GL_TRUE);
    fill_buffer_.Draw(GL_TRIANGLES);
  }
  // Opaque arrows: they write depth.
  if (!solid_.empty()) {
    glUseProgram(glyph_program_);
    SetUniform(glyph_program_, "u_view", view);
    SetUniform(glyph_program_, "u_proj", proj);
    SetUniform(glyph_program_, "u_eye", eye_f);
    solid_buffer_.Upload(solid_, true);
    glDepthMask(GL_TRUE);
    solid_buffer_.Draw(GL_TRIANGLES);
  }
  // Lines (cone outlines, normals).
  if (!lines_.empty()) {
    glUseProgram(line_program_);
    SetUniform(line_program_, "u_view", view);
    SetUniform(line_program_, "u_proj", proj);
    line_buffer_.Upload(lines_, true);
    glLineWidth(1.0f);
    line_buffer_.Draw(GL_LINES);
  }
  // Translucent cone surfaces: tested against depth, not written.
  if (!cones_.empty()) {
    glUseProgram(glyph_program_);
    SetUniform(glyph_program_, "u_view", view);
    SetUniform(glyph_program_, "u_proj", proj);
    SetUniform(glyph_program_, "u_eye", eye_f);
    cone_buffer_.Upload(cones_, true);
    glDepthMask(GL_FALSE);
    cone_buffer_.Draw(GL_TRIANGLES);
    glDepthMask(GL_TRUE);
  }
  // Points last and always visible.
  if (!points_.empty()) {
    glDisable(GL_DEPTH_TEST);
    glEnable(GL_PROGRAM_POINT_SIZE);
    glUseProgram(point_program_);
    SetUniform(point_program_, "u_view", view);
    SetUniform(point_program_, "u_proj", proj);
    SetUniform(point_program_, "u_pixel_scale", pixel_scale_);
    point_buffer_.Upload(points_, true);
    point_buffer_.Draw(GL_POINTS);
    glEnable(GL_DEPTH_TEST);
  }
  glUseProgram(0);
}

}  // namespace contactlab
