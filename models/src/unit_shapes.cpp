// Instruction shapes: parsing shape patterns, the shapes a unit offers, mma() on one shape.
#include <cctype>
#include <stdexcept>

#include "unit_impl.hpp"

namespace tcsim::models {

using detail::join;
using detail::push_unique;

namespace {

int parse_int(std::string_view s, std::size_t& pos) {
  std::size_t start = pos;
  int v = 0;
  while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos]))) {
    v = v * 10 + (s[pos] - '0');
    if (v > 1000000) return -1;
    ++pos;
  }
  return pos == start ? -1 : v;
}


}  // namespace

// ------------------------------------------------------------------ shapes

std::string MmaShape::name() const {
  std::string mnk = "m" + std::to_string(m) + "n" + std::to_string(n) + "k" + std::to_string(k);
  return instruction.empty() ? mnk : instruction + "." + mnk;
}

bool ShapePattern::matches(int m_, int n_, int k_) const {
  if (m_ != m || k_ != k) return false;
  if (n != 0) return n_ == n;
  return n_ >= n_step && n_ <= n_max && n_ % n_step == 0;
}

ShapePattern parse_shape_pattern(std::string_view text, std::string_view field) {
  auto fail = [&]() -> ShapePattern {
    throw std::invalid_argument(std::string(field) + ": '" + std::string(text) +
                                "' is not a shape; allowed: [<instruction>.]m<M>n<N>k<K>[b<blocks>][:<input formats>|:<a>*<b>] with N a "
                                "number, 'N' (8, 16, ..., 256) or 'N16' (16, 32, ..., 256), e.g. "
                                "mma.sync.m16n8k16, wgmma.m64nNk16");
  };
  ShapePattern p;
  p.text = std::string(text);
  // ":<in>,...": the input formats the instruction's name fixes (checked by Unit).
  std::string_view body = text;
  if (const auto colon = body.find(':'); colon != std::string_view::npos) {
    std::string_view list = body.substr(colon + 1);
    body = body.substr(0, colon);
    if (const auto star = list.find('*'); star != std::string_view::npos) {  // ":<a>*<b>": one pair
      const std::string_view a = list.substr(0, star), b = list.substr(star + 1);
      if (a.empty() || b.empty() || a.find(',') != std::string_view::npos || b.find_first_of(",*") != std::string_view::npos)
        return fail();
      p.input_formats.emplace_back(a);
      p.input_formats_b.emplace_back(b);
    } else {
      while (true) {
        const auto comma = list.find(',');
        const std::string_view name = list.substr(0, comma);
        if (name.empty()) return fail();
        p.input_formats.emplace_back(name);
        if (comma == std::string_view::npos) break;
        list = list.substr(comma + 1);
      }
    }
  }
  const auto dot = body.rfind('.');
  std::string_view mnk = body;
  if (dot != std::string_view::npos) {
    p.instruction = std::string(body.substr(0, dot));
    mnk = body.substr(dot + 1);
    if (p.instruction.empty()) return fail();
  }
  std::size_t pos = 0;
  if (pos >= mnk.size() || mnk[pos] != 'm') return fail();
  ++pos;
  p.m = parse_int(mnk, pos);
  if (p.m <= 0 || pos >= mnk.size() || mnk[pos] != 'n') return fail();
  ++pos;
  if (pos < mnk.size() && mnk[pos] == 'N') {
    ++pos;
    p.n_step = 8;
    if (pos < mnk.size() && std::isdigit(static_cast<unsigned char>(mnk[pos]))) p.n_step = parse_int(mnk, pos);
    if (p.n_step <= 0) return fail();
    p.n_max = 256;
  } else {
    p.n = parse_int(mnk, pos);
    if (p.n <= 0) return fail();
  }
  if (pos >= mnk.size() || mnk[pos] != 'k') return fail();
  ++pos;
  p.k = parse_int(mnk, pos);
  if (p.k <= 0) return fail();
  if (pos < mnk.size() && mnk[pos] == 'b') {  // "b<B>": B independent blocks
    ++pos;
    p.blocks = parse_int(mnk, pos);
    if (p.blocks <= 0) return fail();
  }
  if (pos != mnk.size()) return fail();
  return p;
}

std::vector<std::string> Unit::shapes(const Format& in, const Format& out, std::string_view instruction) const {
  std::vector<std::string> v;
  for (std::size_t i = 0; i < impl_->rows.size(); ++i) {
    const auto& r = impl_->rows[i];
    if (!r.has(in, out)) continue;
    for (const auto& p : r.shapes) {
      const std::string& pi = p.instruction.empty() ? spec_.datapaths[i].instruction : p.instruction;
      if (!detail::shape_serves(p, in)) continue;
      if (!instruction.empty() && pi != instruction && spec_.datapaths[i].instruction != instruction) continue;
      push_unique(v, p.text);
    }
  }
  return v;
}

MmaShape Unit::resolve_shape(const Format& in, const Format& out, std::string_view shape,
                             std::string_view instruction) const {
  const ShapePattern want = parse_shape_pattern(shape, "shape");
  if (want.n == 0) throw std::invalid_argument("shape: '" + std::string(shape) + "' must give N as a number");
  if (!want.instruction.empty() && !instruction.empty() && want.instruction != instruction)
    throw std::invalid_argument("shape '" + std::string(shape) + "' names instruction '" + want.instruction +
                                "' but instruction '" + std::string(instruction) + "' was asked for");
  const std::string_view instr = want.instruction.empty() ? instruction : std::string_view(want.instruction);
  (void)datapath_index(in, out);  // unsupported pair: the format error first
  for (std::size_t i = 0; i < impl_->rows.size(); ++i) {
    const auto& r = impl_->rows[i];
    if (!r.has(in, out)) continue;
    const auto& row = spec_.datapaths[i];
    for (const auto& p : r.shapes) {
      const std::string& pi = p.instruction.empty() ? row.instruction : p.instruction;
      if (!detail::shape_serves(p, in)) continue;
      if (!instr.empty() && pi != instr && row.instruction != instr) continue;
      if (p.matches(want.m, want.n, want.k)) return MmaShape{pi, want.m, want.n, want.k, p.blocks};
    }
  }
  const auto list = shapes(in, out, instr);
  throw std::invalid_argument("unit '" + spec_.name + "' has no shape " + std::string(shape) + " for " + in.name +
                              " -> " + out.name + (instr.empty() ? "" : " (instruction '" + std::string(instr) + "')") +
                              "; shapes: " + (list.empty() ? std::string("(none)") : join(list)));
}

std::vector<std::uint64_t> Unit::mma(const Format& in, const Format& out, std::string_view shape,
                                     std::span<const std::uint64_t> A, std::span<const std::uint64_t> B,
                                     std::span<const std::uint64_t> C, std::string_view instruction) const {
  const MmaShape s = resolve_shape(in, out, shape, instruction);
  // The row serving the shape: the one resolve_shape found (same search).
  std::size_t row_index = impl_->rows.size();
  for (std::size_t i = 0; i < impl_->rows.size() && row_index == impl_->rows.size(); ++i) {
    const auto& r = impl_->rows[i];
    if (!r.has(in, out)) continue;
    for (const auto& p : r.shapes) {
      const std::string& pi = p.instruction.empty() ? spec_.datapaths[i].instruction : p.instruction;
      if (pi == s.instruction && detail::shape_serves(p, in) && p.matches(s.m, s.n, s.k)) {
        row_index = i;
        break;
      }
    }
  }
  const auto M = static_cast<std::size_t>(s.m), N = static_cast<std::size_t>(s.n), K = static_cast<std::size_t>(s.k);
  auto check = [&](const char* what, std::size_t got, std::size_t want, const char* dims) {
    if (got != want)
      throw std::invalid_argument(std::string(what) + " of " + s.name() + " must hold " + dims + " = " +
                                  std::to_string(want) + " elements, got " + std::to_string(got));
  };
  check("A", A.size(), M * K, "M*K");
  check("B", B.size(), K * N, "K*N");
  check("C", C.size(), M * N, "M*N");
  std::vector<std::uint64_t> D(M * N), col(K);
  for (std::size_t j = 0; j < N; ++j) {
    for (std::size_t t = 0; t < K; ++t) col[t] = B[t * N + j];
    for (std::size_t i = 0; i < M; ++i) D[i * N + j] = dot_in_row(row_index, in, out, A.subspan(i * K, K), col, C[i * N + j]);
  }
  return D;
}


}  // namespace tcsim::models
