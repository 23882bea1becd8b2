// A 2D RGBA8 texture for images the panels show (sparsity patterns of H and J): uploaded from
// CPU bytes, sampled with nearest filtering so every matrix cell stays a crisp square. Needs a
// current GL 3.3 context for Upload and the destructor.
#pragma once

#include <cstdint>
#include <vector>

namespace contactlab {

class ImageTexture {
 public:
  ImageTexture() = default;
  ~ImageTexture();
  ImageTexture(const ImageTexture&) = delete;
  ImageTexture& operator=(const ImageTexture&) = delete;

  // Replaces the image: width x height pixels, rgba row-major from the top row, 4 bytes each.
  // Returns false (and keeps the old image) when the sizes do not match the bytes.
  bool Upload(int width, int height, const std::vector<std::uint8_t>& rgba);
  // GL texture name, 0 before the first upload.
  unsigned int id() const { return id_; }
  int width() const { return width_; }
  int height() const { return height_; }

 private:
  unsigned int id_ = 0;
  int width_ = 0, height_ = 0;
};

}  // namespace contactlab
