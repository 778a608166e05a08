//===- omp-forkjoin.cpp - the cost of an OpenMP fork and join -------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// Measures what a parallel region costs on this machine with the OpenMP
// runtime the compiled steps use (LLVM's libomp), so that the thresholds
// that decide whether a loop or a runtime kernel forks
// (remat-cpu-parallel-loops' min-work, the runtime's kMinParallelWork) rest
// on a measurement:
//
//   remat-omp-forkjoin [--reps N] [--threads T]
//
// 1. fork/join: a region with one empty iteration per thread (a static
//    `omp parallel for`, as convert-scf-to-openmp writes), back to back, the
//    other threads spinning between regions (KMP_BLOCKTIME).
// 2. the same region after 20 us of serial work on the calling thread (a
//    step's serial ops between two parallel loops).
// 3. an elementwise loop y = a y + x over n floats (one multiply-add per
//    element, in cache), on one thread without OpenMP and on T threads:
//    the least n at which T threads are faster, and by how much.
//
// Each figure is the least of --reps repetitions (and the median): the
// least is what the machine can do, the median what it did while others
// ran. Prints `uptime`'s load with the figures.
//
//===----------------------------------------------------------------------===//

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double nanoseconds(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double, std::nano>(to - from).count();
}

/// The least and the median of `samples` (sorted in place).
struct Summary {
  double least, median;
};

Summary summarize(std::vector<double> &samples) {
  std::sort(samples.begin(), samples.end());
  return {samples.front(), samples[samples.size() / 2]};
}

/// Serial work the compiler cannot remove: about `ns` nanoseconds of
/// dependent integer steps.
volatile unsigned sink;
void spin(double ns) {
  Clock::time_point start = Clock::now();
  unsigned value = sink;
  while (nanoseconds(start, Clock::now()) < ns)
    for (int i = 0; i < 64; ++i)
      value = value * 1664525u + 1013904223u;
  sink = value;
}

/// One region with one empty iteration per thread.
void emptyRegion(int threads) {
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int i = 0; i < threads; ++i)
    sink = static_cast<unsigned>(i);
}

void axpySerial(float a, const float *x, float *y, long n) {
  for (long i = 0; i < n; ++i)
    y[i] = a * y[i] + x[i];
}

void axpyParallel(float a, const float *x, float *y, long n, int threads) {
#pragma omp parallel for schedule(static) num_threads(threads)
  for (long i = 0; i < n; ++i)
    y[i] = a * y[i] + x[i];
}

void printLoad() {
  if (FILE *file = std::fopen("/proc/loadavg", "r")) {
    char text[128] = {0};
    if (std::fgets(text, sizeof(text), file))
      std::printf("load %s", text);
    std::fclose(file);
  }
}

} // namespace

int main(int argc, char **argv) {
  int reps = 2000, threads = 2;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
      reps = std::atoi(argv[++i]);
    else if (std::strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
      threads = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr,
                   "usage: remat-omp-forkjoin [--reps N] [--threads T]\n");
      return 2;
    }
  }
  if (reps < 1 || threads < 2) {
    std::fprintf(stderr, "error: --reps >= 1 and --threads >= 2\n");
    return 2;
  }
  printLoad();
  std::printf("threads %d reps %d omp_get_num_procs %d\n", threads, reps,
              omp_get_num_procs());

  std::vector<double> samples(reps);
  for (int warm = 0; warm < 100; ++warm)
    emptyRegion(threads);
  for (int r = 0; r < reps; ++r) {
    Clock::time_point start = Clock::now();
    emptyRegion(threads);
    samples[r] = nanoseconds(start, Clock::now());
  }
  Summary hot = summarize(samples);
  std::printf("fork/join back to back: least %.0f ns median %.0f ns\n",
              hot.least, hot.median);

  for (int r = 0; r < reps; ++r) {
    spin(20'000);
    Clock::time_point start = Clock::now();
    emptyRegion(threads);
    samples[r] = nanoseconds(start, Clock::now());
  }
  Summary after = summarize(samples);
  std::printf("fork/join after 20 us serial: least %.0f ns median %.0f ns\n",
              after.least, after.median);

  // Elementwise y = a y + x: one thread without OpenMP against `threads`,
  // interleaved so that load drifts over both alike.
  std::printf("| floats | 1 thread ns | %d threads ns | speed-up |\n"
              "|---:|---:|---:|---:|\n",
              threads);
  long breakEven = -1;
  const long largest = 1L << 20;
  std::vector<float> x(largest, 1.0f), y(largest, 0.5f);
  for (long n = 1L << 8; n <= largest; n *= 2) {
    int rounds = std::max(20, static_cast<int>(reps * 4096 / n));
    std::vector<double> serial(rounds), parallel(rounds);
    for (int r = 0; r < rounds; ++r) {
      Clock::time_point start = Clock::now();
      axpySerial(0.999f, x.data(), y.data(), n);
      Clock::time_point middle = Clock::now();
      axpyParallel(0.999f, x.data(), y.data(), n, threads);
      Clock::time_point end = Clock::now();
      serial[r] = nanoseconds(start, middle);
      parallel[r] = nanoseconds(middle, end);
    }
    double one = summarize(serial).least, several = summarize(parallel).least;
    std::printf("| %ld | %.0f | %.0f | %.2f |\n", n, one, several,
                one / several);
    if (breakEven < 0 && several < one)
      breakEven = n;
  }
  std::printf("least floats where %d threads win: %ld\n", threads, breakEven);
  printLoad();
  return 0;
}
