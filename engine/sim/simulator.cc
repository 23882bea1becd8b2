// Step pipeline of the SAP paper's Algorithm 1 with the two-stage θ-method (§II-C, §II-D).
#include "engine/sim/simulator.h"

#include "engine/common/tree_ltdl.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>
#include <tuple>
#include <stdexcept>
#include <utility>

#include <Eigen/Cholesky>

#include "engine/geometry/hydroelastic/face_constraints.h"
#include "engine/multibody/load.h"
#include "engine/sim/param_tables.h"
#include "engine/solvers/common/sap_supernodal.h"

namespace contactlab {
namespace {

using Clock = std::chrono::steady_clock;
double MsSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// Half the smallest extent of each geometry [m]: the depth at which a contact normal of that
// geometry stops being meaningful (a body this deep is about to pass through). Half-spaces have
// no thickness (infinity).
std::vector<double> GeomHalfThicknesses(const Model& model) {
  std::vector<double> out(model.geoms.size(), std::numeric_limits<double>::infinity());
  for (size_t i = 0; i < model.geoms.size(); ++i) {
    const Shape& sh = model.geoms[i].shape;
    switch (sh.type) {
      case ShapeType::kHalfSpace: break;
      case ShapeType::kSphere:
      case ShapeType::kCapsule: out[i] = sh.radius; break;
      case ShapeType::kBox: out[i] = sh.half_extents.minCoeff(); break;
      case ShapeType::kCylinder: out[i] = std::min(sh.radius, sh.half_length); break;
      case ShapeType::kConvexMesh:
        if (sh.hull && !sh.hull->vertices.empty()) {
          Vec3 lo = sh.hull->vertices.front(), hi = lo;
          for (const Vec3& p : sh.hull->vertices) {
            lo = lo.cwiseMin(p);
            hi = hi.cwiseMax(p);
          }
          out[i] = 0.5 * (hi - lo).minCoeff();
        }
        break;
    }
  }
  return out;
}

// Cone constraints that carry load: normal impulse γ_n > 0 (SAP's projection gives exactly 0
// outside the contact regime).
int CountLoadedContacts(const ContactProblem& problem, const SolverResult& result) {
  int n = 0;
  for (const ConstraintData& cd : problem.constraints) {
    if (cd.kind != ConstraintKind::kFrictionCone || cd.first_row + 2 >= result.gamma.size()) {
      continue;
    }
    if (result.gamma(cd.first_row + 2) > 0) ++n;
  }
  return n;
}

std::string NamedValue(const std::string& name, double x) {
  std::ostringstream os;
  os.precision(6);
  os << name << " = " << x;
  return os.str();
}

}  // namespace

const char* IntegratorName(Integrator i) {
  switch (i) {
    case Integrator::kExplicitEuler: return "explicit_euler";
    case Integrator::kSymplecticEuler: return "symplectic_euler";
    case Integrator::kImplicitEuler: return "implicit_euler";
    case Integrator::kMidpoint: return "midpoint";
    case Integrator::kImplicitDampingEuler: return "implicit_damping_euler";
  }
  return "unknown";
}

bool ParseIntegrator(const std::string& s, Integrator* out) {
  for (Integrator i : {Integrator::kExplicitEuler, Integrator::kSymplecticEuler,
                       Integrator::kImplicitEuler, Integrator::kMidpoint,
                       Integrator::kImplicitDampingEuler}) {
    if (s == IntegratorName(i)) {
      *out = i;
      return true;
    }
  }
  return false;
}

double IntegratorTheta(Integrator i) {
  switch (i) {
    case Integrator::kExplicitEuler: return 0.0;
    case Integrator::kSymplecticEuler: return 0.0;
    case Integrator::kImplicitEuler: return 1.0;
    case Integrator::kMidpoint: return 0.5;
    case Integrator::kImplicitDampingEuler: return 0.0;
  }
  return 0.0;
}

double IntegratorThetaDamping(Integrator i) {
  return i == Integrator::kImplicitDampingEuler ? 1.0 : IntegratorTheta(i);
}

double IntegratorThetaVq(Integrator i) {
  switch (i) {
    case Integrator::kExplicitEuler: return 0.0;
    case Integrator::kSymplecticEuler: return 1.0;
    case Integrator::kImplicitEuler: return 1.0;
    case Integrator::kMidpoint: return 0.5;
    case Integrator::kImplicitDampingEuler: return 1.0;
  }
  return 1.0;
}

const char* StepWarningName(StepWarning w) {
  switch (w) {
    case StepWarning::kEnergyGrowth: return "energy_growth";
    case StepWarning::kDeepPenetration: return "deep_penetration";
    case StepWarning::kExcessiveSpeed: return "excessive_speed";
  }
  return "unknown";
}

void StepSettings::Validate() const {
  StepSettingsTable().Validate(*this);
  if (!gravity.allFinite()) throw std::invalid_argument("gravity must be finite");
  sap.Validate();
  canal.Validate();
  subadmm.Validate();
  pgs.Validate();
  first_order.Validate();
  ContactModelTable().Validate(contact);
  if (const std::string why = SolverModelMismatch(*this); !why.empty()) {
    throw std::invalid_argument(why);
  }
}

std::int64_t DenseTreeBytes(const Model& model) {
  std::int64_t values = 0;
  for (const Tree& t : model.trees) values += static_cast<std::int64_t>(t.nv) * t.nv;
  return values * kDenseTreeMatrices * static_cast<std::int64_t>(sizeof(double));
}

std::string CheckDenseTreeMemory(const Model& model, const StepSettings& settings) {
  const std::int64_t bytes = DenseTreeBytes(model);
  const std::int64_t budget =
      settings.sap.memory_budget_mb > 0
          ? static_cast<std::int64_t>(settings.sap.memory_budget_mb * 1024.0 * 1024.0)
          : DefaultMemoryBudgetBytes();
  if (bytes <= budget) return "";
  int largest = 0;
  for (const Tree& t : model.trees) largest = std::max(largest, t.nv);
  std::ostringstream os;
  os << "the dense per-tree matrices need " << bytes / (1024 * 1024) << " MiB ("
     << model.trees.size() << " trees, " << model.nv << " dofs, largest tree " << largest
     << " dofs: " << kDenseTreeMatrices << " matrices of nv x nv per tree), over the memory budget of "
     << budget / (1024 * 1024)
     << " MiB (solver.memory_budget_mb, CONTACTLAB_MEMORY_BUDGET_MB or half the memory)";
  return os.str();
}

Simulator::Simulator(Model model, StepSettings settings)
    : model_(std::move(model)), settings_(settings) {
  settings_.Validate();
  if (const std::string why = CheckDenseTreeMemory(model_, settings_); !why.empty()) {
    throw std::invalid_argument(why);
  }
  multibody_ = std::make_unique<Multibody>(&model_);
  {
    // Dof parents per tree (the topology is fixed for the simulator's lifetime): the sparse
    // tree factorizations of M and A (engine/common/tree_ltdl.h).
    std::vector<int> body_leaf;
    dof_parent_.resize(model_.trees.size());
    tree_ancestors_.resize(model_.trees.size());
    for (size_t tr = 0; tr < model_.trees.size(); ++tr) {
      multibody_->TreeDofStructure(static_cast<int>(tr), &dof_parent_[tr], &body_leaf);
      tree_ancestors_[tr].Build(dof_parent_[tr].data(), static_cast<int>(dof_parent_[tr].size()));
    }
  }
  collision_ = std::make_unique<CollisionDetector>(&model_);
  solver_ = MakeSolver(settings_);
  // Bounding radius of each body's geometry about its COM, for the speculative margin.
  body_radius_.assign(model_.bodies.size(), 0.0);
  for (const Geom& g : model_.geoms) {
    if (g.body < 0) continue;
    const Shape& sh = g.shape;
    double r = 0;
    switch (sh.type) {
      case ShapeType::kHalfSpace: r = 0; break;
      case ShapeType::kSphere: r = sh.radius; break;
      case ShapeType::kCapsule: r = sh.radius + sh.half_length; break;
      case ShapeType::kBox: r = sh.half_extents.norm(); break;
      case ShapeType::kCylinder: r = std::hypot(sh.radius, sh.half_length); break;
      case ShapeType::kConvexMesh:
        if (sh.hull)
          for (const Vec3& p : sh.hull->vertices) r = std::max(r, p.norm());
        break;
    }
    const double d = (g.local.p - model_.bodies[g.body].com).norm() + r;
    body_radius_[g.body] = std::max(body_radius_[g.body], d);
  }
  geom_half_thickness_ = GeomHalfThicknesses(model_);
  SyncHydroelastic();
  Reset();
}

void Simulator::SyncHydroelastic() {
  const int ng = static_cast<int>(model_.geoms.size());
  hydro_.resize(ng);
  // Fast path, every step: nothing is or was compliant.
  auto modulus_of = [&](int g) {
    const Geom& geom = model_.geoms[g];
    if (!geom.collide || geom.shape.type == ShapeType::kHalfSpace) return 0.0;
    return geom.hydroelastic_modulus >= 0 ? geom.hydroelastic_modulus
                                          : model_.materials[geom.material].hydroelastic_modulus;
  };
  bool changed = false;
  for (int g = 0; g < ng; ++g) {
    const HydroGeometry& hg = hydro_[g];
    const bool was = hg.built && hg.shape.is_compliant();
    const double e = modulus_of(g);
    if ((e > 0) != was || (was && (e != hg.built_with.modulus ||
                                   model_.GeomHydroelastic(g).resolution !=
                                       hg.built_with.resolution))) {
      changed = true;
      break;
    }
  }
  if (!changed) return;

  std::vector<char> compliant(ng, 0);
  any_compliant_ = false;
  // Geometries with the same shape and values share one mesh (a pile of equal bodies).
  using Key = std::tuple<int, double, double, double, double, double, const void*, double, double>;
  std::map<Key, std::shared_ptr<const CompliantGeometry>> built;
  for (int g = 0; g < ng; ++g) {
    HydroGeometry& hg = hydro_[g];
    if (!(modulus_of(g) > 0)) {
      // Rigid: its surface is built on first use; a geometry that was compliant is rebuilt.
      if (hg.built && hg.shape.is_compliant()) hg = HydroGeometry{};
      continue;
    }
    const HydroelasticProperties h = model_.GeomHydroelastic(g);
    const Shape& sh = model_.geoms[g].shape;
    const Key key(static_cast<int>(sh.type), sh.radius, sh.half_length, sh.half_extents.x(),
                  sh.half_extents.y(), sh.half_extents.z(), sh.hull.get(), h.modulus,
                  h.resolution);
    compliant[g] = 1;
    any_compliant_ = true;
    if (hg.built && hg.shape.is_compliant() && hg.built_with.modulus == h.modulus &&
        hg.built_with.resolution == h.resolution) {
      built.emplace(key, hg.shape.compliant);
      continue;
    }
    auto it = built.find(key);
    std::shared_ptr<const CompliantGeometry> mesh;
    if (it != built.end()) {
      mesh = it->second;
    } else {
      try {
        mesh = MakeCompliantGeometry(sh, h.modulus, h.resolution);
      } catch (const std::exception& e) {
        throw std::invalid_argument("geom '" + model_.geoms[g].name +
                                    "': cannot build its hydroelastic mesh: " + e.what());
      }
      built.emplace(key, mesh);
    }
    hg = HydroGeometry{};
    hg.built_with = h;
    hg.shape.compliant = std::move(mesh);
    hg.built = true;
  }
  collision_->SetHydroelasticPairs(any_compliant_ ? std::move(compliant) : std::vector<char>{});
}

const CompliantGeometry* Simulator::compliant_geometry(int geom) const {
  if (geom < 0 || geom >= static_cast<int>(hydro_.size())) return nullptr;
  const HydroGeometry& hg = hydro_[geom];
  return hg.built ? hg.shape.compliant.get() : nullptr;
}

const HydroelasticShape& Simulator::HydroShape(int geom) {
  HydroGeometry& hg = hydro_[geom];
  if (!hg.built) {
    const HydroelasticProperties h = model_.GeomHydroelastic(geom);
    hg.shape = MakeHydroelasticShape(model_.geoms[geom].shape, false, 0, h.resolution);
    hg.built_with = h;
    hg.built_with.modulus = 0;
    hg.built = true;
  }
  return hg.shape;
}

void Simulator::AddHydroelasticContacts(const std::vector<Pose>& X_WB, StepRecord* rec) {
  rec->surfaces.clear();
  if (!any_compliant_) return;
  for (const auto& [gi, gj] : collision_->hydroelastic_pairs()) {
    const Geom& a = model_.geoms[gi];
    const Geom& b = model_.geoms[gj];
    ContactSurface surface = ComputeContactSurface(HydroShape(gi), GeomPose(a, X_WB), gi,
                                                   HydroShape(gj), GeomPose(b, X_WB), gj);
    if (!surface.faces.empty()) rec->surfaces.push_back(std::move(surface));
  }
  for (const HydroFaceConstraint& f : MakeFaceConstraints(rec->surfaces)) {
    Contact c = ToPointContact(f);
    c.body_a = model_.geoms[f.geom_a].body;
    c.body_b = model_.geoms[f.geom_b].body;
    c.surface = f.surface;
    c.face = f.face;
    rec->contacts.push_back(c);
  }
}

void Simulator::BodySurfaceSpeeds(const KinematicsCache& kin, const VecX& v,
                                  SpeculativeMargin* out, const std::vector<Vec3>* omega,
                                  const std::vector<Vec3>* v_com) const {
  const int nb = static_cast<int>(model_.bodies.size());
  out->time_step = settings_.time_step;
  out->velocity.assign(nb, Vec3::Zero());
  out->extra.assign(nb, 0.0);
  // One pass over the trees, unless the caller has the body velocities of (kin, v).
  if (!omega || !v_com) {
    multibody_->BodyVelocities(kin, v, &speed_omega_, &speed_v_com_);
    omega = &speed_omega_;
    v_com = &speed_v_com_;
  }
  for (int b = 0; b < nb; ++b) {
    const Body& body = model_.bodies[b];
    if (body.tree >= 0) {
      out->velocity[b] = (*v_com)[b];
      out->extra[b] = (*omega)[b].norm() * body_radius_[b];
    } else if (body.prescribed) {
      // The oscillation's direction changes with time: its peak speed counts as undirected.
      const PrescribedMotion& m = body.motion;
      out->velocity[b] = m.velocity;
      out->extra[b] =
          2 * kPi * m.frequency * m.amplitude + m.angular_velocity.norm() * body_radius_[b];
    }
  }
}

Simulator::~Simulator() = default;

void Simulator::set_settings(const StepSettings& s) {
  s.Validate();
  if (!ConfigureSolver(s, solver_.get())) solver_ = MakeSolver(s);
  settings_ = s;
  metrics_state_valid_ = false;  // the potential energy depends on gravity
}

void Simulator::set_state(const State& s) {
  if (s.q.size() != model_.nq || s.v.size() != model_.nv)
    throw std::invalid_argument("state size does not match the model");
  state_ = s;
  warm_start_ = s.v;
}

void Simulator::Reset() {
  state_.time = 0;
  state_.q = model_.q_default;
  state_.v = model_.v_default;
  warm_start_ = state_.v;
  step_count_ = 0;
  record_ = StepRecord{};
}

// Stage 1 (eq. 14): solve m(v*) = M(q^θ)(v* − v0) − δt k(q^θ, v^θ) = 0 per tree, where
//   q^θ = q0 + θ δt N v^{θvq}, v^θ = θ v* + (1−θ) v0, v^{θvq} = θ_vq v* + (1−θ_vq) v0.
// Explicit in v* when θ = 0 (one solve with M(q0)); otherwise Newton's method with A (eq. 15)
// as the Jacobian, exact for constant M and linear springs/dampers, and O(δt) close in general.
// Backtracking: a step after which ‖m‖∞ did not decrease is halved (at most kMaxHalvings times,
// each halving one iteration). An actuator with an effort limit makes m piecewise linear in v*
// with an S-shaped saturation, u = clamp(kp (q_s − q) + kd (v_s − v), ±u_max): from a saturated
// iterate A holds only M and the diagonal damping, the full Newton step jumps across the
// unsaturated band (width 2 u_max / (kp δt + kd) in v) to the opposite saturation and back, a
// 2-cycle with ‖m‖∞ ≈ 2 δt u_max that no iteration cap ends (scenes/paper/robot_dish_pile.yaml,
// joints of 12 N m). A shorter step lands inside the band, where Newton converges.
// Gap [rad or m] below which a joint-limit side is always a row (StepSettings::defer_limits).
constexpr double kDeferredLimitGap = 1e-3;

void Simulator::SolveTreeSystem(int tree, const MatX& A_t, double* x) {
  // A_t = M_t + a diagonal keeps M's branch-induced sparsity: the tree LᵀDL factor when the
  // dofs are numbered parents first and it is positive definite, else a dense Cholesky factor
  // (the same solution to round-off).
  MatX& F = scratch_.factor[tree];
  F = A_t;
  const int n = static_cast<int>(A_t.rows());
  const tree_ltdl::Ancestors& anc = tree_ancestors_[tree];
  if (anc.n == n && tree_ltdl::Factor(F.data(), anc)) {
    tree_ltdl::Solve(F.data(), anc, x);
    return;
  }
  F = A_t;
  const Eigen::LLT<Eigen::Ref<MatX>> llt(F);
  Eigen::Map<VecX> xv(x, n);
  llt.solveInPlace(xv);
}

FreeMotionReport Simulator::ComputeFreeMotion(const VecX& q0, const VecX& v0, double t,
                                  const VecX* external_force, const KinematicsCache* kin_q0,
                                  VecX* v_star, std::vector<MatX>* A, std::vector<MatX>* M) {
  const double dt = settings_.time_step;
  const double theta = IntegratorTheta(settings_.integrator);
  const double theta_vq = IntegratorThetaVq(settings_.integrator);
  const double theta_d = IntegratorThetaDamping(settings_.integrator);
  const int nv = model_.nv;
  const int num_trees = static_cast<int>(model_.trees.size());
  A->resize(num_trees);
  M->resize(num_trees);

  StepScratch& sc = scratch_;
  sc.free_body_factors.Li.resize(num_trees);  // storage kept; only 6-dof trees of θ = 0 get one
  sc.free_body_factors.valid.assign(num_trees, 0);
  VecX& v = sc.v;
  v = v0;
  VecX &q_theta = sc.q_theta, &v_theta = sc.v_theta, &v_thvq = sc.v_thvq, &k1 = sc.k1,
       &k2 = sc.k2, &K = sc.K, &D = sc.D, &m = sc.m;
  q_theta.resize(model_.nq);
  sc.dv.resize(nv);
  sc.factor.resize(num_trees);
  v_theta.resize(nv);
  v_thvq.resize(nv);
  m.resize(nv);
  const double t_theta = t + theta * dt;
  const int max_iter = theta == 0.0 ? 1 : settings_.free_motion_max_iterations;
  FreeMotionReport report;
  report.converged = theta == 0.0;
  // Backtracking state: the iterate v_base the last Newton step Δv (in sc.newton_step) started
  // from, its residual ‖m‖∞, and the fraction α of the step taken.
  constexpr int kMaxHalvings = 6;
  VecX &v_base = sc.v_base, &newton_step = sc.newton_step;
  double base_residual = std::numeric_limits<double>::infinity();
  int halvings = 0;
  double alpha = 1;
  for (int iter = 0; iter < max_iter; ++iter) {
    report.iterations = iter + 1;
    v_thvq = theta_vq * v + (1 - theta_vq) * v0;
    v_theta = theta * v + (1 - theta) * v0;
    const KinematicsCache* kin_theta = &sc.kin_free_motion;
    if (theta == 0.0) {
      q_theta = q0;
      if (kin_q0) {
        kin_theta = kin_q0;
      } else {
        multibody_->UpdateKinematics(q_theta, t_theta, &sc.kin_free_motion);
      }
    } else {
      multibody_->IntegratePositions(q0, v_thvq, theta * dt, &q_theta);
      multibody_->UpdateKinematics(q_theta, t_theta, &sc.kin_free_motion);
    }
    const KinematicsCache& kin = *kin_theta;
    multibody_->SpringDamperForces(q_theta, v_theta, t_theta, &k1);
    multibody_->BiasForces(kin, v_theta, settings_.gravity, &k2);
    if (external_force) k2 += *external_force;  // explicit: the same in every iteration
    multibody_->SpringDamperDiagonals(q_theta, v_theta, t_theta, &K, &D);
    double residual = 0, scale = 0;
    for (int tr = 0; tr < num_trees; ++tr) {
      const Tree& tree = model_.trees[tr];
      if (tree.nv == 0) continue;
      MatX& Mt = (*M)[tr];
      multibody_->MassMatrix(kin, tr, &Mt);
      MatX& At = (*A)[tr];
      At = Mt;
      bool damped = false;  // A differs from M by implicit damping (θ = 0, θ_D = 1)
      for (int i = 0; i < tree.nv; ++i) {
        const int dof = tree.v_start + i;
        At(i, i) += dt * dt * theta * theta_vq * K(dof) + dt * theta_d * D(dof);
        damped |= theta == 0.0 && theta_d != 0.0 && D(dof) != 0.0;
      }
      auto seg = [&](const VecX& x) { return x.segment(tree.v_start, tree.nv); };
      if (theta == 0.0 && damped) {
        // Implicit damping linearized at v0: (M + δt D)(v* − v0) = δt k(v0), one solve with
        // A (eq. 15 with the damping weight θ_D = 1), dense or by the articulated-body
        // recursion with δt D as per-dof terms.
        auto vt = v.segment(tree.v_start, tree.nv);
        vt = dt * (seg(k1) + seg(k2));
        bool solved = false;
        if (tree.nv >= kTreeMotionMinDofs) {
          sc.aba_diag.resize(tree.nv);
          for (int i = 0; i < tree.nv; ++i) sc.aba_diag[i] = dt * theta_d * D(tree.v_start + i);
          if (FactorTreeArticulated(kin, tr, sc.aba_diag.data())) {
            sc.aba.Solve(vt.data());
            solved = true;
          }
        }
        if (!solved) SolveTreeSystem(tr, At, vt.data());
        vt += seg(v0);
        continue;
      }
      if (theta == 0.0) {
        // Explicit: v* = v0 + δt M⁻¹ k. A = M + 0, consistent with eq. 15 for θ = 0. The
        // residual is not needed (one solve); free bodies use a fixed-size factorization.
        if (tree.nv == 6) {
          // M⁻¹ = L⁻ᵀ L⁻¹; L⁻¹ is kept for the Delassus estimates of this step.
          using Vec6 = Eigen::Matrix<double, 6, 1>;
          using Mat6 = Eigen::Matrix<double, 6, 6>;
          MatX& Li = sc.free_body_factors.Li[tr];
          Li.resize(6, 6);
          InverseCholesky6(Mt.data(), Li.data());
          sc.free_body_factors.valid[tr] = 1;
          const Eigen::Map<const Mat6> L_inv(Li.data());
          const Vec6 rhs = dt * (k1.segment<6>(tree.v_start) + k2.segment<6>(tree.v_start));
          const Vec6 y = L_inv * rhs;
          v.segment<6>(tree.v_start) = v0.segment<6>(tree.v_start) + L_inv.transpose() * y;
        } else if (tree.nv >= kTreeMotionMinDofs) {
          // A large tree: M⁻¹ by the articulated-body recursion, O(nv) (no dense factor).
          auto vt = v.segment(tree.v_start, tree.nv);
          vt = dt * (seg(k1) + seg(k2));
          if (FactorTreeArticulated(kin, tr, nullptr)) {
            sc.aba.Solve(vt.data());
          } else {  // not SPD to working precision: the dense factorization, as before
            MatX& F = sc.factor[tr];
            F = Mt;
            const Eigen::LLT<Eigen::Ref<MatX>> llt(F);
            llt.solveInPlace(vt);
          }
          vt += seg(v0);
        } else {
          // An articulated tree: factor in the tree's kept storage, solve in place in v.
          auto vt = v.segment(tree.v_start, tree.nv);
          vt = dt * (seg(k1) + seg(k2));
          SolveTreeSystem(tr, Mt, vt.data());
          vt += seg(v0);
        }
        continue;
      }
      // Residual m = M (v − v0) − δt k and its scale, in kept storage (no allocation).
      auto mt = m.segment(tree.v_start, tree.nv);
      auto dvt = sc.dv.segment(tree.v_start, tree.nv);
      dvt = seg(v) - seg(v0);
      mt.noalias() = Mt * dvt;
      mt -= dt * (seg(k1) + seg(k2));
      residual = std::max(residual, mt.lpNorm<Eigen::Infinity>());
      double Mv = 0;
      for (int i = 0; i < tree.nv; ++i) Mv = std::max(Mv, std::abs(Mt.row(i).dot(seg(v))));
      scale = std::max(scale, Mv + dt * (seg(k1) + seg(k2)).lpNorm<Eigen::Infinity>());
    }
    if (theta == 0.0) break;
    report.residual = residual / std::max(scale, 1e-300);
    if (iter > 0 && residual <= settings_.free_motion_tolerance * std::max(scale, 1e-300)) {
      report.converged = true;
      break;
    }
    // The last step did not decrease ‖m‖∞ (not a number counts as no decrease): halve it.
    if (iter > 0 && !(residual < base_residual) && halvings < kMaxHalvings) {
      ++halvings;
      alpha *= 0.5;
      v = v_base - alpha * newton_step;
      continue;
    }
    base_residual = residual;
    halvings = 0;
    alpha = 1;
    v_base = v;
    newton_step = m;  // overwritten per tree by Δv = A⁻¹ m
    for (int tr = 0; tr < num_trees; ++tr) {
      const Tree& tree = model_.trees[tr];
      if (tree.nv == 0) continue;
      if (tree.nv >= kTreeMotionMinDofs) {
        // A large tree: A = M(q_θ) + diag(δt² θ θ_vq K + δt θ D) by the articulated-body
        // recursion at q_θ with the diagonal as per-dof terms, O(nv).
        sc.aba_diag.resize(tree.nv);
        for (int i = 0; i < tree.nv; ++i) {
          const int dof = tree.v_start + i;
          sc.aba_diag[i] = dt * dt * theta * theta_vq * K(dof) + dt * theta_d * D(dof);
        }
        if (FactorTreeArticulated(sc.kin_free_motion, tr, sc.aba_diag.data())) {
          sc.aba.Solve(newton_step.data() + tree.v_start);
          continue;
        }
      }
      MatX& F = sc.factor[tr];  // the tree's kept storage: no allocation
      F = (*A)[tr];
      const Eigen::LLT<Eigen::Ref<MatX>> llt(F);
      auto st = newton_step.segment(tree.v_start, tree.nv);
      llt.solveInPlace(st);
    }
    v = v_base - newton_step;
  }
  *v_star = v;
  return report;
}

bool Simulator::FactorTreeArticulated(const KinematicsCache& kin, int tree, const double* diag) {
  StepScratch& sc = scratch_;
  const Tree& tr = model_.trees[tree];
  multibody_->TreeDofStructure(tree, &sc.aba_parent, &sc.aba_leaf);
  const Vec3 r0 = kin.dof_origin[tr.v_start];
  multibody_->TreeDofMotion(kin, tree, r0, &sc.aba_phi);
  multibody_->TreeNodeInertias(kin, tree, r0, sc.aba_leaf, &sc.aba_inertia);
  // M = the per-dof form + diag(armature): the joints' armature joins the caller's diagonal.
  multibody_->TreeArmature(tree, &sc.aba_armature);
  if (!sc.aba_armature.empty() && diag) {
    for (int i = 0; i < tr.nv; ++i) sc.aba_armature[i] += diag[i];
  }
  const double* d = sc.aba_armature.empty() ? diag : sc.aba_armature.data();
  return sc.aba.Factor(sc.aba_phi, sc.aba_parent, sc.aba_inertia.data(), d);
}

void Simulator::SizeJacobian(int rows, int cols, MatX* J) {
  if (J->rows() == rows && J->cols() == cols) return;
  // Swap in a spare of the right size if there is one; the old storage becomes a spare.
  std::vector<MatX>& spares = scratch_.spare_jacobians;
  for (MatX& spare : spares) {
    if (spare.rows() == rows && spare.cols() == cols) {
      J->swap(spare);
      return;
    }
  }
  if (J->size() > 0) ReturnJacobianStorage(J);
  J->resize(rows, cols);
}

void Simulator::ReturnJacobianStorage(MatX* J) {
  std::vector<MatX>& spares = scratch_.spare_jacobians;
  constexpr size_t kMaxSpares = 256;  // bounds the pool when sizes keep changing
  if (spares.capacity() < kMaxSpares) spares.reserve(kMaxSpares);
  if (spares.size() < kMaxSpares) {
    spares.emplace_back();
    spares.back().swap(*J);
  } else {
    spares[scratch_.next_spare++ % kMaxSpares].swap(*J);
  }
  J->resize(0, 0);
}

// Stage 2 input: the contact problem at q0 (eqs. 18-24). Contact Jacobians per tree:
//   J_i = C_i (J_B(p) − J_A(p)),   b_i = C_i (v_B^presc(p) − v_A^presc(p)),
// with C_i the contact frame (rows t1, t2, n). Joint limits become unilateral rows.
void Simulator::AssembleProblem(const KinematicsCache& kin, double t,
                                const std::vector<Contact>& contacts, ContactProblem* problem) {
  const int num_trees = static_cast<int>(model_.trees.size());
  problem->time_step = settings_.time_step;
  problem->nv = model_.nv;
  problem->tree_v_start.resize(num_trees);
  problem->tree_nv.resize(num_trees);
  for (int tr = 0; tr < num_trees; ++tr) {
    problem->tree_v_start[tr] = model_.trees[tr].v_start;
    problem->tree_nv[tr] = model_.trees[tr].nv;
  }
  // Spatial form of the Jacobians of large trees (ContactProblem::tree_motion): the solver
  // assembles their JᵀGJ along the tree in O(nv · depth) instead of O(nv²) per contact.
  problem->tree_motion.resize(num_trees);
  std::vector<int>& body_leaf = scratch_.body_leaf;
  body_leaf.assign(model_.bodies.size(), -1);
  for (int tr = 0; tr < num_trees; ++tr) {
    TreeMotion& tm = problem->tree_motion[tr];
    const Tree& tree = model_.trees[tr];
    if (tree.nv < kTreeMotionMinDofs) {
      tm.parent.clear();
      tm.Phi.resize(6, 0);
      continue;
    }
    multibody_->TreeDofStructure(tr, &tm.parent, &body_leaf);
    tm.r0 = kin.dof_origin[tree.v_start];
    multibody_->TreeDofMotion(kin, tr, tm.r0, &tm.Phi);
    // A = M at q0 for the explicit integrators (θ = 0): the per-dof form of M then gives the
    // O(n) Delassus estimates and Newton solves. For θ > 0, A and M are evaluated at q_θ, not
    // at the q0 of the Jacobians: no inertias, the dense per-tree path is kept.
    // Implicit damping (θ_D > 0) adds δt D to A's diagonal: A ≠ M on a damped tree.
    bool a_is_m = IntegratorTheta(settings_.integrator) == 0.0;
    if (a_is_m && IntegratorThetaDamping(settings_.integrator) != 0.0 &&
        scratch_.D.size() == model_.nv) {
      a_is_m = scratch_.D.segment(tree.v_start, tree.nv).isZero(0.0);
    }
    if (a_is_m) {
      multibody_->TreeNodeInertias(kin, tr, tm.r0, body_leaf, &tm.inertia);
      multibody_->TreeArmature(tr, &tm.armature);
    } else {
      tm.inertia.clear();
      tm.armature.clear();
    }
  }
  // Constraint storage (and its Jacobian blocks) is reused from the previous step.
  int num_out = 0;
  auto next_constraint = [&]() -> ConstraintData& {
    if (num_out == static_cast<int>(problem->constraints.size())) {
      problem->constraints.emplace_back();
    }
    ConstraintData& cd = problem->constraints[num_out++];
    for (TreeJacobianBlock& b : cd.blocks) {
      b.tree = -1;
      b.leaf = -1;
    }
    cd.num_blocks = 0;
    cd.beta = -1;
    cd.w = 0;
    cd.bias.setZero();
    return cd;
  };
  int row = 0;
  for (int ci = 0; ci < static_cast<int>(contacts.size()); ++ci) {
    const Contact& c = contacts[ci];
    const int tree_a = model_.BodyTree(c.body_a);
    const int tree_b = model_.BodyTree(c.body_b);
    if (tree_a < 0 && tree_b < 0) continue;
    ConstraintData& cd = next_constraint();
    cd.kind = ConstraintKind::kFrictionCone;
    cd.first_row = row;
    cd.num_rows = 3;
    cd.stiffness = c.stiffness;
    cd.dissipation_time = c.dissipation_time;
    cd.friction = c.friction;
    cd.hunt_crossley_dissipation = c.hunt_crossley_dissipation;
    cd.phi0 = c.phi;
    cd.source = ci;
    cd.key = ConstraintKeyOfContact(c.geom_a, c.geom_b);
    cd.anchor = c.point;
    cd.normal = c.normal;
    const Mat3 C = ContactFrame(c.normal);
    // Body B contributes +J, body A −J; same tree: one block.
    auto add_block = [&](int body, int tree, double sign) {
      if (tree < 0) return;
      int k = 0;
      while (k < cd.num_blocks && cd.blocks[k].tree != tree) ++k;
      TreeJacobianBlock& blk = cd.blocks[k];
      if (k == cd.num_blocks) {
        blk.tree = tree;
        SizeJacobian(3, model_.trees[tree].nv, &blk.J);
        blk.J.setZero();
        ++cd.num_blocks;
        const TreeMotion& tm = problem->tree_motion[tree];
        if (!tm.empty() && body_leaf[body] >= 0) {
          // v_p = v_r0 + ω × (p − r0) = [−[p − r0]× | I] [ω; v_r0]: J = sign C [−[p − r0]× | I] Φ.
          const Vec3 r = c.point - tm.r0;
          Mat3 cross;
          cross << 0, -r.z(), r.y(), r.z(), 0, -r.x(), -r.y(), r.x(), 0;
          blk.W.leftCols<3>() = -sign * (C * cross);
          blk.W.rightCols<3>() = sign * C;
          blk.leaf = body_leaf[body];
        }
      } else {
        blk.leaf = -1;  // two bodies of one tree: J is not one W Φ
      }
      multibody_->AddRotatedPointJacobian(kin, body, c.point, C, sign, blk.J.data());
    };
    add_block(c.body_b, tree_b, 1.0);
    add_block(c.body_a, tree_a, -1.0);
    const Vec3 vb = tree_b < 0 ? multibody_->PrescribedPointVelocity(c.body_b, c.point, t) : Vec3::Zero();
    const Vec3 va = tree_a < 0 ? multibody_->PrescribedPointVelocity(c.body_a, c.point, t) : Vec3::Zero();
    cd.bias = C * (vb - va);
    row += 3;
  }
  // Joint limits: g = [q − lower, upper − q] >= 0, J = [e, −e]. Near-rigid (k = ∞), τ_d = 0.
  // Sides out of reach are left out (StepSettings::defer_limits; checked in Step).
  deferred_limits_.clear();
  // SAP only: its convex problem makes a side that does not act exactly inert (ℓ_i = 0,
  // ∇ℓ_i = 0); the other solvers keep every side as a row.
  const bool defer = settings_.defer_limits && settings_.solver_type == SolverType::kSap &&
                     !keep_all_limits_ &&
                     problem->v_star.size() == model_.nv && problem->v0.size() == model_.nv;
  for (int ji = 0; ji < static_cast<int>(model_.joints.size()); ++ji) {
    const Joint& j = model_.joints[ji];
    if (!j.limited || JointNv(j.type) != 1 || j.child < 0) continue;
    const int tree = model_.BodyTree(j.child);
    if (tree < 0) continue;
    const int local = j.v_start - model_.trees[tree].v_start;
    const double qj = state_.q(j.q_start);
    for (int side = 0; side < 2; ++side) {
      const double bound = side == 0 ? j.lower : j.upper;
      if (!std::isfinite(bound)) continue;
      const double phi0 = side == 0 ? qj - bound : bound - qj;
      if (defer) {
        const double sign = side == 0 ? 1.0 : -1.0;
        const double approach = std::max({0.0, -sign * problem->v0(j.v_start),
                                          -sign * problem->v_star(j.v_start)});
        const int slot = 2 * ji + side;
        const bool forced = slot < static_cast<int>(limit_rows_forced_.size()) &&
                            limit_rows_forced_[slot];
        if (!forced && phi0 >= 2 * settings_.time_step * approach + kDeferredLimitGap) {
          deferred_limits_.push_back({j.v_start, sign, phi0, slot});
          continue;
        }
      }
      ConstraintData& cd = next_constraint();
      cd.kind = ConstraintKind::kUnilateral;
      cd.first_row = row;
      cd.num_rows = 1;
      cd.num_blocks = 1;
      cd.blocks[0].tree = tree;
      SizeJacobian(1, model_.trees[tree].nv, &cd.blocks[0].J);
      cd.blocks[0].J.setZero();
      cd.blocks[0].J(0, local) = side == 0 ? 1.0 : -1.0;
      cd.stiffness = std::numeric_limits<double>::infinity();
      cd.dissipation_time = 0;
      cd.phi0 = phi0;
      cd.source = ji;
      cd.key = ConstraintKeyOfLimit(ji, side);
      cd.anchor.setZero();
      cd.normal = Vec3::UnitZ();
      row += 1;
    }
  }
  // Equality constraints (Model::equalities): bilateral rows with g(q0) and J = ∂g/∂q N(q), so
  // that J v = ġ. Between two trees a constraint has two blocks (like a contact between two
  // trees); on one tree one block (their sum). No spatial form (leaf < 0).
  {
    auto bilateral = [&](const Equality& e, int ei, int part, int rows) -> ConstraintData& {
      ConstraintData& cd = next_constraint();
      cd.kind = ConstraintKind::kBilateral;
      cd.first_row = row;
      cd.num_rows = rows;
      cd.stiffness = e.stiffness;
      cd.dissipation_time = e.dissipation_time;
      cd.friction = 0;
      cd.hunt_crossley_dissipation = 0;
      cd.g0.setZero();
      cd.source = ei;
      cd.key = ConstraintKeyOfEquality(ei, part);
      cd.anchor.setZero();
      cd.normal = Vec3::UnitZ();
      row += rows;
      return cd;
    };
    // The block of `tree` in cd (added, zeroed, when new).
    auto block_of = [&](ConstraintData& cd, int tree) -> MatX& {
      int k = 0;
      while (k < cd.num_blocks && cd.blocks[k].tree != tree) ++k;
      TreeJacobianBlock& blk = cd.blocks[k];
      if (k == cd.num_blocks) {
        blk.tree = tree;
        blk.leaf = -1;
        SizeJacobian(cd.num_rows, model_.trees[tree].nv, &blk.J);
        blk.J.setZero();
        ++cd.num_blocks;
      }
      return blk.J;
    };
    auto body_pose = [&](int body) { return body < 0 ? Pose{} : kin.X_WB[body]; };
    // Velocity of a point fixed to a body without dofs (prescribed motion; 0 when static), the
    // rigid part only (a belt's surface velocity is not the body's motion).
    auto fixed_point_velocity = [&](int body, const Vec3& p) -> Vec3 {
      if (body < 0 || !model_.bodies[body].prescribed) return Vec3::Zero();
      return multibody_->PrescribedPointVelocity(body, p, t) -
             kin.X_WB[body].Rotate(model_.bodies[body].motion.surface_velocity);
    };
    auto fixed_angular_velocity = [&](int body) -> Vec3 {
      if (body < 0 || !model_.bodies[body].prescribed) return Vec3::Zero();
      return model_.bodies[body].motion.angular_velocity;
    };
    // Rows C (v_B(p_B) − v_A(p_A)) of a point pair into cd (bias from bodies without dofs).
    auto add_points = [&](ConstraintData& cd, int body_a, const Vec3& pa, int body_b,
                          const Vec3& pb) {
      const int ta = model_.BodyTree(body_a), tb = model_.BodyTree(body_b);
      if (tb >= 0) {
        multibody_->AddRotatedPointJacobian(kin, body_b, pb, Mat3::Identity(), 1.0,
                                            block_of(cd, tb).data());
      }
      if (ta >= 0) {
        multibody_->AddRotatedPointJacobian(kin, body_a, pa, Mat3::Identity(), -1.0,
                                            block_of(cd, ta).data());
      }
      cd.bias = fixed_point_velocity(body_b, pb) - fixed_point_velocity(body_a, pa);
    };
    MatX& Jw = scratch_.equality_angular;
    for (int ei = 0; ei < static_cast<int>(model_.equalities.size()); ++ei) {
      const Equality& e = model_.equalities[ei];
      if (!e.active) continue;
      if (e.type == EqualityType::kJointCoupling) {
        // g = q_a − offset − gear q_b, J = e_a − gear e_b.
        ConstraintData& cd = bilateral(e, ei, 0, 1);
        const Joint& ja = model_.joints[e.joint_a];
        double g = state_.q(ja.q_start) - e.offset;
        const int ta = model_.BodyTree(ja.child);
        block_of(cd, ta)(0, ja.v_start - model_.trees[ta].v_start) += 1.0;
        if (e.joint_b >= 0) {
          const Joint& jb = model_.joints[e.joint_b];
          g -= e.gear * state_.q(jb.q_start);
          const int tb = model_.BodyTree(jb.child);
          block_of(cd, tb)(0, jb.v_start - model_.trees[tb].v_start) -= e.gear;
        }
        cd.g0(0) = g;
        cd.phi0 = g;
        continue;
      }
      const Pose X_WFa = body_pose(e.body_a) * e.a_from_anchor;
      const Pose X_WFb = body_pose(e.body_b) * e.b_from_anchor;
      {
        // Position rows (connect, and a weld's frame origins): g = p_B − p_A in world,
        // J = J_vB(p_B) − J_vA(p_A).
        ConstraintData& cd = bilateral(e, ei, 0, 3);
        add_points(cd, e.body_a, X_WFa.p, e.body_b, X_WFb.p);
        cd.g0 = X_WFb.p - X_WFa.p;
        cd.phi0 = cd.g0.norm();
        cd.anchor = X_WFb.p;
      }
      if (e.type != EqualityType::kWeld) continue;
      // Rotation rows of a weld, MuJoCo's form: g = 2 s vec(q_rel), q_rel = q_WFa⁻¹ q_WFb (F_B
      // in F_A), s = sign(w) (the short way), ≈ θ k for small angles (k in F_A). Its exact rate
      // is ġ = s (w I − [vec]×) R_WFaᵀ (ω_B − ω_A) (q̇_rel = ½ ω̃ ⊗ q_rel with ω̃ the relative
      // angular velocity in F_A), so J = E (J_ωB − J_ωA) with E = s (w I − [vec]×) R_WFaᵀ, which
      // is R_WFaᵀ (J_ωB − J_ωA) at g = 0.
      ConstraintData& cd = bilateral(e, ei, 1, 3);
      Quat qr = X_WFa.q.conjugate() * X_WFb.q;
      qr.normalize();
      const double sgn = qr.w() < 0 ? -1.0 : 1.0;
      const Vec3 vec(qr.x(), qr.y(), qr.z());
      const Mat3 E = sgn * (qr.w() * Mat3::Identity() - Skew(vec)) * X_WFa.R().transpose();
      for (int side = 0; side < 2; ++side) {
        const int body = side == 0 ? e.body_b : e.body_a;
        const int tree = model_.BodyTree(body);
        if (tree < 0) continue;
        multibody_->AngularJacobian(kin, body, &Jw);
        MatX& J = block_of(cd, tree);
        if (side == 0) {
          J.noalias() += E * Jw;
        } else {
          J.noalias() -= E * Jw;
        }
      }
      cd.bias = E * (fixed_angular_velocity(e.body_b) - fixed_angular_velocity(e.body_a));
      cd.g0 = 2.0 * sgn * vec;
      cd.phi0 = cd.g0.norm();
      cd.anchor = X_WFb.p;
    }
  }
  // Slots no longer used give their Jacobian storage back to the pool.
  for (int i = num_out; i < static_cast<int>(problem->constraints.size()); ++i) {
    for (TreeJacobianBlock& b : problem->constraints[i].blocks) {
      if (b.J.size() > 0) ReturnJacobianStorage(&b.J);
    }
  }
  problem->constraints.resize(num_out);
  problem->num_rows = row;
  problem->ComputeDelassusEstimates(&scratch_.free_body_factors, &dof_parent_);
}

const StepRecord& Simulator::Step() {
  const auto t_start = Clock::now();
  StepRecord& rec = record_;
  rec.step = step_count_;
  rec.before = state_;
  rec.timings = StepTimings{};
  const double t = state_.time;
  const double dt = settings_.time_step;

  // Kinematics at q0: contact set, J and φ0 are evaluated here (paper §II-C).
  auto t0 = Clock::now();
  KinematicsCache& kin = scratch_.kin;
  // Energy at t^n for the divergence checks (ComputeDiagnostics). A step that starts where the
  // last one ended takes both from that step's metrics.
  double ke0, pe0;
  const bool start_from_metrics =
      metrics_state_valid_ && metrics_time_ == t && metrics_q_.size() == state_.q.size() &&
      metrics_v_.size() == state_.v.size() && metrics_q_ == state_.q &&
      metrics_v_ == state_.v;
  if (start_from_metrics) {
    kin = metrics_kin_;
    ke0 = metrics_ke_;
    pe0 = metrics_pe_;
  } else {
    multibody_->UpdateKinematics(state_.q, t, &kin);
    ke0 = multibody_->KineticEnergy(kin, state_.v);
    pe0 = multibody_->PotentialEnergy(kin, state_.q, settings_.gravity);
  }
  rec.timings.kinematics_ms = MsSince(t0);

  // Collision detection.
  t0 = Clock::now();
  // Contact margin. A candidate at gap φ0 > 0 carries impulse when its y = −R⁻¹(v_c − v̂) leaves
  // the no-contact region III of the projection (eq. 27, App. C): R_n y_n + μ R_t ‖y_t‖ >= 0, with
  // v̂_n = −φ0/(δt + τ_d) (§V-B). R_n y_n = −(v_n − v̂_n) and R_t ‖y_t‖ = ‖v_t‖, so R (and
  // with it k, β and σ) cancels and the candidate pushes exactly when
  //   φ0 < (δt + τ_d) (μ ‖v_t‖ − v_n),                                                    (*)
  // v_t, v_n the contact velocity at the END of the step (v_n < 0 approaching). The −v_n term
  // is eq. 8's complementarity at a positive gap (the damping τ_d k v_n acts before the gap
  // closes); the μ ‖v_t‖ term is the gliding band of the sliding region (§V-A). A pair that
  // (*) would load but that is not a candidate gets no impulse: a sliding body glides above
  // the margin, loses its contacts, falls back and finds them again. So the margin of a pair
  // must cover (*): μ ‖v_t‖ − v_n <= √(1 + μ²) ‖v_c‖ (Cauchy-Schwarz) and ‖v_c‖ <= u_ab, a
  // bound on the relative speed of the two surfaces, ‖v_com,a − v_com,b‖ + |ω_a| r_a + |ω_b| r_b
  // at v0 (BodySurfaceSpeeds), so
  //   margin_ab = contact_margin + (δt + τ_d) √(1 + μ²) u_ab          (SpeculativeMargin).
  // This also keeps bodies that will meet within the step (φ0 < −δt v_n) as candidates. The
  // bound is taken at v0, and the velocity change within the step must fit in contact_margin:
  // gravity's g δt adds (δt + τ_d) g δt to (*), 0.11 mm at δt = 1 ms, τ_d = 10 ms, but 2 mm at
  // δt = τ_d = 10 ms, where a pair closing slowly (below ~0.1 m/s) from 1-2 mm is loaded one step
  // after the model would. Adding g δt to u_ab closes that gap but makes every resting pair within
  // 1 mm + 2.8 mm a candidate, which raised the steady-state Newton iterations of the SAP paper's
  // clutter (scenes/paper/clutter_40_walls.yaml) from 3.9 to 6.6; the same holds for loads and
  // impacts from a third body.
  double margin = settings_.contact_margin;
  if (settings_.speculative_margin) {
    BodySurfaceSpeeds(kin, state_.v, &scratch_.speculative,
                      start_from_metrics ? &metrics_omega_ : nullptr,
                      start_from_metrics ? &metrics_v_com_ : nullptr);
  }
  SyncHydroelastic();  // materials may have been edited since the last step
  CollisionStats collision_stats;
  collision_->FindContacts(kin.X_WB, margin, &rec.contacts, &collision_stats,
                           settings_.speculative_margin ? &scratch_.speculative : nullptr);
  margin = collision_stats.max_pair_margin;
  {
    const auto t_hydro = Clock::now();
    AddHydroelasticContacts(kin.X_WB, &rec);
    rec.timings.hydroelastic_ms = MsSince(t_hydro);
  }
  for (Contact& c : rec.contacts) {
    const ContactValues mat = model_.PairContactValues(c.geom_a, c.geom_b);
    if (c.surface < 0) c.stiffness = mat.stiffness;  // a face's k = A_e g is its own
    c.dissipation_time = mat.dissipation_time;
    c.friction = mat.friction;
    c.hunt_crossley_dissipation = mat.hunt_crossley_dissipation;
  }
  rec.timings.collision_ms = MsSince(t0);

  // Free motion v*, linearization A (stage 1) and the contact problem. The mouse perturbation
  // and the external loads are explicit: evaluated at (q0, v0, t^n).
  t0 = Clock::now();
  const bool has_external = perturbation_ || !model_.loads.empty();
  VecX& external_force = scratch_.external_force;  // spring and loads, size nv
  if (has_external) external_force.setZero(model_.nv);
  rec.perturbation = perturbation_;
  rec.perturbation_point_W.setZero();
  if (perturbation_) {
    rec.perturbation_point_W =
        EvaluatePerturbation(*multibody_, kin, state_.v, *perturbation_, &external_force).point_W;
  }
  // External loads (Model::loads), explicit in the same way: signals at t^n, points at q0.
  AddLoadForces(*multibody_, kin, t, &external_force);
  rec.free_motion =
      ComputeFreeMotion(state_.q, state_.v, t, has_external ? &external_force : nullptr, &kin,
                        &rec.problem.v_star, &rec.problem.A, &rec.problem.M);
  rec.problem.v0 = state_.v;
  AssembleProblem(kin, t, rec.contacts, &rec.problem);
  rec.timings.assembly_ms = MsSince(t0);

  // Stage 2: the convex contact problem, warm-started from the previous step's velocities.
  t0 = Clock::now();
  if (warm_start_.size() != model_.nv) warm_start_ = state_.v;
  solver_->Solve(rec.problem, warm_start_, &rec.result);
  // Limits left out (AssembleProblem): a side acts exactly when φ0 + δt v_c < 0 at the solution.
  // The sides that would act become rows and the step is solved again, from the same guess (so
  // that the recorded problem re-solved from before.v, as Resolve and export-step do, gives these
  // bits), until none left out would act; the last of kMaxLimitSolves solves has every limit.
  constexpr int kMaxLimitSolves = 4;
  rec.limit_resolves = 0;
  rec.earlier_iterations = 0;
  for (int solve = 1; !deferred_limits_.empty(); ++solve) {
    if (rec.result.v.size() != model_.nv || !rec.result.v.allFinite()) break;
    bool acts = false;
    for (const DeferredLimit& d : deferred_limits_) {
      if (d.phi0 + dt * d.sign * rec.result.v(d.dof) < 0) {
        if (limit_rows_forced_.size() <= static_cast<size_t>(d.slot)) {
          limit_rows_forced_.resize(2 * model_.joints.size(), 0);
        }
        limit_rows_forced_[d.slot] = 1;
        acts = true;
      }
    }
    if (!acts) break;
    rec.earlier_iterations += rec.result.stats.iterations;
    ++rec.limit_resolves;
    keep_all_limits_ = solve + 1 >= kMaxLimitSolves;
    AssembleProblem(kin, t, rec.contacts, &rec.problem);
    keep_all_limits_ = false;
    solver_->Solve(rec.problem, warm_start_, &rec.result);
  }
  rec.deferred_limits = static_cast<int>(deferred_limits_.size());
  if (rec.limit_resolves > 0) std::fill(limit_rows_forced_.begin(), limit_rows_forced_.end(), 0);
  rec.timings.solve_ms = MsSince(t0);

  // Position update q = q0 + δt N v^{θvq}; a non-finite solve, or one refused by the memory
  // budget, keeps the state for inspection.
  t0 = Clock::now();
  State& next = scratch_.next_state;
  next = state_;
  bool advanced = false;
  const SolverStatus solve_status = rec.result.stats.status;
  if (solve_status != SolverStatus::kNonFiniteInput &&
      solve_status != SolverStatus::kMemoryBudgetExceeded &&
      solve_status != SolverStatus::kWorkBudgetExceeded &&
      solve_status != SolverStatus::kUnsupportedContactModel &&
      solve_status != SolverStatus::kUnsupportedConstraint && rec.result.v.allFinite()) {
    const double theta_vq = IntegratorThetaVq(settings_.integrator);
    VecX& v_thvq = scratch_.v_thvq;
    v_thvq = theta_vq * rec.result.v + (1 - theta_vq) * state_.v;
    multibody_->IntegratePositions(state_.q, v_thvq, dt, &next.q);
    multibody_->NormalizeQuaternions(&next.q);
    next.v = rec.result.v;
    next.time = t + dt;
    advanced = true;
  }
  rec.timings.integrate_ms = MsSince(t0);
  // A state that is not finite (q, v, a body pose, an energy that overflows) is a failure of
  // the step: the state stays at t^n so that the step can be inspected and re-solved.
  rec.metrics = ComputeMetrics(next, rec.contacts);
  rec.diagnostics = StepDiagnostics{};
  if (advanced) {
    std::string bad;
    if (!next.q.allFinite() || !next.v.allFinite() ||
        !std::isfinite(rec.metrics.kinetic_energy) ||
        !std::isfinite(rec.metrics.potential_energy)) {
      bad = NonFiniteQuantity(next);
    } else {
      for (size_t b = 0; b < metrics_kin_.X_WB.size() && bad.empty(); ++b) {
        const Pose& X = metrics_kin_.X_WB[b];
        if (!X.p.allFinite() || !X.q.coeffs().allFinite()) bad = NonFiniteQuantity(next);
      }
    }
    if (bad.empty()) {
      rec.after = next;
      ComputeDiagnostics(rec, has_external ? &external_force : nullptr, ke0, pe0,
                         &rec.diagnostics);
      std::swap(state_, next);
      ++step_count_;
    } else {
      SolverStats& st = rec.result.stats;
      std::string msg = "state after the step is not finite: " + bad + " (solver status " +
                        SolverStatusName(st.status);
      if (!st.message.empty()) msg += ": " + st.message;
      st.message = msg + "); the state is kept at the step's start";
      st.status = SolverStatus::kNonFiniteState;
      rec.metrics = ComputeMetrics(state_, rec.contacts);
    }
  } else if (rec.result.stats.status != SolverStatus::kNonFiniteInput &&
             rec.result.stats.status != SolverStatus::kMemoryBudgetExceeded &&
             rec.result.stats.status != SolverStatus::kWorkBudgetExceeded &&
             rec.result.stats.status != SolverStatus::kUnsupportedConstraint) {
    // The solver returned non-finite velocities with a finite input (a refused input, a solve
    // refused by the memory budget or a constraint the solver does not support keeps its own
    // status).
    SolverStats& st = rec.result.stats;
    st.message = std::string("solver returned non-finite velocities (solver status ") +
                 SolverStatusName(st.status) + (st.message.empty() ? "" : ": " + st.message) +
                 "); the state is kept at the step's start";
    st.status = SolverStatus::kNonFiniteState;
  }
  warm_start_ = state_.v;
  if (step_count_ == rec.step) rec.after = state_;  // not advanced: the kept state
  rec.metrics.margin = margin;
  // Stiction slip, contact count and loaded contacts from the solve.
  {
    double slip = 0;
    int n = 0, cones = 0;
    for (size_t i = 0; i < rec.problem.constraints.size(); ++i) {
      const ConstraintData& cd = rec.problem.constraints[i];
      if (cd.kind != ConstraintKind::kFrictionCone) continue;
      ++cones;
      if (i < rec.result.regime.size() && rec.result.regime[i] == Regime::kStiction &&
          rec.result.vc.size() >= cd.first_row + 2) {
        slip += rec.result.vc.segment<2>(cd.first_row).norm();
        ++n;
      }
    }
    rec.metrics.num_contacts = cones;
    rec.metrics.mean_stiction_slip = n > 0 ? slip / n : 0.0;
  }
  rec.metrics.num_loaded_contacts = CountLoadedContacts(rec.problem, rec.result);
  rec.metrics.num_patches = static_cast<int>(rec.surfaces.size());
  rec.metrics.num_faces = 0;
  rec.metrics.max_pressure = 0;
  for (const Contact& c : rec.contacts) {
    if (c.surface < 0) continue;
    ++rec.metrics.num_faces;
    rec.metrics.max_pressure =
        std::max(rec.metrics.max_pressure, rec.surfaces[c.surface].faces[c.face].p0);
  }
  rec.timings.total_ms = MsSince(t_start);
  return rec;
}


StepMetrics Simulator::ComputeMetrics(const State& s, const std::vector<Contact>& contacts) const {
  StepMetrics m;
  KinematicsCache& kin = metrics_kin_;
  multibody_->UpdateKinematics(s.q, s.time, &kin);
  multibody_->BodyVelocities(kin, s.v, &metrics_omega_, &metrics_v_com_);
  m.kinetic_energy = multibody_->KineticEnergy(s.v, kin, metrics_omega_, metrics_v_com_);
  m.potential_energy = multibody_->PotentialEnergy(kin, s.q, settings_.gravity);
  metrics_state_valid_ = true;
  metrics_q_ = s.q;
  metrics_v_ = s.v;
  metrics_time_ = s.time;
  metrics_ke_ = m.kinetic_energy;
  metrics_pe_ = m.potential_energy;
  double min_phi = 0;
  for (const Contact& c : contacts) {
    // A pressure-field face's φ0 = −p0/g is not a depth (g → 0 at a box's edge strips, where
    // the field grows sideways): faces are measured by their pressure instead (max_pressure).
    if (c.surface < 0) min_phi = std::min(min_phi, c.phi);
  }
  m.max_penetration = -min_phi;
  m.num_contacts = static_cast<int>(contacts.size());
  return m;
}

std::string Simulator::NonFiniteQuantity(const State& s) const {
  if (!std::isfinite(s.time)) return NamedValue("time", s.time);
  for (int i = 0; i < s.q.size(); ++i) {
    if (!std::isfinite(s.q(i))) return NamedValue("q[" + std::to_string(i) + "]", s.q(i));
  }
  for (int i = 0; i < s.v.size(); ++i) {
    if (!std::isfinite(s.v(i))) return NamedValue("v[" + std::to_string(i) + "]", s.v(i));
  }
  KinematicsCache& kin = metrics_kin_;
  metrics_state_valid_ = false;  // metrics_kin_ is overwritten with s's kinematics
  multibody_->UpdateKinematics(s.q, s.time, &kin);
  for (size_t b = 0; b < kin.X_WB.size(); ++b) {
    const Pose& X = kin.X_WB[b];
    if (!X.p.allFinite()) {
      return NamedValue("position of body '" + model_.bodies[b].name + "' (norm)", X.p.norm());
    }
    if (!X.q.coeffs().allFinite()) {
      return NamedValue("orientation quaternion of body '" + model_.bodies[b].name + "' (norm)",
                        X.q.norm());
    }
  }
  const double ke = multibody_->KineticEnergy(kin, s.v);
  if (!std::isfinite(ke)) return NamedValue("kinetic energy", ke);
  const double pe = multibody_->PotentialEnergy(kin, s.q, settings_.gravity);
  if (!std::isfinite(pe)) return NamedValue("potential energy", pe);
  return std::string();
}

// Divergence checks. Each compares a figure of the step with a scale of the scene, so that the
// checks hold at any unit system and body size; the constants are chosen so that none fires on
// the shipped scenes at their own time step while each fires within a few steps of a blow-up
// (docs/debugging.md "Divergence warnings" lists the measurements).
void Simulator::ComputeDiagnostics(const StepRecord& rec, const VecX* external_force, double ke0,
                                   double pe0, StepDiagnostics* d) const {
  const double dt = rec.problem.time_step > 0 ? rec.problem.time_step : settings_.time_step;
  const VecX& v0 = rec.before.v;
  const VecX& v1 = rec.after.v;
  std::ostringstream msg;
  msg.precision(3);
  auto fire = [&](StepWarning w) -> std::ostream& {
    if (d->warnings != 0) msg << "; ";
    d->warnings |= 1u << static_cast<int>(w);
    msg << StepWarningName(w) << ": ";
    return msg;
  };

  // --- Energy ledger. A passive system cannot gain mechanical energy E = KE + PE (gravity and
  // joint springs) beyond what its contact springs stored and what the energy sources did:
  //   E1 − E0 <= Σ ½ k φ0₋² + W_in + tol.
  // The stored energy uses the material stiffness k, an upper bound (SAP's near-rigid clamp
  // softens a contact, never stiffens it). W_in bounds the work of
  //   loads and mouse spring: δt max(|fᵀv0|, |fᵀv1|) (the force is constant over the step),
  //   actuators:              δt |τ| max(|v0_j|, |v1_j|), τ at the step's start and end,
  //   prescribed bodies:      |γᵀ b| over the cones (b: velocity of the prescribed surface).
  // tol = 10% of the energy turned over in the step (KE0 + KE1 + |ΔPE| + stored + W_in) covers
  // the integrator's own energy error (symplectic Euler: ½ g² δt² per unit mass in free fall,
  // O(ω δt) oscillation for springs); a blow-up gains a multiple of its kinetic energy per step.
  // A floor of 1e-6 Σ m |g| r (lifting every body by a millionth of its size) keeps round-off of
  // a scene at rest from firing.
  d->energy_before = ke0 + pe0;
  d->energy_after = rec.metrics.kinetic_energy + rec.metrics.potential_energy;
  double elastic = 0, injected = 0;
  for (const ConstraintData& cd : rec.problem.constraints) {
    if (cd.kind == ConstraintKind::kBilateral) {
      // A compliant equality stores ½ k |g0|² (near-rigid ones: none, k = inf).
      if (std::isfinite(cd.stiffness)) elastic += 0.5 * cd.stiffness * cd.g0.squaredNorm();
      continue;
    }
    if (cd.kind != ConstraintKind::kFrictionCone) continue;
    if (std::isfinite(cd.stiffness) && cd.stiffness > 0 && cd.phi0 < 0) {
      double x0 = -cd.phi0;
      const Contact* c = cd.source >= 0 && cd.source < static_cast<int>(rec.contacts.size())
                             ? &rec.contacts[cd.source]
                             : nullptr;
      if (c && c->surface >= 0) {
        // A face stores at most ½ f0 x with x no more than the pair's thickness (x0 = p0/g is
        // unbounded where g → 0, at a box's edge strips).
        double thick = std::numeric_limits<double>::infinity();
        for (int geom : {c->geom_a, c->geom_b}) thick = std::min(thick, geom_half_thickness_[geom]);
        if (std::isfinite(thick)) x0 = std::min(x0, 2 * thick);
      }
      elastic += 0.5 * cd.stiffness * -cd.phi0 * x0;
    }
    if (cd.bias.squaredNorm() > 0 && cd.first_row + 3 <= rec.result.gamma.size()) {
      injected += std::abs(rec.result.gamma.segment<3>(cd.first_row).dot(cd.bias));
    }
  }
  if (external_force && external_force->size() == v0.size() && v1.size() == v0.size()) {
    injected += dt * std::max(std::abs(external_force->dot(v0)), std::abs(external_force->dot(v1)));
  }
  for (const Joint& j : model_.joints) {
    const Actuator& a = j.actuator;
    if (!a.enabled || JointNv(j.type) != 1 || j.v_start < 0) continue;
    double tau_max = 0;
    for (int end = 0; end < 2; ++end) {
      const State& st = end == 0 ? rec.before : rec.after;
      const double tt = st.time;
      double tau = a.kp * (a.setpoint.Evaluate(tt) - st.q(j.q_start)) +
                   a.kd * (a.setpoint.Derivative(tt) - st.v(j.v_start));
      tau = std::clamp(tau, -a.effort_limit, a.effort_limit);
      tau_max = std::max(tau_max, std::abs(tau));
    }
    injected += dt * tau_max * std::max(std::abs(v0(j.v_start)), std::abs(v1(j.v_start)));
  }
  double weight_scale = 0;  // Σ m |g| r over dynamic bodies [J]
  const double g = settings_.gravity.norm();
  for (size_t b = 0; b < model_.bodies.size(); ++b) {
    if (model_.bodies[b].tree >= 0) weight_scale += model_.bodies[b].mass * g * body_radius_[b];
  }
  constexpr double kEnergyRelativeTolerance = 0.1;
  constexpr double kEnergyFloor = 1e-6;
  const double ke1 = rec.metrics.kinetic_energy;
  const double dpe = rec.metrics.potential_energy - pe0;
  d->elastic_energy = elastic;
  d->injected_energy = injected;
  d->energy_tolerance =
      kEnergyRelativeTolerance * (ke0 + ke1 + std::abs(dpe) + elastic + injected) +
      kEnergyFloor * weight_scale;
  const double gain = d->energy_after - d->energy_before;
  if (gain > elastic + injected + d->energy_tolerance) {
    fire(StepWarning::kEnergyGrowth)
        << "KE + PE rose by " << gain << " J (allowed " << elastic + injected + d->energy_tolerance
        << " J: contact springs " << elastic << ", work in " << injected << ", tolerance "
        << d->energy_tolerance << ")";
  }

  // --- Penetration. A contact deeper than the half-thickness of the thinner geometry of its pair
  // (a sphere's radius, a box's smallest half-extent; planes have none) has reached the middle
  // of that geometry: its normal and point no longer describe the overlap and the bodies are
  // passing through each other. The material's own scale, the resting depth m g / k, is far
  // smaller for the shipped materials (1e-5..1e-2 of the body size); impacts in the shipped
  // clutter scenes reach 0.75 of the threshold (docs/debugging.md).
  constexpr double kPenetrationFraction = 1.0;
  int deepest = -1;
  double pen_ratio = 0;
  for (int i = 0; i < static_cast<int>(rec.contacts.size()); ++i) {
    const Contact& c = rec.contacts[i];
    if (!(c.phi < 0) || c.surface >= 0) continue;  // faces: by their extent, below
    if (model_.BodyTree(c.body_a) < 0 && model_.BodyTree(c.body_b) < 0) continue;
    double thick = std::numeric_limits<double>::infinity();
    for (int geom : {c.geom_a, c.geom_b}) {
      if (geom >= 0 && geom < static_cast<int>(geom_half_thickness_.size())) {
        thick = std::min(thick, geom_half_thickness_[geom]);
      }
    }
    if (!std::isfinite(thick) || thick <= 0) continue;
    const double ratio = -c.phi / (kPenetrationFraction * thick);
    if (ratio > pen_ratio) {
      pen_ratio = ratio;
      deepest = i;
    }
  }
  // Pressure-field faces: the extent e = p0/E of a compliant side is the normalized depth into
  // it (0 on its surface, 1 at its deepest point: a box's mid-plane, a sphere's centre). Beyond
  // kMaxExtent the overlap has reached the body's core, as a point contact past the
  // half-thickness has.
  constexpr double kMaxExtent = 0.9;
  int deepest_face_surface = -1;
  for (int si = 0; si < static_cast<int>(rec.surfaces.size()); ++si) {
    const ContactSurface& surf = rec.surfaces[si];
    double e_max = 0;
    for (int geom : {surf.geom_a, surf.geom_b}) {
      if (geom < 0 || geom >= static_cast<int>(hydro_.size()) ||
          !hydro_[geom].shape.is_compliant()) {
        continue;
      }
      const double modulus = hydro_[geom].built_with.modulus;
      for (const ContactFace& f : surf.faces) e_max = std::max(e_max, f.p0 / modulus);
    }
    const double ratio = e_max / kMaxExtent;
    if (ratio > pen_ratio) {
      pen_ratio = ratio;
      deepest_face_surface = si;
      deepest = -1;
    }
  }
  d->penetration_ratio = pen_ratio;
  if (pen_ratio > 1 && deepest_face_surface >= 0) {
    const ContactSurface& surf = rec.surfaces[deepest_face_surface];
    fire(StepWarning::kDeepPenetration)
        << "contact surface " << model_.geoms[surf.geom_a].name << "/"
        << model_.geoms[surf.geom_b].name << " reaches extent " << pen_ratio * kMaxExtent
        << " of a compliant geometry (p0/E; allowed " << kMaxExtent
        << "): the overlap has reached the body's core";
  } else if (pen_ratio > 1) {
    const Contact& c = rec.contacts[deepest];
    auto name = [&](int body) {
      return body < 0 ? std::string("world") : model_.bodies[body].name;
    };
    fire(StepWarning::kDeepPenetration)
        << "contact " << name(c.body_a) << "/" << name(c.body_b) << " " << -c.phi
        << " m deep, " << pen_ratio << " times the allowed " << -c.phi / pen_ratio
        << " m (the half-thickness of the thinner geometry)";
  }

  // --- Speed. A body whose surface moves farther than twice its diameter, 4 r, in one step
  // (δt (|v_com| + |ω| r) > 4 r) jumps over the contacts a step could resolve: with the
  // speculative margin the contact is still found, but its linearization at q0 describes
  // nothing of where the body ends up. (The shipped scenes reach 1.1 diameters per step: small
  // meshes falling into mesh_pile.)
  constexpr double kSpeedDiameters = 2.0;
  int fastest = -1;
  double speed_ratio = 0;
  for (int b = 0; b < static_cast<int>(model_.bodies.size()); ++b) {
    if (model_.bodies[b].tree < 0 || !(body_radius_[b] > 0)) continue;
    const double r = body_radius_[b];
    // metrics_v_com_, metrics_omega_: ComputeMetrics' body velocities of rec.after (v1).
    const double speed = metrics_v_com_[b].norm() + metrics_omega_[b].norm() * r;
    const double ratio = dt * speed / (kSpeedDiameters * 2 * r);
    if (ratio > speed_ratio) {
      speed_ratio = ratio;
      fastest = b;
    }
  }
  d->speed_ratio = speed_ratio;
  if (speed_ratio > 1) {
    const double r = body_radius_[fastest];
    const double travel = speed_ratio * kSpeedDiameters * 2 * r;  // [m] in one step
    fire(StepWarning::kExcessiveSpeed)
        << "body " << model_.bodies[fastest].name << " surface speed " << travel / dt
        << " m/s moves " << travel << " m in a step, " << travel / (2 * r)
        << " times its diameter " << 2 * r << " m (allowed " << kSpeedDiameters << ")";
  }
  d->message = msg.str();
}

void Simulator::SetPerturbation(const Perturbation& p) {
  ValidatePerturbation(model_, p);
  perturbation_ = p;
}

void Simulator::RefreshMaterials(const StepRecord& record, ContactProblem* problem) const {
  // Materials may have been edited since the step was recorded: refresh the physical data.
  for (ConstraintData& cd : problem->constraints) {
    if (cd.kind != ConstraintKind::kFrictionCone || cd.source < 0 ||
        cd.source >= static_cast<int>(record.contacts.size()))
      continue;
    const Contact& c = record.contacts[cd.source];
    const ContactValues mat = model_.PairContactValues(c.geom_a, c.geom_b);
    // A face's stiffness is its field's (A_e g at the recorded configuration); a modulus edited
    // since takes effect when the surface is next computed, i.e. from the next step.
    cd.stiffness = c.surface >= 0 ? c.stiffness : mat.stiffness;
    cd.dissipation_time = mat.dissipation_time;
    cd.friction = mat.friction;
    cd.hunt_crossley_dissipation = mat.hunt_crossley_dissipation;
  }
}

SolverResult Simulator::Resolve(const StepRecord& record, const SapParameters& params) const {
  return Resolve(record, params, settings_.contact);
}

SolverResult Simulator::Resolve(const StepRecord& record, const SapParameters& params,
                                const ContactModelParameters& contact) const {
  params.Validate();
  ContactProblem problem = record.problem;
  RefreshMaterials(record, &problem);
  SapSolver solver(params, contact);
  SolverResult result;
  solver.Solve(problem, record.before.v, &result);
  return result;
}

SolverResult Simulator::Resolve(const StepRecord& record, const StepSettings& settings) const {
  if (settings.solver_type == SolverType::kSap) {
    return Resolve(record, settings.sap, settings.contact);
  }
  settings.Validate();
  ContactProblem problem = record.problem;
  RefreshMaterials(record, &problem);
  std::unique_ptr<ContactSolver> solver = MakeSolver(settings);
  SolverResult result;
  solver->Solve(problem, record.before.v, &result);
  return result;
}

}  // namespace contactlab
