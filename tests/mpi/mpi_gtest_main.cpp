// main() for the MPI test programs: MPI_Init, GoogleTest, and a result that
// fails if any rank failed. Ranks other than 0 print only their failures,
// each tagged with the rank.
//
// --tests-from=FILE (e.g. test_mpi_samples.cpp) runs the tests defined in that
// source file alone: one program holds every file, and CTest runs each file at
// the rank counts it is written for (tests/mpi/CMakeLists.txt). A FILE that
// defines no test is an error, so a renamed file cannot pass by running
// nothing; so is --tests-from with --gtest_filter (use one or the other).
#include <gtest/gtest.h>
#include <mpi.h>

#include <iostream>
#include <string>
#include <string_view>

namespace {

class FailurePrinter : public testing::EmptyTestEventListener {
 public:
  explicit FailurePrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const testing::TestPartResult& result) override {
    if (!result.failed()) return;
    std::cerr << "[rank " << rank_ << "] " << (result.file_name() ? result.file_name() : "?") << ":"
              << result.line_number() << ": failure\n"
              << result.summary() << "\n";
  }

 private:
  int rank_;
};

// The base name of a path: what --tests-from compares.
std::string_view base_name(std::string_view path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// Takes --tests-from=FILE out of argv; "" when absent.
std::string take_tests_from(int& argc, char** argv) {
  constexpr std::string_view flag = "--tests-from=";
  std::string file;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]).substr(0, flag.size()) == flag)
      file = argv[i] + flag.size();
    else
      argv[kept++] = argv[i];
  }
  argc = kept;
  argv[argc] = nullptr;
  return file;
}

// The --gtest_filter that selects the tests defined in `file`, or "" if none is.
std::string filter_for(const std::string& file) {
  std::string filter;
  const testing::UnitTest& unit = *testing::UnitTest::GetInstance();
  for (int s = 0; s < unit.total_test_suite_count(); ++s) {
    const testing::TestSuite& suite = *unit.GetTestSuite(s);
    for (int t = 0; t < suite.total_test_count(); ++t) {
      const testing::TestInfo& test = *suite.GetTestInfo(t);
      if (base_name(test.file()) != file) continue;
      if (!filter.empty()) filter += ':';
      filter += std::string(test.test_suite_name()) + "." + test.name();
    }
  }
  return filter;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const std::string tests_from = take_tests_from(argc, argv);
  testing::InitGoogleTest(&argc, argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (!tests_from.empty()) {
    const std::string filter = filter_for(tests_from);
    const char* error = filter.empty() ? ": no test is defined there"
                        : testing::GTEST_FLAG(filter) != "*"
                            ? ": give --gtest_filter or --tests-from, not both"
                            : nullptr;
    if (error) {
      if (rank == 0) std::cerr << "--tests-from=" << tests_from << error << "\n";
      MPI_Finalize();
      return 2;
    }
    testing::GTEST_FLAG(filter) = filter;
  }
  if (rank != 0) {
    auto& listeners = testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new FailurePrinter(rank));
  }
  const int local = RUN_ALL_TESTS();
  int global = 0;
  MPI_Allreduce(&local, &global, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0 && global != 0 && local == 0)
    std::cerr << "FAILED on another rank (see the [rank N] lines above)\n";
  MPI_Finalize();
  return global;
}
