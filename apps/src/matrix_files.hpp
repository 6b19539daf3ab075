// Matrices from and to files for `tcsim gemm`: Matrix Market (NIST: array or coordinate;
// real or integer; general, symmetric or skew-symmetric) and NumPy .npy (versions 1-3;
// float32 or float64, either byte order, C or Fortran order; 2-D, or 1-D as one column).
// Errors are std::runtime_error naming the option, the file, the line (Matrix Market) and
// what was expected.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tcsim::apps {

struct Matrix {
  std::size_t rows = 0, cols = 0;
  std::vector<double> values;  // row-major
};

// The format is chosen by content: the .npy magic "\x93NUMPY", else "%%MatrixMarket".
// `option` ("--a") leads every error message.
Matrix read_matrix(const std::string& path, std::string_view option);
// The same from the file's bytes; `name` stands for the path in messages (fuzzing, tests).
Matrix read_matrix_bytes(const std::string& bytes, std::string_view name, std::string_view option);

// Throw naming the option, the file and the 1-based entry: a NaN or infinite entry; an entry
// of magnitude above `largest` (`what` says where it goes, e.g. "fp16, the input format").
void require_finite(const Matrix& m, std::string_view option, const std::string& path);
void require_at_most(const Matrix& m, double largest, std::string_view what, std::string_view option,
                     const std::string& path);
// The same over row-major `values` with `cols` columns (a generated matrix, not copied).
void require_at_most(std::span<const double> values, std::size_t cols, double largest, std::string_view what,
                     std::string_view option, const std::string& path);

// rows lines of cols space-separated patterns, 0x and `hex_digits` digits each; "-": stdout.
// Every write is checked through the close (output_file.hpp): errors name `option`.
void write_hex_matrix(const std::string& path, std::size_t rows, std::size_t cols,
                      const std::vector<std::uint64_t>& bits, int hex_digits, std::string_view option = "--write-d");

// Float64 little-endian C-order .npy, and a Matrix Market array file (17 significant digits).
void write_npy(const std::string& path, const Matrix& m);
void write_matrix_market(const std::string& path, const Matrix& m);

}  // namespace tcsim::apps
