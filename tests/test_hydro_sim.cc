// Pressure-field (hydroelastic) contact in the simulator: compliant geometry on materials and
// geometries, one contact constraint per contact-surface face, the patches in StepRecord, the
// scene format, and closed-form equilibria (docs/hydroelastic.md).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "app/scene.h"
#include "engine/geometry/hydroelastic/face_constraints.h"
#include "engine/sim/simulator.h"
#include "test_models.h"

namespace contactlab {
namespace {

using testing::AddFreeBody;
using testing::AddGeom;
using testing::AddGround;
using testing::BoxInertia;
using testing::BoxShape;
using testing::SphereInertia;
using testing::SphereShape;

constexpr double kG = 9.81;

StepSettings Gravity(double dt) {
  StepSettings s;
  s.time_step = dt;
  s.gravity = Vec3(0, 0, -kG);
  s.sap.rel_tolerance = 1e-10;  // equilibria below are compared to 1e-6 and finer
  s.sap.abs_tolerance = 1e-14;
  return s;
}

int AddCompliantMaterial(Model* m, const std::string& name, double modulus, double resolution,
                         double tau = 0.02, double mu = 0.5) {
  Material mat;
  mat.name = name;
  mat.hydroelastic_modulus = modulus;
  mat.hydroelastic_resolution = resolution;
  mat.dissipation_time = tau;
  mat.friction = mu;
  m->materials.push_back(mat);
  return static_cast<int>(m->materials.size()) - 1;
}

// Σ γ_n over the contact constraints of the faces of `surface` [N s].
double PatchNormalImpulse(const StepRecord& rec, int surface) {
  double sum = 0;
  for (const ConstraintData& cd : rec.problem.constraints) {
    if (cd.kind != ConstraintKind::kFrictionCone) continue;
    if (rec.contacts[cd.source].surface == surface) sum += rec.result.gamma(cd.first_row + 2);
  }
  return sum;
}

// Runs n steps, each expected to succeed; returns the largest momentum error.
double Steps(Simulator* sim, int n) {
  double worst = 0;
  for (int i = 0; i < n; ++i) {
    const StepRecord& r = sim->Step();
    EXPECT_FALSE(r.Failed()) << "step " << i << ": " << r.result.stats.message;
    worst = std::max(worst, r.result.stats.momentum_error);
  }
  return worst;
}

// Sums over the faces of surface `surface` that became contacts (the recipe keeps those with
// positive gradients on both sides): Σ A_e p0 [N] and Σ A_e [m²].
struct KeptSums {
  double force = 0, area = 0;
  int faces = 0;
};
KeptSums Kept(const StepRecord& rec, int surface) {
  KeptSums k;
  for (const Contact& c : rec.contacts) {
    if (c.surface != surface) continue;
    const ContactFace& f = rec.surfaces[surface].faces[c.face];
    k.force += f.area * f.p0;
    k.area += f.area;
    ++k.faces;
  }
  return k;
}

// A compliant box resting flat on a rigid floor carries its weight as a uniform pressure over
// its bottom face. At depth d the box's field (the normalized distance to its whole surface)
// is E d / c over the face inset by d, and grows parallel to the floor in the strips of width d
// along the edges: there g = 0 and the per-face recipe skips the faces (no stiffness to model).
// So the kept faces carry p = E d / c over 4 (a − d)(b − d), and at rest that is the weight:
//   E d / c · 4 (a − d)(b − d) = m g,
// which is m g / A up to the strips' share (a + b) d / (a b) (docs/hydroelastic.md).
TEST(HydroSim, BoxRestingFlatCarriesItsWeightAsUniformPressure) {
  Model m;
  AddGround(&m, Pose{}, 0);
  const double E = 1e6;
  const int soft = AddCompliantMaterial(&m, "soft", E, 0.02);
  const Vec3 h(0.1, 0.08, 0.05);
  const double a = h.x(), b = h.y(), c = h.z();
  const double mass = 2.0;
  const int box = AddFreeBody(&m, "box", mass, BoxInertia(mass, h), Pose{Vec3(0, 0, c), Quat::Identity()});
  AddGeom(&m, box, BoxShape(h), soft);
  m.Finalize();
  Simulator sim(m, Gravity(1e-3));
  Steps(&sim, 600);  // k_eff = E A / c = 6.4e5 N/m, ω = 566 rad/s, ζ = ω τ_d / 2 = 5.7: settled
  const StepRecord& rec = sim.Step();
  ASSERT_FALSE(rec.Failed());
  ASSERT_EQ(rec.surfaces.size(), 1u);
  const ContactSurface& s = rec.surfaces[0];
  const double A = 4 * a * b;
  // The plane cuts the whole bottom layer: the patch is the face (round-off).
  EXPECT_NEAR(s.Area(), A, 1e-12 * A);
  EXPECT_EQ(rec.metrics.num_patches, 1);
  EXPECT_EQ(rec.metrics.max_penetration, 0.0);  // faces are not point penetrations

  const double W = mass * kG;
  double lo = 0, hi = std::min(a, b);
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (E * mid / c * 4 * (a - mid) * (b - mid) < W ? lo : hi) = mid;
  }
  const double d = 0.5 * (lo + hi);  // 24.5 µm
  const double p = E * d / c;
  // At rest (v = 0) each face's impulse is δt f0 (the linear law at x = x0), so the kept faces'
  // Σ A_e p0 is the weight; the motion left after 600 steps bounds the error (1e-6).
  const KeptSums kept = Kept(rec, 0);
  EXPECT_EQ(rec.metrics.num_faces, kept.faces);
  EXPECT_LT(kept.faces, static_cast<int>(s.faces.size()));  // the strips' faces are skipped
  EXPECT_NEAR(kept.force, W, 1e-6 * W);
  EXPECT_NEAR(kept.area, 4 * (a - d) * (b - d), 1e-6 * A);
  EXPECT_NEAR(PatchNormalImpulse(rec, 0), W * 1e-3, 1e-6 * W * 1e-3);
  EXPECT_NEAR(sim.state().q(2), c - d, 1e-6 * d);
  // Every kept face carries the same pressure (the field is exact for a box).
  for (const Contact& k : rec.contacts) {
    for (double pv : s.faces[k.face].pressure) EXPECT_NEAR(pv, p, 1e-6 * p);
  }
  // Uniform pressure m g / A up to the strips' share of the force.
  const double strip = (a + b) * d / (a * b);
  EXPECT_NEAR(p, W / A, 1.5 * strip * W / A);
  EXPECT_GT(std::abs(p - W / A), 0.5 * strip * W / A);  // the strips are really there

  // Each face's constraint follows the recipe: k = A_e g, φ0 = −p0/g, with g the compliant
  // side's gradient along the normal (the floor is rigid).
  for (const ConstraintData& cd : rec.problem.constraints) {
    const Contact& k = rec.contacts[cd.source];
    ASSERT_GE(k.surface, 0);
    const ContactFace& f = rec.surfaces[k.surface].faces[k.face];
    const double g = EffectiveGradient(f.g_a, f.g_b);
    EXPECT_NEAR(g, E / c, 1e-9 * E / c);
    EXPECT_NEAR(cd.stiffness, f.area * g, 1e-12 * f.area * g);
    EXPECT_NEAR(cd.phi0, -f.p0 / g, 1e-12 * std::abs(f.p0 / g));
    EXPECT_EQ(cd.friction, 0.5);
    // τ_d by the combination rule with the floor's default material (equal k: the mean).
    EXPECT_DOUBLE_EQ(cd.dissipation_time, (0.02 * 1e6 + 0.01 * 1e6) / (1e6 + 1e6));
  }
}

// Sphere of radius R, modulus E, pressed into a rigid plane by its weight F = m g: the linear
// field p = E (1 − r/R) gives, at depth d, contact radius a = √(2Rd − d²) and force
//   F(d) = π E [a² − (2 / 3R)(R³ − (R − d)³)],
// and the pressure at radius ρ on the plane z = R − d below the centre
//   p(ρ) = E (1 − √(ρ² + (R − d)²) / R).
double SphereForce(double E, double R, double d) {
  const double a2 = 2 * R * d - d * d;
  return kPi * E * (a2 - 2.0 / (3 * R) * (R * R * R - std::pow(R - d, 3)));
}

TEST(HydroSim, SpherePressedByItsWeightMatchesTheLinearField) {
  const double R = 0.1, E = 1e5, mass = 10.0, res = R / 8;
  const double F = mass * kG;
  double lo = 0, hi = R;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (SphereForce(E, R, mid) < F ? lo : hi) = mid;
  }
  const double d = 0.5 * (lo + hi);  // 17.9 mm
  const double a = std::sqrt(2 * R * d - d * d);

  Model m;
  AddGround(&m, Pose{}, 0);
  const int soft = AddCompliantMaterial(&m, "soft", E, res, 0.05);
  const int ball = AddFreeBody(&m, "ball", mass, SphereInertia(mass, R),
                               Pose{Vec3(0, 0, R - 0.9 * d), Quat::Identity()});
  AddGeom(&m, ball, SphereShape(R), soft);
  m.Finalize();
  Simulator sim(m, Gravity(2e-3));
  Steps(&sim, 500);  // k_eff = 2πEd ≈ 1.1e4 N/m, ω ≈ 34 rad/s, ζ = ω τ_d / 2 ≈ 0.84: 1 s settles
  const StepRecord& rec = sim.Step();
  ASSERT_EQ(rec.surfaces.size(), 1u);
  const ContactSurface& s = rec.surfaces[0];
  const Vec3 centre = sim.state().q.head<3>();
  // Equilibrium of the discrete field: Σ A_e p0 = F over the kept faces (to the residual motion
  // after settling).
  EXPECT_NEAR(Kept(rec, 0).force, F, 1e-4 * F);
  // The mesh lies inside the ball and its interpolated field below the exact one, so the
  // discrete sphere sinks deeper than d; the force error at h = R/8 is below 1.6 (h/R)² = 2.5%
  // (tests/test_hydroelastic.cc), and F ∝ d² near this depth, so d within half of that, 1.3%,
  // rounded up to 2%.
  const double d_sim = R - centre.z();
  EXPECT_GT(d_sim, d);
  EXPECT_NEAR(d_sim, d, 0.02 * d);
  // Contact radius: the farthest polygon vertex from the axis is within one mesh chord of
  // √(2R d_sim − d_sim²) (the contact's rim lies on chords inside the ball).
  const double a_sim = std::sqrt(2 * R * d_sim - d_sim * d_sim);
  double rim = 0;
  for (const ContactFace& f : s.faces) {
    for (const Vec3& p : f.polygon) rim = std::max(rim, std::hypot(p.x() - centre.x(), p.y() - centre.y()));
  }
  EXPECT_LE(rim, a_sim + 1e-9);
  EXPECT_GT(rim, a_sim - 1.5 * res);
  EXPECT_NEAR(a_sim, a, 0.02 * a);
  // Pressure at each face centroid: never above the linear field of the exact ball at the
  // simulated depth, and within 1.5 (h/R)² E of it (test_hydroelastic.cc's measured constant).
  for (const ContactFace& f : s.faces) {
    const double rho = std::hypot(f.centroid.x() - centre.x(), f.centroid.y() - centre.y());
    const double p_exact = E * (1 - std::hypot(rho, R - d_sim) / R);
    EXPECT_LE(f.p0, p_exact + 1e-9 * E);
    EXPECT_NEAR(f.p0, p_exact, 1.5 * (res / R) * (res / R) * E);
  }
  // Centre of pressure under the centre (the sphere does not tip on its tessellation).
  const Vec3 cop = s.CentreOfPressure();
  EXPECT_LT(std::hypot(cop.x() - centre.x(), cop.y() - centre.y()), 0.05 * a);
}

// Two equal compliant boxes stacked on a rigid floor: the patch between them carries the top
// box's weight, the floor patch both weights; each patch's Σ γ_n is its load times δt.
TEST(HydroSim, StackedCompliantBoxesCarryTheWeightAbove) {
  Model m;
  AddGround(&m, Pose{}, 0);
  const int soft = AddCompliantMaterial(&m, "soft", 2e6, 0.05);
  const Vec3 h(0.1, 0.1, 0.05);
  const double m_low = 3.0, m_top = 1.0;
  const int low = AddFreeBody(&m, "low", m_low, BoxInertia(m_low, h), Pose{Vec3(0, 0, h.z()), Quat::Identity()});
  const int top = AddFreeBody(&m, "top", m_top, BoxInertia(m_top, h),
                              Pose{Vec3(0.03, 0.02, 3 * h.z()), Quat::Identity()});
  AddGeom(&m, low, BoxShape(h), soft);
  AddGeom(&m, top, BoxShape(h), soft);
  m.Finalize();
  const double dt = 1e-3;
  Simulator sim(m, Gravity(dt));
  Steps(&sim, 400);
  const StepRecord& rec = sim.Step();
  ASSERT_FALSE(rec.Failed());
  ASSERT_EQ(rec.surfaces.size(), 2u);
  for (int i = 0; i < 2; ++i) {
    const ContactSurface& s = rec.surfaces[i];
    const bool floor = s.geom_a == 0 || s.geom_b == 0;
    const double load = (floor ? m_low + m_top : m_top) * kG;
    SCOPED_TRACE(floor ? "floor patch" : "box-box patch");
    Vec3 force = Vec3::Zero();  // Σ A_e p0 n̂ over the kept faces
    for (const Contact& c : rec.contacts) {
      if (c.surface == i) force += s.faces[c.face].area * s.faces[c.face].p0 * s.faces[c.face].normal;
    }
    // The patch's impulse, normal and friction parts in the world frame, holds the load up.
    Vec3 impulse = Vec3::Zero();
    for (const ConstraintData& cd : rec.problem.constraints) {
      const Contact& c = rec.contacts[cd.source];
      if (c.surface != i) continue;
      impulse += ContactFrame(c.normal).transpose() * rec.result.gamma.segment<3>(cd.first_row);
    }
    EXPECT_NEAR(std::abs(impulse.z()), load * dt, 1e-5 * load * dt);
    EXPECT_NEAR(impulse.head<2>().norm(), 0, 1e-5 * load * dt);
    // The field's force Σ A_e p0 n̂ alone: on the offset pair's sloped faces and corner fins
    // friction carries a share (measured 5e-5 of the load vertically, 2e-4 sideways).
    EXPECT_NEAR(std::abs(force.z()), load, 1e-3 * load);
    EXPECT_NEAR(force.head<2>().norm(), 0, 1e-3 * load);
    if (floor) EXPECT_NEAR(PatchNormalImpulse(rec, i), load * dt, 1e-5 * load * dt);
    if (!floor) {
      // Offset boxes: the equal-pressure surface projects onto the overlap rectangle.
      const double overlap = (2 * h.x() - 0.03) * (2 * h.y() - 0.02);
      double projected = 0;
      for (const ContactFace& f : s.faces) projected += f.area * std::abs(f.normal.z());
      EXPECT_NEAR(projected, overlap, 1e-3 * overlap);  // the top box settles within 1e-5 m
    }
  }
}

// Compliant and point contact side by side, and a pair override that keeps point contact.
TEST(HydroSim, PointContactStaysAvailablePerPair) {
  const std::string scene = R"(
time_step: 0.001
materials:
  - {name: soft, hydroelastic: {modulus: 1e6, resolution: 0.05}}
  - {name: hard, stiffness: 1e6}
  - {name: floor, stiffness: 1e8}
pairs:
  - {materials: [soft, hard], contact: point}
bodies:
  - {name: floor, static: true, geoms: [{shape: half_space, material: floor}]}
  - {name: box, mass: 1, position: [0, 0, 0.049], geoms: [{shape: box, size: [0.1, 0.1, 0.1], material: soft}]}
  - {name: ball, mass: 1, position: [0.5, 0, 0.05], geoms: [{shape: sphere, radius: 0.05, material: hard}]}
  - name: pusher
    mass: 1
    position: [0, 0.5, 0.05]
    geoms: [{shape: box, size: [0.1, 0.1, 0.1], material: hard}]
)";
  Scene sc = ParseScene(scene, "mixed.yaml");
  Simulator sim(sc.model, sc.settings);
  const StepRecord& rec = sim.Step();
  int faces = 0, points = 0;
  for (const Contact& c : rec.contacts) (c.surface >= 0 ? faces : points)++;
  EXPECT_EQ(rec.surfaces.size(), 1u);  // the compliant box on the floor
  EXPECT_GT(faces, 0);
  EXPECT_GE(points, 1 + 4);  // the ball and the rigid box on the floor
  // The soft box against a hard geometry uses point contact by the pair override.
  Scene sc2 = ParseScene(R"(
time_step: 0.001
materials:
  - {name: soft, hydroelastic: {modulus: 1e6}}
  - {name: hard}
pairs:
  - {materials: [soft, hard], contact: point}
bodies:
  - {name: floor, static: true, geoms: [{shape: half_space, material: hard}]}
  - {name: box, mass: 1, position: [0, 0, 0.049], geoms: [{shape: box, size: [0.1, 0.1, 0.1], material: soft}]}
)",
                         "override.yaml");
  Simulator sim2(sc2.model, sc2.settings);
  const StepRecord& rec2 = sim2.Step();
  EXPECT_TRUE(rec2.surfaces.empty());
  EXPECT_EQ(rec2.contacts.size(), 4u);  // the box's four corners
}

// A recorded step re-solves to the same result: the faces keep their field stiffness (not the
// material's point-contact k).
TEST(HydroSim, ResolveOfARecordedStepKeepsTheFaceStiffness) {
  Scene sc = LoadScene(std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/hydro/box_on_floor.yaml");
  Simulator sim(sc.model, sc.settings);
  for (int i = 0; i < 20; ++i) sim.Step();
  const StepRecord rec = sim.last_record();
  ASSERT_FALSE(rec.surfaces.empty());
  const SolverResult again = sim.Resolve(rec, sim.settings());
  ASSERT_EQ(again.v.size(), rec.result.v.size());
  EXPECT_LE((again.v - rec.result.v).norm(), 1e-12 * (1 + rec.result.v.norm()));
  EXPECT_LE((again.gamma - rec.result.gamma).norm(), 1e-12 * (1 + rec.result.gamma.norm()));
}

// Editing the modulus between steps rebuilds the field: at the same configuration every face
// pressure scales with E (the mesh is the same).
TEST(HydroSim, ModulusEditTakesEffectOnTheNextStep) {
  Scene sc = LoadScene(std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/hydro/box_on_floor.yaml");
  Simulator sim(sc.model, sc.settings);
  for (int i = 0; i < 10; ++i) sim.Step();
  const State s = sim.state();
  const StepRecord first = sim.Step();
  sim.set_state(s);
  const int soft = sim.model().FindMaterial("soft");
  sim.mutable_model().materials[soft].hydroelastic_modulus *= 4;
  const StepRecord& second = sim.Step();
  ASSERT_EQ(first.surfaces.size(), 1u);
  ASSERT_EQ(second.surfaces.size(), 1u);
  ASSERT_EQ(first.surfaces[0].faces.size(), second.surfaces[0].faces.size());
  for (size_t e = 0; e < first.surfaces[0].faces.size(); ++e) {
    EXPECT_NEAR(second.surfaces[0].faces[e].p0, 4 * first.surfaces[0].faces[e].p0,
                1e-9 * first.surfaces[0].faces[e].p0);
  }
}

std::string SceneError(const std::string& text) {
  try {
    ParseScene(text, "bad.yaml");
  } catch (const contactlab::SceneError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a SceneError for:\n" << text;
  return "";
}

TEST(HydroSim, SceneErrorsNameTheFieldAndTheRange) {
  const std::string head = "time_step: 0.001\n";
  // A negative modulus on a material: the table's range.
  std::string e = SceneError(head + "materials:\n  - {name: s, hydroelastic: {modulus: -5}}\n");
  EXPECT_NE(e.find("bad.yaml:3"), std::string::npos) << e;
  EXPECT_NE(e.find("hydroelastic.modulus"), std::string::npos) << e;
  EXPECT_NE(e.find("[0, 1e15]"), std::string::npos) << e;
  // An unknown key inside hydroelastic.
  e = SceneError(head + "materials:\n  - {name: s, hydroelastic: {modulos: 5}}\n");
  EXPECT_NE(e.find("modulos"), std::string::npos) << e;
  EXPECT_NE(e.find("modulus"), std::string::npos) << e;
  // A compliant half-space.
  e = SceneError(head +
                 "bodies:\n  - {name: f, static: true, geoms: [{shape: half_space, "
                 "hydroelastic: {modulus: 1e6}}]}\n");
  EXPECT_NE(e.find("half_space cannot be compliant"), std::string::npos) << e;
  EXPECT_NE(e.find("bad.yaml:3"), std::string::npos) << e;
  // A resolution far too fine for the shape: refused with the coarsest accepted value, before
  // any mesh is built.
  e = SceneError(head +
                 "bodies:\n  - {name: b, mass: 1, geoms: [{shape: sphere, radius: 0.1,\n"
                 "      hydroelastic: {modulus: 1e6, resolution: 1e-4}}]}\n");
  EXPECT_NE(e.find("too fine"), std::string::npos) << e;
  EXPECT_NE(e.find("bad.yaml:4"), std::string::npos) << e;
  // A pair's contact choice.
  e = SceneError(head +
                 "materials:\n  - {name: a}\n  - {name: b}\npairs:\n  - {materials: [a, b], "
                 "contact: points}\n");
  EXPECT_NE(e.find("point"), std::string::npos) << e;
  EXPECT_NE(e.find("hydroelastic"), std::string::npos) << e;
  // The per-geometry values are not pair values.
  e = SceneError(head +
                 "materials:\n  - {name: a}\n  - {name: b}\npairs:\n  - {materials: [a, b], "
                 "hydroelastic: {modulus: 1}}\n");
  EXPECT_NE(e.find("hydroelastic"), std::string::npos) << e;
}

// The geometry's own values override its material's; unspecified ones stay the material's.
TEST(HydroSim, GeometryValuesOverrideTheMaterial) {
  Scene sc = ParseScene(R"(
time_step: 0.001
materials:
  - {name: soft, hydroelastic: {modulus: 1e6, resolution: 0.02}}
bodies:
  - {name: floor, static: true, geoms: [{shape: half_space}]}
  - name: a
    mass: 1
    position: [0, 0, 0.1]
    geoms: [{shape: sphere, radius: 0.05, material: soft, hydroelastic: {modulus: 3e5}}]
  - name: b
    mass: 1
    position: [1, 0, 0.1]
    geoms: [{shape: box, size: [0.1, 0.1, 0.1], hydroelastic: {modulus: 2e5}}]
  - name: c
    mass: 1
    position: [2, 0, 0.1]
    geoms: [{shape: box, size: [0.1, 0.1, 0.1], material: soft, hydroelastic: {modulus: 0}}]
)",
                        "override.yaml");
  const Model& m = sc.model;
  EXPECT_EQ(m.GeomHydroelastic(1).modulus, 3e5);
  EXPECT_EQ(m.GeomHydroelastic(1).resolution, 0.02);
  EXPECT_EQ(m.GeomHydroelastic(2).modulus, 2e5);
  EXPECT_EQ(m.GeomHydroelastic(2).resolution, 0.05);  // default: the box's smallest half extent
  EXPECT_FALSE(m.GeomHydroelastic(3).compliant());     // modulus 0: point contact
  EXPECT_FALSE(m.GeomHydroelastic(0).compliant());     // a half-space is rigid
  EXPECT_TRUE(m.PairIsHydroelastic(0, 1));
  EXPECT_FALSE(m.PairIsHydroelastic(0, 3));
}

}  // namespace
}  // namespace contactlab
