// The viewer's parameter widgets come from the parameter tables (ui/param_widgets.h): every
// slider's range, scale and tooltip is the table's, and a typed value never leaves the valid
// range.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "engine/sim/param_tables.h"
#include "engine/sim/simulator.h"
#include "tests/imgui_harness.h"
#include "ui/panels.h"
#include "ui/param_widgets.h"

namespace contactlab {
namespace {

bool Has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(ParamWidgets, EveryWidgetTakesItsRangeScaleAndHelpFromTheTable) {
  int n = 0;
  for (const ParamGroupInfo& g : AllParamGroups()) {
    for (const ParamSpec* s : g.specs) {
      const ParamWidget w = ParamWidgetFor(*s);
      ++n;
      EXPECT_TRUE(Has(w.label, s->key)) << w.label;
      EXPECT_TRUE(Has(w.tooltip, s->help)) << s->key;
      EXPECT_TRUE(Has(w.tooltip, "valid range " + s->RangeText())) << w.tooltip;
      if (s->type == ParamType::kEnum) {
        EXPECT_EQ(w.kind, ParamWidget::Kind::kCombo) << s->key;
        continue;
      }
      if (s->type == ParamType::kBool) {
        EXPECT_EQ(w.kind, ParamWidget::Kind::kCheckbox) << s->key;
        continue;
      }
      EXPECT_EQ(w.log, s->scale == ParamScale::kLog) << s->key;
      EXPECT_EQ(w.lo, s->SliderMin()) << s->key;
      EXPECT_EQ(w.hi, s->SliderMax()) << s->key;
      EXPECT_TRUE(s->Contains(w.lo) && s->Contains(w.hi)) << s->key << ": slider leaves the range";
    }
  }
  EXPECT_GT(n, 25);
  // The disagreement the tables remove: the max-iterations slider stopped at 500 while the
  // solver accepted 10000.
  const ParamWidget it = ParamWidgetFor(SapParameterTable().Find("max_iterations")->spec);
  EXPECT_EQ(it.hi, 10000);
  EXPECT_EQ(it.kind, ParamWidget::Kind::kIntSlider);
}

TEST(ParamWidgets, TypedValuesStayInTheValidRange) {
  // ctrl+click lets a user type any number into a slider.
  const ParamSpec& sigma = SapParameterTable().Find("sigma")->spec;
  EXPECT_EQ(AcceptParamEdit(sigma, 0.5), 0.5);
  EXPECT_EQ(AcceptParamEdit(sigma, 0.0), sigma.SliderMin()) << "(0, 1]: 0 is refused";
  EXPECT_EQ(AcceptParamEdit(sigma, 5.0), 1.0);
  EXPECT_EQ(AcceptParamEdit(sigma, std::numeric_limits<double>::quiet_NaN()), sigma.default_value);
  const ParamSpec& k = MaterialTable().Find("stiffness")->spec;
  EXPECT_EQ(AcceptParamEdit(k, 1e12), 1e12) << "valid beyond the slider: kept";
  EXPECT_EQ(AcceptParamEdit(k, -1), k.SliderMin());
  for (const ParamGroupInfo& g : AllParamGroups()) {
    for (const ParamSpec* s : g.specs) {
      for (double typed : {-1e300, -1.0, 0.0, 0.5, 1.0, 3.0, 1e300}) {
        EXPECT_TRUE(s->Contains(AcceptParamEdit(*s, typed))) << s->key << " " << typed;
      }
    }
  }
}

// A click in the middle of a log slider gives the geometric mean of its ends; of a linear
// slider, the arithmetic mean. (ImGui's own logarithmic slider with the "%.3e" format that the
// panel used before put every value below 10 at the left end: a click in the middle of the
// time-step slider [1e-5, 0.1] s gave about 0.1 s instead of 1e-3 s.)
double ClickMiddle(const ParamSpec& spec, double start) {
  ImGuiHarness ui;
  double value = start;
  ImVec2 lo, hi;
  float frame_width = 0;
  ui.Frame([&] {
    // DrawParam's widget is 170 px narrower than the space left (SetNextItemWidth(-170)); the
    // item rectangle also holds the label to its right.
    frame_width = ImGui::GetContentRegionAvail().x - 170.0f;
    DrawParam(spec, &value);
    lo = ImGui::GetItemRectMin();
    hi = ImGui::GetItemRectMax();
  });
  const float x = lo.x + 0.5f * frame_width, y = 0.5f * (lo.y + hi.y);
  ui.Click([&] { DrawParam(spec, &value); }, x, y);
  return value;
}

TEST(ParamWidgets, LogSlidersAreLogarithmic) {
  const ParamSpec& dt = StepSettingsTable().Find("time_step")->spec;
  // One pixel of a ~200 px slider over 4 decades is 0.02 decades: 0.05 decades of tolerance.
  EXPECT_NEAR(std::log10(ClickMiddle(dt, 0.05)), -3.0, 0.05);
  const ParamSpec& sigma = SapParameterTable().Find("sigma")->spec;  // [1e-6, 1]
  EXPECT_NEAR(std::log10(ClickMiddle(sigma, 0.5)), -3.0, 0.05);
  const ParamSpec& mu = MaterialTable().Find("friction")->spec;  // linear [0, 2]
  EXPECT_NEAR(ClickMiddle(mu, 0.1), 1.0, 0.02);
}

TEST(ParamWidgets, PanelDrawsEveryTableWithoutChangingValues) {
  ImGuiHarness ui;
  StepSettings settings;
  settings.sap.max_iterations = 2000;  // beyond the old slider's 500: shown, not clamped
  std::vector<Material> materials(2);
  materials[1].name = "rubber";
  materials[1].stiffness = 1e12;  // beyond the slider range, inside the valid range
  bool changed = false;
  for (int frame = 0; frame < 3; ++frame) {
    ui.Frame([&] { changed |= DrawParameterPanel(&settings, &materials); });
  }
  EXPECT_FALSE(changed) << "drawing without input changes nothing";
  EXPECT_EQ(settings.sap.max_iterations, 2000);
  EXPECT_EQ(materials[1].stiffness, 1e12);
  EXPECT_NO_THROW(settings.Validate());
}

}  // namespace
}  // namespace contactlab
