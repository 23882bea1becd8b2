// Colours shared by the debug-draw glyphs, the renderer and the UI legend. Pure functions of
// their inputs, no state: the same value always gives the same colour, so a legend drawn by the
// UI matches the glyphs drawn by render/.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>

namespace contactlab {

// Linear RGBA in [0, 1].
struct Color {
  float r = 1, g = 1, b = 1, a = 1;
};

// One colour language for the 3D view: the regime colours, the cone saturation map, the
// normal and friction arrows, the selection and the body axes never share a hue (every pair of
// the colours below is at least 25 apart in CIE76 ΔE, and every colour of the saturation map
// at least 25 from each of them; tests/test_debug_draw.cc checks it). The body axes keep the
// conventional x red, y green, z blue, so the regimes use jade and orange, the normal impulse a
// sky blue and the cone map violet to magenta.
constexpr Color kStictionColor{0.15f, 0.80f, 0.50f, 1.0f};       // stiction: jade
constexpr Color kSlidingColor{1.00f, 0.55f, 0.05f, 1.0f};        // sliding: orange
constexpr Color kInactiveColor{0.55f, 0.55f, 0.58f, 1.0f};       // within margin, no impulse: grey
// Loaded (γ_n > 0) at a positive gap φ > 0, before the surfaces touch: cyan ring and gap segment.
constexpr Color kGapLoadColor{0.00f, 0.95f, 1.00f, 1.0f};
constexpr Color kNormalColor{0.80f, 0.82f, 1.00f, 1.0f};         // unit contact normal: pale lilac
constexpr Color kNormalImpulseColor{0.25f, 0.55f, 1.00f, 1.0f};  // γ_n arrow: sky blue
constexpr Color kFrictionImpulseColor{1.00f, 0.92f, 0.10f, 1.0f};  // γ_t arrow: yellow
constexpr Color kSelectionColor{1.00f, 1.00f, 1.00f, 1.0f};      // selected contact / body: white
// Body axes of the selected body.
constexpr Color kAxisXColor{0.95f, 0.20f, 0.20f, 1.0f};
constexpr Color kAxisYColor{0.35f, 0.95f, 0.25f, 1.0f};
constexpr Color kAxisZColor{0.15f, 0.25f, 0.95f, 1.0f};

inline Color WithAlpha(Color c, float alpha) {
  c.a = alpha;
  return c;
}

inline Color Lerp(const Color& a, const Color& b, float t) {
  return Color{a.r + (b.r - a.r) * t, a.g + (b.g - a.g) * t, a.b + (b.b - a.b) * t,
               a.a + (b.a - a.a) * t};
}

// Friction-cone saturation map on the fixed range [0, 1] (values outside are clamped, NaN maps
// to 0): 0 = impulse on the cone axis (deep in stiction), 1 = impulse on the cone surface
// (sliding). Violet -> purple -> magenta: "warmth" r − b increases strictly along the map, and
// none of its colours is close to the regime, arrow, selection or axis colours (a saturated cone
// is magenta, not the red of a red body or of the x axis). Control points are equally spaced.
constexpr std::array<Color, 5> kSaturationMapPoints{{
    {0.58f, 0.42f, 1.00f, 1.0f},
    {0.69f, 0.38f, 0.97f, 1.0f},
    {0.80f, 0.35f, 0.95f, 1.0f},
    {0.90f, 0.31f, 0.85f, 1.0f},
    {1.00f, 0.28f, 0.75f, 1.0f},
}};

// Colour at t of a map of N equally spaced control points (t clamped to [0, 1], NaN maps to 0).
template <std::size_t N>
inline Color SampleColorMap(const std::array<Color, N>& pts, double t) {
  static_assert(N >= 2, "a colour map needs two control points");
  if (!(t > 0)) t = 0;  // also catches NaN
  if (t > 1) t = 1;
  const double x = t * (N - 1);
  const std::size_t i = std::min<std::size_t>(static_cast<std::size_t>(x), N - 2);
  return Lerp(pts[i], pts[i + 1], static_cast<float>(x - i));
}

inline Color SaturationColor(double s) { return SampleColorMap(kSaturationMapPoints, s); }

// Pressure maps of pressure-field contact surfaces, on t in [0, 1] (the caller maps its pressure
// range onto it; outside values are clamped, NaN maps to 0). Control points are equally spaced.
//   kLime (the default): one hue (olive -> lime, HSV hue 74-80 degrees) with luminance rising
//     strictly from 0.16 to 0.92. Every colour of it is at least 0.3 (RGB distance) from the
//     regime, gap-load, normal and impulse colours and from every colour of the saturation map
//     (which sweeps blue -> violet -> red), and 0.2 from the viewport's background.
//   kViridis: matplotlib's viridis (5 samples); perceptually uniform, but it shares green and
//     yellow with the stiction colour and the friction arrows.
enum class PressureColorMap : int { kLime = 0, kViridis = 1 };
constexpr int kNumPressureColorMaps = 2;
inline const char* PressureColorMapName(PressureColorMap m) {
  return m == PressureColorMap::kViridis ? "viridis" : "lime";
}

constexpr std::array<Color, 5> kLimeMapPoints{{
    {0.17f, 0.22f, 0.03f, 1.0f},
    {0.32f, 0.42f, 0.04f, 1.0f},
    {0.50f, 0.64f, 0.07f, 1.0f},
    {0.68f, 0.84f, 0.18f, 1.0f},
    {0.87f, 0.98f, 0.52f, 1.0f},
}};
constexpr std::array<Color, 5> kViridisMapPoints{{
    {0.267f, 0.005f, 0.329f, 1.0f},
    {0.230f, 0.322f, 0.546f, 1.0f},
    {0.128f, 0.567f, 0.551f, 1.0f},
    {0.369f, 0.789f, 0.383f, 1.0f},
    {0.993f, 0.906f, 0.144f, 1.0f},
}};

inline Color PressureMapColor(PressureColorMap map, double t) {
  return SampleColorMap(map == PressureColorMap::kViridis ? kViridisMapPoints : kLimeMapPoints,
                        t);
}

// Rec. 709 relative luminance of the RGB part.
inline double Luminance(const Color& c) { return 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b; }

// CIE L*a*b* (D65) of the RGB part read as sRGB, and the CIE76 colour difference ΔE (the
// Euclidean distance in Lab; about 2.3 is just noticeable, 25 and more reads as another colour).
inline std::array<double, 3> ToLab(const Color& c) {
  auto lin = [](double v) {
    v = std::clamp(v, 0.0, 1.0);
    return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
  };
  const double r = lin(c.r), g = lin(c.g), b = lin(c.b);
  const double x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
  const double y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  const double z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
  auto f = [](double t) { return t > 0.008856 ? std::cbrt(t) : 7.787 * t + 16.0 / 116.0; };
  const double fx = f(x), fy = f(y), fz = f(z);
  return {116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)};
}
inline double DeltaE76(const Color& a, const Color& b) {
  const auto la = ToLab(a), lb = ToLab(b);
  return std::sqrt((la[0] - lb[0]) * (la[0] - lb[0]) + (la[1] - lb[1]) * (la[1] - lb[1]) +
                   (la[2] - lb[2]) * (la[2] - lb[2]));
}

// Euclidean distance in RGB (alpha ignored), for tests and pixel checks.
inline double RgbDistance(const Color& a, const Color& b) {
  const double dr = a.r - b.r, dg = a.g - b.g, db = a.b - b.b;
  return std::sqrt(dr * dr + dg * dg + db * db);
}

}  // namespace contactlab
