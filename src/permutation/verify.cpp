#include "permutation/verify.hpp"

#include <cstring>
#include <vector>

#include "common/error.hpp"

namespace ea {

namespace {

class VerifyingBackend final : public PermutationBackend {
 public:
  VerifyingBackend(PermutationBackend& device, PermutationBackend& cpu, uint32_t per_round)
      : device_(device), cpu_(cpu), per_round_(per_round) {}

  std::string name() const override { return device_.name() + " (verified on the CPU)"; }
  TestMask supported() const override { return device_.supported(); }
  uint32_t round_size(uint32_t r, TestMask m) const override { return device_.round_size(r, m); }
  double busy_seconds() const override { return device_.busy_seconds(); }
  std::string profile() const override { return device_.profile(); }

  void run(uint64_t first, uint32_t count, TestMask mask, uint8_t* outcomes) override {
    device_.run(first, count, mask, outcomes);
    // The first, the last and evenly spaced permutations of the round.
    const uint32_t checks = std::min(per_round_, count);
    std::vector<uint8_t> row(kNumTests);
    for (uint32_t c = 0; c < checks; ++c) {
      const uint32_t r = checks == 1 ? 0 : static_cast<uint32_t>(static_cast<uint64_t>(c) * (count - 1) / (checks - 1));
      cpu_.run(first + r, 1, mask, row.data());
      const uint8_t* got = outcomes + static_cast<size_t>(r) * kNumTests;
      for (int t = 0; t < kNumTests; ++t) {
        if (!(mask & bit(t)) || row[t] == got[t]) continue;
        static const char* kWords[] = {"greater", "equal", "less", "not computed"};
        throw Error(ErrorKind::Device, "verification: the GPU and the CPU disagree on permutation " +
                                           std::to_string(first + r) + ", test " + test_name(t) + " (GPU: " +
                                           kWords[got[t] & 3] + ", CPU: " + kWords[row[t] & 3] + ")");
      }
    }
  }


 private:
  PermutationBackend& device_;
  PermutationBackend& cpu_;
  uint32_t per_round_;
};

}  // namespace

std::unique_ptr<PermutationBackend> make_verifying_backend(PermutationBackend& device, PermutationBackend& cpu,
                                                           uint32_t per_round) {
  return std::make_unique<VerifyingBackend>(device, cpu, per_round);
}

}  // namespace ea
