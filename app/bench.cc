#include "app/bench.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "app/model_file_options.h"
#include "app/params.h"
#include "app/mjcf_export.h"
#include "app/output_files.h"
#include "app/runner.h"
#include "engine/inspect/metrics.h"
#include "engine/inspect/race.h"
#include "engine/multibody/multibody.h"
#include "engine/sim/simulator.h"
#include "engine/sim/solver_registry.h"

#ifdef CONTACTLAB_HAVE_MUJOCO
#include "app/mujoco_peer.h"
#endif

namespace contactlab {
namespace {

constexpr int kExitSceneError = 2;
constexpr int kExitFailure = 1;

double Median(std::vector<double> x) {
  if (x.empty()) return 0;
  const size_t mid = x.size() / 2;
  std::nth_element(x.begin(), x.begin() + mid, x.end());
  const double upper = x[mid];
  if (x.size() % 2) return upper;
  return 0.5 * (upper + *std::max_element(x.begin(), x.begin() + mid));
}

double Mean(const std::vector<double>& x) {
  double s = 0;
  for (double v : x) s += v;
  return x.empty() ? 0 : s / x.size();
}

std::string BaseName(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

struct ProbeSpec {
  std::string body, reference;  // reference empty: world
  double from = 0;              // [s]
};

// Parses BODY[@REF][:FROM]. Throws std::invalid_argument when malformed.
ProbeSpec ParseProbe(const std::string& probe) {
  const auto fail = [&probe](const std::string& why) {
    throw std::invalid_argument("--probe '" + probe + "': " + why +
                                " (expected BODY[@REF][:FROM], FROM in seconds >= 0)");
  };
  ProbeSpec spec;
  std::string rest = probe;
  const size_t colon = rest.rfind(':');
  if (colon != std::string::npos) {
    const std::string from = rest.substr(colon + 1);
    size_t used = 0;
    try {
      spec.from = std::stod(from, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (from.empty() || used != from.size() || !std::isfinite(spec.from) || spec.from < 0) {
      fail("FROM is not a number >= 0");
    }
    rest = rest.substr(0, colon);
  }
  const size_t at = rest.find('@');
  spec.body = rest.substr(0, at);
  if (at != std::string::npos) spec.reference = rest.substr(at + 1);
  if (spec.body.empty() || (at != std::string::npos && spec.reference.empty())) {
    fail("empty body name");
  }
  return spec;
}

// The probes present in one scene, and their positions at their start times.
class ProbeTracker {
 public:
  // Keeps the probes whose bodies the model has; adds a BenchProbe for each to `probes`.
  ProbeTracker(const Model& model, const BenchOptions& options, double time_step,
               std::vector<BenchProbe>* probes)
      : half_step_(0.5 * time_step) {
    for (const std::string& p : options.probes) {
      const ProbeSpec spec = ParseProbe(p);
      Item item;
      item.body = model.FindBody(spec.body);
      item.reference = spec.reference.empty() ? -1 : model.FindBody(spec.reference);
      if (item.body < 0 || (!spec.reference.empty() && item.reference < 0)) continue;
      item.from = spec.from;
      item.index = static_cast<int>(probes->size());
      BenchProbe bp;
      bp.name = p;
      bp.from = spec.from;
      probes->push_back(bp);
      items_.push_back(item);
    }
  }

  void Restart() {
    for (Item& item : items_) item.started = false;
  }

  // True when a probe's start time is reached at time t and its position is still unknown.
  bool Due(double t) const {
    for (const Item& item : items_) {
      if (!item.started && t >= item.from - half_step_) return true;
    }
    return false;
  }

  // Records the start positions due at time t; pose_of(body) gives the current world pose.
  template <typename PoseOf>
  void Observe(double t, PoseOf pose_of) {
    for (Item& item : items_) {
      if (item.started || t < item.from - half_step_) continue;
      item.start = Position(item, pose_of);
      item.started = true;
    }
  }

  // Displacements at the end of the run, written into `probes` (ContactLab or peer fields).
  // Returns the largest. Throws std::invalid_argument when a start time was never reached.
  template <typename PoseOf>
  double Finish(PoseOf pose_of, bool peer, std::vector<BenchProbe>* probes) const {
    double largest = 0;
    for (const Item& item : items_) {
      BenchProbe& bp = (*probes)[item.index];
      if (!item.started) {
        throw std::invalid_argument("--probe '" + bp.name + "': the run ends before FROM");
      }
      const Vec3 d = Position(item, pose_of) - item.start;
      if (peer) {
        bp.has_peer = true;
        bp.peer_displacement = d;
      } else {
        bp.displacement = d;
      }
      largest = std::max(largest, d.norm());
    }
    return largest;
  }

 private:
  struct Item {
    int index = -1;  // into BenchResult::probes
    int body = -1;
    int reference = -1;  // -1: world
    double from = 0;
    bool started = false;
    Vec3 start = Vec3::Zero();
  };

  template <typename PoseOf>
  static Vec3 Position(const Item& item, PoseOf pose_of) {
    Vec3 x = pose_of(item.body).p;
    if (item.reference >= 0) x -= pose_of(item.reference).p;
    return x;
  }

  double half_step_;
  std::vector<Item> items_;
};

#ifdef CONTACTLAB_HAVE_MUJOCO
// One MuJoCo run of the scene; grows MuJoCo's preallocated buffers and starts over when they
// overflow (MuJoCo 2.2.2 drops contacts silently past them).
void RunMujoco(const Scene& scene, int steps, const std::string& cone, ProbeTracker* probes,
               BenchResult* r) {
  MujocoPeerOptions options;
  options.cone = cone;
  for (int attempt = 0;; ++attempt) {
    MujocoPeer peer(scene, options);
    r->peer_version = MujocoPeer::Version();
    r->peer_notes = peer.exported().notes;
    r->peer_cone = peer.cone();
    r->peer_model = peer.loaded_file() ? "file" : "export";
    r->peer_tolerance = peer.tolerance();
    r->peer_iteration_cap = peer.iteration_cap();
    const double energy0 = peer.MechanicalEnergy();
    auto pose_of = [&peer](int b) { return peer.BodyPose(b); };
    probes->Restart();
    probes->Observe(peer.time(), pose_of);
    StepTimeSamples ms;
    double iterations = 0, contacts = 0, ncp_sum = 0, ncp_max = 0;
    r->peer_max_contacts = 0;
    r->peer_max_penetration = 0;
    for (int n = 0; n < steps && !peer.overflowed(); ++n) {
      ms.Add(peer.Step());
      // Outside the timed mj_step.
      const double ncp = peer.RigidNcpResidual().residual;
      ncp_sum += ncp;
      ncp_max = std::isfinite(ncp) ? std::max(ncp_max, ncp) : ncp;
      iterations += peer.solver_iterations();
      contacts += peer.num_contacts();
      r->peer_max_contacts = std::max(r->peer_max_contacts, peer.num_contacts());
      r->peer_max_penetration = std::max(r->peer_max_penetration, peer.max_penetration());
      if (probes->Due(peer.time())) probes->Observe(peer.time(), pose_of);
    }
    if (peer.overflowed()) {
      const int cap = MjcfMaxConstraintRows(peer.exported().nv);
      if (attempt >= 4 || peer.njmax() >= cap) {
        throw std::runtime_error("MuJoCo ran out of contacts / constraint rows (nconmax = " +
                                 std::to_string(peer.nconmax()) +
                                 ", njmax = " + std::to_string(peer.njmax()) + ")");
      }
      if (peer.loaded_file()) {
        options.nconmax = 2 * std::max(peer.nconmax(), 100);
        options.njmax = std::min(2 * std::max(peer.njmax(), 500), cap);
      } else {
        options.export_options.nconmax = 2 * peer.exported().nconmax;
        options.export_options.njmax = std::min(2 * peer.exported().njmax, cap);
      }
      continue;
    }
    r->peer_energy_change = peer.MechanicalEnergy() - energy0;
    r->peer_ms_per_step = ms.Median();
    r->peer_mean_ms_per_step = ms.Mean();
    r->peer_iterations = iterations / steps;
    r->peer_contacts = contacts / steps;
    r->peer_ncp_residual_rigid = ncp_sum / steps;
    r->peer_ncp_residual_rigid_max = ncp_max;
    r->peer_realtime_factor = r->time_step * 1e3 / r->peer_ms_per_step;
    r->peer_drift = probes->Finish(pose_of, /*peer=*/true, &r->probes);
    r->ratio = r->ms_per_step / r->peer_ms_per_step;
    r->peer_status = "ok";
    return;
  }
}
#endif

std::string Fixed(double x, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", digits, x);
  return buf;
}

std::string Num(double x) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.10g", x);
  return buf;
}

std::string Sci(double x) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.1e", x);
  return buf;
}

// Energy changes: sign, three significant digits.
std::string Signed(double x) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%+.2e", x);
  return buf;
}

std::string Pad(const std::string& s, size_t width, bool left = false) {
  // A value wider than its column still keeps one space from its neighbour.
  if (s.size() >= width) return left ? s + " " : " " + s;
  const std::string fill(width - s.size(), ' ');
  return left ? s + fill : fill + s;
}

}  // namespace

namespace {

// A JSON number, or "nan" / "inf" / "-inf" for a value that is not finite (never null).
nlohmann::json JsonNumber(double x) {
  if (std::isfinite(x)) return x + 0.0;
  if (std::isnan(x)) return "nan";
  return x > 0 ? "inf" : "-inf";
}

}  // namespace

nlohmann::json BenchResult::ToJson() const {
  nlohmann::json j;
  j["scene"] = scene;
  j["bodies"] = bodies;
  j["steps"] = steps;
  j["time_step"] = time_step;
  j["simulated_time"] = simulated_time;
  j["ms_per_step"] = ms_per_step;
  j["mean_ms_per_step"] = mean_ms_per_step;
  j["iterations"] = iterations;
  j["max_iterations"] = max_iterations;
  j["momentum_error"] = momentum_error;
  j["contacts"] = contacts;
  j["max_contacts"] = max_contacts;
  j["realtime_factor"] = realtime_factor;
  j["max_penetration"] = max_penetration + 0.0;
  j["failures"] = failures;
  j["ncp_residual_rigid"] = JsonNumber(ncp_residual_rigid);
  j["ncp_residual_rigid_max"] = JsonNumber(ncp_residual_rigid_max);
  j["islands"] = islands;
  j["largest_island"] = largest_island;
  j["repeats"] = repeats;
  j["run_ms_per_step"] = run_ms_per_step;
  j["parameters"] = StepParamsJson(settings);
  nlohmann::json probe_list = nlohmann::json::array();
  for (const BenchProbe& p : probes) {
    nlohmann::json o;
    o["probe"] = p.name;
    o["from"] = p.from;
    o["displacement"] = {p.displacement.x(), p.displacement.y(), p.displacement.z()};
    o["distance"] = p.displacement.norm();
    if (p.has_peer) {
      o["peer_displacement"] = {p.peer_displacement.x(), p.peer_displacement.y(),
                                p.peer_displacement.z()};
      o["peer_distance"] = p.peer_displacement.norm();
    }
    probe_list.push_back(o);
  }
  j["probes"] = probe_list;
  j["drift"] = drift;
  j["energy_change"] = JsonNumber(energy_change);
  j["cone"] = cone;
  if (!peer.empty()) {
    j["peer"] = peer;
    j["peer_status"] = peer_status;
    if (peer_ok()) {
      j["peer_version"] = peer_version;
      j["peer_ms_per_step"] = peer_ms_per_step;
      j["peer_mean_ms_per_step"] = peer_mean_ms_per_step;
      j["peer_iterations"] = peer_iterations;
      j["peer_contacts"] = peer_contacts;
      j["peer_max_contacts"] = peer_max_contacts;
      j["peer_realtime_factor"] = peer_realtime_factor;
      j["peer_max_penetration"] = peer_max_penetration + 0.0;
      j["peer_drift"] = peer_drift;
      j["peer_ncp_residual_rigid"] = JsonNumber(peer_ncp_residual_rigid);
      j["peer_ncp_residual_rigid_max"] = JsonNumber(peer_ncp_residual_rigid_max);
      j["ratio"] = ratio;
      j["peer_energy_change"] = JsonNumber(peer_energy_change);
      j["peer_cone"] = peer_cone;
      j["peer_model"] = peer_model;
      j["peer_tolerance"] = peer_tolerance;
      j["peer_iteration_cap"] = peer_iteration_cap;
      j["peer_notes"] = peer_notes;
      j["peer_run_ms_per_step"] = peer_run_ms_per_step;
      j["ratio_min"] = ratio_min;
      j["ratio_max"] = ratio_max;
    }
  }
  return j;
}

void StepTimeSamples::Add(double ms) {
  if (count_++ % stride_ == 0) {
    if (stored_.size() == max_stored_) {
      // Keep samples 0, 2, 4, ... of the store: one in 2 * stride of all added so far.
      size_t kept = 0;
      for (size_t i = 0; i < stored_.size(); i += 2) stored_[kept++] = stored_[i];
      stored_.resize(kept);
      stride_ *= 2;
      if ((count_ - 1) % stride_ == 0) stored_.push_back(ms);
    } else {
      stored_.push_back(ms);
    }
  }
  sum_ += ms;
}

double StepTimeSamples::Median() const { return contactlab::Median(stored_); }

double StepTimeSamples::Mean() const { return count_ == 0 ? 0.0 : sum_ / count_; }

bool BenchPeerAvailable(const std::string& peer) {
#ifdef CONTACTLAB_HAVE_MUJOCO
  return peer == "mujoco";
#else
  (void)peer;
  return false;
#endif
}

namespace {

// One run of the scene by ContactLab, then (if requested) by the peer.
BenchResult BenchSceneOnce(const Scene& scene, const BenchOptions& options) {
  BenchResult r;
  r.scene = scene.path;
  RunOptions run_options;
  run_options.duration = options.duration;
  r.steps = RunStepCount(scene, run_options);
  r.time_step = scene.settings.time_step;
  r.settings = scene.settings;
  for (const Body& b : scene.model.bodies) r.bodies += b.tree >= 0 ? 1 : 0;
  ProbeTracker probes(scene.model, options, r.time_step, &r.probes);

  Simulator sim(scene.model, scene.settings);
  KinematicsCache kin;
  auto energy = [&] {  // KE + PE at the current state [J] (updates kin)
    sim.multibody().UpdateKinematics(sim.state().q, sim.state().time, &kin);
    return sim.multibody().KineticEnergy(kin, sim.state().v) +
           sim.multibody().PotentialEnergy(kin, sim.state().q, scene.settings.gravity);
  };
  const double energy0 = energy();
  auto pose_of = [&kin](int b) { return kin.X_WB[b]; };
  auto observe = [&] {
    if (!probes.Due(sim.state().time)) return;
    sim.multibody().UpdateKinematics(sim.state().q, sim.state().time, &kin);
    probes.Observe(sim.state().time, pose_of);
  };
  observe();

  StepTimeSamples ms;  // bounded memory, however many steps
  double iterations = 0, contacts = 0, islands = 0, ncp_sum = 0;
  std::vector<char> touched;
  std::vector<int> root, component;
  for (int n = 0; n < r.steps; ++n) {
    const auto t0 = std::chrono::steady_clock::now();
    const StepRecord& rec = sim.Step();
    const auto t1 = std::chrono::steady_clock::now();
    ms.Add(std::chrono::duration<double, std::milli>(t1 - t0).count());
    const SolverStats& st = rec.result.stats;
    // A step solved twice (a deferred joint limit would have acted) counts both solves.
    iterations += st.iterations + rec.earlier_iterations;
    r.max_iterations = std::max(r.max_iterations, st.iterations + rec.earlier_iterations);
    r.momentum_error = std::max(r.momentum_error, st.momentum_error);
    contacts += rec.metrics.num_contacts;
    r.max_contacts = std::max(r.max_contacts, rec.metrics.num_contacts);
    r.max_penetration = std::max(r.max_penetration, rec.metrics.max_penetration);
    if (st.status != SolverStatus::kConverged) ++r.failures;
    // Outside the timed step.
    const double ncp = NcpResidualOrNan(rec.problem, rec.result, NcpModel::kRigid);
    ncp_sum += ncp;
    r.ncp_residual_rigid_max =
        std::isfinite(ncp) ? std::max(r.ncp_residual_rigid_max, ncp) : ncp;
    islands += static_cast<double>(st.islands.size());
    if (st.islands.empty()) {
      // Solved as one problem: the largest connected component of the trees the constraints
      // act on (two-block constraints join their trees).
      const int nt = rec.problem.num_trees();
      rec.problem.TreeComponentRoots(&root);
      touched.assign(nt, 0);
      for (const ConstraintData& c : rec.problem.constraints) {
        for (int k = 0; k < c.num_blocks; ++k) touched[c.blocks[k].tree] = 1;
      }
      component.assign(nt, 0);
      for (int t = 0; t < nt; ++t) {
        if (touched[t]) r.largest_island = std::max(r.largest_island, ++component[root[t]]);
      }
    }
    for (const IslandSummary& isl : st.islands) {
      if (isl.constraints > 0) r.largest_island = std::max(r.largest_island, isl.trees);
    }
    observe();
  }
  r.simulated_time = sim.state().time;
  r.ms_per_step = ms.Median();
  r.mean_ms_per_step = ms.Mean();
  r.iterations = iterations / r.steps;
  r.contacts = contacts / r.steps;
  r.islands = islands / r.steps;
  r.ncp_residual_rigid = ncp_sum / r.steps;
  r.realtime_factor = r.time_step * 1e3 / r.ms_per_step;
  r.energy_change = energy() - energy0;  // kin at the end of the run
  r.drift = probes.Finish(pose_of, /*peer=*/false, &r.probes);

  if (options.peer.empty()) return r;
  r.peer = options.peer;
  if (!BenchPeerAvailable(options.peer)) {
    r.peer_status = "unavailable";
    return r;
  }
#ifdef CONTACTLAB_HAVE_MUJOCO
  try {
    RunMujoco(scene, r.steps, options.cone, &probes, &r);
  } catch (const std::exception& e) {
    r.peer_status = std::string("failed: ") + e.what();
  }
#endif
  return r;
}

// The MJCF export of `scene` under --mjcf-dir: DIR/<scene file name without extension>.xml.
std::string MjcfPath(const Scene& scene, const BenchOptions& options) {
  std::string name = BaseName(scene.path);
  const size_t dot = name.rfind('.');
  if (dot != std::string::npos) name = name.substr(0, dot);
  return options.mjcf_dir + "/" + name + ".xml";
}

}  // namespace

BenchResult BenchScene(const Scene& scene, const BenchOptions& options) {
  if (options.repeat < 1 || options.repeat > 1000) {
    throw std::invalid_argument("--repeat " + std::to_string(options.repeat) +
                                ": must be in [1, 1000]");
  }
  BenchResult r = BenchSceneOnce(scene, options);
  r.repeats = options.repeat;
  r.run_ms_per_step = {r.ms_per_step};
  std::vector<double> means = {r.mean_ms_per_step}, peer_means, ratios;
  if (r.peer_ok()) {
    r.peer_run_ms_per_step = {r.peer_ms_per_step};
    peer_means.push_back(r.peer_mean_ms_per_step);
    ratios.push_back(r.ratio);
  }
  for (int k = 1; k < options.repeat; ++k) {
    const BenchResult q = BenchSceneOnce(scene, options);
    r.run_ms_per_step.push_back(q.ms_per_step);
    means.push_back(q.mean_ms_per_step);
    if (r.peer_ok()) {
      if (!q.peer_ok()) {
        r.peer_status = q.peer_status;
        continue;
      }
      r.peer_run_ms_per_step.push_back(q.peer_ms_per_step);
      peer_means.push_back(q.peer_mean_ms_per_step);
      ratios.push_back(q.ratio);
    }
  }
  r.ms_per_step = Median(r.run_ms_per_step);
  r.mean_ms_per_step = Mean(means);
  r.realtime_factor = r.time_step * 1e3 / r.ms_per_step;
  if (r.peer_ok()) {
    r.peer_ms_per_step = Median(r.peer_run_ms_per_step);
    r.peer_mean_ms_per_step = Mean(peer_means);
    r.peer_realtime_factor = r.time_step * 1e3 / r.peer_ms_per_step;
    r.ratio = r.ms_per_step / r.peer_ms_per_step;
    r.ratio_min = *std::min_element(ratios.begin(), ratios.end());
    r.ratio_max = *std::max_element(ratios.begin(), ratios.end());
  }
  return r;
}

size_t BenchSceneColumnWidth(const std::vector<std::string>& scene_paths) {
  size_t width = 26;
  for (const std::string& p : scene_paths) width = std::max(width, BaseName(p).size() + 1);
  return width;
}

std::string BenchTableHeader(bool with_peer, bool with_range, size_t scene_width) {
  std::string h = Pad("scene", scene_width, true) + Pad("bodies", 7) + Pad("steps", 6) +
                  Pad("ms/step", 9) + Pad("iters", 6) + Pad("e_m", 8) + Pad("contacts", 9) +
                  Pad("RTF", 8) + Pad("pen[mm]", 9) + Pad("drift[mm]", 10);
  if (with_peer) {
    h += " |" + Pad("MJ ms/step", 11) + Pad("iters", 6) + Pad("contacts", 9) + Pad("RTF", 8) +
         Pad("pen[mm]", 9) + Pad("drift[mm]", 10) + Pad("ratio", 7);
    if (with_range) h += Pad("runs min-max", 14);
  }
  h += " |" + Pad("ncp_rigid", 10);
  if (with_peer) h += Pad("MJ ncp_rigid", 13);
  h += " |" + Pad("ΔE[J]", 10 + 1);  // Δ is two bytes in UTF-8
  if (with_peer) h += Pad("MJ ΔE[J]", 11 + 1);
  return h;
}

std::string BenchTableRow(const BenchResult& r, bool with_peer, bool with_range,
                          size_t scene_width) {
  const bool has_probes = !r.probes.empty();
  std::string row = Pad(BaseName(r.scene), scene_width, true) + Pad(std::to_string(r.bodies), 7) +
                    Pad(std::to_string(r.steps), 6) + Pad(Fixed(r.ms_per_step, 3), 9) +
                    Pad(Fixed(r.iterations, 2), 6) + Pad(Sci(r.momentum_error), 8) +
                    Pad(Fixed(r.contacts, 1), 9) + Pad(Fixed(r.realtime_factor, 2), 8) +
                    Pad(Fixed(r.max_penetration * 1e3, 4), 9) +
                    Pad(has_probes ? Fixed(r.drift * 1e3, 4) : "-", 10);
  if (with_peer) {
    if (r.peer_ok()) {
      row += " |" + Pad(Fixed(r.peer_ms_per_step, 3), 11) + Pad(Fixed(r.peer_iterations, 2), 6) +
             Pad(Fixed(r.peer_contacts, 1), 9) + Pad(Fixed(r.peer_realtime_factor, 2), 8) +
             Pad(Fixed(r.peer_max_penetration * 1e3, 4), 9) +
             Pad(has_probes ? Fixed(r.peer_drift * 1e3, 4) : "-", 10) + Pad(Fixed(r.ratio, 2), 7);
      if (with_range) {
        row += Pad(Fixed(r.ratio_min, 2) + "-" + Fixed(r.ratio_max, 2) + " (" +
                       std::to_string(r.repeats) + ")",
                   14);
      }
    } else {
      row += " | peer " + r.peer_status;
    }
  }
  row += " |" + Pad(Sci(r.ncp_residual_rigid), 10);
  if (with_peer) row += Pad(r.peer_ok() ? Sci(r.peer_ncp_residual_rigid) : "-", 13);
  row += " |" + Pad(Signed(r.energy_change), 10);
  if (with_peer) row += Pad(r.peer_ok() ? Signed(r.peer_energy_change) : "-", 11);
  return row;
}

std::vector<BenchResult> RunBench(const std::vector<std::string>& scene_paths,
                                  const BenchOptions& options, const std::string& json_path,
                                  std::ostream& out) {
  if (options.duration != 0 && !(std::isfinite(options.duration) && options.duration > 0)) {
    throw SceneError("bench: --duration " + Num(options.duration) +
                     ": must be a finite number of seconds > 0");
  }
  std::vector<Scene> scenes;
  scenes.reserve(scene_paths.size());
  SceneOptions scene_options;
  scene_options.overrides = options.overrides;
  scene_options.package_paths = options.package_paths;
  scene_options.fixed_base = options.fixed_base;
  scene_options.ground_plane = options.ground_plane;
  for (const std::string& path : scene_paths) scenes.push_back(LoadScene(path, scene_options));
  // Every run is 1 to kMaxRunSteps steps (the scene's own duration is checked when it is loaded).
  std::vector<CliFile> inputs, outputs{{"--json", json_path}};
  for (const Scene& scene : scenes) {
    if (options.duration > 0) {
      RunSteps(scene, options.duration, "--duration " + Num(options.duration));
    }
    for (CliFile& f : SceneInputFiles(scene)) inputs.push_back(std::move(f));
    // A scene listed twice writes the same export twice; two scene files of one name would not.
    const Scene* first = scenes.data();
    const bool listed_before =
        std::any_of(first, &scene, [&](const Scene& other) { return other.path == scene.path; });
    if (!options.mjcf_dir.empty() && !listed_before) {
      outputs.push_back({"--mjcf-dir", MjcfPath(scene, options)});
    }
  }
  CheckOutputFiles(inputs, outputs);
  for (const std::string& p : options.probes) {
    const ProbeSpec spec = ParseProbe(p);
    const bool found = std::any_of(scenes.begin(), scenes.end(), [&](const Scene& s) {
      return s.model.FindBody(spec.body) >= 0 &&
             (spec.reference.empty() || s.model.FindBody(spec.reference) >= 0);
    });
    if (!found) throw std::invalid_argument("--probe '" + p + "': no scene has that body");
  }
  std::ofstream json;
  if (!json_path.empty()) {
    json.open(json_path);
    if (!json) throw std::runtime_error("cannot write JSON file '" + json_path + "'");
  }
  const bool with_peer = !options.peer.empty();
  if (with_peer && !BenchPeerAvailable(options.peer)) {
    out << "peer " << options.peer << " is unavailable: this build has no MuJoCo "
        << "(install libmujoco-dev and reconfigure); running ContactLab only" << std::endl;
  }
  const bool with_range = with_peer && options.repeat > 1;
  const size_t scene_width = BenchSceneColumnWidth(scene_paths);
  out << BenchTableHeader(with_peer, with_range, scene_width) << std::endl;
  std::vector<BenchResult> results;
  for (const Scene& scene : scenes) {
    if (!options.mjcf_dir.empty()) {
      const std::string path = MjcfPath(scene, options);
      std::ofstream xml(path);
      xml << ExportMjcf(scene).xml;
      if (!xml.flush()) throw std::runtime_error("cannot write MJCF file '" + path + "'");
    }
    results.push_back(BenchScene(scene, options));
    out << BenchTableRow(results.back(), with_peer, with_range, scene_width) << std::endl;
    if (json.is_open()) {
      json << results.back().ToJson().dump(-1, ' ', false,
                                           nlohmann::json::error_handler_t::replace)
           << '\n'
           << std::flush;
    }
  }
  for (const BenchResult& r : results) {
    if (r.peer_ok()) {
      out << BaseName(r.scene) << ": ContactLab "
          << SolverDisplayName(r.settings.solver_type) << ", " << r.cone
          << " cone"
          << (r.settings.solver_type == SolverType::kSap
                  ? ", rel_tolerance " + Num(r.settings.sap.rel_tolerance)
                  : std::string())
          << "; MuJoCo ran "
          << (r.peer_model == "file" ? "the file itself" : "the MJCF export") << ", "
          << r.peer_cone << " cone, tolerance " << Num(r.peer_tolerance) << ", at most "
          << r.peer_iteration_cap << " iterations; time step " << Num(r.time_step) << " s both"
          << std::endl;
    }
    for (const BenchProbe& p : r.probes) {
      out << BaseName(r.scene) << ": probe " << p.name
          << ": |Δ| = " << Fixed(p.displacement.norm() * 1e3, 4) << " mm";
      if (p.has_peer) out << " (MuJoCo " << Fixed(p.peer_displacement.norm() * 1e3, 4) << " mm)";
      out << std::endl;
    }
  }
  if (json.is_open() && !json.flush()) {
    throw std::runtime_error("error writing JSON file '" + json_path + "'");
  }
  return results;
}

void AddBenchCommand(CLI::App& app) {
  struct Args {
    std::vector<std::string> scenes;
    std::string json_path;
    BenchOptions options;
  };
  auto args = std::make_shared<Args>();
  CLI::App* bench = app.add_subcommand(
      "bench", "Time scenes (median ms per step) and report accuracy, optionally beside MuJoCo");
  bench->add_option("scenes", args->scenes, "Scene files (YAML, or MJCF .xml / .mjcf)")->required();
  bench->add_option("--peer", args->options.peer, "Also run each scene in this engine")
      ->check(CLI::IsMember({"mujoco"}));
  bench->add_option("--json", args->json_path, "Write one JSON object per scene (JSON Lines)");
  bench
      ->add_option("--duration", args->options.duration,
                   "Simulated time per scene [s] (default: each scene's duration)")
      ->check(CLI::Validator(
          [](const std::string& text) -> std::string {
            // CLI::PositiveNumber lets nan and inf through.
            try {
              size_t used = 0;
              const double x = std::stod(text, &used);
              if (used == text.size() && std::isfinite(x) && x > 0) return "";
            } catch (const std::exception&) {
            }
            return "must be a finite number of seconds > 0, got '" + text + "'";
          },
          "T > 0"));
  bench
      ->add_option("--probe", args->options.probes,
                   "Report the displacement of BODY (relative to REF) from time FROM to the end")
      ->type_name("BODY[@REF][:FROM]")
      ->allow_extra_args(false);
  bench->add_option("--set", args->options.overrides, "Override a value in every scene")
      ->allow_extra_args(false);
  AddModelFileOptions(bench, &args->options.package_paths, &args->options.fixed_base,
                      &args->options.ground_plane);
  bench
      ->add_option("--repeat", args->options.repeat,
                   "Runs per engine and scene, alternating engines; reports the median run")
      ->check(CLI::Range(1, 1000));
  bench
      ->add_option("--cone", args->options.cone,
                   "MuJoCo's friction cone (default: the model's; ContactLab's is elliptic)")
      ->check(CLI::IsMember({"elliptic", "pyramidal"}));
  bench->add_option("--mjcf-dir", args->options.mjcf_dir,
                    "Write each scene's MJCF export to DIR/<scene>.xml (for MuJoCo's viewer)");
  bench->callback([args]() {
    int code = 0;
    try {
      RunBench(args->scenes, args->options, args->json_path, std::cout);
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
