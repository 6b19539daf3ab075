// mma_dump: run one tensor-core instruction on random inputs on the local GPU and write
// the results as a/b/c/d dump files in the format of shared/data/gpu/README.md, so that
//   tcsim validate-dump --unit <unit> --in <fmt> --out <fp32|fp16> --a ... --b ... --c ... --d ...
// checks tcsim's model of this card bit for bit (validation/cuda/README.md). It prints those
// commands, with the unit of the --gpu name and, for the fp8 ops, --instruction mma.sync
// (on h100 the default fp8 -> fp32 row is wgmma).
//
// Operations (one output element = one case; all K products of the instruction are used
// unless --k asks for fewer nonzero ones):
//   wmma-fp16  wmma m16n16k16, half inputs, float or half accumulator  (sm_70+)
//   wmma-bf16  wmma m16n16k16, bf16 inputs, float accumulator          (sm_80+)
//   wmma-tf32  wmma m16n16k8,  tf32 inputs, float accumulator          (sm_80+)
//   mma-e4m3   mma.sync.aligned.m16n8k32.row.col.{f32,f16}.e4m3.e4m3.{f32,f16}  (sm_89+)
//   mma-e5m2   the same with e5m2 inputs                                          (sm_89+)
//   mma-e4m3-k16, mma-e5m2-k16  mma.sync.aligned.m16n8k16 with fp8 inputs (PTX ISA 8.7: CUDA
//              12.8+, sm_89+; RTX Blackwell sm_120 runs it as one block of 16, units.md 3b)
//   mxf8f6f4-e4m3, mxf8f6f4-e5m2  mma.sync.aligned.m16n8k32.kind::mxf8f6f4.block_scale with
//              every ue8m0 scale 1 (the dump format holds no scales), fp32 output (sm_120a)
//   mxf4nvf4-e2m1  mma.sync.aligned.m16n8k64.kind::mxf4nvf4.block_scale.scale_vec::2X with fp4
//              (e2m1) inputs, every ue8m0 scale 1, fp32 output (sm_120a)
// Both outputs of an op come from one run on the same a, b and c. For binary16 output c is a
// binary32 value rounded to binary16 (RNE) on the host, as the published runs did; the c
// file holds the binary32 value, like theirs. The c and d file names do not name the input
// format (as in shared/data/gpu, where each format has its folder): one --dir per op.
//
// The parts: mma_dump_ops.cuh (the ops), mma_dump_formats.cuh (host-side formats),
// mma_dump_inputs.cuh (options, random and corner cases, --inputs files), and the kernels
// by family: mma_kernels_wmma.cuh (wmma: Volta/Turing fp16, Ampere bf16/tf32),
// mma_kernels_fp8.cuh (fp8 mma.sync: Ada, Hopper, Blackwell), mma_kernels_block_scaled.cuh
// (sm_120a kind::mxf8f6f4 / mxf4nvf4), both on mma_kernels_m16n8.cuh.
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "mma_dump_formats.cuh"
#include "mma_dump_inputs.cuh"
#include "mma_dump_ops.cuh"
#include "mma_kernels_block_scaled.cuh"
#include "mma_kernels_fp8.cuh"
#include "mma_kernels_wmma.cuh"

namespace {

#define CHECK_CUDA(call)                                                                   \
  do {                                                                                     \
    cudaError_t err_ = (call);                                                             \
    if (err_ != cudaSuccess) {                                                             \
      std::fprintf(stderr, "mma_dump: CUDA error %s at %s:%d: %s\n", cudaGetErrorName(err_), \
                   __FILE__, __LINE__, cudaGetErrorString(err_));                          \
      std::exit(1);                                                                        \
    }                                                                                      \
  } while (0)

// ------------------------------------------------------------------ host driver

template <class T>
T* to_device(const std::vector<T>& v) {
  T* p = nullptr;
  CHECK_CUDA(cudaMalloc(&p, v.size() * sizeof(T) + 16));
  CHECK_CUDA(cudaMemcpy(p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
  return p;
}
template <class T>
std::vector<T> from_device(const T* p, std::size_t n) {
  std::vector<T> v(n);
  CHECK_CUDA(cudaMemcpy(v.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost));
  return v;
}

// Runs the instruction for `tiles` tiles. a_bits: tiles*M*K input patterns (row-major),
// b_bits: tiles*N*K (column j of tile t at [t*N*K + j*K]), c32: tiles*M*N binary32.
// Returns D as binary32 patterns (binary16 results converted exactly).
std::vector<std::uint32_t> run(const OpInfo& info, bool fp16_out, int tiles, const std::vector<std::uint32_t>& a_bits,
                               const std::vector<std::uint32_t>& b_bits, const std::vector<std::uint32_t>& c32) {
  const std::size_t mn = static_cast<std::size_t>(tiles) * info.m * info.n;
  std::vector<std::uint32_t> out(mn);
  auto pack16 = [](const std::vector<std::uint32_t>& v) {
    std::vector<std::uint16_t> r(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) r[i] = static_cast<std::uint16_t>(v[i]);
    return r;
  };
  auto pack8 = [](const std::vector<std::uint32_t>& v) {
    std::vector<std::uint8_t> r(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) r[i] = static_cast<std::uint8_t>(v[i]);
    return r;
  };
  std::vector<float> cf(mn);
  std::vector<std::uint16_t> ch(mn);
  for (std::size_t i = 0; i < mn; ++i) {
    cf[i] = f32_of(c32[i]);
    ch[i] = binary32_to_half_rne(c32[i]);
  }
  void* dA = nullptr;
  void* dB = nullptr;
  void* dC = nullptr;
  void* dD = nullptr;
  if (info.in_bytes == 2) {
    dA = to_device(pack16(a_bits));
    dB = to_device(pack16(b_bits));
  } else if (info.in_bytes == 1) {
    dA = to_device(pack8(a_bits));
    dB = to_device(pack8(b_bits));
  } else {
    dA = to_device(a_bits);
    dB = to_device(b_bits);
  }
  dC = fp16_out ? static_cast<void*>(to_device(ch)) : static_cast<void*>(to_device(cf));
  CHECK_CUDA(cudaMalloc(&dD, mn * 4 + 16));
  switch (info.op) {
    case Op::WmmaFp16:
    case Op::WmmaBf16:
    case Op::WmmaTf32: launch_wmma(info, fp16_out, tiles, dA, dB, dC, dD); break;
    case Op::MmaE4m3K16:
    case Op::MmaE5m2K16:
      if (!TCSIM_HAVE_FP8_K16) {
        std::fprintf(stderr, "mma_dump: %s needs CUDA 12.8 or newer (PTX ISA 8.7)\n", info.name);
        std::exit(1);
      }
      launch_fp8(info, fp16_out, tiles, dA, dB, dC, dD);
      break;
    case Op::MmaE4m3:
    case Op::MmaE5m2: launch_fp8(info, fp16_out, tiles, dA, dB, dC, dD); break;
    case Op::MxE4m3:
    case Op::MxE5m2:
    case Op::MxE2m1: launch_block_scaled(info, tiles, dA, dB, dC, dD); break;
  }
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  if (fp16_out) {
    const auto d = from_device(static_cast<std::uint16_t*>(dD), mn);
    for (std::size_t i = 0; i < mn; ++i) out[i] = half_to_binary32(d[i]);
  } else {
    out = from_device(static_cast<std::uint32_t*>(dD), mn);
  }
  if (is_block_scaled(info.op) && !out.empty() && out[0] == 0xffffffffu) {
    std::fprintf(stderr, "mma_dump: %s ran without sm_120a code; build with -arch=sm_120a (or "
                         "-DCMAKE_CUDA_ARCHITECTURES=120a)\n", info.name);
    std::exit(1);
  }
  cudaFree(dA);
  cudaFree(dB);
  cudaFree(dC);
  cudaFree(dD);
  return out;
}


void usage(std::FILE* f) {
  std::fprintf(f,
               "usage: mma_dump --op <op> [--out fp32|fp16|both] [--cases N] [--k K] [--seed S]\n"
               "                [--exp-range LO:HI] [--subnormals PERCENT] [--gpu NAME] [--dir DIR] [--device I]\n"
               "                [--corners]  (tiles of overflow, all -0 and tiny-term cases: issue 22's rules)\n"
               "                [--inputs DIR]  (the cases of DIR/a_*_<fmt>.txt, b_*, c_*_fp32.txt: tcsim fit --suggest)\n"
               "ops: wmma-fp16 (sm_70+), wmma-bf16, wmma-tf32 (sm_80+), mma-e4m3, mma-e5m2 (sm_89+),\n"
               "     mma-e4m3-k16, mma-e5m2-k16 (sm_89+, CUDA 12.8+), mxf8f6f4-e4m3, mxf8f6f4-e5m2,\n"
               "     mxf4nvf4-e2m1 (sm_120a; every scale 1)\n"
               "writes DIR/a_<GPU>_<fmt>.txt, b_<GPU>_<fmt>.txt, c_<GPU>_fp32.txt, d_<GPU>_<out>.txt\n"
               "(the layout of shared/data/gpu; c and d do not name the format, so one DIR per op,\n"
               "e.g. for f in e4m3 e5m2; do mma_dump --op mma-$f --gpu H100 --dir H100/$f; done),\n"
               "then prints the tcsim validate-dump commands to run, for the unit of the --gpu name\n"
               "(V100, T4, A100, A2, A30, L40S, Ada, RTX4090, H100, H200, B200).\n");
}

// tcsim unit of a --gpu name (case, spaces and dashes ignored), or nullptr.
const char* unit_of_gpu(const std::string& gpu) {
  static const char* const kUnits[][2] = {
      {"v100", "v100"}, {"t4", "t4"},
      {"a100", "a100"}, {"a2", "a100"},  {"a30", "a100"},
      {"l40s", "l40s"}, {"ada", "l40s"}, {"rtx4090", "l40s"},
      {"h100", "h100"}, {"h200", "h100"},
      {"b200", "b200"},
      {"rtx5090", "rtx5090"}, {"rtx5080", "rtx5090"}, {"rtxpro6000", "rtx5090"},
  };
  std::string key;
  for (const char ch : gpu)
    if (std::isalnum(static_cast<unsigned char>(ch)))
      key += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  for (const auto& e : kUnits)
    if (key == e[0]) return e[1];
  return nullptr;
}

std::string binary_line(std::uint32_t b) {
  std::string s(32, '0');
  for (int i = 0; i < 32; ++i)
    if ((b >> (31 - i)) & 1u) s[i] = '1';
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  std::string out = "both";
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "mma_dump: option %s needs a value\n", k.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (k == "--op") {
      const std::string v = value();
      for (const auto& info : kOps)
        if (v == info.name) o.op = &info;
      if (!o.op) {
        std::fprintf(stderr, "mma_dump: unknown --op '%s'\n", v.c_str());
        usage(stderr);
        return 2;
      }
    } else if (k == "--out") {
      out = value();
    } else if (k == "--cases") {
      o.cases = std::atol(value().c_str());
    } else if (k == "--k") {
      o.k_nonzero = std::atoi(value().c_str());
    } else if (k == "--seed") {
      o.seed = std::strtoull(value().c_str(), nullptr, 0);
    } else if (k == "--exp-range") {
      const std::string v = value();
      if (std::sscanf(v.c_str(), "%d:%d", &o.exp_lo, &o.exp_hi) != 2 || o.exp_lo > o.exp_hi) {
        std::fprintf(stderr, "mma_dump: --exp-range wants LO:HI, got '%s'\n", v.c_str());
        return 2;
      }
    } else if (k == "--subnormals") {
      o.subnormal_percent = std::atoi(value().c_str());
    } else if (k == "--gpu") {
      o.gpu = value();
    } else if (k == "--dir") {
      o.dir = value();
    } else if (k == "--corners") {
      o.corners = true;
    } else if (k == "--inputs") {
      o.inputs = value();
    } else if (k == "--device") {
      o.device = std::atoi(value().c_str());
    } else if (k == "--help" || k == "-h") {
      usage(stdout);
      return 0;
    } else {
      std::fprintf(stderr, "mma_dump: unknown option '%s'\n", k.c_str());
      usage(stderr);
      return 2;
    }
  }
  if (!o.op) {
    usage(stderr);
    return 2;
  }
  const OpInfo& info = *o.op;
  if (out == "fp32") o.out_fp16 = false;
  else if (out == "fp16") o.out_fp32 = false;
  else if (out != "both") {
    std::fprintf(stderr, "mma_dump: --out wants fp32, fp16 or both\n");
    return 2;
  }
  if (!info.fp16_out) o.out_fp16 = false;
  if (!o.out_fp32 && !o.out_fp16) {
    std::fprintf(stderr, "mma_dump: %s has no binary16 output\n", info.name);
    return 2;
  }
  if (o.k_nonzero <= 0 || o.k_nonzero > info.k) o.k_nonzero = info.k;
  o.exp_lo = std::max(o.exp_lo, info.emin);
  o.exp_hi = std::min(o.exp_hi, info.emax);
  if (o.exp_lo > o.exp_hi) {
    std::fprintf(stderr, "mma_dump: --exp-range has no exponent of %s (normal exponents %d:%d)\n", info.fmt,
                 info.emin, info.emax);
    return 2;
  }
  if (o.cases <= 0) o.cases = 1;

  CHECK_CUDA(cudaSetDevice(o.device));
  cudaDeviceProp prop;
  CHECK_CUDA(cudaGetDeviceProperties(&prop, o.device));
  const int cc = prop.major * 10 + prop.minor;
  std::printf("device %d: %s (sm_%d)\n", o.device, prop.name, cc);
  if (cc < info.min_cc) {
    std::fprintf(stderr, "mma_dump: %s needs sm_%d or newer; this device is sm_%d\n", info.name, info.min_cc, cc);
    return 1;
  }

  // --inputs: the given cases, one per diagonal element (row q, column q) of each tile, so
  // that every case has its own row of A and column of B; the other elements are zero.
  std::vector<std::vector<std::uint32_t>> in_a, in_b, in_c;
  if (!o.inputs.empty()) {
    if (o.corners) {
      std::fprintf(stderr, "mma_dump: --inputs and --corners exclude each other\n");
      return 2;
    }
    const std::string pa = find_input(o.inputs, "a", info.fmt), pb = find_input(o.inputs, "b", info.fmt),
                      pc = find_input(o.inputs, "c", "fp32");
    if (pa.empty() || pb.empty() || pc.empty()) {
      std::fprintf(stderr, "mma_dump: --inputs: '%s' needs a_*_%s.txt, b_*_%s.txt and c_*_fp32.txt\n", o.inputs.c_str(),
                   info.fmt, info.fmt);
      return 2;
    }
    in_a = read_lines(pa, false);
    in_b = read_lines(pb, false);
    in_c = read_lines(pc, true);
    const std::size_t K = in_a.empty() ? 0 : in_a[0].size();
    bool ok = !in_a.empty() && in_b.size() == in_a.size() && in_c.size() == in_a.size() && K <= static_cast<std::size_t>(info.k);
    for (std::size_t n = 0; ok && n < in_a.size(); ++n) ok = in_a[n].size() == K && in_b[n].size() == K && in_c[n].size() == 1;
    if (!ok) {
      std::fprintf(stderr, "mma_dump: --inputs: the a, b and c files of '%s' must have the same lines, at most %d values each\n",
                   o.inputs.c_str(), info.k);
      return 2;
    }
    o.cases = static_cast<long>(in_a.size());
    o.k_nonzero = static_cast<int>(K);
  }
  const int diag = std::min(info.m, info.n);
  const bool given = !o.inputs.empty();
  // Inputs: every tile gets random A (M x K), B (K x N) and C; products beyond k_nonzero
  // are zero (a zero in A), as in the published data.
  const int per_tile = info.m * info.n;
  const int tiles = given ? static_cast<int>((o.cases + diag - 1) / diag) : static_cast<int>((o.cases + per_tile - 1) / per_tile);
  // Case n: tile, row and column of its output element.
  auto place = [&](long n, int& t, int& i, int& j) {
    if (given) { t = static_cast<int>(n / diag); i = j = static_cast<int>(n % diag); return; }
    t = static_cast<int>(n / per_tile);
    i = static_cast<int>(n % per_tile) / info.n;
    j = static_cast<int>(n % per_tile) % info.n;
  };
  Rng rng{o.seed};
  std::vector<std::uint32_t> A(static_cast<std::size_t>(tiles) * info.m * info.k);
  std::vector<std::uint32_t> B(static_cast<std::size_t>(tiles) * info.n * info.k);
  std::vector<std::uint32_t> C(static_cast<std::size_t>(tiles) * per_tile);
  for (int t = 0; t < tiles && !given; ++t) {
    for (int i = 0; i < info.m; ++i)
      for (int k = 0; k < info.k; ++k)
        A[(static_cast<std::size_t>(t) * info.m + i) * info.k + k] = k < o.k_nonzero ? random_input(info, o, rng) : 0;
    for (int j = 0; j < info.n; ++j)
      for (int k = 0; k < info.k; ++k)
        B[(static_cast<std::size_t>(t) * info.n + j) * info.k + k] = random_input(info, o, rng);
    for (int i = 0; i < per_tile; ++i) C[static_cast<std::size_t>(t) * per_tile + i] = random_c(o, rng);
    if (o.corners)
      corner_tile(info, t, rng, &A[static_cast<std::size_t>(t) * info.m * info.k],
                  &B[static_cast<std::size_t>(t) * info.n * info.k], &C[static_cast<std::size_t>(t) * per_tile]);
    for (int i = 0; i < info.m; ++i)  // products beyond --k stay zero (the files list only --k)
      for (int k = o.k_nonzero; k < info.k; ++k) A[(static_cast<std::size_t>(t) * info.m + i) * info.k + k] = 0;
  }

  for (long n = 0; given && n < o.cases; ++n) {
    int t, i, j;
    place(n, t, i, j);
    for (int k = 0; k < o.k_nonzero; ++k) {
      A[(static_cast<std::size_t>(t) * info.m + i) * info.k + k] = binary32_to_input(info, in_a[n][k]);
      B[(static_cast<std::size_t>(t) * info.n + j) * info.k + k] = binary32_to_input(info, in_b[n][k]);
    }
    C[static_cast<std::size_t>(t) * per_tile + i * info.n + j] = in_c[n][0];
  }

  std::error_code dir_error;
  std::filesystem::create_directories(o.dir, dir_error);  // the fopen below reports a failure
  const std::string base = o.dir + "/";
  const std::string a_path = base + "a_" + o.gpu + "_" + info.fmt + ".txt";
  const std::string b_path = base + "b_" + o.gpu + "_" + info.fmt + ".txt";
  const std::string c_path = base + "c_" + o.gpu + "_fp32.txt";
  std::FILE* fa = std::fopen(a_path.c_str(), "w");
  std::FILE* fb = std::fopen(b_path.c_str(), "w");
  std::FILE* fc = std::fopen(c_path.c_str(), "w");
  if (!fa || !fb || !fc) {
    std::fprintf(stderr, "mma_dump: cannot write into '%s'\n", o.dir.c_str());
    return 1;
  }
  for (long n = 0; n < o.cases; ++n) {
    int t, i, j;
    place(n, t, i, j);
    for (int k = 0; k < o.k_nonzero; ++k) {
      const std::uint32_t a = A[(static_cast<std::size_t>(t) * info.m + i) * info.k + k];
      const std::uint32_t b = B[(static_cast<std::size_t>(t) * info.n + j) * info.k + k];
      std::fprintf(fa, "%s%08x", k ? " " : "", input_to_binary32(info, a));
      std::fprintf(fb, "%s%08x", k ? " " : "", input_to_binary32(info, b));
    }
    std::fprintf(fa, "\n");
    std::fprintf(fb, "\n");
    std::fprintf(fc, "%s\n", binary_line(C[static_cast<std::size_t>(t) * per_tile + i * info.n + j]).c_str());
  }
  std::fclose(fa);
  std::fclose(fb);
  std::fclose(fc);

  const char* unit = unit_of_gpu(o.gpu);
  std::string in = info.fmt;
  for (auto& ch : in) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  const bool fp8 = is_fp8(info.op) || info.op == Op::MxE2m1;
  // fp8: the mma.sync family (h100's default fp8 -> fp32 row is wgmma); the k16 form by its full
  // name, which makes tcsim chain instructions of 16 (rtx5090; docs/units/blackwell.md).
  const bool k16 = info.op == Op::MmaE4m3K16 || info.op == Op::MmaE5m2K16;
  const bool mx = info.op == Op::MxE4m3 || info.op == Op::MxE5m2;
  const std::string fp8_instruction = info.op == Op::MxE2m1 ? " --instruction mma.sync.mxf4nvf4"
                                      : mx    ? " --instruction mma.sync.mxf8f6f4"
                                      : k16 ? " --instruction mma.sync.m16n8k16"
                                            : " --instruction mma.sync";
  std::string commands;
  for (int pass = 0; pass < 2; ++pass) {
    const bool fp16 = pass == 1;
    if (fp16 ? !o.out_fp16 : !o.out_fp32) continue;
    const auto D = run(info, fp16, tiles, A, B, C);
    const std::string d_path = base + "d_" + o.gpu + "_" + (fp16 ? "fp16" : "fp32") + ".txt";
    std::FILE* fd = std::fopen(d_path.c_str(), "w");
    if (!fd) {
      std::fprintf(stderr, "mma_dump: cannot write '%s'\n", d_path.c_str());
      return 1;
    }
    for (long n = 0; n < o.cases; ++n) {
      int t, i, j;
      place(n, t, i, j);
      std::fprintf(fd, "%s\n", binary_line(D[static_cast<std::size_t>(t) * per_tile + i * info.n + j]).c_str());
    }
    std::fclose(fd);
    // --instruction mma.sync for fp8: h100's default fp8 -> fp32 row is wgmma; every fp8 unit accepts it.
    commands += std::string("  tcsim validate-dump --unit ") + (unit ? unit : "<unit>") + " --in " + in +
                " --out " + (fp16 ? "fp16" : "fp32") + (fp8 ? fp8_instruction : std::string()) + " --a " + a_path +
                " --b " + b_path + " --c " + c_path + " --d " + d_path + "\n";
  }
  std::printf("wrote %ld cases of K = %d (%s, %d tiles)\nvalidate with:\n%s", o.cases, o.k_nonzero, info.name, tiles,
              commands.c_str());
  if (!unit)
    std::printf("note: no tcsim unit is known for --gpu '%s' (names: V100, T4, A100, A2, A30, L40S, Ada, RTX4090,\n"
                "H100, H200, B200); put your card's unit for <unit> (tcsim units lists them)\n",
                o.gpu.c_str());
  return 0;
}
