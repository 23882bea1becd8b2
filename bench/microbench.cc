// Micro-benchmarks of the SAP kernels (engine/sap_cone.h, sap_model.h, sap_solver.h) on the
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
//   LineSearchEval       one evaluation of ℓ(v + α Δv) and dℓ/dα along the Newton direction,
//                        the unit of work of the exact line search
//   Solve/*              a whole SapSolver::Solve from v0, per linear solver and line search
#include <benchmark/benchmark.h>

#include <Eigen/Cholesky>
#include <Eigen/SparseCholesky>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "app/scene.h"
#include "engine/sap_cone.h"
#include "engine/sap_model.h"
#include "engine/sap_solver.h"
#include "engine/simulator.h"

namespace contactlab {
namespace {

constexpr int kSteps = 60;

struct Fixture {
  ContactProblem problem;
  SapParameters params;
  SapRegularization reg;
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
    f->reg = ComputeSapRegularization(f->problem, f->params);
    f->v = rec.result.v;
    f->problem.ConstraintVelocities(f->v, &f->vc);
    f->H = SapDenseHessian(f->problem, f->reg, f->problem.v0);
    VecX gradient;
    SapCost(f->problem, f->reg, f->problem.v0, &gradient, nullptr);
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
    for (int k = 0; k < 3; ++k) yi[k] = -(f.vc[r + k] - f.reg.v_hat[r + k]) / f.reg.R[r + k];
    y.push_back(yi);
    R.push_back(f.reg.R.segment<3>(r));
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
    const double cost = SapConstraintCost(f.problem, f.reg, f.vc, &gamma, &G, &regime);
    benchmark::DoNotOptimize(cost);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(f.problem.constraints.size()));
  SetProblemCounters(state, f);
}
BENCHMARK(BM_ConstraintCostAndG)->Name("ConstraintCostAndG");

void BM_DenseHessian(benchmark::State& state) {
  const Fixture& f = GetFixture();
  for (auto _ : state) {
    MatX H = SapDenseHessian(f.problem, f.reg, f.v);
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

void BM_LineSearchEval(benchmark::State& state) {
  const Fixture& f = GetFixture();
  VecX v, gradient, gamma;
  const double alpha = 0.5;
  for (auto _ : state) {
    v = f.problem.v0 + alpha * f.dv;
    const double cost = SapCost(f.problem, f.reg, v, &gradient, &gamma);
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
