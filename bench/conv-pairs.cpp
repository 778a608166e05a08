//===- conv-pairs.cpp - a conv's two gradients shared vs side by side -----===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// Whether task parallelism would help the runtime's convolution gradients
// at 2 threads: on the imported ResNet-18's backward shapes (batch 2, 64x64,
// as bench/runtime_kernels.py), per shape the best of --reps repetitions of
//
//   1T     remat_cpu_sconv2d_input_grad (dx), then ..._filter_grad_set (dw),
//          one thread;
//   split  the same two calls at 2 threads (each shares its GEMM pieces,
//          as a compiled step runs them);
//   pair   dx and dw side by side, one per thread (an `omp parallel
//          sections` region: inside it each call runs as on one thread).
//
//   remat-conv-pairs [REPS]
//
// The three variants alternate within each repetition (load hits them
// alike); two passes, the first a warm-up. Prints a markdown table, the
// sums times each shape's count in a step, whether every variant gave the
// same bits, and `uptime`.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

extern "C" {
void remat_cpu_sconv2d_input_grad(int64_t, int64_t, int64_t, int64_t, int64_t,
                                  int64_t, int64_t, int64_t, int64_t, int64_t,
                                  int64_t, int64_t, int64_t, int64_t, uintptr_t,
                                  int64_t, uintptr_t, int64_t, uintptr_t,
                                  int64_t);
void remat_cpu_sconv2d_filter_grad_set(int64_t, int64_t, int64_t, int64_t,
                                       int64_t, int64_t, int64_t, int64_t,
                                       int64_t, int64_t, int64_t, int64_t,
                                       int64_t, int64_t, uintptr_t, int64_t,
                                       uintptr_t, int64_t, uintptr_t, int64_t);
int remat_cpu_set_num_threads(int);
}

namespace {

/// A backward convolution: c channels of padded h x h images, f filters of
/// k x k, stride s, o x o outputs, `count` times per step.
struct Shape {
  const char *name;
  int64_t c, h, f, k, s, o, count;
};

const Shape kShapes[] = {{"l1 3x3", 64, 18, 64, 3, 1, 16, 4},
                         {"l2 3x3/2", 64, 18, 128, 3, 2, 8, 1},
                         {"l2 proj 1x1/2", 64, 16, 128, 1, 2, 8, 1},
                         {"l2 3x3", 128, 10, 128, 3, 1, 8, 3},
                         {"l3 3x3/2", 128, 10, 256, 3, 2, 4, 1},
                         {"l3 proj 1x1/2", 128, 8, 256, 1, 2, 4, 1},
                         {"l3 3x3", 256, 6, 256, 3, 1, 4, 3},
                         {"l4 3x3/2", 256, 6, 512, 3, 2, 2, 1},
                         {"l4 proj 1x1/2", 256, 4, 512, 1, 2, 2, 1},
                         {"l4 3x3", 512, 4, 512, 3, 1, 2, 3}};

double microseconds() {
  return std::chrono::duration<double, std::micro>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

} // namespace

int main(int argc, char **argv) {
  int reps = argc > 1 ? std::atoi(argv[1]) : 100;
  std::mt19937 rng(0);
  std::normal_distribution<float> normal;
  bool same = true;
  double one = 0, split = 0, pair = 0, best = 0;
  for (int pass = 0; pass < 2; ++pass) {
    one = split = pair = best = 0;
    if (pass == 1)
      std::printf("| kernel | x step | 1T dx | 1T dw | 2T dx | 2T dw | "
                  "split | pair | 1T/split | 1T/pair |\n"
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (const Shape &s : kShapes) {
      std::vector<float> x(2 * s.c * s.h * s.h), w(s.f * s.c * s.k * s.k),
          dy(2 * s.f * s.o * s.o);
      for (std::vector<float> *v : {&x, &w, &dy})
        for (float &e : *v)
          e = normal(rng);
      std::vector<float> dx[3], gw[3];
      for (int i = 0; i < 3; ++i) {
        dx[i].assign(x.size(), 0.0f);
        gw[i].assign(w.size(), 0.0f);
      }
      auto inputGrad = [&](int i) {
        remat_cpu_sconv2d_input_grad(
            2, 1, s.c, s.h, s.h, s.f, s.k, s.k, s.o, s.o, s.s, s.s, 1, 1,
            reinterpret_cast<uintptr_t>(w.data()), 0,
            reinterpret_cast<uintptr_t>(dy.data()), 0,
            reinterpret_cast<uintptr_t>(dx[i].data()), 0);
      };
      auto filterGrad = [&](int i) {
        remat_cpu_sconv2d_filter_grad_set(
            2, 1, s.c, s.h, s.h, s.f, s.k, s.k, s.o, s.o, s.s, s.s, 1, 1,
            reinterpret_cast<uintptr_t>(x.data()), 0,
            reinterpret_cast<uintptr_t>(dy.data()), 0,
            reinterpret_cast<uintptr_t>(gw[i].data()), 0);
      };
      double dx1 = 1e30, dw1 = 1e30, dx2 = 1e30, dw2 = 1e30, both2 = 1e30,
             paired = 1e30;
      for (int r = 0; r < reps; ++r) {
        for (std::vector<float> &v : dx)
          std::fill(v.begin(), v.end(), 0.0f);
        remat_cpu_set_num_threads(1);
        double t0 = microseconds();
        inputGrad(0);
        double t1 = microseconds();
        filterGrad(0);
        double t2 = microseconds();
        dx1 = std::min(dx1, t1 - t0);
        dw1 = std::min(dw1, t2 - t1);
        remat_cpu_set_num_threads(2);
        t0 = microseconds();
        inputGrad(1);
        t1 = microseconds();
        filterGrad(1);
        t2 = microseconds();
        dx2 = std::min(dx2, t1 - t0);
        dw2 = std::min(dw2, t2 - t1);
        both2 = std::min(both2, t2 - t0);
        t0 = microseconds();
#pragma omp parallel sections num_threads(2)
        {
#pragma omp section
          inputGrad(2);
#pragma omp section
          filterGrad(2);
        }
        paired = std::min(paired, microseconds() - t0);
        for (int i = 1; i < 3; ++i)
          same &= !std::memcmp(dx[0].data(), dx[i].data(),
                               dx[0].size() * sizeof(float)) &&
                  !std::memcmp(gw[0].data(), gw[i].data(),
                               gw[0].size() * sizeof(float));
      }
      if (pass == 1)
        std::printf("| %s | %lld | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | "
                    "%.2f | %.2f |\n",
                    s.name, static_cast<long long>(s.count), dx1, dw1, dx2, dw2,
                    both2, paired, (dx1 + dw1) / both2, (dx1 + dw1) / paired);
      one += s.count * (dx1 + dw1);
      split += s.count * both2;
      pair += s.count * paired;
      best += s.count * std::min(both2, paired);
    }
  }
  std::printf("sum x count: 1T %.0f us, split %.0f us (%.2f), pair %.0f us "
              "(%.2f), better of the two per kernel %.0f us (%.2f); same "
              "bits: %s\n",
              one, split, one / split, pair, one / pair, best, one / best,
              same ? "yes" : "NO");
  std::fflush(stdout);
  return std::system("uptime") == 0 && same ? 0 : 1;
}
