#include "app/model_include.h"

#include <stdexcept>
#include <unordered_set>

namespace contactlab {

namespace {

bool SameMaterialValues(const Material& a, const Material& b) {
  return a.stiffness == b.stiffness && a.dissipation_time == b.dissipation_time &&
         a.friction == b.friction &&
         a.hunt_crossley_dissipation == b.hunt_crossley_dissipation &&
         a.hydroelastic_modulus == b.hydroelastic_modulus &&
         a.hydroelastic_resolution == b.hydroelastic_resolution;
}

std::string Prefixed(const std::string& prefix, const std::string& name) {
  if (prefix.empty() || name.empty()) return name;
  return prefix + "/" + name;
}

}  // namespace

AppendedModel AppendModel(const Model& part, const ModelPlacement& placement, Model* into) {
  AppendedModel out;
  const Pose& X = placement.base;
  const int body0 = static_cast<int>(into->bodies.size());
  const int joint0 = static_cast<int>(into->joints.size());
  out.first_body = body0;
  out.first_joint = joint0;
  out.first_geom = static_cast<int>(into->geoms.size());
  out.num_bodies = static_cast<int>(part.bodies.size());
  out.num_joints = static_cast<int>(part.joints.size());
  out.num_geoms = static_cast<int>(part.geoms.size());

  // Names must stay unique in the scene (the scene reader refuses duplicates too).
  std::unordered_set<std::string> body_names, joint_names;
  for (const Body& b : into->bodies) body_names.insert(b.name);
  for (const Joint& j : into->joints) joint_names.insert(j.name);

  // Materials: reuse an identical one of the same name, else append (renamed on a clash).
  std::vector<int> material_of(part.materials.size(), -1);
  for (size_t m = 0; m < part.materials.size(); ++m) {
    const Material& pm = part.materials[m];
    const int existing = into->FindMaterial(pm.name);
    if (existing >= 0 && SameMaterialValues(into->materials[existing], pm)) {
      material_of[m] = existing;
      continue;
    }
    Material copy = pm;
    if (existing >= 0) {
      copy.name = Prefixed(placement.prefix.empty() ? "model" : placement.prefix, pm.name);
      if (into->FindMaterial(copy.name) >= 0) {
        throw std::invalid_argument("material '" + copy.name +
                                    "' already exists in the scene with other values");
      }
    }
    material_of[m] = static_cast<int>(into->materials.size());
    into->materials.push_back(copy);
  }
  for (const PairOverride& po : part.pair_overrides) {
    PairOverride copy = po;
    copy.material_a = material_of.at(po.material_a);
    copy.material_b = material_of.at(po.material_b);
    into->pair_overrides.push_back(copy);
  }

  for (const Body& pb : part.bodies) {
    Body b = pb;
    b.name = Prefixed(placement.prefix, pb.name);
    if (!body_names.insert(b.name).second) {
      throw std::invalid_argument("body '" + b.name +
                                  "' already exists in the scene (give the model a `name:`)");
    }
    b.joint = pb.joint < 0 ? -1 : pb.joint + joint0;
    b.tree = -1;  // rebuilt by Finalize
    b.pose0 = X * pb.pose0;
    if (pb.prescribed) {
      b.motion.velocity = X.Rotate(pb.motion.velocity);
      b.motion.oscillation_axis = X.Rotate(pb.motion.oscillation_axis);
      b.motion.angular_velocity = X.Rotate(pb.motion.angular_velocity);
    }
    into->bodies.push_back(b);
  }

  for (size_t ji = 0; ji < part.joints.size(); ++ji) {
    const Joint& pj = part.joints[ji];
    Joint j = pj;
    j.name = Prefixed(placement.prefix, pj.name);
    if (!j.name.empty() && !joint_names.insert(j.name).second) {
      throw std::invalid_argument("joint '" + j.name +
                                  "' already exists in the scene (give the model a `name:`)");
    }
    j.parent = pj.parent < 0 ? -1 : pj.parent + body0;
    j.child = pj.child + body0;
    j.q_start = j.v_start = -1;
    const int jt = joint0 + static_cast<int>(ji);
    if (pj.type == JointType::kFree) {
      // The part's start pose (q_default) moved by the base; its velocity rotated with it.
      Pose X_WB;
      X_WB.p = part.q_default.segment<3>(pj.q_start);
      X_WB.q = Quat(part.q_default[pj.q_start + 3], part.q_default[pj.q_start + 4],
                    part.q_default[pj.q_start + 5], part.q_default[pj.q_start + 6])
                   .normalized();
      const Pose placed = X * X_WB;
      if (placement.fixed) {
        j.type = JointType::kFixed;
        j.parent = -1;
        j.parent_from_joint = placed;
        j.child_from_joint = Pose();
        j.limited = false;
        j.actuator = Actuator{};
        into->bodies[j.child].pose0 = placed;
        ++out.fixed_roots;
      } else {
        into->bodies[j.child].pose0 = placed;
        AppendedModel::JointStart s;
        s.joint = jt;
        s.q.resize(7);
        s.q.head<3>() = placed.p;
        s.q.tail<4>() << placed.q.w(), placed.q.x(), placed.q.y(), placed.q.z();
        s.v.resize(6);
        s.v.head<3>() = X.Rotate(part.v_default.segment<3>(pj.v_start));
        s.v.tail<3>() = X.Rotate(part.v_default.segment<3>(pj.v_start + 3));
        out.starts.push_back(std::move(s));
      }
    } else {
      if (pj.parent < 0) j.parent_from_joint = X * pj.parent_from_joint;
      const int nq = JointNq(pj.type), nv = JointNv(pj.type);
      if (nq > 0 || nv > 0) {
        AppendedModel::JointStart s;
        s.joint = jt;
        s.q = part.q_default.segment(pj.q_start, nq);
        s.v = part.v_default.segment(pj.v_start, nv);
        out.starts.push_back(std::move(s));
      }
    }
    into->joints.push_back(j);
  }

  for (const Geom& pg : part.geoms) {
    if (!placement.world_geometry &&
        (pg.body < 0 || (part.bodies[pg.body].joint < 0 && !part.bodies[pg.body].prescribed))) {
      --out.num_geoms;
      continue;
    }
    Geom g = pg;
    g.name = Prefixed(placement.prefix, pg.name);
    g.body = pg.body < 0 ? -1 : pg.body + body0;
    if (pg.body < 0) g.local = X * pg.local;
    g.material = placement.material >= 0 ? placement.material : material_of.at(pg.material);
    into->geoms.push_back(g);
  }

  for (const auto& [a, b] : part.excluded_body_pairs) {
    into->excluded_body_pairs.emplace_back(a < 0 ? a : a + body0, b < 0 ? b : b + body0);
  }
  for (const Equality& pe : part.equalities) {
    Equality e = pe;
    e.name = Prefixed(placement.prefix, pe.name);
    // A body of -1 is the world: the anchor given in the part's world frame moves with the base.
    if (pe.body_a < 0) e.a_from_anchor = X * pe.a_from_anchor;
    else e.body_a = pe.body_a + body0;
    if (pe.body_b < 0) e.b_from_anchor = X * pe.b_from_anchor;
    else e.body_b = pe.body_b + body0;
    if (pe.joint_a >= 0) e.joint_a = pe.joint_a + joint0;
    if (pe.joint_b >= 0) e.joint_b = pe.joint_b + joint0;
    into->equalities.push_back(e);
  }
  for (const Load& pl : part.loads) {
    Load l = pl;
    l.name = Prefixed(placement.prefix, pl.name);
    l.body = pl.body + body0;
    into->loads.push_back(l);
  }
  return out;
}

void ApplyAppendedStart(const AppendedModel& appended, Model* model) {
  for (const AppendedModel::JointStart& s : appended.starts) {
    const Joint& j = model->joints.at(s.joint);
    if (j.q_start < 0 || j.v_start < 0) continue;
    if (s.q.size() != JointNq(j.type) || s.v.size() != JointNv(j.type)) {
      throw std::logic_error("ApplyAppendedStart: joint '" + j.name + "' changed its type");
    }
    model->q_default.segment(j.q_start, s.q.size()) = s.q;
    model->v_default.segment(j.v_start, s.v.size()) = s.v;
  }
}

}  // namespace contactlab
