// PNG plots through gnuplot: data, script and the rendered PNG go to a private
// temporary directory, and only a complete, valid PNG is written to the target
// (atomically, detail::write_atomically).
#include "plot/gnuplot.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <sstream>

#include "isocost/detail/file.hpp"
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
      throw Error("plot: series '" + s.title + "': " +
                  detail::expected_got("style",
                                       "lines, points, linespoints, boxes, impulses, steps, "
                                       "fsteps or histeps",
                                       detail::quote(s.style)));
  }
  if (f.horizontal_line && !std::isfinite(*f.horizontal_line))
    throw Error(
        detail::expected_got("plot: horizontal line", "a finite value", num(*f.horizontal_line)));
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

// Renders a PNG: a script of the terminal settings and `body` in `work`,
// gnuplot writing into `work`, a check that a PNG came out, and then
// write_atomically() onto the target, which keeps devices, FIFOs and symbolic
// links what they are (a rename onto `-o /dev/null` would replace the device).
void render_script(const std::string& path, const TempDir& work, int width, int height,
                   const std::function<void(std::ostream&)>& body) {
  const fs::path script = work.path() / "plot.gp";
  const fs::path err = work.path() / "stderr.txt";
  const fs::path temp = work.path() / "plot.png";
  {
    std::ofstream gp(script, std::ios::binary);
    gp << "set terminal pngcairo noenhanced size " << width << "," << height
       << " font 'Liberation Sans,10'\n";
    gp << "set output " << quote(temp.string()) << "\n";
    gp << "set encoding utf8\n";
    body(gp);
    gp << "set output\n";
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

  detail::write_atomically(path, [&](std::ostream& out) { out << png; });
}

}  // namespace

bool gnuplot_available() { return on_path("gnuplot"); }

Series per_step(std::string title, std::vector<double> y) {
  Series s{std::move(title), std::vector<double>(y.size()), std::move(y), "lines"};
  for (std::size_t k = 0; k < s.x.size(); ++k) s.x[k] = static_cast<double>(k);
  return s;
}

void render_png(const Figure& figure, const std::string& path) {
  validate(figure);
  if (path.empty()) throw Error("plot: expected an output file name, got ''");
  if (!gnuplot_available())
    throw Error("cannot write '" + path +
                "': gnuplot is not on PATH (install gnuplot, e.g. Debian gnuplot-nox)");

  TempDir work;
  const fs::path data = work.path() / "data.txt";

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

  render_script(path, work, figure.width, figure.height, [&](std::ostream& gp) {
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
    gp << "\n";
  });
}

void render_heat_map_png(const HeatMap& map, const std::string& path) {
  if (map.width < 16 || map.width > 20000 || map.height < 16 || map.height > 20000)
    throw Error("plot: size " + std::to_string(map.width) + "x" + std::to_string(map.height) +
                " outside [16, 20000] pixels");
  if (map.nx < 1 || map.ny < 1 ||
      map.values.size() != static_cast<std::size_t>(map.nx) * static_cast<std::size_t>(map.ny))
    throw Error("plot: heat map of " + std::to_string(map.nx) + "x" + std::to_string(map.ny) +
                " pixels has " + std::to_string(map.values.size()) + " values");
  if (!(std::isfinite(map.x0) && std::isfinite(map.x1) && map.x0 < map.x1 &&
        std::isfinite(map.y0) && std::isfinite(map.y1) && map.y0 < map.y1))
    throw Error("plot: heat map extent [" + num(map.x0) + ", " + num(map.x1) + "] x [" +
                num(map.y0) + ", " + num(map.y1) + "] is empty or not finite");
  double vmin = map.values.front(), vmax = map.values.front();
  for (const double v : map.values) {
    if (!std::isfinite(v)) throw Error("plot: heat map value " + num(v) + " is not finite");
    vmin = std::min(vmin, v);
    vmax = std::max(vmax, v);
  }
  for (const auto& r : map.rectangles)
    if (!(std::isfinite(r.x0) && std::isfinite(r.x1) && std::isfinite(r.y0) && std::isfinite(r.y1)))
      throw Error("plot: rectangle '" + r.label + "' has a corner that is not finite");
  if (path.empty()) throw Error("plot: expected an output file name, got ''");
  if (!gnuplot_available())
    throw Error("cannot write '" + path +
                "': gnuplot is not on PATH (install gnuplot, e.g. Debian gnuplot-nox)");
  if (!(vmax > vmin)) {  // a constant map: give the colour box some range
    const double pad = vmin == 0 ? 1 : 0.01 * std::abs(vmin);
    vmin -= pad;
    vmax += pad;
  }

  TempDir work;
  const fs::path data = work.path() / "data.txt";
  {
    // Pixel centres and values, one block per row (gnuplot `with image`).
    std::ofstream out(data, std::ios::binary);
    const double dx = (map.x1 - map.x0) / map.nx, dy = (map.y1 - map.y0) / map.ny;
    for (int j = 0; j < map.ny; ++j) {
      const double y = map.y0 + (j + 0.5) * dy;
      for (int i = 0; i < map.nx; ++i)
        out << num(map.x0 + (i + 0.5) * dx) << ' ' << num(y) << ' '
            << num(map.values[static_cast<std::size_t>(i) +
                              static_cast<std::size_t>(map.nx) * static_cast<std::size_t>(j)])
            << '\n';
      out << '\n';
    }
    out.close();
    if (!out) throw Error("plot: cannot write data to " + data.string());
  }

  render_script(path, work, map.width, map.height, [&](std::ostream& gp) {
    if (!map.title.empty()) gp << "set title " << quote(map.title) << "\n";
    if (!map.xlabel.empty()) gp << "set xlabel " << quote(map.xlabel) << "\n";
    if (!map.ylabel.empty()) gp << "set ylabel " << quote(map.ylabel) << "\n";
    if (!map.cblabel.empty()) gp << "set cblabel " << quote(map.cblabel) << "\n";
    // Equal scales unless the box is very elongated.
    const double aspect = (map.y1 - map.y0) / (map.x1 - map.x0);
    if (aspect >= 0.25 && aspect <= 4) gp << "set size ratio -1\n";
    gp << "set xrange [" << num(map.x0) << ":" << num(map.x1) << "]\n";
    gp << "set yrange [" << num(map.y0) << ":" << num(map.y1) << "]\n";
    gp << "set cbrange [" << num(vmin) << ":" << num(vmax) << "]\n";
    gp << "set tics out\n";
    // Viridis, by its five anchor colours.
    gp << "set palette defined (0 '#440154', 0.25 '#3b528b', 0.5 '#21918c', 0.75 '#5ec962', "
          "1 '#fde725')\n";
    gp << "set style textbox opaque fillcolor rgb 'white' noborder margins 1.5, 1\n";
    int id = 1;
    for (const auto& r : map.rectangles) {
      gp << "set object " << id++ << " rect from " << num(r.x0) << "," << num(r.y0) << " to "
         << num(r.x1) << "," << num(r.y1)
         << " front fillstyle empty border lc rgb 'black' lw 1.5\n";
    }
    int label = 1;
    for (const auto& r : map.rectangles) {
      if (r.label.empty()) continue;
      gp << "set label " << label++ << " " << quote(r.label) << " at " << num(0.5 * (r.x0 + r.x1))
         << "," << num(0.5 * (r.y0 + r.y1)) << " center front boxed tc rgb 'black'\n";
    }
    gp << "plot " << quote(data.string()) << " using 1:2:3 with image notitle\n";
  });
}

}  // namespace isocost::plot
