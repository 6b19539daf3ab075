// The message of the std::invalid_argument a call throws: the tests of the errors that name the
// bad field (args, format literals and encodings, dump files).
#pragma once
#include <stdexcept>
#include <string>

namespace tcsim::test {

// The message of the std::invalid_argument thrown by f ("" when nothing is thrown).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace tcsim::test
