// Matrix Market and .npy readers and writers (matrix_files.hpp).
#include "matrix_files.hpp"
#include "output_file.hpp"
#include "value_checks.hpp"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <set>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace tcsim::apps {

namespace {

constexpr std::size_t kMaxEntries = std::size_t{1} << 31;  // 16 GiB of doubles: refused before allocating

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::vector<std::string> words(const std::string& line) {
  std::istringstream is(line);
  return {std::istream_iterator<std::string>(is), std::istream_iterator<std::string>()};
}

[[noreturn]] void fail(std::string_view option, const std::string& path, const std::string& what) {
  throw std::runtime_error(std::string(option) + ": " + path + ": " + what);
}

// A whole token as a number (strtod: decimal or C99 hex, correctly rounded to binary64; inf
// and nan as it spells them).
bool parse_number(const std::string& t, double& v) {
  if (t.empty() || std::isspace(static_cast<unsigned char>(t[0]))) return false;
  char* end = nullptr;
  v = std::strtod(t.c_str(), &end);
  return end == t.c_str() + t.size();
}

bool parse_size(const std::string& t, std::size_t& v) {
  const auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  return ec == std::errc() && p == t.data() + t.size();
}

Matrix read_matrix_market(std::istream& is, std::string_view option, const std::string& path, std::size_t file_size) {
  std::string line;
  std::size_t line_no = 1;
  std::getline(is, line);
  const auto header = words(lower(line));
  if (header.size() != 5 || header[0] != "%%matrixmarket" || header[1] != "matrix")
    fail(option, path, "line 1: expected '%%MatrixMarket matrix <array|coordinate> <real|integer> <general|symmetric|skew-symmetric>', got '" + line + "'");
  const std::string& layout = header[2];
  const std::string& field = header[3];
  const std::string& symmetry = header[4];
  if (layout != "array" && layout != "coordinate")
    fail(option, path, "line 1: layout '" + layout + "' is not supported; allowed: array, coordinate");
  if (field != "real" && field != "integer" && field != "double")
    fail(option, path, "line 1: field '" + field + "' is not supported (" +
                           (field == "complex" || field == "pattern" ? "no real values" : "unknown") +
                           "); allowed: real, integer");
  if (symmetry != "general" && symmetry != "symmetric" && symmetry != "skew-symmetric")
    fail(option, path, "line 1: symmetry '" + symmetry + "' is not supported; allowed: general, symmetric, skew-symmetric");
  const bool coordinate = layout == "coordinate", general = symmetry == "general";
  const double mirror = symmetry == "skew-symmetric" ? -1.0 : 1.0;

  // The next line that is neither a comment nor blank.
  auto next = [&](std::vector<std::string>& w) {
    while (std::getline(is, line)) {
      ++line_no;
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.empty() || line[0] == '%') continue;
      w = words(line);
      if (!w.empty()) return true;
    }
    return false;
  };
  auto at = [&] { return "line " + std::to_string(line_no) + ": "; };
  std::vector<std::string> w;
  if (!next(w)) fail(option, path, "the size line is missing (expected '" + std::string(coordinate ? "rows cols entries" : "rows cols") + "')");
  Matrix m;
  std::size_t entries = 0;
  if (w.size() != (coordinate ? 3u : 2u) || !parse_size(w[0], m.rows) || !parse_size(w[1], m.cols) ||
      (coordinate && !parse_size(w[2], entries)))
    fail(option, path, at() + "expected the size line '" + (coordinate ? "rows cols entries" : "rows cols") + "', got '" + line + "'");
  if (m.rows == 0 || m.cols == 0) fail(option, path, at() + "the matrix is empty (" + line + "); rows and cols must be positive");
  if (m.rows > kMaxEntries / m.cols) fail(option, path, at() + "a " + line + " matrix is too large (at most 2^31 entries)");
  // Before allocating: an array file holds every value (2 bytes at least each); a
  // coordinate file's dense matrix is capped at 2^28 entries (2 GiB).
  if (!coordinate && m.rows * m.cols > file_size / 2)
    fail(option, path, at() + "a " + line + " array needs at least " + std::to_string(2 * m.rows * m.cols) +
                           " bytes of values; the file has " + std::to_string(file_size));
  if (coordinate && m.rows * m.cols > (std::size_t{1} << 28))
    fail(option, path, at() + "a " + line + " coordinate matrix is too large to hold dense (at most 2^28 entries)");
  if (!general && m.rows != m.cols) fail(option, path, at() + "a " + symmetry + " matrix must be square, got " + line);
  m.values.assign(m.rows * m.cols, 0.0);
  const bool integer = field == "integer";
  auto value = [&](const std::string& t) {
    double v;
    if (!parse_number(t, v)) fail(option, path, at() + "'" + t + "' is not a number");
    if (integer && (t.find_first_not_of("+-0123456789") != std::string::npos))
      fail(option, path, at() + "'" + t + "' is not an integer (the header says integer)");
    return v;
  };
  if (coordinate) {
    if (entries > m.rows * m.cols) fail(option, path, at() + std::to_string(entries) + " entries do not fit a " + std::to_string(m.rows) + " x " + std::to_string(m.cols) + " matrix");
    std::set<std::pair<std::size_t, std::size_t>> seen;
    for (std::size_t e = 0; e < entries; ++e) {
      if (!next(w)) fail(option, path, "the file ends after " + std::to_string(e) + " of " + std::to_string(entries) + " entries");
      std::size_t i, j;
      if (w.size() != 3 || !parse_size(w[0], i) || !parse_size(w[1], j))
        fail(option, path, at() + "expected an entry 'row col value' (1-based), got '" + line + "'");
      if (i < 1 || i > m.rows || j < 1 || j > m.cols)
        fail(option, path, at() + "entry (" + w[0] + ", " + w[1] + ") is outside the " + std::to_string(m.rows) + " x " + std::to_string(m.cols) + " matrix");
      if (!general && (symmetry == "symmetric" ? j > i : j >= i))
        fail(option, path, at() + "a " + symmetry + " file lists the lower triangle only (row > col" + (symmetry == "symmetric" ? " or row == col" : "") + "), got (" + w[0] + ", " + w[1] + ")");
      if (!seen.insert({i, j}).second) fail(option, path, at() + "entry (" + w[0] + ", " + w[1] + ") is given twice");
      const double v = value(w[2]);
      m.values[(i - 1) * m.cols + (j - 1)] = v;
      if (!general && i != j) m.values[(j - 1) * m.cols + (i - 1)] = mirror * v;
    }
  } else {  // column by column; symmetric: the lower triangle (skew: below the diagonal)
    for (std::size_t j = 0; j < m.cols; ++j)
      for (std::size_t i = general ? 0 : (symmetry == "symmetric" ? j : j + 1); i < m.rows; ++i) {
        if (!next(w)) fail(option, path, "the file ends before entry (" + std::to_string(i + 1) + ", " + std::to_string(j + 1) + ") of the " + std::to_string(m.rows) + " x " + std::to_string(m.cols) + " array (column-major)");
        if (w.size() != 1) fail(option, path, at() + "expected one value per line, got '" + line + "'");
        const double v = value(w[0]);
        m.values[i * m.cols + j] = v;
        if (!general && i != j) m.values[j * m.cols + i] = mirror * v;
      }
  }
  if (next(w)) fail(option, path, at() + "unexpected data after the last entry: '" + line + "'");
  return m;
}

// The value of `key` in the .npy header dict, as written (quotes kept).
std::string header_value(const std::string& h, const std::string& key, std::string_view option, const std::string& path) {
  std::size_t p = h.find("'" + key + "'");
  if (p == std::string::npos) p = h.find("\"" + key + "\"");
  if (p == std::string::npos) fail(option, path, "the .npy header has no '" + key + "': " + h);
  p = h.find(':', p);
  if (p == std::string::npos) fail(option, path, "the .npy header is malformed: " + h);
  ++p;
  while (p < h.size() && std::isspace(static_cast<unsigned char>(h[p]))) ++p;
  std::size_t e = p;
  if (p < h.size() && h[p] == '(') {
    e = h.find(')', p);
    if (e == std::string::npos) fail(option, path, "the .npy header is malformed: " + h);
    ++e;
  } else {
    while (e < h.size() && h[e] != ',' && h[e] != '}') ++e;
  }
  std::string v = h.substr(p, e - p);
  while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back()))) v.pop_back();
  std::replace(v.begin(), v.end(), '"', '\'');  // either quote of a Python string literal
  return v;
}

struct NpyLayout {
  std::string descr, shape;  // as the header writes them
  std::size_t width = 0, rows = 0, cols = 0;
  bool big_endian = false, fortran = false;
};

// The dtype, order and shape of a .npy header dict `h`, checked.
NpyLayout npy_layout(const std::string& h, std::string_view option, const std::string& path) {
  const std::string descr = header_value(h, "descr", option, path);
  const std::string order = header_value(h, "fortran_order", option, path);
  const std::string shape = header_value(h, "shape", option, path);
  NpyLayout l;
  l.descr = descr;
  l.shape = shape;
  std::size_t& width = l.width;
  if (descr == "'<f8'" || descr == "'>f8'") width = 8;
  else if (descr == "'<f4'" || descr == "'>f4'") width = 4;
  else fail(option, path, "dtype " + descr + " is not supported; expected float32 ('<f4', '>f4') or float64 ('<f8', '>f8')");
  l.big_endian = descr[1] == '>';
  if (order != "True" && order != "False") fail(option, path, "fortran_order " + order + " is not True or False");
  l.fortran = order == "True";
  std::vector<std::size_t> dims;
  {
    // A Python tuple: "(2, 3)", "(4,)". Anything else ("", "[2, 3]") is refused here, before
    // its parentheses are stripped.
    if (shape.size() < 2 || shape.front() != '(' || shape.back() != ')')
      fail(option, path, "shape '" + shape + "' is not a tuple of sizes such as (2, 3)");
    std::string inner = shape.substr(1, shape.size() - 2);
    std::replace(inner.begin(), inner.end(), ',', ' ');
    for (const auto& t : words(inner)) {
      std::size_t d;
      if (!parse_size(t, d)) fail(option, path, "shape " + shape + " is not a tuple of sizes");
      dims.push_back(d);
    }
  }
  if (dims.empty() || dims.size() > 2)
    fail(option, path, "shape " + shape + " has " + std::to_string(dims.size()) + " dimensions; expected 2 (a 1-D array is read as one column)");
  l.rows = dims[0];
  l.cols = dims.size() == 2 ? dims[1] : 1;
  if (l.rows == 0 || l.cols == 0) fail(option, path, "shape " + shape + " is empty; rows and cols must be positive");
  if (l.rows > kMaxEntries / l.cols) fail(option, path, "shape " + shape + " is too large (at most 2^31 entries)");
  return l;
}

Matrix read_npy(std::istream& is, std::string_view option, const std::string& path, std::size_t file_size) {
  char magic[8];
  is.read(magic, 8);
  const int major = static_cast<unsigned char>(magic[6]);
  if (major < 1 || major > 3) fail(option, path, ".npy version " + std::to_string(major) + " is not supported; allowed: 1, 2, 3");
  std::size_t header_len = 0, prefix = 0;
  unsigned char len[4] = {};
  is.read(reinterpret_cast<char*>(len), major == 1 ? 2 : 4);
  header_len = major == 1 ? (len[0] | len[1] << 8) : (len[0] | len[1] << 8 | len[2] << 16 | static_cast<std::size_t>(len[3]) << 24);
  prefix = 8 + (major == 1 ? 2 : 4);
  if (prefix + header_len > file_size) fail(option, path, "the .npy header length " + std::to_string(header_len) + " exceeds the file");
  std::string h(header_len, '\0');
  is.read(h.data(), static_cast<std::streamsize>(header_len));
  const NpyLayout l = npy_layout(h, option, path);
  const std::string &descr = l.descr, &shape = l.shape;
  const std::size_t width = l.width;
  const bool big_endian = l.big_endian, fortran = l.fortran;
  Matrix m;
  m.rows = l.rows;
  m.cols = l.cols;
  const std::size_t count = m.rows * m.cols, expected = prefix + header_len + count * width;
  if (file_size != expected)
    fail(option, path, "shape " + shape + " of " + descr + " needs " + std::to_string(expected) + " bytes, the file has " + std::to_string(file_size));
  std::vector<unsigned char> raw(count * width);
  is.read(reinterpret_cast<char*>(raw.data()), static_cast<std::streamsize>(raw.size()));
  m.values.resize(count);
  for (std::size_t e = 0; e < count; ++e) {
    std::uint64_t bits = 0;
    for (std::size_t b = 0; b < width; ++b) {
      const std::size_t byte = big_endian ? width - 1 - b : b;
      bits |= static_cast<std::uint64_t>(raw[e * width + byte]) << (8 * b);
    }
    const double v = width == 8 ? std::bit_cast<double>(bits) : static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(bits)));
    const std::size_t i = fortran ? e % m.rows : e / m.cols, j = fortran ? e / m.rows : e % m.cols;
    m.values[i * m.cols + j] = v;
  }
  return m;
}

// "entry (2, 1)": 1-based, as Matrix Market counts.
std::string entry_name(std::size_t e, std::size_t cols) {
  return "entry (" + std::to_string(e / cols + 1) + ", " + std::to_string(e % cols + 1) + ")";
}

// The format by content (see read_matrix); `size` bytes from the stream's start.
Matrix read_matrix_stream(std::istream& is, std::size_t size, std::string_view option, const std::string& path);

// A pipe (`--a <(cat m.mtx)`, /dev/stdin) cannot seek and has no size: read it into memory,
// but sniff the magic first (so /dev/zero is refused at once) and stop once the stream holds
// more than its header implies (so an endless stream does not hang).
Matrix read_matrix_pipe(std::istream& is, std::string_view option, const std::string& path) {
  std::string bytes;
  auto fill = [&](std::size_t want) {  // read until `want` bytes (or the end); false at the end
    char chunk[1 << 16];
    while (bytes.size() < want) {
      is.read(chunk, static_cast<std::streamsize>(std::min(sizeof chunk, want - bytes.size())));
      if (is.gcount() <= 0) return false;
      bytes.append(chunk, static_cast<std::size_t>(is.gcount()));
    }
    return true;
  };
  auto too_long = [&](std::size_t limit, const std::string& why) {
    fail(option, path, "the stream holds more than " + std::to_string(limit) + " bytes, more than " + why);
  };
  fill(14);
  const bool npy = bytes.size() >= 10 && std::memcmp(bytes.data(), "\x93NUMPY", 6) == 0;
  const bool mm = bytes.size() >= 14 && lower(bytes.substr(0, 6)) == "%%matr";
  if (!npy && !mm) return read_matrix_bytes(bytes, path, option);  // refused: neither magic
  std::size_t limit = 0;
  if (npy) {
    const int major = static_cast<unsigned char>(bytes[6]);
    const std::size_t prefix = major == 1 ? 10 : 12;
    fill(prefix);
    if ((major < 1 || major > 3) || bytes.size() < prefix) return read_matrix_bytes(bytes, path, option);
    const auto b = [&](std::size_t i) { return static_cast<std::size_t>(static_cast<unsigned char>(bytes[i])); };
    const std::size_t header_len = major == 1 ? (b(8) | b(9) << 8) : (b(8) | b(9) << 8 | b(10) << 16 | b(11) << 24);
    if (!fill(prefix + header_len)) return read_matrix_bytes(bytes, path, option);
    // The header's shape and dtype fix the size: parse them from the header alone.
    const NpyLayout l = npy_layout(bytes.substr(prefix, header_len), option, path);
    limit = prefix + header_len + l.rows * l.cols * l.width;
    if (fill(limit + 1)) too_long(limit, "its .npy header implies (shape " + l.shape + " of " + l.descr + ")");
    return read_matrix_bytes(bytes, path, option);
  }
  // Matrix Market: the header and comments up to the size line (at most 16 MiB), then at most
  // 1 KiB per entry the size line announces.
  constexpr std::size_t kHeaderBytes = std::size_t{1} << 24, kEntryBytes = 1024;
  std::size_t line_start = 0, size_line_end = 0;
  std::vector<std::string> size_words;
  std::string size_line;
  for (bool first = true; size_words.empty();) {
    std::size_t nl;
    while ((nl = bytes.find('\n', line_start)) == std::string::npos) {
      if (bytes.size() > kHeaderBytes) too_long(kHeaderBytes, "a Matrix Market header and comments may take");
      if (!fill(bytes.size() + (1 << 16))) return read_matrix_bytes(bytes, path, option);
    }
    const std::string line = bytes.substr(line_start, nl - line_start);
    line_start = nl + 1;
    if (first) { first = false; continue; }
    if (!line.empty() && line[0] == '%') continue;
    size_words = words(line);
    size_line = line;
    size_line_end = line_start;
  }
  const bool coordinate = lower(bytes.substr(0, size_line_end)).find("coordinate") != std::string::npos;
  std::size_t rows = 0, cols = 0, entries = 0;
  if (size_words.size() < 2 || !parse_size(size_words[0], rows) || !parse_size(size_words[1], cols) ||
      (coordinate && (size_words.size() != 3 || !parse_size(size_words[2], entries))) || rows == 0 || cols == 0 ||
      rows > kMaxEntries / cols)
    return read_matrix_bytes(bytes, path, option);  // the parser names what is wrong
  const std::size_t n = coordinate ? entries : rows * cols;
  if (n > kMaxEntries) return read_matrix_bytes(bytes, path, option);
  limit = size_line_end + n * kEntryBytes + kEntryBytes;
  if (fill(limit + 1)) too_long(limit, "its size line '" + size_line + "' allows (1 KiB per entry)");
  return read_matrix_bytes(bytes, path, option);
}

}  // namespace

Matrix read_matrix(const std::string& path, std::string_view option) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    fail(option, path, "is a directory; give a Matrix Market (.mtx) or NumPy (.npy) file");
  std::ifstream is(path, std::ios::binary);
  if (!is) fail(option, path, std::string("cannot be read: ") + std::strerror(errno));
  if (!std::filesystem::is_regular_file(path, ec)) return read_matrix_pipe(is, option, path);
  is.seekg(0, std::ios::end);
  const auto size = static_cast<std::size_t>(is.tellg());
  is.seekg(0);
  return read_matrix_stream(is, size, option, path);
}

void require_finite(const Matrix& m, std::string_view option, const std::string& path) {
  for (std::size_t e = 0; e < m.values.size(); ++e)
    if (!std::isfinite(m.values[e]))
      fail(option, path, checks::nonfinite_refusal(entry_name(e, m.cols), m.values[e]));
}

void require_at_most(const Matrix& m, double largest, std::string_view what, std::string_view option,
                     const std::string& path) {
  require_at_most(m.values, m.cols, largest, what, option, path);
}

void require_at_most(std::span<const double> values, std::size_t cols, double largest, std::string_view what,
                     std::string_view option, const std::string& path) {
  for (std::size_t e = 0; e < values.size(); ++e)
    if (std::fabs(values[e]) > largest)
      fail(option, path, checks::magnitude_refusal(entry_name(e, cols), values[e], largest, what));
}

Matrix read_matrix_bytes(const std::string& bytes, std::string_view name, std::string_view option) {
  std::istringstream is(bytes, std::ios::binary);
  return read_matrix_stream(is, bytes.size(), option, std::string(name));
}

namespace {

Matrix read_matrix_stream(std::istream& is, std::size_t size, std::string_view option, const std::string& path) {
  char head[6] = {};
  is.read(head, 6);
  is.clear();
  is.seekg(0);
  if (size >= 10 && std::memcmp(head, "\x93NUMPY", 6) == 0) return read_npy(is, option, path, size);
  if (size >= 14 && lower(std::string(head, 6)) == "%%matr") return read_matrix_market(is, option, path, size);
  fail(option, path, "neither a Matrix Market file ('%%MatrixMarket ...' first) nor a .npy file ('\\x93NUMPY' magic)");
}

}  // namespace

void write_hex_matrix(const std::string& path, std::size_t rows, std::size_t cols, const std::vector<std::uint64_t>& bits,
                      int hex_digits, std::string_view option) {
  cli::OutputFile f{std::string(option), path};
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < cols; ++j)
      std::fprintf(f.get(), "0x%0*llx%c", hex_digits, static_cast<unsigned long long>(bits[i * cols + j]), j + 1 == cols ? '\n' : ' ');
  f.close();
}

void write_npy(const std::string& path, const Matrix& m) {
  std::string h = "{'descr': '<f8', 'fortran_order': False, 'shape': (" + std::to_string(m.rows) + ", " + std::to_string(m.cols) + "), }";
  while ((10 + h.size() + 1) % 64) h += ' ';  // the data starts 64-byte aligned
  h += '\n';
  cli::OutputFile f{"npy", path};
  const unsigned char prefix[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, static_cast<unsigned char>(h.size() & 0xff),
                                    static_cast<unsigned char>(h.size() >> 8)};
  std::fwrite(prefix, 1, 10, f.get());
  std::fwrite(h.data(), 1, h.size(), f.get());
  for (double v : m.values) {  // little-endian bytes whatever the host
    const auto bits = std::bit_cast<std::uint64_t>(v);
    unsigned char b[8];
    for (int i = 0; i < 8; ++i) b[i] = static_cast<unsigned char>(bits >> (8 * i));
    std::fwrite(b, 1, 8, f.get());
  }
  f.close();
}

void write_matrix_market(const std::string& path, const Matrix& m) {
  cli::OutputFile f{"Matrix Market", path};
  std::fprintf(f.get(), "%%%%MatrixMarket matrix array real general\n%zu %zu\n", m.rows, m.cols);
  for (std::size_t j = 0; j < m.cols; ++j)
    for (std::size_t i = 0; i < m.rows; ++i) std::fprintf(f.get(), "%.17g\n", m.values[i * m.cols + j]);
  f.close();
}

}  // namespace tcsim::apps
