// The Burrows-Wheeler transform of many blocks at once on the GPU: by numbers where the
// round's numbers are known and every block has a space (cuda/bzip2/tokens.cu), else by
// characters: pass 0 sorts every rotation of every block on (block slot, first characters
// as digits in base radix: 13-14 characters of decimal text with 11 of them, 29-30 with 3)
// with one CUB radix sort of at most 56 key bits, then prefix doubling of the rotations
// still tied (rotation_sort.cuh). Characters are decimal text (' ' and digits).
#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <vector>

#include "bzip2/bwt.cuh"
#include "bzip2/rotation_sort.cuh"
#include "common/error.hpp"
#include "gpu_bwt.hpp"

namespace ea::gpubz {

namespace {

// Pass 0 keys: block slot, then the first `chars` characters of the rotation at q as digits
// in base codes.radix.
__global__ void first_keys_kernel(const uint8_t* text, uint32_t total, BlockTable t, CharCodes codes, int chars,
                                  uint64_t* keys, uint32_t* vals) {
  __shared__ uint8_t code[256];
  for (int c = threadIdx.x; c < 256; c += blockDim.x) code[c] = codes.code[c];
  __syncthreads();
  const uint32_t q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= total) return;
  const uint32_t b = t.slot_of(q);
  const uint32_t begin = t.begin[b], len = t.len[b];
  uint32_t o = q - begin;
  uint64_t key = static_cast<uint64_t>(b);
  for (int c = 0; c < chars; ++c) {
    key = key * codes.radix + code[text[begin + o]];
    o = o + 1 == len ? 0 : o + 1;
  }
  keys[q] = key;
  vals[q] = q;
}

// Characters in pass 0's keys: as many as keep (slot, characters) within 56 bits (seven
// 8-bit radix sort passes); `span` becomes the number of distinct keys.
constexpr uint64_t kFirstKeyLimit = uint64_t{1} << 56;
int first_key_chars(uint32_t slots, uint32_t radix, uint64_t& span) {
  span = std::max<uint32_t>(slots, 1);
  if (radix < 2) return 1;  // one kind of character: every rotation of a block is equal
  int chars = 0;
  do {  // (slots < 2^32 and radix <= 256: one character always fits)
    span *= radix;
    ++chars;
  } while (span <= kFirstKeyLimit / radix);
  return chars;
}

// The transform: the character before each rotation, in sorted order.
__global__ void bwt_kernel(const uint8_t* text, const uint32_t* order, uint32_t total, BlockTable t, uint8_t* last) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= total) return;
  const uint32_t b = t.slot_of(i);
  const uint32_t begin = t.begin[b], len = t.len[b];
  const uint32_t q = order[i];
  last[i] = text[q == begin ? begin + len - 1 : q - 1];
}

}  // namespace

bool BwtWorkspace::allocate(uint32_t total, uint32_t slots) {
  using cuda::DeviceBuffer;
  numbers_kept = false;  // (the tables go with the buffers allocated below)
  if (total >= (1u << 31)) return false;  // (rotation_sort.cuh marks ties by a position's top bit)
  const bool ok = DeviceBuffer<uint64_t>::try_allocate(total, keys[0]) &&
                  DeviceBuffer<uint64_t>::try_allocate(total, keys[1]) &&
                  DeviceBuffer<uint32_t>::try_allocate(total, vals[0]) &&
                  DeviceBuffer<uint32_t>::try_allocate(total, vals[1]) &&
                  DeviceBuffer<uint32_t>::try_allocate(total, rank) &&
                  DeviceBuffer<uint32_t>::try_allocate(total, head_a) &&
                  DeviceBuffer<uint32_t>::try_allocate(total, order0) &&
                  DeviceBuffer<uint32_t>::try_allocate(total, head_b) &&
                  DeviceBuffer<uint32_t>::try_allocate(total, list) &&
                  DeviceBuffer<uint32_t>::try_allocate(2, selected) &&
                  DeviceBuffer<uint8_t>::try_allocate(total, flags) &&
                  DeviceBuffer<uint32_t>::try_allocate(total, tok_digits) &&
                  DeviceBuffer<uint32_t>::try_allocate(total, tok_code) &&
                  DeviceBuffer<uint32_t>::try_allocate(std::max<uint32_t>(slots, 1), tok_begin) &&
                  DeviceBuffer<uint32_t>::try_allocate(std::max<uint32_t>(slots, 1), tok_len) &&
                  DeviceBuffer<uint32_t>::try_allocate(kTailKeys, short_class) &&
                  DeviceBuffer<uint16_t>::try_allocate(kShortTokens, short_tokens) &&
                  DeviceBuffer<uint32_t>::try_allocate(kWrapRests * static_cast<size_t>(std::max<uint32_t>(slots, 1)),
                                                       wrap_rests);
  if (!ok) return false;
  // CUB scratch: the largest of what the sorts, the scans and the selections need.
  size_t bytes[8] = {};
  cub::DoubleBuffer<uint64_t> k(keys[0].get(), keys[1].get());
  cub::DoubleBuffer<uint32_t> v(vals[0].get(), vals[1].get());
  cub::DoubleBuffer<uint16_t> k16(reinterpret_cast<uint16_t*>(keys[0].get()), reinterpret_cast<uint16_t*>(keys[1].get()));
  cub::DoubleBuffer<uint8_t> v8(flags.get(), flags.get());
  const int n = static_cast<int>(total);
  EA_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes[0], k, v, n));
  EA_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, bytes[7], k, n));
  EA_CUDA_CHECK(cub::DeviceScan::InclusiveScan(nullptr, bytes[1], head_a.get(), head_a.get(), MaxOp{}, n));
  EA_CUDA_CHECK(cub::DeviceSelect::Flagged(nullptr, bytes[2], vals[0].get(), flags.get(), list.get(), selected.get(), n));
  EA_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes[3], k16, v8, n));
  EA_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes[4], list.get(), head_b.get(), n));
  EA_CUDA_CHECK(cub::DeviceSelect::If(nullptr, bytes[5], thrust::counting_iterator<uint32_t>(0), list.get(),
                                      selected.get(), n, IsSpace{nullptr}));
  bytes[6] = 1;
  if (!DeviceBuffer<uint8_t>::try_allocate(*std::max_element(bytes, bytes + 8), temp)) return false;
  host_selected = cuda::PinnedBuffer<uint32_t>(2);  // (and tie_break_kernel's two counts)
  host_lens = cuda::PinnedBuffer<uint32_t>(std::max<uint32_t>(slots, 1));
  host_text_lens = cuda::PinnedBuffer<uint32_t>(std::max<uint32_t>(slots, 1));
  host_short_tokens = cuda::PinnedBuffer<uint16_t>(kShortTokens);
  return true;
}

CharCodes char_codes(const bool (&used)[256]) {
  CharCodes c{};
  c.radix = 0;
  for (int k = 0; k < 256; ++k) {
    c.code[k] = static_cast<uint8_t>(c.radix);
    if (used[k]) ++c.radix;
  }
  return c;
}

uint32_t bwt_blocks(const uint8_t* text, uint32_t total, const BlockTable& t, uint32_t slots, const CharCodes& codes,
                    const Numbers* numbers, BwtWorkspace& ws, uint8_t* last, cudaStream_t st, StageTimer& timer) {
  uint32_t tied = 0;
  if (numbers) {
    if (token_transform(text, total, t, slots, *numbers, ws, last, st, timer, tied)) return tied;
    ++ws.by_characters;  // (a block of one number, or more than 2^19 slots)
  }
  // Pass 0 on (slot, first characters).
  uint64_t span = 0;
  const int chars = first_key_chars(slots, codes.radix, span);
  first_keys_kernel<<<grid_for(total), kThreads, 0, st>>>(text, total, t, codes, chars, ws.keys[0].get(),
                                                          ws.vals[0].get());
  EA_CUDA_CHECK(cudaGetLastError());
  EA_CUDA_CHECK(cudaMemcpyAsync(ws.host_lens.get(), t.len, slots * sizeof(uint32_t), cudaMemcpyDeviceToHost, st));
  tied = sort_rotations(t, total, slots, Pass0{bits_for(span - 1), static_cast<uint64_t>(chars)}, ws, st, timer);
  bwt_kernel<<<grid_for(total), kThreads, 0, st>>>(text, ws.head_a.get(), total, t, last);
  EA_CUDA_CHECK(cudaGetLastError());
  timer.mark(5, st);
  return tied;
}

}  // namespace ea::gpubz

namespace ea {

std::vector<uint8_t> gpu_bwt(const std::vector<uint8_t>& text, const std::vector<uint32_t>& block_lengths,
                             int gpu_id, bool* by_numbers) {
  using namespace gpubz;
  uint64_t sum = 0;
  uint32_t longest = 1;
  for (uint32_t len : block_lengths) {
    if (len == 0) throw Error(ErrorKind::Usage, "gpu_bwt: a block of length 0");
    sum += len;
    longest = std::max(longest, len);
  }
  if (sum != text.size() || block_lengths.empty() || sum >= (uint64_t{1} << 31)) {
    throw Error(ErrorKind::Usage, "gpu_bwt: the block lengths must be positive and add up to the text's length");
  }
  bool used[256] = {};
  for (uint8_t c : text) {
    if (c != ' ' && (c < '0' || c > '9')) throw Error(ErrorKind::Usage, "gpu_bwt: the text must be decimal text");
    used[c] = true;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices <= gpu_id) {
    (void)cudaGetLastError();
    throw Error(ErrorKind::Device, "no usable GPU");
  }
  EA_CUDA_CHECK(cudaSetDevice(gpu_id));
  const uint32_t total = static_cast<uint32_t>(sum), slots = static_cast<uint32_t>(block_lengths.size());
  // One copy whose blocks are the given ones.
  std::vector<uint32_t> begin(slots);
  uint32_t at = 0;
  for (uint32_t k = 0; k < slots; ++k) {
    begin[k] = at;
    at += block_lengths[k];
  }
  cuda::CudaStream stream;
  cuda::DeviceBuffer<uint8_t> d_text, d_last;
  cuda::upload(d_text, text.data(), text.size(), stream);
  d_last = cuda::DeviceBuffer<uint8_t>(total);
  BlockTableBuffers table;
  if (!table.allocate(slots, 1)) throw Error(ErrorKind::Device, "GPU out of memory");
  const uint32_t count = slots;
  EA_CUDA_CHECK(cudaMemcpyAsync(table.begin.get(), begin.data(), slots * sizeof(uint32_t), cudaMemcpyHostToDevice, stream));
  EA_CUDA_CHECK(cudaMemcpyAsync(table.len.get(), block_lengths.data(), slots * sizeof(uint32_t), cudaMemcpyHostToDevice,
                                stream));
  EA_CUDA_CHECK(cudaMemcpyAsync(table.count.get(), &count, sizeof count, cudaMemcpyHostToDevice, stream));
  BwtWorkspace ws;
  if (!ws.allocate(total, slots)) throw Error(ErrorKind::Device, "GPU out of memory");
  StageTimer timer(false);
  Numbers numbers{};
  const BlockTable t = table.table(slots, total, longest);
  uint32_t tied = 0;
  const bool numbered = numbers_of_text(text, numbers) &&
                        token_transform(d_text.get(), total, t, slots, numbers, ws, d_last.get(), stream, timer, tied);
  if (!numbered) bwt_blocks(d_text.get(), total, t, slots, char_codes(used), nullptr, ws, d_last.get(), stream, timer);
  if (by_numbers) *by_numbers = numbered;
  std::vector<uint8_t> last(total);
  EA_CUDA_CHECK(cudaMemcpyAsync(last.data(), d_last.get(), total, cudaMemcpyDeviceToHost, stream));
  EA_CUDA_CHECK(cudaStreamSynchronize(stream));
  return last;
}

}  // namespace ea
