// libFuzzer target: the real-GPU dump reader (validation/src/dump_reader.cpp). The first byte
// picks an a/b file in one of the operand formats or a c/d file; the rest is the file's text.
// Malformed text must be refused with std::invalid_argument ("<file>:<line>: ..."); accepted
// text must give cases * k patterns of the format's width, which write back and re-read to
// the same patterns.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

#include "tcsim/sim/format.hpp"
#include "tcsim/validation/dump_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  using namespace tcsim;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  const auto& all = builtin_formats();
  const std::size_t choice = data[0] % (all.size() + 1);
  try {
    if (choice == all.size()) {
      const validation::ScalarData s = validation::parse_binary32_text(text, "d_fuzz_fp32.txt");
      std::string again;
      for (std::uint32_t v : s.binary32) again += validation::format_binary32_line(v) + "\n";
      if (validation::parse_binary32_text(again, "again").binary32 != s.binary32) std::abort();
      return 0;
    }
    const Format& fmt = all[choice];
    const validation::OperandData o = validation::parse_operand_text(text, fmt, "a_fuzz.txt");
    if (o.values.size() != o.cases * o.k) std::abort();
    std::string again;
    for (std::size_t i = 0; i < o.cases; ++i) {
      for (std::size_t t = 0; t < o.k; ++t)
        if (o.row(i)[t] & ~fmt.width_mask()) std::abort();
      again += validation::format_operand_line(o.row(i), o.k, fmt) + "\n";
    }
    if (o.k > 0 && validation::parse_operand_text(again, fmt, "again").values != o.values) std::abort();
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
