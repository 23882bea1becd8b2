// Pressure-field contact made visible: the contact surfaces (patches) of a step drawn as polygons
// coloured by pressure, each patch's resultant force and centre of pressure, the pressure under a
// ray (hover), the colour range a viewer holds, and the edges of the compliant bodies' tet meshes.
// Everything draws into a DebugDraw (debug_draw.h) or is a pure function; no GL.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "engine/common/math.h"
#include "engine/geometry/hydroelastic/contact_surface.h"
#include "engine/inspect/colormap.h"
#include "engine/inspect/debug_draw.h"
#include "engine/inspect/glyph_layout.h"

namespace contactlab {

struct StepRecord;

// Colour of the patch force arrows and of the centre-of-pressure markers: a lime of the pressure
// map's family, clear of every other glyph colour (colormap.h).
constexpr Color kPatchForceColor{0.68f, 0.84f, 0.18f, 1.0f};
constexpr Color kCentreOfPressureColor{0.87f, 0.98f, 0.52f, 1.0f};
// Patch moment arrows (the solved contact moment about the centre of pressure): peach, clear of
// the cone map's violets, the normal-impulse sky blue and the regime orange.
constexpr Color kPatchMomentColor{1.00f, 0.75f, 0.55f, 1.0f};
// Face outlines: dark, half transparent, so that the colours stay readable under them.
constexpr Color kFaceOutlineColor{0.02f, 0.03f, 0.02f, 0.55f};
// Tet mesh edges: a light neutral grey, half transparent.
constexpr Color kTetEdgeColor{0.80f, 0.82f, 0.86f, 0.45f};

// What DrawPressureSurfaces draws. The colour range is given explicitly (the viewer decides it,
// see PressureRangeState): p_min maps to the bottom of the colour map, p_max to its top, values
// outside are clamped.
struct PressureDrawOptions {
  double p_min = 0;    // [Pa]
  double p_max = 1e5;  // [Pa], > p_min (otherwise every vertex takes the map's top colour)
  PressureColorMap color_map = PressureColorMap::kLime;
  bool surfaces = true;            // every face filled, coloured by its vertex pressures
  bool outlines = false;           // face edges in kFaceOutlineColor
  bool force_arrows = true;        // per patch: force_scale · ContactSurface::Force()
  bool centre_of_pressure = true;  // per patch: a marker at ContactSurface::CentreOfPressure()
  // Faces and outlines are drawn `offset` [m] off their plane, toward the compliant side (away
  // from a rigid body's surface, which they lie on), so that they do not z-fight with it.
  double offset = 5e-4;
  double force_scale = 1e-3;  // arrow length per newton [m/N]
  // Per patch (record overload only): the moment of the solved contact forces about the centre
  // of pressure (PatchResultantOf), drawn along its axis from the centre, moment_scale [m/(N m)].
  bool moment_arrows = true;
  double moment_scale = 1.0;
  double marker_size = 12;    // centre-of-pressure marker [px]
  // The contact glyphs' rules for patches: per surface, 1 when it is drawn (empty: all; the
  // viewer's focus on a body or island); with a view, the centre-of-pressure marker follows the
  // patch's projected size (sqrt of its area) within [3 px, marker_size] and the arrows' shafts
  // are 0.7 to 1.8 px wide.
  std::vector<char> surface_shown;
  GlyphView view;
};
// True when surface i is drawn under options.surface_shown.
inline bool SurfaceShown(const PressureDrawOptions& o, int i) {
  return o.surface_shown.empty() ||
         (i >= 0 && i < static_cast<int>(o.surface_shown.size()) && o.surface_shown[i]);
}

// Position of the colour of pressure p in [p_min, p_max] on the map, in [0, 1] (0 for NaN or an
// empty range below p_min, 1 above p_max).
double PressureFraction(double p, double p_min, double p_max);
Color PressureColor(double p, const PressureDrawOptions& options);

// Unit direction in which a face is drawn off its plane: +n̂ (into B) unless B is the rigid side.
Vec3 FaceOffsetDirection(const ContactFace& face);

// Draws record.surfaces: each face as a triangle fan from vertex 0 (one Triangle per polygon
// vertex beyond the second), vertex colours from the vertex pressures; outlines as Lines; per
// patch one Arrow from the centre of pressure to centre + force_scale · Force() and one Point at
// the centre of pressure. A record without surfaces draws nothing.
void DrawPressureSurfaces(const StepRecord& record, const PressureDrawOptions& options,
                          DebugDraw* out);

// The shaft radius [m] of a patch's arrows (0: the sink's default, without a view) and the size
// of its centre-of-pressure marker [px] under the options' view.
double PatchArrowRadius(const ContactSurface& surface, const PressureDrawOptions& options);
double PatchMarkerSize(const ContactSurface& surface, const PressureDrawOptions& options);

// What the solve made of a patch: the force of its faces' constraints on body B, normal and
// friction parts (Σ Cᵀγ / δt over the faces that became contacts, δt the record's step), and its
// moment about the centre of pressure Σ (c_e − cop) × f_e (the torsional friction that holds a
// gripped object, for example). `solved` is false without a result for the record.
struct PatchResultant {
  Vec3 force = Vec3::Zero();   // [N]
  Vec3 moment = Vec3::Zero();  // [N m], about `point`
  Vec3 point = Vec3::Zero();   // the centre of pressure [m]
  bool solved = false;
};
PatchResultant PatchResultantOf(const StepRecord& record, int surface);
void DrawPressureSurfaces(const std::vector<ContactSurface>& surfaces,
                          const PressureDrawOptions& options, DebugDraw* out);

// Largest pressure of the step's surfaces: over every face's vertex pressures and p0 [Pa]
// (0 without surfaces).
double MaxSurfacePressure(const std::vector<ContactSurface>& surfaces);

// The pressure under a ray: the nearest face polygon the ray crosses (each polygon as its fan of
// triangles from vertex 0) and the pressure there, interpolated barycentrically from the
// triangle's vertex pressures (exact for the linear field of the face).
struct PressurePick {
  int surface = -1, face = -1;
  Vec3 point = Vec3::Zero();  // world [m]
  double pressure = 0;        // [Pa]
  double distance = 0;        // along the ray, in units of |direction|
};
std::optional<PressurePick> PickPressure(const std::vector<ContactSurface>& surfaces,
                                         const Vec3& origin, const Vec3& direction);

// The colour range of the pressure legend. "hold": set once from the first step with pressure
// (or again when a refit is asked for), then held however the pressure changes, so that colours
// keep their meaning over a run; "fixed": the user's [fixed_min, fixed_max].
enum class PressureRangeMode : int { kHold = 0, kFixed = 1 };
struct PressureRangeState {
  PressureRangeMode mode = PressureRangeMode::kHold;
  double fixed_min = 0, fixed_max = 1e4;  // [Pa]
  bool held = false;                      // hold: a range was set
  double held_min = 0, held_max = 1;      // [Pa]
  int held_step = -1;                     // the step it was set from
  bool refit_requested = false;           // hold: set again from the next step shown
};
// Round-up of p to 1, 2 or 5 times a power of ten (p <= 0 or not finite: 1).
double NicePressureCeiling(double p);
// The state after showing a step whose largest pressure is `step_max_pressure` (0: no pressure,
// e.g. no patch). A step has pressure when step_max_pressure > noise_floor (finite): a patch of
// bodies that barely touch carries round-off pressures such as 1e-10 Pa, which no range should
// be fitted to. Hold: when no range is held yet, or a refit was requested, and the step has
// pressure, the range becomes [0, NicePressureCeiling(step_max_pressure)] and the request is
// cleared (a refit waits for a step with pressure); a held range grows to
// NicePressureCeiling(step_max_pressure) when a step exceeds it (a landing sets a range that the
// resting load would saturate) and never shrinks, so it changes a few times in a run at most.
// Fixed: unchanged.
PressureRangeState UpdatePressureRange(const PressureRangeState& state, double step_max_pressure,
                                       int step, double noise_floor = 0);
// The noise floor for UpdatePressureRange: a millionth of the largest hydroelastic modulus
// (p = E e, so a pressure below it is an extent below 1e-6: round-off of touching surfaces).
constexpr double kPressureNoiseFraction = 1e-6;
// The [min, max] to draw with: the fixed range (its max raised above its min when the user typed
// max <= min), the held one, or [0, 1] Pa in hold mode before any pressure was seen.
std::array<double, 2> PressureRangeOf(const PressureRangeState& state);

// "490 Pa", "1.25 kPa", "3.2 MPa", "1.5 GPa": three significant digits in the largest unit that
// keeps the value at least 1; below 0.01 Pa "1.16e-10 Pa".
std::string FormatPressure(double pa);

// Edges of a tet mesh as vertex index pairs (smaller index first, sorted, each once): all tet
// edges, or only those of the boundary faces (VolumeMesh::BoundaryFaces).
std::vector<std::array<int, 2>> TetMeshEdges(const VolumeMesh& mesh, bool boundary_only);
// Draws `edges` between `vertices` (geometry frame) posed by X_WG (geometry frame to world) as
// Lines; edges with an index out of range are skipped.
void DrawTetMeshEdges(const std::vector<Vec3>& vertices,
                      const std::vector<std::array<int, 2>>& edges, const Pose& X_WG,
                      const Color& color, DebugDraw* out);

}  // namespace contactlab
