// Instanced glyphs without GL: the unit meshes placed by the CPU mirror of the vertex shaders
// (render/glyph_instances.h) give the triangles the per-primitive CPU tessellation gave (kept
// here as the reference), and the stream capacity grows geometrically.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "render/gl_util.h"
#include "render/glyph_instances.h"

namespace contactlab {
namespace {

struct RefVertex {
  Vec3 p, n;
};

// The arrow as GlDebugDraw tessellated it on the CPU before instancing.
std::vector<RefVertex> ReferenceArrow(const Vec3& from, const Vec3& to, double r) {
  std::vector<RefVertex> out;
  const Vec3 d = to - from;
  const double length = d.norm();
  const Vec3 u = d / length;
  const Vec3 e1 = AnyOrthogonal(u);
  const Vec3 e2 = u.cross(e1);
  const double head_length = std::min(0.45 * length, 7.0 * r);
  const double head_radius = 2.4 * r;
  const Vec3 head_base = from + (length - head_length) * u;
  const double slope = head_radius / head_length;
  auto tri = [&](Vec3 a, Vec3 b, Vec3 c, Vec3 na, Vec3 nb, Vec3 nc) {
    out.push_back({a, na});
    out.push_back({b, nb});
    out.push_back({c, nc});
  };
  for (int i = 0; i < 12; ++i) {
    const double a0 = 2.0 * kPi * i / 12, a1 = 2.0 * kPi * (i + 1) / 12;
    const Vec3 r0 = std::cos(a0) * e1 + std::sin(a0) * e2;
    const Vec3 r1 = std::cos(a1) * e1 + std::sin(a1) * e2;
    const Vec3 p00 = from + r * r0, p01 = from + r * r1;
    const Vec3 p10 = head_base + r * r0, p11 = head_base + r * r1;
    tri(p00, p01, p11, r0, r1, r1);
    tri(p00, p11, p10, r0, r1, r0);
    const Vec3 h0 = head_base + head_radius * r0, h1 = head_base + head_radius * r1;
    const Vec3 n0 = (r0 + slope * u).normalized(), n1 = (r1 + slope * u).normalized();
    tri(h0, h1, to, n0, n1, (n0 + n1).normalized());
    tri(head_base, h1, h0, -u, -u, -u);
  }
  return out;
}

// The cone surface as GlDebugDraw tessellated it on the CPU before instancing.
std::vector<RefVertex> ReferenceCone(const Vec3& apex, const Vec3& axis, double height,
                                     double half_angle) {
  std::vector<RefVertex> out;
  const Vec3 u = axis.normalized();
  const Vec3 e1 = AnyOrthogonal(u);
  const Vec3 e2 = u.cross(e1);
  const double radius = height * std::tan(half_angle);
  const Vec3 base = apex + height * u;
  const double c = std::cos(half_angle), s = std::sin(half_angle);
  Vec3 prev_rim, prev_radial;
  for (int i = 0; i <= 28; ++i) {
    const double a = 2.0 * kPi * i / 28;
    const Vec3 radial = std::cos(a) * e1 + std::sin(a) * e2;
    const Vec3 rim = base + radius * radial;
    if (i > 0) {
      const Vec3 n_prev = c * prev_radial - s * u;
      const Vec3 n_cur = c * radial - s * u;
      out.push_back({apex, (n_prev + n_cur).normalized()});
      out.push_back({prev_rim, n_prev});
      out.push_back({rim, n_cur});
    }
    prev_rim = rim;
    prev_radial = radial;
  }
  return out;
}

// The unit mesh's primitives vertex by vertex (indices expanded).
std::vector<float> Expand(const UnitMesh& mesh) {
  std::vector<float> out;
  for (std::uint16_t i : mesh.indices) {
    EXPECT_LT(int(i), mesh.num_vertices());
    const float* v = &mesh.vertices[size_t(i) * kUnitVertexFloats];
    out.insert(out.end(), v, v + kUnitVertexFloats);
  }
  return out;
}

// Positions agree to the float rounding of the instance records (1e-6 for glyphs up to a metre
// long), normals to 1e-5.
template <typename Instance, typename Place>
void ExpectPlacedMeshMatches(const UnitMesh& mesh, const Instance& instance, Place place,
                             const std::vector<RefVertex>& reference, double tol) {
  const std::vector<float> unit = Expand(mesh);
  ASSERT_EQ(unit.size() / kUnitVertexFloats, reference.size());
  for (size_t k = 0; k < reference.size(); ++k) {
    const GlyphVertex v = place(&unit[k * kUnitVertexFloats], instance);
    EXPECT_LT((v.position - reference[k].p).norm(), tol) << "vertex " << k;
    EXPECT_LT((v.normal - reference[k].n).norm(), 1e-5) << "vertex " << k;
    EXPECT_NEAR(v.normal.norm(), 1.0, 1e-6) << "vertex " << k;
  }
}

TEST(GlyphInstances, ArrowMatchesTheCpuTessellation) {
  // Long arrows (head 7 radii) and short ones (head 0.45 of the length), along every axis
  // choice of AnyOrthogonal, with the default and a per-arrow shaft radius.
  const std::vector<std::pair<Vec3, Vec3>> cases = {
      {Vec3(0, 0, 0), Vec3(0, 0, 1)},        {Vec3(0.1, -0.2, 0.3), Vec3(1.1, 0.2, 0.1)},
      {Vec3(1, 2, 3), Vec3(1.0, 2.9, 3.05)}, {Vec3(-1, 0.5, 0), Vec3(-1.004, 0.503, 0.001)},
      {Vec3(2, 2, 2), Vec3(1, 1, 1)}};
  for (double r : {0.002, 0.01}) {
    for (const auto& [from, to] : cases) {
      ArrowInstance a;
      ASSERT_TRUE(MakeArrowInstance(from, to, r, Color{0.2f, 0.4f, 0.6f, 1.0f}, &a));
      ExpectPlacedMeshMatches(ArrowUnitMesh(), a, PlaceArrowVertex, ReferenceArrow(from, to, r),
                              1e-6);
    }
  }
}

TEST(GlyphInstances, ArrowRecordKeepsRadiusAndColour) {
  ArrowInstance a;
  ASSERT_TRUE(MakeArrowInstance(Vec3(1, 2, 3), Vec3(4, 5, 6), 0.25, Color{0.1f, 0.2f, 0.3f, 0.4f},
                                &a));
  EXPECT_FLOAT_EQ(a.radius, 0.25f);
  EXPECT_FLOAT_EQ(a.from[2], 3.0f);
  EXPECT_FLOAT_EQ(a.length, float(std::sqrt(27.0)));
  EXPECT_FLOAT_EQ(a.head_length, 7.0f * 0.25f);
  EXPECT_FLOAT_EQ(a.color[3], 0.4f);
  // The shaft radius sets the placed shaft: tail vertices lie 0.25 from the axis.
  const std::vector<float> unit = ArrowUnitMesh().vertices;
  const GlyphVertex v = PlaceArrowVertex(&unit[0], a);
  const Vec3 u = Vec3(1, 1, 1).normalized();
  const Vec3 off = v.position - Vec3(1, 2, 3);
  EXPECT_NEAR((off - off.dot(u) * u).norm(), 0.25, 1e-6);
  EXPECT_NEAR(off.dot(u), 0.0, 1e-6);
}

TEST(GlyphInstances, DegenerateArrowsAndConesAreDropped) {
  ArrowInstance a;
  EXPECT_FALSE(MakeArrowInstance(Vec3(1, 1, 1), Vec3(1, 1, 1), 0.01, Color{}, &a));
  EXPECT_FALSE(MakeArrowInstance(Vec3(0, 0, 0), Vec3(NAN, 0, 0), 0.01, Color{}, &a));
  EXPECT_FALSE(MakeArrowInstance(Vec3(0, 0, 0), Vec3(1, 0, 0), 0.0, Color{}, &a));
  ConeInstance c;
  EXPECT_FALSE(MakeConeInstance(Vec3::Zero(), Vec3::UnitZ(), 0.0, 0.5, Color{}, 0.3f, &c));
  EXPECT_FALSE(MakeConeInstance(Vec3::Zero(), Vec3::UnitZ(), 1.0, 0.0, Color{}, 0.3f, &c));
  EXPECT_FALSE(MakeConeInstance(Vec3::Zero(), Vec3::UnitZ(), 1.0, 0.5 * kPi, Color{}, 0.3f, &c));
  EXPECT_FALSE(MakeConeInstance(Vec3::Zero(), Vec3::Zero(), 1.0, 0.5, Color{}, 0.3f, &c));
  EXPECT_TRUE(MakeConeInstance(Vec3::Zero(), Vec3(0, 0, 3), 1.0, 0.5, Color{}, 0.3f, &c));
  EXPECT_FLOAT_EQ(c.axis[2], 1.0f);  // normalized
}

TEST(GlyphInstances, ConeMatchesTheCpuTessellation) {
  const std::vector<Vec3> axes = {Vec3(0, 0, 1), Vec3(1, 0, 0), Vec3(0.3, -0.9, 0.2),
                                  Vec3(-0.6, 0.6, 0.55)};
  for (double half_angle : {0.1, 0.55, 1.2}) {
    for (const Vec3& axis : axes) {
      ConeInstance c;
      ASSERT_TRUE(MakeConeInstance(Vec3(0.5, -1, 2), axis, 0.04, half_angle,
                                   Color{1, 0, 0, 0.8f}, 0.3f, &c));
      EXPECT_FLOAT_EQ(c.fill_alpha, 0.8f * 0.3f);
      ExpectPlacedMeshMatches(ConeUnitMesh(), c, PlaceConeVertex,
                              ReferenceCone(Vec3(0.5, -1, 2), axis, 0.04, half_angle), 1e-6);
    }
  }
}

TEST(GlyphInstances, ConeOutlineIsTheRimAndFourGenerators) {
  ConeInstance c;
  ASSERT_TRUE(MakeConeInstance(Vec3(0, 0, 0), Vec3(0, 0, 1), 2.0, 0.5, Color{}, 0.3f, &c));
  const std::vector<float> unit = Expand(ConeOutlineUnitMesh());
  ASSERT_EQ(unit.size() / kUnitVertexFloats, size_t(2 * kConeGlyphSegments + 8));
  const double radius = 2.0 * std::tan(0.5);
  int apex_vertices = 0;
  for (size_t k = 0; k < unit.size() / kUnitVertexFloats; ++k) {
    const Vec3 p = PlaceConeVertex(&unit[k * kUnitVertexFloats], c).position;
    if (p.norm() < 1e-9) {
      ++apex_vertices;
    } else {
      EXPECT_NEAR(p.z(), 2.0, 1e-6);
      EXPECT_NEAR(p.head<2>().norm(), radius, 1e-6);
    }
  }
  EXPECT_EQ(apex_vertices, 4);
}

TEST(GlyphInstances, UnitMeshesStoreEachVertexOnce) {
  // Arrow: tail, shaft-head, head-rim and disk-rim rings of 12, 12 tips, the disk centre.
  EXPECT_EQ(ArrowUnitMesh().num_vertices(), 4 * kArrowGlyphSegments + kArrowGlyphSegments + 1);
  EXPECT_EQ(ArrowUnitMesh().indices.size(), size_t(12 * kArrowGlyphSegments));
  // Cone: 28 apex directions and 28 rim points; outline: the rim and the apex.
  EXPECT_EQ(ConeUnitMesh().num_vertices(), 2 * kConeGlyphSegments);
  EXPECT_EQ(ConeOutlineUnitMesh().num_vertices(), kConeGlyphSegments + 1);
}

TEST(GlyphInstances, StreamCapacityGrowsGeometrically) {
  EXPECT_EQ(GrownCapacity(0, 0), 0u);
  EXPECT_EQ(GrownCapacity(0, 10), 4096u);
  EXPECT_EQ(GrownCapacity(4096, 4000), 4096u);  // fits: kept
  EXPECT_EQ(GrownCapacity(4096, 4097), 8192u);  // doubled
  EXPECT_EQ(GrownCapacity(4096, 100000), 100000u);
  // A stream growing by one byte per frame up to 1 MB reallocates a handful of times.
  size_t capacity = 0;
  int reallocations = 0;
  for (size_t bytes = 1; bytes <= (1u << 20); bytes += 997) {
    const size_t next = GrownCapacity(capacity, bytes);
    if (next != capacity) ++reallocations;
    capacity = next;
    ASSERT_GE(capacity, bytes);
  }
  EXPECT_LE(reallocations, 10);
}

}  // namespace
}  // namespace contactlab
