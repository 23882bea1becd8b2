#include "engine/contact/constraint_bundle.h"

#include <cstring>
#include <sstream>

namespace contactlab {

const char* LawName(LawKind law) {
  switch (law) {
    case LawKind::kLinearCone: return "linear";
    case LawKind::kLinearLimit: return "linear_limit";
    case LawKind::kLagged: return "lagged";
    case LawKind::kLaggedRegularized: return "lagged_regularized";
    case LawKind::kSimilar: return "similar";
    case LawKind::kHolonomic1:
    case LawKind::kHolonomic3: return "holonomic";
  }
  return "unknown";
}

bool ModelConstants::Find(const char* key, double* value) const {
  for (int k = 0; k < size; ++k) {
    if (std::strcmp(items[k].key, key) == 0) {
      *value = items[k].value;
      return true;
    }
  }
  return false;
}

namespace {

LawKind ContactLaw(ContactModelType model) {
  switch (model) {
    case ContactModelType::kLinear: return LawKind::kLinearCone;
    case ContactModelType::kLagged: return LawKind::kLagged;
    case ContactModelType::kLaggedRegularized: return LawKind::kLaggedRegularized;
    case ContactModelType::kSimilar: return LawKind::kSimilar;
  }
  return LawKind::kLinearCone;
}

// v_n0 = (J_i v0 + b_i)_n of a contact: the last row of its Jacobian blocks times v0.
double NormalVelocityAtStart(const ContactProblem& p, const ConstraintData& c, const VecX& v0) {
  const int n = c.num_rows - 1;
  double vn = c.bias(n);
  for (int k = 0; k < c.num_blocks; ++k) {
    const TreeJacobianBlock& b = c.blocks[k];
    vn += b.J.row(n).dot(v0.segment(p.tree_v_start[b.tree], p.tree_nv[b.tree]));
  }
  return vn;
}

}  // namespace

void ConstraintBundle::Prepare(const ContactProblem& problem, const LawParameters& params) {
  model_ = params.contact.model;
  const int nc = static_cast<int>(problem.constraints.size());
  num_constraints_ = nc;
  num_rows_ = 0;
  segments_.clear();
  linear_cone_.clear();
  linear_limit_.clear();
  hunt_crossley_.clear();
  holonomic_.clear();
  const double dt = problem.time_step;
  const LawKind contact_law = ContactLaw(model_);
  const VecX& v0 = problem.v0.size() == problem.nv ? problem.v0 : problem.v_star;
  for (int i = 0; i < nc; ++i) {
    const ConstraintData& c = problem.constraints[i];
    const LawKind law = c.kind == ConstraintKind::kFrictionCone ? contact_law
                        : c.kind == ConstraintKind::kUnilateral
                            ? LawKind::kLinearLimit
                            : (c.num_rows == 3 ? LawKind::kHolonomic3 : LawKind::kHolonomic1);
    if (segments_.empty() || segments_.back().law != law) {
      LawSegment s;
      s.law = law;
      s.begin = i;
      s.end = i;
      s.first_row = num_rows_;
      s.offset = law == LawKind::kLinearCone    ? static_cast<int>(linear_cone_.size())
                 : law == LawKind::kLinearLimit ? static_cast<int>(linear_limit_.size())
                 : (law == LawKind::kHolonomic1 || law == LawKind::kHolonomic3)
                     ? static_cast<int>(holonomic_.size())
                     : static_cast<int>(hunt_crossley_.size());
      segments_.push_back(s);
    }
    ++segments_.back().end;
    switch (law) {
      case LawKind::kLinearCone:
        linear_cone_.push_back(LinearConeLaw::Prepare(c, dt, 0, params));
        break;
      case LawKind::kLinearLimit:
        linear_limit_.push_back(LinearLimitLaw::Prepare(c, dt, 0, params));
        break;
      case LawKind::kLagged:
      case LawKind::kLaggedRegularized:
      case LawKind::kSimilar: {
        const double vn0 = NormalVelocityAtStart(problem, c, v0);
        hunt_crossley_.push_back(
            law == LawKind::kLagged ? LaggedLaw::Prepare(c, dt, vn0, params)
            : law == LawKind::kSimilar ? SimilarLaw::Prepare(c, dt, vn0, params)
                                       : LaggedRegularizedLaw::Prepare(c, dt, vn0, params));
        break;
      }
      case LawKind::kHolonomic1:
        holonomic_.push_back(HolonomicLaw<1>::Prepare(c, dt, 0, params));
        break;
      case LawKind::kHolonomic3:
        holonomic_.push_back(HolonomicLaw<3>::Prepare(c, dt, 0, params));
        break;
    }
    num_rows_ += law == LawKind::kHolonomic1 ? 1
                 : law == LawKind::kHolonomic3 ? 3
                 : c.kind == ConstraintKind::kFrictionCone ? 3 : 1;
  }
}

double ConstraintBundle::Evaluate(const VecX& vc, VecX* gamma, std::vector<Mat3>* G,
                                  std::vector<Regime>* regime) const {
  gamma->resize(num_rows_);
  if (G) G->resize(num_constraints_);
  if (regime) regime->resize(num_constraints_);
  double cost = 0;
  ForEachSegment([&](auto law, const auto* K, const LawSegment& s) {
    using Law = decltype(law);
    int r = s.first_row;
    for (int i = s.begin; i < s.end; ++i, r += Law::kRows) {
      Regime reg_i;
      cost += Law::Cost(K[i - s.begin], vc.data() + r, gamma->data() + r,
                        G ? &(*G)[i] : nullptr, &reg_i);
      if (regime) (*regime)[i] = reg_i;
    }
  });
  return cost;
}

std::string ConstraintBundle::Check() const {
  std::string message;
  ForEachSegment([&](auto law, const auto* K, const LawSegment& s) {
    using Law = decltype(law);
    for (int i = s.begin; i < s.end && message.empty(); ++i) {
      if (const char* what = Law::Check(K[i - s.begin])) {
        std::ostringstream os;
        os << "constraint " << i << ": " << what;
        message = os.str();
      }
    }
  });
  return message;
}

double ConstraintBundle::ComplementaritySlack(const VecX& vc, const VecX& gamma) const {
  double slack = 0;
  ForEachSegment([&](auto law, const auto* K, const LawSegment& s) {
    using Law = decltype(law);
    int r = s.first_row;
    for (int i = s.begin; i < s.end; ++i, r += Law::kRows) {
      slack += Law::Slack(K[i - s.begin], vc.data() + r, gamma.data() + r);
    }
  });
  return slack;
}

int ConstraintBundle::SegmentOf(int i) const {
  if (i < 0 || i >= num_constraints_) return -1;
  // Segments are few (one per run of a law): a linear scan.
  for (size_t k = 0; k < segments_.size(); ++k) {
    if (i < segments_[k].end) return static_cast<int>(k);
  }
  return -1;
}

LinearConeLaw::Constants* ConstraintBundle::MutableLinearCone(int i) {
  const int k = SegmentOf(i);
  if (k < 0 || segments_[k].law != LawKind::kLinearCone) return nullptr;
  return &linear_cone_[segments_[k].offset + (i - segments_[k].begin)];
}

LinearLimitLaw::Constants* ConstraintBundle::MutableLinearLimit(int i) {
  const int k = SegmentOf(i);
  if (k < 0 || segments_[k].law != LawKind::kLinearLimit) return nullptr;
  return &linear_limit_[segments_[k].offset + (i - segments_[k].begin)];
}

HolonomicConstants* ConstraintBundle::MutableHolonomic(int i) {
  const int k = SegmentOf(i);
  if (k < 0 || (segments_[k].law != LawKind::kHolonomic1 &&
                segments_[k].law != LawKind::kHolonomic3)) {
    return nullptr;
  }
  return &holonomic_[segments_[k].offset + (i - segments_[k].begin)];
}

LawKind ConstraintBundle::Law(int i) const {
  const int k = SegmentOf(i);
  return k < 0 ? LawKind::kLinearCone : segments_[k].law;
}

ModelConstants ConstraintBundle::Describe(int i) const {
  ModelConstants out;
  const int k = SegmentOf(i);
  if (k < 0) return out;
  const LawSegment& seg = segments_[k];
  const int j = seg.offset + (i - seg.begin);
  switch (seg.law) {
    case LawKind::kLinearCone: return LinearConeLaw::Describe(linear_cone_[j]);
    case LawKind::kLinearLimit: return LinearLimitLaw::Describe(linear_limit_[j]);
    case LawKind::kLagged: return LaggedLaw::Describe(hunt_crossley_[j]);
    case LawKind::kLaggedRegularized: return LaggedRegularizedLaw::Describe(hunt_crossley_[j]);
    case LawKind::kSimilar: return SimilarLaw::Describe(hunt_crossley_[j]);
    case LawKind::kHolonomic1: return HolonomicLaw<1>::Describe(holonomic_[j]);
    case LawKind::kHolonomic3: return HolonomicLaw<3>::Describe(holonomic_[j]);
  }
  return out;
}

double ConstraintBundle::Constant(int i, const char* key, double fallback) const {
  double value;
  return Describe(i).Find(key, &value) ? value : fallback;
}

bool ConstraintBundle::LinearRows(VecX* R, VecX* v_hat) const {
  for (const LawSegment& s : segments_) {
    if (s.law != LawKind::kLinearCone && s.law != LawKind::kLinearLimit &&
        s.law != LawKind::kHolonomic1 && s.law != LawKind::kHolonomic3) {
      return false;
    }
  }
  R->resize(num_rows_);
  v_hat->resize(num_rows_);
  ForEachSegment([&](auto law, const auto* K, const LawSegment& s) {
    using Law = decltype(law);
    int r = s.first_row;
    for (int i = s.begin; i < s.end; ++i, r += Law::kRows) {
      Law::Rows(K[i - s.begin], R->data() + r, v_hat->data() + r);
    }
  });
  return true;
}

size_t ConstraintBundle::Bytes() const {
  return segments_.capacity() * sizeof(LawSegment) +
         linear_cone_.capacity() * sizeof(LinearConeLaw::Constants) +
         linear_limit_.capacity() * sizeof(LinearLimitLaw::Constants) +
         hunt_crossley_.capacity() * sizeof(HuntCrossleyConstants) +
         holonomic_.capacity() * sizeof(HolonomicConstants);
}

}  // namespace contactlab
