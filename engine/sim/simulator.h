// One simulation: a Model, its state and the step pipeline (SAP paper Alg. 1):
//   kinematics -> broad/narrow phase -> contact problem (A, v*, J, constraint data)
//   -> solver -> θ-method position update.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/common/tree_ltdl.h"
#include "engine/geometry/collision.h"
#include "engine/geometry/contact.h"
#include "engine/geometry/hydroelastic/contact_surface.h"
#include "engine/contact/contact_problem.h"
#include "engine/multibody/articulated_tree.h"
#include "engine/multibody/multibody.h"
#include "engine/multibody/perturbation.h"
#include "engine/contact/contact_model.h"
#include "engine/sim/solver_registry.h"
#include "engine/solvers/canal/canal_solver.h"
#include "engine/solvers/common/solver.h"
#include "engine/solvers/first_order/first_order_solver.h"
#include "engine/solvers/pgs/pgs_solver.h"
#include "engine/solvers/sap/sap_solver.h"
#include "engine/solvers/subadmm/subadmm_solver.h"

namespace contactlab {

// θ-method schemes (SAP paper Table in §II-C): θ weights q and v in the forces, θ_vq the
// velocity used to advance q. kImplicitDampingEuler is symplectic Euler (θ = 0, θ_vq = 1) with
// the joint dampers and the actuators' kd taken implicitly, linearized at v0 (one linear solve,
// A = M + δt D), as MuJoCo's default Euler integrator does: explicit damping d is unstable once
// δt d / I > 2 for a joint of small effective inertia I (a hand, a foot), which models written
// for MuJoCo contain.
enum class Integrator { kExplicitEuler, kSymplecticEuler, kImplicitEuler, kMidpoint,
                        kImplicitDampingEuler };
const char* IntegratorName(Integrator i);
bool ParseIntegrator(const std::string& s, Integrator* out);
double IntegratorTheta(Integrator i);
double IntegratorThetaVq(Integrator i);
// Weight of the damping D in A = M + δt θ_D D + δt² θ θ_vq K: θ, except 1 for
// kImplicitDampingEuler.
double IntegratorThetaDamping(Integrator i);

struct StepSettings {
  double time_step = 1e-3;                  // δt [s]. Range (0, 1].
  Vec3 gravity = Vec3(0, 0, -9.81);          // [m/s²]
  Integrator integrator = Integrator::kSymplecticEuler;
  double contact_margin = 1e-3;             // base margin: pairs with φ below it are candidates [m]
  // Speculative margin: the margin of each pair of bodies a, b grows to
  //   contact_margin + (δt + τ_d) √(1 + μ²) u_ab,
  // u_ab a bound on the relative speed of their surfaces (‖v_com,a − v_com,b‖ + |ω_a| r_a +
  // |ω_b| r_b at the step's start), τ_d and μ the pair's. A candidate with gap φ0 > 0
  // is not inert: SAP loads it whenever
  //   φ0 < (δt + τ_d) (μ ‖v_t‖ − v_n)
  // (v_t, v_n its contact velocity at the end of the step, v_n < 0 approaching; derivation in
  // Simulator::Step). The −v_n part is the damping τ_d k v_n of eq. 2 acting before the gap
  // closes: a body approaching at speed v is braked from a gap of about (δt + τ_d) v (a ball
  // dropped from 1 m with τ_d = 0.01 s at δt = 1 ms starts to push about 4.5 cm above the floor,
  // then creeps onto it at a speed of about φ/(δt + τ_d)). The μ ‖v_t‖ part is the gliding band of
  // sliding contact (§V-A). The margin covers both, so that no contact the model would load is
  // missing; each candidate costs a row. Off: contact_margin only.
  bool speculative_margin = true;
  // Joint limits out of reach. A limit side at gap φ0 = q − lower (or upper − q) has the law
  // v̂ = −φ0/δt (τ_d = 0) and acts exactly when φ0 + δt v_c < 0 at the end of the step (v_c = ±v
  // of its dof). On: a side with φ0 >= 2 δt max(0, −v_c(v0), −v_c(v*)) + 1e-3 [rad or m] is left
  // out of the problem; after the solve every side left out is checked with the solution's v_c,
  // and the sides that would act become rows of a new solve (from the same guess), until none
  // would act (the fourth solve of a step has every limit). SAP only: under the other solvers
  // every side is a row (the first-order solver took 51 s to a numerical failure on one step of
  // scenes/paper/dual_arm_jar.yaml with the smaller problem, 0.1 s with every side). The result is the same as with every limit in the problem: a side left out that
  // does not act contributes ℓ_i = 0 and ∇ℓ_i = 0 at the solution. Off: every limit is a row.
  bool defer_limits = true;
  // The contact solver of every step (engine/sim/solver_registry.h) and each solver's own
  // parameters (only the chosen solver's are used; the others are kept so that switching back
  // and forth in the viewer keeps edits).
  SolverType solver_type = SolverType::kSap;
  SapParameters sap;                        // solver parameters of SAP (`solver:`)
  CanalParameters canal;                    // `solver: {canal: {...}}`
  SubAdmmParameters subadmm;                // `solver: {subadmm: {...}}`
  PgsParameters pgs;                        // `solver: {pgs: {...}}`
  FirstOrderParameters first_order;         // `solver: {first_order: {...}}`
  ContactModelParameters contact;           // contact model (linear: SAP's law) and v_s
  int free_motion_max_iterations = 20;      // Newton cap for implicit free motion (eq. 14)
  double free_motion_tolerance = 1e-12;     // relative, on ‖m(v*)‖
  // Throws std::invalid_argument with the valid range, or when the solver does not accept the
  // contact model (SolverModelMismatch).
  void Validate() const;
};

struct State {
  double time = 0;
  VecX q, v;
};

struct StepTimings {
  double kinematics_ms = 0, collision_ms = 0, assembly_ms = 0, solve_ms = 0, integrate_ms = 0;
  double total_ms = 0;
  // Part of collision_ms spent on pressure-field contact: the contact surfaces of the
  // hydroelastic pairs and their face constraints (Simulator::AddHydroelasticContacts).
  double hydroelastic_ms = 0;
};

// Scalar metrics of the state after a step.
struct StepMetrics {
  double kinetic_energy = 0;    // [J]
  double potential_energy = 0;  // [J], gravity + joint springs
  double max_penetration = 0;   // max(0, −min φ) over the step's contacts at q0 [m]
  double margin = 0;            // largest pair margin of the step's collision query [m]
  // Cone constraints in the step's problem: the candidate pairs of the collision query within
  // the (speculative) margin, whether or not they touch or push.
  int num_contacts = 0;
  int num_loaded_contacts = 0;  // cone constraints with a normal impulse γ_n > 0 in the solve
  double mean_stiction_slip = 0;  // mean ‖v_t‖ at stiction contacts [m/s]
  // Pressure-field contact (StepRecord::surfaces): patches, their faces that became contacts
  // (counted in num_contacts too) and the largest face pressure p0 [Pa]. max_penetration
  // counts point contacts only (a face's φ0 = −p0/g is no depth).
  int num_patches = 0;
  int num_faces = 0;
  double max_pressure = 0;
};

// Divergence warnings of a step. A warning does not change the step (the solver may well have
// converged); it says that the result is probably not physics: the time step is too large for
// the materials and speeds of the scene, or the solve went wrong. Thresholds and their reasons:
// Simulator::Step's comments and docs/debugging.md "Divergence warnings".
enum class StepWarning : std::uint8_t {
  // Mechanical energy KE + PE rose by more than the contacts' stored elastic energy, the work the
  // step's energy sources could do (loads, mouse spring, actuators, prescribed bodies) and a
  // tolerance for the integrator's energy error.
  kEnergyGrowth = 0,
  // A contact is deeper than the half-thickness of the thinner of its two geometries.
  kDeepPenetration = 1,
  // A body's surface moves farther than twice its diameter in one step.
  kExcessiveSpeed = 2,
};
constexpr int kNumStepWarnings = 3;
const char* StepWarningName(StepWarning w);  // energy_growth, deep_penetration, excessive_speed

// The step's divergence checks with the figures behind them (also when no warning fired).
struct StepDiagnostics {
  std::uint32_t warnings = 0;  // bit (1 << StepWarning) for each warning that fired
  bool Has(StepWarning w) const { return (warnings >> static_cast<int>(w)) & 1u; }
  // Energy ledger [J]: energy_after − energy_before is compared with elastic_energy +
  // injected_energy + energy_tolerance.
  double energy_before = 0;    // KE + PE at t^n
  double energy_after = 0;     // KE + PE at t^{n+1}
  double elastic_energy = 0;   // Σ ½ k max(0, −φ0)² over compliant contacts at t^n (upper bound)
  double injected_energy = 0;  // bound on the work of loads, mouse spring, actuators, prescribed
  double energy_tolerance = 0;
  // Deepest penetration relative to its allowed depth (> 1 fires kDeepPenetration) [-].
  double penetration_ratio = 0;
  // Largest δt (|v_com| + |ω| r) / (4 r) over dynamic bodies (> 1 fires kExcessiveSpeed) [-].
  double speed_ratio = 0;
  std::string message;  // the warnings that fired with their figures, "; "-separated
};

// Stage 1 of a step: the free-motion solve m(v*) = 0 (eq. 14). Explicit integrators take one
// solve and always converge; implicit ones run Newton up to free_motion_max_iterations.
struct FreeMotionReport {
  int iterations = 0;         // Newton iterations (1 for explicit integrators)
  double residual = 0;        // ‖m(v*)‖∞ / scale at the last evaluation [-]
  bool converged = true;      // residual <= free_motion_tolerance (or explicit)
};

// Everything about one step, for inspection, timeline scrubbing and re-solving.
struct StepRecord {
  int step = 0;                  // index of the step (0 = first)
  State before;                  // state at t^n
  State after;                   // state at t^{n+1}
  std::vector<Contact> contacts; // contacts at q0
  // Pressure-field contact surfaces (patches) at q0, one per touching hydroelastic pair, faces
  // oriented from geom_a into geom_b. The contacts with surface = i, face = e are its kept faces
  // (a face whose gradient the recipe refuses has no contact).
  std::vector<ContactSurface> surfaces;
  ContactProblem problem;
  SolverResult result;
  StepTimings timings;
  StepMetrics metrics;
  FreeMotionReport free_motion;  // a free motion that did not converge is a failure to show
  // Mouse perturbation applied during the step (none if empty) and its grabbed point at t^n,
  // world frame [m] (zero without a perturbation); a viewer draws a line from it to
  // perturbation->target_W.
  std::optional<Perturbation> perturbation;
  Vec3 perturbation_point_W = Vec3::Zero();
  StepDiagnostics diagnostics;  // divergence warnings (none when the state is not finite)
  // Joint-limit sides left out of `problem` (StepSettings::defer_limits), and the solves before
  // the recorded one: each time a side left out would have acted, it became a row and the step
  // was solved again (`earlier_iterations`: the iterations of those earlier solves; `result` is
  // the last; at most 3 more solves, the last with every limit).
  int deferred_limits = 0;
  int limit_resolves = 0;
  int earlier_iterations = 0;
  // True when the step failed: a solver status other than converged (including
  // kNonFiniteState) or a free motion that did not converge.
  bool Failed() const {
    return result.stats.status != SolverStatus::kConverged || !free_motion.converged;
  }
};

// Memory of the dense per-tree matrices a step keeps [bytes]: each tree of nv dofs holds
// kDenseTreeMatrices nv×nv matrices (M, A, the free motion's factor, the Hessian's diagonal block,
// its factor and the Delassus estimate's factor), 8 bytes a value, summed in 64 bits.
constexpr int kDenseTreeMatrices = 6;
std::int64_t DenseTreeBytes(const Model& model);
// Empty when DenseTreeBytes(model) fits the memory budget (settings.sap.memory_budget_mb, else
// DefaultMemoryBudgetBytes()); otherwise a message naming the largest tree, the total dofs, the
// estimate and the budget. Simulator's constructor throws std::invalid_argument with it.
std::string CheckDenseTreeMemory(const Model& model, const StepSettings& settings);

class Simulator {
 public:
  Simulator(Model model, StepSettings settings);
  ~Simulator();

  // Advances one step and returns its record (valid until the next call). A solver failure is
  // recorded in record.result.stats.status; the state still advances with the best iterate,
  // unless the input was non-finite or the resulting state (q, v, body poses, energy) is not
  // finite: the state is then kept at the step's start for inspection, the step count does not
  // advance, and a non-finite result has status kNonFiniteState (message: which quantity).
  // Divergence checks fill record.diagnostics.
  const StepRecord& Step();

  const Model& model() const { return model_; }
  // Materials and other tunables may be edited between steps; geometry/topology may not. Edit
  // through a fresh call between steps (it drops the kinematics kept from the last step).
  Model& mutable_model() {
    metrics_state_valid_ = false;
    return model_;
  }
  const StepSettings& settings() const { return settings_; }
  void set_settings(const StepSettings& s);  // validates
  const State& state() const { return state_; }
  void set_state(const State& s);
  void Reset();  // back to the model's default state at t = 0
  const Multibody& multibody() const { return *multibody_; }
  const StepRecord& last_record() const { return record_; }
  // The volume mesh and pressure field of geometry `geom` as the contact surfaces use it (frame
  // of the geometry), or nullptr when the geometry is rigid or `geom` is out of range. Meshes are
  // built at construction and rebuilt by the first Step() after a material edit changed their
  // modulus or resolution: the pointer is valid until then (geometries with equal shapes and
  // values share one mesh).
  const CompliantGeometry* compliant_geometry(int geom) const;
  int step_count() const { return step_count_; }
  // Used when resuming from a recorded step of the timeline.
  void set_step_count(int n) { step_count_ = n; }

  // Re-solves a recorded step's contact problem with other solver parameters (the problem's
  // constraint data is physical, so σ, β and tolerances take effect) and the current contact
  // model (settings().contact). Materials edited since are applied by RebuildProblem below.
  SolverResult Resolve(const StepRecord& record, const SapParameters& params) const;
  // The same with another contact model: the frozen problem (its φ0, v0, k, τ_d, d, μ, w) is
  // solved under that model's laws, e.g. to overlay its curve on the recorded one.
  SolverResult Resolve(const StepRecord& record, const SapParameters& params,
                       const ContactModelParameters& contact) const;
  // The same with any solver: settings.solver_type with its parameters and settings.contact
  // (the other fields of `settings` are not used). Validates `settings` (throws
  // std::invalid_argument, e.g. for a solver that does not accept the model).
  SolverResult Resolve(const StepRecord& record, const StepSettings& settings) const;
  // The solver the steps use (its type is settings().solver_type).
  const ContactSolver& solver() const { return *solver_; }

  // Mouse perturbation (engine/multibody/perturbation.h), applied by every Step() until cleared: the force
  // f = k (target_W − p_W) − c v_p on the grabbed point, with p_W and v_p taken at the step's
  // start (q0, v0), enters the free motion (stage 1) as the generalized force J_pᵀ f added to
  // k(q, v) in every iteration. It is explicit in every integration scheme (never re-evaluated
  // at q^θ, v^θ) and does not enter the linearization A. Kept across Reset() and set_state().
  // SetPerturbation validates with ValidatePerturbation (std::invalid_argument naming the
  // field and valid range).
  // External loads (Model::loads, engine/multibody/load.h) enter the free motion the same way: their sum
  // J_pᵀ f is evaluated at the step's start (signals at t^n, points at q0) and added to the
  // perturbation's generalized force.
  void SetPerturbation(const Perturbation& p);
  void ClearPerturbation() { perturbation_.reset(); }
  const std::optional<Perturbation>& perturbation() const { return perturbation_; }

  // Energy and penetration of an arbitrary state.
  StepMetrics ComputeMetrics(const State& s, const std::vector<Contact>& contacts) const;

  // Empty when q, v, every body pose (prescribed bodies included) and the kinetic and potential
  // energies of `s` are finite; otherwise names the first quantity that is not, e.g.
  // "q[3] = nan" or "potential energy = inf" (a finite 1e308 position overflows the energy).
  std::string NonFiniteQuantity(const State& s) const;

 private:
  // external_force (size nv, may be null): constant generalized force added to k.
  // kin_q0 (may be null): kinematics at (q0, t), used as they are when the integrator is
  // explicit (θ = 0) instead of being recomputed.
  FreeMotionReport ComputeFreeMotion(const VecX& q0, const VecX& v0, double t,
                                     const VecX* external_force, const KinematicsCache* kin_q0,
                                     VecX* v_star, std::vector<MatX>* A, std::vector<MatX>* M);
  // The recorded problem's per-pair material data (k, τ_d, μ, d) from the current materials.
  void RefreshMaterials(const StepRecord& record, ContactProblem* problem) const;
  void AssembleProblem(const KinematicsCache& kin, double t, const std::vector<Contact>& contacts,
                       ContactProblem* problem);
  // *J becomes rows x cols (contents unspecified) using the spare pool instead of allocating.
  // Factors A_t = M_t(kin) + diag(diag) of a tree in scratch_.aba (diag: nv_t values or null).
  // False if A_t is not SPD to working precision.
  bool FactorTreeArticulated(const KinematicsCache& kin, int tree, const double* diag);
  void SizeJacobian(int rows, int cols, MatX* J);
  // Moves *J's storage into the spare pool; *J is left empty.
  void ReturnJacobianStorage(MatX* J);

  // Per body, at (q, v), what the speculative margin needs (SpeculativeMargin): the velocity of
  // the centre of mass and |ω| r_b for bodies with dofs, the prescribed velocity and the peak
  // speed of the oscillation and spin for prescribed bodies, zero for static ones.
  // omega, v_com (optional): the body velocities of (kin, v) (Multibody::BodyVelocities).
  void BodySurfaceSpeeds(const KinematicsCache& kin, const VecX& v, SpeculativeMargin* out,
                         const std::vector<Vec3>* omega = nullptr,
                         const std::vector<Vec3>* v_com = nullptr) const;

  // Divergence checks of the step in `rec` (StepDiagnostics); `external_force` is the step's
  // generalized force of loads and mouse spring (size nv, or empty).
  // ke0, pe0: kinetic and potential energy at t^n [J]. Reads metrics_omega_ and metrics_v_com_
  // (the body velocities of rec.after that ComputeMetrics left there).
  void ComputeDiagnostics(const StepRecord& rec, const VecX* external_force, double ke0,
                          double pe0, StepDiagnostics* out) const;
  std::vector<double> geom_half_thickness_;  // per geom: half its smallest extent [m] (inf: plane)

  // Pressure-field contact: per geometry, the values its shape was built with and the shape
  // (compliant field or rigid surface) as the contact surfaces need it.
  struct HydroGeometry {
    HydroelasticProperties built_with;  // values of `shape` (modulus 0: rigid)
    HydroelasticShape shape;
    bool built = false;
  };
  // Builds the compliant geometries whose values changed since they were built (materials may
  // be edited between steps) and tells the collision detector which geometries are compliant.
  // Throws std::invalid_argument when a mesh cannot be built (the constructor's error path).
  void SyncHydroelastic();
  // The geometry's shape for a contact surface, built on first use (rigid sides are lazy).
  const HydroelasticShape& HydroShape(int geom);
  // Appends the contact surfaces of the collision query's hydroelastic pairs to rec->surfaces
  // and one contact per kept face to rec->contacts.
  void AddHydroelasticContacts(const std::vector<Pose>& X_WB, StepRecord* rec);
  std::vector<HydroGeometry> hydro_;
  bool any_compliant_ = false;

  Model model_;
  StepSettings settings_;
  std::vector<double> body_radius_;  // per body: farthest geometry point from the COM [m]
  State state_;
  std::unique_ptr<Multibody> multibody_;
  std::unique_ptr<CollisionDetector> collision_;
  std::unique_ptr<ContactSolver> solver_;
  StepRecord record_;
  int step_count_ = 0;
  VecX warm_start_;
  std::optional<Perturbation> perturbation_;
  // Working storage of Step(), kept so that a step does not allocate once sizes are settled.
  // x := A_t⁻¹ x for tree `tree` (A_t: its M or A block) in scratch_.factor[tree].
  void SolveTreeSystem(int tree, const MatX& A_t, double* x);
  // Joint-limit sides AssembleProblem left out (defer_limits) and whether to keep them all in.
  struct DeferredLimit {
    int dof = 0;        // generalized velocity index
    double sign = 1;    // v_c = sign · v[dof]
    double phi0 = 0;    // gap at q0 [rad] or [m]
    int slot = 0;       // 2 · joint + side
  };
  std::vector<DeferredLimit> deferred_limits_;
  bool keep_all_limits_ = false;
  // Per limit side (2 · joint + side): made a row for the rest of the step after a solve in
  // which it would have acted (cleared at the step's end).
  std::vector<char> limit_rows_forced_;
  // Per tree, each dof's parent dof (−1 at the root; Multibody::TreeDofStructure).
  std::vector<std::vector<int>> dof_parent_;
  std::vector<tree_ltdl::Ancestors> tree_ancestors_;  // the same as ancestor lists
  struct StepScratch {
    KinematicsCache kin, kin_free_motion;
    VecX q_theta, v_theta, v_thvq, k1, k2, K, D, m, v;
    VecX external_force;  // generalized force of the mouse spring and the loads
    MatX equality_angular;  // angular Jacobian of a welded body (3 x nv_tree)
    State next_state;     // the state after the step, before it replaces state_
    VecX dv;                    // free motion: v − v0
    VecX v_base, newton_step;   // free motion: iterate a Newton step starts from, the step Δv
    std::vector<MatX> factor;   // free motion: per tree, storage of the in-place Cholesky factor
    // Jacobian blocks of constraint slots whose tree size changed, reused by later slots so that
    // the step does not allocate once the sizes in use have been seen.
    std::vector<MatX> spare_jacobians;
    size_t next_spare = 0;
    // L⁻¹ of the 6-dof trees' M that the explicit free motion factored (A = M when θ = 0),
    // reused by the step's Delassus estimates.
    InverseCholeskyFactors free_body_factors;
    std::vector<int> body_leaf;  // per body: last dof on its path (large trees), else -1
    // Free motion of large trees (>= kTreeMotionMinDofs dofs): the articulated-body factor of A
    // and the per-dof data it is built from.
    ArticulatedTreeSolver aba;
    std::vector<int> aba_parent, aba_leaf;
    MatX aba_phi;
    std::vector<double> aba_inertia, aba_diag, aba_armature;
    SpeculativeMargin speculative;  // per-body speeds of the step's speculative margin
  };
  StepScratch scratch_;
  mutable KinematicsCache metrics_kin_;  // ComputeMetrics' kinematics, kept between steps
  // The state ComputeMetrics last evaluated (metrics_kin_, the body velocities and the energies
  // are its), so that the next step starting from that very state (q, v and t equal bit for bit,
  // the model not handed out for editing and the settings not set since) reuses them instead of
  // evaluating them again.
  mutable bool metrics_state_valid_ = false;
  mutable VecX metrics_q_, metrics_v_;
  mutable double metrics_time_ = 0, metrics_ke_ = 0, metrics_pe_ = 0;
  // Body angular and centre-of-mass velocities of that state (Multibody::BodyVelocities).
  mutable std::vector<Vec3> metrics_omega_, metrics_v_com_;
  mutable std::vector<Vec3> speed_omega_, speed_v_com_;  // BodySurfaceSpeeds' own pass
};

}  // namespace contactlab
