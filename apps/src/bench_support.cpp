// What the benches share (bench_support.hpp).
#include "bench_support.hpp"

#include <algorithm>
#include <fstream>
#include <map>

#include "tcsim/sim/adder.hpp"
#include "tcsim/sim/codec.hpp"
#include "tcsim/sim/format.hpp"
#include "tcsim/sim/panel_cache.hpp"
#include "tcsim/sim/rounding.hpp"

namespace tcsim::cli {

std::string BenchRow::label() const {
  const std::string& instruction = instructions.front();
  return unit->name() + " " + in->name + "->" + out->name + (instruction.empty() ? "" : " " + instruction);
}

nlohmann::json BenchRow::json() const {
  nlohmann::json j;
  j["unit"] = unit->name();
  j["in"] = in->name;
  j["out"] = out->name;
  j["instruction"] = instructions.front();
  j["instructions"] = instructions;
  return j;
}

std::vector<BenchRow> builtin_bench_rows(const models::Unit* only) {
  std::vector<BenchRow> rows;
  for (const auto& spec : models::builtin_unit_specs()) {
    const models::Unit& u = models::builtin_unit(spec.name);
    if (only && only != &u) continue;
    for (const std::string& pair : u.format_pairs()) {
      const std::size_t arrow = pair.find("->");
      const Format& in = parse_format(pair.substr(0, arrow), "--in");
      const Format& out = parse_format(pair.substr(arrow + 2), "--out");
      std::vector<std::string> instructions = u.instructions(in, out);
      if (instructions.empty()) instructions.push_back("");
      std::map<std::size_t, std::size_t> by_datapath;  // datapath index -> position in rows
      for (const std::string& instruction : instructions) {
        const auto [it, fresh] = by_datapath.emplace(u.datapath_index(in, out, instruction), rows.size());
        if (fresh) rows.push_back({&u, &in, &out, {}});
        rows[it->second].instructions.push_back(instruction);
      }
    }
  }
  return rows;
}

std::string join_instructions(const std::vector<std::string>& instructions) {
  std::string s;
  for (const auto& x : instructions) s += (s.empty() ? "" : ", ") + (x.empty() ? std::string("(generic)") : x);
  return s;
}

std::uint64_t bench_random_value(const Format& f, std::uint64_t seed, std::uint64_t& index, int lo, int hi) {
  lo = std::max(lo, f.emin);
  hi = std::min(hi, f.emax);
  const int e = lo + static_cast<int>(counter_random(seed, index++) % static_cast<std::uint64_t>(hi - lo + 1));
  std::uint64_t frac = f.fraction_bits ? counter_random(seed, index++) & ((std::uint64_t{1} << f.fraction_bits) - 1) : 0;
  if (e == f.emax) frac = std::min<std::uint64_t>(frac, f.max_finite_significand() - (std::uint64_t{1} << f.fraction_bits));
  const std::uint64_t sign = (counter_random(seed, index++) & 1) ? f.sign_mask() : 0;
  return sign | (static_cast<std::uint64_t>(e + f.bias) << f.fraction_bits) | frac;
}

std::uint64_t bench_uniform_value(const Format& f, std::uint64_t random) {
  const double x = static_cast<double>(random >> 11) * 0x1p-52 - 1.0;
  return round_bits(decode(formats::fp64(), bits_of_double(x)), f, Rounding::NearestEven);
}

Planar16 product_major16(const std::uint64_t* x, std::size_t n, std::size_t K) {
  Planar16 t(n * K);
  for (std::size_t s = 0; s < K; ++s)
    for (std::size_t e = 0; e < n; ++e) t[s * n + e] = static_cast<std::uint16_t>(x[e * K + s]);
  return t;
}

namespace {

template <class T>
std::vector<T> values_of(const Format& f, const std::vector<std::uint64_t>& bits) {
  std::vector<T> r(bits.size());
  for (std::size_t i = 0; i < bits.size(); ++i) r[i] = static_cast<T>(to_double(decode(f, bits[i])));
  return r;
}

}  // namespace

NativeGemm native_baseline(const Format& in, const Format& out, bool binary64, std::size_t n, std::size_t k,
                           const std::vector<std::uint64_t>& A, const std::vector<std::uint64_t>& B,
                           const std::vector<std::uint64_t>& C, unsigned threads) {
  const int t = static_cast<int>(threads);
  if (binary64) {
    const auto Ad = values_of<double>(in, A), Bd = values_of<double>(in, B), Cd = values_of<double>(out, C);
    return native_gemm(n, n, k, Ad.data(), Bd.data(), Cd.data(), 3, t);
  }
  const auto Af = values_of<float>(in, A), Bf = values_of<float>(in, B), Cf = values_of<float>(out, C);
  return native_gemm(n, n, k, Af.data(), Bf.data(), Cf.data(), 3, t);
}

std::size_t status_field_bytes(const char* field) {
  std::ifstream f("/proc/self/status");
  std::string key;
  while (f >> key) {
    if (key == std::string(field) + ":") {
      std::size_t kb = 0;
      f >> kb;
      return kb * 1024;
    }
    std::string rest;
    std::getline(f, rest);
  }
  return 0;
}

void reset_peak_resident() {
  // The planes earlier GEMMs left in this thread's cache (tcsim/sim/panel_cache.hpp) go first:
  // resident before, and taken again, they would hide the next GEMM's planes from its peak.
  PanelCache::of_this_thread().release();
  std::ofstream("/proc/self/clear_refs") << "5";
}

std::string load_average_text() {
  std::ifstream f("/proc/loadavg");
  std::string a, b, c;
  if (!(f >> a >> b >> c)) return "";
  return a + " " + b + " " + c;
}

}  // namespace tcsim::cli
