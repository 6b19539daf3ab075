// libFuzzer target: the CLI option parser (apps/src/args.cpp). The input is split at '\n'
// into arguments and parsed by a parser with every kind of option; bad arguments must be
// refused with std::invalid_argument (anything else escaping is a finding), a required option
// is present after a successful parse, and positional arguments pass only where declared.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "args.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 4096) return 0;
  std::vector<std::string> args(1);
  for (std::size_t i = 0; i < size; ++i) {
    if (data[i] == '\n') args.emplace_back();
    else args.back() += static_cast<char>(data[i]);
  }
  tcsim::cli::ArgParser p("fuzz", "every kind of option");
  p.option("unit", "an option").required("in", "a required option").multi_option("file", "a repeatable option");
  p.flag("json", "a flag").option("count", "an integer").option("seed", "a 64-bit seed");
  const bool with_positionals = !args.empty() && !args[0].empty() && (args[0][0] & 1);
  if (with_positionals) p.positionals("what", "positional arguments");
  try {
    const auto a = p.parse(args);
    if (a.help()) return 0;
    a.get("in");  // required: present after a successful parse
    if (a.has("count")) a.get_int("count", -1000, 1000);
    if (a.has("seed")) a.get_uint64("seed");
    a.get_all("file");
    a.get_or("unit", "v100");
    a.at_most_one_of({"unit", "json"});
    if (!with_positionals && !a.positional().empty()) std::abort();
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
