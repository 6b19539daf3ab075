// Reader and writer of the real-GPU dump format (see dump_reader.hpp).
#include "tcsim/validation/dump_reader.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "tcsim/sim/codec.hpp"
#include "tcsim/sim/exact.hpp"

namespace tcsim::validation {

namespace {

[[noreturn]] void fail_at(std::string_view name, std::size_t line, const std::string& what) {
  std::ostringstream s;
  s << name << ':' << line << ": " << what;
  throw std::invalid_argument(s.str());
}

bool is_blank(char ch) { return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\v' || ch == '\f'; }

// Splits text into lines (without '\n'); a final line without newline counts, an empty
// final segment after the last newline does not.
std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) {
      lines.push_back(text.substr(pos));
      break;
    }
    lines.push_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  return lines;
}

std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_blank(line[i])) ++i;
    std::size_t j = i;
    while (j < line.size() && !is_blank(line[j])) ++j;
    if (j > i) out.push_back(line.substr(i, j - i));
    i = j;
  }
  return out;
}

// Number of lines that hold data: trailing blank lines are dropped; a blank line followed
// by data is an error (it would shift the pairing of a, b, c and d lines).
std::size_t data_line_count(const std::vector<std::string_view>& lines, std::string_view name) {
  std::size_t n = lines.size();
  while (n > 0 && split_fields(lines[n - 1]).empty()) --n;
  for (std::size_t i = 0; i < n; ++i)
    if (split_fields(lines[i]).empty())
      fail_at(name, i + 1, "blank line before the end of the file (every line is one case)");
  if (n == 0) fail_at(name, 1, "the file holds no cases");
  return n;
}

int hex_digit(char ch) {
  if (ch >= '0' && ch <= '9') return ch - '0';
  if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
  if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
  return -1;
}

std::string quoted(std::string_view s) {
  constexpr std::size_t kMax = 40;
  std::string out = "'";
  out += s.size() > kMax ? std::string(s.substr(0, kMax)) + "..." : std::string(s);
  return out + "'";
}

std::string hex32(std::uint32_t bits) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%08x", bits);
  return buf;
}

}  // namespace

std::string read_text_file(const std::string& path) {
  namespace fs = std::filesystem;
  const auto too_large = [&] {
    return std::invalid_argument("'" + path + "' is larger than " + std::to_string(kMaxDumpFileBytes >> 30) +
                                 " GiB, the limit of a dump file");
  };
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (fs::is_directory(status)) throw std::invalid_argument("'" + path + "' is a directory; give a dump file");
  // A regular file's size is known: refuse a huge one before reading any of it.
  if (fs::is_regular_file(status)) {
    const std::uintmax_t size = fs::file_size(path, ec);
    if (!ec && size > kMaxDumpFileBytes) throw too_large();
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument("cannot open file '" + path + "': " + std::strerror(errno));
  // Read in pieces, so that an endless input (/dev/zero) or a growing one stops at the
  // limits instead of filling the memory.
  std::string text;
  std::vector<char> buf(1 << 20);
  std::size_t line = 1, line_length = 0;
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    const auto got = static_cast<std::size_t>(in.gcount());
    for (std::size_t i = 0; i < got; ++i) {
      if (buf[i] == '\n') {
        ++line;
        line_length = 0;
      } else if (++line_length > kMaxDumpLineLength) {
        throw std::invalid_argument(path + ":" + std::to_string(line) + ": line longer than " +
                                    std::to_string(kMaxDumpLineLength) +
                                    " characters; a dump line holds one case (K values of 8 hex digits, or 32 "
                                    "characters 0/1)");
      }
    }
    if (text.size() + got > kMaxDumpFileBytes) throw too_large();
    text.append(buf.data(), got);
  }
  if (in.bad()) throw std::invalid_argument("cannot read file '" + path + "'");
  return text;
}

std::string file_name_of(const std::string& path) {
  auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::uint64_t binary32_to_format_exact(std::uint32_t bits, const Format& fmt, std::string_view name,
                                       std::size_t line) {
  const ExactValue v = decode(formats::fp32(), bits);
  auto fail = [&](const char* why) {
    fail_at(name, line,
            "value " + hex32(bits) + " (" + v.to_hex() + ") is not representable in " + fmt.name +
                ": " + why);
  };
  if (v.is_nan()) {
    if (!fmt.has_nan()) fail("the format has no NaN");
    return fmt.canonical_nan();
  }
  if (v.is_inf()) {
    if (!fmt.infinities) fail("the format has no infinities");
    return fmt.infinity(v.negative);
  }
  if (v.is_zero() && v.negative && fmt.zero(true) == fmt.zero(false)) fail("the format has no -0");
  RoundingOptions o;
  o.mode = Rounding::NearestEven;
  o.overflow = OverflowMode::Ieee;
  o.subnormals = SubnormalMode::Keep;
  const RoundResult r = round_to_format(v, fmt, o);
  if (r.overflow) fail("too large");
  if (r.invalid) fail("invalid in the format");
  if (r.inexact) fail(v.is_finite() && v.lead_exponent() < fmt.emin - fmt.precision + 1
                          ? "too small"
                          : "too many significant bits or below the format's subnormal range");
  return r.bits;
}

std::uint64_t binary32_to_format_rounded(std::uint32_t bits, const Format& fmt, Rounding mode) {
  RoundingOptions o;
  o.mode = mode;
  o.overflow = OverflowMode::Ieee;
  return round_to_format(decode(formats::fp32(), bits), fmt, o).bits;
}

std::uint32_t format_to_binary32(std::uint64_t bits, const Format& fmt) {
  const ExactValue v = decode(fmt, bits);
  RoundingOptions o;
  o.mode = Rounding::NearestEven;
  o.overflow = OverflowMode::Ieee;
  const RoundResult r = round_to_format(v, formats::fp32(), o);
  if (!v.is_nan() && (r.inexact || r.overflow))
    throw std::invalid_argument("value " + bits_to_hex(fmt, bits) + " of " + fmt.name +
                                " is not representable in binary32");
  return static_cast<std::uint32_t>(r.bits);
}

OperandData parse_operand_text(std::string_view text, const Format& fmt, std::string_view name) {
  OperandData out;
  out.name = std::string(name);
  const auto lines = split_lines(text);
  const std::size_t n = data_line_count(lines, name);
  for (std::size_t i = 0; i < n; ++i) {
    const auto fields = split_fields(lines[i]);
    if (i == 0) {
      out.k = fields.size();
      out.values.reserve(n * out.k);
    } else if (fields.size() != out.k) {
      fail_at(name, i + 1,
              "holds " + std::to_string(fields.size()) + " values, but line 1 holds " +
                  std::to_string(out.k) + " (K must be the same on every line)");
    }
    for (std::size_t j = 0; j < fields.size(); ++j) {
      const auto f = fields[j];
      std::uint32_t bits = 0;
      bool ok = f.size() == 8;
      for (char ch : f) {
        int h = hex_digit(ch);
        if (h < 0) ok = false;
        bits = (bits << 4) | static_cast<std::uint32_t>(h < 0 ? 0 : h);
      }
      if (!ok)
        fail_at(name, i + 1,
                "value " + std::to_string(j + 1) + " " + quoted(f) +
                    " is not an 8-hex-digit binary32 bit pattern");
      out.values.push_back(binary32_to_format_exact(bits, fmt, name, i + 1));
    }
  }
  out.cases = n;
  return out;
}

OperandData read_operand_file(const std::string& path, const Format& fmt) {
  return parse_operand_text(read_text_file(path), fmt, path);
}

ScalarData parse_binary32_text(std::string_view text, std::string_view name) {
  ScalarData out;
  out.name = std::string(name);
  const auto lines = split_lines(text);
  const std::size_t n = data_line_count(lines, name);
  out.binary32.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto fields = split_fields(lines[i]);
    if (fields.size() != 1)
      fail_at(name, i + 1,
              "holds " + std::to_string(fields.size()) +
                  " fields; expected one binary32 pattern of 32 characters 0/1");
    const auto f = fields[0];
    bool ok = f.size() == 32;
    std::uint32_t bits = 0;
    for (char ch : f) {
      if (ch != '0' && ch != '1') ok = false;
      bits = (bits << 1) | (ch == '1' ? 1u : 0u);
    }
    if (!ok) {
      const std::size_t bad = f.find_first_not_of("01");
      fail_at(name, i + 1,
              quoted(f) + " is not a binary32 bit pattern of 32 characters 0/1 (" +
                  (f.size() != 32 ? "it has " + std::to_string(f.size()) + " characters"
                                  : "character " + std::to_string(bad + 1) + " is '" + std::string(1, f[bad]) + "'") +
                  ")");
    }
    out.binary32.push_back(bits);
  }
  return out;
}

ScalarData read_binary32_file(const std::string& path) {
  return parse_binary32_text(read_text_file(path), path);
}

std::string format_operand_line(const std::uint64_t* values, std::size_t k, const Format& fmt) {
  std::string line;
  for (std::size_t j = 0; j < k; ++j) {
    if (j) line += ' ';
    line += hex32(format_to_binary32(values[j], fmt));
  }
  return line;
}

std::string format_binary32_line(std::uint32_t bits) {
  std::string s(32, '0');
  for (int i = 0; i < 32; ++i)
    if (bits >> (31 - i) & 1u) s[static_cast<std::size_t>(i)] = '1';
  return s;
}

}  // namespace tcsim::validation
