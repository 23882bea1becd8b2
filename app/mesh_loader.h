// Convex collision meshes from files (Assimp) and point sets (Qhull).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "app/mesh_reader.h"
#include "engine/multibody/model.h"

namespace contactlab {

// Loads every triangle of the file at `path` (OBJ, STL, PLY, glTF, ... anything Assimp reads),
// with node transforms applied, scales it component-wise by `scale`, and returns its convex hull.
// The hull has merged coplanar facets (polygons, CCW seen from outside, outward unit normals);
// the original triangles are kept in render_vertices / render_triangles, and `source` = path.
// The file is checked, then parsed in a child process (mesh_reader.h), within `limits`; every
// vertex after scaling lies within ±limits.max_scaled_coordinate m. Parsed files (and their
// hulls, per scale) are cached by path, size and modification time, so a reload parses only
// changed files.
// Throws MeshError (a std::runtime_error) naming the file and the reason: missing file, a limit,
// malformed structure, bad numbers (with FILE:LINE for text formats), a crashed reader, no
// triangles, degenerate hull or a hull without positive finite volume.
std::shared_ptr<ConvexHull> LoadConvexMesh(const std::string& path,
                                           const Vec3& scale = Vec3::Ones(),
                                           const MeshLimits& limits = MeshLimits());

// The triangles of a mesh file through the cache (ReadMeshIsolated, or ReadMeshInProcessFromFile
// when limits.isolate is off). Throws MeshError.
std::shared_ptr<const TriangleSoup> ReadMeshCached(const std::string& path,
                                                   const MeshLimits& limits = MeshLimits());

// Empties the parsed-file cache (tests, and measurements of the uncached load time).
void ClearMeshCache();

// Convex hull of a point set (Qhull), with merged coplanar facets. render_vertices and
// render_triangles hold a fan triangulation of the hull faces. Throws std::runtime_error if the
// points do not span a volume.
std::shared_ptr<ConvexHull> MakeConvexHull(const std::vector<Vec3>& points);

}  // namespace contactlab
