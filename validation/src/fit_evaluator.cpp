// tcsim fit's evaluator: a candidate row's graded mismatch count over the dumps, the cases
// that separated earlier candidates first, and the budget (fit_search.hpp).
#include "fit_search.hpp"

#include <algorithm>
#include <memory>
#include <stdexcept>

namespace tcsim::validation::fit_detail {

// The cost of one result against the dump's: 0 when equal (all NaNs equal), else 1 + the
// bit length of the distance in units in the last place (an ordered difference of the bit
// patterns), 66 when one of them is NaN. Graded so that a change that brings wrong results
// nearer (the right F with a still wrong final rounding) counts as progress: coupled
// parameters are then found one at a time. 0 exactly when the results are the same.
std::size_t result_cost(const Format& f, std::uint64_t got, std::uint64_t want) {
  if (same_result(f, got, want)) return 0;
  const std::uint64_t nan = f.has_nan() ? f.canonical_nan() : 0;
  if (f.has_nan() && (same_result(f, got, nan) || same_result(f, want, nan))) return 66;
  auto ordered = [&](std::uint64_t v) -> __int128 {
    const std::uint64_t s = f.sign_mask();
    return (v & s) ? -static_cast<__int128>(v & ~s) : static_cast<__int128>(v);
  };
  __int128 d = ordered(got) - ordered(want);
  if (d < 0) d = -d;
  std::size_t bits = 0;
  while (d > 0) { ++bits; d >>= 1; }
  return 1 + std::max<std::size_t>(bits, 1);
}

void DumpEvaluator::set_focus(const models::Unit* unit, const std::string& instruction) {
  clear_focus();
  out_.resize(active_);
  unit->dot_batch(d_.in, d_.out, active_, d_.k, d_.a.data(), d_.b.data(), d_.c.data(), out_.data(), instruction);
  case_evaluations += active_;
  for (std::size_t i = 0; i < active_; ++i)
    if (!same_result(d_.out, out_[i], d_.d[i])) {
      in_focus_[i] = true;
      focus_.add(d_, i);
    }
}

void DumpEvaluator::clear_focus() {
  for (const std::size_t i : focus_.index) in_focus_[i] = false;
  focus_.clear();
}

bool DumpEvaluator::run_list(const CaseList& list, const std::vector<bool>* skip, const models::Unit* unit,
                             const std::string& instruction, std::size_t bound, std::size_t* first_case, bool graded,
                             std::size_t& mism) {
  const std::size_t K = d_.k;
  for (std::size_t s = 0, chunk = 32; s < list.index.size(); s += chunk, chunk *= 4) {
    const std::size_t m = std::min(chunk, list.index.size() - s);
    out_.resize(m);
    unit->dot_batch(d_.in, d_.out, m, K, list.a.data() + s * K, list.b.data() + s * K, list.c.data() + s,
                    out_.data(), instruction);
    case_evaluations += m;
    for (std::size_t i = 0; i < m; ++i)
      if (!(skip && (*skip)[list.index[s + i]]) && !same_result(d_.out, out_[i], list.d[s + i])) {
        if (mism == 0 && first_case) *first_case = list.index[s + i];
        mism += graded ? result_cost(d_.out, out_[i], list.d[s + i]) : 1;
        if (mism >= bound) return true;
      }
  }
  return false;
}

std::size_t DumpEvaluator::count(const models::Unit* unit, const std::string& instruction, std::size_t bound,
                                 std::size_t* first_case, bool graded) {
  const std::size_t K = d_.k;
  std::size_t mism = 0;
  // The focus row's wrong cases first, then the deciding cases (those the focus holds are
  // counted already), each in growing chunks: most candidates are refuted by the first few, so
  // a refuted candidate costs a few dozen cases rather than all 512.
  if (run_list(focus_, nullptr, unit, instruction, bound, first_case, graded, mism) ||
      run_list(prio_, &in_focus_, unit, instruction, bound, first_case, graded, mism))
    return mism;
  constexpr std::size_t kChunk = 512;
  for (std::size_t s = 0; s < active_; s += kChunk) {
    const std::size_t m = std::min(kChunk, active_ - s);
    out_.resize(m);
    unit->dot_batch(d_.in, d_.out, m, K, d_.a.data() + s * K, d_.b.data() + s * K, d_.c.data() + s,
                    out_.data(), instruction);
    case_evaluations += m;
    for (std::size_t i = 0; i < m; ++i) {
      const std::size_t idx = s + i;
      if (in_priority_[idx] || in_focus_[idx] || same_result(d_.out, out_[i], d_.d[idx])) continue;
      if (mism == 0 && first_case) *first_case = idx;
      add_priority(idx);
      mism += graded ? result_cost(d_.out, out_[i], d_.d[idx]) : 1;
      if (mism >= bound) return mism;
    }
  }
  return mism;
}

void Evaluator::focus(const DatapathSpec& row) {
  std::unique_ptr<models::Unit> unit;
  try {
    unit = std::make_unique<models::Unit>(one_row_unit(row, "fit"));
    const std::string instruction = fit_instruction(row);
    for (auto& e : per_dump_) e.set_focus(unit.get(), instruction);
  } catch (const std::exception&) {
    clear_focus();  // a row the unit refuses has no wrong cases to put first
  }
}

std::size_t Evaluator::count(const DatapathSpec& row, std::size_t bound, CaseRef* first_case,
                             bool graded) {
  ++evaluations;
  std::unique_ptr<models::Unit> unit;
  try {
    unit = std::make_unique<models::Unit>(one_row_unit(row, "fit"));
  } catch (const std::exception&) {
    return kInvalid;
  }
  std::size_t total = 0;
  const std::string instruction = fit_instruction(row);
  for (std::size_t i = 0; i < per_dump_.size() && total < bound; ++i) {
    std::size_t first = 0;
    std::size_t m = 0;
    try {
      m = per_dump_[i].count(unit.get(), instruction, bound - total, &first, graded);
    } catch (const std::exception&) {
      return kInvalid;  // the row does not serve this dump's formats
    }
    if (m > 0 && total == 0 && first_case) *first_case = {i, first};
    total += m;
  }
  return total;
}

}  // namespace tcsim::validation::fit_detail
