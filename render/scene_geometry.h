// Pure geometry of the scene as the viewer frames and draws it (no GL): the bounds of the bodies
// with finite geometry (camera presets, wall heights) and the finite faces of half-spaces that
// bound each other (a floor and four walls drawn as the box they form).
#pragma once

#include <vector>

#include "engine/multibody/model.h"
#include "render/camera.h"

namespace contactlab {

// World bounds of every geometry with finite extent (half-spaces left out) at the body poses
// X_WB (size model.bodies.size(); geometries of bodies beyond it use their local pose).
Bounds3 FiniteGeometryBounds(const Model& model, const std::vector<Pose>& X_WB);

// A half-space as a plane: the solid is n . (x - point) <= 0, the free side n . (x - point) >= 0.
struct HalfSpacePlane {
  Vec3 point = Vec3::Zero();
  Vec3 normal = Vec3::UnitZ();  // unit, out of the solid
};

// Clips the convex polygon `polygon` (world points, in order) to the side n . (x - p) >= 0 of a
// plane (Sutherland-Hodgman); returns the kept polygon (empty when nothing is left).
std::vector<Vec3> ClipPolygonToPlane(const std::vector<Vec3>& polygon, const Vec3& p,
                                     const Vec3& n);

// The face of half-space `index` among `planes`: its boundary plane within `half_size` of the
// projection of `center` (a square), clipped to the free side of every other half-space and
// below z = top_z. World points, counter-clockwise seen from the free side; empty when nothing
// is left (a plane hidden inside another half-space).
std::vector<Vec3> HalfSpaceFace(const std::vector<HalfSpacePlane>& planes, int index,
                                const Vec3& center, double half_size, double top_z);

// The convex polygon `polygon` (counter-clockwise in the plane z = 0) shrunk by `width`: every
// edge moved inwards by `width`. Empty when it would vanish or turn over (the polygon is too
// small for that width).
std::vector<Vec3> InsetConvexPolygon(const std::vector<Vec3>& polygon, double width);

// Faces of the model's half-spaces, in each half-space's geometry frame (z = 0), ready to draw
// as finite polygons; `geoms` lists the half-space geometries in model order. Empty (`boxed`
// false) when the model has fewer than two half-spaces: a lone floor stays an infinite grid.
// Otherwise each half-space is clipped by the others within `half_size` of the bodies' centre,
// and those faces that rise above the bodies (walls) end at the top of the bodies' bounds plus a
// quarter of their height (at least 5 % of their size), or at the highest corner where the
// half-spaces meet, whichever is higher.
struct HalfSpaceFaces {
  bool boxed = false;
  std::vector<int> geoms;
  std::vector<std::vector<Vec3>> polygons;  // per entry of geoms, geometry frame
  double top_z = 0;                         // the walls' top [m]
  double bodies_top = 0;  // WallTopAboveBodies of the bodies they were made for (NaN: none)
  double rim_width = 0;  // the faces' rim (their outline) [m]: 0.5 % of the bodies' bounds
};
HalfSpaceFaces ComputeHalfSpaceFaces(const Model& model, const std::vector<Pose>& X_WB,
                                     double half_size = 25.0);

// The walls' top for bodies within `bodies`: above them by a quarter of their height, at least
// 5 % of their size. NaN for empty bounds.
double WallTopAboveBodies(const Bounds3& bodies);
// True when walls made for bodies whose WallTopAboveBodies was `bodies_top` (HalfSpaceFaces::
// bodies_top) no longer fit the bodies' current bounds, so that the viewer remakes them: a body
// rose above that top, or the walls stand more than half again as high above the lowest body as
// the bodies now need (the pile settled). False while the bounds are empty or wider than
// `max_extent` in any direction (bodies flung far away keep the walls where they were, finite).
bool WallTopOutdated(double bodies_top, const Bounds3& bodies, double max_extent = 50.0);

}  // namespace contactlab
