// Small dense kernels for the per-constraint Jacobian blocks (rows x tree dofs, column-major):
// fixed-size Eigen paths for the common 3 x 6 (contact on a free body) and 6 x 6 shapes, dynamic
// otherwise. Results equal the dynamic-size products up to summation order.
#pragma once

#include "engine/common/math.h"

namespace contactlab {
namespace kernels {

template <int R, int C>
using CMap = Eigen::Map<const Eigen::Matrix<double, R, C>>;
template <int R, int C>
using Map = Eigen::Map<Eigen::Matrix<double, R, C>>;
using DynCMap = Eigen::Map<const MatX>;
using DynMap = Eigen::Map<MatX>;
using VecCMap = Eigen::Map<const VecX>;
using VecMap = Eigen::Map<VecX>;

// y (rows) += J x (J: rows x cols).
inline void AddJx(const double* J, int rows, int cols, const double* x, double* y) {
  if (rows == 3 && cols == 6) {
    Map<3, 1>(y).noalias() += CMap<3, 6>(J) * CMap<6, 1>(x);
  } else if (rows == 1) {
    double s = 0;
    for (int j = 0; j < cols; ++j) s += J[j] * x[j];
    y[0] += s;
  } else {
    VecMap(y, rows).noalias() += DynCMap(J, rows, cols) * VecCMap(x, cols);
  }
}

// y (cols) += Jᵀ g (J: rows x cols).
inline void AddJtx(const double* J, int rows, int cols, const double* g, double* y) {
  if (rows == 3 && cols == 6) {
    Map<6, 1>(y).noalias() += CMap<3, 6>(J).transpose() * CMap<3, 1>(g);
  } else if (rows == 1) {
    for (int j = 0; j < cols; ++j) y[j] += J[j] * g[0];
  } else {
    VecMap(y, cols).noalias() += DynCMap(J, rows, cols).transpose() * VecCMap(g, rows);
  }
}

// y (n) = A x (A: n x n).
inline void SetAx(const double* A, int n, const double* x, double* y) {
  if (n == 6) {
    Map<6, 1>(y).noalias() = CMap<6, 6>(A) * CMap<6, 1>(x);
  } else {
    VecMap(y, n).noalias() = DynCMap(A, n, n) * VecCMap(x, n);
  }
}

// GJ (rows x cols) = G (rows x rows, leading dimension 3) J.
inline void SetGJ(const Mat3& G, const double* J, int rows, int cols, double* GJ) {
  if (rows == 3 && cols == 6) {
    Map<3, 6>(GJ).noalias() = G * CMap<3, 6>(J);
  } else if (rows == 3) {
    // A contact on an articulated tree: one 3 x 3 product per column, the zero columns of J (dofs
    // the contact point does not move with) giving zero columns without the product.
    for (int j = 0; j < cols; ++j) {
      const double* Jj = J + 3 * j;
      double* g = GJ + 3 * j;
      if (Jj[0] == 0 && Jj[1] == 0 && Jj[2] == 0) {
        g[0] = g[1] = g[2] = 0;
        continue;
      }
      Map<3, 1>(g).noalias() = G * CMap<3, 1>(Jj);
    }
  } else {
    DynMap(GJ, rows, cols).noalias() = G.topLeftCorner(rows, rows) * DynCMap(J, rows, cols);
  }
}

// H (ca x cb) += Jaᵀ GJb (Ja: rows x ca, GJb: rows x cb).
inline void AddJtGJ(const double* Ja, int rows, int ca, const double* GJb, int cb, double* H) {
  if (rows == 3 && ca == 6 && cb == 6) {
    Map<6, 6>(H).noalias() += CMap<3, 6>(Ja).transpose() * CMap<3, 6>(GJb);
  } else {
    DynMap(H, ca, cb).noalias() += DynCMap(Ja, rows, ca).transpose() * DynCMap(GJb, rows, cb);
  }
}

// Lower triangle (diagonal included) of H (n x n) += Jᵀ GJ for a diagonal block, where Jᵀ GJ
// is symmetric: the strict upper triangle of H is left as it was. The entries on and below the
// diagonal equal AddJtGJ's up to summation order.
inline void AddJtGJLower(const double* J, int rows, int n, const double* GJ, double* H) {
  if (rows == 3 && n == 6) {
    for (int j = 0; j < 6; ++j) {
      const double g0 = GJ[3 * j], g1 = GJ[3 * j + 1], g2 = GJ[3 * j + 2];
      for (int i = j; i < 6; ++i) {
        H[i + 6 * j] += J[3 * i] * g0 + J[3 * i + 1] * g1 + J[3 * i + 2] * g2;
      }
    }
  } else if (rows == 3 && n <= 64) {
    // A contact on an articulated tree: the columns where J or GJ is nonzero (the dofs the
    // contact moves with, its body's path), listed once, then the lower triangle over those
    // pairs only. Pairs with a zero column add exactly zero in the full product (finite J, GJ).
    int nz[64];
    int m = 0;
    for (int j = 0; j < n; ++j) {
      const double* g = GJ + 3 * j;
      const double* Jj = J + 3 * j;
      if (g[0] != 0 || g[1] != 0 || g[2] != 0 || Jj[0] != 0 || Jj[1] != 0 || Jj[2] != 0) {
        nz[m++] = j;
      }
    }
    for (int a = 0; a < m; ++a) {
      const int j = nz[a];
      const double g0 = GJ[3 * j], g1 = GJ[3 * j + 1], g2 = GJ[3 * j + 2];
      double* Hj = H + static_cast<size_t>(n) * j;
      for (int b = a; b < m; ++b) {
        const int i = nz[b];
        Hj[i] += J[3 * i] * g0 + J[3 * i + 1] * g1 + J[3 * i + 2] * g2;
      }
    }
  } else if (rows <= 3) {
    // Direct loops for the contact and limit rows of an articulated tree (a few rows against up
    // to 64 dofs, where a general product's packing costs more than the arithmetic); columns j
    // where GJ is zero (J's zero columns: dofs the constraint does not move with) are skipped,
    // which adds exactly what the full product adds there (zero) for finite J.
    for (int j = 0; j < n; ++j) {
      const double* g = GJ + rows * j;
      bool zero = true;
      for (int r = 0; r < rows; ++r) zero = zero && g[r] == 0;
      if (zero) continue;
      double* Hj = H + static_cast<size_t>(n) * j;
      for (int i = j; i < n; ++i) {
        const double* Ji = J + rows * i;
        double sum = 0;
        for (int r = 0; r < rows; ++r) sum += Ji[r] * g[r];
        Hj[i] += sum;
      }
    }
  } else {
    DynMap(H, n, n).triangularView<Eigen::Lower>() +=
        DynCMap(J, rows, n).transpose() * DynCMap(GJ, rows, n);
  }
}

}  // namespace kernels
}  // namespace contactlab
