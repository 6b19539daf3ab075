// The files of `tcsim experiment` (experiment.hpp): CSV of the points, the plot (matplotlib,
// else gnuplot: the Debian packages scripts/setup.sh --with-plots installs) and the Markdown
// report with the computed checks.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "experiment.hpp"
#include "output_file.hpp"

namespace tcsim::cli::experiments {

namespace {

std::string num6(double x) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.6g", x);
  return buf;
}


bool runs(const std::string& command) { return std::system((command + " >/dev/null 2>&1").c_str()) == 0; }

std::string quoted(const std::string& s) {
  std::string q = "'";
  for (char ch : s) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return q + "'";
}

const char* const kMatplotlib = R"PY(
import json, sys, textwrap
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
fig = json.load(open(sys.argv[1]))
if fig.get("table_rows"):
    rows, header = fig["table_rows"], fig["table_header"]
    plt.figure(figsize=(min(2.0 + 1.25 * len(header), 16), 0.9 + 0.33 * (len(rows) + 1)))
    ax = plt.gca()
    ax.axis("off")
    t = ax.table(cellText=rows, colLabels=header, loc="center", cellLoc="center")
    t.auto_set_font_size(False)
    t.set_fontsize(8)
    t.auto_set_column_width(list(range(len(header))))
    for (r, c), cell in t.get_celld().items():
        if r == 0:
            cell.set_text_props(weight="bold")
        text = cell.get_text().get_text()
        if text.endswith("!"):
            cell.set_facecolor("#f4c7c3")
    plt.title("\n".join(textwrap.wrap(fig["title"], 90)), fontsize=10)
    plt.tight_layout()
    plt.savefig(sys.argv[2], dpi=110)
    sys.exit(0)
panels = []
for s in fig["series"]:
    if s.get("panel", "") not in panels:
        panels.append(s.get("panel", ""))
cols = max(1, min(fig.get("panel_columns", 2), len(panels))) if len(panels) > 1 else 1
rows = (len(panels) + cols - 1) // cols
fsize = (9.0, 5.0) if len(panels) == 1 else (5.2 * cols + 2.6, 3.6 * rows + 0.9)
figure, axes = plt.subplots(rows, cols, figsize=fsize, squeeze=False, sharex=True)
markers = ["o", "s", "^", "v", "D", "x", "+", "*", "<", ">", "p", "h"]
for a in axes.flat[len(panels):]:
    a.axis("off")
for pi, panel in enumerate(panels):
    ax = axes.flat[pi]
    mine = [s for s in fig["series"] if s.get("panel", "") == panel]
    measured = [s for s in mine if not s["bound"] and not s.get("twin")]
    palette = plt.get_cmap("tab20").colors if len(measured) > 10 else plt.get_cmap("tab10").colors
    colors, marks = {}, {}
    def points(s):
        xs = [x for x, y in zip(s["x"], s["y"]) if y is not None]
        return xs, [y for y in s["y"] if y is not None]
    for i, s in enumerate(measured):
        xs, ys = points(s)
        line, = ax.plot(xs, ys, marker=markers[i % len(markers)], color=palette[i % len(palette)], label=s["label"],
                        linestyle="none" if s.get("scatter") else "-")
        colors[s["label"]], marks[s["label"]] = line.get_color(), markers[i % len(markers)]
    for s in mine:
        if s.get("twin"):
            xs, ys = points(s)
            ax.plot(xs, ys, linestyle=":", marker=marks.get(s["bounds"], "o"), markerfacecolor="none", markersize=8,
                    color=colors.get(s["bounds"], "gray"), label=s["label"])
    for s in mine:
        if s["bound"]:
            xs, ys = points(s)
            ax.plot(xs, ys, linestyle="--", color=colors.get(s["bounds"], "gray"), label=s["label"])
    if fig["logx"]:
        ax.set_xscale("log", base=2)
    if fig["logy"]:
        ax.set_yscale("log")
    ax.grid(True, which="major", alpha=0.3)
    if panel:
        ax.set_title(panel, fontsize=9)
    if len(panels) == 1 or pi // cols == rows - 1 or pi + cols >= len(panels):
        ax.set_xlabel(fig["xlabel"])
    if pi % cols == 0:
        ax.set_ylabel(fig["ylabel"])
if len(panels) == 1:
    axes.flat[0].set_title("\n".join(textwrap.wrap(fig["title"], 60)), fontsize=10)
    axes.flat[0].legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))
    figure.tight_layout()
else:
    handles, labels = axes.flat[0].get_legend_handles_labels()
    figure.suptitle("\n".join(textwrap.wrap(fig["title"], 110)), fontsize=10)
    figure.legend(handles, labels, fontsize=8, loc="center right")
    figure.tight_layout(rect=(0, 0, 1 - 2.4 / fsize[0], 1))
figure.savefig(sys.argv[2], dpi=110)
)PY";

nlohmann::json figure_json(const Figure& f, const Result& r) {
  nlohmann::json j;
  j["table_header"] = r.table_header;
  j["table_rows"] = r.table_rows;
  j["title"] = f.title;
  j["xlabel"] = f.xlabel;
  j["ylabel"] = f.ylabel;
  j["logx"] = f.logx;
  j["logy"] = f.logy;
  j["panel_columns"] = f.panel_columns;
  j["series"] = nlohmann::json::array();
  for (const Series& s : f.series) {
    nlohmann::json y = nlohmann::json::array();
    for (double v : s.y) y.push_back(std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr));
    j["series"].push_back({{"label", s.label}, {"x", s.x}, {"y", y}, {"bound", s.bound}, {"bounds", s.bounds}, {"scatter", s.scatter},
                           {"twin", s.twin}, {"panel", s.panel}});
  }
  return j;
}

// A table drawn by gnuplot as labels on an empty plot.
std::string gnuplot_table(const Result& r, const std::string& png) {
  const std::size_t cols = r.table_header.size(), rows = r.table_rows.size() + 1;
  // The first column (the row names) gets two widths.
  std::string g = "set terminal pngcairo size " + std::to_string(160 + 110 * (cols + 1)) + "," + std::to_string(80 + 24 * rows) +
                  " font ',9'\nset output " + quoted(png) + "\nunset border\nunset tics\nunset key\nset title \"" +
                  r.figure.title + "\" noenhanced\nset xrange [0:" + std::to_string(cols + 1) + "]\nset yrange [0:" +
                  std::to_string(rows) + "]\n";
  auto cell = [&](std::size_t row, std::size_t col, const std::string& text) {
    std::string t;
    for (char ch : text) t += ch == '"' ? '\'' : ch;
    g += "set label \"" + t + "\" at " + (col == 0 ? std::string("1.0") : std::to_string(col + 1) + ".5") + "," +
         std::to_string(rows - row - 1) +
         ".5 center noenhanced" + (row == 0 ? " font ',9:Bold'" : "") + "\n";
  };
  for (std::size_t c = 0; c < cols; ++c) cell(0, c, r.table_header[c]);
  for (std::size_t i = 0; i < r.table_rows.size(); ++i)
    for (std::size_t c = 0; c < cols && c < r.table_rows[i].size(); ++c) cell(i + 1, c, r.table_rows[i][c]);
  return g + "plot NaN\n";
}

// The panels of a figure in order of first appearance ("" alone: one plot).
std::vector<std::string> panels_of(const Figure& f) {
  std::vector<std::string> panels;
  for (const Series& s : f.series)
    if (std::find(panels.begin(), panels.end(), s.panel) == panels.end()) panels.push_back(s.panel);
  return panels;
}

// gnuplot's script with the points inline; bounds dashed and twins dotted, in the colour of
// their series; one subplot per panel (multiplot).
std::string gnuplot_script(const Figure& f, const std::string& png) {
  const std::vector<std::string> panels = panels_of(f);
  const std::size_t cols = panels.size() > 1 ? std::min<std::size_t>(std::max(1, f.panel_columns), panels.size()) : 1;
  const std::size_t rows = (panels.size() + cols - 1) / cols;
  const std::string size = panels.size() > 1 ? std::to_string(560 * cols + 260) + "," + std::to_string(380 * rows + 60)
                                             : std::string("990,550");
  std::string g = "set terminal pngcairo dashed size " + size + " font ',10'\nset output " + quoted(png) + "\n";
  if (f.logx) g += "set logscale x 2\n";
  if (f.logy) g += "set logscale y\nset format y '10^{%T}'\n";
  g += "set xlabel \"" + f.xlabel + "\" noenhanced\nset ylabel \"" + f.ylabel +
       "\" noenhanced\nset key outside right center noenhanced font ',9'\nset grid\n";
  if (panels.size() > 1)
    g += "set multiplot layout " + std::to_string(rows) + "," + std::to_string(cols) + " title \"" + f.title +
         "\" noenhanced\n";
  else
    g += "set title \"" + f.title + "\" noenhanced\n";
  std::size_t data = 0;
  for (const std::string& panel : panels) {
    if (panels.size() > 1) g += "set title \"" + panel + "\" noenhanced\n";
    std::string plot = "plot ";
    int colour = 0;
    std::vector<std::pair<std::string, int>> colours;
    bool first = true;
    for (const Series& s : f.series) {
      if (s.panel != panel) continue;
      int lc = 0;
      if (!s.bound && !s.twin) colours.push_back({s.label, lc = ++colour});
      else
        for (const auto& [label, c] : colours)
          if (label == s.bounds) lc = c;
      const std::string name = "$d" + std::to_string(data++);
      g += name + " << EOD\n";
      for (std::size_t p = 0; p < s.x.size(); ++p)
        if (std::isfinite(s.y[p])) g += num6(s.x[p]) + " " + num6(s.y[p]) + "\n";
      g += "EOD\n";
      plot += std::string(first ? "" : ", ") + name +
              (s.bound  ? " with lines dt 2"
               : s.twin ? " with linespoints dt 3 pt 6 ps 1.5"
               : s.scatter ? " with points pt 7"
                           : " with linespoints pt 7") +
              (lc ? " lc " + std::to_string(lc) : "") + " title \"" + s.label + "\"";
      first = false;
    }
    g += plot + "\n";
  }
  if (panels.size() > 1) g += "unset multiplot\n";
  return g;
}

}  // namespace

std::string write_outputs(const Experiment& e, const Result& r, const Context& c, const std::string& dir,
                          const std::string& option) {
  std::error_code ec;
  prepare_output_folder(option, dir);
  const std::string base = dir + "/" + e.id;

  auto csv_field = [](const std::string& v) {
    std::string q = "\"";
    for (char ch : v) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return q + "\"";
  };
  std::ostringstream csv;
  if (!r.table_rows.empty()) {  // CSV: the table.
    for (std::size_t c = 0; c < r.table_header.size(); ++c) csv << (c ? "," : "") << csv_field(r.table_header[c]);
    csv << "\n";
    for (const auto& row : r.table_rows) {
      for (std::size_t c = 0; c < row.size(); ++c) csv << (c ? "," : "") << csv_field(row[c]);
      csv << "\n";
    }
  } else {  // CSV: one row per point of every series.
    const bool panels = panels_of(r.figure).size() > 1;
    csv << (panels ? "panel," : "") << "series,kind," << r.figure.xlabel << "," << r.figure.ylabel << "\n";
    for (const Series& s : r.figure.series)
      for (std::size_t p = 0; p < s.x.size(); ++p)
        csv << (panels ? csv_field(s.panel) + "," : std::string()) << csv_field(s.label) << ","
            << (s.bound ? "bound" : s.twin ? "twin" : "measured") << "," << num6(s.x[p]) << ","
            << (std::isfinite(s.y[p]) ? num6(s.y[p]) : std::string("")) << "\n";
  }
  write_file(option, base + ".csv", csv.str());

  // The plot.
  std::string tool;
  const std::string png = base + ".png";
  std::string python;
  const char* prefer = std::getenv("TCSIM_PLOT");  // "gnuplot": skip matplotlib
  if (!(prefer && std::string(prefer) == "gnuplot"))
    for (const char* py : {"python3", "/usr/bin/python3"})
      if (runs(std::string(py) + " -c 'import matplotlib'")) {
        python = py;
        break;
      }
  if (!python.empty()) {
    const std::string script = dir + "/." + e.id + ".plot.py", data = dir + "/." + e.id + ".plot.json";
    write_file(option, script, kMatplotlib);
    write_file(option, data, figure_json(r.figure, r).dump());
    const bool ok = runs(python + " " + quoted(script) + " " + quoted(data) + " " + quoted(png));
    std::filesystem::remove(script, ec);
    std::filesystem::remove(data, ec);
    if (!ok) throw std::runtime_error("matplotlib (" + python + ") could not write '" + png + "'");
    tool = "matplotlib";
  } else if (runs("gnuplot --version")) {
    const std::string script = dir + "/." + e.id + ".gp";
    write_file(option, script, r.table_rows.empty() ? gnuplot_script(r.figure, png) : gnuplot_table(r, png));
    const bool ok = runs("gnuplot " + quoted(script));
    std::filesystem::remove(script, ec);
    if (!ok) throw std::runtime_error("gnuplot could not write '" + png + "'");
    tool = "gnuplot";
  } else {
    throw std::runtime_error(
        "plots need python3-matplotlib or gnuplot (Debian packages): run 'bash scripts/setup.sh --with-plots'; " +
        base + ".csv holds the data");
  }

  {  // The report.
    std::ostringstream md;
    md << "# " << e.id << ": " << e.title << "\n\n![" << e.id << "](" << e.id << ".png)\n\n";
    md << "## What the paper found\n\n" << r.paper << "\n\n## What the simulation found\n\n" << r.simulated << "\n\n";
    md << "## Checks\n\n| claim | holds | measured | how |\n|---|---|---|---|\n";
    for (const Check& k : r.checks)
      md << "| " << k.claim << " | " << (k.holds ? "yes" : "**no**") << " | " << num6(k.measured) << " | " << k.detail
         << " |\n";
    md << "\n## Setting\n\n" << r.setting << "\n\n" << (c.quick ? "Mode: --quick." : c.sizes_option.empty() ? "Mode: full." : "Mode: " + c.sizes_option + ".") << " Seed " << c.seed
       << ". Data: " << e.id << ".csv; plot drawn with " << tool << ".\n";
    write_file(option, base + ".md", md.str());
  }
  return tool;
}

}  // namespace tcsim::cli::experiments
