// Tests of the model description: Finalize() (trees, offsets, validation messages), material
// combination, setpoint signals and the small lookup helpers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "engine/multibody/model.h"

namespace contactlab {
namespace {

int AddBody(Model* m, const std::string& name) {
  Body b;
  b.name = name;
  b.inertia = Mat3::Identity() * 0.01;
  m->bodies.push_back(b);
  return static_cast<int>(m->bodies.size()) - 1;
}

int AddJoint(Model* m, const std::string& name, JointType type, int parent, int child) {
  Joint j;
  j.name = name;
  j.type = type;
  j.parent = parent;
  j.child = child;
  j.axis = Vec3::UnitX();
  m->joints.push_back(j);
  return static_cast<int>(m->joints.size()) - 1;
}

// Runs Finalize() and returns the std::invalid_argument message ("" when nothing was thrown).
std::string FinalizeError(Model m) {
  try {
    m.Finalize();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

bool Contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// Two free bodies, an arm of three links on a welded base, a static and a prescribed body.
Model MixedModel() {
  Model m;
  const int ball = AddBody(&m, "ball");
  const int base = AddBody(&m, "base");
  const int upper = AddBody(&m, "upper");
  const int fore = AddBody(&m, "fore");
  const int slider = AddBody(&m, "slider");
  const int ground = AddBody(&m, "ground");
  const int belt = AddBody(&m, "belt");
  const int box = AddBody(&m, "box");
  m.bodies[ground].mass = 0;  // static bodies carry no mass requirement
  m.bodies[belt].prescribed = true;
  m.bodies[ball].pose0 = Pose{Vec3(1, 2, 3), Quat(0.5, 0.5, 0.5, 0.5)};
  m.bodies[box].pose0 = Pose{Vec3(-1, 0, 0.5), Quat(2.0, 0, 0, 0)};  // not unit: normalized
  // Joints listed out of topological order on purpose.
  AddJoint(&m, "elbow", JointType::kRevolute, upper, fore);
  AddJoint(&m, "ball_free", JointType::kFree, -1, ball);
  AddJoint(&m, "shoulder", JointType::kRevolute, base, upper);
  AddJoint(&m, "base_weld", JointType::kFixed, ground, base);
  AddJoint(&m, "slide", JointType::kPrismatic, fore, slider);
  AddJoint(&m, "box_free", JointType::kFree, -1, box);
  m.Finalize();
  return m;
}

TEST(ModelTest, FinalizeBuildsTreesWithContiguousCoordinates) {
  const Model m = MixedModel();
  // Trees: ball, arm (rooted at upper, since base has no dofs), box; ordered by root body index.
  ASSERT_EQ(m.trees.size(), 3u);
  EXPECT_EQ(m.trees[0].root_body, m.FindBody("ball"));
  EXPECT_EQ(m.trees[1].root_body, m.FindBody("upper"));
  EXPECT_EQ(m.trees[2].root_body, m.FindBody("box"));
  EXPECT_EQ(m.nq, 7 + 3 + 7);
  EXPECT_EQ(m.nv, 6 + 3 + 6);
  int q = 0, v = 0;
  for (const Tree& t : m.trees) {
    EXPECT_EQ(t.q_start, q);
    EXPECT_EQ(t.v_start, v);
    q += t.nq;
    v += t.nv;
    // Parents come before children and every joint's coordinates lie inside its tree.
    for (size_t k = 0; k < t.bodies.size(); ++k) {
      const Body& b = m.bodies[t.bodies[k]];
      const Joint& j = m.joints[b.joint];
      EXPECT_EQ(b.tree, &t - &m.trees[0]);
      if (j.parent >= 0 && m.bodies[j.parent].tree >= 0) {
        const auto pos = std::find(t.bodies.begin(), t.bodies.end(), j.parent) - t.bodies.begin();
        EXPECT_LT(static_cast<size_t>(pos), k) << "parent after child in tree";
      }
      if (JointNv(j.type) > 0) {
        EXPECT_GE(j.v_start, t.v_start);
        EXPECT_LE(j.v_start + JointNv(j.type), t.v_start + t.nv);
        EXPECT_GE(j.q_start, t.q_start);
        EXPECT_LE(j.q_start + JointNq(j.type), t.q_start + t.nq);
      }
    }
  }
  EXPECT_EQ(m.trees[1].bodies.size(), 3u);  // upper, fore, slider
  // Within the arm tree coordinates follow the topological order.
  EXPECT_LT(m.joints[m.FindJoint("shoulder")].v_start, m.joints[m.FindJoint("elbow")].v_start);
  EXPECT_LT(m.joints[m.FindJoint("elbow")].v_start, m.joints[m.FindJoint("slide")].v_start);
  // Bodies without dofs.
  EXPECT_EQ(m.BodyTree(m.FindBody("base")), -1);
  EXPECT_EQ(m.BodyTree(m.FindBody("ground")), -1);
  EXPECT_EQ(m.BodyTree(m.FindBody("belt")), -1);
  EXPECT_EQ(m.BodyTree(-1), -1);
  EXPECT_EQ(m.joints[m.FindJoint("base_weld")].v_start, -1);
  // Body::joint is filled from the joint list.
  EXPECT_EQ(m.bodies[m.FindBody("fore")].joint, m.FindJoint("elbow"));
  EXPECT_EQ(m.bodies[m.FindBody("ground")].joint, -1);
}

TEST(ModelTest, DefaultConfigurationFromPose0) {
  const Model m = MixedModel();
  ASSERT_EQ(m.q_default.size(), m.nq);
  ASSERT_EQ(m.v_default.size(), m.nv);
  const Joint& ball = m.joints[m.FindJoint("ball_free")];
  const Joint& box = m.joints[m.FindJoint("box_free")];
  // Copied values: exact.
  EXPECT_EQ(m.q_default.segment<3>(ball.q_start), Vec3(1, 2, 3));
  EXPECT_EQ(m.q_default.segment<4>(ball.q_start + 3), Vec4(0.5, 0.5, 0.5, 0.5));
  EXPECT_EQ(m.q_default.segment<3>(box.q_start), Vec3(-1, 0, 0.5));
  // The non-unit pose0 quaternion (2, 0, 0, 0) normalizes to the identity exactly.
  EXPECT_EQ(m.q_default.segment<4>(box.q_start + 3), Vec4(1, 0, 0, 0));
  EXPECT_EQ(m.q_default[m.joints[m.FindJoint("elbow")].q_start], 0.0);
  EXPECT_EQ(m.v_default.norm(), 0.0);
}

TEST(ModelTest, FinalizeIsRepeatable) {
  Model m = MixedModel();
  const int nq = m.nq;
  m.Finalize();
  EXPECT_EQ(m.nq, nq);
  EXPECT_EQ(m.trees.size(), 3u);
}

TEST(ModelTest, BallJointsRefuseLimitsSpringsAndActuators) {
  for (int what = 0; what < 3; ++what) {
    Model m;
    const int a = AddBody(&m, "a");
    const int j = AddJoint(&m, "shoulder", JointType::kBall, -1, a);
    if (what == 0) m.joints[j].limited = true;
    if (what == 1) m.joints[j].spring_stiffness = 1.0;
    if (what == 2) m.joints[j].actuator.enabled = true;
    const std::string e = FinalizeError(m);
    EXPECT_TRUE(Contains(e, "shoulder")) << e;
    EXPECT_TRUE(Contains(e, what == 0 ? "limits" : what == 1 ? "spring" : "actuators")) << e;
  }
  // Inside a tree, after a revolute joint: identity quaternion in q_default, 1 + 4 coordinates.
  Model m;
  const int a = AddBody(&m, "a");
  const int b = AddBody(&m, "b");
  AddJoint(&m, "hinge", JointType::kRevolute, -1, a);
  AddJoint(&m, "ball", JointType::kBall, a, b);
  m.Finalize();
  EXPECT_EQ(m.nq, 5);
  EXPECT_EQ(m.nv, 4);
  EXPECT_EQ(m.joints[1].q_start, 1);
  EXPECT_EQ(m.joints[1].v_start, 1);
  EXPECT_EQ(m.q_default, (VecX(5) << 0, 1, 0, 0, 0).finished());
}

TEST(ModelTest, FinalizeErrorsNameTheOffendingItem) {
  {
    Model m;
    const int a = AddBody(&m, "a");
    const int b = AddBody(&m, "floater");
    AddJoint(&m, "hinge", JointType::kRevolute, -1, a);
    AddJoint(&m, "bad_free", JointType::kFree, a, b);
    const std::string e = FinalizeError(m);
    EXPECT_TRUE(Contains(e, "bad_free") && Contains(e, "world")) << e;
  }
  {
    Model m;
    const int a = AddBody(&m, "loop_a");
    const int b = AddBody(&m, "loop_b");
    AddJoint(&m, "ab", JointType::kRevolute, a, b);
    AddJoint(&m, "ba", JointType::kRevolute, b, a);
    const std::string e = FinalizeError(m);
    EXPECT_TRUE(Contains(e, "cycle") && Contains(e, "loop_")) << e;
  }
  {
    Model m;
    const int a = AddBody(&m, "twice");
    AddJoint(&m, "first", JointType::kRevolute, -1, a);
    AddJoint(&m, "second", JointType::kPrismatic, -1, a);
    const std::string e = FinalizeError(m);
    EXPECT_TRUE(Contains(e, "twice") && Contains(e, "two inbound")) << e;
  }
  {
    Model m;
    const int a = AddBody(&m, "weightless");
    m.bodies[a].mass = 0;
    AddJoint(&m, "j", JointType::kRevolute, -1, a);
    const std::string e = FinalizeError(m);
    EXPECT_TRUE(Contains(e, "weightless") && Contains(e, "mass")) << e;
  }
  {
    Model m;
    const int a = AddBody(&m, "flat");
    m.bodies[a].inertia = Vec3(1.0, 1.0, -0.1).asDiagonal();
    AddJoint(&m, "j", JointType::kRevolute, -1, a);
    const std::string e = FinalizeError(m);
    EXPECT_TRUE(Contains(e, "flat") && Contains(e, "inertia")) << e;
  }
  {
    Model m;
    const int a = AddBody(&m, "skewed");
    m.bodies[a].inertia(0, 1) = 0.005;  // not symmetric
    AddJoint(&m, "j", JointType::kRevolute, -1, a);
    const std::string e = FinalizeError(m);
    EXPECT_TRUE(Contains(e, "skewed") && Contains(e, "symmetric")) << e;
  }
  {
    Model m;
    const int a = AddBody(&m, "a");
    const int j = AddJoint(&m, "no_axis", JointType::kPrismatic, -1, a);
    m.joints[j].axis = Vec3::Zero();
    const std::string e = FinalizeError(m);
    EXPECT_TRUE(Contains(e, "no_axis") && Contains(e, "axis")) << e;
  }
  {
    Model m;
    const int a = AddBody(&m, "a");
    AddJoint(&m, "dangling", JointType::kRevolute, 5, a);
    const std::string e = FinalizeError(m);
    EXPECT_TRUE(Contains(e, "dangling") && Contains(e, "parent")) << e;
  }
  {
    Model m;
    AddBody(&m, "a");
    AddJoint(&m, "orphan_child", JointType::kRevolute, -1, 3);
    const std::string e = FinalizeError(m);
    EXPECT_TRUE(Contains(e, "orphan_child") && Contains(e, "child")) << e;
  }
  {
    Model m;
    AddBody(&m, "a");
    Geom g;
    g.name = "lost_geom";
    g.body = 7;
    m.geoms.push_back(g);
    const std::string e = FinalizeError(m);
    EXPECT_TRUE(Contains(e, "lost_geom") && Contains(e, "body")) << e;
  }
  {
    Model m;
    Geom g;
    g.name = "odd_material";
    g.material = 3;
    m.geoms.push_back(g);
    const std::string e = FinalizeError(m);
    EXPECT_TRUE(Contains(e, "odd_material") && Contains(e, "material")) << e;
  }
  {
    Model m;
    const int belt = AddBody(&m, "belt");
    const int a = AddBody(&m, "rider");
    m.bodies[belt].prescribed = true;
    AddJoint(&m, "on_belt", JointType::kRevolute, belt, a);
    const std::string e = FinalizeError(m);
    EXPECT_TRUE(Contains(e, "on_belt") && Contains(e, "belt")) << e;
  }
  {
    Model m;
    const int a = AddBody(&m, "a");
    const int j = AddJoint(&m, "driven_free", JointType::kFree, -1, a);
    m.joints[j].actuator.enabled = true;
    const std::string e = FinalizeError(m);
    EXPECT_TRUE(Contains(e, "driven_free") && Contains(e, "actuator")) << e;
  }
  {
    Model m;
    AddBody(&m, "same");
    AddBody(&m, "same");
    const std::string e = FinalizeError(m);
    EXPECT_TRUE(Contains(e, "same") && Contains(e, "duplicate")) << e;
  }
  {
    Model m;
    m.materials[0].name = "mush";
    m.materials[0].stiffness = 0;
    const std::string e = FinalizeError(m);
    EXPECT_TRUE(Contains(e, "mush") && Contains(e, "stiffness")) << e;
  }
  // A valid model raises nothing (guards the helper against always throwing).
  EXPECT_EQ(FinalizeError(MixedModel()), "");
}

TEST(ModelTest, LongChainsAndCyclesAreCheckedInLinearTime) {
  // A chain of 40 000 revolute links listed tip first (body k hangs from body k + 1): the cycle
  // check used to walk every body's whole path to the world, n²/2 steps.
  const int n = 40000;
  Model m;
  for (int k = 0; k < n; ++k) AddBody(&m, "link_" + std::to_string(k));
  for (int k = 0; k < n; ++k) {
    AddJoint(&m, "j_" + std::to_string(k), JointType::kRevolute, k + 1 < n ? k + 1 : -1, k);
  }
  Model chain = m;
  chain.Finalize();
  ASSERT_EQ(chain.trees.size(), 1u);
  EXPECT_EQ(chain.trees[0].root_body, n - 1);
  EXPECT_EQ(chain.trees[0].bodies.size(), static_cast<size_t>(n));
  EXPECT_EQ(chain.nv, n);
  EXPECT_EQ(chain.joints[0].q_start, n - 1) << "the tip is last in breadth-first order";
  // Closing the chain into a cycle: refused, naming a body of the cycle.
  m.joints[n - 1].parent = 0;
  const std::string msg = FinalizeError(m);
  EXPECT_TRUE(Contains(msg, "is part of a kinematic cycle")) << msg;
  EXPECT_TRUE(Contains(msg, "body 'link_0' (index 0)")) << msg;
}

TEST(ModelTest, DuplicateNamesAmongManyAreFound) {
  // Hash sets instead of pairwise comparison: the duplicate is still named by its later index.
  Model m;
  for (int k = 0; k < 50000; ++k) {
    const int b = AddBody(&m, "b" + std::to_string(k));
    AddJoint(&m, "j" + std::to_string(k), JointType::kFree, -1, b);
  }
  m.bodies[49999].name = "b123";
  std::string msg = FinalizeError(m);
  EXPECT_TRUE(Contains(msg, "body 'b123' (index 49999): duplicate body name")) << msg;
  m.bodies[49999].name = "b49999";
  m.joints[40000].name = "j7";
  msg = FinalizeError(m);
  EXPECT_TRUE(Contains(msg, "joint 'j7' (index 40000): duplicate joint name")) << msg;
}

TEST(ModelTest, FinalizeNormalizesAxes) {
  Model m;
  const int a = AddBody(&m, "a");
  const int j = AddJoint(&m, "j", JointType::kRevolute, -1, a);
  m.joints[j].axis = Vec3(0, 3, 4);
  m.Finalize();
  // (0, 3, 4) / 5 = (0, 0.6, 0.8): one division per component, round-off only.
  EXPECT_LT((m.joints[j].axis - Vec3(0, 0.6, 0.8)).norm(), 1e-15);
}

TEST(ModelTest, CombineMaterialsRules) {
  Material a, b;
  a.stiffness = 1e6;
  a.dissipation_time = 0.02;
  a.friction = 0.4;
  b.stiffness = 3e6;
  b.dissipation_time = 0.01;
  b.friction = 0.8;
  const Material c = CombineMaterials(a, b);
  // Springs in series: 1e6 · 3e6 / 4e6 = 7.5e5. Relative round-off only.
  EXPECT_NEAR(c.stiffness, 7.5e5, 1e-9 * 7.5e5);
  // (0.02 · 3e6 + 0.01 · 1e6) / 4e6 = 0.0175.
  EXPECT_NEAR(c.dissipation_time, 0.0175, 1e-15);
  // Harmonic mean 2 · 0.32 / 1.2.
  EXPECT_NEAR(c.friction, 0.64 / 1.2, 1e-15);
  // Symmetric in its arguments (same floating-point operations, possibly reordered).
  const Material d = CombineMaterials(b, a);
  EXPECT_NEAR(d.stiffness, c.stiffness, 1e-9);
  EXPECT_NEAR(d.dissipation_time, c.dissipation_time, 1e-16);
  EXPECT_NEAR(d.friction, c.friction, 1e-16);
  // Identical materials: half the stiffness, same τ_d and μ.
  const Material e = CombineMaterials(a, a);
  EXPECT_NEAR(e.stiffness, 0.5 * a.stiffness, 1e-9);
  EXPECT_NEAR(e.dissipation_time, a.dissipation_time, 1e-16);
  EXPECT_NEAR(e.friction, a.friction, 1e-16);
  // Frictionless on either side gives zero friction.
  Material slick = b;
  slick.friction = 0;
  EXPECT_EQ(CombineMaterials(a, slick).friction, 0.0);
  EXPECT_EQ(CombineMaterials(slick, slick).friction, 0.0);
}

TEST(ModelTest, PairMaterialUsesOverridesThenRules) {
  Model m;
  Material rubber;
  rubber.name = "rubber";
  rubber.friction = 1.0;
  Material ice;
  ice.name = "ice";
  ice.friction = 0.05;
  m.materials.push_back(rubber);  // index 1
  m.materials.push_back(ice);     // index 2
  for (int mat : {0, 1, 2}) {
    Geom g;
    g.name = "g" + std::to_string(mat);
    g.material = mat;
    m.geoms.push_back(g);
  }
  PairOverride o;
  o.material_a = 2;
  o.material_b = 1;
  o.values.friction = 0.3;
  o.values.stiffness = 123.0;
  m.pair_overrides.push_back(o);
  m.Finalize();
  EXPECT_EQ(m.FindMaterial("rubber"), 1);
  EXPECT_EQ(m.FindMaterial("steel"), -1);
  // Override in both orders; values copied exactly.
  EXPECT_EQ(m.PairMaterial(1, 2).friction, 0.3);
  EXPECT_EQ(m.PairMaterial(2, 1).stiffness, 123.0);
  // Non-overridden pair falls back to the rules (same computation, so exact).
  EXPECT_EQ(m.PairMaterial(0, 1).friction, CombineMaterials(m.materials[0], rubber).friction);
  // The name-less per-contact path gives exactly the same values for every pair and order.
  for (int a = 0; a < 3; ++a) {
    for (int b = 0; b < 3; ++b) {
      const Material full = m.PairMaterial(a, b);
      const ContactValues v = m.PairContactValues(a, b);
      EXPECT_EQ(v.stiffness, full.stiffness) << a << " " << b;
      EXPECT_EQ(v.dissipation_time, full.dissipation_time) << a << " " << b;
      EXPECT_EQ(v.friction, full.friction) << a << " " << b;
    }
  }
  EXPECT_EQ(m.PairContactValues(2, 1).stiffness, 123.0);
}

TEST(ModelTest, SignalConstant) {
  Signal s;
  s.value = 1.25;
  EXPECT_EQ(s.Evaluate(-3.0), 1.25);
  EXPECT_EQ(s.Evaluate(7.0), 1.25);
  EXPECT_EQ(s.Derivative(7.0), 0.0);
}

TEST(ModelTest, SignalPiecewiseLinear) {
  Signal s;
  s.kind = Signal::Kind::kPiecewiseLinear;
  s.points = {{0.0, 1.0}, {2.0, 3.0}, {3.0, -1.0}};
  EXPECT_EQ(s.Evaluate(-1.0), 1.0);  // held before the first knot
  EXPECT_EQ(s.Evaluate(5.0), -1.0);  // held after the last knot
  // Interpolated values: one multiply-add each, round-off only.
  EXPECT_NEAR(s.Evaluate(0.5), 1.5, 1e-15);
  EXPECT_NEAR(s.Evaluate(2.0), 3.0, 1e-15);
  EXPECT_NEAR(s.Evaluate(2.75), 0.0, 1e-15);
  EXPECT_NEAR(s.Derivative(1.0), 1.0, 1e-15);
  EXPECT_NEAR(s.Derivative(2.5), -4.0, 1e-15);
  EXPECT_EQ(s.Derivative(-1.0), 0.0);
  EXPECT_EQ(s.Derivative(4.0), 0.0);
}

TEST(ModelTest, SignalSquare) {
  Signal s;
  s.kind = Signal::Kind::kSquare;
  s.low = -2.0;
  s.high = 5.0;
  s.period = 2.0;
  s.duty = 0.25;
  EXPECT_EQ(s.Evaluate(0.0), 5.0);
  EXPECT_EQ(s.Evaluate(0.49), 5.0);
  EXPECT_EQ(s.Evaluate(0.51), -2.0);
  EXPECT_EQ(s.Evaluate(1.9), -2.0);
  EXPECT_EQ(s.Evaluate(2.1), 5.0);   // next period
  EXPECT_EQ(s.Evaluate(-1.9), 5.0);  // periodic for negative times too (phase 0.1)
  EXPECT_EQ(s.Derivative(0.1), 0.0);
}

TEST(ModelTest, SignalSine) {
  Signal s;
  s.kind = Signal::Kind::kSine;
  s.amplitude = 2.0;
  s.offset = 0.5;
  s.frequency = 0.25;
  s.phase = 0.3;
  for (double t : {0.0, 0.7, 3.1}) {
    const double arg = 2 * kPi * 0.25 * t + 0.3;
    // Same formula: round-off only.
    EXPECT_NEAR(s.Evaluate(t), 0.5 + 2.0 * std::sin(arg), 1e-14);
    // Derivative against a central difference: truncation h² |s'''| ~ 1e-10 · 2 (π/2)³.
    const double h = 1e-5;
    EXPECT_NEAR(s.Derivative(t), (s.Evaluate(t + h) - s.Evaluate(t - h)) / (2 * h), 1e-8);
  }
}

TEST(ModelTest, NamesAndCoordinateCounts) {
  EXPECT_STREQ(JointTypeName(JointType::kFree), "free");
  EXPECT_STREQ(JointTypeName(JointType::kRevolute), "revolute");
  EXPECT_STREQ(JointTypeName(JointType::kPrismatic), "prismatic");
  EXPECT_STREQ(JointTypeName(JointType::kFixed), "fixed");
  EXPECT_STREQ(ShapeTypeName(ShapeType::kHalfSpace), "half_space");
  EXPECT_STREQ(ShapeTypeName(ShapeType::kSphere), "sphere");
  EXPECT_STREQ(ShapeTypeName(ShapeType::kCapsule), "capsule");
  EXPECT_STREQ(ShapeTypeName(ShapeType::kBox), "box");
  EXPECT_STREQ(ShapeTypeName(ShapeType::kCylinder), "cylinder");
  EXPECT_STREQ(ShapeTypeName(ShapeType::kConvexMesh), "mesh");  // scene-file keyword
  EXPECT_EQ(JointNq(JointType::kFree), 7);
  EXPECT_EQ(JointNv(JointType::kFree), 6);
  EXPECT_EQ(JointNq(JointType::kRevolute), 1);
  EXPECT_EQ(JointNv(JointType::kPrismatic), 1);
  EXPECT_EQ(JointNq(JointType::kFixed), 0);
  EXPECT_EQ(JointNv(JointType::kFixed), 0);
  EXPECT_STREQ(JointTypeName(JointType::kBall), "ball");
  EXPECT_EQ(JointNq(JointType::kBall), 4);
  EXPECT_EQ(JointNv(JointType::kBall), 3);
  const Model m = MixedModel();
  EXPECT_EQ(m.FindBody("slider"), 4);
  EXPECT_EQ(m.FindBody("nobody"), -1);
  EXPECT_EQ(m.FindJoint("slide"), 4);
  EXPECT_EQ(m.FindJoint("nojoint"), -1);
}

}  // namespace
}  // namespace contactlab
