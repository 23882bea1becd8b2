#include "render/screenshot.h"

#include <epoxy/gl.h>

#include <cstring>

// The only definition of the stb_image_write implementation in the project, with internal
// linkage so it cannot clash with a system libstb that also exports it.
#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>

namespace contactlab {

std::vector<std::uint8_t> ReadPixelsTopDown(int width, int height) {
  std::vector<std::uint8_t> pixels(static_cast<size_t>(width) * height * 4);
  if (pixels.empty()) return pixels;
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
  // GL rows start at the bottom; PNG rows at the top.
  const size_t row = static_cast<size_t>(width) * 4;
  std::vector<std::uint8_t> tmp(row);
  for (int y = 0; y < height / 2; ++y) {
    std::uint8_t* a = pixels.data() + y * row;
    std::uint8_t* b = pixels.data() + (height - 1 - y) * row;
    std::memcpy(tmp.data(), a, row);
    std::memcpy(a, b, row);
    std::memcpy(b, tmp.data(), row);
  }
  // The window is opaque; blending may have left alpha < 1 in the back buffer.
  for (size_t i = 3; i < pixels.size(); i += 4) pixels[i] = 255;
  return pixels;
}

bool WritePng(const std::string& path, int width, int height, const std::vector<std::uint8_t>& rgba,
              std::string* error) {
  if (width <= 0 || height <= 0 || rgba.size() != static_cast<size_t>(width) * height * 4) {
    if (error) *error = "screenshot: bad image size";
    return false;
  }
  if (!stbi_write_png(path.c_str(), width, height, 4, rgba.data(), width * 4)) {
    if (error) *error = "screenshot: cannot write " + path;
    return false;
  }
  return true;
}

bool SaveScreenshot(const std::string& path, int width, int height, std::string* error) {
  return WritePng(path, width, height, ReadPixelsTopDown(width, height), error);
}

}  // namespace contactlab
