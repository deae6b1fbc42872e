#include "stats/bzip2_size.hpp"

#include <divsufsort.h>

#include <algorithm>

#include "common/error.hpp"

namespace ea::bz {

std::vector<std::vector<uint8_t>> split_rle1_blocks(const uint8_t* in, size_t n, uint32_t limit) {
  std::vector<std::vector<uint8_t>> blocks;
  std::vector<uint8_t> cur;
  int run_byte = -1;  // the open run (none yet)
  int run_len = 0;
  auto close_run = [&] {
    if (run_byte < 0) return;
    const auto b = static_cast<uint8_t>(run_byte);
    if (run_len <= 3) {
      cur.insert(cur.end(), static_cast<size_t>(run_len), b);
    } else {
      cur.insert(cur.end(), 4, b);
      cur.push_back(static_cast<uint8_t>(run_len - 4));
    }
  };
  for (size_t i = 0; i < n; ++i) {
    // libbz2 checks for a full block before each byte; the open run stays open.
    if (cur.size() >= limit) {
      blocks.push_back(std::move(cur));
      cur.clear();
    }
    if (in[i] != run_byte || run_len == 255) {
      close_run();
      run_byte = in[i];
      run_len = 1;
    } else {
      ++run_len;
    }
  }
  close_run();
  if (!cur.empty()) blocks.push_back(std::move(cur));
  return blocks;
}

std::vector<uint8_t> rotation_bwt(const uint8_t* block, size_t len) {
  if (len > kDirectRotations) return suffix_sort_bwt(block, len);
  // Rotations compared directly (equal ones give equal transform bytes in either order).
  std::vector<uint32_t> rot(len);
  for (uint32_t i = 0; i < len; ++i) rot[i] = i;
  std::sort(rot.begin(), rot.end(), [&](uint32_t a, uint32_t b) {
    for (size_t i = 0; i < len; ++i) {
      const uint8_t x = block[(a + i) % len], y = block[(b + i) % len];
      if (x != y) return x < y;
    }
    return false;
  });
  std::vector<uint8_t> last(len);
  for (size_t i = 0; i < len; ++i) last[i] = block[(rot[i] + len - 1) % len];
  return last;
}

std::vector<uint8_t> suffix_sort_bwt(const uint8_t* block, size_t len) {
  // Rotations of the block in sorted order: the suffixes of block+block that start in the
  // first copy (two different rotations differ within len bytes; equal ones give equal
  // transform bytes in either order).
  std::vector<uint8_t> twice(block, block + len);
  twice.insert(twice.end(), block, block + len);
  std::vector<saidx_t> sa(2 * len);
  if (divsufsort(twice.data(), sa.data(), static_cast<saidx_t>(2 * len)) != 0) {
    throw Error(ErrorKind::Internal, "divsufsort failed");
  }
  std::vector<uint8_t> last;
  last.reserve(len);
  for (saidx_t s : sa) {
    if (static_cast<size_t>(s) < len) last.push_back(block[(static_cast<size_t>(s) + len - 1) % len]);
  }
  return last;
}

uint64_t transform_bits(const uint8_t* block, const uint8_t* last, size_t len, BlockScratch& scratch) {
  uint8_t seq_of[256];
  bool used[256];
  int ranges = 0;
  const int in_use = map_bytes_in_use(block, static_cast<int32_t>(len), seq_of, ranges, used);
  scratch.mtfv.resize(len + 1);
  int32_t freq[kMaxAlpha];
  int32_t n_mtf = 0;
  if (in_use <= 16) {  // the GPU's way (one segment here)
    scratch.places.resize(len);
    uint64_t order = packed_identity(in_use);
    packed_places(last, static_cast<int32_t>(len), seq_of, order, scratch.places.data());
    n_mtf = zero_run_code(scratch.places.data(), static_cast<int32_t>(len), in_use, scratch.mtfv.data(), freq);
  } else {
    n_mtf = mtf_encode(last, static_cast<int32_t>(len), seq_of, in_use, scratch.mtfv.data(), freq);
  }
  scratch.selectors.resize(static_cast<size_t>(n_mtf) / kGroupSize + 1);
  return block_bits_from_mtf(scratch.mtfv.data(), n_mtf, freq, in_use, ranges, scratch.selectors.data(),
                             scratch.tables);
}

uint64_t block_bits(const uint8_t* block, size_t len) {
  const std::vector<uint8_t> last = rotation_bwt(block, len);
  BlockScratch scratch;
  return transform_bits(block, last.data(), len, scratch);
}

uint64_t modelled_size(const uint8_t* in, size_t n, int level) {
  uint64_t bits = 0;
  for (const auto& b : split_rle1_blocks(in, n, block_limit(level))) bits += block_bits(b.data(), b.size());
  return stream_bytes(bits);
}

}  // namespace ea::bz
