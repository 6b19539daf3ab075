// Output files and paths (output_file.hpp).
#include "output_file.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace tcsim::cli {

namespace {

namespace fs = std::filesystem;

[[noreturn]] void refuse(std::string_view option, const std::string& path, const std::string& what) {
  throw std::runtime_error(std::string(option) + ": " + path + ": " + what);
}

}  // namespace

void check_output_file(std::string_view option, const std::string& path) {
  if (path == "-") return;
  if (path.empty()) refuse(option, "''", "is empty; give a file name");
  std::error_code ec;
  if (fs::is_directory(path, ec)) refuse(option, path, "is a folder; give a file name");
  const fs::path parent = fs::path(path).parent_path();
  const std::string folder = parent.empty() ? "." : parent.string();
  if (!fs::exists(folder, ec)) refuse(option, path, "the folder '" + folder + "' does not exist");
  if (!fs::is_directory(folder, ec)) refuse(option, path, "'" + folder + "' is not a folder");
  if (fs::exists(path, ec)) {
    if (access(path.c_str(), W_OK) != 0) refuse(option, path, std::string("cannot be written: ") + std::strerror(errno));
  } else if (access(folder.c_str(), W_OK) != 0) {
    refuse(option, path, "the folder '" + folder + "' is not writable: " + std::strerror(errno));
  }
}

void prepare_output_folder(std::string_view option, const std::string& dir) {
  if (dir.empty()) refuse(option, "''", "is empty; give a folder");
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec)) refuse(option, dir, "is a file, not a folder");
  fs::create_directories(dir, ec);
  if (ec) refuse(option, dir, "cannot create the folder: " + ec.message());
  if (access(dir.c_str(), W_OK) != 0) refuse(option, dir, std::string("the folder is not writable: ") + std::strerror(errno));
}

OutputFile::OutputFile(std::string option, std::string path) : option_(std::move(option)), path_(std::move(path)) {
  if (path_ == "-") {
    f_ = stdout;
    return;
  }
  f_ = std::fopen(path_.c_str(), "wb");
  if (!f_) fail("cannot be written", errno);
}

OutputFile::~OutputFile() {
  if (f_ && f_ != stdout) std::fclose(f_);
}

void OutputFile::write(std::string_view text) {
  if (std::fwrite(text.data(), 1, text.size(), f_) != text.size()) fail("write failed", errno);
}

void OutputFile::close() {
  if (!f_) return;
  std::FILE* f = f_;
  errno = 0;
  const bool flushed = std::fflush(f) == 0 && !std::ferror(f);
  const int error = errno;
  if (f == stdout) {
    f_ = nullptr;
    if (!flushed) {
      std::clearerr(stdout);
      fail("write failed", error);
    }
    return;
  }
  f_ = nullptr;
  const bool closed = std::fclose(f) == 0;
  if (!flushed || !closed) fail("write failed", flushed ? errno : error);
}

void OutputFile::fail(const std::string& what, int error) {
  refuse(option_, path_ == "-" ? std::string("standard output") : path_,
         what + (error ? std::string(": ") + std::strerror(error) : std::string()));
}

void write_file(std::string_view option, const std::string& path, std::string_view content) {
  OutputFile f{std::string(option), path};
  f.write(content);
  f.close();
}

void finish_stdout() {
  errno = 0;
  const bool ok = std::fflush(stdout) == 0 && !std::ferror(stdout);
  if (ok) return;
  const int error = errno;
  std::clearerr(stdout);
  throw std::runtime_error(std::string("standard output: write failed") +
                           (error ? std::string(": ") + std::strerror(error) : std::string()));
}

}  // namespace tcsim::cli
