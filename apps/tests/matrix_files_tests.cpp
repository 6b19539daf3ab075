// apps/src/matrix_files.cpp: Matrix Market and .npy files written here byte by byte, read back
// with exact values, and every malformed file refused with a message naming option, file,
// line and expectation.
#include <catch2/catch.hpp>

#include <bit>
#include <csignal>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <sys/stat.h>

#include "matrix_files.hpp"
#include "output_file.hpp"

using tcsim::apps::Matrix;
using tcsim::apps::read_matrix;

namespace {

std::string scratch(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / "tcsim-matrix-files-tests";
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

std::string write(const std::string& name, const std::string& bytes) {
  const std::string path = scratch(name);
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

// A .npy file: version `major`, header dict text, raw data bytes.
std::string npy(const std::string& name, int major, const std::string& dict, const std::string& data) {
  const std::size_t prefix = major == 1 ? 10 : 12;
  std::string h = dict;
  while ((prefix + h.size() + 1) % 64) h += ' ';
  h += '\n';
  std::string bytes = "\x93NUMPY";
  bytes += static_cast<char>(major);
  bytes += '\0';
  bytes += static_cast<char>(h.size() & 0xff);
  bytes += static_cast<char>(h.size() >> 8);
  if (major != 1) bytes += std::string(2, '\0');
  return write(name, bytes + h + data);
}

template <class T>
std::string raw(const std::vector<T>& v, bool big_endian = false) {
  std::string s;
  for (T x : v) {
    using U = std::conditional_t<sizeof(T) == 8, std::uint64_t, std::uint32_t>;
    const U bits = std::bit_cast<U>(x);
    for (std::size_t b = 0; b < sizeof(T); ++b) s += static_cast<char>(bits >> (8 * (big_endian ? sizeof(T) - 1 - b : b)));
  }
  return s;
}

void check_values(const Matrix& m, std::size_t rows, std::size_t cols, const std::vector<double>& want) {
  REQUIRE(m.rows == rows);
  REQUIRE(m.cols == cols);
  REQUIRE(m.values.size() == want.size());
  for (std::size_t i = 0; i < want.size(); ++i) CHECK(std::bit_cast<std::uint64_t>(m.values[i]) == std::bit_cast<std::uint64_t>(want[i]));
}

}  // namespace

TEST_CASE("matrix_files: Matrix Market array (column-major), coordinate, symmetric, skew-symmetric", "[matrix_files]") {
  check_values(read_matrix(write("a.mtx", "%%MatrixMarket matrix array real general\n% c\n\n2 3\n1\n2\n0.1\n-4\n0x1p-3\n6\n"), "--a"), 2, 3,
               {1, 0.1, 0x1p-3, 2, -4, 6});
  check_values(read_matrix(write("c.mtx", "%%MatrixMarket Matrix Coordinate Integer General\n2 2 2\n2 1 7\n1 2 -3\n"), "--a"), 2, 2,
               {0, -3, 7, 0});
  check_values(read_matrix(write("s.mtx", "%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n3\n"), "--a"), 2, 2, {1, 2, 2, 3});
  check_values(read_matrix(write("k.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 1 5\n"), "--a"), 2, 2,
               {0, -5, 5, 0});
}

TEST_CASE("matrix_files: .npy float32/float64, C and Fortran order, both byte orders, versions 1-3, 1-D", "[matrix_files]") {
  check_values(read_matrix(npy("c.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }", raw<double>({1, 0.1, -3, 4})), "--b"),
               2, 2, {1, 0.1, -3, 4});
  check_values(read_matrix(npy("f.npy", 2, "{'shape': (2, 3), 'fortran_order': True, 'descr': '<f4'}", raw<float>({1, 2, 3, 4, 5, 0.1f})), "--b"),
               2, 3, {1, 3, 5, 2, 4, static_cast<double>(0.1f)});
  check_values(read_matrix(npy("be.npy", 3, "{\"descr\": \">f8\", \"fortran_order\": False, \"shape\": (1, 2)}", raw<double>({-2.5, 1e300}, true)), "--b"),
               1, 2, {-2.5, 1e300});
  check_values(read_matrix(npy("v.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", raw<double>({1, 2, 3})), "--b"), 3, 1,
               {1, 2, 3});
}

TEST_CASE("matrix_files: round trips through write_npy and write_matrix_market", "[matrix_files]") {
  const Matrix m{2, 3, {0.1, -1e-310, 3.25, 1e300, -0.0, 7}};
  tcsim::apps::write_npy(scratch("rt.npy"), m);
  check_values(read_matrix(scratch("rt.npy"), "--a"), 2, 3, m.values);
  tcsim::apps::write_matrix_market(scratch("rt.mtx"), m);
  check_values(read_matrix(scratch("rt.mtx"), "--a"), 2, 3, m.values);
  tcsim::apps::write_hex_matrix(scratch("d.txt"), 2, 2, {0x3f800000, 0x1, 0xbf800000, 0x7f800000}, 8);
  std::ifstream f(scratch("d.txt"));
  const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  CHECK(text == "0x3f800000 0x00000001\n0xbf800000 0x7f800000\n");
}

TEST_CASE("matrix_files: failed writes and bad output paths are errors naming the option", "[matrix_files]") {
  // /dev/full: the last write was not checked (an empty file, exit 0); now checked through the close.
  const std::vector<std::uint64_t> bits{0x3f800000, 0x1, 0xbf800000, 0x7f800000};
  CHECK_THROWS_WITH(tcsim::apps::write_hex_matrix("/dev/full", 2, 2, bits, 8, "--write-d"),
                    "--write-d: /dev/full: write failed: No space left on device");
  CHECK_THROWS_WITH(tcsim::apps::write_npy("/dev/full", Matrix{1, 1, {1.0}}), "npy: /dev/full: write failed: No space left on device");
  CHECK_THROWS_WITH(tcsim::cli::check_output_file("--write-d", scratch("nowhere/d.txt")),
                    "--write-d: " + scratch("nowhere/d.txt") + ": the folder '" + scratch("nowhere") + "' does not exist");
  CHECK_THROWS_WITH(tcsim::cli::check_output_file("--write-d", scratch("")), Catch::Contains("is a folder; give a file name"));
  CHECK_NOTHROW(tcsim::cli::check_output_file("--write-d", "-"));
  CHECK_NOTHROW(tcsim::cli::check_output_file("--write-d", scratch("new.txt")));
}

TEST_CASE("matrix_files: malformed files name option, file, line and expectation", "[matrix_files]") {
  using Catch::Contains;
  CHECK_THROWS_WITH(read_matrix(scratch("missing.mtx"), "--a"), Contains("--a: ") && Contains("missing.mtx: cannot be read"));
  CHECK_THROWS_WITH(read_matrix(write("h.mtx", "%%MatrixMarket matrix array complex general\n1 1\n1 0\n"), "--a"),
                    Contains("line 1: field 'complex' is not supported (no real values); allowed: real, integer"));
  CHECK_THROWS_WITH(read_matrix(write("z.mtx", "%%MatrixMarket matrix array real general\n0 3\n"), "--a"),
                    Contains("line 2: the matrix is empty"));
  CHECK_THROWS_WITH(read_matrix(write("o.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1\n"), "--b"),
                    Contains("--b: ") && Contains("line 3: entry (3, 1) is outside the 2 x 2 matrix"));
  CHECK_THROWS_WITH(read_matrix(write("d.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n1 1 2\n"), "--a"),
                    Contains("line 4: entry (1, 1) is given twice"));
  CHECK_THROWS_WITH(read_matrix(write("t.mtx", "%%MatrixMarket matrix array real general\n1 2\n1\n2\n3\n"), "--a"),
                    Contains("line 5: unexpected data after the last entry: '3'"));
  CHECK_THROWS_WITH(read_matrix(write("x.mtx", "%%MatrixMarket matrix array real general\n1 1\n1 2\n"), "--a"),
                    Contains("line 3: expected one value per line, got '1 2'"));
  CHECK_THROWS_WITH(read_matrix(write("u.mtx", "%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n1 2 1\n"), "--a"),
                    Contains("lists the lower triangle only"));
  CHECK_THROWS_WITH(read_matrix(npy("i.npy", 1, "{'descr': '<i4', 'fortran_order': False, 'shape': (1, 1), }", "abcd"), "--b"),
                    Contains("dtype '<i4' is not supported; expected float32"));
  CHECK_THROWS_WITH(read_matrix(npy("s.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }", raw<double>({1, 2, 3})), "--b"),
                    Contains("needs") && Contains("bytes, the file has"));
  CHECK_THROWS_WITH(read_matrix(npy("3.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1, 1), }", raw<double>({1})), "--b"),
                    Contains("has 3 dimensions; expected 2"));
  CHECK_THROWS_WITH(read_matrix(npy("big.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (100000000, 100000000), }", ""), "--b"),
                    Contains("is too large"));
  CHECK_THROWS_WITH(read_matrix(write("huge.mtx", "%%MatrixMarket matrix array real general\n40000 40000\n1\n"), "--a"),
                    Contains("line 2: a 40000 40000 array needs at least 3200000000 bytes of values; the file has"));
  CHECK_THROWS_WITH(read_matrix(write("hugec.mtx", "%%MatrixMarket matrix coordinate real general\n46000 46000 0\n"), "--a"),
                    Contains("too large to hold dense"));
  CHECK_THROWS_WITH(read_matrix(write("int.mtx", "%%MatrixMarket matrix array integer general\n1 2\n1\n1.5\n"), "--a"),
                    Contains("line 4: '1.5' is not an integer (the header says integer)"));
  CHECK_THROWS_WITH(read_matrix(write("j.txt", "hello world, not a matrix\n"), "--c"),
                    Contains("--c: ") && Contains("neither a Matrix Market file"));
  // Found by fuzzing (apps/fuzz/regressions/fuzz_matrix_files/npy_shape_not_a_tuple): an empty
  // or unparenthesized shape threw std::out_of_range from substr instead of the reader's error.
  CHECK_THROWS_WITH(read_matrix(npy("e.npy", 2, "{'descr': '>f8', 'fortran_order': False, 'shape': }", raw<double>({1})), "--b"),
                    Contains("shape '' is not a tuple of sizes such as (2, 3)"));
  CHECK_THROWS_WITH(read_matrix(npy("l.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': [1, 1], }", raw<double>({1})), "--b"),
                    Contains("shape '[1' is not a tuple of sizes such as (2, 3)"));
  std::ifstream saved(std::string(TCSIM_SOURCE_DIR) + "/apps/fuzz/regressions/fuzz_matrix_files/npy_shape_not_a_tuple",
                      std::ios::binary);
  const std::string crash((std::istreambuf_iterator<char>(saved)), std::istreambuf_iterator<char>());
  REQUIRE(crash.size() == 152);
  CHECK_THROWS_WITH(tcsim::apps::read_matrix_bytes(crash, "crash.npy", "--a"),
                    Contains("--a: crash.npy: shape '' is not a tuple of sizes such as (2, 3)"));
}

namespace {

// `bytes` through a named pipe (no size, no seeking, as `--a <(cat m.mtx)`), read by read_matrix.
Matrix read_through_fifo(const std::string& name, const std::string& bytes) {
  const std::string path = scratch(name);
  std::filesystem::remove(path);
  REQUIRE(mkfifo(path.c_str(), 0600) == 0);
  std::thread writer([&] {
    std::ofstream(path, std::ios::binary) << bytes;
  });
  struct Join {
    std::thread& t;
    ~Join() { t.join(); }
  } join{writer};
  return read_matrix(path, "--a");
}

}  // namespace

TEST_CASE("matrix_files: pipes are sniffed first and capped at what their header implies", "[matrix_files]") {
  using Catch::Contains;
  const std::string mm = "%%MatrixMarket matrix array real general\n1 2\n1\n2\n";
  const Matrix m = read_through_fifo("ok.mtx", mm);
  CHECK(m.values == std::vector<double>{1, 2});
  // /dev/zero: refused from its first bytes, not read to the end (it has none).
  CHECK_THROWS_WITH(read_matrix("/dev/zero", "--a"),
                    "--a: /dev/zero: neither a Matrix Market file ('%%MatrixMarket ...' first) nor a .npy file ('\\x93NUMPY' magic)");
  // More bytes than 2 entries may take (1 KiB each, 1 KiB slack): refused once past the cap
  // (a stream that ends within the first 64 KiB read is parsed whole). The writer then meets a
  // closed pipe: SIGPIPE ignored, its write fails quietly.
  std::signal(SIGPIPE, SIG_IGN);
  CHECK_THROWS_WITH(read_through_fifo("long.mtx", mm + std::string(200000, '\n')),
                    Contains("--a: ") && Contains("long.mtx: the stream holds more than ") &&
                        Contains(" bytes, more than its size line '1 2' allows (1 KiB per entry)"));
  // A .npy header fixes the size exactly.
  const std::string h = "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1), }";
  std::string npy_bytes = std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(h.size()) + '\0' + h + std::string(8, '\0');
  CHECK(read_through_fifo("ok.npy", npy_bytes).values == std::vector<double>{0});
  CHECK_THROWS_WITH(read_through_fifo("long.npy", npy_bytes + "x"),
                    Contains("long.npy: the stream holds more than " + std::to_string(10 + h.size() + 8) +
                             " bytes, more than its .npy header implies (shape (1, 1) of '<f8')"));
}
