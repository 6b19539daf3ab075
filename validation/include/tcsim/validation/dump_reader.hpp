// Reading and writing real-GPU dump files (the format of ../shared/data/gpu/README.md).
//
//   a_<GPU>_<fmt>.txt, b_<GPU>_<fmt>.txt  one case per line: K values, each the 8-hex-digit
//                                         binary32 bit pattern of an input-format value;
//   c_<GPU>_fp32.txt                      one case per line: 32 characters 0/1, binary32;
//   d_<GPU>_fp32.txt, d_<GPU>_fp16.txt    the GPU's results, same encoding (a binary16 result
//                                         is written as the binary32 pattern of its value).
//
// Every reader converts values into the format the caller names and reports a malformed
// file, or a value that the format cannot hold exactly, as std::invalid_argument whose
// message starts with "<file>:<line>: ".
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tcsim/sim/format.hpp"
#include "tcsim/sim/rounding.hpp"

namespace tcsim::validation {

// The values of one a or b file: `cases` lines of `k` values, row-major, as bit patterns
// of the operand format.
struct OperandData {
  std::string name;                   // file name used in messages
  std::size_t k = 0;                  // values per line (taken from the file)
  std::size_t cases = 0;              // lines
  std::vector<std::uint64_t> values;  // cases * k patterns of the operand format
  const std::uint64_t* row(std::size_t i) const { return values.data() + i * k; }
};

// One value per line (c or d files): binary32 patterns as read.
struct ScalarData {
  std::string name;
  std::vector<std::uint32_t> binary32;  // one pattern per line
};

// Parses the text of an a/b file. `name` appears in error messages. All lines must hold
// the same number of values (K); blank lines are allowed only at the end of the file.
OperandData parse_operand_text(std::string_view text, const Format& fmt, std::string_view name);
OperandData read_operand_file(const std::string& path, const Format& fmt);

// Parses the text of a c/d file: one 32-character 0/1 binary32 pattern per line.
ScalarData parse_binary32_text(std::string_view text, std::string_view name);
ScalarData read_binary32_file(const std::string& path);

// Converts a binary32 pattern into `fmt` exactly; throws "<name>:<line>: ..." (naming the
// value in hex and the format) when the value is not representable in `fmt`. NaN becomes
// the format's canonical NaN (an error when the format has none).
std::uint64_t binary32_to_format_exact(std::uint32_t bits, const Format& fmt,
                                       std::string_view name, std::size_t line);
// Converts a binary32 pattern into `fmt` with rounding mode `mode` (IEEE overflow).
std::uint64_t binary32_to_format_rounded(std::uint32_t bits, const Format& fmt, Rounding mode);
// The binary32 pattern of a value of `fmt` (exact for every format whose values binary32
// holds: fp16, bf16, tf32, fp8, ...; throws std::invalid_argument otherwise).
std::uint32_t format_to_binary32(std::uint64_t bits, const Format& fmt);

// Writing the same formats (for tests and for dumps made by other tools).
std::string format_operand_line(const std::uint64_t* values, std::size_t k, const Format& fmt);
std::string format_binary32_line(std::uint32_t bits);

// Limits of a dump file, so that a wrong path (/dev/zero, a huge binary) fails fast with a
// clear error naming the file instead of reading forever: lines of at most 64 Ki (65536)
// characters, files of at most 1 GiB (a 5,000-case K = 32 file is about 1.5 MB). A regular
// file is refused by its size before it is read, a device or pipe once it passes a limit
// (a FIFO without a writer blocks). `tcsim validate-dump --help` states them too.
inline constexpr std::size_t kMaxDumpLineLength = 64 * 1024;
inline constexpr std::size_t kMaxDumpFileBytes = std::size_t{1} << 30;

// Reads the whole file; throws std::invalid_argument naming the path when it cannot, when
// it is a directory, or when it breaks the limits above.
std::string read_text_file(const std::string& path);
// Last path component, for messages.
std::string file_name_of(const std::string& path);

}  // namespace tcsim::validation
