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

#include "app/model_import/mjcf_import.h"
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

bool IsMjcfScenePath(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  return ext == ".xml" || ext == ".XML" || ext == ".mjcf";
}

struct MujocoPeer::Impl {
  MjcfExport exported;
  bool from_file = false;  // MuJoCo loaded the scene's own MJCF file
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

namespace {

void SetCone(const std::string& cone, mjModel* m) {
  if (cone.empty()) return;
  if (cone == "elliptic") {
    m->opt.cone = mjCONE_ELLIPTIC;
  } else if (cone == "pyramidal") {
    m->opt.cone = mjCONE_PYRAMIDAL;
  } else {
    throw std::runtime_error("cone '" + cone + "': expected elliptic or pyramidal");
  }
}

}  // namespace

MujocoPeer::MujocoPeer(const Scene& scene, const MujocoPeerOptions& options)
    : impl_(std::make_unique<Impl>()) {
  if (!IsMjcfScenePath(scene.path)) {
    MujocoPeer exported(scene, options.export_options);
    impl_.swap(exported.impl_);
    SetCone(options.cone, impl_->m);
    mj_forward(impl_->m, impl_->d);
    return;
  }
  InstallHandlers();
  Impl& s = *impl_;
  s.model = &scene.model;
  s.from_file = true;
  // The importer's map of MuJoCo bodies to ContactLab bodies (the import is deterministic, so
  // a second import of the file gives the scene's).
  MjcfImportReport report;
  (void)ImportMjcf(scene.path, &report);
  char error[1024] = "";
  s.m = mj_loadXML(scene.path.c_str(), nullptr, error, sizeof(error));
  if (!s.m) throw std::runtime_error(std::string("MuJoCo could not load the model: ") + error);
  if (s.m->nv != scene.model.nv) {
    throw std::runtime_error("MuJoCo model has nv = " + std::to_string(s.m->nv) +
                             "; the imported scene has " + std::to_string(scene.model.nv));
  }
  SetCone(options.cone, s.m);
  if (options.nconmax > 0) s.m->nconmax = options.nconmax;
  if (options.njmax > 0) s.m->njmax = options.njmax;
  s.m->opt.enableflags |= mjENBL_ENERGY;
  s.d = mj_makeData(s.m);
  if (!s.d) throw std::runtime_error("MuJoCo could not allocate mjData");
  if (s.m->nkey > 0) mj_resetDataKeyframe(s.m, s.d, 0);
  s.exported.nq = s.m->nq;
  s.exported.nv = s.m->nv;
  s.exported.nconmax = s.m->nconmax;
  s.exported.njmax = s.m->njmax;
  const int nb = static_cast<int>(scene.model.bodies.size());
  s.mj_body.assign(nb, -1);
  for (int i = 1; i < s.m->nbody && i < static_cast<int>(report.body_of_mj.size()); ++i) {
    const int b = report.body_of_mj[i];
    if (b >= 0 && b < nb) s.mj_body[b] = i;
  }
  mj_forward(s.m, s.d);
}

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
  s.m->opt.enableflags |= mjENBL_ENERGY;
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
  const bool pyramidal = mj_isPyramidal(m);
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
    if (pyramidal && con.dim > 1) {
      // Edge rows 2k, 2k + 1 (k = 0, 1 the sliding directions): J_n ± μ_k J_tk. Torsional and
      // rolling edges (condim 4, 6) add to the normal impulse as well: every edge force is a
      // normal force.
      if (r + 2 * (con.dim - 1) > d->nefc) continue;
      double fn = 0;
      for (int k = 0; k < 2 * (con.dim - 1); ++k) fn += d->efc_force[r + k];
      c.gamma_n = fn * dt;
      c.v_n = 0.5 * (row_times_qvel(r) + row_times_qvel(r + 1));
      if (c.frictional) {
        for (int k = 0; k < 2; ++k) {
          const double mu_k = con.friction[k];
          const double f_plus = d->efc_force[r + 2 * k], f_minus = d->efc_force[r + 2 * k + 1];
          c.gamma_t(k) = mu_k * (f_plus - f_minus) * dt;
          c.v_t(k) = mu_k > 0 ? (row_times_qvel(r + 2 * k) - row_times_qvel(r + 2 * k + 1)) /
                                    (2 * mu_k)
                              : 0.0;
        }
      }
      samples.push_back(c);
      continue;
    }
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

double MujocoPeer::MechanicalEnergy() const {
  Impl& s = *impl_;
  // mj_step leaves xpos, qM at the start of the step: recompute at the current state.
  mj_kinematics(s.m, s.d);
  mj_comPos(s.m, s.d);
  mj_crb(s.m, s.d);
  mj_energyPos(s.m, s.d);
  mj_energyVel(s.m, s.d);
  s.poses_stale = false;
  return s.d->energy[0] + s.d->energy[1];
}

std::string MujocoPeer::cone() const {
  return impl_->m->opt.cone == mjCONE_PYRAMIDAL ? "pyramidal" : "elliptic";
}

double MujocoPeer::tolerance() const { return impl_->m->opt.tolerance; }

int MujocoPeer::iteration_cap() const { return impl_->m->opt.iterations; }

bool MujocoPeer::loaded_file() const { return impl_->from_file; }

int MujocoPeer::nconmax() const { return impl_->m->nconmax; }

int MujocoPeer::njmax() const { return impl_->m->njmax; }

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
