#include "ui/joint_rows.h"

#include <cmath>
#include <cstdio>

namespace contactlab {

namespace {

std::string Format(const char* fmt, double a) {
  char buf[96];
  std::snprintf(buf, sizeof(buf), fmt, a);
  return buf;
}

double Degrees(double rad) { return rad * 180.0 / M_PI; }

// Avoids "-0.0000": tiny values print as 0.
double Clean(double x) { return std::abs(x) < 5e-13 ? 0.0 : x; }

}  // namespace

std::vector<JointRow> JointPathRows(const Model& model, const VecX& q, const VecX& v, int body) {
  std::vector<JointRow> rows;
  if (body < 0 || body >= static_cast<int>(model.bodies.size())) return rows;
  int b = body;
  // A path never visits more joints than there are: guards against a malformed parent loop.
  for (size_t guard = 0; b >= 0 && guard <= model.joints.size(); ++guard) {
    const int ji = model.bodies[b].joint;
    if (ji < 0) break;
    const Joint& j = model.joints[ji];
    JointRow r;
    r.joint = ji;
    r.name = j.name.empty() ? "joint " + std::to_string(ji) : j.name;
    r.type = JointTypeName(j.type);
    r.body = model.bodies[j.child].name;
    const bool has_q = j.q_start >= 0 && j.q_start < q.size();
    const bool has_v = j.v_start >= 0 && j.v_start < v.size();
    switch (j.type) {
      case JointType::kRevolute: {
        if (has_q) {
          const double a = Clean(q[j.q_start]);
          char buf[96];
          std::snprintf(buf, sizeof(buf), "%.4f rad (%.2f°)", a, Clean(Degrees(a)));
          r.position = buf;
          if (j.limited) r.at_limit = a <= j.lower + 1e-9 || a >= j.upper - 1e-9;
        }
        if (has_v) r.rate = Format("%.4f rad/s", Clean(v[j.v_start]));
        if (j.limited) {
          char buf[96];
          std::snprintf(buf, sizeof(buf), "[%.2f°, %.2f°]", Clean(Degrees(j.lower)),
                        Clean(Degrees(j.upper)));
          r.limits = buf;
        }
        break;
      }
      case JointType::kPrismatic: {
        if (has_q) {
          const double x = Clean(q[j.q_start]);
          r.position = Format("%.4f m", x);
          if (j.limited) r.at_limit = x <= j.lower + 1e-9 || x >= j.upper - 1e-9;
        }
        if (has_v) r.rate = Format("%.4f m/s", Clean(v[j.v_start]));
        if (j.limited) {
          char buf[96];
          std::snprintf(buf, sizeof(buf), "[%.4f, %.4f] m", Clean(j.lower), Clean(j.upper));
          r.limits = buf;
        }
        break;
      }
      case JointType::kBall:
      case JointType::kFree: {
        const int qo = j.type == JointType::kFree ? 3 : 0;
        const int vo = j.type == JointType::kFree ? 3 : 0;
        if (has_q && j.q_start + qo + 3 < q.size()) {
          const Quat r_q(q[j.q_start + qo], q[j.q_start + qo + 1], q[j.q_start + qo + 2],
                         q[j.q_start + qo + 3]);
          const Eigen::AngleAxisd aa(r_q.normalized());
          const Vec3 axis = aa.angle() > 1e-12 ? aa.axis() : Vec3::UnitZ();
          char buf[128];
          if (j.type == JointType::kFree) {
            std::snprintf(buf, sizeof(buf), "[%.3f %.3f %.3f] m, %.2f° about [%.2f %.2f %.2f]",
                          Clean(q[j.q_start]), Clean(q[j.q_start + 1]), Clean(q[j.q_start + 2]),
                          Clean(Degrees(aa.angle())), Clean(axis.x()), Clean(axis.y()),
                          Clean(axis.z()));
          } else {
            std::snprintf(buf, sizeof(buf), "%.2f° about [%.2f %.2f %.2f]",
                          Clean(Degrees(aa.angle())), Clean(axis.x()), Clean(axis.y()),
                          Clean(axis.z()));
          }
          r.position = buf;
        }
        if (has_v && j.v_start + vo + 2 < v.size()) {
          r.rate = Format("|ω| %.4f rad/s", Clean(v.segment<3>(j.v_start + vo).norm()));
        }
        break;
      }
      case JointType::kFixed:
        break;
    }
    if (j.actuator.enabled) {
      char buf[96];
      std::snprintf(buf, sizeof(buf), "PD kp %.4g kd %.4g", j.actuator.kp, j.actuator.kd);
      r.actuator = buf;
    }
    rows.push_back(std::move(r));
    b = j.parent;
  }
  return rows;
}

}  // namespace contactlab
