// Adapters from an adder (with a simple chain) and from a unit model to a BlackBox.
#include <algorithm>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

#include "tcsim/models/unit.hpp"
#include "tcsim/validation/probe_blackbox.hpp"

namespace tcsim::validation {

BlackBox blackbox_from_adder(const AdderConfig& config, int fma_size, std::string name) {
  if (fma_size < 1)
    throw std::invalid_argument("fma_size = " + std::to_string(fma_size) + ": must be at least 1");
  if (!(config.a_format == config.b_format))
    throw std::invalid_argument("a_format (" + config.a_format.name + ") and b_format (" + config.b_format.name +
                                ") must be equal for a black box");
  if (!(config.c_format == config.out_format))
    throw std::invalid_argument("c_format (" + config.c_format.name + ") must equal out_format (" +
                                config.out_format.name + ") to chain block FMAs");
  auto adder = std::make_shared<const FixedPointAdder>(config);
  if (name.empty())
    name = "adder " + config.a_format.name + "->" + config.out_format.name + " (k=" + std::to_string(fma_size) +
           ", F=" + std::to_string(config.fraction_bits) + ")";
  const auto k = static_cast<std::size_t>(fma_size);
  BlackBox box;
  box.name = std::move(name);
  box.in = config.a_format;
  box.out = config.out_format;
  box.dot = [adder, k](std::span<const std::uint64_t> a, std::span<const std::uint64_t> b, std::uint64_t c) {
    if (a.size() != b.size())
      throw std::invalid_argument("a and b must have the same length, got " + std::to_string(a.size()) + " and " +
                                  std::to_string(b.size()));
    if (a.empty()) return adder->dot(a, b, c);
    std::uint64_t acc = c;
    for (std::size_t i = 0; i < a.size(); i += k) {
      const std::size_t n = std::min(k, a.size() - i);
      acc = adder->dot(a.subspan(i, n), b.subspan(i, n), acc);
    }
    return acc;
  };
  return box;
}

namespace {
BlackBox unit_box(const models::Unit& unit, std::shared_ptr<const models::Unit> keep, const Format& in,
                  const Format& out, std::string instruction) {
  (void)unit.datapath(in, out, instruction);  // throws when the pair is not served
  BlackBox box;
  box.name = unit.name() + " " + in.name + "->" + out.name + (instruction.empty() ? "" : " " + instruction);
  box.in = in;
  box.out = out;
  const models::Unit* u = &unit;
  box.dot = [u, keep, in, out, instruction](std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                                            std::uint64_t c) { return u->dot(in, out, a, b, c, instruction); };
  return box;
}
}  // namespace

BlackBox blackbox_from_unit(const models::Unit& unit, const Format& in, const Format& out, std::string instruction) {
  return unit_box(unit, nullptr, in, out, std::move(instruction));
}

BlackBox blackbox_from_unit(std::shared_ptr<const models::Unit> unit, const Format& in, const Format& out,
                            std::string instruction) {
  if (!unit) throw std::invalid_argument("unit: null");
  const models::Unit& ref = *unit;
  return unit_box(ref, std::move(unit), in, out, std::move(instruction));
}

}  // namespace tcsim::validation
