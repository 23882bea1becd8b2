// What every contact solver checks and reports the same way: the structural and finiteness
// checks of a ContactProblem before any iteration, and the common accuracy measures of a result
// (SAP paper eq. 32's momentum residual e_m, the laws' complementarity e_μ), so that solvers
// of different kinds (primal Newton, augmented Lagrangian, ADMM, projected Gauss–Seidel,
// interior point) are compared on one definition.
#pragma once

#include <string>

#include "engine/contact/constraint_bundle.h"
#include "engine/contact/contact_problem.h"
#include "engine/solvers/common/solver.h"

namespace contactlab {

// Structural checks a malformed problem would crash on (tree ranges and block sizes, constraint
// rows, Jacobian blocks on distinct trees, v_guess's size). Empty when well formed; otherwise
// "malformed problem: ..." naming the first offender.
std::string CheckProblemStructure(const ContactProblem& p, const VecX& v_guess);

// Empty when v*, v_guess, A, M, every Jacobian block and bias are finite; otherwise names the
// first non-finite input ("non-finite v_star", "constraint 3: non-finite Jacobian or bias").
// Needs a well-formed problem (CheckProblemStructure).
std::string CheckProblemFinite(const ContactProblem& p, const VecX& v_guess);

// Both checks, then laws.Check() when `laws` is not null.
std::string CheckProblemInput(const ContactProblem& p, const VecX& v_guess,
                              const ConstraintBundle* laws = nullptr);

// e_m = ‖D ∇ℓ‖ / max(‖D p‖, ‖D Jᵀγ‖) at (v, γ) (SAP paper eq. 32), ∇ℓ = A(v − v*) − Jᵀγ,
// p = M v, D = diag(M)^(-1/2) (A when M is absent): the momentum balance of the step, 0 when
// v = v* + A⁻¹Jᵀγ exactly. 0 when both norms vanish (no motion, no impulse).
double MomentumError(const ContactProblem& p, const VecX& v, const VecX& gamma);

// e_μ = Σ_i |g_iᵀγ_i| / (n_c ℓ_p) at (v_c, γ) under `laws` (ConstraintBundle::
// ComplementaritySlack), with ℓ_p the cost of the convex problem (eq. 24) at (v, v_c): SAP's
// definition, for any solver's result. 0 without constraints or when ℓ_p <= 0.
double ComplementarityError(const ContactProblem& p, const ConstraintBundle& laws, const VecX& v,
                            const VecX& vc, const VecX& gamma);

// A failed solve's result in the shape the readers expect: v = v_guess, v_c = J v + b (zeros
// when the problem is malformed), γ = 0, every regime kNoContact, `status` and `message` set.
// `log_table`: the solver's series (the log is reset to it with no rows). Returns status.
SolverStatus FailResult(const ContactProblem& p, const VecX& v_guess, SolverStatus status,
                        const std::string& message, SeriesTable log_table, SolverResult* result);

}  // namespace contactlab
