// The GUI's pure data preparation, without a window: log-axis ticks, plot layout, pacing, the
// contact inspector rows, colour maps and the orbit camera.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "app/scene.h"
#include "engine/inspect/colormap.h"
#include "engine/inspect/debug_draw.h"
#include "render/camera.h"
#include "engine/contact/constraint_bundle.h"
#include "ui/contact_tooltip.h"
#include "ui/panels.h"
#include "ui/ui_data.h"

namespace contactlab {
namespace {

TEST(LogAxis, RangeBracketsTheDataByDecades) {
  const LogRange r = ComputeLogRange({3e-7, 0.02, 1.5e-3});
  EXPECT_EQ(r.lo_exp, -7) << "3e-7 lies in [1e-7, 1e-6)";
  EXPECT_EQ(r.hi_exp, -1) << "0.02 needs the decade up to 1e-1";
  // Exact powers of ten stay on the range ends instead of widening it.
  const LogRange exact = ComputeLogRange({1e-6, 1e-2});
  EXPECT_EQ(exact.lo_exp, -6);
  EXPECT_EQ(exact.hi_exp, -2);
  // Zeros and negatives (a converged e_m can be exactly 0) count as the floor.
  const LogRange with_zero = ComputeLogRange({0.0, 1e-3}, 1e-12);
  EXPECT_EQ(with_zero.lo_exp, -12);
  // A single value still spans one decade, so the axis is never degenerate.
  const LogRange single = ComputeLogRange({5e-4});
  EXPECT_EQ(single.hi_exp - single.lo_exp, 1);
  // Non-finite values are ignored.
  const LogRange nan = ComputeLogRange({std::nan(""), 2e-3, INFINITY});
  EXPECT_EQ(nan.lo_exp, -3);
  EXPECT_EQ(nan.hi_exp, -2);
}

TEST(LogAxis, TicksAtPowersOfTenWithMinorsForShortRanges) {
  const std::vector<AxisTick> t = LogTicks(LogRange{-3, -1});
  int majors = 0, minors = 0;
  for (size_t i = 0; i < t.size(); ++i) {
    if (i > 0) {
      EXPECT_LT(t[i - 1].value, t[i].value) << "ticks ordered by value";
    }
    EXPECT_GE(t[i].value, 1e-3 * (1 - 1e-12));
    EXPECT_LE(t[i].value, 1e-1 * (1 + 1e-12));
    if (t[i].major) {
      ++majors;
      EXPECT_FALSE(t[i].label.empty()) << "major ticks are labelled";
    } else {
      ++minors;
      EXPECT_TRUE(t[i].label.empty());
    }
  }
  EXPECT_EQ(majors, 3) << "1e-3, 1e-2, 1e-1";
  EXPECT_EQ(minors, 16) << "2..9 in each of the two decades";
  EXPECT_EQ(t.front().label, "1e-3");
}

TEST(LogAxis, LongRangesThinOutMajorsAndDropMinors) {
  const std::vector<AxisTick> t = LogTicks(LogRange{-16, 0}, 6);
  int majors = 0;
  for (const AxisTick& tick : t) {
    EXPECT_TRUE(tick.major) << "no minor ticks over 16 decades";
    const double e = std::log10(tick.value);
    EXPECT_NEAR(e, std::round(e), 1e-9) << "majors at powers of ten";
    ++majors;
  }
  EXPECT_LE(majors, 6) << "at most max_major labels";
  EXPECT_GE(majors, 3) << "still enough labels to read the axis";
}

TEST(LogAxis, MajorsOfVeryLongRangesAreRoundExponents) {
  // The objective's gap can reach 1e-308: labels at 1, 2, 3 or 5 × 10^k decades, never 1e-101.
  for (const LogRange r : {LogRange{-308, 0}, LogRange{-303, 1}, LogRange{-101, 0},
                           LogRange{-17, 2}, LogRange{-40, -3}, LogRange{-4, 4},
                           LogRange{-7, -1}}) {
    for (int max_major : {3, 4, 5, 6}) {
      const std::vector<AxisTick> t = LogTicks(r, max_major);
      std::vector<int> exps;
      for (const AxisTick& tick : t) {
        if (!tick.major) continue;
        EXPECT_NE(tick.label, "1e-101");
        exps.push_back(static_cast<int>(std::lround(std::log10(tick.value))));
      }
      ASSERT_GE(exps.size(), 2u) << "[" << r.lo_exp << ", " << r.hi_exp << "] " << max_major;
      EXPECT_LE(static_cast<int>(exps.size()), max_major);
      // Consecutive majors one stride of the 1-2-5 series apart, at multiples of it.
      if (exps.size() >= 2) {
        const int stride = exps[1] - exps[0];
        bool nice = false;
        for (int s : {1, 2, 3, 5, 10, 20, 30, 50, 100, 200, 300, 500}) nice |= stride == s;
        EXPECT_TRUE(nice) << "stride " << stride;
        for (size_t i = 0; i < exps.size(); ++i) {
          EXPECT_EQ(exps[i] % stride, 0);
          if (i > 0) {
            EXPECT_EQ(exps[i] - exps[i - 1], stride);
          }
        }
      }
    }
  }
  const std::vector<AxisTick> t = LogTicks(LogRange{-303, 1}, 5);
  std::vector<std::string> labels;
  for (const AxisTick& tick : t) labels.push_back(tick.label);
  EXPECT_EQ(labels, (std::vector<std::string>{"1e-300", "1e-200", "1e-100", "1"}));
  // Eight decades (the clutter's spectrum of H): 1e-3, 1, 1e3, not the lone "1" a stride of 5
  // would leave.
  std::vector<std::string> spectrum;
  for (const AxisTick& tick : LogTicks(LogRange{-4, 4}, 5)) spectrum.push_back(tick.label);
  EXPECT_EQ(spectrum, (std::vector<std::string>{"1e-3", "1", "1e3"}));
}

TEST(LogAxis, LabelsReadAsPowersOfTen) {
  EXPECT_EQ(PowerOfTenLabel(0), "1");
  EXPECT_EQ(PowerOfTenLabel(1), "10");
  EXPECT_EQ(PowerOfTenLabel(-6), "1e-6");
  EXPECT_EQ(PowerOfTenLabel(3), "1e3");
}

TEST(PlotScaling, LogToPixelIsLinearInTheExponent) {
  const LogRange r{-6, -2};
  // Bottom (y = 200) is 1e-6, top (y = 0) is 1e-2: each decade is 50 px.
  EXPECT_DOUBLE_EQ(LogToPixel(1e-6, r, 0, 200), 200);
  EXPECT_DOUBLE_EQ(LogToPixel(1e-2, r, 0, 200), 0);
  EXPECT_NEAR(LogToPixel(1e-4, r, 0, 200), 100, 1e-9);
  EXPECT_NEAR(LogToPixel(1e-5, r, 0, 200), 150, 1e-9);
  // Out of range values clamp to the plot edges; non-positive values go to the bottom.
  EXPECT_DOUBLE_EQ(LogToPixel(1.0, r, 0, 200), 0);
  EXPECT_DOUBLE_EQ(LogToPixel(1e-9, r, 0, 200), 200);
  EXPECT_DOUBLE_EQ(LogToPixel(0.0, r, 0, 200), 200);
}

TEST(PlotScaling, LayoutSpreadsIterationsAndDecreasingValuesGoDown) {
  const std::vector<double> em = {1e-1, 1e-3, 1e-5, std::nan(""), 1e-8};
  const PlotRect rect{10, 20, 110, 220};
  const LogPlotLayout l = LayoutLogPlot(em, rect);
  ASSERT_EQ(l.points.size(), 4u) << "the NaN iteration is skipped";
  EXPECT_EQ(l.indices, (std::vector<int>{0, 1, 2, 4}));
  EXPECT_DOUBLE_EQ(l.points.front().first, 10) << "first iteration at the left edge";
  EXPECT_DOUBLE_EQ(l.points.back().first, 110) << "last iteration at the right edge";
  EXPECT_DOUBLE_EQ(l.points[1].first, 35) << "iteration 1 of 0..4 at a quarter";
  for (size_t i = 1; i < l.points.size(); ++i) {
    EXPECT_GT(l.points[i].second, l.points[i - 1].second) << "smaller e_m is lower (y down)";
  }
  for (const auto& p : l.points) {
    EXPECT_GE(p.second, 20);
    EXPECT_LE(p.second, 220);
  }
  // Single value: at the left edge, inside the rectangle.
  const LogPlotLayout one = LayoutLogPlot({1e-4}, rect);
  ASSERT_EQ(one.points.size(), 1u);
  EXPECT_DOUBLE_EQ(one.points[0].first, 10);
}

TEST(Pacing, StepsFollowWallTimeTimesRate) {
  double acc = 0;
  // 1/60 s of wall time at real time with δt = 1/600 s: 10 steps.
  EXPECT_EQ(StepsForFrame(1.0 / 60, 1.0, 1.0 / 600, 1000, &acc), 10);
  EXPECT_NEAR(acc, 0.0, 1e-12);
  // Slow motion 0.1x: one step per frame.
  acc = 0;
  EXPECT_EQ(StepsForFrame(1.0 / 60, 0.1, 1.0 / 600, 1000, &acc), 1);
  // Fractions carry over: 0.4 steps per frame gives 2 steps over 5 frames.
  acc = 0;
  int total = 0;
  for (int f = 0; f < 5; ++f) total += StepsForFrame(0.004, 1.0, 0.01, 1000, &acc);
  EXPECT_EQ(total, 2);
  // A long stall is capped and the backlog dropped.
  acc = 0;
  EXPECT_EQ(StepsForFrame(10.0, 1.0, 1e-3, 100, &acc), 100);
  EXPECT_EQ(acc, 0.0);
  EXPECT_EQ(StepsForFrame(1.0, 0.0, 1e-3, 100, &acc), 0) << "paused rate";
}

TEST(Pacing, RateMeterConvergesToTheRatio) {
  RateMeter m(0.5);
  m.Add(0.5, 1.0);
  EXPECT_DOUBLE_EQ(m.value(), 0.5) << "first sample taken as is";
  for (int i = 0; i < 60; ++i) m.Add(0.25, 1.0);
  EXPECT_NEAR(m.value(), 0.25, 1e-9);
}

TEST(ContactRows, FieldsComeFromContactConstraintAndResult) {
  Model model;
  model.bodies.resize(2);
  model.bodies[0].name = "box";
  model.bodies[1].name = "ball";
  StepRecord r;
  Contact c;
  c.body_a = -1;
  c.body_b = 0;
  c.phi = -2e-4;
  c.friction = 0.5;
  r.contacts.push_back(c);
  c.body_a = 0;
  c.body_b = 1;
  r.contacts.push_back(c);  // second contact has no constraint
  ConstraintData cd;
  cd.first_row = 0;
  cd.friction = 0.5;
  cd.stiffness = 1e5;
  cd.dissipation_time = 0.01;
  cd.phi0 = -2e-4;
  cd.source = 0;
  // w = 4/kg at δt = 10 ms: the β clamp w/(4π²) = 0.101 exceeds 1/(δt k (δt + τ_d)) = 0.05, so
  // R_n = 4/(4π²) is near-rigid; R_t = σ w = 4e-3 (eqs. 29-30).
  cd.w = 4;
  r.problem.time_step = 0.01;
  r.problem.num_rows = 3;
  r.problem.constraints.push_back(cd);
  r.result.gamma = Vec3(0.3, 0.4, 2.0);
  r.result.vc = Vec3(1e-6, 0.0, -3e-5);
  r.result.laws = PrepareSapLaws(r.problem, SapParameters{});
  r.result.regime = {Regime::kStiction};
  const std::vector<ContactRow> rows = BuildContactRows(model, r);
  ASSERT_EQ(rows.size(), 2u) << "one row per contact";
  EXPECT_EQ(rows[0].body_a, "world");
  EXPECT_EQ(rows[0].body_b, "box");
  EXPECT_EQ(rows[0].constraint, 0);
  EXPECT_DOUBLE_EQ(rows[0].gamma_n, 2.0) << "third row of a cone is the normal";
  EXPECT_NEAR(rows[0].gamma_t, 0.5, 1e-15);
  EXPECT_NEAR(rows[0].saturation, 0.5, 1e-15) << "0.5 / (0.5 * 2)";
  EXPECT_DOUBLE_EQ(rows[0].v_n, -3e-5);
  double R_n = 0, R_t = 0, near_rigid = 0;
  ASSERT_TRUE(rows[0].constants.Find("R_n", &R_n));
  ASSERT_TRUE(rows[0].constants.Find("R_t", &R_t));
  ASSERT_TRUE(rows[0].constants.Find("near_rigid", &near_rigid));
  EXPECT_DOUBLE_EQ(R_n, 4 / (4 * kPi * kPi));
  EXPECT_DOUBLE_EQ(R_t, 1e-3 * 4);
  EXPECT_EQ(rows[0].regime, Regime::kStiction);
  EXPECT_EQ(near_rigid, 1.0);
  EXPECT_DOUBLE_EQ(rows[0].stiffness, 1e5);
  EXPECT_EQ(rows[1].constraint, -1);
  EXPECT_EQ(rows[1].body_b, "ball");
  EXPECT_EQ(rows[1].regime, Regime::kNoContact) << "no constraint: no impulse";
  EXPECT_EQ(CountRegimes(rows), (std::vector<int>{1, 0, 1}));
}

// The solver panel (CountRegimes of the record: friction cones, joint limits apart) and the
// contact inspector (CountRegimes of its rows) show the same regime counts at every step of the
// robot dish pile, whose arm and hand have joint-limit rows (kUnilateral) in the problem.
TEST(ContactRows, SolverPanelAndInspectorCountsAgreeOnTheRobotDishPile) {
  Scene scene =
      LoadScene(std::string(CONTACTLAB_SOURCE_DIR) + "/scenes/paper/robot_dish_pile.yaml");
  scene.settings.defer_limits = false;  // every limit side a row, active or not
  Simulator sim(scene.model, scene.settings);
  int limit_rows = 0, stiction = 0;
  for (int i = 0; i < 160; ++i) {
    const StepRecord r = sim.Step();
    const RegimeCounts panel = CountRegimes(r);
    const std::vector<ContactRow> rows = BuildContactRows(scene.model, r);
    const std::vector<int> inspector = CountRegimes(rows);
    for (int k = 0; k < 3; ++k) {
      EXPECT_EQ(panel.contacts[k], inspector[k])
          << "step " << r.step << " regime " << RegimeName(static_cast<Regime>(k));
    }
    EXPECT_EQ(panel.contacts[0] + panel.contacts[1] + panel.contacts[2],
              static_cast<int>(rows.size()))
        << "step " << r.step;
    limit_rows += panel.limits_active + panel.limits_inactive;
    stiction += panel.contacts[0];
  }
  EXPECT_GT(limit_rows, 0) << "the scene exercises joint-limit rows";
  EXPECT_GT(stiction, 0);
}

// One spelling of each regime.
TEST(ContactRows, RegimeNamesAreOneSpelling) {
  EXPECT_STREQ(RegimeName(Regime::kStiction), "stiction");
  EXPECT_STREQ(RegimeName(Regime::kSliding), "sliding");
  EXPECT_STREQ(RegimeName(Regime::kNoContact), "no_contact");
}

TEST(ContactRows, LoadedAtAPositiveGapIsFlagged) {
  // Three contacts at φ0 = +2 mm, +2 mm and −1e-4 m with γ_n = 0.5, 0 and 1: only the first is
  // SAP pushing before the surfaces touch.
  Model model;
  model.bodies.resize(1);
  StepRecord r;
  const double phis[3] = {2e-3, 2e-3, -1e-4};
  for (int i = 0; i < 3; ++i) {
    Contact c;
    c.body_a = -1;
    c.body_b = 0;
    c.phi = phis[i];
    r.contacts.push_back(c);
    ConstraintData cd;
    cd.first_row = 3 * i;
    cd.friction = 0.5;
    cd.phi0 = phis[i];
    cd.source = i;
    r.problem.constraints.push_back(cd);
  }
  r.result.gamma = VecX::Zero(9);
  r.result.gamma(2) = 0.5;
  r.result.gamma(8) = 1.0;
  r.result.regime = {Regime::kStiction, Regime::kNoContact, Regime::kStiction};
  const std::vector<ContactRow> rows = BuildContactRows(model, r);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_TRUE(rows[0].loaded_at_gap);
  EXPECT_FALSE(rows[1].loaded_at_gap) << "a candidate at phi > 0 without impulse";
  EXPECT_FALSE(rows[2].loaded_at_gap) << "loaded while touching";
  EXPECT_EQ(CountLoadedAtGap(rows), 1);
  EXPECT_EQ(CountLoadedAtGap(rows), CountLoadedAtPositiveGap(r)) << "rows and draw agree";
}

TEST(ContactRows, TypicalGeometrySizeIsTheMedianBodyDiameter) {
  Model model;
  EXPECT_DOUBLE_EQ(TypicalGeometrySize(model), 0.1) << "default without geometry";
  Geom ground;
  ground.shape.type = ShapeType::kHalfSpace;
  model.geoms.push_back(ground);
  EXPECT_DOUBLE_EQ(TypicalGeometrySize(model), 0.1) << "half-spaces have no size";
  for (double r : {0.01, 0.05, 2.0}) {
    Geom g;
    g.shape.type = ShapeType::kSphere;
    g.shape.radius = r;
    model.geoms.push_back(g);
  }
  // Diameters 0.02, 0.1 and 4: the median ignores the one large outlier.
  EXPECT_DOUBLE_EQ(TypicalGeometrySize(model), 0.1);
}

TEST(ContactRows, PickNearestChoosesTheClosestPointWithinTheRadius) {
  const std::vector<std::pair<double, double>> pts = {{100, 100}, {110, 100}, {400, 300}};
  EXPECT_EQ(PickNearest(pts, 107, 101, 12), 1) << "closer to the second point";
  EXPECT_EQ(PickNearest(pts, 101, 99, 12), 0);
  EXPECT_EQ(PickNearest(pts, 250, 200, 12), -1) << "nothing within 12 px";
  EXPECT_EQ(PickNearest({}, 0, 0, 12), -1);
}

TEST(ColorMap, EndpointsAndMonotoneWarmth) {
  const Color lo = SaturationColor(0.0), hi = SaturationColor(1.0);
  EXPECT_GT(lo.b, lo.r) << "0 (cone axis) is blue";
  EXPECT_GT(hi.r, hi.b) << "1 (cone surface) is red";
  EXPECT_TRUE(RgbDistance(SaturationColor(-3.0), lo) == 0) << "clamped below";
  EXPECT_TRUE(RgbDistance(SaturationColor(7.0), hi) == 0) << "clamped above";
  EXPECT_TRUE(RgbDistance(SaturationColor(std::nan("")), lo) == 0) << "NaN maps to 0";
  double previous = -1e9;
  for (int i = 0; i <= 100; ++i) {
    const Color c = SaturationColor(i / 100.0);
    const double warmth = c.r - c.b;
    EXPECT_GT(warmth, previous) << "r - b strictly increases at s = " << i / 100.0;
    previous = warmth;
    // The map never imitates a regime colour, so cones and points are not confused.
    EXPECT_GT(RgbDistance(c, kStictionColor), 0.35) << "s = " << i / 100.0;
    EXPECT_GT(RgbDistance(c, kSlidingColor), 0.35) << "s = " << i / 100.0;
    EXPECT_GT(RgbDistance(c, kInactiveColor), 0.3) << "s = " << i / 100.0;
  }
}

TEST(Camera, OrbitKeepsTheDistanceToTheTarget) {
  OrbitCamera cam;
  cam.Set(Vec3(0.3, -0.2, 0.1), 1.7, 30, 20);
  for (int i = 0; i < 20; ++i) {
    cam.Orbit(0.37, 0.11 * (i % 3 - 1));
    EXPECT_NEAR((cam.Eye() - cam.target).norm(), 1.7, 1e-12);
    EXPECT_TRUE(cam.target.isApprox(Vec3(0.3, -0.2, 0.1))) << "orbit does not move the target";
  }
  // Elevation is clamped short of the poles so the view never flips.
  cam.Orbit(0.0, 10.0);
  EXPECT_LT(cam.elevation, 0.5 * kPi);
  EXPECT_GT(cam.Up().z(), 0.0);
}

TEST(Camera, SetUsesDegreesFromTheSceneFile) {
  OrbitCamera cam;
  cam.Set(Vec3::Zero(), 2.0, 90.0, 0.0);
  // Azimuth 90° about +z from +x puts the eye on +y, level with the target.
  EXPECT_TRUE(cam.Eye().isApprox(Vec3(0, 2, 0), 1e-12));
  cam.Set(Vec3::Zero(), 2.0, 0.0, 45.0);
  EXPECT_NEAR(cam.Eye().z(), 2.0 * std::sin(kPi / 4), 1e-12);
}

TEST(Camera, PickRayThroughTheScreenCentreHitsTheTarget) {
  OrbitCamera cam;
  cam.Set(Vec3(1, 2, 0.5), 3.0, 40, 25);
  const Ray ray = cam.PickRay(800, 450, 1600, 900);
  EXPECT_TRUE(ray.origin.isApprox(cam.Eye()));
  EXPECT_NEAR(ray.direction.norm(), 1.0, 1e-12);
  // The target lies on the ray, at the camera distance.
  const Vec3 hit = ray.origin + 3.0 * ray.direction;
  EXPECT_NEAR((hit - cam.target).norm(), 0.0, 1e-12);
  // An off-centre pixel does not.
  const Ray off = cam.PickRay(100, 450, 1600, 900);
  EXPECT_GT((off.origin + 3.0 * off.direction - cam.target).norm(), 0.1);
}

TEST(Camera, ProjectInvertsPickRay) {
  OrbitCamera cam;
  cam.Set(Vec3(0, 0, 0), 2.0, -60, 35);
  const Ray ray = cam.PickRay(321.5, 123.5, 1200, 700);
  double x = 0, y = 0;
  ASSERT_TRUE(cam.Project(ray.origin + 1.3 * ray.direction, 1200, 700, &x, &y));
  EXPECT_NEAR(x, 321.5, 1e-9);
  EXPECT_NEAR(y, 123.5, 1e-9);
  EXPECT_FALSE(cam.Project(cam.Eye() - cam.Forward(), 1200, 700, &x, &y)) << "behind the eye";
}

TEST(Camera, ViewAndProjectionMatricesAgreeWithProject) {
  OrbitCamera cam;
  cam.Set(Vec3(0.2, 0.1, 0), 1.5, 30, 20);
  const Vec3 p(0.4, -0.3, 0.2);
  const Eigen::Vector4f clip = cam.ProjectionMatrix(1600.0 / 900.0) * cam.ViewMatrix() *
                               Eigen::Vector4f(p.x(), p.y(), p.z(), 1);
  const double ndc_x = clip.x() / clip.w(), ndc_y = clip.y() / clip.w();
  double x = 0, y = 0;
  ASSERT_TRUE(cam.Project(p, 1600, 900, &x, &y));
  EXPECT_NEAR(0.5 * (ndc_x + 1) * 1600, x, 1e-2) << "GL matrices match the CPU projection";
  EXPECT_NEAR(0.5 * (1 - ndc_y) * 900, y, 1e-2);
  // The target lies strictly between the near and far planes.
  const Eigen::Vector4f t =
      cam.ProjectionMatrix(1.0) * cam.ViewMatrix() * Eigen::Vector4f(0.2f, 0.1f, 0.0f, 1.0f);
  EXPECT_GT(t.z() / t.w(), -1.0);
  EXPECT_LT(t.z() / t.w(), 1.0);
}

TEST(Camera, PanMovesTargetAndEyeTogetherZoomScalesDistance) {
  OrbitCamera cam;
  cam.Set(Vec3::Zero(), 2.0, 30, 20);
  const Vec3 offset = cam.Eye() - cam.target;
  cam.Pan(120, -40, 900);
  EXPECT_TRUE((cam.Eye() - cam.target).isApprox(offset)) << "pan keeps the view direction";
  EXPECT_GT(cam.target.norm(), 0.0);
  // Dragging right moves the target left on screen: the target moves along −Right.
  EXPECT_LT(cam.target.dot(cam.Right()), 0.0);
  cam.Zoom(0.5);
  EXPECT_DOUBLE_EQ(cam.distance, 1.0);
  cam.Zoom(-1.0);
  EXPECT_DOUBLE_EQ(cam.distance, 1.0) << "invalid factors are ignored";
}

// The solver panel's island line and the order of its tooltip.
TEST(UiData, IslandsLineNamesTheSlowestIsland) {
  SolverStats st;
  EXPECT_EQ(IslandsLine(st), "one problem (no island split)");
  EXPECT_TRUE(SlowestIslands(st, 5).empty());
  auto island = [](int first, int trees, int constraints, int iterations, double ms) {
    IslandSummary s;
    s.first_tree = first;
    s.trees = trees;
    s.constraints = constraints;
    s.iterations = iterations;
    s.solve_ms = ms;
    return s;
  };
  st.islands = {island(0, 3, 7, 4, 0.02), island(3, 20, 57, 12, 0.21), island(23, 1, 1, 1, 0.002),
                island(24, 5, 0, 1, 0.02)};
  EXPECT_EQ(IslandsLine(st),
            "4 islands; slowest: 12 iterations, 20 trees, 57 constraints, 0.210 ms");
  // Singular counts read singular.
  SolverStats one;
  one.islands = {island(0, 1, 1, 1, 0.007), island(1, 1, 1, 1, 0.001)};
  EXPECT_EQ(IslandsLine(one), "2 islands; slowest: 1 iteration, 1 tree, 1 constraint, 0.007 ms");
  // Wrapped only after ", " / "; ": every number stays whole in one segment.
  const std::vector<std::string> seg = WrapSegments(IslandsLine(one));
  EXPECT_EQ(seg, (std::vector<std::string>{"2 islands; ", "slowest: 1 iteration, ", "1 tree, ",
                                           "1 constraint, ", "0.007 ms"}));
  std::string joined;
  for (const std::string& x : seg) joined += x;
  EXPECT_EQ(joined, IslandsLine(one));
  EXPECT_TRUE(WrapSegments("").empty());
  EXPECT_EQ(WrapSegments("1,5 and 2.5"), (std::vector<std::string>{"1,5 and 2.5"}));
  // By wall time, then iterations (islands 0 and 3 tie on time; 0 iterated more).
  EXPECT_EQ(SlowestIslands(st, 3), (std::vector<int>{1, 0, 3}));
  EXPECT_EQ(SlowestIslands(st, 10).size(), 4u);
}

// Patch rows of the inspector on a hand-built record: two patches, the first with three faces
// whose contacts are in stiction, sliding and without a solve, the second with one face whose
// gradient was refused (no contact).
TEST(PatchRows, SumsAndRegimesPerPatch) {
  Model model;
  model.bodies.resize(2);
  model.bodies[0].name = "pad";
  model.bodies[1].name = "finger";
  model.geoms.resize(3);
  model.geoms[0].body = -1;
  model.geoms[1].body = 0;
  model.geoms[2].body = 1;
  StepRecord r;
  auto face = [](double area, double p0, double x) {
    ContactFace f;
    f.polygon = {Vec3(x, 0, 0), Vec3(x + 1, 0, 0), Vec3(x, 1, 0)};
    f.pressure = {p0, 2 * p0, 0};
    f.area = area;
    f.p0 = p0;
    f.centroid = Vec3(x + 0.3, 0.3, 0);
    return f;
  };
  ContactSurface s0;
  s0.geom_a = 0;
  s0.geom_b = 1;
  s0.faces = {face(0.5, 100, 0), face(0.25, 400, 1), face(0.25, 40, 2)};
  ContactSurface s1;
  s1.geom_a = 1;
  s1.geom_b = 2;
  s1.faces = {face(1.0, 7, 0)};
  r.surfaces = {s0, s1};
  // Contacts: faces 0, 1, 2 of patch 0, and a point contact.
  for (int e = 0; e < 3; ++e) {
    Contact c;
    c.surface = 0;
    c.face = e;
    r.contacts.push_back(c);
  }
  r.contacts.push_back(Contact{});
  // Constraints for contacts 0, 1 and 3 (contact 2 has none); results for all three.
  for (int k = 0; k < 3; ++k) {
    ConstraintData cd;
    cd.kind = ConstraintKind::kFrictionCone;
    cd.first_row = 3 * k;
    cd.num_rows = 3;
    cd.source = k == 2 ? 3 : k;
    r.problem.constraints.push_back(cd);
  }
  r.result.gamma = VecX::Zero(9);
  r.result.gamma(2) = 0.5;
  r.result.gamma(5) = 0.25;
  r.result.regime = {Regime::kStiction, Regime::kSliding, Regime::kStiction};

  const std::vector<PatchRow> rows = BuildPatchRows(model, r);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].body_a, "world");
  EXPECT_EQ(rows[0].body_b, "pad");
  EXPECT_EQ(rows[1].body_b, "finger");
  EXPECT_EQ(rows[0].faces, 3);
  EXPECT_DOUBLE_EQ(rows[0].area, 1.0);
  EXPECT_DOUBLE_EQ(rows[0].normal_force, 0.5 * 100 + 0.25 * 400 + 0.25 * 40);
  EXPECT_DOUBLE_EQ(rows[0].max_pressure, 400);
  EXPECT_DOUBLE_EQ(rows[0].mean_pressure, 160.0) << "sum A p0 / sum A";
  EXPECT_EQ(rows[0].regimes[0], 1);
  EXPECT_EQ(rows[0].regimes[1], 1);
  EXPECT_EQ(rows[0].regimes[2], 1) << "a face contact without a constraint";
  EXPECT_EQ(rows[0].skipped, 0);
  EXPECT_EQ(rows[1].faces, 1);
  EXPECT_EQ(rows[1].skipped, 1) << "a face without a contact";
  EXPECT_EQ(rows[1].regimes[0] + rows[1].regimes[1] + rows[1].regimes[2], 0);

  const std::vector<PatchFaceRow> faces = BuildPatchFaceRows(r, 0);
  ASSERT_EQ(faces.size(), 3u);
  EXPECT_EQ(faces[1].contact, 1);
  EXPECT_EQ(faces[1].regime, Regime::kSliding);
  EXPECT_DOUBLE_EQ(faces[1].gamma_n, 0.25);
  EXPECT_DOUBLE_EQ(faces[1].max_vertex_pressure, 800);
  EXPECT_EQ(faces[2].contact, 2);
  EXPECT_EQ(faces[2].regime, Regime::kNoContact);
  EXPECT_TRUE(BuildPatchFaceRows(r, 1)[0].contact < 0);
  EXPECT_TRUE(BuildPatchFaceRows(r, 2).empty());
  EXPECT_TRUE(BuildPatchRows(model, StepRecord{}).empty());
}

}  // namespace
}  // namespace contactlab

namespace contactlab {
namespace {

// The hover tooltip of a contact in the 3D view: the inspector row as lines (φ, γ, regime, μ, k,
// τ_d, the law's constants).
TEST(ContactTooltip, LinesCarryTheRow) {
  ContactRow r;
  r.contact = 12;
  r.constraint = 3;
  r.body_a = "table";
  r.body_b = "bowl_1";
  r.phi = -1.19e-4;
  r.gamma_n = 2.84e-2;
  r.gamma_t = 1.33e-10;
  r.saturation = 0.25;
  r.mu = 0.5;
  r.stiffness = 5e7;
  r.dissipation_time = 4.17e-3;
  r.regime = Regime::kStiction;
  r.law = LawKind::kLinearCone;
  r.constants.Add("R_n", "R_n", "1/kg", 0.504);
  r.constants.Add("near-rigid", "near_rigid", "", 1, true);
  const std::vector<std::string> lines = ContactTooltipLines(r);
  ASSERT_GE(lines.size(), 5u);
  EXPECT_EQ(lines[0], "contact 12: table / bowl_1, stiction");
  EXPECT_NE(lines[1].find("phi -1.19e-04 m"), std::string::npos) << lines[1];
  EXPECT_NE(lines[2].find("gamma_n 2.84e-02 N s"), std::string::npos) << lines[2];
  EXPECT_NE(lines[2].find("0.25"), std::string::npos) << lines[2];
  EXPECT_NE(lines[3].find("mu 0.5"), std::string::npos) << lines[3];
  EXPECT_NE(lines[3].find("k 5.00e+07 N/m"), std::string::npos) << lines[3];
  EXPECT_NE(lines[4].find("R_n 5.04e-01 1/kg"), std::string::npos) << lines[4];
  EXPECT_NE(lines[4].find("near-rigid yes"), std::string::npos) << lines[4];
  EXPECT_EQ(lines[4].rfind(LawName(LawKind::kLinearCone), 0), 0u) << "the law first";
  // A candidate without a constraint: no impulse or model line.
  ContactRow c;
  c.contact = 0;
  c.body_a = "world";
  c.body_b = "ball";
  const std::vector<std::string> cl = ContactTooltipLines(c);
  EXPECT_EQ(cl[0], "contact 0: world / ball, no constraint");
  EXPECT_EQ(cl.size(), 3u);
  r.loaded_at_gap = true;
  EXPECT_EQ(ContactTooltipLines(r).back().rfind("pushing at phi > 0", 0), 0u);
}

// The corner legend lists the glyph types drawn this frame, not those merely switched on.
bool HasRow(const LegendContent& c, const std::string& text) {
  for (const LegendRow& r : c.rows) {
    if (r.text == text) return true;
  }
  return false;
}

TEST(ContactLegend, ListsOnlyTheGlyphsDrawn) {
  const ContactDrawOptions on;  // every default glyph type on
  LegendInfo info;
  info.contacts = &on;
  info.px_per_m = 500;
  // Without the frame's counts: every type that is on (and the scale bar).
  const LegendContent all = ContactLegendContent(info);
  EXPECT_TRUE(HasRow(all, "gamma_n (normal)"));
  EXPECT_TRUE(HasRow(all, "gamma_t (friction)"));
  EXPECT_TRUE(all.cone_bar);
  EXPECT_TRUE(all.scale_bar);
  // A pressure view: the patches stand for the face contacts, no contact glyph was drawn.
  ContactDrawResult none;
  info.drawn = &none;
  const LegendContent pressure = ContactLegendContent(info);
  EXPECT_TRUE(pressure.rows.empty()) << "no arrows, dots or selection listed";
  EXPECT_FALSE(pressure.cone_bar);
  EXPECT_FALSE(pressure.scale_bar) << "no arrows: no scale bar";
  // Dots in stiction and normal arrows only.
  ContactDrawResult some;
  some.dots[0] = 4;
  some.normal_arrows = 4;
  info.drawn = &some;
  const LegendContent c = ContactLegendContent(info);
  EXPECT_TRUE(HasRow(c, "stiction"));
  EXPECT_FALSE(HasRow(c, "sliding"));
  EXPECT_TRUE(HasRow(c, "gamma_n (normal)"));
  EXPECT_FALSE(HasRow(c, "gamma_t (friction)"));
  EXPECT_FALSE(HasRow(c, "pushing at phi > 0"));
  EXPECT_FALSE(HasRow(c, "selection")) << "nothing selected";
  EXPECT_FALSE(c.cone_bar);
  EXPECT_TRUE(c.scale_bar);
  // Drawn but switched off in the options (a stale count) is not listed either.
  ContactDrawOptions no_arrows;
  no_arrows.normal_impulses = no_arrows.friction_impulses = false;
  info.contacts = &no_arrows;
  EXPECT_FALSE(HasRow(ContactLegendContent(info), "gamma_n (normal)"));
  EXPECT_FALSE(ContactLegendContent(info).scale_bar);
  // Hidden candidates are named with their count; summary markers and a selection get rows.
  info.contacts = &on;
  some.summary_markers = 2;
  some.summarized = 30;
  info.hidden_inactive = 7;
  info.contact_selected = true;
  const LegendContent d = ContactLegendContent(info);
  EXPECT_TRUE(HasRow(d, std::string(RegimeName(Regime::kNoContact)) + " (hidden: 7)"));
  EXPECT_TRUE(HasRow(d, "n contacts merged (zoom in)"));
  EXPECT_TRUE(HasRow(d, "selection"));
}

}  // namespace
}  // namespace contactlab
