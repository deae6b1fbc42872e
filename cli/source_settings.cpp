#include "source_settings.hpp"

namespace ea::cli {

SettingsGiven source_settings_given(const EngineOptionText& text, const EngineChoice& engine, const Settings& s,
                                    bool until_decided, bool permutation_counters) {
  SettingsGiven g;
  g.iterations = text.iterations_opt->count() > 0;
  g.threads = engine.threads.has_value();
  g.prng = s.prng != PrngId::Philox;
  g.shuffle = s.shuffle != ShuffleChoice::Bucket;
  g.until_decided = until_decided;
  g.permutation_counters = permutation_counters;
  g.gpus = text.gpu_opt->count() > 0;
  g.round_size = text.round_opt->count() > 0;
  g.tuning = text.tuning_opt->count() > 0;
  return g;
}

}  // namespace ea::cli
