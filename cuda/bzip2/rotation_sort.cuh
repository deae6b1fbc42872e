// The sort of many blocks' cyclic rotations at once (cuda/bzip2/bwt.cu: rotations of
// characters; cuda/bzip2/tokens.cu: rotations of numbers): pass 0 on keys the caller
// writes (block slot first), then prefix doubling of the rotations still tied on (rank,
// rank of the rotation h places later), until none is tied or h reaches the longest block.
// A Table gives a position's block: slot_of(q), begin[b] and len[b] (BlockTable for
// characters, TokenTable for numbers).
#pragma once

#include <cub/cub.cuh>

#include <algorithm>

#include "bzip2/bwt.cuh"

namespace ea::gpubz {
namespace {

// head[i] = i where a new key (its bits from `shift` up) starts, else 0 (a max-scan then
// gives each element its group's first index).
__global__ void head_kernel(const uint64_t* keys, uint32_t m, int shift, uint32_t* head) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m) head[i] = (i == 0 || (keys[i] >> shift) != (keys[i - 1] >> shift)) ? i : 0;
}

// Pair passes: also where the rank half (key >> 32) changes.
__global__ void pair_head_kernel(const uint64_t* keys, uint32_t m, uint32_t* sub, uint32_t* group) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m) return;
  sub[i] = (i == 0 || keys[i] != keys[i - 1]) ? i : 0;
  group[i] = (i == 0 || (keys[i] >> 32) != (keys[i - 1] >> 32)) ? i : 0;
}

__device__ __forceinline__ bool tied(const uint64_t* keys, uint32_t m, uint32_t i, int shift = 0) {
  const uint64_t k = keys[i] >> shift;
  return (i > 0 && k == keys[i - 1] >> shift) || (i + 1 < m && k == keys[i + 1] >> shift);
}

// Pass 0's keys as the caller wrote them (ws.keys[0]): `key_bits` compared bits from bit
// `pos_bits` up, the first `h` places of a rotation compared. Where pos_bits > 0 (packed)
// the keys are sorted alone: a key's low pos_bits bits hold the rotation's place in its block
// and its bits from `slot_shift` up the block's slot, so that its position is t.begin[slot] +
// place (4 bytes a rotation less to move in each radix pass); else the positions are
// ws.vals[0] = 0 .. total-1.
struct Pass0 {
  int key_bits;
  uint64_t h;
  int pos_bits = 0;
  int slot_shift = 0;
};

// Pass 0's order keeps its tied rotations marked by this bit (positions < 2^31: BwtWorkspace).
constexpr uint32_t kTiedBit = 0x80000000u;

// After pass 0 the rank of a rotation is its group's first index among all sorted
// rotations (blocks in order, so a block's ranks are its own positions); order0 keeps pass
// 0's order with the tied rotations marked (final_order_kernel). Packed keys (Pass0) give
// each rotation's position, written to vals.
template <class Table>
__global__ void first_ranks_kernel(const uint64_t* keys, uint32_t* vals, const uint32_t* group, uint32_t m, Table t,
                                   Pass0 p0, uint32_t* rank, uint8_t* unresolved, uint32_t* order0) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m) return;
  uint32_t q;
  if (p0.pos_bits > 0) {
    const uint64_t key = keys[i];
    q = t.begin[key >> p0.slot_shift] + static_cast<uint32_t>(key & ((uint64_t{1} << p0.pos_bits) - 1));
    vals[i] = q;
  } else {
    q = vals[i];
  }
  const bool tie = tied(keys, m, i, p0.pos_bits);
  rank[q] = group[i];
  unresolved[i] = tie;
  order0[i] = q | (tie ? kTiedBit : 0u);
}

// Doubling pass h: key = (rank of q, rank of the rotation h places later).
template <class Table>
__global__ void pair_keys_kernel(const uint32_t* list, uint32_t m, const uint32_t* rank, uint32_t h, Table t,
                                 uint64_t* keys, uint32_t* vals) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m) return;
  const uint32_t q = list[i];
  const uint32_t b = t.slot_of(q);
  const uint32_t begin = t.begin[b], len = t.len[b];
  const uint32_t later = begin + static_cast<uint32_t>((static_cast<uint64_t>(q - begin) + h) % len);
  keys[i] = (static_cast<uint64_t>(rank[q]) << 32) | rank[later];
  vals[i] = q;
}

// New rank = old group start + offset of the new subgroup within it; `last` breaks the
// remaining ties by position (they are identical rotations: any order gives the same
// transform).
__global__ void pair_ranks_kernel(const uint64_t* keys, const uint32_t* vals, const uint32_t* sub,
                                  const uint32_t* group, uint32_t m, bool last, uint32_t* rank,
                                  uint8_t* unresolved) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m) return;
  rank[vals[i]] = static_cast<uint32_t>(keys[i] >> 32) + ((last ? i : sub[i]) - group[i]);
  unresolved[i] = tied(keys, m, i);
}

__global__ void position_ranks_kernel(const uint32_t* vals, uint32_t m, uint32_t* rank) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m) rank[vals[i]] = i;
}

// The sorted rotations' positions (order[rank[q]] = q for every q): a rotation that pass 0
// resolved has its index there as its rank, so it stays (read and written in order); a tied
// one goes to its final rank, inside its pass-0 group. Inverting the whole rank array instead
// (a scattered write a rotation) took 0.23 ms a round of 17 GetTickCount_8bit texts on the
// H200 (session 44).
__global__ void final_order_kernel(const uint32_t* order0, const uint32_t* rank, uint32_t total, uint32_t* order) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= total) return;
  const uint32_t v = order0[i];
  if (v & kTiedBit) {
    const uint32_t q = v & ~kTiedBit;
    order[rank[q]] = q;
  } else {
    order[i] = v;
  }
}

// Pass 0's groups of tied rotations of numbers sorted where they are small and short:
// tie_break_kernel compares the numbers' codes from place h on (pass 0 compared the first h,
// and the next one's top bits), a thread a group, insertion sort. A group of more than
// kTieGroup rotations, or two rotations equal on kTieSteps more codes, is hard: counts[0]
// counts those groups, and the caller then runs the doubling instead (its ranks, the
// selections and the pairs' sorts: about 2 ms of a round of 70 copies of GetTickCount_8bit
// on the H200, where pass 0 leaves a few thousand rotations tied). counts[1]: the
// rotations of groups with identical rotations (a cycle of the block's numbers equal),
// placed by position.
constexpr uint32_t kTieGroup = 8, kTieSteps = 64, kTieHard = 2;

// -1, 0 (identical: equal on a whole cycle), 1, or kTieHard (equal on kTieSteps codes).
__device__ __forceinline__ int compare_from(const uint32_t* codes, uint32_t first, uint32_t count, uint32_t qa,
                                            uint32_t qb, uint64_t h) {
  if (h >= count) return 0;  // (pass 0 compared a whole cycle)
  uint32_t a = static_cast<uint32_t>((qa - first + h) % count), b = static_cast<uint32_t>((qb - first + h) % count);
  for (uint64_t k = h; k < count; ++k) {
    if (k - h >= kTieSteps) return kTieHard;
    const uint32_t ca = codes[first + a], cb = codes[first + b];
    if (ca != cb) return ca < cb ? -1 : 1;
    a = a + 1 == count ? 0 : a + 1;
    b = b + 1 == count ? 0 : b + 1;
  }
  return 0;
}

// A rotation's position from pass 0's sorted keys (packed) or values.
template <class Table>
__device__ __forceinline__ uint32_t pass0_position(const uint64_t* keys, const uint32_t* vals, uint32_t i,
                                                   const Table& t, const Pass0& p0) {
  if (p0.pos_bits == 0) return vals[i];
  const uint64_t key = keys[i];
  return t.begin[key >> p0.slot_shift] + static_cast<uint32_t>(key & ((uint64_t{1} << p0.pos_bits) - 1));
}

// order[i]: the i-th sorted rotation's position, each tied group's head sorting it (the
// group's rotations come in position order from pass 0's stable sort).
template <class Table>
__global__ void tie_break_kernel(const uint64_t* keys, const uint32_t* vals, uint32_t m, Table t, Pass0 p0,
                                 const uint32_t* codes, uint32_t* order, uint32_t* counts) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m) return;
  const uint64_t k = keys[i] >> p0.pos_bits;
  if (i > 0 && (keys[i - 1] >> p0.pos_bits) == k) return;  // (its group's head places it)
  uint32_t g = 1;
  while (i + g < m && g <= kTieGroup && (keys[i + g] >> p0.pos_bits) == k) ++g;
  if (g == 1) {
    order[i] = pass0_position(keys, vals, i, t, p0);
    return;
  }
  if (g > kTieGroup) {
    atomicAdd(&counts[0], 1u);
    return;
  }
  uint32_t q[kTieGroup];
  for (uint32_t j = 0; j < g; ++j) q[j] = pass0_position(keys, vals, i + j, t, p0);
  const uint32_t b = p0.pos_bits > 0 ? static_cast<uint32_t>(keys[i] >> p0.slot_shift) : t.slot_of(q[0]);
  const uint32_t first = t.begin[b], count = t.len[b];
  bool identical = false;
  for (uint32_t j = 1; j < g; ++j) {
    const uint32_t x = q[j];
    uint32_t l = j;
    while (l > 0) {
      const int c = compare_from(codes, first, count, q[l - 1], x, p0.h);
      if (c == kTieHard) {
        atomicAdd(&counts[0], 1u);
        return;
      }
      identical |= c == 0;
      if (c <= 0) break;
      q[l] = q[l - 1];
      --l;
    }
    q[l] = x;
  }
  if (identical) atomicAdd(&counts[1], g);
  for (uint32_t j = 0; j < g; ++j) order[i + j] = q[j];
}

struct MaxOp {
  __device__ __forceinline__ uint32_t operator()(uint32_t a, uint32_t b) const { return a > b ? a : b; }
};

inline void max_scan(BwtWorkspace& ws, uint32_t* data, uint32_t m, cudaStream_t st) {
  size_t bytes = ws.temp.size();
  EA_CUDA_CHECK(cub::DeviceScan::InclusiveScan(ws.temp.get(), bytes, data, data, MaxOp{}, static_cast<int>(m), st));
}

inline uint32_t select_unresolved(BwtWorkspace& ws, const uint32_t* vals, uint32_t m, cudaStream_t st,
                                  StageTimer& timer) {
  size_t bytes = ws.temp.size();
  EA_CUDA_CHECK(cub::DeviceSelect::Flagged(ws.temp.get(), bytes, vals, ws.flags.get(), ws.list.get(),
                                           ws.selected.get(), static_cast<int>(m), st));
  EA_CUDA_CHECK(
      cudaMemcpyAsync(ws.host_selected.get(), ws.selected.get(), sizeof(uint32_t), cudaMemcpyDeviceToHost, st));
  timer.sync(st);
  return *ws.host_selected.get();
}

// After the caller's pass-0 keys (ws.keys[0], laid out as `p0` says) and its copy of the
// blocks' lengths into ws.host_lens (on st; read after the first selection waits for the
// stream): the sorted rotations' positions in ws.head_a (rotations still tied at the end are
// identical and ordered by position). Marks stages 3 and 4 of `timer`. Returns the number of
// tied rotations.
// `codes` (rotations of numbers: each number's code, TokenTable's order): pass 0's ties are
// first broken by comparing codes (tie_break_kernel); the doubling runs only where that finds
// a hard group.
template <class Table>
uint32_t sort_rotations(const Table& t, uint32_t total, uint32_t slots, const Pass0& p0, BwtWorkspace& ws,
                        cudaStream_t st, StageTimer& timer, const uint32_t* codes = nullptr) {
  cub::DoubleBuffer<uint64_t> keys(ws.keys[0].get(), ws.keys[1].get());
  cub::DoubleBuffer<uint32_t> vals(ws.vals[0].get(), ws.vals[1].get());
  size_t bytes = ws.temp.size();
  const int n = static_cast<int>(total), end_bit = p0.pos_bits + p0.key_bits;
  if (p0.pos_bits > 0) {
    EA_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(ws.temp.get(), bytes, keys, n, p0.pos_bits, end_bit, st));
  } else {
    EA_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(ws.temp.get(), bytes, keys, vals, n, 0, end_bit, st));
  }
  if (codes) {
    EA_CUDA_CHECK(cudaMemsetAsync(ws.selected.get(), 0, 2 * sizeof(uint32_t), st));
    tie_break_kernel<<<grid_for(total), kThreads, 0, st>>>(keys.Current(), vals.Current(), total, t, p0, codes,
                                                           ws.head_a.get(), ws.selected.get());
    EA_CUDA_CHECK(cudaGetLastError());
    timer.mark(3, st);
    EA_CUDA_CHECK(cudaMemcpyAsync(ws.host_selected.get(), ws.selected.get(), 2 * sizeof(uint32_t),
                                  cudaMemcpyDeviceToHost, st));
    timer.sync(st);
    if (ws.host_selected.get()[0] == 0) {
      timer.mark(4, st);
      return ws.host_selected.get()[1];
    }
  }
  head_kernel<<<grid_for(total), kThreads, 0, st>>>(keys.Current(), total, p0.pos_bits, ws.head_a.get());
  max_scan(ws, ws.head_a.get(), total, st);
  first_ranks_kernel<<<grid_for(total), kThreads, 0, st>>>(keys.Current(), vals.Current(), ws.head_a.get(), total, t,
                                                           p0, ws.rank.get(), ws.flags.get(), ws.order0.get());
  EA_CUDA_CHECK(cudaGetLastError());
  uint32_t m = select_unresolved(ws, vals.Current(), total, st, timer);
  timer.mark(3, st);
  const uint32_t longest = *std::max_element(ws.host_lens.get(), ws.host_lens.get() + slots);
  const int rank_bits = bits_for(total);
  bool paired = false;
  uint64_t h = p0.h;
  uint32_t sorted = 0;  // elements of the last pair pass
  while (m > 0 && h < longest) {
    pair_keys_kernel<<<grid_for(m), kThreads, 0, st>>>(ws.list.get(), m, ws.rank.get(), static_cast<uint32_t>(h), t,
                                                       keys.Current(), vals.Current());
    bytes = ws.temp.size();
    EA_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(ws.temp.get(), bytes, keys, vals, static_cast<int>(m), 0,
                                                  32 + rank_bits, st));
    pair_head_kernel<<<grid_for(m), kThreads, 0, st>>>(keys.Current(), m, ws.head_a.get(), ws.head_b.get());
    max_scan(ws, ws.head_a.get(), m, st);
    max_scan(ws, ws.head_b.get(), m, st);
    pair_ranks_kernel<<<grid_for(m), kThreads, 0, st>>>(keys.Current(), vals.Current(), ws.head_a.get(),
                                                        ws.head_b.get(), m, false, ws.rank.get(), ws.flags.get());
    EA_CUDA_CHECK(cudaGetLastError());
    paired = true;
    sorted = m;
    m = select_unresolved(ws, vals.Current(), m, st, timer);
    h *= 2;
  }
  if (m > 0) {
    // Identical rotations (periodic blocks): any order among them.
    if (paired) {
      pair_ranks_kernel<<<grid_for(sorted), kThreads, 0, st>>>(keys.Current(), vals.Current(), ws.head_a.get(),
                                                               ws.head_b.get(), sorted, true, ws.rank.get(),
                                                               ws.flags.get());
    } else {
      position_ranks_kernel<<<grid_for(total), kThreads, 0, st>>>(vals.Current(), total, ws.rank.get());
    }
  }
  timer.mark(4, st);
  final_order_kernel<<<grid_for(total), kThreads, 0, st>>>(ws.order0.get(), ws.rank.get(), total, ws.head_a.get());
  EA_CUDA_CHECK(cudaGetLastError());
  return m;
}

}  // namespace
}  // namespace ea::gpubz
