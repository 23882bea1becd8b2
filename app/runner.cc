#include "app/runner.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "engine/metrics.h"
#include "engine/multibody.h"
#include "engine/simulator.h"

namespace contactlab {
namespace {

// Reads a trajectory CSV (`step,time,body,x,y,z,...`) into per-body position trajectories.
std::map<std::string, Trajectory> ReadReference(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read reference trajectory '" + path + "'");
  std::map<std::string, Trajectory> out;
  std::string line;
  std::getline(in, line);  // header
  int line_no = 1;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty()) continue;
    std::vector<std::string> cells;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ',')) cells.push_back(cell);
    try {
      if (cells.size() < 6) throw std::invalid_argument("short row");
      VecX p(3);
      p << std::stod(cells[3]), std::stod(cells[4]), std::stod(cells[5]);
      Trajectory& tr = out[cells[2]];
      const double t = std::stod(cells[1]);
      if (!tr.t.empty() && t <= tr.t.back()) throw std::invalid_argument("time not increasing");
      tr.Add(t, p);
    } catch (const std::exception& e) {
      throw std::runtime_error("reference trajectory '" + path + "' line " +
                               std::to_string(line_no) + ": " + e.what());
    }
  }
  return out;
}

}  // namespace

std::vector<int> TrajectoryBodies(const Model& model) {
  std::vector<int> moving;
  for (size_t b = 0; b < model.bodies.size(); ++b) {
    const Body& body = model.bodies[b];
    if (body.joint >= 0 || body.prescribed) moving.push_back(static_cast<int>(b));
  }
  return moving;
}

void WriteTrajectoryHeader(std::ostream& out) {
  out << std::setprecision(17);
  out << "step,time,body,x,y,z,qw,qx,qy,qz\n";
}

void WriteTrajectoryRows(std::ostream& out, const Multibody& multibody,
                         const std::vector<int>& bodies, int step, const State& state) {
  KinematicsCache kin;
  multibody.UpdateKinematics(state.q, state.time, &kin);
  for (int b : bodies) {
    const Pose& X = kin.X_WB[b];
    out << step << ',' << state.time << ',' << multibody.model().bodies[b].name << ',' << X.p.x()
        << ',' << X.p.y() << ',' << X.p.z() << ',' << X.q.w() << ',' << X.q.x() << ','
        << X.q.y() << ',' << X.q.z() << '\n';
  }
}

std::string RunSummary::ToJson() const {
  nlohmann::json j;
  j["scene"] = scene;
  j["steps"] = steps;
  j["simulated_time"] = simulated_time;
  j["mean_iterations"] = mean_iterations;
  j["max_iterations"] = max_iterations;
  j["mean_solve_ms"] = mean_solve_ms;
  j["mean_step_ms"] = mean_step_ms;
  j["failures"] = failures;
  j["free_motion_failures"] = free_motion_failures;
  j["final_kinetic_energy"] = final_kinetic_energy;
  j["final_potential_energy"] = final_potential_energy;
  j["final_energy"] = final_energy;
  j["max_penetration"] = max_penetration;
  if (!std::isnan(position_error_rms)) j["position_error_rms"] = position_error_rms;
  return j.dump();
}

int RunStepCount(const Scene& scene, const RunOptions& options) {
  if (options.steps > 0) return options.steps;
  const double duration = options.duration > 0 ? options.duration : scene.duration;
  const double n = std::round(duration / scene.settings.time_step);
  return static_cast<int>(std::clamp(n, 1.0, 2147483647.0));
}

RunSummary RunHeadless(Scene& scene, const RunOptions& options, std::ostream& log) {
  const int steps = RunStepCount(scene, options);
  Simulator sim(scene.model, scene.settings);

  std::ofstream stats, trajectory;
  if (!options.stats_path.empty()) {
    stats.open(options.stats_path);
    if (!stats) throw std::runtime_error("cannot write stats file '" + options.stats_path + "'");
  }
  const std::vector<int> moving = TrajectoryBodies(sim.model());
  if (!options.trajectory_path.empty()) {
    trajectory.open(options.trajectory_path);
    if (!trajectory) {
      throw std::runtime_error("cannot write trajectory file '" + options.trajectory_path + "'");
    }
    WriteTrajectoryHeader(trajectory);
    WriteTrajectoryRows(trajectory, sim.multibody(), moving, 0, sim.state());
  }

  // Reference positions for e_q, matched to the moving bodies by name.
  std::vector<std::pair<int, Trajectory>> reference;
  if (!options.reference_path.empty()) {
    std::map<std::string, Trajectory> ref = ReadReference(options.reference_path);
    for (int b : moving) {
      auto it = ref.find(sim.model().bodies[b].name);
      if (it != ref.end()) reference.emplace_back(b, std::move(it->second));
    }
    if (reference.empty()) {
      throw std::runtime_error("reference trajectory '" + options.reference_path +
                               "' has none of the scene's moving bodies");
    }
  }
  auto position_error_sq = [&](const State& st) {
    KinematicsCache kin;
    sim.multibody().UpdateKinematics(st.q, st.time, &kin);
    double sum = 0;
    for (const auto& [b, tr] : reference) {
      sum += (kin.X_WB[b].p - InterpolateTrajectory(tr, st.time).head<3>()).squaredNorm();
    }
    return sum / reference.size();
  };
  double eq_integral = 0, eq_prev = reference.empty() ? 0.0 : position_error_sq(sim.state());
  const double t_start = sim.state().time;

  RunSummary summary;
  summary.scene = scene.path;
  double iterations_sum = 0, solve_ms_sum = 0, step_ms_sum = 0;
  for (int n = 0; n < steps; ++n) {
    const StepRecord& rec = sim.Step();
    const SolverStats& st = rec.result.stats;
    const StepMetrics& m = rec.metrics;
    iterations_sum += st.iterations;
    summary.max_iterations = std::max(summary.max_iterations, st.iterations);
    solve_ms_sum += st.solve_ms;
    step_ms_sum += rec.timings.total_ms;
    if (st.status != SolverStatus::kConverged) ++summary.failures;
    if (!rec.free_motion.converged) ++summary.free_motion_failures;
    summary.max_penetration = std::max(summary.max_penetration, m.max_penetration);
    summary.final_kinetic_energy = m.kinetic_energy;
    summary.final_potential_energy = m.potential_energy;
    if (!reference.empty()) {
      const double e2 = position_error_sq(rec.after);
      eq_integral += 0.5 * (eq_prev + e2) * (rec.after.time - rec.before.time);
      eq_prev = e2;
      summary.position_error_rms = std::sqrt(eq_integral / (rec.after.time - t_start));
    }
    if (stats.is_open()) {
      nlohmann::json j;
      j["step"] = n + 1;
      j["time"] = rec.after.time;
      j["contacts"] = m.num_contacts;
      j["iterations"] = st.iterations;
      j["islands"] = st.islands.size();  // 0: solved as one problem
      j["status"] = SolverStatusName(st.status);
      j["momentum_error"] = st.momentum_error;
      j["complementarity_error"] = st.complementarity_error;
      j["cost"] = st.cost;
      j["solve_ms"] = st.solve_ms;
      j["step_ms"] = rec.timings.total_ms;
      j["max_penetration"] = m.max_penetration + 0.0;  // +0.0 turns -0 into 0
      j["kinetic_energy"] = m.kinetic_energy;
      j["potential_energy"] = m.potential_energy;
      j["total_energy"] = m.kinetic_energy + m.potential_energy;
      j["mean_stiction_slip"] = m.mean_stiction_slip;
      // Stiction slip bound of the SAP paper (eq. 31), v_s = σ μ δt ‖g‖, with the largest μ of
      // the step's contacts (0 without contacts).
      double mu_max = 0;
      for (const ConstraintData& c : rec.problem.constraints) mu_max = std::max(mu_max, c.friction);
      j["stiction_slip_bound"] =
          sim.settings().sap.sigma * mu_max * rec.problem.time_step * sim.settings().gravity.norm();
      j["ncp_residual"] = ComputeNcpResidual(rec.problem, rec.result).residual;
      j["free_motion_iterations"] = rec.free_motion.iterations;
      j["free_motion_converged"] = rec.free_motion.converged;
      if (!reference.empty()) {
        j["position_error"] = std::sqrt(eq_prev);
        j["position_error_rms"] = summary.position_error_rms;
      }
      stats << j.dump() << '\n';
    }
    if (trajectory.is_open()) WriteTrajectoryRows(trajectory, sim.multibody(), moving, n + 1, rec.after);
  }
  summary.steps = steps;
  summary.simulated_time = sim.state().time;
  summary.mean_iterations = iterations_sum / steps;
  summary.mean_solve_ms = solve_ms_sum / steps;
  summary.mean_step_ms = step_ms_sum / steps;
  summary.final_energy = summary.final_kinetic_energy + summary.final_potential_energy;

  if (stats.is_open() && !stats.flush()) {
    throw std::runtime_error("error writing stats file '" + options.stats_path + "'");
  }
  if (trajectory.is_open() && !trajectory.flush()) {
    throw std::runtime_error("error writing trajectory file '" + options.trajectory_path + "'");
  }
  log << summary.ToJson() << std::endl;
  return summary;
}

}  // namespace contactlab
