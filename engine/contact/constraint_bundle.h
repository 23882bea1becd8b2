// The laws of every constraint of one step, prepared once per step and grouped by law.
//
// One step uses one contact model for all its contacts (ContactModelParameters::model), the
// linear unilateral law for its joint limits and the holonomic law for its bilateral
// constraints. Prepare computes each constraint's constants
// (engine/contact/constraint_laws.h) and groups consecutive constraints of the same law into
// segments, in constraint order. A solver walks the segments with ForEachSegment: one dispatch
// per segment, then a loop over the segment's constraints calling the law's static functions
// (no virtual call per constraint). Because segments follow the constraint order, sums over
// constraints (the cost ℓ = Σ ℓ_i, the line search's derivatives) are formed in the same order
// whatever the grouping.
//
// The bundle is a value: a SolverResult keeps the one its solve used, so the inspector, the
// exports and the conditioning tools read a step's constants without knowing the law.
#pragma once

#include <string>
#include <vector>

#include "engine/contact/constraint_laws.h"
#include "engine/contact/contact_problem.h"

namespace contactlab {

enum class LawKind : std::uint8_t {
  kLinearCone = 0,
  kLinearLimit = 1,
  kLagged = 2,
  kLaggedRegularized = 3,
  kSimilar = 4,
  kHolonomic1 = 5,  // HolonomicLaw<1> (bilateral, 1 row)
  kHolonomic3 = 6,  // HolonomicLaw<3> (bilateral, 3 rows)
};
// "linear", "linear_limit", "lagged", ..., "holonomic" (1 or 3 rows).
const char* LawName(LawKind law);

// Consecutive constraints [begin, end) of one law; their rows start at first_row and each has
// the law's kRows rows; their constants start at `offset` in the law's array.
struct LawSegment {
  LawKind law = LawKind::kLinearCone;
  int begin = 0, end = 0;
  int first_row = 0;
  int offset = 0;
};

class ConstraintBundle {
 public:
  // Constants of every constraint of `problem` for its time step. Needs well-formed constraints
  // (kind and num_rows agree, first_row the running sum of num_rows). The Hunt–Crossley laws
  // read v_n0 from v_c0 = J_i v0 + b_i (v_star when the problem has no v0).
  void Prepare(const ContactProblem& problem, const LawParameters& params);

  ContactModelType model() const { return model_; }
  int num_constraints() const { return num_constraints_; }
  int num_rows() const { return num_rows_; }
  const std::vector<LawSegment>& segments() const { return segments_; }
  bool empty() const { return num_constraints_ == 0; }

  // Calls f(law, K, segment) for each segment in constraint order, with `law` a value of the
  // segment's law type (LinearConeLaw, ...) and K a pointer to the constants of its first
  // constraint (constraint i has K[i - segment.begin], rows from first_row + kRows (i − begin)).
  template <class F>
  void ForEachSegment(F&& f) const {
    for (const LawSegment& s : segments_) {
      switch (s.law) {
        case LawKind::kLinearCone: f(LinearConeLaw{}, linear_cone_.data() + s.offset, s); break;
        case LawKind::kLinearLimit:
          f(LinearLimitLaw{}, linear_limit_.data() + s.offset, s);
          break;
        case LawKind::kLagged: f(LaggedLaw{}, hunt_crossley_.data() + s.offset, s); break;
        case LawKind::kLaggedRegularized:
          f(LaggedRegularizedLaw{}, hunt_crossley_.data() + s.offset, s);
          break;
        case LawKind::kSimilar: f(SimilarLaw{}, hunt_crossley_.data() + s.offset, s); break;
        case LawKind::kHolonomic1: f(HolonomicLaw<1>{}, holonomic_.data() + s.offset, s); break;
        case LawKind::kHolonomic3: f(HolonomicLaw<3>{}, holonomic_.data() + s.offset, s); break;
      }
    }
  }

  // Σ ℓ_i at the constraint velocities vc (num_rows) [J]; writes γ (resized to num_rows) and,
  // when non-null, G (per constraint) and the regimes (per constraint).
  double Evaluate(const VecX& vc, VecX* gamma, std::vector<Mat3>* G,
                  std::vector<Regime>* regime) const;

  // Empty when every constraint's constants are usable; else "constraint i: what is wrong" for
  // the first that is not.
  std::string Check() const;

  // Σ_i of the laws' e_μ terms at (vc, γ).
  double ComplementaritySlack(const VecX& vc, const VecX& gamma) const;

  // The law and constants of constraint i, with symbols and units (size 0 for a bad i).
  LawKind Law(int i) const;
  ModelConstants Describe(int i) const;
  // The constant `key` of constraint i (ModelConstant::key: "R_n", "near_rigid", "n0", ...), or
  // `fallback` when its law has no such constant.
  double Constant(int i, const char* key, double fallback = 0) const;

  // R and v̂ per row (num_rows each) when every constraint uses a linear law (SAP's
  // regularization); false otherwise (a Hunt–Crossley model has no R).
  bool LinearRows(VecX* R, VecX* v_hat) const;

  // The constants of constraint i when its law is the linear cone (resp. limit) law, else null:
  // a solver that minimizes the linear law with its own R and v̂ (CANAL's surrogate, seed 001
  // eq. 21: R + I/β per outer iteration) edits them in place; inverses are the caller's to keep.
  LinearConeLaw::Constants* MutableLinearCone(int i);
  LinearLimitLaw::Constants* MutableLinearLimit(int i);
  HolonomicConstants* MutableHolonomic(int i);
  // True when some constraint is bilateral (a holonomic law).
  bool HasHolonomic() const { return !holonomic_.empty(); }

  // Approximate heap size [bytes].
  size_t Bytes() const;

 private:
  int SegmentOf(int i) const;  // index into segments_, or -1

  ContactModelType model_ = ContactModelType::kLinear;
  int num_constraints_ = 0, num_rows_ = 0;
  std::vector<LawSegment> segments_;
  std::vector<LinearConeLaw::Constants> linear_cone_;
  std::vector<LinearLimitLaw::Constants> linear_limit_;
  std::vector<HuntCrossleyConstants> hunt_crossley_;  // the step's one Hunt–Crossley model
  std::vector<HolonomicConstants> holonomic_;         // 1- and 3-row bilateral constraints
};

}  // namespace contactlab
