// Real-GPU data directories in the layout of ../shared/data/gpu (<GPU>/<fmt>/[abcd]_*.txt;
// also ../shared/data/gpu-vectors): which files exist, which built-in unit and instruction
// each was made with, and how its accumulator was fed.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "tcsim/sim/format.hpp"
#include "tcsim/validation/dump_validate.hpp"

namespace tcsim::validation {

struct GpuDataFile {
  std::string gpu;           // folder name: V100, A100, A2, A30, Ada, L40S, H100, H200, B200
  std::string input_folder;  // folder name: fp16, bf16, tf32, E4M3, E5M2
  Format in, out;            // input and output formats
  DumpPaths paths;
  std::string unit;          // built-in unit name: v100, a100, l40s, h100, b200
  std::string instruction;   // "" (the unit's default), "mma.sync", "wgmma"
  AccumulatorInput c_input = AccumulatorInput::FromFile;
  bool fp8_emulated = false; // Hopper/Blackwell fp8 mma.sync: emulated on the fp16 tensor core
                             // (docs/research/h100_fp8_fp16.md, units.md s2)
  std::string label() const;  // e.g. "H100/E4M3 -> fp16"
  std::string key() const;    // e.g. "H100/E4M3/d_H100_fp16.txt"
};

// Built-in unit for a GPU folder name (V100 -> v100, A100/A2/A30 -> a100, Ada/L40S -> l40s,
// H100/H200 -> h100, B200 -> b200); throws std::invalid_argument for an unknown folder.
std::string unit_for_gpu(std::string_view gpu);

// Every <GPU>/<fmt>/d_<GPU>_<out>.txt under `dir`, in a fixed order (GPU, format, output).
// Empty when `dir` does not exist. Files of unknown GPUs or formats are skipped.
std::vector<GpuDataFile> discover_gpu_data(const std::string& dir);

}  // namespace tcsim::validation
