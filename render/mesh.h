// Triangle meshes for the model's shapes, built on the CPU (pure, testable without GL) and
// uploaded to GL vertex arrays by GpuMesh. Meshes are in the geometry frame of the shape.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/multibody/model.h"

namespace contactlab {

struct MeshData {
  std::vector<float> vertices;         // interleaved px py pz nx ny nz, geometry frame
  std::vector<std::uint32_t> indices;  // 3 per triangle, counter-clockwise from outside

  int num_vertices() const { return static_cast<int>(vertices.size() / 6); }
  int num_triangles() const { return static_cast<int>(indices.size() / 3); }
  std::uint32_t AddVertex(const Vec3& p, const Vec3& n);
  void AddTriangle(std::uint32_t a, std::uint32_t b, std::uint32_t c);
  Vec3 Position(int i) const;
  Vec3 Normal(int i) const;
};

MeshData MakeSphereMesh(double radius, int slices = 32, int stacks = 16);
// Axis along z, segment half-length `half_length`, hemispherical caps.
MeshData MakeCapsuleMesh(double radius, double half_length, int slices = 32, int stacks = 8);
MeshData MakeBoxMesh(const Vec3& half_extents);
// Axis along z, half-height `half_length`, flat caps.
MeshData MakeCylinderMesh(double radius, double half_length, int slices = 32);
// Square in the plane z = 0 with normal +z, side 2 half_size (the visible part of a half-space).
MeshData MakePlaneMesh(double half_size);
// The hull's render mesh (render_vertices/render_triangles) with flat per-face normals, or the
// hull's faces fanned into triangles when it has no render mesh.
MeshData MakeConvexMesh(const ConvexHull& hull);
// Dispatch on the shape type. `plane_half_size` sizes half-spaces [m].
MeshData MakeShapeMesh(const Shape& shape, double plane_half_size = 25.0);

}  // namespace contactlab
