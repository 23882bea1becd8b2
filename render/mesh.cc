#include "render/mesh.h"

#include <cmath>

namespace contactlab {

std::uint32_t MeshData::AddVertex(const Vec3& p, const Vec3& n) {
  const std::uint32_t index = static_cast<std::uint32_t>(num_vertices());
  for (int i = 0; i < 3; ++i) vertices.push_back(static_cast<float>(p[i]));
  for (int i = 0; i < 3; ++i) vertices.push_back(static_cast<float>(n[i]));
  return index;
}

void MeshData::AddTriangle(std::uint32_t a, std::uint32_t b, std::uint32_t c) {
  indices.push_back(a);
  indices.push_back(b);
  indices.push_back(c);
}

Vec3 MeshData::Position(int i) const {
  return Vec3(vertices[6 * i], vertices[6 * i + 1], vertices[6 * i + 2]);
}

Vec3 MeshData::Normal(int i) const {
  return Vec3(vertices[6 * i + 3], vertices[6 * i + 4], vertices[6 * i + 5]);
}

namespace {

// Sphere-like surface of revolution about z: a ring of `slices` vertices per latitude from the
// south to the north pole; latitudes below the equator are shifted by −z_offset, above by
// +z_offset (a capsule when z_offset > 0). `stacks` latitude bands per hemisphere.
MeshData MakeRoundedMesh(double radius, double z_offset, int slices, int stacks) {
  MeshData m;
  const int rows = 2 * stacks + 1;  // latitudes including both poles
  // Duplicate the equator for a capsule so that each hemisphere has its own ring.
  std::vector<std::uint32_t> ring_start;
  for (int r = 0; r < rows; ++r) {
    const double lat = -0.5 * kPi + kPi * r / (rows - 1);
    const int copies = (z_offset > 0 && r == stacks) ? 2 : 1;
    for (int copy = 0; copy < copies; ++copy) {
      const double shift = (r < stacks || (r == stacks && copy == 0)) ? -z_offset : z_offset;
      ring_start.push_back(static_cast<std::uint32_t>(m.num_vertices()));
      for (int s = 0; s <= slices; ++s) {
        const double lon = 2.0 * kPi * s / slices;
        const Vec3 n(std::cos(lat) * std::cos(lon), std::cos(lat) * std::sin(lon), std::sin(lat));
        m.AddVertex(radius * n + Vec3(0, 0, shift), n);
      }
    }
  }
  for (size_t r = 0; r + 1 < ring_start.size(); ++r) {
    for (int s = 0; s < slices; ++s) {
      const std::uint32_t a = ring_start[r] + s, b = ring_start[r] + s + 1;
      const std::uint32_t c = ring_start[r + 1] + s, d = ring_start[r + 1] + s + 1;
      m.AddTriangle(a, b, d);
      m.AddTriangle(a, d, c);
    }
  }
  return m;
}

}  // namespace

MeshData MakeSphereMesh(double radius, int slices, int stacks) {
  return MakeRoundedMesh(radius, 0.0, slices, stacks);
}

MeshData MakeCapsuleMesh(double radius, double half_length, int slices, int stacks) {
  return MakeRoundedMesh(radius, half_length, slices, stacks);
}

MeshData MakeBoxMesh(const Vec3& h) {
  MeshData m;
  for (int axis = 0; axis < 3; ++axis) {
    for (int sign = -1; sign <= 1; sign += 2) {
      Vec3 n = Vec3::Zero();
      n[axis] = sign;
      // Two tangents u, v with u x v = n.
      const int ia = (axis + 1) % 3, ib = (axis + 2) % 3;
      Vec3 u = Vec3::Zero(), v = Vec3::Zero();
      u[ia] = 1;
      v[ib] = sign;
      const Vec3 c = n.cwiseProduct(h);
      const Vec3 du = u * h[ia], dv = v * h[ib];
      const std::uint32_t a = m.AddVertex(c - du - dv, n);
      const std::uint32_t b = m.AddVertex(c + du - dv, n);
      const std::uint32_t d = m.AddVertex(c + du + dv, n);
      const std::uint32_t e = m.AddVertex(c - du + dv, n);
      m.AddTriangle(a, b, d);
      m.AddTriangle(a, d, e);
    }
  }
  return m;
}

MeshData MakeCylinderMesh(double radius, double half_length, int slices) {
  MeshData m;
  // Side: two rings with radial normals.
  for (int s = 0; s <= slices; ++s) {
    const double lon = 2.0 * kPi * s / slices;
    const Vec3 n(std::cos(lon), std::sin(lon), 0);
    m.AddVertex(radius * n + Vec3(0, 0, -half_length), n);
    m.AddVertex(radius * n + Vec3(0, 0, half_length), n);
  }
  for (int s = 0; s < slices; ++s) {
    const std::uint32_t a = 2 * s, b = 2 * s + 1, c = 2 * s + 2, d = 2 * s + 3;
    m.AddTriangle(a, c, d);
    m.AddTriangle(a, d, b);
  }
  // Caps: fans around a centre vertex.
  for (int sign = -1; sign <= 1; sign += 2) {
    const Vec3 n(0, 0, sign);
    const std::uint32_t centre = m.AddVertex(Vec3(0, 0, sign * half_length), n);
    const std::uint32_t first = static_cast<std::uint32_t>(m.num_vertices());
    for (int s = 0; s <= slices; ++s) {
      const double lon = 2.0 * kPi * s / slices;
      m.AddVertex(Vec3(radius * std::cos(lon), radius * std::sin(lon), sign * half_length), n);
    }
    for (int s = 0; s < slices; ++s) {
      if (sign > 0) {
        m.AddTriangle(centre, first + s, first + s + 1);
      } else {
        m.AddTriangle(centre, first + s + 1, first + s);
      }
    }
  }
  return m;
}

MeshData MakePlaneMesh(double half_size) {
  MeshData m;
  const Vec3 n = Vec3::UnitZ();
  const double s = half_size;
  const std::uint32_t a = m.AddVertex(Vec3(-s, -s, 0), n);
  const std::uint32_t b = m.AddVertex(Vec3(s, -s, 0), n);
  const std::uint32_t c = m.AddVertex(Vec3(s, s, 0), n);
  const std::uint32_t d = m.AddVertex(Vec3(-s, s, 0), n);
  m.AddTriangle(a, b, c);
  m.AddTriangle(a, c, d);
  return m;
}

MeshData MakeConvexMesh(const ConvexHull& hull) {
  MeshData m;
  auto add_flat = [&m](const Vec3& p0, const Vec3& p1, const Vec3& p2) {
    Vec3 n = (p1 - p0).cross(p2 - p0);
    const double len = n.norm();
    if (!(len > 0)) return;  // degenerate triangle
    n /= len;
    m.AddTriangle(m.AddVertex(p0, n), m.AddVertex(p1, n), m.AddVertex(p2, n));
  };
  const auto& rv = hull.render_vertices;
  const auto& rt = hull.render_triangles;
  if (!rv.empty() && rt.size() >= 3) {
    for (size_t t = 0; t + 2 < rt.size(); t += 3) {
      const int i0 = rt[t], i1 = rt[t + 1], i2 = rt[t + 2];
      const int nv = static_cast<int>(rv.size());
      if (i0 < 0 || i1 < 0 || i2 < 0 || i0 >= nv || i1 >= nv || i2 >= nv) continue;
      add_flat(rv[i0], rv[i1], rv[i2]);
    }
    return m;
  }
  const int nv = static_cast<int>(hull.vertices.size());
  for (const auto& face : hull.faces) {
    for (size_t k = 1; k + 1 < face.size(); ++k) {
      const int i0 = face[0], i1 = face[k], i2 = face[k + 1];
      if (i0 < 0 || i1 < 0 || i2 < 0 || i0 >= nv || i1 >= nv || i2 >= nv) continue;
      add_flat(hull.vertices[i0], hull.vertices[i1], hull.vertices[i2]);
    }
  }
  return m;
}

MeshData MakeShapeMesh(const Shape& shape, double plane_half_size) {
  switch (shape.type) {
    case ShapeType::kHalfSpace:
      return MakePlaneMesh(plane_half_size);
    case ShapeType::kSphere:
      return MakeSphereMesh(shape.radius);
    case ShapeType::kCapsule:
      return MakeCapsuleMesh(shape.radius, shape.half_length);
    case ShapeType::kBox:
      return MakeBoxMesh(shape.half_extents);
    case ShapeType::kCylinder:
      return MakeCylinderMesh(shape.radius, shape.half_length);
    case ShapeType::kConvexMesh:
      return shape.hull ? MakeConvexMesh(*shape.hull) : MeshData{};
  }
  return MeshData{};
}

}  // namespace contactlab
