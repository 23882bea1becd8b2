// Per-iteration log of named series, declared by each solver.
//
// A solver declares its series once, as a static table of SeriesSpec (key, label, unit, axis,
// integer or real, help), and fills one row per iteration: row k holds the values of iteration k
// (row 0 = the state at the initial guess). Everything outside the solver (convergence panel,
// exports, the re-solve overlay, reproduce) reads the log through the declaration only, never a
// solver's own fields, so a solver with other quantities (an augmented-Lagrangian residual, ADMM's
// primal/dual residuals and ρ, PGS's changes, interior-point gaps) plots and exports them as is.
//
// Adding a series to a solver is one declaration (an entry of its index enum and the matching
// row of its table) and one store (`row[kIndex] = value`).
//
// Storage is one row-major vector of doubles (integer series hold exact integers; doubles
// represent every int exactly), reserved once per solve, so appending a row does no allocation
// and no string work while the capacity lasts. A value a solver did not store is NaN ("not
// recorded", e.g. cond₂(H) when it was not requested).
#pragma once

#include <algorithm>
#include <limits>
#include <string_view>
#include <vector>

namespace contactlab {

enum class SeriesAxis { kLinear, kLog };
enum class SeriesType { kReal, kInteger };

// How the convergence panel plots a series by default.
enum class SeriesRole {
  kPlain = 0,
  // The solver's stopping residual (SAP: e_m): drawn with the tolerance line and the linear and
  // quadratic reference slopes, and the default first plot.
  kResidual,
  // An objective whose level is arbitrary (SAP: the cost ℓ): plotted as the gap to its final
  // value, ℓ_k − ℓ_final, on a log axis.
  kObjective,
};

// SeriesSpec::flags.
enum SeriesFlag : unsigned {
  // Shown by the convergence panel until the user picks other series.
  kSeriesDefaultPlot = 1u,
  // The value belongs to the step that produced the iterate (a step length, the work of a line
  // search): row 0, the guess, holds a placeholder (0) that plots omit.
  kSeriesPerStep = 2u,
};

struct SeriesSpec {
  const char* key;    // stable export key (CSV column, JSON field), snake_case
  const char* label;  // axis label with the paper's symbol, e.g. "e_m (momentum residual)"
  const char* unit;   // SI unit, "" for dimensionless
  SeriesAxis axis;
  SeriesType type;
  SeriesRole role;
  unsigned flags;    // SeriesFlag bits
  const char* help;  // one sentence: what the series is, with the equation it comes from
};

// A solver's declaration: a pointer to its static table (valid for the program's lifetime).
struct SeriesTable {
  const SeriesSpec* specs = nullptr;
  int size = 0;
  template <int N>
  static constexpr SeriesTable Of(const SeriesSpec (&table)[N]) {
    return SeriesTable{table, N};
  }
  const SeriesSpec& operator[](int i) const { return specs[i]; }
  // Index of the series with this key, -1 when the solver does not declare it.
  int Find(std::string_view key) const {
    for (int i = 0; i < size; ++i) {
      if (key == specs[i].key) return i;
    }
    return -1;
  }
  // Index of the first series with this role, -1 when there is none.
  int FindRole(SeriesRole role) const {
    for (int i = 0; i < size; ++i) {
      if (specs[i].role == role) return i;
    }
    return -1;
  }
  bool operator==(const SeriesTable& o) const { return specs == o.specs && size == o.size; }
  bool operator!=(const SeriesTable& o) const { return !(*this == o); }
};

class IterationLog {
 public:
  static constexpr double kNotRecorded = std::numeric_limits<double>::quiet_NaN();

  // Starts a log of `table`'s series with no rows, keeping the storage's capacity.
  void Reset(SeriesTable table) {
    table_ = table;
    values_.clear();
  }
  // Reserves room for `rows` rows (call before the iterations, outside the hot loop).
  void Reserve(int rows) { values_.reserve(static_cast<size_t>(rows) * table_.size); }
  // Appends a row of kNotRecorded and returns it (table().size values) for the solver's stores.
  // The pointer is valid until the next AddRow/Resize.
  double* AddRow() {
    const size_t n = values_.size();
    values_.resize(n + table_.size, kNotRecorded);
    return values_.data() + n;
  }
  // Appends the rows of `other` (a log of the same table).
  void AppendRows(const IterationLog& other) {
    values_.insert(values_.end(), other.values_.begin(), other.values_.end());
  }
  // Sets the number of rows (new rows kNotRecorded).
  void Resize(int rows) { values_.resize(static_cast<size_t>(rows) * table_.size, kNotRecorded); }

  const SeriesTable& table() const { return table_; }
  int num_series() const { return table_.size; }
  int num_rows() const {
    return table_.size > 0 ? static_cast<int>(values_.size()) / table_.size : 0;
  }
  bool empty() const { return values_.empty(); }

  double* row(int r) { return values_.data() + static_cast<size_t>(r) * table_.size; }
  const double* row(int r) const { return values_.data() + static_cast<size_t>(r) * table_.size; }
  double operator()(int r, int s) const { return row(r)[s]; }
  double Last(int s) const { return row(num_rows() - 1)[s]; }

  // Values of series `s` over rows [first_row, first_row + rows) (all rows from first_row when
  // rows < 0); empty when s is out of range.
  std::vector<double> Column(int s, int first_row = 0, int rows = -1) const {
    std::vector<double> out;
    if (s < 0 || s >= table_.size) return out;
    const int end = rows < 0 ? num_rows() : std::min(num_rows(), first_row + rows);
    for (int r = std::max(first_row, 0); r < end; ++r) out.push_back((*this)(r, s));
    return out;
  }
  // Column by key (empty when the key is not declared).
  std::vector<double> Column(std::string_view key) const { return Column(table_.Find(key)); }

  size_t MemoryBytes() const { return values_.capacity() * sizeof(double); }

 private:
  SeriesTable table_;
  std::vector<double> values_;  // num_rows × num_series, row-major
};

}  // namespace contactlab
