#include "engine/geometry/hydroelastic/bvh.h"

namespace contactlab {

TetBvh::TetBvh(const VolumeMesh& mesh) {
  const int n = mesh.num_tets();
  if (n == 0) return;
  tet_box_.resize(n);
  std::vector<Vec3> centroid(n);
  for (int t = 0; t < n; ++t) {
    Vec3 c = Vec3::Zero();
    for (int v : mesh.tets[t]) {
      tet_box_[t].Include(mesh.vertices[v]);
      c += mesh.vertices[v];
    }
    centroid[t] = 0.25 * c;
  }
  // Boxes grown by a round-off margin: a polygon lying in a tet's face plane (computed through
  // a different pose) must still reach the tet's box.
  Aabb all;
  for (const Aabb& b : tet_box_) all.Include(b);
  const Vec3 margin = Vec3::Constant(1e-10 * (all.hi - all.lo).norm());
  for (Aabb& b : tet_box_) {
    b.lo -= margin;
    b.hi += margin;
  }
  std::vector<int> order(n);
  for (int t = 0; t < n; ++t) order[t] = t;
  nodes_.reserve(2 * n);
  Build(mesh, order, centroid, 0, n);
}

int TetBvh::Build(const VolumeMesh& mesh, std::vector<int>& order,
                  const std::vector<Vec3>& centroid, int begin, int end) {
  const int id = static_cast<int>(nodes_.size());
  nodes_.emplace_back();
  Aabb box, centres;
  for (int i = begin; i < end; ++i) {
    box.Include(tet_box_[order[i]]);
    centres.Include(centroid[order[i]]);
  }
  nodes_[id].box = box;
  if (end - begin == 1) {
    nodes_[id].tet = order[begin];
    return id;
  }
  int axis;
  (centres.hi - centres.lo).maxCoeff(&axis);
  const int mid = (begin + end) / 2;
  std::nth_element(order.begin() + begin, order.begin() + mid, order.begin() + end,
                   [&](int a, int b) { return centroid[a][axis] < centroid[b][axis]; });
  const int left = Build(mesh, order, centroid, begin, mid);
  const int right = Build(mesh, order, centroid, mid, end);
  nodes_[id].left = left;
  nodes_[id].right = right;
  return id;
}

}  // namespace contactlab
