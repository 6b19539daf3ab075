// Uses the installed headers and libraries: decodes and rounds values, checks bit patterns.
#include <cstdint>
#include <cstdio>
#include <string>

#include "tcsim/models/unit.hpp"
#include "tcsim/sim/codec.hpp"
#include "tcsim/sim/format.hpp"
#include "tcsim/sim/literal.hpp"
#include "tcsim/sim/rounding.hpp"

namespace {

int failures = 0;

void expect_bits(const char* what, std::uint64_t got, std::uint64_t want) {
  if (got != want) {
    std::printf("FAIL %s: got 0x%llx, want 0x%llx\n", what, static_cast<unsigned long long>(got),
                static_cast<unsigned long long>(want));
    ++failures;
  } else {
    std::printf("ok   %s = 0x%llx\n", what, static_cast<unsigned long long>(got));
  }
}

}  // namespace

int main() {
  const tcsim::Format& fp16 = tcsim::formats::fp16();
  const tcsim::Format& fp32 = tcsim::formats::fp32();

  // fp16 1.0 = 0x3c00 decodes to the exact value 1; into fp32 it is 0x3f800000.
  tcsim::ExactValue one = tcsim::decode(fp16, 0x3c00);
  expect_bits("fp16 0x3c00 -> fp32", tcsim::round_bits(one, fp32, tcsim::Rounding::NearestEven), 0x3f800000);

  // 1 + 2^-11 is a tie in fp16: RNE keeps 0x3c00, RU gives 0x3c01.
  tcsim::ExactValue tie = tcsim::exact_add(one, tcsim::ExactValue::finite(false, 1, -11));
  expect_bits("fp16 rne(1 + 2^-11)", tcsim::round_bits(tie, fp16, tcsim::Rounding::NearestEven), 0x3c00);
  expect_bits("fp16 ru(1 + 2^-11)", tcsim::round_bits(tie, fp16, tcsim::Rounding::Up), 0x3c01);

  // The smallest fp16 subnormal, written as a literal.
  expect_bits("fp16 0x1p-24", tcsim::parse_literal("0x1p-24", fp16), 0x0001);
  expect_bits("fp16 bits 0x0001 -> fp32", tcsim::round_bits(tcsim::decode(fp16, 0x0001), fp32,
                                                             tcsim::Rounding::NearestEven),
              0x33800000);

  // A unit row from the models library, as data.
  tcsim::models::DatapathSpec row;
  row.input_formats = {"fp16"};
  row.output_formats = {"fp32"};
  if (row.fma_size <= 0) {
    std::printf("FAIL models: DatapathSpec default fma_size %d\n", row.fma_size);
    ++failures;
  }

  std::printf("%s\n", failures ? "consumer: FAILED" : "consumer: all checks passed");
  return failures ? 1 : 0;
}
