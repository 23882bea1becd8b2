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
    } else if (r == Regime::kNoContact) {
      ++n.limits_inactive;
    } else {
      ++n.limits_active;
    }
  }
  return n;
}

void DrawContacts(const StepRecord& record, const ContactDrawOptions& o, DebugDraw* out) {
  const std::vector<int> constraint_of = ConstraintOfContact(record);
  for (int ci = 0; ci < static_cast<int>(record.contacts.size()); ++ci) {
    const Contact& c = record.contacts[ci];
    if (c.surface >= 0 && !o.face_contacts) continue;
    const int k = constraint_of[ci];
    const bool solved = HasResult(record, k);
    const Regime regime = solved ? record.result.regime[k] : Regime::kNoContact;
    if (regime == Regime::kNoContact && !o.inactive) continue;
    Vec3 gamma = Vec3::Zero();  // contact frame (t1, t2, n)
    double mu = c.friction;
    if (solved) {
      const ConstraintData& cd = record.problem.constraints[k];
      gamma = record.result.gamma.segment<3>(cd.first_row);
      mu = cd.friction;
    }
    const Mat3 C = ContactFrame(c.normal);  // rows t1, t2, n
    const Vec3 gamma_n_world = gamma.z() * C.row(2).transpose();
    const Vec3 gamma_t_world = C.topRows<2>().transpose() * gamma.head<2>();

    if (o.gap_loads && c.phi > 0 && gamma.z() > 0) {
      // Drawn first: the regime dot then covers its centre (equal depth), leaving a ring.
      if (o.points) out->Point(c.point, o.gap_ring_scale * o.point_size, kGapLoadColor);
      out->Line(c.point - 0.5 * c.phi * c.normal, c.point + 0.5 * c.phi * c.normal, kGapLoadColor);
    }
    if (o.points) out->Point(c.point, o.point_size, RegimeColor(static_cast<int>(regime)));
    if (o.normals) out->Line(c.point, c.point + o.normal_length * c.normal, kNormalColor);
    if (regime != Regime::kNoContact) {
      if (o.cones && mu > 0) {
        out->Cone(c.point, c.normal, o.cone_height, std::atan(mu),
                  SaturationColor(ConeSaturation(gamma, mu)));
      }
      if (o.normal_impulses && gamma.z() != 0) {
        out->Arrow(c.point, c.point + o.impulse_scale * gamma_n_world, kNormalImpulseColor);
      }
      if (o.friction_impulses && gamma.head<2>().squaredNorm() > 0) {
        out->Arrow(c.point, c.point + o.impulse_scale * gamma_t_world, kFrictionImpulseColor);
      }
    }
    if (o.labels) out->Text(c.point, std::to_string(ci), RegimeColor(static_cast<int>(regime)));
  }
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
