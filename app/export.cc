#include "app/export.h"

#include <algorithm>
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
#include "engine/sim/solver_registry.h"

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
  j["patches"] = r.metrics.num_patches;
  j["faces"] = r.metrics.num_faces;
  j["max_pressure"] = JNum(r.metrics.max_pressure);
  return j;
}

// One row of a solver's iteration log: "iteration" then each declared series under its key
// (integer series as JSON integers, NaN/inf as strings).
Json IterationJson(const IterationLog& log, int row) {
  Json j;
  j["iteration"] = row;
  const SeriesTable& t = log.table();
  for (int s = 0; s < t.size; ++s) {
    const double x = log(row, s);
    if (t[s].type == SeriesType::kInteger && std::isfinite(x)) {
      j[t[s].key] = static_cast<long long>(x);
    } else {
      j[t[s].key] = JNum(x);
    }
  }
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
  phi0.txt              signed distance at the start of the step [m] (rad for joint limits;
                        |g0| for bilateral constraints, whose rows are in problem.json's "g0")
  stiffness.txt         k [N/m] (inf: near-rigid)
  dissipation_time.txt  tau_d [s]
  w.txt                 Delassus estimate ||W_ii||_F / sqrt(rows) [1/kg]
  beta.txt              per-constraint near-rigid beta (< 0: the solver default)
One number per line, %.17g, so every value reads back exactly (numpy.loadtxt).

SAP regularization from the physical data (paper Sec. V-B), with sigma, beta from problem.json:
  R_n = max(beta^2/(4 pi^2) w, 1/(dt k (dt + tau_d))),  R_t = sigma w,  v_hat_n = -phi0/(dt + tau_d)

Pressure-field (hydroelastic) contact (docs/hydroelastic.md): each touching pair with a
compliant side has a contact surface (patch) of polygonal faces, normals from geometry A into
B. Each face whose gradient the recipe accepts is one friction cone (problem.json constraints
with "patch" and "face" >= 0): g = 1/(1/g_a + 1/g_b), k = A_e g, phi0 = -p0/g, f0 = A_e p0.
Both files have a header line, then comma-separated values (%.17g; "inf", "nan" as such);
they are written with the header only when the step has no patch.
  patches.csv  one row per patch:
    patch, geom_a, geom_b, body_a, body_b (-1: world, or no face of the patch is a constraint),
    faces (all faces), constraints (faces that are constraints), area [m^2] (sum A_e),
    pressure_integral [N] (sum A_e p0), force_x/y/z [N] (sum A_e p0 n: force of A on B),
    cop_x/y/z [m] (centre of pressure, sum A_e p0 c_e / sum A_e p0), max_pressure [Pa],
    mean_pressure [Pa] (sum A_e p0 / sum A_e), gamma_n [N s] (sum of the normal impulses of
    the patch's constraints; gamma_n / time_step is the solver's normal force)
  faces.csv    one row per face, patches in order:
    patch, face, constraint (index in problem.json constraints; -1: the face is no constraint),
    centroid_x/y/z [m], normal_x/y/z (unit, A into B), area [m^2], p0 [Pa] (pressure at the
    centroid), g_a, g_b [Pa/m] (each field's growth along the normal, inf on a rigid side),
    k [N/m], phi0 [m], f0 [N], gamma_t1, gamma_t2, gamma_n [N s] (the constraint's values;
    nan when the face is no constraint)
)";

// patches.csv and faces.csv of a step's contact surfaces (format in kReadme). The constraint of
// a face is found through its contact (ConstraintData::source -> Contact::surface, face).
void WriteSurfaceFiles(const StepRecord& record, const std::filesystem::path& dir) {
  const ContactProblem& p = record.problem;
  const SolverResult& r = record.result;
  const int ns = static_cast<int>(record.surfaces.size());
  // Per surface, per face: the constraint index (-1: none).
  std::vector<std::vector<int>> constraint_of(ns);
  for (int s = 0; s < ns; ++s) constraint_of[s].assign(record.surfaces[s].faces.size(), -1);
  std::vector<int> body_a(ns, -1), body_b(ns, -1);
  for (size_t i = 0; i < p.constraints.size(); ++i) {
    const ConstraintData& c = p.constraints[i];
    if (c.kind != ConstraintKind::kFrictionCone || c.source < 0 ||
        c.source >= static_cast<int>(record.contacts.size())) {
      continue;
    }
    const Contact& ct = record.contacts[c.source];
    if (ct.surface < 0 || ct.surface >= ns || ct.face < 0 ||
        ct.face >= static_cast<int>(constraint_of[ct.surface].size())) {
      continue;
    }
    constraint_of[ct.surface][ct.face] = static_cast<int>(i);
    body_a[ct.surface] = ct.body_a;
    body_b[ct.surface] = ct.body_b;
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto gamma_row = [&](int ci, int k) {
    if (ci < 0) return nan;
    const Eigen::Index row = p.constraints[ci].first_row + k;
    return row < r.gamma.size() ? r.gamma(row) : nan;
  };

  const std::filesystem::path pp = dir / "patches.csv";
  std::ofstream fp = OpenOut(pp);
  fp << "patch,geom_a,geom_b,body_a,body_b,faces,constraints,area,pressure_integral,force_x,"
        "force_y,force_z,cop_x,cop_y,cop_z,max_pressure,mean_pressure,gamma_n\n";
  const std::filesystem::path pf = dir / "faces.csv";
  std::ofstream ff = OpenOut(pf);
  ff << "patch,face,constraint,centroid_x,centroid_y,centroid_z,normal_x,normal_y,normal_z,"
        "area,p0,g_a,g_b,k,phi0,f0,gamma_t1,gamma_t2,gamma_n\n";
  for (int s = 0; s < ns; ++s) {
    const ContactSurface& surf = record.surfaces[s];
    int num_constraints = 0;
    double max_p = 0, gamma_n = 0;
    for (size_t e = 0; e < surf.faces.size(); ++e) {
      const ContactFace& f = surf.faces[e];
      const int ci = constraint_of[s][e];
      max_p = e == 0 ? f.p0 : std::max(max_p, f.p0);
      if (ci >= 0) {
        ++num_constraints;
        gamma_n += gamma_row(ci, 2);
      }
      const ConstraintData* c = ci >= 0 ? &p.constraints[ci] : nullptr;
      ff << s << ',' << e << ',' << ci << ',' << Num(f.centroid.x()) << ','
         << Num(f.centroid.y()) << ',' << Num(f.centroid.z()) << ',' << Num(f.normal.x()) << ','
         << Num(f.normal.y()) << ',' << Num(f.normal.z()) << ',' << Num(f.area) << ','
         << Num(f.p0) << ',' << Num(f.g_a) << ',' << Num(f.g_b) << ','
         << Num(c ? c->stiffness : nan) << ',' << Num(c ? c->phi0 : nan) << ','
         << Num(c ? f.area * f.p0 : nan) << ',' << Num(gamma_row(ci, 0)) << ','
         << Num(gamma_row(ci, 1)) << ',' << Num(gamma_row(ci, 2)) << '\n';
    }
    const double area = surf.Area();
    const double integral = surf.NormalForceSum();
    const Vec3 force = surf.Force();
    const Vec3 cop = surf.CentreOfPressure();
    fp << s << ',' << surf.geom_a << ',' << surf.geom_b << ',' << body_a[s] << ',' << body_b[s]
       << ',' << surf.faces.size() << ',' << num_constraints << ',' << Num(area) << ','
       << Num(integral) << ',' << Num(force.x()) << ',' << Num(force.y()) << ','
       << Num(force.z()) << ',' << Num(cop.x()) << ',' << Num(cop.y()) << ',' << Num(cop.z())
       << ',' << Num(max_p) << ',' << Num(area > 0 ? integral / area : 0.0) << ','
       << Num(gamma_n) << '\n';
  }
  CloseChecked(fp, pp);
  CloseChecked(ff, pf);
}

}  // namespace

void WriteHistoryCsv(const History& history, std::ostream& out) {
  out << "step,time,contacts,iterations,status,momentum_error,complementarity_error,cost,"
         "solve_ms,step_ms,max_penetration,kinetic_energy,potential_energy,total_energy,"
         "mean_stiction_slip,patches,faces,max_pressure\n";
  for (int i = 0; i < history.size(); ++i) {
    const StepRecord& r = history.At(i);
    const SolverStats& s = r.result.stats;
    out << r.step << ',' << Num(r.after.time) << ',' << r.metrics.num_contacts << ','
        << s.iterations << ',' << SolverStatusName(s.status) << ',' << Num(s.momentum_error)
        << ',' << Num(s.complementarity_error) << ',' << Num(s.cost) << ','
        << Num(r.timings.solve_ms) << ',' << Num(r.timings.total_ms) << ','
        << Num(r.metrics.max_penetration) << ',' << Num(r.metrics.kinetic_energy) << ','
        << Num(r.metrics.potential_energy) << ',' << Num(TotalEnergy(r.metrics)) << ','
        << Num(r.metrics.mean_stiction_slip) << ',' << r.metrics.num_patches << ','
        << r.metrics.num_faces << ',' << Num(r.metrics.max_pressure) << '\n';
  }
}

void WriteHistoryJson(const History& history, std::ostream& out) {
  Json arr = Json::array();
  for (int i = 0; i < history.size(); ++i) arr.push_back(StepJson(history.At(i)));
  out << arr.dump() << '\n';
}

void WriteIterationsCsv(const StepRecord& record, std::ostream& out) {
  const IterationLog& log = record.result.stats.iteration_log;
  const SeriesTable& t = log.table();
  out << "iteration";
  for (int s = 0; s < t.size; ++s) out << ',' << t[s].key;
  out << '\n';
  for (int row = 0; row < log.num_rows(); ++row) {
    out << row;
    for (int s = 0; s < t.size; ++s) {
      const double x = log(row, s);
      out << ',';
      if (t[s].type == SeriesType::kInteger && std::isfinite(x)) {
        out << static_cast<long long>(x);
      } else {
        out << Num(x);
      }
    }
    out << '\n';
  }
}

void WriteIterationsJson(const StepRecord& record, std::ostream& out) {
  Json j;
  j["step"] = record.step;
  j["status"] = SolverStatusName(record.result.stats.status);
  const IterationLog& log = record.result.stats.iteration_log;
  Json arr = Json::array();
  for (int row = 0; row < log.num_rows(); ++row) arr.push_back(IterationJson(log, row));
  j["iterations"] = arr;
  out << j.dump() << '\n';
}

void ExportStepProblem(const StepRecord& record, const StepSettings& settings,
                       const std::string& dir) {
  const SapParameters& params = settings.sap;
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
    jc["kind"] = ConstraintKindName(c.kind);
    if (c.kind == ConstraintKind::kBilateral) {
      // g(q0) per row (phi0.txt holds its norm for bilateral constraints).
      Json g0 = Json::array();
      for (int r = 0; r < c.num_rows; ++r) g0.push_back(JNum(c.g0(r)));
      jc["g0"] = g0;
    }
    jc["first_row"] = c.first_row;
    jc["num_rows"] = c.num_rows;
    Json trees = Json::array();
    for (int b = 0; b < c.num_blocks; ++b) trees.push_back(c.blocks[b].tree);
    jc["trees"] = trees;  // order of the Jacobian blocks (J = sum over these trees)
    jc["source"] = c.source;
    if (cone && c.source >= 0 && c.source < static_cast<int>(record.contacts.size()) &&
        record.contacts[c.source].surface >= 0) {
      // A pressure-field face: its patch and face (rows of patches.csv and faces.csv).
      jc["patch"] = record.contacts[c.source].surface;
      jc["face"] = record.contacts[c.source].face;
    }
    constraints.push_back(jc);
  }
  WriteValues(d / "mu.txt", mu);
  WriteValues(d / "phi0.txt", phi0);
  WriteValues(d / "stiffness.txt", k);
  WriteValues(d / "dissipation_time.txt", tau);
  WriteValues(d / "w.txt", w);
  WriteValues(d / "beta.txt", beta);
  WriteSurfaceFiles(record, d);

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
  {
    // Pressure-field contact: patches.csv and faces.csv hold the surfaces.
    int faces = 0;
    for (const ContactSurface& surf : record.surfaces) faces += static_cast<int>(surf.faces.size());
    j["num_patches"] = static_cast<int>(record.surfaces.size());
    j["num_faces"] = faces;
  }
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
  j["solver_type"] = SolverTypeName(settings.solver_type);
  j["solved_by"] = SolverDisplayName(settings.solver_type);
  j["parameters"] = StepParamsJson(settings);
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

int ExportStepFromRun(const std::string& scene_path, int step, const std::string& dir,
                      const std::vector<std::string>& overrides) {
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
    scene = LoadScene(scene_path, overrides);
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
      ExportStepProblem(rec, sim.settings(), dir);
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
      "w.txt",  "beta.txt",  "problem.json",   "README.txt",
      "patches.csv", "faces.csv"};
  return names;
}

}  // namespace contactlab
