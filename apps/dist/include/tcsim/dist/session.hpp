// MPI for the life of a tcsim process started by an MPI launcher (mpirun, srun); a process
// started alone never initializes MPI, so it runs exactly as a build without MPI.
#pragma once
#include <mpi.h>

#include <stdexcept>
#include <string>
#include <type_traits>

namespace tcsim::dist {

// True when the environment names an MPI rank (Open MPI's mpirun, PMIx or PMI: srun).
bool launched_by_mpi();

// MPI_Init_thread (funneled: only the main thread calls MPI, the unit GEMM's TBB threads do
// not) when launched_by_mpi(), MPI_Finalize at the end. Ranks other than 0 send stdout and
// stderr to /dev/null: rank 0 prints what one process would.
class Session {
 public:
  Session(int& argc, char**& argv);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
};

// MPI is initialized and not finalized (a Session is live under a launcher).
bool active();

// Runs f() on every rank of comm. When it throws on some rank, every rank throws
// std::invalid_argument with the message of the lowest such rank, so that rank 0 reports it
// once (as one process would) and no rank waits for the others in a later collective.
void agree_on_failure(MPI_Comm comm, const std::string* failure);
template <class F>
auto collectively(MPI_Comm comm, F&& f) -> decltype(f()) {
  std::string message;
  bool failed = false;
  if constexpr (std::is_void_v<decltype(f())>) {
    try {
      f();
    } catch (const std::exception& e) {
      message = e.what(), failed = true;
    }
    agree_on_failure(comm, failed ? &message : nullptr);
  } else {
    decltype(f()) result{};
    try {
      result = f();
    } catch (const std::exception& e) {
      message = e.what(), failed = true;
    }
    agree_on_failure(comm, failed ? &message : nullptr);
    return result;
  }
}

}  // namespace tcsim::dist
