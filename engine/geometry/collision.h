// Collision detection: broad phase (sweep-and-prune on world AABBs) then narrow phase per shape
// pair, producing multi-point manifolds (a box resting on a face gives 4 points) with signed
// distance φ (negative in penetration). Pairs closer than `margin` are kept with φ > 0, so the
// solver sees them as candidates (no-contact regime) and contacts are not missed within a step.
#pragma once

#include <utility>
#include <vector>

#include "engine/geometry/contact.h"
#include "engine/multibody/model.h"

namespace contactlab {

struct CollisionStats {
  int geoms = 0;
  int broadphase_pairs = 0;  // AABB overlaps after filtering
  int contacts = 0;
  // Largest margin of any pair the narrow phase tested (`margin` itself if none) [m].
  double max_pair_margin = 0;
};

// Speculative part of the contact margin, per pair of bodies (see Simulator::Step for the
// derivation from SAP's model): the narrow phase keeps a pair of geoms with bodies a and b when
//   φ < margin + (δt + τ_d) √(1 + μ²) u_ab,   u_ab = ‖v_a − v_b‖ + e_a + e_b,
// τ_d and μ the pair's combined values (Model::PairContactValues), v and e the bodies' entries
// below (0 for the world): u_ab bounds the relative speed of any two surface points of a and b
// at the step's start. The broad phase inflates each geom's box by margin plus its body's share
// (δt + τ_max) √(1 + μ_max²) (‖v‖ + e), τ_max and μ_max over all materials and pair overrides
// (the combination rules never exceed the larger input).
struct SpeculativeMargin {
  double time_step = 0;        // δt [s], >= 0
  std::vector<Vec3> velocity;  // per body: velocity of its centre of mass (world) [m/s]
  std::vector<double> extra;   // per body: bound on the surface speed beyond `velocity` [m/s]
};

// One contact point between two shapes, before it is tagged with geoms and bodies.
struct ContactPoint {
  Vec3 point;   // world, midway between surfaces
  Vec3 normal;  // world, unit, from shape a into shape b
  double phi;   // signed distance
};

// Narrow phase per pair (see collision.cc, collision_polytope.cc, collision_gjk.cc):
//   closed form: half-space vs every shape (sphere, capsule 1-2 points, box up to 4 corners,
//     cylinder rim points: 8 evenly spaced when resting flat, the lowest one when tilted, convex
//     mesh vertices reduced to 8), sphere-sphere, sphere-capsule, capsule-capsule (parallel:
//     2 points), sphere-box, sphere-cylinder;
//   GJK (closest points) / libccd EPA (overlapping cores): sphere-mesh, capsule vs box, cylinder
//     and mesh (on a flat face the capsule axis is clipped to the face, giving 2 points for a
//     capsule lying on it; elsewhere its two end spheres plus the segment contact);
//   separating axes + face clipping: box, convex mesh and cylinder among themselves, the
//     cylinder replaced by a 24-sided prism with vertices on the rim (side contacts up to
//     r (1 - cos(π/24)) ≈ 0.0086 r too shallow; flat caps exact). Manifolds are reduced to at
//     most 8 points (deepest first, then farthest-point). For separated polytopes φ is the
//     separation along the best separating axis (exact for face contacts, a lower bound for
//     vertex-vertex and vertex-edge proximity);
//   large hulls (collision_internal.h): hulls over 32 vertices answer support queries by hill
//     climbing; polytope pairs whose separating-axis work exceeds 10⁶ products get their axis
//     from GJK (separated: exact distance) or MPR refined to the least-penetration direction
//     (overlapping), then the same face clipping when a face normal is as good as that axis.
// Contacts between shape a at X_WA and shape b at X_WB with φ < margin, appended to `out`.
// Returns the number appended. Handles every pair of ShapeType (half-space vs half-space gives
// none).
int CollideShapes(const Shape& a, const Pose& X_WA, const Shape& b, const Pose& X_WB,
                  double margin, std::vector<ContactPoint>* out);

// World-space AABB of a shape (half-spaces get a huge box).
void ShapeAabb(const Shape& s, const Pose& X_WG, double inflate, Vec3* lo, Vec3* hi);

// Broad phase: all index pairs (i < j) whose boxes [lo, hi] overlap (closed intervals), by sweep
// and prune along the axis of largest spread of the box centers. Sorted lexicographically.
// O(n log n + pairs overlapping on the sweep axis).
void SweepAndPrune(const std::vector<Vec3>& lo, const std::vector<Vec3>& hi,
                   std::vector<std::pair<int, int>>* pairs);

class CollisionDetector {
 public:
  explicit CollisionDetector(const Model* model);  // model must outlive this

  // All contacts at body poses X_WB (see KinematicsCache). Pairs skipped: same body, bodies
  // directly connected by a joint, pairs where neither body has dofs, non-colliding geoms.
  // Output order is deterministic. With `speculative` (may be null), each pair's margin grows as
  // described at SpeculativeMargin; its vectors must then have one entry per body.
  void FindContacts(const std::vector<Pose>& X_WB, double margin, std::vector<Contact>* contacts,
                    CollisionStats* stats = nullptr,
                    const SpeculativeMargin* speculative = nullptr);

  // Pressure-field pairs. With `hydroelastic` set (one entry per geom), FindContacts gives no
  // points for the broad-phase pairs with Model::PairIsHydroelastic and lists them instead in
  // hydroelastic_pairs() (geom indices, first < second, sorted); the caller computes their
  // contact surfaces. Empty (the default): every pair is a point-contact pair.
  void SetHydroelasticPairs(std::vector<char> hydroelastic_geoms) {
    hydro_geoms_ = std::move(hydroelastic_geoms);
  }
  const std::vector<std::pair<int, int>>& hydroelastic_pairs() const { return hydro_pairs_; }

 private:
  const Model* model_;
  std::vector<std::pair<int, int>> candidate_pairs_;  // scratch
  std::vector<std::pair<int, int>> merged_pairs_;     // scratch of the candidates' merge
  // Scratch of FindContacts, kept so that a query does not allocate once sizes are settled.
  std::vector<std::pair<int, int>> jointed_, local_pairs_;
  std::vector<Pose> poses_;
  std::vector<int> half_spaces_, others_;
  std::vector<Vec3> lo_, hi_;
  std::vector<ContactPoint> points_;                  // scratch
  std::vector<char> hydro_geoms_;                     // per geom: compliant (may pair by field)
  std::vector<std::pair<int, int>> hydro_pairs_;      // output of FindContacts
};

// World pose of a geometry given body poses.
inline Pose GeomPose(const Geom& g, const std::vector<Pose>& X_WB) {
  return g.body < 0 ? g.local : X_WB[g.body] * g.local;
}

}  // namespace contactlab
