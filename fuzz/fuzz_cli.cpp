// The isocost command line: the input is split into argv words (one per line)
// and run through isocost::cli::run(), the same function as the binary's
// main(), in a scratch directory holding a few small input files.
//
// Kept out: `plot` (starts gnuplot), absolute paths and "..", so that nothing
// is read or written outside the scratch directory (no /dev/stdin hangs), and
// numbers of 6 digits or more (a legitimate 10^7-rank cut takes a minute).
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <vector>

#include "cli.hpp"
#include "fuzz_support.hpp"

using isocost::fuzz::check;
using isocost::fuzz::fail;

namespace {

// The inputs the seed command lines name (as in docs/cli.md).
const std::vector<std::pair<std::string, std::string>> kFiles = {
    {"timings.csv", "x,t\n1,0\n2,1\n3,3\n4,6\n5,10\n6,15\n7,21\n8,28\n"},
    {"intervals.csv", "lo,hi,dt\n0,1,1\n1,2,3\n2,3,5\n3,4,7\n"},
    {"timings.json",
     "{\"intervals\": [{\"lo\": 0, \"hi\": 1, \"dt\": 1}, {\"lo\": 1, \"hi\": 2, \"dt\": 2}, "
     "{\"lo\": 2, \"hi\": 4, \"dt\": 5}]}\n"},
    {"loads.txt", "1\n2\n3\n4\n5\n6\n7\n8\n9\n"},
    {"phases.csv", "rank,phase,time\n0,a,1\n0,b,2\n1,a,3\n1,b,1\n"},
    {"ring.txt", "0 1\n1 2\n2 3\n3 0\n"},
    {"ring_loads.txt", "4\n1\n1\n2\n"},
    {"cuts.txt", "0\n2.5\n5\n7.5\n10\n"},
    {"cut_loads.txt", "1\n2\n3\n4\n"},
    {"tasks.csv", "rank,id,load\n0,1,2\n0,2,1\n1,3,1\n2,4,3\n3,5,1\n3,6,1\n"},
    {"w.txt", "1 2 3\n4 5 6\n"},
};

// The scratch directory, removed at exit (libFuzzer ends with exit()).
struct Scratch {
  Scratch() {
    char name[] = "/tmp/isocost-fuzz-cli-XXXXXX";
    if (!mkdtemp(name)) std::abort();
    dir = name;
  }
  ~Scratch() {
    if (DIR* d = opendir(dir.c_str())) {
      while (const dirent* e = readdir(d))
        if (e->d_name[0] != '.') unlink((dir + "/" + e->d_name).c_str());
      closedir(d);
    }
    rmdir(dir.c_str());
  }
  std::string dir;
};

const std::string& scratch_dir() {
  static const Scratch scratch;
  return scratch.dir;
}

// Puts back the inputs and removes whatever the last run wrote (-o files,
// their temporaries), so every run starts from the same directory.
void reset_scratch() {
  std::set<std::string> keep;
  for (const auto& [name, text] : kFiles) keep.insert(name);
  if (DIR* d = opendir(".")) {
    while (const dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      if (name != "." && name != ".." && !keep.count(name)) unlink(name.c_str());
    }
    closedir(d);
  }
  for (const auto& [name, text] : kFiles) std::ofstream(name, std::ios::trunc) << text;
}

bool refused(const std::string& word) {
  if (word.empty() || word.size() > 200) return word.size() > 200;
  if (word == "plot" || word.find("..") != std::string::npos) return true;
  if (word[0] == '/' || word[0] == '~' || word.find("=/") != std::string::npos) return true;
  // A short option with a glued value (-o/dev/null, -ro/x).
  if (word[0] == '-' && (word.size() < 2 || word[1] != '-') && word.find('/') != std::string::npos)
    return true;
  int digits = 0;
  for (char c : word) {
    digits = (c >= '0' && c <= '9') ? digits + 1 : 0;
    if (digits >= 6) return true;
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 2048) return -1;
  // One word per line; a trailing newline ends the last word, it does not
  // add an empty one (an empty line in the middle is an empty argument).
  std::vector<std::string> words{"isocost"};
  std::string word;
  for (std::size_t k = 0; k < size; ++k) {
    if (data[k] != '\n') {
      word += static_cast<char>(data[k]);
      if (k + 1 < size) continue;
    }
    if (refused(word) || words.size() > 32) return -1;
    words.push_back(word);
    word.clear();
  }
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);

  // Only during the run: libFuzzer reads and writes its corpus relative to
  // the directory it was started in.
  const int home = open(".", O_RDONLY | O_DIRECTORY);
  if (home < 0 || chdir(scratch_dir().c_str()) != 0) std::abort();
  reset_scratch();
  std::ostringstream out, err;
  auto* cout_buf = std::cout.rdbuf(out.rdbuf());
  auto* cerr_buf = std::cerr.rdbuf(err.rdbuf());
  int code = -1;
  try {
    code = isocost::cli::run(static_cast<int>(words.size()), argv.data());
  } catch (...) {
    std::cout.rdbuf(cout_buf);
    std::cerr.rdbuf(cerr_buf);
    fail("an exception escaped isocost::cli::run");
  }
  std::cout.rdbuf(cout_buf);
  std::cerr.rdbuf(cerr_buf);
  std::cout.clear();
  std::cerr.clear();
  if (fchdir(home) != 0) std::abort();
  close(home);

  const std::string e = err.str();
  check(code >= 0 && code <= 3, "exit code " + std::to_string(code));
  // Exit 1 may be a legitimate write failure (-o into a missing directory);
  // an internal error (an exception other than isocost::Error) is a finding.
  // (A prefix test: the messages quote the arguments, which may say anything.)
  check(e.rfind("isocost: internal error", 0) != 0, "internal error: " + e);
  if (code == 2) {
    // Bad input: one line on stderr, nothing on stdout (app.cpp's contract).
    check(out.str().empty(), "exit 2 with output on stdout: " + e);
    check(!e.empty() && e.find('\n') == e.size() - 1, "exit 2 without exactly one line: " + e);
  }
  return 0;
}
