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

constexpr Color kStictionColor{0.16f, 0.82f, 0.26f, 1.0f};       // stiction: green
constexpr Color kSlidingColor{1.00f, 0.55f, 0.05f, 1.0f};        // sliding: orange
constexpr Color kInactiveColor{0.58f, 0.58f, 0.60f, 1.0f};       // within margin, no impulse: grey
// Loaded (γ_n > 0) at a positive gap φ > 0, before the surfaces touch: cyan ring and gap segment.
constexpr Color kGapLoadColor{0.00f, 1.00f, 0.85f, 1.0f};
constexpr Color kNormalColor{0.25f, 0.60f, 1.00f, 1.0f};         // contact normal: light blue
constexpr Color kNormalImpulseColor{0.95f, 0.20f, 0.85f, 1.0f};  // γ_n arrow: magenta
constexpr Color kFrictionImpulseColor{1.00f, 0.92f, 0.10f, 1.0f};  // γ_t arrow: yellow

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
// (sliding). Blue -> cyan -> violet -> red: "warmth" r − b increases strictly along the map, and
// none of its colours is close to the regime green, orange or grey. Control points are equally
// spaced.
constexpr std::array<Color, 5> kSaturationMapPoints{{
    {0.05f, 0.25f, 0.95f, 1.0f},
    {0.10f, 0.65f, 0.95f, 1.0f},
    {0.55f, 0.45f, 0.95f, 1.0f},
    {0.90f, 0.25f, 0.65f, 1.0f},
    {0.95f, 0.08f, 0.12f, 1.0f},
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

// Euclidean distance in RGB (alpha ignored), for tests and pixel checks.
inline double RgbDistance(const Color& a, const Color& b) {
  const double dr = a.r - b.r, dg = a.g - b.g, db = a.b - b.b;
  return std::sqrt(dr * dr + dg * dg + db * db);
}

}  // namespace contactlab
