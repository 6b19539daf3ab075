// Messages of the shared model code (models/) name their fields as the C++ options structs
// do (split_k, fabsum_block, inner_block, precision, ...) and sometimes the CLI's options
// (--pivot, --alg rl). A user typed neither: `--split-k` in the CLI, `split_k` in Python.
// name_options rewrites a message for the caller, at the CLI's and Python's boundaries, so
// that the models need not know who called them (part of the validation layer of issue 22,
// with value_checks.hpp).
#pragma once
#include <string>
#include <string_view>

namespace tcsim::checks {

enum class Caller { Cli, Python };

// The message with internal field names replaced by the option (CLI) or argument (Python)
// the user wrote; for Python also "--name" options replaced by the argument's name, except
// inside quoted commands ('tcsim units --json').
std::string name_options(std::string_view message, Caller caller);

}  // namespace tcsim::checks
