// Shared by the CLI end-to-end tests: runs the isocost binary (ISOCOST_CLI) as
// a child process in a fresh directory per test, with stdout and stderr
// captured separately, and small helpers for reading its output.
#pragma once

#include <fcntl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#ifndef ISOCOST_CLI
#error "ISOCOST_CLI must be the absolute path of the isocost binary"
#endif

extern char** environ;

namespace isocost::testing {

namespace fs = std::filesystem;
using json = nlohmann::json;

/// What a run of the command produced.
struct Outcome {
  int code = -1;    ///< exit status, or 128 + signal
  std::string out;  ///< everything on stdout
  std::string err;  ///< everything on stderr
};

inline std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline void WriteFile(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  ASSERT_TRUE(out.good()) << "cannot write " << path;
}

/// How to run the command.
struct RunOptions {
  /// Send stdout here instead of capturing it (e.g. /dev/full).
  std::string stdout_path;
  /// Replace the child's PATH.
  std::optional<std::string> path_env;
  /// Run the command through this launcher, e.g. {MPIEXEC, "-n", "3"}
  /// (the first word an absolute path).
  std::vector<std::string> launcher;
};

/// Runs ISOCOST_CLI with `args` in `cwd`; stdout and stderr go to files in
/// `capture` (not `cwd`, so they never show up in its listing).
inline Outcome RunIsocost(const std::vector<std::string>& args, const fs::path& cwd,
                          const fs::path& capture, const RunOptions& options = {}) {
  const fs::path out_file = capture / "stdout", err_file = capture / "stderr";
  std::vector<std::string> storage = options.launcher;
  storage.push_back(ISOCOST_CLI);
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& s : storage) argv.push_back(s.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_storage;
  for (char** e = environ; *e != nullptr; ++e)
    if (!options.path_env || std::strncmp(*e, "PATH=", 5) != 0) env_storage.emplace_back(*e);
  if (options.path_env) env_storage.push_back("PATH=" + *options.path_env);
  std::vector<char*> envp;
  for (auto& s : env_storage) envp.push_back(s.data());
  envp.push_back(nullptr);
  const std::string out_target =
      options.stdout_path.empty() ? out_file.string() : options.stdout_path;
  const std::string err_target = err_file.string(), dir = cwd.string();

  const pid_t pid = ::fork();
  if (pid < 0) {
    ADD_FAILURE() << "fork failed";
    return {};
  }
  if (pid == 0) {
    const int o = ::open(out_target.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int e = ::open(err_target.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (o < 0 || e < 0 || ::dup2(o, 1) < 0 || ::dup2(e, 2) < 0 || ::chdir(dir.c_str()) != 0)
      ::_exit(126);
    ::close(o);
    ::close(e);
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
  }
  Outcome r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = options.stdout_path.empty() ? ReadFile(out_file) : std::string();
  r.err = ReadFile(err_file);
  return r;
}

/// The command line, for failure messages.
inline std::string Show(const std::vector<std::string>& args) {
  std::string s = "isocost";
  for (const auto& a : args) s += " " + a;
  return s;
}

inline bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

inline std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

inline std::vector<std::string> Tokens(const std::string& line) {
  std::vector<std::string> t;
  std::istringstream in(line);
  for (std::string w; in >> w;) t.push_back(w);
  return t;
}

/// Every path below `dir`, relative to it.
inline std::set<std::string> Listing(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    names.insert(fs::relative(e.path(), dir).string());
  return names;
}

/// A JSON number, or a recorded failure (and NaN).
inline double Num(const json& j) {
  if (!j.is_number()) {
    ADD_FAILURE() << "expected a number, got " << j.dump();
    return std::numeric_limits<double>::quiet_NaN();
  }
  return j.get<double>();
}

inline std::vector<std::string> Cat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

/// True if a `gnuplot` executable is on PATH (plot tests skip without it).
inline bool GnuplotOnPath() {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return false;
  std::istringstream dirs(path);
  for (std::string d; std::getline(dirs, d, ':');)
    if (::access((fs::path(d.empty() ? "." : d) / "gnuplot").c_str(), X_OK) == 0) return true;
  return false;
}

/// True if the file starts with the 8-byte PNG signature.
inline bool IsPng(const fs::path& file) {
  const std::string bytes = ReadFile(file);
  return bytes.size() > 8 && bytes.compare(0, 8, "\x89PNG\r\n\x1a\n", 8) == 0;
}

/// A bad command line (a parameterised test's case) and what its one-line
/// error must say.
struct BadCase {
  const char* name;
  std::vector<std::string> args;
  std::vector<std::string> fragments;  ///< must all appear in the error line
};

inline void PrintTo(const BadCase& c, std::ostream* os) { *os << c.name; }

/// The test name of a BadCase (INSTANTIATE_TEST_SUITE_P's name generator).
inline std::string BadCaseName(const ::testing::TestParamInfo<BadCase>& info) {
  return info.param.name;
}

/// Expects the outcome of bad input: exit code 2, nothing on stdout, exactly
/// one stderr line "isocost: error: …" holding every fragment.
inline void ExpectBadInput(const Outcome& r, const std::vector<std::string>& fragments) {
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out, "");
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(r.err.rfind("isocost: error:", 0), 0u);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
  EXPECT_EQ(r.err.back(), '\n');
  for (const auto& f : fragments) EXPECT_TRUE(Has(r.err, f)) << "missing '" << f << "'";
}

/// Fixture: a fresh directory per test; `dir` holds the inputs and is the
/// working directory of the command.
class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::path(::testing::TempDir()) / "isocost_cli_XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    root_ = pattern;
    dir = root_ / "work";
    capture_ = root_ / "capture";
    fs::create_directories(dir);
    fs::create_directories(capture_);
  }
  void TearDown() override {
    std::error_code ignored;
    if (!root_.empty()) fs::remove_all(root_, ignored);
  }

  Outcome Isocost(const std::vector<std::string>& args, const RunOptions& options = {}) {
    return RunIsocost(args, dir, capture_, options);
  }

  /// Runs a command that must succeed quietly and returns its stdout.
  std::string Ok(const std::vector<std::string>& args) {
    const Outcome r = Isocost(args);
    EXPECT_EQ(r.code, 0) << Show(args) << "\nstderr: " << r.err;
    EXPECT_EQ(r.err, "") << Show(args);
    return r.out;
  }

  /// Runs a command that must succeed and print JSON; returns the parsed JSON.
  json OkJson(const std::vector<std::string>& args) {
    const std::string out = Ok(args);
    try {
      return json::parse(out);
    } catch (const std::exception& e) {
      ADD_FAILURE() << Show(args) << ": stdout is not JSON (" << e.what() << "):\n" << out;
      return json::object();
    }
  }

  /// Runs a command that must fail on bad input (ExpectBadInput) and leave
  /// `dir` as it was: no file created or removed.
  void ExpectRejected(const std::vector<std::string>& args,
                      const std::vector<std::string>& fragments) {
    const auto before = Listing(dir);
    const Outcome r = Isocost(args);
    SCOPED_TRACE(Show(args) + "\nstderr: " + r.err);
    ExpectBadInput(r, fragments);
    EXPECT_EQ(Listing(dir), before) << "a file was created or removed (a plot's default PNG?)";
  }

  /// Writes dir/name and returns its full path.
  std::string File(const std::string& name, const std::string& text) {
    WriteFile(dir / name, text);
    return (dir / name).string();
  }

  /// A directory, outside `dir`, e.g. for fake executables.
  fs::path Scratch(const std::string& name) {
    const fs::path p = root_ / name;
    fs::create_directories(p);
    return p;
  }

  fs::path dir;

 private:
  fs::path root_, capture_;
};

}  // namespace isocost::testing
