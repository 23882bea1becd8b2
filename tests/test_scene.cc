// Scene loader: every class of bad input yields a SceneError naming file, line and field; good
// input maps onto Model and StepSettings as documented in docs/scene_format.md.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/scene.h"
#include "engine/multibody/multibody.h"

namespace contactlab {
namespace {

constexpr char kFile[] = "dir/test.yaml";

SceneOptions Options(const std::vector<std::string>& overrides = {}) {
  SceneOptions o;
  o.overrides = overrides;
  o.finalize = false;  // Model::Finalize is exercised by the tests that need it, below.
  return o;
}

Scene Parse(const std::string& text, const std::vector<std::string>& overrides = {}) {
  return ParseScene(text, kFile, Options(overrides));
}

// The SceneError message for `text`, or "" (with a test failure) if it parsed.
std::string ErrorOf(const std::string& text, const std::vector<std::string>& overrides = {}) {
  try {
    Parse(text, overrides);
  } catch (const SceneError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a SceneError for:\n" << text;
  return "";
}

bool Has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// A small valid scene used as the base of several tests.
const char kBase[] = R"(description: base
time_step: 0.01
materials:
  - {name: steel, stiffness: 1e8, dissipation_time: 0.01, friction: 0.5}
  - {name: rubber, stiffness: 1e6, dissipation_time: 0.02, friction: 1.0}
bodies:
  - name: ground
    static: true
    geoms: [{shape: half_space, material: steel}]
  - name: box
    mass: 1.0
    position: [0, 0, 0.1]
    geoms: [{shape: box, size: [0.1, 0.1, 0.1], material: rubber}]
)";

// ---------------------------------------------------------------------------------------------
// Bad input: file, line, field and an explanation.

TEST(SceneErrors, YamlSyntaxErrorNamesFileAndLine) {
  const std::string msg = ErrorOf("time_step: 0.01\nduration: 1\ngravity: [0, 0, -9.81\n");
  // The unterminated flow sequence is only detected at the end of the text (line 4).
  EXPECT_TRUE(Has(msg, "dir/test.yaml:4: yaml: syntax error")) << msg;
}

TEST(SceneErrors, YamlSyntaxErrorBadIndentation) {
  const std::string msg = ErrorOf("time_step: 0.01\nsolver:\n  sigma: 1\n beta: 2\n");
  EXPECT_TRUE(Has(msg, "dir/test.yaml:4: yaml:")) << msg;
}

TEST(SceneErrors, UnknownTopLevelKeyListsAllowedKeys) {
  const std::string msg = ErrorOf("time_step: 0.01\ntime_stepp: 0.02\n");
  EXPECT_TRUE(Has(msg, "dir/test.yaml:2: time_stepp: unknown key 'time_stepp'")) << msg;
  EXPECT_TRUE(Has(msg, "allowed: description, time_step")) << msg;
}

TEST(SceneErrors, UnknownKeyIsReportedAtTheKeyLine) {
  const std::string msg = ErrorOf("time_step: 0.01\nsolverr:\n  sigma: 1\n");
  EXPECT_TRUE(Has(msg, "dir/test.yaml:2: solverr: unknown key 'solverr'"))
      << "the key's line, not the line where its map value starts: " << msg;
}

TEST(SceneErrors, UnknownBodyKey) {
  const std::string msg = ErrorOf(R"(bodies:
  - name: box
    mas: 1
)");
  EXPECT_TRUE(Has(msg, "dir/test.yaml:3: bodies.box.mas: unknown key 'mas' in a body")) << msg;
  EXPECT_TRUE(Has(msg, "mass")) << "the allowed keys are listed: " << msg;
}

TEST(SceneErrors, UnknownGeomKeyListsKeysForThatShape) {
  const std::string msg = ErrorOf(R"(bodies:
  - name: ball
    mass: 1
    geoms:
      - {shape: sphere, radius: 0.1, size: [1, 1, 1]}
)");
  EXPECT_TRUE(Has(msg,
                  "dir/test.yaml:5: bodies.ball.geoms.0.size: unknown key 'size' for shape "
                  "sphere"))
      << msg;
  EXPECT_TRUE(Has(msg, "radius")) << msg;
}

TEST(SceneErrors, WrongTypeStringForMass) {
  const std::string msg = ErrorOf(R"(bodies:
  - name: box
    mass: heavy
    geoms: [{shape: sphere, radius: 0.1}]
)");
  EXPECT_TRUE(Has(msg, "dir/test.yaml:3: bodies.box.mass: expected a number, got 'heavy'")) << msg;
}

TEST(SceneErrors, WrongTypeMapForList) {
  const std::string msg = ErrorOf("gravity: {x: 1}\n");
  EXPECT_TRUE(Has(msg, "dir/test.yaml:1: gravity: expected a list of 3 numbers, got a map")) << msg;
}

TEST(SceneErrors, NegativeMassIsOutOfRange) {
  const std::string msg = ErrorOf(R"(bodies:
  - name: box
    mass: -1
    geoms: [{shape: sphere, radius: 0.1}]
)");
  EXPECT_TRUE(Has(msg,
                  "dir/test.yaml:3: bodies.box.mass: value -1 is out of range (valid range "
                  "(0, inf))"))
      << msg;
}

TEST(SceneErrors, NegativeFrictionIsOutOfRange) {
  const std::string msg = ErrorOf(R"(materials:
  - name: steel
    friction: -1
)");
  EXPECT_TRUE(Has(msg,
                  "dir/test.yaml:3: materials.steel.friction: value -1 is out of range "
                  "(valid range [0, 10])"))
      << msg;
}

TEST(SceneErrors, ZeroTimeStepIsOutOfRange) {
  const std::string msg = ErrorOf("time_step: 0\n");
  EXPECT_TRUE(Has(msg, "dir/test.yaml:1: time_step: value 0 is out of range (valid range (0, 1])"))
      << msg;
}

TEST(SceneErrors, SigmaAboveOneIsOutOfRange) {
  const std::string msg = ErrorOf("solver: {type: sap,\n  sigma: 2}\n");
  EXPECT_TRUE(Has(msg,
                  "dir/test.yaml:2: solver.sigma: value 2 is out of range (valid range "
                  "(0, 1])"))
      << msg;
}

TEST(SceneErrors, NonIntegerIterations) {
  const std::string msg = ErrorOf("solver: {max_iterations: 2.5}\n");
  EXPECT_TRUE(Has(msg, "dir/test.yaml:1: solver.max_iterations: expected an integer")) << msg;
}

TEST(SceneErrors, BadEnumListsChoices) {
  const std::string msg = ErrorOf("integrator: runge_kutta\n");
  EXPECT_TRUE(Has(msg,
                  "dir/test.yaml:1: integrator: expected one of explicit_euler | "
                  "symplectic_euler | implicit_euler | midpoint | implicit_damping_euler, got "
                       "'runge_kutta'"))
      << msg;
}

TEST(SceneErrors, MissingRequiredSphereRadius) {
  const std::string msg = ErrorOf(R"(bodies:
  - name: ball
    mass: 1
    geoms:
      - shape: sphere
        material: default
)");
  // Reported at the geom's map (line 5), naming the field that is missing.
  EXPECT_TRUE(Has(msg, "dir/test.yaml:5: bodies.ball.geoms.0.radius: missing required field"))
      << msg;
}

TEST(SceneErrors, MissingMassOnDynamicBody) {
  const std::string msg = ErrorOf(R"(bodies:
  - name: box
    joint: {type: free}
    geoms: [{shape: sphere, radius: 0.1}]
)");
  EXPECT_TRUE(Has(msg, "dir/test.yaml:2: bodies.box.mass: missing required field")) << msg;
}

TEST(SceneErrors, MissingMaterialName) {
  const std::string msg = ErrorOf("materials:\n  - {stiffness: 1e6}\n");
  EXPECT_TRUE(Has(msg, "dir/test.yaml:2: materials.0.name: missing required field")) << msg;
}

TEST(SceneErrors, UnknownMaterialReference) {
  const std::string msg = ErrorOf(R"(materials: [{name: steel}]
bodies:
  - name: box
    mass: 1
    geoms:
      - {shape: sphere, radius: 0.1, material: rubber}
)");
  EXPECT_TRUE(Has(msg,
                  "dir/test.yaml:6: bodies.box.geoms.0.material: unknown material 'rubber' "
                  "(defined: default, steel)"))
      << msg;
}

TEST(SceneErrors, UnknownMaterialInPair) {
  const std::string msg = ErrorOf(
      "materials: [{name: steel}]\npairs:\n  - {materials: [steel, "
      "ice], friction: 0.1}\n");
  EXPECT_TRUE(Has(msg, "dir/test.yaml:3: pairs.0.materials.1: unknown material 'ice'")) << msg;
}

TEST(SceneErrors, UnknownParentBody) {
  const std::string msg = ErrorOf(R"(bodies:
  - name: link
    mass: 1
    inertia: [1, 1, 1]
    joint: {type: revolute,
            parent: base}
)");
  EXPECT_TRUE(Has(msg, "dir/test.yaml:6: bodies.link.joint.parent: unknown parent body 'base'"))
      << msg;
}

TEST(SceneErrors, UnknownTemplate) {
  const std::string msg = ErrorOf(R"(templates:
  - {name: ball, mass: 1, geoms: [{shape: sphere, radius: 0.1}]}
generators:
  - grid: {name: g, templates: [ball, brick], count: [1, 1, 2], spacing: [0, 0, 1]}
)");
  EXPECT_TRUE(Has(msg,
                  "dir/test.yaml:4: generators.0.grid.templates.1: unknown template 'brick' "
                  "(defined: ball)"))
      << msg;
}

TEST(SceneErrors, DuplicateBodyName) {
  const std::string msg = ErrorOf(R"(bodies:
  - name: box
    static: true
  - name: box
    static: true
)");
  EXPECT_TRUE(Has(msg,
                  "dir/test.yaml:4: bodies.1.name: duplicate body name 'box' (first "
                  "defined at dir/test.yaml:2)"))
      << msg;
}

TEST(SceneErrors, GeneratedNameCollidesWithBody) {
  const std::string msg = ErrorOf(R"(templates:
  - {name: ball, mass: 1, geoms: [{shape: sphere, radius: 0.1}]}
bodies:
  - {name: g_1, static: true}
generators:
  - grid: {name: g, templates: [ball], count: [3, 1, 1], spacing: [1, 0, 0]}
)");
  EXPECT_TRUE(Has(msg, "duplicate body name 'g_1'")) << msg;
}

TEST(SceneErrors, DuplicateMaterialName) {
  const std::string msg = ErrorOf("materials:\n  - {name: steel}\n  - {name: steel}\n");
  EXPECT_TRUE(Has(msg, "dir/test.yaml:3: materials.1.name: duplicate material name 'steel'"))
      << "the duplicate is named by its index: " << msg;
}

TEST(SceneErrors, DuplicateKeyInMap) {
  const std::string msg = ErrorOf("time_step: 0.01\ntime_step: 0.02\n");
  EXPECT_TRUE(Has(msg, "dir/test.yaml:2: time_step: duplicate key 'time_step'")) << msg;
}

TEST(SceneErrors, MissingMeshFileListsPathsTried) {
  const std::string msg = ErrorOf(R"(bodies:
  - name: rock
    mass: 1
    inertia: [1, 1, 1]
    geoms:
      - {shape: mesh, file: no_such_mesh_file.obj}
)");
  EXPECT_TRUE(Has(msg,
                  "dir/test.yaml:6: bodies.rock.geoms.0.file: mesh file "
                  "'no_such_mesh_file.obj' not found (looked in: dir/no_such_mesh_file.obj"))
      << "relative paths are tried next to the scene file first: " << msg;
  EXPECT_TRUE(Has(msg, "assets/no_such_mesh_file.obj")) << "then in the assets directory: " << msg;
}

TEST(SceneErrors, HalfSpaceOnDynamicBody) {
  const std::string msg = ErrorOf(R"(bodies:
  - name: floor
    mass: 1
    inertia: [1, 1, 1]
    geoms: [{shape: half_space}]
)");
  EXPECT_TRUE(Has(msg,
                  "dir/test.yaml:5: bodies.floor.geoms.0.shape: a half_space has infinite "
                  "mass"))
      << msg;
}

TEST(SceneErrors, FreeJointWithParentIsRejected) {
  const std::string msg = ErrorOf(R"(bodies:
  - {name: a, mass: 1, inertia: [1, 1, 1]}
  - name: b
    mass: 1
    inertia: [1, 1, 1]
    joint: {type: free, parent: a}
)");
  EXPECT_TRUE(Has(msg,
                  "dir/test.yaml:6: bodies.b.joint.parent: unknown key 'parent' for a free "
                  "joint"))
      << msg;
}

TEST(SceneErrors, JointCycle) {
  const std::string msg = ErrorOf(R"(bodies:
  - {name: a, mass: 1, inertia: [1, 1, 1], joint: {type: revolute, parent: b}}
  - {name: b, mass: 1, inertia: [1, 1, 1], joint: {type: revolute, parent: a}}
)");
  EXPECT_TRUE(Has(msg, "joint parents form a cycle")) << msg;
  EXPECT_TRUE(Has(msg, "dir/test.yaml:")) << msg;
}

TEST(SceneErrors, StaticBodyWithMass) {
  const std::string msg = ErrorOf("bodies:\n  - {name: a, static: true,\n     mass: 1}\n");
  EXPECT_TRUE(Has(msg, "dir/test.yaml:3: bodies.a.mass: not allowed: static bodies")) << msg;
}

TEST(SceneErrors, JointPositionOutsideLimits) {
  const std::string msg = ErrorOf(R"(bodies:
  - name: arm
    mass: 1
    inertia: [1, 1, 1]
    joint: {type: revolute, limits: [-1, 1]}
    joint_position: 2
)");
  EXPECT_TRUE(Has(msg,
                  "dir/test.yaml:6: bodies.arm.joint_position: value 2 is outside the joint "
                  "limits [-1, 1]"))
      << msg;
}

TEST(SceneErrors, RotationNeedsExactlyOneForm) {
  const std::string msg = ErrorOf(R"(bodies:
  - name: a
    static: true
    rotation: {rpy_deg: [0, 0, 0], quat: [1, 0, 0, 0]}
)");
  EXPECT_TRUE(Has(msg, "dir/test.yaml:4: bodies.a.rotation: expected exactly one of axis_angle"))
      << msg;
}

TEST(SceneErrors, BadSetPathNamesTheOverrideAndAllowedKeys) {
  const std::string msg = ErrorOf(kBase, {"solver.sigmaa=1"});
  EXPECT_TRUE(Has(msg,
                  "dir/test.yaml: --set solver.sigmaa=1: solver.sigmaa: unknown key "
                  "'sigmaa'"))
      << msg;
  EXPECT_TRUE(Has(msg, "(allowed: type, sigma, beta")) << msg;
}

TEST(SceneErrors, BadSetPathUnknownItemName) {
  const std::string msg = ErrorOf(kBase, {"bodies.crate.mass=2"});
  EXPECT_TRUE(Has(msg,
                  "dir/test.yaml: --set bodies.crate.mass=2: bodies.crate.mass: no item "
                  "'crate' in 'bodies' (items: ground, box)"))
      << msg;
}

TEST(SceneErrors, BadSetPathThroughAScalar) {
  const std::string msg = ErrorOf(kBase, {"time_step.value=1"});
  EXPECT_TRUE(Has(msg,
                  "--set time_step.value=1: time_step.value: 'time_step' is '0.01', not a "
                  "map or list"))
      << msg;
}

TEST(SceneErrors, BadSetSyntax) {
  const std::string msg = ErrorOf(kBase, {"time_step"});
  EXPECT_TRUE(Has(msg, "dir/test.yaml: --set time_step: expected KEY=VALUE")) << msg;
}

TEST(SceneErrors, BadSetValueUnparsable) {
  const std::string msg = ErrorOf(kBase, {"gravity=[0, 0"});
  EXPECT_TRUE(Has(msg, "--set gravity=[0, 0: gravity: cannot parse value '[0, 0' as YAML")) << msg;
}

TEST(SceneErrors, BadSetValueWrongType) {
  const std::string msg = ErrorOf(kBase, {"bodies.box.mass=heavy"});
  EXPECT_TRUE(Has(msg,
                  "dir/test.yaml: --set bodies.box.mass=heavy: bodies.box.mass: expected a "
                  "number, got 'heavy'"))
      << msg;
}

TEST(SceneErrors, BadSetValueOutOfRange) {
  const std::string msg = ErrorOf(kBase, {"solver.sigma=2"});
  EXPECT_TRUE(Has(msg,
                  "dir/test.yaml: --set solver.sigma=2: solver.sigma: value 2 is out of "
                  "range (valid range (0, 1])"))
      << msg;
}

TEST(SceneErrors, BadSetValueElementOfList) {
  const std::string msg = ErrorOf(kBase, {"gravity=[0, 0, down]"});
  EXPECT_TRUE(Has(msg, "--set gravity=[0, 0, down]: gravity.2: expected a number, got 'down'"))
      << msg;
}

// Malformed documents of many shapes: always a SceneError, never another exception or a crash.
TEST(SceneErrors, MalformedDocumentsNeverCrash) {
  const std::vector<std::string> docs = {
      "",
      "[1, 2, 3]",
      "just a string",
      "bodies: 5",
      "bodies: [5]",
      "bodies: [{name: [1]}]",
      "bodies: [{name: a, geoms: 3}]",
      "bodies: [{name: a, static: true, geoms: [{shape: box}]}]",
      "bodies: [{name: a, static: true, geoms: [{shape: box, size: [1, 1]}]}]",
      "bodies: [{name: a, static: maybe}]",
      "bodies: [{name: a, mass: 1, inertia: [[1, 0], [0, 1]]}]",
      "bodies: [{name: a, mass: 1, inertia: [1, 1, 5]}]",
      "bodies: [{name: a, mass: 1, inertia: [[1, 2, 0], [2, 1, 0], [0, 0, 1]]}]",
      "bodies: [{name: a, mass: 1, inertia: [1, 1, 1], joint: {type: revolute, axis: [0, 0, 0]}}]",
      "bodies: [{name: a, mass: 1, inertia: [1, 1, 1], joint: 7}]",
      "bodies: [{name: a, mass: 1, inertia: [1, 1, 1], joint: {type: revolute, limits: [1, 0]}}]",
      "bodies: [{name: a, mass: 1, inertia: [1, 1, 1], joint: {type: revolute, actuator: "
      "{setpoint: {square: {low: 0, high: 1}}}}}]",
      "bodies: [{name: a, mass: 1, inertia: [1, 1, 1], joint: {type: revolute, actuator: "
      "{setpoint: {piecewise_linear: [[1, 0], [0, 1]]}}}}]",
      "bodies: [{name: a, density: 1000}]",
      "bodies: [{name: a, mass: 1}]",
      "bodies: [{name: a, mass: 1, density: 1, geoms: [{shape: sphere, radius: 1}]}]",
      "bodies: [{name: a.b, static: true}]",
      "bodies: [{name: '', static: true}]",
      "bodies: [{name: a, prescribed: {oscillation: {axis: [0, 0, 0], amplitude: 1, "
      "frequency: 1}}}]",
      "materials: {steel: 1}",
      "materials: [{name: steel, stiffness: 0}]",
      "pairs: [{materials: [default]}]",
      "pairs: [{materials: [default, default]}, {materials: [default, default]}]",
      "solver: []",
      "solver: {line_search: golden}",
      "camera: {elevation: 95}",
      "generators: [{grid: 3}]",
      "generators: [{ring: {}}]",
      "generators: [{grid: {name: g, templates: [], count: [1, 1, 1], spacing: [0, 0, 0]}}]",
      "templates: [{name: t}, {name: t}]",
      "gravity: [0, 0, .nan]",
      "time_step: .inf",
      "duration: -1",
      "description: [1]",
      "{a: 1}: 2",
      "? [1, 2]\n: 3",
  };
  for (const std::string& doc : docs) {
    try {
      Parse(doc);
      ADD_FAILURE() << "accepted a malformed scene:\n" << doc;
    } catch (const SceneError& e) {
      EXPECT_TRUE(Has(e.what(), "dir/test.yaml")) << "the message names the file: " << e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << "not a SceneError (" << e.what() << ") for:\n" << doc;
    }
  }
}

// Every prefix of a valid scene either parses or gives a SceneError.
TEST(SceneErrors, TruncatedDocumentsNeverCrash) {
  const std::string full = kBase;
  for (size_t n = 0; n <= full.size(); ++n) {
    try {
      Parse(full.substr(0, n));
    } catch (const SceneError&) {
      // Expected for most prefixes.
    } catch (const std::exception& e) {
      ADD_FAILURE() << "not a SceneError (" << e.what() << ") at prefix " << n;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Good input.

TEST(SceneMapping, SettingsAndCamera) {
  const Scene s = Parse(R"(description: "Box on a ramp"
time_step: 0.005
duration: 2.5
gravity: [0, 0, -1.62]
integrator: implicit_euler
contact_margin: 0.002
solver: {type: sap, sigma: 1e-4, beta: 0.5, rel_tolerance: 1e-8, max_iterations: 50,
         line_search: backtracking, linear_solver: block_sparse}
free_motion: {max_iterations: 7, tolerance: 1e-10}
camera: {target: [1, 2, 3], distance: 4, azimuth: 45, elevation: -10}
)");
  EXPECT_EQ(s.description, "Box on a ramp");
  EXPECT_EQ(s.path, kFile);
  EXPECT_DOUBLE_EQ(s.settings.time_step, 0.005);
  EXPECT_DOUBLE_EQ(s.duration, 2.5);
  EXPECT_TRUE(s.settings.gravity.isApprox(Vec3(0, 0, -1.62))) << s.settings.gravity.transpose();
  EXPECT_EQ(s.settings.integrator, Integrator::kImplicitEuler);
  EXPECT_DOUBLE_EQ(s.settings.contact_margin, 0.002);
  EXPECT_DOUBLE_EQ(s.settings.sap.sigma, 1e-4);
  EXPECT_DOUBLE_EQ(s.settings.sap.beta, 0.5);
  EXPECT_DOUBLE_EQ(s.settings.sap.rel_tolerance, 1e-8);
  EXPECT_EQ(s.settings.sap.max_iterations, 50);
  EXPECT_EQ(s.settings.sap.line_search, SapParameters::LineSearch::kBacktracking);
  EXPECT_EQ(s.settings.sap.linear_solver, SapParameters::LinearSolver::kBlockSparse);
  EXPECT_EQ(s.settings.free_motion_max_iterations, 7);
  EXPECT_DOUBLE_EQ(s.settings.free_motion_tolerance, 1e-10);
  EXPECT_TRUE(s.camera.target.isApprox(Vec3(1, 2, 3)));
  EXPECT_DOUBLE_EQ(s.camera.distance, 4);
  EXPECT_DOUBLE_EQ(s.camera.azimuth, 45);
  EXPECT_DOUBLE_EQ(s.camera.elevation, -10);
}

TEST(SceneMapping, DefaultsWhenKeysAreAbsent) {
  const Scene s = Parse("description: empty\n");
  const StepSettings defaults;
  EXPECT_DOUBLE_EQ(s.settings.time_step, defaults.time_step);
  EXPECT_DOUBLE_EQ(s.settings.sap.sigma, defaults.sap.sigma);
  EXPECT_DOUBLE_EQ(s.duration, 1.0);
  ASSERT_EQ(s.model.materials.size(), 1u) << "only the built-in default material";
  EXPECT_EQ(s.model.materials[0].name, "default");
  EXPECT_TRUE(s.model.bodies.empty());
}

TEST(SceneMapping, MaterialsAndGeomMaterialIndices) {
  const Scene s = Parse(kBase);
  ASSERT_EQ(s.model.materials.size(), 3u) << "default + steel + rubber";
  EXPECT_EQ(s.model.materials[1].name, "steel");
  EXPECT_DOUBLE_EQ(s.model.materials[1].stiffness, 1e8);
  EXPECT_DOUBLE_EQ(s.model.materials[2].friction, 1.0);
  ASSERT_EQ(s.model.geoms.size(), 2u);
  EXPECT_EQ(s.model.geoms[0].material, 1) << "ground uses steel";
  EXPECT_EQ(s.model.geoms[1].material, 2) << "box uses rubber";
  EXPECT_EQ(s.model.geoms[0].shape.type, ShapeType::kHalfSpace);
  EXPECT_EQ(s.model.geoms[0].body, 0);
  EXPECT_EQ(s.model.geoms[1].body, 1);
}

TEST(SceneMapping, StaticAndFreeBodies) {
  const Scene s = Parse(kBase + std::string("  - {name: marker}\n"));
  ASSERT_EQ(s.model.bodies.size(), 3u);
  EXPECT_EQ(s.model.bodies[0].joint, -1) << "static: true has no joint";
  EXPECT_EQ(s.model.bodies[2].joint, -1) << "no joint and no mass means static";
  ASSERT_EQ(s.model.joints.size(), 1u) << "only the box gets a (default free) joint";
  EXPECT_EQ(s.model.bodies[1].joint, 0);
  EXPECT_EQ(s.model.joints[0].type, JointType::kFree);
  EXPECT_EQ(s.model.joints[0].child, 1);
  EXPECT_EQ(s.model.joints[0].parent, -1);
  EXPECT_TRUE(s.model.bodies[1].pose0.p.isApprox(Vec3(0, 0, 0.1)));
}

TEST(SceneMapping, BoxMassAndInertiaFromDensity) {
  const Scene s = Parse(R"(bodies:
  - name: brick
    density: 1000
    geoms: [{shape: box, size: [0.1, 0.2, 0.4]}]
)");
  const Body& b = s.model.bodies.at(0);
  const double m = 1000 * 0.1 * 0.2 * 0.4;
  EXPECT_NEAR(b.mass, m, 1e-12);
  EXPECT_NEAR(b.inertia(0, 0), m / 12 * (0.04 + 0.16), 1e-12);
  EXPECT_NEAR(b.inertia(1, 1), m / 12 * (0.01 + 0.16), 1e-12);
  EXPECT_NEAR(b.inertia(2, 2), m / 12 * (0.01 + 0.04), 1e-12);
  EXPECT_NEAR(b.inertia(0, 1), 0, 1e-15);
  EXPECT_TRUE(b.com.isZero(1e-15));
  EXPECT_TRUE(s.model.geoms[0].shape.half_extents.isApprox(Vec3(0.05, 0.1, 0.2)))
      << "size is the full extent";
}

TEST(SceneMapping, InertiaFromMassOfSphereAndOffsetGeoms) {
  const Scene s = Parse(R"(bodies:
  - name: ball
    mass: 2
    geoms: [{shape: sphere, radius: 0.5}]
  - name: dumbbell
    mass: 2
    geoms:
      - {shape: sphere, radius: 0.1, position: [-0.5, 0, 0]}
      - {shape: sphere, radius: 0.1, position: [1.5, 0, 0]}
)");
  EXPECT_NEAR(s.model.bodies[0].inertia(0, 0), 0.4 * 2 * 0.25, 1e-12) << "2/5 m r^2";
  const Body& d = s.model.bodies[1];
  EXPECT_TRUE(d.com.isApprox(Vec3(0.5, 0, 0))) << "centroid of equal spheres: " << d.com;
  // Each sphere: 2/5 (1)(0.01) about its center plus 1 * 1^2 about y and z through the COM.
  EXPECT_NEAR(d.inertia(0, 0), 2 * 0.4 * 0.01, 1e-12);
  EXPECT_NEAR(d.inertia(1, 1), 2 * (0.4 * 0.01 + 1.0), 1e-12);
  EXPECT_NEAR(d.inertia(2, 2), 2 * (0.4 * 0.01 + 1.0), 1e-12);
}

TEST(SceneMapping, CylinderAndCapsuleVolumes) {
  const Scene s = Parse(R"(bodies:
  - name: can
    density: 1
    geoms: [{shape: cylinder, radius: 0.5, length: 2}]
  - name: pill
    density: 1
    geoms: [{shape: capsule, radius: 0.5, length: 2}]
)");
  EXPECT_NEAR(s.model.bodies[0].mass, kPi * 0.25 * 2, 1e-12);
  EXPECT_NEAR(s.model.bodies[0].inertia(2, 2), kPi * 0.25 * 2 * 0.25 / 2, 1e-12) << "m r^2 / 2";
  EXPECT_NEAR(s.model.bodies[1].mass, kPi * 0.25 * 2 + 4.0 / 3 * kPi * 0.125, 1e-12);
  EXPECT_DOUBLE_EQ(s.model.geoms[1].shape.half_length, 1.0) << "length is the full axis segment";
  // The capsule is longer than the cylinder along z, so its x moment per unit mass is larger.
  EXPECT_GT(s.model.bodies[1].inertia(0, 0) / s.model.bodies[1].mass,
            s.model.bodies[0].inertia(0, 0) / s.model.bodies[0].mass);
}

TEST(SceneMapping, ExplicitInertiaForms) {
  const Scene s = Parse(R"(bodies:
  - {name: a, mass: 3, inertia: [1, 2, 2.5]}
  - {name: b, mass: 3, inertia: [[2, 0.1, 0], [0.1, 2, 0], [0, 0, 3]], com: [0, 0, 0.1]}
)");
  EXPECT_TRUE(s.model.bodies[0].inertia.diagonal().isApprox(Vec3(1, 2, 2.5)));
  EXPECT_DOUBLE_EQ(s.model.bodies[1].inertia(0, 1), 0.1);
  EXPECT_TRUE(s.model.bodies[1].com.isApprox(Vec3(0, 0, 0.1)));
}

TEST(SceneMapping, RotationFormsAgree) {
  const Scene s = Parse(R"(bodies:
  - {name: a, rotation: {axis_angle: [0, 2, 0, 90]}}
  - {name: b, rotation: {rpy_deg: [0, 90, 0]}}
  - {name: c, rotation: {quat: [0.7071067811865476, 0, 0.7071067811865476, 0]}}
  - {name: d, rotation: {quat: [2, 0, 2, 0]}}
)");
  const Quat qa = s.model.bodies[0].pose0.q;
  for (int i = 1; i < 4; ++i) {
    EXPECT_LT(qa.angularDistance(s.model.bodies[i].pose0.q), 1e-12) << "body " << i;
  }
  EXPECT_TRUE((qa * Vec3::UnitX()).isApprox(-Vec3::UnitZ(), 1e-12)) << "+90 deg about y";
}

TEST(SceneMapping, RpyIsExtrinsicXYZ) {
  const Scene s = Parse("bodies:\n  - {name: a, rotation: {rpy_deg: [90, 0, 90]}}\n");
  const Quat q = s.model.bodies[0].pose0.q;
  // Rz(90) Rx(90): y -> z (by Rx), then z stays z.
  EXPECT_TRUE((q * Vec3::UnitY()).isApprox(Vec3::UnitZ(), 1e-12)) << (q * Vec3::UnitY());
  EXPECT_TRUE((q * Vec3::UnitX()).isApprox(Vec3::UnitY(), 1e-12)) << (q * Vec3::UnitX());
}

TEST(SceneMapping, RevoluteJointFromBodyPose) {
  const Scene s = Parse(R"(bodies:
  - name: base
    mass: 1
    inertia: [1, 1, 1]
    position: [0, 0, 1]
  - name: arm
    mass: 1
    inertia: [1, 1, 1]
    position: [0.5, 0, 1]
    rotation: {axis_angle: [0, 0, 1, 90]}
    joint:
      type: revolute
      parent: base
      axis: [0, 3, 0]
      child_frame: {position: [-0.5, 0, 0]}
      spring: {stiffness: 10, reference: 0.2}
      damping: 0.5
      limits: [-1, 2]
      actuator: {kp: 100, kd: 5, setpoint: 0.3, effort_limit: 20}
)");
  ASSERT_EQ(s.model.joints.size(), 2u);
  const Joint& j = s.model.joints[1];
  EXPECT_EQ(j.type, JointType::kRevolute);
  EXPECT_EQ(j.parent, 0);
  EXPECT_EQ(j.child, 1);
  EXPECT_TRUE(j.axis.isApprox(Vec3::UnitY())) << "axis is normalized: " << j.axis.transpose();
  EXPECT_TRUE(j.child_from_joint.p.isApprox(Vec3(-0.5, 0, 0)));
  // X_PJ = X_WP^-1 X_WB X_CJ so that q = 0 reproduces the stated world pose.
  const Pose X_WP = s.model.bodies[0].pose0;
  const Pose X_WB = X_WP * j.parent_from_joint * j.child_from_joint.Inverse();
  EXPECT_TRUE(X_WB.p.isApprox(Vec3(0.5, 0, 1), 1e-12)) << X_WB.p.transpose();
  EXPECT_LT(X_WB.q.angularDistance(s.model.bodies[1].pose0.q), 1e-12);
  EXPECT_DOUBLE_EQ(j.spring_stiffness, 10);
  EXPECT_DOUBLE_EQ(j.spring_reference, 0.2);
  EXPECT_DOUBLE_EQ(j.damping, 0.5);
  EXPECT_TRUE(j.limited);
  EXPECT_DOUBLE_EQ(j.lower, -1);
  EXPECT_DOUBLE_EQ(j.upper, 2);
  EXPECT_TRUE(j.actuator.enabled);
  EXPECT_DOUBLE_EQ(j.actuator.kp, 100);
  EXPECT_DOUBLE_EQ(j.actuator.kd, 5);
  EXPECT_EQ(j.actuator.setpoint.kind, Signal::Kind::kConstant);
  EXPECT_DOUBLE_EQ(j.actuator.setpoint.value, 0.3);
  EXPECT_DOUBLE_EQ(j.actuator.effort_limit, 20);
}

TEST(SceneMapping, JointWithExplicitFramesDefinesPose) {
  const Scene s = Parse(R"(bodies:
  - name: slider
    mass: 1
    inertia: [1, 1, 1]
    joint:
      type: prismatic
      axis: [1, 0, 0]
      parent_frame: {position: [0, 0, 0.2], rotation: {rpy_deg: [0, 0, 90]}}
      child_frame: {position: [0.1, 0, 0]}
)");
  const Joint& j = s.model.joints.at(0);
  EXPECT_EQ(j.type, JointType::kPrismatic);
  EXPECT_EQ(j.parent, -1);
  EXPECT_TRUE(j.parent_from_joint.p.isApprox(Vec3(0, 0, 0.2)));
  // pose0 = X_PJ X_CJ^-1: the child origin is 0.1 behind the joint along the rotated x (= +y).
  EXPECT_TRUE(s.model.bodies[0].pose0.p.isApprox(Vec3(0, -0.1, 0.2), 1e-12))
      << s.model.bodies[0].pose0.p.transpose();
}

TEST(SceneMapping, StaticParentIsFoldedIntoTheWorld) {
  const Scene s = Parse(R"(bodies:
  - {name: post, static: true, position: [1, 0, 0]}
  - name: door
    mass: 1
    inertia: [1, 1, 1]
    position: [1, 0.5, 0]
    joint: {type: revolute, parent: post}
)");
  const Joint& j = s.model.joints.at(0);
  EXPECT_EQ(j.parent, -1) << "a static parent is part of the world";
  EXPECT_TRUE(j.parent_from_joint.p.isApprox(Vec3(1, 0.5, 0))) << "frame now in world";
}

TEST(SceneMapping, ActuatorSignals) {
  const Scene s = Parse(R"(bodies:
  - name: a
    mass: 1
    inertia: [1, 1, 1]
    joint: {type: revolute, actuator: {kp: 1, setpoint: {piecewise_linear: [[0, 0], [1, 2]]}}}
  - name: b
    mass: 1
    inertia: [1, 1, 1]
    joint: {type: revolute, actuator: {kp: 1, setpoint: {square: {low: -1, high: 1, period: 2,
                                                                   duty: 0.25}}}}
  - name: c
    mass: 1
    inertia: [1, 1, 1]
    joint: {type: prismatic, actuator: {kp: 1, setpoint: {sine: {amplitude: 0.1, frequency: 2,
                                                                  offset: 0.3, phase: 1}}}}
)");
  const Signal& pl = s.model.joints[0].actuator.setpoint;
  EXPECT_EQ(pl.kind, Signal::Kind::kPiecewiseLinear);
  ASSERT_EQ(pl.points.size(), 2u);
  EXPECT_DOUBLE_EQ(pl.points[1].first, 1);
  EXPECT_DOUBLE_EQ(pl.points[1].second, 2);
  const Signal& sq = s.model.joints[1].actuator.setpoint;
  EXPECT_EQ(sq.kind, Signal::Kind::kSquare);
  EXPECT_DOUBLE_EQ(sq.low, -1);
  EXPECT_DOUBLE_EQ(sq.period, 2);
  EXPECT_DOUBLE_EQ(sq.duty, 0.25);
  const Signal& sn = s.model.joints[2].actuator.setpoint;
  EXPECT_EQ(sn.kind, Signal::Kind::kSine);
  EXPECT_DOUBLE_EQ(sn.amplitude, 0.1);
  EXPECT_DOUBLE_EQ(sn.frequency, 2);
  EXPECT_DOUBLE_EQ(sn.offset, 0.3);
  EXPECT_DOUBLE_EQ(sn.phase, 1);
  EXPECT_TRUE(std::isinf(s.model.joints[0].actuator.effort_limit)) << "unlimited by default";
}

TEST(SceneMapping, PrescribedBody) {
  const Scene s = Parse(R"(bodies:
  - name: belt
    position: [0, 0, -0.05]
    prescribed:
      surface_velocity: [0.5, 0, 0]
      oscillation: {axis: [0, 0, 2], amplitude: 0.01, frequency: 3}
    geoms: [{shape: box, size: [2, 0.5, 0.1]}]
)");
  const Body& b = s.model.bodies.at(0);
  EXPECT_TRUE(b.prescribed);
  EXPECT_EQ(b.joint, -1);
  EXPECT_TRUE(b.motion.surface_velocity.isApprox(Vec3(0.5, 0, 0)));
  EXPECT_TRUE(b.motion.oscillation_axis.isApprox(Vec3::UnitZ())) << "normalized";
  EXPECT_DOUBLE_EQ(b.motion.amplitude, 0.01);
  EXPECT_DOUBLE_EQ(b.motion.frequency, 3);
  EXPECT_TRUE(s.model.joints.empty());
}

TEST(SceneMapping, GeomDetails) {
  const Scene s = Parse(R"(bodies:
  - name: a
    static: true
    geoms:
      - {name: top, shape: box, half_extents: [1, 2, 3], position: [0, 0, 1],
         color: [1, 0, 0], collide: false}
      - {shape: sphere, radius: 0.2, color: [0, 1, 0, 0.5]}
)");
  const Geom& g0 = s.model.geoms.at(0);
  EXPECT_EQ(g0.name, "top");
  EXPECT_TRUE(g0.shape.half_extents.isApprox(Vec3(1, 2, 3)));
  EXPECT_TRUE(g0.local.p.isApprox(Vec3(0, 0, 1)));
  EXPECT_TRUE(g0.color.isApprox(Vec4(1, 0, 0, 1))) << "alpha defaults to 1";
  EXPECT_FALSE(g0.collide);
  EXPECT_EQ(s.model.geoms.at(1).name, "a/1") << "default geom name is BODY/INDEX";
  EXPECT_DOUBLE_EQ(s.model.geoms.at(1).color[3], 0.5);
}

TEST(SceneMapping, PairOverridesFillUnsetValuesFromCombinationRules) {
  const Scene s = Parse(kBase + std::string("pairs:\n  - {materials: [steel, rubber], "
                                            "friction: 0.9}\n"));
  ASSERT_EQ(s.model.pair_overrides.size(), 1u);
  const PairOverride& p = s.model.pair_overrides[0];
  EXPECT_EQ(p.material_a, 1);
  EXPECT_EQ(p.material_b, 2);
  EXPECT_DOUBLE_EQ(p.values.friction, 0.9);
  EXPECT_NEAR(p.values.stiffness, 1e8 * 1e6 / (1e8 + 1e6), 1e-6) << "springs in series";
  EXPECT_NEAR(p.values.dissipation_time, (0.01 * 1e6 + 0.02 * 1e8) / (1e8 + 1e6), 1e-15);
}

TEST(SceneMapping, DefaultMaterialCanBeRedefined) {
  const Scene s = Parse("materials: [{name: default, friction: 0.2}]\n");
  ASSERT_EQ(s.model.materials.size(), 1u);
  EXPECT_DOUBLE_EQ(s.model.materials[0].friction, 0.2);
}

const char kGrid[] = R"(templates:
  - {name: ball, mass: 0.1, geoms: [{shape: sphere, radius: 0.05}]}
  - name: brick
    density: 500
    position: [0, 0, 0.01]
    geoms: [{shape: box, size: [0.1, 0.1, 0.05]}]
generators:
  - grid:
      name: clutter
      templates: [ball, brick]
      count: [2, 2, 3]
      spacing: [0.2, 0.3, 0.12]
      origin: [1, 0, 0.5]
)";

TEST(SceneMapping, GridGeneratorCountNamesAndPositions) {
  const Scene s = Parse(kGrid);
  ASSERT_EQ(s.model.bodies.size(), 12u) << "2 x 2 x 3";
  ASSERT_EQ(s.model.joints.size(), 12u) << "each generated body is free";
  ASSERT_EQ(s.model.geoms.size(), 12u);
  int index = 0;
  for (int iz = 0; iz < 3; ++iz) {
    for (int iy = 0; iy < 2; ++iy) {
      for (int ix = 0; ix < 2; ++ix, ++index) {
        const Body& b = s.model.bodies[index];
        EXPECT_EQ(b.name, "clutter_" + std::to_string(index));
        const bool brick = index % 2 == 1;
        const Vec3 expected = Vec3(1 + 0.2 * ix, 0.3 * iy, 0.5 + 0.12 * iz) +
                              (brick ? Vec3(0, 0, 0.01) : Vec3::Zero());
        EXPECT_TRUE(b.pose0.p.isApprox(expected, 1e-12))
            << b.name << ": " << b.pose0.p.transpose() << " vs " << expected.transpose();
        EXPECT_EQ(s.model.geoms[index].shape.type, brick ? ShapeType::kBox : ShapeType::kSphere)
            << "templates alternate";
      }
    }
  }
  EXPECT_NEAR(s.model.bodies[1].mass, 500 * 0.1 * 0.1 * 0.05, 1e-12);
}

TEST(SceneMapping, GridJitterIsDeterministicAndBounded) {
  const std::string jitter = "      jitter: {position: 0.01, rotation: 10, seed: ";
  const Scene a = Parse(kGrid + jitter + "7}\n");
  const Scene b = Parse(kGrid + jitter + "7}\n");
  const Scene c = Parse(kGrid + jitter + "8}\n");
  const Scene plain = Parse(kGrid);
  bool any_difference = false;
  for (size_t i = 0; i < a.model.bodies.size(); ++i) {
    EXPECT_EQ(a.model.bodies[i].pose0.p, b.model.bodies[i].pose0.p) << "same seed, same result";
    EXPECT_EQ(a.model.bodies[i].pose0.q.coeffs(), b.model.bodies[i].pose0.q.coeffs());
    const Vec3 d = a.model.bodies[i].pose0.p - plain.model.bodies[i].pose0.p;
    EXPECT_LE(d.cwiseAbs().maxCoeff(), 0.01) << "position jitter is within +-0.01 per axis";
    EXPECT_GT(d.norm(), 0) << "jitter moves every body";
    // Three rotations of at most 10 degrees each compose to less than 30 degrees.
    EXPECT_LT(a.model.bodies[i].pose0.q.angularDistance(Quat::Identity()), 30 * kPi / 180);
    any_difference |= (a.model.bodies[i].pose0.p - c.model.bodies[i].pose0.p).norm() > 0;
  }
  EXPECT_TRUE(any_difference) << "another seed gives other positions";
}

TEST(SceneMapping, BodyFromTemplateOverridesKeys) {
  const Scene s = Parse(R"(templates:
  - {name: ball, mass: 0.1, geoms: [{shape: sphere, radius: 0.05}]}
bodies:
  - {name: heavy, template: ball, mass: 5, position: [0, 0, 1]}
)");
  ASSERT_EQ(s.model.bodies.size(), 1u) << "templates alone create no bodies";
  EXPECT_DOUBLE_EQ(s.model.bodies[0].mass, 5) << "the body's own key wins";
  EXPECT_EQ(s.model.geoms.at(0).shape.type, ShapeType::kSphere) << "geoms come from the template";
}

TEST(SceneOverrides, ValuesReplaceAndAddKeys) {
  const Scene s =
      Parse(kBase, {"time_step=0.005", "solver.sigma=1e-4", "materials.steel.stiffness=1e9",
                    "bodies.box.mass=2", "gravity=[0,0,-1.62]", "bodies.1.position=[0, 0, 3]",
                    "integrator=midpoint"});
  EXPECT_DOUBLE_EQ(s.settings.time_step, 0.005);
  EXPECT_DOUBLE_EQ(s.settings.sap.sigma, 1e-4) << "solver section created by the override";
  EXPECT_DOUBLE_EQ(s.model.materials[1].stiffness, 1e9);
  EXPECT_DOUBLE_EQ(s.model.bodies[1].mass, 2);
  EXPECT_TRUE(s.settings.gravity.isApprox(Vec3(0, 0, -1.62)));
  EXPECT_TRUE(s.model.bodies[1].pose0.p.isApprox(Vec3(0, 0, 3))) << "index lookup";
  EXPECT_EQ(s.settings.integrator, Integrator::kMidpoint);
}

TEST(SceneOverrides, LaterOverridesWin) {
  const Scene s = Parse(kBase, {"time_step=0.5", "time_step=0.25"});
  EXPECT_DOUBLE_EQ(s.settings.time_step, 0.25);
}

TEST(SceneOverrides, GeneratorAddressedByName) {
  const Scene s = Parse(kGrid, {"generators.clutter.grid.count=[1, 1, 2]"});
  EXPECT_EQ(s.model.bodies.size(), 2u);
}

TEST(SceneMapping, MeshPathResolvedNextToSceneAndMassFromHull) {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("contactlab_scene_" + std::to_string(::getpid()));
  fs::create_directories(dir / "meshes");
  {
    std::ofstream obj(dir / "meshes" / "unit_cube.obj");
    obj << "v -0.5 -0.5 -0.5\nv 0.5 -0.5 -0.5\nv 0.5 0.5 -0.5\nv -0.5 0.5 -0.5\n"
           "v -0.5 -0.5 0.5\nv 0.5 -0.5 0.5\nv 0.5 0.5 0.5\nv -0.5 0.5 0.5\n"
           "f 1 3 2\nf 1 4 3\nf 5 6 7\nf 5 7 8\nf 1 2 6\nf 1 6 5\n"
           "f 2 3 7\nf 2 7 6\nf 3 4 8\nf 3 8 7\nf 4 1 5\nf 4 5 8\n";
  }
  const std::string text = R"(bodies:
  - name: slab
    density: 1000
    geoms: [{shape: mesh, file: meshes/unit_cube.obj, scale: [2, 1, 1]}]
)";
  Scene s;
  try {
    s = ParseScene(text, (dir / "scene.yaml").string(), Options());
  } catch (const SceneError& e) {
    fs::remove_all(dir);
    const std::string msg = e.what();
    ASSERT_TRUE(Has(msg, (dir / "meshes" / "unit_cube.obj").string()))
        << "the path is resolved against the scene's directory: " << msg;
    if (Has(msg, "mesh loading not built")) GTEST_SKIP() << "app/mesh_loader.cc not linked yet";
    FAIL() << msg;
  }
  fs::remove_all(dir);
  const Body& b = s.model.bodies.at(0);
  const double m = 1000 * 2.0;
  EXPECT_NEAR(b.mass, m, 1e-9) << "hull volume of the scaled cube is 2";
  EXPECT_NEAR(b.inertia(0, 0), m / 12 * (1 + 1), 1e-9);
  EXPECT_NEAR(b.inertia(1, 1), m / 12 * (4 + 1), 1e-9);
  EXPECT_NEAR(b.inertia(2, 2), m / 12 * (4 + 1), 1e-9);
  EXPECT_TRUE(b.com.isZero(1e-12)) << b.com.transpose();
  EXPECT_EQ(s.model.geoms.at(0).shape.type, ShapeType::kConvexMesh);
}

// ---------------------------------------------------------------------------------------------
// With Model::Finalize: initial conditions land in q_default / v_default.

TEST(SceneFinalize, InitialConditions) {
  SceneOptions o;
  Scene s;
  try {
    s = ParseScene(R"(bodies:
  - {name: ground, static: true, geoms: [{shape: half_space}]}
  - name: ball
    mass: 1
    position: [0, 0, 2]
    velocity: [1, 2, 3]
    angular_velocity: [4, 5, 6]
    geoms: [{shape: sphere, radius: 0.1}]
  - name: arm
    mass: 1
    inertia: [1, 1, 1]
    joint: {type: revolute, limits: [-1, 1]}
    joint_position: 0.5
    joint_velocity: -2
)",
                   kFile, o);
  } catch (const std::logic_error& e) {
    if (Has(e.what(), "not built")) GTEST_SKIP() << "Model::Finalize is not linked yet";
    throw;
  }
  const Joint& free = s.model.joints.at(0);
  const Joint& arm = s.model.joints.at(1);
  EXPECT_TRUE(s.model.v_default.segment<3>(free.v_start).isApprox(Vec3(1, 2, 3)));
  EXPECT_TRUE(s.model.v_default.segment<3>(free.v_start + 3).isApprox(Vec3(4, 5, 6)));
  EXPECT_TRUE(s.model.q_default.segment<3>(free.q_start).isApprox(Vec3(0, 0, 2)))
      << "free-body pose0 copied by Finalize";
  EXPECT_DOUBLE_EQ(s.model.q_default[arm.q_start], 0.5);
  EXPECT_DOUBLE_EQ(s.model.v_default[arm.v_start], -2);
}

// ---------------------------------------------------------------------------------------------
// Text that yaml-cpp would read silently wrong, or that costs unbounded time, memory or stack:
// refused with the file and line before yaml-cpp sees it.

// The SceneError message of ParseScene with Model::Finalize, or "" (with a test failure).
std::string FinalizeErrorOf(const std::string& text,
                            const std::vector<std::string>& overrides = {}) {
  SceneOptions o;
  o.overrides = overrides;
  try {
    ParseScene(text, kFile, o);
  } catch (const SceneError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a SceneError";
  return "";
}

TEST(SceneText, UnterminatedQuotedStringIsRefusedAtItsOpeningLine) {
  // yaml-cpp reads the string to the end of the text: the scene would run with its defaults.
  std::string msg = ErrorOf("time_step: 0.02\ndescription: \"a box\nduration: 3\n");
  EXPECT_TRUE(Has(msg,
                  "dir/test.yaml:2: yaml: unterminated quoted string (the closing \" is "
                  "missing)"))
      << msg;
  msg = ErrorOf("description: 'it''s a box\ntime_step: 0.02\n");
  EXPECT_TRUE(Has(msg, "dir/test.yaml:1: yaml: unterminated quoted string (the closing ' is"))
      << msg;
  // Closed strings, escapes, quotes inside plain scalars and in comments are fine.
  const Scene s = Parse(
      "description: \"say \\\"hi\\\"\" # it's\nbodies:\n  - {name: \"it's\", static: true}\n  - "
      "name: 'b''s'\n    static: true\n");
  EXPECT_EQ(s.description, "say \"hi\"");
  EXPECT_EQ(s.model.bodies.at(1).name, "b's");
}

TEST(SceneText, SecondDocumentIsRefused) {
  // yaml-cpp returns the first document and drops the rest.
  std::string msg = ErrorOf("time_step: 0.01\n---\ntime_step: 0.02\n");
  EXPECT_TRUE(Has(msg, "dir/test.yaml:2: yaml: a second YAML document starts here")) << msg;
  msg = ErrorOf("time_step: 0.01\n...\ntime_step: 0.02\n");
  EXPECT_TRUE(Has(msg, "dir/test.yaml:3: yaml: content after the document end marker")) << msg;
  // One document with its optional start and end markers is fine.
  const Scene s = Parse("---\ntime_step: 0.02 # ---\n...\n# end\n");
  EXPECT_DOUBLE_EQ(s.settings.time_step, 0.02);
}

TEST(SceneText, ControlBytesAndInvalidUtf8AreRefusedWithTheLine) {
  std::string nul = "time_step: 0.01\nduration: 1";
  nul += '\0';
  nul += "\n";
  std::string msg = ErrorOf(nul);
  EXPECT_TRUE(Has(msg, "dir/test.yaml:2: yaml: NUL byte")) << msg;
  msg = ErrorOf("time_step: 0.01\nbodies:\n  - {name: \"a\x01\", static: true}\n");
  EXPECT_TRUE(Has(msg, "dir/test.yaml:3: yaml: control character U+0001")) << msg;
  // yaml-cpp passes invalid UTF-8 into names, which then break JSON output.
  msg = ErrorOf("bodies:\n  - {name: \"box\xff\", static: true}\n");
  EXPECT_TRUE(Has(msg, "dir/test.yaml:2: yaml: invalid UTF-8 (byte 0xFF")) << msg;
  msg = ErrorOf("bodies:\n  - {name: \"\xc0\xaf\", static: true}\n");  // overlong '/'
  EXPECT_TRUE(Has(msg, "dir/test.yaml:2: yaml: invalid UTF-8")) << msg;
  // Valid UTF-8 and a leading byte-order mark are read as written.
  const Scene s = Parse(
      "\xEF\xBB\xBFtime_step: 0.02\nbodies:\n  - {name: \"w\xC3\xBCrfel\", "
      "static: true}\n");
  EXPECT_DOUBLE_EQ(s.settings.time_step, 0.02);
  EXPECT_EQ(s.model.bodies.at(0).name, "w\xC3\xBCrfel");
}

TEST(SceneText, TabIndentationIsRefused) {
  const std::string msg = ErrorOf("solver:\n\tsigma: 0.1\n");
  EXPECT_TRUE(Has(msg, "dir/test.yaml:2: yaml: tab in the indentation")) << msg;
  // A tab after a value's indicator is ordinary white space.
  EXPECT_DOUBLE_EQ(Parse("time_step:\t0.02\n").settings.time_step, 0.02);
}

TEST(SceneText, DeepNestingIsRefusedBeforeYamlCppRecurses) {
  // yaml-cpp's recursive parser stops near 500 levels with the message "bad file"; the scan
  // refuses at 64 levels with the line, for flow and block nesting and in --set values.
  std::string msg = ErrorOf("time_step: 0.01\ngravity: " + std::string(100000, '[') + "\n");
  EXPECT_TRUE(Has(msg, "dir/test.yaml:2: yaml: lists and maps nested deeper than 64 levels"))
      << msg;
  std::string braces;
  for (int i = 0; i < 100000; ++i) braces += "{a: ";
  msg = ErrorOf("camera: " + braces + "\n");
  EXPECT_TRUE(Has(msg, "dir/test.yaml:1: yaml: lists and maps nested deeper than 64")) << msg;
  std::string dashes;
  for (int i = 0; i < 100000; ++i) dashes += "- ";
  msg = ErrorOf("bodies:\n  " + dashes + "1\n");
  EXPECT_TRUE(Has(msg, "dir/test.yaml:2: yaml: lists and maps nested deeper than 64")) << msg;
  std::string block = "time_step: 0.01\n";
  for (int i = 0; i < 1000; ++i) block += std::string(i, ' ') + "k:\n";
  msg = ErrorOf(block);
  EXPECT_TRUE(Has(msg, "yaml: lists and maps nested deeper than 64")) << msg;
  msg = ErrorOf(kBase, {"solver.sigma=" + std::string(100000, '[')});
  EXPECT_TRUE(Has(msg, "dir/test.yaml: --set solver.sigma=[[[")) << msg;
  EXPECT_TRUE(Has(msg,
                  "solver.sigma: cannot parse the value as YAML (lists and maps nested "
                  "deeper than 64 levels)"))
      << msg;
}

// Text of an alias bomb: level k is a list of ten aliases of level k - 1, so the last of
// `levels` levels expands to 10^levels scalars.
std::string AliasBomb(int levels, const std::string& indent) {
  std::string s = indent + "- &l0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int k = 1; k < levels; ++k) {
    const std::string a = "*l" + std::to_string(k - 1);
    s += indent + "- &l" + std::to_string(k) + " [" + a;
    for (int i = 1; i < 10; ++i) s += ", " + a;
    s += "]\n";
  }
  return s;
}

TEST(SceneText, AliasBombsAreRefusedWithTheLineOfTheFirstAlias) {
  // 10^9 nodes once expanded; yaml-cpp itself shares the aliased node, so the text reads fast.
  std::string msg = ErrorOf("time_step: 0.01\nbomb:\n" + AliasBomb(9, "  "));
  EXPECT_TRUE(Has(msg,
                  "dir/test.yaml:4: yaml: the document's aliases (*name, the first here) "
                  "expand it to more than 10000000 nodes"))
      << msg;
  // In a --set value (3.4 GB before the check): at most 100000 nodes.
  std::string value = "[&l0 [x, x, x, x, x, x, x, x, x, x]";
  for (int k = 1; k < 9; ++k) {
    const std::string a = "*l" + std::to_string(k - 1);
    value += ", &l" + std::to_string(k) + " [" + a;
    for (int i = 1; i < 10; ++i) value += ", " + a;
    value += "]";
  }
  value += "]";
  msg = ErrorOf(kBase, {"solver.sigma=" + value});
  EXPECT_TRUE(Has(msg, "--set solver.sigma=")) << msg;
  EXPECT_TRUE(Has(msg, "the value's aliases expand it to more than 100000 nodes")) << msg;
  // Ordinary aliases are read as copies.
  const Scene s = Parse(R"(bodies:
  - {name: a, mass: 1, geoms: &ball [{shape: sphere, radius: 0.1}]}
  - {name: b, mass: 1, position: [1, 0, 0], geoms: *ball}
)");
  ASSERT_EQ(s.model.geoms.size(), 2u);
  EXPECT_EQ(s.model.geoms[1].body, 1);
  EXPECT_DOUBLE_EQ(s.model.geoms[1].shape.radius, 0.1);
}

TEST(SceneText, OverridePathDepthIsBounded) {
  // Every missing segment of a --set path creates a map (and registered a copy of the text).
  std::string key = "solver";
  for (int i = 0; i < 100000; ++i) key += ".x";
  const std::string msg = ErrorOf(kBase, {key + "=1"});
  EXPECT_TRUE(Has(msg, "the path has 100001 segments (at most 64)")) << msg.substr(0, 300);
}

TEST(SceneText, NonFiniteAndHugeNumbersAreRefusedWhereAFiniteValueIsNeeded) {
  std::string msg = ErrorOf("time_step: .nan\n");
  EXPECT_TRUE(Has(msg, "dir/test.yaml:1: time_step: expected a number, got nan")) << msg;
  msg = ErrorOf("gravity: [0, 0, -.inf]\n");
  EXPECT_TRUE(Has(msg, "dir/test.yaml:1: gravity.2: value -inf is out of range")) << msg;
  // Where the range allows infinity it is read as such: a one-sided joint limit.
  const Scene one_sided = Parse(R"(bodies:
  - name: arm
    mass: 1
    inertia: [1, 1, 1]
    joint: {type: revolute, limits: [0, .inf]}
)");
  EXPECT_EQ(one_sided.model.joints.at(0).lower, 0.0);
  EXPECT_EQ(one_sided.model.joints.at(0).upper, HUGE_VAL);
  msg = ErrorOf("bodies:\n  - {name: a, mass: 1, inertia: [1, 1, 1], joint: {type: revolute, "
                "limits: [.nan, 1]}}\n");
  EXPECT_TRUE(Has(msg, "dir/test.yaml:2: bodies.a.joint.limits.0: expected a number, got nan"))
      << msg;
  msg = ErrorOf(R"(templates: [{name: t, static: true}]
generators:
  - grid: {name: g, templates: [t], count: [123456789012345678901234567890, 1, 1], spacing: [1, 1, 1]}
)");
  EXPECT_TRUE(Has(msg,
                  "dir/test.yaml:3: generators.0.grid.count.0: value 1.23456789e+29 is out "
                  "of range (valid range [1, 100000])"))
      << msg;
  msg = ErrorOf("solver: {max_iterations: 1e300}\n");
  EXPECT_TRUE(Has(msg, "solver.max_iterations: value 1e+300 is out of range")) << msg;
  msg = ErrorOf("time_step: 0." + std::string(100000, '0') + "1\n");
  EXPECT_TRUE(Has(msg, "dir/test.yaml:1: time_step:")) << msg;
}

TEST(SceneNames, WorldIsAReservedBodyName) {
  // `parent: world` means the world frame, so a body called world could never be a parent.
  const std::string msg = ErrorOf(R"(bodies:
  - {name: base, static: true}
  - {name: world, mass: 1, inertia: [1, 1, 1]}
)");
  EXPECT_TRUE(Has(msg, "dir/test.yaml:3: bodies.world.name: 'world' is reserved")) << msg;
}

TEST(SceneOverrides, OverrideInsideAnAnchorChangesEveryAlias) {
  // Documented: an alias is the anchored node itself, not a copy.
  const Scene s = Parse(R"(bodies:
  - {name: a, mass: 1, geoms: &ball [{shape: sphere, radius: 0.1}]}
  - {name: b, mass: 1, position: [1, 0, 0], geoms: *ball}
)",
                        {"bodies.a.geoms.0.radius=0.2"});
  ASSERT_EQ(s.model.geoms.size(), 2u);
  EXPECT_DOUBLE_EQ(s.model.geoms[0].shape.radius, 0.2);
  EXPECT_DOUBLE_EQ(s.model.geoms[1].shape.radius, 0.2);
}

TEST(SceneOverrides, DefaultMaterialIsReachableWithoutAnItem) {
  // No materials list: materials.default.KEY adds {name: default} for the override to set.
  Scene s = Parse("bodies:\n  - {name: g, static: true, geoms: [{shape: half_space}]}\n",
                  {"materials.default.friction=0.3"});
  ASSERT_EQ(s.model.materials.size(), 1u);
  EXPECT_DOUBLE_EQ(s.model.materials[0].friction, 0.3);
  EXPECT_DOUBLE_EQ(s.model.materials[0].stiffness, Material{}.stiffness) << "others unchanged";
  // A list without a default item: the default material still changes, the others do not.
  s = Parse(kBase, {"materials.default.stiffness=2e7"});
  ASSERT_EQ(s.model.materials.size(), 3u);
  EXPECT_DOUBLE_EQ(s.model.materials[0].stiffness, 2e7);
  EXPECT_DOUBLE_EQ(s.model.materials[1].stiffness, 1e8);
  // Values are checked as in the file, and named as overrides.
  const std::string msg = ErrorOf(kBase, {"materials.default.friction=-1"});
  EXPECT_TRUE(Has(msg,
                  "dir/test.yaml: --set materials.default.friction=-1: "
                  "materials.default.friction: value -1 is out of range"))
      << msg;
}

TEST(SceneRunLength, DurationMustBeOneToMaxSteps) {
  // The scene's own duration, and a --set of it or of time_step, give 1 to 10^8 steps.
  std::string msg = FinalizeErrorOf("time_step: 0.01\nduration: 0.001\n");
  EXPECT_TRUE(Has(msg,
                  "dir/test.yaml:2: duration: duration 0.001 s with time_step 0.01 s: "
                  "shorter than one time step (valid range [0.01, 1000000] s"))
      << msg;
  msg = FinalizeErrorOf("time_step: 1e-6\nduration: 1e6\n");
  EXPECT_TRUE(Has(msg, "dir/test.yaml:2: duration:")) << msg;
  EXPECT_TRUE(Has(msg,
                  "that is 1e+12 steps (valid range [1e-06, 100] s: one to 100000000 "
                  "steps)"))
      << msg;
  msg = FinalizeErrorOf("time_step: 0.01\n", {"time_step=1e-300"});
  EXPECT_TRUE(Has(msg, "dir/test.yaml: --set time_step=1e-300: time_step:")) << msg;
  // A duration of exactly one step, and RunSteps for the command line.
  SceneOptions o;
  const Scene s = ParseScene("time_step: 0.01\nduration: 0.01\n", kFile, o);
  EXPECT_EQ(RunSteps(s, 0.01, "--duration 0.01"), 1);
  EXPECT_EQ(RunSteps(s, 2.004, "--duration 2.004"), 200);
  for (double bad : {1e308, 1e-300, std::nan(""), HUGE_VAL, -1.0}) {
    try {
      RunSteps(s, bad, "--duration X");
      ADD_FAILURE() << "accepted " << bad;
    } catch (const SceneError& e) {
      EXPECT_TRUE(Has(e.what(), "dir/test.yaml: --duration X: ")) << e.what();
      EXPECT_TRUE(Has(e.what(), "valid range [0.01, 1000000] s: one to 100000000 steps"))
          << e.what();
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Scale: no recursion proportional to the input, and linear-time checks.

// A chain of n revolute links listed tip first: link_k hangs from link_{k+1}, the last from the
// world; with `cycle` the last hangs from link_0 instead.
std::string Chain(int n, bool cycle) {
  std::string s = "time_step: 0.01\nbodies:\n";
  for (int k = 0; k < n; ++k) {
    const std::string parent =
        k + 1 < n ? "link_" + std::to_string(k + 1) : (cycle ? "link_0" : "world");
    s += "  - {name: link_" + std::to_string(k) +
         ", mass: 1, inertia: [1, 1, 1], position: [0, 0, " + std::to_string(-0.01 * k) +
         "], joint: {type: revolute, parent: " + parent + "}}\n";
  }
  return s;
}

TEST(SceneScale, LongChainListedTipFirstIsBuiltWithoutRecursion) {
  // 25 000 links: the recursive pose pass overflowed the stack here. The budget is raised so
  // that the dense per-tree memory check (6 · 25 000² doubles, 28 GiB) lets the model through.
  SceneOptions o;
  o.overrides = {"solver.memory_budget_mb=1e9"};
  const Scene s = ParseScene(Chain(25000, false), kFile, o);
  ASSERT_EQ(s.model.bodies.size(), 25000u);
  ASSERT_EQ(s.model.trees.size(), 1u) << "one chain from the world";
  EXPECT_EQ(s.model.trees[0].root_body, 24999);
  EXPECT_EQ(s.model.nv, 25000);
  // Each joint frame places the child at its given position relative to its parent (0.01 m up).
  const Joint& j = s.model.joints.at(0);
  EXPECT_EQ(j.parent, 1);
  EXPECT_NEAR(j.parent_from_joint.p.z(), 0.01, 1e-12);
}

TEST(SceneScale, TreeBeyondTheMemoryBudgetIsRefusedWithItsSize) {
  // The same chain with a 100 MiB budget: 6 · 25 000² · 8 bytes = 28 610 MiB of dense matrices.
  SceneOptions o;
  o.overrides = {"solver.memory_budget_mb=100"};
  try {
    ParseScene(Chain(25000, false), kFile, o);
    FAIL() << "accepted";
  } catch (const SceneError& e) {
    const std::string msg = e.what();
    EXPECT_TRUE(Has(msg, "dir/test.yaml: model: the dense per-tree matrices need 28610 MiB")) << msg;
    EXPECT_TRUE(Has(msg, "largest tree 25000 dofs")) << msg;
    EXPECT_TRUE(Has(msg, "memory budget of 100 MiB")) << msg;
  }
}

TEST(SceneScale, LongCycleIsRefusedWithItsLine) {
  // 40 000 links in a cycle: refused at the first body's parent, line 3.
  const std::string msg = ErrorOf(Chain(40000, true));
  EXPECT_TRUE(Has(msg,
                  "dir/test.yaml:3: bodies.link_0.joint.parent: the joint parents form a "
                  "cycle through body 'link_0'"))
      << msg;
}

TEST(SceneScale, HundredThousandGeneratedBodiesValidate) {
  // Duplicate-name checks and per-body geom lookups were quadratic (32 s); no timing is asserted,
  // this checks the result of the linear-time path.
  SceneOptions o;
  const Scene s = ParseScene(R"(templates:
  - {name: ball, mass: 0.1, geoms: [{shape: sphere, radius: 0.05}]}
generators:
  - grid: {name: g, templates: [ball], count: [100, 100, 10], spacing: [0.2, 0.2, 0.2]}
)",
                             kFile, o);
  ASSERT_EQ(s.model.bodies.size(), 100000u);
  ASSERT_EQ(s.model.geoms.size(), 100000u);
  EXPECT_EQ(s.model.trees.size(), 100000u);
  // Mass properties came from each body's own geom: a solid sphere, I = 2/5 m r².
  EXPECT_NEAR(s.model.bodies[99999].inertia(0, 0), 0.4 * 0.1 * 0.05 * 0.05, 1e-15);
}

// ---------------------------------------------------------------------------------------------
// Files: only regular files of at most 64 MiB are read.

class SceneFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("contactlab_scene_files_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string LoadError(const std::string& path) {
    try {
      LoadScene(path);
    } catch (const SceneError& e) {
      return e.what();
    }
    ADD_FAILURE() << "expected a SceneError for " << path;
    return "";
  }
  std::filesystem::path dir_;
};

TEST_F(SceneFiles, FifoIsRefusedWithoutWaitingForAWriter) {
  const std::string fifo = (dir_ / "scene.yaml").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string msg = LoadError(fifo);
  EXPECT_TRUE(Has(msg, fifo + ": the scene must be a regular file, this is a FIFO")) << msg;
}

TEST_F(SceneFiles, DevicesAndDirectoriesAreRefused) {
  std::string msg = LoadError("/dev/zero");
  EXPECT_TRUE(Has(msg, "/dev/zero: the scene must be a regular file, this is a character device"))
      << msg;
  msg = LoadError(dir_.string());
  EXPECT_TRUE(Has(msg, "this is a directory")) << msg;
}

TEST_F(SceneFiles, FilesOverTheBoundAreRefusedUnread) {
  const std::string big = (dir_ / "big.yaml").string();
  std::ofstream(big).put('\n');
  std::filesystem::resize_file(big, (size_t{64} << 20) + 1);  // sparse: nothing is written
  const std::string msg = LoadError(big);
  EXPECT_TRUE(Has(msg, big + ": the scene file is 67108865 bytes; at most 67108864 (64 MiB)"))
      << msg;
}

TEST_F(SceneFiles, RegularFileIsRead) {
  const std::string path = (dir_ / "ok.yaml").string();
  std::ofstream(path) << "time_step: 0.02\n";
  EXPECT_DOUBLE_EQ(LoadScene(path).settings.time_step, 0.02);
}

// Ball joints: type ball, the initial rotation and angular velocity, and the refused 1-dof keys.
TEST(SceneFinalize, BallJointCoordinatesAndInitialState) {
  const Scene s = ParseScene(R"(bodies:
  - {name: a, mass: 1, inertia: [0.01, 0.01, 0.01], position: [0, 0, 1]}
  - name: b
    mass: 1
    inertia: [0.01, 0.01, 0.01]
    position: [0, 0, 0.5]
    joint: {type: ball, parent: a, child_frame: {position: [0, 0, 0.5]}, damping: 0.1}
    joint_position: {axis_angle: [1, 0, 0, 90]}
    joint_velocity: [0, 0, 2]
)",
                             kFile, SceneOptions{});
  const Model& m = s.model;
  ASSERT_EQ(m.joints.size(), 2u);
  const Joint& j = m.joints[1];
  EXPECT_EQ(j.type, JointType::kBall);
  EXPECT_DOUBLE_EQ(j.damping, 0.1);
  ASSERT_EQ(m.nq, 11);
  ASSERT_EQ(m.nv, 9);
  const double c = std::sqrt(0.5);
  EXPECT_NEAR(m.q_default[j.q_start], c, 1e-15);
  EXPECT_NEAR(m.q_default[j.q_start + 1], c, 1e-15);
  EXPECT_NEAR(m.q_default[j.q_start + 2], 0.0, 1e-15);
  EXPECT_NEAR(m.q_default[j.q_start + 3], 0.0, 1e-15);
  EXPECT_EQ(m.v_default.segment<3>(j.v_start), Vec3(0, 0, 2));
  // The joint turns b by 90° about x around the point 0.5 m above it: b's origin goes from
  // (0, 0, 0.5) to the joint center (0, 0, 1) + R (0, 0, -0.5) = (0, 0.5, 1).
  const Multibody mb(&m);
  KinematicsCache kin;
  mb.UpdateKinematics(m.q_default, 0.0, &kin);
  EXPECT_LT((kin.X_WB[1].p - Vec3(0, 0.5, 1.0)).norm(), 1e-14);
}

TEST(SceneErrors, BallJointRefusesLimitsActuatorSpringAndAxis) {
  const std::string head =
      "bodies:\n  - {name: a, mass: 1, inertia: [0.01, 0.01, 0.01], joint: {type: ball, name: "
      "shoulder, ";
  std::string msg = ErrorOf(head + "limits: [-1, 1]}}\n");
  EXPECT_TRUE(Has(msg,
                  "dir/test.yaml:2: bodies.a.joint.limits: ball joint 'shoulder' cannot have "
                  "limits (limits apply to revolute and prismatic joints only)"))
      << msg;
  msg = ErrorOf(head + "actuator: {kp: 1}}}\n");
  EXPECT_TRUE(Has(msg, "ball joint 'shoulder' cannot have actuator")) << msg;
  msg = ErrorOf(head + "spring: {stiffness: 1}}}\n");
  EXPECT_TRUE(Has(msg, "ball joint 'shoulder' cannot have spring")) << msg;
  msg = ErrorOf(head + "axis: [0, 0, 1]}}\n");
  EXPECT_TRUE(Has(msg, "unknown key 'axis'")) << msg;
  msg = ErrorOf(
      "bodies:\n  - {name: a, mass: 1, inertia: [0.01, 0.01, 0.01], joint: {type: ball}, "
      "angular_velocity: [0, 0, 1]}\n");
  EXPECT_TRUE(Has(msg, "use joint_velocity for a ball joint")) << msg;
  msg = ErrorOf(
      "bodies:\n  - {name: a, mass: 1, inertia: [0.01, 0.01, 0.01], joint: {type: ball}, "
      "joint_position: 0.3}\n");
  EXPECT_TRUE(Has(msg, "bodies.a.joint_position: a ball joint's joint_position is a rotation"))
      << msg;
}

}  // namespace
}  // namespace contactlab
