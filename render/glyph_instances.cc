#include "render/glyph_instances.h"

#include <algorithm>
#include <cmath>

namespace contactlab {

namespace {

// Builds an indexed mesh from vertices given primitive by primitive: equal vertices (the same
// four floats) are stored once.
class MeshBuilder {
 public:
  void Add(double c, double s, int part) {
    const float v[kUnitVertexFloats] = {static_cast<float>(c), static_cast<float>(s),
                                        static_cast<float>(part), 0.0f};
    const int n = mesh_.num_vertices();
    for (int i = 0; i < n; ++i) {
      if (std::equal(v, v + kUnitVertexFloats, &mesh_.vertices[i * kUnitVertexFloats])) {
        mesh_.indices.push_back(static_cast<std::uint16_t>(i));
        return;
      }
    }
    mesh_.vertices.insert(mesh_.vertices.end(), v, v + kUnitVertexFloats);
    mesh_.indices.push_back(static_cast<std::uint16_t>(n));
  }
  UnitMesh Take() { return std::move(mesh_); }

 private:
  UnitMesh mesh_;
};

// Direction i of n around the axis, as (cos, sin); i = n is direction 0 exactly.
double Cos(int i, int n) { return std::cos(2.0 * kPi * (i % n) / n); }
double Sin(int i, int n) { return std::sin(2.0 * kPi * (i % n) / n); }

Vec3 ToVec(const float* v) { return Vec3(v[0], v[1], v[2]); }

void Store(const Vec3& v, float* out) {
  out[0] = static_cast<float>(v.x());
  out[1] = static_cast<float>(v.y());
  out[2] = static_cast<float>(v.z());
}

void Store(const Color& c, float* out) {
  out[0] = c.r;
  out[1] = c.g;
  out[2] = c.b;
  out[3] = c.a;
}

}  // namespace

UnitMesh ArrowUnitMesh() {
  MeshBuilder b;
  const int n = kArrowGlyphSegments;
  for (int i = 0; i < n; ++i) {
    const double c0 = Cos(i, n), s0 = Sin(i, n), c1 = Cos(i + 1, n), s1 = Sin(i + 1, n);
    // Shaft side: two triangles.
    b.Add(c0, s0, kArrowShaftTail);
    b.Add(c1, s1, kArrowShaftTail);
    b.Add(c1, s1, kArrowShaftHead);
    b.Add(c0, s0, kArrowShaftTail);
    b.Add(c1, s1, kArrowShaftHead);
    b.Add(c0, s0, kArrowShaftHead);
    // Head side.
    b.Add(c0, s0, kArrowHeadRim);
    b.Add(c1, s1, kArrowHeadRim);
    b.Add(0.5 * (c0 + c1), 0.5 * (s0 + s1), kArrowTip);
    // Head base disk.
    b.Add(0.0, 0.0, kArrowDiskCentre);
    b.Add(c1, s1, kArrowDiskRim);
    b.Add(c0, s0, kArrowDiskRim);
  }
  return b.Take();
}

UnitMesh ConeUnitMesh() {
  MeshBuilder b;
  const int n = kConeGlyphSegments;
  for (int i = 1; i <= n; ++i) {
    const double c0 = Cos(i - 1, n), s0 = Sin(i - 1, n), c1 = Cos(i, n), s1 = Sin(i, n);
    b.Add(0.5 * (c0 + c1), 0.5 * (s0 + s1), kConeApex);
    b.Add(c0, s0, kConeRim);
    b.Add(c1, s1, kConeRim);
  }
  return b.Take();
}

UnitMesh ConeOutlineUnitMesh() {
  MeshBuilder b;
  const int n = kConeGlyphSegments;
  for (int i = 1; i <= n; ++i) {
    b.Add(Cos(i - 1, n), Sin(i - 1, n), kConeRim);
    b.Add(Cos(i, n), Sin(i, n), kConeRim);
  }
  // Four generators so the opening angle reads at a glance (rim directions 0, 7, 14, 21 of 28).
  for (int k = 0; k < 4; ++k) {
    b.Add(0.0, 0.0, kConeApex);
    b.Add(Cos(k * n / 4, n), Sin(k * n / 4, n), kConeRim);
  }
  return b.Take();
}

bool MakeArrowInstance(const Vec3& from, const Vec3& to, double radius, const Color& color,
                       ArrowInstance* out) {
  const Vec3 d = to - from;
  const double length = d.norm();
  if (!(length > 1e-12) || !d.allFinite() || !(radius > 0)) return false;
  const Vec3 u = d / length;
  Store(from, out->from);
  out->radius = static_cast<float>(radius);
  Store(u, out->axis);
  out->length = static_cast<float>(length);
  Store(AnyOrthogonal(u), out->e1);
  out->head_length = static_cast<float>(std::min(0.45 * length, 7.0 * radius));
  Store(color, out->color);
  return true;
}

bool MakeConeInstance(const Vec3& apex, const Vec3& axis, double height, double half_angle,
                      const Color& color, float fill_alpha_scale, ConeInstance* out) {
  if (!(height > 0) || !(half_angle > 0) || !(half_angle < 0.5 * kPi)) return false;
  const double n = axis.norm();
  if (!(n > 0)) return false;
  const Vec3 u = axis / n;
  Store(apex, out->apex);
  out->height = static_cast<float>(height);
  Store(u, out->axis);
  out->radius = static_cast<float>(height * std::tan(half_angle));
  Store(AnyOrthogonal(u), out->e1);
  out->fill_alpha = color.a * fill_alpha_scale;
  Store(color, out->color);
  return true;
}

GlyphVertex PlaceArrowVertex(const float* unit, const ArrowInstance& arrow) {
  const Vec3 from = ToVec(arrow.from), u = ToVec(arrow.axis), e1 = ToVec(arrow.e1);
  const Vec3 e2 = u.cross(e1);
  const double r = arrow.radius;
  const double head_length = arrow.head_length;
  const double head_radius = 2.4 * r;
  const Vec3 head_base = from + (double(arrow.length) - head_length) * u;
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
      v.position = from + double(arrow.length) * u;
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
  const Vec3 apex = ToVec(cone.apex), u = ToVec(cone.axis), e1 = ToVec(cone.e1);
  const Vec3 e2 = u.cross(e1);
  const double height = cone.height, radius = cone.radius;
  // cos and sin of the half-angle from tan = radius / height.
  const double t = radius / height;
  const double c = 1.0 / std::sqrt(1.0 + t * t), s = t * c;
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
