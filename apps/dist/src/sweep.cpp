// gather_parts and map_items (sweep.hpp).
#include "tcsim/dist/sweep.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>

#include "tcsim/dist/session.hpp"

namespace tcsim::dist {

std::vector<std::string> gather_parts(MPI_Comm comm, const std::function<std::string(int, int)>& part) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const std::string mine = collectively(comm, [&] {
    std::string s = part(rank, size);
    if (s.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()))
      throw std::invalid_argument("a rank's results take " + std::to_string(s.size()) +
                                  " bytes; MPI gathers less than 2^31 (use fewer items per run)");
    return s;
  });
  int length = static_cast<int>(mine.size());
  std::vector<int> lengths(static_cast<std::size_t>(size)), offsets(lengths.size());
  MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, comm);
  std::int64_t total = 0;
  for (std::size_t r = 0; r < lengths.size(); ++r) {
    offsets[r] = static_cast<int>(total);
    total += lengths[r];
  }
  // The same sum on every rank: all refuse together.
  if (total > std::numeric_limits<int>::max())
    throw std::invalid_argument("the ranks' results take " + std::to_string(total) +
                                " bytes; MPI gathers less than 2^31 (use fewer items per run)");
  std::string all(static_cast<std::size_t>(total), '\0');
  MPI_Allgatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, comm);
  std::vector<std::string> out;
  for (std::size_t r = 0; r < lengths.size(); ++r)
    out.push_back(all.substr(static_cast<std::size_t>(offsets[r]), static_cast<std::size_t>(lengths[r])));
  return out;
}

namespace {

// Results of one rank's items as <8-byte length><bytes> records, in its item order.
void put_record(std::string& to, const std::string& s) {
  const std::uint64_t n = s.size();
  to.append(reinterpret_cast<const char*>(&n), sizeof n);
  to += s;
}

}  // namespace

std::vector<std::string> map_items(MPI_Comm comm, std::size_t count, const std::function<std::string(std::size_t)>& item,
                                   const std::function<void(std::size_t, std::size_t)>& progress) {
  const std::vector<std::string> parts = gather_parts(comm, [&](int part, int parts) {
    std::string records;
    std::size_t done = 0;
    for (std::size_t i = static_cast<std::size_t>(part); i < count; i += static_cast<std::size_t>(parts)) {
      put_record(records, item(i));
      ++done;
      if (part == 0 && progress) progress(std::min(count, done * static_cast<std::size_t>(parts)), count);
    }
    return records;
  });
  // Item i is the (i / P)-th record of rank i mod P.
  const std::size_t P = parts.size();
  std::vector<std::size_t> at(P, 0);
  std::vector<std::string> out(count);
  for (std::size_t i = 0; i < count; ++i) {
    const std::string& from = parts[i % P];
    std::uint64_t n = 0;
    from.copy(reinterpret_cast<char*>(&n), sizeof n, at[i % P]);
    out[i] = from.substr(at[i % P] + sizeof n, n);
    at[i % P] += sizeof n + n;
  }
  return out;
}

}  // namespace tcsim::dist
