// AdderConfig: validation, the exact configuration, names of the enumerations.
#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "tcsim/sim/adder.hpp"
#include "tcsim/sim/codec.hpp"
#include "ascii_lower.hpp"

namespace tcsim {
namespace {

[[noreturn]] void bad(std::string_view field, const std::string& what) {
  throw std::invalid_argument("adder field '" + std::string(field) + "' " + what);
}

template <class E, std::size_t N>
E parse_enum(std::string_view text, std::string_view field, const std::pair<const char*, E> (&table)[N]) {
  const std::string key = detail::ascii_lower(text);
  std::string allowed;
  for (const auto& [name, value] : table) {
    if (key == name) return value;
    allowed += std::string(allowed.empty() ? "" : "|") + name;
  }
  throw std::invalid_argument("invalid " + std::string(field) + " '" + std::string(text) + "'; allowed: " + allowed);
}

// Exponent of the leading position of the largest finite value of `f`.
int top_exponent(const Format& f) { return f.emax; }
// Exponent of the last bit of the smallest nonzero value of `f`.
int bottom_exponent(const Format& f) { return f.subnormals ? f.emin - (f.precision - 1) : f.emin; }

int bits_for(std::size_t n) {  // ceil(log2(n)) for n >= 1
  int b = 0;
  while ((std::size_t{1} << b) < n) ++b;
  return b;
}

}  // namespace

void AdderConfig::validate() const {
  for (auto [field, fmt] : {std::pair<const char*, const Format*>{"a_format", &a_format},
                            {"b_format", &b_format}, {"c_format", &c_format}, {"out_format", &out_format}}) {
    if (fmt->width <= 0) bad(field, "is not set (use a built-in format or make_format)");
  }
  if (fraction_bits < 0 || fraction_bits > kMaxFractionBits)
    bad("fraction_bits", "must be 0.." + std::to_string(kMaxFractionBits) + ", got " + std::to_string(fraction_bits));
  if (carry_bits < 0 || carry_bits > kMaxCarryBits)
    bad("carry_bits", "must be 0.." + std::to_string(kMaxCarryBits) + ", got " + std::to_string(carry_bits));
  switch (alignment_rounding) {
    case Rounding::TowardZero:
    case Rounding::Down:
    case Rounding::Up:
    case Rounding::NearestEven:
      break;
    default:
      bad("alignment_rounding", "must be rz|rd|ru|rne, got " + to_string(alignment_rounding));
  }
  if (late_products_rounding) {
    if (c_placement != CPlacement::Late)
      bad("late_products_rounding", "needs c_placement late");
    if (*late_products_rounding == Rounding::Stochastic)
      bad("late_products_rounding", "must be rne|rz|ru|rd|ro, got sr");
  }
  if (c_placement == CPlacement::After) {
    for (auto [field, v] : {std::pair{"after.sum_fraction_bits", after.sum_fraction_bits},
                            {"after.c_fraction_bits", after.c_fraction_bits}})
      if (v < 0 || v > 4096) bad(field, "must be 0..4096, got " + std::to_string(v));
    if (after.renormalize_fraction_bits && (*after.renormalize_fraction_bits < 0 || *after.renormalize_fraction_bits > 4096))
      bad("after.renormalize_fraction_bits", "must be 0..4096, got " + std::to_string(*after.renormalize_fraction_bits));
    if (after.drop_c_below && (*after.drop_c_below < 0 || *after.drop_c_below > 4096))
      bad("after.drop_c_below", "must be 0..4096, got " + std::to_string(*after.drop_c_below));
    if (after.rounding == Rounding::Stochastic || after.rounding == Rounding::ToOdd)
      bad("after.rounding", "must be rz|rd|ru|rne, got " + to_string(after.rounding));
    if (normalization != Normalization::Deferred) bad("c_placement", "'after' needs normalization deferred");
    if (min_exponent) bad("min_exponent", "is not used with c_placement after (c sets the floor: E >= e_c)");
    if (sticky_bit) bad("sticky_bit", "is not supported with c_placement after");
  }
  if (product_groups < 1 || product_groups > 64)
    bad("product_groups", "must be 1..64, got " + std::to_string(product_groups));
  if (product_groups > 1 && c_placement != CPlacement::After) bad("product_groups", "> 1 needs c_placement after");
  if (input_fraction_bits && (*input_fraction_bits < 0 || *input_fraction_bits >= std::min(a_format.precision, b_format.precision)))
    bad("input_fraction_bits", "must be 0.." + std::to_string(std::min(a_format.precision, b_format.precision) - 2) +
                                   " (fewer than the operands' fraction bits), got " + std::to_string(*input_fraction_bits));
  // The truncation works on the encoding (as X25 models xf32): an IEEE NaN stays NaN or becomes
  // Inf, but an all-ones NaN (OCP e4m3: S.1111.111) would become a finite number; refused.
  if (input_fraction_bits)
    for (const Format* f : {&a_format, &b_format})
      if (f->nan == NanEncoding::AllOnes)
        bad("input_fraction_bits", std::string(f == &a_format ? "a" : "b") + "'s format " + f->name +
                                       " encodes NaN as all ones, which the truncation would make finite; allowed "
                                       "only with formats whose NaN has an all-ones exponent field or that have no NaN");
  if (product_rounding) {
    if (normalization != Normalization::PerStep) bad("product_rounding", "needs normalization per-step");
    if (*product_rounding == Rounding::Stochastic) bad("product_rounding", "must be rne|rz|ru|rd|ro, got sr");
  }
  if (product_overflow_inf && normalization != Normalization::Deferred)
    bad("product_overflow", "'inf' needs normalization deferred (per-step: use product_rounding)");
  if (min_exponent && (*min_exponent < -1000000 || *min_exponent > 1000000))
    bad("min_exponent", "must be within -1000000..1000000, got " + std::to_string(*min_exponent));
  if (nan_pattern) {
    if (*nan_pattern & ~out_format.width_mask())
      bad("nan_pattern", "has bits above the " + std::to_string(out_format.width) + "-bit width of " + out_format.name);
    if (classify(out_format, *nan_pattern) != FpClass::NaN)
      bad("nan_pattern", bits_to_hex(out_format, *nan_pattern) + " is not a NaN of " + out_format.name);
  }
}

int AdderConfig::exact_fraction_bits() const {
  // Largest reference exponent: a product of the largest values (unnormalised exponent
  // emax_a + emax_b, plus one for a normalised leading bit) or c. Smallest bit: the last
  // bit of the product of the two smallest nonzero values, or of the smallest c.
  const int e_top = std::max(top_exponent(a_format) + top_exponent(b_format) + 1, top_exponent(c_format));
  const int e_low = std::min(bottom_exponent(a_format) + bottom_exponent(b_format), bottom_exponent(c_format));
  return e_top - e_low;
}

bool AdderConfig::uses_extended_fields() const {
  return c_placement == CPlacement::After || product_groups != 1 || input_fraction_bits || flush_inputs_positive ||
         product_rounding || product_overflow_inf;
}

std::string AdderConfig::describe() const {
  std::ostringstream s;
  s << a_format.name << "*" << b_format.name << "+" << c_format.name << "->" << out_format.name
    << " F=" << fraction_bits << " carry=" << carry_bits << " align=" << to_string(alignment_rounding)
    << (sticky_bit ? " sticky" : "") << " " << to_string(normalization);
  if (normalization == Normalization::PerStep) s << " order=" << to_string(order);
  s << " c=" << to_string(c_placement);
  if (c_placement == CPlacement::After) {
    s << " after(sum=" << after.sum_fraction_bits << ",c=" << after.c_fraction_bits << "," << to_string(after.rounding);
    if (after.renormalize_fraction_bits) s << ",renormalize=" << *after.renormalize_fraction_bits;
    if (after.drop_c_below) s << ",drop_c_below=" << *after.drop_c_below;
    s << ")";
  }
  if (product_groups != 1) s << " groups=" << product_groups;
  if (input_fraction_bits) s << " inputs->" << *input_fraction_bits << "bits";
  if (product_rounding) s << " product_rounding=" << to_string(*product_rounding);
  if (product_overflow_inf) s << " product_overflow=inf";
  if (flush_inputs_positive) s << " flush->+0";
  if (late_products_rounding) s << " products->" << out_format.name << ":" << to_string(*late_products_rounding);
  s << " products=" << to_string(product_exponent)
    << " final=" << to_string(final_rounding);
  if (min_exponent) s << " min_exponent=" << *min_exponent;
  if (!subnormal_inputs) s << " ftz-in";
  if (!subnormal_outputs) s << " ftz-out";
  if (overflow != OverflowMode::Ieee) s << " overflow=" << to_string(overflow);
  if (zero_sign != ZeroSign::Ieee) s << " zero_sign=" << to_string(zero_sign);
  return s.str();
}

AdderConfig exact_adder_config(const Format& in, const Format& out, std::size_t terms) {
  AdderConfig c;
  c.a_format = in;
  c.b_format = in;
  c.c_format = out;
  c.out_format = out;
  c.fraction_bits = c.exact_fraction_bits();
  // Every aligned term is below 2^(E+2); terms+1 of them stay below 2^(E+2+bits_for(terms+1)).
  c.carry_bits = 1 + bits_for(terms + 1);
  c.alignment_rounding = Rounding::TowardZero;  // never used: nothing is shifted out
  c.final_rounding = Rounding::NearestEven;
  c.overflow = OverflowMode::Ieee;
  return c;
}

std::string to_string(Normalization n) { return n == Normalization::Deferred ? "deferred" : "per-step"; }
std::string to_string(AccumulationOrder o) {
  switch (o) {
    case AccumulationOrder::LargestFirst: return "largest-first";
    case AccumulationOrder::Sequential: return "sequential";
    case AccumulationOrder::Pairwise: return "pairwise";
  }
  return "?";
}
std::string to_string(CPlacement c) {
  return c == CPlacement::Aligned ? "aligned" : c == CPlacement::Late ? "late" : "after";
}
std::string to_string(ProductExponent p) { return p == ProductExponent::Unnormalized ? "unnormalized" : "normalized"; }
std::string to_string(ZeroSign z) { return z == ZeroSign::Ieee ? "ieee" : "positive"; }

Normalization parse_normalization(std::string_view s, std::string_view field) {
  static constexpr std::pair<const char*, Normalization> t[] = {{"deferred", Normalization::Deferred},
                                                                {"per-step", Normalization::PerStep}};
  return parse_enum(s, field, t);
}
AccumulationOrder parse_order(std::string_view s, std::string_view field) {
  static constexpr std::pair<const char*, AccumulationOrder> t[] = {
      {"largest-first", AccumulationOrder::LargestFirst},
      {"sequential", AccumulationOrder::Sequential},
      {"pairwise", AccumulationOrder::Pairwise}};
  return parse_enum(s, field, t);
}
CPlacement parse_c_placement(std::string_view s, std::string_view field) {
  static constexpr std::pair<const char*, CPlacement> t[] = {{"aligned", CPlacement::Aligned},
                                                             {"late", CPlacement::Late},
                                                             {"after", CPlacement::After}};
  return parse_enum(s, field, t);
}
ProductExponent parse_product_exponent(std::string_view s, std::string_view field) {
  static constexpr std::pair<const char*, ProductExponent> t[] = {
      {"unnormalized", ProductExponent::Unnormalized}, {"normalized", ProductExponent::Normalized}};
  return parse_enum(s, field, t);
}

ZeroSign parse_zero_sign(std::string_view s, std::string_view field) {
  static constexpr std::pair<const char*, ZeroSign> t[] = {{"ieee", ZeroSign::Ieee}, {"positive", ZeroSign::Positive}};
  return parse_enum(s, field, t);
}

std::uint64_t counter_random(std::uint64_t seed, std::uint64_t index) {
  std::uint64_t z = seed + 0x9E3779B97F4A7C15ull * (index + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace tcsim
