// Session, launched_by_mpi and the failure agreement (session.hpp).
#include "tcsim/dist/session.hpp"

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace tcsim::dist {

bool launched_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (std::getenv(v)) return true;
  return false;
}

Session::Session(int& argc, char**& argv) {
  if (!launched_by_mpi()) return;
  // A rank waiting in MPI yields its core (Open MPI's mpi_yield_when_idle) unless the user
  // chose otherwise: on a shared or loaded machine a spinning rank takes the CPU that the
  // rank it waits for needs (docs/scale.md "Where the time goes"). Other MPIs ignore it.
  setenv("OMPI_MCA_mpi_yield_when_idle", "1", 0);
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  // A failing MPI call ends the job with MPI's message (the default handler), never a hang.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) {
    // If /dev/null cannot be opened the rank keeps its output (a duplicate of rank 0's).
    [[maybe_unused]] std::FILE* out = std::freopen("/dev/null", "w", stdout);
    [[maybe_unused]] std::FILE* err = std::freopen("/dev/null", "w", stderr);
  }
}

Session::~Session() {
  if (active()) {
    std::fflush(stdout);
    MPI_Finalize();
  }
}

bool active() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  return initialized && !finalized;
}

void agree_on_failure(MPI_Comm comm, const std::string* failure) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int mine = failure ? rank : size, first = size;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == size) return;
  int length = rank == first ? static_cast<int>(failure->size()) : 0;
  MPI_Bcast(&length, 1, MPI_INT, first, comm);
  std::vector<char> text(static_cast<std::size_t>(length));
  if (rank == first) text.assign(failure->begin(), failure->end());
  MPI_Bcast(text.data(), length, MPI_CHAR, first, comm);
  throw std::invalid_argument(std::string(text.begin(), text.end()));
}

}  // namespace tcsim::dist
