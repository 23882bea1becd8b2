#include "app/model_import/urdf_import.h"

#include <console_bridge/console.h>
#include <tinyxml2.h>
#include <urdf_parser/urdf_parser.h>

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>

#include "app/mesh_loader.h"
#include "engine/geometry/collision.h"

namespace contactlab {
namespace {

namespace fs = std::filesystem;

std::string Num(double x) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof(buf), x);
  return std::string(buf, r.ptr);
}

// Collects urdfdom's console_bridge messages (errors and warnings) while it parses.
class CaptureHandler : public console_bridge::OutputHandler {
 public:
  void log(const std::string& text, console_bridge::LogLevel level, const char*, int) override {
    if (level >= console_bridge::CONSOLE_BRIDGE_LOG_ERROR) errors.push_back(text);
  }
  std::vector<std::string> errors;
};

std::mutex& ConsoleMutex() {
  static std::mutex m;
  return m;
}

// Lines of the elements of the file, by link and joint name.
struct LineIndex {
  const tinyxml2::XMLElement* robot = nullptr;
  std::map<std::string, const tinyxml2::XMLElement*> links, joints;

  static int Line(const tinyxml2::XMLElement* e) { return e ? e->GetLineNum() : 0; }
  // The k-th child `tag` of a link (collision, visual).
  const tinyxml2::XMLElement* LinkChild(const std::string& link, const char* tag, int k) const {
    auto it = links.find(link);
    if (it == links.end()) return nullptr;
    int n = 0;
    for (auto* c = it->second->FirstChildElement(tag); c; c = c->NextSiblingElement(tag)) {
      if (n++ == k) return c;
    }
    return nullptr;
  }
  const tinyxml2::XMLElement* LinkFirst(const std::string& link, const char* tag) const {
    auto it = links.find(link);
    return it == links.end() ? nullptr : it->second->FirstChildElement(tag);
  }
  const tinyxml2::XMLElement* JointChild(const std::string& joint, const char* tag) const {
    auto it = joints.find(joint);
    if (it == joints.end()) return nullptr;
    return tag ? it->second->FirstChildElement(tag) : it->second;
  }
};

Vec3 V(const urdf::Vector3& v) { return Vec3(v.x, v.y, v.z); }
Pose P(const urdf::Pose& p) {
  Pose X;
  X.p = V(p.position);
  X.q = Quat(p.rotation.w, p.rotation.x, p.rotation.y, p.rotation.z);
  if (X.q.norm() > 0) X.q.normalize();
  return X;
}

// Lowest world z of a shape at pose X_WG.
double LowestZ(const Shape& s, const Pose& X) {
  const Vec3 c = X.p;
  const Mat3 R = X.R();
  switch (s.type) {
    case ShapeType::kSphere:
      return c.z() - s.radius;
    case ShapeType::kCapsule:
    case ShapeType::kCylinder: {
      const double az = std::abs(R(2, 2));
      const double side = std::sqrt(std::max(0.0, 1 - az * az));
      return c.z() - s.half_length * az - s.radius * (s.type == ShapeType::kCapsule ? 1 : side);
    }
    case ShapeType::kBox:
      return c.z() - (R.row(2).cwiseAbs() * s.half_extents)(0);
    case ShapeType::kConvexMesh: {
      double z = std::numeric_limits<double>::infinity();
      if (s.hull) {
        for (const Vec3& v : s.hull->vertices) z = std::min(z, X.Apply(v).z());
      }
      return z;
    }
    case ShapeType::kHalfSpace:
      break;
  }
  return std::numeric_limits<double>::infinity();
}

// World-space bounding box of a shape (conservative for rotated round shapes).
void Extend(const Shape& s, const Pose& X, Vec3* lo, Vec3* hi) {
  auto add = [&](const Vec3& p) {
    *lo = lo->cwiseMin(p);
    *hi = hi->cwiseMax(p);
  };
  if (s.type == ShapeType::kConvexMesh && s.hull) {
    for (const Vec3& v : s.hull->vertices) add(X.Apply(v));
    return;
  }
  double r = 0;
  switch (s.type) {
    case ShapeType::kSphere: r = s.radius; break;
    case ShapeType::kCapsule:
    case ShapeType::kCylinder: r = std::hypot(s.radius, s.half_length) + s.radius; break;
    case ShapeType::kBox: r = s.half_extents.norm(); break;
    default: return;
  }
  add(X.p - Vec3::Constant(r));
  add(X.p + Vec3::Constant(r));
}

class Converter {
 public:
  Converter(const std::string& path, const UrdfImportOptions& options, UrdfImportReport* report)
      : path_(path), options_(options), report_(report) {}

  Scene Run() {
    ReadXml();
    Parse();
    Scene scene;
    scene.path = path_;
    model_ = &scene.model;
    Materials();
    Bodies();
    Geoms();
    Visuals();
    MasslessGroups(has_mass_);
    Mimics();
    Exclusions();
    OverlapExclusions();
    Reports();
    scene.settings.time_step = 1e-3;
    scene.settings.gravity = Vec3(0, 0, -9.81);
    Place(&scene);
    try {
      scene.settings.Validate();
      scene.model.Finalize();
    } catch (const std::invalid_argument& e) {
      throw SceneError(path_ + ": model: " + e.what());
    }
    return scene;
  }

 private:
  [[noreturn]] void Fail(int line, const std::string& element, const std::string& what) const {
    throw SceneError(path_ + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": " +
                     element + ": " + what);
  }
  void Warn(int line, const std::string& element, const std::string& name,
            const std::string& what) {
    report_->warnings.push_back(path_ + (line > 0 ? ":" + std::to_string(line) : std::string()) +
                                ": " + element + (name.empty() ? "" : " '" + name + "'") + ": " +
                                what);
  }

  // tinyxml2: well-formed XML, a <robot> root, named links and joints of known types.
  void ReadXml() {
    {
      std::ifstream probe(path_, std::ios::binary);
      if (!probe) throw SceneError(path_ + ": cannot open the file");
      std::ostringstream s;
      s << probe.rdbuf();
      text_ = s.str();
    }
    if (doc_.Parse(text_.c_str(), text_.size()) != tinyxml2::XML_SUCCESS) {
      const int line = std::max(1, doc_.ErrorLineNum());
      std::string reason;
      switch (doc_.ErrorID()) {
        case tinyxml2::XML_ERROR_PARSING_TEXT: reason = "text where an element is expected"; break;
        case tinyxml2::XML_ERROR_MISMATCHED_ELEMENT:
          reason = "a closing tag does not match the open element";
          break;
        case tinyxml2::XML_ERROR_PARSING_ELEMENT: reason = "an element is not closed or is malformed"; break;
        case tinyxml2::XML_ERROR_PARSING_ATTRIBUTE: reason = "a malformed attribute"; break;
        case tinyxml2::XML_ERROR_EMPTY_DOCUMENT: reason = "the file is empty"; break;
        default: reason = doc_.ErrorName(); break;
      }
      Fail(line, "xml", "malformed XML: " + reason + " (" + doc_.ErrorName() + ")");
    }
    const tinyxml2::XMLElement* root = doc_.RootElement();
    if (!root) Fail(1, "robot", "not a URDF file: no XML element (expected <robot>)");
    if (std::string(root->Name()) != "robot") {
      Fail(root->GetLineNum(), root->Name(),
           std::string("not a URDF file: the root element is <") + root->Name() +
               ">, expected <robot>");
    }
    lines_.robot = root;
    static const std::set<std::string> kTypes{"revolute", "continuous", "prismatic",
                                              "fixed",    "floating",   "planar"};
    for (auto* e = root->FirstChildElement("link"); e; e = e->NextSiblingElement("link")) {
      const char* name = e->Attribute("name");
      if (!name || !*name) Fail(e->GetLineNum(), "link", "no name attribute");
      if (!lines_.links.emplace(name, e).second) {
        Fail(e->GetLineNum(), "link '" + std::string(name) + "'",
             "a second link of this name (the first at line " +
                 std::to_string(lines_.links[name]->GetLineNum()) + ")");
      }
      ++report_->urdf_links;
      report_->urdf_collisions += CountChildren(e, "collision");
      if (auto* in = e->FirstChildElement("inertial")) {
        if (auto* m = in->FirstChildElement("mass")) report_->urdf_total_mass += m->DoubleAttribute("value");
      }
    }
    for (auto* e = root->FirstChildElement("joint"); e; e = e->NextSiblingElement("joint")) {
      const char* name = e->Attribute("name");
      if (!name || !*name) Fail(e->GetLineNum(), "joint", "no name attribute");
      const char* type = e->Attribute("type");
      const std::string label = "joint '" + std::string(name) + "'";
      if (!type) Fail(e->GetLineNum(), label, "no type attribute (revolute, continuous, "
                                             "prismatic, fixed, floating, planar)");
      if (!kTypes.count(type)) {
        Fail(e->GetLineNum(), label,
             "unknown joint type '" + std::string(type) +
                 "' (revolute, continuous, prismatic, fixed, floating, planar)");
      }
      for (const char* tag : {"parent", "child"}) {
        auto* c = e->FirstChildElement(tag);
        if (!c || !c->Attribute("link")) {
          Fail(e->GetLineNum(), label, std::string("no <") + tag + " link=...> element");
        }
        if (!lines_.links.count(c->Attribute("link"))) {
          Fail(c->GetLineNum(), label,
               std::string(tag) + " link '" + c->Attribute("link") + "' is not defined");
        }
      }
      if (!lines_.joints.emplace(name, e).second) {
        Fail(e->GetLineNum(), label, "a second joint of this name");
      }
      ++report_->urdf_joints;
    }
    if (report_->urdf_links == 0) Fail(root->GetLineNum(), "robot", "no <link> elements");
  }

  static int CountChildren(const tinyxml2::XMLElement* e, const char* tag) {
    int n = 0;
    for (auto* c = e->FirstChildElement(tag); c; c = c->NextSiblingElement(tag)) ++n;
    return n;
  }

  // urdfdom, with its console messages captured and turned into a SceneError on failure.
  void Parse() {
    CaptureHandler capture;
    {
      std::lock_guard<std::mutex> lock(ConsoleMutex());
      console_bridge::OutputHandler* previous = console_bridge::getOutputHandler();
      console_bridge::useOutputHandler(&capture);
      try {
        urdf_ = urdf::parseURDF(text_);
      } catch (const std::exception& e) {
        capture.errors.push_back(e.what());
      }
      console_bridge::useOutputHandler(previous);
    }
    if (urdf_) return;
    std::string msg;
    for (const std::string& e : capture.errors) msg += (msg.empty() ? "" : "; ") + e;
    if (msg.empty()) msg = "urdfdom could not parse the file";
    // The element: the first bracketed joint or link name in urdfdom's messages.
    static const std::regex bracket("\\[([^\\]]*)\\]");
    for (auto it = std::sregex_iterator(msg.begin(), msg.end(), bracket);
         it != std::sregex_iterator(); ++it) {
      const std::string name = (*it)[1];
      if (lines_.joints.count(name)) Fail(lines_.joints[name]->GetLineNum(), "joint '" + name + "'", msg);
      if (lines_.links.count(name)) Fail(lines_.links[name]->GetLineNum(), "link '" + name + "'", msg);
    }
    Fail(lines_.robot->GetLineNum(), "robot", msg);
  }

  void Materials() {
    model_->materials = {Material{}};
    // <gazebo reference="LINK"><mu1>: friction of that link's collision geometry.
    for (auto* g = lines_.robot->FirstChildElement("gazebo"); g;
         g = g->NextSiblingElement("gazebo")) {
      const char* ref = g->Attribute("reference");
      std::vector<std::string> other;
      double mu1 = -1, mu2 = -1;
      for (auto* c = g->FirstChildElement(); c; c = c->NextSiblingElement()) {
        const std::string tag = c->Name();
        if ((tag == "mu1" || tag == "mu2") && ref && lines_.links.count(ref)) {
          double v = 0;
          if (c->QueryDoubleText(&v) != tinyxml2::XML_SUCCESS || !(v >= 0) || !std::isfinite(v)) {
            Fail(c->GetLineNum(), tag, "friction must be a number >= 0");
          }
          (tag == "mu1" ? mu1 : mu2) = v;
        } else {
          other.push_back(tag);
        }
      }
      if (mu1 >= 0 || mu2 >= 0) {
        const double mu = mu1 >= 0 ? mu1 : mu2;
        if (mu1 >= 0 && mu2 >= 0 && mu1 != mu2) {
          Warn(g->GetLineNum(), "gazebo", ref,
               "mu1 " + Num(mu1) + " and mu2 " + Num(mu2) + " differ: isotropic μ = mu1 is used");
        }
        friction_of_link_[ref] = mu;
      }
      if (!other.empty()) {
        std::string list;
        for (const std::string& t : other) list += (list.empty() ? "" : ", ") + t;
        Warn(g->GetLineNum(), "gazebo", ref ? ref : "",
             "Gazebo extensions are not carried (" + list + ")");
      }
    }
  }

  int MaterialFor(double mu) {
    auto it = material_of_mu_.find(mu);
    if (it != material_of_mu_.end()) return it->second;
    Material mat;
    mat.name = "urdf_mu_" + Num(mu);
    mat.friction = mu;
    model_->materials.push_back(mat);
    return material_of_mu_[mu] = static_cast<int>(model_->materials.size()) - 1;
  }

  static bool IsMoving(const urdf::Joint& j) { return j.type != urdf::Joint::FIXED; }

  // Inertial of a link into body (mass, COM, inertia rotated into the link axes). False when the
  // link has no mass.
  bool Inertial(const urdf::Link& link, Body* body) {
    if (!link.inertial) return false;
    const urdf::Inertial& in = *link.inertial;
    const auto* ie = lines_.LinkFirst(link.name, "inertial");
    const int line = LineIndex::Line(ie);
    const std::string element = "inertial (link '" + link.name + "')";
    if (!std::isfinite(in.mass) || in.mass < 0) {
      Fail(line, element, "mass " + Num(in.mass) + " must be finite and >= 0");
    }
    Mat3 I;
    I << in.ixx, in.ixy, in.ixz, in.ixy, in.iyy, in.iyz, in.ixz, in.iyz, in.izz;
    if (!I.allFinite()) Fail(line, element, "inertia must be finite");
    if (in.mass == 0) {
      if (I.cwiseAbs().maxCoeff() > 0) {
        Fail(line, element, "mass 0 with a non-zero inertia");
      }
      return false;
    }
    Eigen::SelfAdjointEigenSolver<Mat3> eig(I, Eigen::EigenvaluesOnly);
    const Vec3 d = eig.eigenvalues();
    // Principal moments must be positive and satisfy the triangle inequality (a rigid body's).
    const double tol = 1e-9 * std::max(d.cwiseAbs().maxCoeff(), 1e-300);
    if (!(d.minCoeff() > 0) || d(0) + d(1) < d(2) - tol) {
      const int iline = LineIndex::Line(ie ? ie->FirstChildElement("inertia") : nullptr);
      Fail(iline > 0 ? iline : line, "inertia (link '" + link.name + "')",
           "not a rigid body's inertia: principal moments " + Num(d(0)) + ", " + Num(d(1)) +
               ", " + Num(d(2)) + " kg m² must be positive and each at most the sum of the "
               "other two");
    }
    const Pose X = P(in.origin);
    const Mat3 R = X.R();
    body->mass = in.mass;
    body->com = X.p;
    body->inertia = R * I * R.transpose();
    body->inertia = 0.5 * (body->inertia + body->inertia.transpose());
    return true;
  }

  void Bodies() {
    Model& model = *model_;
    urdf::LinkConstSharedPtr root = urdf_->getRoot();
    if (!root) Fail(lines_.robot->GetLineNum(), "robot", "no root link");
    report_->world_link = root->name == "world" && !root->inertial;
    // Depth-first from the root: parents before children.
    std::vector<urdf::LinkConstSharedPtr> order;
    std::function<void(const urdf::LinkConstSharedPtr&)> walk = [&](const urdf::LinkConstSharedPtr& l) {
      order.push_back(l);
      for (const auto& c : l->child_links) walk(c);
    };
    walk(root);
    if (static_cast<int>(order.size()) != report_->urdf_links) {
      Fail(lines_.robot->GetLineNum(), "robot",
           "links not connected to the root link '" + root->name + "'");
    }
    std::vector<bool> has_mass;
    for (const auto& link : order) {
      if (link == root && report_->world_link) {
        report_->body_of_link[link->name] = -1;
        continue;
      }
      Body body;
      body.name = link->name;
      const bool massive = Inertial(*link, &body);
      if (!massive) {
        body.mass = kUrdfLinkMass;
        body.com = Vec3::Zero();
        body.inertia = Mat3::Identity() * kUrdfLinkInertia;
        ++report_->massless_links;
      }
      model.bodies.push_back(body);
      has_mass.push_back(massive);
      const int b = static_cast<int>(model.bodies.size()) - 1;
      report_->body_of_link[link->name] = b;
      link_of_body_.push_back(link);

      Joint j;
      const urdf::JointConstSharedPtr uj = link->parent_joint;
      if (!uj) {
        // The root link: free, or welded to the world.
        j.name = link->name + "/root";
        j.type = options_.fixed_base ? JointType::kFixed : JointType::kFree;
        j.parent = -1;
        j.child = b;
        model.joints.push_back(j);
        report_->root_joint = static_cast<int>(model.joints.size()) - 1;
        continue;
      }
      const auto* je = lines_.JointChild(uj->name, nullptr);
      const int line = LineIndex::Line(je);
      const std::string label = "joint '" + uj->name + "'";
      j.name = uj->name;
      j.parent = report_->body_of_link.at(uj->parent_link_name);
      j.child = b;
      j.parent_from_joint = P(uj->parent_to_joint_origin_transform);
      j.child_from_joint = Pose{};
      const Vec3 axis = V(uj->axis);
      switch (uj->type) {
        case urdf::Joint::REVOLUTE:
        case urdf::Joint::CONTINUOUS:
        case urdf::Joint::PRISMATIC: {
          j.type = uj->type == urdf::Joint::PRISMATIC ? JointType::kPrismatic
                                                      : JointType::kRevolute;
          if (!axis.allFinite() || !(axis.norm() > 1e-12)) {
            Fail(LineIndex::Line(lines_.JointChild(uj->name, "axis")) > 0
                     ? LineIndex::Line(lines_.JointChild(uj->name, "axis"))
                     : line,
                 label, "axis must be a finite non-zero vector");
          }
          j.axis = axis.normalized();
          if (uj->type != urdf::Joint::CONTINUOUS && uj->limits) {
            const urdf::JointLimits& lim = *uj->limits;
            const int lline = LineIndex::Line(lines_.JointChild(uj->name, "limit"));
            if (!std::isfinite(lim.lower) || !std::isfinite(lim.upper) || lim.lower > lim.upper) {
              Fail(lline > 0 ? lline : line, label,
                   "limit lower " + Num(lim.lower) + " must be at most upper " + Num(lim.upper));
            }
            j.limited = true;
            j.lower = lim.lower;
            j.upper = lim.upper;
          }
          if (uj->limits && (uj->limits->effort != 0 || uj->limits->velocity != 0)) ++effort_limits_;
          break;
        }
        case urdf::Joint::FIXED:
          j.type = JointType::kFixed;
          break;
        case urdf::Joint::FLOATING:
          if (j.parent == -1) {
            j.type = JointType::kFree;
            j.parent_from_joint = Pose{};
            // The free joint's coordinates are the world pose: start at the joint origin.
            model.bodies[b].pose0 = P(uj->parent_to_joint_origin_transform);
          } else {
            j.type = JointType::kFixed;
            Warn(line, "joint", uj->name,
                 "floating joint between two links: a free joint connects a body to the world "
                 "only; imported as fixed");
          }
          break;
        case urdf::Joint::PLANAR:
          j.type = JointType::kFixed;
          Warn(line, "joint", uj->name, "planar joints are not supported: imported as fixed");
          break;
        default:
          Fail(line, label, "unknown joint type");
      }
      if (uj->dynamics) {
        if (!std::isfinite(uj->dynamics->damping) || uj->dynamics->damping < 0) {
          Fail(LineIndex::Line(lines_.JointChild(uj->name, "dynamics")), label,
               "damping " + Num(uj->dynamics->damping) + " must be finite and >= 0");
        }
        if (j.type == JointType::kRevolute || j.type == JointType::kPrismatic) {
          j.damping = uj->dynamics->damping;
        }
        if (uj->dynamics->friction != 0) {
          Warn(LineIndex::Line(lines_.JointChild(uj->name, "dynamics")), "dynamics", uj->name,
               "joint friction " + Num(uj->dynamics->friction) + " is not carried");
        }
      }
      if (uj->safety) ++safety_;
      model.joints.push_back(j);
      report_->joint_of_urdf[uj->name] = static_cast<int>(model.joints.size()) - 1;
    }
    has_mass_ = has_mass;
  }

  // A rigid group (bodies welded by fixed joints) on a moving joint must have mass.
  void MasslessGroups(const std::vector<bool>& has_mass) {
    const Model& model = *model_;
    const int nb = static_cast<int>(model.bodies.size());
    group_.assign(nb, -1);
    std::vector<int> inbound(nb, -1);
    for (int k = 0; k < static_cast<int>(model.joints.size()); ++k) inbound[model.joints[k].child] = k;
    for (int b = 0; b < nb; ++b) {  // parents come first
      const Joint& j = model.joints[inbound[b]];
      group_[b] = (j.type == JointType::kFixed && j.parent >= 0) ? group_[j.parent] : b;
    }
    std::vector<bool> group_mass(nb, false), group_children(nb, false);
    for (int b = 0; b < nb; ++b) {
      if (has_mass[b]) group_mass[group_[b]] = true;
      const Joint& j = model.joints[inbound[b]];
      if (j.parent >= 0 && group_[j.parent] != group_[b]) group_children[group_[j.parent]] = true;
    }
    for (int g = 0; g < nb; ++g) {
      if (group_[g] != g || group_mass[g]) continue;
      Joint& j = model_->joints[inbound[g]];
      if (j.type == JointType::kFixed) continue;  // welded to the world
      const std::string& link = model.bodies[g].name;
      const int line = LineIndex::Line(lines_.links.count(link) ? lines_.links.at(link) : nullptr);
      if (inbound[g] == report_->root_joint && !group_children[g]) {
        // A root without mass and without moving links (a fixture): it cannot move freely.
        j.type = JointType::kFixed;
        Warn(line, "link", link,
             "no <inertial> on the root link and no moving joint: welded to the world");
        continue;
      }
      if (!group_children[g]) {
        Fail(line, "link '" + link + "'",
             "no <inertial> (or mass 0) on a link that a moving joint carries and that carries "
             "no other moving link: it would have no dynamics (give it an <inertial>)");
      }
      Warn(line, "link", link,
           "no <inertial> on a moving link: given mass " + Num(kUrdfLinkMass) + " kg and inertia " +
               Num(kUrdfLinkInertia) + " kg m² (a link of a chain)");
    }
  }

  // Mesh file of a <mesh filename>, resolved; a SceneError with the line when not found.
  std::string MeshFile(const std::string& uri, int line, const std::string& element) {
    std::string error;
    const std::string file = ResolveUrdfUri(uri, path_, options_.package_paths, &error);
    if (file.empty()) Fail(line, element, "mesh '" + uri + "': " + error);
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) {
      Fail(line, element,
           "mesh '" + uri + "': no such file " + file +
               (file != uri ? " (resolved from '" + uri + "')" : std::string()));
    }
    return file;
  }

  static const tinyxml2::XMLElement* GeometryChild(const tinyxml2::XMLElement* e) {
    if (!e) return nullptr;
    const tinyxml2::XMLElement* g = e->FirstChildElement("geometry");
    return g && g->FirstChildElement() ? g->FirstChildElement() : (g ? g : e);
  }

  void Geoms() {
    Model& model = *model_;
    for (const auto& link : OrderedLinks()) {
      const int b = report_->body_of_link.at(link->name);
      Vec4 color = Vec4(0.7, 0.7, 0.75, 1.0);
      for (const auto& v : link->visual_array) {
        if (v && v->material && v->material->color.a > 0 &&
            (v->material->color.r + v->material->color.g + v->material->color.b) > 0) {
          color = Vec4(v->material->color.r, v->material->color.g, v->material->color.b, 1.0);
          break;
        }
      }
      auto fr = friction_of_link_.find(link->name);
      const int material = fr == friction_of_link_.end() ? 0 : MaterialFor(fr->second);
      for (size_t k = 0; k < link->collision_array.size(); ++k) {
        const urdf::Collision& c = *link->collision_array[k];
        const auto* ce = lines_.LinkChild(link->name, "collision", static_cast<int>(k));
        const auto* gel = GeometryChild(ce);
        const int line = LineIndex::Line(gel ? gel : ce);
        const std::string where = "(link '" + link->name + "', collision " + std::to_string(k + 1) + ")";
        Geom geom;
        geom.name = c.name.empty() ? link->name + "/collision" + std::to_string(k + 1) : c.name;
        geom.body = b;
        geom.local = P(c.origin);
        geom.material = material;
        geom.color = color;
        if (!c.geometry) Fail(line, "collision " + where, "no geometry");
        switch (c.geometry->type) {
          case urdf::Geometry::SPHERE: {
            const auto& s = static_cast<const urdf::Sphere&>(*c.geometry);
            if (!(s.radius > 0) || !std::isfinite(s.radius)) {
              Fail(line, "sphere " + where, "radius " + Num(s.radius) + " must be > 0");
            }
            geom.shape.type = ShapeType::kSphere;
            geom.shape.radius = s.radius;
            break;
          }
          case urdf::Geometry::BOX: {
            const auto& s = static_cast<const urdf::Box&>(*c.geometry);
            const Vec3 size = V(s.dim);
            if (!size.allFinite() || !(size.minCoeff() > 0)) {
              Fail(line, "box " + where, "size must be three numbers > 0");
            }
            geom.shape.type = ShapeType::kBox;
            geom.shape.half_extents = 0.5 * size;
            break;
          }
          case urdf::Geometry::CYLINDER: {
            const auto& s = static_cast<const urdf::Cylinder&>(*c.geometry);
            if (!(s.radius > 0) || !(s.length > 0) || !std::isfinite(s.radius) ||
                !std::isfinite(s.length)) {
              Fail(line, "cylinder " + where, "radius and length must be > 0");
            }
            geom.shape.type = ShapeType::kCylinder;
            geom.shape.radius = s.radius;
            geom.shape.half_length = 0.5 * s.length;
            break;
          }
          case urdf::Geometry::MESH: {
            const auto& s = static_cast<const urdf::Mesh&>(*c.geometry);
            const std::string file = MeshFile(s.filename, line, "mesh " + where);
            const Vec3 scale = V(s.scale);
            if (!scale.allFinite() || !(scale.cwiseAbs().minCoeff() > 0)) {
              Fail(line, "mesh " + where, "scale must be three non-zero numbers");
            }
            try {
              geom.shape.type = ShapeType::kConvexMesh;
              geom.shape.hull = LoadConvexMesh(file, scale);
            } catch (const std::exception& e) {
              Fail(line, "mesh " + where, e.what());
            }
            break;
          }
          default:
            Warn(line, "collision", geom.name, "geometry type not supported: left out");
            continue;
        }
        model.geoms.push_back(geom);
      }
    }
  }

  // Visual meshes: resolved and read (not drawn), so a missing or broken file is an error.
  void Visuals() {
    for (const auto& link : OrderedLinks()) {
      for (size_t k = 0; k < link->visual_array.size(); ++k) {
        const urdf::Visual& v = *link->visual_array[k];
        if (!v.geometry || v.geometry->type != urdf::Geometry::MESH) continue;
        ++report_->urdf_visual_meshes;
        const auto& m = static_cast<const urdf::Mesh&>(*v.geometry);
        const auto* ve = lines_.LinkChild(link->name, "visual", static_cast<int>(k));
        const auto* gel = GeometryChild(ve);
        const int line = LineIndex::Line(gel ? gel : ve);
        const std::string element =
            "mesh (link '" + link->name + "', visual " + std::to_string(k + 1) + ")";
        const std::string file = MeshFile(m.filename, line, element);
        try {
          ReadMeshCached(file);
        } catch (const std::exception& e) {
          Fail(line, element, e.what());
        }
      }
    }
  }

  void Mimics() {
    Model& model = *model_;
    for (const auto& [name, uj] : urdf_->joints_) {
      if (!uj->mimic) continue;
      const int line = LineIndex::Line(lines_.JointChild(name, "mimic"));
      const std::string label = "mimic (joint '" + name + "')";
      auto a = report_->joint_of_urdf.find(name);
      auto b = report_->joint_of_urdf.find(uj->mimic->joint_name);
      if (b == report_->joint_of_urdf.end()) {
        Fail(line, label, "mimicked joint '" + uj->mimic->joint_name + "' is not defined");
      }
      auto one_dof = [&](int j) {
        return model.joints[j].type == JointType::kRevolute ||
               model.joints[j].type == JointType::kPrismatic;
      };
      if (!one_dof(a->second) || !one_dof(b->second)) {
        Warn(line, "mimic", name,
             "a mimic joint couples two revolute, continuous or prismatic joints: left out");
        continue;
      }
      if (!std::isfinite(uj->mimic->multiplier) || !std::isfinite(uj->mimic->offset)) {
        Fail(line, label, "multiplier and offset must be finite");
      }
      Equality e;
      e.name = name + "/mimic";
      e.type = EqualityType::kJointCoupling;
      e.joint_a = a->second;
      e.joint_b = b->second;
      e.gear = uj->mimic->multiplier;
      e.offset = uj->mimic->offset;
      model.equalities.push_back(e);
    }
  }

  // Welded groups never touch, nor a group and the group its moving joint hangs from.
  void Exclusions() {
    Model& model = *model_;
    const int nb = static_cast<int>(model.bodies.size());
    std::vector<bool> has_geom(nb, false);
    for (const Geom& g : model.geoms) {
      if (g.body >= 0) has_geom[g.body] = true;
    }
    std::vector<int> parent_group(nb, -1);
    for (const Joint& j : model.joints) {
      if (group_[j.child] == j.child && j.parent >= 0) parent_group[j.child] = group_[j.parent];
    }
    for (int a = 0; a < nb; ++a) {
      for (int b = a + 1; b < nb; ++b) {
        if (!has_geom[a] || !has_geom[b]) continue;
        const int ga = group_[a], gb = group_[b];
        if (ga == gb || parent_group[ga] == gb || parent_group[gb] == ga) {
          model.excluded_body_pairs.emplace_back(a, b);
        }
      }
    }
  }

  // Body poses at q = 0 (the free root at its pose0).
  std::vector<Pose> PosesAtZero() const {
    const Model& model = *model_;
    std::vector<Pose> world(model.bodies.size());
    for (const Joint& j : model.joints) {  // parents come before children
      const Pose parent = j.parent >= 0 ? world[j.parent] : Pose{};
      world[j.child] = j.type == JointType::kFree
                           ? model.bodies[j.child].pose0
                           : parent * j.parent_from_joint * j.child_from_joint.Inverse();
    }
    return world;
  }

  // Bodies whose collision geometry overlaps at q = 0 never touch (the convex hulls of
  // neighbouring links often overlap where the links' meshes do not; MoveIt's setup assistant
  // disables such pairs likewise). Reported with the count.
  void OverlapExclusions() {
    Model& model = *model_;
    const int nb = static_cast<int>(model.bodies.size());
    const std::vector<Pose> world = PosesAtZero();
    std::set<std::pair<int, int>> excluded;
    for (const auto& p : model.excluded_body_pairs) {
      excluded.insert({std::min(p.first, p.second), std::max(p.first, p.second)});
    }
    for (const Joint& j : model.joints) {
      if (j.parent >= 0) excluded.insert({std::min(j.parent, j.child), std::max(j.parent, j.child)});
    }
    const int ng = static_cast<int>(model.geoms.size());
    std::vector<Vec3> lo(ng), hi(ng);
    for (int g = 0; g < ng; ++g) {
      if (model.geoms[g].body >= 0) {
        ShapeAabb(model.geoms[g].shape, world[model.geoms[g].body] * model.geoms[g].local, 0,
                  &lo[g], &hi[g]);
      }
    }
    int count = 0;
    std::string example;
    std::vector<ContactPoint> points;
    for (int a = 0; a < ng; ++a) {
      const Geom& ga = model.geoms[a];
      if (ga.body < 0 || !ga.collide) continue;
      for (int b = a + 1; b < ng; ++b) {
        const Geom& gb = model.geoms[b];
        if (gb.body < 0 || !gb.collide || gb.body == ga.body) continue;
        const std::pair<int, int> key{std::min(ga.body, gb.body), std::max(ga.body, gb.body)};
        if (excluded.count(key)) continue;
        if ((lo[a].array() > hi[b].array()).any() || (lo[b].array() > hi[a].array()).any()) continue;
        points.clear();
        CollideShapes(ga.shape, world[ga.body] * ga.local, gb.shape, world[gb.body] * gb.local, 0,
                      &points);
        bool overlap = false;
        for (const ContactPoint& c : points) overlap |= c.phi < 0;
        if (!overlap) continue;
        excluded.insert(key);
        model.excluded_body_pairs.push_back(key);
        if (count++ == 0) {
          example = "'" + model.bodies[key.first].name + "'–'" + model.bodies[key.second].name + "'";
        }
      }
    }
    (void)nb;
    if (count > 0) {
      report_->overlap_exclusions = count;
      report_->warnings.push_back(
          path_ + ": collision: " + std::to_string(count) +
          " body pairs whose collision geometry overlaps at q = 0 never touch (e.g. " + example +
          ")");
    }
  }

  void Reports() {
    for (auto* t = lines_.robot->FirstChildElement("transmission"); t;
         t = t->NextSiblingElement("transmission")) {
      Warn(t->GetLineNum(), "transmission", t->Attribute("name") ? t->Attribute("name") : "",
           "transmissions (actuators) are not carried: the joints are passive");
    }
    if (effort_limits_ > 0) {
      report_->warnings.push_back(
          path_ + ": limit: effort and velocity limits of " + std::to_string(effort_limits_) +
          " joints are not carried (URDF joints have no actuator: they are passive)");
    }
    if (safety_ > 0) {
      report_->warnings.push_back(path_ + ": safety_controller: " + std::to_string(safety_) +
                                  " safety controllers (soft limits) are not carried");
    }
  }

  // Lifts the root onto the ground plane and points the camera at the model.
  void Place(Scene* scene) {
    Model& model = scene->model;
    std::vector<Pose> world(model.bodies.size());
    for (size_t k = 0; k < model.joints.size(); ++k) {
      const Joint& j = model.joints[k];
      const Pose parent = j.parent >= 0 ? world[j.parent] : Pose{};
      if (j.type == JointType::kFree) {
        world[j.child] = model.bodies[j.child].pose0;
      } else {
        world[j.child] = parent * j.parent_from_joint * j.child_from_joint.Inverse();
      }
    }
    auto geom_pose = [&](const Geom& g) { return g.body >= 0 ? world[g.body] * g.local : g.local; };
    const int root = report_->root_joint;
    if (options_.ground_plane) {
      double low = std::numeric_limits<double>::infinity();
      for (const Geom& g : model.geoms) {
        if (g.collide) low = std::min(low, LowestZ(g.shape, geom_pose(g)));
      }
      if (root >= 0 && std::isfinite(low)) {
        report_->lift = -low;
        const Vec3 dz(0, 0, -low);
        Joint& j = model.joints[root];
        if (j.type == JointType::kFree) {
          model.bodies[j.child].pose0.p += dz;
        } else {
          j.parent_from_joint.p += dz;
        }
        for (Pose& X : world) X.p += dz;
      }
      Geom ground;
      ground.name = "ground";
      ground.body = -1;
      ground.shape.type = ShapeType::kHalfSpace;
      ground.color = Vec4(0.55, 0.55, 0.5, 1.0);
      model.geoms.push_back(ground);
    }
    Vec3 lo = Vec3::Constant(std::numeric_limits<double>::infinity()), hi = -lo;
    for (const Geom& g : model.geoms) Extend(g.shape, geom_pose(g), &lo, &hi);
    if (lo.allFinite() && hi.allFinite()) {
      scene->camera.target = 0.5 * (lo + hi);
      scene->camera.distance = std::max(1.0, 1.5 * (hi - lo).maxCoeff());
    }
  }

  std::vector<urdf::LinkConstSharedPtr> OrderedLinks() const {
    std::vector<urdf::LinkConstSharedPtr> links = link_of_body_;
    if (report_->world_link) links.insert(links.begin(), urdf_->getRoot());
    return links;
  }

  std::string path_;
  UrdfImportOptions options_;
  UrdfImportReport* report_;
  std::string text_;
  tinyxml2::XMLDocument doc_;
  LineIndex lines_;
  urdf::ModelInterfaceSharedPtr urdf_;
  Model* model_ = nullptr;
  std::vector<urdf::LinkConstSharedPtr> link_of_body_;
  std::vector<int> group_;
  std::vector<bool> has_mass_;
  std::map<std::string, double> friction_of_link_;
  std::map<double, int> material_of_mu_;
  int effort_limits_ = 0, safety_ = 0;
};

}  // namespace

std::string ResolveUrdfUri(const std::string& uri, const std::string& model_path,
                           const std::vector<std::string>& package_paths, std::string* error) {
  const fs::path model_dir = fs::absolute(fs::path(model_path)).parent_path();
  const std::string kPackage = "package://", kFile = "file://";
  if (uri.rfind(kFile, 0) == 0) return uri.substr(kFile.size());
  if (uri.rfind(kPackage, 0) != 0) {
    const fs::path p(uri);
    return p.is_absolute() ? p.string() : (fs::path(model_path).parent_path() / p).string();
  }
  const std::string rest = uri.substr(kPackage.size());
  const size_t slash = rest.find('/');
  const std::string name = rest.substr(0, slash);
  const std::string inside = slash == std::string::npos ? "" : rest.substr(slash + 1);
  std::error_code ec;
  std::vector<std::string> looked;
  for (const std::string& entry : package_paths) {
    const size_t eq = entry.find('=');
    if (eq != std::string::npos) {
      if (entry.substr(0, eq) == name) return (fs::path(entry.substr(eq + 1)) / inside).string();
      continue;
    }
    const fs::path dir = fs::path(entry) / name;
    if (fs::is_directory(dir, ec)) return (dir / inside).string();
    looked.push_back(dir.string());
  }
  for (fs::path a = model_dir; !a.empty(); a = a.parent_path()) {
    if (a.filename() == name) return (a / inside).string();
    const fs::path sub = a / name;
    if (fs::is_directory(sub, ec)) return (sub / inside).string();
    if (a == a.parent_path()) break;
  }
  std::string where;
  for (const std::string& l : looked) where += l + ", ";
  *error = "package '" + name + "' not found (looked in: " + where +
           "--package-path " + name + "=DIR entries, folders called '" + name +
           "' among the ancestors of " + model_dir.string() + " and inside them; give "
           "--package-path " + name + "=DIR)";
  return "";
}

Scene ImportUrdf(const std::string& path, const UrdfImportOptions& options,
                 UrdfImportReport* report) {
  UrdfImportReport local;
  if (!report) report = &local;
  *report = UrdfImportReport{};
  for (const std::string& entry : options.package_paths) {
    const size_t eq = entry.find('=');
    const std::string dir = eq == std::string::npos ? entry : entry.substr(eq + 1);
    std::error_code ec;
    if ((eq != std::string::npos && (eq == 0 || dir.empty())) || entry.empty()) {
      throw SceneError(path + ": --package-path '" + entry + "': expected NAME=DIR or DIR");
    }
    if (!fs::is_directory(dir, ec)) {
      throw SceneError(path + ": --package-path '" + entry + "': no such folder " + dir);
    }
  }
  return Converter(path, options, report).Run();
}

}  // namespace contactlab
