// Loading a dump set and running it through a unit (see dump_validate.hpp).
#include "tcsim/validation/dump_validate.hpp"

#include <sstream>
#include <stdexcept>

#include "tcsim/sim/codec.hpp"
#include "tcsim/sim/exact.hpp"

namespace tcsim::validation {

namespace {

std::string value_text(const Format& fmt, std::uint64_t bits) {
  return bits_to_hex(fmt, bits) + " (" + decode(fmt, bits).to_hex() + ")";
}

}  // namespace

DumpSet load_dump(const DumpPaths& paths, const Format& in, const Format& out,
                  AccumulatorInput c_input) {
  return load_dump(paths, in, in, out, c_input);
}

DumpSet load_dump(const DumpPaths& paths, const Format& in, const Format& in_b, const Format& out,
                  AccumulatorInput c_input) {
  DumpSet s;
  s.in = in;
  s.in_b = in_b;
  s.out = out;
  s.paths = paths;
  const OperandData a = read_operand_file(paths.a, in);
  const OperandData b = read_operand_file(paths.b, in_b);
  if (a.k != b.k)
    throw std::invalid_argument(paths.b + ":1: holds " + std::to_string(b.k) + " values per line, but " +
                                paths.a + " holds " + std::to_string(a.k) + " (K must agree)");
  if (a.cases != b.cases)
    throw std::invalid_argument(paths.b + ": has " + std::to_string(b.cases) + " cases, but " + paths.a +
                                " has " + std::to_string(a.cases));
  const ScalarData d = read_binary32_file(paths.d);
  if (d.binary32.size() != a.cases)
    throw std::invalid_argument(paths.d + ": has " + std::to_string(d.binary32.size()) + " cases, but " +
                                paths.a + " has " + std::to_string(a.cases));
  s.k = a.k;
  s.n = a.cases;
  s.a = a.values;
  s.b = b.values;
  s.d.reserve(s.n);
  for (std::size_t i = 0; i < s.n; ++i)
    s.d.push_back(binary32_to_format_exact(d.binary32[i], out, paths.d, i + 1));
  if (c_input == AccumulatorInput::Zero) {
    s.c_binary32.assign(s.n, 0);
    s.c.assign(s.n, out.zero(false));
  } else {
    const ScalarData c = read_binary32_file(paths.c);
    if (c.binary32.size() != s.n)
      throw std::invalid_argument(paths.c + ": has " + std::to_string(c.binary32.size()) +
                                  " cases, but " + paths.a + " has " + std::to_string(s.n));
    s.c_binary32 = c.binary32;
    s.c.reserve(s.n);
    // binary32 output: c exactly; narrower output (binary16): rounded to nearest even, as
    // the GPU runs converted c before the multiply-accumulate.
    const bool exact = out == formats::fp32();
    for (std::size_t i = 0; i < s.n; ++i)
      s.c.push_back(exact ? binary32_to_format_exact(c.binary32[i], out, paths.c, i + 1)
                          : binary32_to_format_rounded(c.binary32[i], out, Rounding::NearestEven));
  }
  return s;
}

bool same_result(const Format& fmt, std::uint64_t x, std::uint64_t y) {
  if (x == y) return true;
  return classify(fmt, x) == FpClass::NaN && classify(fmt, y) == FpClass::NaN;
}

ValidationResult validate_dump(const DumpSet& dump, const DotFunction& unit, std::size_t max_report,
                               bool keep_per_case) {
  ValidationResult r;
  r.cases = dump.n;
  if (keep_per_case) r.matched.assign(dump.n, true);
  for (std::size_t i = 0; i < dump.n; ++i) {
    std::span<const std::uint64_t> a(dump.a.data() + i * dump.k, dump.k);
    std::span<const std::uint64_t> b(dump.b.data() + i * dump.k, dump.k);
    const std::uint64_t got = unit(a, b, dump.c[i]);
    if (same_result(dump.out, got, dump.d[i])) continue;
    ++r.mismatches;
    if (keep_per_case) r.matched[i] = false;
    if (r.first.size() < max_report) r.first.push_back({i, dump.d[i], got});
  }
  return r;
}

std::string describe_mismatch(const DumpSet& dump, const Mismatch& m) {
  std::ostringstream s;
  s << "case " << m.index + 1 << " (line " << m.index + 1 << "):\n";
  s << "  a =";
  for (std::size_t j = 0; j < dump.k; ++j) s << ' ' << bits_to_hex(dump.in, dump.a[m.index * dump.k + j]);
  s << "\n  b =";
  for (std::size_t j = 0; j < dump.k; ++j) s << ' ' << bits_to_hex(dump.b_format(), dump.b[m.index * dump.k + j]);
  s << "\n  a values =";
  for (std::size_t j = 0; j < dump.k; ++j) s << ' ' << decode(dump.in, dump.a[m.index * dump.k + j]).to_hex();
  s << "\n  b values =";
  for (std::size_t j = 0; j < dump.k; ++j) s << ' ' << decode(dump.b_format(), dump.b[m.index * dump.k + j]).to_hex();
  s << "\n  c = " << value_text(dump.out, dump.c[m.index]);
  if (!(dump.out == formats::fp32()))
    s << " [file: " << value_text(formats::fp32(), dump.c_binary32[m.index]) << "]";
  s << "\n  d (GPU)   = " << value_text(dump.out, m.expected);
  s << "\n  d (model) = " << value_text(dump.out, m.got) << '\n';
  return s.str();
}

std::string summary_line(const ValidationResult& r) {
  return std::to_string(r.cases) + " cases, " + std::to_string(r.mismatches) + " mismatches";
}

}  // namespace tcsim::validation
