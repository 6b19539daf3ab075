// Parsing numeric literals (decimal, C99 hex-float, inf, nan) into a format.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "tcsim/sim/format.hpp"
#include "tcsim/sim/rounding.hpp"

namespace tcsim {

// Parses "1.5", "-2e-3", "0x1p-24", "-0x1.8p+3", "inf", "-inf", "nan" exactly and rounds
// the exact value into `fmt` with `mode` (decimal literals are rounded once, from the exact
// rational). A pattern literal "bits:0x3c00" is taken as raw bits of `fmt`.
// Throws std::invalid_argument naming `field` and quoting the text when it is malformed.
std::uint64_t parse_literal(std::string_view text, const Format& fmt,
                            Rounding mode = Rounding::NearestEven, std::string_view field = "value");
// A comma-separated list of literals.
std::vector<std::uint64_t> parse_literal_list(std::string_view text, const Format& fmt,
                                              Rounding mode = Rounding::NearestEven,
                                              std::string_view field = "values");
// Whether the literal is exactly representable in `fmt` (false for malformed text too).
bool literal_is_exact(std::string_view text, const Format& fmt);

}  // namespace tcsim
