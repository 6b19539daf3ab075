// tcsim validate-dump: run every case of a real-GPU dump (a/b/c/d files in the format of
// shared/data/gpu/README.md) through a unit and compare bit for bit.
#include <atomic>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>

#include "args.hpp"
#include "commands.hpp"
#include "progress.hpp"
#include "unit_option.hpp"
#include "tcsim/models/unit.hpp"
#include "tcsim/models/unit_json.hpp"
#include "tcsim/sim/format.hpp"
#include "tcsim/validation/dump_reader.hpp"
#include "tcsim/validation/dump_validate.hpp"

namespace tcsim::cli {

int cmd_validate_dump(const Args& args) {
  ArgParser p("validate-dump",
              "compare a unit with real-GPU dump files: every case d = c + sum a_i b_i through the "
              "unit, bit for bit (all NaNs equal); the last line is '<N> cases, <M> mismatches'; "
              "exit 0 only when M is 0. A dump file may hold lines of at most " +
                  std::to_string(validation::kMaxDumpLineLength) + " characters and at most " +
                  std::to_string(validation::kMaxDumpFileBytes >> 30) + " GiB");
  p.option("unit", "built-in unit (" + models::builtin_unit_names() + ")", "name");
  p.option("unit-config", "user-defined unit from a JSON file (see tcsim units --json)", "file");
  declare_input_formats(p, "a", "b", "fp16, bf16, tf32, e4m3, e5m2, ...; one of --in, --in-a, --in-b is required");
  p.required("out", "output format of c and d (fp32, fp16)", "fmt");
  p.required("a", "a file: K 8-hex-digit binary32 patterns per line", "file");
  p.required("b", "b file: as a", "file");
  p.option("c", "c file: one 32-character 0/1 binary32 pattern per line (rounded to nearest "
                "even for binary16 output, as the GPU runs did)", "file");
  p.required("d", "d file: the GPU's results, as c (binary16 results as binary32 patterns)", "file");
  p.flag("zero-c", "use c = 0 instead of a c file (H100 fp8 wgmma runs)");
  p.option("instruction", "instruction whose datapath to use (mma.sync, wgmma, tcgen05, ...; "
                          "default: the unit's default for the formats)", "name");
  p.option("max-report", "mismatches printed in full (default 10)", "N");
  p.flag("quiet", "no progress on stderr (shown for runs over 2 s)");
  const auto a = p.parse(args);
  if (a.help()) return p.print_help();
  a.require_one_of({"unit", "unit-config"});
  if (!a.has("zero-c") && !a.has("c"))
    throw std::invalid_argument("give the c file with --c, or --zero-c for a zero accumulator");
  if (a.has("zero-c") && a.has("c"))
    throw std::invalid_argument("--c and --zero-c exclude each other");
  const long long max_report = a.get_int("max-report", 0, 1000000, 10);

  const DotSelection chosen = select_dot(a, "validate-dump");  // throws with the supported pairs/instructions
  const Format &in = *chosen.inputs.a, &in_b = *chosen.inputs.b, &out = *chosen.out;
  const models::Unit* unit = chosen.selected.unit;
  const std::string& instruction = chosen.instruction;

  validation::DumpPaths paths{a.get("a"), a.get("b"), a.get_or("c", ""), a.get("d")};
  const auto c_input = a.has("zero-c") ? validation::AccumulatorInput::Zero
                                       : validation::AccumulatorInput::FromFile;
  const validation::DumpSet dump = validation::load_dump(paths, in, in_b, out, c_input);
  Progress progress("tcsim validate-dump", !a.has("quiet"));
  std::atomic<std::size_t> done{0};
  const std::size_t total = dump.d.size();
  const validation::DotFunction dot = [&](std::span<const std::uint64_t> x, std::span<const std::uint64_t> y,
                                          std::uint64_t c) {
    if (++done % 1024 == 0) progress.update("cases", done.load(), total);
    return unit->dot(in, in_b, out, x, y, c, instruction);
  };
  const auto r = validation::validate_dump(dump, dot, static_cast<std::size_t>(max_report));
  progress.done();

  std::printf("unit %s, %s -> %s, instruction %s, K = %zu, c %s\n", unit->name().c_str(),
              chosen.inputs.name().c_str(),
              out.name.c_str(), instruction.empty() ? "(default)" : instruction.c_str(), dump.k,
              c_input == validation::AccumulatorInput::Zero ? "= 0"
              : out == formats::fp32()                      ? "from the file"
                                                            : "from the file, rounded to nearest even");
  for (const auto& m : r.first) std::printf("mismatch %s", validation::describe_mismatch(dump, m).c_str());
  if (r.mismatches > r.first.size())
    std::printf("(%zu more mismatches not shown; --max-report N shows more)\n", r.mismatches - r.first.size());
  std::printf("%s\n", validation::summary_line(r).c_str());
  return r.mismatches == 0 ? 0 : 1;
}

}  // namespace tcsim::cli
