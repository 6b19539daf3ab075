// Unit tests of the subcommand option parser (apps/src/args.hpp).
// Built into tcsim_apps_args_tests by the top-level CMakeLists.txt; ctest names "apps: args ...".
#include <catch2/catch.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "args.hpp"
#include "error_of.hpp"

using tcsim::cli::ArgParser;
using Args = std::vector<std::string>;
using tcsim::test::error_of;

namespace {

ArgParser dot_parser() {
  ArgParser p("dot", "evaluate d = c + sum a_i b_i");
  p.option("unit", "name of a built-in unit");
  p.option("in", "input format");
  p.option("unit-config", "JSON file of a user-defined unit", "file");
  p.required("a", "comma-separated a values", "list");
  p.multi_option("file", "a dump file");
  p.option("count", "number of cases", "n");
  p.flag("json", "print JSON");
  return p;
}

}  // namespace

TEST_CASE("args: options, flags and values", "[args]") {
  auto p = dot_parser();
  auto r = p.parse({"--unit", "v100", "--a=1,2", "--json", "--count", "0x10", "--file", "x", "--file", "y"});
  CHECK_FALSE(r.help());
  CHECK(r.get("unit") == "v100");
  CHECK(r.get("a") == "1,2");
  CHECK(r.has("json"));
  CHECK_FALSE(r.has("in"));
  CHECK(r.get_or("in", "fp16") == "fp16");
  CHECK_FALSE(r.find("in").has_value());
  CHECK(r.get_int("count", 0, 100) == 16);
  CHECK(r.get_uint64("count") == 16u);
  CHECK(r.get_all("file") == std::vector<std::string>{"x", "y"});
  CHECK(r.get("file") == "y");
  CHECK(r.get_all("in").empty());
}

TEST_CASE("args: negative numbers are values, not options", "[args]") {
  auto p = dot_parser();
  auto r = p.parse({"--a", "-1,-0x1p-24", "--count", "-3"});
  CHECK(r.get("a") == "-1,-0x1p-24");
  CHECK(r.get_int("count", -5, 5) == -3);
  CHECK(error_of([&] { (void)r.get_uint64("count"); }) ==
        "option '--count' for 'tcsim dot' expects a non-negative integer, got '-3'");
  // strtoull skips leading blanks and would wrap " -1" to 2^64 - 1.
  auto blank = p.parse({"--a", "1", "--count", " -1"});
  CHECK(error_of([&] { (void)blank.get_uint64("count"); }) ==
        "option '--count' for 'tcsim dot' expects a non-negative integer, got ' -1'");
  CHECK(error_of([&] { (void)blank.get_int("count", -5, 5); }) ==
        "option '--count' for 'tcsim dot' expects an integer in -5..5, got ' -1'");
}

TEST_CASE("args: unknown option lists the allowed ones", "[args]") {
  auto p = dot_parser();
  auto msg = error_of([&] { p.parse({"--a", "1", "--foo", "3"}); });
  CHECK(msg ==
        "unknown option '--foo' for 'tcsim dot'; allowed: --unit, --in, --unit-config, --a, --file, --count, "
        "--json, --help");
}

TEST_CASE("args: missing required option is named", "[args]") {
  auto p = dot_parser();
  auto msg = error_of([&] { p.parse({"--unit", "v100"}); });
  CHECK(msg.find("missing required option '--a' for 'tcsim dot'") == 0);
}

TEST_CASE("args: malformed uses are errors", "[args]") {
  auto p = dot_parser();
  CHECK(error_of([&] { p.parse({"--a"}); }).find("option '--a' for 'tcsim dot' needs a value") == 0);
  CHECK(error_of([&] { p.parse({"--a", "--json"}); }).find("needs a value") != std::string::npos);
  CHECK(error_of([&] { p.parse({"--a", "1", "--json=yes"}); }) == "flag '--json' for 'tcsim dot' takes no value");
  CHECK(error_of([&] { p.parse({"--a", "1", "--a", "2"}); }) == "option '--a' for 'tcsim dot' given more than once");
  CHECK(error_of([&] { p.parse({"--a", "1", "--json", "--json"}); }) == "flag '--json' for 'tcsim dot' given more than once");
  CHECK(error_of([&] { p.parse({"--a", "1", "stray"}); }).find("unexpected argument 'stray' for 'tcsim dot'") == 0);
  auto r = p.parse({"--a", "1", "--count", "12x"});
  CHECK(error_of([&] { (void)r.get_int("count", 0, 100); }) ==
        "option '--count' for 'tcsim dot' expects an integer in 0..100, got '12x'");
  // Range-checked integers quote the text as given: no wrap, no truncated value in the message.
  auto big = p.parse({"--a", "1", "--count", "4294967328"});
  CHECK(error_of([&] { (void)big.get_int("count", 0, 65536); }) ==
        "option '--count' for 'tcsim dot' expects an integer in 0..65536, got '4294967328'");
  auto huge = p.parse({"--a", "1", "--count", "99999999999999999999"});
  CHECK(error_of([&] { (void)huge.get_int("count", 0, 65536, 7); }) ==
        "option '--count' for 'tcsim dot' expects an integer in 0..65536, got '99999999999999999999'");
  CHECK(p.parse({"--a", "1", "--count", "0x20"}).get_int("count", 0, 65536) == 32);
  CHECK(p.parse({"--a", "1"}).get_int("count", 0, 65536, 7) == 7);
  CHECK(error_of([&] { (void)r.get("unit"); }).find("option '--unit' for 'tcsim dot'") == 0);
  CHECK_THROWS_AS(r.has("undeclared"), std::logic_error);
}

TEST_CASE("args: a leading zero is refused, not read as octal", "[args]") {
  auto p = dot_parser();
  auto r = p.parse({"--a", "1", "--count", "010"});
  CHECK(error_of([&] { (void)r.get_int("count", 0, 100); }) ==
        "option '--count' for 'tcsim dot': '010' has a leading zero (octal is not read, nor is it read as decimal); "
        "write 10");
  auto neg = p.parse({"--a", "1", "--count", "-007"});
  CHECK(error_of([&] { (void)neg.get_int("count", -100, 100); }) ==
        "option '--count' for 'tcsim dot': '-007' has a leading zero (octal is not read, nor is it read as decimal); "
        "write -7");
  auto seed = p.parse({"--a", "1", "--count", "00"});
  CHECK(error_of([&] { (void)seed.get_uint64("count"); }) ==
        "option '--count' for 'tcsim dot': '00' has a leading zero (octal is not read, nor is it read as decimal); "
        "write 0");
  // An empty value is refused unless the option takes free text ("value") or a list ("values").
  CHECK(error_of([&] { p.parse({"--a", "1", "--count", ""}); }) ==
        "option '--count' for 'tcsim dot' has an empty value; give --count <n> or leave the option out");
  CHECK(p.parse({"--a", "1", "--unit", ""}).get("unit").empty());  // value_name "value": free text
  // Still read: 0 itself, 0x hex, and decimals without leading zeros.
  CHECK(p.parse({"--a", "1", "--count", "0"}).get_int("count", 0, 100) == 0);
  CHECK(p.parse({"--a", "1", "--count", "0x10"}).get_int("count", 0, 100) == 16);
  CHECK(p.parse({"--a", "1", "--count", "10"}).get_uint64("count") == 10);
}

TEST_CASE("args: --help skips the required checks", "[args]") {
  auto p = dot_parser();
  CHECK(p.parse({"--help"}).help());
  CHECK(p.parse({"-h"}).help());
  auto text = p.help_text();
  CHECK(text.find("usage: tcsim dot [options]") == 0);
  CHECK(text.find("--unit-config <file>") != std::string::npos);
  CHECK(text.find("comma-separated a values (required)") != std::string::npos);
  CHECK(text.find("--json") != std::string::npos);
  CHECK(text.find("--help") != std::string::npos);
}

TEST_CASE("args: one-of constraints", "[args]") {
  auto p = dot_parser();
  auto none = p.parse({"--a", "1"});
  auto one = p.parse({"--a", "1", "--unit", "v100"});
  auto both = p.parse({"--a", "1", "--unit", "v100", "--unit-config", "u.json"});
  CHECK(error_of([&] { none.require_one_of({"unit", "unit-config"}); }) ==
        "missing option for 'tcsim dot': give exactly one of --unit, --unit-config");
  CHECK(error_of([&] { one.require_one_of({"unit", "unit-config"}); }).empty());
  CHECK(error_of([&] { both.require_one_of({"unit", "unit-config"}); }).find("conflicting options") == 0);
  CHECK(error_of([&] { none.at_most_one_of({"unit", "unit-config"}); }).empty());
  CHECK(error_of([&] { both.at_most_one_of({"unit", "unit-config"}); }).find("give at most one of") != std::string::npos);
}

TEST_CASE("args: positionals only when declared", "[args]") {
  ArgParser p("validate-dump");
  p.option("unit", "unit");
  p.positionals("dir", "dump directories");
  auto r = p.parse({"d1", "--unit", "a100", "d2"});
  CHECK(r.positional() == std::vector<std::string>{"d1", "d2"});
  CHECK(p.help_text().find("usage: tcsim validate-dump [options] [dir...]") == 0);
}

TEST_CASE("args: one positional is shown as one in the usage line", "[args]") {
  // `tcsim experiment --help` once said [id...] while the command takes one id.
  ArgParser p("experiment");
  p.positional("id", "the experiment");
  CHECK(p.help_text().find("usage: tcsim experiment [options] [id]\n") == 0);
  CHECK(p.parse({"a"}).positional() == std::vector<std::string>{"a"});
}

TEST_CASE("args: declaring an option twice is a programming error", "[args]") {
  ArgParser p("x");
  p.flag("json", "json");
  CHECK_THROWS_AS(p.option("json", "again"), std::logic_error);
  CHECK_THROWS_AS(p.flag("help", "reserved"), std::logic_error);
}
