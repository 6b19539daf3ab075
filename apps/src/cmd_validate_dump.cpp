// Placeholder until the command is implemented.
#include <cstdio>

#include "commands.hpp"

namespace tcsim::cli {
int cmd_validate_dump(const Args&) {
  std::fprintf(stderr, "tcsim: this command is not implemented yet\n");
  return 2;
}
}  // namespace tcsim::cli
