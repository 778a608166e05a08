//===- CpuRuntime.cpp - GEMM and threads of compiled CPU steps ------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// Plain C++ over OpenBLAS's CBLAS; no MLIR. See CpuRuntime.h.
//
// Convolutions unfold the windows of a few images into a matrix (im2col)
// in a per-thread scratch buffer and multiply it with the filters by one
// cblas_sgemm per group and chunk of images; the input gradient multiplies
// the transposed filters with the output gradient and adds the result back
// to the windows (col2im). A convolution of one chunk and group runs these
// steps as phases of one parallel region (parallelPhases). GEMMs with few
// columns (a CNN's last stages) run as SmallGemm.cpp's loops on AVX-512
// CPUs. Depthwise convolutions (one
// input and one output channel per group) are direct loop nests instead
// (Depthwise.cpp's 16-lane planes on AVX-512 CPUs).
//
//===----------------------------------------------------------------------===//

#include "remat/Runtime/CpuRuntime.h"

#include "CpuIsa.h"
#include "Depthwise.h"
#include "SmallGemm.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <limits>
#include <vector>
#include <cblas.h>
#include <fcntl.h>
#include <omp.h>
#include <openblas_config.h> // OpenBLAS's cblas.h, with its extensions
#include <sched.h>
#include <unistd.h>


/// A leading dimension BLAS accepts: a matrix with one row may carry any
/// row stride in its memref, but BLAS requires ld >= max(1, columns).
static int64_t leadingDimension(int64_t ld, int64_t rows, int64_t columns) {
  if (rows <= 1)
    return std::max<int64_t>(std::max<int64_t>(ld, columns), 1);
  return ld;
}

namespace {

/// One thread instead of several while another process wants the cores.
/// libomp's idle threads spin (KMP_BLOCKTIME, 200 ms by default), so that
/// the next loop finds them awake: a fork and join costs about a
/// microsecond instead of a wake-up, tens. That pays while the cores are
/// ours and ruins a step while another process wants one of them: the
/// spinning threads keep their share of the cores, and every join waits
/// for a thread the kernel has descheduled in favour of the other process
/// (resnet_n4 at 2 threads on 2 cores beside one busy process: 12.8 ms per
/// step, twice its 1-thread time of 6.5 ms). Threads that sleep at once
/// (blocktime 0) do better beside one process (8.0 ms) but each fork then
/// waits for a wake-up, which on a loaded machine can take milliseconds
/// (steps 10-30 times slower). One thread waits for nobody. So at most
/// every kSamplePeriodNs, the thread about to fork reads the time it has
/// spent runnable but not running (/proc/thread-self/schedstat, second
/// field): kBusySamples readings in a row above kBusyShare of the wall time
/// since the previous one (beside one busy process: about 40%; a daemon
/// that runs for a moment, or a loaded machine that still gives this
/// process most of the cores: below 15%) set OpenMP's thread count to 1
/// (omp_set_num_threads: the runtime's loops and, from their next call,
/// the compiled steps' loops run on the calling thread). After
/// kAloneSamples readings the count goes back to what it was, and the next
/// readings decide anew. The count never changes the bits
/// (docs/Conventions.md, Threads). Only when REMAT_ADAPTIVE_THREADS is
/// set (not empty, not 0) and the kernel keeps such a count; only this
/// runtime's loops look (a step whose only parallel work is its compiled
/// loops keeps its threads).
class ContentionPolicy {
public:
  /// Called by a thread outside parallel regions that has work for several
  /// threads. Returns how many threads to use (omp_get_max_threads(), after
  /// any change).
  int update() {
    if (!enabled)
      return omp_get_max_threads();
    int64_t now = monotonicNs();
    if (now - lastWall < kSamplePeriodNs)
      return omp_get_max_threads();
    int64_t waited = waitedNs();
    if (waited < 0) {
      enabled = false; // an unreadable count
      restore();
      return omp_get_max_threads();
    }
    if (lastWall > 0) {
      double share = static_cast<double>(waited - lastWaited) /
                     static_cast<double>(now - lastWall);
      if (alone) {
        if (++samples >= kAloneSamples)
          restore();
      } else if (omp_get_max_threads() > 1) {
        samples = share > kBusyShare ? samples + 1 : 0;
        if (samples >= kBusySamples) {
          threads = omp_get_max_threads();
          omp_set_num_threads(1);
          alone = true;
          samples = 0;
        }
      }
    }
    lastWall = now;
    lastWaited = waited;
    return omp_get_max_threads();
  }

  /// Forgets any change (the caller sets the count itself).
  void reset() {
    alone = false;
    samples = 0;
  }

  /// Each thread's own: omp_set_num_threads sets the count for the
  /// parallel regions of the calling thread, and the count read is the
  /// calling thread's.
  static ContentionPolicy &get() {
    thread_local ContentionPolicy policy;
    return policy;
  }

  ~ContentionPolicy() {
    if (fd >= 0)
      close(fd);
  }

private:
  static constexpr int64_t kSamplePeriodNs = 10'000'000;
  static constexpr double kBusyShare = 0.25;
  static constexpr int kBusySamples = 2, kAloneSamples = 50;

  ContentionPolicy() {
    // Opt-in: a false reading (a short burst of another process at start-up)
    // costs a step twice its time for half a second, and a user who asks
    // for N threads expects N (as OpenMP's own OMP_DYNAMIC is off by
    // default).
    const char *adaptive = std::getenv("REMAT_ADAPTIVE_THREADS");
    if (!adaptive || !*adaptive || std::strcmp(adaptive, "0") == 0)
      return;
    fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
    enabled = fd >= 0;
  }

  void restore() {
    if (alone)
      omp_set_num_threads(threads);
    reset();
  }

  static int64_t monotonicNs() {
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return static_cast<int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
  }

  /// Nanoseconds this thread has waited on a run queue, or -1.
  int64_t waitedNs() const {
    char text[128];
    ssize_t size = pread(fd, text, sizeof(text) - 1, 0);
    if (size <= 0)
      return -1;
    text[size] = '\0';
    char *end = nullptr;
    std::strtoll(text, &end, 10); // time on a CPU
    if (end == text)
      return -1;
    const char *field = end;
    long long waited = std::strtoll(field, &end, 10);
    return end == field ? -1 : waited;
  }

  bool enabled = false, alone = false;
  int fd = -1, threads = 1, samples = 0;
  int64_t lastWall = 0, lastWaited = 0;
};

/// Runs body(i) for i in [0, count): on the OpenMP threads (static schedule:
/// contiguous blocks of i) when `parallel` holds, there are at least two
/// iterations and two threads (ContentionPolicy) and no parallel region is
/// active (the thread that runs an enclosing region's iteration runs them
/// all); else in increasing order on the calling thread, without entering
/// OpenMP at all (a serialized region costs a microsecond, as much as the
/// smallest steps' kernels).
template <typename Body>
void parallelFor(int64_t count, bool parallel, Body body) {
  if (!parallel || count < 2 || omp_in_parallel() ||
      ContentionPolicy::get().update() < 2) {
    for (int64_t i = 0; i < count; ++i)
      body(i);
    return;
  }
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < count; ++i)
    body(i);
}

/// One step of a parallelPhases region: body(i) for i in [0, count).
template <typename Body> struct Phase {
  int64_t count;
  Body body;
};

template <typename Body> Phase<Body> phase(int64_t count, Body body) {
  return {count, std::move(body)};
}

/// body(i) for i in [0, count) in increasing order on the calling thread.
template <typename Body> void runSerially(const Phase<Body> &p) {
  for (int64_t i = 0; i < p.count; ++i)
    p.body(i);
}

/// The iterations of `p` shared among the threads of the enclosing region
/// (static schedule, as parallelFor), then a barrier: the next phase sees
/// all of this one's writes. A phase without iterations has no barrier
/// (every thread skips it alike).
template <typename Body> void runShared(const Phase<Body> &p) {
  if (p.count == 0)
    return;
#pragma omp for schedule(static)
  for (int64_t i = 0; i < p.count; ++i)
    p.body(i);
}

/// Runs the phases one after the other, as parallelFor would run each, but
/// in one parallel region: the threads meet at a barrier between phases
/// instead of a join and the next fork, and small phases (an im2col matrix
/// of a few thousand elements, the add of a product into y) are shared too,
/// as they then cost only that barrier. Serially (every phase in increasing
/// order on the calling thread) unless `parallel` holds, two threads are
/// there and no region is active. Each iteration computes what it would on
/// one thread, so the bits do not depend on the thread count.
template <typename... Bodies>
void parallelPhases(bool parallel, const Phase<Bodies> &...phases) {
  if (!parallel || omp_in_parallel() || ContentionPolicy::get().update() < 2) {
    (runSerially(phases), ...);
    return;
  }
#pragma omp parallel
  { (runShared(phases), ...); }
}

/// One row-major product C (m x n) = op(A) * op(B) + beta C, with k the
/// inner dimension; every size and leading dimension fits an int.
struct Gemm {
  bool transA, transB;
  int64_t m, n, k;
  const float *a;
  int64_t lda;
  const float *b;
  int64_t ldb;
  float beta;
  float *c;
  int64_t ldc;
  /// C is set to zero before the product is added to it (beta is then 1):
  /// band by band (kZeroBandElements) just before the band's product, so
  /// that the zeros are still in the core's cache when the GEMM reads them
  /// back, instead of a separate pass over all of C beforehand.
  bool zeroC = false;
  /// The product may run as smallGemm's loops when they apply (a
  /// convolution's GEMM; beta 0 or 1).
  bool small = false;

  /// Whether this product runs as smallGemm's loops: decided by the shape
  /// of the whole product (and the CPU), never by a piece's.
  bool isSmall() const {
    return small && (beta == 0.0f || beta == 1.0f) &&
           remat::runtime::smallGemmApplies(transA, transB, n, k) &&
           remat::runtime::smallGemmRuns(transA, transB, n);
  }
};

/// Least m n k of a GEMM that is split into pieces (and of a batch or a
/// convolution shared among threads), and of each piece beyond the second
/// (kMinPieceWork). 2^21 multiply-adds take some 100 us on one core of the
/// development machine (2^20: 35-40 us; bench/perf-results.md, gpt9).
/// Below, a step forks rarely and for little: the GPT example's eight 2^20
/// GEMMs per step, split in two, made its 2-thread step slower than its
/// 1-thread one, because after the first fork the idle OpenMP thread spins
/// (KMP_BLOCKTIME) through the step's serial work and takes a core from it
/// whenever a third process runs. Such a step now starts no OpenMP thread.
constexpr double kMinSplitWork = 1 << 21;
constexpr double kMinPieceWork = 16 << 20;
/// Rows (columns) of a piece are a multiple of this (OpenBLAS's register
/// blocking), and a piece has at least kMinPieceLength of them.
constexpr int64_t kPieceAlign = 16;
constexpr int64_t kMinPieceLength = 64;
constexpr int64_t kMaxPieces = 8;
/// Most elements of C that a GEMM with Gemm::zeroC zeroes and multiplies
/// into at a time (512 KiB: a quarter of the development machine's L2 per
/// core, the rest left to OpenBLAS's packed panels).
constexpr int64_t kZeroBandElements = int64_t(1) << 17;

/// The number of pieces an m x n x k product is split into: bands of
/// the larger of m and n. A function of the shape only, never of the thread
/// count, so that every count computes the same pieces, and the same bits
/// (docs/Conventions.md, Threads).
int64_t gemmPieces(int64_t m, int64_t n, int64_t k) {
  int64_t length = std::max(m, n);
  double work =
      static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  if (length < 2 * kMinPieceLength || work < kMinSplitWork)
    return 1;
  double byWork = std::min<double>(work / kMinPieceWork, kMaxPieces);
  int64_t pieces =
      std::min<int64_t>(static_cast<int64_t>(byWork), length / kMinPieceLength);
  return std::clamp<int64_t>(pieces, 2, kMaxPieces);
}

/// Rows [begin, end) of op(A) and of C of `g` when `byRows`, else columns
/// [begin, end) of op(B) and of C.
Gemm band(const Gemm &g, bool byRows, int64_t begin, int64_t end) {
  Gemm part = g;
  if (byRows) {
    part.a += g.transA ? begin : begin * g.lda;
    part.c += begin * g.ldc;
    part.m = end - begin;
  } else {
    part.b += g.transB ? begin * g.ldb : begin;
    part.c += begin;
    part.n = end - begin;
  }
  return part;
}

/// One cblas_sgemm for rows [begin, end) of op(A) and of C when `byRows`,
/// else for columns [begin, end) of op(B) and of C, with `beta`.
void gemmBand(const Gemm &g, bool byRows, int64_t begin, int64_t end,
              float beta) {
  Gemm p = band(g, byRows, begin, end);
  cblas_sgemm(CblasRowMajor, p.transA ? CblasTrans : CblasNoTrans,
              p.transB ? CblasTrans : CblasNoTrans, static_cast<int>(p.m),
              static_cast<int>(p.n), static_cast<int>(p.k), 1.0f, p.a,
              static_cast<int>(p.lda), p.b, static_cast<int>(p.ldb), beta, p.c,
              static_cast<int>(p.ldc));
}

/// Computes band `piece` of `pieces` of `g`: rows of C when m >= n, else
/// columns, in whole kPieceAlign blocks; one cblas_sgemm on the calling
/// thread (OpenBLAS itself is kept to one thread), or one per band with
/// Gemm::zeroC.
void gemmPiece(const Gemm &g, int64_t piece, int64_t pieces) {
  // Once per process, also for a program that never calls
  // remat_cpu_set_num_threads: OpenBLAS's own threads inside each piece
  // would oversubscribe the cores the OpenMP threads already use.
  static const bool singleThreadedBlas = [] {
    openblas_set_num_threads(1);
    return true;
  }();
  (void)singleThreadedBlas;
  bool byRows = g.m >= g.n;
  int64_t length = byRows ? g.m : g.n;
  int64_t blocks = (length + kPieceAlign - 1) / kPieceAlign;
  int64_t begin = std::min(length, blocks * piece / pieces * kPieceAlign);
  int64_t end = std::min(length, blocks * (piece + 1) / pieces * kPieceAlign);
  if (begin >= end)
    return;
  if (g.isSmall()) {
    // No zero fill: the loops write +0.0 + the product over C.
    Gemm p = band(g, byRows, begin, end);
    remat::runtime::smallGemm(p.transA, p.transB, p.m, p.n, p.k, p.a, p.lda,
                              p.b, p.ldb, p.c, p.ldc,
                              p.zeroC || p.beta == 0.0f);
    return;
  }
  if (!g.zeroC) {
    gemmBand(g, byRows, begin, end, g.beta);
    return;
  }
  // Bands of whole kPieceAlign blocks of at most kZeroBandElements, each
  // zeroed and then multiplied into (beta 1): C = 0 + op(A) op(B), as a
  // zero-filled C with beta 1.
  int64_t across = byRows ? g.n : g.m;
  int64_t band = std::max<int64_t>(
      kPieceAlign, kZeroBandElements / std::max<int64_t>(across, 1) /
                       kPieceAlign * kPieceAlign);
  for (int64_t from = begin; from < end; from += band) {
    int64_t to = std::min(end, from + band);
    if (byRows) {
      for (int64_t row = from; row < to; ++row)
        std::memset(g.c + row * g.ldc, 0,
                    static_cast<size_t>(g.n) * sizeof(float));
    } else {
      for (int64_t row = 0; row < g.m; ++row)
        std::memset(g.c + row * g.ldc + from, 0,
                    static_cast<size_t>(to - from) * sizeof(float));
    }
    gemmBand(g, byRows, from, to, 1.0f);
  }
}

/// The pieces of a convolution's GEMM `g` (gemmPieces) as a phase of
/// parallelPhases.
auto gemmPhase(const Gemm &g) {
  int64_t pieces = gemmPieces(g.m, g.n, g.k);
  return phase(pieces,
               [g, pieces](int64_t piece) { gemmPiece(g, piece, pieces); });
}

} // namespace

extern "C" void remat_cpu_sgemm(int64_t batch, int64_t m, int64_t n, int64_t k,
                                int64_t transA, const float *a, int64_t offsetA,
                                int64_t lda, int64_t batchStrideA,
                                int64_t transB, const float *b, int64_t offsetB,
                                int64_t ldb, int64_t batchStrideB, float *c,
                                int64_t offsetC, int64_t ldc,
                                int64_t batchStrideC) {
  if (m <= 0 || n <= 0 || k <= 0)
    return; // C += nothing
  // Rows and columns of the stored matrices.
  lda = transA ? leadingDimension(lda, k, m) : leadingDimension(lda, m, k);
  ldb = transB ? leadingDimension(ldb, n, k) : leadingDimension(ldb, k, n);
  ldc = leadingDimension(ldc, m, n);
  constexpr int64_t maxInt = std::numeric_limits<int>::max();
  if (m > maxInt || n > maxInt || k > maxInt || lda > maxInt ||
      ldb > maxInt || ldc > maxInt) {
    // Too large for cblas_sgemm's int arguments (only a dynamic shape gets
    // here: remat-linalg-to-blas leaves larger static ones as loops). Plain
    // loops, k ascending per element, instead of truncated sizes.
    for (int64_t i = 0; i < batch; ++i) {
      const float *ai = a + offsetA + i * batchStrideA;
      const float *bi = b + offsetB + i * batchStrideB;
      float *ci = c + offsetC + i * batchStrideC;
      for (int64_t r = 0; r < m; ++r)
        for (int64_t col = 0; col < n; ++col) {
          float acc = ci[r * ldc + col];
          for (int64_t p = 0; p < k; ++p)
            acc += (transA ? ai[p * lda + r] : ai[r * lda + p]) *
                   (transB ? bi[col * ldb + p] : bi[p * ldb + col]);
          ci[r * ldc + col] = acc;
        }
    }
    return;
  }
  // The pieces of every batch index on the OpenMP threads. Batch indices
  // write disjoint matrices, except a broadcast C (batch stride 0), which
  // they add to one after the other on one thread.
  int64_t pieces = gemmPieces(m, n, k);
  double work = static_cast<double>(batch) * static_cast<double>(m) *
                static_cast<double>(n) * static_cast<double>(k);
  bool parallel = batch * pieces > 1 && work >= kMinSplitWork &&
                  (batch == 1 || batchStrideC != 0);
  parallelFor(batch * pieces, parallel, [&](int64_t t) {
    int64_t i = t / pieces;
    Gemm g{transA != 0,
           transB != 0,
           m,
           n,
           k,
           a + offsetA + i * batchStrideA,
           lda,
           b + offsetB + i * batchStrideB,
           ldb,
           1.0f,
           c + offsetC + i * batchStrideC,
           ldc};
    gemmPiece(g, t % pieces, pieces);
  });
}

namespace {

/// The shapes of one convolution (see remat_cpu_sconv2d): per image and
/// group, the GEMM's inner dimension for the forward (`depth`: c kh kw) and
/// its output columns (`pixels`: oh ow).
struct ConvShape {
  int64_t n, g, c, h, w, f, kh, kw, oh, ow, sh, sw, dh, dw;
  int64_t depth() const { return c * kh * kw; }
  int64_t pixels() const { return oh * ow; }
  bool empty() const {
    return n <= 0 || g <= 0 || f <= 0 || pixels() <= 0 || depth() <= 0;
  }
  /// A 1x1 window with unit strides over an input of the output's size:
  /// the image itself is the im2col matrix.
  bool imageIsMatrix() const {
    return kh == 1 && kw == 1 && sh == 1 && sw == 1 && h == oh && w == ow;
  }
  /// One input and one output channel per group (a depthwise convolution):
  /// its GEMMs would be one row (or one term) deep and its im2col matrix
  /// kh kw copies of the image, so it runs as a direct loop nest instead.
  bool isDepthwise() const { return c == 1 && f == 1; }
  /// One plane of a depthwise convolution (Depthwise.h).
  remat::runtime::DepthwisePlane plane() const {
    return {h, w, kh, kw, oh, ow, sh, sw, dh, dw};
  }
  /// Images per GEMM: enough for 256 columns (oh ow per image), at most n.
  /// Every GEMM call packs the whole filter; with the few output pixels of
  /// a late ResNet stage (2x2) that packing costs as much as the product.
  int64_t imagesPerGemm() const {
    constexpr int64_t minColumns = 256;
    return std::clamp<int64_t>((minColumns + pixels() - 1) / pixels(), 1, n);
  }
  /// Images per filter-gradient GEMM: enough for 2048 columns unless their
  /// im2col matrix would pass 2^22 elements (16 MiB), at least
  /// imagesPerGemm(), at most n. They are the GEMM's inner dimension: a
  /// deeper one leaves fewer chunks to add one after the other and larger
  /// GEMMs to share among threads.
  int64_t imagesPerFilterGradGemm() const {
    constexpr int64_t minColumns = 2048, maxElements = int64_t(1) << 22;
    int64_t images = std::min((minColumns + pixels() - 1) / pixels(),
                              maxElements / (depth() * pixels()));
    return std::clamp<int64_t>(std::max(images, imagesPerGemm()), 1, n);
  }
  const float *image(const float *x, int64_t i, int64_t gi) const {
    return x + (i * g + gi) * c * h * w;
  }
  float *image(float *x, int64_t i, int64_t gi) const {
    return x + (i * g + gi) * c * h * w;
  }
  /// The [f, oh ow] block of image i, group gi of an output (gradient).
  int64_t outputOffset(int64_t i, int64_t gi) const {
    return (i * g + gi) * f * pixels();
  }
};

/// The f32 element `offset` of the buffer at address `base`.
float *address(uintptr_t base, int64_t offset) {
  return reinterpret_cast<float *>(base) + offset;
}

/// Scratch memory `slot` (0 or 1), kept per thread between calls so that a
/// step does not allocate per convolution. Only ever grows.
float *scratch(int slot, int64_t elements) {
  thread_local std::vector<float> buffers[2];
  std::vector<float> &buffer = buffers[slot];
  if (static_cast<int64_t>(buffer.size()) < elements)
    buffer.resize(static_cast<size_t>(elements));
  return buffer.data();
}

/// Copies `count` floats from `from` (stride `step`) to `to` (dense).
void copyRow(const float *from, int64_t step, int64_t count, float *to) {
  if (step == 1 && count >= 32) {
    std::memcpy(to, from, static_cast<size_t>(count) * sizeof(float));
    return;
  }
  for (int64_t x = 0; x < count; ++x)
    to[x] = from[x * step];
}

/// Copies row `row` = (ci, i, j) of the im2col matrix of one image's group
/// `image` ([c, h, w]) to `to`: column (y, x) holds
/// image[ci][y * sh + i * dh][x * sw + j * dw].
void im2colRow(const ConvShape &s, const float *image, int64_t row, float *to) {
  int64_t ci = row / (s.kh * s.kw), i = row / s.kw % s.kh, j = row % s.kw;
  const float *plane = image + ci * s.h * s.w + i * s.dh * s.w + j * s.dw;
  for (int64_t y = 0; y < s.oh; ++y)
    copyRow(plane + y * s.sh * s.w, s.sw, s.ow, to + y * s.ow);
}

/// The transpose of im2col for channel `ci`: adds column (y, x) of row
/// (ci, i, j) of `col` (rows `ld` apart) to
/// image[ci][y * sh + i * dh][x * sw + j * dw], rows in increasing order.
/// Rows of one channel overlap in the image, rows of different channels
/// never.
void col2imChannel(const ConvShape &s, const float *col, int64_t ld, int64_t ci,
                   float *image) {
  int64_t window = s.kh * s.kw;
  for (int64_t i = 0; i < s.kh; ++i)
    for (int64_t j = 0; j < s.kw; ++j) {
      const float *rowCol = col + (ci * window + i * s.kw + j) * ld;
      float *plane = image + ci * s.h * s.w + i * s.dh * s.w + j * s.dw;
      for (int64_t y = 0; y < s.oh; ++y) {
        float *row = plane + y * s.sh * s.w;
        const float *from = rowCol + y * s.ow;
        for (int64_t x = 0; x < s.ow; ++x)
          row[x * s.sw] += from[x];
      }
    }
}

/// Whether images [i0, i0 + k) need an im2col matrix: not when k is 1 and
/// the image already is its matrix.
bool needsColumns(const ConvShape &s, int64_t k) {
  return k > 1 || !s.imageIsMatrix();
}

/// Writes the im2col matrices of images [i0, i0 + k), group gi, of `x` side
/// by side in `col` ([depth, k oh ow]), one iteration per row, for every
/// image (a copy: any thread may write any row); nothing without
/// needsColumns.
auto unfoldPhase(const ConvShape &s, const float *x, int64_t i0, int64_t k,
                 int64_t gi, float *col) {
  return phase(needsColumns(s, k) ? s.depth() : 0, [=, &s](int64_t row) {
    int64_t pixels = s.pixels();
    for (int64_t j = 0; j < k; ++j)
      im2colRow(s, s.image(x, i0 + j, gi), row,
                col + row * k * pixels + j * pixels);
  });
}

/// Copies the [f, oh ow] blocks of images [i0, i0 + k), group gi, of `y`
/// side by side to `out` ([f, k oh ow]), one iteration per row f; nothing
/// when k is 1 (the GEMM reads y's own block).
auto gatherPhase(const ConvShape &s, const float *y, int64_t i0, int64_t k,
                 int64_t gi, float *out) {
  return phase(k > 1 ? s.f : 0, [=, &s](int64_t fi) {
    int64_t pixels = s.pixels(), columns = k * pixels;
    for (int64_t j = 0; j < k; ++j)
      std::memcpy(out + fi * columns + j * pixels,
                  y + s.outputOffset(i0 + j, gi) + fi * pixels,
                  static_cast<size_t>(pixels) * sizeof(float));
  });
}

/// Adds the columns of images [i0, i0 + k) of `col` ([depth, k oh ow]) back
/// to the windows of group gi of `x` they came from, one iteration per
/// channel, for every image (col2imChannel); nothing without needsColumns.
auto foldPhase(const ConvShape &s, const float *col, int64_t i0, int64_t k,
               int64_t gi, float *x) {
  return phase(needsColumns(s, k) ? s.c : 0, [=, &s](int64_t ci) {
    int64_t pixels = s.pixels();
    for (int64_t j = 0; j < k; ++j)
      col2imChannel(s, col + j * pixels, k * pixels, ci,
                    s.image(x, i0 + j, gi));
  });
}

/// Whether a convolution has enough multiply-adds (kMinSplitWork) to share
/// its chunks, groups or phases among threads.
bool worthThreads(const ConvShape &s) {
  return static_cast<double>(s.n * s.g * s.f) *
             static_cast<double>(s.depth() * s.pixels()) >=
         kMinSplitWork;
}

/// Runs `body(i0, k, gi)` for images [i0, i0 + k) and group gi, for every
/// chunk of `chunk` images and every group. Units write disjoint outputs:
/// several are shared among the OpenMP threads when the convolution is
/// worth it (each unit then runs its phases itself, one after the other);
/// a single unit shares its phases (parallelPhases) instead.
template <typename Body>
void forEachUnit(const ConvShape &s, int64_t chunk, Body body) {
  int64_t chunks = (s.n + chunk - 1) / chunk, units = chunks * s.g;
  parallelFor(units, worthThreads(s), [&](int64_t unit) {
    int64_t i0 = unit / s.g * chunk, gi = unit % s.g;
    body(i0, std::min(chunk, s.n - i0), gi);
  });
}

/// y[i, gi] += the depthwise convolution of one image's group `image` with
/// its taps (kh x kw): per output row, a row of sums (scratch, zeroed) gets
/// the taps in increasing (kh, kw) order, one product per pixel each, and
/// is then added to the row of y.
void depthwiseForward(const ConvShape &s, const float *image,
                      const float *taps, float *out) {
  if (remat::runtime::depthwiseForwardApplies(s.plane())) {
    remat::runtime::depthwisePlaneForward(s.plane(), image, taps, out);
    return;
  }
  float *sums = scratch(0, s.ow);
  for (int64_t y = 0; y < s.oh; ++y) {
    std::fill(sums, sums + s.ow, 0.0f);
    for (int64_t i = 0; i < s.kh; ++i)
      for (int64_t j = 0; j < s.kw; ++j) {
        float tap = taps[i * s.kw + j];
        const float *from = image + (y * s.sh + i * s.dh) * s.w + j * s.dw;
        if (s.sw == 1) // contiguous: vectorized
          for (int64_t x = 0; x < s.ow; ++x)
            sums[x] += tap * from[x];
        else
          for (int64_t x = 0; x < s.ow; ++x)
            sums[x] += tap * from[x * s.sw];
      }
    float *to = out + y * s.ow;
    for (int64_t x = 0; x < s.ow; ++x)
      to[x] += sums[x];
  }
}

/// dx[i, gi] += the depthwise input gradient of one image's group: tap
/// (kh, kw) after tap in increasing order, each adds its product with
/// every dy element to the input element it read, (oh, ow) ascending. The
/// order and the terms (one product each) are col2im's, so the bits are
/// those of the GEMM path.
void depthwiseInputGrad(const ConvShape &s, const float *taps,
                        const float *grads, float *image) {
  if (remat::runtime::depthwiseInputGradApplies(s.plane())) {
    remat::runtime::depthwisePlaneInputGrad(s.plane(), taps, grads, image);
    return;
  }
  for (int64_t i = 0; i < s.kh; ++i)
    for (int64_t j = 0; j < s.kw; ++j) {
      float tap = taps[i * s.kw + j];
      for (int64_t y = 0; y < s.oh; ++y) {
        float *to = image + (y * s.sh + i * s.dh) * s.w + j * s.dw;
        const float *from = grads + y * s.ow;
        if (s.sw == 1)
          for (int64_t x = 0; x < s.ow; ++x)
            to[x] += tap * from[x];
        else
          for (int64_t x = 0; x < s.ow; ++x)
            to[x * s.sw] += tap * from[x];
      }
    }
}

/// gw[gi] (kh x kw taps) += the depthwise filter gradient of group gi: per
/// tap a row of ow sums (scratch, zeroed) gets dy * x of every image and
/// output row, (n, oh) ascending; then the ow sums are added in increasing
/// order into one sum, which is added to the tap's gw.
void depthwiseFilterGrad(const ConvShape &s, const float *input,
                         const float *outputGrad, int64_t gi, float *gw) {
  int64_t taps = s.kh * s.kw;
  float *sums = scratch(0, taps * s.ow);
  std::fill(sums, sums + taps * s.ow, 0.0f);
  for (int64_t image = 0; image < s.n; ++image) {
    const float *x = s.image(input, image, gi);
    const float *dy = outputGrad + s.outputOffset(image, gi);
    if (remat::runtime::depthwiseFilterGradApplies(s.plane())) {
      remat::runtime::depthwisePlaneFilterGrad(s.plane(), x, dy, sums);
      continue;
    }
    for (int64_t y = 0; y < s.oh; ++y)
      for (int64_t i = 0; i < s.kh; ++i)
        for (int64_t j = 0; j < s.kw; ++j) {
          float *row = sums + (i * s.kw + j) * s.ow;
          const float *from = x + (y * s.sh + i * s.dh) * s.w + j * s.dw;
          const float *grads = dy + y * s.ow;
          if (s.sw == 1)
            for (int64_t col = 0; col < s.ow; ++col)
              row[col] += grads[col] * from[col];
          else
            for (int64_t col = 0; col < s.ow; ++col)
              row[col] += grads[col] * from[col * s.sw];
        }
  }
  for (int64_t tap = 0; tap < taps; ++tap) {
    float sum = 0.0f;
    for (int64_t col = 0; col < s.ow; ++col)
      sum += sums[tap * s.ow + col];
    gw[tap] += sum;
  }
}

} // namespace

extern "C" void remat_cpu_sconv2d(int64_t n, int64_t g, int64_t c, int64_t h,
                                  int64_t w, int64_t f, int64_t kh, int64_t kw,
                                  int64_t oh, int64_t ow, int64_t sh,
                                  int64_t sw, int64_t dh, int64_t dw,
                                  uintptr_t x, int64_t offsetX,
                                  uintptr_t filter, int64_t offsetFilter,
                                  uintptr_t y, int64_t offsetY) {
  ConvShape s{n, g, c, h, w, f, kh, kw, oh, ow, sh, sw, dh, dw};
  if (s.empty())
    return; // y += nothing
  const float *input = address(x, offsetX);
  const float *weights = address(filter, offsetFilter);
  float *output = address(y, offsetY);
  int64_t depth = s.depth(), pixels = s.pixels(), chunk = s.imagesPerGemm();
  if (s.isDepthwise()) {
    forEachUnit(s, 1, [&](int64_t i, int64_t, int64_t gi) {
      depthwiseForward(s, s.image(input, i, gi), weights + gi * depth,
                       output + s.outputOffset(i, gi));
    });
    return;
  }
  bool worth = worthThreads(s);
  forEachUnit(s, chunk, [&](int64_t i0, int64_t k, int64_t gi) {
    int64_t columns = k * pixels;
    float *col = needsColumns(s, k) ? scratch(0, depth * columns) : nullptr;
    const float *matrix = col ? col : s.image(input, i0, gi);
    const float *wg = weights + gi * f * depth;
    if (k == 1) {
      // y[i, gi] (f x pixels) += w[gi] (f x depth) * col (depth x pixels).
      parallelPhases(
          worth, unfoldPhase(s, input, i0, k, gi, col),
          gemmPhase({false, false, f, pixels, depth, wg, depth, matrix, pixels,
                     1.0f, output + s.outputOffset(i0, gi), pixels, false,
                     true}));
      return;
    }
    // product (f x k pixels) = w[gi] * col, then y[i0 + j, gi] += its
    // columns of image j: each element one addition, rows fi shared among
    // the threads.
    float *product = scratch(1, f * columns);
    parallelPhases(
        worth, unfoldPhase(s, input, i0, k, gi, col),
        gemmPhase({false, false, f, columns, depth, wg, depth, matrix, columns,
                   0.0f, product, columns, false, true}),
        phase(f, [&](int64_t fi) {
          for (int64_t j = 0; j < k; ++j) {
            const float *from = product + fi * columns + j * pixels;
            float *to = output + s.outputOffset(i0 + j, gi) + fi * pixels;
            for (int64_t p = 0; p < pixels; ++p)
              to[p] += from[p];
          }
        }));
  });
}

extern "C" void remat_cpu_sconv2d_input_grad(
    int64_t n, int64_t g, int64_t c, int64_t h, int64_t w, int64_t f,
    int64_t kh, int64_t kw, int64_t oh, int64_t ow, int64_t sh, int64_t sw,
    int64_t dh, int64_t dw, uintptr_t filter, int64_t offsetFilter,
    uintptr_t dy, int64_t offsetDy, uintptr_t dx, int64_t offsetDx) {
  ConvShape s{n, g, c, h, w, f, kh, kw, oh, ow, sh, sw, dh, dw};
  if (s.empty())
    return; // dx += nothing
  const float *weights = address(filter, offsetFilter);
  const float *outputGrad = address(dy, offsetDy);
  float *inputGrad = address(dx, offsetDx);
  int64_t depth = s.depth(), pixels = s.pixels(), chunk = s.imagesPerGemm();
  if (s.isDepthwise()) {
    forEachUnit(s, 1, [&](int64_t i, int64_t, int64_t gi) {
      depthwiseInputGrad(s, weights + gi * depth,
                         outputGrad + s.outputOffset(i, gi),
                         s.image(inputGrad, i, gi));
    });
    return;
  }
  bool worth = worthThreads(s);
  forEachUnit(s, chunk, [&](int64_t i0, int64_t k, int64_t gi) {
    int64_t columns = k * pixels;
    float *gathered = k > 1 ? scratch(1, f * columns) : nullptr;
    const float *grads =
        gathered ? gathered : outputGrad + s.outputOffset(i0, gi);
    const float *wg = weights + gi * f * depth;
    if (!needsColumns(s, k)) {
      // dx[i, gi] (depth x pixels) += w[gi]^T (depth x f) * dy[i, gi].
      parallelPhases(
          worth,
          gemmPhase({true, false, depth, pixels, f, wg, depth, grads, pixels,
                     1.0f, s.image(inputGrad, i0, gi), pixels, false, true}));
      return;
    }
    // col (depth x k pixels) = w[gi]^T * dy, then each image's columns are
    // added back to the windows they came from.
    float *col = scratch(0, depth * columns);
    parallelPhases(worth, gatherPhase(s, outputGrad, i0, k, gi, gathered),
                   gemmPhase({true, false, depth, columns, f, wg, depth, grads,
                              columns, 0.0f, col, columns, false, true}),
                   foldPhase(s, col, i0, k, gi, inputGrad));
  });
}

namespace {

/// gw += (or, with `set`, =) the filter gradient of
/// remat_cpu_sconv2d_filter_grad. With `set`, each group's first chunk
/// zeroes gw[g] band by band just before its GEMM adds to it (Gemm::zeroC):
/// gw = ((0 + s_0) + s_1) + ..., the bits of a zero-filled gw without `set`.
void filterGrad(const ConvShape &s, const float *input, const float *outputGrad,
                float *filterGrad, bool set) {
  int64_t depth = s.depth(), pixels = s.pixels(),
          chunk = s.imagesPerFilterGradGemm();
  if (s.empty()) {
    // gw += nothing; gw = 0 with `set`.
    if (set && s.g > 0 && s.f > 0 && depth > 0)
      std::memset(filterGrad, 0,
                  static_cast<size_t>(s.g * s.f * depth) * sizeof(float));
    return;
  }
  if (s.isDepthwise()) {
    // Groups write disjoint taps: shared among threads, each summed whole
    // by one thread.
    parallelFor(s.g, worthThreads(s), [&](int64_t gi) {
      float *taps = filterGrad + gi * depth;
      if (set)
        std::fill(taps, taps + depth, 0.0f);
      depthwiseFilterGrad(s, input, outputGrad, gi, taps);
    });
    return;
  }
  // Every chunk adds to the same gw[gi], so one thread adds them in
  // increasing order; groups (and each GEMM's pieces) are shared among
  // threads.
  bool worth = worthThreads(s);
  parallelFor(s.g, worth, [&](int64_t gi) {
    for (int64_t i0 = 0; i0 < s.n; i0 += chunk) {
      int64_t k = std::min(chunk, s.n - i0), columns = k * pixels;
      float *col = needsColumns(s, k) ? scratch(0, depth * columns) : nullptr;
      float *gathered = k > 1 ? scratch(1, s.f * columns) : nullptr;
      const float *matrix = col ? col : s.image(input, i0, gi);
      const float *grads =
          gathered ? gathered : outputGrad + s.outputOffset(i0, gi);
      // gw[gi] (f x depth) += dy (f x k pixels) * col^T (k pixels x depth).
      parallelPhases(
          worth, unfoldPhase(s, input, i0, k, gi, col),
          gatherPhase(s, outputGrad, i0, k, gi, gathered),
          gemmPhase({false, true, s.f, depth, columns, grads, columns, matrix,
                     columns, 1.0f, filterGrad + gi * s.f * depth, depth,
                     set && i0 == 0, true}));
    }
  });
}

} // namespace

extern "C" void remat_cpu_sconv2d_filter_grad(
    int64_t n, int64_t g, int64_t c, int64_t h, int64_t w, int64_t f,
    int64_t kh, int64_t kw, int64_t oh, int64_t ow, int64_t sh, int64_t sw,
    int64_t dh, int64_t dw, uintptr_t x, int64_t offsetX, uintptr_t dy,
    int64_t offsetDy, uintptr_t gw, int64_t offsetGw) {
  filterGrad({n, g, c, h, w, f, kh, kw, oh, ow, sh, sw, dh, dw},
             address(x, offsetX), address(dy, offsetDy), address(gw, offsetGw),
             /*set=*/false);
}

extern "C" void remat_cpu_sconv2d_filter_grad_set(
    int64_t n, int64_t g, int64_t c, int64_t h, int64_t w, int64_t f,
    int64_t kh, int64_t kw, int64_t oh, int64_t ow, int64_t sh, int64_t sw,
    int64_t dh, int64_t dw, uintptr_t x, int64_t offsetX, uintptr_t dy,
    int64_t offsetDy, uintptr_t gw, int64_t offsetGw) {
  filterGrad({n, g, c, h, w, f, kh, kw, oh, ow, sh, sw, dh, dw},
             address(x, offsetX), address(dy, offsetDy), address(gw, offsetGw),
             /*set=*/true);
}

extern "C" int remat_cpu_set_num_threads(int threads) {
  if (threads < 1 || threads > REMAT_CPU_MAX_THREADS)
    return -1;
  // One pool: OpenMP's threads run the loops and share the pieces of every
  // large GEMM (gemm), each piece one cblas_sgemm on the thread that runs
  // it, so OpenBLAS is kept to one thread (its own threads would be a
  // second pool on the same cores, and did not speed up these shapes).
  // libomp's idle threads spin for KMP_BLOCKTIME (default 200 ms) before
  // they sleep: the next loop or GEMM finds them awake (while another
  // process wants the cores, ContentionPolicy runs on one thread instead).
  ContentionPolicy::get().reset();
  omp_set_num_threads(threads);
  openblas_set_num_threads(1);
  return 0;
}

extern "C" int remat_cpu_num_threads(void) { return omp_get_max_threads(); }

/// Parses a thread count: a decimal integer in [1, REMAT_CPU_MAX_THREADS]
/// (OMP_NUM_THREADS may list one count per nesting level: the first counts).
static int parseThreads(const char *text, bool list) {
  errno = 0;
  char *end = nullptr;
  long value = std::strtol(text, &end, 10);
  if (end == text || errno != 0 || (*end != '\0' && !(list && *end == ',')) ||
      value < 1 || value > REMAT_CPU_MAX_THREADS)
    return -1;
  return static_cast<int>(value);
}

extern "C" int remat_cpu_default_num_threads(void) {
  if (const char *value = std::getenv("REMAT_NUM_THREADS"))
    return parseThreads(value, /*list=*/false);
  if (const char *value = std::getenv("OMP_NUM_THREADS"))
    return parseThreads(value, /*list=*/true);
  // The cores this process may run on (its affinity mask, as taskset or a
  // container's cpuset limits it), not every core of the machine.
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0)
    return std::clamp(CPU_COUNT(&set), 1, REMAT_CPU_MAX_THREADS);
  return std::clamp(omp_get_num_procs(), 1, REMAT_CPU_MAX_THREADS);
}

extern "C" const char *remat_cpu_blas_name(void) {
  return openblas_get_config();
}
