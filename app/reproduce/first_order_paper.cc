// `contactlab reproduce`, seed 002: Drumwright, "An Unconditionally Stable First-Order
// Constraint Solver for Multibody Systems", §8 E4-E8 (ramp, stack, stiff pendulum, cube on a
// Winkler foundation).
#include "app/reproduce/papers.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "app/reproduce/experiment.h"
#include "engine/multibody/load.h"
#include "engine/inspect/metrics.h"

namespace contactlab {
namespace reproduce {

// ---------------------------------------------------------------------------------------------
// Drumwright.

void BoxOnRamp(Experiment& ex, const ReproduceOptions& opt) {
  const std::string& src = ex.source();
  ex.Text(
      "1 kg box released at rest on a 15° ramp, h = 0.01 s, 1 s "
      "(scenes/paper/box_on_ramp.yaml). The paper gives the qualitative outcome; the numbers "
      "compared are Coulomb's law, s = g (sin θ − μ cos θ) t²/2.");
  const double th = 15 * kPi / 180, g = 9.81;
  PlotSeries got{"ContactLab"}, exact{"Coulomb"};
  for (double mu : {0.0, 0.125, 0.25, 0.375}) {
    const Scene sc = Load(opt, "box_on_ramp.yaml", {"materials.ramp.friction=" + Fmt(mu)});
    const int box = sc.model.FindBody("box");
    Vec3 p0 = Vec3::Zero(), p1 = Vec3::Zero();
    bool first = true;
    Run(sc, Steps(sc, 1.0), [&](const Simulator& sim, const StepRecord& rec) {
      if (first) p0 = BodyPosition(sim, rec.before, box);
      first = false;
      p1 = BodyPosition(sim, rec.after, box);
    });
    const double s = (p1 - p0).norm();
    const double s_exact = std::max(0.0, g * (std::sin(th) - mu * std::cos(th)) * 0.5);
    const std::string pv = mu == 0       ? "slides freely"
                           : mu >= 0.375 ? "sticks"
                                         : "slides less as μ grows";
    ex.Row("μ=" + Fmt(mu) + ": distance in 1 s [m]", pv + "; Coulomb " + Fmt(s_exact, 4), s_exact,
           s,
           "±(2 % + 1e-4 m): symplectic Euler's O(h) error is 1 % at h = 0.01 s; creep bound "
           "σμδtg·1 s = 3.7e-5 m",
           std::abs(s - s_exact) <= 0.02 * s_exact + 1e-4, src);
    got.x.push_back(mu);
    got.y.push_back(s);
    exact.x.push_back(mu);
    exact.y.push_back(s_exact);
  }
  got.color = kBlue;
  exact.color = kGray;
  exact.dashed = true;
  ex.Plot("distance", {"Box on ramp: distance slid in 1 s", "mu", "m", false, false}, {exact, got},
          "Distance slid against μ.");
  ex.Text(
      "The paper's box stands on four rigid spherical feet on an elastic half-space; "
      "ContactLab uses the box face on a half-space (k = 1e10 N/m), which gives the same "
      "Coulomb behaviour.");
}

void SphereStack(Experiment& ex, const ReproduceOptions& opt) {
  const std::string& src = ex.source();
  std::vector<int> ns = opt.quick ? std::vector<int>{10, 25} : std::vector<int>{10, 25, 50, 100};
  ex.Text(
      "Spheres r = 5 cm released in mid-air, aligned, no walls, h = 0.01 s, 500 steps "
      "(scenes/paper/sphere_stack.yaml).");
  std::ostringstream tab;
  tab << "| N | mean iterations | mean solve [ms] | final KE [J] | top drift [m] | bottom "
         "penetration [m] | failed |\n|---|---|---|---|---|---|---|\n";
  PlotSeries ms{"solve ms"};
  std::vector<double> xs, ys;
  bool stable = true, at_rest = true;
  double worst_ke = 0;
  for (int n : ns) {
    const Scene sc = Load(opt, "sphere_stack.yaml",
                          {"generators.ball.grid.count=[1, 1, " + std::to_string(n) + "]"});
    const int top = sc.model.FindBody("ball_" + std::to_string(n - 1));
    Vec3 top0 = Vec3::Zero(), top1 = Vec3::Zero();
    double ke = 0, pen = 0;
    bool first = true;
    const RunLog log = Run(sc, 500, [&](const Simulator& sim, const StepRecord& rec) {
      if (first) top0 = BodyPosition(sim, rec.before, top);
      first = false;
      top1 = BodyPosition(sim, rec.after, top);
      ke = rec.metrics.kinetic_energy;
      pen = rec.metrics.max_penetration;
    });
    double it = 0, sms = 0;
    for (const StepLog& s : log.steps) {
      it += s.iterations;
      sms += s.solve_ms;
    }
    it /= log.steps.size();
    sms /= log.steps.size();
    const double drift = (top1 - top0).head<2>().norm();
    stable &= log.finite && log.failures == 0 && drift < 0.005;
    at_rest &= ke < 1e-3 * n;
    worst_ke = std::max(worst_ke, ke / n);
    tab << "| " << n << " | " << Fmt(it, 3) << " | " << Fmt(sms, 3) << " | " << Fmt(ke, 3) << " | "
        << Fmt(drift, 3) << " | " << Fmt(pen, 3) << " | " << log.failures << " |\n";
    ms.x.push_back(n);
    ms.y.push_back(sms);
    xs.push_back(n);
    ys.push_back(sms);
  }
  ex.Text(tab.str());
  ex.Row("stack stands (every N)", "forms a stable stack without walls", kNaN, stable ? 1 : 0,
         "no failed step and the top sphere drifts < 5 mm sideways", stable, src);
  ResultRow& rest =
      ex.Row("at rest after 500 steps: largest final KE per sphere [J]", "stable stack (at rest)",
             kNaN, worst_ke, "< 1e-3 J per sphere at every N", at_rest, src);
  if (!at_rest) {
    rest.note =
        "The tallest column still oscillates vertically after 5 s. SAP's per-contact "
        "Delassus estimate w_i sees one sphere's mass, so the near-rigid normal compliance "
        "of the lower contacts is sized for one sphere while they carry the whole column "
        "(the SAP paper's own stated limitation for stacks): the column acts as a soft, "
        "lightly damped spring chain (see the bottom penetration column).";
  }
  ex.Info("exponent of solve time in N", "figure only (Hessian sparse, ≤ 18m non-zeros)",
          LogLogSlope(xs, ys), src, "Block-tridiagonal H: linear cost is expected.");
  ms.color = kBlue;
  ex.Plot("time", {"Sphere stack: solve time per step", "spheres", "ms", true, true}, {ms},
          "Mean SAP solve time per step against the number of spheres (Fig. 10).");
  ex.Text(
      "The SAP paper notes (digest §8) that its Delassus estimate w_i underestimates the load "
      "at the bottom of a stack; the bottom penetration column shows the consequence.");
}

void StiffPendulum(Experiment& ex, const ReproduceOptions& opt) {
  const std::string& src = ex.source();
  std::vector<double> hs =
      opt.quick ? std::vector<double>{1e-3, 1e-4} : std::vector<double>{1e-3, 1e-4, 1e-5};
  ex.Text(
      "1 kg bob on a 1 m arm released from horizontal (θ = π/2) onto the limit θ ≥ 0 at the "
      "bottom, 1 s (scenes/paper/stiff_pendulum.yaml). The paper's limit is a k = 1e12 spring; "
      "ContactLab's limits are rigid SAP constraints (near-rigid regularization), the closest "
      "expressible form.");
  std::vector<PlotSeries> series;
  bool stable = true, dead = true;
  double worst_bounce = 0;
  int c = 0;
  for (double h : hs) {
    const Scene sc = Load(opt, "stiff_pendulum.yaml", {"time_step=" + Fmt(h, 17)});
    PlotSeries th{"h = " + Fmt(h)};
    double max_after = 0, e_end = 0;
    bool hit = false;
    const RunLog log = Run(sc, Steps(sc, 1.0), [&](const Simulator&, const StepRecord& rec) {
      const double q = rec.after.q(0);
      th.x.push_back(rec.after.time);
      th.y.push_back(q);
      if (q < 0.05) hit = true;
      if (hit) max_after = std::max(max_after, q);
      e_end = rec.metrics.kinetic_energy + rec.metrics.potential_energy;
    });
    stable &= log.finite && e_end <= log.energy0 + 1e-9;
    const double bounce = max_after / (kPi / 2);
    worst_bounce = std::max(worst_bounce, bounce);
    dead &= hit && bounce < 0.05;
    th.color = kPalette[c++];
    th.markers = false;
    series.push_back(th);
  }
  ex.Row("stable at every h (no energy gain)", "stable for every h", kNaN, stable ? 1 : 0,
         "finite state and E(1 s) ≤ E(0)", stable, src);
  ex.Row("rebound height after the impact / release height", "≈0 (\"dead\" impact for h ≥ 1e-5)", 0,
         worst_bounce, "< 0.05 at every h", dead, src);
  ex.Info("E4: joint deviation of a k = 1e15 joint spring in absolute coordinates", "∝ h²", kNaN,
          src,
          "Not expressible: ContactLab models joints in generalized coordinates, where the joint "
          "deviation is zero by construction; it has no spatial spring between bodies.");
  ex.Plot("theta", {"Stiff pendulum: joint angle", "t [s]", "theta [rad]", false, false}, series,
          "Joint angle against time (paper Fig. 6).");
}

namespace {

// Drumwright E6: a rigid cube on a frictionless Winkler foundation. Each foundation element is a
// linear spring K = E A / depth under the centre of its patch of the bottom face, which is exactly
// ContactLab's compliant point contact (force k max(0, −φ), Kelvin-Voigt time τ_d): one small
// sphere per element, fixed to the cube with its lowest point on the bottom face, touches a
// frictionless half-space; a pair override makes the contact's k exactly K and τ_d = B / K.
struct FoundationSetup {
  int n_side = 10;       // elements per side (N = n_side²)
  double E = 1e7;        // Young's modulus [N/m²]
  double load = 5;       // downward load [N]
  double h = 0.01;       // time step [s]
  double rel_tol = 1e-6; // SAP ε_r
};

constexpr double kCubeSide = 1.0, kCubeDensity = 8.0, kFoundationDepth = 1.0,
                 kElementDamping = 1.0, kElementRadius = 1e-3, kLoadRate = 10.0;

double ElementStiffness(const FoundationSetup& f) {
  const double area = kCubeSide * kCubeSide / (f.n_side * f.n_side);
  return f.E * area / kFoundationDepth;
}

// Element centres (x, y) on the bottom face, cube frame [m].
std::vector<Vec3> ElementCentres(int n_side) {
  std::vector<Vec3> c;
  const double a = kCubeSide / n_side;
  for (int i = 0; i < n_side; ++i)
    for (int j = 0; j < n_side; ++j)
      c.emplace_back(-kCubeSide / 2 + (i + 0.5) * a, -kCubeSide / 2 + (j + 0.5) * a,
                     -kCubeSide / 2);
  return c;
}

Scene FoundationScene(const FoundationSetup& f) {
  Scene sc;
  sc.path = "(generated) cube_foundation";
  sc.description = "Cube on a Winkler foundation (Drumwright E6)";
  Model& m = sc.model;
  const double K = ElementStiffness(f);
  const double tau = kElementDamping / K;
  // Both materials carry K; the pair override fixes the contact's k = K exactly (the series rule
  // alone would give K/2).
  m.materials = {Material{"foundation", K, tau, 0.0}, Material{"element", K, tau, 0.0}};
  PairOverride po;
  po.material_a = 0;
  po.material_b = 1;
  po.values = Material{"", K, tau, 0.0};
  m.pair_overrides.push_back(po);
  Body ground;
  ground.name = "foundation";
  m.bodies.push_back(ground);
  Geom hs;
  hs.name = "foundation";
  hs.body = 0;
  hs.shape.type = ShapeType::kHalfSpace;
  hs.material = 0;
  m.geoms.push_back(hs);
  Body cube;
  cube.name = "cube";
  cube.mass = kCubeDensity * kCubeSide * kCubeSide * kCubeSide;
  cube.inertia = Mat3::Identity() * cube.mass * kCubeSide * kCubeSide / 6.0;
  cube.pose0.p = Vec3(0, 0, kCubeSide / 2);  // at rest on the undeformed foundation
  m.bodies.push_back(cube);
  Joint j;
  j.name = "cube_free";
  j.type = JointType::kFree;
  j.parent = -1;
  j.child = 1;
  m.joints.push_back(j);
  m.bodies[1].joint = 0;
  int e = 0;
  for (const Vec3& c : ElementCentres(f.n_side)) {
    Geom g;
    g.name = "element_" + std::to_string(e++);
    g.body = 1;
    g.local.p = c + Vec3(0, 0, kElementRadius);  // lowest point on the bottom face
    g.shape.type = ShapeType::kSphere;
    g.shape.radius = kElementRadius;
    g.material = 1;
    m.geoms.push_back(g);
  }
  // Downward load at s/2 [cos 10t, sin 10t, 1] (cube frame); the force is along world −z.
  contactlab::Load ld;  // (Load alone names the scene loader above)
  ld.name = "rotating_load";
  ld.body = 1;
  ld.point[0].kind = ld.point[1].kind = Signal::Kind::kSine;
  ld.point[0].amplitude = ld.point[1].amplitude = kCubeSide / 2;
  ld.point[0].frequency = ld.point[1].frequency = kLoadRate / (2 * kPi);
  ld.point[0].phase = kPi / 2;  // cos
  ld.point[2].value = kCubeSide / 2;
  ld.force[2].value = -f.load;
  m.loads.push_back(ld);
  m.Finalize();
  sc.settings.time_step = f.h;
  sc.settings.sap.rel_tolerance = f.rel_tol;
  sc.duration = 1.0;
  return sc;
}

// Quasi-static no-tension Winkler solution for the load at angle `angle` [rad] (cube frame):
// compressions d_i = w0 + a x_i + b y_i ≥ 0 carry the weight W at the centre and the load F at
// (s/2 cos, s/2 sin); elements with d_i < 0 are out of contact (active-set iteration).
struct WinklerStatic {
  double w0 = 0, tilt = 0;  // compression at the face centre [m], |∇d| [rad]
  int out_of_contact = 0;
};
WinklerStatic WinklerQuasiStatic(const FoundationSetup& f, double angle, double g) {
  const std::vector<Vec3> c = ElementCentres(f.n_side);
  const double K = ElementStiffness(f);
  const double W = kCubeDensity * std::pow(kCubeSide, 3) * g;
  const Vec3 rhs(W + f.load, f.load * kCubeSide / 2 * std::cos(angle),
                 f.load * kCubeSide / 2 * std::sin(angle));
  std::vector<char> active(c.size(), 1);
  Vec3 x = Vec3::Zero();
  for (int it = 0; it < 100; ++it) {
    Mat3 A = Mat3::Zero();
    for (size_t i = 0; i < c.size(); ++i) {
      if (!active[i]) continue;
      const Vec3 r(1, c[i].x(), c[i].y());
      A += K * r * r.transpose();
    }
    x = A.ldlt().solve(rhs);
    bool changed = false;
    for (size_t i = 0; i < c.size(); ++i) {
      const bool on = x[0] + x[1] * c[i].x() + x[2] * c[i].y() > 0;
      changed |= on != static_cast<bool>(active[i]);
      active[i] = on;
    }
    if (!changed) break;
  }
  WinklerStatic out;
  out.w0 = x[0];
  out.tilt = std::hypot(x[1], x[2]);
  for (char a : active) out.out_of_contact += !a;
  return out;
}

// Compressions −z of the element points (bottom-face centres) at pose X_WB [m].
std::vector<double> ElementCompressions(const Pose& X_WB, int n_side) {
  std::vector<double> d;
  for (const Vec3& c : ElementCentres(n_side)) d.push_back(-X_WB.Apply(c).z());
  return d;
}

struct FoundationRun {
  VecX q_final;
  double wall_s = 0;         // wall time of the run [s]
  double sim_s = 0;          // simulated time [s]
  double w0 = 0, tilt = 0;   // face-centre compression and tilt at the end
  int out_final = 0;         // elements out of contact at the end
  int out_max = 0;           // most elements out of contact over the last half
  double ke_final = 0;       // kinetic energy at the end [J]
  double w0_spread = 0;      // max − min of w0 over the last half [m]
  double tilt_spread = 0;    // max − min of the tilt over the last half [rad]
  int failures = 0;
  int near_rigid_max = 0;    // most contacts on SAP's near-rigid clamp in a step
  bool loaded_side_max = true;  // the most compressed element is on the load's side
  PlotSeries out_series;
};

FoundationRun RunFoundation(const FoundationSetup& f) {
  const Scene sc = FoundationScene(f);
  const int steps = Steps(sc, 1.0);
  FoundationRun r;
  double w0_lo = 1e300, w0_hi = -1e300, t_lo = 1e300, t_hi = -1e300;
  const RunLog log = Run(sc, steps, [&](const Simulator& sim, const StepRecord& rec) {
    int nr = 0;
    for (int i = 0; i < rec.result.laws.num_constraints(); ++i) {
      nr += rec.result.laws.Constant(i, "near_rigid") != 0 ? 1 : 0;
    }
    r.near_rigid_max = std::max(r.near_rigid_max, nr);
    const double t = rec.after.time;
    // Record every 10 ms of simulated time (cheap: 100 or fewer samples a run).
    const bool sample = rec.step % std::max(1, static_cast<int>(std::lround(0.01 / f.h))) == 0 ||
                        rec.step == steps - 1;
    if (!sample && t < 0.5) return;
    KinematicsCache kin;
    sim.multibody().UpdateKinematics(rec.after.q, t, &kin);
    const Pose& X = kin.X_WB[1];
    const std::vector<double> d = ElementCompressions(X, f.n_side);
    int out = 0;
    for (double di : d) out += di <= 0;
    const Mat3 R = X.R();
    const double w0 = -X.Apply(Vec3(0, 0, -kCubeSide / 2)).z();
    const double tilt = std::hypot(R(2, 0), R(2, 1));
    if (sample) {
      r.out_series.x.push_back(t);
      r.out_series.y.push_back(out);
    }
    if (t >= 0.5) {
      r.out_max = std::max(r.out_max, out);
      w0_lo = std::min(w0_lo, w0);
      w0_hi = std::max(w0_hi, w0);
      t_lo = std::min(t_lo, tilt);
      t_hi = std::max(t_hi, tilt);
    }
    if (rec.step == steps - 1) {
      r.q_final = rec.after.q;
      r.out_final = out;
      r.w0 = w0;
      r.tilt = tilt;
      r.ke_final = rec.metrics.kinetic_energy;
      // Pressure: the most compressed element lies on the side of the load (load angle at t^n).
      const double ang = kLoadRate * rec.before.time;
      const std::vector<Vec3> c = ElementCentres(f.n_side);
      const size_t imax = std::max_element(d.begin(), d.end()) - d.begin();
      r.loaded_side_max = c[imax].x() * std::cos(ang) + c[imax].y() * std::sin(ang) > 0;
    }
  });
  r.wall_s = log.wall_s;
  r.sim_s = steps * f.h;
  r.failures = log.failures + (log.finite ? 0 : 1);
  r.w0_spread = w0_hi - w0_lo;
  r.tilt_spread = t_hi - t_lo;
  return r;
}

}  // namespace

void CubeFoundation(Experiment& ex, const ReproduceOptions& opt) {
  const std::string& src = ex.source();
  // Quick mode: a coarser reference, still resolving every contact's compliance (checked below).
  const double h_ref = opt.quick ? 2.5e-4 : 1e-4;
  const std::vector<int> sides = opt.quick ? std::vector<int>{10} : std::vector<int>{10, 30};
  ex.Text(
      "Rigid cube, s = 1 m, density 8 kg/m³ (m = 8 kg, the digest's reading), starting at rest on "
      "the undeformed foundation, gravity 9.81 m/s², 1 s. The frictionless Winkler foundation of "
      "N ∈ {100, 900} elements (depth 1 m) is modelled exactly as N compliant point contacts: one "
      "sphere (r = 1 mm) per element centre, fixed to the cube with its lowest point on the bottom "
      "face, on a frictionless half-space; a pair override sets the contact stiffness to "
      "K = E A_elem / depth (1e5 / 1e9 N/m for 100 elements, 1.11e4 / 1.11e8 N/m for 900) and the "
      "Kelvin-Voigt time to τ_d = B / K with the paper's B = 1 N·s/m per element (1e-5 s down to "
      "9e-9 s: practically undamped). The load (Model::loads) is F ∈ {5, 50} N along world −z at "
      "s/2 [cos 10t, sin 10t, 1] in the cube frame, evaluated explicitly at each step's start. "
      "SAP, symplectic Euler, h = 0.01 s, ε_r = 1e-6." +
      std::string(opt.quick ? " Quick mode: the 100-element cases only." : ""));
  ex.Text(
      "The paper's errors are against MATLAB's ode45; ContactLab has no such integrator, so the "
      "reference is ContactLab itself at h = " + Fmt(h_ref) + " s (ε_r = 1e-10), where every "
      "contact's compliance is resolved (SAP's near-rigid clamp, which replaces k when 1/(h² k) "
      "falls below β² w/(4π²), is inactive: checked in the rows below). The error is the Euclidean norm of the difference of the "
      "generalized coordinates q = [x y z qw qx qy qz] at t = 1 s; relative = abs / ‖q_ref‖.");
  const double g = 9.81;
  std::ostringstream tab;
  tab << "| N | E [N/m²] | load [N] | wall [s] per simulated s | paper constraint-based [s] | "
         "abs err | paper abs err | rel err | paper rel err | out of contact at 1 s (max, last "
         "0.5 s) | quasi-static prediction | face-centre compression [m] | tilt [rad] | "
         "near-rigid contacts (h = 0.01; ref) |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  // Paper Tables 1-2, keyed by (N, E, load).
  struct PaperRow {
    int n;
    double E, load, wall, abs_err, rel_err;
  };
  const std::vector<PaperRow> paper = {
      {100, 1e7, 5, 0.331, 2.96e-5, 2.65e-5},   {100, 1e11, 5, 0.286, 2.91e-7, 2.60e-7},
      {100, 1e7, 50, 0.332, 0.813, 0.724},      {100, 1e11, 50, 0.396, 0.814, 0.728},
      {900, 1e7, 5, 7.40, 1.98e-5, 1.77e-5},    {900, 1e11, 5, 8.23, 2.71e-9, 2.42e-9},
      {900, 1e7, 50, 12.98, 1.0e-2, 8.87e-3},   {900, 1e11, 50, 26.00, 1.0e-2, 8.95e-3}};
  auto paper_of = [&](int n, double E, double load) {
    for (const PaperRow& p : paper)
      if (p.n == n && p.E == E && p.load == load) return p;
    return PaperRow{};
  };
  std::vector<PlotSeries> out_plot;
  bool ordering = true, steady = true, separates = true, pressure = true, no_failure = true;
  bool winkler_ok = true, count_ok = true;
  int worst_count = 0, ref_near_rigid = 0;
  double worst_steady_w0 = 0, worst_steady_tilt = 0;
  int c = 0;
  for (int n_side : sides) {
    const int N = n_side * n_side;
    for (double E : {1e7, 1e11}) {
      double err5 = kNaN;
      for (double load : {5.0, 50.0}) {
        FoundationSetup f;
        f.n_side = n_side;
        f.E = E;
        f.load = load;
        // Wall time: best of 3 runs of 1 s at h = 0.01 (the machine may be shared); two plain
        // runs and the instrumented one (its per-step bookkeeping is small next to the solve).
        const FoundationRun run = RunFoundation(f);
        double best_wall = run.wall_s;
        for (int rep = 0; rep < 2; ++rep) {
          const Scene sc = FoundationScene(f);
          best_wall = std::min(best_wall, Run(sc, Steps(sc, 1.0)).wall_s);
        }
        const VecX& q = run.q_final;
        FoundationSetup fr = f;
        fr.h = h_ref;
        fr.rel_tol = 1e-10;
        const FoundationRun ref_run = RunFoundation(fr);
        const VecX& q_ref = ref_run.q_final;
        const double abs_err = (q - q_ref).norm();
        const double rel_err = abs_err / q_ref.norm();
        const WinklerStatic qs = WinklerQuasiStatic(f, kLoadRate * (1.0 - f.h), g);
        const PaperRow p = paper_of(N, E, load);
        const std::string label =
            std::to_string(N) + " elements, E = " + Fmt(E) + ", " + Fmt(load) + " N";
        ex.Info(label + ": wall time per simulated second [s]",
                Fmt(p.wall, 4) + " (MATLAB, constraint-based)", best_wall, src,
                "Not comparable: different machine, language and solver; shown side by side "
                "only. Best of 3 runs.");
        ex.Info(label + ": final-pose error after 1 s, h = 0.01 (relative)",
                Fmt(p.rel_err, 3) + " (vs ode45)", rel_err, src,
                "Against ContactLab at h = " + Fmt(h_ref) +
                    " s, not ode45: measures ContactLab's own step-size error.");
        no_failure &= run.failures == 0 && ref_run.failures == 0;
        ref_near_rigid = std::max(ref_near_rigid, ref_run.near_rigid_max);
        pressure &= run.loaded_side_max;
        if (load == 5) {
          err5 = abs_err;
          steady &= run.out_max == 0 && run.ke_final < 1e-6;
          if (E == 1e7) {
            // Compliance resolved at h = 0.01: the steady response is the closed form.
            const double ew = std::abs(run.w0 / qs.w0 - 1), et = std::abs(run.tilt / qs.tilt - 1);
            worst_steady_w0 = std::max(worst_steady_w0, ew);
            worst_steady_tilt = std::max(worst_steady_tilt, et);
            winkler_ok &= ew < 0.02 && et < 0.02;
          }
        } else {
          ordering &= err5 < abs_err;
          separates &= run.out_final > 0 && ref_run.out_final > 0;
          if (E == 1e7) {
            worst_count = std::max(worst_count, std::abs(run.out_final - qs.out_of_contact));
            count_ok &= std::abs(run.out_final - qs.out_of_contact) <= n_side;
          }
        }
        tab << "| " << N << " | " << Fmt(E) << " | " << Fmt(load) << " | " << Fmt(best_wall, 3)
            << " | " << Fmt(p.wall, 4) << " | " << Fmt(abs_err, 3) << " | " << Fmt(p.abs_err, 3)
            << " | " << Fmt(rel_err, 3) << " | " << Fmt(p.rel_err, 3) << " | " << run.out_final
            << " (" << run.out_max << "); ref " << ref_run.out_final << " | "
            << qs.out_of_contact << " | " << Fmt(run.w0, 3) << " (static " << Fmt(qs.w0, 3)
            << ") | " << Fmt(run.tilt, 3) << " (static " << Fmt(qs.tilt, 3) << ") | "
            << run.near_rigid_max << "; " << ref_run.near_rigid_max << " |\n";
        PlotSeries s = run.out_series;
        s.label = std::to_string(N) + ", E=" + Fmt(E) + ", " + Fmt(load) + " N";
        s.color = kPalette[c++ % 7];
        s.markers = false;
        if (load == 50) out_plot.push_back(s);
      }
    }
  }
  ex.Text(tab.str());
  ex.Row("5 N: steady state (no element lifts over the last 0.5 s, KE < 1e-6 J at 1 s), every case",
         "5 N reaches a steady state", kNaN, steady ? 1 : 0,
         "qualitative: the quasi-static no-tension solution keeps every element in contact at 5 N",
         steady, src);
  ex.Row("50 N: elements out of contact at 1 s (h = 0.01 and reference), every case",
         "50 N rocks; the opposite side separates slightly", kNaN, separates ? 1 : 0,
         "> 0 in every case: the resultant's eccentricity 25/128.5 = 0.195 m exceeds the kern "
         "(s/6 = 0.167 m)",
         separates, src);
  ex.Row("most compressed element on the loaded side (every case)",
         "higher pressure on the loaded side", kNaN, pressure ? 1 : 0,
         "sign of its position along the load direction", pressure, src);
  ex.Row("error ordering: 5 N error < 50 N error at every (N, E)",
         "5 N errors 2.7e-9..3e-5, 50 N errors 1e-2..0.81", kNaN, ordering ? 1 : 0,
         "ordering only: the magnitudes depend on the reference (ode45 there, ContactLab at small "
         "h here)",
         ordering, src);
  ex.Row(
      "E = 1e7, 5 N: steady compression and tilt / Winkler closed form, worst deviation",
      "(derived: w0 = (mg + F)/(N K), tilt = F s/2 / (K Σx²))", 0,
      std::max(worst_steady_w0, worst_steady_tilt),
      "< 2 %: the load direction lags one step (0.1 rad), which turns the tilt but keeps its "
      "size; the rest is SAP's ε_r",
      winkler_ok, "derived from " + src);
  ex.Row("E = 1e7, 50 N: elements out of contact at 1 s − quasi-static no-tension count, worst abs difference",
         "(derived: no-tension Winkler solution for the load at t = 0.99 s)", 0, worst_count,
         "≤ one row of elements (n_side): elements at the contact boundary have d ≈ 0 and flip "
         "with the one-step (0.1 rad) lag of the load direction",
         count_ok, "derived from " + src);
  ex.Row("reference runs: contacts on SAP's near-rigid clamp (most in a step)",
         "(the reference must resolve the compliance)", 0, ref_near_rigid,
         "0: otherwise the reference would not be the compliant model", ref_near_rigid == 0,
         "derived from " + src);
  ex.Row("no failed solve (all runs)", "never fails", kNaN, no_failure ? 1 : 0,
         "every SAP solve converged", no_failure, src);
  ex.Plot("separation", {"Cube on Winkler foundation, 50 N: elements out of contact", "t [s]",
                         "elements", false, false},
          out_plot, "Elements out of contact against time under the 50 N rotating load (h = 0.01).");
  ex.Text(
      "Wall times are ContactLab's (C++, one thread) beside the paper's MATLAB figures; they are "
      "not comparable (machine, language, solver) and are not judged. At E = 1e11 and h = 0.01 "
      "the per-contact stiffness (1e8-1e9 N/m) is beyond what the step resolves, so SAP's "
      "near-rigid clamp replaces it (the near-rigid column): the cube sinks 0.05-0.4 µm instead "
      "of the physical 0.8 nm, and that regularization, not the step's truncation error, dominates the "
      "E = 1e11 errors. The cube responds quasi-statically (rocking frequency ≈ 800 rad/s against "
      "the load's 10 rad/s), so ContactLab's 50 N errors stay small; the paper's 50 N errors "
      "(up to 0.81) are far larger than any quasi-static tilt here could produce, so only their "
      "ordering is compared.");
}

}  // namespace reproduce
}  // namespace contactlab
