// Shared pieces of the Python bindings (common.hpp).
#include "common.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <new>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

namespace tcsim::python {

namespace {

constexpr std::size_t kHuge = std::size_t{1} << 21;
constexpr std::size_t kCacheBlocks = 8;
constexpr std::size_t kCacheBytes = std::size_t{512} << 20;

// Free large blocks kept for the next calls (bounded: kCacheBlocks, kCacheBytes).
struct BlockCache {
  std::mutex mutex;
  std::vector<std::pair<void*, std::size_t>> blocks;  // pointer, capacity
  std::size_t bytes = 0;
};
BlockCache& block_cache() {
  static BlockCache* cache = new BlockCache;  // never destroyed: buffers may outlive static destruction
  return *cache;
}

}  // namespace

void* buffer_allocate(std::size_t bytes, std::size_t& capacity) {
  if (bytes < kHuge) {
    capacity = 0;  // not cached
    void* p = std::malloc(bytes ? bytes : 1);
    if (!p) throw std::bad_alloc();
    return p;
  }
  const std::size_t want = (bytes + kHuge - 1) / kHuge * kHuge;
  {
    BlockCache& c = block_cache();
    const std::lock_guard lock(c.mutex);
    std::size_t best = c.blocks.size();
    for (std::size_t i = 0; i < c.blocks.size(); ++i)
      if (c.blocks[i].second >= want && (best == c.blocks.size() || c.blocks[i].second < c.blocks[best].second)) best = i;
    if (best < c.blocks.size() && c.blocks[best].second <= 2 * want) {
      const auto [p, cap] = c.blocks[best];
      c.blocks.erase(c.blocks.begin() + static_cast<std::ptrdiff_t>(best));
      c.bytes -= cap;
      capacity = cap;
      return p;
    }
  }
  void* p = std::aligned_alloc(kHuge, want);
  if (!p) throw std::bad_alloc();
  madvise(p, want, MADV_HUGEPAGE);  // advice only
  capacity = want;
  return p;
}

void buffer_release(void* p, std::size_t capacity) {
  if (capacity == 0 || capacity > kCacheBytes) {
    std::free(p);
    return;
  }
  BlockCache& c = block_cache();
  const std::lock_guard lock(c.mutex);
  c.blocks.emplace_back(p, capacity);
  c.bytes += capacity;
  while (c.blocks.size() > kCacheBlocks || c.bytes > kCacheBytes) {  // drop the oldest
    std::free(c.blocks.front().first);
    c.bytes -= c.blocks.front().second;
    c.blocks.erase(c.blocks.begin());
  }
}

PyUnit builtin_py_unit(std::string_view name) {
  const models::Unit& u = models::builtin_unit(name);
  // Built-in units live for the whole process: a shared_ptr that does not own.
  return PyUnit{std::shared_ptr<const models::Unit>(std::shared_ptr<const models::Unit>{}, &u)};
}

std::shared_ptr<const models::Unit> unit_arg(const py::handle& obj, const char* field) {
  if (py::isinstance<PyUnit>(obj)) return obj.cast<const PyUnit&>().unit;
  if (py::isinstance<py::str>(obj)) {
    try {
      return builtin_py_unit(obj.cast<std::string>()).unit;
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string(field) + ": " + e.what());
    }
  }
  throw py::type_error(std::string(field) + ": expected a tcsim.Unit or a built-in unit's name (" +
                       models::builtin_unit_names() + "), got " + std::string(py::str(obj.get_type().attr("__name__"))));
}

py::object to_python(const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::null: return py::none();
    case nlohmann::json::value_t::boolean: return py::bool_(j.get<bool>());
    case nlohmann::json::value_t::number_integer: return py::int_(j.get<long long>());
    case nlohmann::json::value_t::number_unsigned: return py::int_(j.get<unsigned long long>());
    case nlohmann::json::value_t::number_float: return py::float_(j.get<double>());  // inf and nan included
    case nlohmann::json::value_t::string: return py::str(j.get_ref<const std::string&>());
    case nlohmann::json::value_t::array: {
      py::list out;
      for (const auto& v : j) out.append(to_python(v));
      return out;
    }
    case nlohmann::json::value_t::object: {
      py::dict out;
      for (auto it = j.begin(); it != j.end(); ++it) out[py::str(it.key())] = to_python(it.value());
      return out;
    }
    default: return py::module_::import("json").attr("loads")(j.dump());  // binary, discarded: not produced here
  }
}

cli::ProgressMode progress_arg(const py::handle& obj, const char* function) {
  if (obj.is_none()) return cli::ProgressMode::Auto;
  if (py::isinstance<py::bool_>(obj)) return obj.cast<bool>() ? cli::ProgressMode::On : cli::ProgressMode::Off;
  throw py::type_error("argument 'progress' of tcsim." + std::string(function) + " expects None, True or False, got " +
                       std::string(py::repr(obj)));
}

namespace {
// The path of the first non-finite float in a dict/list tree ("datapaths[0].fma_size"), or "".
std::string nonfinite_path(const py::handle& obj, const std::string& path, int depth = 0) {
  if (depth > 64) return "";
  if (py::isinstance<py::float_>(obj)) return std::isfinite(obj.cast<double>()) ? "" : (path.empty() ? "value" : path);
  if (py::isinstance<py::dict>(obj)) {
    for (const auto& [k, v] : obj.cast<py::dict>()) {
      const std::string key = py::str(k).cast<std::string>();
      const std::string found = nonfinite_path(v, path.empty() ? key : path + "." + key, depth + 1);
      if (!found.empty()) return found;
    }
  } else if (py::isinstance<py::list>(obj) || py::isinstance<py::tuple>(obj)) {
    std::size_t i = 0;
    for (const auto& v : obj) {
      const std::string found = nonfinite_path(v, path + "[" + std::to_string(i++) + "]", depth + 1);
      if (!found.empty()) return found;
    }
  }
  return "";
}
}  // namespace

nlohmann::json from_python(const py::handle& obj, const char* field) {
  // A NaN or Inf value is refused naming its key, as the JSON reader names keys.
  if (const std::string at = nonfinite_path(obj, ""); !at.empty())
    throw std::invalid_argument(std::string(field) + ": key '" + at + "' is not a finite number; allowed: finite numbers");
  // allow_nan=False: NaN/Infinity are no JSON (the parser would refuse json.dumps' text with
  // its own words); what json cannot hold is refused here, naming the argument.
  std::string text;
  try {
    text = py::module_::import("json").attr("dumps")(obj, py::arg("allow_nan") = false).cast<std::string>();
  } catch (py::error_already_set& e) {
    const bool type = e.matches(PyExc_TypeError);
    const std::string why = py::str(e.value()).cast<std::string>();
    if (type) throw py::type_error(std::string(field) + ": not valid JSON: " + why + "; allowed: dict, list, str, int, float, bool, None");
    throw std::invalid_argument(std::string(field) + ": not valid JSON: " + why + "; allowed: finite numbers");
  }
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception&) {  // e.g. a number beyond binary64
    throw std::invalid_argument(std::string(field) + ": not valid JSON (a number beyond binary64?); allowed: the "
                                "schema's numbers are small integers, e.g. \"fma_size\": 16");
  }
}

long long int_arg(const py::handle& obj, const char* field, const char* function, long long lo, long long hi) {
  if (!py::isinstance<py::int_>(obj) || py::isinstance<py::bool_>(obj))
    throw py::type_error("argument '" + std::string(field) + "' of tcsim." + function + " expects an integer in " +
                         std::to_string(lo) + ".." + std::to_string(hi) + ", got " +
                         std::string(py::repr(obj)));
  const py::int_ v = py::reinterpret_borrow<py::int_>(obj);
  const bool low = v < py::int_(lo), high = v > py::int_(hi);
  if (low || high)
    throw std::invalid_argument("argument '" + std::string(field) + "' of tcsim." + function + " expects an integer in " +
                                std::to_string(lo) + ".." + std::to_string(hi) + ", got " + std::string(py::repr(obj)));
  return v.cast<long long>();
}

void parallel_ranges(unsigned threads, std::size_t count, std::size_t grain,
                     const std::function<void(std::size_t, std::size_t)>& body) {
  if (count == 0) return;
  if (threads == 1 || count <= grain) {
    body(0, count);
    return;
  }
  auto loop = [&] {
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, count, grain),
                      [&](const tbb::blocked_range<std::size_t>& r) { body(r.begin(), r.end()); });
  };
  if (threads == 0) {
    loop();  // the default arena: all cores, no arena built per call
    return;
  }
  tbb::task_arena arena(static_cast<int>(threads));
  arena.execute(loop);
}

std::string shape_text(const std::vector<py::ssize_t>& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

namespace {

std::string allowed_dtypes(const Format& fmt, bool values, bool patterns, bool integers) {
  std::string s;
  if (values) s += "float16, float32, float64 (values, rounded to nearest even into " + fmt.name + ")";
  if (integers) s += std::string(s.empty() ? "" : ", ") + "int8 .. int64 (integer values)";
  // Beside values (dot, matmul) a pattern array has exactly the dtype encode returns: a wider one
  // would hide a mix-up of formats; decode takes any unsigned width.
  if (patterns && values)
    s += std::string(s.empty() ? "" : " or ") + py::str(static_cast<const py::handle&>(pattern_dtype(fmt))).cast<std::string>() +
         " (bit patterns of " + fmt.name + ")";
  else if (patterns)
    s += std::string(s.empty() ? "" : " or ") + "uint8, uint16, uint32, uint64 (bit patterns of " + fmt.name + ")";
  return s;
}

}  // namespace

Operand operand_arg(const py::handle& obj, const char* field, const Format& fmt, bool allow_values,
                    bool allow_patterns, bool allow_integers) {
  if (obj.is_none())
    throw py::type_error(std::string(field) + ": None is not an array; allowed: " +
                         allowed_dtypes(fmt, allow_values, allow_patterns, allow_integers));
  Operand op;
  op.array = py::module_::import("numpy").attr("asarray")(obj);
  const py::dtype dt = op.array.dtype();
  op.type = dt.kind();
  op.itemsize = static_cast<int>(dt.itemsize());
  const bool ok = (op.type == 'f' && allow_values && (op.itemsize == 2 || op.itemsize == 4 || op.itemsize == 8)) ||
                  (op.type == 'u' && allow_patterns && (!allow_values || op.itemsize == pattern_dtype(fmt).itemsize())) ||
                  (op.type == 'i' && allow_integers);
  if (!ok) {
    std::string why;
    if (op.type == 'i' && allow_patterns && allow_values)
      why = " (signed integers are ambiguous here: pass floats for values or unsigned integers for bit patterns)";
    if (op.type == 'u' && allow_patterns && allow_values)  // one width per format: a wider array would hide a mix-up of formats
      why = " for bit patterns of " + fmt.name + " (its storage width is " +
            std::to_string(8 * pattern_dtype(fmt).itemsize()) + " bits)";
    const std::string name = py::str(static_cast<const py::handle&>(dt)).cast<std::string>();
    throw py::type_error(std::string(field) + ": dtype " + name + " is not allowed" + why + "; allowed: " +
                         allowed_dtypes(fmt, allow_values, allow_patterns, allow_integers));
  }
  op.patterns_allowed = allow_patterns;
  op.kind = op.type == 'f' ? ElementKind::Values : op.type == 'u' ? ElementKind::Patterns : ElementKind::Integers;
  if (!dt.attr("isnative").cast<bool>())  // the loops read native byte order
    op.array = op.array.attr("astype")(dt.attr("newbyteorder")("="));
  op.shape.assign(op.array.shape(), op.array.shape() + op.array.ndim());
  op.data = static_cast<const char*>(op.array.data());
  return op;
}

void view_2d(Operand& op, bool last_axis) {
  const py::ssize_t nd = op.array.ndim();
  std::size_t total = 1;
  for (py::ssize_t s : op.shape) total *= static_cast<std::size_t>(s);
  op.cols = last_axis ? static_cast<std::size_t>(op.shape.back()) : 1;
  op.rows = op.cols ? total / op.cols : 1;
  if (last_axis && op.cols == 0) {
    op.rows = 1;
    for (py::ssize_t i = 0; i + 1 < nd; ++i) op.rows *= static_cast<std::size_t>(op.shape[i]);
  }
  // The leading axes must collapse into one stride (axes of extent 1 do not count); numpy
  // copies them into C order when they do not.
  const py::ssize_t lead = last_axis ? nd - 1 : nd;
  auto collapse = [&](py::ssize_t& stride) {
    py::ssize_t expect = 0;
    bool first = true;
    stride = 0;
    for (py::ssize_t i = lead - 1; i >= 0; --i) {
      if (op.shape[i] == 1) continue;
      if (first) {
        stride = op.array.strides(i);
        first = false;
      } else if (op.array.strides(i) != expect) {
        return false;
      }
      expect = op.array.strides(i) * op.shape[i];
    }
    return true;
  };
  if (!collapse(op.row_stride)) {
    op.array = py::module_::import("numpy").attr("ascontiguousarray")(op.array);
    op.data = static_cast<const char*>(op.array.data());
    collapse(op.row_stride);
  }
  op.col_stride = last_axis && nd >= 1 ? op.array.strides(nd - 1) : 0;
}

void throw_bad_element(const Operand& op, const Format& fmt, Rounding mode, const char* field, std::size_t flat) {
  // Unravel the flat index over the array's shape: field[i, j].
  std::vector<std::size_t> index(op.shape.size());
  std::size_t rest = flat;
  for (std::size_t d = op.shape.size(); d-- > 0;) {
    const auto extent = static_cast<std::size_t>(op.shape[d]);
    index[d] = extent ? rest % extent : 0;
    rest = extent ? rest / extent : 0;
  }
  std::string name = field;
  if (!index.empty()) {
    name += "[";
    for (std::size_t d = 0; d < index.size(); ++d) {
      if (d) name += ", ";
      name += std::to_string(index[d]);
    }
    name += "]";
  }
  const std::size_t r = op.cols ? flat / op.cols : 0, c = op.cols ? flat % op.cols : 0;
  if (op.kind != ElementKind::Patterns) {  // a value the format cannot hold: the CLI's refusal
    double x = 0;
    std::string text;
    if (op.kind == ElementKind::Values) {
      if (op.itemsize == 2) x = models::Decoder(formats::fp16())(load_at<std::uint16_t>(op, r, c));
      else if (op.itemsize == 4) x = load_at<float>(op, r, c);
      else x = load_at<double>(op, r, c);
      text = checks::value_text(x);
    } else {
      std::int64_t i = 0;
      switch (op.itemsize) {
        case 1: i = load_at<std::int8_t>(op, r, c); break;
        case 2: i = load_at<std::int16_t>(op, r, c); break;
        case 4: i = load_at<std::int32_t>(op, r, c); break;
        default: i = load_at<std::int64_t>(op, r, c); break;
      }
      x = static_cast<double>(i);
      text = std::to_string(i);
    }
    const std::uint64_t bits = models::Converter(fmt, mode, false)(x);
    std::string why = checks::value_refusal(fmt, checks::given_value(x), bits, name, text,
                                            op.patterns_allowed ? checks::kPythonPatterns : std::string_view());
    if (why.empty()) why = name + " = " + text + " is out of the range of " + fmt.name;
    throw std::invalid_argument(why);
  }
  std::uint64_t bits = 0;
  switch (op.itemsize) {
    case 1: bits = load_at<std::uint8_t>(op, r, c); break;
    case 2: bits = load_at<std::uint16_t>(op, r, c); break;
    case 4: bits = load_at<std::uint32_t>(op, r, c); break;
    default: bits = load_at<std::uint64_t>(op, r, c); break;
  }
  check_pattern(fmt, bits, name);  // throws std::invalid_argument naming the width
  throw std::invalid_argument(name + ": pattern does not fit " + fmt.name);
}

py::dtype pattern_dtype(const Format& fmt) {
  if (fmt.width <= 8) return py::dtype::of<std::uint8_t>();
  if (fmt.width <= 16) return py::dtype::of<std::uint16_t>();
  if (fmt.width <= 32) return py::dtype::of<std::uint32_t>();
  return py::dtype::of<std::uint64_t>();
}

py::array patterns_array(const Format& fmt, const std::vector<py::ssize_t>& shape, const std::uint64_t* bits,
                         std::size_t count) {
  py::array out(pattern_dtype(fmt), shape);
  void* p = out.mutable_data();
  {
    py::gil_scoped_release release;
    if (fmt.width <= 8) std::copy(bits, bits + count, static_cast<std::uint8_t*>(p));
    else if (fmt.width <= 16) std::copy(bits, bits + count, static_cast<std::uint16_t*>(p));
    else if (fmt.width <= 32) std::copy(bits, bits + count, static_cast<std::uint32_t*>(p));
    else std::copy(bits, bits + count, static_cast<std::uint64_t*>(p));
  }
  return out;
}

py::array values_array(const Format& fmt, const std::vector<py::ssize_t>& shape, const std::uint64_t* bits,
                       std::size_t count, unsigned threads) {
  py::array_t<double> out(shape);
  double* v = out.mutable_data();
  {
    py::gil_scoped_release release;
    const bool fp32 = fmt == formats::fp32(), fp64 = fmt == formats::fp64();
    const models::Decoder decode(fmt);
    parallel_ranges(threads, count, 1 << 15, [&](std::size_t b, std::size_t e) {
      for (std::size_t i = b; i < e; ++i) {
        if (fp32) v[i] = std::bit_cast<float>(static_cast<std::uint32_t>(bits[i]));
        else if (fp64) v[i] = std::bit_cast<double>(bits[i]);
        else v[i] = decode(bits[i]);
      }
    });
  }
  return out;
}

}  // namespace tcsim::python
