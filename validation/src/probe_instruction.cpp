// The probe's experiments on one instruction of a unit whose c is added late (c placement
// "late"): which product positions share one normalization (the blocks), whether c is
// added to the instruction's rounded result by an addition of its own (c entry "final-add",
// the Hopper/Blackwell fp8 mma.sync emulation) and with which rounding, how a block's
// result enters the next block, and then the block view, in which steps 2-4 are measured
// again inside the blocks.
#include <algorithm>

#include "probe_prober.hpp"

namespace tcsim::validation::detail {

namespace {

std::string list(const std::vector<int>& v, std::size_t most = 64) {
  std::string s;
  for (std::size_t i = 0; i < v.size() && i < most; ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + (v.size() > most ? ",..." : "");
}

// x/4 as text ("3/4", "1/2", "-1/4").
std::string quarters(int x) {
  const int a = x < 0 ? -x : x;
  return std::string(x < 0 ? "-" : "") + (a == 2 ? "1/2" : std::to_string(a) + "/4");
}

}  // namespace

// d(p, q, r): a_p b_p = 2^e, a_q b_q = -2^e, a_r b_r = 2^(e-J), every other product 0,
// c = 0, with J beyond any block's F: r is cut against 2^e (0, or one unit of the
// register's last place under ru or a sticky bit) when it shares the pair's
// normalization, exact when it is summed elsewhere.
Prober::Shared Prober::shares_block(int K, int p, int q, int r, int J) {
  Layout l;
  l.products.assign(static_cast<std::size_t>(K), Term{});
  l.products[static_cast<std::size_t>(p)] = pow2(0);
  l.products[static_cast<std::size_t>(q)] = pow2(0, true);
  l.products[static_cast<std::size_t>(r)] = pow2(-J);
  l.result_leads = {-J};  // the small term must be a normal output value when it survives
  auto placed = place(l);
  if (!placed) return Shared::Unclear;
  const ExactValue d = val(call(*placed));
  if (d.equals(ExactValue::finite(false, 1, placed->e - J))) return Shared::No;
  if (d.is_zero() || (d.is_finite() && !d.negative && d.lead_exponent() > placed->e - J &&
                      d.lead_exponent() < placed->e))
    return Shared::Yes;
  return Shared::Unclear;
}

std::optional<ExactValue> Prober::at_positions(int K, const std::vector<std::pair<int, Term>>& terms, const Term& c,
                                               std::int64_t e) {
  Layout l;
  l.products.assign(static_cast<std::size_t>(K), Term{});
  for (const auto& [pos, t] : terms) l.products[static_cast<std::size_t>(pos)] = t;
  l.c = c;
  auto r = realize(l, e);
  if (!r) return std::nullopt;
  return val(call(*r));
}

// The blocks, in accumulation order. A pair (p, q) inside one block cuts the small term of
// every other position of that block (and of earlier blocks, whose results it receives);
// a pair across two blocks cuts the positions of both, because the earlier block's result
// is rounded into the output before it meets the later one. So p's block is found as the
// set cut by p and its first partner, and accepted only when every member pairs with p to
// cut all the others (a smaller set from some member replaces it).
std::optional<std::vector<std::vector<int>>> Prober::partition(int K, int J, std::string& why) {
  std::vector<char> assigned(static_cast<std::size_t>(K), 0);
  std::vector<std::vector<int>> blocks;
  bool unclear = false;
  auto cut = [&](int p, int q, const std::vector<int>& candidates) {
    std::vector<int> c;
    for (int r : candidates) {
      if (r == p || r == q || unclear) continue;
      const Shared s = shares_block(K, p, q, r, J);
      unclear = s == Shared::Unclear;
      if (s == Shared::Yes) c.push_back(r);
    }
    if (unclear)
      why = "positions " + std::to_string(p) + " and " + std::to_string(q) + " with a small term 2^(e-" +
            std::to_string(J) + "): a result neither cut nor exact, not the block model";
    return c;
  };
  auto with_pair = [](std::vector<int> m, int p, int q) {
    m.push_back(p);
    m.push_back(q);
    std::sort(m.begin(), m.end());
    return m;
  };
  const std::string small_blocks = " (a block of fewer than 3 products cannot be told apart by a cancelling pair and a third term)";
  for (int p = 0; p < K; ++p) {
    if (assigned[static_cast<std::size_t>(p)]) continue;
    std::vector<int> open;
    for (int r = 0; r < K; ++r)
      if (!assigned[static_cast<std::size_t>(r)]) open.push_back(r);
    std::vector<int> members;
    int partner = -1;
    for (int q : open) {
      if (q <= p) continue;
      const std::vector<int> c = cut(p, q, open);
      if (unclear) return std::nullopt;
      if (c.empty()) continue;
      members = with_pair(c, p, q);
      partner = q;
      break;
    }
    if (members.empty()) {
      why = "position " + std::to_string(p) + " cuts no small term together with any other position" + small_blocks;
      return std::nullopt;
    }
    for (bool again = true; again;) {
      again = false;
      for (int q : members) {
        if (q == p || q == partner) continue;
        const std::vector<int> c = cut(p, q, members);
        if (unclear) return std::nullopt;
        if (c.size() + 2 == members.size()) continue;
        if (c.empty()) {
          why = "positions " + std::to_string(p) + " and " + std::to_string(q) + " cut terms only across blocks" +
                small_blocks;
          return std::nullopt;
        }
        members = with_pair(c, p, q);
        partner = q;
        again = true;
        break;
      }
    }
    for (int m : members) assigned[static_cast<std::size_t>(m)] = 1;
    blocks.push_back(members);
  }
  return blocks;
}

void Prober::instruction_structure() {
  auto unknown = [&](const std::string& why) {
    for (std::string* ev : {&rep_.blocks.evidence, &rep_.k_split.evidence, &rep_.block_chain.evidence,
                            &rep_.c_entry.evidence, &rep_.final_add_rounding.evidence})
      if (ev->empty()) *ev = why;
  };
  if (rep_.c_placement.value == std::string("aligned")) {
    rep_.c_entry.value = "accumulator";
    rep_.c_entry.evidence = "c is cut against the products (c placement): it is aligned in their register";
  }
  if (rep_.c_placement.value != std::string("late"))
    return unknown("only for units whose c is added after the products cancelled (c placement late)");
  if (!k_ || *k_ < 3) return unknown("needs k, the products of one instruction (at least 3)");
  const int K = *k_;
  // J: as large as the input can form (at most 60), beyond any plausible block F.
  int J = 0;
  for (int j : {60, 48, 40, 36, 34, 32, 30, 28, 27, 26}) {  // binary16 output: at most 28
    Layout l;
    l.products = {pow2(0), pow2(0, true), pow2(-j)};
    l.result_leads = {-j};
    if (place(l)) {
      J = j;
      break;
    }
  }
  if (!J) return unknown("a product 2^(e-26) beside 2^e cannot be formed: the blocks cannot be told apart");
  std::string why;
  const auto blocks = partition(K, J, why);
  if (!blocks) return unknown(why);
  std::string ev = "a_pb_p=2^e, a_qb_q=-2^e, a_rb_r=2^(e-" + std::to_string(J) + "), c=0 over the " +
                   std::to_string(K) + " products of one instruction (k above): r is cut when it shares the "
                   "pair's normalization, exact otherwise: ";
  for (std::size_t b = 0; b < blocks->size(); ++b)
    ev += (b ? "; " : "") + std::string("block ") + std::to_string(b + 1) + " = {" + list((*blocks)[b]) + "}";
  rep_.blocks.value = *blocks;
  rep_.blocks.evidence = ev;
  // The partition's name in the unit schema.
  bool consecutive = true, mod4 = blocks->size() == 2;
  int next = 0;
  for (std::size_t b = 0; b < blocks->size(); ++b) {
    consecutive = consecutive && (*blocks)[b].size() == blocks->front().size();
    for (int pos : (*blocks)[b]) {
      consecutive = consecutive && pos == next++;
      mod4 = mod4 && static_cast<std::size_t>((pos % 4) / 2) == b;
    }
  }
  if (consecutive) rep_.k_split.value = "consecutive";
  else if (mod4) rep_.k_split.value = "pairs-mod4";
  rep_.k_split.evidence = consecutive ? "blocks of consecutive positions"
                          : mod4      ? "block 1: positions with i mod 4 in {0,1}, block 2: {2,3}"
                                      : "a partition the unit schema does not name";

  c_entry(K, blocks->front());
  if (rep_.c_entry.value != std::string("final-add")) {
    rep_.block_chain.evidence = "only with c entry final-add";
    return;
  }
  measure_blocks(*blocks);
  block_chain(K, J, *blocks);
  std::vector<int> order;
  for (const auto& b : *blocks) order.insert(order.end(), b.begin(), b.end());
  rep_.blocks.evidence += "; the lines marked [blocks, c = +0] are measured inside the blocks, the terms called c, "
                          "a1b1, a2b2, ... being the products at positions " +
                          list(order, 6) + " (the blocks' order)";
  rep_.not_observed =
      "zero signs (the blocks' +0 start and the sign rule of c's addition are only seen together); overflow, "
      "infinities and NaNs; subnormal block results; whether c's addition is exact before its rounding (the tests "
      "put c at most two bits below the result's last place); blocks of one or two products (a block is found by "
      "a cancelling pair and a third term: a block of one product would show as part of the next block); how "
      "instructions beyond K products chain";
}

// Where c enters: P1 = +-1.5*2^e (block 1) and P2 = P1 + x ulp (x = +-1/4, +-1/2, +-3/4 of the
// output's ulp, also in block 1), each with c = 0 (d0) and with c = +-y ulp. If c is added
// to the instruction's rounded result, d depends on the products only through d0:
// d = round(d0 + c) for one mode in every case. A register that holds c with the products
// tells P2 from P1 wherever the blocks round them alike (a tie rounded before c is added is
// one such case), so some case fails every mode.
void Prober::c_entry(int K, const std::vector<int>& first) {
  const int p = out_.precision;
  const int xs[] = {1, 2, 3, -1, -2, -3};  // quarters of the ulp
  auto frac = [&](bool neg, int q) {       // sign * q/4 ulp of 2^e, relative to e
    return Term{neg != (q < 0), static_cast<std::uint64_t>(q < 0 ? -q : q), -1 - p};
  };
  Layout l;
  l.products.assign(static_cast<std::size_t>(K), Term{});
  l.products[static_cast<std::size_t>(first[0])] = Term{false, 3, -1};
  l.products[static_cast<std::size_t>(first[1])] = frac(false, 3);
  l.c = frac(false, 3);
  l.result_leads = {1, -1 - p};  // up to 1.5*2^e + 3/4 ulp + 3/4 ulp; down to 1/4 ulp
  auto unformable = [&] {
    rep_.c_entry.evidence = rep_.final_add_rounding.evidence = "1.5*2^e with fractions of the output's ulp cannot be formed";
  };
  const auto placed = place(l);
  if (!placed) return unformable();
  const std::int64_t e = placed->e;
  // The unit schema's modes for c's addition.
  const Rounding modes[] = {Rounding::TowardZero, Rounding::Down, Rounding::Up, Rounding::NearestEven, Rounding::ToOdd};
  std::vector<Rounding> fits(std::begin(modes), std::end(modes));
  auto round_out = [&](const ExactValue& v, Rounding m) {
    RoundingOptions o;
    o.mode = m;
    o.overflow = OverflowMode::Ieee;
    return decode(out_, round_to_format(v, out_, o).bits);
  };
  bool informative = false;
  int cases = 0;
  std::string example, failure;
  for (bool neg : {false, true}) {
    const Term big{neg, 3, -1};
    std::vector<std::pair<std::optional<Term>, ExactValue>> sets;  // P2's extra term (none: P1), d0
    for (int x : {0, 1, 2, 3, -1, -2, -3}) {
      std::vector<std::pair<int, Term>> terms = {{first[0], big}};
      std::optional<Term> extra;
      if (x) terms.push_back({first[1], *(extra = frac(neg, x))});
      const auto d0 = at_positions(K, terms, Term{}, e);
      if (!d0) return unformable();
      sets.emplace_back(extra, *d0);
    }
    int alike = 0;
    for (std::size_t i = 1; i < sets.size(); ++i) alike += sets[i].second.equals(sets[0].second);
    informative = informative || (alike > 0 && alike < 6);
    for (std::size_t i = 0; i < sets.size(); ++i)
      for (int y : xs) {
        std::vector<std::pair<int, Term>> terms = {{first[0], big}};
        if (sets[i].first) terms.push_back({first[1], *sets[i].first});
        const Term c = frac(false, y);
        const auto d = at_positions(K, terms, c, e);
        if (!d) return unformable();
        ++cases;
        const ExactValue& d0 = sets[i].second;
        const ExactValue products =
            exact_add(value_of(big, e), sets[i].first ? value_of(*sets[i].first, e) : ExactValue::zero(false));
        const ExactValue exact = exact_add(products, value_of(c, e));
        const std::string text = "products " + products.to_hex() + " (" + d0.to_hex() + " with c=0) and c=" +
                                 quarters(y) + " ulp -> " + d->to_hex();
        const bool one_rounding = std::any_of(std::begin(modes), std::end(modes),
                                              [&](Rounding m) { return round_out(exact, m).equals(*d); });
        if (example.empty() && !one_rounding) example = text + ", which no rounding of the exact sum gives";
        std::vector<Rounding> left;
        for (Rounding m : fits)
          if (round_out(exact_add(d0, value_of(c, e)), m).equals(*d)) left.push_back(m);
        if (left.empty() && !fits.empty()) failure = text;  // the case that rules out the last mode
        fits = std::move(left);
      }
  }
  const std::string setup = "+-1.5*2^e plus x = 0, +-1/4, +-1/2, +-3/4 ulp in block 1 (positions " +
                            std::to_string(first[0]) + ", " + std::to_string(first[1]) + "), with c = 0 and with c = " +
                            "+-1/4, +-1/2, +-3/4 ulp (" + std::to_string(cases) + " cases)";
  if (!informative) {
    rep_.c_entry.evidence = rep_.final_add_rounding.evidence =
        setup + ": the blocks round the sums alike or all apart, so c's place cannot be told";
    return;
  }
  if (fits.empty()) {
    rep_.c_entry.value = "accumulator";
    rep_.c_entry.evidence = setup + ": " + (failure.empty() ? std::string("") : failure + ": ") +
                            "d is not one rounding of d(c=0) + c: c enters the register before the rounding";
    rep_.final_add_rounding.evidence = "c has no addition of its own";
    return;
  }
  rep_.c_entry.value = "final-add";
  rep_.c_entry.evidence = setup + ": every d is a rounding of d(c=0) + c, sums the blocks round alike give the "
                          "same d: c is added to the instruction's rounded result" +
                          (example.empty() ? std::string("") : "; e.g. " + example);
  std::string which;
  for (Rounding m : fits) which += (which.empty() ? "" : ", ") + rounding_name(m);
  if (fits.size() == 1) rep_.final_add_rounding.value = fits.front();
  rep_.final_add_rounding.evidence = "d = round(d(c=0) + c) in the cases above for " + which;
}

// The block view: steps 2-4 again, with c's term carried by the first product of block 1.
void Prober::measure_blocks(const std::vector<std::vector<int>>& blocks) {
  view_.clear();
  for (const auto& b : blocks) view_.insert(view_.end(), b.begin(), b.end());
  fprime_.reset();
  F_.reset();
  k_.reset();
  k_lower_ = 0;
  align_.reset();
  sticky_ = false;
  eff_.reset();
  c_small_.reset();
  for (auto* f : {&rep_.fraction_bits, &rep_.result_fraction_bits, &rep_.fma_size}) *f = {};
  rep_.alignment_rounding = {};
  rep_.sticky_bit = {};
  fraction_bits();
  result_precision();
  fma_size();
  alignment_rounding();
}

// How block b's result enters block b+1: a pair of block b+1 cuts a small term of block b
// (the result is aligned in block b+1's register), and 2^e + 3/4 ulp in block b followed by
// -2^e in block b+1 gives (block b's rounded result) - 2^e, not 3/4 ulp: it is rounded into
// the output first.
void Prober::block_chain(int K, int J, const std::vector<std::vector<int>>& blocks) {
  std::vector<int> saved;
  std::swap(saved, view_);  // explicit positions
  auto done = [&] { std::swap(saved, view_); };
  if (blocks.size() < 2) {
    rep_.block_chain.evidence = "one block";
    return done();
  }
  std::string ev;
  for (std::size_t b = 1; b < blocks.size(); ++b) {
    const auto& prev = blocks[b - 1];
    const auto& cur = blocks[b];
    const Shared s = shares_block(K, cur[0], cur[1], prev[0], J);
    ev += (ev.empty() ? "" : "; ") + std::string("the pair at ") + std::to_string(cur[0]) + ", " +
          std::to_string(cur[1]) + " (block " + std::to_string(b + 1) + ") with 2^(e-" + std::to_string(J) + ") at " +
          std::to_string(prev[0]) + " (block " + std::to_string(b) + "): " + (s == Shared::Yes ? "cut" : "not cut");
    if (s != Shared::Yes) {
      rep_.block_chain.evidence = ev + ": block " + std::to_string(b) + "'s result is not aligned in block " +
                                  std::to_string(b + 1) + "'s register";
      return done();
    }
  }
  ev += ": each block's result is aligned in the next block's register";
  const int p = eff_ ? eff_->precision : out_.precision;
  if (!F_ || *F_ < p + 1) {
    rep_.block_chain.evidence = ev + "; whether it is rounded first needs a block that keeps bits below the "
                                     "output's last place";
    return done();
  }
  const Term x{false, 3, -1 - p};  // 3/4 ulp of 2^e
  const std::vector<std::pair<int, Term>> first = {{blocks[0][0], pow2(0)}, {blocks[0][1], x}};
  auto both = first;
  both.push_back({blocks[1][0], pow2(0, true)});
  Layout l;
  l.products.assign(static_cast<std::size_t>(K), Term{});
  for (const auto& [pos, t] : both) l.products[static_cast<std::size_t>(pos)] = t;
  l.result_leads = {0, -1 - p};
  const auto placed = place(l);
  const auto dA = placed ? at_positions(K, first, Term{}, placed->e) : std::nullopt;
  const auto d = placed ? at_positions(K, both, Term{}, placed->e) : std::nullopt;
  if (!dA || !d) {
    rep_.block_chain.evidence = ev + "; 2^e + 3/4 ulp cannot be formed";
    return done();
  }
  const ExactValue big = ExactValue::finite(false, 1, placed->e), xv = value_of(x, placed->e);
  const ExactValue rounded = exact_add(*dA, ExactValue::finite(true, 1, placed->e));
  ev += "; 2^e + 3/4 ulp in block 1 -> " + dA->to_hex() + ", with -2^e in block 2 -> " + d->to_hex();
  if (d->equals(rounded) && !dA->equals(exact_add(big, xv))) {
    rep_.block_chain.value = "rounded";
    rep_.block_chain.evidence = ev + ": block 1's result enters block 2 rounded into the output";
  } else if (d->equals(xv)) {
    rep_.block_chain.value = "exact";
    rep_.block_chain.evidence = ev + ": block 1's sum enters block 2 unrounded";
  } else {
    rep_.block_chain.evidence = ev + ": neither block 1's rounded result nor its exact sum";
  }
  done();
}

}  // namespace tcsim::validation::detail
