// `contactlab reproduce`, seed 001: "Variations of Augmented Lagrangian for Robotic Multi-Contact
// Simulation" (Lee et al.: CANAL, SubADMM), A1-A2 bolt and nut, B1-B2 dish pile, C pouring.
#include "app/reproduce/papers.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "app/reproduce/experiment.h"
#include "engine/inspect/metrics.h"

namespace contactlab {
namespace reproduce {

// ---------------------------------------------------------------------------------------------
// AL paper (seed 001).

void DishPile(Experiment& ex, const ReproduceOptions& opt) {
  const std::string& src = ex.source();
  const int cases = opt.quick ? 20 : 100;
  ex.Text("Bowl, bowl, plate (0.1 kg) and a 5 kg pot as cylinders, settled for 0.5 s, then " +
          std::to_string(cases) +
          " single steps from the settled state with random velocity "
          "kicks v += M⁻¹ w δt for random wrenches w (|f| ≤ 5 N, |τ| ≤ 0.2 N m per dish), which is "
          "what a wrench applied over one step does (scenes/paper/dish_pile.yaml). The residual "
          "is the NCP residual of engine/inspect/metrics.h.");
  const Scene sc = Load(opt, "dish_pile.yaml");
  Simulator sim(sc.model, sc.settings);
  for (int i = 0; i < Steps(sc, 0.5); ++i) sim.Step();
  const State settled = sim.state();
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> U(-1, 1);
  std::vector<double> res_c, res_r, iters;
  for (int c = 0; c < cases; ++c) {
    State s = settled;
    for (size_t b = 0; b < sc.model.bodies.size(); ++b) {
      const Body& body = sc.model.bodies[b];
      if (body.joint < 0) continue;
      const int vs = sc.model.joints[body.joint].v_start;
      const double dt = sc.settings.time_step;
      for (int k = 0; k < 3; ++k) s.v(vs + k) += 5.0 * U(rng) * dt / body.mass;
      Vec3 tau(U(rng), U(rng), U(rng));
      s.v.segment<3>(vs + 3) += body.inertia.inverse() * (0.2 * tau) * dt;
    }
    sim.set_state(s);
    const StepRecord& rec = sim.Step();
    res_c.push_back(ComputeNcpResidual(rec.problem, rec.result, NcpModel::kCompliant).residual);
    res_r.push_back(ComputeNcpResidual(rec.problem, rec.result, NcpModel::kRigid).residual);
    iters.push_back(rec.result.stats.iterations);
  }
  std::vector<double> sorted = res_c;
  std::sort(sorted.begin(), sorted.end());
  ex.Info("SAP: mean NCP residual, compliant model", "CANAL < 1e-8; SubADMM ≈ 1e-6", Mean(res_c),
          src,
          "CANAL and SubADMM are not implemented; SAP solves a regularized (convex) model, so "
          "its residual against exact Signorini-Coulomb is bounded below by its friction "
          "regularization (stiction slip R_t γ_t) and the near-rigid clamp, not by a tolerance.");
  ex.Info("SAP: mean NCP residual, rigid model", "CANAL < 1e-8", Mean(res_r), src,
          "Against the rigid velocity-level NCP of the AL paper (gap φ0/δt, no compliance).");
  ex.Info("SAP: Newton iterations per step", "CANAL: 30.55 inner Newton iterations (10 AL loops)",
          Mean(iters), "seed_001_al.md §5 (D1)",
          "Not the same algorithm: SAP is a single Newton solve.");
  PlotSeries h{"NCP residual (compliant)"};
  for (size_t i = 0; i < sorted.size(); ++i) {
    h.x.push_back(static_cast<double>(i + 1) / sorted.size());
    h.y.push_back(sorted[i]);
  }
  h.color = kBlue;
  ex.Plot("residual",
          {"Dish pile: NCP residual over cases", "fraction of cases", "residual", false, true}, {h},
          "Sorted NCP residuals of SAP's single steps (paper Fig. 9 plots CANAL/SubADMM/PGS).");
}

// AL paper A1/A2: the M48 bolt and nut. Reported as not expressible, with the reason.
void BoltNut(Experiment& ex, const ReproduceOptions& opt) {
  const std::string& src = ex.source();
  ex.Text(
      "Not run. The paper's bolt is a neural signed-distance field and its nut a triangle mesh "
      "with an M48 thread, in contact at hundreds of points along the helix (clustered above 120 "
      "contacts). ContactLab's geometry is convex: meshes become their convex hull (Qhull) and a "
      "body is a union of convex geometries, so a thread would have to be hand-decomposed into "
      "hundreds of convex pieces per turn, and the paper gives neither the decomposition nor the "
      "10 nut poses and 10 wrenches of its 100 cases. Nothing is compared rather than a scene that "
      "is not the paper's.");
  ex.Info("A1: CANAL/SubADMM residual on 100 single steps", "both ≤ 1e-8; PGS stalls past 1e-4",
          kNaN, src, "Not expressible: non-convex threaded geometry (see the text).");
  ex.Info("A2: assembly with a Panda arm at 0.5 ms/step", "CANAL and SubADMM complete; PGS fails",
          kNaN, src,
          "Not expressible: the same thread geometry. The robot itself can be expressed (see "
          "robot_dish_pile).");
}

// AL paper B2: the dish pile manipulated by a 7-DOF arm with a 16-DOF hand (47 DOF).
void RobotDishPile(Experiment& ex, const ReproduceOptions& opt) {
  const std::string& src = ex.source();
  const Scene sc = Load(opt, "robot_dish_pile.yaml");
  const double dt = sc.settings.time_step;
  ex.Text(
      "A Panda-like 7-DOF arm (capsule links, Panda DH lengths and published link masses, PD "
      "joints with the Panda's torque limits) with an Allegro-like 16-DOF hand (capsule "
      "phalanges, PD joints) presses its fingertips 2 cm into the top of the B1 pile's 5 kg pot, "
      "holds (quiet phase A, 2.25-2.75 s), curls the fingers, pushes the pot 8 cm sideways, opens "
      "and lifts, then holds still (quiet phase B, 5.0-6.0 s); δt = 1/240 s, 6 s "
      "(scenes/paper/robot_dish_pile.yaml, whose header lists the approximations). Timings are "
      "SAP's solve time per step on this machine (the paper's budget is for its own hardware "
      "and solvers). Jitter is the RMS linear speed of the four dishes over a quiet phase.");
  std::vector<int> robot(sc.model.bodies.size(), 0), dish(sc.model.bodies.size(), 0);
  for (size_t b = 0; b < sc.model.bodies.size(); ++b) {
    const std::string& n = sc.model.bodies[b].name;
    for (const char* d : {"bowl_1", "bowl_2", "plate", "pot"}) dish[b] |= n == d;
    robot[b] = sc.model.bodies[b].joint >= 0 && !dish[b];
  }
  auto is_robot = [&](int b) { return b >= 0 && robot[b]; };
  std::vector<double> ms, ncp;
  double max_em = 0, pen_dish = 0, pen_hand = 0, hand_steps = 0;
  // The deepest dish/table contact: when, its normal force and whether R_n was clamped.
  double pen_dish_time = 0, pen_dish_force = 0;
  bool pen_dish_clamped = false;
  double va2 = 0, vb2 = 0, vmax_b = 0;
  int na = 0, nb = 0, max_it = 0;
  double sum_it = 0;
  const RunLog log = Run(sc, Steps(sc, 6.0),
                         [&](const Simulator&, const StepRecord& rec) {
    ms.push_back(rec.result.stats.solve_ms);
    sum_it += rec.result.stats.iterations;
    max_it = std::max(max_it, rec.result.stats.iterations);
    max_em = std::max(max_em, rec.result.stats.momentum_error);
    if (!rec.problem.constraints.empty())
      ncp.push_back(ComputeNcpResidual(rec.problem, rec.result, NcpModel::kCompliant).residual);
    bool touch = false;
    for (size_t ci = 0; ci < rec.contacts.size(); ++ci) {
      const Contact& c = rec.contacts[ci];
      const bool r = is_robot(c.body_a) || is_robot(c.body_b);
      const bool d = (c.body_a >= 0 && dish[c.body_a]) || (c.body_b >= 0 && dish[c.body_b]);
      if (r && d) touch = true;
      if (r) {
        pen_hand = std::max(pen_hand, -c.phi);
      } else if (-c.phi > pen_dish) {
        pen_dish = -c.phi;
        pen_dish_time = rec.before.time;
        for (size_t k = 0; k < rec.problem.constraints.size(); ++k) {
          const ConstraintData& cd = rec.problem.constraints[k];
          if (cd.kind != ConstraintKind::kFrictionCone || cd.source != static_cast<int>(ci))
            continue;
          pen_dish_force = rec.result.gamma(cd.first_row + 2) / dt;
          pen_dish_clamped = rec.result.laws.Constant(static_cast<int>(k), "near_rigid") != 0;
        }
      }
    }
    hand_steps += touch;
    const double t = rec.after.time;
    const bool qa = t > 2.25 + 1e-9 && t <= 2.75 + 1e-9, qb = t > 5.0 + 1e-9;
    if (!qa && !qb) return;
    for (size_t b = 0; b < sc.model.bodies.size(); ++b) {
      if (!dish[b]) continue;
      const double v = rec.after.v.segment<3>(sc.model.joints[sc.model.bodies[b].joint].v_start).norm();
      if (qa) { va2 += v * v; ++na; }
      if (qb) { vb2 += v * v; ++nb; vmax_b = std::max(vmax_b, v); }
    }
  });
  std::vector<double> sorted = ms;
  std::sort(sorted.begin(), sorted.end());
  auto pct = [&](double p) {
    return sorted.empty() ? kNaN : sorted[std::min(sorted.size() - 1,
                                                   static_cast<size_t>(p * (sorted.size() - 1) + 0.5))];
  };
  const double med = pct(0.5), p95 = pct(0.95), mx = sorted.empty() ? kNaN : sorted.back();
  const double rms_a = na ? std::sqrt(va2 / na) : kNaN, rms_b = nb ? std::sqrt(vb2 / nb) : kNaN;
  const std::string jit_tol =
      "< 1 mm/s: a dish creeping at 1 mm/s moves 1 mm per second (visible); the stops of a "
      "non-converged solver are of order g δt = 41 mm/s";
  ex.Row("velocity dimension of the system", "47 (= 7 + 16 + 4 × 6)", 47, sc.model.nv, "exact",
         sc.model.nv == 47, src);
  ex.Row("SAP solve time per step, median [ms]", "budget 1 ms/step", 1.0, med, "≤ 1 ms",
         med <= 1.0, src)
      .note = "Wall-clock time of SAP on the shared 2-core machine that runs the report.";
  ex.Row("SAP solve time per step, p95 [ms]", "budget 1 ms/step", 1.0, p95, "≤ 1 ms", p95 <= 1.0,
         src);
  ex.Info("SAP solve time per step, max [ms]", "budget 1 ms/step", mx, src,
          "Single-step wall-clock maxima on a shared machine include preemption; not judged.");
  ex.Row("failed solves (every step converges)", "CANAL and SubADMM succeed; PGS jitters", 0,
         log.failures + (log.finite ? 0 : 1), "0 failed steps, finite state", log.failures == 0 && log.finite, src)
      .note = "The statement is about the AL solvers; the row asks whether SAP completes the same "
              "task (the physics), not how CANAL/SubADMM compare.";
  ex.Info("SAP Newton iterations per step, mean / max", "no figure (CANAL ≈ 10 AL loops)",
          sum_it / std::max<size_t>(1, ms.size()), src,
          "Max over the run: " + std::to_string(max_it) + ".");
  ex.Info("max momentum error e_m over all steps", "no figure", max_em, src,
          "SAP's own convergence measure (stopping tolerance ε_r = 1e-6).");
  ex.Info("mean NCP residual (compliant model) over steps with contact", "CANAL < 1e-8; PGS ≈ 1e-4",
          Mean(ncp), src,
          "About the AL solvers' accuracy; SAP's residual against exact Coulomb is bounded "
          "below by its friction regularization (see dish_pile). Max: " +
              Fmt(ncp.empty() ? kNaN : *std::max_element(ncp.begin(), ncp.end()), 3) + ".");
  ex.Row("max penetration between dishes / table [m]", "no large penetrations (A2: PGS fails "
         "with large penetrations)", kNaN, pen_dish,
         "< 1 mm (a tenth of the 1 cm plate)", pen_dish < 1e-3, "seed_001_al.md §5 (A2, B2)")
      .note = "Deepest at t = " + Fmt(pen_dish_time, 4) + " s, carrying a normal force of " +
              Fmt(pen_dish_force, 4) + " N (" + Fmt(pen_dish_force / 9.81, 3) +
              " kg-weight; the pot weighs 5 kg), so the contact's effective stiffness is " +
              Fmt(pen_dish_force / std::max(pen_dish, 1e-12), 3) + " N/m" +
              (pen_dish_clamped
                   ? ": R_n comes from the near-rigid clamp (β), which caps the stiffness a "
                     "step of δt = 1/240 s can resolve for the light dishes, so the hand's "
                     "press shows up as millimetres of overlap rather than a numerical failure."
                   : ": R_n from the material (no clamp).") +
              " The hand presses with the arm's PD gains (kp 3000 N m/rad, no gravity "
              "compensation), far harder than a grasp needs.";
  ex.Info("max penetration hand / arm contacts [m]", "no figure", pen_hand, src,
          "The hand is rubber-like (k = 1e6 N/m) and its phalanges weigh 26-65 g, so SAP's "
          "near-rigid clamp makes these contacts compliant.");
  ex.Info("steps with hand-dish contact", "contact-rich manipulation", hand_steps, src,
          "Out of " + std::to_string(ms.size()) + " steps.");
  ex.Row("dish jitter, phase A (hand pressing, held): RMS dish speed [m/s]",
         "CANAL/SubADMM: no jitter; PGS jitters", 0, rms_a, jit_tol, rms_a < 1e-3, src);
  ex.Row("dish jitter, phase B (hand withdrawn): RMS dish speed [m/s]",
         "CANAL/SubADMM: no jitter; PGS jitters", 0, rms_b, jit_tol, rms_b < 1e-3, src)
      .note = "Largest dish speed in phase B: " + Fmt(vmax_b, 3) + " m/s.";
  PlotSeries t{"solve ms"};
  for (size_t i = 0; i < ms.size(); ++i) {
    t.x.push_back((i + 1) * dt);
    t.y.push_back(ms[i]);
  }
  t.color = kBlue;
  t.markers = false;
  ex.Plot("solve_time", {"Robot dish pile: SAP solve time per step", "t [s]", "ms", false, true},
          {t}, "SAP solve time per step over the manipulation (budget 1 ms).");
}

void Pouring(Experiment& ex, const ReproduceOptions& opt) {
  const std::string& src = ex.source();
  std::vector<int> ns =
      opt.quick ? std::vector<int>{9, 27, 45} : std::vector<int>{9, 18, 27, 36, 45};
  const double T = opt.quick ? 0.5 : 1.0;
  ex.Text("Spheres r = 5 mm, ρ = 10 g/cm³ dropped into a cup of primitives, δt = 1/240 s, " +
          Fmt(T) +
          " s (scenes/paper/pouring.yaml). The paper's humanoid and bottle are not "
          "modelled.");
  PlotSeries res{"mean NCP residual"}, ms{"solve ms"};
  std::vector<double> xs, rs, ts;
  for (int n : ns) {
    const Scene sc = Load(opt, "pouring.yaml",
                          {"generators.grain.grid.count=[3, 3, " + std::to_string(n / 9) + "]"});
    std::vector<double> r;
    double sms = 0;
    int steps = 0;
    Run(sc, Steps(sc, T), [&](const Simulator&, const StepRecord& rec) {
      if (!rec.problem.constraints.empty())
        r.push_back(ComputeNcpResidual(rec.problem, rec.result).residual);
      sms += rec.result.stats.solve_ms;
      ++steps;
    });
    xs.push_back(n);
    rs.push_back(Mean(r));
    ts.push_back(sms / std::max(1, steps));
  }
  res.x = ms.x = xs;
  res.y = rs;
  ms.y = ts;
  const double mx = *std::max_element(rs.begin(), rs.end());
  const double mn = *std::min_element(rs.begin(), rs.end());
  ex.Row("NCP residual spread over N (max/min)", "roughly independent of N", kNaN, mx / mn,
         "< 10 (within one decade on the paper's log axis)", mx / mn < 10, src)
      .note =
      "The paper's statement is about CANAL/SubADMM/PGS at fixed iteration counts; "
      "ContactLab runs SAP to its tolerance.";
  ex.Info("exponent of solve time in N", "CANAL superlinear, well below 3", LogLogSlope(xs, ts),
          src, "SAP, not CANAL.");
  res.color = kBlue;
  ms.color = kOrange;
  ex.Plot("residual", {"Pouring: NCP residual vs N", "spheres", "residual", false, true}, {res},
          "Mean NCP residual per step (paper Fig. 11).");
  ex.Plot("time", {"Pouring: solve time vs N", "spheres", "ms", true, true}, {ms},
          "Mean SAP solve time per step (paper Fig. 11).");
}

}  // namespace reproduce
}  // namespace contactlab
