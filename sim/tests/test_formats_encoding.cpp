// Format descriptors: derived encodings of the built-in formats, validation messages,
// name lookup, and exhaustive decode -> round round trips of every format up to 19 bits.
#include <catch2/catch.hpp>

#include <map>
#include <stdexcept>
#include <string>

#include "error_of.hpp"
#include "tcsim/sim/codec.hpp"
#include "tcsim/sim/format.hpp"
#include "tcsim/sim/rounding.hpp"
#include "test_support.hpp"

using namespace tcsim;
using tcsim::test::error_of;

namespace {

std::string hex(std::uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

Format user(int p, int emin, int emax) {
  Format f;
  f.name = "x";
  f.precision = p;
  f.emin = emin;
  f.emax = emax;
  return f;
}

}  // namespace

TEST_CASE("formats: built-in encodings", "[formats]") {
  struct Row {
    const Format* f;
    int width, ebits, bias;
    std::uint64_t max, nan, one;
    const char* max_hex;
  };
  const Row rows[] = {
      {&formats::fp64(), 64, 11, 1023, 0x7fefffffffffffff, 0x7ff8000000000000, 0x3ff0000000000000, "0x1.fffffffffffffp+1023"},
      {&formats::fp32(), 32, 8, 127, 0x7f7fffff, 0x7fc00000, 0x3f800000, "0x1.fffffep+127"},
      {&formats::fp16(), 16, 5, 15, 0x7bff, 0x7e00, 0x3c00, "0x1.ffcp+15"},
      {&formats::bf16(), 16, 8, 127, 0x7f7f, 0x7fc0, 0x3f80, "0x1.fep+127"},
      {&formats::tf32(), 19, 8, 127, 0x3fbff, 0x3fe00, 0x1fc00, "0x1.ffcp+127"},
      {&formats::e4m3(), 8, 4, 7, 0x7e, 0x7f, 0x38, "0x1.cp+8"},  // 448
      {&formats::e5m2(), 8, 5, 15, 0x7b, 0x7e, 0x3c, "0x1.cp+15"},  // 57344
      {&formats::e4m3fnuz(), 8, 4, 8, 0x7f, 0x80, 0x40, "0x1.ep+7"},  // 240
      {&formats::e5m2fnuz(), 8, 5, 16, 0x7f, 0x80, 0x40, "0x1.cp+15"},  // 57344
      {&formats::e2m3(), 6, 2, 1, 0x1f, 0, 0x08, "0x1.ep+2"},  // 7.5
      {&formats::e3m2(), 6, 3, 3, 0x1f, 0, 0x0c, "0x1.cp+4"},  // 28
      {&formats::e2m1(), 4, 2, 1, 0x7, 0, 0x2, "0x1.8p+2"},  // 6
      {&formats::ue8m0(), 8, 8, 127, 0xfe, 0xff, 0x7f, "0x1p+127"},
      {&formats::ue4m3(), 7, 4, 7, 0x7e, 0x7f, 0x38, "0x1.cp+8"},  // 448
  };
  for (const Row& r : rows) {
    const Format& f = *r.f;
    INFO("format " << f.name);
    CHECK(f.width == r.width);
    CHECK(f.exponent_bits == r.ebits);
    CHECK(f.bias == r.bias);
    CHECK(f.fraction_bits == f.precision - 1);
    CHECK(hex(f.max_finite(false)) == hex(r.max));
    CHECK(decode(f, f.max_finite(false)).to_hex() == r.max_hex);
    if (f.has_nan()) CHECK(hex(f.canonical_nan()) == hex(r.nan));
    else CHECK_THROWS_AS(f.canonical_nan(), std::invalid_argument);
    CHECK(hex(round_bits(ExactValue::finite(false, 1, 0), f, Rounding::NearestEven)) == hex(r.one));
    CHECK(f == parse_format(f.name));
  }
  CHECK(builtin_formats().size() == 14);
  // Negative max, infinities and zeros.
  CHECK(hex(formats::e4m3().max_finite(true)) == "0xfe");
  CHECK(hex(formats::fp16().infinity(true)) == "0xfc00");
  CHECK(hex(formats::e5m2().infinity(false)) == "0x7c");
  CHECK_THROWS_AS(formats::e4m3().infinity(false), std::invalid_argument);
  CHECK(hex(formats::fp16().zero(true)) == "0x8000");
  CHECK(hex(formats::e4m3fnuz().zero(true)) == "0x0");  // no -0: 0x80 is NaN
  CHECK(hex(formats::ue4m3().zero(true)) == "0x0");
  CHECK_THROWS_AS(formats::ue8m0().zero(false), std::invalid_argument);
  // Smallest values.
  CHECK(decode(formats::fp16(), 1).to_hex() == "0x1p-24");
  CHECK(decode(formats::e4m3(), 1).to_hex() == "0x1p-9");
  CHECK(decode(formats::e4m3fnuz(), 1).to_hex() == "0x1p-10");
  CHECK(decode(formats::e5m2fnuz(), 1).to_hex() == "0x1p-17");
  CHECK(decode(formats::e2m1(), 1).to_hex() == "0x1p-1");
  CHECK(decode(formats::e3m2(), 1).to_hex() == "0x1p-4");
  CHECK(decode(formats::e2m3(), 1).to_hex() == "0x1p-3");
  CHECK(decode(formats::ue8m0(), 0).to_hex() == "0x1p-127");
  CHECK(decode(formats::ue4m3(), 1).to_hex() == "0x1p-9");
  CHECK(decode(formats::bf16(), 1).to_hex() == "0x1p-133");
  CHECK(decode(formats::tf32(), 1).to_hex() == "0x1p-136");
}

TEST_CASE("formats: parse_format names and aliases", "[formats]") {
  CHECK(parse_format("FP16").name == "fp16");
  CHECK(parse_format("binary64").name == "fp64");
  CHECK(parse_format("double").name == "fp64");
  CHECK(parse_format("binary32").name == "fp32");
  CHECK(parse_format("float").name == "fp32");
  CHECK(parse_format("Half").name == "fp16");
  CHECK(parse_format("binary16").name == "fp16");
  CHECK(parse_format("bfloat16").name == "bf16");
  CHECK(parse_format("fp8e4m3").name == "e4m3");
  CHECK(parse_format("E4M3FN").name == "e4m3");
  CHECK(parse_format("fp8e5m2").name == "e5m2");
  CHECK(parse_format("fp6e2m3").name == "e2m3");
  CHECK(parse_format("fp6e3m2").name == "e3m2");
  CHECK(parse_format("fp4e2m1").name == "e2m1");
  CHECK(parse_format("e4m3fnuz").name == "e4m3fnuz");
  CHECK(parse_format("UE8M0").name == "ue8m0");
  const std::string msg = error_of([] { parse_format("xyz", "a_format"); });
  CHECK(msg.rfind("unknown a_format 'xyz'; allowed: fp64, fp32, fp16, bf16, tf32, e4m3,", 0) == 0);
  for (const auto& f : builtin_formats()) CHECK(msg.find(f.name) != std::string::npos);
  CHECK(msg.find("bfloat16") != std::string::npos);

  CHECK(parse_nan_encoding("AllOnes") == NanEncoding::AllOnes);
  CHECK(parse_nan_encoding("negative-zero") == NanEncoding::NegativeZero);
  for (auto n : {NanEncoding::None, NanEncoding::Ieee, NanEncoding::AllOnes, NanEncoding::NegativeZero})
    CHECK(parse_nan_encoding(to_string(n)) == n);
  CHECK(error_of([] { parse_nan_encoding("x", "nan"); }) ==
        "unknown nan 'x'; allowed: none, ieee, all_ones, negative_zero");
  for (auto m : {Rounding::NearestEven, Rounding::TowardZero, Rounding::Up, Rounding::Down, Rounding::ToOdd,
                 Rounding::Stochastic})
    CHECK(parse_rounding(to_string(m)) == m);
  CHECK(parse_rounding("RN") == Rounding::NearestEven);
  CHECK(error_of([] { parse_rounding("up", "final_rounding"); }) ==
        "unknown final_rounding 'up'; allowed: rne, rn, rz, ru, rd, ro, sr");
  for (auto m : {OverflowMode::FormatDefault, OverflowMode::Ieee, OverflowMode::Saturate, OverflowMode::ToNaN,
                 OverflowMode::Infinity})
    CHECK(parse_overflow(to_string(m)) == m);
  CHECK(error_of([] { parse_overflow("clip"); }).find("unknown overflow 'clip'; allowed:") == 0);
}

TEST_CASE("formats: invalid user formats name the field", "[formats]") {
  auto err = [](Format f) { return error_of([&] { f.finalize(); }); };
  CHECK(err(user(0, -6, 8)) == "format 'x': precision must be 1..64, got 0");
  CHECK(err(user(65, -6, 8)) == "format 'x': precision must be 1..64, got 65");
  CHECK(err(user(4, 3, 2)) == "format 'x': emin must be <= emax, got emin 3 > emax 2");
  CHECK(err(user(4, -(1 << 25), 2)).find("format 'x': emin must be in") == 0);
  CHECK(err(user(60, -1022, 1023)).find("format 'x': width must be <= 64 bits, got 71") == 0);
  Format f = user(4, -6, 8);
  f.nan = NanEncoding::AllOnes;  // infinities still true
  CHECK(err(f).find("format 'x': infinities require nan 'ieee'") == 0);
  f = user(1, -6, 8);
  CHECK(err(f).find("format 'x': nan 'ieee' requires precision >= 2") == 0);
  f = user(4, -7, 7);
  f.infinities = false;
  f.nan = NanEncoding::NegativeZero;
  f.is_signed = false;
  CHECK(err(f).find("format 'x': nan 'negative_zero' requires a signed format") == 0);
  f.is_signed = true;
  f.infinities = true;
  CHECK(err(f).find("format 'x': infinities require nan 'ieee'") == 0);
  f.infinities = false;
  f.has_zero = false;
  f.subnormals = false;
  CHECK(err(f).find("format 'x': nan 'negative_zero' requires has_zero") == 0);
  f = user(4, -7, 7);
  f.has_zero = false;
  f.infinities = false;
  f.nan = NanEncoding::None;
  CHECK(err(f).find("format 'x': subnormals require has_zero") == 0);
  CHECK(err(user(4, -6, 8)) == "");
  CHECK(error_of([] { make_format("", 4, 0, 1, true, false, NanEncoding::None); }) ==
        "format '': name must not be empty");
  // make_format validates too.
  CHECK(error_of([] { make_format("y", 3, 5, 1, true, true, NanEncoding::Ieee); }) ==
        "format 'y': emin must be <= emax, got emin 5 > emax 1");
}

TEST_CASE("formats: user formats derive their encoding", "[formats]") {
  // precision 5, emin -3, emax 4, no subnormals, IEEE specials: bias 4, fields 1..8 finite,
  // 9 Inf/NaN, 10..15 unused (read as NaN); field 0 with a fraction reads as zero.
  const Format f = make_format("p5", 5, -3, 4, false, true, NanEncoding::Ieee);
  CHECK(f.width == 9);
  CHECK(f.exponent_bits == 4);
  CHECK(f.bias == 4);
  CHECK(hex(f.max_finite(false)) == "0x8f");
  CHECK(hex(f.infinity(false)) == "0x90");
  CHECK(hex(f.canonical_nan()) == "0x98");
  CHECK(classify(f, 0xa0) == FpClass::NaN);
  CHECK(classify(f, 0x05) == FpClass::Zero);
  CHECK(classify(f, 0x105) == FpClass::Zero);
  CHECK(decode(f, 0x105).negative);
  CHECK(decode(f, 0x10).to_hex() == "0x1p-3");
  // All-ones NaN with an exponent range that does not fill the field.
  const Format g = make_format("g", 3, -2, 3, true, false, NanEncoding::AllOnes);
  CHECK(g.bias == 3);
  CHECK(hex(g.canonical_nan()) == "0x1b");  // field 6, fraction 11
  CHECK(decode(g, g.max_finite(false)).to_hex() == "0x1.8p+3");
  CHECK(classify(g, 0x1c) == FpClass::NaN);  // field 7 unused
  CHECK_THROWS_AS(check_pattern(g, 0x40), std::invalid_argument);
  CHECK(error_of([&] { decode_parts(g, 0x40); }) == "bits 0x40 has bits set above the 6-bit width of format 'g'");
}

namespace {

struct Counts {
  std::uint64_t zero = 0, sub = 0, normal = 0, inf = 0, nan = 0;
};

// Every pattern decodes, and its exact value rounds back to the same pattern in every
// rounding mode (NaNs to the canonical NaN); returns the class counts.
Counts round_trip_all(const Format& f) {
  Counts c;
  std::uint64_t failures = 0;
  const Rounding modes[] = {Rounding::NearestEven, Rounding::TowardZero, Rounding::Up,
                            Rounding::Down,        Rounding::ToOdd,      Rounding::Stochastic};
  const std::uint64_t n = std::uint64_t{1} << f.width;
  for (std::uint64_t b = 0; b < n; ++b) {
    const FpClass cls = classify(f, b);
    switch (cls) {
      case FpClass::Zero: ++c.zero; break;
      case FpClass::Subnormal: ++c.sub; break;
      case FpClass::Normal: ++c.normal; break;
      case FpClass::Infinity: ++c.inf; break;
      case FpClass::NaN: ++c.nan; break;
    }
    const ExactValue v = decode(f, b);
    const std::uint64_t want = cls == FpClass::NaN ? f.canonical_nan() : b;
    for (Rounding m : modes) {
      RoundingOptions o;
      o.mode = m;
      o.random = b * 0x9E3779B97F4A7C15ull;
      const RoundResult r = round_to_format(v, f, o);
      if (r.bits != want || r.inexact || r.overflow || r.underflow || r.invalid) {
        if (++failures <= 10)
          FAIL_CHECK(f.name << " " << bits_to_hex(f, b) << " (" << v.to_hex() << ") " << to_string(m) << " -> "
                            << bits_to_hex(f, r.bits) << " want " << bits_to_hex(f, want) << " flags i" << r.inexact
                            << " o" << r.overflow << " u" << r.underflow << " v" << r.invalid);
      }
    }
  }
  CHECK(failures == 0);
  return c;
}

}  // namespace

TEST_CASE("formats: every pattern of the narrow formats round-trips exactly", "[formats][exhaustive]") {
  // {zero, subnormal, normal, infinity, nan} pattern counts, worked out by hand:
  // fp16: 2 zeros, 2*1023 subnormals, 2*30*1024 normals, 2 Inf, 2*1023 NaNs.
  const std::map<std::string, Counts> expected = {
      {"fp16", {2, 2046, 61440, 2, 2046}},     {"bf16", {2, 254, 65024, 2, 254}},
      {"tf32", {2, 2046, 520192, 2, 2046}},    {"e4m3", {2, 14, 238, 0, 2}},
      {"e5m2", {2, 6, 240, 2, 6}},             {"e4m3fnuz", {1, 14, 240, 0, 1}},
      {"e5m2fnuz", {1, 6, 248, 0, 1}},         {"e2m3", {2, 14, 48, 0, 0}},
      {"e3m2", {2, 6, 56, 0, 0}},              {"e2m1", {2, 2, 12, 0, 0}},
      {"ue8m0", {0, 0, 255, 0, 1}},            {"ue4m3", {1, 7, 119, 0, 1}},
  };
  for (const auto& [name, want] : expected) {
    const Format& f = parse_format(name);
    INFO("format " << name);
    const Counts c = round_trip_all(f);
    CHECK(c.zero == want.zero);
    CHECK(c.sub == want.sub);
    CHECK(c.normal == want.normal);
    CHECK(c.inf == want.inf);
    CHECK(c.nan == want.nan);
    CHECK(c.zero + c.sub + c.normal + c.inf + c.nan == (std::uint64_t{1} << f.width));
  }
}

TEST_CASE("formats: user format patterns round-trip", "[formats][exhaustive]") {
  // Unused fields read as NaN, field-0 fractions of a no-subnormal format as zero; both
  // round to the canonical pattern, everything else to itself.
  const Format formats_under_test[] = {
      make_format("p5", 5, -3, 4, false, true, NanEncoding::Ieee),
      make_format("g", 3, -2, 3, true, false, NanEncoding::AllOnes),
      make_format("u", 3, -4, 3, true, false, NanEncoding::None, true, false),
  };
  for (const Format& f : formats_under_test) {
    std::uint64_t failures = 0;
    for (std::uint64_t b = 0; b < (std::uint64_t{1} << f.width); ++b) {
      const Decoded d = decode_parts(f, b);
      std::uint64_t want = b;
      if (d.cls == FpClass::NaN) want = f.has_nan() ? f.canonical_nan() : 0;  // no NaN: bits 0
      if (d.cls == FpClass::Zero) want = f.zero(d.negative);
      for (Rounding m : {Rounding::NearestEven, Rounding::TowardZero, Rounding::Up, Rounding::Down}) {
        const std::uint64_t got = round_bits(decode(f, b), f, m);
        if (got != want && ++failures <= 10)
          FAIL_CHECK(f.name << " " << bits_to_hex(f, b) << " " << to_string(m) << " -> " << bits_to_hex(f, got)
                            << " want " << bits_to_hex(f, want));
      }
    }
    CHECK(failures == 0);
  }
}

TEST_CASE("formats: fp32 and fp64 decode agree with the host", "[formats]") {
  test::Rng rng(test::seed("formats fp32/fp64 decode", 0x5eed0001));
  const std::uint64_t n = test::count(200000);
  std::uint64_t failures = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    const auto b32 = static_cast<std::uint32_t>(rng.next());
    const float f = float_of_bits(b32);
    const ExactValue v = decode(formats::fp32(), b32);
    const double d = to_double(v);
    const bool ok = (f != f) ? (d != d) : bits_of_double(d) == bits_of_double(static_cast<double>(f));
    const std::uint64_t b64 = rng.next();
    const double host64 = double_of_bits(b64);
    const ExactValue v64 = decode(formats::fp64(), b64);
    // fp64 -> fp32 in RNE must equal the host conversion (default rounding mode).
    const std::uint64_t r32 = round_bits(v64, formats::fp32(), Rounding::NearestEven);
    const float host32 = static_cast<float>(host64);
    const bool ok64 = host64 != host64 ? r32 == formats::fp32().canonical_nan()
                                       : r32 == bits_of_float(host32) && bits_of_double(to_double(v64)) == b64;
    if ((!ok || !ok64) && ++failures <= 10)
      FAIL_CHECK("fp32 " << hex(b32) << " fp64 " << hex(b64) << " -> fp32 " << hex(r32) << " host "
                         << hex(bits_of_float(host32)));
  }
  CHECK(failures == 0);
}
