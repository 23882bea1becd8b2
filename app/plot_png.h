// Small line and scatter plots written as PNG, for the reproduction report. The rasterizer is
// ours (lines, markers, axes, decade or 1-2-5 ticks); text comes from stb_easy_font's segment
// glyphs and the PNG encoder from stb_image_write.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace contactlab {

struct PlotSeries {
  PlotSeries() = default;
  PlotSeries(std::string label_, std::vector<double> x_ = {}, std::vector<double> y_ = {},
             std::uint32_t color_ = 0x1f77b4)
      : label(std::move(label_)), x(std::move(x_)), y(std::move(y_)), color(color_) {}
  std::string label;
  std::vector<double> x, y;        // points with non-finite (or, on log axes, non-positive) values
                                   // are skipped and break the line
  std::uint32_t color = 0x1f77b4;  // 0xRRGGBB
  bool line = true;                // connect the points
  bool markers = true;             // draw a square at each point
  bool dashed = false;
};

struct PlotOptions {
  PlotOptions() = default;
  PlotOptions(std::string title_, std::string x_label_, std::string y_label_, bool log_x_ = false,
              bool log_y_ = false)
      : title(std::move(title_)),
        x_label(std::move(x_label_)),
        y_label(std::move(y_label_)),
        log_x(log_x_),
        log_y(log_y_) {}
  std::string title, x_label, y_label;
  bool log_x = false, log_y = false;
  int width = 720, height = 440;  // pixels
};

// Renders the series into an RGB image (row-major, 3 bytes per pixel, size width * height * 3).
std::vector<std::uint8_t> RenderPlot(const PlotOptions& options,
                                     const std::vector<PlotSeries>& series);

// Renders and writes a PNG. Returns false (with a message in `error`) if the file cannot be
// written.
bool WritePlotPng(const std::string& path, const PlotOptions& options,
                  const std::vector<PlotSeries>& series, std::string* error);

}  // namespace contactlab
