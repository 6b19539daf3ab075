// Property: on random user-defined adders the probe recovers k, F, the alignment rounding
// and the final rounding exactly (the final rounding whenever it is observable at all); on
// random units whose c is added last, also the blocks and the rounding of c's addition.
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <memory>
#include <sstream>
#include <string>

#include "test_support.hpp"
#include "tcsim/models/unit.hpp"
#include "tcsim/sim/codec.hpp"
#include "tcsim/validation/probe.hpp"

using namespace tcsim;
using namespace tcsim::validation;

namespace {
constexpr Rounding kModes[] = {Rounding::TowardZero, Rounding::Down, Rounding::Up, Rounding::NearestEven};

// Whether the final rounding can be seen at all: the register must hold a sum with more
// significant bits than binary32 keeps. Without carries it holds F+1 bits below and at 2^E;
// L carries (L <= log2 of the terms one block can stack: c and k products, at most 4 as the
// probe tries, within the carry bits) add L more. bf16 inputs also reach binary32's
// subnormal range, where any F >= 1 shows it.
bool final_rounding_observable(const Format& in, int k, int F, int carry) {
  if (in == formats::bf16()) return true;
  const int tops = std::min({k + 1, 1 << std::min(carry, 4), 4});
  const int L = static_cast<int>(std::floor(std::log2(static_cast<double>(tops))));
  return F + L >= formats::fp32().precision;
}

// Adder i of a property run: `in` inputs, binary32 c and output, F fraction bits, and the
// (alignment, final) rounding pair i of the 16 pairs of kModes (cycled).
AdderConfig property_adder(const Format& in, int F, int i) {
  AdderConfig c;
  c.a_format = c.b_format = in;
  c.c_format = c.out_format = formats::fp32();
  c.fraction_bits = F;
  c.alignment_rounding = kModes[i % 4];
  c.final_rounding = kModes[(i / 4) % 4];
  return c;
}

// Carry bits around the ceil(log2(k + 1)) that k products and c need: one fewer to two more.
int random_carry_bits(tcsim::test::Rng& rng, int k) {
  const int need = static_cast<int>(std::ceil(std::log2(static_cast<double>(k + 1))));
  return rng.range(std::max(1, need - 1), need + 2);
}

// The probe read back k, F and the alignment rounding.
bool recovers_basics(const ProbeReport& r, const AdderConfig& c, int k) {
  return r.fma_size.value == k && r.fraction_bits.value == c.fraction_bits &&
         r.alignment_rounding.value == c.alignment_rounding;
}

// "unit 3 (seed 5): <the adder> k=12", the start of a failure's message.
std::string unit_text(int i, std::uint64_t seed, const AdderConfig& c, int k) {
  std::ostringstream o;
  o << "unit " << i << " (seed " << seed << "): " << c.describe() << " k=" << k;
  return o.str();
}
}  // namespace

TEST_CASE("probe property: random units, the probe recovers k, F and both roundings", "[probe][property]") {
  const std::uint64_t seed = tcsim::test::seed("probe property", 20261122);
  tcsim::test::Rng rng(seed);
  const auto n = static_cast<int>(tcsim::test::count(200));
  const auto start = std::chrono::steady_clock::now();
  int final_known = 0;
  for (int i = 0; i < n; ++i) {
    const Format& in = rng.below(2) ? formats::fp16() : formats::bf16();
    const int k = rng.range(2, 32);
    // Every (alignment, final) pair of rz|rd|ru|rne appears (16 pairs cycled), the rest random.
    AdderConfig c = property_adder(in, rng.range(10, 40), i);
    c.carry_bits = random_carry_bits(rng, k);
    const ProbeReport r = probe(blackbox_from_adder(c, k));
    const bool observable = final_rounding_observable(in, k, c.fraction_bits, c.carry_bits);
    const bool ok = recovers_basics(r, c, k) && r.sticky_bit.value == false &&
                    (observable ? r.final_rounding.value == c.final_rounding : !r.final_rounding.known());
    if (!ok) {
      UNSCOPED_INFO(unit_text(i, seed, c, k) << "; final rounding observable: " << observable << "\nprobe answered:\n"
                                             << r.to_text());
    }
    CHECK(ok);
    final_known += r.final_rounding.known();
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("[probe property] %d units, final rounding determined on %d, %.1f s\n", n, final_known, secs);
  CHECK(final_known > n / 3);
}

TEST_CASE("probe property: units with a sticky bit on random parameters", "[probe][property]") {
  const std::uint64_t seed = tcsim::test::seed("probe property sticky", 77);
  tcsim::test::Rng rng(seed);
  const auto n = static_cast<int>(tcsim::test::count(40));
  for (int i = 0; i < n; ++i) {
    const int k = rng.range(2, 16);
    AdderConfig c = property_adder(formats::bf16(), rng.range(12, 36), i);
    c.sticky_bit = true;
    c.carry_bits = 5;
    const ProbeReport r = probe(blackbox_from_adder(c, k));
    const bool ok =
        recovers_basics(r, c, k) && r.sticky_bit.value == true && r.final_rounding.value == c.final_rounding;
    if (!ok) UNSCOPED_INFO(unit_text(i, seed, c, k) << "\n" << r.to_text());
    CHECK(ok);
  }
}

TEST_CASE("probe property: c added late, random units", "[probe][property]") {
  const std::uint64_t seed = tcsim::test::seed("probe property late c", 5);
  tcsim::test::Rng rng(seed);
  const auto n = static_cast<int>(tcsim::test::count(40));
  for (int i = 0; i < n; ++i) {
    const Format& in = rng.below(2) ? formats::fp16() : formats::bf16();
    const int k = rng.range(2, 32);
    AdderConfig c = property_adder(in, rng.range(10, 40), i);
    c.carry_bits = static_cast<int>(std::ceil(std::log2(static_cast<double>(k + 1)))) + 1;
    c.c_placement = CPlacement::Late;
    const ProbeReport r = probe(blackbox_from_adder(c, k));
    const bool ok = recovers_basics(r, c, k) && r.c_placement.value == std::string("late");
    if (!ok) UNSCOPED_INFO(unit_text(i, seed, c, k) << "\n" << r.to_text());
    CHECK(ok);
  }
}

TEST_CASE("probe property: fp8 inputs (few exponent bits) on random units", "[probe][property]") {
  const std::uint64_t seed = tcsim::test::seed("probe property fp8", 8);
  tcsim::test::Rng rng(seed);
  const auto n = static_cast<int>(tcsim::test::count(100));
  for (int i = 0; i < n; ++i) {
    const Format& in = rng.below(2) ? formats::e4m3() : formats::e5m2();
    const int k = rng.range(2, 32);
    AdderConfig c = property_adder(in, rng.range(10, 30), i);
    c.carry_bits = random_carry_bits(rng, k);
    const ProbeReport r = probe(blackbox_from_adder(c, k));
    const bool observable = final_rounding_observable(in, k, c.fraction_bits, c.carry_bits);
    const bool ok = recovers_basics(r, c, k) &&
                    (observable ? r.final_rounding.value == c.final_rounding : !r.final_rounding.known());
    if (!ok) UNSCOPED_INFO(unit_text(i, seed, c, k) << "; final rounding observable: " << observable << "\n" << r.to_text());
    CHECK(ok);
  }
}

TEST_CASE("probe property: random units whose c is added last read back through the block view", "[probe][property]") {
  // User rows with c_entry final-add: consecutive blocks or pairs-mod4, any block rounding and
  // any rounding of c's addition. F keeps bits below the output's last place (F >= p + 1),
  // which the test of where c enters needs, and stays below the 2^(e-J) the blocks are
  // found with (J = 28 for binary16 results, 34 for e4m3 -> binary32).
  const std::uint64_t seed = tcsim::test::seed("probe property final add", 6);
  tcsim::test::Rng rng(seed);
  const auto n = static_cast<int>(tcsim::test::count(40));
  for (int i = 0; i < n; ++i) {
    models::DatapathSpec row;
    const Format* ins[] = {&formats::fp16(), &formats::bf16(), &formats::e4m3(), &formats::e5m2()};
    const Format& in = *ins[rng.below(4)];
    const Format& out = rng.below(2) ? formats::fp32() : formats::fp16();
    row.input_formats = {in.name};
    row.output_formats = {out.name};
    row.k_split = rng.below(2) ? models::KSplit::PairsMod4 : models::KSplit::Consecutive;
    row.c_entry = models::CEntry::FinalAdd;
    row.fma_size = 2 * rng.range(2, 8);
    row.fraction_bits = out == formats::fp32() ? rng.range(25, in.precision < 8 ? 32 : 40) : rng.range(12, 26);
    row.carry_bits = models::safe_carry_bits(row.fma_size);
    row.alignment_rounding = kModes[rng.below(4)];
    row.final_rounding[out.name] = kModes[i % 4];
    row.final_add_rounding[out.name] = kModes[(i / 4) % 4];
    const auto unit = std::make_shared<const models::Unit>(models::UnitSpec{"final-add", "user", {}, {row}});
    const ProbeReport r = probe(blackbox_from_unit(unit, in, out));
    const int K = row.k_split == models::KSplit::PairsMod4 ? 2 * row.fma_size : row.fma_size;
    std::vector<std::vector<int>> blocks(static_cast<std::size_t>(K / row.fma_size));
    for (int p = 0; p < K; ++p)
      blocks[static_cast<std::size_t>(row.k_split == models::KSplit::PairsMod4 ? (p % 4) / 2 : 0)].push_back(p);
    const bool ok = r.c_entry.value == std::string("final-add") &&
                    r.final_add_rounding.value == row.final_add_rounding[out.name] && r.blocks.value == blocks &&
                    r.k_split.value == models::schema_string(row.k_split) && r.fma_size.value == row.fma_size &&
                    r.fraction_bits.value == row.fraction_bits &&
                    r.alignment_rounding.value == row.alignment_rounding &&
                    r.final_rounding.value == row.final_rounding[out.name] &&
                    (blocks.size() == 1 || r.block_chain.value == std::string("rounded"));
    if (!ok)
      UNSCOPED_INFO("unit " << i << " (seed " << seed << "): " << in.name << " -> " << out.name << " "
                            << models::schema_string(row.k_split) << " k=" << row.fma_size
                            << " F=" << row.fraction_bits << " align " << rounding_name(row.alignment_rounding)
                            << " blocks " << rounding_name(row.final_rounding[out.name]) << " add "
                            << rounding_name(row.final_add_rounding[out.name]) << "\n"
                            << r.to_text());
    CHECK(ok);
  }
}
