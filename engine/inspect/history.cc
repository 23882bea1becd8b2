#include "engine/inspect/history.h"

#include <algorithm>
#include <stdexcept>
#include <type_traits>
#include <utility>

namespace contactlab {
namespace {

std::size_t Bytes(const VecX& x) { return sizeof(double) * static_cast<std::size_t>(x.size()); }
std::size_t Bytes(const MatX& x) { return sizeof(double) * static_cast<std::size_t>(x.size()); }
std::size_t Bytes(const State& s) { return sizeof(State) + Bytes(s.q) + Bytes(s.v); }

std::size_t Bytes(const ContactProblem& p) {
  std::size_t b = sizeof(ContactProblem);
  b += sizeof(int) * (p.tree_v_start.size() + p.tree_nv.size());
  for (const MatX& m : p.A) b += sizeof(MatX) + Bytes(m);
  for (const MatX& m : p.M) b += sizeof(MatX) + Bytes(m);
  b += Bytes(p.v_star) + Bytes(p.v0);
  for (const ConstraintData& c : p.constraints) {
    b += sizeof(ConstraintData);
    for (int k = 0; k < c.num_blocks; ++k) b += Bytes(c.blocks[k].J);
  }
  return b;
}

std::size_t Bytes(const SolverResult& r) {
  std::size_t b = sizeof(SolverResult);
  b += Bytes(r.v) + Bytes(r.vc) + Bytes(r.gamma) + r.laws.Bytes();
  b += r.regime.size() * sizeof(Regime);
  b += r.stats.iteration_log.MemoryBytes() + r.stats.island_log.MemoryBytes() +
       r.stats.message.size();
  b += r.stats.islands.size() * sizeof(IslandSummary);
  return b;
}

// Simulator::set_step_count(int), if the simulator provides it (it is not part of the public API
// yet); without it History renumbers the following records instead.
template <typename S, typename = void>
struct HasSetStepCount : std::false_type {};
template <typename S>
struct HasSetStepCount<S, std::void_t<decltype(std::declval<S&>().set_step_count(0))>>
    : std::true_type {};

template <typename S>
void SetStepCountIfAvailable(S* sim, int n) {
  if constexpr (HasSetStepCount<S>::value) sim->set_step_count(n);
}

}  // namespace

std::size_t ApproximateRecordBytes(const StepRecord& r) {
  std::size_t surfaces = r.surfaces.size() * sizeof(ContactSurface);
  for (const ContactSurface& s : r.surfaces) {
    surfaces += s.faces.size() * sizeof(ContactFace);
    for (const ContactFace& f : s.faces) {
      surfaces += f.polygon.size() * sizeof(Vec3) + f.pressure.size() * sizeof(double);
    }
  }
  return sizeof(StepRecord) + Bytes(r.before) + Bytes(r.after) +
         r.contacts.size() * sizeof(Contact) + surfaces + Bytes(r.problem) + Bytes(r.result);
}

History::History(int max_steps, std::size_t max_bytes)
    : max_steps_(max_steps), max_bytes_(max_bytes) {
  if (max_steps < 1) throw std::invalid_argument("History: max_steps must be >= 1");
}

void History::set_limits(int max_steps, std::size_t max_bytes) {
  if (max_steps < 1) throw std::invalid_argument("History: max_steps must be >= 1");
  max_steps_ = max_steps;
  max_bytes_ = max_bytes;
  Evict();
}

void History::Evict() {
  while (records_.size() > 1 &&
         (static_cast<int>(records_.size()) > max_steps_ || bytes_ > max_bytes_)) {
    bytes_ -= records_.front().bytes;
    records_.pop_front();
  }
}

void History::Push(const StepRecord& record) {
  const int step = record.step + step_offset_;
  if (!records_.empty() && step <= newest_step()) TruncateAfter(step - 1);
  Entry e;
  e.record = record;
  e.record.step = step;
  e.bytes = ApproximateRecordBytes(e.record);
  bytes_ += e.bytes;
  records_.push_back(std::move(e));
  Evict();
}

const StepRecord* History::Get(int step) const {
  auto it = std::lower_bound(records_.begin(), records_.end(), step,
                             [](const Entry& e, int s) { return e.record.step < s; });
  if (it == records_.end() || it->record.step != step) return nullptr;
  return &it->record;
}

int History::oldest_step() const { return records_.empty() ? -1 : records_.front().record.step; }
int History::newest_step() const { return records_.empty() ? -1 : records_.back().record.step; }

void History::Clear() {
  records_.clear();
  bytes_ = 0;
  step_offset_ = 0;
}

void History::TruncateAfter(int step) {
  while (!records_.empty() && records_.back().record.step > step) {
    bytes_ -= records_.back().bytes;
    records_.pop_back();
  }
}

void History::ResumeFrom(const StepRecord& record, Simulator* sim) {
  // Copy first: `record` may be held by this History and be dropped by the truncation.
  const State after = record.after;
  const int step = record.step;
  sim->set_state(after);  // also sets the warm start to after.v, as Step() does
  SetStepCountIfAvailable(sim, step + 1);
  TruncateAfter(step);
  step_offset_ = step + 1 - sim->step_count();
}

ResolveComparison CompareResolve(const Simulator& sim, const StepRecord& record,
                                 const SapParameters& params) {
  ResolveComparison c;
  c.before = record.result;
  c.after = sim.Resolve(record, params);
  return c;
}

ResolveComparison CompareResolve(const Simulator& sim, const StepRecord& record,
                                 const StepSettings& settings) {
  ResolveComparison c;
  c.before = record.result;
  c.after = sim.Resolve(record, settings);
  return c;
}

double MeanStictionSlip(const ContactProblem& problem, const SolverResult& result) {
  double slip = 0;
  int n = 0;
  for (size_t i = 0; i < problem.constraints.size(); ++i) {
    const ConstraintData& cd = problem.constraints[i];
    if (cd.kind != ConstraintKind::kFrictionCone || i >= result.regime.size() ||
        result.regime[i] != Regime::kStiction || result.vc.size() < cd.first_row + 2)
      continue;
    slip += result.vc.segment<2>(cd.first_row).norm();
    ++n;
  }
  return n > 0 ? slip / n : 0.0;
}

}  // namespace contactlab
