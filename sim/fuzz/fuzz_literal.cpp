// libFuzzer target: the value literal parser (sim/src/literal.cpp). The first byte picks the
// format and the rounding mode, the rest is the literal text. Malformed text must be refused
// with std::invalid_argument; an accepted literal must give a pattern of the format's width,
// and an exact one the same pattern in every rounding mode.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

#include "tcsim/sim/format.hpp"
#include "tcsim/sim/literal.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1 || size > 4096) return 0;  // long literals only cost time (the parser is linear)
  const auto& all = tcsim::builtin_formats();
  const tcsim::Format& fmt = all[data[0] % all.size()];
  static constexpr tcsim::Rounding modes[] = {tcsim::Rounding::NearestEven, tcsim::Rounding::TowardZero,
                                              tcsim::Rounding::Up, tcsim::Rounding::Down, tcsim::Rounding::ToOdd};
  const tcsim::Rounding mode = modes[(data[0] >> 4) % 5];
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    const std::uint64_t bits = tcsim::parse_literal(text, fmt, mode);
    if (bits & ~fmt.width_mask()) std::abort();  // a pattern wider than the format
    if (tcsim::literal_is_exact(text, fmt))
      for (tcsim::Rounding m : modes)
        if (tcsim::parse_literal(text, fmt, m) != bits) std::abort();  // exact values do not round
  } catch (const std::invalid_argument&) {
  }
  try {
    for (std::uint64_t bits : tcsim::parse_literal_list(text, fmt, mode))
      if (bits & ~fmt.width_mask()) std::abort();
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
