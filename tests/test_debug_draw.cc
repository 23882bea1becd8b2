// DrawContacts through the RecordingDebugDraw sink, on a hand-built StepRecord: one stiction,
// one sliding and one inactive contact, so every glyph can be predicted exactly.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/inspect/colormap.h"
#include "engine/inspect/debug_draw.h"
#include "engine/sim/simulator.h"

namespace contactlab {
namespace {

bool SameColor(const Color& a, const Color& b) {
  return a.r == b.r && a.g == b.g && a.b == b.b && a.a == b.a;
}

constexpr double kMu = 0.5;

// Contact 0: stiction at the origin, normal +z, γ = (0.1, 0, 1) in (t1, t2, n).
// Contact 1: sliding at x = 1 with a tilted normal, ‖γ_t‖ = μ γ_n (on the cone).
// Contact 2: inside the margin with no impulse.
StepRecord ThreeContacts() {
  StepRecord r;
  const Vec3 normals[3] = {Vec3::UnitZ(), Vec3(0, 1, 1).normalized(), Vec3::UnitZ()};
  for (int i = 0; i < 3; ++i) {
    Contact c;
    c.body_a = -1;
    c.body_b = i;
    c.point = Vec3(i, 0, 0);
    c.normal = normals[i];
    c.phi = i == 2 ? 5e-4 : -1e-4;
    c.friction = kMu;
    r.contacts.push_back(c);
    ConstraintData cd;
    cd.kind = ConstraintKind::kFrictionCone;
    cd.first_row = 3 * i;
    cd.num_rows = 3;
    cd.friction = kMu;
    cd.source = i;
    r.problem.constraints.push_back(cd);
  }
  r.problem.num_rows = 9;
  r.result.gamma = VecX::Zero(9);
  r.result.gamma.segment<3>(0) = Vec3(0.1, 0.0, 1.0);
  r.result.gamma.segment<3>(3) = Vec3(0.3, 0.4, 1.0);  // ‖γ_t‖ = 0.5 = μ γ_n
  r.result.regime = {Regime::kStiction, Regime::kSliding, Regime::kNoContact};
  return r;
}

// The options with the candidates without impulse drawn (hidden by default).
ContactDrawOptions WithInactive() {
  ContactDrawOptions o;
  o.inactive = true;
  return o;
}

TEST(DebugDraw, PointsCarryTheRegimeColours) {
  RecordingDebugDraw rec;
  const ContactDrawResult result = DrawContacts(ThreeContacts(), WithInactive(), &rec);
  ASSERT_EQ(rec.points.size(), 3u);  // one point per contact, inactive ones included
  EXPECT_EQ(result.drawn, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(result.hidden_inactive, 0);
  EXPECT_TRUE(SameColor(rec.points[0].color, kStictionColor)) << "contact 0 is in stiction";
  EXPECT_TRUE(SameColor(rec.points[1].color, kSlidingColor)) << "contact 1 is sliding";
  EXPECT_TRUE(SameColor(rec.points[2].color, kInactiveColor)) << "contact 2 has no impulse";
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(rec.points[i].p.isApprox(Vec3(i, 0, 0))) << "point drawn at the contact";
  }
  EXPECT_LT(rec.points[2].size, rec.points[0].size) << "a candidate's dot is smaller";
  // The three regime colours must be told apart on screen.
  EXPECT_GT(RgbDistance(kStictionColor, kSlidingColor), 0.5);
  EXPECT_GT(RgbDistance(kStictionColor, kInactiveColor), 0.3);
  EXPECT_GT(RgbDistance(kSlidingColor, kInactiveColor), 0.3);
}

TEST(DebugDraw, ConesHaveHalfAngleAtanMuAndSaturationColour) {
  ContactDrawOptions o;
  o.cone_height = 0.07;
  RecordingDebugDraw rec;
  DrawContacts(ThreeContacts(), o, &rec);
  // Only contacts that carry an impulse get a cone, with a dark edge around its rim.
  ASSERT_EQ(rec.cones.size(), 2u);
  ASSERT_FALSE(rec.lines.empty());
  for (const auto& l : rec.lines) EXPECT_TRUE(SameColor(l.color, kGlyphOutlineColor));
  const StepRecord r = ThreeContacts();
  for (int i = 0; i < 2; ++i) {
    const auto& cone = rec.cones[i];
    EXPECT_NEAR(cone.half_angle, std::atan(kMu), 1e-15) << "Coulomb cone half-angle";
    EXPECT_DOUBLE_EQ(cone.height, 0.07) << "height from the options";
    EXPECT_TRUE(cone.apex.isApprox(r.contacts[i].point)) << "apex at the contact point";
    EXPECT_TRUE(cone.axis.isApprox(r.contacts[i].normal)) << "axis along the normal";
  }
  // Stiction contact: ‖γ_t‖ / (μ γ_n) = 0.1 / 0.5 = 0.2; sliding contact: on the cone, 1.
  EXPECT_TRUE(SameColor(rec.cones[0].color, SaturationColor(0.2)));
  EXPECT_TRUE(SameColor(rec.cones[1].color, SaturationColor(1.0)));
  EXPECT_FALSE(SameColor(rec.cones[0].color, rec.cones[1].color))
      << "different saturations must look different";
}

TEST(DebugDraw, ImpulseArrowsHaveLengthGammaTimesScale) {
  ContactDrawOptions o;
  o.impulse_scale = 3.0;
  RecordingDebugDraw rec;
  DrawContacts(ThreeContacts(), o, &rec);
  // Two impulse arrows (normal, friction) for each of the two active contacts.
  ASSERT_EQ(rec.arrows.size(), 4u);
  const StepRecord r = ThreeContacts();
  const double gn[2] = {1.0, 1.0};
  const double gt[2] = {0.1, 0.5};
  for (int i = 0; i < 2; ++i) {
    const auto& normal_arrow = rec.arrows[2 * i];
    const auto& friction_arrow = rec.arrows[2 * i + 1];
    const Vec3 n = r.contacts[i].normal;
    EXPECT_TRUE(SameColor(normal_arrow.color, kNormalImpulseColor));
    EXPECT_TRUE(SameColor(friction_arrow.color, kFrictionImpulseColor));
    EXPECT_TRUE(normal_arrow.from.isApprox(r.contacts[i].point)) << "arrow tail at the contact";
    const Vec3 dn = normal_arrow.to - normal_arrow.from;
    EXPECT_NEAR(dn.norm(), 3.0 * gn[i], 1e-12) << "γ_n scaled to metres";
    EXPECT_NEAR(dn.normalized().dot(n), 1.0, 1e-12) << "normal impulse pushes B along n";
    const Vec3 dt = friction_arrow.to - friction_arrow.from;
    EXPECT_NEAR(dt.norm(), 3.0 * gt[i], 1e-12) << "‖γ_t‖ scaled to metres";
    EXPECT_NEAR(dt.dot(n), 0.0, 1e-12) << "friction lies in the tangent plane";
  }
  // The friction arrow is the contact-frame γ_t mapped to world by ContactFrame(n).
  const Mat3 C = ContactFrame(r.contacts[1].normal);
  const Vec3 expected = 3.0 * (C.transpose() * Vec3(0.3, 0.4, 0.0));
  EXPECT_TRUE((rec.arrows[3].to - rec.arrows[3].from).isApprox(expected));
}

TEST(DebugDraw, OptionsSwitchGlyphsOff) {
  ContactDrawOptions o;
  o.inactive = false;
  o.cones = false;
  o.friction_impulses = false;
  o.normals = true;
  o.labels = true;
  RecordingDebugDraw rec;
  DrawContacts(ThreeContacts(), o, &rec);
  EXPECT_EQ(rec.points.size(), 2u) << "inactive contact hidden";
  EXPECT_EQ(rec.cones.size(), 0u);
  EXPECT_EQ(rec.arrows.size(), 2u) << "normal impulses only";
  EXPECT_EQ(rec.lines.size(), 2u) << "one normal line per drawn contact";
  ASSERT_EQ(rec.texts.size(), 2u);
  // Labels carry the contact index, the largest impulse first (contact 1: |γ| = 1.12 N s
  // against 1.005 N s).
  EXPECT_EQ(rec.texts[0].text, "1");
  EXPECT_EQ(rec.texts[1].text, "0");
}

TEST(DebugDraw, InactiveCandidatesAreHiddenByDefault) {
  RecordingDebugDraw rec;
  const ContactDrawResult result = DrawContacts(ThreeContacts(), ContactDrawOptions{}, &rec);
  EXPECT_FALSE(ContactDrawOptions{}.inactive);
  ASSERT_EQ(rec.points.size(), 2u);
  EXPECT_EQ(result.drawn, (std::vector<int>{0, 1})) << "contact 2 carries no impulse";
  EXPECT_EQ(result.hidden_inactive, 1);
}

TEST(DebugDraw, ContactWithoutResultIsDrawnInactive) {
  StepRecord r = ThreeContacts();
  r.result = SolverResult{};  // e.g. the solve has not run
  RecordingDebugDraw rec;
  DrawContacts(r, WithInactive(), &rec);
  ASSERT_EQ(rec.points.size(), 3u);
  for (const auto& p : rec.points) EXPECT_TRUE(SameColor(p.color, kInactiveColor));
  EXPECT_TRUE(rec.arrows.empty()) << "no impulse without a result";
  EXPECT_TRUE(rec.cones.empty());
}

TEST(DebugDraw, ConeSaturationEdgeCases) {
  EXPECT_NEAR(ConeSaturation(Vec3(0.3, 0.4, 1.0), 1.0), 0.5, 1e-15);
  EXPECT_DOUBLE_EQ(ConeSaturation(Vec3(3.0, 4.0, 1.0), 1.0), 1.0) << "clamped to the cone";
  EXPECT_DOUBLE_EQ(ConeSaturation(Vec3(0.3, 0.4, 0.0), 1.0), 0.0) << "no normal impulse";
  EXPECT_DOUBLE_EQ(ConeSaturation(Vec3(0.0, 0.0, 1.0), 0.0), 1.0) << "frictionless: sliding";
}

TEST(DebugDraw, FitImpulseScaleMapsLargestImpulseToTarget) {
  const StepRecord r = ThreeContacts();
  // Largest magnitude is γ_n = 1 N s (contact 0 and 1).
  EXPECT_DOUBLE_EQ(FitImpulseScale(r, 0.2, -1.0), 0.2);
  StepRecord empty;
  EXPECT_DOUBLE_EQ(FitImpulseScale(empty, 0.2, -1.0), -1.0) << "fallback without impulses";
}

TEST(DebugDraw, AutoImpulseScaleKeepsAScaleThatFitsAndRefitsOneThatDoesNot) {
  EXPECT_DOUBLE_EQ(LargestImpulse(ThreeContacts()), 1.0) << "γ_n = 1 N s is the largest";
  // Target 0.2 m: scales giving 0.1 m or 0.28 m (inside [0.05, 0.3]) are kept.
  EXPECT_DOUBLE_EQ(AutoImpulseScale(0.1, 1.0, 0.2), 0.1);
  EXPECT_DOUBLE_EQ(AutoImpulseScale(0.28, 1.0, 0.2), 0.28);
  // Arrows 2x too long or 10x too short: refit to the target.
  EXPECT_DOUBLE_EQ(AutoImpulseScale(0.4, 1.0, 0.2), 0.2);
  EXPECT_DOUBLE_EQ(AutoImpulseScale(0.02, 1.0, 0.2), 0.2);
  // Nothing to fit to: keep.
  EXPECT_DOUBLE_EQ(AutoImpulseScale(0.7, 0.0, 0.2), 0.7);
}

TEST(DebugDraw, ReplayForwardsEveryPrimitive) {
  RecordingDebugDraw a, b;
  DrawContacts(ThreeContacts(), ContactDrawOptions{}, &a);
  a.Text(Vec3::Zero(), "x", kNormalColor);
  a.Line(Vec3::Zero(), Vec3::UnitX(), kNormalColor);
  a.Replay(&b);
  EXPECT_EQ(b.points.size(), a.points.size());
  EXPECT_EQ(b.cones.size(), a.cones.size());
  EXPECT_EQ(b.arrows.size(), a.arrows.size());
  EXPECT_EQ(b.lines.size(), a.lines.size());
  EXPECT_EQ(b.texts.size(), a.texts.size());
  a.Clear();
  EXPECT_TRUE(a.points.empty() && a.cones.empty() && a.arrows.empty() && a.texts.empty());
}

// Contact 0: φ = +3 mm and γ_n = 0.2 (SAP pushing before the surfaces touch, as the damping
// term does on an approaching pair); contact 1: φ = +3 mm with zero impulse (an ordinary
// candidate); contact 2: φ = −1e-4 (touching) with γ_n = 1.
StepRecord GapContacts() {
  StepRecord r;
  const double phis[3] = {3e-3, 3e-3, -1e-4};
  for (int i = 0; i < 3; ++i) {
    Contact c;
    c.body_a = -1;
    c.body_b = i;
    c.point = Vec3(i, 0, 0);
    c.normal = Vec3::UnitZ();
    c.phi = phis[i];
    c.friction = kMu;
    r.contacts.push_back(c);
    ConstraintData cd;
    cd.kind = ConstraintKind::kFrictionCone;
    cd.first_row = 3 * i;
    cd.num_rows = 3;
    cd.friction = kMu;
    cd.phi0 = phis[i];
    cd.source = i;
    r.problem.constraints.push_back(cd);
  }
  r.problem.num_rows = 9;
  r.result.gamma = VecX::Zero(9);
  r.result.gamma(2) = 0.2;
  r.result.gamma(8) = 1.0;
  r.result.regime = {Regime::kStiction, Regime::kNoContact, Regime::kStiction};
  return r;
}

TEST(DebugDraw, ContactLoadedAtAPositiveGapIsFlagged) {
  const StepRecord r = GapContacts();
  EXPECT_TRUE(LoadedAtPositiveGap(r, 0)) << "phi > 0 with gamma_n > 0";
  EXPECT_FALSE(LoadedAtPositiveGap(r, 1)) << "phi > 0 without impulse is a plain candidate";
  EXPECT_FALSE(LoadedAtPositiveGap(r, 2)) << "loaded, but the surfaces touch";
  EXPECT_FALSE(LoadedAtPositiveGap(r, 3)) << "no such contact";
  EXPECT_EQ(CountLoadedAtPositiveGap(r), 1);

  ContactDrawOptions o = WithInactive();
  o.cones = false;
  RecordingDebugDraw rec;
  DrawContacts(r, o, &rec);
  // One extra point (the ring, drawn before the regime dot so that the dot covers its centre)
  // and one gap segment, for contact 0 only.
  ASSERT_EQ(rec.points.size(), 4u);
  EXPECT_TRUE(SameColor(rec.points[0].color, kGapLoadColor));
  EXPECT_TRUE(rec.points[0].p.isApprox(Vec3(0, 0, 0)));
  EXPECT_DOUBLE_EQ(rec.points[0].size, o.gap_ring_scale * o.point_size);
  EXPECT_GT(rec.points[0].size, rec.points[1].size) << "the ring shows around the dot";
  EXPECT_TRUE(SameColor(rec.points[1].color, kStictionColor));
  EXPECT_TRUE(SameColor(rec.points[2].color, kInactiveColor));
  ASSERT_EQ(rec.lines.size(), 1u);
  EXPECT_TRUE(SameColor(rec.lines[0].color, kGapLoadColor));
  // The segment spans the gap along the normal, centred on the point (midway between surfaces).
  EXPECT_NEAR((rec.lines[0].b - rec.lines[0].a).dot(Vec3::UnitZ()), 3e-3, 1e-15);
  EXPECT_TRUE((0.5 * (rec.lines[0].a + rec.lines[0].b)).isApprox(Vec3(0, 0, 0)));
  // Distinct from the regime colours.
  for (const Color& c : {kStictionColor, kSlidingColor, kInactiveColor, kNormalColor})
    EXPECT_GT(DeltaE76(kGapLoadColor, c), 25.0);

  o.gap_loads = false;
  RecordingDebugDraw off;
  DrawContacts(r, o, &off);
  EXPECT_EQ(off.points.size(), 3u) << "the flag can be switched off";
  EXPECT_TRUE(off.lines.empty());
}

}  // namespace
}  // namespace contactlab

namespace contactlab {
namespace {

// The solver panel counts contacts apart from joint limits: two cones and two unilateral rows
// give contact counts by regime and the limits as active/inactive, never mixed.
TEST(DebugDraw, RegimeCountsKeepJointLimitsApartFromContacts) {
  StepRecord r;
  const ConstraintKind kinds[] = {ConstraintKind::kFrictionCone, ConstraintKind::kUnilateral,
                                  ConstraintKind::kFrictionCone, ConstraintKind::kUnilateral};
  for (ConstraintKind kind : kinds) {
    ConstraintData cd;
    cd.kind = kind;
    r.problem.constraints.push_back(cd);
  }
  r.result.regime = {Regime::kSliding, Regime::kStiction, Regime::kNoContact,
                     Regime::kNoContact};
  const RegimeCounts n = CountRegimes(r);
  EXPECT_EQ(n.contacts[0], 0);  // the active limit is not a contact in stiction
  EXPECT_EQ(n.contacts[1], 1);
  EXPECT_EQ(n.contacts[2], 1);
  EXPECT_EQ(n.limits_active, 1);
  EXPECT_EQ(n.limits_inactive, 1);
  // A record without a result counts nothing.
  r.result.regime.clear();
  const RegimeCounts z = CountRegimes(r);
  EXPECT_EQ(z.contacts[0] + z.contacts[1] + z.contacts[2] + z.limits_active, 0);
}

// Seen from far away the three contacts (1 m apart) are a pixel apart: too small for arrows and
// cones, they merge into one summary marker with their count; zoomed in, each has its glyphs.
TEST(DebugDraw, ContactsTooSmallOnScreenMergeIntoASummaryMarker) {
  ContactGlyphContext far;
  far.view.eye = Vec3(10, 0, 1000);  // the contacts at -10, -9, -8 px: one 20 px cell
  far.view.forward = -Vec3::UnitZ();
  far.view.right = Vec3::UnitX();
  far.view.up = Vec3::UnitY();
  far.view.focal_px = 1000;  // 1 px per metre at the contacts
  RecordingDebugDraw rec;
  const ContactDrawResult r = DrawContacts(ThreeContacts(), WithInactive(), far, &rec);
  EXPECT_EQ(r.drawn, (std::vector<int>{0, 1, 2})) << "merged contacts can still be picked";
  EXPECT_EQ(r.summary_markers, 1);
  EXPECT_EQ(r.summarized, 3);
  EXPECT_EQ(r.normal_arrows + r.friction_arrows + r.cones, 0);
  EXPECT_EQ(r.dots[0] + r.dots[1] + r.dots[2], 1) << "one marker dot instead of three";
  EXPECT_TRUE(rec.arrows.empty());
  ASSERT_EQ(rec.points.size(), 2u) << "the halo and the marker's dot";
  EXPECT_TRUE(SameColor(rec.points[0].color, kSummaryHaloColor));
  EXPECT_GT(rec.points[0].size, rec.points[1].size) << "the halo rings the dot";
  EXPECT_TRUE(rec.points[1].p.isApprox(Vec3(1, 0, 0))) << "at the contacts' mean";
  ASSERT_EQ(rec.texts.size(), 1u);
  EXPECT_EQ(rec.texts[0].text, "3") << "the marker's count";
  // Off: each contact keeps its own dot.
  ContactDrawOptions off = WithInactive();
  off.summary_markers = false;
  RecordingDebugDraw each;
  const ContactDrawResult r_off = DrawContacts(ThreeContacts(), off, far, &each);
  EXPECT_EQ(r_off.summary_markers, 0);
  EXPECT_EQ(each.points.size(), 3u);
  EXPECT_EQ(r_off.dots[0], 1);
  EXPECT_EQ(r_off.dots[1], 1);
  EXPECT_EQ(r_off.dots[2], 1);
  // Close up (1000 px per metre): arrows and cones, no marker.
  ContactGlyphContext near = far;
  near.view.eye = Vec3(1, 0, 1);
  RecordingDebugDraw close;
  const ContactDrawResult r_near = DrawContacts(ThreeContacts(), WithInactive(), near, &close);
  EXPECT_EQ(r_near.summary_markers, 0);
  EXPECT_GT(r_near.normal_arrows, 0);
  EXPECT_GT(r_near.cones, 0);
  EXPECT_EQ(r_near.normal_arrows, static_cast<int>(close.arrows.size()) - r_near.friction_arrows);
}

}  // namespace
}  // namespace contactlab
