// MJCF import through MuJoCo's compiler (app/model_import/mjcf_import.h): export -> import
// round trips of our scenes (masses, inertias, joint axes, frames, geometry, friction to 1e-9),
// the Debian sample models (libmujoco-samples: counts and total mass against MuJoCo's compiled
// model, 1 s of simulation), and errors as FILE:LINE: element: message with exit status 2.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "app/mjcf_export.h"
#include "app/scene.h"
#include "engine/multibody/multibody.h"
#include "engine/sim/simulator.h"

#ifdef CONTACTLAB_HAVE_MUJOCO
#include <mujoco/mujoco.h>

#include <random>

#include "app/model_import/mjcf_import.h"
#endif

namespace contactlab {
namespace {

#ifdef CONTACTLAB_HAVE_MUJOCO

namespace fs = std::filesystem;

std::string TempPath(const std::string& name) {
  return (fs::temp_directory_path() /
          ("contactlab_mjcf_import_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

std::string WriteTemp(const std::string& name, const std::string& text) {
  const std::string path = TempPath(name);
  std::ofstream(path) << text;
  return path;
}

double RotationDistance(const Quat& a, const Quat& b) {
  return std::min((a.coeffs() - b.coeffs()).norm(), (a.coeffs() + b.coeffs()).norm());
}

// Export, import, and compare what the round trip promises.
void CheckRoundTrip(const std::string& scene_file) {
  SCOPED_TRACE(scene_file);
  const Scene original = LoadScene(std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/" + scene_file);
  const MjcfExport exported = ExportMjcf(original);
  const std::string path = WriteTemp(fs::path(scene_file).stem().string() + ".xml", exported.xml);
  MjcfImportReport report;
  const Scene imported = ImportMjcf(path, &report);
  fs::remove(path);
  const Model& a = original.model;
  const Model& b = imported.model;
  EXPECT_EQ(imported.settings.time_step, original.settings.time_step);
  EXPECT_LT((imported.settings.gravity - original.settings.gravity).norm(), 1e-12);
  EXPECT_EQ(report.link_bodies, 0);  // our bodies have one joint each
  int compared_bodies = 0, compared_joints = 0;
  for (size_t i = 0; i < a.bodies.size(); ++i) {
    const Body& ba = a.bodies[i];
    if (ba.joint < 0 || ba.prescribed) continue;  // static geoms are world geoms in MJCF
    const int k = b.FindBody(exported.body_names[i]);
    ASSERT_GE(k, 0) << ba.name;
    const Body& bb = b.bodies[k];
    SCOPED_TRACE(ba.name);
    EXPECT_NEAR(bb.mass, ba.mass, 1e-9 * ba.mass);
    EXPECT_LT((bb.com - ba.com).norm(), 1e-9);
    EXPECT_LT((bb.inertia - ba.inertia).cwiseAbs().maxCoeff(),
              1e-9 * ba.inertia.cwiseAbs().maxCoeff());
    EXPECT_LT((bb.pose0.p - ba.pose0.p).norm(), 1e-9);
    EXPECT_LT(RotationDistance(bb.pose0.q, ba.pose0.q), 1e-9);
    const Joint& ja = a.joints[ba.joint];
    ASSERT_GE(bb.joint, 0);
    const Joint& jb = b.joints[bb.joint];
    EXPECT_EQ(jb.type, ja.type);
    if (ja.type == JointType::kRevolute || ja.type == JointType::kPrismatic) {
      // Axes in the child body frame, and the joint center there.
      EXPECT_LT((jb.child_from_joint.q * jb.axis - ja.child_from_joint.q * ja.axis).norm(), 1e-9);
      EXPECT_NEAR(jb.damping, ja.damping, 1e-12);
      EXPECT_NEAR(jb.spring_stiffness, ja.spring_stiffness, 1e-12);
      if (ja.spring_stiffness > 0) {
        EXPECT_NEAR(jb.spring_reference, ja.spring_reference, 1e-12);
      }
      EXPECT_EQ(jb.limited, ja.limited);
      if (ja.limited && std::isfinite(ja.lower)) {
        EXPECT_NEAR(jb.lower, ja.lower, 1e-12);
      }
      if (ja.limited && std::isfinite(ja.upper)) {
        EXPECT_NEAR(jb.upper, ja.upper, 1e-12);
      }
      EXPECT_EQ(jb.actuator.enabled, ja.actuator.enabled);
      if (ja.actuator.enabled) {
        EXPECT_NEAR(jb.actuator.kp, ja.actuator.kp, 1e-9 * std::max(1.0, ja.actuator.kp));
        EXPECT_NEAR(jb.actuator.kd, ja.actuator.kd, 1e-9 * std::max(1.0, ja.actuator.kd));
      }
    }
    if (ja.type != JointType::kFree && ja.type != JointType::kFixed) {
      EXPECT_LT((jb.child_from_joint.p - ja.child_from_joint.p).norm(), 1e-9);
      ++compared_joints;
    }
    ++compared_bodies;
  }
  EXPECT_GT(compared_bodies, 0);
  int compared_geoms = 0;
  for (size_t g = 0; g < a.geoms.size(); ++g) {
    const Geom& ga = a.geoms[g];
    if (ga.shape.type == ShapeType::kConvexMesh) continue;  // MuJoCo stores vertices as float
    const bool world = ga.body < 0 || a.bodies[ga.body].joint < 0;
    if (ga.body >= 0 && a.bodies[ga.body].prescribed) continue;
    int h = -1;
    for (size_t k = 0; k < b.geoms.size(); ++k) {
      if (b.geoms[k].name == (ga.name.empty() ? "geom" + std::to_string(g) : ga.name)) h = k;
    }
    ASSERT_GE(h, 0) << ga.name;
    const Geom& gb = b.geoms[h];
    SCOPED_TRACE(ga.name);
    EXPECT_EQ(gb.shape.type, ga.shape.type);
    const Pose X_a = world && ga.body >= 0 ? a.bodies[ga.body].pose0 * ga.local : ga.local;
    EXPECT_LT((gb.local.p - X_a.p).norm(), 1e-9);
    if (ga.shape.type != ShapeType::kSphere) {
      EXPECT_LT(RotationDistance(gb.local.q, X_a.q), 1e-9);
    }
    switch (ga.shape.type) {
      case ShapeType::kSphere:
        EXPECT_NEAR(gb.shape.radius, ga.shape.radius, 1e-12);
        break;
      case ShapeType::kBox:
        EXPECT_LT((gb.shape.half_extents - ga.shape.half_extents).norm(), 1e-12);
        break;
      case ShapeType::kCapsule:
      case ShapeType::kCylinder:
        EXPECT_NEAR(gb.shape.radius, ga.shape.radius, 1e-12);
        EXPECT_NEAR(gb.shape.half_length, ga.shape.half_length, 1e-12);
        break;
      default:
        break;
    }
    EXPECT_NEAR(b.materials[gb.material].friction, a.materials[ga.material].friction, 1e-12);
    EXPECT_EQ(gb.collide, ga.collide);
    ++compared_geoms;
  }
  EXPECT_GT(compared_geoms, 0);
  // The start state: the imported q_default poses every body where the original does.
  EXPECT_EQ(b.nv, a.nv);
}

TEST(MjcfImport, RoundTripPendulumChain) { CheckRoundTrip("pendulum_chain.yaml"); }
TEST(MjcfImport, RoundTripBallPendulum) { CheckRoundTrip("ball_pendulum.yaml"); }
TEST(MjcfImport, RoundTripBoxStack) { CheckRoundTrip("box_stack.yaml"); }
TEST(MjcfImport, RoundTripSpringCylinder) { CheckRoundTrip("spring_cylinder.yaml"); }
TEST(MjcfImport, RoundTripGripper) { CheckRoundTrip("gripper.yaml"); }
TEST(MjcfImport, RoundTripClutter) { CheckRoundTrip("clutter_40_walls.yaml"); }

// A sample model: counts against MuJoCo's compiled model, total mass, and 1 s of simulation.
void CheckSample(const std::string& relative, double seconds) {
  const std::string path = "/usr/share/mujoco/model/" + relative;
  if (!fs::exists(path)) GTEST_SKIP() << path << " missing (Debian package libmujoco-samples)";
  MjcfImportReport report;
  const Scene scene = ImportMjcf(path, &report);
  const Model& m = scene.model;
  int static_bodies = 0;
  for (int i = 1; i < report.mj_nbody; ++i) static_bodies += report.body_of_mj[i] < 0;
  // Every MuJoCo body but the world and static ones is a ContactLab body; links carry extra joints.
  EXPECT_EQ(static_cast<int>(m.bodies.size()) - report.link_bodies,
            report.mj_nbody - 1 - static_bodies);
  EXPECT_EQ(static_cast<int>(m.joints.size()) - report.fixed_joints, report.mj_njnt);
  EXPECT_EQ(static_cast<int>(m.geoms.size()) + report.dropped_geoms, report.mj_ngeom);
  double mass = 0;
  for (int i = 1; i < report.mj_nbody; ++i) {
    if (report.body_of_mj[i] >= 0) mass += m.bodies[report.body_of_mj[i]].mass;
  }
  EXPECT_NEAR(mass, report.mj_total_mass, 1e-9);
  std::printf(
      "%s: %d MuJoCo bodies, %d joints, %d geoms; ContactLab %zu bodies (%d links), "
      "%zu joints (%d fixed), %zu geoms (%d left out), nv %d, mass %.6f kg, %zu warnings\n",
      relative.c_str(), report.mj_nbody, report.mj_njnt, report.mj_ngeom, m.bodies.size(),
      report.link_bodies, m.joints.size(), report.fixed_joints, m.geoms.size(),
      report.dropped_geoms, m.nv, mass, report.warnings.size());
  Simulator sim(m, scene.settings);
  const int steps = static_cast<int>(std::round(seconds / scene.settings.time_step));
  int failed = 0;
  for (int n = 0; n < steps; ++n) failed += sim.Step().Failed();
  EXPECT_EQ(failed, 0);
  EXPECT_TRUE(sim.state().q.allFinite());
  EXPECT_NEAR(sim.state().time, seconds, 1e-9);
}

// 4 s: the humanoid falls and comes to rest without a failed step (with its joints' armature,
// 0.01 kg m², beside link inertias down to 1e-12 kg m²).
TEST(MjcfImport, Humanoid) { CheckSample("humanoid/humanoid.xml", 4.0); }
TEST(MjcfImport, Humanoid100) { CheckSample("humanoid100/humanoid100.xml", 1.0); }

TEST(MjcfImport, HumanoidChainsSeveralJoints) {
  const std::string path = "/usr/share/mujoco/model/humanoid/humanoid.xml";
  if (!fs::exists(path)) GTEST_SKIP() << path << " missing (Debian package libmujoco-samples)";
  MjcfImportReport report;
  const Scene scene = ImportMjcf(path, &report);
  // Thighs (3 hinges), abdomen (2), shins' ankles (2), shoulders (2): links for the extra ones.
  EXPECT_GT(report.link_bodies, 0);
  const Model& m = scene.model;
  const int hip_x = m.FindJoint("right_hip_x"), hip_y = m.FindJoint("right_hip_y");
  ASSERT_GE(hip_x, 0);
  ASSERT_GE(hip_y, 0);
  EXPECT_EQ(m.joints[hip_y].child, m.FindBody("right_thigh"));
  EXPECT_NE(m.joints[hip_x].child, m.FindBody("right_thigh"));
  // Degrees to radians by MuJoCo's compiler: hip_y range -110..20 degrees.
  EXPECT_NEAR(m.joints[hip_y].lower, -110 * M_PI / 180, 1e-12);
  EXPECT_NEAR(m.joints[hip_y].upper, 20 * M_PI / 180, 1e-12);
  EXPECT_EQ(m.nv, 27);
  // humanoid.xml's default joint armature (0.01) comes across, and is no longer reported.
  EXPECT_EQ(m.joints[hip_y].armature, 0.01);
  for (const std::string& w : report.warnings) {
    EXPECT_EQ(w.find("armature"), std::string::npos) << w;
  }
}

TEST(MjcfImport, TwentyTwoHumanoids) { CheckSample("humanoid/22_humanoids.xml", 1.0); }
TEST(MjcfImport, Mug) { CheckSample("mug/mug.xml", 1.0); }

// Forward kinematics at a random configuration: every body's world pose equals MuJoCo's
// (chains of several joints per body, qpos0 offsets, free-joint and ball quaternions).
void CheckKinematics(const std::string& path) {
  if (!fs::exists(path)) GTEST_SKIP() << path << " missing (Debian package libmujoco-samples)";
  MjcfImportReport report;
  const Scene scene = ImportMjcf(path, &report);
  char error[1000] = "";
  mjModel* mm = mj_loadXML(path.c_str(), nullptr, error, sizeof(error));
  ASSERT_NE(mm, nullptr) << error;
  mjData* md = mj_makeData(mm);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  const Model& m = scene.model;
  VecX q = m.q_default;
  for (int j = 0; j < mm->njnt; ++j) {
    const int qa = mm->jnt_qposadr[j];
    const int ji = report.joint_of_mj[j];
    ASSERT_GE(ji, 0) << "joint " << j;
    const Joint& cj = m.joints[ji];
    switch (mm->jnt_type[j]) {
      case mjJNT_FREE: {
        const Quat r = Quat(u(rng), u(rng), u(rng), u(rng)).normalized();
        const double x[7] = {u(rng), u(rng), 1 + u(rng), r.w(), r.x(), r.y(), r.z()};
        for (int k = 0; k < 7; ++k) md->qpos[qa + k] = q[cj.q_start + k] = x[k];
        break;
      }
      case mjJNT_BALL: {
        const Quat r = Quat(1, 0.3 * u(rng), 0.3 * u(rng), 0.3 * u(rng)).normalized();
        const double x[4] = {r.w(), r.x(), r.y(), r.z()};
        for (int k = 0; k < 4; ++k) md->qpos[qa + k] = q[cj.q_start + k] = x[k];
        break;
      }
      default: {
        const double d = u(rng);
        md->qpos[qa] = mm->qpos0[qa] + d;
        q[cj.q_start] = d;
      }
    }
  }
  mj_kinematics(mm, md);
  Multibody mb(&m);
  KinematicsCache kin;
  mb.UpdateKinematics(q, 0, &kin);
  double worst = 0;
  for (int i = 1; i < mm->nbody; ++i) {
    const int b = report.body_of_mj[i];
    if (b < 0) continue;
    const Vec3 p(md->xpos[3 * i], md->xpos[3 * i + 1], md->xpos[3 * i + 2]);
    const Quat r(md->xquat[4 * i], md->xquat[4 * i + 1], md->xquat[4 * i + 2],
                 md->xquat[4 * i + 3]);
    worst = std::max(worst, (kin.X_WB[b].p - p).norm());
    worst = std::max(worst, RotationDistance(kin.X_WB[b].q.normalized(), r.normalized()));
  }
  std::printf("%s: largest pose difference from MuJoCo's kinematics %.3g\n", path.c_str(), worst);
  EXPECT_LT(worst, 1e-9);
  mj_deleteData(md);
  mj_deleteModel(mm);
}

// The imported model's mass matrix equals MuJoCo's (mj_fullM) at random configurations, armature
// included. The velocity maps differ only for free joints (MuJoCo's angular velocity is in body
// axes, ours in world axes: v_ours = T v_mj with T = R_WB on that block) and ball joints (MuJoCo:
// child body axes; ours: the parent's joint frame F, v_F = R_WFᵀ R_WB v_B), so M_mj = Tᵀ M T.
// Tolerance 1e-9 relative to M's largest entry: the chain links' 1e-12 kg masses are the only
// modelling difference, the rest is round-off of two summation orders.
void CheckMassMatrix(const std::string& path) {
  if (!fs::exists(path)) GTEST_SKIP() << path << " missing (Debian package libmujoco-samples)";
  MjcfImportReport report;
  const Scene scene = ImportMjcf(path, &report);
  char error[1000] = "";
  mjModel* mm = mj_loadXML(path.c_str(), nullptr, error, sizeof(error));
  ASSERT_NE(mm, nullptr) << error;
  mjData* md = mj_makeData(mm);
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1, 1);
  const Model& m = scene.model;
  ASSERT_EQ(m.nv, mm->nv);
  double armature_sum = 0;
  for (int i = 0; i < mm->nv; ++i) armature_sum += mm->dof_armature[i];
  Multibody mb(&m);
  double worst = 0;
  for (int trial = 0; trial < 3; ++trial) {
    VecX q = m.q_default;
    for (int j = 0; j < mm->njnt; ++j) {
      const int qa = mm->jnt_qposadr[j];
      const Joint& cj = m.joints[report.joint_of_mj[j]];
      if (mm->jnt_type[j] == mjJNT_FREE || mm->jnt_type[j] == mjJNT_BALL) {
        const int off = mm->jnt_type[j] == mjJNT_FREE ? 3 : 0;
        const Quat r = Quat(1, u(rng), u(rng), u(rng)).normalized();
        const double x[4] = {r.w(), r.x(), r.y(), r.z()};
        for (int k = 0; k < off; ++k) md->qpos[qa + k] = q[cj.q_start + k] = u(rng);
        for (int k = 0; k < 4; ++k) md->qpos[qa + off + k] = q[cj.q_start + off + k] = x[k];
      } else {
        const double d = u(rng);
        md->qpos[qa] = mm->qpos0[qa] + d;
        q[cj.q_start] = d;
      }
    }
    mj_forward(mm, md);
    std::vector<mjtNum> full(static_cast<size_t>(mm->nv) * mm->nv);
    mj_fullM(mm, full.data(), md->qM);
    const Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>
        M_mj(full.data(), mm->nv, mm->nv);
    KinematicsCache kin;
    mb.UpdateKinematics(q, 0, &kin);
    MatX M = MatX::Zero(m.nv, m.nv);
    for (int t = 0; t < static_cast<int>(m.trees.size()); ++t) {
      MatX Mt;
      mb.MassMatrix(kin, t, &Mt);
      const Tree& tr = m.trees[t];
      M.block(tr.v_start, tr.v_start, tr.nv, tr.nv) = Mt;
    }
    // T: MuJoCo dof -> ContactLab dof.
    MatX T = MatX::Zero(m.nv, mm->nv);
    for (int j = 0; j < mm->njnt; ++j) {
      const int da = mm->jnt_dofadr[j];
      const Joint& cj = m.joints[report.joint_of_mj[j]];
      const int b = mm->jnt_bodyid[j];
      const Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>> R_WB(md->xmat + 9 * b);
      if (mm->jnt_type[j] == mjJNT_FREE) {
        T.block<3, 3>(cj.v_start, da) = Mat3::Identity();
        T.block<3, 3>(cj.v_start + 3, da + 3) = R_WB;
      } else if (mm->jnt_type[j] == mjJNT_BALL) {
        Mat3 R_WF;
        for (int k = 0; k < 3; ++k) R_WF.col(k) = kin.dof_angular[cj.v_start + k];
        T.block<3, 3>(cj.v_start, da) = R_WF.transpose() * R_WB;
      } else {
        T(cj.v_start, da) = 1;
      }
    }
    const MatX M_ours = T.transpose() * M * T;
    const double scale = M_mj.cwiseAbs().maxCoeff();
    worst = std::max(worst, (M_ours - M_mj).cwiseAbs().maxCoeff() / scale);
  }
  std::printf("%s: armature sum %.3g, largest relative mass-matrix difference from mj_fullM %.3g\n",
              path.c_str(), armature_sum, worst);
  EXPECT_LT(worst, 1e-9);
  mj_deleteData(md);
  mj_deleteModel(mm);
}

TEST(MjcfImport, HumanoidMassMatrixMatchesMujoco) {
  CheckMassMatrix("/usr/share/mujoco/model/humanoid/humanoid.xml");
}
TEST(MjcfImport, TwentyTwoHumanoidsMassMatrixMatchesMujoco) {
  CheckMassMatrix("/usr/share/mujoco/model/humanoid/22_humanoids.xml");
}

TEST(MjcfImport, HumanoidKinematicsMatchMujoco) {
  CheckKinematics("/usr/share/mujoco/model/humanoid/humanoid.xml");
}
TEST(MjcfImport, HumanoidHundredKinematicsMatchMujoco) {
  CheckKinematics("/usr/share/mujoco/model/humanoid100/humanoid100.xml");
}
TEST(MjcfImport, TwentyTwoHumanoidsKinematicsMatchMujoco) {
  CheckKinematics("/usr/share/mujoco/model/humanoid/22_humanoids.xml");
}

// Actuator gains, exclusions, a hinge reference angle, static bodies and keyframe 0.
TEST(MjcfImport, ActuatorsExclusionsAndStart) {
  const std::string path = WriteTemp("features.xml", R"(<mujoco>
  <compiler angle="radian"/>
  <option timestep="0.002" gravity="0 0 -5"/>
  <worldbody>
    <geom name="floor" type="plane" size="1 1 0.1" friction="0.8"/>
    <body name="shelf" pos="0 0 2">
      <geom name="shelf_box" type="box" size="0.1 0.1 0.1"/>
      <body name="arm" pos="0 0 -0.5">
        <joint name="hinge" type="hinge" axis="0 1 0" ref="0.2" range="-1 1" limited="true"
               damping="0.3" stiffness="2" springref="0.5"/>
        <geom name="arm_geom" type="capsule" size="0.05 0.2" friction="0.4"/>
        <body name="slider" pos="0 0 -0.5">
          <joint name="slide" type="slide" axis="0 0 1"/>
          <geom name="slider_geom" type="sphere" size="0.05" contype="0" conaffinity="0"/>
        </body>
      </body>
    </body>
    <body name="ball" pos="1 0 1">
      <freejoint name="free"/>
      <geom name="ball_geom" type="sphere" size="0.1"/>
    </body>
  </worldbody>
  <contact>
    <exclude body1="arm" body2="ball"/>
  </contact>
  <actuator>
    <position name="p" joint="hinge" kp="10" gear="2" forcerange="-3 3" forcelimited="true"/>
    <velocity name="v" joint="slide" kv="4"/>
  </actuator>
  <keyframe>
    <key qpos="0.7 0.1 1 0 1.5 0.7071067811865476 0.7071067811865476 0 0"
         qvel="0.5 0 0 0 0 0 3 0"/>
  </keyframe>
</mujoco>
)");
  MjcfImportReport report;
  const Scene scene = ImportMjcf(path, &report);
  fs::remove(path);
  const Model& m = scene.model;
  EXPECT_EQ(scene.settings.time_step, 0.002);
  EXPECT_EQ(scene.settings.gravity, Vec3(0, 0, -5));
  EXPECT_EQ(m.FindBody("shelf"), -1);  // welded to the world: its geom is a world geom
  const int arm = m.FindBody("arm"), ball = m.FindBody("ball");
  ASSERT_GE(arm, 0);
  ASSERT_GE(ball, 0);
  const Joint& hinge = m.joints[m.FindJoint("hinge")];
  EXPECT_EQ(hinge.parent, -1);
  EXPECT_LT((hinge.parent_from_joint.p - Vec3(0, 0, 1.5)).norm(), 1e-12);
  // Coordinates are qpos − ref: range, spring reference and start shift by 0.2.
  EXPECT_NEAR(hinge.lower, -1.2, 1e-12);
  EXPECT_NEAR(hinge.upper, 0.8, 1e-12);
  EXPECT_NEAR(hinge.spring_reference, 0.3, 1e-12);
  EXPECT_NEAR(hinge.spring_stiffness, 2, 1e-12);
  EXPECT_NEAR(hinge.damping, 0.3, 1e-12);
  EXPECT_NEAR(m.q_default[hinge.q_start], 0.5, 1e-12);
  EXPECT_NEAR(m.v_default[hinge.v_start], 0.5, 1e-12);
  EXPECT_NEAR(m.v_default[m.joints[m.FindJoint("slide")].v_start], 0, 1e-12);
  // position: joint torque gear (kp (ctrl − gear qpos)): kp 40, target qpos 0 (q = −ref).
  ASSERT_TRUE(hinge.actuator.enabled);
  EXPECT_NEAR(hinge.actuator.kp, 40, 1e-12);
  EXPECT_NEAR(hinge.actuator.kd, 0, 1e-12);
  EXPECT_NEAR(hinge.actuator.setpoint.Evaluate(0), -0.2, 1e-12);
  EXPECT_NEAR(hinge.actuator.effort_limit, 6, 1e-12);
  const Joint& slide = m.joints[m.FindJoint("slide")];
  ASSERT_TRUE(slide.actuator.enabled);
  EXPECT_NEAR(slide.actuator.kp, 0, 1e-12);
  EXPECT_NEAR(slide.actuator.kd, 4, 1e-12);
  EXPECT_NEAR(m.q_default[slide.q_start], 0.1, 1e-12);
  // Free joint: keyframe pose; angular velocity from body to world axes (90° about x).
  const Joint& free = m.joints[m.FindJoint("free")];
  EXPECT_LT((m.q_default.segment<3>(free.q_start) - Vec3(1, 0, 1.5)).norm(), 1e-12);
  EXPECT_LT((m.v_default.segment<3>(free.v_start + 3) - Vec3(0, 0, 3)).norm(), 1e-12);
  // Geoms: friction materials, collide, exclusions.
  auto geom = [&](const std::string& name) {
    for (const Geom& g : m.geoms) {
      if (g.name == name) return g;
    }
    ADD_FAILURE() << name;
    return Geom{};
  };
  EXPECT_EQ(geom("floor").shape.type, ShapeType::kHalfSpace);
  EXPECT_EQ(geom("shelf_box").body, -1);
  EXPECT_LT((geom("shelf_box").local.p - Vec3(0, 0, 2)).norm(), 1e-12);
  EXPECT_NEAR(m.materials[geom("floor").material].friction, 0.8, 1e-12);
  EXPECT_NEAR(m.materials[geom("arm_geom").material].friction, 0.4, 1e-12);
  EXPECT_FALSE(geom("slider_geom").collide);
  bool excluded = false;
  for (const auto& [a, b] : m.excluded_body_pairs) {
    excluded |= (a == arm && b == ball) || (a == ball && b == arm);
  }
  EXPECT_TRUE(excluded);
  EXPECT_TRUE(report.warnings.empty());
}

// An imported model exports back to MJCF that MuJoCo loads (the bench peer's path): link bodies
// inertias above MuJoCo's minimum, world geoms (the floor) and the exclusions written.
TEST(MjcfImport, ImportedHumanoidExportsForMujoco) {
  const std::string source = "/usr/share/mujoco/model/humanoid/humanoid.xml";
  if (!fs::exists(source)) GTEST_SKIP() << source << " missing (Debian package libmujoco-samples)";
  const Scene scene = ImportMjcf(source);
  const MjcfExport exported = ExportMjcf(scene);
  const std::string path = WriteTemp("humanoid_export.xml", exported.xml);
  char error[1000] = "";
  mjModel* mm = mj_loadXML(path.c_str(), nullptr, error, sizeof(error));
  fs::remove(path);
  ASSERT_NE(mm, nullptr) << error;
  EXPECT_EQ(mm->ngeom, static_cast<int>(scene.model.geoms.size()));
  EXPECT_GT(mm->nexclude, 0);
  EXPECT_EQ(mm->nv, scene.model.nv);
  mj_deleteModel(mm);
}

TEST(MjcfImport, TendonsReportedByLine) {
  const std::string path = WriteTemp("tendon.xml", R"(<mujoco>
  <worldbody>
    <body name="a" pos="0 0 1">
      <joint name="j1" type="hinge" axis="0 1 0"/>
      <geom type="capsule" size="0.05" fromto="0 0 0 0.3 0 0"/>
      <site name="s1" pos="0.1 0 0"/>
    </body>
    <site name="s0" pos="0 0 2"/>
  </worldbody>
  <tendon>
    <spatial name="cable">
      <site site="s0"/>
      <site site="s1"/>
    </spatial>
  </tendon>
</mujoco>
)");
  MjcfImportReport report;
  const Scene scene = ImportMjcf(path, &report);
  fs::remove(path);
  ASSERT_EQ(report.warnings.size(), 1u);
  EXPECT_EQ(report.warnings[0], path + ":11: spatial 'cable': tendons are not carried: left out");
}

// `contactlab validate` on a bad file: FILE:LINE: element: message and exit status 2.
std::string Validate(const std::string& file, int* status) {
#ifndef CONTACTLAB_BINARY
  *status = -1;
  return "no contactlab program in this build";
#else
  const std::string out = TempPath("validate.txt");
  const std::string cmd =
      std::string(CONTACTLAB_BINARY) + " validate '" + file + "' > '" + out + "' 2>&1";
  const int rc = std::system(cmd.c_str());
  *status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  std::ifstream in(out);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  fs::remove(out);
  return text;
#endif
}

TEST(MjcfImport, MalformedFileGivesLineAndExit2) {
  const std::string path = WriteTemp("bad.xml", R"(<mujoco>
  <worldbody>
    <body name="a">
      <geom type="sphere" size="0.1" colour="red"/>
    </body>
  </worldbody>
</mujoco>
)");
#ifndef CONTACTLAB_BINARY
  GTEST_SKIP() << "no contactlab program in this build";
#endif
  int status = 0;
  const std::string text = Validate(path, &status);
  fs::remove(path);
  EXPECT_EQ(status, 2) << text;
  EXPECT_NE(text.find(path + ":4: geom: "), std::string::npos) << text;
  std::printf("%s", text.c_str());
}

TEST(MjcfImport, MissingMeshGivesLineAndExit2) {
  const std::string path = WriteTemp("nomesh.xml", R"(<mujoco>
  <asset>
    <mesh name="m" file="no_such_mesh.stl"/>
  </asset>
  <worldbody>
    <body name="a">
      <freejoint/>
      <geom type="mesh" mesh="m"/>
    </body>
  </worldbody>
</mujoco>
)");
#ifndef CONTACTLAB_BINARY
  GTEST_SKIP() << "no contactlab program in this build";
#endif
  int status = 0;
  const std::string text = Validate(path, &status);
  fs::remove(path);
  EXPECT_EQ(status, 2) << text;
  EXPECT_NE(text.find(path + ":3: mesh 'm': could not open STL file"), std::string::npos) << text;
  std::printf("%s", text.c_str());
}

TEST(MjcfImport, OverridesRefused) {
  EXPECT_THROW(LoadScene("/usr/share/mujoco/model/humanoid/humanoid.xml", {"time_step=0.01"}),
               SceneError);
}

#else

TEST(MjcfImport, NeedsMujoco) {
  EXPECT_THROW(LoadScene(std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/none.xml"), SceneError);
}

#endif

}  // namespace
}  // namespace contactlab
