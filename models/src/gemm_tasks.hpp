// What the tile GEMMs (unit_gemm.cpp, unit_gemm_scaled_tiles.cpp) share: the parallel loop over
// tasks of rows x column panels, and a task's accumulators.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <thread>
#include <vector>

#include <tbb/blocked_range2d.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

namespace tcsim::models::detail {

// body(i, p) for every task i < rows, p < panels, on `threads` threads (0: all cores). Tasks are
// independent, so the partition cannot change a bit.
template <class Body>
void run_tasks(unsigned threads, std::size_t rows, std::size_t panels, const Body& body) {
  auto loop = [&] {
    tbb::parallel_for(tbb::blocked_range2d<std::size_t>(0, rows, 0, panels), [&](const auto& r) {
      for (std::size_t i = r.rows().begin(); i < r.rows().end(); ++i)
        for (std::size_t p = r.cols().begin(); p < r.cols().end(); ++p) body(i, p);
    });
  };
  // All cores: the default arena (a task_arena of its own per call costs more than a small
  // GEMM). More threads than cores only make TBB complain; the bits do not depend on the count.
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  if (threads == 0 || threads >= cores) return loop();
  tbb::task_arena arena(static_cast<int>(threads));
  arena.execute(loop);
}

// Accumulators of a tile task: patterns and their decoded binary32 form.
struct TileState {
  std::vector<std::uint64_t> bits;
  std::vector<float> value;
  std::vector<std::int32_t> eref;
  void resize(std::size_t size) {  // grows once per thread; the contents are rewritten
    bits.resize(size);
    value.resize(size);
    eref.resize(size);
  }
};

}  // namespace tcsim::models::detail
