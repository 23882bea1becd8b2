// The engine's debug-geometry sink. The engine never draws: code that wants to show geometry
// (contacts, cones, impulses) writes primitives into a DebugDraw, which render/ implements with
// OpenGL and tests implement with RecordingDebugDraw. All positions are world frame [m].
#pragma once

#include <string>
#include <vector>

#include "engine/inspect/colormap.h"
#include "engine/inspect/glyph_layout.h"
#include "engine/common/math.h"

namespace contactlab {

struct StepRecord;

class DebugDraw {
 public:
  virtual ~DebugDraw() = default;
  // Segment from a to b.
  virtual void Line(const Vec3& a, const Vec3& b, const Color& color) = 0;
  // Screen-space dot of diameter `size` [px] at p.
  virtual void Point(const Vec3& p, double size, const Color& color) = 0;
  // Arrow with its tail at `from` and its tip at `to`; `radius` [m] is the shaft's (heads are
  // wider), 0 for the sink's default (GlDebugDraw::set_arrow_radius).
  virtual void Arrow(const Vec3& from, const Vec3& to, const Color& color, double radius) = 0;
  void Arrow(const Vec3& from, const Vec3& to, const Color& color) { Arrow(from, to, color, 0); }
  // Solid circular cone: apex, unit axis (from the apex into the cone), height [m] along the
  // axis and half-angle [rad] in [0, π/2).
  virtual void Cone(const Vec3& apex, const Vec3& axis, double height, double half_angle,
                    const Color& color) = 0;
  // Label anchored at p.
  virtual void Text(const Vec3& p, const std::string& text, const Color& color) = 0;
  // Filled, unlit triangle with a colour per vertex (interpolated across it), seen from both
  // sides: pressure maps on contact surfaces.
  virtual void Triangle(const Vec3& a, const Vec3& b, const Vec3& c, const Color& color_a,
                        const Color& color_b, const Color& color_c) = 0;
};

// Stores every primitive, in call order per kind. For tests and for replaying a frame's glyphs.
class RecordingDebugDraw final : public DebugDraw {
 public:
  struct LineItem {
    Vec3 a, b;
    Color color;
  };
  struct PointItem {
    Vec3 p;
    double size;
    Color color;
  };
  struct ArrowItem {
    Vec3 from, to;
    Color color;
    double radius = 0;
  };
  struct ConeItem {
    Vec3 apex, axis;
    double height, half_angle;
    Color color;
  };
  struct TextItem {
    Vec3 p;
    std::string text;
    Color color;
  };
  struct TriangleItem {
    Vec3 a, b, c;
    Color color_a, color_b, color_c;
  };

  void Line(const Vec3& a, const Vec3& b, const Color& color) override;
  void Point(const Vec3& p, double size, const Color& color) override;
  using DebugDraw::Arrow;
  void Arrow(const Vec3& from, const Vec3& to, const Color& color, double radius) override;
  void Cone(const Vec3& apex, const Vec3& axis, double height, double half_angle,
            const Color& color) override;
  void Text(const Vec3& p, const std::string& text, const Color& color) override;
  void Triangle(const Vec3& a, const Vec3& b, const Vec3& c, const Color& color_a,
                const Color& color_b, const Color& color_c) override;

  void Clear();
  // Forwards every stored primitive to `out`.
  void Replay(DebugDraw* out) const;

  std::vector<LineItem> lines;
  std::vector<PointItem> points;
  std::vector<ArrowItem> arrows;
  std::vector<ConeItem> cones;
  std::vector<TextItem> texts;
  std::vector<TriangleItem> triangles;
};

// Forwards every primitive to another sink in one colour: `tint` replaces each primitive's RGB,
// its alpha is kept (compare mode draws another configuration's contacts in its colour).
class TintedDebugDraw final : public DebugDraw {
 public:
  TintedDebugDraw(DebugDraw* out, const Color& tint) : out_(out), tint_(tint) {}
  void Line(const Vec3& a, const Vec3& b, const Color& color) override {
    out_->Line(a, b, Tint(color));
  }
  void Point(const Vec3& p, double size, const Color& color) override {
    out_->Point(p, size, Tint(color));
  }
  using DebugDraw::Arrow;
  void Arrow(const Vec3& from, const Vec3& to, const Color& color, double radius) override {
    out_->Arrow(from, to, Tint(color), radius);
  }
  void Cone(const Vec3& apex, const Vec3& axis, double height, double half_angle,
            const Color& color) override {
    out_->Cone(apex, axis, height, half_angle, Tint(color));
  }
  void Text(const Vec3& p, const std::string& text, const Color& color) override {
    out_->Text(p, text, Tint(color));
  }
  void Triangle(const Vec3& a, const Vec3& b, const Vec3& c, const Color& color_a,
                const Color& color_b, const Color& color_c) override {
    out_->Triangle(a, b, c, Tint(color_a), Tint(color_b), Tint(color_c));
  }

 private:
  Color Tint(const Color& c) const { return WithAlpha(tint_, c.a); }
  DebugDraw* out_;
  Color tint_;
};

// What DrawContacts draws, and at which scale.
struct ContactDrawOptions {
  bool points = true;             // contact points coloured by regime
  bool normals = false;           // unit normals (from A into B) of length normal_length
  bool normal_impulses = true;    // γ_n n arrows on body B
  bool friction_impulses = true;  // γ_t arrows on body B (tangent plane)
  bool cones = true;              // friction cones, half-angle atan μ, coloured by saturation
  // Also draw candidates within the margin with zero impulse (smaller grey dots). Off by
  // default: they carry nothing, and a pile has many.
  bool inactive = false;
  bool labels = false;            // contact index next to each point
  // Contacts loaded at a positive gap (LoadedAtPositiveGap): a kGapLoadColor ring around the
  // point (a dot of gap_ring_scale × point_size drawn under it) and a segment of length φ along
  // the normal spanning the gap.
  bool gap_loads = true;
  double gap_ring_scale = 1.9;
  // Also draw the contacts that stand for faces of pressure-field contact surfaces
  // (Contact::surface >= 0); a viewer that draws the surfaces themselves (pressure_draw.h)
  // turns them off, since a patch has one such contact per face.
  bool face_contacts = true;
  // Glyphs sized per contact (ContactGlyphScales): cone height, arrow shaft and dot follow the
  // local contact spacing and the size of the smaller body, up to cone_height and point_size;
  // with a view (ContactGlyphContext::view), cones and then arrows are left out where that scale
  // spans too few pixels (ContactGlyphLod). Off: every contact at cone_height and point_size.
  bool adaptive_size = true;
  // With a view and adaptive sizes, contacts too small on screen for arrows are merged into
  // summary markers (MergeSummaryMarkers), one per screen cell of summary_cell_px: a larger dot
  // of the cell's most common regime in a light halo, labelled with the cell's contact count
  // from 3 contacts on. A cell with one contact keeps its own dot.
  bool summary_markers = true;
  double summary_cell_px = 20;    // [px]
  double min_point_size = 3;      // [px], adaptive dots
  double point_size = 9;          // [px]
  double normal_length = 0.05;    // [m]
  double impulse_scale = 10.0;    // arrow length per impulse [m / (N s)]
  double cone_height = 0.04;      // [m]
};

// What DrawContacts needs beyond the record to size and filter glyphs; every part optional.
struct ContactGlyphContext {
  std::vector<double> geom_radius;  // GeometryBoundingRadii; empty: body size does not limit
  GlyphView view;                   // invalid: no projected sizes and no level of detail
  std::vector<char> focus_body;     // FocusBodies; empty: every body
  int selected_contact = -1;        // drawn by the caller: no label of its own here
};

// Dark edge drawn around each cone's rim, so that a cone reads on a body of its own colour.
constexpr Color kGlyphOutlineColor{0.02f, 0.02f, 0.03f, 0.85f};

// Regime colour of a contact (kStictionColor, kSlidingColor or kInactiveColor).
Color RegimeColor(int regime);  // regime as the integer value of contactlab::Regime

// Cone saturation s = ‖γ_t‖ / (μ γ_n) in [0, 1]; 0 when γ_n <= 0. A frictionless contact
// (μ = 0) that carries a normal impulse is saturated (s = 1).
double ConeSaturation(const Vec3& gamma_contact_frame, double mu);

// True when contact `contact` of the record carries a normal impulse (γ_n > 0) while its signed
// distance at q0 is positive (φ > 0): SAP's model pushes before the surfaces touch, when
// φ0 < (δt + τ_d)(μ ‖v_t‖ − v_n) (the damping term on an approaching pair and the gliding band
// of a sliding one; see StepSettings::speculative_margin). False for a contact without a
// constraint or result.
bool LoadedAtPositiveGap(const StepRecord& record, int contact);
// Number of the record's contacts for which LoadedAtPositiveGap holds.
int CountLoadedAtPositiveGap(const StepRecord& record);

// Regimes of a step's solved constraints, contacts (friction cones, indexed by Regime) apart from
// joint limits (unilateral rows: active when they carry an impulse law, else inactive), so that
// the solver panel's counts agree with the contact inspector's. All zero without a result.
struct RegimeCounts {
  int contacts[3] = {0, 0, 0};  // [kStiction], [kSliding], [kNoContact]
  int limits_active = 0, limits_inactive = 0;
  int bilateral = 0;  // equality constraints (ConstraintKind::kBilateral; always active)
};
RegimeCounts CountRegimes(const StepRecord& record);

// Draws the contacts of a step. Contact geometry is taken from record.contacts (at q0), the
// impulses, regimes and constraint data from record.problem and record.result. γ rows are in the
// contact frame ContactFrame(normal) (t1, t2, n) and act on body B; arrows start at the point.
// Contacts that produced no constraint, or whose constraint has no result (a failed or missing
// solve), are drawn as inactive. Labels (the contact index) come last, largest impulse first.
// Returns the indices of the contacts drawn (in contact order: the ones a click or the hover
// tooltip may pick) and how many candidates without impulse options.inactive left out (in focus
// and not face contacts hidden by face_contacts).
struct ContactDrawResult {
  std::vector<int> drawn;
  int hidden_inactive = 0;
  // Glyphs drawn, by type (the legend lists only these): regime dots (indexed by Regime, single
  // contacts and summary markers), φ > 0 rings, unit normals, cones, γ_n and γ_t arrows, and
  // the summary markers with the contacts they stand for.
  int dots[3] = {0, 0, 0};
  int gap_rings = 0, normals = 0, cones = 0, normal_arrows = 0, friction_arrows = 0;
  int summary_markers = 0, summarized = 0;
  // Adds another draw's glyph counts (the compare ghosts') to these; `drawn` and
  // hidden_inactive stay.
  void AddCounts(const ContactDrawResult& o);
};
// Colour of the light halo around a summary marker.
constexpr Color kSummaryHaloColor{0.90f, 0.91f, 0.94f, 1.0f};
ContactDrawResult DrawContacts(const StepRecord& record, const ContactDrawOptions& options,
                               const ContactGlyphContext& context, DebugDraw* out);
ContactDrawResult DrawContacts(const StepRecord& record, const ContactDrawOptions& options,
                               DebugDraw* out);

// Largest impulse magnitude, normal or friction, over the record's cone constraints [N s]
// (0 when there is none or the result is missing).
double LargestImpulse(const StepRecord& record);

// Impulse scale [m / (N s)] that draws the largest impulse magnitude (normal or friction) of
// the record with length `target_length` [m]. Returns `fallback` when no contact carries an
// impulse.
double FitImpulseScale(const StepRecord& record, double target_length, double fallback);

// Automatic scale with hysteresis: keeps `current` while the longest arrow it gives stays
// within [target/4, 3/2 target] (so arrows of a steady scene keep their meaning from step to
// step), otherwise refits to target / largest. `largest` <= 0 keeps `current`.
double AutoImpulseScale(double current, double largest, double target_length);

}  // namespace contactlab
