// KM25's published data files (north-numerical-computing/MATLAB-tensor-core,
// experiments/data/matmul_test_<in>_binary32_words_<p>_model_<model>.dat), read from a fetched
// copy of that repository for the km25-* experiments (experiments_km25.cpp). tcsim never ships
// them: without a copy the experiments run without the comparison and say why.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace tcsim::cli::experiments {

struct Km25Data {
  std::string dir;     // the repository: a work tree (experiments/data/...) or a git directory
  bool git = false;    // a git directory (a bare clone or a mirror): files read with git show HEAD:...
  std::string absent;  // why there is no data ("" when there is), for the reports
};

// $TCSIM_KM25_DIR, else ../shared/MATLAB-tensor-core (relative to the working directory, as
// ../shared/data/gpu is for the real-GPU data).
Km25Data find_km25_data();

struct Km25Point {
  double n = 0;
  double error = 0;
  std::string printed;  // the error as the file prints it (%e: 7 significant digits)
};

// The points of matmul_test_<file>.dat; nullopt when the copy has no such file.
std::optional<std::vector<Km25Point>> read_km25_file(const Km25Data& data, const std::string& file);

// Leading significant digits two %e texts share (7 when equal, 0 when the first digits or the
// exponents differ).
int agreeing_digits(const std::string& a, const std::string& b);

}  // namespace tcsim::cli::experiments
