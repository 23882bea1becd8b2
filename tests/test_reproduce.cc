// Tests of `contactlab reproduce`: the fast experiments (quick mode, seconds each) must agree with
// the papers on the rows whose physics ContactLab models; the output files must be complete.
// The full-length experiments are the Slow* tests, which carry the ctest label `slow`.
//
// Rows that the report marks as disagreeing (and explains) are not asserted here: a test must not
// enshrine a disagreement, and asserting agreement there would fail for a known reason.
#include <gtest/gtest.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "app/plot_png.h"
#include "app/reproduce/reproduce.h"
#include "app/runner.h"
#include "app/scene.h"

namespace contactlab {
namespace {

ReproduceOptions Quick() {
  ReproduceOptions o;
  o.quick = true;
  return o;
}

const ResultRow& FindRow(const ExperimentResult& r, const std::string& metric) {
  for (const ResultRow& row : r.rows)
    if (row.metric == metric) return row;
  ADD_FAILURE() << "no row '" << metric << "' in " << r.id;
  static ResultRow none;
  return none;
}

void ExpectAgrees(const ExperimentResult& r, const std::string& metric) {
  const ResultRow& row = FindRow(r, metric);
  EXPECT_EQ(row.agrees, Agreement::kAgrees)
      << r.id << ": " << metric << ": paper " << row.paper_value << ", ContactLab " << row.value
      << ", tolerance " << row.tolerance;
}

TEST(Reproduce, SpringCylinderEnergyAndOrder) {
  const ExperimentResult r = RunReproduceExperiment("spring_cylinder", Quick());
  ExpectAgrees(r, "μ=0 midpoint: energy band peak-to-peak [%]");
  ExpectAgrees(r, "μ=0 symplectic Euler: energy band peak-to-peak [%]");
  ExpectAgrees(r, "μ=0 implicit Euler: energy after 5 periods / initial");
  ExpectAgrees(r, "midpoint, μ=0: order of e_q in δt");
  ExpectAgrees(r, "midpoint, μ=1: order of e_q in δt");
  ExpectAgrees(r, "symplectic_euler, μ=0: order of e_q in δt");
  ExpectAgrees(r, "symplectic_euler, μ=1: order of e_q in δt");
}

TEST(Reproduce, BoxOnRampFollowsCoulomb) {
  const ExperimentResult r = RunReproduceExperiment("box_on_ramp", Quick());
  // SAP's four distances, then per program of the first-order solver its four distances and the
  // qualitative row.
  ASSERT_EQ(r.rows.size(), 14u);
  for (const char* prefix : {"", "first-order (complementarity): "}) {
    for (const char* mu : {"0", "0.125", "0.25", "0.375"})
      ExpectAgrees(r, std::string(prefix) + "μ=" + mu + ": distance in 1 s [m]");
  }
  ExpectAgrees(r,
               "first-order (complementarity): slides freely at μ = 0, less as μ grows, sticks at "
               "μ = 0.375");
  // The paper's min-norm program without friction: normal rows only, g sin θ.
  ExpectAgrees(r, "first-order (paper): μ=0: distance in 1 s [m]");
  // Its rows with friction disagree (the program lifts the box off the ramp; the report's notes
  // give the measured lift and normal impulse) and are not asserted.
}

TEST(Reproduce, FallingSphereRollsAtFiveSevenths) {
  const ExperimentResult r = RunReproduceExperiment("falling_sphere", Quick());
  ExpectAgrees(r, "final speed / U0");
  // Every contact model conserves the angular momentum about the contact point: 5/7 U0 (±1 %).
  for (const char* m : {"Lagged", "Regularized Lagged", "Similar"})
    ExpectAgrees(r, std::string(m) + ": final speed / U0");
  // Contact onset (paper §IX-B): SAP activates at a gap ≈ (δt+τ_d)(μ‖v_t‖ − v_n), Similar at
  // δt(μ‖v_t‖ − v_n), Lagged only when φ0 + δt v_n < 0; at δt = 1e-4 s the three gaps differ by
  // several steps of the fall, so the order SAP < Similar < Lagged must hold strictly.
  ExpectAgrees(r,
               "contact onset order SAP < Similar < Lagged (gap at the first loaded step, δt "
               "= 1e-4)");
  // Lagged's normal law ignores v_t: while sliding v_n → 0 (bound 2e-3 m/s, 10× below SAP's
  // gliding v_n ≈ μ(δt+τ_d)(7/2)μg ≈ 2e-2 m/s); SAP and Similar glide above that bound.
  EXPECT_LT(FindRow(r, "Lagged: RMS normal velocity while sliding [m/s]").value, 2e-3);
  EXPECT_GT(FindRow(r, "SAP (linear): RMS normal velocity while sliding [m/s]").value, 2e-3);
  EXPECT_GT(FindRow(r, "Similar: RMS normal velocity while sliding [m/s]").value, 2e-3);
  // First order against Lagged at δt = 4e-5 (paper Fig. 6): local order 0.7 to 1.5.
  ExpectAgrees(r, "Lagged: order of e_q between δt = 2e-3 and 4e-4");
  ExpectAgrees(r, "Similar: order of e_q between δt = 2e-3 and 4e-4");
}

TEST(Reproduce, ConveyorBeltSticksAndSlips) {
  const ExperimentResult r = RunReproduceExperiment("conveyor_belt", Quick());
  ExpectAgrees(r, "fraction of steps in stiction (δt = 0.01)");
  // The gliding-height row currently disagrees (slope 0.76 against 1, see its note in the
  // report); it stays in the report as a disagreement rather than being asserted here.

  // Lagged (paper §IX-A, Fig. 2): friction from the previous step's normal impulse leaves the
  // normal law independent of v_t, so while sliding the box neither glides nor pushes harder
  // than its weight. Bounds: v_n below 5e-3 m/s (10× below SAP's gliding v_n ≈ 5e-2 m/s; the
  // 3D box pitches on its corner contacts), Σγ_n = m g δt within 1 %, height within 0.1 mm
  // of rest (SAP glides ≈ 5 mm).
  const std::string vn = ": RMS normal velocity v_n while sliding [m/s] (δt = 0.01)";
  EXPECT_LT(FindRow(r, "Lagged" + vn).value, 5e-3);
  EXPECT_NEAR(FindRow(r, "Lagged: mean normal force / weight while sliding (δt = 0.01)").value, 1,
              0.01);
  ExpectAgrees(r, "Lagged: mean height above rest while sliding [m] (δt = 0.01)");
  // SAP and Similar glide: v_n while sliding above the Lagged bound.
  EXPECT_GT(FindRow(r, "SAP (linear)" + vn).value, 5e-3);
  EXPECT_GT(FindRow(r, "Similar" + vn).value, 5e-3);
  // Similar floats μ δt ‖v_t‖ above the Lagged equilibrium (closed form, d-term below 1e-6 m):
  // fitted slope 1 ± 0.15.
  ExpectAgrees(r, "Similar: gliding height / (μ δt ‖v_t‖) while sliding");
}

TEST(Reproduce, SlidingRodLaggedJamsAndSticks) {
  const ExperimentResult r = RunReproduceExperiment("sliding_rod", Quick());
  // Lagged at δt = 1e-5 s (paper §IX-C, Figs. 8-11): the rod slides, jams, sticks for ≈0.2 ms
  // (accepted 0.1 to 0.4 ms: read from a figure inset) and jumps.
  ExpectAgrees(r, "Lagged, no dissipation: duration of stiction at the jam [ms]");
  ExpectAgrees(r, "Lagged, no dissipation: rod jumps (loses contact) after the contact phase");
  // Dissipation d = 0.2 s/m barely moves Lagged's impact (|shift| < 0.1 ms).
  ExpectAgrees(r, "Lagged: impact time shift with dissipation [ms]");
  // Lagged misses the impact at δt = 1e-3 s (paper Fig. 12): no stiction, or the peak force
  // more than 2 δt away from the δt = 1e-5 s impact.
  ExpectAgrees(r, "Lagged at δt = 1e-3 s: misses the impact");
}

TEST(Reproduce, ClutterModelsQuick) {
  const ExperimentResult r = RunReproduceExperiment("clutter_models", Quick());
  for (const char* m : {"SAP (linear)", "Lagged", "Regularized Lagged", "Similar"})
    ExpectAgrees(r, std::string(m) + ": failed steps");
  // Paper §X-A, Fig. 14: during the transient Lagged and Similar take more Newton iterations
  // than SAP, and the regularized stiction tolerance ε_s = max(v_s, σ w μ γ_n0) cuts Lagged's.
  ExpectAgrees(r, "Lagged / SAP mean iterations in the transient");
  ExpectAgrees(r, "Similar / SAP mean iterations in the transient");
  ExpectAgrees(r, "Lagged / SAP cond(H) in the transient");
  ExpectAgrees(r, "Regularized Lagged / Lagged mean iterations in the transient");
  // Fig. 15: Lagged's tolerance is v_s = 1e-4 m/s by definition (±1 %); the regularized one is
  // never below it.
  ExpectAgrees(r, "Lagged effective stiction tolerance [m/s]");
  EXPECT_GE(FindRow(r, "Regularized Lagged effective stiction tolerance [m/s]").value, 1e-4);
}

TEST(Reproduce, StiffPendulumIsStableAndDead) {
  const ExperimentResult r = RunReproduceExperiment("stiff_pendulum", Quick());
  // E5 under SAP and the first-order solver at the paper's k = 1e12 and at 1e15.
  for (const char* prefix : {"", "first-order, k = 1e12: ", "first-order, k = 1e15: "}) {
    ExpectAgrees(r, std::string(prefix) + "stable at every h (no energy gain)");
    ExpectAgrees(r, std::string(prefix) + "rebound height after the impact / release height");
  }
  // E4 by the first-order bilateral step: stable at every h, joint deviation ∝ h².
  ExpectAgrees(r, "E4: stable at h = 0.1 … 1e-4 (k = 1e15)");
  ExpectAgrees(r, "E4: order of the joint deviation max ‖φ‖ in h (h = 1e-2 … 1e-4)");
}

TEST(Reproduce, CubeFoundationQuick) {
  // 100-element cases: the rotating 5 N load gives the Winkler closed-form steady state, 50 N
  // lifts the far side, errors order as in Table 2. Timing and error rows are n/a by design.
  const ExperimentResult r = RunReproduceExperiment("cube_foundation", Quick());
  ExpectAgrees(r,
               "5 N: steady state (no element lifts over the last 0.5 s, KE < 1e-6 J at 1 s), "
               "every case");
  ExpectAgrees(r, "50 N: elements out of contact at 1 s (h = 0.01 and reference), every case");
  ExpectAgrees(r, "most compressed element on the loaded side (every case)");
  ExpectAgrees(r, "error ordering: 5 N error < 50 N error at every (N, E)");
  ExpectAgrees(r,
               "E = 1e7, 5 N: steady compression and tilt / Winkler closed form, worst deviation");
  ExpectAgrees(r,
               "E = 1e7, 50 N: elements out of contact at 1 s − quasi-static no-tension count, "
               "worst abs difference");
  ExpectAgrees(r, "reference runs: contacts on SAP's near-rigid clamp (most in a step)");
  ExpectAgrees(r, "no failed solve (all runs)");
  // The first-order solver (quick mode: its complementarity program at E = 1e7).
  const std::string fo = "first-order (complementarity): ";
  ExpectAgrees(r, fo + "5 N steady state (no element lifts over the last 0.5 s, KE < 1e-6 J), "
                       "every case");
  ExpectAgrees(r, fo + "50 N: elements out of contact at 1 s, every case");
  ExpectAgrees(r, fo + "most compressed element on the loaded side (every case)");
  ExpectAgrees(r, fo + "error ordering 5 N < 50 N at every (N, E)");
  ExpectAgrees(r, fo + "E = 1e7, 5 N: steady compression and tilt / Winkler closed form, worst "
                       "deviation");
  ExpectAgrees(r, fo + "no failed solve (all runs)");
  int n_a = 0;
  for (const ResultRow& row : r.rows) n_a += row.agrees == Agreement::kNotComparable;
  // Wall time and error for each of SAP's four 100-element cases and the first-order solver's
  // two.
  EXPECT_EQ(n_a, 12);
}

TEST(Reproduce, SphereStackStands) {
  const ExperimentResult r = RunReproduceExperiment("sphere_stack", Quick());
  ExpectAgrees(r, "stack stands (every N)");
  ExpectAgrees(r, "the column collapses without throwing its top sphere (every N)");
  for (const char* fo : {"first-order (paper): ", "first-order (complementarity): "}) {
    ExpectAgrees(r, std::string(fo) + "stack stands (every N)");
    ExpectAgrees(r, std::string(fo) + "at rest after 500 steps: largest final KE per sphere [J]");
  }
  // The complementarity program throws the top sphere of the 25-sphere column during the
  // collapse (the report's note gives the height and the overlap); not asserted.
  ExpectAgrees(r,
               "first-order (paper): the column collapses without throwing its top sphere "
               "(every N)");
}

TEST(Reproduce, ClutterQuick) {
  const ExperimentResult r = RunReproduceExperiment("clutter", Quick());
  ExpectAgrees(r, "with walls: max momentum error e_m over all steps");
  ExpectAgrees(r, "no walls: max momentum error e_m over all steps");
  ExpectAgrees(r, "with walls: mean Newton iterations per step, steady state");
}

TEST(Reproduce, SigmaSweepQuick) {
  const ExperimentResult r = RunReproduceExperiment("sigma_sweep", Quick());
  for (const ResultRow& row : r.rows)
    if (row.metric.rfind("σ=", 0) == 0) ExpectAgrees(r, row.metric);  // slip below σμδtg
  ExpectAgrees(r, "slope of log cond(H) against log σ");
}

TEST(Reproduce, SoftBubbleGripperQuick) {
  // One 6 s grip period of the pressure-field gripper (1200 steps, ≈1 s).
  const ExperimentResult r = RunReproduceExperiment("soft_bubble_gripper", Quick());
  ExpectAgrees(r, "failed steps");
  ExpectAgrees(r, "mean Newton iterations per step");
  ExpectAgrees(r, "max momentum error e_m");
  ExpectAgrees(r, "pitch change while gripped at 16 N, t in [0.5, 4.5] s [deg]");
  ExpectAgrees(r, "largest pitch change while the grip is 1 N, t in [4.5, 6] s [deg]");
  EXPECT_GT(FindRow(r, "faces (contact constraints) per step while held at 16 N (mean)").value,
            FindRow(r, "faces per step while slipping at 1 N (mean)").value);
}

TEST(Reproduce, DualArmJarQuick) {
  // The whole 160-DOF jar task (3600 steps, a few seconds). Timing rows are not asserted.
  const ExperimentResult r = RunReproduceExperiment("dual_arm_jar", Quick());
  ExpectAgrees(r, "velocity dimension (DOF)");
  ExpectAgrees(r, "failed steps (contact solve or free motion)");
  ExpectAgrees(r, "mean Newton iterations per step");
  ExpectAgrees(r, "max momentum error e_m over all steps");
  ExpectAgrees(r, "mean momentum error e_m");
  ExpectAgrees(r, "lid taken off: its largest distance from its seat on the rim [m]");
  ExpectAgrees(r, "largest jar tilt [deg]");
  ExpectAgrees(r, "marbles in the bowl at the end");
  ExpectAgrees(r, "lid back on the jar: lid centre off the jar's axis [m]");
  ExpectAgrees(r, "jar set down upright: tilt at the end [deg]");
  // The jar-lid pressure field is in the problem while the lid is on.
  EXPECT_GT(FindRow(r, "pressure-field faces per step (mean over all steps)").value, 10);
  EXPECT_GE(FindRow(r, "contact constraints per step (max)").value, 100);
}

TEST(Reproduce, RobotDishPileCompletes) {
  // 6 s of a 47-DOF arm + hand manipulating the dish pile (≈3 s wall time). Timing rows are not
  // asserted (machine load); the physics rows are.
  const ExperimentResult r = RunReproduceExperiment("robot_dish_pile", Quick());
  ExpectAgrees(r, "velocity dimension of the system");
  ExpectAgrees(r, "failed solves (every step converges)");
  // The report's < 1 mm row disagrees (≈5 mm): the arm presses the pot with ≈300 N and the dish
  // contacts' R_n comes from the near-rigid clamp at δt = 1/240 s (the row's note gives the
  // numbers). Guard against a real failure instead: no dish sinks through the 1 cm plate.
  EXPECT_LT(FindRow(r, "max penetration between dishes / table [m]").value, 0.01);
  ExpectAgrees(r, "dish jitter, phase A (hand pressing, held): RMS dish speed [m/s]");
  ExpectAgrees(r, "dish jitter, phase B (hand withdrawn): RMS dish speed [m/s]");
  EXPECT_GT(FindRow(r, "steps with hand-dish contact").value, 300);
  // The AL paper's solvers run the same task: no numerical failure (iteration caps aside), and
  // CANAL holds the dishes still without penetrating them.
  for (const char* s : {"CANAL", "SubADMM", "PGS"})
    ExpectAgrees(r, std::string(s) + ": failed steps (numerical failure, not the iteration cap)");
  ExpectAgrees(r, "CANAL: dish jitter, phase A (hand pressing, held): RMS dish speed [m/s]");
  ExpectAgrees(r, "CANAL: dish jitter, phase B (hand withdrawn): RMS dish speed [m/s]");
  ExpectAgrees(r, "CANAL: max penetration between dishes / table [m]");
}

TEST(Reproduce, DishPileRace) {
  // 10 kicked single steps raced by CANAL, SubADMM, PGS and SAP (paper Fig. 9, Table II).
  // Timing rows (per-iteration cost) are not asserted.
  const ExperimentResult r = RunReproduceExperiment("dish_pile", Quick());
  ExpectAgrees(r, "CANAL: mean NCP residual after 10 AL iterations");
  ExpectAgrees(r, "CANAL: AL iterations until every case is below 1e-8");
  ExpectAgrees(r, "CANAL: solves not converged within 100 AL iterations");
  ExpectAgrees(r, "PGS: mean NCP residual after 100 sweeps");
  ExpectAgrees(r,
               "NCP residual reached within CANAL's converged solve time: CANAL < SubADMM < PGS");
  // CANAL drives the residual of the exact law to round-off; SAP stops at its regularization's
  // distance from it (the floor of PGS too).
  EXPECT_GT(FindRow(r, "SAP: mean NCP residual, compliant model").value, 1e-4);
}

TEST(Reproduce, PouringQuick) {
  // N = 9, 18, 27 at the paper's fixed iteration counts. SAP converges at every step, so its
  // residual (its regularization's distance from the exact law) hardly depends on N.
  const ExperimentResult r = RunReproduceExperiment("pouring", Quick());
  ExpectAgrees(r, "SAP: NCP residual spread over N (max/min)");
  ExpectAgrees(r, "PGS: NCP residual spread over N (max/min)");
}

// The experiment table (app/reproduce/reproduce.cc): ids are unique, every row is complete, and
// every id is reachable from the command line: `reproduce --list` prints it at the start of a
// line and `reproduce --only ID` accepts it (CLI11 validates --only before --list ends the
// parse). The control: an id not in the table is refused by --only.
TEST(ReproduceTable, UniqueCompleteAndReachableFromTheCli) {
  const std::vector<ReproduceExperimentInfo> table = ReproduceExperimentTable();
  ASSERT_GE(table.size(), 16u);  // at least the 4 experiments of each seed 000, 001, 002, 004
  const std::vector<std::string> ids = ReproduceExperimentIds();
  ASSERT_EQ(ids.size(), table.size());
  std::set<std::string> unique;
  for (size_t i = 0; i < table.size(); ++i) {
    const ReproduceExperimentInfo& e = table[i];
    EXPECT_EQ(e.id, ids[i]);
    EXPECT_TRUE(unique.insert(e.id).second) << "duplicate id " << e.id;
    EXPECT_TRUE(e.seed == "000" || e.seed == "001" || e.seed == "002" || e.seed == "004")
        << e.id << ": seed " << e.seed;
    for (const std::string* field : {&e.title, &e.paper, &e.source, &e.quick, &e.full})
      EXPECT_FALSE(field->empty()) << e.id;
    // The digest the paper values are quoted from is the seed's.
    EXPECT_EQ(e.source.rfind("seed_" + e.seed + "_", 0), 0u) << e.id << ": " << e.source;
  }
  for (const char* seed : {"000", "001", "002", "004"}) {
    EXPECT_TRUE(std::any_of(table.begin(), table.end(),
                            [&](const ReproduceExperimentInfo& e) { return e.seed == seed; }))
        << "no experiment of seed " << seed;
  }

  testing::internal::CaptureStdout();
  {
    CLI::App app;
    AddReproduceCommand(app, nullptr);
    EXPECT_THROW(app.parse("reproduce --list", false), CLI::Success);
  }
  const std::string listed = testing::internal::GetCapturedStdout();
  for (const ReproduceExperimentInfo& e : table) {
    EXPECT_NE(listed.find(e.id + " (seed " + e.seed + ", " + e.paper + "): " + e.title + "\n"),
              std::string::npos)
        << e.id << " missing from --list:\n"
        << listed;
    CLI::App app;
    AddReproduceCommand(app, nullptr);
    testing::internal::CaptureStdout();
    EXPECT_THROW(app.parse("reproduce --only " + e.id + " --list", false), CLI::Success) << e.id;
    testing::internal::GetCapturedStdout();
  }
  CLI::App app;
  AddReproduceCommand(app, nullptr);
  EXPECT_THROW(app.parse("reproduce --only no_such_experiment --list", false),
               CLI::ValidationError);
}

TEST(Reproduce, UnknownExperimentThrows) {
  EXPECT_THROW(RunReproduceExperiment("no_such_experiment", Quick()), std::invalid_argument);
}

TEST(Reproduce, WritesResultsReportAndPlots) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("contactlab_reproduce_test_" + std::to_string(::getpid()));
  ReproduceOptions o = Quick();
  o.out_dir = dir.string();
  o.only = {"box_on_ramp", "cube_foundation"};
  std::ostringstream log;
  ASSERT_EQ(RunReproduce(o, log), 0) << log.str();
  std::ifstream f(dir / "results.json");
  ASSERT_TRUE(f.good());
  const nlohmann::json doc = nlohmann::json::parse(f);
  // 14 ramp rows + 26 foundation rows (12 of them n/a).
  ASSERT_EQ(doc["rows"].size(), 40u);
  for (const auto& row : doc["rows"]) {
    for (const char* key : {"experiment", "metric", "paper_value", "contactlab_value", "tolerance",
                            "agrees", "source"})
      EXPECT_TRUE(row.contains(key)) << key;
  }
  EXPECT_TRUE(doc["rows"][14]["agrees"].is_null());  // cube on a foundation: wall time, n/a
  std::ifstream md(dir / "report.md");
  const std::string text((std::istreambuf_iterator<char>(md)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("box_on_ramp_distance.png"), std::string::npos);
  EXPECT_NE(text.find("Not comparable"), std::string::npos);
  EXPECT_NE(text.find("cube_foundation_separation.png"), std::string::npos);
  std::ifstream png(dir / "box_on_ramp_distance.png", std::ios::binary);
  char sig[8] = {};
  png.read(sig, 8);
  EXPECT_EQ(std::string(sig + 1, 3), "PNG");
  std::filesystem::remove_all(dir);
}

TEST(PlotPng, DrawsSeriesInTheirColour) {
  PlotOptions po("t", "x", "y");
  po.width = 200;
  po.height = 150;
  PlotSeries s("line", {0, 1}, {0, 1}, 0xff0000);
  const std::vector<std::uint8_t> img = RenderPlot(po, {s});
  ASSERT_EQ(img.size(), 200u * 150u * 3u);
  int red = 0;
  for (size_t i = 0; i < img.size(); i += 3)
    red += img[i] == 255 && img[i + 1] == 0 && img[i + 2] == 0;
  EXPECT_GT(red, 100);  // a 2-pixel diagonal across a ~100 x 70 pixel frame
  // On log axes, non-positive values are skipped rather than drawn.
  po.log_y = true;
  PlotSeries bad("bad", {0, 1}, {-1, 0}, 0x00ff00);
  const std::vector<std::uint8_t> img2 = RenderPlot(po, {bad});
  int green = 0;
  for (size_t i = 0; i < img2.size(); i += 3)
    green += img2[i] == 0 && img2[i + 1] == 255 && img2[i + 2] == 0;
  EXPECT_LT(green, 60);  // only the legend swatch
}

// Full-length runs (label `slow`).
ReproduceOptions Full() { return ReproduceOptions{}; }

TEST(SlowReproduce, ClutterFull) {
  const ExperimentResult r = RunReproduceExperiment("clutter", Full());
  ExpectAgrees(r, "with walls: max momentum error e_m over all steps");
  ExpectAgrees(r, "no walls: max momentum error e_m over all steps");
  ExpectAgrees(r, "with walls: mean Newton iterations per step, steady state");
}

TEST(SlowReproduce, ClutterScalingFull) {
  const ExperimentResult r = RunReproduceExperiment("clutter_scaling", Full());
  ExpectAgrees(r, "max e_m over all sizes");
}

TEST(SlowReproduce, DualArmJarToleranceSweepFull) {
  // The jar task at ε_r = 1e-5 … 0.5 (six runs of 3600 steps).
  const ExperimentResult r = RunReproduceExperiment("dual_arm_jar", Full());
  ExpectAgrees(r, "tolerance sweep: mean iterations at ε_r = 1e-5 over those at 1e-1");
  ExpectAgrees(r, "tolerance sweep: largest ε_r at which the task succeeds");
  ExpectAgrees(r, "marbles in the bowl at the end");
}

TEST(SlowReproduce, SigmaSweepFull) {
  const ExperimentResult r = RunReproduceExperiment("sigma_sweep", Full());
  for (const ResultRow& row : r.rows)
    if (row.metric.rfind("σ=", 0) == 0) ExpectAgrees(r, row.metric);
}

TEST(SlowReproduce, SlidingRodFinerStepFull) {
  const ExperimentResult r = RunReproduceExperiment("sliding_rod", Full());
  // At δt = 1e-6 s SAP's and Similar's gliding offset δt μ‖v_t‖ is 10× smaller than at 1e-5 s:
  // the rod jams and sticks for ≈0.2 ms (0.1 to 0.4 ms) as with Lagged (paper Figs. 8-11).
  ExpectAgrees(r,
               "SAP (linear), no dissipation, δt = 1e-6 s: duration of stiction at the jam [ms]");
  ExpectAgrees(r, "Similar, no dissipation, δt = 1e-6 s: duration of stiction at the jam [ms]");
}

TEST(SlowReproduce, ClutterModelsFull) {
  const ExperimentResult r = RunReproduceExperiment("clutter_models", Full());
  // Paper §X-A, Figs. 14 and 16: after the transient SAP iterates more than Lagged; SAP's
  // conditioning barely changes over a factor 4 in δt (max/min < 3), Lagged's improves as δt
  // drops, and the regularized tolerance improves Lagged's at δt = 1e-2.
  ExpectAgrees(r, "SAP / Lagged mean iterations at steady state");
  ExpectAgrees(r, "SAP: max / min cond(H) over δt = 1e-2 … 2.5e-3");
  ExpectAgrees(r, "Lagged: cond(H) at δt = 1e-2 / at 2.5e-3");
  ExpectAgrees(r, "Regularized Lagged / Lagged cond(H) at δt = 1e-2");
}

TEST(SlowReproduce, ClutterStiffnessFull) {
  const ExperimentResult r = RunReproduceExperiment("clutter_stiffness", Full());
  ExpectAgrees(r, "no failed step for k ≤ 1e12");
}

TEST(SlowReproduce, CubeFoundationFull) {
  const ExperimentResult r = RunReproduceExperiment("cube_foundation", ReproduceOptions{});
  // SAP's rows agree in all eight cases; the first-order solver's disagreement (the
  // complementarity program's E = 1e11, 50 N case) is the report's, not asserted.
  for (const ResultRow& row : r.rows) {
    if (row.agrees != Agreement::kNotComparable && row.metric.rfind("first-order", 0) != 0)
      ExpectAgrees(r, row.metric);
  }
  ExpectAgrees(r, "first-order (paper): no failed solve (all runs)");
  int n_a = 0;
  for (const ResultRow& row : r.rows) n_a += row.agrees == Agreement::kNotComparable;
  // SAP's eight cases, the first-order solver's four 100-element cases per program (wall time and
  // error each) and its 900-element step per program.
  EXPECT_EQ(n_a, 16 + 16 + 2);
}

TEST(SlowReproduce, DishPileFull) {
  const ExperimentResult r = RunReproduceExperiment("dish_pile", Full());
  ExpectAgrees(r, "CANAL: mean NCP residual after 10 AL iterations");
  ExpectAgrees(r, "CANAL: solves not converged within 100 AL iterations");
  ExpectAgrees(r, "SubADMM: mean NCP residual after 1000 iterations");
  ExpectAgrees(r, "PGS: mean NCP residual after 500 sweeps");
}

TEST(SlowReproduce, SpringCylinderFull) {
  const ExperimentResult r = RunReproduceExperiment("spring_cylinder", Full());
  ExpectAgrees(r, "midpoint, μ=1: order of e_q in δt");
  ExpectAgrees(r, "implicit_euler, μ=0: order of e_q in δt");
}

}  // namespace
}  // namespace contactlab

namespace contactlab {
namespace {

// `run --reference`: the position error against the run's own trajectory is zero, and against
// a run at half the time step it is positive.
TEST(RunReference, PositionErrorAgainstATrajectory) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("contactlab_reference_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string scene_path =
      std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/paper/falling_sphere.yaml";
  RunOptions o;
  o.duration = 0.2;
  o.trajectory_path = (dir / "ref.csv").string();
  std::ostringstream log;
  Scene fine = LoadScene(scene_path, {"time_step=0.001"});
  const RunSummary s0 = RunHeadless(fine, o, log);
  EXPECT_TRUE(std::isnan(s0.position_error_rms));

  RunOptions same;
  same.duration = 0.2;
  same.reference_path = o.trajectory_path;
  same.stats_path = (dir / "stats.jsonl").string();
  Scene again = LoadScene(scene_path, {"time_step=0.001"});
  EXPECT_LT(RunHeadless(again, same, log).position_error_rms, 1e-12);
  std::ifstream stats(same.stats_path);
  std::string first;
  std::getline(stats, first);
  EXPECT_NE(first.find("\"position_error\""), std::string::npos);

  Scene coarse = LoadScene(scene_path, {"time_step=0.002"});
  RunOptions other = same;
  other.stats_path.clear();
  const double e = RunHeadless(coarse, other, log).position_error_rms;
  EXPECT_GT(e, 0);
  EXPECT_LT(e, 0.01);  // same physics: the two runs differ by a discretization error (mm scale)
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace contactlab
