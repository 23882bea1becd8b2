#include "app/plot_png.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

// The encoder's functions are static to this file, so another library of the program may
// include its own copy.
#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_easy_font.h>
#include <stb/stb_image_write.h>

namespace contactlab {
namespace {

class Canvas {
 public:
  Canvas(int w, int h) : w_(w), h_(h), rgb_(static_cast<size_t>(w) * h * 3, 255) {}
  void Set(int x, int y, std::uint32_t c) {
    if (x < 0 || y < 0 || x >= w_ || y >= h_) return;
    std::uint8_t* p = &rgb_[(static_cast<size_t>(y) * w_ + x) * 3];
    p[0] = (c >> 16) & 0xff;
    p[1] = (c >> 8) & 0xff;
    p[2] = c & 0xff;
  }
  void FillRect(int x0, int y0, int x1, int y1, std::uint32_t c) {
    for (int y = std::max(0, y0); y < std::min(h_, y1); ++y)
      for (int x = std::max(0, x0); x < std::min(w_, x1); ++x) Set(x, y, c);
  }
  // Line of the given width in pixels; `dash` > 0 draws `dash` pixels on, `dash` off.
  void Line(double x0, double y0, double x1, double y1, std::uint32_t c, int width, int dash) {
    const double len = std::hypot(x1 - x0, y1 - y0);
    const int n = std::max(1, static_cast<int>(std::ceil(len)));
    for (int i = 0; i <= n; ++i) {
      if (dash > 0 && (i / dash) % 2 == 1) continue;
      const double s = static_cast<double>(i) / n;
      const int x = static_cast<int>(std::lround(x0 + s * (x1 - x0)));
      const int y = static_cast<int>(std::lround(y0 + s * (y1 - y0)));
      const int lo = -(width - 1) / 2, hi = width / 2;
      for (int dy = lo; dy <= hi; ++dy)
        for (int dx = lo; dx <= hi; ++dx) Set(x + dx, y + dy, c);
    }
  }
  // Text with its top-left corner at (x, y), scaled by an integer factor.
  void Text(int x, int y, const std::string& text, std::uint32_t c, int scale) {
    std::vector<char> buf(text.size() * 270 + 64);
    std::string copy = text;
    unsigned char color[4] = {0, 0, 0, 255};
    const int quads =
        stb_easy_font_print(0, 0, copy.data(), color, buf.data(), static_cast<int>(buf.size()));
    const float* v = reinterpret_cast<const float*>(buf.data());
    for (int q = 0; q < quads; ++q) {
      // 4 vertices of 16 bytes (x, y, z, rgba) per axis-aligned quad.
      const float* a = v + q * 16;
      const float* b = v + q * 16 + 8;
      const int qx0 = static_cast<int>(std::lround(std::min(a[0], b[0]) * scale));
      const int qy0 = static_cast<int>(std::lround(std::min(a[1], b[1]) * scale));
      const int qx1 = static_cast<int>(std::lround(std::max(a[0], b[0]) * scale));
      const int qy1 = static_cast<int>(std::lround(std::max(a[1], b[1]) * scale));
      FillRect(x + qx0, y + qy0, x + qx1, y + qy1, c);
    }
  }
  static int TextWidth(const std::string& text, int scale) {
    std::string copy = text;
    return stb_easy_font_width(copy.data()) * scale;
  }
  // Text rotated 90° counter-clockwise (reads bottom to top), centred on (cx, cy).
  void TextVertical(int cx, int cy, const std::string& text, std::uint32_t c, int scale) {
    const int tw = TextWidth(text, scale), th = 8 * scale;
    Canvas tmp(tw + 2, th + 2);
    tmp.Text(1, 1, text, 0x000000, scale);
    for (int y = 0; y < tmp.h_; ++y)
      for (int x = 0; x < tmp.w_; ++x)
        if (tmp.rgb_[(static_cast<size_t>(y) * tmp.w_ + x) * 3] == 0)
          Set(cx - th / 2 + y, cy + tw / 2 - x, c);
  }
  const std::vector<std::uint8_t>& rgb() const { return rgb_; }

 private:
  int w_, h_;
  std::vector<std::uint8_t> rgb_;
};

std::string FormatTick(double v, bool log_axis) {
  char buf[32];
  if (v == 0) return "0";
  const double a = std::abs(v);
  if (log_axis || a >= 1e4 || a < 1e-3) {
    const int e = static_cast<int>(std::lround(std::log10(a)));
    if (std::abs(a - std::pow(10.0, e)) < 1e-9 * a) {
      std::snprintf(buf, sizeof(buf), "%s1e%d", v < 0 ? "-" : "", e);
    } else {
      std::snprintf(buf, sizeof(buf), "%.2g", v);
    }
  } else {
    std::snprintf(buf, sizeof(buf), "%.4g", v);
  }
  return buf;
}

// Ticks for [lo, hi] in axis coordinates (log10 of the value on log axes).
std::vector<double> Ticks(double lo, double hi, bool log_axis) {
  std::vector<double> t;
  if (log_axis) {
    const int a = static_cast<int>(std::ceil(lo - 1e-9)),
              b = static_cast<int>(std::floor(hi + 1e-9));
    const int step = std::max(1, (b - a + 1) / 8 + ((b - a + 1) % 8 ? 1 : 0));
    for (int e = a; e <= b; e += step) t.push_back(e);
    return t;
  }
  const double span = hi - lo;
  const double raw = span / 6;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  }
  for (double v = std::ceil(lo / step - 1e-9) * step; v <= hi + 1e-9 * span; v += step)
    t.push_back(std::abs(v) < 1e-12 * span ? 0.0 : v);
  return t;
}

}  // namespace

std::vector<std::uint8_t> RenderPlot(const PlotOptions& o, const std::vector<PlotSeries>& series) {
  Canvas cv(o.width, o.height);
  const int left = 78, right = 18, top = 34, bottom = 52;
  const int px0 = left, px1 = o.width - right, py0 = top, py1 = o.height - bottom;
  auto tx = [&](double v) { return o.log_x ? std::log10(v) : v; };
  auto ty = [&](double v) { return o.log_y ? std::log10(v) : v; };
  auto ok = [&](double x, double y) {
    return std::isfinite(x) && std::isfinite(y) && (!o.log_x || x > 0) && (!o.log_y || y > 0);
  };
  double xlo = std::numeric_limits<double>::infinity(), xhi = -xlo, ylo = xlo, yhi = -xlo;
  for (const PlotSeries& s : series) {
    for (size_t i = 0; i < std::min(s.x.size(), s.y.size()); ++i) {
      if (!ok(s.x[i], s.y[i])) continue;
      xlo = std::min(xlo, tx(s.x[i]));
      xhi = std::max(xhi, tx(s.x[i]));
      ylo = std::min(ylo, ty(s.y[i]));
      yhi = std::max(yhi, ty(s.y[i]));
    }
  }
  if (!std::isfinite(xlo)) xlo = 0, xhi = 1, ylo = 0, yhi = 1;
  auto pad = [](double* lo, double* hi, bool log_axis) {
    if (*hi - *lo < 1e-12 * std::max(1.0, std::abs(*hi))) {
      const double d = log_axis ? 0.5 : std::max(1e-12, 0.1 * std::abs(*hi) + 1e-12);
      *lo -= d;
      *hi += d;
    } else {
      const double d = 0.05 * (*hi - *lo);
      *lo -= d;
      *hi += d;
    }
  };
  pad(&xlo, &xhi, o.log_x);
  pad(&ylo, &yhi, o.log_y);
  auto sx = [&](double a) { return px0 + (a - xlo) / (xhi - xlo) * (px1 - px0); };
  auto sy = [&](double a) { return py1 - (a - ylo) / (yhi - ylo) * (py1 - py0); };

  // Grid, ticks and labels.
  const std::uint32_t grid = 0xe4e4e4, axis = 0x202020;
  for (double t : Ticks(xlo, xhi, o.log_x)) {
    const double x = sx(t);
    cv.Line(x, py0, x, py1, grid, 1, 0);
    const std::string s = FormatTick(o.log_x ? std::pow(10.0, t) : t, o.log_x);
    cv.Text(static_cast<int>(x) - Canvas::TextWidth(s, 1) / 2, py1 + 6, s, axis, 1);
  }
  for (double t : Ticks(ylo, yhi, o.log_y)) {
    const double y = sy(t);
    cv.Line(px0, y, px1, y, grid, 1, 0);
    const std::string s = FormatTick(o.log_y ? std::pow(10.0, t) : t, o.log_y);
    cv.Text(px0 - 6 - Canvas::TextWidth(s, 1), static_cast<int>(y) - 4, s, axis, 1);
  }
  cv.Line(px0, py1, px1, py1, axis, 1, 0);
  cv.Line(px0, py0, px0, py1, axis, 1, 0);
  cv.Line(px1, py0, px1, py1, axis, 1, 0);
  cv.Line(px0, py0, px1, py0, axis, 1, 0);
  cv.Text((o.width - Canvas::TextWidth(o.title, 2)) / 2, 8, o.title, axis, 2);
  cv.Text((px0 + px1 - Canvas::TextWidth(o.x_label, 1)) / 2, o.height - 22, o.x_label, axis, 1);
  cv.TextVertical(14, (py0 + py1) / 2, o.y_label, axis, 1);

  // Data.
  for (const PlotSeries& s : series) {
    bool have_prev = false;
    double ax = 0, ay = 0;
    for (size_t i = 0; i < std::min(s.x.size(), s.y.size()); ++i) {
      if (!ok(s.x[i], s.y[i])) {
        have_prev = false;
        continue;
      }
      const double x = sx(tx(s.x[i])), y = sy(ty(s.y[i]));
      if (s.line && have_prev) cv.Line(ax, ay, x, y, s.color, 2, s.dashed ? 6 : 0);
      if (s.markers) {
        const int cx = static_cast<int>(std::lround(x)), cy = static_cast<int>(std::lround(y));
        cv.FillRect(cx - 3, cy - 3, cx + 4, cy + 4, s.color);
      }
      ax = x;
      ay = y;
      have_prev = true;
    }
  }
  // Legend, top right inside the frame.
  int ly = py0 + 8;
  for (const PlotSeries& s : series) {
    if (s.label.empty()) continue;
    const int w = Canvas::TextWidth(s.label, 1);
    const int lx = px1 - w - 34;
    cv.FillRect(lx - 4, ly - 3, px1 - 4, ly + 11, 0xffffff);
    cv.Line(lx, ly + 4, lx + 22, ly + 4, s.color, 2, s.dashed ? 6 : 0);
    cv.Text(lx + 26, ly, s.label, axis, 1);
    ly += 14;
  }
  return cv.rgb();
}

bool WritePlotPng(const std::string& path, const PlotOptions& options,
                  const std::vector<PlotSeries>& series, std::string* error) {
  const std::vector<std::uint8_t> rgb = RenderPlot(options, series);
  if (!stbi_write_png(path.c_str(), options.width, options.height, 3, rgb.data(),
                      options.width * 3)) {
    if (error) *error = "cannot write PNG '" + path + "'";
    return false;
  }
  return true;
}

}  // namespace contactlab
