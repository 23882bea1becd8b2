// Checks a viewer screenshot: inside a pixel rectangle (the 3D viewport) it counts pixels close
// to the stiction colour of the contact points and to the friction-cone colour map, and fails
// when either count is below its minimum.
//
// usage: check_screenshot FILE.png WIDTH HEIGHT X0 Y0 X1 Y1 MIN_STICTION MIN_CONE
//   WIDTH x HEIGHT is the expected image size; the rectangle is [X0, X1) x [Y0, Y1), y down.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#include <stb/stb_image.h>

#include "engine/inspect/colormap.h"

namespace {

// Colour distance in 0..255 units per channel (max over channels).
int ChannelDistance(const unsigned char* p, const contactlab::Color& c) {
  const int r = static_cast<int>(c.r * 255.0f + 0.5f);
  const int g = static_cast<int>(c.g * 255.0f + 0.5f);
  const int b = static_cast<int>(c.b * 255.0f + 0.5f);
  return std::max({std::abs(p[0] - r), std::abs(p[1] - g), std::abs(p[2] - b)});
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 10) {
    std::fprintf(stderr, "usage: %s FILE.png WIDTH HEIGHT X0 Y0 X1 Y1 MIN_STICTION MIN_CONE\n",
                 argv[0]);
    return 2;
  }
  int args[8];
  for (int i = 0; i < 8; ++i) args[i] = std::atoi(argv[i + 2]);
  const int want_w = args[0], want_h = args[1];
  int w = 0, h = 0, channels = 0;
  unsigned char* data = stbi_load(argv[1], &w, &h, &channels, 3);
  if (!data) {
    std::fprintf(stderr, "cannot read %s: %s\n", argv[1], stbi_failure_reason());
    return 1;
  }
  int failures = 0;
  if (w != want_w || h != want_h) {
    std::fprintf(stderr, "image is %dx%d, expected %dx%d\n", w, h, want_w, want_h);
    ++failures;
  }
  const int x0 = std::max(0, args[2]), y0 = std::max(0, args[3]);
  const int x1 = std::min(w, args[4]), y1 = std::min(h, args[5]);
  // Samples of the cone colour map; rims are drawn opaque in these exact colours.
  std::vector<contactlab::Color> cone_colors;
  for (int i = 0; i <= 64; ++i) cone_colors.push_back(contactlab::SaturationColor(i / 64.0));
  long stiction = 0, cone = 0, total = 0;
  for (int y = y0; y < y1; ++y) {
    for (int x = x0; x < x1; ++x) {
      const unsigned char* p = data + 3 * (static_cast<size_t>(y) * w + x);
      ++total;
      if (ChannelDistance(p, contactlab::kStictionColor) <= 10) ++stiction;
      for (const contactlab::Color& c : cone_colors) {
        if (ChannelDistance(p, c) <= 10) {
          ++cone;
          break;
        }
      }
    }
  }
  stbi_image_free(data);
  std::printf("%s: %ld pixels checked, %ld stiction-green, %ld cone-coloured\n", argv[1], total,
              stiction, cone);
  if (stiction < args[6]) {
    std::fprintf(stderr, "too few stiction-green pixels: %ld < %d\n", stiction, args[6]);
    ++failures;
  }
  if (cone < args[7]) {
    std::fprintf(stderr, "too few cone-coloured pixels: %ld < %d\n", cone, args[7]);
    ++failures;
  }
  return failures == 0 ? 0 : 1;
}
