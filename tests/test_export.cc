// Tests of the debugger's exports: the frozen step problem round-trips exactly through its files
// (read back by an independent reader written here) and re-solves to the same velocities;
// per-step and per-iteration statistics in CSV and JSON; the export-step entry point.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "app/export.h"
#include "app/scene.h"
#include "engine/inspect/history.h"
#include "engine/solvers/sap/sap_solver.h"
#include "engine/sim/simulator.h"

namespace contactlab {
namespace {

namespace fs = std::filesystem;

fs::path TempDir(const std::string& name) {
  const fs::path d = fs::path(::testing::TempDir()) / ("contactlab_export_" + name);
  fs::remove_all(d);
  return d;
}

bool SameBits(const VecX& a, const VecX& b) {
  return a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<size_t>(a.size())) == 0;
}

// Minimal Matrix Market reader (coordinate real general), independent of the writer.
MatX ReadMatrixMarket(const fs::path& p) {
  std::ifstream f(p);
  EXPECT_TRUE(f.good()) << p;
  std::string line;
  std::getline(f, line);
  EXPECT_EQ(line, "%%MatrixMarket matrix coordinate real general");
  while (std::getline(f, line) && !line.empty() && line[0] == '%') {
  }
  std::istringstream header(line);
  long long rows = 0, cols = 0, nnz = 0;
  header >> rows >> cols >> nnz;
  MatX m = MatX::Zero(rows, cols);
  for (long long k = 0; k < nnz; ++k) {
    long long i = 0, j = 0;
    std::string value;
    f >> i >> j >> value;
    m(i - 1, j - 1) = std::strtod(value.c_str(), nullptr);
  }
  EXPECT_TRUE(static_cast<bool>(f)) << p;
  return m;
}

VecX ReadVector(const fs::path& p) {
  std::ifstream f(p);
  EXPECT_TRUE(f.good()) << p;
  std::vector<double> v;
  std::string token;
  while (f >> token) v.push_back(std::strtod(token.c_str(), nullptr));  // reads "inf" too
  return Eigen::Map<VecX>(v.data(), static_cast<Eigen::Index>(v.size()));
}

nlohmann::json ReadJson(const fs::path& p) {
  std::ifstream f(p);
  return nlohmann::json::parse(f);
}

// Rebuilds a ContactProblem from an exported directory using only the documented files.
ContactProblem Import(const fs::path& d) {
  const nlohmann::json j = ReadJson(d / "problem.json");
  ContactProblem p;
  p.time_step = j.at("time_step").get<double>();
  p.nv = j.at("nv").get<int>();
  p.num_rows = j.at("num_rows").get<int>();
  const MatX A = ReadMatrixMarket(d / "A.mtx");
  const MatX M = ReadMatrixMarket(d / "M.mtx");
  const MatX J = ReadMatrixMarket(d / "J.mtx");
  for (const auto& t : j.at("trees")) {
    const int s = t.at("v_start").get<int>(), n = t.at("nv").get<int>();
    p.tree_v_start.push_back(s);
    p.tree_nv.push_back(n);
    p.A.push_back(A.block(s, s, n, n));
    p.M.push_back(M.block(s, s, n, n));
  }
  p.v_star = ReadVector(d / "v_star.txt");
  p.v0 = ReadVector(d / "v0.txt");
  const VecX bias = ReadVector(d / "bias.txt");
  const VecX mu = ReadVector(d / "mu.txt"), phi0 = ReadVector(d / "phi0.txt");
  const VecX k = ReadVector(d / "stiffness.txt"), tau = ReadVector(d / "dissipation_time.txt");
  const VecX w = ReadVector(d / "w.txt"), beta = ReadVector(d / "beta.txt");
  int i = 0;
  for (const auto& jc : j.at("constraints")) {
    ConstraintData c;
    c.kind = jc.at("kind") == "friction_cone" ? ConstraintKind::kFrictionCone
                                               : ConstraintKind::kUnilateral;
    c.first_row = jc.at("first_row").get<int>();
    c.num_rows = jc.at("num_rows").get<int>();
    for (const auto& t : jc.at("trees")) {
      const int tree = t.get<int>();
      c.blocks[c.num_blocks].tree = tree;
      c.blocks[c.num_blocks].J =
          J.block(c.first_row, p.tree_v_start[tree], c.num_rows, p.tree_nv[tree]);
      ++c.num_blocks;
    }
    c.bias.head(c.num_rows) = bias.segment(c.first_row, c.num_rows);
    c.friction = mu(i);
    c.phi0 = phi0(i);
    c.stiffness = k(i);
    c.dissipation_time = tau(i);
    c.w = w(i);
    c.beta = beta(i);
    c.source = jc.at("source").get<int>();
    p.constraints.push_back(c);
    ++i;
  }
  return p;
}

SapParameters ImportParameters(const fs::path& d) {
  const nlohmann::json s = ReadJson(d / "problem.json").at("solver");
  SapParameters prm;
  prm.sigma = s.at("sigma").get<double>();
  prm.beta = s.at("beta").get<double>();
  prm.limit_beta = s.at("limit_beta").get<double>();
  prm.rel_tolerance = s.at("rel_tolerance").get<double>();
  prm.abs_tolerance = s.at("abs_tolerance").get<double>();
  prm.max_iterations = s.at("max_iterations").get<int>();
  return prm;
}

Scene Load(const std::string& name) {
  return LoadScene(std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/" + name);
}

TEST(ExportStep, RoundTripsExactlyAndResolvesToTheSameVelocities) {
  // Clutter after 60 steps: many contacts between pairs of trees and with the walls.
  Scene scene = Load("clutter_40_walls.yaml");
  Simulator sim(scene.model, scene.settings);
  for (int i = 0; i < 60; ++i) sim.Step();
  const StepRecord rec = sim.Step();
  ASSERT_GT(rec.metrics.num_contacts, 10);
  const fs::path d = TempDir("clutter");
  ExportStepProblem(rec, scene.settings, d.string());

  for (const char* f : {"A.mtx", "M.mtx", "J.mtx", "v_star.txt", "v0.txt", "R.txt", "v_hat.txt",
                        "mu.txt", "phi0.txt", "stiffness.txt", "dissipation_time.txt",
                        "guess.txt", "solution_v.txt", "gamma.txt", "bias.txt", "README.txt",
                        "problem.json"}) {
    EXPECT_TRUE(fs::exists(d / f)) << f;
  }
  const ContactProblem& p = rec.problem;
  // Matrices and vectors read back bit for bit (%.17g round-trips every double).
  EXPECT_TRUE(ReadMatrixMarket(d / "A.mtx") == p.DenseA());
  EXPECT_TRUE(ReadMatrixMarket(d / "M.mtx") == p.DenseM());
  EXPECT_TRUE(ReadMatrixMarket(d / "J.mtx") == p.DenseJ());
  EXPECT_TRUE(SameBits(ReadVector(d / "v_star.txt"), p.v_star));
  EXPECT_TRUE(SameBits(ReadVector(d / "bias.txt"), p.StackedBias()));
  VecX R, v_hat;
  ASSERT_TRUE(rec.result.laws.LinearRows(&R, &v_hat)) << "the scene uses the linear model";
  EXPECT_TRUE(SameBits(ReadVector(d / "R.txt"), R));
  EXPECT_TRUE(SameBits(ReadVector(d / "v_hat.txt"), v_hat));
  EXPECT_TRUE(SameBits(ReadVector(d / "gamma.txt"), rec.result.gamma));
  EXPECT_TRUE(SameBits(ReadVector(d / "solution_v.txt"), rec.result.v));
  EXPECT_EQ(ReadVector(d / "mu.txt").size(), static_cast<Eigen::Index>(p.constraints.size()));

  const ContactProblem q = Import(d);
  ASSERT_EQ(q.nv, p.nv);
  ASSERT_EQ(q.num_rows, p.num_rows);
  ASSERT_EQ(q.constraints.size(), p.constraints.size());
  EXPECT_EQ(q.time_step, p.time_step);
  for (size_t i = 0; i < p.constraints.size(); ++i) {
    ASSERT_EQ(q.constraints[i].num_blocks, p.constraints[i].num_blocks) << i;
    for (int b = 0; b < p.constraints[i].num_blocks; ++b) {
      EXPECT_EQ(q.constraints[i].blocks[b].tree, p.constraints[i].blocks[b].tree);
      EXPECT_TRUE(q.constraints[i].blocks[b].J == p.constraints[i].blocks[b].J) << i;
    }
    EXPECT_EQ(q.constraints[i].w, p.constraints[i].w) << i;
    EXPECT_EQ(q.constraints[i].phi0, p.constraints[i].phi0) << i;
  }

  // Re-solving the re-imported problem from the exported guess with the exported parameters
  // gives the recorded velocities bit for bit (the solver is deterministic).
  SapSolver solver(ImportParameters(d));
  SolverResult r;
  solver.Solve(q, ReadVector(d / "guess.txt"), &r);
  EXPECT_EQ(r.stats.status, rec.result.stats.status);
  EXPECT_EQ(r.stats.iterations, rec.result.stats.iterations);
  EXPECT_TRUE(SameBits(r.v, rec.result.v));
  EXPECT_TRUE(SameBits(r.gamma, rec.result.gamma));

  const nlohmann::json j = ReadJson(d / "problem.json");
  EXPECT_EQ(j.at("step").get<int>(), 60);
  // No compliant geometry: no patches, the patch and face files hold their header lines only.
  EXPECT_EQ(j.at("num_patches").get<int>(), 0);
  for (const char* f : {"patches.csv", "faces.csv"}) {
    std::ifstream in(d / f);
    std::string line;
    int lines = 0;
    while (std::getline(in, line)) ++lines;
    EXPECT_EQ(lines, 1) << f;
  }
  EXPECT_EQ(j.at("result").at("iterations").get<int>(), rec.result.stats.iterations);
}

TEST(ExportStep, JointLimitsExportAsUnilateralRowsWithInfiniteStiffness) {
  // The gripper has limited joints; a limit row has k = inf, which must survive the text files.
  Scene scene = Load("gripper.yaml");
  scene.settings.defer_limits = false;  // every limit side is a row, out of reach or not
  Simulator sim(scene.model, scene.settings);
  const StepRecord* rec = nullptr;
  for (int i = 0; i < 400; ++i) {
    rec = &sim.Step();
    bool has_limit = false;
    for (const ConstraintData& c : rec->problem.constraints)
      has_limit |= c.kind == ConstraintKind::kUnilateral;
    if (has_limit) break;
  }
  bool has_limit = false;
  for (const ConstraintData& c : rec->problem.constraints)
    has_limit |= c.kind == ConstraintKind::kUnilateral;
  ASSERT_TRUE(has_limit) << "the gripper scene has no limit rows in 400 steps";
  const fs::path d = TempDir("limits");
  ExportStepProblem(*rec, scene.settings, d.string());
  const ContactProblem q = Import(d);
  ASSERT_EQ(q.constraints.size(), rec->problem.constraints.size());
  for (size_t i = 0; i < q.constraints.size(); ++i) {
    EXPECT_EQ(q.constraints[i].kind, rec->problem.constraints[i].kind);
    EXPECT_EQ(q.constraints[i].stiffness, rec->problem.constraints[i].stiffness);  // inf == inf
  }
  SapSolver solver(scene.settings.sap);
  SolverResult r;
  solver.Solve(q, ReadVector(d / "guess.txt"), &r);
  EXPECT_TRUE(SameBits(r.v, rec->result.v));
}

TEST(ExportStats, HistoryAndIterationsAsCsvAndJson) {
  Scene scene = Load("box_on_ramp.yaml");
  Simulator sim(scene.model, scene.settings);
  History history(100);
  for (int i = 0; i < 12; ++i) history.Push(sim.Step());

  std::ostringstream csv;
  WriteHistoryCsv(history, csv);
  std::istringstream in(csv.str());
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line,
            "step,time,contacts,iterations,status,momentum_error,complementarity_error,cost,"
            "solve_ms,step_ms,max_penetration,kinetic_energy,potential_energy,total_energy,"
            "mean_stiction_slip,patches,faces,max_pressure");
  int lines = 0;
  while (std::getline(in, line)) {
    EXPECT_EQ(line.rfind(std::to_string(lines) + ",", 0), 0u) << line;
    ++lines;
  }
  EXPECT_EQ(lines, 12);

  std::ostringstream js;
  WriteHistoryJson(history, js);
  const nlohmann::json arr = nlohmann::json::parse(js.str());
  ASSERT_EQ(arr.size(), 12u);
  EXPECT_EQ(arr[11]["step"].get<int>(), 11);
  EXPECT_EQ(arr[11]["time"].get<double>(), history.At(11).after.time);
  EXPECT_EQ(arr[11]["iterations"].get<int>(), history.At(11).result.stats.iterations);
  EXPECT_EQ(arr[11]["status"], "converged");

  const StepRecord& r = history.At(11);
  std::ostringstream icsv;
  WriteIterationsCsv(r, icsv);
  int ilines = 0;
  std::istringstream iin(icsv.str());
  std::string header;
  std::getline(iin, header);
  // The columns are SAP's declared series; the first ten are the contract of earlier versions
  // (never renamed or reordered), new series are appended.
  EXPECT_EQ(header,
            "iteration,cost,momentum_residual,gradient_norm,alpha,line_search_evaluations,"
            "num_stiction,num_sliding,num_no_contact,condition_number,line_search_iterations,"
            "linear_iterations,linear_residual,forcing_term,scaled_condition_number");
  ++ilines;
  std::string row0;
  if (std::getline(iin, row0)) ++ilines;
  // Iteration 0 (the guess): integer series as integers, α = 0, cond₂ not requested: "nan".
  EXPECT_EQ(row0.rfind("0,", 0), 0u) << row0;
  EXPECT_NE(row0.find(",0,0,"), std::string::npos) << "alpha 0 (%.17g) and 0 evaluations: " << row0;
  EXPECT_NE(row0.find(",nan,0"), std::string::npos) << row0;
  while (std::getline(iin, line)) ++ilines;
  EXPECT_EQ(ilines, 1 + r.result.stats.iteration_log.num_rows());
  std::ostringstream ijs;
  WriteIterationsJson(r, ijs);
  const nlohmann::json it = nlohmann::json::parse(ijs.str());
  ASSERT_EQ(static_cast<int>(it["iterations"].size()), r.result.stats.iteration_log.num_rows());
  EXPECT_EQ(it["iterations"][0]["cost"].get<double>(), r.result.stats.iteration_log(0, kSapCost));
  // NaN (not requested) is written as the string "nan", never as null.
  EXPECT_EQ(it["iterations"][0]["condition_number"], "nan");
  // Integer series are JSON integers.
  EXPECT_TRUE(it["iterations"][0]["num_stiction"].is_number_integer());
  EXPECT_TRUE(it["iterations"][0]["line_search_iterations"].is_number_integer());
  EXPECT_EQ(it["iterations"][0]["iteration"].get<int>(), 0);
  // A direct Newton solve (the default on this small scene): no CG iterations, residual and
  // forcing term not computed.
  EXPECT_EQ(it["iterations"][0]["linear_iterations"], 0);
  EXPECT_EQ(it["iterations"][0]["linear_residual"], "nan");
  EXPECT_EQ(it["iterations"][0]["forcing_term"], "nan");
  EXPECT_EQ(it["iterations"][0]["scaled_condition_number"], "nan");
}

// A CSV file of the export: its header's column names and its rows of numbers (strtod reads
// "inf" and "nan"; %.17g round-trips every double).
struct Csv {
  std::vector<std::string> columns;
  std::vector<std::vector<double>> rows;
  int Col(const std::string& name) const {
    for (size_t i = 0; i < columns.size(); ++i) {
      if (columns[i] == name) return static_cast<int>(i);
    }
    ADD_FAILURE() << "no column " << name;
    return 0;
  }
  double At(size_t row, const std::string& name) const { return rows[row][Col(name)]; }
};

Csv ReadCsv(const fs::path& p) {
  Csv csv;
  std::ifstream f(p);
  EXPECT_TRUE(f.good()) << p;
  std::string line, cell;
  std::getline(f, line);
  std::istringstream header(line);
  while (std::getline(header, cell, ',')) csv.columns.push_back(cell);
  while (std::getline(f, line)) {
    std::vector<double> row;
    std::istringstream in(line);
    while (std::getline(in, cell, ',')) row.push_back(std::strtod(cell.c_str(), nullptr));
    EXPECT_EQ(row.size(), csv.columns.size()) << line;
    csv.rows.push_back(row);
  }
  return csv;
}

// A compliant box resting on a rigid floor (scenes/hydro/box_on_floor.yaml): one patch, whose
// row in patches.csv and faces in faces.csv are the record's surface exactly, and whose Σ γ_n is
// the sum over its faces' constraints in gamma.txt.
TEST(ExportStep, PressureFieldPatchesAndFaces) {
  Scene scene = LoadScene(std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/hydro/box_on_floor.yaml");
  Simulator sim(scene.model, scene.settings);
  for (int i = 0; i < 200; ++i) sim.Step();
  const StepRecord rec = sim.Step();
  ASSERT_EQ(rec.surfaces.size(), 1u);
  const ContactSurface& surf = rec.surfaces[0];
  ASSERT_GT(surf.faces.size(), 4u);
  const fs::path d = TempDir("hydro");
  ExportStepProblem(rec, scene.settings, d.string());

  const Csv patches = ReadCsv(d / "patches.csv");
  const Csv faces = ReadCsv(d / "faces.csv");
  ASSERT_EQ(patches.rows.size(), 1u);
  ASSERT_EQ(faces.rows.size(), surf.faces.size());
  int box = -1;
  for (size_t b = 0; b < scene.model.bodies.size(); ++b) {
    if (scene.model.bodies[b].name == "box") box = static_cast<int>(b);
  }
  ASSERT_GE(box, 0);
  EXPECT_EQ(patches.At(0, "patch"), 0);
  EXPECT_EQ(patches.At(0, "geom_a"), surf.geom_a);
  EXPECT_EQ(patches.At(0, "geom_b"), surf.geom_b);
  EXPECT_EQ(std::max(patches.At(0, "body_a"), patches.At(0, "body_b")), box);
  EXPECT_EQ(patches.At(0, "faces"), static_cast<double>(surf.faces.size()));
  EXPECT_EQ(patches.At(0, "area"), surf.Area());
  EXPECT_EQ(patches.At(0, "pressure_integral"), surf.NormalForceSum());
  EXPECT_EQ(patches.At(0, "force_z"), surf.Force().z());
  EXPECT_EQ(patches.At(0, "cop_x"), surf.CentreOfPressure().x());
  // The box rests: its patch carries its 2 kg weight (the closed form of the scene's header).
  EXPECT_NEAR(patches.At(0, "pressure_integral"), 2 * 9.81, 0.01 * 2 * 9.81);

  // Faces: the record's faces in order; the constraint named by each face stands for it.
  double area = 0, max_p = 0, gamma_n_faces = 0;
  int constraints = 0;
  for (size_t e = 0; e < surf.faces.size(); ++e) {
    const ContactFace& f = surf.faces[e];
    SCOPED_TRACE("face " + std::to_string(e));
    EXPECT_EQ(faces.At(e, "patch"), 0);
    EXPECT_EQ(faces.At(e, "face"), static_cast<double>(e));
    EXPECT_EQ(faces.At(e, "area"), f.area);
    EXPECT_EQ(faces.At(e, "p0"), f.p0);
    EXPECT_EQ(faces.At(e, "centroid_y"), f.centroid.y());
    EXPECT_EQ(faces.At(e, "normal_z"), f.normal.z());
    area += faces.At(e, "area");
    max_p = std::max(max_p, f.p0);
    const int ci = static_cast<int>(faces.At(e, "constraint"));
    if (ci < 0) {
      EXPECT_TRUE(std::isnan(faces.At(e, "gamma_n")));
      continue;
    }
    ++constraints;
    ASSERT_LT(ci, static_cast<int>(rec.problem.constraints.size()));
    const ConstraintData& c = rec.problem.constraints[ci];
    EXPECT_EQ(rec.contacts[c.source].surface, 0);
    EXPECT_EQ(rec.contacts[c.source].face, static_cast<int>(e));
    EXPECT_EQ(faces.At(e, "k"), c.stiffness);
    EXPECT_EQ(faces.At(e, "phi0"), c.phi0);
    EXPECT_EQ(faces.At(e, "f0"), f.area * f.p0);
    EXPECT_EQ(faces.At(e, "gamma_n"), rec.result.gamma(c.first_row + 2));
    gamma_n_faces += faces.At(e, "gamma_n");
  }
  EXPECT_NEAR(area, surf.Area(), 1e-12 * surf.Area());
  EXPECT_EQ(patches.At(0, "constraints"), constraints);
  EXPECT_EQ(patches.At(0, "max_pressure"), max_p);
  EXPECT_NEAR(patches.At(0, "mean_pressure"), surf.NormalForceSum() / surf.Area(),
              1e-12 * max_p);

  // Σ γ_n of the patch against the face constraints found independently: every friction cone of
  // problem.json whose "patch" is 0, its γ_n read from gamma.txt.
  const nlohmann::json j = ReadJson(d / "problem.json");
  EXPECT_EQ(j.at("num_patches").get<int>(), 1);
  EXPECT_EQ(j.at("num_faces").get<int>(), static_cast<int>(surf.faces.size()));
  const VecX gamma = ReadVector(d / "gamma.txt");
  double gamma_n = 0;
  int patch_constraints = 0;
  for (const nlohmann::json& c : j.at("constraints")) {
    if (!c.contains("patch") || c.at("patch").get<int>() != 0) continue;
    ++patch_constraints;
    gamma_n += gamma(c.at("first_row").get<int>() + 2);
  }
  EXPECT_EQ(patch_constraints, constraints);
  EXPECT_GT(gamma_n, 0);
  EXPECT_NEAR(patches.At(0, "gamma_n"), gamma_n, 1e-12 * gamma_n);
  EXPECT_NEAR(gamma_n_faces, gamma_n, 1e-12 * gamma_n);
  // At rest the normal impulse over the step is the weight times δt.
  EXPECT_NEAR(gamma_n / rec.problem.time_step, 2 * 9.81, 0.01 * 2 * 9.81);
}

TEST(ExportStepFromRun, WritesTheRequestedStepAndReportsBadInput) {
  const std::string scene = std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/box_on_ramp.yaml";
  const fs::path d = TempDir("run");
  EXPECT_EQ(ExportStepFromRun(scene, 5, d.string()), 0);
  EXPECT_EQ(ReadJson(d / "problem.json").at("step").get<int>(), 5);
  // Step 5 starts after 5 steps of δt = 1 ms.
  EXPECT_NEAR(ReadJson(d / "problem.json").at("time").get<double>(), 5e-3, 1e-15);
  EXPECT_EQ(ExportStepFromRun(scene, -1, d.string()), 2);
  EXPECT_EQ(ExportStepFromRun(scene + ".missing", 1, d.string()), 2);
  EXPECT_EQ(ReadJson(d / "problem.json").at("solved_by").get<std::string>(), "SAP");
  // --set reaches the run, and problem.json names the solver that solved the step with its
  // parameters (SAP's table stays under "solver").
  EXPECT_EQ(ExportStepFromRun(scene, 5, d.string(),
                              {"solver.type=canal", "solver.canal.al_tolerance=1e-6"}),
            0);
  const nlohmann::json j = ReadJson(d / "problem.json");
  EXPECT_EQ(j.at("solver_type").get<std::string>(), "canal");
  EXPECT_EQ(j.at("solved_by").get<std::string>(), "CANAL");
  EXPECT_EQ(j.at("parameters").at("canal").at("al_tolerance").get<double>(), 1e-6);
  EXPECT_EQ(j.at("solver").at("name").get<std::string>(), "SAP");
  EXPECT_EQ(ExportStepFromRun(scene, 5, d.string(), {"solver.type=nonsense"}), 2);
}

}  // namespace
}  // namespace contactlab
