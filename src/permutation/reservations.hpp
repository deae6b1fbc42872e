// The Fisher-Yates shuffle of SP 800-90B with its swaps carried out in parallel rounds
// (issue 17, item 1): the reference implementation, on the host, of the scheme a GPU block
// will run on one permutation. Deterministic reservations (Shun, Gu, Blelloch, Fineman and
// Gibbons, "Sequential random permutation, list contraction and tree contraction are
// highly parallel", SODA 2015):
//
// The sequential shuffle carries out, for i = n-1 down to 1, swap(a[i], a[h[i]]) with
// h[i] <= i drawn in that order. Step i touches places i and h[i]; a step k > i comes
// before it and must go first when it touches one of them (h[k] == i or h[k] == h[i]); no
// later step k < i touches place i. So in each round every pending step of a window writes
// its index into reserve[i] and reserve[h[i]] keeping the largest (the earliest in the
// sequential order), and a step whose index is in both places depends on no pending step:
// it swaps (the steps that swap in one round touch disjoint places). The result is exactly
// the sequential one, for any window and any order of the writes within a round.
//
// The GPU kernel (cuda/parallel_shuffle.cuh) uses an equivalent rule with half the writes:
// an earlier step k > i can meet step i's places only through its target (its own place k
// is above both i and h[i]), so only targets are reserved (reserve[h[k]] keeps the largest
// k), and step i swaps when reserve[h[i]] == i and reserve[i] <= i (no earlier step
// targets place i). ReservationRule::kTargets runs that rule here.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ea {

// The swap targets of one permutation: h[i] for i = n-1 down to 1, drawn in that order
// from `rng` exactly as fisher_yates() draws them (h[0] = 0). n below 2^32.
template <class Stream>
void fisher_yates_targets(size_t n, Stream& rng, std::vector<uint32_t>& h) {
  h.assign(n, 0);
  for (size_t i = n; i-- > 1;) h[i] = rng.bounded(static_cast<uint32_t>(i));
}

enum class ReservationRule { kBothPlaces, kTargets };

struct ReservationStats {
  size_t rounds = 0;    // rounds of reservations
  size_t reserved = 0;  // reservations made (the work, against n - 1 for the sequential loop)
};

// Carries out the swaps of fisher_yates_targets() in rounds of deterministic reservations.
// Pending steps are taken in sequential order, at most `window` of them per round (0: all
// at once). a[0], a[stride], ..., a[(n-1) stride] become the sequential shuffle's result.
inline ReservationStats fisher_yates_by_reservations(uint8_t* a, size_t n, size_t stride,
                                                     const std::vector<uint32_t>& h, size_t window,
                                                     ReservationRule rule = ReservationRule::kBothPlaces) {
  const bool both = rule == ReservationRule::kBothPlaces;
  ReservationStats st;
  if (n < 2) return st;
  constexpr uint32_t kFree = 0;  // step 0 does nothing, so index 0 never reserves
  std::vector<uint32_t> reserve(n, kFree);
  // Pending steps, in sequential order (largest index first).
  std::vector<uint32_t> pending;
  pending.reserve(n - 1);
  for (size_t i = n; i-- > 1;) pending.push_back(static_cast<uint32_t>(i));
  size_t next = 0;  // pending[next..] not yet in the window
  std::vector<uint32_t> active, kept;
  while (next < pending.size() || !active.empty()) {
    // Fill the window with the earliest steps not yet taken.
    const size_t room = window ? (window > active.size() ? window - active.size() : 0) : pending.size() - next;
    const size_t take = std::min(room, pending.size() - next);
    active.insert(active.end(), pending.begin() + static_cast<std::ptrdiff_t>(next),
                  pending.begin() + static_cast<std::ptrdiff_t>(next + take));
    next += take;
    ++st.rounds;
    // Reserve (in parallel on a GPU: atomicMax on both places).
    for (uint32_t i : active) {
      if (both) {
        reserve[i] = std::max(reserve[i], i);
        ++st.reserved;
      }
      reserve[h[i]] = std::max(reserve[h[i]], i);
      ++st.reserved;
    }
    // Commit the steps that hold both places; the others wait for the next round.
    kept.clear();
    for (uint32_t i : active) {
      if ((both ? reserve[i] == i : reserve[i] <= i) && reserve[h[i]] == i) {
        std::swap(a[static_cast<size_t>(i) * stride], a[static_cast<size_t>(h[i]) * stride]);
      } else {
        kept.push_back(i);
      }
    }
    for (uint32_t i : active) reserve[i] = reserve[h[i]] = kFree;
    active.swap(kept);
  }
  return st;
}

}  // namespace ea
