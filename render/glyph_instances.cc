#include "render/glyph_instances.h"

#include <algorithm>
#include <cmath>

namespace contactlab {

namespace {

void PushUnit(std::vector<float>* out, double c, double s, int part) {
  out->push_back(static_cast<float>(c));
  out->push_back(static_cast<float>(s));
  out->push_back(static_cast<float>(part));
  out->push_back(0.0f);
}

// Direction i of n around the axis, as (cos, sin).
double Cos(int i, int n) { return std::cos(2.0 * kPi * i / n); }
double Sin(int i, int n) { return std::sin(2.0 * kPi * i / n); }

Vec3 ToVec(const float* v) { return Vec3(v[0], v[1], v[2]); }

void Store(const Vec3& v, float* out) {
  out[0] = static_cast<float>(v.x());
  out[1] = static_cast<float>(v.y());
  out[2] = static_cast<float>(v.z());
}

}  // namespace

std::vector<float> ArrowUnitMesh() {
  std::vector<float> out;
  const int n = kArrowGlyphSegments;
  out.reserve(static_cast<size_t>(n) * 12 * kUnitVertexFloats);
  for (int i = 0; i < n; ++i) {
    const double c0 = Cos(i, n), s0 = Sin(i, n), c1 = Cos(i + 1, n), s1 = Sin(i + 1, n);
    // Shaft side: two triangles.
    PushUnit(&out, c0, s0, kArrowShaftTail);
    PushUnit(&out, c1, s1, kArrowShaftTail);
    PushUnit(&out, c1, s1, kArrowShaftHead);
    PushUnit(&out, c0, s0, kArrowShaftTail);
    PushUnit(&out, c1, s1, kArrowShaftHead);
    PushUnit(&out, c0, s0, kArrowShaftHead);
    // Head side.
    PushUnit(&out, c0, s0, kArrowHeadRim);
    PushUnit(&out, c1, s1, kArrowHeadRim);
    PushUnit(&out, 0.5 * (c0 + c1), 0.5 * (s0 + s1), kArrowTip);
    // Head base disk.
    PushUnit(&out, 0.0, 0.0, kArrowDiskCentre);
    PushUnit(&out, c1, s1, kArrowDiskRim);
    PushUnit(&out, c0, s0, kArrowDiskRim);
  }
  return out;
}

std::vector<float> ConeUnitMesh() {
  std::vector<float> out;
  const int n = kConeGlyphSegments;
  out.reserve(static_cast<size_t>(n) * 3 * kUnitVertexFloats);
  for (int i = 1; i <= n; ++i) {
    const double c0 = Cos(i - 1, n), s0 = Sin(i - 1, n), c1 = Cos(i, n), s1 = Sin(i, n);
    PushUnit(&out, 0.5 * (c0 + c1), 0.5 * (s0 + s1), kConeApex);
    PushUnit(&out, c0, s0, kConeRim);
    PushUnit(&out, c1, s1, kConeRim);
  }
  return out;
}

std::vector<float> ConeOutlineUnitMesh() {
  std::vector<float> out;
  const int n = kConeGlyphSegments;
  out.reserve(static_cast<size_t>(2 * n + 8) * kUnitVertexFloats);
  for (int i = 1; i <= n; ++i) {
    PushUnit(&out, Cos(i - 1, n), Sin(i - 1, n), kConeRim);
    PushUnit(&out, Cos(i, n), Sin(i, n), kConeRim);
  }
  // Four generators so the opening angle reads at a glance.
  for (int k = 0; k < 4; ++k) {
    PushUnit(&out, 0.0, 0.0, kConeApex);
    PushUnit(&out, Cos(k, 4), Sin(k, 4), kConeRim);
  }
  return out;
}

bool MakeArrowInstance(const Vec3& from, const Vec3& to, double radius, const Color& color,
                       ArrowInstance* out) {
  const Vec3 d = to - from;
  const double length = d.norm();
  if (!(length > 1e-12) || !d.allFinite() || !(radius > 0)) return false;
  Store(from, out->from);
  out->radius = static_cast<float>(radius);
  Store(to, out->to);
  out->pad = 0.0f;
  out->color[0] = color.r;
  out->color[1] = color.g;
  out->color[2] = color.b;
  out->color[3] = color.a;
  return true;
}

bool MakeConeInstance(const Vec3& apex, const Vec3& axis, double height, double half_angle,
                      const Color& color, float fill_alpha_scale, ConeInstance* out) {
  if (!(height > 0) || !(half_angle > 0) || !(half_angle < 0.5 * kPi)) return false;
  const double n = axis.norm();
  if (!(n > 0)) return false;
  Store(apex, out->apex);
  out->height = static_cast<float>(height);
  Store(axis / n, out->axis);
  out->half_angle = static_cast<float>(half_angle);
  out->color[0] = color.r;
  out->color[1] = color.g;
  out->color[2] = color.b;
  out->color[3] = color.a;
  out->fill_alpha = color.a * fill_alpha_scale;
  return true;
}

GlyphVertex PlaceArrowVertex(const float* unit, const ArrowInstance& arrow) {
  const Vec3 from = ToVec(arrow.from), to = ToVec(arrow.to);
  const double r = arrow.radius;
  const Vec3 d = to - from;
  const double length = d.norm();
  const Vec3 u = d / length;
  const Vec3 e1 = AnyOrthogonal(u);
  const Vec3 e2 = u.cross(e1);
  const double head_length = std::min(0.45 * length, 7.0 * r);
  const double head_radius = 2.4 * r;
  const Vec3 head_base = from + (length - head_length) * u;
  const double slope = head_radius / head_length;
  const Vec3 radial = unit[0] * e1 + unit[1] * e2;
  const int part = static_cast<int>(std::lround(unit[2]));
  GlyphVertex v;
  switch (part) {
    case kArrowShaftTail:
      v.position = from + r * radial;
      v.normal = radial.normalized();
      break;
    case kArrowShaftHead:
      v.position = head_base + r * radial;
      v.normal = radial.normalized();
      break;
    case kArrowHeadRim:
      v.position = head_base + head_radius * radial;
      v.normal = (radial + slope * u).normalized();
      break;
    case kArrowTip:
      v.position = to;
      v.normal = (radial + slope * u).normalized();
      break;
    case kArrowDiskCentre:
      v.position = head_base;
      v.normal = -u;
      break;
    default:  // kArrowDiskRim
      v.position = head_base + head_radius * radial;
      v.normal = -u;
      break;
  }
  return v;
}

GlyphVertex PlaceConeVertex(const float* unit, const ConeInstance& cone) {
  const Vec3 apex = ToVec(cone.apex), u = ToVec(cone.axis);
  const double height = cone.height;
  const double c = std::cos(double(cone.half_angle)), s = std::sin(double(cone.half_angle));
  const double radius = height * s / c;
  const Vec3 e1 = AnyOrthogonal(u);
  const Vec3 e2 = u.cross(e1);
  const Vec3 radial = unit[0] * e1 + unit[1] * e2;
  const int part = static_cast<int>(std::lround(unit[2]));
  GlyphVertex v;
  // Outward normal of the lateral surface: cos θ radial − sin θ axis (for the apex's mean
  // direction, the mean of its two rim normals).
  v.normal = (c * radial - s * u).normalized();
  v.position = part == kConeApex ? apex : Vec3(apex + height * u + radius * radial);
  return v;
}

}  // namespace contactlab
