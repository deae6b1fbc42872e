// A backend made when it is first used: the compression test's CPU backend of a GPU run
// needs libbz2's length of the original data (about half a second for a million samples on
// one core), but only once its phase starts, which for data that already failed another
// test is after the statistical tests on the GPU, or never. Making it on first use keeps
// that wait off the critical path.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "permutation/permutation.hpp"

namespace ea {

class DeferredBackend final : public PermutationBackend {
 public:
  using Factory = std::function<std::unique_ptr<PermutationBackend>()>;
  // `label` answers name() before the backend exists; `supported`, where not 0, answers
  // supported() without making it (a shared backend asks before its phase starts).
  DeferredBackend(std::string label, Factory make, TestMask supported = 0)
      : label_(std::move(label)), make_(std::move(make)), supported_(supported) {}

  // Whether the backend has been made (by a call other than name(), busy_seconds(), profile()).
  bool made() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return made_ != nullptr;
  }

  std::string name() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    return made_ ? made_->name() : label_;
  }
  TestMask supported() const override { return supported_ ? supported_ : get().supported(); }
  uint32_t round_size(uint32_t round, TestMask mask) const override { return get().round_size(round, mask); }
  void run(uint64_t first, uint32_t count, TestMask mask, uint8_t* outcomes) override {
    get().run(first, count, mask, outcomes);
  }
  void stream(uint64_t first, uint32_t count, TestMask mask, const OutcomeSink& sink) override {
    get().stream(first, count, mask, sink);
  }
  bool rebind(const PermutationData&) override { return false; }
  double busy_seconds() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    return made_ ? made_->busy_seconds() : 0.0;
  }
  std::string profile() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    return made_ ? made_->profile() : "";
  }

 private:
  // Made once, by the first caller; the factory's exception reaches that caller (and the
  // next caller tries again).
  PermutationBackend& get() const {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!made_) made_ = make_();
    return *made_;
  }

  std::string label_;
  Factory make_;
  TestMask supported_;
  mutable std::mutex mutex_;
  mutable std::unique_ptr<PermutationBackend> made_;
};

}  // namespace ea
