// Distributed GEMM and its exact errors (gemm.hpp): panels and blocks moved by MPI
// collectives, the unit GEMM of tcsim::models on each rank's block.
#include "tcsim/dist/gemm.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "gemm_impl.hpp"  // huge_vector (models/src)
#include "tcsim/dist/session.hpp"

namespace tcsim::dist {

namespace {

using models::gemm_detail::huge_vector;

// MPI counts and displacements are ints: a matrix of more entries cannot be one message.
void check_entries(std::size_t entries, const char* what) {
  if (entries > static_cast<std::size_t>(INT_MAX))
    throw std::invalid_argument(std::string(what) + " has " + std::to_string(entries) +
                                " entries; the distributed GEMM moves matrices of at most 2^31 - 1 entries");
}

// The grid's row and column communicators (freed with the object).
struct GridComms {
  MPI_Comm row = MPI_COMM_NULL, col = MPI_COMM_NULL;
  GridComms(MPI_Comm comm, int p, int q) {
    MPI_Comm_split(comm, p, q, &row);  // the ranks of grid row p, ordered by column
    MPI_Comm_split(comm, q, p, &col);  // the ranks of grid column q, ordered by row
  }
  ~GridComms() {
    MPI_Comm_free(&row);
    MPI_Comm_free(&col);
  }
  GridComms(const GridComms&) = delete;
  GridComms& operator=(const GridComms&) = delete;
};

int rank_of(MPI_Comm comm) {
  int r = 0;
  MPI_Comm_rank(comm, &r);
  return r;
}
int size_of(MPI_Comm comm) {
  int s = 1;
  MPI_Comm_size(comm, &s);
  return s;
}

// The collectives of the GEMM, counting this rank's payload bytes (GemmTraffic): received
// exactly; sent as if the root sent every part itself (a tree broadcast spreads the same
// total over more senders). A root's own part is not counted.
std::uint64_t type_bytes(MPI_Datatype t) {
  int bytes = 0;
  MPI_Type_size(t, &bytes);
  return static_cast<std::uint64_t>(bytes);
}

void scatterv(const void* send, const int* counts, const int* displs, MPI_Datatype t, void* recv, int recv_count,
              MPI_Comm comm, GemmTraffic& traffic) {
  const int rank = rank_of(comm), size = size_of(comm);
  if (rank == 0)
    for (int r = 1; r < size; ++r) traffic.sent += static_cast<std::uint64_t>(counts[r]) * type_bytes(t);
  else
    traffic.received += static_cast<std::uint64_t>(recv_count) * type_bytes(t);
  MPI_Scatterv(send, counts, displs, t, recv, recv_count, t, 0, comm);
}

void bcast(void* data, int count, MPI_Datatype t, MPI_Comm comm, GemmTraffic& traffic) {
  const int rank = rank_of(comm), size = size_of(comm);
  (rank == 0 ? traffic.sent : traffic.received) +=
      static_cast<std::uint64_t>(count) * type_bytes(t) * static_cast<std::uint64_t>(rank == 0 ? size - 1 : 1);
  MPI_Bcast(data, count, t, 0, comm);
}

void gatherv(const void* send, int send_count, MPI_Datatype t, void* recv, const int* counts, const int* displs,
             MPI_Comm comm, GemmTraffic& traffic) {
  const int rank = rank_of(comm), size = size_of(comm);
  if (rank == 0)
    for (int r = 1; r < size; ++r) traffic.received += static_cast<std::uint64_t>(counts[r]) * type_bytes(t);
  else
    traffic.sent += static_cast<std::uint64_t>(send_count) * type_bytes(t);
  MPI_Gatherv(send, send_count, t, recv, counts, displs, t, 0, comm);
}

}  // namespace

Grid choose_grid(int ranks, std::size_t m, std::size_t n) {
  int small = 1;
  for (int d = 1; d * d <= ranks; ++d)
    if (ranks % d == 0) small = d;
  const int large = ranks / small;
  return m >= n ? Grid{large, small} : Grid{small, large};
}

Range block_range(std::size_t n, int parts, int index) {
  const std::size_t base = n / static_cast<std::size_t>(parts), extra = n % static_cast<std::size_t>(parts);
  const auto i = static_cast<std::size_t>(index);
  return {i * base + std::min(i, extra), base + (i < extra ? 1 : 0)};
}

models::GemmResult gemm(MPI_Comm comm, Grid grid, const models::Unit& unit, const Format& in, const Format& out,
                        std::size_t m, std::size_t n, std::size_t k, std::span<const double> A,
                        std::span<const double> B, std::span<const double> C, const models::GemmOptions& options,
                        GemmTraffic* traffic) {
  GemmTraffic counted;
  GemmTraffic& t = traffic ? *traffic : counted;
  const int rank = rank_of(comm), size = size_of(comm);
  const int P = grid.rows, Q = grid.cols;
  // The same checks on every rank, before any collective.
  if (P < 1 || Q < 1 || P * Q != size)
    throw std::invalid_argument("the process grid " + std::to_string(P) + "x" + std::to_string(Q) + " has " +
                                std::to_string(P * Q) + " processes; the job has " + std::to_string(size));
  if (m == 0 || n == 0 || k == 0) throw std::invalid_argument("m, n and k must be at least 1");
  check_entries(m * k, "A");
  check_entries(k * n, "B");
  check_entries(m * n, "D");
  const int p = rank / Q, q = rank % Q;
  const GridComms comms(comm, p, q);
  const Range R = block_range(m, P, p), J = block_range(n, Q, q);
  auto count = [](std::size_t x) { return static_cast<int>(x); };

  int has_c = rank == 0 && !C.empty() ? 1 : 0;
  bcast(&has_c, 1, MPI_INT, comm, t);
  // Every buffer below is a huge_vector and rank 0 keeps its own parts in place (MPI_IN_PLACE,
  // spans into A, B and C): first-touch faults of 4 KiB pages cost about 0.1 s per 32 MB here,
  // and the copies they came with made one rank 1.3 s slower than simulate_gemm (docs/scale.md).
  // MPI's root of a scatter or a broadcast only reads its buffer (hence the const_casts).
  auto writable = [](std::span<const double> x) { return const_cast<double*>(x.data()); };

  // A's row panels: scattered down grid column 0, then broadcast along each grid row. Rank 0's
  // panel is the first rows of A.
  std::vector<double> Ap = rank == 0 ? std::vector<double>{} : huge_vector<double>(R.size * k);
  const std::span<const double> Apanel = rank == 0 ? A.first(R.size * k) : std::span<const double>(Ap);
  if (q == 0) {
    std::vector<int> counts(P), displs(P);
    for (int i = 0; i < P; ++i) {
      const Range r = block_range(m, P, i);
      counts[i] = count(r.size * k), displs[i] = count(r.begin * k);
    }
    scatterv(rank == 0 ? A.data() : nullptr, counts.data(), displs.data(), MPI_DOUBLE,
             rank == 0 ? MPI_IN_PLACE : Ap.data(), counts[p], comms.col, t);
  }
  bcast(writable(Apanel), count(Apanel.size()), MPI_DOUBLE, comms.row, t);

  // B's column panels (each packed k x its columns; with one grid column, B itself): scattered
  // along grid row 0, then broadcast down each grid column.
  std::vector<double> Bp = rank == 0 ? std::vector<double>{} : huge_vector<double>(k * J.size);
  std::vector<double> B_packed;
  if (rank == 0 && Q > 1) B_packed = huge_vector<double>(k * n);
  const std::span<const double> B_sent = Q > 1 ? std::span<const double>(B_packed) : B;
  const std::span<const double> Bpanel = rank == 0 ? B_sent.first(k * J.size) : std::span<const double>(Bp);
  if (p == 0) {
    std::vector<int> counts(Q), displs(Q);
    for (int j = 0; j < Q; ++j) {
      const Range c = block_range(n, Q, j);
      counts[j] = count(k * c.size), displs[j] = count(k * c.begin);
      if (rank == 0 && Q > 1)
        for (std::size_t t = 0; t < k; ++t)
          std::copy_n(B.data() + t * n + c.begin, c.size, B_packed.data() + k * c.begin + t * c.size);
    }
    scatterv(rank == 0 ? B_sent.data() : nullptr, counts.data(), displs.data(), MPI_DOUBLE,
             rank == 0 ? MPI_IN_PLACE : Bp.data(), counts[q], comms.row, t);
  }
  bcast(writable(Bpanel), count(Bpanel.size()), MPI_DOUBLE, comms.col, t);

  // Blocks of C and D, packed in rank order (with one grid column, the row-major order).
  std::vector<int> counts(size), displs(size);
  for (int r = 0, at = 0; r < size; ++r) {
    counts[r] = count(block_range(m, P, r / Q).size * block_range(n, Q, r % Q).size);
    displs[r] = at;
    at += counts[r];
  }
  auto for_each_block_entry = [&](auto&& f) {  // f(packed index, row-major index), rank 0
    for (int r = 0; r < size; ++r) {
      const Range rr = block_range(m, P, r / Q), cc = block_range(n, Q, r % Q);
      std::size_t at = static_cast<std::size_t>(displs[r]);
      for (std::size_t i = 0; i < rr.size; ++i)
        for (std::size_t j = 0; j < cc.size; ++j) f(at++, (rr.begin + i) * n + cc.begin + j);
    }
  };
  std::vector<double> Cb, C_packed;
  std::span<const double> Cblock;
  if (has_c) {
    if (rank == 0 && Q > 1) {
      C_packed = huge_vector<double>(m * n);
      for_each_block_entry([&](std::size_t b, std::size_t g) { C_packed[b] = C[g]; });
    }
    const std::span<const double> C_sent = Q > 1 ? std::span<const double>(C_packed) : C;
    if (rank != 0) Cb = huge_vector<double>(R.size * J.size);
    Cblock = rank == 0 ? C_sent.first(R.size * J.size) : std::span<const double>(Cb);
    scatterv(rank == 0 ? C_sent.data() : nullptr, counts.data(), displs.data(), MPI_DOUBLE,
             rank == 0 ? MPI_IN_PLACE : Cb.data(), counts[rank], comm, t);
  }

  // The unit GEMM on the block (rank 0's block is never empty: the first ranges are the longest).
  models::GemmResult local = collectively(comm, [&] {
    if (R.size == 0 || J.size == 0) return models::GemmResult{};
    return models::simulate_gemm(unit, in, out, R.size, J.size, k, Apanel, Bpanel, Cblock, options);
  });

  // D gathered on rank 0: straight into D with one grid column (one rank: D is rank 0's
  // block), else packed and then placed.
  models::GemmResult g;
  g.m = m, g.n = n, g.k = k;
  if (rank == 0) {
    g.storage = local.storage, g.variant = local.variant, g.path = local.path, g.unit_calls = local.unit_calls;
    if (size == 1) {
      g.D = std::move(local.D), g.bits = std::move(local.bits);
      return g;
    }
  }
  std::vector<double> D_packed;
  std::vector<std::uint64_t> bits_packed;
  if (rank == 0) {
    D_packed = huge_vector<double>(m * n);
    bits_packed = huge_vector<std::uint64_t>(m * n);
  }
  gatherv(local.D.data(), counts[rank], MPI_DOUBLE, D_packed.data(), counts.data(), displs.data(), comm, t);
  gatherv(local.bits.data(), counts[rank], MPI_UINT64_T, bits_packed.data(), counts.data(), displs.data(), comm, t);
  if (rank != 0) return g;
  if (Q == 1) {
    g.D = std::move(D_packed), g.bits = std::move(bits_packed);
    return g;
  }
  g.D = huge_vector<double>(m * n);
  g.bits = huge_vector<std::uint64_t>(m * n);
  for_each_block_entry([&](std::size_t b, std::size_t i) {
    g.D[i] = D_packed[b];
    g.bits[i] = bits_packed[b];
  });
  return g;
}

reference::GemmErrors gemm_errors(MPI_Comm comm, std::size_t m, std::size_t n, std::size_t k,
                                  std::span<const double> A, std::span<const double> B, std::span<const double> C,
                                  std::span<const double> D_hat, std::span<const std::size_t> rows, unsigned threads,
                                  GemmTraffic* traffic) {
  GemmTraffic counted;
  GemmTraffic& t = traffic ? *traffic : counted;
  const int rank = rank_of(comm), size = size_of(comm);
  check_entries(m * k, "A");
  check_entries(k * n, "B");
  check_entries(m * n, "D");
  int has_c = rank == 0 && !C.empty() ? 1 : 0;
  bcast(&has_c, 1, MPI_INT, comm, t);
  auto count = [](std::size_t x) { return static_cast<int>(x); };

  // Rank r checks part r of the row list: its rows of A, C and D^ packed, and all of B.
  const Range mine = block_range(rows.size(), size, rank);
  auto scatter_rows = [&](std::span<const double> M, std::size_t cols) {
    std::vector<int> counts(size), displs(size);
    std::vector<double> packed;
    if (rank == 0) packed.resize(rows.size() * cols);
    for (int r = 0; r < size; ++r) {
      const Range part = block_range(rows.size(), size, r);
      counts[r] = count(part.size * cols), displs[r] = count(part.begin * cols);
    }
    if (rank == 0)
      for (std::size_t s = 0; s < rows.size(); ++s) std::copy_n(M.data() + rows[s] * cols, cols, packed.data() + s * cols);
    std::vector<double> local(mine.size * cols);
    scatterv(packed.data(), counts.data(), displs.data(), MPI_DOUBLE, local.data(), counts[rank], comm, t);
    return local;
  };
  const std::vector<double> A_rows = scatter_rows(A, k), D_rows = scatter_rows(D_hat, n);
  const std::vector<double> C_rows = has_c ? scatter_rows(C, n) : std::vector<double>{};
  std::vector<double> B_all(k * n);
  if (rank == 0) std::copy(B.begin(), B.end(), B_all.begin());
  bcast(B_all.data(), count(B_all.size()), MPI_DOUBLE, comm, t);

  reference::GemmErrorMaxima x;
  if (mine.size > 0) x = reference::gemm_error_maxima(mine.size, n, k, A_rows, B_all, C_rows, D_rows, {}, threads);
  const double sent[2] = {x.componentwise, x.row_abs_sum};
  std::vector<double> all(rank == 0 ? 2 * static_cast<std::size_t>(size) : 0);
  const std::vector<int> twos(static_cast<std::size_t>(size), 2);
  std::vector<int> at(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) at[static_cast<std::size_t>(r)] = 2 * r;
  gatherv(sent, 2, MPI_DOUBLE, all.data(), twos.data(), at.data(), comm, t);

  reference::GemmErrors e;
  if (rank != 0) return e;
  double row_abs_sum = 0;
  for (int r = 0; r < size; ++r) {  // the same maxima as one process's fold over its rows
    e.componentwise = std::max(e.componentwise, all[2 * r]);
    row_abs_sum = std::max(row_abs_sum, all[2 * r + 1]);
  }
  e.normwise = reference::gemm_normwise(row_abs_sum, m, n, k, A, B, C);
  e.rows_checked = rows.size();
  e.sampled = rows.size() < m;
  return e;
}

}  // namespace tcsim::dist
