// Assesses a file and the same samples in memory through the installed C++ API, and an
// input error: prints what it got; exit 0 when the two results agree.
#include <ea_iid/ea_iid.hpp>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  ea_iid::Assessor assessor;
  ea_iid::Options options;
  options.seed = 1;
  options.iterations = 200;
  options.device = "cpu";
  const ea_iid::Result from_file = assessor.assess_file(argv[1], options);
  std::ifstream in(argv[1], std::ios::binary);
  const std::vector<uint8_t> samples((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const ea_iid::Result from_memory = assessor.assess(samples.data(), samples.size(), options, argv[1]);
  std::printf("version %s\nfile: %s, min-entropy %.6f, seed %llu\nmemory: %s, min-entropy %.6f\n", ea_iid::version().c_str(),
              from_file.verdict.c_str(), from_file.min_entropy, static_cast<unsigned long long>(from_file.seed),
              from_memory.verdict.c_str(), from_memory.min_entropy);
  int status = from_file.verdict == from_memory.verdict && from_file.min_entropy == from_memory.min_entropy ? 0 : 1;
  try {
    const std::vector<uint8_t> zeros(1000, 0);
    assessor.assess(zeros.data(), zeros.size(), options, "zeros");
    std::printf("zeros: no error\n");
    status = 1;
  } catch (const ea_iid::Error& e) {
    std::printf("zeros: error %s: %s\n", e.kind().c_str(), e.what());
    if (e.kind() != "degenerate") status = 1;
  }
  std::printf("json: %.60s...\n", from_file.json.c_str());
  return status;
}
