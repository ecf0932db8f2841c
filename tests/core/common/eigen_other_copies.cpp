// A stand-in for Ceres's static library in test_core_eigen: the Eigen
// templates the core once instantiated (double scalars, int indices), in an
// object that precedes the core on the link line and so wins any merge of a
// template's copies. Ceres's copies differ from those of a core built with
// GCC's AddressSanitizer or AVX in how they allocate; these differ by a hook
// that counts the dense blocks of doubles they allocate, so that a run of them
// from the core shows without a crash. Compiled alone, not in a unity batch.
#include <type_traits>
#include <vector>

namespace isocost::testing {
long other_copies_double_blocks = 0;
}  // namespace isocost::testing

// Eigen calls the hook in DenseStorage<T, …>'s allocations, and in a few
// product kernels, where T is this global (no template parameter T there).
using T = void;
#define EIGEN_DENSE_STORAGE_CTOR_PLUGIN \
  if (std::is_same<T, double>::value) ++isocost::testing::other_copies_double_blocks;

#include <Eigen/Dense>
#include <Eigen/IterativeLinearSolvers>
#include <Eigen/SparseCholesky>

namespace isocost::testing {

// The Laplacian of the path 0 - 1 - … - n, grounded at node 0, solved for
// the excess x_1..x_n by Cholesky, then by conjugate gradients.
std::vector<double> path_potentials_other_copies(const std::vector<double>& x) {
  const int n = static_cast<int>(x.size());
  std::vector<Eigen::Triplet<double>> entries;
  for (int v = 0; v < n; ++v) {
    entries.emplace_back(v, v, v + 1 < n ? 2.0 : 1.0);
    if (v + 1 < n) {
      entries.emplace_back(v, v + 1, -1.0);
      entries.emplace_back(v + 1, v, -1.0);
    }
  }
  Eigen::SparseMatrix<double> L(n, n);
  L.setFromTriplets(entries.begin(), entries.end());
  Eigen::VectorXd b(n);
  for (int v = 0; v < n; ++v) b[v] = x[static_cast<std::size_t>(v)];
  const Eigen::VectorXd direct = Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>>(L).solve(b);
  Eigen::ConjugateGradient<Eigen::SparseMatrix<double>, Eigen::Lower | Eigen::Upper> cg(L);
  const Eigen::VectorXd iterative = cg.solve(b);
  std::vector<double> out(direct.data(), direct.data() + n);
  out.insert(out.end(), iterative.data(), iterative.data() + n);
  return out;
}

// The least-squares line a + b·t through (t_i, y_i), by column-pivoting QR.
std::vector<double> line_fit_other_copies(const std::vector<double>& t,
                                          const std::vector<double>& y) {
  const auto n = static_cast<Eigen::Index>(t.size());
  Eigen::MatrixXd A(n, 2);
  Eigen::VectorXd rhs(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    A(i, 0) = 1;
    A(i, 1) = t[static_cast<std::size_t>(i)];
    rhs(i) = y[static_cast<std::size_t>(i)];
  }
  const Eigen::VectorXd ab = A.colPivHouseholderQr().solve(rhs);
  return {ab(0), ab(1)};
}

}  // namespace isocost::testing
