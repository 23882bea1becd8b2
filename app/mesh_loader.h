// Convex collision meshes from files (Assimp) and point sets (Qhull).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/model.h"

namespace contactlab {

// Loads every triangle of the file at `path` (OBJ, STL, PLY, glTF, ... anything Assimp reads),
// with node transforms applied, scales it component-wise by `scale`, and returns its convex hull.
// The hull has merged coplanar facets (polygons, CCW seen from outside, outward unit normals);
// the original triangles are kept in render_vertices / render_triangles, and `source` = path.
// Throws std::runtime_error naming the file and the reason (missing or unreadable file, no
// triangles, degenerate hull).
std::shared_ptr<ConvexHull> LoadConvexMesh(const std::string& path,
                                           const Vec3& scale = Vec3::Ones());

// Convex hull of a point set (Qhull), with merged coplanar facets. render_vertices and
// render_triangles hold a fan triangulation of the hull faces. Throws std::runtime_error if the
// points do not span a volume.
std::shared_ptr<ConvexHull> MakeConvexHull(const std::vector<Vec3>& points);

}  // namespace contactlab
