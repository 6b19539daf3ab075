// tcsim_open_search: a research program (no test) that runs a grid of split-model
// hypotheses over the open real-GPU files (H100 fp8 -> binary16, mma.sync m16n8k32 .f16)
// and prints the number of matching cases for each. docs/research/h100_fp8_fp16.md
// records the results.
//
//   tcsim_open_search [data dir]      (default: $TCSIM_GPU_DATA or ../shared/data/gpu)
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "tcsim/validation/dump_gpu_data.hpp"
#include "tcsim/validation/dump_open_models.hpp"
#include "tcsim/validation/dump_validate.hpp"

using namespace tcsim;
using namespace tcsim::validation;

int main(int argc, char** argv) {
  std::string dir = argc > 1 ? argv[1] : "";
  if (dir.empty()) dir = std::getenv("TCSIM_GPU_DATA") ? std::getenv("TCSIM_GPU_DATA") : "../shared/data/gpu";
  std::vector<DumpSet> dumps;
  std::vector<std::string> names;
  for (const auto& f : discover_gpu_data(dir)) {
    if (!f.fp8_emulated) continue;
    dumps.push_back(load_dump(f.paths, f.in, f.out, f.c_input));
    names.push_back(f.key());
  }
  if (dumps.empty()) {
    std::fprintf(stderr, "no open files under '%s'\n", dir.c_str());
    return 1;
  }
  std::printf("%-22s %-11s %-4s %-9s", "partition", "c entry", "F", "align");
  for (const auto& n : names) std::printf(" %26s", n.c_str());
  std::printf("\n");
  const char* partitions[] = {"single", "contiguous", "contiguous-reversed", "even-odd", "even-odd-reversed",
                              "mod4", "mod4-reversed", "mod8", "mod8-reversed", "mod16", "mod16-reversed"};
  const std::pair<CEntry, const char*> entries[] = {
      {CEntry::First, "first"}, {CEntry::AfterFirst, "after-1st"}, {CEntry::LateAdd, "late-add"}};
  const std::pair<Rounding, const char*> aligns[] = {{Rounding::TowardZero, "rz"}, {Rounding::Down, "rd"}};
  for (const char* p : partitions) {
    for (const auto& [entry, entry_name] : entries) {
      for (int F : {13, 23, 24, 25, 30}) {
        for (const auto& [align, align_name] : aligns) {
          std::printf("%-22s %-11s %-4d %-9s", p, entry_name, F, align_name);
          for (const auto& d : dumps) {
            SplitModel m = fp8_mma_sync_emulation_model(d.in, d.out);
            if (std::string(p) == "single") {
              m.groups = {{}};
              for (int k = 0; k < static_cast<int>(d.k); ++k) m.groups[0].push_back(k);
            } else {
              m.groups = split_partition(p, static_cast<int>(d.k));
            }
            m.c_entry = entry;
            m.block.fraction_bits = F;
            m.block.alignment_rounding = align;
            const auto r = validate_dump(d, make_split_model(m), 0);
            std::printf(" %20zu (%5.1f%%)", r.cases - r.mismatches, 100.0 * r.match_rate());
          }
          std::printf("\n");
          std::fflush(stdout);
        }
      }
    }
  }
  return 0;
}
