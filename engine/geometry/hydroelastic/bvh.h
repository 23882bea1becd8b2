// Axis-aligned bounding-box hierarchy over the tetrahedra of a volume mesh.
//
// Built once per mesh in the mesh's frame (a binary tree, median split of the tet centroids on
// the longest axis, one tet per leaf). Queries against a box, a half-space or another hierarchy
// in a different frame (its node boxes are carried over by the relative pose as the enclosing
// axis-aligned box of the rotated box: centre X·c, half extents |R|·h) visit every tet (pair)
// whose boxes overlap; the caller does the exact test. Tet boxes carry a round-off margin.
#pragma once

#include <algorithm>
#include <utility>
#include <vector>

#include "engine/common/math.h"
#include "engine/geometry/hydroelastic/volume_mesh.h"

namespace contactlab {

struct Aabb {
  Vec3 lo = Vec3::Constant(1e300), hi = Vec3::Constant(-1e300);

  void Include(const Vec3& x) {
    lo = lo.cwiseMin(x);
    hi = hi.cwiseMax(x);
  }
  void Include(const Aabb& b) {
    lo = lo.cwiseMin(b.lo);
    hi = hi.cwiseMax(b.hi);
  }
  bool Overlaps(const Aabb& b) const {
    return (lo.array() <= b.hi.array()).all() && (b.lo.array() <= hi.array()).all();
  }
  Vec3 Centre() const { return 0.5 * (lo + hi); }
  Vec3 HalfExtents() const { return 0.5 * (hi - lo); }
  // The axis-aligned box (frame A) enclosing this box (frame B) carried by x ↦ R x + p
  // (R = R_AB, p = p_AB, abs_R = |R_AB| entrywise).
  Aabb Transformed(const Mat3& R, const Vec3& p, const Mat3& abs_R) const {
    const Vec3 c = R * Centre() + p;
    const Vec3 h = abs_R * HalfExtents();
    return Aabb{c - h, c + h};
  }
};

class TetBvh {
 public:
  struct Node {
    Aabb box;
    int left = -1, right = -1;  // children; both -1 at a leaf
    int tet = -1;               // the leaf's tet
  };

  explicit TetBvh(const VolumeMesh& mesh);

  const std::vector<Node>& nodes() const { return nodes_; }
  // The box of tet t: its vertices' box grown by 1e-10 of the mesh's diagonal (round-off).
  const Aabb& tet_box(int t) const { return tet_box_[t]; }

  // visit(t) for every tet whose box overlaps `box` (mesh frame).
  template <class Visit>
  void Query(const Aabb& box, Visit&& visit) const {
    Traverse([&](const Aabb& node) { return !node.Overlaps(box); }, visit);
  }

  // visit(t) for every tet whose box reaches into the half-space n·x <= offset (mesh frame).
  template <class Visit>
  void QueryHalfSpace(const Vec3& normal, double offset, Visit&& visit) const {
    const Vec3 abs_normal = normal.cwiseAbs();
    Traverse(
        [&](const Aabb& node) {
          return normal.dot(node.Centre()) - abs_normal.dot(node.HalfExtents()) > offset;
        },
        visit);
  }

  // visit(t_this, t_other) for every pair of tets whose boxes overlap; X_AB is the pose of the
  // other mesh's frame B in this mesh's frame A.
  template <class Visit>
  void QueryPairs(const TetBvh& other, const Pose& X_AB, Visit&& visit) const {
    if (nodes_.empty() || other.nodes_.empty()) return;
    const Mat3 R = X_AB.R();
    const Mat3 abs_R = R.cwiseAbs();
    std::vector<std::pair<int, int>> stack{{0, 0}};
    while (!stack.empty()) {
      const auto [i, j] = stack.back();
      stack.pop_back();
      const Node& a = nodes_[i];
      const Node& b = other.nodes_[j];
      if (!a.box.Overlaps(b.box.Transformed(R, X_AB.p, abs_R))) continue;
      const bool a_leaf = a.tet >= 0, b_leaf = b.tet >= 0;
      if (a_leaf && b_leaf) {
        visit(a.tet, b.tet);
      } else if (b_leaf || (!a_leaf &&
                            (a.box.hi - a.box.lo).maxCoeff() >= (b.box.hi - b.box.lo).maxCoeff())) {
        stack.push_back({a.left, j});
        stack.push_back({a.right, j});
      } else {
        stack.push_back({i, b.left});
        stack.push_back({i, b.right});
      }
    }
  }

 private:
  // Depth-first walk: subtrees whose box `culled(box)` rejects are skipped, visit(t) is called
  // for every leaf tet reached.
  template <class Culled, class Visit>
  void Traverse(Culled&& culled, Visit&& visit) const {
    if (nodes_.empty()) return;
    std::vector<int> stack{0};
    while (!stack.empty()) {
      const Node& n = nodes_[stack.back()];
      stack.pop_back();
      if (culled(n.box)) continue;
      if (n.tet >= 0) {
        visit(n.tet);
      } else {
        stack.push_back(n.left);
        stack.push_back(n.right);
      }
    }
  }

  int Build(const VolumeMesh& mesh, std::vector<int>& order, const std::vector<Vec3>& centroid,
            int begin, int end);
  std::vector<Node> nodes_;
  std::vector<Aabb> tet_box_;
};

}  // namespace contactlab
