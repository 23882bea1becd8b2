// Instanced glyphs: one unit mesh per glyph type (arrow, cone surface, cone outline) that the
// vertex shaders of render/shaders.h place per instance, and the per-instance records GlDebugDraw
// streams to the GPU. The functions here are the CPU mirror of those shaders (the same formulas,
// in double): pure, so that the placement is tested without a GL context.
//
// A unit-mesh vertex is four floats (c, s, part, 0): (c, s) is a direction in the plane
// orthogonal to the glyph's axis, in the basis (e1, e2) with e1 = AnyOrthogonal(axis) and
// e2 = axis x e1, and `part` says which ring of the glyph it lies on (the enums below).
#pragma once

#include <cstdint>
#include <vector>

#include "engine/common/math.h"
#include "engine/inspect/colormap.h"

namespace contactlab {

// Segments around the axis (the CPU tessellation had the same counts).
constexpr int kArrowGlyphSegments = 12;
constexpr int kConeGlyphSegments = 28;
// Floats per unit-mesh vertex.
constexpr int kUnitVertexFloats = 4;

// Rings of the arrow's unit mesh.
enum ArrowPart {
  kArrowShaftTail = 0,  // shaft side at the tail, radial normal
  kArrowShaftHead = 1,  // shaft side where the head starts, radial normal
  kArrowHeadRim = 2,    // rim of the head, normal of the head's cone
  kArrowTip = 3,        // the tip; (c, s) is the mean of its two rim directions
  kArrowDiskCentre = 4, // centre of the head's base disk, normal -axis
  kArrowDiskRim = 5,    // rim of the head's base disk, normal -axis
};

// Rings of the cone's unit meshes.
enum ConePart {
  kConeApex = 0,  // the apex; (c, s) is the mean of its two rim directions (surface), or unused
  kConeRim = 1,   // the rim at the cone's base
};

// A unit mesh: distinct vertices (kUnitVertexFloats each) and the primitives' indices into them.
struct UnitMesh {
  std::vector<float> vertices;
  std::vector<std::uint16_t> indices;
  int num_vertices() const { return static_cast<int>(vertices.size()) / kUnitVertexFloats; }
};

// Triangles of an arrow: shaft, head and the head's base disk (GL_TRIANGLES).
UnitMesh ArrowUnitMesh();
// Triangles of a cone's lateral surface from the apex to the rim (GL_TRIANGLES).
UnitMesh ConeUnitMesh();
// The rim and four generators of a cone (GL_LINES).
UnitMesh ConeOutlineUnitMesh();

// Per-instance records, as streamed (floats in this order). The frame (axis, e1) is computed
// once per instance on the CPU, so that the vertex shaders (run on the CPU by a software
// rasterizer) only scale and add.
struct ArrowInstance {
  float from[3];
  float radius;  // shaft radius [m], > 0
  float axis[3];  // unit, from the tail to the tip
  float length;   // [m]
  float e1[3];    // AnyOrthogonal(axis)
  float head_length;  // min(0.45 length, 7 radius) [m]
  float color[4];
};
static_assert(sizeof(ArrowInstance) == 16 * sizeof(float), "tightly packed");

struct ConeInstance {
  float apex[3];
  float height;  // along the axis [m]
  float axis[3];  // unit, from the apex into the cone
  float radius;   // of the base, height tan(half-angle) [m]
  float e1[3];    // AnyOrthogonal(axis)
  float fill_alpha;  // of the surface (in the colour's RGB)
  float color[4];    // of the outline
};
static_assert(sizeof(ConeInstance) == 16 * sizeof(float), "tightly packed");

// The record of an arrow, or false for a degenerate one (zero or non-finite length; nothing is
// drawn). `radius` must be > 0 (the sink resolves its default before).
bool MakeArrowInstance(const Vec3& from, const Vec3& to, double radius, const Color& color,
                       ArrowInstance* out);
// The record of a cone, or false when nothing is drawn (height or half-angle out of range, zero
// axis). The axis is normalized; the surface gets alpha color.a * fill_alpha_scale.
bool MakeConeInstance(const Vec3& apex, const Vec3& axis, double height, double half_angle,
                      const Color& color, float fill_alpha_scale, ConeInstance* out);

// A vertex of an instance in world coordinates.
struct GlyphVertex {
  Vec3 position;
  Vec3 normal;  // unit (zero for outline vertices)
};

// What the arrow vertex shader computes for one unit-mesh vertex (4 floats) of an instance:
// shaft radius r, head 2.4 r wide and head_length long.
GlyphVertex PlaceArrowVertex(const float* unit, const ArrowInstance& arrow);
// What the cone vertex shader computes.
GlyphVertex PlaceConeVertex(const float* unit, const ConeInstance& cone);

}  // namespace contactlab
