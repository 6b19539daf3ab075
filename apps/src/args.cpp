// Option parsing for the tcsim subcommands (see args.hpp).
#include "args.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace tcsim::cli {

namespace {

std::string dashed(std::string_view name) { return "--" + std::string(name); }

std::string dashed_list(std::initializer_list<std::string_view> names) {
  std::string out;
  for (auto n : names) out += (out.empty() ? "" : ", ") + dashed(n);
  return out;
}

// Whole-text integer conversion; false when malformed or out of range. strtoll/strtoull
// skip leading blanks and strtoull negates "-1" (also " -1") into 2^64 - 1, so both are
// refused before the conversion.
// "010", "-007", "00": a leading zero before more digits, which strtoll would read as octal
// (--k 010 running k = 8). Refused rather than read either way: the user's intent is unclear.
bool leading_zero(const std::string& text) {
  const std::size_t d = !text.empty() && (text[0] == '-' || text[0] == '+') ? 1 : 0;
  return text.size() > d + 1 && text[d] == '0' && std::isdigit(static_cast<unsigned char>(text[d + 1]));
}

// The text without its leading zeros ("010" -> "10", "-007" -> "-7"), for the message.
std::string without_leading_zeros(const std::string& text) {
  const std::size_t d = !text.empty() && (text[0] == '-' || text[0] == '+') ? 1 : 0;
  std::size_t z = d;
  while (z + 1 < text.size() && text[z] == '0') ++z;
  return text.substr(0, d) + text.substr(z);
}

std::string leading_zero_message(std::string_view name, const std::string& where, const std::string& text) {
  return "option '" + dashed(name) + "' for " + where + ": '" + text +
         "' has a leading zero (octal is not read, nor is it read as decimal); write " + without_leading_zeros(text);
}

bool to_signed(const std::string& text, long long& out) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0]))) return false;
  errno = 0;
  char* end = nullptr;
  out = std::strtoll(text.c_str(), &end, 0);
  return errno == 0 && end == text.c_str() + text.size();
}

bool to_unsigned(const std::string& text, std::uint64_t& out) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0])) || text[0] == '-') return false;
  errno = 0;
  char* end = nullptr;
  unsigned long long v = std::strtoull(text.c_str(), &end, 0);
  out = v;
  return errno == 0 && end == text.c_str() + text.size();
}

}  // namespace

// ---------------------------------------------------------------------------- ArgParser

ArgParser::ArgParser(std::string command, std::string summary)
    : command_(std::move(command)), summary_(std::move(summary)) {}

ArgParser& ArgParser::add(Spec spec) {
  if (spec.name.empty() || spec.name.rfind("-", 0) == 0 || spec.name == "help")
    throw std::logic_error("ArgParser: bad option name '" + spec.name + "'");
  if (lookup(spec.name)) throw std::logic_error("ArgParser: option '" + spec.name + "' declared twice");
  specs_.push_back(std::move(spec));
  return *this;
}

ArgParser& ArgParser::option(std::string name, std::string help, std::string value_name) {
  return add({std::move(name), std::move(help), std::move(value_name), Kind::Option});
}
ArgParser& ArgParser::required(std::string name, std::string help, std::string value_name) {
  return add({std::move(name), std::move(help), std::move(value_name), Kind::Required});
}
ArgParser& ArgParser::multi_option(std::string name, std::string help, std::string value_name) {
  return add({std::move(name), std::move(help), std::move(value_name), Kind::Multi});
}
ArgParser& ArgParser::flag(std::string name, std::string help) {
  return add({std::move(name), std::move(help), "", Kind::Flag});
}
ArgParser& ArgParser::positionals(std::string name, std::string help) {
  positional_ = Spec{std::move(name), std::move(help), "", Kind::Option};
  return *this;
}
ArgParser& ArgParser::positional(std::string name, std::string help) {
  positionals(std::move(name), std::move(help));
  single_positional_ = true;
  return *this;
}

const ArgParser::Spec* ArgParser::lookup(std::string_view name) const {
  for (const auto& s : specs_)
    if (s.name == name) return &s;
  return nullptr;
}

std::string ArgParser::where() const { return "'tcsim " + command_ + "'"; }

std::string ArgParser::allowed() const {
  std::string out;
  for (const auto& s : specs_) out += dashed(s.name) + ", ";
  return out + "--help";
}

ParsedArgs ArgParser::parse(const std::vector<std::string>& args) const {
  ParsedArgs out;
  out.where_ = where();
  for (const auto& s : specs_) out.declared_.push_back(s.name);

  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--help" || arg == "-h") {
      out.help_ = true;
      continue;
    }
    if (arg.size() < 3 || arg.compare(0, 2, "--") != 0) {
      // Positional (a lone "-" or a negative number included).
      if (!positional_)
        throw std::invalid_argument("unexpected argument '" + arg + "' for " + where() +
                                    "; options are written --name value (allowed: " + allowed() + ")");
      out.positional_.push_back(arg);
      continue;
    }
    std::string name = arg.substr(2);
    std::optional<std::string> inline_value;
    if (auto eq = name.find('='); eq != std::string::npos) {
      inline_value = name.substr(eq + 1);
      name.resize(eq);
    }
    const Spec* spec = lookup(name);
    if (!spec)
      throw std::invalid_argument("unknown option '--" + name + "' for " + where() + "; allowed: " + allowed());
    if (spec->kind == Kind::Flag) {
      if (inline_value) throw std::invalid_argument("flag '--" + name + "' for " + where() + " takes no value");
      if (out.has(name)) throw std::invalid_argument("flag '--" + name + "' for " + where() + " given more than once");
      out.given_.push_back({name, ""});
      continue;
    }
    std::string value;
    if (inline_value) {
      value = *inline_value;
    } else {
      // The next argument is the value unless it is missing or itself an option.
      if (i + 1 >= args.size() || (args[i + 1].size() >= 3 && args[i + 1].compare(0, 2, "--") == 0))
        throw std::invalid_argument("option '--" + name + "' for " + where() + " needs a value (--" + name +
                                    " <" + spec->value_name + ">)");
      value = args[++i];
    }
    if (spec->kind != Kind::Multi && out.has(name))
      throw std::invalid_argument("option '--" + name + "' for " + where() + " given more than once");
    // '--instruction ""' silently meant the default: an empty value is refused, except for
    // options whose value is free text or a list that may be empty (value_name "value(s)",
    // e.g. dot's --a "" for K = 0; they check their values themselves).
    if (value.empty() && spec->value_name != "value" && spec->value_name != "values")
      throw std::invalid_argument("option '--" + name + "' for " + where() + " has an empty value; give --" + name +
                                  " <" + spec->value_name + "> or leave the option out");
    out.given_.push_back({name, std::move(value)});
  }

  if (!out.help_)
    for (const auto& s : specs_)
      if (s.kind == Kind::Required && !out.has(s.name))
        throw std::invalid_argument("missing required option '--" + s.name + "' for " + where() + " (--" +
                                    s.name + " <" + s.value_name + ">: " + s.help + ")");
  return out;
}

std::string ArgParser::help_text() const {
  std::string out = "usage: tcsim " + command_ + " [options]";
  if (positional_) out += " [" + positional_->name + (single_positional_ ? "]" : "...]");
  out += "\n";
  if (!summary_.empty()) out += summary_ + "\n";
  struct Line {
    std::string left, right;
  };
  std::vector<Line> lines;
  for (const auto& s : specs_) {
    std::string left = dashed(s.name);
    if (s.kind != Kind::Flag) left += " <" + s.value_name + ">";
    std::string right = s.help;
    if (s.kind == Kind::Required) right += " (required)";
    if (s.kind == Kind::Multi) right += " (repeatable)";
    lines.push_back({left, right});
  }
  lines.push_back({"--help", "show this help"});
  if (positional_) lines.push_back({positional_->name, positional_->help});
  std::size_t width = 0;
  for (const auto& l : lines) width = std::max(width, l.left.size());
  out += "\noptions:\n";
  for (const auto& l : lines) out += "  " + l.left + std::string(width - l.left.size() + 2, ' ') + l.right + "\n";
  return out;
}

int ArgParser::print_help() const {
  std::fputs(help_text().c_str(), stdout);
  return 0;
}

// ---------------------------------------------------------------------------- ParsedArgs

void ParsedArgs::check_declared(std::string_view name) const {
  if (std::find(declared_.begin(), declared_.end(), name) == declared_.end())
    throw std::logic_error("ParsedArgs: option '" + std::string(name) + "' was not declared for " + where_);
}

bool ParsedArgs::has(std::string_view name) const {
  check_declared(name);
  return std::any_of(given_.begin(), given_.end(), [&](const Entry& e) { return e.name == name; });
}

std::optional<std::string> ParsedArgs::find(std::string_view name) const {
  check_declared(name);
  for (auto it = given_.rbegin(); it != given_.rend(); ++it)
    if (it->name == name) return it->value;
  return std::nullopt;
}

const std::string& ParsedArgs::get(std::string_view name) const {
  check_declared(name);
  for (auto it = given_.rbegin(); it != given_.rend(); ++it)
    if (it->name == name) return it->value;
  throw std::invalid_argument("option '" + dashed(name) + "' for " + where_ + " is required here");
}

std::string ParsedArgs::get_or(std::string_view name, std::string_view fallback) const {
  auto v = find(name);
  return v ? *v : std::string(fallback);
}

std::vector<std::string> ParsedArgs::get_all(std::string_view name) const {
  check_declared(name);
  std::vector<std::string> out;
  for (const auto& e : given_)
    if (e.name == name) out.push_back(e.value);
  return out;
}

long long ParsedArgs::get_int(std::string_view name, long long lo, long long hi) const {
  const std::string& text = get(name);
  if (leading_zero(text)) throw std::invalid_argument(leading_zero_message(name, where_, text));
  long long v = 0;
  if (!to_signed(text, v) || v < lo || v > hi)
    throw std::invalid_argument("option '" + dashed(name) + "' for " + where_ + " expects an integer in " +
                                std::to_string(lo) + ".." + std::to_string(hi) + ", got '" + text + "'");
  return v;
}

long long ParsedArgs::get_int(std::string_view name, long long lo, long long hi, long long fallback) const {
  return has(name) ? get_int(name, lo, hi) : fallback;
}

std::uint64_t ParsedArgs::get_uint64(std::string_view name) const {
  const std::string& text = get(name);
  if (leading_zero(text)) throw std::invalid_argument(leading_zero_message(name, where_, text));
  std::uint64_t v = 0;
  if (!to_unsigned(text, v))
    throw std::invalid_argument("option '" + dashed(name) + "' for " + where_ +
                                " expects a non-negative integer, got '" + text + "'");
  return v;
}

std::uint64_t ParsedArgs::get_uint64(std::string_view name, std::uint64_t fallback) const {
  return has(name) ? get_uint64(name) : fallback;
}

void ParsedArgs::require_one_of(std::initializer_list<std::string_view> names) const {
  std::size_t n = 0;
  for (auto name : names) n += has(name) ? 1 : 0;
  if (n != 1)
    throw std::invalid_argument(std::string(n == 0 ? "missing option" : "conflicting options") + " for " + where_ +
                                ": give exactly one of " + dashed_list(names));
}

void ParsedArgs::at_most_one_of(std::initializer_list<std::string_view> names) const {
  std::size_t n = 0;
  for (auto name : names) n += has(name) ? 1 : 0;
  if (n > 1)
    throw std::invalid_argument("conflicting options for " + where_ + ": give at most one of " + dashed_list(names));
}

}  // namespace tcsim::cli
