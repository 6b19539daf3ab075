// A black box for the feature probe and the fasi2021 suite: a multiply-accumulate unit
// seen only through d = dot(a, b, c) on bit patterns. Nothing else of the unit is visible.
//
// dot takes any number of products (a.size() == b.size(), 0 included); a and b are
// patterns of `in`, c and the result patterns of `out`. How the unit handles more
// products than one block FMA holds (chaining) is the unit's business: the probe
// discovers it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "tcsim/sim/adder.hpp"
#include "tcsim/sim/format.hpp"

namespace tcsim::models {
class Unit;
}

namespace tcsim::validation {

using DotFunction =
    std::function<std::uint64_t(std::span<const std::uint64_t>, std::span<const std::uint64_t>, std::uint64_t)>;

struct BlackBox {
  std::string name;  // for reports, e.g. "v100 fp16->fp32" or "adder(F=23, k=4)"
  Format in;         // format of a and b
  Format out;        // format of c and d
  DotFunction dot;   // must be thread-compatible with its own copies (called sequentially)

  std::uint64_t operator()(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                           std::uint64_t c) const {
    return dot(a, b, c);
  }
};

// One fixed-point adder used as a block FMA of `fma_size` products with the simple chain
// of units.md section 1 step 6: the products are cut into blocks of fma_size (the last one
// shorter), block i gets the rounded result of block i-1 as its c. With no product the
// adder runs once on c alone. The adder's a and b formats must be equal (the box's
// input format) and its c format must equal its output format. Throws
// std::invalid_argument otherwise or when fma_size < 1.
BlackBox blackbox_from_adder(const AdderConfig& config, int fma_size, std::string name = "");

// A built-in or user-defined unit for in -> out and an instruction ("" = the default
// datapath of the pair). The unit must outlive the box. Throws std::invalid_argument when
// the unit does not serve the pair (the unit's own message).
BlackBox blackbox_from_unit(const models::Unit& unit, const Format& in, const Format& out,
                            std::string instruction = "");
// The same, owning a user-defined unit.
BlackBox blackbox_from_unit(std::shared_ptr<const models::Unit> unit, const Format& in, const Format& out,
                            std::string instruction = "");

}  // namespace tcsim::validation
