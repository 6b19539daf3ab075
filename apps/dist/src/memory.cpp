// Memory per rank: the models and the measured peaks (memory.hpp).
#include "tcsim/dist/memory.hpp"

#include <algorithm>
#include <fstream>
#include <string>

namespace tcsim::dist {

namespace {

// Entries of 0 .. n-1 in block-cyclic blocks of r that land on `part` of `parts`.
double cyclic_count(std::size_t n, std::size_t r, int parts, int part) {
  const std::size_t blocks = (n + r - 1) / r;
  double count = 0;
  for (std::size_t b = static_cast<std::size_t>(part); b < blocks; b += static_cast<std::size_t>(parts))
    count += static_cast<double>(std::min(r, n - b * r));
  return count;
}

}  // namespace

double gemm_memory_model(std::size_t m, std::size_t n, std::size_t k, std::size_t check_rows, Grid grid, int rank) {
  const int size = grid.rows * grid.cols;
  const Range R = block_range(m, grid.rows, rank / grid.cols), J = block_range(n, grid.cols, rank % grid.cols);
  const double mp = static_cast<double>(R.size), nq = static_cast<double>(J.size);
  const double md = static_cast<double>(m), nd = static_cast<double>(n), kd = static_cast<double>(k);
  const double rows = static_cast<double>(block_range(check_rows, size, rank).size);
  double bytes = 40 * (mp * kd + kd * nq + mp * nq) + 400 * kd;  // the block through the unit
  if (check_rows > 0) bytes += 8 * kd * nd + 8 * rows * (kd + 2 * nd);  // the check: all of B, its rows
  if (rank == 0) bytes += 40 * (md * kd + kd * nd + md * nd);  // the whole problem and result
  return bytes;
}

double lu_memory_model(std::size_t n, const models::LuOptions& o, Grid grid, int rank) {
  const std::size_t r = std::max<std::size_t>(o.block, 1);
  const double rows = cyclic_count(n, r, grid.rows, rank / grid.cols), cols = cyclic_count(n, r, grid.cols, rank % grid.cols);
  const double nd = static_cast<double>(n), rd = static_cast<double>(std::min(r, n));
  const bool right_looking = o.algorithm == models::LuAlgorithm::Rl || o.algorithm == models::LuAlgorithm::RefRl;
  const double depth = right_looking ? rd : nd;  // the k range of one update's operands
  double bytes = 16 * rows * cols + 40 * (rows * depth + depth * cols + rows * cols);
  if (rank == 0) bytes += 44 * nd * nd;
  return bytes;
}

double peak_resident_bytes() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) * 1024;  // "VmHWM:  123456 kB"
  return 0;
}

std::vector<double> gather_peak_resident_bytes(MPI_Comm comm) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const double mine = peak_resident_bytes();
  std::vector<double> all(rank == 0 ? static_cast<std::size_t>(size) : 0);
  MPI_Gather(&mine, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, 0, comm);
  return all;
}

}  // namespace tcsim::dist
