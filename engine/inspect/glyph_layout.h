// How contact glyphs are sized and thinned so that a crowded scene stays legible: a length scale
// per contact from the local contact spacing and the size of the bodies it touches, the level of
// detail that scale allows on screen, which contacts a focus on a body or its island keeps,
// screen-space label placement without overlaps, and the round impulse of the arrows' scale bar.
// Pure functions, no GL and no ImGui (debug_draw.cc and the viewer use them).
#pragma once

#include <string>
#include <vector>

#include "engine/common/math.h"
#include "engine/geometry/contact.h"

namespace contactlab {

struct Model;
struct Shape;
struct StepRecord;

// Radius of the smallest sphere about the geometry's origin that holds the shape [m]; infinity
// for a half-space (it bounds nothing).
double ShapeBoundingRadius(const Shape& shape);
// ShapeBoundingRadius of every geometry of the model, in geometry order.
std::vector<double> GeometryBoundingRadii(const Model& model);

// Limits of the per-contact glyph scale.
struct GlyphSizing {
  double max_scale = 0.04;  // [m]: an isolated contact between big bodies (the cone height)
  double min_scale = 0;     // [m]: never below (0: no floor)
  // The scale is at most spacing_fraction times the distance to the nearest other contact (so
  // that neighbouring glyphs do not merge) and body_fraction times the bounding radius of the
  // smaller geometry of the pair (so that a small body is not buried under its glyphs).
  double spacing_fraction = 0.45;
  double body_fraction = 0.3;
};

// Glyph length scale [m] of every contact:
//   clamp(min(max_scale, spacing_fraction d_i, body_fraction r_i), min_scale, max_scale)
// with d_i the distance from contact i to the nearest other contact with include[j] != 0 (all
// contacts when `include` is empty) and r_i the smaller ShapeBoundingRadius of its two
// geometries (geom_radius indexed by geometry; a geometry out of its range does not limit). O(n)
// on average: contacts are hashed into cubes of edge max_scale / spacing_fraction, beyond which
// a neighbour no longer limits the scale. Contacts with include[i] == 0 get max_scale and do not
// limit others.
std::vector<double> ContactGlyphScales(const std::vector<Contact>& contacts,
                                       const std::vector<double>& geom_radius,
                                       const GlyphSizing& sizing,
                                       const std::vector<char>& include = {});

// Where the 3D view projects a point: pixels per metre at depth (p − eye) · forward of a
// perspective camera with focal length focal_px = (viewport height / 2) / tan(fovy / 2).
struct GlyphView {
  Vec3 eye = Vec3::Zero();
  Vec3 forward = Vec3::UnitZ();  // unit
  double focal_px = 0;           // 0: no view (sizes are not projected)
  Vec3 right = Vec3::UnitX();    // unit, screen right (for Project)
  Vec3 up = Vec3::UnitY();       // unit, screen up
  bool valid() const { return focal_px > 0; }
  // Pixels per metre at p (0 for a point behind or at the eye, or without a view).
  double PixelsPerMetre(const Vec3& p) const;
  // Screen position of p [px] from the view's centre, x right and y up; false for a point
  // behind or at the eye, or without a view.
  bool Project(const Vec3& p, double* x_px, double* y_px) const;
};

// Level of detail of one contact's glyphs for its projected scale [px]: cones only when the scale
// spans at least cone_min_px, arrows from arrow_min_px, the dot always, with a diameter of
// point_fraction times the projected scale within [min_point_px, max_point_px]. (The scale is
// a fraction of the 3D spacing; contacts at several depths overlap on screen, hence dots well
// below it.)
struct GlyphLodLimits {
  double cone_min_px = 16;
  double arrow_min_px = 6;
  double point_fraction = 0.4;
  double min_point_px = 3;
  double max_point_px = 9;
};
struct GlyphLod {
  bool cone = true;
  bool arrows = true;
  double point_px = 9;
};
GlyphLod ContactGlyphLod(double scale_px, const GlyphLodLimits& limits);

// Summary markers: the contacts the level of detail reduces to dots (too small on screen for
// arrows) merged per screen cell of cell_px × cell_px pixels, so that a zoomed-out pile shows
// where its contacts are and how many, without a carpet of overlapping dots. One marker per
// occupied cell: its members (indices into `points`, in input order), the mean of their points,
// their count per regime (indexed by the integer value of Regime: stiction, sliding, no contact)
// and the most common regime (ties go to the lower value). Markers come in the order of their
// first member. A point the view cannot project (behind the eye, or no view) is a marker of its
// own. regimes[i] outside [0, 3) counts as no contact.
struct SummaryMarker {
  Vec3 point = Vec3::Zero();
  std::vector<int> members;
  int regime_count[3] = {0, 0, 0};
  int regime = 2;
  int count() const { return static_cast<int>(members.size()); }
};
std::vector<SummaryMarker> MergeSummaryMarkers(const std::vector<Vec3>& points,
                                               const std::vector<int>& regimes,
                                               const GlyphView& view, double cell_px);
// Diameter [px] of a summary marker of `count` contacts: the single dot's point_px, growing
// with log2(count) by a third of it per doubling, at most 2.5 point_px.
double SummaryMarkerPx(int count, double point_px);

// Focus: which bodies' contacts are drawn. kBody: contacts that touch the selected body; kIsland:
// contacts of the bodies connected to it through the step's contacts and kinematic trees (the
// world and static or prescribed bodies chain nothing).
enum class GlyphFocus : int { kOff = 0, kBody = 1, kIsland = 2 };
constexpr int kNumGlyphFocusModes = 3;
const char* GlyphFocusName(GlyphFocus focus);  // "off", "body", "island"
// Per body of the model (num_bodies): 1 when its contacts are in focus. All ones for kOff or a
// selection out of range (nothing to focus on).
std::vector<char> FocusBodies(const StepRecord& record, const Model& model, int selected_body,
                              GlyphFocus focus);
// Island label per body of the model: bodies of one kinematic tree, and the bodies of a record's
// contact that produced a constraint, share a label (static and prescribed bodies get their own);
// labels in [0, number of bodies).
std::vector<int> ContactIslands(const StepRecord& record, const Model& model);
// True when contact `contact` of the record touches a body with focus[body] != 0 (an empty
// `focus` holds every body; a contact with the world alone never does).
bool ContactInFocus(const Contact& contact, const std::vector<char>& focus);

// Screen-space labels placed greedily: candidates in the given order (the caller sorts them by
// priority: the selection first, then the largest impulse), each tried at a few offsets around
// its anchor (right-above, right-below, left-above, left-below, then stacked further above);
// one whose box overlaps every slot of an already placed label's box is dropped. Boxes are
// axis-aligned, y down.
struct LabelBox {
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  bool Overlaps(const LabelBox& o) const {
    return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1;
  }
};
struct LabelCandidate {
  double x = 0, y = 0;          // anchor [px]
  double width = 0, height = 0; // text size [px]
};
struct PlacedLabel {
  int index = -1;  // into the candidates
  LabelBox box;    // where its text goes (top-left at x0, y0)
};
// `gap` is the distance of the text from its anchor [px], `bounds` the area labels must stay in
// (a label whose every slot leaves it is dropped), `blocked` boxes no label may overlap (the
// legend, say).
std::vector<PlacedLabel> PlaceLabels(const std::vector<LabelCandidate>& candidates,
                                     const LabelBox& bounds, double gap = 6,
                                     const std::vector<LabelBox>& blocked = {});

// The arrows' scale bar: the largest impulse of the form {1, 2, 5} × 10^k [N s] whose arrow
// (impulse × impulse_scale metres, px_per_m pixels per metre) is at most max_px long. Zero
// length when the inputs are not positive and finite.
struct ScaleBar {
  double impulse = 0;  // [N s]
  double length_px = 0;
};
ScaleBar ImpulseScaleBar(double impulse_scale, double px_per_m, double max_px);
// "0.5 N·s", "2 mN·s", "20 µN·s": the bar's value with an SI prefix.
std::string FormatImpulse(double impulse);

}  // namespace contactlab
