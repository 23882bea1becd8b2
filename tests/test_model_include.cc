// `models:` in YAML scenes (app/model_include.h): a model file placed beside the scene's own
// bodies. Poses of every included body follow the base transform exactly (forward kinematics of
// the part alone, moved by the base, to 1e-12: the same arithmetic in another order), `fixed`
// welds the root, names are prefixed, start states survive, errors name the include's line and
// the included file's own line, and an included box settles on the including scene's floor.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "app/scene.h"
#include "engine/multibody/multibody.h"
#include "engine/sim/simulator.h"

namespace contactlab {
namespace {

namespace fs = std::filesystem;

class ModelInclude : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("contactlab_model_include_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    std::ofstream(p) << text;
    return p.string();
  }
  fs::path dir_;
};

// A two-body model: a free base box carrying a hinged arm, both starting at given states.
const char* kArm = R"(
time_step: 0.004
gravity: [0, 0, -3]
materials:
  - {name: rubber, stiffness: 1e5, dissipation_time: 0.02, friction: 0.9}
bodies:
  - name: base
    mass: 2.0
    position: [0.1, -0.2, 0.3]
    rotation: {rpy_deg: [10, 20, 30]}
    velocity: [0.5, 0, 0]
    angular_velocity: [0, 0, 1]
    geoms: [{shape: box, size: [0.2, 0.2, 0.1], material: rubber}]
  - name: arm
    mass: 0.5
    com: [0.15, 0, 0]
    joint: {name: elbow, type: revolute, parent: base, axis: [0, 1, 0], parent_frame: {position: [0.1, 0, 0.05]}}
    joint_position: 0.4
    joint_velocity: -0.3
    geoms: [{shape: capsule, radius: 0.02, length: 0.3, material: rubber}]
)";

TEST_F(ModelInclude, PosesFollowTheBaseTransform) {
  const std::string arm = Write("arm.yaml", kArm);
  const std::string scene_path = Write("scene.yaml", R"(
time_step: 0.001
bodies:
  - name: floor
    static: true
    geoms: [{shape: half_space}]
models:
  - {file: arm.yaml, name: left, base: [1, 2, 0.5], rotation: {axis_angle: [0, 0, 1, 90]}}
  - {file: arm.yaml, name: right}
)");
  const Scene part = LoadScene(arm);
  const Scene scene = LoadScene(scene_path);
  const Model& m = scene.model;
  ASSERT_EQ(m.bodies.size(), 1 + 2 * part.model.bodies.size());
  EXPECT_EQ(m.nv, 2 * part.model.nv);
  EXPECT_GE(m.FindBody("left/base"), 0);
  EXPECT_GE(m.FindBody("right/arm"), 0);
  EXPECT_GE(m.FindJoint("left/elbow"), 0);
  // The including scene's settings rule.
  EXPECT_EQ(scene.settings.time_step, 0.001);
  EXPECT_NEAR(scene.settings.gravity.z(), -9.81, 1e-12);

  Pose X;
  X.p = Vec3(1, 2, 0.5);
  X.q = Quat(Eigen::AngleAxisd(M_PI / 2, Vec3::UnitZ()));
  Multibody mb_part(&part.model), mb(&m);
  KinematicsCache kp, ks;
  mb_part.UpdateKinematics(part.model.q_default, 0, &kp);
  mb.UpdateKinematics(m.q_default, 0, &ks);
  for (const char* prefix : {"left", "right"}) {
    const Pose base = std::string(prefix) == "left" ? X : Pose();
    for (size_t b = 0; b < part.model.bodies.size(); ++b) {
      const int sb = m.FindBody(std::string(prefix) + "/" + part.model.bodies[b].name);
      ASSERT_GE(sb, 0);
      const Pose want = base * kp.X_WB[b];
      EXPECT_LT((ks.X_WB[sb].p - want.p).norm(), 1e-12) << prefix << " " << b;
      EXPECT_LT(std::min((ks.X_WB[sb].q.coeffs() - want.q.coeffs()).norm(),
                         (ks.X_WB[sb].q.coeffs() + want.q.coeffs()).norm()),
                1e-12);
      // World velocities: the part's, rotated by the base.
      const Vec3 w_part = mb_part.AngularVelocity(kp, part.model.v_default, static_cast<int>(b));
      const Vec3 w = mb.AngularVelocity(ks, m.v_default, sb);
      EXPECT_LT((w - base.Rotate(w_part)).norm(), 1e-12);
      const Vec3 c = part.model.bodies[b].com;
      const Vec3 v_part = mb_part.PointVelocity(kp, part.model.v_default, static_cast<int>(b),
                                                kp.X_WB[b].Apply(c));
      const Vec3 v = mb.PointVelocity(ks, m.v_default, sb, ks.X_WB[sb].Apply(c));
      EXPECT_LT((v - base.Rotate(v_part)).norm(), 1e-12);
    }
  }
  // Materials of the part come across once (same name and values: reused).
  int rubber = 0;
  for (const Material& mat : m.materials) rubber += mat.name == "rubber";
  EXPECT_EQ(rubber, 1);
}

TEST_F(ModelInclude, FixedWeldsTheRootWhereItStarts) {
  Write("arm.yaml", kArm);
  const Scene scene = LoadScene(Write("scene.yaml", R"(
models:
  - {file: arm.yaml, fixed: true, base: [0, 0, 1]}
)"));
  const Model& m = scene.model;
  EXPECT_EQ(m.nv, 1);  // the hinge alone
  const int base = m.FindBody("arm/base");
  ASSERT_GE(base, 0);
  EXPECT_EQ(m.joints[m.bodies[base].joint].type, JointType::kFixed);
  Simulator sim(m, scene.settings);
  for (int n = 0; n < 200; ++n) ASSERT_FALSE(sim.Step().Failed());
  Multibody mb(&m);
  KinematicsCache k;
  mb.UpdateKinematics(sim.state().q, sim.state().time, &k);
  // The welded base does not move: exactly where the part starts, 1 m up.
  EXPECT_LT((k.X_WB[base].p - Vec3(0.1, -0.2, 1.3)).norm(), 1e-12);
}

TEST_F(ModelInclude, IncludedBoxSettlesOnTheScenesFloor) {
  Write("box.yaml", R"(
bodies:
  - name: box
    mass: 1.0
    position: [0, 0, 0.3]
    geoms: [{shape: box, size: [0.2, 0.2, 0.2]}]
)");
  const Scene scene = LoadScene(Write("scene.yaml", R"(
time_step: 0.002
materials:
  - {name: stiff, stiffness: 1e7, dissipation_time: 0.01, friction: 0.5}
bodies:
  - name: floor
    static: true
    geoms: [{shape: half_space, material: stiff}]
models:
  - {file: box.yaml, base: [0.5, 0, 0], material: stiff}
)"));
  Simulator sim(scene.model, scene.settings);
  for (int n = 0; n < 1000; ++n) ASSERT_FALSE(sim.Step().Failed());
  Multibody mb(&scene.model);
  KinematicsCache k;
  mb.UpdateKinematics(sim.state().q, sim.state().time, &k);
  const Vec3 p = k.X_WB[scene.model.FindBody("box/box")].p;
  // Resting on the floor: half height 0.1 m less the static compression m g / k = 1e-6 m of
  // the stiff pair (k = 5e6 N/m combined), within 1e-5 m for the solver's tolerance.
  EXPECT_NEAR(p.z(), 0.1, 1e-5);
  EXPECT_NEAR(p.x(), 0.5, 1e-6);
  // The geometry uses the scene's material.
  EXPECT_EQ(scene.model.materials[scene.model.geoms.back().material].name, "stiff");
}

std::string LoadError(const std::string& path) {
  try {
    LoadScene(path);
  } catch (const SceneError& e) {
    return e.what();
  }
  return "";
}

TEST_F(ModelInclude, ErrorsNameTheIncludeAndTheModelsOwnLine) {
  // A duplicate name: the same model twice without `name:`.
  Write("arm.yaml", kArm);
  const std::string dup = Write("dup.yaml", "models:\n  - {file: arm.yaml}\n  - {file: arm.yaml}\n");
  std::string e = LoadError(dup);
  EXPECT_NE(e.find("dup.yaml:3"), std::string::npos) << e;
  EXPECT_NE(e.find("'arm/base' already exists"), std::string::npos) << e;
  // A missing file.
  e = LoadError(Write("missing.yaml", "models:\n  - {file: nowhere.urdf}\n"));
  EXPECT_NE(e.find("missing.yaml:2"), std::string::npos) << e;
  EXPECT_NE(e.find("not found"), std::string::npos) << e;
  // An error inside the model: both locations.
  Write("bad.yaml", "bodies:\n  - name: b\n    mass: -1\n    geoms: [{shape: sphere, radius: 0.1}]\n");
  e = LoadError(Write("outer.yaml", "bodies: []\nmodels:\n  - {file: bad.yaml}\n"));
  EXPECT_NE(e.find("outer.yaml:3"), std::string::npos) << e;
  EXPECT_NE(e.find("bad.yaml:3"), std::string::npos) << e;
  // A file including itself stops at the nesting limit with a message.
  e = LoadError(Write("self.yaml", "models:\n  - {file: self.yaml, name: again}\n"));
  EXPECT_NE(e.find("nested more than 8"), std::string::npos) << e;
  // Unknown keys and materials.
  e = LoadError(Write("keys.yaml", "models:\n  - {file: arm.yaml, bse: [0, 0, 1]}\n"));
  EXPECT_NE(e.find("bse"), std::string::npos) << e;
  e = LoadError(Write("mat.yaml", "models:\n  - {file: arm.yaml, material: steel}\n"));
  EXPECT_NE(e.find("unknown material 'steel'"), std::string::npos) << e;
}

TEST_F(ModelInclude, JointPositionsAndPdHoldTheStartPose) {
  Write("arm.yaml", kArm);
  const Scene scene = LoadScene(Write("scene.yaml", R"(
time_step: 0.002
models:
  - {file: arm.yaml, fixed: true, joint_positions: {elbow: 0.7}, pd: {kp: 400, kd: 4}}
)"));
  const Model& m = scene.model;
  const Joint& elbow = m.joints[m.FindJoint("arm/elbow")];
  EXPECT_EQ(m.q_default[elbow.q_start], 0.7);
  EXPECT_EQ(m.v_default[elbow.v_start], -0.3);  // the part's own start rate is kept
  ASSERT_TRUE(elbow.actuator.enabled);
  EXPECT_EQ(elbow.actuator.kp, 400);
  EXPECT_EQ(elbow.actuator.setpoint.Evaluate(0), 0.7);
  Simulator sim(m, scene.settings);
  for (int n = 0; n < 1000; ++n) ASSERT_FALSE(sim.Step().Failed());
  // The static deflection of a PD spring under gravity: |Δq| <= m g l / kp with the arm's
  // 0.5 kg 0.15 m from the hinge: 0.5 * 9.81 * 0.15 / 400 = 1.8e-3 rad; after 2 s the
  // kd = 4 damping (time constant I/kd well below 0.1 s) has let the start rate die out.
  EXPECT_LT(std::abs(sim.state().q[elbow.q_start] - 0.7), 1.9e-3);
  EXPECT_GT(std::abs(sim.state().q[elbow.q_start] - 0.7), 1e-5);  // gravity does load it
  // Errors: an unknown joint, a free joint.
  try {
    LoadScene(Write("bad.yaml", "models:\n  - {file: arm.yaml, joint_positions: {knee: 1}}\n"));
    ADD_FAILURE() << "no error";
  } catch (const SceneError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.yaml:2"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("no joint 'knee'"), std::string::npos) << e.what();
  }
}

TEST_F(ModelInclude, WorldGeometryCanBeLeftOut) {
  Write("part.yaml", R"(
bodies:
  - {name: ground, static: true, geoms: [{shape: half_space}]}
  - {name: box, mass: 1, position: [0, 0, 0.5], geoms: [{shape: box, size: [0.1, 0.1, 0.1]}]}
)");
  const Scene with = LoadScene(Write("a.yaml", "models:\n  - {file: part.yaml}\n"));
  const Scene without =
      LoadScene(Write("b.yaml", "models:\n  - {file: part.yaml, world_geometry: false}\n"));
  ASSERT_EQ(with.model.geoms.size(), 2u);
  ASSERT_EQ(without.model.geoms.size(), 1u);
  EXPECT_EQ(without.model.geoms[0].body, without.model.FindBody("part/box"));
  EXPECT_EQ(without.model.geoms[0].shape.type, ShapeType::kBox);
}

TEST_F(ModelInclude, LoadsReachIncludedBodies) {
  Write("arm.yaml", kArm);
  const Scene scene = LoadScene(Write("scene.yaml", R"(
models:
  - {file: arm.yaml}
loads:
  - {body: arm/arm, force: [0, 0, 5]}
)"));
  ASSERT_EQ(scene.model.loads.size(), 1u);
  EXPECT_EQ(scene.model.loads[0].body, scene.model.FindBody("arm/arm"));
}

#ifdef CONTACTLAB_HAVE_MUJOCO
// An MJCF robot beside YAML bodies: the humanoid's 22 MuJoCo bodies (with their link bodies)
// and its total mass come across; it stands 1 m to the side of the box.
TEST_F(ModelInclude, MjcfHumanoidBesideYamlBodies) {
  const std::string file = "/usr/share/mujoco/model/humanoid/humanoid.xml";
  if (!fs::exists(file)) GTEST_SKIP() << file << " missing (Debian package libmujoco-samples)";
  const Scene part = LoadScene(file);
  const Scene scene = LoadScene(Write("scene.yaml", "bodies:\n"
                                                   "  - {name: box, mass: 1, position: [0, 0, 0.1],\n"
                                                   "     geoms: [{shape: box, size: [0.2, 0.2, 0.2]}]}\n"
                                                   "models:\n  - {file: " + file +
                                                   ", base: [1, 0, 0]}\n"));
  double m_part = 0, m_scene = 0;
  for (const Body& b : part.model.bodies) m_part += b.joint >= 0 ? b.mass : 0;
  for (const Body& b : scene.model.bodies) m_scene += b.joint >= 0 ? b.mass : 0;
  EXPECT_NEAR(m_scene, m_part + 1.0, 1e-9);
  EXPECT_EQ(scene.model.nv, part.model.nv + 6);
  EXPECT_GE(scene.model.FindBody("humanoid/torso"), 0);
  Simulator sim(scene.model, scene.settings);
  for (int n = 0; n < 100; ++n) ASSERT_FALSE(sim.Step().Failed());
}
#endif

}  // namespace
}  // namespace contactlab
