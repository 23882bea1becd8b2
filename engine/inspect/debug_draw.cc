#include "engine/inspect/debug_draw.h"

#include <algorithm>
#include <cmath>

#include "engine/sim/simulator.h"

namespace contactlab {

void RecordingDebugDraw::Line(const Vec3& a, const Vec3& b, const Color& color) {
  lines.push_back({a, b, color});
}

void RecordingDebugDraw::Point(const Vec3& p, double size, const Color& color) {
  points.push_back({p, size, color});
}

void RecordingDebugDraw::Arrow(const Vec3& from, const Vec3& to, const Color& color,
                               double radius) {
  arrows.push_back({from, to, color, radius});
}

void RecordingDebugDraw::Cone(const Vec3& apex, const Vec3& axis, double height, double half_angle,
                              const Color& color) {
  cones.push_back({apex, axis, height, half_angle, color});
}

void RecordingDebugDraw::Text(const Vec3& p, const std::string& text, const Color& color) {
  texts.push_back({p, text, color});
}

void RecordingDebugDraw::Triangle(const Vec3& a, const Vec3& b, const Vec3& c,
                                  const Color& color_a, const Color& color_b,
                                  const Color& color_c) {
  triangles.push_back({a, b, c, color_a, color_b, color_c});
}

void RecordingDebugDraw::Clear() {
  lines.clear();
  points.clear();
  arrows.clear();
  cones.clear();
  texts.clear();
  triangles.clear();
}

void RecordingDebugDraw::Replay(DebugDraw* out) const {
  for (const auto& l : lines) out->Line(l.a, l.b, l.color);
  for (const auto& p : points) out->Point(p.p, p.size, p.color);
  for (const auto& a : arrows) out->Arrow(a.from, a.to, a.color, a.radius);
  for (const auto& c : cones) out->Cone(c.apex, c.axis, c.height, c.half_angle, c.color);
  for (const auto& t : texts) out->Text(t.p, t.text, t.color);
  for (const auto& t : triangles) out->Triangle(t.a, t.b, t.c, t.color_a, t.color_b, t.color_c);
}

Color RegimeColor(int regime) {
  switch (static_cast<Regime>(regime)) {
    case Regime::kStiction:
      return kStictionColor;
    case Regime::kSliding:
      return kSlidingColor;
    default:
      return kInactiveColor;
  }
}

double ConeSaturation(const Vec3& gamma, double mu) {
  const double gn = gamma.z();
  if (!(gn > 0)) return 0.0;
  const double gt = gamma.head<2>().norm();
  if (!(mu > 0)) return 1.0;
  return std::clamp(gt / (mu * gn), 0.0, 1.0);
}

namespace {

// Per-contact view of the solve: the constraint index of each contact (or -1).
std::vector<int> ConstraintOfContact(const StepRecord& record) {
  std::vector<int> of(record.contacts.size(), -1);
  const auto& cs = record.problem.constraints;
  for (int i = 0; i < static_cast<int>(cs.size()); ++i) {
    if (cs[i].kind != ConstraintKind::kFrictionCone) continue;
    const int src = cs[i].source;
    if (src >= 0 && src < static_cast<int>(of.size())) of[src] = i;
  }
  return of;
}

// True if the result holds γ rows and a regime for constraint i.
bool HasResult(const StepRecord& record, int i) {
  if (i < 0) return false;
  const ConstraintData& cd = record.problem.constraints[i];
  return cd.first_row + cd.num_rows <= record.result.gamma.size() &&
         i < static_cast<int>(record.result.regime.size());
}

}  // namespace

bool LoadedAtPositiveGap(const StepRecord& record, int contact) {
  if (contact < 0 || contact >= static_cast<int>(record.contacts.size())) return false;
  if (!(record.contacts[contact].phi > 0)) return false;
  const std::vector<int> constraint_of = ConstraintOfContact(record);
  const int k = constraint_of[contact];
  if (!HasResult(record, k)) return false;
  return record.result.gamma(record.problem.constraints[k].first_row + 2) > 0;
}

int CountLoadedAtPositiveGap(const StepRecord& record) {
  const std::vector<int> constraint_of = ConstraintOfContact(record);
  int n = 0;
  for (int ci = 0; ci < static_cast<int>(record.contacts.size()); ++ci) {
    const int k = constraint_of[ci];
    if (record.contacts[ci].phi > 0 && HasResult(record, k) &&
        record.result.gamma(record.problem.constraints[k].first_row + 2) > 0)
      ++n;
  }
  return n;
}

RegimeCounts CountRegimes(const StepRecord& record) {
  RegimeCounts n;
  const auto& cons = record.problem.constraints;
  if (record.result.regime.size() != cons.size()) return n;
  for (size_t k = 0; k < cons.size(); ++k) {
    const Regime r = record.result.regime[k];
    if (cons[k].kind == ConstraintKind::kFrictionCone) {
      ++n.contacts[static_cast<int>(r)];
    } else if (cons[k].kind == ConstraintKind::kBilateral) {
      ++n.bilateral;
    } else if (r == Regime::kNoContact) {
      ++n.limits_inactive;
    } else {
      ++n.limits_active;
    }
  }
  return n;
}

void ContactDrawResult::AddCounts(const ContactDrawResult& o) {
  for (int r = 0; r < 3; ++r) dots[r] += o.dots[r];
  gap_rings += o.gap_rings;
  normals += o.normals;
  cones += o.cones;
  normal_arrows += o.normal_arrows;
  friction_arrows += o.friction_arrows;
  summary_markers += o.summary_markers;
  summarized += o.summarized;
}

ContactDrawResult DrawContacts(const StepRecord& record, const ContactDrawOptions& o,
                               DebugDraw* out) {
  return DrawContacts(record, o, ContactGlyphContext{}, out);
}

ContactDrawResult DrawContacts(const StepRecord& record, const ContactDrawOptions& o,
                               const ContactGlyphContext& ctx, DebugDraw* out) {
  ContactDrawResult result;
  const std::vector<int> constraint_of = ConstraintOfContact(record);
  const int n = static_cast<int>(record.contacts.size());
  // Which contacts are drawn, and their regime.
  std::vector<char> shown(n, 0);
  std::vector<Regime> regime_of(n, Regime::kNoContact);
  for (int ci = 0; ci < n; ++ci) {
    const Contact& c = record.contacts[ci];
    if (c.surface >= 0 && !o.face_contacts) continue;
    if (!ContactInFocus(c, ctx.focus_body)) continue;
    const int k = constraint_of[ci];
    regime_of[ci] = HasResult(record, k) ? record.result.regime[k] : Regime::kNoContact;
    if (regime_of[ci] == Regime::kNoContact && !o.inactive) {
      ++result.hidden_inactive;
      continue;
    }
    shown[ci] = 1;
  }
  std::vector<double> scale;
  if (o.adaptive_size) {
    GlyphSizing sizing;
    sizing.max_scale = o.cone_height;
    scale = ContactGlyphScales(record.contacts, ctx.geom_radius, sizing, shown);
  }
  const bool lod_on = o.adaptive_size && ctx.view.valid();
  GlyphLodLimits limits;
  limits.max_point_px = o.point_size;
  limits.min_point_px = std::min(o.min_point_size, o.point_size);

  std::vector<int>& drawn = result.drawn;
  std::vector<std::pair<double, int>> labels;  // (−|γ|, contact)
  const bool summarize = lod_on && o.summary_markers && o.points;
  std::vector<int> summarized;          // contacts left to the summary markers
  std::vector<double> dot_px(n, 0.0);   // their dot diameters [px]
  // A contact's dot, with its φ > 0 ring and unit normal.
  auto draw_dot = [&](int ci, double point_px, double gamma_n) {
    const Contact& c = record.contacts[ci];
    if (o.gap_loads && c.phi > 0 && gamma_n > 0) {
      // Drawn first: the regime dot then covers its centre (equal depth), leaving a ring.
      if (o.points) out->Point(c.point, o.gap_ring_scale * point_px, kGapLoadColor);
      out->Line(c.point - 0.5 * c.phi * c.normal, c.point + 0.5 * c.phi * c.normal, kGapLoadColor);
      ++result.gap_rings;
    }
    if (o.points) {
      out->Point(c.point, point_px, RegimeColor(static_cast<int>(regime_of[ci])));
      ++result.dots[std::clamp(static_cast<int>(regime_of[ci]), 0, 2)];
    }
    if (o.normals) {
      out->Line(c.point, c.point + o.normal_length * c.normal, kNormalColor);
      ++result.normals;
    }
  };
  for (int ci = 0; ci < n; ++ci) {
    if (!shown[ci]) continue;
    drawn.push_back(ci);
    const Contact& c = record.contacts[ci];
    const int k = constraint_of[ci];
    const Regime regime = regime_of[ci];
    Vec3 gamma = Vec3::Zero();  // contact frame (t1, t2, n)
    double mu = c.friction;
    if (HasResult(record, k)) {
      const ConstraintData& cd = record.problem.constraints[k];
      gamma = record.result.gamma.segment<3>(cd.first_row);
      mu = cd.friction;
    }
    const Mat3 C = ContactFrame(c.normal);  // rows t1, t2, n
    const Vec3 gamma_n_world = gamma.z() * C.row(2).transpose();
    const Vec3 gamma_t_world = C.topRows<2>().transpose() * gamma.head<2>();

    // Size and level of detail.
    const double s = o.adaptive_size ? scale[ci] : o.cone_height;
    double ppm = 0;  // pixels per metre at the contact
    GlyphLod lod{true, true, o.point_size};
    double arrow_radius = 0;  // the sink's default
    if (lod_on) {
      ppm = ctx.view.PixelsPerMetre(c.point);
      lod = ContactGlyphLod(s * ppm, limits);
      if (ppm > 0) arrow_radius = std::clamp(0.08 * s * ppm, 0.7, 1.8) / ppm;
    } else if (o.adaptive_size && o.cone_height > 0) {
      // No view: the dot shrinks with the scale relative to an isolated contact's.
      lod.point_px = std::clamp(o.point_size * s / o.cone_height, limits.min_point_px,
                                o.point_size);
    }
    const double point_px =
        regime == Regime::kNoContact ? std::max(2.0, 0.6 * lod.point_px) : lod.point_px;
    // An arrow shorter than a few pixels reads as a dot: left out.
    auto arrow_visible = [&](const Vec3& v) {
      if (!lod.arrows) return false;
      return !(ppm > 0) || o.impulse_scale * v.norm() * ppm >= 3.0;
    };

    if (summarize && !lod.arrows && ci != ctx.selected_contact) {
      // Too small on screen for arrows (hence for cones): left to the summary markers.
      summarized.push_back(ci);
      dot_px[ci] = point_px;
      continue;
    }
    draw_dot(ci, point_px, gamma.z());
    if (regime != Regime::kNoContact) {
      if (o.cones && mu > 0 && lod.cone && s > 0) {
        const double half_angle = std::atan(mu);
        out->Cone(c.point, c.normal, s, half_angle, SaturationColor(ConeSaturation(gamma, mu)));
        // Dark edge just outside the rim.
        const double r = 1.06 * s * std::tan(half_angle);
        const Vec3 base = c.point + s * c.normal;
        const Vec3 e1 = C.row(0).transpose(), e2 = C.row(1).transpose();
        constexpr int kSegments = 16;
        Vec3 prev = base + r * e1;
        for (int i = 1; i <= kSegments; ++i) {
          const double a = 2.0 * kPi * i / kSegments;
          const Vec3 p = base + r * (std::cos(a) * e1 + std::sin(a) * e2);
          out->Line(prev, p, kGlyphOutlineColor);
          prev = p;
        }
        ++result.cones;
      }
      if (o.normal_impulses && gamma.z() != 0 && arrow_visible(gamma_n_world)) {
        out->Arrow(c.point, c.point + o.impulse_scale * gamma_n_world, kNormalImpulseColor,
                   arrow_radius);
        ++result.normal_arrows;
      }
      if (o.friction_impulses && gamma.head<2>().squaredNorm() > 0 &&
          arrow_visible(gamma_t_world)) {
        out->Arrow(c.point, c.point + o.impulse_scale * gamma_t_world, kFrictionImpulseColor,
                   arrow_radius);
        ++result.friction_arrows;
      }
    }
    if (o.labels && ci != ctx.selected_contact) labels.emplace_back(-gamma.norm(), ci);
  }
  std::stable_sort(labels.begin(), labels.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [key, ci] : labels) {
    out->Text(record.contacts[ci].point, std::to_string(ci),
              RegimeColor(static_cast<int>(regime_of[ci])));
  }
  if (!summarized.empty()) {
    std::vector<Vec3> points;
    std::vector<int> regimes;
    for (int ci : summarized) {
      points.push_back(record.contacts[ci].point);
      regimes.push_back(static_cast<int>(regime_of[ci]));
    }
    for (const SummaryMarker& m :
         MergeSummaryMarkers(points, regimes, ctx.view, o.summary_cell_px)) {
      if (m.count() == 1) {
        const int ci = summarized[m.members[0]];
        const int k = constraint_of[ci];
        const double gamma_n =
            HasResult(record, k) ? record.result.gamma[record.problem.constraints[k].first_row + 2]
                                 : 0.0;
        draw_dot(ci, dot_px[ci], gamma_n);
        if (o.labels && ci != ctx.selected_contact) {
          out->Text(record.contacts[ci].point, std::to_string(ci), RegimeColor(m.regime));
        }
        continue;
      }
      double px = 0;
      for (int j : m.members) px = std::max(px, dot_px[summarized[j]]);
      px = SummaryMarkerPx(m.count(), std::max(px, o.min_point_size));
      // The halo first: the dot then covers its centre (equal depth), leaving a light ring.
      out->Point(m.point, 1.35 * px, kSummaryHaloColor);
      out->Point(m.point, px, RegimeColor(m.regime));
      if (m.count() >= 3) out->Text(m.point, std::to_string(m.count()), RegimeColor(m.regime));
      ++result.dots[m.regime];
      ++result.summary_markers;
      result.summarized += m.count();
    }
  }
  return result;
}

double LargestImpulse(const StepRecord& record) {
  double largest = 0;
  for (const ConstraintData& cd : record.problem.constraints) {
    if (cd.kind != ConstraintKind::kFrictionCone) continue;
    if (cd.first_row + 3 > record.result.gamma.size()) continue;
    const Vec3 g = record.result.gamma.segment<3>(cd.first_row);
    if (!g.allFinite()) continue;
    largest = std::max({largest, std::abs(g.z()), g.head<2>().norm()});
  }
  return largest;
}

double FitImpulseScale(const StepRecord& record, double target_length, double fallback) {
  const double largest = LargestImpulse(record);
  if (!(largest > 0)) return fallback;
  return target_length / largest;
}

double AutoImpulseScale(double current, double largest, double target_length) {
  if (!(largest > 0) || !(target_length > 0)) return current;
  const double length = current * largest;
  if (current > 0 && length >= 0.25 * target_length && length <= 1.5 * target_length) {
    return current;
  }
  return target_length / largest;
}

}  // namespace contactlab
