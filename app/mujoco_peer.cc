#include "app/mujoco_peer.h"

#include <mujoco/mujoco.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <vector>

#include "engine/multibody/multibody.h"

namespace contactlab {
namespace {

// MuJoCo reports fatal errors through mju_user_error, which must not return. The handler throws
// instead (x86-64 and AArch64 Linux unwind through C frames), so a failing scene ends its peer
// run with a message rather than the process.
void ThrowOnError(const char* message) {
  throw std::runtime_error(std::string("MuJoCo error: ") + message);
}

// Warnings are counted in mjData::warning; the default handler would also print them.
void QuietWarning(const char*) {}

void InstallHandlers() {
  mju_user_error = ThrowOnError;
  mju_user_warning = QuietWarning;
}

}  // namespace

struct MujocoPeer::Impl {
  MjcfExport exported;
  mjModel* m = nullptr;
  mjData* d = nullptr;
  const Model* model = nullptr;
  std::unique_ptr<Multibody> multibody;  // prescribed poses
  std::vector<int> mj_body;              // per ContactLab body: MuJoCo body id, -1 static
  std::vector<int> mocap_id;             // per exported mocap body: m->body_mocapid
  KinematicsCache kin;
  bool poses_stale = false;  // mj_step leaves xpos at the start of the step

  ~Impl() {
    if (d) mj_deleteData(d);
    if (m) mj_deleteModel(m);
  }
};

MujocoPeer::MujocoPeer(const Scene& scene, const MjcfExportOptions& options)
    : impl_(std::make_unique<Impl>()) {
  InstallHandlers();
  Impl& s = *impl_;
  s.model = &scene.model;
  s.exported = ExportMjcf(scene, options);

  namespace fs = std::filesystem;
  static int counter = 0;
  const fs::path path = fs::temp_directory_path() /
                        ("contactlab_peer_" + std::to_string(::getpid()) + "_" +
                         std::to_string(counter++) + ".xml");
  {
    std::ofstream out(path);
    out << s.exported.xml;
    if (!out.flush()) throw std::runtime_error("cannot write " + path.string());
  }
  char error[1024] = "";
  try {
    s.m = mj_loadXML(path.string().c_str(), nullptr, error, sizeof(error));
  } catch (...) {
    fs::remove(path);
    throw;
  }
  fs::remove(path);
  if (!s.m) throw std::runtime_error(std::string("MuJoCo could not load the model: ") + error);
  if (s.m->nq != s.exported.nq || s.m->nv != s.exported.nv) {
    throw std::runtime_error("MuJoCo model has nq = " + std::to_string(s.m->nq) + ", nv = " +
                             std::to_string(s.m->nv) + "; the export expected " +
                             std::to_string(s.exported.nq) + ", " + std::to_string(s.exported.nv));
  }
  s.d = mj_makeData(s.m);
  if (!s.d) throw std::runtime_error("MuJoCo could not allocate mjData");
  std::copy(s.exported.initial_qpos.begin(), s.exported.initial_qpos.end(), s.d->qpos);
  std::copy(s.exported.initial_qvel.begin(), s.exported.initial_qvel.end(), s.d->qvel);

  const int nb = static_cast<int>(scene.model.bodies.size());
  s.mj_body.assign(nb, -1);
  for (int b = 0; b < nb; ++b) {
    const std::string& name = s.exported.body_names[b];
    if (name.empty()) continue;
    s.mj_body[b] = mj_name2id(s.m, mjOBJ_BODY, name.c_str());
    if (s.mj_body[b] < 0) throw std::runtime_error("MuJoCo model has no body " + name);
  }
  for (int b : s.exported.mocap_bodies) s.mocap_id.push_back(s.m->body_mocapid[s.mj_body[b]]);
  if (!s.exported.mocap_bodies.empty()) s.multibody = std::make_unique<Multibody>(s.model);
  // Kinematics (body poses) at the initial state.
  mj_forward(s.m, s.d);
}

MujocoPeer::~MujocoPeer() = default;

double MujocoPeer::Step() {
  Impl& s = *impl_;
  const double t = s.d->time;
  for (size_t a = 0; a < s.exported.actuated_joints.size(); ++a) {
    const Actuator& act = s.model->joints[s.exported.actuated_joints[a]].actuator;
    s.d->ctrl[a] = act.kp * act.setpoint.Evaluate(t) + act.kd * act.setpoint.Derivative(t);
  }
  if (s.multibody) {
    s.multibody->UpdateKinematics(s.model->q_default, t, &s.kin);
    for (size_t k = 0; k < s.mocap_id.size(); ++k) {
      const Pose& X = s.kin.X_WB[s.exported.mocap_bodies[k]];
      const int id = s.mocap_id[k];
      for (int i = 0; i < 3; ++i) s.d->mocap_pos[3 * id + i] = X.p[i];
      s.d->mocap_quat[4 * id + 0] = X.q.w();
      s.d->mocap_quat[4 * id + 1] = X.q.x();
      s.d->mocap_quat[4 * id + 2] = X.q.y();
      s.d->mocap_quat[4 * id + 3] = X.q.z();
    }
  }
  const auto start = std::chrono::steady_clock::now();
  mj_step(s.m, s.d);
  const auto end = std::chrono::steady_clock::now();
  s.poses_stale = true;
  return std::chrono::duration<double, std::milli>(end - start).count();
}

double MujocoPeer::time() const { return impl_->d->time; }

int MujocoPeer::num_contacts() const { return impl_->d->ncon; }

double MujocoPeer::max_penetration() const {
  const mjData* d = impl_->d;
  double pen = 0;
  for (int i = 0; i < d->ncon; ++i) pen = std::max(pen, -d->contact[i].dist);
  return pen;
}

NcpResidual MujocoPeer::RigidNcpResidual() const {
  const mjModel* m = impl_->m;
  const mjData* d = impl_->d;
  if (mj_isPyramidal(m)) {
    throw std::runtime_error("RigidNcpResidual: pyramidal friction cones are not measured");
  }
  const bool sparse = mj_isSparse(m);
  const int nv = m->nv;
  // Row r of J times the post-step velocities.
  auto row_times_qvel = [&](int r) {
    double sum = 0;
    if (sparse) {
      const int adr = d->efc_J_rowadr[r];
      for (int k = 0; k < d->efc_J_rownnz[r]; ++k) {
        sum += d->efc_J[adr + k] * d->qvel[d->efc_J_colind[adr + k]];
      }
    } else {
      const mjtNum* row = d->efc_J + static_cast<size_t>(r) * nv;
      for (int k = 0; k < nv; ++k) sum += row[k] * d->qvel[k];
    }
    return sum;
  };
  const double dt = m->opt.timestep;
  std::vector<ContactFrameSample> samples;
  samples.reserve(d->ncon);
  for (int i = 0; i < d->ncon; ++i) {
    const mjContact& con = d->contact[i];
    const int r = con.efc_address;
    if (r < 0 || r >= d->nefc) continue;  // excluded, or not a constraint of this step
    ContactFrameSample c;
    c.frictional = con.dim >= 3;
    c.mu = c.frictional ? con.friction[0] : 0.0;
    c.phi0 = d->efc_pos[r];
    c.gamma_n = d->efc_force[r] * dt;
    c.v_n = row_times_qvel(r);
    if (c.frictional) {
      c.gamma_t = Eigen::Vector2d(d->efc_force[r + 1], d->efc_force[r + 2]) * dt;
      c.v_t = Eigen::Vector2d(row_times_qvel(r + 1), row_times_qvel(r + 2));
    }
    samples.push_back(c);
  }
  return RigidNcpResidualOfContacts(samples, dt);
}

int MujocoPeer::solver_iterations() const { return impl_->d->solver_iter; }

bool MujocoPeer::overflowed() const {
  const mjData* d = impl_->d;
  return d->warning[mjWARN_CONTACTFULL].number > 0 || d->warning[mjWARN_CNSTRFULL].number > 0;
}

Pose MujocoPeer::BodyPose(int body) const {
  Impl& s = *impl_;
  const int id = s.mj_body[body];
  if (id < 0) return s.model->bodies[body].pose0;
  if (s.poses_stale) {
    mj_kinematics(s.m, s.d);
    s.poses_stale = false;
  }
  Pose X;
  X.p = Vec3(s.d->xpos[3 * id], s.d->xpos[3 * id + 1], s.d->xpos[3 * id + 2]);
  X.q = Quat(s.d->xquat[4 * id], s.d->xquat[4 * id + 1], s.d->xquat[4 * id + 2],
             s.d->xquat[4 * id + 3]);
  return X;
}

const MjcfExport& MujocoPeer::exported() const { return impl_->exported; }

const char* MujocoPeer::Version() { return mj_versionString(); }

}  // namespace contactlab
