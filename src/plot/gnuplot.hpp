// Internal: PNG plots through gnuplot (used by `isocost plot` and the examples).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace isocost::plot {

/// One data series. Points whose x or y is not finite (or not positive on a
/// logarithmic axis) are left out and break a line there.
struct Series {
  std::string title;
  std::vector<double> x, y;
  /// gnuplot style: "lines", "points", "linespoints", "boxes", "impulses",
  /// "steps", "fsteps", "histeps".
  std::string style = "lines";
};

/// y against its index 0, 1, 2, … (a quantity per step), as lines.
Series per_step(std::string title, std::vector<double> y);

/// A figure: series, optional vertical lines (e.g. cuts) and one horizontal line.
struct Figure {
  std::string title, xlabel, ylabel;
  std::vector<Series> series;
  std::vector<double> vertical_lines;     ///< drawn dashed, e.g. cut points
  std::string vertical_label;             ///< legend entry for the vertical lines, if any
  std::optional<double> horizontal_line;  ///< e.g. T_avg
  std::string horizontal_label;
  bool logx = false, logy = false;
  int width = 1000, height = 600;
};

/// Renders the figure to a PNG with gnuplot (pngcairo). Writes to a temporary
/// file and renames it over `path`, so a failure leaves nothing behind. Throws
/// isocost::Error if gnuplot is missing or fails (with its message), or if the
/// figure is malformed (x and y of different sizes, no point to plot, an
/// unknown style, a size outside [16, 20000]).
void render_png(const Figure& figure, const std::string& path);

/// A rectangle drawn over a heat map, e.g. one rank's box, with a label at its
/// centre (empty: none).
struct Rectangle {
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  std::string label;
};

/// A heat map: values on a regular nx × ny lattice of pixels tiling
/// [x0, x1] × [y0, y1] (pixel (i, j) at index i + nx·j), with rectangles over it.
struct HeatMap {
  std::string title, xlabel = "x", ylabel = "y", cblabel;
  double x0 = 0, x1 = 1, y0 = 0, y1 = 1;
  int nx = 0, ny = 0;
  std::vector<double> values;         ///< nx·ny finite values, x fastest
  std::vector<Rectangle> rectangles;  ///< drawn in front, outlined, labelled
  int width = 900, height = 800;
};

/// Renders a heat map to a PNG with gnuplot, like render_png (same atomic
/// write and errors). Throws isocost::Error for a malformed map: values not
/// nx·ny or not finite, an empty or inverted extent, a size outside
/// [16, 20000].
void render_heat_map_png(const HeatMap& map, const std::string& path);

/// True if a `gnuplot` executable is on PATH.
bool gnuplot_available();

}  // namespace isocost::plot
