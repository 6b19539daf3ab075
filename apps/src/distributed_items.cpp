// The sweeps' work items on one process or over MPI ranks (distributed_items.hpp).
#include "distributed_items.hpp"

#ifdef TCSIM_HAVE_MPI
#include "tcsim/dist/session.hpp"
#include "tcsim/dist/sweep.hpp"
#endif

namespace tcsim::cli {

int job_rank() {
#ifdef TCSIM_HAVE_MPI
  if (dist::active()) {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
  }
#endif
  return 0;
}

int job_ranks() {
#ifdef TCSIM_HAVE_MPI
  if (dist::active()) {
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    return size;
  }
#endif
  return 1;
}

std::vector<std::string> map_items(std::size_t count, const std::function<std::string(std::size_t)>& item,
                                   const std::function<void(std::size_t, std::size_t)>& progress) {
#ifdef TCSIM_HAVE_MPI
  if (dist::active()) return dist::map_items(MPI_COMM_WORLD, count, item, progress);
#endif
  std::vector<std::string> out;
  out.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    out.push_back(item(i));
    if (progress) progress(i + 1, count);
  }
  return out;
}

std::vector<std::string> map_parts(const std::function<std::string(int, int)>& part) {
#ifdef TCSIM_HAVE_MPI
  if (dist::active()) return dist::gather_parts(MPI_COMM_WORLD, part);
#endif
  return {part(0, 1)};
}

std::string share_from_rank0(std::string bytes) {
#ifdef TCSIM_HAVE_MPI
  if (dist::active()) {
    unsigned long long length = bytes.size();
    MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    bytes.resize(static_cast<std::size_t>(length));
    MPI_Bcast(bytes.data(), static_cast<int>(length), MPI_CHAR, 0, MPI_COMM_WORLD);
  }
#endif
  return bytes;
}

void on_rank0(const std::function<void()>& f) {
#ifdef TCSIM_HAVE_MPI
  if (dist::active()) {
    dist::collectively(MPI_COMM_WORLD, [&] {
      if (job_rank() == 0) f();
    });
    return;
  }
#endif
  f();
}

}  // namespace tcsim::cli
