// libFuzzer target: the user-defined unit loader (models/src/unit_json.cpp) and the Unit
// constructor's validation. Any text is parsed as JSON; a document that is not a valid unit
// must be refused with std::invalid_argument (naming the key); a unit that is accepted must
// evaluate a block FMA of every format pair (every a x b pair of a mixed_inputs row) without
// crashing, with dot_batch equal to dot, and round-trip through to_json.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <vector>

#include <nlohmann/json.hpp>

#include "tcsim/models/unit.hpp"
#include "tcsim/models/unit_json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 16384) return 0;
  const nlohmann::json j = nlohmann::json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return 0;
  tcsim::models::UnitSpec spec;
  try {
    spec = tcsim::models::parse_unit_json(j, "fuzz.json");
  } catch (const std::invalid_argument&) {
    return 0;
  }
  // What to_json writes, parse_unit_json reads back unchanged.
  if (tcsim::models::parse_unit_json(tcsim::models::to_json(spec), "round-trip") != spec) std::abort();
  // Huge blocks or registers are valid but slow; the loader's limits are what is fuzzed.
  for (const auto& row : spec.datapaths)
    if (row.fma_size > 64 || row.fraction_bits > 2000) return 0;
  try {
    const tcsim::models::Unit unit(spec);
    for (const auto& row : spec.datapaths)
      for (const auto& in_name : row.input_formats)
        for (const auto& b_name : row.input_formats)  // a and b in different formats: mixed_inputs rows
          for (const auto& out_name : row.output_formats) {
            if (b_name != in_name && !row.mixed_inputs) continue;
            const tcsim::Format& in = tcsim::parse_format(in_name);
            const tcsim::Format& in_b = tcsim::parse_format(b_name);
            const tcsim::Format& out = tcsim::parse_format(out_name);
            const std::size_t k = static_cast<std::size_t>(row.fma_size) * 2 + 1;
            std::vector<std::uint64_t> a(k), b(k);
            for (std::size_t t = 0; t < k; ++t) {  // a few patterns of both signs, fixed
              a[t] = (0x9E3779B97F4A7C15ull * (t + 1)) & in.width_mask();
              b[t] = (0xBF58476D1CE4E5B9ull * (t + 3)) & in_b.width_mask();
            }
            const std::uint64_t d = unit.dot(in, in_b, out, a, b, out.zero(false), row.instruction);
            if (d & ~out.width_mask()) std::abort();
            std::uint64_t db = 0, c = out.zero(false);
            unit.dot_batch(in, in_b, out, 1, k, a.data(), b.data(), &c, &db, row.instruction, 1);
            if (db != d) std::abort();  // the batch path gives dot's bits
          }
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
