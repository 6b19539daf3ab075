// tcsim bench fit: the speed of tcsim fit on 5,000-case dumps (issue 26: at most 2 minutes on
// the 2-core machine), and with --evaluate the evaluation of docs/fit.md: dumps computed by
// every built-in row and format pair, or by random user rows, fitted back and checked for
// agreement with the original row on further cases.
#pragma once
#include "args.hpp"

namespace tcsim::cli {

// Runs `tcsim bench fit` with the parsed options of `tcsim bench`; returns the exit code
// (0: every fit exact and within the time limit, every fitted row agreeing; 1 otherwise).
int bench_fit(const ParsedArgs& a);

}  // namespace tcsim::cli
