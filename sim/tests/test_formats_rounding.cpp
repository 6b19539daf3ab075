// Hand-worked round_to_format cases: overflow rules of the narrow formats, formats without
// zero/NaN/Inf/sign, flushing, round-to-odd, carries. Expectations are exact bit patterns.
#include <catch2/catch.hpp>

#include <cmath>
#include <stdexcept>

#include "tcsim/sim/codec.hpp"
#include "tcsim/sim/rounding.hpp"

using namespace tcsim;

namespace {

ExactValue signed_num(long long sig, long exp = 0) { return ExactValue::finite(sig < 0, sig < 0 ? -sig : sig, exp); }

struct Case {
  const Format& f;
  ExactValue x;
  Rounding mode;
  OverflowMode overflow;
  std::uint64_t want;
  const char* flags;  // expected flags: any of "iouv" (inexact, overflow, underflow, invalid)
};

void run(const Case& c, SubnormalMode sub = SubnormalMode::Keep) {
  RoundingOptions o;
  o.mode = c.mode;
  o.overflow = c.overflow;
  o.subnormals = sub;
  const RoundResult r = round_to_format(c.x, c.f, o);
  std::string flags;
  if (r.inexact) flags += 'i';
  if (r.overflow) flags += 'o';
  if (r.underflow) flags += 'u';
  if (r.invalid) flags += 'v';
  INFO(c.x.to_hex() << " -> " << c.f.name << " " << to_string(c.mode) << " overflow " << to_string(c.overflow));
  CHECK(bits_to_hex(c.f, r.bits) == bits_to_hex(c.f, c.want));
  CHECK(flags == c.flags);
}

constexpr auto RNE = Rounding::NearestEven;
constexpr auto RZ = Rounding::TowardZero;
constexpr auto RU = Rounding::Up;
constexpr auto RD = Rounding::Down;
constexpr auto RO = Rounding::ToOdd;
constexpr auto DEF = OverflowMode::FormatDefault;
constexpr auto IEEE = OverflowMode::Ieee;
constexpr auto SAT = OverflowMode::Saturate;
constexpr auto TONAN = OverflowMode::ToNaN;

}  // namespace

TEST_CASE("formats: OCP fp8 overflow (saturating and non-saturating)", "[formats][rounding]") {
  const Format& e4 = formats::e4m3();
  const Format& e5 = formats::e5m2();
  const Case cases[] = {
      {e4, signed_num(448), RNE, DEF, 0x7e, ""},
      {e4, signed_num(464), RNE, DEF, 0x7e, "i"},          // tie 448/480: 448 is even
      {e4, signed_num(929, -1), RNE, DEF, 0x7f, "io"},     // 464.5 rounds to 480 > max: NaN
      {e4, signed_num(929, -1), RNE, SAT, 0x7e, "io"},
      {e4, signed_num(-929, -1), RNE, SAT, 0xfe, "io"},
      {e4, signed_num(449), RNE, TONAN, 0x7e, "i"},        // rounds to 448: no overflow
      {e4, signed_num(500), RZ, DEF, 0x7e, "io"},          // RZ gives 480 > max: toward zero keeps max
      {e4, signed_num(449), RU, DEF, 0x7f, "io"},
      {e4, signed_num(-449), RU, DEF, 0xfe, "i"},
      {e4, signed_num(-449), RD, DEF, 0x7f, "io"},   // NaN is the canonical (positive) one
      {e4, signed_num(450), RO, DEF, 0x7e, "io"},          // odd 480 does not exist: largest finite
      {e4, signed_num(1, -10), RNE, DEF, 0x00, "iu"},      // half the smallest subnormal: tie to 0
      {e4, signed_num(3, -11), RNE, DEF, 0x01, "iu"},
      {e4, ExactValue::infinity(false), RNE, DEF, 0x7f, "v"},
      {e4, ExactValue::infinity(true), RZ, SAT, 0xfe, "v"},
      {e4, ExactValue::nan(), RNE, DEF, 0x7f, ""},
      {e5, signed_num(61440), RNE, DEF, 0x7c, "io"},       // tie 57344/65536: 65536 even -> Inf
      {e5, signed_num(61439), RNE, DEF, 0x7b, "i"},
      {e5, signed_num(61440), RNE, SAT, 0x7b, "io"},
      {e5, signed_num(61440), RNE, TONAN, 0x7e, "io"},
      {e5, signed_num(-70000), RZ, DEF, 0xfb, "io"},
      {e5, ExactValue::infinity(true), RNE, SAT, 0xfc, ""},  // Inf exists: stays Inf
  };
  for (const auto& c : cases) run(c);
}

TEST_CASE("formats: FNUZ fp6 fp4 and unsigned formats", "[formats][rounding]") {
  const Format& fz = formats::e4m3fnuz();
  const Format& e21 = formats::e2m1();
  const Format& e23 = formats::e2m3();
  const Format& u8 = formats::ue8m0();
  const Format& u43 = formats::ue4m3();
  const Case cases[] = {
      {fz, ExactValue::zero(true), RNE, DEF, 0x00, ""},  // no -0: 0x80 is NaN
      {fz, signed_num(-1, -20), RNE, DEF, 0x00, "iu"},
      {fz, signed_num(-1, -20), RD, DEF, 0x81, "iu"},
      {fz, ExactValue::nan(), RNE, DEF, 0x80, ""},
      {fz, ExactValue::infinity(true), RNE, DEF, 0x80, "v"},
      {fz, ExactValue::infinity(true), RNE, SAT, 0xff, "v"},
      {fz, signed_num(248), RNE, DEF, 0x80, "io"},  // tie 240/256 -> 256 > 240: NaN
      {fz, signed_num(-240), RNE, DEF, 0xff, ""},
      {e21, signed_num(100), RNE, DEF, 0x7, "io"},  // saturating by default
      {e21, signed_num(-100), RNE, IEEE, 0xf, "io"},  // no Inf, no NaN: largest finite anyway
      {e21, signed_num(5), RNE, DEF, 0x6, "i"},       // tie 4/6 -> 4
      {e21, signed_num(1, -2), RNE, DEF, 0x0, "iu"},  // tie 0/0.5 -> 0
      {e21, signed_num(17, -6), RNE, DEF, 0x1, "iu"},
      {e21, ExactValue::nan(), RNE, DEF, 0x0, "v"},
      {e21, ExactValue::infinity(true), RNE, DEF, 0xf, "v"},
      {e23, signed_num(15, -1), RNE, DEF, 0x1f, ""},
      {e23, signed_num(31, -2), RNE, DEF, 0x1f, "io"},  // 7.75: tie 7.5/8 -> 8 > max
      {u8, ExactValue::zero(false), RNE, DEF, 0x00, "v"},  // no zero: smallest value
      {u8, signed_num(1), RNE, DEF, 0x7f, ""},
      {u8, signed_num(3), RNE, DEF, 0x81, "i"},  // precision 1: tie 2/4 goes to 4 (significand 2 is even)
      {u8, signed_num(3), RZ, DEF, 0x80, "i"},
      {u8, signed_num(5), RNE, DEF, 0x81, "i"},
      {u8, signed_num(1, -130), RNE, DEF, 0x00, "iu"},  // below 2^-127 and no zero: 2^-127
      {u8, signed_num(1, 128), RNE, DEF, 0xff, "io"},
      {u8, signed_num(1, 128), RNE, SAT, 0xfe, "io"},
      {u8, signed_num(-1), RNE, DEF, 0xff, "v"},
      {u43, signed_num(-1), RNE, DEF, 0x7f, "v"},
      {u43, ExactValue::zero(true), RNE, DEF, 0x00, ""},
      {u43, signed_num(1, -9), RNE, DEF, 0x01, ""},
  };
  for (const auto& c : cases) run(c);
}

TEST_CASE("formats: carries round-to-odd flushing and no-subnormal formats", "[formats][rounding]") {
  const Format& h = formats::fp16();
  const Format p5 = make_format("p5", 5, -3, 4, false, true, NanEncoding::Ieee);  // no subnormals
  const Case cases[] = {
      {h, signed_num((1 << 12) - 1, -11), RNE, DEF, 0x4000, "i"},  // 2 - 2^-11: carry renormalizes
      {h, signed_num((1 << 12) - 1, -26), RNE, DEF, 0x0400, "iu"},  // just below 2^-14: rounds up to normal
      {h, signed_num((1 << 12) + 1, -12), RO, DEF, 0x3c01, "i"},   // 1 + 2^-12: odd neighbour
      {h, signed_num((1 << 12) + 4, -12), RO, DEF, 0x3c01, ""},    // exact stays
      {h, signed_num(1, -26), RO, DEF, 0x0001, "iu"},
      {h, signed_num(-1, -26), RD, DEF, 0x8001, "iu"},
      {h, signed_num(1, -26), RU, DEF, 0x0001, "iu"},
      {h, signed_num(65520), RNE, DEF, 0x7c00, "io"},
      {h, signed_num(65520), RD, DEF, 0x7bff, "i"},   // 65504 is finite: no overflow
      {h, signed_num(65520), RO, DEF, 0x7bff, "i"},
      {h, signed_num(-65520), RU, IEEE, 0xfbff, "i"},
      {h, signed_num(65536), RZ, IEEE, 0x7bff, "io"},
      {h, signed_num(65536), RU, SAT, 0x7bff, "io"},
      {p5, signed_num(1, -4), RNE, DEF, 0x000, "iu"},      // tie 0 / 2^-3 -> 0
      {p5, signed_num(3, -5), RNE, DEF, 0x010, "iu"},      // 0.75 * 2^-3 -> 2^-3
      {p5, signed_num(-1, -40), RD, DEF, 0x110, "iu"},
      {p5, signed_num(1, -40), RO, DEF, 0x010, "iu"},      // odd candidate is 2^-3
      {p5, signed_num(1, -40), RZ, DEF, 0x000, "iu"},
      {p5, signed_num(31, 0), RNE, DEF, 0x8f, ""},         // 31 = 1.1111 * 2^4: the largest finite
      {p5, signed_num(63, -1), RNE, DEF, 0x90, "io"},      // 31.5 -> 32: Inf
  };
  for (const auto& c : cases) run(c);
  // Flushing: a tiny exact value becomes a signed zero even when it would round up.
  run({h, signed_num(1, -20), RNE, DEF, 0x0000, "iu"}, SubnormalMode::Flush);
  run({h, signed_num(-1, -20), RU, DEF, 0x8000, "iu"}, SubnormalMode::Flush);
  run({h, signed_num((1 << 12) - 1, -26), RNE, DEF, 0x0000, "iu"}, SubnormalMode::Flush);  // tiny before rounding
  run({h, signed_num(1, -14), RNE, DEF, 0x0400, ""}, SubnormalMode::Flush);
  run({formats::e4m3fnuz(), signed_num(-1, -9), RNE, DEF, 0x00, "iu"}, SubnormalMode::Flush);

  // Precision 64 (unsigned, one binade): every shift of the 64-bit fast path at its limit.
  const Format p64 = make_format("p64", 64, 0, 0, true, false, NanEncoding::None, false, false);
  REQUIRE(p64.width == 64);
  const BigInt two64 = BigInt(1) << 64;
  const Case wide[] = {
      {p64, ExactValue::finite(false, two64 - 1, -63), RNE, DEF, ~std::uint64_t{0}, ""},
      {p64, ExactValue::finite(false, 2 * two64 - 1, -64), RNE, DEF, ~std::uint64_t{0}, "io"},  // carry: 2 > max
      {p64, ExactValue::finite(false, 2 * two64 - 1, -64), RZ, DEF, ~std::uint64_t{0}, "i"},
      {p64, ExactValue::finite(false, two64 + 1, -64), RNE, DEF, 0x8000000000000000, "i"},  // 1 + 2^-64: tie to 1
      {p64, ExactValue::finite(false, two64 + 3, -64), RNE, DEF, 0x8000000000000002, "i"},  // tie to even
      {p64, signed_num(1, -63), RNE, DEF, 0x1, ""},
      {p64, signed_num(1, -64), RNE, DEF, 0x0, "iu"},
      {p64, signed_num(1, -64), RU, DEF, 0x1, "iu"},
      {p64, signed_num(3, -64), RNE, DEF, 0x2, "iu"},
      {p64, signed_num(1), RNE, DEF, 0x8000000000000000, ""},
  };
  for (const auto& c : wide) run(c);

  RoundingOptions bad;
  bad.mode = Rounding::Stochastic;
  bad.random_bits = 0;
  CHECK_THROWS_AS(round_to_format(signed_num(1), h, bad), std::invalid_argument);
  bad.random_bits = 65;
  CHECK_THROWS_AS(round_to_format(signed_num(1), h, bad), std::invalid_argument);
}

TEST_CASE("formats: to_double and host helpers", "[formats]") {
  CHECK(to_double(decode(formats::fp16(), 0x3c00)) == 1.0);
  CHECK(to_double(decode(formats::fp16(), 0x0001)) == 0x1p-24);
  CHECK(to_double(decode(formats::e4m3(), 0x7e)) == 448.0);
  CHECK(to_double(decode(formats::ue8m0(), 0x00)) == 0x1p-127);
  CHECK(bits_of_double(to_double(ExactValue::zero(true))) == 0x8000000000000000ull);
  CHECK(to_double(signed_num(1, 5000)) == HUGE_VAL);
  CHECK(to_double(ExactValue::nan()) != to_double(ExactValue::nan()));
  CHECK(bits_of_float(float_of_bits(0x7f7fffff)) == 0x7f7fffffu);
  CHECK(bits_to_hex(formats::tf32(), 0x1fc00) == "0x1fc00");
  CHECK(bits_to_hex(formats::e2m1(), 0x3) == "0x3");
  CHECK(bits_to_hex(formats::fp32(), 1) == "0x00000001");
  CHECK(to_string(classify(formats::fp16(), 0x7c00)) == "infinity");
  CHECK(to_string(classify(formats::fp16(), 0x0001)) == "subnormal");
}
