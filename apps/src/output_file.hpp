// Files and standard output written by the CLI, checked from the first byte to the close, and
// output paths checked before any computation (docs/design.md, "Outputs, JSON numbers and
// progress"). Every error is std::runtime_error "<option>: <path>: <what>" (main.cpp prints
// it as "tcsim <cmd>: error: ..." and exits with 2); a failed write never leaves exit 0.
#pragma once
#include <cstdio>
#include <string>
#include <string_view>

namespace tcsim::cli {

// Before computing: `path` can be created or overwritten as a file ("-": standard output,
// always fine). Refused: a folder, a path whose folder does not exist or is not a folder, a
// folder or an existing file that is not writable. Nothing is created.
void check_output_file(std::string_view option, const std::string& path);

// Before computing: `dir` is a folder that can be written into; created (with its parents)
// when missing. Refused: an existing file, a folder that cannot be created or written.
void prepare_output_folder(std::string_view option, const std::string& dir);

// A file written with stdio and closed with every error checked; "-" writes to standard
// output (flushed and checked at close, not closed). Destroyed without close(): closed
// silently (an exception is already on its way).
class OutputFile {
 public:
  OutputFile(std::string option, std::string path);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  std::FILE* get() { return f_; }
  void write(std::string_view text);
  // Flushes and closes; throws naming the option and the path when any write failed
  // (a full disk, /dev/full) or the close did.
  void close();

 private:
  std::string option_, path_;
  std::FILE* f_ = nullptr;
  [[noreturn]] void fail(const std::string& what, int error);
};

// The whole file at once (reports, CSV, scripts).
void write_file(std::string_view option, const std::string& path, std::string_view content);

// Flushes standard output and throws "standard output: write failed: ..." when any write to it
// failed (main.cpp calls it after every command: `tcsim gemm --json > /dev/full` exits 2).
void finish_stdout();

}  // namespace tcsim::cli
