// The published real-GPU data directory (../shared/data/gpu): which files exist, which
// built-in unit and instruction each was made with, and how its accumulator was fed.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "tcsim/sim/format.hpp"
#include "tcsim/validation/dump_validate.hpp"

namespace tcsim::validation {

struct GpuDataFile {
  std::string gpu;           // folder name: V100, A100, Ada, H100
  std::string input_folder;  // folder name: fp16, bf16, tf32, E4M3, E5M2
  Format in, out;            // input and output formats
  DumpPaths paths;
  std::string unit;          // built-in unit name: v100, a100, l40s, h100
  std::string instruction;   // "" (the unit's default), "mma.sync", "wgmma"
  AccumulatorInput c_input = AccumulatorInput::FromFile;
  bool fp8_emulated = false; // H100 fp8 -> binary16: fp8 mma.sync emulated on fp16 tensor cores
                             // (docs/research/h100_fp8_fp16.md; open in units.md until 2026-11-22)
  std::string label() const;  // e.g. "H100/E4M3 -> fp16"
  std::string key() const;    // e.g. "H100/E4M3/d_H100_fp16.txt"
};

// Built-in unit for a GPU folder name (V100 -> v100, A100 -> a100, Ada -> l40s,
// H100 -> h100); throws std::invalid_argument for an unknown folder.
std::string unit_for_gpu(std::string_view gpu);

// Every <GPU>/<fmt>/d_<GPU>_<out>.txt under `dir`, in a fixed order (GPU, format, output).
// Empty when `dir` does not exist. Files of unknown GPUs or formats are skipped.
std::vector<GpuDataFile> discover_gpu_data(const std::string& dir);

}  // namespace tcsim::validation
