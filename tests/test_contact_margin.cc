// The contact margin against SAP's model (StepSettings::speculative_margin, Simulator::Step).
//
// A candidate contact with gap φ0 > 0 carries impulse exactly when
//   φ0 < (δt + τ_d) (μ ‖v_t‖ − v_n)                                                        (*)
// with v_t, v_n its contact velocity at the end of the step (SAP eq. 27's no-contact region with
// v̂_n = −φ0/(δt + τ_d); R cancels). The margin must keep every pair that (*) would load as a
// candidate: a sliding body glides at φ ≈ (δt + τ_d) μ ‖v_t‖ (§V-A), and a margin below that band
// drops its contacts. These tests use the default material (k = 1e6 N/m, τ_d = 0.01 s, μ = 0.5)
// at δt = 1 ms, where the band of a body sliding at 1 m/s is 5.5 mm, five times the 1 mm
// contact_margin.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "app/scene.h"
#include "engine/geometry/collision.h"
#include "engine/sim/simulator.h"
#include "tests/test_models.h"

namespace contactlab {
namespace {

using namespace contactlab::testing;  // NOLINT

constexpr double kG = 9.81;

Signal Constant(double v) {
  Signal s;
  s.value = v;
  return s;
}

// Contact velocity [v_t (world, tangential part), v_n] of B relative to A at c, at velocities v.
void ContactVelocity(const Simulator& sim, const KinematicsCache& kin, const VecX& v,
                     const Contact& c, Vec3* vt, double* vn) {
  Vec3 vb = c.body_b >= 0 ? sim.multibody().PointVelocity(kin, v, c.body_b, c.point) : Vec3::Zero();
  Vec3 va = c.body_a >= 0 ? sim.multibody().PointVelocity(kin, v, c.body_a, c.point) : Vec3::Zero();
  const Vec3 vc = vb - va;
  *vn = c.normal.dot(vc);
  *vt = vc - *vn * c.normal;
}

// Contacts of the recorded step that SAP's model would load (condition (*) at the step's end
// velocities) but that are missing from the step's candidates. All pairs are searched with a
// 1 m margin at q0; a candidate matches when geoms and point agree (the narrow phase is
// deterministic, so the same pair gives the same points whatever the margin).
int MissedLoadedContacts(const Simulator& sim, const StepRecord& rec) {
  KinematicsCache kin;
  sim.multibody().UpdateKinematics(rec.before.q, rec.before.time, &kin);
  CollisionDetector all(&sim.model());
  std::vector<Contact> wide;
  all.FindContacts(kin.X_WB, 1.0, &wide);
  const double dt = sim.settings().time_step;
  int missed = 0;
  for (Contact& c : wide) {
    const ContactValues mat = sim.model().PairContactValues(c.geom_a, c.geom_b);
    Vec3 vt;
    double vn;
    ContactVelocity(sim, kin, rec.after.v, c, &vt, &vn);
    const double band = (dt + mat.dissipation_time) * (mat.friction * vt.norm() - vn);
    if (!(c.phi < band)) continue;  // the model would not load it
    const bool kept = std::any_of(rec.contacts.begin(), rec.contacts.end(), [&](const Contact& k) {
      return k.geom_a == c.geom_a && k.geom_b == c.geom_b && (k.point - c.point).norm() < 1e-9;
    });
    if (!kept) ++missed;
  }
  return missed;
}

// Rotation angle between two unit quaternions [rad].
double AngleBetween(const Quat& a, const Quat& b) { return a.angularDistance(b); }

Quat BodyOrientation(const Simulator& sim, const State& s, int body) {
  KinematicsCache kin;
  sim.multibody().UpdateKinematics(s.q, s.time, &kin);
  return kin.X_WB[body].q;
}

// A 1 kg cube of side 0.1 m resting on the ground, pushed horizontally through its centre of mass
// by F = 2 μ m g (default material, μ = 0.5). Taking moments about the COM, the friction μ N acts
// s/2 below it and must be balanced by the normal force's centre of pressure moving x = μ s/2
// forward: for μ < 1 it stays inside the base (|x| < s/2) and the cube cannot tip. It slides with
// a = (F − μ m g)/m = μ g, reaching 4.9 m/s after 1 s, where the gliding band (δt + τ_d) μ v is
// 27 mm.
struct PushedCube {
  Model m;
  int box = -1;
  double mu = 0.5, mass = 1.0, side = 0.1;
  PushedCube() {
    const int mat = AddMaterial(&m, "mat", 1e6, 0.01, mu);
    AddGround(&m, Pose{}, mat);
    Pose p;
    p.p = Vec3(0, 0, side / 2);
    box = AddFreeBody(&m, "cube", mass, BoxInertia(mass, Vec3::Constant(side / 2)), p);
    AddGeom(&m, box, BoxShape(Vec3::Constant(side / 2)), mat);
    Load ld;
    ld.body = box;
    for (int k = 0; k < 3; ++k) ld.point[k] = Constant(0.0);
    ld.force[0] = Constant(2 * mu * mass * kG);
    ld.force[1] = Constant(0.0);
    ld.force[2] = Constant(0.0);
    m.loads.push_back(ld);
    m.Finalize();
  }
};

StepSettings Settings() {
  StepSettings s;
  s.time_step = 1e-3;
  s.gravity = Vec3(0, 0, -kG);
  return s;
}

TEST(ContactMargin, CubePushedThroughItsCentreOfMassSlidesWithoutTipping) {
  PushedCube scene;
  Simulator sim(scene.m, Settings());
  const Quat q_start = BodyOrientation(sim, sim.state(), scene.box);
  double max_angle = 0;
  int steps_with_dropped_corner = 0, missed = 0;
  for (int i = 0; i < 1000; ++i) {
    const StepRecord& rec = sim.Step();
    ASSERT_EQ(rec.result.stats.status, SolverStatus::kConverged) << "step " << i;
    // The four bottom corners are the cube's contacts with the ground; all of them stay
    // candidates while it slides (a corner above the band would be no loss, but the cube glides
    // flat at the band's height, so every corner is inside it).
    if (rec.contacts.size() < 4) ++steps_with_dropped_corner;
    missed += MissedLoadedContacts(sim, rec);
    max_angle =
        std::max(max_angle, AngleBetween(q_start, BodyOrientation(sim, rec.after, scene.box)));
  }
  EXPECT_EQ(steps_with_dropped_corner, 0);
  EXPECT_EQ(missed, 0);
  // It slides: x = μ g t²/2 = 2.45 m after 1 s (5% for the regularized friction and the
  // compliant start).
  EXPECT_NEAR(sim.state().q(0), 0.5 * scene.mu * kG, 0.05 * 0.5 * scene.mu * kG);
  // Orientation change < 0.1°. Why: the moment μ m g s/2 = 0.25 N m is carried by a shift of the
  // normal load between the front and back corners, ΔN ≈ μ m g/2 per edge, which compresses the
  // 5e5 N/m contacts (two 1e6 N/m materials in series) differentially by ~ΔN/k = 5e-6 m over
  // s = 0.1 m: a tilt of ~3e-3°.
  // The bound leaves room for the transient of the compliant start; the old margin
  // (contact_margin + δt · speed) let the cube tumble by about 100°.
  EXPECT_LT(max_angle * 180 / kPi, 0.1);
  std::printf("pushed cube: largest orientation change %.3g deg\n", max_angle * 180 / kPi);
}

// A box sliding down a 30° ramp with μ = 0.2 (default stiffness and τ_d): a = g (sin 30° −
// μ cos 30°) = 3.2 m/s², 3.2 m/s after 1 s, where the band (δt + τ_d) μ v = 7 mm exceeds the
// old margin 1 mm + δt v = 4.2 mm.
TEST(ContactMargin, BoxSlidingDownARampKeepsItsContacts) {
  Model m;
  const int mat = AddMaterial(&m, "mat", 1e6, 0.01, 0.2);
  Pose ramp;
  ramp.q = AxisAngleDeg(Vec3::UnitY(), 30);
  AddGround(&m, ramp, mat);
  const Vec3 half(0.05, 0.1, 0.025);
  Pose p;
  p.q = ramp.q;
  p.p = ramp.q * Vec3(0, 0, half.z());
  const int box = AddFreeBody(&m, "box", 1.0, BoxInertia(1.0, half), p);
  AddGeom(&m, box, BoxShape(half), mat);
  m.Finalize();
  Simulator sim(m, Settings());
  int steps_without_contact = 0, missed = 0;
  for (int i = 0; i < 1000; ++i) {
    const StepRecord& rec = sim.Step();
    ASSERT_EQ(rec.result.stats.status, SolverStatus::kConverged) << "step " << i;
    if (rec.contacts.empty()) ++steps_without_contact;
    missed += MissedLoadedContacts(sim, rec);
  }
  EXPECT_EQ(steps_without_contact, 0);
  EXPECT_EQ(missed, 0);
  // Distance down the ramp: g (sin 30° − μ cos 30°) t²/2 = 1.60 m (5%: regularized friction).
  const double s_expected = 0.5 * kG * (0.5 - 0.2 * std::cos(kPi / 6));
  const Vec3 x = sim.state().q.head<3>() - p.p;
  EXPECT_NEAR(x.norm(), s_expected, 0.05 * s_expected);
}

TEST(ContactMargin, ShippedBoxOnRampSceneNeverLosesItsContacts) {
  // scenes/box_on_ramp.yaml (15°, τ_d = δt) with the default τ_d = 0.01 s and μ = 0.125
  // (slides 0.68 m in 1 s): the box is on the ramp throughout, so every step has candidates and
  // none that the model would load is missing.
  Scene scene =
      LoadScene(std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/box_on_ramp.yaml",
                {"materials.ramp.dissipation_time=0.01", "materials.ramp.friction=0.125"});
  Simulator sim(scene.model, scene.settings);
  int steps_without_contact = 0, missed = 0;
  for (int i = 0; i < 1000; ++i) {
    const StepRecord& rec = sim.Step();
    if (rec.contacts.empty()) ++steps_without_contact;
    missed += MissedLoadedContacts(sim, rec);
  }
  EXPECT_EQ(steps_without_contact, 0);
  EXPECT_EQ(missed, 0);
}

// A 1 kg ball (r = 5 cm, default material) dropped from a 1 m gap above the floor.
struct DroppedBall {
  Model m;
  int ball = -1;
  double radius = 0.05, drop = 1.0;
  DroppedBall() {
    const int mat = AddMaterial(&m, "mat", 1e6, 0.01, 0.5);
    AddGround(&m, Pose{}, mat);
    Pose p;
    p.p = Vec3(0, 0, radius + drop);
    ball = AddFreeBody(&m, "ball", 1.0, SphereInertia(1.0, radius), p);
    AddGeom(&m, ball, SphereShape(radius), mat);
    m.Finalize();
  }
};

TEST(ContactMargin, FallingBallIsNoCandidateFarAboveTheFloor) {
  // Control on the margin's size: the ball is a candidate only once its gap is below the pair
  // margin contact_margin + (δt + τ_d) √(1 + μ²) |v0|, at most 5.6 cm at the 4.43 m/s
  // of impact; a margin absurdly large (a constant, or several times the band) would make it a
  // candidate higher up. Bound: never a candidate above 6 cm (6% of the drop).
  DroppedBall scene;
  Simulator sim(scene.m, Settings());
  const double dt = 1e-3, tau = 0.01, mu = 0.5;
  double highest_candidate = 0;
  int over_formula = 0;
  for (int i = 0; i < 600; ++i) {
    const StepRecord& rec = sim.Step();
    const double gap = rec.before.q(2) - scene.radius;
    const double speed = rec.before.v.head<3>().norm();
    if (!rec.contacts.empty()) {
      highest_candidate = std::max(highest_candidate, gap);
      // 1e-12: rounding of the margin's sum.
      if (gap > 1e-3 + (dt + tau) * std::sqrt(1 + mu * mu) * speed + 1e-12) ++over_formula;
    }
    if (i == 0) {
      EXPECT_TRUE(rec.contacts.empty());  // at rest 1 m up: not a candidate
    }
  }
  EXPECT_EQ(over_formula, 0);
  EXPECT_LT(highest_candidate, 0.06);
  EXPECT_GT(highest_candidate, 0.0);  // it did become a candidate before touching
}

TEST(ContactMargin, FallingBallIsBrakedAtTheGapOfSapsDampingTerm) {
  // With v_t = 0, (*) says the candidate pushes once φ0 < (δt + τ_d) |v_n|, v_n the velocity at
  // the end of the step; without the contact that is the free motion's v0 − g δt. So the first
  // loaded step is the first with φ0 < (δt + τ_d)(|v0| + g δt) (exact, checked on both sides),
  // and in closed form a ball falling from a gap h at speed v = √(2 g (h − φ)) starts to be
  // braked at the gap φ_b = τ' v, τ' = δt + τ_d:
  //   φ_b = −g τ'² + √(g² τ'⁴ + 2 g τ'² h)     (4.75 cm for h = 1 m, τ' = 11 ms).
  // Tolerance: the check happens once per step, and the ball moves v δt = 4.3 mm per step, so
  // the first loaded gap lies in (φ_b − v_b δt, φ_b]; widened by 2 τ' g δt (2.2e-4 m) for the
  // g δt in the threshold and the symplectic Euler fall (within g δt/2 of the exact speed).
  DroppedBall scene;
  Simulator sim(scene.m, Settings());
  const double dt = 1e-3, tau = 0.01, tp = dt + tau;
  int first_loaded = -1;
  double gap_loaded = 0, prev_gap = 0, prev_speed = 0;
  for (int i = 1; i < 600 && first_loaded < 0; ++i) {
    const double gap = sim.state().q(2) - scene.radius;
    const double speed = -sim.state().v(2);
    const StepRecord& rec = sim.Step();
    double gn = 0;
    for (const ConstraintData& cd : rec.problem.constraints)
      gn = std::max(gn, rec.result.gamma(cd.first_row + 2));
    if (gn > 0) {
      first_loaded = i;
      gap_loaded = gap;
      // Exact on both sides (1e-12 for the rounding of φ0 and v):
      EXPECT_LT(gap, tp * (speed + kG * dt) + 1e-12);
      EXPECT_GE(prev_gap, tp * (prev_speed + kG * dt) - 1e-12);
    }
    prev_gap = gap;
    prev_speed = speed;
  }
  ASSERT_GE(first_loaded, 0);
  const double h = scene.drop;
  const double phi_b = -kG * tp * tp + std::sqrt(kG * kG * std::pow(tp, 4) + 2 * kG * tp * tp * h);
  const double v_b = std::sqrt(2 * kG * (h - phi_b));
  EXPECT_GT(gap_loaded, phi_b - v_b * dt - 2 * tp * kG * dt);
  EXPECT_LT(gap_loaded, phi_b + 2 * tp * kG * dt);
  std::printf("falling ball: first loaded at gap %.4g m (closed form %.4g m)\n", gap_loaded, phi_b);
  // From then on each step's impulse follows SAP's stiction solution for this 1-D problem
  // (W = I/m, normal through the COM, v_t = 0): m (v_n − v*_n) = γ_n = −(v_n + φ0/τ')/R_n, so
  //   v_n = (m R_n v*_n − φ0/τ') / (1 + m R_n),   R_n = 1/(δt k τ')  (k = 5e5 N/m, the two
  // 1e6 N/m materials in series; compliant branch: m R_n = 0.18 > the β clamp
  // β² w m/(4π²) = 0.015), v*_n = v0_n − g δt. With m R_n ≪ 1 the speed
  // is ≈ φ0/τ': the gap decays with time constant τ' and the ball creeps onto the floor. Checked
  // over 50 steps while the gap is positive, to 1e-5 m/s (the solver's relative tolerance on
  // speeds of ~1 m/s, with margin).
  const double k = 5e5, m = 1.0, mRn = m / (dt * k * tp);  // pair k: two 1e6 N/m in series
  int checked = 0;
  for (int i = 0; i < 50; ++i) {
    const double gap = sim.state().q(2) - scene.radius;
    const double v0n = sim.state().v(2);
    if (!(gap > 0)) break;
    const StepRecord& rec = sim.Step();
    ASSERT_EQ(rec.result.stats.status, SolverStatus::kConverged);
    const double expected = (mRn * (v0n - kG * dt) - gap / tp) / (1 + mRn);
    EXPECT_NEAR(sim.state().v(2), expected, 1e-5) << "step " << i << " after the onset";
    ++checked;
  }
  EXPECT_GT(checked, 20);
}

// The per-pair margin uses the relative velocity of the two bodies: two balls 5 mm apart that
// move together at 3 m/s are not candidates, the same balls closing at 3 m/s are (margin 1 mm +
// (δt + τ_d) √(1 + μ²) 3 m/s = 3.8 cm).
TEST(ContactMargin, PairMarginFollowsTheRelativeVelocity) {
  Model m;
  const int mat = AddMaterial(&m, "mat", 1e6, 0.01, 0.5);
  Pose pa, pb;
  pa.p = Vec3(0, 0, 1);
  pb.p = Vec3(0.105, 0, 1);  // gap 5 mm between two r = 5 cm balls
  const int a = AddFreeBody(&m, "a", 1.0, SphereInertia(1.0, 0.05), pa);
  const int b = AddFreeBody(&m, "b", 1.0, SphereInertia(1.0, 0.05), pb);
  AddGeom(&m, a, SphereShape(0.05), mat);
  AddGeom(&m, b, SphereShape(0.05), mat);
  m.Finalize();
  CollisionDetector det(&m);
  const std::vector<Pose> X = {pa, pb};
  SpeculativeMargin spec;
  spec.time_step = 1e-3;
  spec.velocity = {Vec3(3, 0, 0), Vec3(3, 0, 0)};
  spec.extra = {0.0, 0.0};
  std::vector<Contact> out;
  CollisionStats stats;
  det.FindContacts(X, 1e-3, &out, &stats, &spec);
  EXPECT_TRUE(out.empty()) << "moving together: relative speed 0, margin 1 mm";
  EXPECT_NEAR(stats.max_pair_margin, 1e-3, 1e-15);
  spec.velocity = {Vec3(1.5, 0, 0), Vec3(-1.5, 0, 0)};
  det.FindContacts(X, 1e-3, &out, &stats, &spec);
  ASSERT_EQ(out.size(), 1u) << "closing at 3 m/s";
  EXPECT_NEAR(out[0].phi, 5e-3, 1e-12);
  EXPECT_NEAR(stats.max_pair_margin, 1e-3 + 0.011 * std::sqrt(1.25) * 3, 1e-12);
  det.FindContacts(X, 1e-3, &out, &stats, nullptr);
  EXPECT_TRUE(out.empty()) << "without the speculative part the margin is 1 mm";
}

}  // namespace
}  // namespace contactlab
