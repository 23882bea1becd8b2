// The selected body's joint rows (ui/joint_rows.h): the path to the root in order, values in
// the units the docs give, limits and the at-limit flag, ball and free joints as axis-angle.
#include <gtest/gtest.h>

#include <cmath>

#include "app/scene.h"
#include "ui/joint_rows.h"

namespace contactlab {
namespace {

const char* kChain = R"(
bodies:
  - name: base
    mass: 1
    geoms: [{shape: box, size: [0.1, 0.1, 0.1]}]
  - name: slider
    mass: 1
    joint: {name: rail, type: prismatic, parent: base, axis: [1, 0, 0], limits: [-0.1, 0.2]}
    geoms: [{shape: sphere, radius: 0.05}]
  - name: arm
    mass: 1
    joint: {name: elbow, type: revolute, parent: slider, axis: [0, 0, 1],
            limits: [-0.7853981633974483, 0.7853981633974483],
            actuator: {kp: 300, kd: 10}}
    geoms: [{shape: sphere, radius: 0.05}]
  - name: bob
    mass: 1
    joint: {name: wrist, type: ball, parent: arm}
    geoms: [{shape: sphere, radius: 0.05}]
  - {name: ground, static: true, geoms: [{shape: half_space}]}
)";

TEST(JointRows, PathToTheRootWithValuesAndLimits) {
  const Scene scene = ParseScene(kChain, "chain.yaml");
  const Model& m = scene.model;
  VecX q = m.q_default, v = m.v_default;
  const Joint& rail = m.joints[m.FindJoint("rail")];
  const Joint& elbow = m.joints[m.FindJoint("elbow")];
  const Joint& wrist = m.joints[m.FindJoint("wrist")];
  q[rail.q_start] = 0.2;  // at its upper limit
  q[elbow.q_start] = M_PI / 6;
  v[elbow.v_start] = -0.3;
  const Quat r(Eigen::AngleAxisd(M_PI / 2, Vec3::UnitY()));
  q.segment<4>(wrist.q_start) << r.w(), r.x(), r.y(), r.z();
  v.segment<3>(wrist.v_start) = Vec3(0, 3, 4);

  const std::vector<JointRow> rows = JointPathRows(m, q, v, m.FindBody("bob"));
  ASSERT_EQ(rows.size(), 4u);  // wrist, elbow, rail, the base's free joint
  EXPECT_EQ(rows[0].name, "wrist");
  EXPECT_EQ(rows[0].type, "ball");
  EXPECT_EQ(rows[0].position, "90.00° about [0.00 1.00 0.00]");
  EXPECT_EQ(rows[0].rate, "|ω| 5.0000 rad/s");
  EXPECT_EQ(rows[1].name, "elbow");
  EXPECT_EQ(rows[1].position, "0.5236 rad (30.00°)");
  EXPECT_EQ(rows[1].rate, "-0.3000 rad/s");
  EXPECT_EQ(rows[1].limits, "[-45.00°, 45.00°]");
  EXPECT_FALSE(rows[1].at_limit);
  EXPECT_EQ(rows[1].actuator, "PD kp 300 kd 10");
  EXPECT_EQ(rows[2].name, "rail");
  EXPECT_EQ(rows[2].position, "0.2000 m");
  EXPECT_EQ(rows[2].limits, "[-0.1000, 0.2000] m");
  EXPECT_TRUE(rows[2].at_limit);
  EXPECT_EQ(rows[3].type, "free");
  EXPECT_EQ(rows[3].body, "base");
  EXPECT_EQ(rows[3].position.rfind("[0.000 0.000 0.000] m, 0.00° about", 0), 0u)
      << rows[3].position;
  // Static bodies and the world have none; a short q is not read past its end.
  EXPECT_TRUE(JointPathRows(m, q, v, m.FindBody("ground")).empty());
  EXPECT_TRUE(JointPathRows(m, q, v, -1).empty());
  const std::vector<JointRow> shortq = JointPathRows(m, VecX(), VecX(), m.FindBody("arm"));
  ASSERT_EQ(shortq.size(), 3u);
  EXPECT_EQ(shortq[0].position, "");
}

}  // namespace
}  // namespace contactlab
