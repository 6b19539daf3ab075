// search_monotonicity split into shares (MonotonicityOptions::part, parts; the MPI ranks of
// tcsim monotonicity, docs/scale.md): the shares' counts added and their counterexamples
// merged by pair index give the whole search's result, for any number of shares.
#include <algorithm>
#include <stdexcept>
#include <string>

#include <catch2/catch.hpp>

#include "tcsim/models/unit.hpp"
#include "tcsim/validation/monotonicity.hpp"
#include "tcsim/validation/probe_blackbox.hpp"

using namespace tcsim;
using namespace tcsim::validation;

namespace {

bool same_case(const DotCase& x, const DotCase& y) { return x.a == y.a && x.b == y.b && x.c == y.c && x.d == y.d; }

void check_shares_merge(const std::string& unit, const Format& in, std::uint64_t budget) {
  const BlackBox box = blackbox_from_unit(models::builtin_unit(unit), in, formats::fp32(), "");
  MonotonicityOptions o;
  o.budget = budget;
  o.seed = 11;
  const MonotonicityResult whole = search_monotonicity(box, o);
  for (std::uint64_t parts = 1; parts <= 3; ++parts) {
    INFO(unit << " " << in.name << ", " << parts << " shares");
    std::uint64_t found = 0;
    std::vector<MonotonicPair> merged;
    std::vector<std::uint64_t> per_search(whole.searches.size(), 0);
    for (std::uint64_t part = 0; part < parts; ++part) {
      MonotonicityOptions share = o;
      share.part = part;
      share.parts = parts;
      const MonotonicityResult r = search_monotonicity(box, share);
      CHECK(r.cases_tried == whole.cases_tried);  // every share walks every pair
      REQUIRE(r.searches.size() == whole.searches.size());
      for (std::size_t s = 0; s < r.searches.size(); ++s) {
        CHECK(r.searches[s].pairs == whole.searches[s].pairs);
        CHECK(r.searches[s].covered == whole.searches[s].covered);
        per_search[s] += r.searches[s].found;
      }
      for (const auto& c : r.counterexamples) CHECK(c.pair % parts == part);
      found += r.found;
      merged.insert(merged.end(), r.counterexamples.begin(), r.counterexamples.end());
    }
    CHECK(found == whole.found);
    for (std::size_t s = 0; s < per_search.size(); ++s) CHECK(per_search[s] == whole.searches[s].found);
    std::sort(merged.begin(), merged.end(), [](const auto& x, const auto& y) { return x.pair < y.pair; });
    merged.resize(std::min(merged.size(), whole.counterexamples.size()));
    REQUIRE(merged.size() == whole.counterexamples.size());
    for (std::size_t i = 0; i < merged.size(); ++i) {
      CHECK(merged[i].pair == whole.counterexamples[i].pair);
      CHECK(merged[i].how == whole.counterexamples[i].how);
      CHECK(same_case(merged[i].x, whole.counterexamples[i].x));
      CHECK(same_case(merged[i].y, whole.counterexamples[i].y));
    }
  }
}

}  // namespace

TEST_CASE("monotonicity: shares of the pairs merge into the whole search (V100 fp16, several searches find)",
          "[monotonicity]") {
  check_shares_merge("v100", formats::fp16(), 40000);
}

TEST_CASE("monotonicity: shares merge with the exhaustive search (H100 e4m3)", "[monotonicity]") {
  check_shares_merge("h100", formats::e4m3(), 40000);
}

TEST_CASE("monotonicity: a share outside the parts is refused", "[monotonicity]") {
  MonotonicityOptions o;
  o.part = 2;
  o.parts = 2;
  CHECK_THROWS_WITH(search_monotonicity(blackbox_from_unit(models::builtin_unit("v100"), formats::fp16(), formats::fp32(), ""), o),
                    "monotonicity search: part 2 of 2 parts; allowed: part < parts");
}
