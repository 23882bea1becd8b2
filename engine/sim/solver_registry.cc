#include "engine/sim/solver_registry.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "engine/sim/simulator.h"
#include "engine/solvers/canal/canal_solver.h"
#include "engine/solvers/first_order/first_order_solver.h"
#include "engine/solvers/pgs/pgs_solver.h"
#include "engine/solvers/sap/sap_solver.h"
#include "engine/solvers/subadmm/subadmm_solver.h"

namespace contactlab {

namespace {

struct SolverEntry {
  SolverType type;
  const char* name;
  const char* display;
  bool all_models;  // accepts every contact model (else linear only)
};

// The registry, in enum order.
constexpr SolverEntry kSolvers[kNumSolverTypes] = {
    {SolverType::kSap, "sap", "SAP", true},
    {SolverType::kCanal, "canal", "CANAL", false},
    {SolverType::kSubAdmm, "subadmm", "SubADMM", false},
    {SolverType::kPgs, "pgs", "PGS", true},
    {SolverType::kFirstOrder, "first_order", "first-order", false},
};

const SolverEntry& Entry(SolverType type) {
  const int i = static_cast<int>(type);
  return kSolvers[i >= 0 && i < kNumSolverTypes ? i : 0];
}

}  // namespace

const char* SolverTypeName(SolverType type) { return Entry(type).name; }
const char* SolverDisplayName(SolverType type) { return Entry(type).display; }

bool ParseSolverType(const std::string& name, SolverType* type) {
  for (const SolverEntry& e : kSolvers) {
    if (name == e.name) {
      *type = e.type;
      return true;
    }
  }
  return false;
}

std::vector<const char*> SolverTypeNames() {
  std::vector<const char*> out;
  for (const SolverEntry& e : kSolvers) out.push_back(e.name);
  return out;
}

bool SolverAcceptsModel(SolverType type, ContactModelType model) {
  return Entry(type).all_models || model == ContactModelType::kLinear;
}

std::string AcceptedModelsText(SolverType type) {
  std::string out;
  for (int m = 0; m < kNumContactModelTypes; ++m) {
    const auto model = static_cast<ContactModelType>(m);
    if (!SolverAcceptsModel(type, model)) continue;
    if (!out.empty()) out += ", ";
    out += ContactModelName(model);
  }
  return out;
}

std::string SolverModelMismatch(const StepSettings& settings) {
  if (SolverAcceptsModel(settings.solver_type, settings.contact.model)) return "";
  return std::string("solver.type = ") + SolverTypeName(settings.solver_type) +
         " does not accept contact.model = " + ContactModelName(settings.contact.model) + " (" +
         SolverTypeName(settings.solver_type) +
         " accepts: " + AcceptedModelsText(settings.solver_type) + ")";
}

std::unique_ptr<ContactSolver> MakeSolver(const StepSettings& s) {
  switch (s.solver_type) {
    case SolverType::kSap: return std::make_unique<SapSolver>(s.sap, s.contact);
    case SolverType::kCanal: return std::make_unique<CanalSolver>(s.canal, s.contact);
    case SolverType::kSubAdmm: return std::make_unique<SubAdmmSolver>(s.subadmm, s.contact);
    case SolverType::kPgs: return std::make_unique<PgsSolver>(s.pgs, s.contact);
    case SolverType::kFirstOrder:
      return std::make_unique<FirstOrderSolver>(s.first_order, s.contact);
  }
  throw std::invalid_argument("unknown solver type");
}

namespace {
template <class SolverT, class ParamsT>
bool Configure(ContactSolver* solver, const ParamsT& params, const ContactModelParameters& c) {
  auto* typed = dynamic_cast<SolverT*>(solver);
  if (!typed) return false;
  typed->set_contact_model(c);
  typed->set_parameters(params);
  return true;
}
}  // namespace

bool ConfigureSolver(const StepSettings& s, ContactSolver* solver) {
  switch (s.solver_type) {
    case SolverType::kSap: return Configure<SapSolver>(solver, s.sap, s.contact);
    case SolverType::kCanal: return Configure<CanalSolver>(solver, s.canal, s.contact);
    case SolverType::kSubAdmm: return Configure<SubAdmmSolver>(solver, s.subadmm, s.contact);
    case SolverType::kPgs: return Configure<PgsSolver>(solver, s.pgs, s.contact);
    case SolverType::kFirstOrder:
      return Configure<FirstOrderSolver>(solver, s.first_order, s.contact);
  }
  return false;
}

SolverType SolverTypeOf(const ContactSolver& solver) {
  if (dynamic_cast<const CanalSolver*>(&solver)) return SolverType::kCanal;
  if (dynamic_cast<const SubAdmmSolver*>(&solver)) return SolverType::kSubAdmm;
  if (dynamic_cast<const PgsSolver*>(&solver)) return SolverType::kPgs;
  if (dynamic_cast<const FirstOrderSolver*>(&solver)) return SolverType::kFirstOrder;
  return SolverType::kSap;
}

int SolverIterationCap(const StepSettings& s) {
  switch (s.solver_type) {
    case SolverType::kSap: return s.sap.max_iterations;
    case SolverType::kCanal: return s.canal.max_iterations;
    case SolverType::kSubAdmm: return s.subadmm.max_iterations;
    case SolverType::kPgs: return s.pgs.max_iterations;
    case SolverType::kFirstOrder: return s.first_order.max_iterations;
  }
  return s.sap.max_iterations;
}

void SetSolverIterationCap(int cap, StepSettings* s) {
  cap = std::max(cap, 1);
  switch (s->solver_type) {
    case SolverType::kSap: s->sap.max_iterations = std::min(cap, 10000); break;
    case SolverType::kCanal: s->canal.max_iterations = cap; break;
    case SolverType::kSubAdmm: s->subadmm.max_iterations = cap; break;
    case SolverType::kPgs: s->pgs.max_iterations = cap; break;
    case SolverType::kFirstOrder: s->first_order.max_iterations = cap; break;
  }
}

double SolverFrictionSigma(const StepSettings& s) {
  switch (s.solver_type) {
    case SolverType::kSap: return s.sap.sigma;
    case SolverType::kCanal: return s.canal.sigma;
    case SolverType::kSubAdmm: return s.subadmm.sigma;
    case SolverType::kPgs: return s.pgs.sigma;
    case SolverType::kFirstOrder: break;
  }
  return std::numeric_limits<double>::quiet_NaN();
}

SeriesTable SolverSeries(SolverType type) {
  switch (type) {
    case SolverType::kSap: return SapSeriesTable();
    case SolverType::kCanal: return CanalSeriesTable();
    case SolverType::kSubAdmm: return SubAdmmSeriesTable();
    case SolverType::kPgs: return PgsSeriesTable();
    case SolverType::kFirstOrder: return FirstOrderSeriesTable();
  }
  return SapSeriesTable();
}

}  // namespace contactlab
