// Option parsing for the tcsim subcommands.
//
// Declare a command's options once, each with a help string; parse the arguments that
// follow the subcommand name; read the values by name.
//
//   int cmd_dot(const Args& args) {
//     ArgParser p("dot", "evaluate d = c + sum a_i b_i through a unit");
//     p.option("unit", "name of a built-in unit");             // --unit <value>, optional
//     p.required("in", "input format of a and b");             // --in <value>, must be given
//     p.flag("json", "print one JSON object");                 // --json, no value
//     p.multi_option("file", "a dump file (repeatable)");      // --file x --file y
//     auto parsed = p.parse(args);                             // throws std::invalid_argument
//     if (parsed.help()) return p.print_help();                // --help / -h: usage, exit 0
//     parsed.require_one_of({"unit", "unit-config"});          // exactly one of them
//     std::string in = parsed.get("in");                       // value (throws when absent)
//     std::string unit = parsed.get_or("unit", "v100");        // value or a default
//     bool json = parsed.has("json");                          // flag set / option given
//     auto files = parsed.get_all("file");                     // every value, in order
//     long long n = parsed.get_int("count", 1, 100, 10);       // integer in 1..100, default 10
//   }
//
// Syntax accepted: `--key value`, `--key=value`, `--flag`, `--help`/`-h`. Positional
// arguments are rejected unless `positionals()` declares them.
//
// Errors are std::invalid_argument with messages that name the command and the option,
// e.g. "unknown option '--foo' for 'tcsim dot'; allowed: --unit, --in, --json, --help",
// "missing required option '--in' for 'tcsim dot'", "option '--unit' for 'tcsim dot'
// needs a value". main.cpp prints them as "tcsim dot: error: ..." and exits with 2.
// Asking a ParsedArgs about a name that was never declared is a programming error:
// std::logic_error.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tcsim::cli {

class ArgParser;

// The result of ArgParser::parse: values by option name (without the leading "--").
class ParsedArgs {
 public:
  // --help or -h was given (required options were then not checked).
  bool help() const { return help_; }
  // The flag was set, or the option was given at least once.
  bool has(std::string_view name) const;
  // Value of an option; throws std::invalid_argument when it was not given.
  // For a multi_option: its last value.
  const std::string& get(std::string_view name) const;
  // Value of an option, or `fallback` when it was not given.
  std::string get_or(std::string_view name, std::string_view fallback) const;
  // Value of an option when given.
  std::optional<std::string> find(std::string_view name) const;
  // Every value of an option, in command-line order (empty when not given).
  std::vector<std::string> get_all(std::string_view name) const;
  // Integer value (decimal or 0x hex; the full text, no blanks) in [lo, hi]; else
  // std::invalid_argument naming the option, quoting the text as given and the range. A
  // leading zero before more digits ("010") is refused with its own message: C reads it as
  // octal (8), a user means 10; neither is guessed. Every integer option has a range, so
  // that no value wraps when the caller narrows it (4294967328 is not 32 as an int).
  long long get_int(std::string_view name, long long lo, long long hi) const;
  long long get_int(std::string_view name, long long lo, long long hi, long long fallback) const;
  // Any 64-bit unsigned value (seeds); same syntax, no sign.
  std::uint64_t get_uint64(std::string_view name) const;
  std::uint64_t get_uint64(std::string_view name, std::uint64_t fallback) const;
  // Positional arguments, in order (only when the parser declared positionals()).
  const std::vector<std::string>& positional() const { return positional_; }
  // Throws std::invalid_argument unless exactly one of the options was given.
  void require_one_of(std::initializer_list<std::string_view> names) const;
  // Throws std::invalid_argument when more than one of the options was given.
  void at_most_one_of(std::initializer_list<std::string_view> names) const;

 private:
  friend class ArgParser;
  struct Entry {
    std::string name;
    std::string value;
  };
  std::string where_;                  // "'tcsim dot'", for messages
  std::vector<std::string> declared_;  // option and flag names of the parser
  bool help_ = false;
  std::vector<Entry> given_;  // every option/flag occurrence, in order
  std::vector<std::string> positional_;
  void check_declared(std::string_view name) const;
};

class ArgParser {
 public:
  // `command` is the subcommand name ("dot"); `summary` one line for --help.
  explicit ArgParser(std::string command, std::string summary = "");

  // `--name <value>`, optional. `value_name` is shown in --help ("<value>" by default).
  ArgParser& option(std::string name, std::string help, std::string value_name = "value");
  // `--name <value>` that must be given.
  ArgParser& required(std::string name, std::string help, std::string value_name = "value");
  // `--name <value>` that may be repeated; read with get_all().
  ArgParser& multi_option(std::string name, std::string help, std::string value_name = "value");
  // `--name` without a value.
  ArgParser& flag(std::string name, std::string help);
  // Accept positional arguments (any number), described in --help as `[name...]`.
  ArgParser& positionals(std::string name, std::string help);
  // Accept positional arguments, described in --help as one `[name]`: the command takes one
  // (and says so itself when given more).
  ArgParser& positional(std::string name, std::string help);

  // Parses the arguments after the subcommand name. Throws std::invalid_argument.
  ParsedArgs parse(const std::vector<std::string>& args) const;

  // "usage: tcsim dot [options]" and one line per option.
  std::string help_text() const;
  // Writes help_text() to stdout and returns 0 (the exit code of `tcsim <cmd> --help`).
  int print_help() const;

  const std::string& command() const { return command_; }

 private:
  friend class ParsedArgs;
  enum class Kind { Option, Required, Multi, Flag };
  struct Spec {
    std::string name;
    std::string help;
    std::string value_name;
    Kind kind;
  };
  std::string command_;
  std::string summary_;
  std::vector<Spec> specs_;
  std::optional<Spec> positional_;
  bool single_positional_ = false;

  ArgParser& add(Spec spec);
  const Spec* lookup(std::string_view name) const;
  std::string where() const;  // "'tcsim dot'"
  std::string allowed() const;
};

// --threads and --grid, as the commands that run under mpirun (gemm, lu) declare them; `grid_note`
// ends --grid's text.
inline void declare_threads_and_grid(ArgParser& p, const std::string& grid_note) {
  p.option("threads", "threads (default 0: all cores); the bits do not depend on it", "T");
  p.option("grid", "process grid under mpirun: P rows by Q columns of ranks, P Q = the ranks (default: as square as "
                   "possible); " + grid_note, "PxQ");
}

// --json and --quiet, as the commands that print one JSON object and show progress declare them.
inline void declare_json_and_quiet(ArgParser& p) {
  p.flag("json", "print one JSON object");
  p.flag("quiet", "no progress on stderr (shown for runs over 2 s)");
}

}  // namespace tcsim::cli
