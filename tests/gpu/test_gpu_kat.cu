// GPU known-answer test: the Philox4x32-10 vectors, the permutation streams and the
// Fisher-Yates shuffles of tests/kat/philox4x32_10.txt, computed in a kernel from the same
// headers as the CPU. Exit 77 (ctest: skipped) when no GPU is usable; with --probe, only
// that check.
#include <cuda_runtime.h>

#include "check_cuda.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "permutation/shuffle.hpp"
#include "rng/philox_stream.hpp"

namespace {

struct Row {
  std::string kind;
  std::vector<std::string> f;
};

__global__ void kat_kernel(const uint32_t* in, uint32_t* out, int rows) {
  int r = threadIdx.x;
  if (r >= rows) return;
  philox4x32_ctr_t c = {{in[r * 6], in[r * 6 + 1], in[r * 6 + 2], in[r * 6 + 3]}};
  philox4x32_key_t k = {{in[r * 6 + 4], in[r * 6 + 5]}};
  philox4x32_ctr_t o = philox4x32_R(10, c, k);
  for (int i = 0; i < 4; ++i) out[r * 4 + i] = o.v[i];
}

__global__ void stream_kernel(const unsigned long long* in, uint32_t* words, uint8_t* shuffles, int rows) {
  int r = threadIdx.x;
  if (r >= rows) return;
  ea::PhiloxStream s(in[r * 2], in[r * 2 + 1]);
  for (int i = 0; i < 4; ++i) words[r * 4 + i] = s.next();
  // The shuffle uses a fresh stream, interleaved with stride = rows as in a GPU batch.
  ea::PhiloxStream t(in[r * 2], in[r * 2 + 1]);
  for (int i = 0; i < 10; ++i) shuffles[i * rows + r] = static_cast<uint8_t>(i);
  ea::fisher_yates(shuffles + r, 10, rows, t);
}

}  // namespace

int main(int argc, char** argv) {
  if (const int skip = skip_status_without_gpu()) return skip;
  if (argc > 1 && std::string(argv[1]) == "--probe") return 0;
  std::ifstream in(EA_TEST_KAT_DIR "/philox4x32_10.txt");
  std::vector<Row> kats, streams, shuffles;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ss(line);
    Row r;
    if (!(ss >> r.kind) || r.kind[0] == '#') continue;
    for (std::string w; ss >> w;) r.f.push_back(w);
    (r.kind == "kat" ? kats : r.kind == "stream" ? streams : shuffles).push_back(r);
  }
  int failures = 0;
  {
    std::vector<uint32_t> h(kats.size() * 6), o(kats.size() * 4);
    for (size_t r = 0; r < kats.size(); ++r)
      for (int i = 0; i < 6; ++i) h[r * 6 + i] = static_cast<uint32_t>(std::stoul(kats[r].f[i], nullptr, 16));
    uint32_t *dh, *dout;
    CHECK_CUDA(cudaMalloc(&dh, h.size() * 4));
    CHECK_CUDA(cudaMalloc(&dout, o.size() * 4));
    CHECK_CUDA(cudaMemcpy(dh, h.data(), h.size() * 4, cudaMemcpyHostToDevice));
    kat_kernel<<<1, 32>>>(dh, dout, static_cast<int>(kats.size()));
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaMemcpy(o.data(), dout, o.size() * 4, cudaMemcpyDeviceToHost));
    for (size_t r = 0; r < kats.size(); ++r)
      for (int i = 0; i < 4; ++i)
        if (o[r * 4 + i] != static_cast<uint32_t>(std::stoul(kats[r].f[6 + i], nullptr, 16))) {
          std::printf("FAIL kat row %zu word %d: %08x\n", r, i, o[r * 4 + i]);
          ++failures;
        }
  }
  {
    const int rows = static_cast<int>(streams.size());
    std::vector<unsigned long long> h(rows * 2);
    for (int r = 0; r < rows; ++r) {
      h[r * 2] = std::stoull(streams[r].f[0]);
      h[r * 2 + 1] = std::stoull(streams[r].f[1]);
    }
    unsigned long long* dh;
    uint32_t* dw;
    uint8_t* ds;
    CHECK_CUDA(cudaMalloc(&dh, h.size() * 8));
    CHECK_CUDA(cudaMalloc(&dw, rows * 16));
    CHECK_CUDA(cudaMalloc(&ds, rows * 10));
    CHECK_CUDA(cudaMemcpy(dh, h.data(), h.size() * 8, cudaMemcpyHostToDevice));
    stream_kernel<<<1, 32>>>(dh, dw, ds, rows);
    CHECK_CUDA(cudaGetLastError());
    std::vector<uint32_t> w(rows * 4);
    std::vector<uint8_t> s(rows * 10);
    CHECK_CUDA(cudaMemcpy(w.data(), dw, w.size() * 4, cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(s.data(), ds, s.size(), cudaMemcpyDeviceToHost));
    for (int r = 0; r < rows; ++r)
      for (int i = 0; i < 4; ++i)
        if (w[r * 4 + i] != static_cast<uint32_t>(std::stoul(streams[r].f[2 + i]))) {
          std::printf("FAIL stream %d word %d: %u\n", r, i, w[r * 4 + i]);
          ++failures;
        }
    // shuffle rows use the same (seed, j) pairs as the stream rows
    for (int r = 0; r < rows && r < static_cast<int>(shuffles.size()); ++r)
      for (int i = 0; i < 10; ++i)
        if (s[i * rows + r] != std::stoi(shuffles[r].f[2 + i])) {
          std::printf("FAIL shuffle %d position %d: %d\n", r, i, s[i * rows + r]);
          ++failures;
        }
  }
  std::printf("%s: %d failures\n", failures ? "FAILED" : "passed", failures);
  return failures ? 1 : 0;
}
