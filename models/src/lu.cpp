// simulate_lu (lu.hpp): the LU algorithms of blanchard2020 and lopez2022 as one engine.
//
// Every algorithm factorizes "crosses": the cross (c0, c1) is the block column of L, rows
// c0..n and columns c0..c1, and the block row of U, rows c0..c1 and columns c1..u_end; the
// entries in it have received every update from the columns left of c0. A scheme says how a
// cross is factorized: unblocked in one precision, right-looking in blocks (lopez2022
// Algorithm 3.1, which with u_end = n is also PanelFactor's "stop the main loop at r/s"), or
// left-looking in blocks with fp32 buffers (Algorithms 4.1, 5.1 and, with a partitioned
// scheme as its panel, 5.2). The whole matrix is the cross (0, n) with u_end = n.
#include "tcsim/models/lu.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <numeric>
#include <utility>

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

#include "lu_steps.hpp"
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

namespace tcsim::models {

using lu_detail::Precision;
using lu_detail::at;
using lu_detail::axpy_rounded;
using lu_detail::number;
using lu_detail::Failure;
using lu_detail::Firsts;
using lu_detail::Scheme;
using lu_detail::Update;

namespace {

constexpr Precision kFp16{16}, kFp32{32};


// row[c] <- fl32(row[c] - fl32(l * prow[c])) for c in [c0, c1): axpy_rounded for fp32, built
// for the wider SIMD units too (the same operations element by element; no fused multiply-add,
// the file is compiled with -ffp-contract=off).
#if defined(__x86_64__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
void axpy32(double* __restrict row, const double* __restrict prow, double l, std::size_t c0, std::size_t c1) {
  for (std::size_t c = c0; c < c1; ++c)
    row[c] = static_cast<double>(static_cast<float>(row[c] - static_cast<double>(static_cast<float>(l * prow[c]))));
}

// x[c] (negated: -x[c]) as binary16 patterns (RNE, subnormals kept) for c < count: the F16C conversion
// of the binary32 value where the result is a normal binary16 number or zero (one correct
// rounding, as the Converter's), the Converter `conv` everywhere else.
#if defined(__x86_64__)
__attribute__((target("f16c"))) void fp16_patterns_f16c(const double* x, std::size_t count, bool negate,
                                                       std::uint64_t* out, const Converter& conv) {
  for (std::size_t c = 0; c < count; ++c) {
    const double v = negate ? -x[c] : x[c], av = std::fabs(v);
    const float v32 = static_cast<float>(v);
    const bool plain = static_cast<double>(v32) == v && ((av >= 0x1p-14 && av <= 65504.0) || v == 0);
    out[c] = plain ? static_cast<std::uint16_t>(_cvtss_sh(v32, 0)) : conv(v);
  }
}
// F16C (CPUID.1:ECX bit 29) with the OS saving the AVX state (OSXSAVE, AVX, XCR0 bits 1 and 2):
// through CPUID, as clang 14's __builtin_cpu_supports does not know "f16c".
bool cpu_has_f16c() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return false;
  constexpr unsigned kOsxsave = 1u << 27, kAvx = 1u << 28, kF16c = 1u << 29;
  if ((c & (kOsxsave | kAvx | kF16c)) != (kOsxsave | kAvx | kF16c)) return false;
  unsigned lo = 0, hi = 0;
  __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (lo & 6u) == 6u;
}
#else
bool cpu_has_f16c() { return false; }
#endif
void fp16_patterns(bool f16c, const double* x, std::size_t count, bool negate, std::uint64_t* out, const Converter& conv) {
#if defined(__x86_64__)
  if (f16c) return fp16_patterns_f16c(x, count, negate, out, conv);
#endif
  for (std::size_t c = 0; c < count; ++c) out[c] = conv(negate ? -x[c] : x[c]);
}

// Whether v[0..count) are all finite.
bool all_finite(const double* v, std::size_t count) {
  bool ok = true;
  for (std::size_t c = 0; c < count; ++c) ok &= std::isfinite(v[c]);
  return ok;
}

class Engine {
 public:
  Engine(const Unit& unit, const Format& in, std::size_t n, std::size_t r, bool pivot, bool cont, const GemmOptions& g,
         LuResult& res, std::function<void(double)> progress)
      : unit_(unit), in_(in), n_(n), r_(r), pivot_(pivot), cont_(cont), g_(g), res_(res), a_(res.LU),
        progress_(std::move(progress)) {
    if (g.threads > 1) arena_.emplace(static_cast<int>(g.threads));
  }

  // The passes of lu_detail::factor_cross (lu_steps.hpp).
  void step_done(std::size_t k1) {
    if (progress_) progress_(static_cast<double>(k1) / static_cast<double>(n_));
  }

  // Every entry rounded to p (the storage format at the start, or a conversion).
  void convert(Precision p, std::size_t r0, std::size_t r1, std::size_t c0, std::size_t c1, std::size_t step) {
    if (r0 >= r1 || c0 >= c1) return;
    const Firsts fs = parallel_first(r1 - r0, grain_for(c1 - c0), [&](std::size_t b, std::size_t e) {
      Firsts first;
      for (std::size_t i = r0 + b; i < r0 + e; ++i)
        for (std::size_t c = c0; c < c1; ++c) {
          double& x = a_[i * n_ + c];
          const double v = p(x);
          if (!std::isfinite(v)) first.note({i, c, c, x, v});
          x = v;
        }
      return first;
    });
    if (!fs.found()) return;
    if (!cont_) breakdown(step, lu_detail::convert_failure_text(fs.first(), p));
    record(fs, step, lu_detail::convert_where(p), false);
  }

 private:
  // body(b, e) -> Failure over [0, count) in chunks of at least `grain` on the run's threads
  // (the chunks write disjoint entries: the bits do not depend on the split); the earliest
  // failure of all chunks.
  template <class Body>
  Firsts parallel_first(std::size_t count, std::size_t grain, const Body& body) {
    if (count == 0) return {};
    if (g_.threads == 1 || count <= grain) return body(std::size_t{0}, count);
    Firsts first;
    std::mutex m;
    auto loop = [&] {
      tbb::parallel_for(tbb::blocked_range<std::size_t>(0, count, grain), [&](const tbb::blocked_range<std::size_t>& r) {
        const Firsts f = body(r.begin(), r.end());
        if (!f.found()) return;
        std::lock_guard<std::mutex> lock(m);
        first.merge(f);
      });
    };
    if (arena_) arena_->execute(loop);
    else loop();  // all cores: TBB's default arena (an arena per call costs more than small passes)
    return first;
  }
  static std::size_t grain_for(std::size_t width) { return std::max<std::size_t>(8, 32768 / std::max<std::size_t>(1, width)); }

  [[noreturn]] void breakdown(std::size_t step, const std::string& what) const {
    throw LuBreakdown(lu_detail::breakdown_message(step, r_, what));
  }
  void not_finite(std::size_t step, std::size_t i, std::size_t c, double v, Precision p) const {
    breakdown(step, lu_detail::not_finite_text(i, c, v, p));
  }
  void record(const Firsts& fs, std::size_t step, const std::string& where, bool inner_column) {
    lu_detail::record_events(res_.events, fs, step, r_, where, inner_column);
  }

 public:

  // Columns k0..k1 of rows k0..n, right-looking, every operation rounded to p (the panel of
  // Algorithm 3.1 line 4 and 6, or a PanelFactor's inner panel): L's multipliers and U's
  // entries of the diagonal block.
  void eliminate(Precision p, std::size_t k0, std::size_t k1) {
    if (!pivot_ && p.bits == 32 && eliminate_by_rows(k0, k1)) return;
    std::vector<double>& a = a_;
    const std::size_t n = n_;
    for (std::size_t j = k0; j < k1; ++j) {
      if (pivot_) {
        std::size_t q = j;
        for (std::size_t i = j + 1; i < n; ++i)
          if (std::fabs(a[i * n + j]) > std::fabs(a[q * n + j])) q = i;
        if (q != j) {
          std::swap_ranges(a.begin() + static_cast<std::ptrdiff_t>(j * n), a.begin() + static_cast<std::ptrdiff_t>(j * n + n),
                           a.begin() + static_cast<std::ptrdiff_t>(q * n));
          std::swap(res_.perm[j], res_.perm[q]);
        }
      }
      const double piv = a[j * n + j];
      if (!(std::fabs(piv) >= p.min_normal()) || !std::isfinite(piv)) {
        if (!cont_)
          breakdown(j, lu_detail::pivot_problem(j, piv, p, pivot_));
        // Continue: the division below does what IEEE does (a non-finite pivot is already an
        // overflow or NaN event where it appeared).
        LuEvent& ev = piv == 0 ? res_.events.zero_pivot : res_.events.subnormal_pivot;
        if (std::isfinite(piv) && !ev.found) ev = {true, j + 1, j / r_ + 1, j, j, piv, "the pivot"};
      }
      const Firsts fs = parallel_first(n - j - 1, grain_for(k1 - j), [&](std::size_t b, std::size_t e) {
        Firsts first;
        const double* prow = &a[j * n];
        for (std::size_t i = j + 1 + b; i < j + 1 + e; ++i) {
          lu_detail::eliminate_row(p, &a[i * n + j], prow + j, piv, k1 - j,
                                   [&](std::size_t c, double v) { first.note({i, j + c, 0, v, v}); });
          if (!cont_ && first.found()) break;  // stop: the rest is not needed
        }
        return first;
      });
      if (!fs.found()) continue;
      if (!cont_) not_finite(j, fs.first().outer, fs.first().inner, fs.first().value, p);
      record(fs, j, "the elimination", false);
    }
  }

  // eliminate() in fp32 without pivoting, row by row: the diagonal block's rows first (the
  // pivot rows), then each row below through every column of the block while it is in cache.
  // An entry sees the same operations in the same order as in the column-by-column loop. Any
  // pivot outside the normal range or any non-finite value: the panel is restored and false
  // is returned (the column loop then finds the first failure in its order and its message).
  bool eliminate_by_rows(std::size_t k0, std::size_t k1) {
    std::vector<double>& a = a_;
    const std::size_t n = n_, kb = k1 - k0, rows = n - k0;
    if (backup_.size() < rows * kb) backup_.resize(rows * kb);
    for (std::size_t i = 0; i < rows; ++i) std::copy_n(&a[(k0 + i) * n + k0], kb, &backup_[i * kb]);
    auto restore = [&] {
      for (std::size_t i = 0; i < rows; ++i) std::copy_n(&backup_[i * kb], kb, &a[(k0 + i) * n + k0]);
      return false;
    };
    // One row i through columns k0..min(i, k1) (the pivot rows done before it).
    auto row_pass = [&](std::size_t i) {
      double* row = &a[i * n];
      for (std::size_t j = k0; j < std::min(i, k1); ++j) {
        const double* prow = &a[j * n];
        row[j] = static_cast<double>(static_cast<float>(row[j] / prow[j]));
        axpy32(row, prow, row[j], j + 1, k1);
      }
    };
    for (std::size_t j = k0; j < k1; ++j) {
      const double piv = a[j * n + j];
      if (!(std::fabs(piv) >= 0x1p-126) || !std::isfinite(piv)) return restore();
      if (j + 1 == k1) break;
      row_pass(j + 1);  // row j+1 of the diagonal block, through columns k0..j
      if (!all_finite(&a[(j + 1) * n + k0], kb)) return restore();
    }
    const Firsts fs = parallel_first(n - k1, grain_for(kb * kb / 8 + 1), [&](std::size_t b, std::size_t e) {
      Firsts first;
      for (std::size_t i = k1 + b; i < k1 + e; ++i) {
        row_pass(i);
        if (!all_finite(&a[i * n + k0], kb)) {
          first.note({i, k0, 0, 0, 0});
          break;
        }
      }
      return first;
    });
    return fs.found() ? restore() : true;
  }

  // U's block row: L_kk U_ki = A_ki for columns u0..u1 by forward substitution (unit
  // diagonal), each entry's products subtracted in column order.
  void solve_u(Precision p, std::size_t k0, std::size_t k1, std::size_t u0, std::size_t u1) {
    if (u0 >= u1 || k1 - k0 < 2) return;
    if (p.bits == 32 && solve_u32(k0, k1, u0, u1)) return;
    // Columns are independent: each chunk of columns runs the whole substitution.
    const Firsts fs = parallel_first(u1 - u0, std::max<std::size_t>(64, 16384 / (k1 - k0)), [&](std::size_t b, std::size_t e) {
      Firsts first;
      auto row = [&](std::size_t t) { return &a_[(k0 + t) * n_]; };
      lu_detail::substitute(
          p, k1 - k0, row, [&](std::size_t i, std::size_t j) { return row(i)[k0 + j]; }, u0 + b, u0 + e,
          [&] { return !cont_ && first.found(); },
          [&](std::size_t j, std::size_t i, std::size_t c, double v) { first.note({k0 + j, k0 + i, c, v, v}); });
      return first;
    });
    if (!fs.found()) return;
    if (!cont_) not_finite(fs.first().outer, fs.first().inner, fs.first().column, fs.first().value, p);
    record(fs, Failure::kNone, "the elimination", true);
  }

  // solve_u in fp32 on the wider SIMD units, without the per-row checks: any non-finite
  // value in the block row afterwards and the block row is restored and false returned (the
  // checked loop then finds the first in its order).
  bool solve_u32(std::size_t k0, std::size_t k1, std::size_t u0, std::size_t u1) {
    const std::size_t kb = k1 - k0, w = u1 - u0, n = n_;
    std::vector<double>& a = a_;
    if (backup_.size() < kb * w) backup_.resize(kb * w);
    for (std::size_t t = 0; t < kb; ++t) std::copy_n(&a[(k0 + t) * n + u0], w, &backup_[t * w]);
    const Firsts fs = parallel_first(w, std::max<std::size_t>(64, 16384 / kb), [&](std::size_t b, std::size_t e) {
      Firsts first;
      for (std::size_t j = 0; j < kb; ++j)
        for (std::size_t i = j + 1; i < kb; ++i)
          axpy32(&a[(k0 + i) * n], &a[(k0 + j) * n], a[(k0 + i) * n + k0 + j], u0 + b, u0 + e);
      for (std::size_t t = 0; t < kb; ++t)
        if (!all_finite(&a[(k0 + t) * n + u0 + b], e - b)) first.note({k0, u0, 0, 0, 0});
      return first;
    });
    if (!fs.found()) return true;
    for (std::size_t t = 0; t < kb; ++t) std::copy_n(&backup_[t * w], w, &a[(k0 + t) * n + u0]);
    return false;
  }

  // A[r0..r1][c0..c1] -= L[r0..r1][k0..k1] U[k0..k1][c0..c1].
  void update(const Update& u, std::size_t r0, std::size_t r1, std::size_t c0, std::size_t c1, std::size_t k0,
              std::size_t k1) {
    if (r0 >= r1 || c0 >= c1 || k0 >= k1) return;
    const std::size_t m = r1 - r0, w = c1 - c0, kb = k1 - k0, n = n_;
    std::vector<double>& a = a_;
    if (!u.unit) {
      const Firsts fs = parallel_first(m, grain_for(w * kb / 8 + 1), [&](std::size_t b, std::size_t e) {
        Firsts first;
        for (std::size_t i = r0 + b; i < r0 + e; ++i) {
          double* row = &a[i * n];
          lu_detail::subtract_products(u.store, row, row + k0, &a[k0 * n], n, kb, c0, c1,
                                       [&](std::size_t c) { first.note({i, c, 0, row[c], row[c]}); });
        }
        return first;
      });
      update_events(u, k1 - 1, fs);
      return;
    }
    if (u.variant == GemmVariant::Tc32) {  // TC32: the unit's gemm_into on reused pattern buffers
      update_tc32(u, r0, r1, c0, c1, k0, k1);
      return;
    }
    Lneg_.resize(m * kb);
    U_.resize(kb * w);
    C_.resize(m * w);
    parallel_first(m, grain_for(w + kb), [&](std::size_t b, std::size_t e) {
      for (std::size_t i = b; i < e; ++i) {
        for (std::size_t c = 0; c < kb; ++c) Lneg_[i * kb + c] = -a[(r0 + i) * n + k0 + c];
        std::copy_n(&a[(r0 + i) * n + c0], w, &C_[i * w]);
      }
      return Firsts{};
    });
    for (std::size_t i = 0; i < kb; ++i) std::copy_n(&a[(k0 + i) * n + c0], w, &U_[i * w]);
    GemmOptions g = g_;
    g.variant = u.variant;
    const lu_detail::UpdateFormats f = lu_detail::update_formats(u.variant, in_);
    const GemmResult up = simulate_gemm(unit_, f.operands, f.out, m, w, kb, Lneg_, U_, C_, g);
    res_.unit_calls += up.unit_calls;
    const Firsts fs = parallel_first(m, grain_for(w), [&](std::size_t b, std::size_t e) {
      Firsts first;
      for (std::size_t i = b; i < e; ++i) {
        double* row = &a[(r0 + i) * n + c0];
        const double* d = &up.D[i * w];
        lu_detail::store_rounded(u.store, row, d, w, [&](std::size_t c) { first.note({r0 + i, c0 + c, 0, d[c], row[c]}); });
      }
      return first;
    });
    update_events(u, k1 - 1, fs);
  }
  // update() for the TC32 variant without simulate_gemm's per-call conversions and buffers:
  // the same operand patterns (-L and U rounded to the unit's input by the Converter
  // simulate_gemm uses, C's fp32 values as patterns), Unit::gemm_into as run_unit calls it,
  // and the fp32 result stored as store_rounded stores simulate_gemm's D. The buffers grow
  // once (the first update is the largest): no allocation or first touch per step.
  void update_tc32(const Update& u, std::size_t r0, std::size_t r1, std::size_t c0, std::size_t c1, std::size_t k0,
                   std::size_t k1) {
    const std::size_t m = r1 - r0, w = c1 - c0, kb = k1 - k0, n = n_;
    std::vector<double>& a = a_;
    const lu_detail::UpdateFormats f = lu_detail::update_formats(u.variant, in_);
    GemmOptions g = g_;
    g.variant = u.variant;
    if (!tc32_checked_) {  // simulate_gemm's checks of the unit and instruction (its errors), once
      const std::vector<double> za(kb, 0.0), zc(1, 0.0);
      (void)simulate_gemm(unit_, f.operands, f.out, 1, 1, kb, za, za, zc, g);
      tc32_checked_ = true;
    }
    const Converter in(f.operands, g.input_rounding, !g.subnormals), c32(f.out, g.input_rounding, false);
    static const bool has_f16c = cpu_has_f16c();
    const bool f16c = has_f16c && f.operands == formats::fp16() && g.input_rounding == Rounding::NearestEven && g.subnormals;
    const std::span<std::uint64_t> A = grow(Ab_, m * kb), B = grow(Bb_, kb * w), C = grow(Cb_, m * w), D = grow(Db_, m * w);
    parallel_first(m, grain_for(w + kb), [&](std::size_t b, std::size_t e) {
      for (std::size_t i = b; i < e; ++i) {
        const double* row = &a[(r0 + i) * n];
        fp16_patterns(f16c, row + k0, kb, true, &A[i * kb], in);
        bool exact = true;  // an fp32 value's pattern is its binary32 bits
        for (std::size_t c = 0; c < w; ++c) {
          const float x32 = static_cast<float>(row[c0 + c]);
          exact &= static_cast<double>(x32) == row[c0 + c];
          C[i * w + c] = std::bit_cast<std::uint32_t>(x32);
        }
        if (!exact)
          for (std::size_t c = 0; c < w; ++c)
            if (static_cast<double>(static_cast<float>(row[c0 + c])) != row[c0 + c]) C[i * w + c] = c32(row[c0 + c]);
      }
      return Firsts{};
    });
    parallel_first(kb, 1, [&](std::size_t b, std::size_t e) {
      for (std::size_t t = b; t < e; ++t)
        fp16_patterns(f16c, &a[(k0 + t) * n + c0], w, false, &B[t * w], in);
      return Firsts{};
    });
    unit_.gemm_into(f.operands, f.out, m, w, kb, A, B, C, D, g.instruction, g.threads);
    res_.unit_calls += 1;
    const Firsts fs = parallel_first(m, grain_for(w), [&](std::size_t b, std::size_t e) {
      Firsts first;
      for (std::size_t i = b; i < e; ++i) {
        double* row = &a[(r0 + i) * n + c0];
        const std::uint64_t* d = &D[i * w];
        if (u.store.bits == 32)  // a binary32 value is its own fp32 rounding
          for (std::size_t c = 0; c < w; ++c) row[c] = std::bit_cast<float>(static_cast<std::uint32_t>(d[c]));
        else
          for (std::size_t c = 0; c < w; ++c) row[c] = u.store(std::bit_cast<float>(static_cast<std::uint32_t>(d[c])));
        for (std::size_t c = 0; c < w; ++c)
          if (!std::isfinite(row[c]))
            first.note({r0 + i, c0 + c, 0, std::bit_cast<float>(static_cast<std::uint32_t>(d[c])), row[c]});
      }
      return first;
    });
    update_events(u, k1 - 1, fs);
  }

  // The first `count` entries of v, grown (never shrunk) on transparent huge pages: a 4 KiB
  // page fault costs several microseconds on this kind of (virtual) machine.
  static std::span<std::uint64_t> grow(std::vector<std::uint64_t>& v, std::size_t count) {
    if (v.size() < count) v = gemm_detail::huge_vector<std::uint64_t>(count);
    return {v.data(), count};
  }

  void update_events(const Update& u, std::size_t step, const Firsts& fs) {
    if (!fs.found()) return;
    if (!cont_) breakdown(step, lu_detail::update_failure_text(fs.first(), u.store));
    record(fs, step, lu_detail::kUpdateWhere, false);
  }

 private:

  const Unit& unit_;
  const Format& in_;
  std::size_t n_, r_;
  bool pivot_;
  bool cont_;  // LuOnBreakdown::Continue
  GemmOptions g_;
  LuResult& res_;
  std::vector<double>& a_;
  std::function<void(double)> progress_;
  std::optional<tbb::task_arena> arena_;  // threads > 1 (0: the default arena; 1: serial)
  std::vector<double> Lneg_, U_, C_;
  std::vector<double> backup_;  // the entries a fast pass restores before the checked one
  std::vector<std::uint64_t> Ab_, Bb_, Cb_, Db_;  // update_tc32's patterns, reused by every step
  bool tc32_checked_ = false;
};

struct Plan {
  Precision storage;                 // what A is rounded to first and the factors are held in
  Scheme top;
  lu_detail::SchemeParts parts;      // schemes `top` points to
};

Plan make_plan(const LuOptions& o) {
  Plan plan;
  const bool ll_family = o.algorithm == LuAlgorithm::Ll || o.algorithm == LuAlgorithm::LlFp32Panel ||
                         o.algorithm == LuAlgorithm::Dp;
  const std::string alg = lu_algorithm_name(o.algorithm);
  if (o.algorithm != LuAlgorithm::Rl && o.variant != GemmVariant::Tc32)
    throw std::invalid_argument("variant: only --alg rl takes a variant; " + alg +
                                (ll_family ? " updates through the unit in TC32 (fp32 buffers)" : " runs without the unit"));
  auto scheme = [&](const Scheme& s) { return plan.parts.add(s); };
  using lu_detail::unblocked;
  const Update tc32_buffer{true, GemmVariant::Tc32, kFp32};
  switch (o.algorithm) {
    case LuAlgorithm::Rl: {
      if (o.variant == GemmVariant::Unit)
        throw std::invalid_argument("variant: LU takes fp16, tc16, tc32 or fp32 (blanchard2020 Table 4.1)");
      const bool low = o.variant == GemmVariant::Fp16 || o.variant == GemmVariant::Tc16;
      plan.storage = Precision{low ? 16 : 32};
      if (o.storage == "fp16" || o.storage == "fp32") plan.storage = lu_detail::precision_named(o.storage, "storage");
      else if (!o.storage.empty())
        throw std::invalid_argument("storage: '" + o.storage + "' is not allowed with --alg rl; allowed: fp16, fp32");
      plan.top = {Scheme::RightLooking, plan.storage, {true, o.variant, plan.storage}, o.block};
      break;
    }
    case LuAlgorithm::RefRl:
    case LuAlgorithm::RefLl: {
      plan.storage = lu_detail::precision_named(o.storage.empty() ? "fp64" : o.storage, "storage");
      const Update uniform{false, GemmVariant::Tc32, plan.storage};
      if (o.algorithm == LuAlgorithm::RefRl) plan.top = {Scheme::RightLooking, plan.storage, uniform, o.block};
      else plan.top = {Scheme::LeftLooking, plan.storage, uniform, o.block, scheme(unblocked(plan.storage))};
      break;
    }
    default: {
      if (!o.storage.empty() && o.storage != "fp16")
        throw std::invalid_argument("storage: '" + o.storage + "' is not allowed with --alg " + alg +
                                    " (lopez2022 stores the matrix in fp16); allowed: fp16");
      plan.storage = kFp16;
      if (o.algorithm == LuAlgorithm::Ll) {  // Algorithm 4.1: the panel in fp16
        plan.top = {Scheme::LeftLooking, kFp16, tc32_buffer, o.block, scheme(unblocked(kFp16)), true, false};
      } else if (o.algorithm == LuAlgorithm::LlFp32Panel) {  // Algorithm 5.1: in the fp32 buffer
        plan.top = {Scheme::LeftLooking, kFp16, tc32_buffer, o.block, scheme(unblocked(kFp32)), false, true};
      } else {  // Algorithm 5.2 with PanelFactor of inner blocks s
        if (o.inner_block == 0 || o.inner_block > o.block)
          throw std::invalid_argument("inner_block: s must be between 1 and r = " + std::to_string(o.block) + ", got " +
                                      std::to_string(o.inner_block));
        plan.top = lu_detail::dp_scheme(o.panel, o.block, o.inner_block, plan.parts);
      }
    }
  }
  return plan;
}

}  // namespace

std::string lu_algorithm_name(LuAlgorithm a) {
  switch (a) {
    case LuAlgorithm::Rl: return "rl";
    case LuAlgorithm::Ll: return "ll";
    case LuAlgorithm::LlFp32Panel: return "ll-fp32-panel";
    case LuAlgorithm::Dp: return "dp";
    case LuAlgorithm::RefRl: return "ref-rl";
    case LuAlgorithm::RefLl: return "ref-ll";
  }
  return "?";
}

LuAlgorithm parse_lu_algorithm(std::string_view text, std::string_view field) {
  for (LuAlgorithm a : {LuAlgorithm::Rl, LuAlgorithm::Ll, LuAlgorithm::LlFp32Panel, LuAlgorithm::Dp, LuAlgorithm::RefRl,
                        LuAlgorithm::RefLl})
    if (text == lu_algorithm_name(a)) return a;
  throw std::invalid_argument(std::string(field) + ": '" + std::string(text) +
                              "' is not allowed; allowed: rl, ll, ll-fp32-panel, dp, ref-rl, ref-ll");
}

std::string lu_panel_name(LuPanel p) {
  switch (p) {
    case LuPanel::RlFp16: return "rl-fp16";
    case LuPanel::RlFp32: return "rl-fp32";
    case LuPanel::Ll: return "ll";
    case LuPanel::LlFp32Panel: return "ll-fp32-panel";
  }
  return "?";
}

LuPanel parse_lu_panel(std::string_view text, std::string_view field) {
  for (LuPanel p : {LuPanel::RlFp16, LuPanel::RlFp32, LuPanel::Ll, LuPanel::LlFp32Panel})
    if (text == lu_panel_name(p)) return p;
  throw std::invalid_argument(std::string(field) + ": '" + std::string(text) +
                              "' is not allowed; allowed: rl-fp16, rl-fp32, ll, ll-fp32-panel");
}

std::string lu_on_breakdown_name(LuOnBreakdown b) { return b == LuOnBreakdown::Continue ? "continue" : "stop"; }

LuOnBreakdown parse_lu_on_breakdown(std::string_view text, std::string_view field) {
  if (text == "stop") return LuOnBreakdown::Stop;
  if (text == "continue") return LuOnBreakdown::Continue;
  throw std::invalid_argument(std::string(field) + ": '" + std::string(text) + "' is not allowed; allowed: stop, continue");
}

LuResult describe_lu(const Unit& unit, const Format& in, std::size_t n, const LuOptions& o) {
  if (o.block == 0) throw std::invalid_argument("block: the block size r must be at least 1");
  const Plan plan = make_plan(o);
  const Precision S = plan.storage;
  LuResult res;
  res.n = n;
  res.algorithm = lu_algorithm_name(o.algorithm);
  res.storage = S.name();
  res.block = o.block;
  const bool ref = o.algorithm == LuAlgorithm::RefRl || o.algorithm == LuAlgorithm::RefLl;
  const bool rl = o.algorithm == LuAlgorithm::Rl;
  res.variant = ref ? "uniform" : variant_name(rl ? o.variant : GemmVariant::Tc32);
  if (o.algorithm == LuAlgorithm::Dp) {
    res.panel = lu_panel_name(o.panel);
    res.inner_block = o.inner_block;
  }
  if (ref) res.path = std::string("uniform ") + S.name();
  else if (rl && (o.variant == GemmVariant::Fp16 || o.variant == GemmVariant::Fp32)) res.path = "ieee";
  else {
    const bool low = rl && o.variant == GemmVariant::Tc16;
    res.path = unit.batch_path(in, low ? formats::fp16() : formats::fp32(), o.instruction);
  }
  // lopez2022 Table 1 and the data-movement model (4.4) / (4.5), summed over the actual
  // (possibly narrower last) blocks: step k spans columns k0..k1.
  const double nd = static_cast<double>(n);
  for (std::size_t k0 = 0; k0 < n; k0 += o.block) {
    const double k1 = static_cast<double>(std::min(n, k0 + o.block)), trailing = nd - k1;
    if (rl || o.algorithm == LuAlgorithm::RefRl) res.bytes_moved += trailing * trailing * S.bytes();
    else res.bytes_moved += 2 * trailing * static_cast<double>(k0) * S.bytes();
  }
  res.bytes_model = rl || o.algorithm == LuAlgorithm::RefRl ? "lopez2022 (4.4)" : "lopez2022 (4.5)";
  const double r = static_cast<double>(std::min(n, o.block));
  if (S.bits == 32) res.fp32_buffer_entries = nd * nd;
  else if (rl && S.bits == 16 && (o.variant == GemmVariant::Tc32 || o.variant == GemmVariant::Fp32))
    res.fp32_buffer_entries = (nd - r) * (nd - r);  // the trailing update's fp32 result, lopez2022 (4.3)
  else if (!ref && !rl) res.fp32_buffer_entries = nd * r;  // lopez2022 section 4: at most n r
  res.on_breakdown = lu_on_breakdown_name(o.on_breakdown);
  return res;
}

LuResult simulate_lu(const Unit& unit, const Format& in, std::size_t n, std::span<const double> A,
                     const LuOptions& o) {
  if (A.size() != n * n)
    throw std::invalid_argument("A: expected n * n = " + std::to_string(n * n) + " values, got " +
                                std::to_string(A.size()));
  LuResult res = describe_lu(unit, in, n, o);
  const Plan plan = make_plan(o);
  const Precision S = plan.storage;
  GemmOptions g;
  g.instruction = o.instruction;
  g.threads = o.threads;

  res.perm.resize(n);
  std::iota(res.perm.begin(), res.perm.end(), std::size_t{0});
  res.LU = gemm_detail::huge_vector<double>(n * n);
  const bool cont = o.on_breakdown == LuOnBreakdown::Continue;
  for (std::size_t i = 0; i < n * n; ++i) {
    res.LU[i] = S(A[i]);
    if (!std::isfinite(res.LU[i]) && cont) {  // step 0: A as stored, before any elimination
      LuEvent& ev = std::isnan(res.LU[i]) ? res.events.nan : res.events.overflow;
      if (!ev.found) ev = {true, 0, 0, i / n, i % n, res.LU[i], "rounding A to the " + std::string(S.name()) + " storage"};
    } else if (!std::isfinite(res.LU[i]))
      throw LuBreakdown("A[" + std::to_string(i / n) + "][" + std::to_string(i % n) + "] = " + number(A[i]) +
                        (std::isfinite(A[i]) ? " overflows the " : " is not finite in the ") + S.name() + " storage");
  }
  Engine engine(unit, in, n, o.block, o.pivot, cont, g, res, o.progress);
  lu_detail::factor_cross(engine, plan.top, n, o.pivot, 0, n, n);
  return res;
}

}  // namespace tcsim::models
