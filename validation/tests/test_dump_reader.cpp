// The dump reader and the validation loop on small hand-made dumps.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include <unistd.h>

#include "error_of.hpp"
#include "test_support.hpp"
#include "tcsim/sim/adder.hpp"
#include "tcsim/sim/codec.hpp"
#include "tcsim/sim/format.hpp"
#include "tcsim/validation/dump_reader.hpp"
#include "tcsim/validation/dump_validate.hpp"

using namespace tcsim;
using namespace tcsim::validation;
using tcsim::test::error_of;

namespace {

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    path = std::filesystem::temp_directory_path() /
           ("tcsim_dump_test_" + std::to_string(tcsim::test::Rng(reinterpret_cast<std::uintptr_t>(this)).next()));
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string write(const std::string& name, const std::string& text) const {
    const auto p = (path / name).string();
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }
};

}  // namespace

TEST_CASE("operand files: K values per line converted exactly into the input format", "[dump]") {
  const auto d = parse_operand_text("3f800000 bf800000 3c000000\n40000000 00000000 80000000 \n",
                                    formats::fp16(), "a.txt");
  CHECK(d.k == 3);
  CHECK(d.cases == 2);
  REQUIRE(d.values.size() == 6);
  CHECK(d.values[0] == 0x3c00);
  CHECK(d.values[1] == 0xbc00);
  CHECK(d.values[2] == 0x2000);  // 2^-7
  CHECK(d.values[3] == 0x4000);
  CHECK(d.values[4] == 0x0000);
  CHECK(d.values[5] == 0x8000);  // -0 stays -0
  // Upper-case hex digits, CRLF line ends, tabs, trailing blank lines.
  const auto e = parse_operand_text("3F800000\t3FC00000\r\n3E800000 3E000000\r\n\n  \n", formats::bf16(), "b.txt");
  CHECK(e.k == 2);
  CHECK(e.cases == 2);
  CHECK(e.values == std::vector<std::uint64_t>{0x3f80, 0x3fc0, 0x3e80, 0x3e00});
}

TEST_CASE("operand files: every input format of the published data", "[dump]") {
  // tf32 keeps 10 fraction bits of binary32: the pattern's low 13 bits must be zero.
  CHECK(parse_operand_text("3f802000\n", formats::tf32(), "a").values[0] ==
        binary32_to_format_exact(0x3f802000, formats::tf32(), "a", 1));
  CHECK(decode(formats::tf32(), parse_operand_text("3f802000\n", formats::tf32(), "a").values[0])
            .equals(decode(formats::fp32(), 0x3f802000)));
  // E4M3: 448 is the largest finite value, 2^-9 the smallest subnormal.
  CHECK(parse_operand_text("43e00000 3b000000 c3e00000\n", formats::e4m3(), "a").values ==
        std::vector<std::uint64_t>{0x7e, 0x01, 0xfe});
  // E5M2: 57344 and 2^-16; infinities exist.
  CHECK(parse_operand_text("47600000 37800000 ff800000\n", formats::e5m2(), "a").values ==
        std::vector<std::uint64_t>{0x7b, 0x01, 0xfc});
}

TEST_CASE("operand files: values the input format cannot hold are errors naming file, line and value",
          "[dump]") {
  auto msg = error_of([] { parse_operand_text("3f800000\n3f800001\n", formats::fp16(), "a_X.txt"); });
  CHECK(msg.find("a_X.txt:2:") == 0);
  CHECK(msg.find("3f800001") != std::string::npos);
  CHECK(msg.find("fp16") != std::string::npos);
  // Too large for E4M3 (480), too small for E4M3 (2^-10), NaN pattern of binary32 in E4M3
  // is fine (E4M3 has a NaN), infinity is not (E4M3 has none).
  msg = error_of([] { parse_operand_text("43f00000\n", formats::e4m3(), "a.txt"); });
  CHECK(msg.find("a.txt:1:") == 0);
  CHECK(msg.find("43f00000") != std::string::npos);
  CHECK(error_of([] { parse_operand_text("3a800000\n", formats::e4m3(), "a.txt"); }).find("a.txt:1:") == 0);
  CHECK(error_of([] { parse_operand_text("7f800000\n", formats::e4m3(), "a.txt"); }).find("no infinities") !=
        std::string::npos);
  CHECK(error_of([] { parse_operand_text("7fc00000\n", formats::e4m3(), "a.txt"); }).empty());
  // tf32 with bits below its 10 fraction bits.
  CHECK(error_of([] { parse_operand_text("3f801000\n", formats::tf32(), "a.txt"); }).find("a.txt:1:") == 0);
}

TEST_CASE("operand files: malformed lines are errors with the line number", "[dump]") {
  // K differs between lines.
  auto msg = error_of([] { parse_operand_text("3f800000 3f800000\n3f800000\n", formats::fp16(), "a.txt"); });
  CHECK(msg.find("a.txt:2:") == 0);
  CHECK(msg.find("K") != std::string::npos);
  // Not 8 hex digits.
  CHECK(error_of([] { parse_operand_text("3f800000\n3f80000\n", formats::fp16(), "a.txt"); }).find("a.txt:2:") ==
        0);
  CHECK(error_of([] { parse_operand_text("3f80000g\n", formats::fp16(), "a.txt"); }).find("a.txt:1:") == 0);
  CHECK(error_of([] { parse_operand_text("0x3f8000\n", formats::fp16(), "a.txt"); }).find("a.txt:1:") == 0);
  // A blank line in the middle would shift the pairing of a, b, c and d.
  CHECK(error_of([] { parse_operand_text("3f800000\n\n3f800000\n", formats::fp16(), "a.txt"); })
            .find("a.txt:2:") == 0);
  CHECK(error_of([] { parse_operand_text("", formats::fp16(), "a.txt"); }).find("a.txt:1:") == 0);
  CHECK(error_of([] { read_operand_file("/nonexistent/tcsim/a.txt", formats::fp16()); })
            .find("/nonexistent/tcsim/a.txt") != std::string::npos);
}

TEST_CASE("c and d files: 32-character 0/1 binary32 patterns", "[dump]") {
  const auto s = parse_binary32_text(
      "00111111100000000000000000000000\n10111111110000000000000000000000\r\n\n", "c.txt");
  CHECK(s.binary32 == std::vector<std::uint32_t>{0x3f800000u, 0xbfc00000u});
  CHECK(format_binary32_line(0xbfc00000u) == "10111111110000000000000000000000");
  auto msg = error_of([] { parse_binary32_text("00111111100000000000000000000000\n0011111110000000000000000000000\n", "c.txt"); });
  CHECK(msg.find("c.txt:2:") == 0);
  CHECK(error_of([] { parse_binary32_text("0011111110000000000000000000000x\n", "d.txt"); }).find("d.txt:1:") == 0);
  CHECK(error_of([] { parse_binary32_text("0 1\n", "d.txt"); }).find("d.txt:1:") == 0);
  // A binary16 result is the binary32 pattern of that binary16 value: converted exactly.
  CHECK(binary32_to_format_exact(0x3f800000u, formats::fp16(), "d", 1) == 0x3c00);
  CHECK(binary32_to_format_exact(0x33800000u, formats::fp16(), "d", 1) == 0x0001);  // 2^-24
  CHECK(binary32_to_format_exact(0xff800000u, formats::fp16(), "d", 1) == 0xfc00);
  CHECK(error_of([] { binary32_to_format_exact(0x3f800800u, formats::fp16(), "d_X_fp16.txt", 7); })
            .find("d_X_fp16.txt:7:") == 0);
  CHECK(error_of([] { binary32_to_format_exact(0x47800000u, formats::fp16(), "d", 1); }).find("d:1:") == 0);
  // c for binary16 output is rounded to nearest even (ties to even).
  CHECK(binary32_to_format_rounded(0x3f801000u, formats::fp16(), Rounding::NearestEven) == 0x3c00);
  CHECK(binary32_to_format_rounded(0x3f803000u, formats::fp16(), Rounding::NearestEven) == 0x3c02);
}

TEST_CASE("operand lines round-trip through the writer", "[dump]") {
  tcsim::test::Rng rng(tcsim::test::seed("dump round trip", 17));
  for (const Format* f : {&formats::fp16(), &formats::bf16(), &formats::tf32(), &formats::e4m3(), &formats::e5m2()}) {
    std::vector<std::uint64_t> v;
    while (v.size() < 32) {
      std::uint64_t bits = rng.next() & f->width_mask();
      if (classify(*f, bits) == FpClass::NaN) continue;
      v.push_back(bits);
    }
    const std::string line = format_operand_line(v.data(), v.size(), *f);
    const auto back = parse_operand_text(line + "\n", *f, "rt");
    INFO(f->name << ": " << line);
    CHECK(back.values == v);
  }
}

TEST_CASE("validate_dump counts mismatches, treats NaNs as equal and honours zero c", "[dump]") {
  TempDir dir;
  // Three fp16 -> fp32 cases of K = 2: 1*1 + 2*2 + c.
  DumpPaths p;
  p.a = dir.write("a.txt", "3f800000 40000000\n3f800000 40000000\n7fc00000 3f800000\n");
  p.b = dir.write("b.txt", "3f800000 40000000\n3f800000 40000000\n3f800000 3f800000\n");
  p.c = dir.write("c.txt", format_binary32_line(0x3f800000u) + "\n" + format_binary32_line(0x3f800000u) + "\n" +
                               format_binary32_line(0) + "\n");
  // Case 1: 1 + 4 + 1 = 6 (right); case 2: the GPU says 7 (wrong on purpose); case 3: NaN
  // written as another NaN pattern.
  p.d = dir.write("d.txt", format_binary32_line(0x40c00000u) + "\n" + format_binary32_line(0x40e00000u) + "\n" +
                               format_binary32_line(0xffc00001u) + "\n");
  const DumpSet s = load_dump(p, formats::fp16(), formats::fp32());
  CHECK(s.k == 2);
  CHECK(s.n == 3);
  AdderConfig cfg;
  cfg.a_format = cfg.b_format = formats::fp16();
  cfg.c_format = cfg.out_format = formats::fp32();
  const FixedPointAdder adder(cfg);
  const DotFunction unit = [&](std::span<const std::uint64_t> a, std::span<const std::uint64_t> b, std::uint64_t c) {
    return adder.dot(a, b, c);
  };
  const auto r = validate_dump(s, unit, 5, true);
  CHECK(r.cases == 3);
  CHECK(r.mismatches == 1);
  REQUIRE(r.first.size() == 1);
  CHECK(r.first[0].index == 1);
  CHECK(r.first[0].expected == 0x40e00000u);
  CHECK(r.first[0].got == 0x40c00000u);
  CHECK(r.matched == std::vector<bool>{true, false, true});
  CHECK(summary_line(r) == "3 cases, 1 mismatches");
  const std::string text = describe_mismatch(s, r.first[0]);
  CHECK(text.find("line 2") != std::string::npos);
  CHECK(text.find("0x40e00000") != std::string::npos);
  CHECK(text.find("0x40c00000") != std::string::npos);
  // Zero c: 1 + 4 = 5 for the first two cases; the c path is not read.
  DumpPaths z = p;
  z.c.clear();
  const DumpSet sz = load_dump(z, formats::fp16(), formats::fp32(), AccumulatorInput::Zero);
  CHECK(sz.c == std::vector<std::uint64_t>{0, 0, 0});
  CHECK(validate_dump(sz, unit).mismatches == 2);
  // Line counts must agree.
  DumpPaths bad = p;
  bad.d = dir.write("d2.txt", format_binary32_line(0x40c00000u) + "\n");
  CHECK(error_of([&] { load_dump(bad, formats::fp16(), formats::fp32()); }).find("d2.txt") != std::string::npos);
  // binary16 output: c rounded to binary16 (RNE), d converted exactly.
  DumpPaths h = p;
  h.c = dir.write("c16.txt", format_binary32_line(0x3f801000u) + "\n" + format_binary32_line(0x3f803000u) + "\n" +
                                 format_binary32_line(0) + "\n");
  h.d = dir.write("d16.txt", format_binary32_line(0x40c00000u) + "\n" + format_binary32_line(0x40c00000u) + "\n" +
                                 format_binary32_line(0x7fc00000u) + "\n");
  const DumpSet sh = load_dump(h, formats::fp16(), formats::fp16());
  CHECK(sh.c == std::vector<std::uint64_t>{0x3c00, 0x3c02, 0x0000});
  CHECK(sh.d == std::vector<std::uint64_t>{0x4600, 0x4600, formats::fp16().canonical_nan()});
}

TEST_CASE("dump files: directories, endless lines and huge files fail fast naming the file", "[dump]") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("tcsim_dump_limits_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  CHECK_THROWS_WITH(read_text_file(dir.string()), "'" + dir.string() + "' is a directory; give a dump file");
  CHECK_THROWS_WITH(read_operand_file(dir.string(), formats::fp16()), "'" + dir.string() + "' is a directory; give a dump file");
  const std::string long_line = (dir / "long.txt").string();
  {
    std::ofstream f(long_line);
    f << "3f800000\n" << std::string(kMaxDumpLineLength + 1, '0') << "\n";
  }
  CHECK_THROWS_WITH(read_text_file(long_line), long_line + ":2: line longer than 65536 characters; a dump line holds "
                                                           "one case (K values of 8 hex digits, or 32 characters 0/1)");
  const std::string ok = (dir / "ok.txt").string();
  {
    std::ofstream f(ok);
    f << std::string(kMaxDumpLineLength, '0') << "\n";
  }
  CHECK(read_text_file(ok).size() == kMaxDumpLineLength + 1);
  // A file beyond 1 GiB is refused by its size, before it is read (sparse: no disk used).
  const std::string huge = (dir / "huge.txt").string();
  std::ofstream(huge).close();
  fs::resize_file(huge, kMaxDumpFileBytes + 1);
  CHECK_THROWS_WITH(read_text_file(huge), "'" + huge + "' is larger than 1 GiB, the limit of a dump file");
  if (fs::exists("/dev/zero"))
    CHECK_THROWS_WITH(read_text_file("/dev/zero"), Catch::Contains("/dev/zero:1: line longer than"));
  fs::remove_all(dir);
}
