// Micro-benchmarks of the SAP kernels (engine/contact/linear_cone.h, sap_model.h, sap_solver.h) on the
// contact problem of a real step: scenes/clutter_40_walls.yaml stepped to step 60 (t = 0.6 s,
// the columns are landing and piling up), then Simulator::last_record().problem.
//
//   contactlab_microbench [--benchmark_filter=REGEX] [--benchmark_repetitions=N]
//
// Every benchmark runs 5 repetitions and reports mean, median, stddev and cv; quote the median.
//   ConeProjection       SapProjectCone over every cone constraint, with and without G
//   ConstraintCostAndG   SapConstraintCost: v_c -> γ, G and regimes for all constraints
//   DenseHessian         SapDenseHessian: H = A + JᵀGJ, dense nv x nv
//   FactorDense          Eigen LLT of the dense H (the solver's reference linear solver)
//   FactorSparse         Eigen SimplicialLLT of the same H stored sparse (AMD ordering): the
//                        sparsity the engine's block-sparse Cholesky exploits
//   Factor/*/clutter40, Factor/*/pile1000
//                        one numeric factorization of H = A + JᵀGJ (G at the step's solution) by
//                        the solver's BlockSparseCholesky, Eigen's SimplicialLLT (AMD) and
//                        SuiteSparse CHOLMOD's supernodal LLᵀ (when found at configure time), on
//                        the 40-body step above and on scenes/bench/clutter_1000.yaml at step 120
//                        (t = 1.2 s: nv = 6000, one island of about 920 bodies). The symbolic
//                        analysis is done once, outside the timing, as in the solver.
//   LineSearchEval       one evaluation of ℓ(v + α Δv) and dℓ/dα along the Newton direction,
//                        the unit of work of the exact line search
//   Solve/*              a whole SapSolver::Solve from v0, per linear solver and line search
#include <benchmark/benchmark.h>

#include <Eigen/Cholesky>
#include <Eigen/SparseCholesky>
#ifdef CONTACTLAB_HAVE_CHOLMOD
#include <Eigen/CholmodSupport>
#endif
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "app/scene.h"
#include "engine/common/tree_ltdl.h"
#include "engine/contact/linear_cone.h"
#include "engine/solvers/sap/sap_model.h"
#include "engine/solvers/sap/sap_solver.h"
#include "engine/solvers/common/sap_supernodal.h"
#include "engine/sim/simulator.h"

namespace contactlab {
namespace {

constexpr int kSteps = 60;

struct Fixture {
  ContactProblem problem;
  SapParameters params;
  ConstraintBundle laws;  // the linear laws of the step
  VecX R, v_hat;          // their rows (num_rows): SAP's R and v̂
  VecX v;        // the step's solution
  VecX vc;       // J v + b at the solution
  MatX H;        // dense Hessian at v0
  VecX dv;       // Newton direction at v0
  int num_cones = 0;
};

const Fixture& GetFixture() {
  static const Fixture* fixture = [] {
    auto* f = new Fixture;
    const std::string path = std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/clutter_40_walls.yaml";
    Scene scene = LoadScene(path);
    Simulator sim(scene.model, scene.settings);
    for (int i = 0; i < kSteps; ++i) sim.Step();
    const StepRecord& rec = sim.last_record();
    f->problem = rec.problem;
    f->params = scene.settings.sap;
    f->laws = PrepareSapLaws(f->problem, f->params);
    f->laws.LinearRows(&f->R, &f->v_hat);
    f->v = rec.result.v;
    f->problem.ConstraintVelocities(f->v, &f->vc);
    f->H = SapDenseHessian(f->problem, f->laws, f->problem.v0);
    VecX gradient;
    SapCost(f->problem, f->laws, f->problem.v0, &gradient, nullptr);
    f->dv = -f->H.llt().solve(gradient);
    for (const ConstraintData& c : f->problem.constraints) {
      f->num_cones += c.kind == ConstraintKind::kFrictionCone;
    }
    std::cerr << "problem: " << path << " at step " << kSteps << ": nv = " << f->problem.nv
              << ", constraints = " << f->problem.constraints.size() << " (" << f->num_cones
              << " cones), rows = " << f->problem.num_rows << ", Newton iterations of the step = "
              << rec.result.stats.iterations << std::endl;
    return f;
  }();
  return *fixture;
}

void SetProblemCounters(benchmark::State& state, const Fixture& f) {
  state.counters["nv"] = f.problem.nv;
  state.counters["constraints"] = static_cast<double>(f.problem.constraints.size());
}

template <bool kWithG>
void BM_ConeProjection(benchmark::State& state) {
  const Fixture& f = GetFixture();
  // y = −R⁻¹(v_c − v̂) per cone, precomputed: the benchmark times the projection alone.
  std::vector<Vec3> y;
  std::vector<Vec3> R;
  std::vector<double> mu;
  for (const ConstraintData& c : f.problem.constraints) {
    if (c.kind != ConstraintKind::kFrictionCone) continue;
    const int r = c.first_row;
    Vec3 yi;
    for (int k = 0; k < 3; ++k) yi[k] = -(f.vc[r + k] - f.v_hat[r + k]) / f.R[r + k];
    y.push_back(yi);
    R.push_back(f.R.segment<3>(r));
    mu.push_back(c.friction);
  }
  Vec3 gamma;
  Mat3 G;
  for (auto _ : state) {
    for (size_t i = 0; i < y.size(); ++i) {
      const Regime regime = SapProjectCone(y[i], mu[i], R[i][0], R[i][2], &gamma,
                                           kWithG ? &G : nullptr);
      benchmark::DoNotOptimize(regime);
      benchmark::DoNotOptimize(gamma);
      if (kWithG) benchmark::DoNotOptimize(G);
    }
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(y.size()));
  SetProblemCounters(state, f);
}
BENCHMARK_TEMPLATE(BM_ConeProjection, true)->Name("ConeProjection/with_G");
BENCHMARK_TEMPLATE(BM_ConeProjection, false)->Name("ConeProjection/gamma_only");

void BM_ConstraintCostAndG(benchmark::State& state) {
  const Fixture& f = GetFixture();
  VecX gamma;
  std::vector<Mat3> G;
  std::vector<Regime> regime;
  for (auto _ : state) {
    const double cost = SapConstraintCost(f.problem, f.laws, f.vc, &gamma, &G, &regime);
    benchmark::DoNotOptimize(cost);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(f.problem.constraints.size()));
  SetProblemCounters(state, f);
}
BENCHMARK(BM_ConstraintCostAndG)->Name("ConstraintCostAndG");

void BM_DenseHessian(benchmark::State& state) {
  const Fixture& f = GetFixture();
  for (auto _ : state) {
    MatX H = SapDenseHessian(f.problem, f.laws, f.v);
    benchmark::DoNotOptimize(H.data());
  }
  SetProblemCounters(state, f);
}
BENCHMARK(BM_DenseHessian)->Name("DenseHessian")->Unit(benchmark::kMicrosecond);

void BM_FactorDense(benchmark::State& state) {
  const Fixture& f = GetFixture();
  Eigen::LLT<MatX> llt(f.H.rows());
  for (auto _ : state) {
    llt.compute(f.H);
    benchmark::DoNotOptimize(llt.matrixLLT().data());
  }
  if (llt.info() != Eigen::Success) state.SkipWithError("H is not positive definite");
  SetProblemCounters(state, f);
}
BENCHMARK(BM_FactorDense)->Name("FactorDense")->Unit(benchmark::kMicrosecond);

void BM_FactorSparse(benchmark::State& state) {
  const Fixture& f = GetFixture();
  const Eigen::SparseMatrix<double> H = f.H.sparseView();
  Eigen::SimplicialLLT<Eigen::SparseMatrix<double>> llt;
  llt.analyzePattern(H);  // symbolic analysis once, as the pattern is fixed within a step
  for (auto _ : state) {
    llt.factorize(H);
    benchmark::DoNotOptimize(&llt);
  }
  if (llt.info() != Eigen::Success) state.SkipWithError("H is not positive definite");
  state.counters["nnz_H"] = static_cast<double>(H.nonZeros());
  SetProblemCounters(state, f);
}
BENCHMARK(BM_FactorSparse)->Name("FactorSparse")->Unit(benchmark::kMicrosecond);

// H = A + JᵀGJ of a step's contact problem with G at the step's solution, as the solver
// factorizes it in its last Newton iteration: sparse (lower and upper) and in the solver's block
// layout.
struct FactorFixture {
  std::string name;
  ContactProblem problem;
  Eigen::SparseMatrix<double> H;
  BlockSparseCholesky block;
  std::vector<double> block_values;  // the assembled (unfactorized) blocks, in storage order
  int largest_island = 0;            // trees in the largest connected component
};

FactorFixture* MakeFactorFixture(const std::string& scene_file, int steps, const char* name) {
  auto* f = new FactorFixture;
  f->name = name;
  Scene scene = LoadScene(std::string(CONTACTLAB_SOURCE_DIR) + "/" + scene_file);
  Simulator sim(scene.model, scene.settings);
  for (int i = 0; i < steps; ++i) sim.Step();
  const StepRecord& rec = sim.last_record();
  f->problem = rec.problem;
  const ContactProblem& p = f->problem;
  const ConstraintBundle reg = PrepareSapLaws(p, scene.settings.sap);
  VecX vc, gamma;
  std::vector<Mat3> G;
  std::vector<Regime> regime;
  p.ConstraintVelocities(rec.result.v, &vc);
  SapConstraintCost(p, reg, vc, &gamma, &G, &regime);
  std::vector<Eigen::Triplet<double>> triplets;
  auto add = [&](int r0, int c0, const MatX& m) {
    for (int j = 0; j < m.cols(); ++j) {
      for (int i = 0; i < m.rows(); ++i) {
        triplets.emplace_back(r0 + i, c0 + j, m(i, j));
      }
    }
  };
  std::vector<std::pair<int, int>> pairs;
  for (int t = 0; t < p.num_trees(); ++t) add(p.tree_v_start[t], p.tree_v_start[t], p.A[t]);
  for (size_t i = 0; i < p.constraints.size(); ++i) {
    const ConstraintData& c = p.constraints[i];
    if (regime[i] == Regime::kNoContact) {  // G_i = 0: no entries, no coupling
      continue;
    }
    const MatX Gi = G[i].topLeftCorner(c.num_rows, c.num_rows);
    for (int a = 0; a < c.num_blocks; ++a) {
      for (int b = 0; b < c.num_blocks; ++b) {
        const MatX block = c.blocks[a].J.transpose() * Gi * c.blocks[b].J;
        add(p.tree_v_start[c.blocks[a].tree], p.tree_v_start[c.blocks[b].tree], block);
      }
    }
    // As in the solver: only constraints in contact couple their trees in the pattern.
    if (c.num_blocks == 2 && regime[i] != Regime::kNoContact) {
      pairs.emplace_back(c.blocks[0].tree, c.blocks[1].tree);
    }
  }
  f->H.resize(p.nv, p.nv);
  f->H.setFromTriplets(triplets.begin(), triplets.end());
  f->block.SetPattern(p.tree_nv, pairs);
  f->block.SetZero();
  for (int b = 0; b < f->block.num_blocks(); ++b) {
    const int r0 = p.tree_v_start[f->block.BlockRowTree(b)];
    const int c0 = p.tree_v_start[f->block.BlockColTree(b)];
    const int rows = f->block.BlockRows(b), cols = f->block.BlockCols(b);
    double* d = f->block.BlockData(b);
    for (int j = 0; j < cols; ++j) {
      for (int i = 0; i < rows; ++i) d[i + j * rows] = f->H.coeff(r0 + i, c0 + j);
    }
  }
  const int nb = f->block.num_blocks();
  const double* first = f->block.BlockData(0);
  const double* end = f->block.BlockData(nb - 1) +
                      f->block.BlockRows(nb - 1) * f->block.BlockCols(nb - 1);
  f->block_values.assign(first, end);
  std::vector<int> count(f->block.num_components(), 0);
  for (int c : f->block.component()) f->largest_island = std::max(f->largest_island, ++count[c]);
  std::cerr << "factor problem " << name << ": " << scene_file << " at step " << steps
            << ": nv = " << p.nv << ", constraints = " << p.constraints.size()
            << ", nnz(H) = " << f->H.nonZeros() << ", largest island = " << f->largest_island
            << " trees" << std::endl;
  return f;
}

FactorFixture& GetFactorFixture(int which) {
  static FactorFixture* clutter = nullptr;
  static FactorFixture* pile = nullptr;
  if (which == 0) {
    if (!clutter) clutter = MakeFactorFixture("scenes/clutter_40_walls.yaml", kSteps, "clutter40");
    return *clutter;
  }
  if (!pile) pile = MakeFactorFixture("scenes/bench/clutter_1000.yaml", 120, "pile1000");
  return *pile;
}

void SetFactorCounters(benchmark::State& state, const FactorFixture& f) {
  state.counters["nv"] = f.problem.nv;
  state.counters["nnz_H"] = static_cast<double>(f.H.nonZeros());
  state.counters["largest_island"] = f.largest_island;
}

// The solver's factorization (engine/solvers/common/sap_supernodal.h). Factor() works in place, so every
// iteration first restores the assembled blocks (one memcpy, as the solver re-assembles H).
void BM_FactorBlock(benchmark::State& state, int which) {
  FactorFixture& f = GetFactorFixture(which);
  bool ok = true;
  for (auto _ : state) {
    std::memcpy(f.block.BlockData(0), f.block_values.data(),
                f.block_values.size() * sizeof(double));
    ok = f.block.Factor() && ok;
    benchmark::DoNotOptimize(f.block.BlockData(0));
  }
  if (!ok) state.SkipWithError("H is not positive definite");
  SetFactorCounters(state, f);
}

// Counters a sparse LLᵀ of Eigen reports about its factor (none for SimplicialLLT).
template <typename Llt>
void AddFactorCounters(benchmark::State&, const Llt&) {}

// Eigen's sparse LLᵀ interface: SimplicialLLT and, when found, CHOLMOD's supernodal LLᵀ.
template <typename Llt>
void BM_FactorEigen(benchmark::State& state, int which) {
  const FactorFixture& f = GetFactorFixture(which);
  Llt llt;
  llt.analyzePattern(f.H);
  for (auto _ : state) {
    llt.factorize(f.H);
    benchmark::DoNotOptimize(&llt);
  }
  if (llt.info() != Eigen::Success) state.SkipWithError("H is not positive definite");
  AddFactorCounters(state, llt);
  SetFactorCounters(state, f);
}
using SimplicialLlt = Eigen::SimplicialLLT<Eigen::SparseMatrix<double>>;
const auto BM_FactorSimplicial = BM_FactorEigen<SimplicialLlt>;

#ifdef CONTACTLAB_HAVE_CHOLMOD
using CholmodLlt = Eigen::CholmodSupernodalLLT<Eigen::SparseMatrix<double>>;
template <>
void AddFactorCounters(benchmark::State& state, const CholmodLlt& llt) {
  state.counters["flops"] = const_cast<CholmodLlt&>(llt).cholmod().fl;
  state.counters["nnz_L"] = const_cast<CholmodLlt&>(llt).cholmod().lnz;
}
const auto BM_FactorCholmod = BM_FactorEigen<CholmodLlt>;
BENCHMARK_CAPTURE(BM_FactorCholmod, clutter40, 0)->Name("Factor/cholmod/clutter40")
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_FactorCholmod, pile1000, 1)->Name("Factor/cholmod/pile1000")
    ->Unit(benchmark::kMicrosecond);
#endif
BENCHMARK_CAPTURE(BM_FactorBlock, clutter40, 0)->Name("Factor/block/clutter40")
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_FactorBlock, pile1000, 1)->Name("Factor/block/pile1000")
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_FactorSimplicial, clutter40, 0)->Name("Factor/simplicial/clutter40")
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_FactorSimplicial, pile1000, 1)->Name("Factor/simplicial/pile1000")
    ->Unit(benchmark::kMicrosecond);

void BM_LineSearchEval(benchmark::State& state) {
  const Fixture& f = GetFixture();
  VecX v, gradient, gamma;
  const double alpha = 0.5;
  for (auto _ : state) {
    v = f.problem.v0 + alpha * f.dv;
    const double cost = SapCost(f.problem, f.laws, v, &gradient, &gamma);
    const double slope = gradient.dot(f.dv);
    benchmark::DoNotOptimize(cost);
    benchmark::DoNotOptimize(slope);
  }
  SetProblemCounters(state, f);
}
BENCHMARK(BM_LineSearchEval)->Name("LineSearchEval")->Unit(benchmark::kMicrosecond);

void BM_Solve(benchmark::State& state, SapParameters::LinearSolver linear,
              SapParameters::LineSearch search) {
  const Fixture& f = GetFixture();
  SapParameters params = f.params;
  params.linear_solver = linear;
  params.line_search = search;
  SapSolver solver(params);
  SolverResult result;
  for (auto _ : state) {
    solver.Solve(f.problem, f.problem.v0, &result);
    benchmark::DoNotOptimize(result.v.data());
  }
  if (result.stats.status != SolverStatus::kConverged) {
    state.SkipWithError(SolverStatusName(result.stats.status));
  }
  state.counters["newton_iterations"] = result.stats.iterations;
  SetProblemCounters(state, f);
}
BENCHMARK_CAPTURE(BM_Solve, block_sparse_exact, SapParameters::LinearSolver::kBlockSparse,
                  SapParameters::LineSearch::kExact)
    ->Name("Solve/block_sparse/exact")
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Solve, dense_exact, SapParameters::LinearSolver::kDense,
                  SapParameters::LineSearch::kExact)
    ->Name("Solve/dense/exact")
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Solve, block_sparse_backtracking, SapParameters::LinearSolver::kBlockSparse,
                  SapParameters::LineSearch::kBacktracking)
    ->Name("Solve/block_sparse/backtracking")
    ->Unit(benchmark::kMicrosecond);

// The humanoid of libmujoco-samples (27 dofs: a free base and 21 hinges) at rest on the floor,
// t = 5 s: M's Delassus estimates and the free motion's factor, dense (Eigen LLT) against the
// tree LᵀDL (engine/common/tree_ltdl.h).
//   Humanoid/Delassus/{dense,tree}   ContactProblem::ComputeDelassusEstimates without / with the
//                                    dof parents
//   Humanoid/FactorSolve/{dense,tree} one factorization of M and one solve
struct HumanoidFixture {
  ContactProblem problem;
  std::vector<std::vector<int>> dof_parent;
  bool ok = false;
  HumanoidFixture() {
    const std::string path = "/usr/share/mujoco/model/humanoid/humanoid.xml";
    if (!std::ifstream(path)) return;
    Scene scene = LoadScene(path);
    Simulator sim(scene.model, scene.settings);
    for (int i = 0; i < 1000; ++i) sim.Step();
    problem = sim.last_record().problem;
    dof_parent.resize(scene.model.trees.size());
    std::vector<int> leaf;
    for (size_t t = 0; t < scene.model.trees.size(); ++t) {
      sim.multibody().TreeDofStructure(static_cast<int>(t), &dof_parent[t], &leaf);
    }
    ok = true;
  }
};
HumanoidFixture& Humanoid() {
  static HumanoidFixture f;
  return f;
}

void BM_HumanoidDelassus(benchmark::State& state, bool tree) {
  HumanoidFixture& f = Humanoid();
  if (!f.ok) {
    state.SkipWithError("libmujoco-samples' humanoid.xml is not installed");
    return;
  }
  for (auto _ : state) {
    f.problem.ComputeDelassusEstimates(nullptr, tree ? &f.dof_parent : nullptr);
    benchmark::DoNotOptimize(f.problem.constraints.data());
  }
  state.counters["constraints"] = static_cast<double>(f.problem.constraints.size());
}
BENCHMARK_CAPTURE(BM_HumanoidDelassus, dense, false)
    ->Name("Humanoid/Delassus/dense")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_HumanoidDelassus, tree, true)
    ->Name("Humanoid/Delassus/tree")->Unit(benchmark::kMicrosecond);

void BM_HumanoidFactorSolve(benchmark::State& state, bool tree) {
  HumanoidFixture& f = Humanoid();
  if (!f.ok) {
    state.SkipWithError("libmujoco-samples' humanoid.xml is not installed");
    return;
  }
  const MatX& M = f.problem.M[0];
  const int n = static_cast<int>(M.rows());
  tree_ltdl::Ancestors anc;
  anc.Build(f.dof_parent[0].data(), n);
  MatX F(n, n);
  VecX x(n);
  for (auto _ : state) {
    F = M;
    x.setOnes();
    if (tree) {
      tree_ltdl::Factor(F.data(), anc);
      tree_ltdl::Solve(F.data(), anc, x.data());
    } else {
      const Eigen::LLT<Eigen::Ref<MatX>> llt(F);
      llt.solveInPlace(x);
    }
    benchmark::DoNotOptimize(x.data());
  }
}
BENCHMARK_CAPTURE(BM_HumanoidFactorSolve, dense, false)
    ->Name("Humanoid/FactorSolve/dense")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_HumanoidFactorSolve, tree, true)
    ->Name("Humanoid/FactorSolve/tree")->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace contactlab

// Default to 5 repetitions with aggregates (median) unless the command line says otherwise.
int main(int argc, char** argv) {
  std::vector<char*> args(argv, argv + argc);
  bool has_repetitions = false;
  for (int i = 1; i < argc; ++i) {
    has_repetitions |= std::string(argv[i]).rfind("--benchmark_repetitions", 0) == 0;
  }
  std::string repetitions = "--benchmark_repetitions=5";
  std::string aggregates = "--benchmark_report_aggregates_only=true";
  if (!has_repetitions) {
    args.push_back(repetitions.data());
    args.push_back(aggregates.data());
  }
  int n = static_cast<int>(args.size());
  benchmark::Initialize(&n, args.data());
  if (benchmark::ReportUnrecognizedArguments(n, args.data())) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
