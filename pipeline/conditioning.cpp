#include "conditioning.hpp"

#include <algorithm>
#include <chrono>

#include "common/error.hpp"
#include "io/samples.hpp"
#include "track.hpp"

namespace ea {

void check_conditioning_options(bool vetted, const ConditioningGiven& g, const SettingNames& names) {
  const std::string file = names("conditioned", "FILE");
  if (g.conditioned && vetted) throw Error(ErrorKind::Usage, names("conditioned", "") + " applies to a non-vetted component");
  if (g.conditioned_iid && !g.conditioned) {
    throw Error(ErrorKind::Usage, names("conditioned_iid", "") + " applies to " + file);
  }
  if (g.bits && !g.conditioned) throw Error(ErrorKind::Usage, names("bits", "") + " applies to " + file);
}

void check_conditioning_settings(bool vetted, const ConditioningGiven& g, const SettingNames& names) {
  check_conditioning_options(vetted, g, names);
  check_conditioning_h_prime(vetted, g, names);
}

void check_conditioning_h_prime(bool vetted, const ConditioningGiven& g, const SettingNames& names) {
  const std::string file = names("conditioned", "FILE");
  if (vetted && g.h_prime) throw Error(ErrorKind::Usage, names("h_prime", "") + " applies to a non-vetted component");
  if (!vetted && !g.h_prime && !g.conditioned) {
    throw Error(ErrorKind::Usage, "a non-vetted component needs " + names("h_prime", "") + " or " + file + " for h'");
  }
  if (!vetted && g.h_prime && g.conditioned) {
    throw Error(ErrorKind::Usage, names("h_prime", "") + " and " + file + ": give one (h' is given, or comes from the file)");
  }
}

ConditioningAssessment assess_conditioning(ConditioningInput in, const std::optional<std::string>& conditioned_path,
                                           bool conditioned_iid, const Settings& settings, Interrupt interrupt) {
  const auto start = std::chrono::steady_clock::now();
  ConditioningAssessment a;
  if (conditioned_path) {
    if (in.vetted) throw Error(ErrorKind::Usage, "h' from conditioned data applies to a non-vetted component only");
    // Fails on bad sizes before the file is read.
    ConditioningInput probe = in;
    probe.h_prime = 1;
    check_conditioning_input(probe);
    LoadOptions load;
    load.width = settings.width;
    load.allow_stream = settings.allow_stream;
    load.interrupt = interrupt;
    const Dataset d = load_dataset(*conditioned_path, load);
    Settings s = settings;
    s.track = TrackChoice::NonIid;
    s.initial_entropy = false;  // -c: the bitstring estimates (h' is per bit)
    s.truncate_bitstring = false;
    const DeviceSlot cpu({});  // the estimates' stage on the CPU (settings.threads)
    a.conditioned = non_iid_stage(d, s, cpu, interrupt);
    a.conditioned_iid = conditioned_iid;
    const NonIidEstimates& x = a.conditioned->estimates;
    double h = x.h_bitstring;
    if (conditioned_iid) {
      const auto& mcv = x.bitstring[static_cast<size_t>(NonIidEstimator::MostCommon)];
      h = mcv && mcv->evaluated ? std::min(1.0, mcv->entropy) : 1.0;
    }
    in.h_prime = static_cast<long double>(h);
  }
  a.result = conditioning_entropy(in, interrupt);
  a.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return a;
}

}  // namespace ea
