// Headless runner: step count, JSON Lines statistics, CSV trajectory and the summary line, on a
// ball in free fall (closed-form state under symplectic Euler).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "app/runner.h"
#include "app/scene.h"

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

  // Stats: one JSON object per step.
  const std::vector<std::string> stats = ReadLines(dir_ / "stats.jsonl");
  ASSERT_EQ(stats.size(), static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    const nlohmann::json s = nlohmann::json::parse(stats[i]);
    for (const char* key :
         {"step", "time", "contacts", "iterations", "islands", "status", "momentum_error",
          "complementarity_error", "cost", "solve_ms", "step_ms", "max_penetration",
          "kinetic_energy", "potential_energy", "total_energy", "mean_stiction_slip"}) {
      EXPECT_TRUE(s.contains(key)) << "stats line " << i << " lacks " << key;
    }
    EXPECT_EQ(s["step"], i + 1) << "steps completed";
    EXPECT_NEAR(s["time"].get<double>(), (i + 1) * h, 1e-12);
    EXPECT_EQ(s["contacts"], 0);
    EXPECT_EQ(s["islands"], 0) << "a ball without contacts is solved as one problem";
  }

  // Trajectory: header, then the ball (not the static ground) at steps 0..n.
  const std::vector<std::string> traj = ReadLines(dir_ / "traj.csv");
  ASSERT_EQ(traj.size(), static_cast<size_t>(n + 2));
  EXPECT_EQ(traj[0], "step,time,body,x,y,z,qw,qx,qy,qz");
  EXPECT_EQ(traj[1].rfind("0,0,ball,0,0,1,1,0,0,0", 0), 0u) << traj[1];
  std::vector<std::string> cells;
  std::stringstream row(traj.back());
  for (std::string cell; std::getline(row, cell, ',');) cells.push_back(cell);
  ASSERT_EQ(cells.size(), 10u);
  EXPECT_EQ(cells[0], std::to_string(n));
  EXPECT_EQ(cells[2], "ball");
  EXPECT_NEAR(std::stod(cells[5]), z, 1e-12);
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
