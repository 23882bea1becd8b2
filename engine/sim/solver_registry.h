// The solvers of the zoo, as one explicit table: which solver a step uses (StepSettings::
// solver_type, the scene's `solver: {type: ...}`), how it is made from the step settings, which
// contact models it accepts, and the series it logs. Everything that picks a solver (the
// simulator, re-solves of a frozen step, `compare`, the viewer's solver menu) goes through here.
//
//   sap          Semi-Analytic Primal: Newton on the convex problem (seed 000)
//   canal        cascaded Newton-based augmented Lagrangian (seed 001 §V, Alg. 1)
//   subadmm      subsystem-based ADMM (seed 001 §VI, Alg. 2)
//   pgs          projected block Gauss–Seidel on the dual of SAP's regularized problem
//   first_order  Drumwright's implicit spring–damper prediction with an SOCP (seed 002)
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/contact/contact_model.h"
#include "engine/solvers/common/solver.h"

namespace contactlab {

struct StepSettings;

enum class SolverType : std::uint8_t { kSap = 0, kCanal, kSubAdmm, kPgs, kFirstOrder };
constexpr int kNumSolverTypes = 5;

// "sap", "canal", "subadmm", "pgs", "first_order" (the scene file's spelling).
const char* SolverTypeName(SolverType type);
// "SAP", "CANAL", "SubADMM", "PGS", "first-order" (labels in tables and plots).
const char* SolverDisplayName(SolverType type);
bool ParseSolverType(const std::string& name, SolverType* type);
std::vector<const char*> SolverTypeNames();  // in enum order

// Whether the solver can solve steps under `model`: SAP and PGS minimize any convex law of the
// constraint bundle; CANAL, SubADMM and the first-order solver are formulated on the linear law
// (R, v̂, or the spring–damper k, τ_d) only.
bool SolverAcceptsModel(SolverType type, ContactModelType model);
// "linear" or "linear, lagged, lagged_regularized, similar".
std::string AcceptedModelsText(SolverType type);
// Empty when settings.solver_type accepts settings.contact.model; otherwise the refusal message
// ("solver.type = canal does not accept contact.model = lagged (canal accepts: linear)").
std::string SolverModelMismatch(const StepSettings& settings);

// A solver of settings.solver_type with that solver's parameters and the contact model.
// Throws std::invalid_argument for invalid parameters (the tables' messages).
std::unique_ptr<ContactSolver> MakeSolver(const StepSettings& settings);
// Applies settings' parameters and contact model to `solver` when it is of settings.solver_type
// (keeping its scratch and warm start) and returns true; false when it is another type (make a
// new one).
bool ConfigureSolver(const StepSettings& settings, ContactSolver* solver);
// The type of a solver made by MakeSolver (by its name()); kSap for an unknown one.
SolverType SolverTypeOf(const ContactSolver& solver);

// The iteration cap of the chosen solver (its max_iterations: Newton, AL, ADMM, sweeps or
// interior-point iterations), for breakpoints on "iteration cap reached".
int SolverIterationCap(const StepSettings& settings);
// Sets that cap (clamped to the parameter's valid range).
void SetSolverIterationCap(int cap, StepSettings* settings);

// σ of the chosen solver's friction regularization R_t = σ w (SAP, PGS; CANAL and SubADMM: 0 by
// default, exact Coulomb), for the stiction slip bound σ μ δt g; NaN for the first-order solver,
// whose stiction slip comes from its tangential damper instead.
double SolverFrictionSigma(const StepSettings& settings);

// The per-iteration series the solver declares.
SeriesTable SolverSeries(SolverType type);

}  // namespace contactlab
