// Counts pixels of given colours in rectangles of a screenshot, so that each viewer test states
// what it expects to see where.
//
// usage: check_pixels FILE.png --size W H [--region X0 Y0 X1 Y1] CHECK... [--region ...] ...
//   --size W H             the image must be W x H pixels
//   --region X0 Y0 X1 Y1   rectangle [X0, X1) x [Y0, Y1), y down, for the checks after it
//                          (default: the whole image)
//   --at-least N COLOR TOL at least N pixels of the region within TOL of COLOR
//   --at-most N COLOR TOL  at most N such pixels
// COLOR is R,G,B (0..255) or a ramp R,G,B:R,G,B (every colour on the straight segment between
// the two). TOL is the largest allowed per-channel difference (max over R, G, B).
// Prints one line per check with its count; exits 0 when every check holds, 1 when one fails,
// 2 on bad arguments or an unreadable image.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#include <stb/stb_image.h>

namespace {

struct Rgb {
  double r = 0, g = 0, b = 0;
};

struct ColorSpec {
  Rgb a, b;          // a ramp from a to b (a == b for a single colour)
  std::string text;  // as given
};

bool ParseRgb(const std::string& s, Rgb* out) {
  int r = 0, g = 0, b = 0;
  char tail = 0;
  if (std::sscanf(s.c_str(), "%d,%d,%d%c", &r, &g, &b, &tail) != 3) return false;
  if (r < 0 || r > 255 || g < 0 || g > 255 || b < 0 || b > 255) return false;
  *out = Rgb{double(r), double(g), double(b)};
  return true;
}

bool ParseColor(const std::string& s, ColorSpec* out) {
  out->text = s;
  const size_t colon = s.find(':');
  if (colon == std::string::npos) {
    if (!ParseRgb(s, &out->a)) return false;
    out->b = out->a;
    return true;
  }
  return ParseRgb(s.substr(0, colon), &out->a) && ParseRgb(s.substr(colon + 1), &out->b);
}

// Whether pixel p is within `tol` (max-norm) of the segment [a, b] (a point when a == b). The
// max-norm distance is convex along the segment, so a ternary search on t finds its minimum.
bool Matches(const unsigned char* p, const ColorSpec& c, double tol) {
  auto at = [&](double t) {
    const double r = c.a.r + (c.b.r - c.a.r) * t, g = c.a.g + (c.b.g - c.a.g) * t,
                 b = c.a.b + (c.b.b - c.a.b) * t;
    return std::max({std::abs(p[0] - r), std::abs(p[1] - g), std::abs(p[2] - b)});
  };
  // The distance is at least the distance to the ramp's bounding box; most pixels stop here.
  auto box = [](double v, double a, double b) {
    return std::max({0.0, std::min(a, b) - v, v - std::max(a, b)});
  };
  if (std::max({box(p[0], c.a.r, c.b.r), box(p[1], c.a.g, c.b.g), box(p[2], c.a.b, c.b.b)}) >
      tol) {
    return false;
  }
  if (c.a.r == c.b.r && c.a.g == c.b.g && c.a.b == c.b.b) return at(0) <= tol;
  double lo = 0, hi = 1;
  for (int i = 0; i < 60; ++i) {
    const double m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3;
    if (at(m1) <= at(m2)) {
      hi = m2;
    } else {
      lo = m1;
    }
  }
  return std::min({at(0.5 * (lo + hi)), at(0), at(1)}) <= tol;
}

bool ParseInt(const char* s, long* out) {
  char* end = nullptr;
  const long v = std::strtol(s, &end, 10);
  if (end == s || *end != 0) return false;
  *out = v;
  return true;
}

int Usage(const char* argv0, const std::string& why) {
  std::fprintf(stderr,
               "%s\nusage: %s FILE.png --size W H [--region X0 Y0 X1 Y1] "
               "[--at-least N R,G,B[:R,G,B] TOL] [--at-most N R,G,B[:R,G,B] TOL] ...\n",
               why.c_str(), argv0);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return Usage(argv[0], "no image given");
  int w = 0, h = 0, channels = 0;
  unsigned char* data = stbi_load(argv[1], &w, &h, &channels, 3);
  if (!data) {
    std::fprintf(stderr, "cannot read %s: %s\n", argv[1], stbi_failure_reason());
    return 2;
  }
  long x0 = 0, y0 = 0, x1 = w, y1 = h;
  int failures = 0, checks = 0;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--size") {
      long want_w = 0, want_h = 0;
      if (i + 2 >= argc || !ParseInt(argv[i + 1], &want_w) || !ParseInt(argv[i + 2], &want_h)) {
        return Usage(argv[0], "--size needs W H");
      }
      i += 2;
      if (w != want_w || h != want_h) {
        std::fprintf(stderr, "FAIL: image is %dx%d, expected %ldx%ld\n", w, h, want_w, want_h);
        ++failures;
      }
    } else if (a == "--region") {
      long v[4];
      for (int k = 0; k < 4; ++k) {
        if (i + 1 + k >= argc || !ParseInt(argv[i + 1 + k], &v[k])) {
          return Usage(argv[0], "--region needs X0 Y0 X1 Y1");
        }
      }
      i += 4;
      x0 = std::max(0L, v[0]);
      y0 = std::max(0L, v[1]);
      x1 = std::min<long>(w, v[2]);
      y1 = std::min<long>(h, v[3]);
      if (x1 <= x0 || y1 <= y0) {
        std::fprintf(stderr, "FAIL: region %ld %ld %ld %ld is empty in a %dx%d image\n", v[0],
                     v[1], v[2], v[3], w, h);
        ++failures;
      }
    } else if (a == "--at-least" || a == "--at-most") {
      long n = 0, tol = 0;
      ColorSpec color;
      if (i + 3 >= argc || !ParseInt(argv[i + 1], &n) || !ParseColor(argv[i + 2], &color) ||
          !ParseInt(argv[i + 3], &tol)) {
        return Usage(argv[0], a + " needs N R,G,B[:R,G,B] TOL");
      }
      i += 3;
      ++checks;
      long count = 0;
      for (long y = y0; y < y1; ++y) {
        for (long x = x0; x < x1; ++x) {
          const unsigned char* p = data + 3 * (static_cast<size_t>(y) * w + x);
          if (Matches(p, color, static_cast<double>(tol))) ++count;
        }
      }
      const bool ok = a == "--at-least" ? count >= n : count <= n;
      std::printf("%s: region [%ld, %ld) x [%ld, %ld): %ld pixels within %ld of %s, want %s %ld\n",
                  ok ? "ok" : "FAIL", x0, x1, y0, y1, count, tol, color.text.c_str(),
                  a == "--at-least" ? ">=" : "<=", n);
      if (!ok) ++failures;
    } else {
      return Usage(argv[0], "unknown argument " + a);
    }
  }
  stbi_image_free(data);
  if (checks == 0) return Usage(argv[0], "no check given");
  return failures == 0 ? 0 : 1;
}
