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

std::string unit_for_gpu(std::string_view gpu) {
  if (gpu == "V100") return "v100";
  if (gpu == "A100") return "a100";
  if (gpu == "Ada") return "l40s";
  if (gpu == "H100") return "h100";
  throw std::invalid_argument("gpu folder '" + std::string(gpu) +
                              "' is unknown; allowed: V100, A100, Ada, H100");
}

std::vector<GpuDataFile> discover_gpu_data(const std::string& dir) {
  std::vector<GpuDataFile> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  static const char* kGpus[] = {"V100", "A100", "Ada", "H100"};
  static const char* kInputs[] = {"fp16", "bf16", "tf32", "E4M3", "E5M2"};
  static const char* kOutputs[] = {"fp32", "fp16"};
  for (const char* gpu : kGpus) {
    for (const char* input : kInputs) {
      const fs::path folder = fs::path(dir) / gpu / input;
      if (!fs::is_directory(folder, ec)) continue;
      const std::string g = gpu, f = input;
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
        e.unit = unit_for_gpu(g);
        const bool fp8 = f == "E4M3" || f == "E5M2";
        const bool binary32_out = std::string(output) == "fp32";
        if (fp8 && g == "H100" && binary32_out) {
          // wgmma accumulating into a zeroed D: the c file was not used.
          e.instruction = "wgmma";
          e.c_input = AccumulatorInput::Zero;
        } else if (fp8) {
          e.instruction = "mma.sync";  // mma.sync.aligned.m16n8k32
        }
        e.fp8_emulated = fp8 && g == "H100" && !binary32_out;
        out.push_back(std::move(e));
      }
    }
  }
  return out;
}

}  // namespace tcsim::validation
