// MatlabTwister (apps/src/matlab_twister.hpp) against published MT19937 outputs: the words of
// init_genrand(5489) (the reference implementation's default seed; C++'s std::mt19937 gives the
// same) and the 53-bit doubles of seed 1 that numpy's legacy RandomState(1).random_sample gives
// (computed with numpy 1.24, hard-coded here).
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>

#include "matlab_twister.hpp"

using tcsim::cli::MatlabTwister;

TEST_CASE("twister: words of seed 5489 are MT19937's (10000th word 4123659995)") {
  MatlabTwister t(5489);
  CHECK(t.next_word() == 3499211612u);
  std::mt19937 reference(5489);
  reference();
  for (int i = 2; i < 10000; ++i) REQUIRE(t.next_word() == reference());
  // The C++ standard fixes the 10000th word of mt19937 with the default seed.
  CHECK(t.next_word() == reference());
  MatlabTwister u(5489);
  u.discard(9999);
  CHECK(u.next_word() == 4123659995u);
}

TEST_CASE("twister: rand after rng(1) is numpy RandomState(1).random_sample") {
  MatlabTwister t(1);
  CHECK(t.next_double() == 0.417022004702574);
  CHECK(t.next_double() == 0.7203244934421581);
  CHECK(t.next_double() == 0.00011437481734488664);
  CHECK(t.next_double() == 0.30233257263183977);
  MatlabTwister w(1);
  CHECK(w.next_word() == 1791095845u);
  CHECK(w.next_word() == 4282876139u);
  CHECK(w.next_word() == 3093770124u);
  CHECK(w.next_word() == 4005303368u);
}

TEST_CASE("twister: discard skips words across refills (the 441st and 1000001st doubles of seed 1)") {
  MatlabTwister t(1);
  t.discard(2 * 439);
  CHECK(t.next_double() == 0.12564138113773882);
  MatlabTwister u(1);
  u.discard(2000000);
  CHECK(u.next_double() == 0.1382964100000177);
}
