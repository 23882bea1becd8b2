// MJCF export (app/mjcf_export.h): the structure of the XML (bodies, inertials, joints, geoms,
// friction, options, actuators, keyframe), checked with a small XML reader; and, when the build
// has MuJoCo, that MuJoCo loads the export with the same masses, frames and initial poses, and
// that a free-falling sphere and ball-jointed bodies follow ContactLab's trajectories.
#include <gtest/gtest.h>
#include <unistd.h>

#include <Eigen/Eigenvalues>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "app/mjcf_export.h"
#include "app/scene.h"
#include "engine/multibody/multibody.h"
#include "engine/sim/simulator.h"

#ifdef CONTACTLAB_HAVE_MUJOCO
#include <mujoco/mujoco.h>

#include "app/mujoco_peer.h"
#endif

namespace contactlab {
namespace {

// --- A minimal reader for the XML the exporter writes: elements, attributes, comments. -------

struct Element {
  std::string tag;
  std::map<std::string, std::string> attr;
  std::vector<std::unique_ptr<Element>> children;
  Element* parent = nullptr;

  bool Has(const std::string& key) const { return attr.count(key) > 0; }
  const std::string& At(const std::string& key) const {
    static const std::string empty;
    auto it = attr.find(key);
    return it == attr.end() ? empty : it->second;
  }
  std::vector<double> Numbers(const std::string& key) const {
    std::vector<double> out;
    std::istringstream in(At(key));
    for (double x; in >> x;) out.push_back(x);
    return out;
  }
  std::vector<const Element*> All(const std::string& t) const {
    std::vector<const Element*> out;
    for (const auto& c : children) {
      if (c->tag == t) out.push_back(c.get());
    }
    return out;
  }
  const Element* First(const std::string& t) const {
    auto v = All(t);
    return v.empty() ? nullptr : v[0];
  }
  // Depth-first search by tag and name attribute.
  const Element* Find(const std::string& t, const std::string& name) const {
    for (const auto& c : children) {
      if (c->tag == t && c->At("name") == name) return c.get();
      if (const Element* e = c->Find(t, name)) return e;
    }
    return nullptr;
  }
};

std::string Unescape(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '&') {
      out += s[i];
      continue;
    }
    const size_t semi = s.find(';', i);
    const std::string ent = s.substr(i + 1, semi - i - 1);
    out += ent == "amp" ? '&' : ent == "lt" ? '<' : ent == "gt" ? '>' : ent == "quot" ? '"' : '\'';
    i = semi;
  }
  return out;
}

// Parses the document; fails the test (and returns null) on malformed input.
std::unique_ptr<Element> ParseXml(const std::string& xml) {
  auto root = std::make_unique<Element>();
  Element* cur = root.get();
  size_t i = 0;
  auto skip_ws = [&] {
    while (i < xml.size() && std::isspace(static_cast<unsigned char>(xml[i]))) ++i;
  };
  while (true) {
    skip_ws();
    if (i >= xml.size()) break;
    if (xml[i] != '<') {
      ADD_FAILURE() << "unexpected text at " << i;
      return nullptr;
    }
    if (xml.compare(i, 4, "<!--") == 0) {
      i = xml.find("-->", i) + 3;
      continue;
    }
    if (xml[i + 1] == '/') {
      const size_t end = xml.find('>', i);
      const std::string tag = xml.substr(i + 2, end - i - 2);
      if (tag != cur->tag) {
        ADD_FAILURE() << "closing </" << tag << "> inside <" << cur->tag << ">";
        return nullptr;
      }
      cur = cur->parent;
      i = end + 1;
      continue;
    }
    ++i;
    auto e = std::make_unique<Element>();
    while (i < xml.size() && !std::isspace(static_cast<unsigned char>(xml[i])) && xml[i] != '>' &&
           xml[i] != '/') {
      e->tag += xml[i++];
    }
    bool self_closing = false;
    while (true) {
      skip_ws();
      if (xml[i] == '/') {
        self_closing = true;
        i += 2;
        break;
      }
      if (xml[i] == '>') {
        ++i;
        break;
      }
      const size_t eq = xml.find('=', i);
      const std::string key = xml.substr(i, eq - i);
      const size_t close = xml.find('"', eq + 2);
      if (xml[eq + 1] != '"') {
        ADD_FAILURE() << "attribute " << key << " is not quoted";
        return nullptr;
      }
      if (e->attr.count(key)) ADD_FAILURE() << "duplicate attribute " << key << " in " << e->tag;
      e->attr[key] = Unescape(xml.substr(eq + 2, close - eq - 2));
      i = close + 1;
    }
    e->parent = cur;
    Element* raw = e.get();
    cur->children.push_back(std::move(e));
    if (!self_closing) cur = raw;
  }
  if (cur != root.get()) {
    ADD_FAILURE() << "unclosed <" << cur->tag << ">";
    return nullptr;
  }
  return root;
}

// --- The scene under test. ----------------------------------------------------------------------

// Every exported feature: static geoms (a floor and a tilted block), free bodies with each shape,
// a hinge with spring, damping, limits and a PD actuator carrying a slide and a welded child,
// a prescribed body, and two materials whose pair μ (harmonic mean) differs from MuJoCo's max.
const char kScene[] = R"(time_step: 0.004
gravity: [0.5, 0, -9.5]
materials:
  - {name: steel, friction: 0.4}
  - {name: rubber, friction: 1.2}
bodies:
  - name: floor
    static: true
    geoms: [{shape: half_space, material: steel}]
  - name: block
    static: true
    position: [2, 0, 0.1]
    rotation: {axis_angle: [0, 0, 1, 30]}
    geoms: [{shape: box, size: [0.4, 0.2, 0.2], material: steel}]
  - name: ball
    mass: 2.0
    position: [0, 0, 1]
    velocity: [0.1, 0, 0]
    angular_velocity: [0, 0, 3]
    geoms: [{shape: sphere, radius: 0.1, material: rubber}]
  - name: crate
    density: 500
    position: [1, 0, 0.2]
    rotation: {rpy_deg: [0, 0, 90]}
    geoms: [{shape: box, size: [0.2, 0.1, 0.3], material: rubber}]
  - name: pill
    mass: 0.5
    position: [-1, 0, 0.3]
    geoms: [{shape: capsule, radius: 0.05, length: 0.2, rotation: {axis_angle: [1, 0, 0, 90]}}]
  - name: can
    mass: 0.7
    position: [-1, 1, 0.3]
    geoms: [{shape: cylinder, radius: 0.08, length: 0.12, position: [0, 0, 0.01]}]
  - name: arm
    mass: 1.0
    position: [0, 2, 1]
    joint:
      type: revolute
      axis: [0, 1, 0]
      child_frame: {position: [-0.2, 0, 0]}
      spring: {stiffness: 5, reference: 0.1}
      damping: 0.3
      limits: [-1.5, 1.5]
      actuator: {kp: 50, kd: 2, setpoint: {sine: {amplitude: 0.5, frequency: 1}}, effort_limit: 10}
    joint_position: 0.25
    geoms: [{shape: box, size: [0.4, 0.05, 0.05]}]
  - name: slider
    mass: 0.2
    position: [0.2, 2, 1]
    joint: {type: prismatic, parent: arm, axis: [1, 0, 0], limits: [-0.1, 0.1]}
    joint_position: 0.05
    geoms: [{shape: sphere, radius: 0.04}]
  - name: tip
    mass: 0.1
    position: [0.3, 2, 1]
    joint: {type: fixed, parent: slider}
    geoms: [{shape: sphere, radius: 0.02, collide: false}]
  - name: paddle
    position: [3, 0, 0.5]
    prescribed: {velocity: [0, 0.1, 0]}
    geoms: [{shape: box, size: [0.1, 0.1, 0.1], material: steel}]
)";

class MjcfExportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    scene_ = ParseScene(kScene, "export_test.yaml");
    exported_ = ExportMjcf(scene_);
    doc_ = ParseXml(exported_.xml);
    ASSERT_TRUE(doc_) << exported_.xml;
    mujoco_ = doc_->First("mujoco");
    ASSERT_NE(mujoco_, nullptr);
    world_ = mujoco_->First("worldbody");
    ASSERT_NE(world_, nullptr);
  }
  const Body& B(const std::string& name) const {
    return scene_.model.bodies[scene_.model.FindBody(name)];
  }
  const Element* XmlBody(const std::string& name) const { return world_->Find("body", name); }

  Scene scene_;
  MjcfExport exported_;
  std::unique_ptr<Element> doc_;
  const Element* mujoco_ = nullptr;
  const Element* world_ = nullptr;
};

// Exact text round trip: the exporter writes the shortest decimal that reads back the same.
void ExpectVec(const std::vector<double>& got, const Vec3& want, const std::string& what) {
  ASSERT_EQ(got.size(), 3u) << what;
  for (int i = 0; i < 3; ++i) EXPECT_EQ(got[i], want[i]) << what << "[" << i << "]";
}

TEST_F(MjcfExportTest, OptionsAndCompiler) {
  const Element* option = mujoco_->First("option");
  ASSERT_NE(option, nullptr);
  EXPECT_EQ(option->Numbers("timestep"), std::vector<double>{0.004});
  ExpectVec(option->Numbers("gravity"), Vec3(0.5, 0, -9.5), "gravity");
  EXPECT_EQ(option->At("cone"), "elliptic");
  EXPECT_EQ(option->At("solver"), "Newton");
  EXPECT_EQ(option->At("integrator"), "Euler") << "MuJoCo's semi-implicit Euler";
  EXPECT_FALSE(option->Has("iterations")) << "MuJoCo's defaults unless asked";
  EXPECT_FALSE(option->Has("tolerance"));
  const Element* compiler = mujoco_->First("compiler");
  ASSERT_NE(compiler, nullptr);
  EXPECT_EQ(compiler->At("angle"), "radian") << "joint limits are exported in radians";
  EXPECT_EQ(compiler->At("inertiafromgeom"), "false") << "inertials are explicit";

  MjcfExportOptions o;
  o.iterations = 7;
  o.tolerance = 1e-5;
  auto doc = ParseXml(ExportMjcf(scene_, o).xml);
  ASSERT_TRUE(doc);
  const Element* opt = doc->First("mujoco")->First("option");
  EXPECT_EQ(opt->At("iterations"), "7");
  EXPECT_EQ(opt->Numbers("tolerance"), std::vector<double>{1e-5});
}

TEST_F(MjcfExportTest, BodiesInertialsAndNesting) {
  for (const char* name : {"ball", "crate", "pill", "can", "arm"}) {
    const Element* e = XmlBody(name);
    ASSERT_NE(e, nullptr) << name;
    EXPECT_EQ(e->parent, world_) << name << " is a root body";
    const Element* inertial = e->First("inertial");
    ASSERT_NE(inertial, nullptr) << name;
    const Body& b = B(name);
    EXPECT_EQ(inertial->Numbers("mass"), std::vector<double>{b.mass}) << name;
    ExpectVec(inertial->Numbers("pos"), b.com, std::string(name) + " com");
    const std::vector<double> I = inertial->Numbers("fullinertia");
    ASSERT_EQ(I.size(), 6u);
    const Mat3& J = b.inertia;
    const double want[6] = {J(0, 0), J(1, 1), J(2, 2), J(0, 1), J(0, 2), J(1, 2)};
    for (int k = 0; k < 6; ++k) EXPECT_EQ(I[k], want[k] + 0.0) << name << " fullinertia " << k;
  }
  EXPECT_NEAR(B("crate").mass, 500 * 0.2 * 0.1 * 0.3, 1e-12) << "density x volume";
  // Nesting follows the joints: arm > slider > tip.
  const Element* slider = XmlBody("slider");
  const Element* tip = XmlBody("tip");
  ASSERT_NE(slider, nullptr);
  ASSERT_NE(tip, nullptr);
  EXPECT_EQ(slider->parent, XmlBody("arm"));
  EXPECT_EQ(tip->parent, slider);
  EXPECT_TRUE(tip->All("joint").empty() && tip->All("freejoint").empty()) << "fixed: welded";
  // Static bodies have no MJCF body; their geoms are in <worldbody>.
  EXPECT_EQ(XmlBody("floor"), nullptr);
  EXPECT_EQ(XmlBody("block"), nullptr);
  EXPECT_EQ(exported_.body_names[scene_.model.FindBody("floor")], "");
  EXPECT_EQ(exported_.body_names[scene_.model.FindBody("ball")], "ball");
  // Prescribed: a mocap body.
  const Element* paddle = XmlBody("paddle");
  ASSERT_NE(paddle, nullptr);
  EXPECT_EQ(paddle->At("mocap"), "true");
  EXPECT_EQ(paddle->parent, world_) << "MuJoCo mocap bodies are children of the world";
  ASSERT_EQ(exported_.mocap_bodies.size(), 1u);
  EXPECT_EQ(exported_.mocap_bodies[0], scene_.model.FindBody("paddle"));
}

TEST_F(MjcfExportTest, FreeBodyPoses) {
  const Element* crate = XmlBody("crate");
  ASSERT_NE(crate, nullptr);
  ASSERT_EQ(crate->All("freejoint").size(), 1u);
  ExpectVec(crate->Numbers("pos"), B("crate").pose0.p, "crate pos");
  const std::vector<double> q = crate->Numbers("quat");
  ASSERT_EQ(q.size(), 4u);
  const Quat& want = B("crate").pose0.q;
  // w x y z; yaw 90°: (cos 45°, 0, 0, sin 45°) up to sign.
  const double sign = q[0] * want.w() < 0 ? -1 : 1;
  EXPECT_NEAR(q[0], sign * want.w(), 1e-15);
  EXPECT_NEAR(q[3], sign * want.z(), 1e-15);
  EXPECT_NEAR(std::abs(q[3]), std::sqrt(0.5), 1e-15);
  EXPECT_FALSE(XmlBody("ball")->Has("quat")) << "identity rotations are omitted";
}

TEST_F(MjcfExportTest, JointsTypesAxesAndProperties) {
  const Element* arm = XmlBody("arm")->First("joint");
  ASSERT_NE(arm, nullptr);
  EXPECT_EQ(arm->At("type"), "hinge");
  ExpectVec(arm->Numbers("axis"), Vec3(0, 1, 0), "hinge axis (child frame)");
  ExpectVec(arm->Numbers("pos"), Vec3(-0.2, 0, 0), "hinge at the child-frame joint origin");
  EXPECT_EQ(arm->Numbers("stiffness"), std::vector<double>{5});
  EXPECT_EQ(arm->Numbers("springref"), std::vector<double>{0.1});
  EXPECT_EQ(arm->Numbers("damping"), std::vector<double>{0.3});
  EXPECT_EQ(arm->At("limited"), "true");
  EXPECT_EQ(arm->Numbers("range"), (std::vector<double>{-1.5, 1.5})) << "radians";
  // Zero-coordinate pose of the arm relative to the world: its scene position.
  ExpectVec(XmlBody("arm")->Numbers("pos"), Vec3(0, 2, 1), "arm body pos");

  const Element* slide = XmlBody("slider")->First("joint");
  ASSERT_NE(slide, nullptr);
  EXPECT_EQ(slide->At("type"), "slide");
  ExpectVec(slide->Numbers("axis"), Vec3(1, 0, 0), "slide axis");
  EXPECT_FALSE(slide->Has("stiffness")) << "no spring";
  // Slider relative to the arm frame: 0.2 m along x.
  const std::vector<double> p = XmlBody("slider")->Numbers("pos");
  ASSERT_EQ(p.size(), 3u);
  EXPECT_NEAR(p[0], 0.2, 1e-15);
  EXPECT_NEAR(p[1], 0, 1e-15);
  EXPECT_NEAR(p[2], 0, 1e-15);

  // Actuator: PD as gain 1 and affine bias (0, −kp, −kd), clamped at the effort limit.
  const Element* actuators = mujoco_->First("actuator");
  ASSERT_NE(actuators, nullptr);
  ASSERT_EQ(actuators->All("general").size(), 1u);
  const Element* act = actuators->First("general");
  EXPECT_EQ(act->At("joint"), "arm");
  EXPECT_EQ(act->At("biastype"), "affine");
  EXPECT_EQ(act->Numbers("gainprm"), std::vector<double>{1});
  EXPECT_EQ(act->Numbers("biasprm"), (std::vector<double>{0, -50, -2}));
  EXPECT_EQ(act->Numbers("forcerange"), (std::vector<double>{-10, 10}));
  ASSERT_EQ(exported_.actuated_joints.size(), 1u);
}

TEST_F(MjcfExportTest, GeomShapesSizesAndFriction) {
  auto geom = [&](const std::string& body) { return XmlBody(body)->First("geom"); };
  EXPECT_EQ(geom("ball")->At("type"), "sphere");
  EXPECT_EQ(geom("ball")->Numbers("size"), std::vector<double>{0.1});
  EXPECT_EQ(geom("crate")->At("type"), "box");
  ExpectVec(geom("crate")->Numbers("size"), Vec3(0.1, 0.05, 0.15), "box size = half extents");
  EXPECT_EQ(geom("pill")->At("type"), "capsule");
  EXPECT_EQ(geom("pill")->Numbers("size"), (std::vector<double>{0.05, 0.1}))
      << "radius, half-length";
  EXPECT_TRUE(geom("pill")->Has("quat")) << "the capsule's geom rotation";
  EXPECT_EQ(geom("can")->At("type"), "cylinder");
  EXPECT_EQ(geom("can")->Numbers("size"), (std::vector<double>{0.08, 0.06}))
      << "radius, half-height";
  ExpectVec(geom("can")->Numbers("pos"), Vec3(0, 0, 0.01), "geom offset");
  EXPECT_EQ(geom("tip")->At("contype"), "0") << "collide: false";
  EXPECT_EQ(geom("tip")->At("conaffinity"), "0");

  // Static geoms in world coordinates: the floor plane and the rotated block.
  std::vector<const Element*> statics = world_->All("geom");
  ASSERT_EQ(statics.size(), 2u);
  EXPECT_EQ(statics[0]->At("type"), "plane");
  EXPECT_EQ(statics[1]->At("type"), "box");
  ExpectVec(statics[1]->Numbers("pos"), Vec3(2, 0, 0.1), "block pos (world)");
  EXPECT_TRUE(statics[1]->Has("quat"));

  // Friction: each geom carries its material's μ; condim 3.
  EXPECT_EQ(geom("ball")->Numbers("friction")[0], 1.2);
  EXPECT_EQ(statics[0]->Numbers("friction")[0], 0.4);
  EXPECT_EQ(geom("arm")->Numbers("friction")[0], 0.5) << "default material";
  EXPECT_EQ(geom("ball")->At("condim"), "3");
}

TEST_F(MjcfExportTest, PairFrictionOverridesMuJoCosMaxRule) {
  // rubber (1.2) against steel (0.4): ContactLab μ = 2·1.2·0.4/1.6 = 0.6; MuJoCo would use 1.2.
  const Element* contact = mujoco_->First("contact");
  ASSERT_NE(contact, nullptr);
  std::map<std::pair<std::string, std::string>, int> excludes;
  for (const Element* e : contact->All("exclude")) ++excludes[{e->At("body1"), e->At("body2")}];
  // Rubber bodies (ball, crate) against the world's steel geoms and the steel paddle; default
  // (0.5) bodies against steel (harmonic 0.444) and rubber (0.706).
  EXPECT_EQ((excludes[{"world", "ball"}]), 1);
  EXPECT_EQ((excludes[{"world", "crate"}]), 1);
  EXPECT_EQ((excludes[{"ball", "crate"}]), 0) << "rubber on rubber: max rule is exact";
  bool found = false;
  for (const Element* p : contact->All("pair")) {
    const std::vector<double> f = p->Numbers("friction");
    ASSERT_EQ(f.size(), 5u);
    EXPECT_EQ(f[0], f[1]) << "isotropic";
    if (p->At("geom2") == "ball/0" && p->At("geom1") == "floor/0") {
      found = true;
      EXPECT_NEAR(f[0], 0.6, 1e-15);
    }
  }
  EXPECT_TRUE(found) << exported_.xml;
  // Every geom pair between excluded bodies is explicit: the block and the floor against the ball.
  int ball_pairs = 0;
  for (const Element* p : contact->All("pair")) ball_pairs += p->At("geom2") == "ball/0";
  EXPECT_EQ(ball_pairs, 2);
}

TEST_F(MjcfExportTest, KeyframeHoldsTheInitialState) {
  const Element* key = mujoco_->First("keyframe")->First("key");
  ASSERT_NE(key, nullptr);
  const std::vector<double> qpos = key->Numbers("qpos"), qvel = key->Numbers("qvel");
  // ball, crate, pill, can: 7 + 6 each; arm hinge and slider: 1 + 1.
  EXPECT_EQ(exported_.nq, 4 * 7 + 2);
  EXPECT_EQ(exported_.nv, 4 * 6 + 2);
  ASSERT_EQ(static_cast<int>(qpos.size()), exported_.nq);
  ASSERT_EQ(static_cast<int>(qvel.size()), exported_.nv);
  // Ball first: at (0, 0, 1), linear velocity (0.1, 0, 0); its angular velocity (0, 0, 3) is
  // world = body frame here (identity rotation).
  EXPECT_EQ(qpos[2], 1.0);
  EXPECT_EQ(qvel[0], 0.1);
  EXPECT_EQ(qvel[5], 3.0);
  EXPECT_EQ(qpos[28], 0.25) << "arm joint_position";
  EXPECT_EQ(qpos[29], 0.05) << "slider joint_position";
}

TEST(MjcfExport, LargeModelsCarryTheInitialStateOutsideTheXml) {
  // 150 free bodies: nq = 1050 numbers, more than MuJoCo 2.2.2 reads from one attribute.
  const char yaml[] = R"(templates:
  - {name: ball, mass: 1, geoms: [{shape: sphere, radius: 0.05}]}
generators:
  - grid: {name: b, templates: [ball], count: [150, 1, 1], spacing: [0.2, 0, 0], origin: [0, 0, 1]}
)";
  const Scene s = ParseScene(yaml, "many.yaml");
  const MjcfExport e = ExportMjcf(s);
  EXPECT_EQ(e.xml.find("<keyframe>"), std::string::npos);
  ASSERT_EQ(e.initial_qpos.size(), 1050u);
  ASSERT_EQ(e.initial_qvel.size(), 900u);
  EXPECT_EQ(e.initial_qpos[7 * 149], 0.2 * 149) << "x of the last ball";
  EXPECT_EQ(e.initial_qpos[7 * 149 + 3], 1.0) << "qw";
  bool noted = false;
  for (const std::string& n : e.notes) noted |= n.find("no keyframe") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(MjcfExport, CompliantGeometryIsNotedAsPointContact) {
  // MuJoCo has no pressure-field contact: the export says so instead of comparing silently.
  const Scene s = ParseScene(R"(materials:
  - {name: soft, hydroelastic: {modulus: 1e6}}
bodies:
  - {name: floor, static: true, geoms: [{shape: half_space}]}
  - {name: a, mass: 1, position: [0, 0, 0.1], geoms: [{shape: sphere, radius: 0.05, material: soft}]}
  - {name: b, mass: 1, position: [1, 0, 0.1], geoms: [{shape: sphere, radius: 0.05}]}
)",
                             "soft.yaml");
  std::string found;
  for (const std::string& n : ExportMjcf(s).notes) {
    if (n.find("hydroelastic") != std::string::npos) found = n;
  }
  EXPECT_EQ(found.rfind("1 compliant", 0), 0u) << found;
  const Scene rigid = ParseScene(R"(bodies:
  - {name: b, mass: 1, position: [1, 0, 0.1], geoms: [{shape: sphere, radius: 0.05}]}
)",
                                 "rigid.yaml");
  for (const std::string& n : ExportMjcf(rigid).notes) {
    EXPECT_EQ(n.find("hydroelastic"), std::string::npos) << n;
  }
}

TEST(MjcfExport, RejectsAnUnfinalizedScene) {
  SceneOptions o;
  o.finalize = false;
  Scene s = ParseScene(kScene, "export_test.yaml", o);
  EXPECT_THROW(ExportMjcf(s), std::invalid_argument);
}

TEST(MjcfExport, ConvexMeshBecomesAMeshAsset) {
  const std::string yaml = R"(bodies:
  - {name: rock, mass: 1, position: [0, 0, 1],
     geoms: [{shape: mesh, file: meshes/tetrahedron.stl, scale: 0.1}]}
)";
  SceneOptions o;
  o.base_dir = std::string(CONTACTLAB_SOURCE_DIR) + "/assets";
  Scene s = ParseScene(yaml, "mesh.yaml", o);
  const MjcfExport e = ExportMjcf(s);
  auto doc = ParseXml(e.xml);
  ASSERT_TRUE(doc);
  const Element* asset = doc->First("mujoco")->First("asset");
  ASSERT_NE(asset, nullptr);
  const Element* mesh = asset->First("mesh");
  ASSERT_NE(mesh, nullptr);
  const auto& hull = *s.model.geoms[0].shape.hull;
  EXPECT_EQ(mesh->Numbers("vertex").size(), 3 * hull.vertices.size());
  const Element* body = doc->First("mujoco")->First("worldbody")->Find("body", "rock");
  ASSERT_NE(body, nullptr);
  const Element* geom = body->First("geom");
  EXPECT_EQ(geom->At("type"), "mesh");
  EXPECT_EQ(geom->At("mesh"), mesh->At("name"));
}

// A ball joint with rotated joint frames on both sides and a non-trivial initial state.
const char kBallYaml[] = R"(time_step: 0.002
gravity: [0, 0, -9.81]
bodies:
  - {name: base, mass: 2, inertia: [0.02, 0.03, 0.04], position: [0.1, 0.2, 1.0],
     rotation: {rpy_deg: [10, 20, 30]}, angular_velocity: [0.3, -0.2, 0.5],
     geoms: [{shape: sphere, radius: 0.05}]}
  - name: arm
    mass: 1
    inertia: [0.01, 0.02, 0.015]
    position: [0.1, 0.2, 0.6]
    rotation: {rpy_deg: [-15, 5, 40]}
    joint: {type: ball, parent: base, damping: 0.05,
            child_frame: {position: [0.02, -0.03, 0.4], rotation: {rpy_deg: [25, -35, 60]}}}
    joint_position: {axis_angle: [1, 2, -0.5, 50]}
    joint_velocity: [1.5, -0.7, 2.0]
    geoms: [{shape: capsule, radius: 0.03, length: 0.3}]
)";

TEST(MjcfExport, BallJointIsAMuJoCoBallJoint) {
  const Scene s = ParseScene(kBallYaml, "ball.yaml");
  const MjcfExport e = ExportMjcf(s);
  auto doc = ParseXml(e.xml);
  const Element* arm = doc->First("mujoco")->First("worldbody")->Find("body", "arm");
  ASSERT_NE(arm, nullptr);
  const Element* joint = arm->First("joint");
  ASSERT_NE(joint, nullptr);
  EXPECT_EQ(joint->At("type"), "ball");
  EXPECT_FALSE(joint->Has("axis"));
  EXPECT_EQ(joint->Numbers("pos"), (std::vector<double>{0.02, -0.03, 0.4}));
  EXPECT_EQ(joint->Numbers("damping"), std::vector<double>{0.05});
  EXPECT_EQ(e.nq, 11);
  EXPECT_EQ(e.nv, 9);
  ASSERT_EQ(e.initial_qpos.size(), 11u);
  ASSERT_EQ(e.initial_qvel.size(), 9u);
}

#ifdef CONTACTLAB_HAVE_MUJOCO

// Loads an export into MuJoCo directly (the test inspects mjModel, which MujocoPeer hides).
struct Loaded {
  mjModel* m = nullptr;
  mjData* d = nullptr;
  ~Loaded() {
    if (d) mj_deleteData(d);
    if (m) mj_deleteModel(m);
  }
};

void Load(const std::string& xml, Loaded* out) {
  namespace fs = std::filesystem;
  const fs::path path =
      fs::temp_directory_path() / ("contactlab_mjcf_test_" + std::to_string(::getpid()) + ".xml");
  std::ofstream(path) << xml;
  char error[1000] = "";
  out->m = mj_loadXML(path.string().c_str(), nullptr, error, sizeof(error));
  fs::remove(path);
  ASSERT_NE(out->m, nullptr) << error << "\n" << xml;
  out->d = mj_makeData(out->m);
  mj_resetDataKeyframe(out->m, out->d, 0);
  mj_forward(out->m, out->d);
}

TEST_F(MjcfExportTest, MuJoCoLoadsItWithTheSameMassesAndPoses) {
  Loaded mj;
  Load(exported_.xml, &mj);
  const Model& model = scene_.model;
  EXPECT_EQ(mj.m->nq, exported_.nq);
  EXPECT_EQ(mj.m->nv, exported_.nv);
  EXPECT_EQ(mj.m->nu, 1);
  EXPECT_EQ(mj.m->nmocap, 1);
  EXPECT_EQ(mj.m->opt.cone, mjCONE_ELLIPTIC);
  EXPECT_EQ(mj.m->opt.solver, mjSOL_NEWTON);
  EXPECT_EQ(mj.m->opt.timestep, 0.004);

  // Poses at the initial state (joint positions 0.25 rad and 0.05 m) agree with ContactLab's
  // kinematics; the tolerance covers MuJoCo's quaternion renormalizations (round-off).
  Multibody mb(&model);
  KinematicsCache kin;
  mb.UpdateKinematics(model.q_default, 0, &kin);
  for (size_t b = 0; b < model.bodies.size(); ++b) {
    const std::string& name = exported_.body_names[b];
    if (name.empty()) continue;
    const int id = mj_name2id(mj.m, mjOBJ_BODY, name.c_str());
    ASSERT_GE(id, 0) << name;
    const Vec3 p(mj.d->xpos[3 * id], mj.d->xpos[3 * id + 1], mj.d->xpos[3 * id + 2]);
    EXPECT_LT((p - kin.X_WB[b].p).norm(), 1e-12) << name;
    const Quat q(mj.d->xquat[4 * id], mj.d->xquat[4 * id + 1], mj.d->xquat[4 * id + 2],
                 mj.d->xquat[4 * id + 3]);
    EXPECT_LT(q.angularDistance(kin.X_WB[b].q), 1e-7) << name;  // acos near 1: √ε resolution
    if (model.bodies[b].prescribed) continue;
    EXPECT_NEAR(mj.m->body_mass[id], model.bodies[b].mass, 1e-12 * model.bodies[b].mass) << name;
    // MuJoCo stores principal moments; compare with the eigenvalues of the ContactLab inertia.
    Eigen::SelfAdjointEigenSolver<Mat3> eig(model.bodies[b].inertia);
    Vec3 principal(mj.m->body_inertia[3 * id], mj.m->body_inertia[3 * id + 1],
                   mj.m->body_inertia[3 * id + 2]);
    std::sort(principal.data(), principal.data() + 3);
    EXPECT_LT((principal - eig.eigenvalues()).norm(), 1e-12 * eig.eigenvalues().norm()) << name;
  }
  // The free ball's angular velocity (0, 0, 3) about world z: MuJoCo's body-frame value.
  const int ball = mj_name2id(mj.m, mjOBJ_BODY, "ball");
  const int dof = mj.m->jnt_dofadr[mj.m->body_jntadr[ball]];
  EXPECT_EQ(mj.d->qvel[dof + 5], 3.0);
  // Pair friction reached MuJoCo.
  ASSERT_GT(mj.m->npair, 0);
  EXPECT_GT(mj.m->nexclude, 0);
}

// A box resting on a floor of another material: the explicit pair replaces the dynamic one
// (4 box-plane contacts, not 8) and carries the ContactLab μ.
TEST(MjcfExportMuJoCo, ExplicitPairsDoNotDuplicateContacts) {
  const char yaml[] = R"(time_step: 0.01
materials:
  - {name: a, friction: 0.2}
  - {name: b, friction: 0.8}
bodies:
  - {name: floor, static: true, geoms: [{shape: half_space, material: a}]}
  - {name: box, mass: 1, position: [0, 0, 0.0499],
     geoms: [{shape: box, size: [0.1, 0.1, 0.1], material: b}]}
)";
  Scene s = ParseScene(yaml, "pair.yaml");
  Loaded mj;
  Load(ExportMjcf(s).xml, &mj);
  ASSERT_EQ(mj.m->npair, 1);
  EXPECT_NEAR(mj.m->pair_friction[0], 2 * 0.2 * 0.8 / 1.0, 1e-15) << "harmonic mean";
  mj_step(mj.m, mj.d);
  EXPECT_EQ(mj.d->ncon, 4);
  for (int i = 0; i < mj.d->ncon; ++i) EXPECT_NEAR(mj.d->contact[i].friction[0], 0.32, 1e-15);
}

// Free fall: ContactLab's symplectic Euler and MuJoCo's semi-implicit Euler use the same
// recurrence (v += g δt, then x += v δt), so the trajectories agree to round-off.
TEST(MjcfExportMuJoCo, FreeFallMatchesContactLab) {
  const char yaml[] = R"(time_step: 0.01
gravity: [0.3, 0, -9.81]
bodies:
  - {name: ground, static: true, geoms: [{shape: half_space}]}
  - {name: ball, mass: 1, position: [0, 0, 2], velocity: [0, 0.5, 1],
     geoms: [{shape: sphere, radius: 0.1}]}
)";
  Scene s = ParseScene(yaml, "fall.yaml");
  Simulator sim(s.model, s.settings);
  MujocoPeer peer(s);
  const int ball = s.model.FindBody("ball");
  KinematicsCache kin;
  for (int n = 0; n < 50; ++n) {  // 0.5 s: the ball drops about 0.7 m, never reaching the ground
    sim.Step();
    peer.Step();
    sim.multibody().UpdateKinematics(sim.state().q, sim.state().time, &kin);
    // Positions of order 1 m after 50 steps: a few ulps per step.
    EXPECT_LT((peer.BodyPose(ball).p - kin.X_WB[ball].p).norm(), 1e-12) << "step " << n;
  }
  EXPECT_NEAR(peer.time(), sim.state().time, 1e-12);
  EXPECT_EQ(peer.num_contacts(), 0);
  // Closed form: z_n = z0 + n δt v0 − g δt² n (n + 1) / 2.
  const double h = 0.01, n = 50;
  EXPECT_NEAR(peer.BodyPose(ball).p.z(), 2 + n * h * 1 - 9.81 * h * h * n * (n + 1) / 2, 1e-12);
}

// Without a keyframe the peer sets the initial state itself: a spinning, moving body starts
// with ContactLab's velocities (checked through the first free-flight step).
TEST(MjcfExportMuJoCo, PeerStartsFromContactLabsInitialState) {
  const char yaml[] = R"(time_step: 0.01
gravity: [0, 0, 0]
templates:
  - {name: ball, mass: 1, geoms: [{shape: sphere, radius: 0.05}]}
bodies:
  - {name: spinner, mass: 1, position: [0, 5, 1], rotation: {rpy_deg: [30, 0, 0]},
     velocity: [1, 0, 0], angular_velocity: [0, 0, 2],
     geoms: [{shape: box, size: [0.1, 0.2, 0.3]}]}
generators:
  - grid: {name: b, templates: [ball], count: [150, 1, 1], spacing: [0.2, 0, 0], origin: [0, 0, 1]}
)";
  Scene s = ParseScene(yaml, "many.yaml");
  MujocoPeer peer(s);
  Simulator sim(s.model, s.settings);
  peer.Step();
  sim.Step();
  KinematicsCache kin;
  sim.multibody().UpdateKinematics(sim.state().q, sim.state().time, &kin);
  const int b = s.model.FindBody("spinner");
  const Pose X = peer.BodyPose(b);
  // One step of x += v δt and a rotation by ω δt about world z in both engines: equal up to the
  // engines' quaternion integration round-off.
  EXPECT_LT((X.p - kin.X_WB[b].p).norm(), 1e-12);
  EXPECT_LT(X.q.angularDistance(kin.X_WB[b].q), 1e-7);
  EXPECT_NEAR(X.p.x(), 0.01, 1e-15);
}

// MuJoCo loads the ball joint with the same body poses and angular velocities at the initial
// state (its ball quaternion and local-frame velocity are converted from R_FM and ω_F).
TEST(MjcfExportMuJoCo, BallJointStateMatches) {
  const Scene s = ParseScene(kBallYaml, "ball.yaml");
  const Model& model = s.model;
  const MjcfExport e = ExportMjcf(s);
  Loaded mj;
  Load(e.xml, &mj);
  ASSERT_EQ(mj.m->nq, 11);
  ASSERT_EQ(mj.m->nv, 9);
  EXPECT_EQ(mj.m->jnt_type[1], mjJNT_BALL);
  mj_forward(mj.m, mj.d);
  Multibody mb(&model);
  KinematicsCache kin;
  mb.UpdateKinematics(model.q_default, 0, &kin);
  for (const char* name : {"base", "arm"}) {
    const int b = model.FindBody(name);
    const int id = mj_name2id(mj.m, mjOBJ_BODY, name);
    ASSERT_GE(id, 0) << name;
    const Vec3 p(mj.d->xpos[3 * id], mj.d->xpos[3 * id + 1], mj.d->xpos[3 * id + 2]);
    // Round-off of a few products of O(1) quantities.
    EXPECT_LT((p - kin.X_WB[b].p).norm(), 1e-12) << name;
    const Quat q(mj.d->xquat[4 * id], mj.d->xquat[4 * id + 1], mj.d->xquat[4 * id + 2],
                 mj.d->xquat[4 * id + 3]);
    EXPECT_LT(q.angularDistance(kin.X_WB[b].q), 1e-7) << name;  // acos near 1: √ε resolution
    // cvel = [ω; v] of the body in world axes.
    const Vec3 w(mj.d->cvel[6 * id], mj.d->cvel[6 * id + 1], mj.d->cvel[6 * id + 2]);
    EXPECT_LT((w - mb.AngularVelocity(kin, model.v_default, b)).norm(), 1e-12) << name;
  }
}

// Ball-joint dynamics against MuJoCo on the same model, without contact and without damping.
// ContactLab's symplectic Euler and MuJoCo's semi-implicit Euler take the same steps
// (v += δt M⁻¹ k(q, v), then each quaternion turns by exp(δt ω): left-multiplied with ω in the
// parent joint frame here, right-multiplied with ω in the child frame there, the same rotation),
// so the trajectories agree up to round-off growing along the motion. Two models: a free base
// with a ball-jointed arm tumbling in free fall (gyroscopic coupling only), and a double
// spherical pendulum (ball on the world, ball on the first link, rotated joint frames) swinging
// under gravity.
const char kDoubleSphericalYaml[] = R"(time_step: 0.002
bodies:
  - name: upper
    mass: 1.5
    inertia: [0.02, 0.025, 0.01]
    position: [0, 0, 1.5]
    rotation: {rpy_deg: [5, -10, 20]}
    joint: {type: ball, parent: world,
            child_frame: {position: [0.02, 0.01, 0.3], rotation: {rpy_deg: [30, 10, -20]}}}
    joint_position: {axis_angle: [1, 0.5, 0, 40]}
    joint_velocity: [0.5, -1.0, 3.0]
  - name: lower
    mass: 0.8
    inertia: [0.01, 0.012, 0.004]
    position: [0.05, 0, 0.9]
    rotation: {rpy_deg: [-20, 15, 0]}
    joint: {type: ball, parent: upper,
            child_frame: {position: [0, -0.02, 0.25], rotation: {rpy_deg: [0, 45, 10]}}}
    joint_position: {axis_angle: [0, 1, 1, -30]}
    joint_velocity: [2.0, 0.0, -1.5]
)";

void CompareWithMuJoCo(const std::string& yaml, const std::vector<std::string>& bodies,
                       double* max_dp, double* max_dr, double* turned) {
  Scene s = ParseScene(yaml, "ball.yaml");
  Simulator sim(s.model, s.settings);
  MujocoPeer peer(s);
  KinematicsCache kin;
  sim.multibody().UpdateKinematics(sim.state().q, 0, &kin);
  const std::vector<Pose> X0 = kin.X_WB;
  *max_dp = *max_dr = *turned = 0;
  for (int n = 0; n < 250; ++n) {  // 0.5 s at δt = 0.002
    sim.Step();
    peer.Step();
    sim.multibody().UpdateKinematics(sim.state().q, sim.state().time, &kin);
    for (const std::string& name : bodies) {
      const int b = s.model.FindBody(name);
      const Pose X = peer.BodyPose(b);
      *max_dp = std::max(*max_dp, (X.p - kin.X_WB[b].p).norm());
      *max_dr = std::max(*max_dr, X.q.angularDistance(kin.X_WB[b].q));
      *turned = std::max(*turned, X0[b].q.angularDistance(kin.X_WB[b].q));
    }
  }
  EXPECT_EQ(peer.num_contacts(), 0);
}

TEST(MjcfExportMuJoCo, BallJointTrajectoryMatchesContactLab) {
  std::string tumbling = kBallYaml;
  const std::string damping = " damping: 0.05,";
  ASSERT_NE(tumbling.find(damping), std::string::npos);
  tumbling.erase(tumbling.find(damping), damping.size());
  for (const auto& [yaml, bodies] :
       {std::pair<std::string, std::vector<std::string>>{tumbling, {"base", "arm"}},
        std::pair<std::string, std::vector<std::string>>{kDoubleSphericalYaml,
                                                         {"upper", "lower"}}}) {
    double max_dp, max_dr, turned;
    CompareWithMuJoCo(yaml, bodies, &max_dp, &max_dr, &turned);
    std::printf(
        "ball joints vs MuJoCo, 250 steps: max position difference %.3g m, rotation "
        "%.3g rad (bodies turned up to %.3g rad)\n",
        max_dp, max_dr, turned);
    // The motion is not trivial: the bodies turn by radians.
    EXPECT_GT(turned, 0.5);
    // Round-off of the two engines' formulations (different recursions and quaternion
    // products), grown over 250 steps; a wrong frame or velocity term would differ by
    // O(δt |ω|) ~ 1e-2 rad within the first steps.
    EXPECT_LT(max_dp, 1e-10);
    EXPECT_LT(max_dr, 1e-6);  // angularDistance resolves only ~√ε near zero (acos)
  }
}

#endif  // CONTACTLAB_HAVE_MUJOCO

}  // namespace
}  // namespace contactlab
