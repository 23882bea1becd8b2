#include "engine/inspect/glyph_layout.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <numeric>
#include <unordered_map>

#include "engine/multibody/model.h"
#include "engine/sim/simulator.h"

namespace contactlab {

double ShapeBoundingRadius(const Shape& s) {
  switch (s.type) {
    case ShapeType::kHalfSpace:
      return std::numeric_limits<double>::infinity();
    case ShapeType::kSphere:
      return s.radius;
    case ShapeType::kCapsule:
      return s.radius + s.half_length;
    case ShapeType::kBox:
      return s.half_extents.norm();
    case ShapeType::kCylinder:
      return std::hypot(s.radius, s.half_length);
    case ShapeType::kConvexMesh: {
      double r = 0;
      if (s.hull) {
        for (const Vec3& v : s.hull->vertices) r = std::max(r, v.norm());
      }
      return r;
    }
  }
  return std::numeric_limits<double>::infinity();
}

std::vector<double> GeometryBoundingRadii(const Model& model) {
  std::vector<double> r;
  r.reserve(model.geoms.size());
  for (const Geom& g : model.geoms) r.push_back(ShapeBoundingRadius(g.shape));
  return r;
}

namespace {

struct CellKey {
  std::int64_t x, y, z;
  bool operator==(const CellKey& o) const { return x == o.x && y == o.y && z == o.z; }
};
struct CellHash {
  std::size_t operator()(const CellKey& k) const {
    return static_cast<std::size_t>(k.x * 73856093LL ^ k.y * 19349663LL ^ k.z * 83492791LL);
  }
};

}  // namespace

std::vector<double> ContactGlyphScales(const std::vector<Contact>& contacts,
                                       const std::vector<double>& geom_radius,
                                       const GlyphSizing& sizing,
                                       const std::vector<char>& include) {
  const int n = static_cast<int>(contacts.size());
  const double hi = sizing.max_scale > 0 ? sizing.max_scale : 0;
  const double lo = std::clamp(sizing.min_scale, 0.0, hi);
  std::vector<double> scale(n, hi);
  auto included = [&](int i) { return include.empty() || (i < static_cast<int>(include.size()) && include[i]); };
  auto radius_of = [&](int g) {
    return g >= 0 && g < static_cast<int>(geom_radius.size()) ? geom_radius[g]
                                                              : std::numeric_limits<double>::infinity();
  };
  // Body limit.
  for (int i = 0; i < n; ++i) {
    if (!included(i)) continue;
    const double r = std::min(radius_of(contacts[i].geom_a), radius_of(contacts[i].geom_b));
    if (std::isfinite(r) && r >= 0) scale[i] = std::min(scale[i], sizing.body_fraction * r);
  }
  // Spacing limit: a neighbour farther than `reach` cannot lower the scale below max_scale.
  if (sizing.spacing_fraction > 0 && hi > 0) {
    const double reach = hi / sizing.spacing_fraction;
    auto key_of = [&](const Vec3& p) {
      return CellKey{static_cast<std::int64_t>(std::floor(p.x() / reach)),
                     static_cast<std::int64_t>(std::floor(p.y() / reach)),
                     static_cast<std::int64_t>(std::floor(p.z() / reach))};
    };
    std::unordered_map<CellKey, std::vector<int>, CellHash> grid;
    grid.reserve(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
      if (included(i) && contacts[i].point.allFinite()) grid[key_of(contacts[i].point)].push_back(i);
    }
    for (int i = 0; i < n; ++i) {
      if (!included(i) || !contacts[i].point.allFinite()) continue;
      const Vec3& p = contacts[i].point;
      const CellKey k = key_of(p);
      double nearest2 = reach * reach;
      for (std::int64_t dx = -1; dx <= 1; ++dx) {
        for (std::int64_t dy = -1; dy <= 1; ++dy) {
          for (std::int64_t dz = -1; dz <= 1; ++dz) {
            const auto it = grid.find(CellKey{k.x + dx, k.y + dy, k.z + dz});
            if (it == grid.end()) continue;
            for (int j : it->second) {
              if (j == i) continue;
              nearest2 = std::min(nearest2, (contacts[j].point - p).squaredNorm());
            }
          }
        }
      }
      scale[i] = std::min(scale[i], sizing.spacing_fraction * std::sqrt(nearest2));
    }
  }
  for (double& s : scale) s = std::clamp(s, lo, hi);
  return scale;
}

double GlyphView::PixelsPerMetre(const Vec3& p) const {
  if (!valid()) return 0;
  const double depth = (p - eye).dot(forward);
  if (!(depth > 1e-9)) return 0;
  return focal_px / depth;
}

bool GlyphView::Project(const Vec3& p, double* x_px, double* y_px) const {
  if (!valid()) return false;
  const Vec3 d = p - eye;
  const double depth = d.dot(forward);
  if (!(depth > 1e-9) || !std::isfinite(depth)) return false;
  *x_px = focal_px * d.dot(right) / depth;
  *y_px = focal_px * d.dot(up) / depth;
  return std::isfinite(*x_px) && std::isfinite(*y_px);
}

std::vector<SummaryMarker> MergeSummaryMarkers(const std::vector<Vec3>& points,
                                               const std::vector<int>& regimes,
                                               const GlyphView& view, double cell_px) {
  std::vector<SummaryMarker> markers;
  std::unordered_map<long long, int> cell_marker;  // cell key -> index into markers
  const bool cells = cell_px > 0 && std::isfinite(cell_px);
  for (int i = 0; i < static_cast<int>(points.size()); ++i) {
    int m = -1;
    double x = 0, y = 0;
    if (cells && view.Project(points[i], &x, &y)) {
      // Cells of a 2^21-wide grid around the view's centre (wider than any screen).
      const long long cx = static_cast<long long>(std::floor(x / cell_px)) + (1LL << 20);
      const long long cy = static_cast<long long>(std::floor(y / cell_px)) + (1LL << 20);
      if (cx >= 0 && cy >= 0 && cx < (1LL << 21) && cy < (1LL << 21)) {
        const long long key = (cx << 21) | cy;
        const auto [it, added] = cell_marker.try_emplace(key, static_cast<int>(markers.size()));
        if (added) markers.emplace_back();
        m = it->second;
      }
    }
    if (m < 0) {
      m = static_cast<int>(markers.size());
      markers.emplace_back();
    }
    SummaryMarker& marker = markers[m];
    marker.members.push_back(i);
    marker.point += points[i];
    const int r = i < static_cast<int>(regimes.size()) && regimes[i] >= 0 && regimes[i] < 3
                      ? regimes[i]
                      : 2;
    ++marker.regime_count[r];
  }
  for (SummaryMarker& marker : markers) {
    marker.point /= static_cast<double>(marker.members.size());
    marker.regime = 0;
    for (int r = 1; r < 3; ++r) {
      if (marker.regime_count[r] > marker.regime_count[marker.regime]) marker.regime = r;
    }
  }
  return markers;
}

double SummaryMarkerPx(int count, double point_px) {
  if (count <= 1) return point_px;
  return std::min(point_px * (1.0 + std::log2(static_cast<double>(count)) / 3.0),
                  2.5 * point_px);
}

GlyphLod ContactGlyphLod(double scale_px, const GlyphLodLimits& l) {
  GlyphLod lod;
  if (!std::isfinite(scale_px)) scale_px = 0;
  lod.cone = scale_px >= l.cone_min_px;
  lod.arrows = scale_px >= l.arrow_min_px;
  const double hi = std::max(l.min_point_px, l.max_point_px);
  lod.point_px = std::clamp(l.point_fraction * scale_px, l.min_point_px, hi);
  return lod;
}

const char* GlyphFocusName(GlyphFocus focus) {
  switch (focus) {
    case GlyphFocus::kBody:
      return "body";
    case GlyphFocus::kIsland:
      return "island";
    default:
      return "off";
  }
}

namespace {

int Find(std::vector<int>& parent, int i) {
  while (parent[i] != i) {
    parent[i] = parent[parent[i]];
    i = parent[i];
  }
  return i;
}

}  // namespace

std::vector<int> ContactIslands(const StepRecord& record, const Model& model) {
  const int nb = static_cast<int>(model.bodies.size());
  std::vector<int> parent(nb);
  std::iota(parent.begin(), parent.end(), 0);
  auto movable = [&](int b) { return b >= 0 && b < nb && model.bodies[b].tree >= 0; };
  auto unite = [&](int a, int b) {
    a = Find(parent, a);
    b = Find(parent, b);
    if (a != b) parent[std::max(a, b)] = std::min(a, b);
  };
  // Bodies of one kinematic tree.
  std::vector<int> first_of_tree;
  for (int b = 0; b < nb; ++b) {
    const int t = model.bodies[b].tree;
    if (t < 0) continue;
    if (t >= static_cast<int>(first_of_tree.size())) first_of_tree.resize(t + 1, -1);
    if (first_of_tree[t] < 0) {
      first_of_tree[t] = b;
    } else {
      unite(first_of_tree[t], b);
    }
  }
  // Contacts that became constraints.
  const int nc = static_cast<int>(record.contacts.size());
  for (const ConstraintData& cd : record.problem.constraints) {
    if (cd.kind != ConstraintKind::kFrictionCone || cd.source < 0 || cd.source >= nc) continue;
    const Contact& c = record.contacts[cd.source];
    if (movable(c.body_a) && movable(c.body_b)) unite(c.body_a, c.body_b);
  }
  std::vector<int> label(nb);
  for (int b = 0; b < nb; ++b) label[b] = Find(parent, b);
  return label;
}

std::vector<char> FocusBodies(const StepRecord& record, const Model& model, int selected_body,
                              GlyphFocus focus) {
  const int nb = static_cast<int>(model.bodies.size());
  if (focus == GlyphFocus::kOff || selected_body < 0 || selected_body >= nb) {
    return std::vector<char>(nb, 1);
  }
  std::vector<char> in(nb, 0);
  if (focus == GlyphFocus::kBody || model.bodies[selected_body].tree < 0) {
    in[selected_body] = 1;
    return in;
  }
  const std::vector<int> island = ContactIslands(record, model);
  for (int b = 0; b < nb; ++b) in[b] = island[b] == island[selected_body] ? 1 : 0;
  return in;
}

bool ContactInFocus(const Contact& c, const std::vector<char>& focus) {
  if (focus.empty()) return true;
  auto in = [&](int b) { return b >= 0 && b < static_cast<int>(focus.size()) && focus[b]; };
  return in(c.body_a) || in(c.body_b);
}

std::vector<PlacedLabel> PlaceLabels(const std::vector<LabelCandidate>& candidates,
                                     const LabelBox& bounds, double gap,
                                     const std::vector<LabelBox>& blocked) {
  std::vector<PlacedLabel> placed;
  for (int i = 0; i < static_cast<int>(candidates.size()); ++i) {
    const LabelCandidate& c = candidates[i];
    if (!std::isfinite(c.x) || !std::isfinite(c.y) || !(c.width >= 0) || !(c.height >= 0)) continue;
    const double w = c.width, h = c.height;
    // Slots: right-above, right-below, left-above, left-below, then stacked above and below.
    const double slots[][2] = {
        {c.x + gap, c.y - gap - h},          {c.x + gap, c.y + gap},
        {c.x - gap - w, c.y - gap - h},      {c.x - gap - w, c.y + gap},
        {c.x + gap, c.y - gap - 2 * h - 1},  {c.x + gap, c.y + gap + h + 1},
        {c.x - 0.5 * w, c.y - gap - 3 * h - 2},
    };
    for (const auto& s : slots) {
      const LabelBox box{s[0], s[1], s[0] + w, s[1] + h};
      if (box.x0 < bounds.x0 || box.y0 < bounds.y0 || box.x1 > bounds.x1 || box.y1 > bounds.y1) {
        continue;
      }
      const bool free =
          std::none_of(placed.begin(), placed.end(),
                       [&](const PlacedLabel& p) { return p.box.Overlaps(box); }) &&
          std::none_of(blocked.begin(), blocked.end(),
                       [&](const LabelBox& b) { return b.Overlaps(box); });
      if (free) {
        placed.push_back({i, box});
        break;
      }
    }
  }
  return placed;
}

ScaleBar ImpulseScaleBar(double impulse_scale, double px_per_m, double max_px) {
  ScaleBar bar;
  const double px_per_impulse = impulse_scale * px_per_m;
  if (!(px_per_impulse > 0) || !std::isfinite(px_per_impulse) || !(max_px > 0) ||
      !std::isfinite(max_px)) {
    return bar;
  }
  const double largest = max_px / px_per_impulse;  // the longest impulse that fits [N s]
  const double decade = std::pow(10.0, std::floor(std::log10(largest)));
  double value = decade;
  for (double m : {5.0, 2.0, 1.0}) {
    if (m * decade <= largest * (1 + 1e-12)) {
      value = m * decade;
      break;
    }
  }
  bar.impulse = value;
  bar.length_px = value * px_per_impulse;
  return bar;
}

std::string FormatImpulse(double impulse) {
  if (!std::isfinite(impulse)) return "-";
  if (impulse == 0) return "0 N\xC2\xB7s";
  struct Prefix {
    double factor;
    const char* name;
  };
  static const Prefix kPrefixes[] = {{1e3, "k"}, {1, ""}, {1e-3, "m"}, {1e-6, "\xC2\xB5"},
                                     {1e-9, "n"}};
  const double a = std::abs(impulse);
  for (const Prefix& p : kPrefixes) {
    if (a >= p.factor * (1 - 1e-9)) {
      char buf[48];
      std::snprintf(buf, sizeof(buf), "%.3g %sN\xC2\xB7s", impulse / p.factor, p.name);
      return buf;
    }
  }
  char buf[48];
  std::snprintf(buf, sizeof(buf), "%.3g N\xC2\xB7s", impulse);
  return buf;
}

}  // namespace contactlab
