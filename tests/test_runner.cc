// Headless runner: step count, JSON Lines statistics, CSV trajectory and the summary line, on a
// ball in free fall (closed-form state under symplectic Euler).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "app/runner.h"
#include "app/scene.h"
#include "engine/sim/simulator.h"

namespace contactlab {
namespace {

namespace fs = std::filesystem;

const char kFallingBall[] = R"(time_step: 0.01
duration: 0.05
integrator: symplectic_euler
gravity: [0, 0, -9.81]
bodies:
  - {name: ground, static: true, geoms: [{shape: half_space}]}
  - {name: ball, mass: 1, position: [0, 0, 1], geoms: [{shape: sphere, radius: 0.1}]}
)";

std::vector<std::string> ReadLines(const fs::path& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

class RunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("contactlab_runner_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST(RunStepCount, StepsDurationAndSceneDefault) {
  Scene scene;
  scene.settings.time_step = 0.01;
  scene.duration = 0.05;
  RunOptions o;
  EXPECT_EQ(RunStepCount(scene, o), 5) << "scene duration / time step";
  o.duration = 0.123;
  EXPECT_EQ(RunStepCount(scene, o), 12) << "rounded to the nearest step";
  o.steps = 7;
  EXPECT_EQ(RunStepCount(scene, o), 7) << "an explicit step count wins";
  o = RunOptions{};
  o.duration = 1e-9;
  EXPECT_EQ(RunStepCount(scene, o), 1) << "at least one step";
}

TEST_F(RunnerTest, FreeFallStatsTrajectoryAndSummary) {
  Scene scene = ParseScene(kFallingBall, "falling_ball.yaml");
  RunOptions options;
  options.stats_path = (dir_ / "stats.jsonl").string();
  options.trajectory_path = (dir_ / "traj.csv").string();
  std::ostringstream log;
  const RunSummary summary = RunHeadless(scene, options, log);

  // Symplectic Euler in free fall: v_n = n g h, z_n = z_0 - g h^2 n (n + 1) / 2.
  const double g = 9.81, h = 0.01;
  const int n = 5;
  const double v = n * g * h;
  const double z = 1.0 - g * h * h * n * (n + 1) / 2;
  EXPECT_EQ(summary.steps, n);
  EXPECT_NEAR(summary.simulated_time, n * h, 1e-12);
  EXPECT_EQ(summary.failures, 0) << "no contacts: the solver converges trivially";
  EXPECT_NEAR(summary.final_kinetic_energy, 0.5 * v * v, 1e-9);
  EXPECT_NEAR(summary.final_potential_energy, g * z, 1e-9) << "-m g . com, zero at the origin";
  EXPECT_NEAR(summary.final_energy, 0.5 * v * v + g * z, 1e-9);
  EXPECT_EQ(summary.max_penetration, 0) << "the ball never reaches the ground";

  // Summary line.
  const nlohmann::json js = nlohmann::json::parse(log.str());
  for (const char* key : {"scene", "steps", "simulated_time", "mean_iterations", "max_iterations",
                          "mean_solve_ms", "mean_step_ms", "failures", "final_kinetic_energy",
                          "final_potential_energy", "final_energy", "max_penetration"}) {
    EXPECT_TRUE(js.contains(key)) << "summary lacks " << key << ": " << log.str();
  }
  EXPECT_EQ(js["steps"], n);
  EXPECT_EQ(js["scene"], "falling_ball.yaml");

  // Stats: the initial state (step 0), then one JSON object per step.
  const std::vector<std::string> stats = ReadLines(dir_ / "stats.jsonl");
  ASSERT_EQ(stats.size(), static_cast<size_t>(n + 1));
  const nlohmann::json s0 = nlohmann::json::parse(stats[0]);
  EXPECT_EQ(s0["step"], 0);
  EXPECT_EQ(s0["status"], "initial_state");
  EXPECT_NEAR(s0["kinetic_energy"].get<double>(), 0.0, 1e-15) << "released at rest";
  EXPECT_NEAR(s0["potential_energy"].get<double>(), g * 1.0, 1e-12) << "m g z0";
  for (int i = 0; i < n; ++i) {
    const nlohmann::json s = nlohmann::json::parse(stats[i + 1]);
    for (const char* key :
         {"step", "time", "contacts", "iterations", "islands", "status", "momentum_error",
          "complementarity_error", "cost", "solve_ms", "step_ms", "max_penetration",
          "kinetic_energy", "potential_energy", "total_energy", "mean_stiction_slip",
          "loaded_contacts", "warnings", "ncp_residual"}) {
      EXPECT_TRUE(s.contains(key)) << "stats line " << i << " lacks " << key;
    }
    EXPECT_EQ(s["step"], i + 1) << "steps completed";
    EXPECT_NEAR(s["time"].get<double>(), (i + 1) * h, 1e-12);
    EXPECT_EQ(s["contacts"], 0);
    EXPECT_EQ(s["islands"], 0) << "a ball without contacts is solved as one problem";
    EXPECT_EQ(s["status"], "converged");
    EXPECT_TRUE(s["warnings"].empty()) << "free fall at δt = 0.01 s is not a divergence";
  }
  EXPECT_EQ(summary.ExitStatus(), 0);
  EXPECT_EQ(summary.steps_with_warnings, 0);

  // Trajectory: header, then the ball (not the static ground) at steps 0..n.
  const std::vector<std::string> traj = ReadLines(dir_ / "traj.csv");
  ASSERT_EQ(traj.size(), static_cast<size_t>(n + 2));
  EXPECT_EQ(traj[0], "step,time,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz");
  EXPECT_EQ(traj[1], "0,0,ball,0,0,1,1,0,0,0,0,0,0,0,0,0");
  std::vector<std::string> cells;
  std::stringstream row(traj.back());
  for (std::string cell; std::getline(row, cell, ',');) cells.push_back(cell);
  ASSERT_EQ(cells.size(), 16u);
  EXPECT_EQ(cells[0], std::to_string(n));
  EXPECT_EQ(cells[2], "ball");
  EXPECT_NEAR(std::stod(cells[5]), z, 1e-12);
  EXPECT_NEAR(std::stod(cells[12]), -v, 1e-12) << "vz = −n g δt";
  EXPECT_EQ(std::stod(cells[10]), 0.0);
}

// Reads a JSON Lines file; every number that is not finite must be a string, never null, and a
// line carrying one must not say "converged".
std::vector<nlohmann::json> ReadStatsChecked(const fs::path& path) {
  std::vector<nlohmann::json> out;
  for (const std::string& line : ReadLines(path)) {
    EXPECT_EQ(line.find("null"), std::string::npos) << line;
    const nlohmann::json j = nlohmann::json::parse(line);
    bool non_finite = false;
    for (const auto& [key, value] : j.items()) {
      if (value.is_string() && (value == "nan" || value == "inf" || value == "-inf")) {
        non_finite = true;
      }
    }
    if (non_finite) EXPECT_NE(j["status"], "converged") << line;
    out.push_back(j);
  }
  return out;
}

TEST_F(RunnerTest, OverflowingInitialPositionStopsAtStepZero) {
  // 1e308 m is a finite number, but m g z overflows: the run stops before stepping.
  Scene scene = ParseScene(R"(time_step: 0.01
bodies:
  - {name: ground, static: true, geoms: [{shape: half_space}]}
  - {name: ball, mass: 1, position: [0, 0, 1e308], geoms: [{shape: sphere, radius: 0.1}]}
)",
                           "far.yaml");
  RunOptions options;
  options.steps = 10;
  options.stats_path = (dir_ / "stats.jsonl").string();
  std::ostringstream log;
  const RunSummary summary = RunHeadless(scene, options, log);
  EXPECT_EQ(summary.stopped_at_step, 0);
  EXPECT_EQ(summary.steps, 0);
  EXPECT_EQ(summary.ExitStatus(), kExitRunFailedSteps);
  EXPECT_NE(summary.stop_reason.find("potential energy"), std::string::npos) << summary.stop_reason;
  EXPECT_EQ(log.str().find("null"), std::string::npos) << log.str();
  const std::vector<nlohmann::json> stats = ReadStatsChecked(dir_ / "stats.jsonl");
  ASSERT_EQ(stats.size(), 1u);
  EXPECT_EQ(stats[0]["status"], "non_finite_state");
  const nlohmann::json js = nlohmann::json::parse(log.str());
  EXPECT_EQ(js["stopped_at_step"], 0);
}

// A joint velocity of 1e300 rad/s: the initial state is not finite (its kinetic energy
// overflows). The run stops at step 0 with exit status 3, and no line says converged beside a
// NaN (before: three steps of non_finite_input with "kinetic_energy": null and exit status 0).
TEST_F(RunnerTest, HugeJointVelocityFailsAndStops) {
  Scene scene = ParseScene(R"(time_step: 0.01
bodies:
  - name: arm
    mass: 1
    joint: {type: revolute, axis: [0, 1, 0]}
    joint_velocity: 1e300
    geoms: [{shape: sphere, radius: 0.1, position: [0, 0, -0.5]}]
)",
                           "spin.yaml");
  RunOptions options;
  options.steps = 10;
  options.stats_path = (dir_ / "stats.jsonl").string();
  options.trajectory_path = (dir_ / "traj.csv").string();
  std::ostringstream log;
  const RunSummary summary = RunHeadless(scene, options, log);
  EXPECT_EQ(summary.stopped_at_step, 0);
  EXPECT_NE(summary.stop_reason.find("kinetic energy"), std::string::npos) << summary.stop_reason;
  EXPECT_EQ(summary.ExitStatus(), kExitRunFailedSteps);
  EXPECT_EQ(log.str().find("null"), std::string::npos) << log.str();
  ReadStatsChecked(dir_ / "stats.jsonl");
  for (const std::string& line : ReadLines(dir_ / "traj.csv")) {
    EXPECT_EQ(line.find("nan"), std::string::npos) << line;
    EXPECT_EQ(line.find("inf"), std::string::npos) << line;
  }
}

// A prescribed angular velocity of 1e300 rad/s: the pose after a step has no finite
// quaternion. The run must stop at a failed step instead of writing NaN quaternions.
TEST_F(RunnerTest, HugePrescribedAngularVelocityStops) {
  Scene scene = ParseScene(R"(time_step: 0.01
bodies:
  - name: spinner
    position: [0, 0, 1]
    prescribed: {angular_velocity: [0, 0, 1e300]}
    geoms: [{shape: box, half_extents: [0.1, 0.1, 0.1]}]
  - {name: ball, mass: 1, position: [0, 0, 3], geoms: [{shape: sphere, radius: 0.1}]}
)",
                           "spinner.yaml");
  RunOptions options;
  options.steps = 10;
  options.stats_path = (dir_ / "stats.jsonl").string();
  options.trajectory_path = (dir_ / "traj.csv").string();
  std::ostringstream log;
  const RunSummary summary = RunHeadless(scene, options, log);
  // The pose at t = δt is the first that is not finite: step 1 fails and the run stops there
  // (before: "converged" steps with -nan quaternions in the trajectory).
  EXPECT_EQ(summary.stopped_at_step, 1) << log.str();
  EXPECT_EQ(summary.failures, 1);
  EXPECT_EQ(summary.ExitStatus(), kExitRunFailedSteps);
  const std::vector<nlohmann::json> stats = ReadStatsChecked(dir_ / "stats.jsonl");
  ASSERT_EQ(stats.size(), 2u);
  EXPECT_EQ(stats[1]["status"], "non_finite_state");
  EXPECT_NE(stats[1]["message"].get<std::string>().find("spinner"), std::string::npos);
  for (const std::string& line : ReadLines(dir_ / "traj.csv")) {
    EXPECT_EQ(line.find("nan"), std::string::npos) << line;
  }
}

// δt = 0.1 s on the shipped box stack: the stack collapses; the run must say so with warnings
// (and an exit status that is not 0) instead of a clean summary.
TEST_F(RunnerTest, LargeTimeStepOnTheBoxStackWarns) {
  Scene scene = LoadScene(std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/box_stack.yaml",
                          std::vector<std::string>{"time_step=0.1"});
  RunOptions options;
  options.duration = 3;
  options.stats_path = (dir_ / "stats.jsonl").string();
  std::ostringstream log;
  const RunSummary summary = RunHeadless(scene, options, log);
  EXPECT_GT(summary.steps_with_warnings, 0) << log.str();
  EXPECT_NE(summary.ExitStatus(), 0);
  const nlohmann::json js = nlohmann::json::parse(log.str());
  EXPECT_GT(js["steps_with_warnings"].get<int>(), 0);
}

// Control: the same scene at its own time step runs clean.
TEST_F(RunnerTest, ShippedTimeStepOnTheBoxStackIsClean) {
  Scene scene = LoadScene(std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/box_stack.yaml");
  RunOptions options;
  options.duration = 2;
  std::ostringstream log;
  const RunSummary summary = RunHeadless(scene, options, log);
  EXPECT_EQ(summary.steps_with_warnings, 0) << log.str();
  EXPECT_EQ(summary.ExitStatus(), 0) << log.str();
}

// Body names with a comma, a double quote and a line break are written as RFC 4180 quoted fields
// and read back; the reference reader matches them by name.
TEST_F(RunnerTest, TrajectoryQuotesBodyNamesAndReadsBackAsReference) {
  const std::string odd_name = "ball, \"red\"\nbig";
  const std::string scene_text = R"(time_step: 0.01
bodies:
  - {name: ground, static: true, geoms: [{shape: half_space}]}
  - {name: "ball, \"red\"\nbig", mass: 1, position: [0, 0, 1],
     geoms: [{shape: sphere, radius: 0.1}]}
)";
  Scene scene = ParseScene(scene_text +
                               "  - {name: plain, mass: 1, position: [1, 0, 1], geoms: [{shape: "
                               "sphere, radius: 0.1}]}\n",
                           "names.yaml");
  ASSERT_EQ(scene.model.bodies[1].name, odd_name);
  RunOptions options;
  options.steps = 5;
  options.trajectory_path = (dir_ / "traj.csv").string();
  std::ostringstream log;
  RunHeadless(scene, options, log);
  std::ifstream in(options.trajectory_path);
  std::vector<std::string> fields;
  ASSERT_TRUE(ReadCsvRecord(in, &fields));
  EXPECT_EQ(fields.size(), 16u);
  int rows = 0, quoted = 0;
  while (ReadCsvRecord(in, &fields)) {
    ASSERT_EQ(fields.size(), 16u) << "row " << rows;
    if (fields[2] == odd_name) ++quoted;
    ++rows;
  }
  EXPECT_EQ(rows, 12) << "two bodies, steps 0..5";
  EXPECT_EQ(quoted, 6);
  // The run against its own trajectory: the body is found by name, zero error.
  Scene again = ParseScene(scene_text, "names.yaml");
  RunOptions ref = options;
  ref.trajectory_path.clear();
  ref.reference_path = options.trajectory_path;
  EXPECT_LT(RunHeadless(again, ref, log).position_error_rms, 1e-12);
}

// A reference written by an older version (10 columns, no velocities) still reads.
TEST_F(RunnerTest, ReadsAnOldTenColumnReference) {
  const fs::path path = dir_ / "old.csv";
  {
    std::ofstream out(path);
    out.precision(17);
    out << "step,time,body,x,y,z,qw,qx,qy,qz\n";
    // Symplectic Euler free fall from z = 1 at δt = 0.01: z_n = 1 − g h² n (n + 1) / 2.
    for (int n = 0; n <= 5; ++n) {
      out << n << ',' << n * 0.01 << ",ball,0,0," << 1.0 - 9.81 * 1e-4 * n * (n + 1) / 2
          << ",1,0,0,0\n";
    }
  }
  Scene scene = ParseScene(kFallingBall, "falling_ball.yaml");
  RunOptions options;
  options.reference_path = path.string();
  std::ostringstream log;
  // Same recursion, 17 digits: only round-off separates the run from the file.
  EXPECT_LT(RunHeadless(scene, options, log).position_error_rms, 1e-12);
}

TEST(CsvField, QuotesOnlyWhenNeeded) {
  EXPECT_EQ(CsvField("ball"), "ball");
  EXPECT_EQ(CsvField("a,b"), "\"a,b\"");
  EXPECT_EQ(CsvField("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(CsvField("two\nlines"), "\"two\nlines\"");
  std::istringstream in("1,\"a,\"\"b\"\"\nc\",2\r\nx,y\n\"open");
  std::vector<std::string> f;
  ASSERT_TRUE(ReadCsvRecord(in, &f));
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[1], "a,\"b\"\nc");
  EXPECT_EQ(f[2], "2") << "CRLF line ends";
  ASSERT_TRUE(ReadCsvRecord(in, &f));
  EXPECT_EQ(f.size(), 2u);
  EXPECT_THROW(ReadCsvRecord(in, &f), std::runtime_error) << "unterminated quote";
}

// `contacts` counts candidate cone constraints (within the speculative margin); loaded_contacts
// those that push. A box resting flat on the ground pushes at its four corners.
TEST_F(RunnerTest, LoadedContactsOfARestingBox) {
  Scene scene = ParseScene(R"(time_step: 0.001
bodies:
  - {name: ground, static: true, geoms: [{shape: half_space}]}
  - {name: box, mass: 1, position: [0, 0, 0.05],
     geoms: [{shape: box, half_extents: [0.1, 0.1, 0.05]}]}
)",
                           "box.yaml");
  RunOptions options;
  options.steps = 200;
  options.stats_path = (dir_ / "stats.jsonl").string();
  std::ostringstream log;
  RunHeadless(scene, options, log);
  const std::vector<nlohmann::json> stats = ReadStatsChecked(dir_ / "stats.jsonl");
  const nlohmann::json& last = stats.back();
  EXPECT_GE(last["contacts"].get<int>(), last["loaded_contacts"].get<int>());
  EXPECT_EQ(last["loaded_contacts"], 4) << last.dump();
}

// The issue's case: `contacts` read 0 while a box glided down a ramp. A 1 kg box (0.1 x 0.2 x
// 0.05 m) on a 30° ramp, μ = 0.2, k = 1e6 N/m, the default τ_d = 0.01 s, δt = 1 ms: it glides
// with a = g (sin 30° − μ cos 30°) = 3.21 m/s², where SAP's loading band (δt + τ_d) μ v grows
// past the old margin (contact_margin + δt v; it had no candidate in 646 of 1000 steps). In every
// step --stats must report candidates and contacts that carry load (the face on the ramp pushes at
// its 4 corners), contacts ≥ loaded, while the kinetic energy grows as the closed form says.
TEST_F(RunnerTest, GlidingBoxReportsCandidatesAndLoadedContactsEveryStep) {
  Scene scene = ParseScene(R"(time_step: 0.001
materials:
  - {name: m, stiffness: 1e6, dissipation_time: 0.01, friction: 0.2}
bodies:
  - {name: ramp, static: true, rotation: {axis_angle: [0, 1, 0, 30]},
     geoms: [{shape: half_space, material: m}]}
  - {name: box, mass: 1, position: [0.0125, 0, 0.021650635094610966],
     rotation: {axis_angle: [0, 1, 0, 30]},
     geoms: [{shape: box, size: [0.1, 0.2, 0.05], material: m}]}
)",
                           "ramp30.yaml");
  RunOptions options;
  options.steps = 1000;
  options.stats_path = (dir_ / "ramp.jsonl").string();
  std::ostringstream log;
  const RunSummary summary = RunHeadless(scene, options, log);
  EXPECT_EQ(summary.ExitStatus(), 0) << log.str();
  const std::vector<nlohmann::json> stats = ReadStatsChecked(dir_ / "ramp.jsonl");
  ASSERT_EQ(stats.size(), 1001u);  // the initial state, then one line per step
  int without_candidates = 0, without_load = 0, not_four = 0;
  for (size_t n = 1; n < stats.size(); ++n) {
    const int contacts = stats[n]["contacts"].get<int>();
    const int loaded = stats[n]["loaded_contacts"].get<int>();
    EXPECT_GE(contacts, loaded) << stats[n].dump();
    without_candidates += contacts == 0;
    without_load += loaded == 0;
    not_four += loaded != 4;
  }
  EXPECT_EQ(without_candidates, 0);
  EXPECT_EQ(without_load, 0);
  EXPECT_EQ(not_four, 0);
  // Gliding: ½ m v² at 1 s with v = a t = 3.21 m/s is 5.14 J (5%: regularized friction and the
  // compliant contact, as in ContactMargin.BoxSlidingDownARampKeepsItsContacts).
  const double a = 9.81 * (0.5 - 0.2 * std::cos(M_PI / 6));
  EXPECT_NEAR(stats.back()["kinetic_energy"].get<double>(), 0.5 * a * a, 0.05 * 0.5 * a * a);
}

TEST_F(RunnerTest, UnwritableStatsFileThrows) {
  Scene scene = ParseScene(kFallingBall, "falling_ball.yaml");
  RunOptions options;
  options.steps = 1;
  options.stats_path = (dir_ / "no_such_dir" / "stats.jsonl").string();
  std::ostringstream log;
  EXPECT_THROW(RunHeadless(scene, options, log), std::runtime_error)
      << "an output that cannot be opened is an error, not a silent skip";
}

}  // namespace
}  // namespace contactlab
