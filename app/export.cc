#include "app/export.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <vector>

#include "app/params.h"
#include "app/scene.h"

namespace contactlab {
namespace {

using Json = nlohmann::json;

// %.17g: enough digits for every double to read back exactly.
std::string Num(double x) {
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%.17g", x);
  return buf;
}

// JSON has no NaN/inf: they become the strings "nan", "inf", "-inf" (as in `run --stats`), so
// that a value that is not finite is never mistaken for a missing one.
Json JNum(double x) {
  if (std::isfinite(x)) return Json(x);
  if (std::isnan(x)) return Json("nan");
  return Json(x > 0 ? "inf" : "-inf");
}

double TotalEnergy(const StepMetrics& m) { return m.kinetic_energy + m.potential_energy; }

Json StepJson(const StepRecord& r) {
  const SolverStats& s = r.result.stats;
  Json j;
  j["step"] = r.step;
  j["time"] = JNum(r.after.time);
  j["contacts"] = r.metrics.num_contacts;
  j["iterations"] = s.iterations;
  j["status"] = SolverStatusName(s.status);
  j["momentum_error"] = JNum(s.momentum_error);
  j["complementarity_error"] = JNum(s.complementarity_error);
  j["cost"] = JNum(s.cost);
  j["solve_ms"] = JNum(r.timings.solve_ms);
  j["step_ms"] = JNum(r.timings.total_ms);
  j["max_penetration"] = JNum(r.metrics.max_penetration);
  j["kinetic_energy"] = JNum(r.metrics.kinetic_energy);
  j["potential_energy"] = JNum(r.metrics.potential_energy);
  j["total_energy"] = JNum(TotalEnergy(r.metrics));
  j["mean_stiction_slip"] = JNum(r.metrics.mean_stiction_slip);
  return j;
}

Json IterationJson(const IterationRecord& it) {
  Json j;
  j["iteration"] = it.iteration;
  j["cost"] = JNum(it.cost);
  j["momentum_residual"] = JNum(it.momentum_residual);
  j["gradient_norm"] = JNum(it.gradient_norm);
  j["alpha"] = JNum(it.alpha);
  j["line_search_evaluations"] = it.line_search_evaluations;
  j["num_stiction"] = it.num_stiction;
  j["num_sliding"] = it.num_sliding;
  j["num_no_contact"] = it.num_no_contact;
  j["condition_number"] = JNum(it.condition_number);
  j["linear_iterations"] = it.linear_iterations;
  j["linear_residual"] = JNum(it.linear_residual);
  j["forcing_term"] = JNum(it.forcing_term);
  return j;
}

std::ofstream OpenOut(const std::filesystem::path& p) {
  std::ofstream f(p);
  if (!f) throw std::runtime_error("cannot write '" + p.string() + "'");
  return f;
}

void CloseChecked(std::ofstream& f, const std::filesystem::path& p) {
  f.close();
  if (!f) throw std::runtime_error("error writing '" + p.string() + "'");
}

// A block of a sparse matrix: `m` placed at (row, col).
struct PlacedBlock {
  const MatX* m;
  Eigen::Index row, col;
};

// Matrix Market from blocks that do not overlap (written block by block, so no dense nv x nv
// copy is made). Indices 1-based; entries equal to 0 are omitted.
void WriteMatrixMarket(const std::filesystem::path& p, Eigen::Index rows, Eigen::Index cols,
                       const std::vector<PlacedBlock>& blocks, const char* comment) {
  std::ofstream f = OpenOut(p);
  long long nnz = 0;
  for (const PlacedBlock& b : blocks) nnz += (b.m->array() != 0.0).count();
  f << "%%MatrixMarket matrix coordinate real general\n";
  f << "% " << comment << "\n";
  f << rows << ' ' << cols << ' ' << nnz << '\n';
  for (const PlacedBlock& b : blocks) {
    const MatX& m = *b.m;
    for (Eigen::Index i = 0; i < m.rows(); ++i)
      for (Eigen::Index j = 0; j < m.cols(); ++j)
        if (m(i, j) != 0.0)
          f << b.row + i + 1 << ' ' << b.col + j + 1 << ' ' << Num(m(i, j)) << '\n';
  }
  CloseChecked(f, p);
}

void WriteVector(const std::filesystem::path& p, const VecX& v) {
  std::ofstream f = OpenOut(p);
  for (Eigen::Index i = 0; i < v.size(); ++i) f << Num(v(i)) << '\n';
  CloseChecked(f, p);
}

void WriteValues(const std::filesystem::path& p, const std::vector<double>& v) {
  WriteVector(p, Eigen::Map<const VecX>(v.data(), static_cast<Eigen::Index>(v.size())));
}

const char* kReadme =
    R"(ContactLab contact problem of one time step (SAP formulation)
=============================================================

The step solves (SAP paper, Castro et al., eq. 24)

    min_v  1/2 (v - v*)^T A (v - v*) + sum_i l_R,i(v_c,i),     v_c = J v + b

with v the generalized velocities at the end of the step (nv), A the SPD linearized dynamics
matrix (block diagonal per kinematic tree), v* the free-motion velocities and J the constraint
Jacobian (num_rows x nv). Units: SI (m, s, kg, N); rotational dofs in rad/s. A, M in kg (kg m^2
for rotational dofs), impulses gamma in N s.

Constraint rows (see problem.json "constraints", in order):
  friction cone: 3 rows t1, t2, n of the contact frame (n from body A into body B; v_n > 0
    separating); gamma_t1, gamma_t2 friction impulses, gamma_n >= 0 normal impulse,
    ||gamma_t|| <= mu gamma_n.
  unilateral (joint limit): 1 row, gamma >= 0.
v_c = J v + b is the velocity of B relative to A in the contact frame; b (bias.txt) is the part
due to prescribed (non-dof) motion.

Files
  A.mtx, M.mtx, J.mtx  Matrix Market coordinate real general, 1-based, exact (%.17g) values;
                       zero entries omitted. scipy.io.mmread / MATLAB mmread / MatrixMarket.jl.
  v_star.txt  v* (nv)                 v0.txt  velocities at the start of the step (nv)
  guess.txt   initial guess of the solver (nv; the warm start)
  solution_v.txt  velocities returned by the solver (nv)
  bias.txt    b (num_rows)            vc.txt  v_c = J v + b at the solution (num_rows)
  gamma.txt   impulses at the solution (num_rows) [N s]
  R.txt       SAP regularization R per row (num_rows) [s/kg]: cones R_t, R_t, R_n
  v_hat.txt   SAP stabilization velocity per row (num_rows) [m/s]: cones 0, 0, -phi0/(dt+tau_d)
              (both "nan" under a Hunt-Crossley contact model, problem.json "contact_model")
  law_constants.txt  per constraint: its law (linear, linear_limit, lagged, lagged_regularized,
              similar) and its per-step constants as key=value (linear: R_n R_t v_hat_n
              near_rigid; limits: R v_hat near_rigid; Hunt-Crossley: f0 n0 eps_s v_hat)
  Per constraint (one line each, problem.json order):
  mu.txt                friction coefficient (0 for unilateral rows)
  phi0.txt              signed distance at the start of the step [m] (rad for joint limits)
  stiffness.txt         k [N/m] (inf: near-rigid)
  dissipation_time.txt  tau_d [s]
  w.txt                 Delassus estimate ||W_ii||_F / sqrt(rows) [1/kg]
  beta.txt              per-constraint near-rigid beta (< 0: the solver default)
One number per line, %.17g, so every value reads back exactly (numpy.loadtxt).

SAP regularization from the physical data (paper Sec. V-B), with sigma, beta from problem.json:
  R_n = max(beta^2/(4 pi^2) w, 1/(dt k (dt + tau_d))),  R_t = sigma w,  v_hat_n = -phi0/(dt + tau_d)
)";

}  // namespace

void WriteHistoryCsv(const History& history, std::ostream& out) {
  out << "step,time,contacts,iterations,status,momentum_error,complementarity_error,cost,"
         "solve_ms,step_ms,max_penetration,kinetic_energy,potential_energy,total_energy,"
         "mean_stiction_slip\n";
  for (int i = 0; i < history.size(); ++i) {
    const StepRecord& r = history.At(i);
    const SolverStats& s = r.result.stats;
    out << r.step << ',' << Num(r.after.time) << ',' << r.metrics.num_contacts << ','
        << s.iterations << ',' << SolverStatusName(s.status) << ',' << Num(s.momentum_error)
        << ',' << Num(s.complementarity_error) << ',' << Num(s.cost) << ','
        << Num(r.timings.solve_ms) << ',' << Num(r.timings.total_ms) << ','
        << Num(r.metrics.max_penetration) << ',' << Num(r.metrics.kinetic_energy) << ','
        << Num(r.metrics.potential_energy) << ',' << Num(TotalEnergy(r.metrics)) << ','
        << Num(r.metrics.mean_stiction_slip) << '\n';
  }
}

void WriteHistoryJson(const History& history, std::ostream& out) {
  Json arr = Json::array();
  for (int i = 0; i < history.size(); ++i) arr.push_back(StepJson(history.At(i)));
  out << arr.dump() << '\n';
}

void WriteIterationsCsv(const StepRecord& record, std::ostream& out) {
  out << "iteration,cost,momentum_residual,gradient_norm,alpha,line_search_evaluations,"
         "num_stiction,num_sliding,num_no_contact,condition_number,linear_iterations,"
         "linear_residual,forcing_term\n";
  for (const IterationRecord& it : record.result.stats.history) {
    out << it.iteration << ',' << Num(it.cost) << ',' << Num(it.momentum_residual) << ','
        << Num(it.gradient_norm) << ',' << Num(it.alpha) << ',' << it.line_search_evaluations
        << ',' << it.num_stiction << ',' << it.num_sliding << ',' << it.num_no_contact << ','
        << Num(it.condition_number) << ',' << it.linear_iterations << ','
        << Num(it.linear_residual) << ',' << Num(it.forcing_term) << '\n';
  }
}

void WriteIterationsJson(const StepRecord& record, std::ostream& out) {
  Json j;
  j["step"] = record.step;
  j["status"] = SolverStatusName(record.result.stats.status);
  Json arr = Json::array();
  for (const IterationRecord& it : record.result.stats.history) arr.push_back(IterationJson(it));
  j["iterations"] = arr;
  out << j.dump() << '\n';
}

void ExportStepProblem(const StepRecord& record, const SapParameters& params,
                       const std::string& dir) {
  namespace fs = std::filesystem;
  const fs::path d(dir);
  std::error_code ec;
  fs::create_directories(d, ec);
  if (ec) throw std::runtime_error("cannot create directory '" + dir + "': " + ec.message());
  const ContactProblem& p = record.problem;
  const SolverResult& r = record.result;

  std::vector<PlacedBlock> a_blocks, m_blocks, j_blocks;
  for (int t = 0; t < p.num_trees(); ++t) {
    const Eigen::Index s = p.tree_v_start[t];
    a_blocks.push_back({&p.A[t], s, s});
    if (t < static_cast<int>(p.M.size())) m_blocks.push_back({&p.M[t], s, s});
  }
  for (const ConstraintData& c : p.constraints) {
    // A constraint's blocks act on different trees, so they never overlap.
    for (int b = 0; b < c.num_blocks; ++b)
      j_blocks.push_back({&c.blocks[b].J, c.first_row, p.tree_v_start[c.blocks[b].tree]});
  }
  WriteMatrixMarket(d / "A.mtx", p.nv, p.nv, a_blocks,
                    "A: linearized dynamics (eq. 15), nv x nv [kg]");
  WriteMatrixMarket(d / "M.mtx", p.nv, p.nv, m_blocks, "M: mass matrix at q0, nv x nv [kg]");
  WriteMatrixMarket(d / "J.mtx", p.num_rows, p.nv, j_blocks,
                    "J: constraint Jacobian, rows t1,t2,n per contact, num_rows x nv");
  WriteVector(d / "v_star.txt", p.v_star);
  WriteVector(d / "v0.txt", p.v0);
  // The simulator warm-starts every step from the velocities at its start (Simulator::Step and
  // Simulator::Resolve use before.v).
  WriteVector(d / "guess.txt", record.before.v);
  WriteVector(d / "solution_v.txt", r.v);
  WriteVector(d / "bias.txt", p.StackedBias());
  WriteVector(d / "vc.txt", r.vc);
  WriteVector(d / "gamma.txt", r.gamma);
  // SAP's R and v̂ per row under the linear model; a Hunt–Crossley model has no R: NaN rows
  // (written "nan"), its constants are in law_constants.txt.
  VecX R, v_hat;
  if (!r.laws.LinearRows(&R, &v_hat)) {
    R = VecX::Constant(p.num_rows, std::numeric_limits<double>::quiet_NaN());
    v_hat = R;
  }
  WriteVector(d / "R.txt", R);
  WriteVector(d / "v_hat.txt", v_hat);
  {
    // Per constraint: its law and its constants, "law key=value key=value ..." (%.17g).
    const fs::path pc = d / "law_constants.txt";
    std::ofstream f = OpenOut(pc);
    char buf[64];
    for (int i = 0; i < r.laws.num_constraints(); ++i) {
      f << LawName(r.laws.Law(i));
      const ModelConstants mc = r.laws.Describe(i);
      for (int k = 0; k < mc.size; ++k) {
        std::snprintf(buf, sizeof(buf), "%.17g", mc.items[k].value);
        f << ' ' << mc.items[k].key << '=' << buf;
      }
      f << '\n';
    }
    CloseChecked(f, pc);
  }

  std::vector<double> mu, phi0, k, tau, w, beta;
  Json constraints = Json::array();
  for (const ConstraintData& c : p.constraints) {
    const bool cone = c.kind == ConstraintKind::kFrictionCone;
    mu.push_back(cone ? c.friction : 0.0);
    phi0.push_back(c.phi0);
    k.push_back(c.stiffness);
    tau.push_back(c.dissipation_time);
    w.push_back(c.w);
    beta.push_back(c.beta);
    Json jc;
    jc["kind"] = cone ? "friction_cone" : "unilateral";
    jc["first_row"] = c.first_row;
    jc["num_rows"] = c.num_rows;
    Json trees = Json::array();
    for (int b = 0; b < c.num_blocks; ++b) trees.push_back(c.blocks[b].tree);
    jc["trees"] = trees;  // order of the Jacobian blocks (J = sum over these trees)
    jc["source"] = c.source;
    constraints.push_back(jc);
  }
  WriteValues(d / "mu.txt", mu);
  WriteValues(d / "phi0.txt", phi0);
  WriteValues(d / "stiffness.txt", k);
  WriteValues(d / "dissipation_time.txt", tau);
  WriteValues(d / "w.txt", w);
  WriteValues(d / "beta.txt", beta);

  Json j;
  j["format"] = "contactlab-step-problem";
  j["version"] = 1;
  j["step"] = record.step;
  j["time"] = JNum(record.before.time);
  j["time_step"] = JNum(p.time_step);
  j["nv"] = p.nv;
  j["num_rows"] = p.num_rows;
  j["num_constraints"] = static_cast<int>(p.constraints.size());
  Json trees = Json::array();
  for (int t = 0; t < p.num_trees(); ++t)
    trees.push_back({{"v_start", p.tree_v_start[t]}, {"nv", p.tree_nv[t]}});
  j["trees"] = trees;
  j["constraints"] = constraints;
  j["conventions"] = {
      {"cost", "1/2 (v - v*)^T A (v - v*) + sum_i l_R,i(J_i v + b_i)"},
      {"contact_rows", "t1, t2, n (n from body A into body B, v_n > 0 separating)"},
      {"vc", "v_c = J v + b, b in bias.txt"},
      {"matrices", "Matrix Market coordinate, 1-based, zeros omitted"},
      {"units", "SI: m, s, kg, N; impulses N s; angles rad"}};
  j["contact_model"] = ContactModelName(r.laws.model());
  // Every solver parameter, by its table (engine/sim/param_tables.h): key -> value, enums by name.
  Json solver = ParamValuesJson(SapParameterTable(), params);
  solver["name"] = "SAP";
  j["solver"] = solver;
  j["result"] = {{"status", SolverStatusName(r.stats.status)},
                 {"iterations", r.stats.iterations},
                 {"momentum_error", JNum(r.stats.momentum_error)},
                 {"complementarity_error", JNum(r.stats.complementarity_error)},
                 {"cost", JNum(r.stats.cost)}};
  {
    const fs::path pj = d / "problem.json";
    std::ofstream f = OpenOut(pj);
    f << j.dump(2) << '\n';
    CloseChecked(f, pj);
  }
  {
    const fs::path pr = d / "README.txt";
    std::ofstream f = OpenOut(pr);
    f << kReadme;
    CloseChecked(f, pr);
  }
}

int ExportStepFromRun(const std::string& scene_path, int step, const std::string& dir) {
  if (step < 0) {
    std::cerr << "export-step: --step " << step << " is out of range [0, ...)\n";
    return 2;
  }
  {
    std::error_code ec;
    if (std::filesystem::exists(dir, ec) && !std::filesystem::is_directory(dir, ec)) {
      std::cerr << "export-step: --out " << dir << ": exists and is not a directory\n";
      return 2;
    }
  }
  Scene scene;
  try {
    scene = LoadScene(scene_path);
  } catch (const SceneError& e) {
    std::cerr << e.what() << '\n';
    return 2;
  }
  Simulator sim(scene.model, scene.settings);
  // A step whose solver input was non-finite does not advance the step counter; the loop is
  // bounded by the number of Step() calls regardless.
  for (int i = 0; i <= step; ++i) {
    const StepRecord& rec = sim.Step();
    if (rec.step != step) continue;
    try {
      ExportStepProblem(rec, sim.settings().sap, dir);
    } catch (const std::exception& e) {
      std::cerr << "export-step: " << e.what() << '\n';
      return 1;
    }
    std::cout << "wrote step " << step << " of " << scene_path << " (nv = " << rec.problem.nv
              << ", rows = " << rec.problem.num_rows << ", status "
              << SolverStatusName(rec.result.stats.status) << ") to " << dir << '\n';
    return 0;
  }
  std::cerr << "export-step: step " << step << " was not reached (the state stopped advancing at "
            << "step " << sim.step_count() << ")\n";
  return 1;
}

const std::vector<std::string>& ExportStepFileNames() {
  static const std::vector<std::string> names = {
      "A.mtx",  "M.mtx",     "J.mtx",          "v_star.txt",
      "v0.txt", "guess.txt", "solution_v.txt", "bias.txt",
      "R.txt",  "v_hat.txt", "gamma.txt",      "vc.txt",
      "mu.txt", "phi0.txt",  "stiffness.txt",  "dissipation_time.txt",
      "w.txt",  "beta.txt",  "problem.json",   "README.txt"};
  return names;
}

}  // namespace contactlab
