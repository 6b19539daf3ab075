// Internal field names -> the names users typed (option_names.hpp).
#include "option_names.hpp"

#include <cctype>

namespace tcsim::checks {

namespace {

struct Field {
  std::string_view internal, cli, python;
};

// Whole identifiers of models/ messages. Only names with an underscore or a colon after them
// (the models' "field: ..." form), so that prose ("fp16 storage") is left alone.
constexpr Field kFields[] = {
    {"split_k", "--split-k", "split_k"},
    {"fabsum_block", "--fabsum", "fabsum"},
    {"fabsum_combine", "--fabsum-combine", "fabsum_combine"},
    {"input_rounding", "--input-rounding", "input_rounding"},
    {"max_iterations", "--max-iterations", "max_iterations"},
    {"inner_block: s must be between 1 and r =", "--s must be between 1 and --r =", "s must be between 1 and r ="},
    {"precision:", "--solve:", "solve:"},
    {"storage:", "--storage:", "storage:"},
    {"variant:", "--variant:", "variant:"},
    {"panel:", "--panel:", "panel:"},
    {"working:", "--working:", "working:"},
    {"scale_format:", "--scale-format:", "scale_format:"},
    {"scale_a and scale_b", "--scale-a and --scale-b", "scale_a and scale_b"},
    {"refine:", "--refine:", "refine:"},
    {"variant fp32 (no tensor core)", "--variant fp32 (no tensor core)", "variant fp32 (no tensor core)"},
    {"words must", "--words must", "words must"},
    {"words > 1", "--words > 1", "words > 1"},
};

bool ident(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; }
// Part of a path or file name ("/tmp/split_k.mtx"): never rewritten.
bool path_char(char c) { return ident(c) || c == '/' || c == '.'; }

bool whole_at(std::string_view s, std::size_t i, std::string_view word) {
  if (s.substr(i, word.size()) != word) return false;
  if (i > 0 && path_char(s[i - 1])) return false;
  const std::size_t end = i + word.size();
  return end >= s.size() || !ident(word.back()) || (!path_char(s[end]) || (s[end] == '.' && (end + 1 >= s.size() || s[end + 1] == ' ')));
}

}  // namespace

std::string name_options(std::string_view message, Caller caller) {
  std::string out;
  bool in_command = false;  // inside 'tcsim ...': an example command, left as written
  for (std::size_t i = 0; i < message.size();) {
    if (message[i] == '\'') {
      if (!in_command && message.substr(i + 1, 6) == "tcsim ") in_command = true;
      else if (in_command) in_command = false;
      out += message[i++];
      continue;
    }
    if (!in_command) {
      bool replaced = false;
      for (const Field& f : kFields)
        if (whole_at(message, i, f.internal) && !(i >= 2 && message.substr(i - 2, 2) == "--")) {
          out += caller == Caller::Cli ? f.cli : f.python;
          i += f.internal.size();
          replaced = true;
          break;
        }
      if (replaced) continue;
      // Python: a CLI option "--name" becomes the argument "name" (hyphens as underscores);
      // "--pivot", a flag, becomes "pivot=True".
      if (caller == Caller::Python && message.substr(i, 2) == "--" && i + 2 < message.size() &&
          std::isalpha(static_cast<unsigned char>(message[i + 2])) && (i == 0 || !ident(message[i - 1]))) {
        std::size_t e = i + 2;
        while (e < message.size() && ident(message[e])) ++e;
        std::string name(message.substr(i + 2, e - i - 2));
        for (char& c : name)
          if (c == '-') c = '_';
        out += name == "pivot" ? "pivot=True" : name;
        i = e;
        continue;
      }
    }
    out += message[i++];
  }
  return out;
}

}  // namespace tcsim::checks
