// URDF import through urdfdom (app/model_import/urdf_import.h): a small URDF written here lands
// in the Model value by value (frames, axes, inertia rotated into the link axes, limits, damping,
// friction, mimic coupling) and its forward kinematics at a random q equals a hand computation;
// the Debian dart-doc models (atlas, WAM) import with the file's link, joint and collision counts
// and total mass and run 1 s on a ground plane; the broken files give FILE:LINE: element:
// message; package:// paths resolve by --package-path NAME=DIR, by a plain DIR and by an ancestor
// folder.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <string>

#include "app/mesh_loader.h"
#include "app/scene.h"
#include "engine/multibody/multibody.h"
#include "engine/sim/simulator.h"

#ifdef CONTACTLAB_HAVE_URDF
#include <tinyxml2.h>

#include "app/model_import/urdf_import.h"
#endif

namespace contactlab {
namespace {

#ifdef CONTACTLAB_HAVE_URDF

namespace fs = std::filesystem;

const std::string kDart = "/usr/share/doc/dart/data";

fs::path TempDir() {
  const fs::path dir =
      fs::temp_directory_path() / ("contactlab_urdf_import_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

std::string WriteFile(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
  return path.string();
}

// R = Rz(yaw) Ry(pitch) Rx(roll), the URDF rpy convention.
Quat Rpy(double r, double p, double y) {
  return Quat(Eigen::AngleAxisd(y, Vec3::UnitZ()) * Eigen::AngleAxisd(p, Vec3::UnitY()) *
              Eigen::AngleAxisd(r, Vec3::UnitX()));
}

double RotationDistance(const Quat& a, const Quat& b) {
  return std::min((a.coeffs() - b.coeffs()).norm(), (a.coeffs() + b.coeffs()).norm());
}

std::string Mesh() { return std::string(CONTACTLAB_SOURCE_DIR) + "/assets/meshes/tetrahedron.stl"; }

std::string SmallUrdf(const std::string& mesh) {
  return R"(<?xml version="1.0"?>
<robot name="small">
  <material name="red"><color rgba="0.8 0.1 0.1 1"/></material>
  <link name="base">
    <inertial>
      <origin xyz="0.01 0.02 0.03" rpy="0.3 -0.2 0.5"/>
      <mass value="2.0"/>
      <inertia ixx="0.04" ixy="0.001" ixz="-0.002" iyy="0.05" iyz="0.003" izz="0.06"/>
    </inertial>
    <visual><geometry><box size="0.2 0.3 0.1"/></geometry><material name="red"/></visual>
    <collision>
      <origin xyz="0 0 0.05" rpy="0 0 0.1"/>
      <geometry><box size="0.2 0.3 0.1"/></geometry>
    </collision>
  </link>
  <link name="arm">
    <inertial>
      <origin xyz="0 0 0.2"/><mass value="1.0"/>
      <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.002"/>
    </inertial>
    <collision>
      <origin xyz="0 0 0.2"/>
      <geometry><cylinder radius="0.03" length="0.4"/></geometry>
    </collision>
  </link>
  <link name="slider">
    <inertial>
      <mass value="0.5"/><inertia ixx="0.001" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.001"/>
    </inertial>
    <collision><geometry><sphere radius="0.04"/></geometry></collision>
    <collision>
      <origin xyz="0.1 0 0"/>
      <geometry><mesh filename=")" +
         mesh + R"(" scale="0.1 0.2 0.3"/></geometry>
    </collision>
  </link>
  <link name="wheel">
    <inertial>
      <mass value="0.3"/><inertia ixx="0.002" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.001"/>
    </inertial>
  </link>
  <link name="finger">
    <inertial>
      <mass value="0.1"/><inertia ixx="0.0001" ixy="0" ixz="0" iyy="0.0001" iyz="0" izz="0.0001"/>
    </inertial>
  </link>
  <link name="tool_frame"/>
  <joint name="shoulder" type="revolute">
    <parent link="base"/><child link="arm"/>
    <origin xyz="0.1 0 0.1" rpy="0 0.2 0"/>
    <axis xyz="0 1 1"/>
    <limit lower="-1.2" upper="0.8" effort="10" velocity="2"/>
    <dynamics damping="0.7" friction="0.0"/>
  </joint>
  <joint name="slide" type="prismatic">
    <parent link="arm"/><child link="slider"/>
    <origin xyz="0 0 0.4" rpy="0.1 0 0"/>
    <axis xyz="0 0 1"/>
    <limit lower="-0.05" upper="0.1" effort="5" velocity="1"/>
    <dynamics damping="0.2"/>
  </joint>
  <joint name="spin" type="continuous">
    <parent link="slider"/><child link="wheel"/>
    <origin xyz="0 0.05 0" rpy="0 0 0.3"/>
  </joint>
  <joint name="finger_joint" type="revolute">
    <parent link="slider"/><child link="finger"/>
    <origin xyz="0 -0.05 0"/>
    <axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/>
    <mimic joint="spin" multiplier="0.5" offset="0.1"/>
  </joint>
  <joint name="tool" type="fixed">
    <parent link="wheel"/><child link="tool_frame"/>
    <origin xyz="0 0 0.02"/>
  </joint>
  <gazebo reference="slider"><mu1>0.9</mu1><mu2>0.9</mu2></gazebo>
</robot>
)";
}

TEST(UrdfImport, SmallModelValuesLandExactly) {
  const std::string path = WriteFile(TempDir() / "small.urdf", SmallUrdf(Mesh()));
  UrdfImportReport report;
  const Scene scene = ImportUrdf(path, {}, &report);
  const Model& m = scene.model;
  for (const std::string& w : report.warnings) std::printf("warning: %s\n", w.c_str());
  ASSERT_EQ(m.bodies.size(), 6u);
  ASSERT_EQ(m.joints.size(), 6u);  // five URDF joints and the root's free joint
  ASSERT_EQ(m.geoms.size(), 4u);
  EXPECT_EQ(report.urdf_links, 6);
  EXPECT_EQ(report.urdf_joints, 5);
  EXPECT_EQ(report.urdf_collisions, 4);
  EXPECT_EQ(m.nq, 7 + 4);
  EXPECT_DOUBLE_EQ(scene.settings.time_step, 1e-3);
  EXPECT_EQ(scene.settings.gravity, Vec3(0, 0, -9.81));

  // Inertial: COM, and the inertia rotated by the inertial origin's rpy (exact up to rounding).
  const Body& base = m.bodies[m.FindBody("base")];
  EXPECT_EQ(base.mass, 2.0);
  EXPECT_LT((base.com - Vec3(0.01, 0.02, 0.03)).norm(), 1e-15);
  Mat3 I;
  I << 0.04, 0.001, -0.002, 0.001, 0.05, 0.003, -0.002, 0.003, 0.06;
  const Mat3 R = Rpy(0.3, -0.2, 0.5).toRotationMatrix();
  EXPECT_LT((base.inertia - R * I * R.transpose()).cwiseAbs().maxCoeff(), 1e-15);
  // Massless frame link: a negligible mass.
  EXPECT_EQ(m.bodies[m.FindBody("tool_frame")].mass, kUrdfLinkMass);
  double mass = 0;
  for (const Body& b : m.bodies) mass += b.mass;
  EXPECT_NEAR(mass, 3.9, 1e-9);
  EXPECT_NEAR(report.urdf_total_mass, 3.9, 1e-12);

  const Joint& root = m.joints[report.root_joint];
  EXPECT_EQ(root.type, JointType::kFree);
  EXPECT_EQ(root.child, m.FindBody("base"));
  const Joint& shoulder = m.joints[m.FindJoint("shoulder")];
  EXPECT_EQ(shoulder.type, JointType::kRevolute);
  EXPECT_EQ(shoulder.parent, m.FindBody("base"));
  EXPECT_EQ(shoulder.child, m.FindBody("arm"));
  EXPECT_LT((shoulder.parent_from_joint.p - Vec3(0.1, 0, 0.1)).norm(), 1e-15);
  EXPECT_LT(RotationDistance(shoulder.parent_from_joint.q, Rpy(0, 0.2, 0)), 1e-15);
  EXPECT_LT(RotationDistance(shoulder.child_from_joint.q, Quat::Identity()), 1e-15);
  EXPECT_LT((shoulder.axis - Vec3(0, 1, 1).normalized()).norm(), 1e-15);
  EXPECT_TRUE(shoulder.limited);
  EXPECT_EQ(shoulder.lower, -1.2);
  EXPECT_EQ(shoulder.upper, 0.8);
  EXPECT_EQ(shoulder.damping, 0.7);
  EXPECT_FALSE(shoulder.actuator.enabled);  // URDF joints are passive
  const Joint& slide = m.joints[m.FindJoint("slide")];
  EXPECT_EQ(slide.type, JointType::kPrismatic);
  EXPECT_EQ(slide.lower, -0.05);
  EXPECT_EQ(slide.upper, 0.1);
  EXPECT_EQ(slide.damping, 0.2);
  EXPECT_LT(RotationDistance(slide.parent_from_joint.q, Rpy(0.1, 0, 0)), 1e-15);
  const Joint& spin = m.joints[m.FindJoint("spin")];
  EXPECT_EQ(spin.type, JointType::kRevolute);  // continuous: no limits
  EXPECT_FALSE(spin.limited);
  EXPECT_EQ(spin.axis, Vec3::UnitX());  // URDF's default axis
  const Joint& tool = m.joints[m.FindJoint("tool")];
  EXPECT_EQ(tool.type, JointType::kFixed);

  // Mimic: finger_joint = 0.1 + 0.5 spin.
  ASSERT_EQ(m.equalities.size(), 1u);
  const Equality& e = m.equalities[0];
  EXPECT_EQ(e.type, EqualityType::kJointCoupling);
  EXPECT_EQ(e.joint_a, m.FindJoint("finger_joint"));
  EXPECT_EQ(e.joint_b, m.FindJoint("spin"));
  EXPECT_EQ(e.gear, 0.5);
  EXPECT_EQ(e.offset, 0.1);

  // Geometry: box (size -> half extents), cylinder along z, sphere, scaled mesh hull.
  const Geom& box = m.geoms[0];
  EXPECT_EQ(box.body, m.FindBody("base"));
  EXPECT_EQ(box.shape.type, ShapeType::kBox);
  EXPECT_LT((box.shape.half_extents - Vec3(0.1, 0.15, 0.05)).norm(), 1e-15);
  EXPECT_LT((box.local.p - Vec3(0, 0, 0.05)).norm(), 1e-15);
  EXPECT_LT(RotationDistance(box.local.q, Rpy(0, 0, 0.1)), 1e-15);
  EXPECT_LT((box.color - Vec4(0.8, 0.1, 0.1, 1)).norm(), 1e-6);  // the link's visual material
  EXPECT_EQ(m.materials[box.material].friction, Material{}.friction);
  const Geom& cyl = m.geoms[1];
  EXPECT_EQ(cyl.shape.type, ShapeType::kCylinder);
  EXPECT_EQ(cyl.shape.radius, 0.03);
  EXPECT_EQ(cyl.shape.half_length, 0.2);
  const Geom& sphere = m.geoms[2];
  EXPECT_EQ(sphere.shape.type, ShapeType::kSphere);
  EXPECT_EQ(sphere.shape.radius, 0.04);
  EXPECT_EQ(m.materials[sphere.material].friction, 0.9);  // <gazebo><mu1>
  const Geom& mesh = m.geoms[3];
  ASSERT_EQ(mesh.shape.type, ShapeType::kConvexMesh);
  EXPECT_LT((mesh.local.p - Vec3(0.1, 0, 0)).norm(), 1e-15);
  EXPECT_EQ(m.materials[mesh.material].friction, 0.9);
  // Scale: the hull's extent along each axis is the unit mesh's times (0.1, 0.2, 0.3).
  Vec3 lo = Vec3::Constant(1e9), hi = -lo;
  for (const Vec3& v : mesh.shape.hull->vertices) {
    lo = lo.cwiseMin(v);
    hi = hi.cwiseMax(v);
  }
  const auto unit = LoadConvexMesh(Mesh());
  Vec3 ulo = Vec3::Constant(1e9), uhi = -ulo;
  for (const Vec3& v : unit->vertices) {
    ulo = ulo.cwiseMin(v);
    uhi = uhi.cwiseMax(v);
  }
  EXPECT_LT(((hi - lo) - (uhi - ulo).cwiseProduct(Vec3(0.1, 0.2, 0.3))).norm(), 1e-12);

  // Contact exclusions: the parent–child pairs with geometry (base–arm, arm–slider), and not
  // base–slider.
  auto excluded = [&](const std::string& a, const std::string& b) {
    const int ia = m.FindBody(a), ib = m.FindBody(b);
    for (const auto& p : m.excluded_body_pairs) {
      if ((p.first == ia && p.second == ib) || (p.first == ib && p.second == ia)) return true;
    }
    return false;
  };
  EXPECT_TRUE(excluded("base", "arm"));
  EXPECT_TRUE(excluded("arm", "slider"));
  EXPECT_FALSE(excluded("base", "slider"));

  // What cannot come across is reported: effort and velocity limits.
  bool effort = false;
  for (const std::string& w : report.warnings) effort |= w.find("effort") != std::string::npos;
  EXPECT_TRUE(effort);
  fs::remove(path);
}

TEST(UrdfImport, ForwardKinematicsMatchesHandComputation) {
  const std::string path = WriteFile(TempDir() / "fk.urdf", SmallUrdf(Mesh()));
  const Scene scene = ImportUrdf(path);
  fs::remove(path);
  const Model& m = scene.model;
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  VecX q = m.q_default;
  const Joint& root = m.joints[m.FindJoint("base/root")];
  const Quat qr = Quat(Vec4(u(rng), u(rng), u(rng), u(rng))).normalized();
  q.segment<3>(root.q_start) = Vec3(u(rng), u(rng), u(rng));
  q.segment<4>(root.q_start + 3) << qr.w(), qr.x(), qr.y(), qr.z();
  const double a_sh = u(rng), d_sl = 0.05 * u(rng), a_sp = 3 * u(rng), a_fi = u(rng);
  q[m.joints[m.FindJoint("shoulder")].q_start] = a_sh;
  q[m.joints[m.FindJoint("slide")].q_start] = d_sl;
  q[m.joints[m.FindJoint("spin")].q_start] = a_sp;
  q[m.joints[m.FindJoint("finger_joint")].q_start] = a_fi;
  Multibody mb(&m);
  KinematicsCache kin;
  mb.UpdateKinematics(q, 0, &kin);

  // By hand: X_W,child = X_W,parent · origin · motion(axis, q) (child frame = joint frame).
  auto pose = [](const Vec3& p, const Quat& r) { return Pose{p, r}; };
  auto rot = [](const Vec3& axis, double a) {
    return Pose{Vec3::Zero(), Quat(Eigen::AngleAxisd(a, axis.normalized()))};
  };
  const Pose base = pose(q.segment<3>(root.q_start), qr);
  const Pose arm = base * pose(Vec3(0.1, 0, 0.1), Rpy(0, 0.2, 0)) * rot(Vec3(0, 1, 1), a_sh);
  const Pose slider = arm * pose(Vec3(0, 0, 0.4), Rpy(0.1, 0, 0)) *
                      pose(Vec3(0, 0, d_sl), Quat::Identity());
  const Pose wheel = slider * pose(Vec3(0, 0.05, 0), Rpy(0, 0, 0.3)) * rot(Vec3::UnitX(), a_sp);
  const Pose finger = slider * pose(Vec3(0, -0.05, 0), Quat::Identity()) * rot(Vec3::UnitZ(), a_fi);
  const Pose tool = wheel * pose(Vec3(0, 0, 0.02), Quat::Identity());
  const std::pair<const char*, Pose> expected[] = {{"base", base},     {"arm", arm},
                                                   {"slider", slider}, {"wheel", wheel},
                                                   {"finger", finger}, {"tool_frame", tool}};
  for (const auto& [name, X] : expected) {
    SCOPED_TRACE(name);
    const Pose& got = kin.X_WB[m.FindBody(name)];
    // Rounding of a chain of five rigid transforms.
    EXPECT_LT((got.p - X.p).norm(), 1e-12);
    EXPECT_LT(RotationDistance(got.q, X.q), 1e-12);
  }
}

TEST(UrdfImport, FixedBaseAndGroundPlane) {
  const std::string path = WriteFile(TempDir() / "fixed.urdf", SmallUrdf(Mesh()));
  UrdfImportOptions options;
  options.fixed_base = true;
  options.ground_plane = true;
  UrdfImportReport report;
  const Scene scene = ImportUrdf(path, options, &report);
  fs::remove(path);
  const Model& m = scene.model;
  EXPECT_EQ(m.joints[report.root_joint].type, JointType::kFixed);
  EXPECT_EQ(m.nq, 4);
  ASSERT_EQ(m.geoms.back().shape.type, ShapeType::kHalfSpace);
  // The lowest collision point at q = 0 is the base box's bottom at z = 0 before the lift.
  EXPECT_NEAR(report.lift, 0.0, 1e-12);
  EXPECT_NEAR(m.joints[report.root_joint].parent_from_joint.p.z(), 0.0, 1e-12);
}

// Counts of the file by tinyxml2: links, joints, collisions and the sum of the masses.
struct FileCounts {
  int links = 0, joints = 0, collisions = 0;
  double mass = 0;
  bool world = false;
};
FileCounts CountFile(const std::string& path) {
  tinyxml2::XMLDocument doc;
  EXPECT_EQ(doc.LoadFile(path.c_str()), tinyxml2::XML_SUCCESS);
  FileCounts c;
  const auto* robot = doc.RootElement();
  for (auto* l = robot->FirstChildElement("link"); l; l = l->NextSiblingElement("link")) {
    ++c.links;
    if (std::string(l->Attribute("name")) == "world") c.world = true;
    for (auto* k = l->FirstChildElement("collision"); k; k = k->NextSiblingElement("collision")) {
      ++c.collisions;
    }
    if (auto* in = l->FirstChildElement("inertial")) {
      c.mass += in->FirstChildElement("mass")->DoubleAttribute("value");
    }
  }
  for (auto* j = robot->FirstChildElement("joint"); j; j = j->NextSiblingElement("joint")) {
    ++c.joints;
  }
  return c;
}

void CheckRealFile(const std::string& path, const std::vector<std::string>& package_paths) {
  SCOPED_TRACE(path);
  const FileCounts c = CountFile(path);
  UrdfImportOptions options;
  options.package_paths = package_paths;
  options.ground_plane = true;
  UrdfImportReport report;
  const Scene scene = ImportUrdf(path, options, &report);
  const Model& m = scene.model;
  // One body per link (a root link called "world" is the world), one joint per URDF joint plus
  // the root's free joint (none when the root is the world), one geom per <collision> and the
  // ground plane.
  EXPECT_EQ(static_cast<int>(m.bodies.size()), c.links - (c.world ? 1 : 0));
  EXPECT_EQ(static_cast<int>(m.joints.size()), c.joints + (c.world ? 0 : 1));
  EXPECT_EQ(static_cast<int>(m.geoms.size()), c.collisions + 1);
  EXPECT_EQ(report.urdf_links, c.links);
  EXPECT_EQ(report.urdf_joints, c.joints);
  EXPECT_EQ(report.urdf_collisions, c.collisions);
  double mass = 0;
  for (const Body& b : m.bodies) mass += b.mass;
  // Links without <inertial> add kUrdfLinkMass (1e-12 kg) each.
  EXPECT_NEAR(mass, c.mass, 1e-9);
  std::printf("%s: %d links, %d joints, %d collisions, %.6f kg; ContactLab %zu bodies (%d "
              "massless), %zu joints, %zu geoms, nv %d, lift %.4f m, %zu warnings\n",
              path.c_str(), c.links, c.joints, c.collisions, c.mass, m.bodies.size(),
              report.massless_links, m.joints.size(), m.geoms.size(), m.nv, report.lift,
              report.warnings.size());
  for (const std::string& w : report.warnings) std::printf("  warning: %s\n", w.c_str());
  Simulator sim(m, scene.settings);
  const int steps = static_cast<int>(std::round(1.0 / scene.settings.time_step));
  int failed = 0;
  for (int n = 0; n < steps; ++n) failed += sim.Step().Failed();
  EXPECT_EQ(failed, 0);
  EXPECT_TRUE(sim.state().q.allFinite());
  EXPECT_NEAR(sim.state().time, 1.0, 1e-9);
}

TEST(UrdfImport, Atlas) {
  const std::string path = kDart + "/sdf/atlas/atlas_v3_no_head.urdf";
  if (!fs::exists(path)) GTEST_SKIP() << path << " missing (Debian package dart-doc)";
  CheckRealFile(path, {});
}

TEST(UrdfImport, Wam) {
  const std::string path = kDart + "/urdf/wam/wam.urdf";
  if (!fs::exists(path)) GTEST_SKIP() << path << " missing (Debian package dart-doc)";
  CheckRealFile(path, {"herb_description=" + kDart + "/urdf/wam"});
}

TEST(UrdfImport, WamWithoutPackagePathNamesThePackage) {
  const std::string path = kDart + "/urdf/wam/wam.urdf";
  if (!fs::exists(path)) GTEST_SKIP() << path << " missing (Debian package dart-doc)";
  try {
    ImportUrdf(path);
    FAIL() << "no error";
  } catch (const SceneError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("package 'herb_description' not found"), std::string::npos) << what;
    EXPECT_TRUE(std::regex_search(what, std::regex("^" + path + ":[0-9]+: mesh "))) << what;
  }
}

// Each broken file: "FILE:LINE: element: reason".
void CheckBroken(const std::string& name, const std::string& reason) {
  const std::string path = kDart + "/urdf/test/" + name;
  if (!fs::exists(path)) GTEST_SKIP() << path << " missing (Debian package dart-doc)";
  try {
    ImportUrdf(path);
    FAIL() << path << ": no error";
  } catch (const SceneError& e) {
    const std::string what = e.what();
    std::printf("%s\n", what.c_str());
    EXPECT_TRUE(std::regex_search(what, std::regex("^" + path + ":[1-9][0-9]*: [a-z]+[^:]*: .")))
        << what;
    EXPECT_NE(what.find(reason), std::string::npos) << what;
  }
}

TEST(UrdfImport, BrokenInvalid) { CheckBroken("invalid.urdf", "malformed XML"); }
TEST(UrdfImport, BrokenMissingMesh) {
  CheckBroken("missing_mesh.urdf", "this_file_does_not_exist.stl");
}
TEST(UrdfImport, BrokenMissingPackage) {
  CheckBroken("missing_package.urdf", "package 'missing_package' not found");
}
TEST(UrdfImport, BrokenInvalidMesh) { CheckBroken("invalid_mesh.urdf", "invalid_mesh.stl"); }

std::string ErrorOf(const std::string& text, const std::string& name) {
  const std::string path = WriteFile(TempDir() / name, text);
  try {
    ImportUrdf(path);
  } catch (const SceneError& e) {
    fs::remove(path);
    return e.what();
  }
  fs::remove(path);
  return "";
}

TEST(UrdfImport, ErrorsNameLineElementAndReason) {
  const std::string head = "<?xml version=\"1.0\"?>\n<robot name=\"r\">\n";
  const std::string link =
      "  <link name=\"a\"><inertial><mass value=\"1\"/>"
      "<inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial></link>\n";
  // Unknown joint type, on line 5.
  std::string err = ErrorOf(head + link +
                                "  <link name=\"b\"><inertial><mass value=\"1\"/><inertia "
                                "ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" "
                                "izz=\"1\"/></inertial></link>\n"
                                "  <joint name=\"j\" type=\"hinge\"><parent link=\"a\"/>"
                                "<child link=\"b\"/></joint>\n</robot>\n",
                            "type.urdf");
  EXPECT_NE(err.find("type.urdf:5: joint 'j': unknown joint type 'hinge'"), std::string::npos)
      << err;
  // Bad inertia: the triangle inequality fails, on line 4.
  err = ErrorOf(head + "  <link name=\"a\"><inertial><mass value=\"1\"/>\n"
                       "    <inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" "
                       "izz=\"3\"/></inertial></link>\n</robot>\n",
                "inertia.urdf");
  EXPECT_NE(err.find("inertia.urdf:4: inertia (link 'a'): not a rigid body's inertia"),
            std::string::npos)
      << err;
  // Malformed XML: an unclosed element; tinyxml2's line.
  err = ErrorOf(head + "  <link name=\"a\">\n</robot>\n", "xml.urdf");
  EXPECT_TRUE(std::regex_search(err, std::regex("xml\\.urdf:[0-9]+: xml: malformed XML"))) << err;
  // urdfdom's own refusal (a revolute joint without <limit>), with the joint's line.
  err = ErrorOf(head + link +
                    "  <link name=\"b\"><inertial><mass value=\"1\"/><inertia ixx=\"1\" "
                    "ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial></link>\n"
                    "  <joint name=\"j\" type=\"revolute\"><parent link=\"a\"/>"
                    "<child link=\"b\"/></joint>\n</robot>\n",
                "limit.urdf");
  EXPECT_NE(err.find("limit.urdf:5: joint 'j': "), std::string::npos) << err;
  // A moving link without mass that carries nothing.
  err = ErrorOf(head + link +
                    "  <link name=\"b\"/>\n"
                    "  <joint name=\"j\" type=\"continuous\"><parent link=\"a\"/>"
                    "<child link=\"b\"/></joint>\n</robot>\n",
                "massless.urdf");
  EXPECT_NE(err.find("massless.urdf:4: link 'b': no <inertial>"), std::string::npos) << err;
}

TEST(UrdfImport, UnsupportedElementsAreReportedWithTheirLine) {
  const std::string path = WriteFile(TempDir() / "report.urdf", R"(<?xml version="1.0"?>
<robot name="r">
  <link name="a"><inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>
  <link name="b"><inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>
  <joint name="p" type="planar"><parent link="a"/><child link="b"/></joint>
  <transmission name="t"><type>transmission_interface/SimpleTransmission</type></transmission>
</robot>
)");
  UrdfImportReport report;
  ImportUrdf(path, {}, &report);
  fs::remove(path);
  std::string all;
  for (const std::string& w : report.warnings) all += w + "\n";
  EXPECT_NE(all.find(path + ":5: joint 'p': planar joints are not supported"), std::string::npos)
      << all;
  EXPECT_NE(all.find(path + ":6: transmission 't': "), std::string::npos) << all;
}

// a -> b -> c (revolute chain): a's and c's boxes overlap at q = 0, so they never touch (they
// are not parent and child); a chain whose ends are apart keeps that pair.
TEST(UrdfImport, OverlappingNonAdjacentBodiesAreExcluded) {
  auto urdf = [](double c_offset) {
    const std::string inertial =
        "<inertial><mass value=\"1\"/><inertia ixx=\"0.01\" ixy=\"0\" ixz=\"0\" "
        "iyy=\"0.01\" iyz=\"0\" izz=\"0.01\"/></inertial>";
    const std::string box = "<collision><geometry><box size=\"0.2 0.2 0.2\"/></geometry></collision>";
    auto joint = [](const std::string& name, const std::string& parent, const std::string& child,
                    double x) {
      return "<joint name=\"" + name + "\" type=\"continuous\"><parent link=\"" + parent +
             "\"/><child link=\"" + child + "\"/><origin xyz=\"" + std::to_string(x) +
             " 0 0\"/></joint>\n";
    };
    return "<robot name=\"r\">\n<link name=\"a\">" + inertial + box + "</link>\n<link name=\"b\">" +
           inertial + "</link>\n<link name=\"c\">" + inertial + box + "</link>\n" +
           joint("ab", "a", "b", 0.5) + joint("bc", "b", "c", c_offset) + "</robot>\n";
  };
  auto excluded = [](const Model& m) {
    for (const auto& p : m.excluded_body_pairs) {
      if (std::min(p.first, p.second) == m.FindBody("a") &&
          std::max(p.first, p.second) == m.FindBody("c")) {
        return true;
      }
    }
    return false;
  };
  {
    const std::string path = WriteFile(TempDir() / "overlap.urdf", urdf(-0.45));  // c at x 0.05
    UrdfImportReport report;
    const Scene scene = ImportUrdf(path, {}, &report);
    fs::remove(path);
    EXPECT_TRUE(excluded(scene.model));
    EXPECT_EQ(report.overlap_exclusions, 1);
    bool reported = false;
    for (const std::string& w : report.warnings) {
      reported |= w.find("overlaps at q = 0 never touch (e.g. 'a'–'c')") != std::string::npos;
    }
    EXPECT_TRUE(reported);
  }
  {
    const std::string path = WriteFile(TempDir() / "apart.urdf", urdf(0.5));  // c at x 1.0
    UrdfImportReport report;
    const Scene scene = ImportUrdf(path, {}, &report);
    fs::remove(path);
    EXPECT_FALSE(excluded(scene.model));
    EXPECT_EQ(report.overlap_exclusions, 0);
  }
}

TEST(UrdfImport, PackagePaths) {
  const fs::path ws = TempDir() / "ws";
  const fs::path pkg = ws / "mypkg";
  fs::create_directories(pkg / "meshes");
  fs::copy_file(Mesh(), pkg / "meshes" / "tet.stl", fs::copy_options::overwrite_existing);
  const std::string uri = "package://mypkg/meshes/tet.stl";
  const std::string expected = (pkg / "meshes" / "tet.stl").string();
  std::string error;
  // By NAME=DIR, from anywhere.
  EXPECT_EQ(ResolveUrdfUri(uri, "/elsewhere/r.urdf", {"mypkg=" + pkg.string()}, &error), expected);
  // By a plain DIR holding a folder NAME.
  EXPECT_EQ(ResolveUrdfUri(uri, "/elsewhere/r.urdf", {ws.string()}, &error), expected);
  // By an ancestor folder called NAME (the model in mypkg/urdf/).
  EXPECT_EQ(ResolveUrdfUri(uri, (pkg / "urdf" / "r.urdf").string(), {}, &error), expected);
  // A relative path: against the model's folder.
  EXPECT_EQ(ResolveUrdfUri("meshes/tet.stl", (pkg / "r.urdf").string(), {}, &error), expected);
  // Missing: names the package and where it looked.
  error.clear();
  EXPECT_EQ(ResolveUrdfUri("package://nopkg/x.stl", "/elsewhere/r.urdf", {ws.string()}, &error), "");
  EXPECT_NE(error.find("package 'nopkg' not found"), std::string::npos) << error;
  EXPECT_NE(error.find((ws / "nopkg").string()), std::string::npos) << error;
  EXPECT_NE(error.find("/elsewhere"), std::string::npos) << error;

  // Through LoadScene and SceneOptions: the model in ws/mypkg/urdf finds its mesh by ancestry.
  const std::string model =
      WriteFile(pkg / "urdf" / "r.urdf", SmallUrdf(uri));
  const Scene scene = LoadScene(model, SceneOptions{});
  EXPECT_EQ(scene.model.geoms[3].shape.hull->source, expected);
  SceneOptions bad;
  bad.package_paths = {"=nothing"};
  EXPECT_THROW(LoadScene(model, bad), SceneError);
  fs::remove_all(ws);
}

#else
TEST(UrdfImport, NotBuilt) { GTEST_SKIP() << "built without urdfdom (liburdfdom-dev)"; }
#endif

}  // namespace
}  // namespace contactlab
