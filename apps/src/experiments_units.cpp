// units-gemm-accuracy (beyond the seeds): the same GEMM error experiment on every built-in
// unit's fp16 and fp8 (E4M3) datapaths with binary32 output, so that one plot shows how each
// generation's datapath (alignment bits F, block FMA size, rounding, the fp8 paths) changes
// GEMM accuracy.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "experiment.hpp"
#include "item_bytes.hpp"
#include "tcsim/models/gemm.hpp"
#include "tcsim/reference/gemm_error.hpp"
#include "tcsim/sim/codec.hpp"

namespace tcsim::cli::experiments {

namespace {

struct Path {
  const models::Unit* unit;
  std::string instruction, in, label;
  int fraction_bits, fma_size;
};

std::vector<Path> paths() {
  std::vector<Path> out;
  for (const std::string& name : {"v100", "t4", "a100", "l40s", "h100", "b200"}) {
    const models::Unit& u = models::builtin_unit(name);
    for (const auto& row : u.spec().datapaths) {
      if (row.block_scale || std::find(row.output_formats.begin(), row.output_formats.end(), "fp32") == row.output_formats.end())
        continue;
      for (const char* in : {"fp16", "e4m3"})
        if (std::find(row.input_formats.begin(), row.input_formats.end(), in) != row.input_formats.end())
          out.push_back({&u, row.instruction, in,
                         name + " " + in + (row.instruction.empty() ? "" : " " + row.instruction) + " (F " +
                             std::to_string(row.fraction_bits) + ", k " + std::to_string(row.fma_size) + ")",
                         row.fraction_bits, row.fma_size});
    }
  }
  return out;
}

// Values uniform in [0, 1] rounded to nearest into `f`: the inputs are exact, so the error is
// the datapath's alone.
std::vector<double> exact_inputs(const Format& f, std::size_t count, std::uint64_t seed, std::uint64_t stream) {
  std::vector<double> v = uniform_f32(count, 0, 1, seed, stream);
  for (double& x : v) x = to_double(decode(f, round_bits(decode(formats::fp64(), bits_of_double(x)), f, Rounding::NearestEven)));
  return v;
}

Result units_gemm_accuracy(const Context& c) {
  std::vector<std::size_t> sizes;
  for (std::size_t n = 256; n <= (c.quick ? 16384u : (1u << 20)); n *= 4) sizes.push_back(n);
  const std::vector<Path> ps = paths();
  std::vector<std::vector<double>> err(ps.size());
  // Point (size i, path p) is work item i P + p (spread over MPI ranks by tcsim experiment).
  const std::size_t total = sizes.size() * ps.size();
  const std::vector<std::string> results = run_items(c, total, [&](std::size_t item) {
    const std::size_t n = sizes[item / ps.size()], p = item % ps.size();
    if (c.progress) c.progress(ps[p].label + ", n = " + std::to_string(n), static_cast<double>(item) / static_cast<double>(total));
    const Format& in = parse_format(ps[p].in);
    const std::vector<double> A = exact_inputs(in, 8 * n, c.seed, 1), B = exact_inputs(in, n * 8, c.seed, 2);
    models::GemmOptions o;
    o.instruction = ps[p].instruction;
    o.threads = c.threads;
    const models::GemmResult r = models::simulate_gemm(*ps[p].unit, in, formats::fp32(), 8, 8, n, A, B, {}, o);
    ItemWriter bytes;
    bytes.put(reference::gemm_errors(8, 8, n, A, B, {}, r.D, {}, c.threads).componentwise);
    return bytes.take();
  });
  for (std::size_t item = 0; item < total; ++item) err[item % ps.size()].push_back(ItemReader(results[item]).get<double>());
  Result res;
  res.figure.title = "GEMM accuracy of every built-in unit's fp16 and fp8 datapaths (binary32 output, entries in [0, 1])";
  res.figure.xlabel = "n";
  res.figure.ylabel = "componentwise error max |C^ - C| / (|A||B|)";
  for (std::size_t p = 0; p < ps.size(); ++p) {
    Series s;
    s.label = ps[p].label;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      s.x.push_back(static_cast<double>(sizes[i]));
      s.y.push_back(err[p][i]);
    }
    res.figure.series.push_back(s);
  }
  const std::size_t last = sizes.size() - 1;
  auto find = [&](const std::string& unit, const std::string& in, const std::string& instruction) {
    for (std::size_t p = 0; p < ps.size(); ++p)
      if (ps[p].unit->name() == unit && ps[p].in == in && ps[p].instruction == instruction) return err[p][last];
    return 0.0;
  };
  const std::string at = " at n = " + std::to_string(sizes[last]);
  const double v100 = find("v100", "fp16", ""), h100 = find("h100", "fp16", "");
  res.checks.push_back(make_check("more alignment bits help: V100 (F 23) is less accurate than H100 (F 25) on fp16",
                                  v100 / h100, v100 > h100, "V100 / H100 fp16" + at));
  const double wgmma = find("h100", "e4m3", "wgmma"), mma = find("h100", "e4m3", "mma.sync");
  res.checks.push_back(make_check("Hopper's fp8 wgmma (13-bit accumulation) is far less accurate than fp8 mma.sync "
                                  "(emulated on the fp16 unit): 100x or more",
                                  wgmma / mma, wgmma >= 100 * mma, "H100 e4m3 wgmma / mma.sync" + at));
  const double tcgen = find("b200", "e4m3", "tcgen05"), b200 = find("b200", "fp16", "");
  res.checks.push_back(make_check("Blackwell's fp8 tcgen05 keeps 25 bits: no less accurate than its fp16 path (an e4m3 "
                                  "product has 8 significant bits, fp16's 22)",
                                  tcgen / b200, tcgen <= b200, "B200 e4m3 tcgen05 / fp16" + at));
  std::string table = "| datapath |";
  for (std::size_t n : sizes) table += " n = " + std::to_string(n) + " |";
  table += "\n|---|";
  for (std::size_t i = 0; i < sizes.size(); ++i) table += "---|";
  table += "\n";
  for (std::size_t p = 0; p < ps.size(); ++p) {
    table += "| " + ps[p].label + " |";
    for (double e : err[p]) table += " " + num(e) + " |";
    table += "\n";
  }
  res.paper = "Not a figure of the seed papers. The datapaths are the units' rows (docs/units.md): alignment to the "
              "largest term keeping F fraction bits, truncation, k products per block FMA; Hopper and Ada fp8 -> fp32 "
              "keep 13 fraction bits (units.md section 2), Hopper fp8 mma.sync is emulated on the fp16 unit.";
  res.simulated = "Componentwise errors against the exact product (inputs exact in their format):\n\n" + table;
  res.setting = "A (8 x n) and B (n x 8) with entries uniform in [0, 1] rounded to the input format, C = 0, binary32 "
                "output, seed " +
                std::to_string(c.seed) + ", n = 256 to " + std::to_string(sizes[last]) + " by factors of 4.";
  return res;
}

}  // namespace

void add_units_experiments(std::vector<Experiment>& out) {
  out.push_back({"units-gemm-accuracy", "GEMM accuracy across every built-in unit's fp16 and fp8 datapaths",
                 units_gemm_accuracy});
}

}  // namespace tcsim::cli::experiments
