#include "app/runner.h"

#include <time.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "app/params.h"
#include "engine/inspect/metrics.h"
#include "engine/multibody/multibody.h"
#include "engine/sim/simulator.h"

namespace contactlab {

namespace {
// CPU time of the calling thread [ms] (the per-step `cpu_ms` of --stats: unlike step_ms, not
// inflated by other processes sharing the cores).
double ThreadCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

// A JSON number, or for a value that is not finite the string "nan", "inf" or "-inf":
// nlohmann::json would write null, which readers take for a missing value or 0.
nlohmann::json Number(double x) {
  if (std::isfinite(x)) return x + 0.0;  // +0.0 turns -0 into 0
  if (std::isnan(x)) return "nan";
  return x > 0 ? "inf" : "-inf";
}

// Reads a trajectory CSV (`step,time,body,x,y,z,...`, 10 or 16 columns) into per-body position
// trajectories.
std::map<std::string, Trajectory> ReadReference(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read reference trajectory '" + path + "'");
  std::map<std::string, Trajectory> out;
  std::vector<std::string> cells;
  int record = 0;
  try {
    ReadCsvRecord(in, &cells);  // header
  } catch (const std::exception& e) {
    throw std::runtime_error("reference trajectory '" + path + "' header: " + e.what());
  }
  ++record;
  while (true) {
    try {
      if (!ReadCsvRecord(in, &cells)) break;
    } catch (const std::exception& e) {
      throw std::runtime_error("reference trajectory '" + path + "' record " +
                               std::to_string(record + 1) + ": " + e.what());
    }
    ++record;
    if (cells.size() == 1 && cells[0].empty()) continue;  // blank line
    try {
      if (cells.size() < 6) throw std::invalid_argument("short row");
      VecX p(3);
      p << std::stod(cells[3]), std::stod(cells[4]), std::stod(cells[5]);
      Trajectory& tr = out[cells[2]];
      const double t = std::stod(cells[1]);
      if (!tr.t.empty() && t <= tr.t.back()) throw std::invalid_argument("time not increasing");
      tr.Add(t, p);
    } catch (const std::exception& e) {
      throw std::runtime_error("reference trajectory '" + path + "' record " +
                               std::to_string(record) + ": " + e.what());
    }
  }
  return out;
}

}  // namespace

bool ReadCsvRecord(std::istream& in, std::vector<std::string>* fields) {
  fields->clear();
  int c = in.get();
  if (c == std::char_traits<char>::eof()) return false;
  std::string field;
  bool quoted = false;
  while (true) {
    if (quoted) {
      if (c == std::char_traits<char>::eof()) {
        throw std::runtime_error("unterminated quoted field");
      }
      if (c == '"') {
        if (in.peek() == '"') {
          field += '"';
          in.get();
        } else {
          quoted = false;
        }
      } else {
        field += static_cast<char>(c);
      }
    } else if (c == std::char_traits<char>::eof() || c == '\n') {
      if (!field.empty() && field.back() == '\r') field.pop_back();
      fields->push_back(field);
      return true;
    } else if (c == ',') {
      fields->push_back(field);
      field.clear();
    } else if (c == '"' && field.empty()) {
      quoted = true;
    } else {
      field += static_cast<char>(c);
    }
    c = in.get();
  }
}

std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + '"';
}

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
  out << "step,time,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz\n";
}

void WriteTrajectoryRows(std::ostream& out, const Multibody& multibody,
                         const std::vector<int>& bodies, int step, const State& state) {
  KinematicsCache kin;
  multibody.UpdateKinematics(state.q, state.time, &kin);
  const Model& model = multibody.model();
  for (int b : bodies) {
    const Pose& X = kin.X_WB[b];
    const Body& body = model.bodies[b];
    Vec3 v = Vec3::Zero(), w = Vec3::Zero();
    if (body.tree >= 0) {
      v = multibody.PointVelocity(kin, state.v, b, X.p);
      w = multibody.AngularVelocity(kin, state.v, b);
    } else if (body.prescribed) {
      // The prescribed pose's own motion (a conveyor's surface velocity is not body motion).
      const PrescribedMotion& mo = body.motion;
      const double om = 2.0 * kPi * mo.frequency;
      v = mo.velocity + mo.oscillation_axis * (mo.amplitude * om * std::cos(om * state.time));
      w = mo.angular_velocity;
    }
    out << step << ',' << state.time << ',' << CsvField(body.name) << ',' << X.p.x() << ','
        << X.p.y() << ',' << X.p.z() << ',' << X.q.w() << ',' << X.q.x() << ',' << X.q.y() << ','
        << X.q.z() << ',' << v.x() << ',' << v.y() << ',' << v.z() << ',' << w.x() << ','
        << w.y() << ',' << w.z() << '\n';
  }
}

std::string RunSummary::ToJson() const {
  nlohmann::json j;
  j["scene"] = scene;
  j["requested_steps"] = requested_steps;
  j["steps"] = steps;
  j["simulated_time"] = Number(simulated_time);
  j["mean_iterations"] = Number(mean_iterations);
  j["max_iterations"] = max_iterations;
  j["mean_solve_ms"] = Number(mean_solve_ms);
  j["mean_step_ms"] = Number(mean_step_ms);
  j["failures"] = failures;
  j["free_motion_failures"] = free_motion_failures;
  j["steps_with_warnings"] = steps_with_warnings;
  nlohmann::json w = nlohmann::json::object();
  for (int i = 0; i < kNumStepWarnings; ++i) {
    w[StepWarningName(static_cast<StepWarning>(i))] = warning_counts[i];
  }
  j["warnings"] = w;
  j["final_kinetic_energy"] = Number(final_kinetic_energy);
  j["final_potential_energy"] = Number(final_potential_energy);
  j["final_energy"] = Number(final_energy);
  j["max_penetration"] = Number(max_penetration);
  j["max_pressure"] = Number(max_pressure);
  j["max_faces"] = max_faces;
  if (!std::isnan(position_error_rms)) j["position_error_rms"] = Number(position_error_rms);
  if (stopped_at_step >= 0) {
    j["stopped_at_step"] = stopped_at_step;
    j["stop_reason"] = stop_reason;
  }
  // A scene path that is not UTF-8 is written with U+FFFD in place of the bad bytes (the JSON
  // library throws on it otherwise).
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

int RunSummary::ExitStatus() const {
  if (failures > 0 || free_motion_failures > 0 || stopped_at_step >= 0) return kExitRunFailedSteps;
  if (steps_with_warnings > 0) return kExitRunWarnings;
  return 0;
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
  }
  // The initial state: a state that is not finite (or whose energy overflows, as a 1e308
  // position does) is reported as step 0 and the run stops before stepping.
  const std::string initial_bad = sim.NonFiniteQuantity(sim.state());
  if (trajectory.is_open() && initial_bad.empty()) {
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
  const double t_start = sim.state().time;

  RunSummary summary;
  summary.scene = scene.path;
  summary.requested_steps = steps;

  // Squared position error of the initial state against the reference (0 without one).
  const double eq_initial =
      reference.empty() || !initial_bad.empty() ? 0.0 : position_error_sq(sim.state());
  double eq_prev = eq_initial;
  auto write_initial = [&](const StepRecord* first) {
    if (!stats.is_open()) return;
    nlohmann::json j;
    j["step"] = 0;
    j["time"] = Number(sim.state().time);
    if (!initial_bad.empty()) {
      j["status"] = SolverStatusName(SolverStatus::kNonFiniteState);
      j["message"] = "initial state is not finite: " + initial_bad;
      stats << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
      return;
    }
    j["status"] = "initial_state";
    // The run's parameters (every field of the step, solver and contact tables, after --set).
    j["parameters"] = StepParamsJson(sim.settings());
    const StepMetrics m0 = first ? sim.ComputeMetrics(first->before, first->contacts)
                                 : sim.ComputeMetrics(sim.state(), {});
    j["contacts"] = first ? static_cast<int>(first->contacts.size()) : 0;
    j["max_penetration"] = Number(m0.max_penetration);
    j["kinetic_energy"] = Number(m0.kinetic_energy);
    j["potential_energy"] = Number(m0.potential_energy);
    j["total_energy"] = Number(m0.kinetic_energy + m0.potential_energy);
    if (!reference.empty()) j["position_error"] = Number(std::sqrt(eq_initial));
    stats << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
  };
  if (!initial_bad.empty()) {
    write_initial(nullptr);
    summary.stopped_at_step = 0;
    summary.stop_reason = "initial state is not finite: " + initial_bad;
  }

  double eq_integral = 0;

  double iterations_sum = 0, solve_ms_sum = 0, step_ms_sum = 0;
  int run = 0;
  {
    const StepMetrics m0 = sim.ComputeMetrics(sim.state(), {});
    summary.final_kinetic_energy = m0.kinetic_energy;
    summary.final_potential_energy = m0.potential_energy;
  }
  for (int n = 0; n < steps && summary.stopped_at_step < 0; ++n) {
    const double cpu0 = ThreadCpuMs();
    const StepRecord& rec = sim.Step();
    const double step_cpu_ms = ThreadCpuMs() - cpu0;
    if (n == 0) write_initial(&rec);
    ++run;
    const SolverStats& st = rec.result.stats;
    const StepMetrics& m = rec.metrics;
    const StepDiagnostics& d = rec.diagnostics;
    iterations_sum += st.iterations + rec.earlier_iterations;
    summary.max_iterations = std::max(summary.max_iterations, st.iterations + rec.earlier_iterations);
    solve_ms_sum += st.solve_ms;
    step_ms_sum += rec.timings.total_ms;
    if (st.status != SolverStatus::kConverged) ++summary.failures;
    if (!rec.free_motion.converged) ++summary.free_motion_failures;
    if (d.warnings != 0) ++summary.steps_with_warnings;
    for (int w = 0; w < kNumStepWarnings; ++w) {
      if (d.Has(static_cast<StepWarning>(w))) ++summary.warning_counts[w];
    }
    // The state did not advance (non-finite input or result): nothing more to run.
    const bool stuck = st.status == SolverStatus::kNonFiniteState ||
                       st.status == SolverStatus::kNonFiniteInput;
    if (stuck) {
      summary.stopped_at_step = n + 1;
      summary.stop_reason = "step " + std::to_string(n + 1) + ": " + SolverStatusName(st.status) +
                            (st.message.empty() ? "" : ": " + st.message);
    }
    summary.max_penetration = std::max(summary.max_penetration, m.max_penetration);
    summary.max_pressure = std::max(summary.max_pressure, m.max_pressure);
    summary.max_faces = std::max(summary.max_faces, m.num_faces);
    summary.final_kinetic_energy = m.kinetic_energy;
    summary.final_potential_energy = m.potential_energy;
    if (!reference.empty() && !stuck) {
      const double e2 = position_error_sq(rec.after);
      eq_integral += 0.5 * (eq_prev + e2) * (rec.after.time - rec.before.time);
      eq_prev = e2;
      summary.position_error_rms = std::sqrt(eq_integral / (rec.after.time - t_start));
    }
    if (stats.is_open()) {
      nlohmann::json j;
      j["step"] = n + 1;
      j["time"] = Number(rec.after.time);
      j["contacts"] = m.num_contacts;
      j["loaded_contacts"] = m.num_loaded_contacts;
      j["iterations"] = st.iterations;
      {
        // CG iterations of the step's iterative Newton directions, from the solver's declared
        // series `linear_iterations` (0: direct solves, or a solver without such a series).
        long linear_iterations = 0;
        for (double x : st.iteration_log.Column("linear_iterations")) {
          if (std::isfinite(x)) linear_iterations += static_cast<long>(x);
        }
        j["linear_iterations"] = linear_iterations;
      }
      j["islands"] = st.islands.size();  // 0: solved as one problem
      j["status"] = SolverStatusName(st.status);
      if (!st.message.empty()) j["message"] = st.message;
      nlohmann::json warnings = nlohmann::json::array();
      for (int w = 0; w < kNumStepWarnings; ++w) {
        if (d.Has(static_cast<StepWarning>(w))) {
          warnings.push_back(StepWarningName(static_cast<StepWarning>(w)));
        }
      }
      j["warnings"] = warnings;
      if (!d.message.empty()) j["warning_message"] = d.message;
      j["energy_change"] = Number(d.energy_after - d.energy_before);
      j["energy_allowance"] = Number(d.elastic_energy + d.injected_energy + d.energy_tolerance);
      j["penetration_ratio"] = Number(d.penetration_ratio);
      j["speed_ratio"] = Number(d.speed_ratio);
      j["momentum_error"] = Number(st.momentum_error);
      j["complementarity_error"] = Number(st.complementarity_error);
      j["cost"] = Number(st.cost);
      j["solve_ms"] = Number(st.solve_ms);
      j["step_ms"] = Number(rec.timings.total_ms);
      j["cpu_ms"] = Number(step_cpu_ms);
      // Broad and narrow phase, and within it the pressure-field contact surfaces [ms].
      j["collision_ms"] = Number(rec.timings.collision_ms);
      j["hydroelastic_ms"] = Number(rec.timings.hydroelastic_ms);
      j["max_penetration"] = Number(m.max_penetration);
      // Pressure-field contact: patches, faces (contacts that stand for a face) and the largest
      // face pressure [Pa]; zero without compliant geometry.
      j["patches"] = m.num_patches;
      j["faces"] = m.num_faces;
      j["max_pressure"] = Number(m.max_pressure);
      j["kinetic_energy"] = Number(m.kinetic_energy);
      j["potential_energy"] = Number(m.potential_energy);
      j["total_energy"] = Number(m.kinetic_energy + m.potential_energy);
      j["mean_stiction_slip"] = Number(m.mean_stiction_slip);
      // Stiction slip bound of the SAP paper (eq. 31), v_s = σ μ δt ‖g‖, with the largest μ of
      // the step's contacts (0 without contacts) and the chosen solver's σ ("nan" for the
      // first-order solver, which has no σ).
      double mu_max = 0;
      for (const ConstraintData& c : rec.problem.constraints) mu_max = std::max(mu_max, c.friction);
      j["stiction_slip_bound"] = Number(SolverFrictionSigma(sim.settings()) * mu_max *
                                        rec.problem.time_step * sim.settings().gravity.norm());
      // A metric never aborts the run it measures: when the residual cannot be computed (an A
      // block that is not SPD after a failed step), say so instead.
      try {
        j["ncp_residual"] = Number(ComputeNcpResidual(rec.problem, rec.result).residual);
      } catch (const std::exception& e) {
        j["ncp_residual_error"] = e.what();
      }
      j["deferred_limits"] = rec.deferred_limits;
      j["limit_resolves"] = rec.limit_resolves;
      j["earlier_iterations"] = rec.earlier_iterations;
      j["free_motion_iterations"] = rec.free_motion.iterations;
      j["free_motion_converged"] = rec.free_motion.converged;
      if (!reference.empty()) {
        j["position_error"] = Number(std::sqrt(eq_prev));
        j["position_error_rms"] = Number(summary.position_error_rms);
      }
      stats << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    }
    if (trajectory.is_open() && !stuck) {
      WriteTrajectoryRows(trajectory, sim.multibody(), moving, n + 1, rec.after);
    }
  }
  summary.steps = run;
  summary.simulated_time = sim.state().time;
  const int divisor = std::max(run, 1);
  summary.mean_iterations = iterations_sum / divisor;
  summary.mean_solve_ms = solve_ms_sum / divisor;
  summary.mean_step_ms = step_ms_sum / divisor;
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
