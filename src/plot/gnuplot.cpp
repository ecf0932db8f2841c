// PNG plots through gnuplot: data and script go to a private temporary
// directory, gnuplot (pngcairo) renders into a temporary file next to the
// target, and only a complete, valid PNG is renamed over the target.
#include "plot/gnuplot.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"

extern char** environ;

namespace isocost::plot {

namespace {

namespace fs = std::filesystem;

// gnuplot single-quoted string: no escapes except '' for a quote. Newlines would
// end the command, so they become spaces.
std::string quote(const std::string& text) {
  std::string out = "'";
  for (const char c : text) {
    if (c == '\'')
      out += "''";
    else if (c == '\n' || c == '\r')
      out += ' ';
    else
      out += c;
  }
  return out + "'";
}

std::string num(double v) { return detail::exact(v); }

bool is_known_style(const std::string& style) {
  for (const char* s :
       {"lines", "points", "linespoints", "boxes", "impulses", "steps", "fsteps", "histeps"})
    if (style == s) return true;
  return false;
}

std::string style_clause(const std::string& style) {
  if (style == "lines") return "with lines lw 2";
  if (style == "points") return "with points pt 7 ps 0.7";
  if (style == "linespoints") return "with linespoints lw 1.5 pt 7 ps 0.6";
  if (style == "boxes") return "with boxes";
  if (style == "impulses") return "with impulses lw 2";
  return "with " + style + " lw 2";  // steps, fsteps, histeps
}

// A private directory removed with everything in it when this goes out of scope.
class TempDir {
 public:
  TempDir() {
    std::error_code ec;
    fs::path base = fs::temp_directory_path(ec);
    if (ec) base = "/tmp";
    std::string pattern = (base / "isocost-plot-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr)
      throw Error("plot: cannot create a temporary directory in " + base.string() + ": " +
                  std::strerror(errno));
    path_ = pattern;
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  const fs::path& path() const noexcept { return path_; }

 private:
  fs::path path_;
};

// A file that is removed on scope exit unless released.
class RemoveOnExit {
 public:
  explicit RemoveOnExit(fs::path p) : path_(std::move(p)) {}
  RemoveOnExit(const RemoveOnExit&) = delete;
  RemoveOnExit& operator=(const RemoveOnExit&) = delete;
  ~RemoveOnExit() {
    if (!armed_) return;
    std::error_code ignored;
    fs::remove(path_, ignored);
  }
  void release() noexcept { armed_ = false; }

 private:
  fs::path path_;
  bool armed_ = true;
};

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// gnuplot's stderr as one line: the "…line N: message" lines (without the
// script's file name), or else the last non-empty line.
std::string one_line_message(const std::string& err, const std::string& script) {
  std::istringstream in(err);
  std::string joined, last;
  for (std::string line; std::getline(in, line);) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (line.find_first_not_of(" \t^") == std::string::npos) continue;
    last = line;
    const auto at = line.find("line ");
    if (at == std::string::npos) continue;
    std::size_t k = at + 5;
    while (k < line.size() && std::isdigit(static_cast<unsigned char>(line[k]))) ++k;
    if (k == at + 5 || k >= line.size() || line[k] != ':') continue;
    std::string message = line.substr(at);
    const auto quoted = "\"" + script + "\" ";
    if (message.rfind(quoted, 0) == 0) message = message.substr(quoted.size());
    joined += (joined.empty() ? "" : "; ") + message;
  }
  if (joined.empty()) joined = last;
  return joined.empty() ? "no message" : joined;
}

bool on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return false;
  std::istringstream dirs(path);
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const fs::path candidate = (dir.empty() ? fs::path(".") : fs::path(dir)) / name;
    struct stat st {};
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        ::access(candidate.c_str(), X_OK) == 0)
      return true;
  }
  return false;
}

void validate(const Figure& f) {
  if (f.width < 16 || f.width > 20000 || f.height < 16 || f.height > 20000)
    throw Error("plot: size " + std::to_string(f.width) + "x" + std::to_string(f.height) +
                " outside [16, 20000] pixels");
  for (const auto& s : f.series) {
    if (s.x.size() != s.y.size())
      throw Error("plot: series '" + s.title + "' has " + std::to_string(s.x.size()) +
                  " x values but " + std::to_string(s.y.size()) + " y values");
    if (!is_known_style(s.style))
      throw Error("plot: series '" + s.title + "': unknown style '" + s.style +
                  "', expected lines, points, linespoints, boxes, impulses, steps, fsteps or "
                  "histeps");
  }
  if (f.horizontal_line && !std::isfinite(*f.horizontal_line))
    throw Error("plot: horizontal line at " + num(*f.horizontal_line) +
                ", expected a finite value");
  if (f.horizontal_line && f.logy && *f.horizontal_line <= 0)
    throw Error("plot: horizontal line at " + num(*f.horizontal_line) +
                " cannot be drawn on a logarithmic y axis");
}

bool usable(const Figure& f, double x, double y) {
  return std::isfinite(x) && std::isfinite(y) && (!f.logx || x > 0) && (!f.logy || y > 0);
}

// Runs `gnuplot -d SCRIPT` with stdin and stdout on /dev/null and stderr into
// `err`; returns the wait status. Throws Error if it cannot be started.
int run_gnuplot(const fs::path& script, const fs::path& err) {
  posix_spawn_file_actions_t actions;
  if (posix_spawn_file_actions_init(&actions) != 0)
    throw Error("plot: cannot prepare to run gnuplot");
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  const std::string err_path = err.string();
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  std::string arg0 = "gnuplot", arg1 = "-d", arg2 = script.string();
  char* argv[] = {arg0.data(), arg1.data(), arg2.data(), nullptr};
  pid_t pid = 0;
  const int rc = ::posix_spawnp(&pid, "gnuplot", &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0)
    throw Error(std::string("plot: cannot run gnuplot: ") + std::strerror(rc) +
                (rc == ENOENT ? " (install gnuplot, e.g. Debian gnuplot-nox)" : ""));
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR)
      throw Error(std::string("plot: waiting for gnuplot: ") + std::strerror(errno));
  }
  return status;
}

}  // namespace

bool gnuplot_available() { return on_path("gnuplot"); }

void render_png(const Figure& figure, const std::string& path) {
  validate(figure);
  if (path.empty()) throw Error("plot: expected an output file name, got ''");
  if (!gnuplot_available())
    throw Error("cannot write '" + path +
                "': gnuplot is not on PATH (install gnuplot, e.g. Debian gnuplot-nox)");

  TempDir work;
  const fs::path data = work.path() / "data.txt";
  const fs::path script = work.path() / "plot.gp";
  const fs::path err = work.path() / "stderr.txt";

  // Data: one block per series (gnuplot `index`), blank line where a point is
  // left out so that lines break there.
  std::vector<bool> plotted(figure.series.size(), false);
  {
    std::ofstream out(data, std::ios::binary);
    for (std::size_t s = 0; s < figure.series.size(); ++s) {
      const auto& ser = figure.series[s];
      out << "# " << s << "\n";
      bool gap = false;
      for (std::size_t k = 0; k < ser.x.size(); ++k) {
        if (!usable(figure, ser.x[k], ser.y[k])) {
          if (!gap) out << "\n";
          gap = true;
          continue;
        }
        out << num(ser.x[k]) << ' ' << num(ser.y[k]) << '\n';
        gap = false;
        plotted[s] = true;
      }
      out << "\n\n";
    }
    out.close();
    if (!out) throw Error("plot: cannot write data to " + data.string());
  }
  bool any = false;
  for (const bool p : plotted) any = any || p;
  if (!any) throw Error("plot: nothing to plot for '" + path + "' (no finite data point)");

  // The PNG is rendered into a temporary file next to the target: created here
  // first, so that an unwritable directory is reported by name.
  const fs::path target(path);
  const fs::path temp = target.parent_path() / (".isocost-" + std::to_string(::getpid()) + "-" +
                                                target.filename().string() + ".tmp");
  {
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
      throw Error("cannot write '" + path + "': cannot create " + temp.string() + ": " +
                  std::strerror(errno));
    ::close(fd);
  }
  RemoveOnExit remove_temp(temp);

  {
    std::ofstream gp(script, std::ios::binary);
    gp << "set terminal pngcairo noenhanced size " << figure.width << "," << figure.height
       << " font 'Liberation Sans,10'\n";
    gp << "set output " << quote(temp.string()) << "\n";
    gp << "set encoding utf8\n";
    if (!figure.title.empty()) gp << "set title " << quote(figure.title) << "\n";
    if (!figure.xlabel.empty()) gp << "set xlabel " << quote(figure.xlabel) << "\n";
    if (!figure.ylabel.empty()) gp << "set ylabel " << quote(figure.ylabel) << "\n";
    if (figure.logx) gp << "set logscale x\nset format x '%g'\n";
    if (figure.logy) gp << "set logscale y\nset format y '%g'\n";
    gp << "set grid lc rgb '#dddddd'\n";
    gp << "set key top left box opaque\n";
    gp << "set style fill solid 0.5 border -1\n";
    gp << "set boxwidth 0.8 relative\n";
    gp << "set offsets graph 0, graph 0, graph 0.05, graph 0\n";
    for (const double x : figure.vertical_lines) {
      if (!std::isfinite(x) || (figure.logx && x <= 0)) continue;
      gp << "set arrow from first " << num(x) << ", graph 0 to first " << num(x)
         << ", graph 1 nohead dt 2 lw 1 lc rgb '#555555' back\n";
    }
    std::vector<std::string> items;
    int color = 1;
    for (std::size_t s = 0; s < figure.series.size(); ++s) {
      if (!plotted[s]) continue;
      const auto& ser = figure.series[s];
      items.push_back(quote(data.string()) + " index " + std::to_string(s) + " using 1:2 " +
                      style_clause(ser.style) + " lc " + std::to_string(color++) + " title " +
                      (ser.title.empty() ? std::string("''") : quote(ser.title)));
    }
    if (figure.horizontal_line)
      items.push_back(
          num(*figure.horizontal_line) + " with lines dt 3 lw 1.5 lc rgb '#cc0000' title " +
          (figure.horizontal_label.empty() ? std::string("''") : quote(figure.horizontal_label)));
    if (!figure.vertical_lines.empty() && !figure.vertical_label.empty())
      items.push_back("NaN with lines dt 2 lw 1 lc rgb '#555555' title " +
                      quote(figure.vertical_label));
    gp << "plot ";
    for (std::size_t k = 0; k < items.size(); ++k) gp << (k ? ", \\\n     " : "") << items[k];
    gp << "\nset output\n";
    gp.close();
    if (!gp) throw Error("plot: cannot write the gnuplot script to " + script.string());
  }

  const int status = run_gnuplot(script, err);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    const std::string how = WIFEXITED(status) ? "exit status " + std::to_string(WEXITSTATUS(status))
                                              : "signal " + std::to_string(WTERMSIG(status));
    throw Error("cannot write '" + path + "': gnuplot failed (" + how +
                "): " + one_line_message(read_text(err), script.string()));
  }
  // A successful gnuplot run must have left a PNG.
  const std::string png = read_text(temp);
  static const char kSignature[] = "\x89PNG\r\n\x1a\n";
  if (png.size() < 8 || png.compare(0, 8, kSignature, 8) != 0)
    throw Error("cannot write '" + path + "': gnuplot produced no PNG (" +
                one_line_message(read_text(err), script.string()) + ")");

  std::error_code ec;
  fs::rename(temp, target, ec);
  if (ec) throw Error("cannot write '" + path + "': " + ec.message());
  remove_temp.release();
}

}  // namespace isocost::plot
