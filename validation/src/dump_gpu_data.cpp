// Discovery of the published real-GPU data files (see dump_gpu_data.hpp).
#include "tcsim/validation/dump_gpu_data.hpp"

#include <algorithm>
#include <filesystem>
#include <stdexcept>

namespace tcsim::validation {

namespace fs = std::filesystem;

std::string GpuDataFile::label() const { return gpu + "/" + input_folder + " -> " + out.name; }

std::string GpuDataFile::key() const {
  return gpu + "/" + input_folder + "/" + fs::path(paths.d).filename().string();
}

namespace {
struct GpuFolder {
  const char* folder;
  const char* unit;
  bool fp8_on_fp16_core;  // fp8 mma.sync is the fp16-tensor-core emulation (units.md s2)
  bool fp8_fp32_wgmma;    // the fp8 binary32 file was made by wgmma into a zeroed D
};
// KM25's public set names these folders; H200 is assumed to have been run like H100.
constexpr GpuFolder kGpuFolders[] = {
    {"V100", "v100", false, false}, {"A100", "a100", false, false}, {"A2", "a100", false, false},
    {"A30", "a100", false, false},  {"Ada", "l40s", false, false},  {"L40S", "l40s", false, false},
    {"H100", "h100", true, true},   {"H200", "h100", true, true},   {"B200", "b200", true, false},
};

const GpuFolder* find_gpu(std::string_view gpu) {
  for (const auto& g : kGpuFolders)
    if (gpu == g.folder) return &g;
  return nullptr;
}
}  // namespace

std::string unit_for_gpu(std::string_view gpu) {
  if (const GpuFolder* g = find_gpu(gpu)) return g->unit;
  std::string allowed;
  for (const auto& g : kGpuFolders) allowed += (allowed.empty() ? "" : ", ") + std::string(g.folder);
  throw std::invalid_argument("gpu folder '" + std::string(gpu) + "' is unknown; allowed: " + allowed);
}

std::vector<GpuDataFile> discover_gpu_data(const std::string& dir) {
  std::vector<GpuDataFile> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  static const char* kInputs[] = {"fp16", "bf16", "tf32", "E4M3", "E5M2"};
  static const char* kOutputs[] = {"fp32", "fp16"};
  for (const GpuFolder& gpu : kGpuFolders) {
    for (const char* input : kInputs) {
      const fs::path folder = fs::path(dir) / gpu.folder / input;
      if (!fs::is_directory(folder, ec)) continue;
      const std::string g = gpu.folder, f = input;
      for (const char* output : kOutputs) {
        const fs::path d = folder / ("d_" + g + "_" + output + ".txt");
        if (!fs::is_regular_file(d, ec)) continue;
        GpuDataFile e;
        e.gpu = g;
        e.input_folder = f;
        e.in = parse_format(f, "input format folder");
        e.out = parse_format(output, "output format");
        e.paths.a = (folder / ("a_" + g + "_" + f + ".txt")).string();
        e.paths.b = (folder / ("b_" + g + "_" + f + ".txt")).string();
        e.paths.c = (folder / ("c_" + g + "_fp32.txt")).string();
        e.paths.d = d.string();
        e.unit = gpu.unit;
        const bool fp8 = f == "E4M3" || f == "E5M2";
        const bool binary32_out = std::string(output) == "fp32";
        if (fp8 && gpu.fp8_fp32_wgmma && binary32_out) {
          // wgmma accumulating into a zeroed D: the c file was not used.
          e.instruction = "wgmma";
          e.c_input = AccumulatorInput::Zero;
        } else if (fp8) {
          e.instruction = "mma.sync";  // mma.sync.aligned.m16n8k32
        }
        e.fp8_emulated = fp8 && gpu.fp8_on_fp16_core && e.instruction == "mma.sync";
        out.push_back(std::move(e));
      }
    }
  }
  return out;
}

}  // namespace tcsim::validation
