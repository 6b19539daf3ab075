// Independent work items of a sweep or campaign (explore, monotonicity, bench verify,
// experiment) spread over the ranks of a communicator and gathered at rank 0 (docs/scale.md).
// The items are assigned by their index alone (item i on rank i mod P), so what an item
// computes, its seed included, never depends on the rank or on P; the results come back to
// rank 0 in item order, exactly as one process would have collected them.
#pragma once
#include <mpi.h>

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace tcsim::dist {

// Every rank runs part(rank, size) and returns its serialized result; every rank receives
// them all in rank order. An exception on any rank is thrown on
// every rank (collectively, session.hpp) before the gather. All results together must be under 2^31 bytes.
std::vector<std::string> gather_parts(MPI_Comm comm, const std::function<std::string(int part, int parts)>& part);

// Items 0 .. count-1, item i run as item(i) on rank i mod P, each returning its serialized
// result; every rank receives the count results in item order.
// `progress` (may be empty) is called on rank 0 after each of its items with an estimate of
// the items done over all ranks: rank 0's share scaled by P, at most count.
std::vector<std::string> map_items(MPI_Comm comm, std::size_t count, const std::function<std::string(std::size_t)>& item,
                                   const std::function<void(std::size_t done, std::size_t count)>& progress = {});

}  // namespace tcsim::dist
