// `contactlab compare` (app/compare.h).
#include "app/compare.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app/bench.h"
#include "app/plot_png.h"
#include "app/scene.h"
#include "engine/inspect/history.h"
#include "engine/inspect/metrics.h"
#include "engine/inspect/race.h"
#include "engine/sim/simulator.h"
#include "engine/sim/solver_registry.h"

namespace contactlab {

namespace {

constexpr int kExitSceneError = 2;
constexpr int kExitFailure = 1;

// A JSON number, or "nan" / "inf" / "-inf" for a value that is not finite (never null).
nlohmann::json Number(double x) {
  if (std::isfinite(x)) return x + 0.0;
  if (std::isnan(x)) return "nan";
  return x > 0 ? "inf" : "-inf";
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double Mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / v.size();
}

// CPU time of the calling thread [ms]: unlike wall time, not inflated by other processes
// sharing the cores.
double ThreadCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string part;
  std::istringstream in(s);
  while (std::getline(in, part, sep)) out.push_back(part);
  if (!s.empty() && s.back() == sep) out.push_back("");
  return out;
}

const uint32_t kColors[] = {0x1f77b4, 0xd62728, 0x2ca02c, 0xff7f0e, 0x9467bd,
                            0x8c564b, 0xe377c2, 0x7f7f7f};

std::string Fixed(double x, int precision) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(precision) << x;
  return os.str();
}

std::string Sci(double x) {
  std::ostringstream os;
  os << std::scientific << std::setprecision(2) << x;
  return os.str();
}

}  // namespace

std::vector<std::string> ConfigOverrides(const std::string& spec, const std::string& option) {
  const std::vector<std::string> parts = Split(spec, ':');
  SolverType type;
  if (parts.empty() || !ParseSolverType(parts[0], &type)) {
    std::string names;
    for (const char* n : SolverTypeNames()) names += (names.empty() ? "" : " | ") + std::string(n);
    throw SceneError(option + ": '" + spec + "': the configuration must start with a solver (" +
                     names + ")");
  }
  std::vector<std::string> out{"solver.type=" + parts[0]};
  for (size_t i = 1; i < parts.size(); ++i) {
    if (parts[i].find('=') == std::string::npos || parts[i].front() == '=') {
      throw SceneError(option + ": '" + spec + "': '" + parts[i] +
                       "' is not KEY=VALUE (e.g. pgs:solver.pgs.max_iterations=500)");
    }
    out.push_back(parts[i]);
  }
  return out;
}

std::vector<CompareResult> RunCompare(const std::string& scene_path, const CompareOptions& options,
                                      const std::string& json_path, std::ostream& out) {
  if (options.configs.empty()) throw SceneError("--configs: give at least one configuration");
  // Every configuration's scene is loaded (and so checked) before anything runs.
  std::vector<Scene> scenes;
  for (const std::string& spec : options.configs) {
    std::vector<std::string> overrides = options.overrides;
    for (std::string& o : ConfigOverrides(spec)) overrides.push_back(std::move(o));
    scenes.push_back(LoadScene(scene_path, overrides));
  }
  int steps = options.steps;
  if (steps <= 0) {
    steps = options.duration > 0
                ? RunSteps(scenes[0], options.duration, "--duration")
                : RunSteps(scenes[0], scenes[0].duration, "duration");
  }
  if (options.race_step >= 0 && options.race_step >= kMaxRunSteps) {
    throw SceneError("--step " + std::to_string(options.race_step) + ": out of range");
  }

  std::vector<CompareResult> results;
  std::optional<StepRecord> frozen;
  for (size_t c = 0; c < scenes.size(); ++c) {
    const Scene& scene = scenes[c];
    CompareResult r;
    r.config = options.configs[c];
    r.solver = SolverTypeName(scene.settings.solver_type);
    r.model = ContactModelName(scene.settings.contact.model);
    Simulator sim(scene.model, scene.settings);
    const StepMetrics m0 = sim.ComputeMetrics(sim.state(), {});
    r.energy_start = m0.kinetic_energy + m0.potential_energy;
    std::vector<double> step_ms, solve_ms, cpu_ms;
    double ncp_sum = 0, slip_sum = 0, iter_sum = 0, rigid_sum = 0;
    int ncp_n = 0, slip_n = 0, rigid_n = 0;
    // The race needs the problem of step race_step: the first configuration runs at least that
    // far.
    const int run_steps = c == 0 && options.race_step >= steps ? options.race_step + 1 : steps;
    double energy_end = r.energy_start;
    for (int k = 0; k < run_steps; ++k) {
      const double cpu0 = ThreadCpuMs();
      const StepRecord& rec = sim.Step();
      const double cpu1 = ThreadCpuMs();
      if (c == 0 && k == options.race_step) frozen = rec;
      if (k >= steps) continue;
      ++r.steps;
      step_ms.push_back(rec.timings.total_ms);
      cpu_ms.push_back(cpu1 - cpu0);
      solve_ms.push_back(rec.result.stats.solve_ms);
      iter_sum += rec.result.stats.iterations + rec.earlier_iterations;
      r.max_iterations =
          std::max(r.max_iterations, rec.result.stats.iterations + rec.earlier_iterations);
      const double ncp = NcpResidualOrNan(rec.problem, rec.result);
      if (std::isfinite(ncp)) {
        ncp_sum += ncp;
        ++ncp_n;
        r.ncp_residual_max = std::max(r.ncp_residual_max, ncp);
      } else {
        r.ncp_residual_max = ncp;  // not computable: shown as nan, never as a number
      }
      const double rigid = NcpResidualOrNan(rec.problem, rec.result, NcpModel::kRigid);
      if (std::isfinite(rigid)) {
        rigid_sum += rigid;
        ++rigid_n;
        r.ncp_rigid_max = std::max(r.ncp_rigid_max, rigid);
      } else {
        r.ncp_rigid_max = rigid;
      }
      r.momentum_error = std::max(r.momentum_error, rec.result.stats.momentum_error);
      r.max_penetration = std::max(r.max_penetration, rec.metrics.max_penetration);
      bool stiction = false;
      for (Regime g : rec.result.regime) stiction = stiction || g == Regime::kStiction;
      if (stiction) {
        slip_sum += rec.metrics.mean_stiction_slip;
        ++slip_n;
      }
      energy_end = rec.metrics.kinetic_energy + rec.metrics.potential_energy;
      if (rec.Failed()) {
        if (r.failures++ == 0) {
          r.first_failure = "step " + std::to_string(rec.step) + ": " +
                            SolverStatusName(rec.result.stats.status) +
                            (rec.result.stats.message.empty() ? "" : ": ") +
                            rec.result.stats.message;
        }
      }
      const SolverStatus st = rec.result.stats.status;
      if (st == SolverStatus::kNonFiniteState || st == SolverStatus::kNonFiniteInput) {
        r.first_failure += " (run stopped: the state no longer advances)";
        break;
      }
    }
    r.ms_per_step = Median(step_ms);
    r.cpu_ms_per_step = Median(cpu_ms);
    r.mean_cpu_ms_per_step = Mean(cpu_ms);
    r.solve_ms = Median(solve_ms);
    r.iterations = r.steps > 0 ? iter_sum / r.steps : 0;
    r.ncp_residual_mean = ncp_n > 0 ? ncp_sum / ncp_n : std::numeric_limits<double>::quiet_NaN();
    r.ncp_rigid_mean =
        rigid_n > 0 ? rigid_sum / rigid_n : std::numeric_limits<double>::quiet_NaN();
    r.stiction_slip = slip_n > 0 ? slip_sum / slip_n : 0;
    r.energy_drift = energy_end - r.energy_start;
    results.push_back(std::move(r));
  }

  // Race on the frozen step: every configuration re-solves the same recorded problem.
  if (options.race_step >= 0) {
    if (!frozen) {
      throw SceneError("--step " + std::to_string(options.race_step) +
                       ": the first configuration stopped before that step");
    }
    for (size_t c = 0; c < scenes.size(); ++c) {
      results[c].race = RaceFrozenStep(*frozen, scenes[c].settings).points;
    }
  }

  // Table.
  size_t w = 8;
  for (const CompareResult& r : results) w = std::max(w, r.config.size() + 2);
  out << std::left << std::setw(static_cast<int>(w)) << "config" << std::right << std::setw(10)
      << "ms/step" << std::setw(10) << "solve_ms" << std::setw(8) << "iters" << std::setw(11)
      << "ncp_mean" << std::setw(11) << "ncp_max" << std::setw(11) << "e_m_max" << std::setw(10)
      << "pen_mm" << std::setw(11) << "slip_m/s" << std::setw(11) << "dE_J" << std::setw(6)
      << "fail" << std::setw(12) << "ncp_rigid" << std::setw(10) << "cpu_ms" << "\n";
  for (const CompareResult& r : results) {
    out << std::left << std::setw(static_cast<int>(w)) << r.config << std::right << std::setw(10)
        << Fixed(r.ms_per_step, 3) << std::setw(10) << Fixed(r.solve_ms, 3) << std::setw(8)
        << Fixed(r.iterations, 1) << std::setw(11) << Sci(r.ncp_residual_mean) << std::setw(11)
        << Sci(r.ncp_residual_max) << std::setw(11) << Sci(r.momentum_error) << std::setw(10)
        << Fixed(r.max_penetration * 1e3, 3) << std::setw(11) << Sci(r.stiction_slip)
        << std::setw(11) << Sci(r.energy_drift) << std::setw(6) << r.failures << std::setw(12)
        << Sci(r.ncp_rigid_mean) << std::setw(10) << Fixed(r.cpu_ms_per_step, 3) << "\n";
  }
  for (const CompareResult& r : results) {
    if (r.failures > 0) out << r.config << ": first failure: " << r.first_failure << "\n";
  }
  if (options.race_step >= 0) {
    out << "\nrace on step " << options.race_step << " (" << frozen->problem.constraints.size()
        << " constraints, " << frozen->problem.nv << " dofs):\n";
    out << std::left << std::setw(static_cast<int>(w)) << "config" << std::right << std::setw(7)
        << "cap" << std::setw(7) << "iters" << std::setw(12) << "solve_ms" << std::setw(12)
        << "ncp" << std::setw(12) << "e_m" << "  status\n";
    for (const CompareResult& r : results) {
      for (const RacePoint& p : r.race) {
        out << std::left << std::setw(static_cast<int>(w)) << r.config << std::right << std::setw(7)
            << p.cap << std::setw(7) << p.iterations << std::setw(12) << Fixed(p.solve_ms, 4)
            << std::setw(12) << Sci(p.ncp_residual) << std::setw(12) << Sci(p.momentum_error)
            << "  " << SolverStatusName(p.status) << "\n";
      }
    }
  }

  if (!options.plot_path.empty() && options.race_step >= 0) {
    std::vector<PlotSeries> by_time, by_iter;
    for (size_t c = 0; c < results.size(); ++c) {
      PlotSeries t(results[c].config), it(results[c].config);
      t.color = it.color = kColors[c % 8];
      for (const RacePoint& p : results[c].race) {
        t.x.push_back(p.solve_ms);
        t.y.push_back(p.ncp_residual);
        it.x.push_back(std::max(p.iterations, 1));
        it.y.push_back(p.ncp_residual);
      }
      by_time.push_back(t);
      by_iter.push_back(it);
    }
    std::string error;
    const std::string title = "step " + std::to_string(options.race_step) + ": NCP residual";
    if (!WritePlotPng(options.plot_path, PlotOptions(title, "solve time [ms]", "NCP residual",
                                                    true, true),
                      by_time, &error)) {
      throw std::runtime_error("--plot: " + error);
    }
    std::string iter_path = options.plot_path;
    const size_t dot = iter_path.rfind(".png");
    iter_path = (dot == std::string::npos ? iter_path : iter_path.substr(0, dot)) +
                "_iterations.png";
    if (!WritePlotPng(iter_path, PlotOptions(title, "iterations", "NCP residual", true, true),
                      by_iter, &error)) {
      throw std::runtime_error("--plot: " + error);
    }
    out << "plots: " << options.plot_path << ", " << iter_path << "\n";
  }

  if (!json_path.empty()) {
    nlohmann::json j;
    j["scene"] = scene_path;
    j["steps"] = steps;
    j["race_step"] = options.race_step;
    nlohmann::json arr = nlohmann::json::array();
    for (const CompareResult& r : results) {
      nlohmann::json o;
      o["config"] = r.config;
      o["solver"] = r.solver;
      o["contact_model"] = r.model;
      o["steps"] = r.steps;
      o["ms_per_step"] = Number(r.ms_per_step);
      o["solve_ms"] = Number(r.solve_ms);
      o["iterations"] = Number(r.iterations);
      o["max_iterations"] = r.max_iterations;
      o["ncp_residual_mean"] = Number(r.ncp_residual_mean);
      o["ncp_residual_max"] = Number(r.ncp_residual_max);
      o["cpu_ms_per_step"] = Number(r.cpu_ms_per_step);
      o["mean_cpu_ms_per_step"] = Number(r.mean_cpu_ms_per_step);
      o["ncp_rigid_mean"] = Number(r.ncp_rigid_mean);
      o["ncp_rigid_max"] = Number(r.ncp_rigid_max);
      o["momentum_error"] = Number(r.momentum_error);
      o["max_penetration"] = Number(r.max_penetration);
      o["stiction_slip"] = Number(r.stiction_slip);
      o["energy_start"] = Number(r.energy_start);
      o["energy_drift"] = Number(r.energy_drift);
      o["failures"] = r.failures;
      o["first_failure"] = r.first_failure;
      nlohmann::json race = nlohmann::json::array();
      for (const RacePoint& p : r.race) {
        race.push_back({{"cap", p.cap},
                        {"iterations", p.iterations},
                        {"solve_ms", Number(p.solve_ms)},
                        {"ncp_residual", Number(p.ncp_residual)},
                        {"momentum_error", Number(p.momentum_error)},
                        {"status", SolverStatusName(p.status)}});
      }
      o["race"] = race;
      arr.push_back(o);
    }
    j["configs"] = arr;
    std::ofstream f(json_path);
    f << j.dump(2) << "\n";
    if (!f) throw std::runtime_error("--json: cannot write " + json_path);
  }
  return results;
}

void AddCompareCommand(CLI::App& app) {
  struct Args {
    std::string scene, json_path, configs;
    CompareOptions options;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "compare", "Run a scene under several solver configurations and compare cost and accuracy");
  cmd->add_option("scene", args->scene, "Scene file (YAML)")->required();
  cmd->add_option("--configs", args->configs,
                  "Comma-separated configurations SOLVER[:KEY=VALUE...], e.g. "
                  "sap,canal,pgs:solver.pgs.max_iterations=500")
      ->required();
  cmd->add_option("--set", args->options.overrides, "Override a value in every configuration")
      ->allow_extra_args(false);
  cmd->add_option("--json", args->json_path, "Write the results as JSON");
  cmd->add_option("--steps", args->options.steps, "Steps per configuration")
      ->check(CLI::Range(1, kMaxRunSteps));
  cmd->add_option("--duration", args->options.duration, "Simulated time per configuration [s]")
      ->check(CLI::Range(1e-9, 1e9));
  cmd->add_option("--step", args->options.race_step,
                  "Race every configuration on this frozen step (0-based)")
      ->check(CLI::Range(0, kMaxRunSteps - 1));
  cmd->add_option("--plot", args->options.plot_path,
                  "With --step: write the work-precision plot (PNG; and *_iterations.png)");
  cmd->callback([args]() {
    int code = 0;
    try {
      args->options.configs.clear();
      for (const std::string& c : Split(args->configs, ',')) {
        if (c.empty()) throw SceneError("--configs: an empty configuration in '" + args->configs + "'");
        args->options.configs.push_back(c);
      }
      if (!args->options.plot_path.empty() && args->options.race_step < 0) {
        throw SceneError("--plot needs --step N");
      }
      RunCompare(args->scene, args->options, args->json_path, std::cout);
    } catch (const SceneError& e) {
      std::cerr << e.what() << std::endl;
      code = kExitSceneError;
    } catch (const std::exception& e) {
      std::cerr << "error: " << e.what() << std::endl;
      code = kExitFailure;
    }
    throw CLI::RuntimeError(code);
  });
}

}  // namespace contactlab
