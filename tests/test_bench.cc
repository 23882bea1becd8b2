// `contactlab bench` (app/bench.h) on tiny scenes: the per-scene fields and their JSON, the
// probes (checked against closed-form free fall), JSON Lines output, error handling, the CLI
// subcommand, and the MuJoCo peer's fields when the build has it. No timing is asserted: wall
// times are only checked to be present, finite and consistent with each other.
#include <gtest/gtest.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "app/bench.h"
#ifdef CONTACTLAB_HAVE_MUJOCO
#include "app/mujoco_peer.h"
#endif
#include "app/scene.h"
#include "engine/multibody/multibody.h"
#include "engine/sim/simulator.h"

namespace contactlab {
namespace {

namespace fs = std::filesystem;

// A ball in free fall (never reaching the ground in 0.1 s) and a box resting on the ground.
const char kTiny[] = R"(time_step: 0.01
duration: 0.1
gravity: [0, 0, -9.81]
materials:
  - {name: m, stiffness: 1e8, dissipation_time: 0.01, friction: 0.5}
bodies:
  - {name: ground, static: true, geoms: [{shape: half_space, material: m}]}
  - {name: ball, mass: 1, position: [0, 0, 1], geoms: [{shape: sphere, radius: 0.1, material: m}]}
  - {name: box, mass: 1, position: [0.5, 0, 0.05],
     geoms: [{shape: box, size: [0.1, 0.1, 0.1], material: m}]}
)";

// Symplectic Euler from rest: z drops by g h² n (n + 1) / 2 after n steps.
double FallAfter(int n) { return 9.81 * 0.01 * 0.01 * n * (n + 1) / 2; }

class BenchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("contactlab_bench_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    scene_path_ = (dir_ / "tiny.yaml").string();
    std::ofstream(scene_path_) << kTiny;
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
  std::string scene_path_;
};

TEST_F(BenchTest, SceneFieldsAndJson) {
  const Scene scene = ParseScene(kTiny, "tiny.yaml");
  const BenchResult r = BenchScene(scene, {});
  EXPECT_EQ(r.scene, "tiny.yaml");
  EXPECT_EQ(r.steps, 10) << "the scene's duration / δt";
  EXPECT_EQ(r.bodies, 2);
  EXPECT_NEAR(r.simulated_time, 0.1, 1e-12);
  EXPECT_TRUE(std::isfinite(r.ms_per_step) && r.ms_per_step > 0);
  EXPECT_NEAR(r.realtime_factor, 0.01 * 1e3 / r.ms_per_step, 1e-9 * r.realtime_factor)
      << "δt / median step time";
  EXPECT_EQ(r.failures, 0);
  EXPECT_GT(r.contacts, 0) << "the box rests on the ground";
  EXPECT_LE(r.momentum_error, 1e-6) << "every step converged to the default ε_r";
  EXPECT_TRUE(r.probes.empty());
  EXPECT_TRUE(r.peer.empty());

  const nlohmann::json j = r.ToJson();
  for (const char* key :
       {"scene", "ms_per_step", "iterations", "momentum_error", "realtime_factor", "contacts",
        "max_penetration", "drift", "probes", "steps", "time_step", "failures", "max_iterations"}) {
    EXPECT_TRUE(j.contains(key)) << "missing " << key << ": " << j.dump();
  }
  EXPECT_FALSE(j.contains("peer_ms_per_step")) << "no peer requested";
  // The ball never touches anything and the box rests alone on the ground: two trees, one of
  // them in contact, so every step splits into the box's island and the free ball's.
  EXPECT_EQ(j["largest_island"], 1);
  EXPECT_EQ(j["islands"], 2.0);
  EXPECT_FALSE(j.contains("ratio"));
}

TEST_F(BenchTest, ProbesMeasureDisplacements) {
  const Scene scene = ParseScene(kTiny, "tiny.yaml");
  BenchOptions o;
  o.probes = {"ball", "box", "ball@box", "ball:0.05", "nobody"};
  const BenchResult r = BenchScene(scene, o);
  ASSERT_EQ(r.probes.size(), 4u) << "a body the scene lacks is skipped";
  // Free fall is exact in both engines' arithmetic up to round-off of ~1e-15 m.
  EXPECT_EQ(r.probes[0].name, "ball");
  EXPECT_NEAR(r.probes[0].displacement.z(), -FallAfter(10), 1e-12);
  EXPECT_NEAR(r.probes[0].displacement.head<2>().norm(), 0, 1e-15);
  // The resting box sinks until its contacts carry its weight. At δt = 10 ms the contacts are
  // near-rigid (SAP's β clamp R_n = β² w / (4π²) ≈ 0.1 s/kg with w ≈ 4 /kg for a box corner,
  // above 1 / (δt k (δt + τ_d)) = 1e-4), so each of the 4 contacts overlaps by about
  // φ = γ_n R_n (δt + τ_d) = (m g δt / 4) · 0.1 · 0.02 ≈ 5e-5 m. 1e-4 m bounds it; by symmetry
  // it does not move sideways.
  EXPECT_LT(std::abs(r.probes[1].displacement.z()), 1e-4);
  EXPECT_LT(r.probes[1].displacement.head<2>().norm(), 1e-12);
  EXPECT_NEAR(
      (r.probes[2].displacement - (r.probes[0].displacement - r.probes[1].displacement)).norm(), 0,
      1e-12)
      << "ball@box is the ball's displacement relative to the box";
  // From t = 0.05 s (step 5) to 0.1 s.
  EXPECT_EQ(r.probes[3].from, 0.05);
  EXPECT_NEAR(r.probes[3].displacement.z(), -(FallAfter(10) - FallAfter(5)), 1e-12);
  EXPECT_NEAR(r.drift, r.probes[0].displacement.norm(), 1e-15) << "the largest displacement";

  const nlohmann::json j = r.ToJson();
  ASSERT_EQ(j["probes"].size(), 4u);
  EXPECT_EQ(j["probes"][0]["probe"], "ball");
  EXPECT_EQ(j["probes"][0]["displacement"].size(), 3u);
  EXPECT_NEAR(j["probes"][0]["distance"].get<double>(), FallAfter(10), 1e-12);
}

TEST_F(BenchTest, MalformedProbesAreErrors) {
  const Scene scene = ParseScene(kTiny, "tiny.yaml");
  for (const char* bad : {"", "@box", "ball@", "ball:", "ball:x", "ball:-1"}) {
    BenchOptions o;
    o.probes = {bad};
    EXPECT_THROW(BenchScene(scene, o), std::invalid_argument) << bad;
  }
  BenchOptions late;
  late.probes = {"ball:5"};
  EXPECT_THROW(BenchScene(scene, late), std::invalid_argument) << "the run ends at 0.1 s";
}

TEST_F(BenchTest, RunBenchWritesOneJsonObjectPerScene) {
  const std::string second = (dir_ / "second.yaml").string();
  std::ofstream(second) << kTiny;
  BenchOptions o;
  o.duration = 0.05;
  o.probes = {"ball"};
  const std::string json_path = (dir_ / "out.jsonl").string();
  std::ostringstream out;
  const std::vector<BenchResult> results = RunBench({scene_path_, second}, o, json_path, out);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].steps, 5) << "--duration overrides the scene's";

  std::ifstream in(json_path);
  std::vector<nlohmann::json> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0]["scene"], scene_path_);
  EXPECT_EQ(lines[1]["scene"], second);
  EXPECT_EQ(lines[0]["steps"], 5);
  EXPECT_NEAR(lines[1]["drift"].get<double>(), FallAfter(5), 1e-12);

  // The table: header, one row per scene, then the probe lines.
  const std::string text = out.str();
  EXPECT_NE(text.find("ms/step"), std::string::npos);
  EXPECT_NE(text.find("tiny.yaml"), std::string::npos);
  EXPECT_NE(text.find("second.yaml"), std::string::npos);
  EXPECT_NE(text.find("probe ball"), std::string::npos);
}

TEST_F(BenchTest, RunBenchErrors) {
  std::ostringstream out;
  BenchOptions o;
  o.probes = {"nobody"};
  EXPECT_THROW(RunBench({scene_path_}, o, "", out), std::invalid_argument)
      << "a probe no scene has is a typo";
  EXPECT_THROW(RunBench({(dir_ / "missing.yaml").string()}, {}, "", out), SceneError);
  EXPECT_THROW(RunBench({scene_path_}, {}, (dir_ / "no" / "dir.jsonl").string(), out),
               std::runtime_error);
}

TEST_F(BenchTest, PeerFields) {
  const Scene scene = ParseScene(kTiny, "tiny.yaml");
  BenchOptions o;
  o.peer = "mujoco";
  o.probes = {"ball"};
  const BenchResult r = BenchScene(scene, o);
  const nlohmann::json j = r.ToJson();
  EXPECT_EQ(j["peer"], "mujoco");
  if (!BenchPeerAvailable("mujoco")) {
    EXPECT_EQ(r.peer_status, "unavailable");
    EXPECT_FALSE(j.contains("peer_ms_per_step"));
    return;
  }
  ASSERT_EQ(r.peer_status, "ok") << r.peer_status;
  for (const char* key :
       {"peer_ms_per_step", "ratio", "peer_iterations", "peer_contacts", "peer_realtime_factor",
        "peer_max_penetration", "peer_drift", "peer_version", "peer_notes",
        "peer_ncp_residual_rigid", "peer_ncp_residual_rigid_max"}) {
    EXPECT_TRUE(j.contains(key)) << "missing " << key << ": " << j.dump();
  }
  EXPECT_EQ(j["peer_version"], "2.2.2");
  EXPECT_TRUE(std::isfinite(r.peer_ms_per_step) && r.peer_ms_per_step > 0);
  EXPECT_NEAR(r.ratio, r.ms_per_step / r.peer_ms_per_step, 1e-12 * r.ratio);
  EXPECT_GT(r.peer_contacts, 0) << "MuJoCo also finds the resting box";
  // Both engines integrate free fall with semi-implicit Euler: same displacement.
  ASSERT_TRUE(r.probes[0].has_peer);
  EXPECT_NEAR((r.probes[0].peer_displacement - r.probes[0].displacement).norm(), 0, 1e-12);
  EXPECT_NEAR(r.peer_drift, FallAfter(10), 1e-12);
}

// The rigid-law NCP residual is a field of every scene: finite, the max at least the mean, and
// the table's last column.
TEST_F(BenchTest, RigidNcpResidualField) {
  const Scene scene = ParseScene(kTiny, "tiny.yaml");
  const BenchResult r = BenchScene(scene, {});
  EXPECT_TRUE(std::isfinite(r.ncp_residual_rigid));
  EXPECT_GE(r.ncp_residual_rigid_max, r.ncp_residual_rigid);
  const nlohmann::json j = r.ToJson();
  ASSERT_TRUE(j.contains("ncp_residual_rigid"));
  EXPECT_EQ(j["ncp_residual_rigid"].get<double>(), r.ncp_residual_rigid);
  EXPECT_EQ(j["ncp_residual_rigid_max"].get<double>(), r.ncp_residual_rigid_max);
  EXPECT_NE(BenchTableHeader(false).find("ncp_rigid"), std::string::npos);
  EXPECT_NE(BenchTableHeader(true).find("MJ ncp_rigid"), std::string::npos);
}

#ifdef CONTACTLAB_HAVE_MUJOCO
// MuJoCo's box resting on the ground after 1 s: its four contacts are still (v ≈ 0, no friction
// impulse) and penetrate by its soft contact's depth φ (the same at the four corners). Against the
// rigid law g_n = v_n + φ0/δt each normal row is γ_n − max(γ_n − g_n, 0) = g_n = −φ/δt, so the
// residual is sqrt(4 (φ/δt)²) / 4 = φ / (2 δt): zero up to MuJoCo's softness.
TEST(MujocoPeer, RestingBoxRigidResidualIsItsSoftPenetrationOverTheStep) {
  const Scene scene = ParseScene(R"(time_step: 0.01
duration: 1
gravity: [0, 0, -9.81]
materials:
  - {name: m, stiffness: 1e8, dissipation_time: 0.01, friction: 0.5}
bodies:
  - {name: ground, static: true, geoms: [{shape: half_space, material: m}]}
  - {name: box, mass: 1, position: [0, 0, 0.05],
     geoms: [{shape: box, size: [0.1, 0.1, 0.1], material: m}]}
)",
                                 "rest.yaml");
  MujocoPeer peer(scene);
  for (int n = 0; n < 100; ++n) peer.Step();
  ASSERT_EQ(peer.num_contacts(), 4);
  const double phi = peer.max_penetration();
  ASSERT_GT(phi, 1e-5) << "MuJoCo's contacts are soft: the box sinks in";
  const NcpResidual r = peer.RigidNcpResidual();
  EXPECT_EQ(r.num_constraints, 4);
  EXPECT_NEAR(r.residual, phi / (2 * 0.01), 1e-3 * phi / 0.01);
  EXPECT_NEAR(r.max_row, phi / 0.01, 1e-3 * phi / 0.01);
}
#endif

#ifdef CONTACTLAB_HAVE_MUJOCO
// The same resting box with MuJoCo's pyramidal cone (--cone pyramidal): the edge rows combine to
// the normal impulse (Σ f δt) and velocity (½ (J+ + J−) v), so the residual is again the soft
// penetration over the step, φ / (2 δt), as for the elliptic cone.
TEST(MujocoPeer, PyramidalRowsCombineToTheSameRigidResidual) {
  const Scene scene = ParseScene(R"(time_step: 0.01
duration: 1
gravity: [0, 0, -9.81]
materials:
  - {name: m, stiffness: 1e8, dissipation_time: 0.01, friction: 0.5}
bodies:
  - {name: ground, static: true, geoms: [{shape: half_space, material: m}]}
  - {name: box, mass: 1, position: [0, 0, 0.05],
     geoms: [{shape: box, size: [0.1, 0.1, 0.1], material: m}]}
)",
                                 "rest.yaml");
  MujocoPeerOptions options;
  options.cone = "pyramidal";
  MujocoPeer peer(scene, options);
  EXPECT_EQ(peer.cone(), "pyramidal");
  EXPECT_FALSE(peer.loaded_file());
  for (int n = 0; n < 100; ++n) peer.Step();
  ASSERT_EQ(peer.num_contacts(), 4);
  const double phi = peer.max_penetration();
  ASSERT_GT(phi, 1e-5);
  const NcpResidual r = peer.RigidNcpResidual();
  EXPECT_EQ(r.num_constraints, 4);
  EXPECT_NEAR(r.residual, phi / (2 * 0.01), 1e-3 * phi / 0.01);
  options.cone = "bogus";
  EXPECT_THROW(MujocoPeer(scene, options), std::runtime_error);
}

// An MJCF scene: MuJoCo loads the file itself with its own options (humanoid.xml: δt 0.005 s,
// MuJoCo's default pyramidal cone and tolerance 1e-8), the bench reports which, and both engines
// start from the same mechanical energy (the same masses, frames and start pose: gravity
// potential to 1e-9 relative; KE is 0 at rest in both).
TEST_F(BenchTest, MjcfScenePeerLoadsTheFileItself) {
  const std::string path = "/usr/share/mujoco/model/humanoid/humanoid.xml";
  if (!fs::exists(path)) GTEST_SKIP() << path << " missing (Debian package libmujoco-samples)";
  const Scene scene = LoadScene(path);
  MujocoPeer peer(scene, MujocoPeerOptions{});
  EXPECT_TRUE(peer.loaded_file());
  EXPECT_EQ(peer.cone(), "pyramidal");
  EXPECT_EQ(peer.tolerance(), 1e-8);
  Simulator sim(scene.model, scene.settings);
  KinematicsCache kin;
  sim.multibody().UpdateKinematics(sim.state().q, 0, &kin);
  const double e_ours = sim.multibody().KineticEnergy(kin, sim.state().v) +
                        sim.multibody().PotentialEnergy(kin, sim.state().q, scene.settings.gravity);
  const double e_mj = peer.MechanicalEnergy();
  EXPECT_NEAR(e_ours, e_mj, 1e-9 * std::abs(e_mj));
  // Body map of the importer: the torso's pose is MuJoCo's.
  const int torso = scene.model.FindBody("torso");
  ASSERT_GE(torso, 0);
  EXPECT_LT((peer.BodyPose(torso).p - kin.X_WB[torso].p).norm(), 1e-12);

  BenchOptions o;
  o.peer = "mujoco";
  o.duration = 0.05;
  o.probes = {"torso"};
  const BenchResult r = BenchScene(scene, o);
  ASSERT_EQ(r.peer_status, "ok") << r.peer_status;
  const nlohmann::json j = r.ToJson();
  EXPECT_EQ(j["peer_model"], "file");
  EXPECT_EQ(j["peer_cone"], "pyramidal");
  EXPECT_EQ(j["cone"], "elliptic");
  EXPECT_EQ(r.time_step, 0.005);
  EXPECT_EQ(r.steps, 10);
  EXPECT_TRUE(j.contains("energy_change"));
  EXPECT_TRUE(j.contains("peer_energy_change"));
  EXPECT_TRUE(std::isfinite(r.peer_ncp_residual_rigid));  // pyramidal rows are measured
  EXPECT_TRUE(std::isfinite(r.energy_change));
  EXPECT_TRUE(std::isfinite(r.peer_energy_change));
  EXPECT_TRUE(r.probes[0].has_peer);
  // --cone elliptic switches MuJoCo's cone.
  o.cone = "elliptic";
  EXPECT_EQ(BenchScene(scene, o).peer_cone, "elliptic");
}
#endif

// --repeat: N runs per engine; the reported time is the median of the runs' medians, the ratio
// that of the two medians, and the per-run ratios lie within [ratio_min, ratio_max]. A run is
// deterministic, so the accuracy fields are those of a single run, bit for bit.
TEST_F(BenchTest, RepeatedRunsReportTheMedianRun) {
  const Scene scene = ParseScene(kTiny, "tiny.yaml");
  BenchOptions o;
  o.probes = {"ball"};
  const BenchResult once = BenchScene(scene, o);
  EXPECT_EQ(once.repeats, 1);
  ASSERT_EQ(once.run_ms_per_step.size(), 1u);
  EXPECT_EQ(once.run_ms_per_step[0], once.ms_per_step);

  o.repeat = 3;
  if (BenchPeerAvailable("mujoco")) o.peer = "mujoco";
  const BenchResult r = BenchScene(scene, o);
  EXPECT_EQ(r.repeats, 3);
  ASSERT_EQ(r.run_ms_per_step.size(), 3u);
  std::vector<double> sorted = r.run_ms_per_step;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(r.ms_per_step, sorted[1]) << "median of three runs";
  EXPECT_NEAR(r.realtime_factor, 0.01 * 1e3 / r.ms_per_step, 1e-9 * r.realtime_factor);
  EXPECT_EQ(r.iterations, once.iterations);
  EXPECT_EQ(r.contacts, once.contacts);
  EXPECT_EQ(r.momentum_error, once.momentum_error);
  EXPECT_EQ(r.max_penetration, once.max_penetration);
  EXPECT_EQ(r.drift, once.drift);
  const nlohmann::json j = r.ToJson();
  EXPECT_EQ(j["repeats"], 3);
  EXPECT_EQ(j["run_ms_per_step"].size(), 3u);
  if (o.peer.empty()) return;
  ASSERT_TRUE(r.peer_ok()) << r.peer_status;
  ASSERT_EQ(r.peer_run_ms_per_step.size(), 3u);
  sorted = r.peer_run_ms_per_step;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(r.peer_ms_per_step, sorted[1]);
  EXPECT_NEAR(r.ratio, r.ms_per_step / r.peer_ms_per_step, 1e-12 * r.ratio);
  EXPECT_LE(r.ratio_min, r.ratio_max);
  for (int k = 0; k < 3; ++k) {
    const double rk = r.run_ms_per_step[k] / r.peer_run_ms_per_step[k];
    EXPECT_GE(rk, r.ratio_min * (1 - 1e-12));
    EXPECT_LE(rk, r.ratio_max * (1 + 1e-12));
  }
  EXPECT_EQ(j["peer_run_ms_per_step"].size(), 3u);
  EXPECT_TRUE(j.contains("ratio_min") && j.contains("ratio_max"));
  EXPECT_NE(BenchTableRow(r, true, true).find("(3)"), std::string::npos);
}

// Values wider than their columns (a real-time factor of 10⁴ on a tiny scene, a long file name)
// stay separated: the row splits into the same cells as the values it was made from.
TEST_F(BenchTest, WideValuesKeepTheirColumnsApart) {
  BenchResult r;
  r.scene = "scenes/paper/a_scene_name_longer_than_the_column.yaml";
  r.bodies = 3;
  r.steps = 15;
  r.ms_per_step = 0.001;
  r.iterations = 1;
  r.contacts = 2;
  r.realtime_factor = 12345.678;
  r.peer_status = "ok";
  r.peer_ms_per_step = 0.001;
  r.peer_iterations = 1.07;
  r.peer_contacts = 2;
  r.peer_realtime_factor = 10000;
  r.ratio = 1.5;
  const size_t width = BenchSceneColumnWidth({"x.yaml", r.scene});
  EXPECT_EQ(width, std::string("a_scene_name_longer_than_the_column.yaml").size() + 1);
  EXPECT_EQ(BenchSceneColumnWidth({"x.yaml"}), 26u);
  std::istringstream row(BenchTableRow(r, true, false, width));
  std::vector<std::string> cells;
  for (std::string c; row >> c;) cells.push_back(c);
  const std::vector<std::string> expected = {"a_scene_name_longer_than_the_column.yaml",
                                             "3",
                                             "15",
                                             "0.001",
                                             "1.00",
                                             "0.0e+00",
                                             "2.0",
                                             "12345.68",
                                             "0.0000",
                                             "-",
                                             "|",
                                             "0.001",
                                             "1.07",
                                             "2.0",
                                             "10000.00",
                                             "0.0000",
                                             "-",
                                             "1.50",
                                             "|",
                                             "0.0e+00",
                                             "0.0e+00",
                                             "|",
                                             "+0.00e+00",
                                             "+0.00e+00"};
  EXPECT_EQ(cells, expected);
  // The header's scene column has the same width: "bodies" and the row's body count, both
  // right-aligned, end at the same position.
  EXPECT_EQ(BenchTableHeader(true, false, width).find("bodies") + std::string("bodies").size(),
            BenchTableRow(r, true, false, width).find(" 3 ") + 2);
}

// The subcommand ends CLI11's parse by throwing CLI::RuntimeError with the exit status.
int RunCli(std::vector<std::string> args) {
  CLI::App app;
  AddBenchCommand(app);
  args.insert(args.begin(), "contactlab");
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  return -1;  // the callback did not run
}

TEST_F(BenchTest, CommandLine) {
  const std::string json_path = (dir_ / "cli.jsonl").string();
  testing::internal::CaptureStdout();
  EXPECT_EQ(RunCli({"bench", "--json", json_path, "--probe", "ball", scene_path_}), 0);
  const std::string out = testing::internal::GetCapturedStdout();
  EXPECT_NE(out.find("tiny.yaml"), std::string::npos) << out;
  EXPECT_TRUE(fs::exists(json_path));

  testing::internal::CaptureStderr();
  EXPECT_EQ(RunCli({"bench", (dir_ / "missing.yaml").string()}), 2) << "scene error";
  EXPECT_EQ(RunCli({"bench", "--probe", "nobody", scene_path_}), 1) << "other failure";
  EXPECT_NE(RunCli({"bench", "--peer", "bullet", scene_path_}), 0) << "unknown peer: usage error";
  EXPECT_NE(RunCli({"bench"}), 0) << "scenes are required";
  EXPECT_NE(RunCli({"bench", "--repeat", "0", scene_path_}), 0) << "at least one run";
  testing::internal::GetCapturedStderr();
}

}  // namespace
}  // namespace contactlab

namespace contactlab {
namespace {

TEST(StepTimeSamples, ExactUpToTheBoundThenAnEvenSubsetInBoundedMemory) {
  // Up to the bound every sample is kept: median and mean are exact.
  StepTimeSamples small(8);
  for (double x : {5.0, 1.0, 4.0, 2.0, 3.0}) small.Add(x);
  EXPECT_EQ(small.stored(), 5u);
  EXPECT_DOUBLE_EQ(small.Median(), 3.0);
  EXPECT_DOUBLE_EQ(small.Mean(), 3.0);
  // 100 000 samples 0, 1, 2, ... through a store of 8: the store never grows past 8, holds the
  // samples whose index is a multiple of the stride (an evenly spaced subset), and the mean
  // stays exact. The median of the subset is within one stride of the true median 49 999.5.
  StepTimeSamples s(8);
  const int n = 100000;
  for (int i = 0; i < n; ++i) {
    s.Add(i);
    ASSERT_LE(s.stored(), 8u);
  }
  EXPECT_EQ(s.count(), static_cast<size_t>(n));
  EXPECT_DOUBLE_EQ(s.Mean(), (n - 1) / 2.0);
  EXPECT_EQ(s.stored(), static_cast<size_t>((n - 1) / s.stride() + 1));
  EXPECT_NEAR(s.Median(), (n - 1) / 2.0, static_cast<double>(s.stride()));
  // The default bound: a 10^8-step run keeps at most 2^20 samples (8 MiB).
  EXPECT_EQ(StepTimeSamples::kMaxStored, size_t{1} << 20);
}

}  // namespace
}  // namespace contactlab
