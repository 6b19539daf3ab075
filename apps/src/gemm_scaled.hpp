// The block-scaled (MX) GEMM of `tcsim gemm` and `tcsim.matmul` / `tcsim.gemm_errors`
// (issue 25): Unit::gemm_scaled on the b200 tcgen05.mxf8f6f4 / tcgen05.mxf4nvf4 and rtx5090
// mma.sync.mxf8f6f4 / mma.sync.mxf4nvf4 rows, with scale matrices given (files, arrays) or
// chosen per block from the data, and the exact errors against the product of the scaled
// operands (MPFR). Shared by the CLI and the Python package: the same checks and texts, the
// options written as the CLI writes them (the Python boundary renames "--scale-a" to scale_a).
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tcsim/models/gemm.hpp"
#include "tcsim/reference/gemm_error.hpp"

namespace tcsim::cli {

// What the user asked for the scales (every field optional).
struct ScaleRequest {
  std::string scale_format;  // --scale-format ("": the row's first)
  int block_size = 0;        // --block-size (0: the row's first)
  std::string scales;        // --scales: "from-data", "one" ("": from-data unless files are given)
  bool scale_a = false, scale_b = false;  // --scale-a / --scale-b given
  bool any() const { return !scale_format.empty() || block_size != 0 || !scales.empty() || scale_a || scale_b; }
};

// The block-scaled row a GEMM runs on.
struct ScaledSetup {
  std::string instruction;            // the row's instruction ("tcgen05.mxf4nvf4")
  const Format* scale_format = nullptr;
  int block_size = 0;                 // k indices per scale
  std::string scales;                 // "files", "from-data" or "one"
  std::size_t fma_size = 0;
};

// The block-scaled row when `req` names scales or the row for the formats and `instruction` is
// block-scaled; nullopt for an unscaled GEMM (no scale option, an unscaled row). Throws naming
// the option: scales for a row without them, a scale format or block size the row lacks,
// --scale-a without --scale-b, --scales with files or an unknown --scales word.
std::optional<ScaledSetup> scaled_setup(const models::Unit& unit, const Format& in_a, const Format& in_b,
                                        const Format& out, const std::string& instruction, const ScaleRequest& req);

// The options of `tcsim gemm` that a block-scaled GEMM cannot take (it is one Unit::gemm_scaled):
// throws "--split-k cannot be used with block scales ..." for the first one set in `o`.
void refuse_unscaled_options(const ScaledSetup& setup, const models::GemmOptions& o);

// A scale matrix as given (file or array), row-major values.
struct ScaleValues {
  std::size_t rows = 0, cols = 0;
  std::vector<double> values;
  std::string name;                                          // "--scale-a: s.mtx" / "scale_a"
  std::function<std::string(std::size_t, std::size_t)> entry;  // "--scale-a: s.mtx: entry (1, 2)" / "scale_a[0, 1]"
};

// The operands Unit::gemm_scaled takes: element patterns and scale patterns.
struct ScaledOperands {
  std::vector<std::uint64_t> A, B, C;            // m x k of in_a, k x n of in_b, m x n of out
  std::vector<std::uint64_t> scale_a, scale_b;   // m x k/bs, k/bs x n of the scale format
  std::string how;                               // how the scales were chosen (reports)
};

// A, B, C values (C empty: 0) into patterns, with the scales: checked `given` matrices
// (setup.scales "files": each entry a value of the scale format exactly, not NaN; shapes
// m x k/bs and k/bs x n; A and B converted with `rounding`), every scale 1 ("one"), or chosen
// per block from the data ("from-data": OCP MX v1.0 section 6.3 for ue8m0, X = 2^(floor(log2
// amax) - emax of the element format); amax / (the element format's largest) rounded into
// ue4m3 for ue4m3 (the NVFP4 recipe without its per-tensor scale); elements A / X rounded with
// `rounding`, saturating at the format's largest). Throws naming the option when k is not a
// multiple of the block size.
ScaledOperands scaled_operands(const ScaledSetup& setup, const Format& in_a, const Format& in_b, const Format& out,
                               std::size_t m, std::size_t n, std::size_t k, std::span<const double> A,
                               std::span<const double> B, std::span<const double> C, const ScaleValues* given_a,
                               const ScaleValues* given_b, Rounding rounding);

struct ScaledRun {
  models::GemmResult r;       // D (values, fp32 patterns), variant "tc32" / "unit", path
  reference::GemmErrors err;  // against C + (scale_a . A)(scale_b . B), exactly (MPFR)
  reference::GemmBound bound; // blanchard2020 Thm 3.1 with the row's block-FMA roundoffs
  double seconds = 0;         // Unit::gemm_scaled's wall time
};

// Unit::gemm_scaled on the operands, then the exact errors over `check_rows` rows (as
// checked_gemm_errors) and the bound.
ScaledRun run_scaled_gemm(const models::Unit& unit, const ScaledSetup& setup, const Format& in_a, const Format& in_b,
                          const Format& out, std::size_t m, std::size_t n, std::size_t k, const ScaledOperands& ops,
                          unsigned threads, long long check_rows,
                          const std::function<void(std::size_t, std::size_t)>& check_progress = {});

// gemm_report_json of the run plus "scale_format", "block_size", "scales" (how they were chosen).
nlohmann::json scaled_report_json(const models::Unit& unit, const ScaledSetup& setup, const Format& in_a,
                                  const Format& in_b, const Format& out, const ScaledOperands& ops,
                                  const ScaledRun& run);

// "ue8m0 scales per 32 along k, chosen per block from the data (OCP MX)" for the text report.
std::string scaled_summary(const ScaledSetup& setup, const ScaledOperands& ops);

}  // namespace tcsim::cli
