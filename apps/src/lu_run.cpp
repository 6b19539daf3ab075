// run_lu and write_lu (lu_run.hpp): one process, or tcsim::dist when MPI is live.
#include "lu_run.hpp"

#include <bit>
#include <cstdio>
#include <stdexcept>

#include "grid_text.hpp"
#include "memory_need.hpp"
#include "output_file.hpp"

#ifdef TCSIM_HAVE_MPI
#include "tcsim/dist/lu.hpp"
#include "tcsim/dist/memory.hpp"
#include "tcsim/dist/session.hpp"
#endif

namespace tcsim::cli {

namespace {

#ifdef TCSIM_HAVE_MPI
// The grid of a distributed LU on `size` ranks: --grid, or dist's default.
dist::Grid lu_grid(const std::string& grid, int size) {
  const GridText g = parse_grid(grid, size);
  return g.rows ? dist::Grid{g.rows, g.cols} : dist::choose_lu_grid(size);
}

std::vector<double> lu_memory_per_rank(std::size_t n, const models::LuOptions& o, dist::Grid shape) {
  std::vector<double> bytes;
  for (int r = 0; r < shape.rows * shape.cols; ++r) bytes.push_back(dist::lu_memory_model(n, o, shape, r));
  return bytes;
}
#endif

}  // namespace

#ifdef TCSIM_HAVE_MPI
nlohmann::json lu_phases_json(const dist::LuTraffic& traffic) {
  nlohmann::json ranks = nlohmann::json::array();
  for (std::size_t q = 0; q < traffic.phase_seconds.size(); ++q) {
    nlohmann::json seconds = nlohmann::json::object();
    double mpi = 0;
    for (std::size_t i = 0; i < traffic.phase_names.size(); ++i) {
      seconds[traffic.phase_names[i]] = traffic.phase_seconds[q][i];
      if (traffic.phase_is_mpi[i]) mpi += traffic.phase_seconds[q][i];
    }
    const double total = traffic.total_seconds[q];
    ranks.push_back({{"total_seconds", total},
                     {"cpu_seconds", traffic.cpu_seconds[q]},
                     {"mpi_seconds", mpi},
                     {"mpi_fraction", total > 0 ? mpi / total : 0.0},
                     {"seconds", seconds}});
  }
  return ranks;
}
#endif

void check_lu_memory(std::size_t n, const models::LuOptions& o, const std::string& grid, const std::string& option) {
#ifdef TCSIM_HAVE_MPI
  if (dist::active()) {
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const dist::Grid shape = lu_grid(grid, size);
    require_memory_per_rank(option, lu_memory_per_rank(n, o, shape),
                            std::to_string(shape.rows) + "x" + std::to_string(shape.cols));
    return;
  }
#endif
  (void)o, (void)grid;
  // The binary64 matrix, the generator's temporaries, the factors and their copies: measured
  // peak 44 n^2 bytes (n = 1024, 2048).
  require_memory(option, 44.0 * static_cast<double>(n) * static_cast<double>(n));
}

LuRun run_lu(const models::Unit& unit, const Format& in, std::size_t n, std::span<const double> A,
             const models::LuOptions& o, const std::string& grid) {
  LuRun run;
#ifdef TCSIM_HAVE_MPI
  if (dist::active()) {
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const dist::Grid shape = lu_grid(grid, size);
    dist::LuTraffic traffic;
    run.lu = dist::lu(MPI_COMM_WORLD, shape, unit, in, n, A, o, &traffic);
    run.report = rank == 0;
    if (run.report) run.phases = lu_phases_json(traffic);
    const std::vector<double> peaks = dist::gather_peak_resident_bytes(MPI_COMM_WORLD);
    if (run.report) run.memory = {{"bytes_per_rank", whole_bytes(lu_memory_per_rank(n, o, shape))},
                                  {"peak_bytes_per_rank", whole_bytes(peaks)}};
    return run;
  }
#endif
  (void)parse_grid(grid, 1);
  run.lu = models::simulate_lu(unit, in, n, A, o);
  return run;
}

void write_lu(const std::string& path, const models::LuResult& lu) {
  OutputFile f{"--write-lu", path};
  for (std::size_t i = 0; i < lu.n; ++i)
    for (std::size_t j = 0; j < lu.n; ++j)
      std::fprintf(f.get(), "0x%016llx%c", static_cast<unsigned long long>(std::bit_cast<std::uint64_t>(lu.LU[i * lu.n + j])),
                   j + 1 == lu.n ? '\n' : ' ');
  std::fprintf(f.get(), "perm");
  for (std::size_t p : lu.perm) std::fprintf(f.get(), " %zu", p);
  std::fprintf(f.get(), "\n");
  f.close();
}

}  // namespace tcsim::cli
