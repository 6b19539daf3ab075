// The frame of the --all-rows tables (`tcsim bench dot --all-rows`, `tcsim bench gemm --all-rows`):
// the rows, their progress lines, the load average before and after, the markdown header, and
// the closing JSON object or summary line with the mismatch total.
#pragma once
#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "args.hpp"
#include "bench_support.hpp"
#include "json_output.hpp"
#include "progress.hpp"

namespace tcsim::cli {

struct AllRows {
  // `command` names the progress lines ("tcsim bench dot").
  AllRows(const ParsedArgs& a, const models::Unit* only, const std::string& command)
      : json(a.has("json")), rows(builtin_bench_rows(only)), progress(command, !a.has("quiet")) {}

  const bool json;
  const std::vector<BenchRow> rows;
  Progress progress;
  const std::string load_before = load_average_text();
  nlohmann::json out_rows = nlohmann::json::array();  // the rows of --json
  std::size_t total_mismatches = 0;

  // Unless --json: the title line (with its newline), then the table's header row ("| a | b |")
  // and its separator.
  void print_header(const std::string& title, const std::string& columns) const {
    if (json) return;
    std::string separator = "|";
    for (std::size_t i = 1; i < columns.size(); ++i)
      if (columns[i] == '|') separator += "---|";
    std::printf("%s%s\n%s\n", title.c_str(), columns.c_str(), separator.c_str());
    std::fflush(stdout);
  }

  // body(row, unit, in, out, instruction (the row's first)) for each row, after its progress line.
  template <class Body>
  void for_each_row(Body&& body) {
    for (std::size_t r = 0; r < rows.size(); ++r) {
      const BenchRow& row = rows[r];
      progress.update("row " + row.label(), r, rows.size());
      body(row, *row.unit, *row.in, *row.out, row.instructions.front());
    }
  }

  // Ends the progress line; with --json prints `j` with the rows, the load averages and the
  // mismatch total, else "load average after: ...; <middle>check: N mismatches against
  // Unit::dot". The exit code: 0 without mismatches, else 1.
  int finish(nlohmann::json j, const std::string& middle) {
    progress.done();
    const std::string load_after = load_average_text();
    if (json) {
      j.update(nlohmann::json{{"load_average_before", load_before},
                              {"load_average_after", load_after},
                              {"rows", out_rows},
                              {"mismatches", total_mismatches}});
      print_json(j);
    } else {
      std::printf("load average after: %s; %scheck: %zu mismatches against Unit::dot\n", load_after.c_str(),
                  middle.c_str(), total_mismatches);
    }
    return total_mismatches == 0 ? 0 : 1;
  }
};

}  // namespace tcsim::cli
