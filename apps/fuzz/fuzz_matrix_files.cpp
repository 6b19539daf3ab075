// libFuzzer target: the Matrix Market and .npy readers of `tcsim gemm` (apps/src/matrix_files.cpp).
// Any bytes; malformed input must be refused with std::runtime_error naming the option and the
// file; an accepted matrix must hold rows * cols values.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "matrix_files.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const tcsim::apps::Matrix m =
        tcsim::apps::read_matrix_bytes(std::string(reinterpret_cast<const char*>(data), size), "fuzz.mtx", "--a");
    if (m.values.size() != m.rows * m.cols) std::abort();
  } catch (const std::runtime_error&) {
  }
  return 0;
}
