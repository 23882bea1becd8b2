// Reads the current framebuffer and writes it as a PNG.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace contactlab {

// Reads width x height RGBA pixels of the bound read framebuffer (call before swapping
// buffers), top row first.
std::vector<std::uint8_t> ReadPixelsTopDown(int width, int height);

// Writes RGBA pixels (top row first) to `path` as PNG. Returns false with `error` on failure.
bool WritePng(const std::string& path, int width, int height, const std::vector<std::uint8_t>& rgba,
              std::string* error);

// ReadPixelsTopDown + WritePng.
bool SaveScreenshot(const std::string& path, int width, int height, std::string* error);

}  // namespace contactlab
