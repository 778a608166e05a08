//===- runner.cpp - run a compiled training step ----------------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// Plain C++, no MLIR. Compiled with `-include <entry header>` from
// remat-compile --header and linked with the entry's object (see build.sh).
// Fills the inputs deterministically, runs N steps of the training step with
// an SGD update of the parameters (and the state buffers replaced by their
// next values, the step's next_<state> results), and prints the loss per
// step, checksums of every result (sum, sum of squares, FNV-1a of the
// bytes), the step time and the memory.
//
//   runner [--steps N] [--seed S] [--lr LR] [--dump DIR] [--threads T]
//          [--weights FILE.index] [--inputs FILE.index]
//          [--state FILE.index] [--state-out FILE.index]
//
// --threads (CPU; default $REMAT_NUM_THREADS, else $OMP_NUM_THREADS, else
// the cores this process may run on) sets the threads of the step's loops
// (OpenMP) and of the BLAS its matmuls call, one count for both. The results
// do not depend on it (docs/Conventions.md).
//
// --weights and --inputs replace the generated contents with tensors from a
// tensor file (python/remat/tensorfile.py: FILE.index names every tensor,
// its dtype, offset, size and shape; the data file it names holds them).
// --weights must cover every parameter, and every state buffer (remat.state
// arguments: batch-norm running statistics) unless --state is given, which
// then must cover every state buffer; --inputs must cover every input. A
// tensor that names no input, parameter or state, or whose dtype or shape
// differs, is an error.
//
// --state-out writes the state after the last step (its next_<state>
// results) as a tensor file naming the state buffers, which --state (or
// --weights) reads back.
//
// --dump writes every buffer after the last step (the parameters that step
// saw, its inputs and results) to DIR/<name>.bin, raw, and DIR/manifest.txt
// with one line per buffer: name kind dtype rank dims...
//
// Lines starting with "perf" hold timings and measured memory, which vary
// from run to run; every other line is deterministic.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_NUM_BUFFERS
#error "compile with -include <header written by remat-compile --header>"
#endif

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <sys/resource.h>

#ifdef REMAT_TARGET_CUDA
#include "remat/Runtime/CudaRuntime.h"
#else
#include "remat/Runtime/CpuRuntime.h"
#endif

/// Calls the entry point; at global scope, so that no local name of the
/// runner can shadow the entry's name. With an arena entry (CPU), the arena
/// is allocated once and passed to every step.
#ifdef REMAT_ENTRY_ARENA
static void callEntry(void **buffers, void *arena) {
  REMAT_CALL_ARENA(arena, buffers);
}
#else
static void callEntry(void **buffers, void *) { REMAT_CALL(buffers); }
#endif

#ifndef REMAT_ABI_SYMBOL
#error "the header has no REMAT_ABI_SYMBOL: regenerate it with remat-compile"
#endif
/// The signature byte only the object of the header's own remat-compile run
/// defines (driver::getAbiSymbol): a header and an object from different
/// runs fail to link instead of running with the wrong buffer sizes.
static unsigned char abiSignature() { return REMAT_ABI_SYMBOL; }

/// Everything else lives in a namespace: the entry point's name (at global
/// scope) can then be any C identifier without clashing with a helper.
namespace remat_runner {

/// 64-bit linear congruential generator (Knuth's MMIX constants).
struct Lcg {
  uint64_t state;
  explicit Lcg(uint64_t seed) : state(seed) { next(); }
  uint64_t next() {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state;
  }
  /// Uniform in [0, 1) from the top 24 bits.
  double uniform() { return static_cast<double>(next() >> 40) / 16777216.0; }
};

uint16_t floatToHalf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  uint32_t sign = (bits >> 16) & 0x8000u;
  int32_t exponent = static_cast<int32_t>((bits >> 23) & 0xff) - 127 + 15;
  uint32_t mantissa = bits & 0x7fffffu;
  if (exponent <= 0)
    return static_cast<uint16_t>(sign); // flush tiny values to zero
  if (exponent >= 31)
    return static_cast<uint16_t>(sign | 0x7c00u);
  // Round to nearest even on the 13 dropped bits.
  uint32_t half =
      sign | (static_cast<uint32_t>(exponent) << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u)))
    ++half;
  return static_cast<uint16_t>(half);
}

float halfToFloat(uint16_t half) {
  uint32_t sign = (half & 0x8000u) << 16;
  uint32_t exponent = (half >> 10) & 0x1fu;
  uint32_t mantissa = half & 0x3ffu;
  uint32_t bits;
  if (exponent == 0)
    bits = sign; // zero (subnormals flushed)
  else if (exponent == 31)
    bits = sign | 0x7f800000u | (mantissa << 13);
  else
    bits = sign | ((exponent - 15 + 127) << 23) | (mantissa << 13);
  float value;
  std::memcpy(&value, &bits, 4);
  return value;
}

uint16_t floatToBf16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  uint32_t rounding = 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>((bits + rounding) >> 16);
}

float bf16ToFloat(uint16_t value) {
  uint32_t bits = static_cast<uint32_t>(value) << 16;
  float result;
  std::memcpy(&result, &bits, 4);
  return result;
}

bool isFloat(int dtype) {
  return dtype == REMAT_DTYPE_F32 || dtype == REMAT_DTYPE_F64 ||
         dtype == REMAT_DTYPE_F16 || dtype == REMAT_DTYPE_BF16;
}

/// Element `i` of a float buffer as double.
double loadFloat(const remat_buffer_info &info, const void *data, int64_t i) {
  switch (info.dtype) {
  case REMAT_DTYPE_F32:
    return static_cast<const float *>(data)[i];
  case REMAT_DTYPE_F64:
    return static_cast<const double *>(data)[i];
  case REMAT_DTYPE_F16:
    return halfToFloat(static_cast<const uint16_t *>(data)[i]);
  case REMAT_DTYPE_BF16:
    return bf16ToFloat(static_cast<const uint16_t *>(data)[i]);
  default:
    return 0.0;
  }
}

void storeFloat(const remat_buffer_info &info, void *data, int64_t i,
                double value) {
  switch (info.dtype) {
  case REMAT_DTYPE_F32:
    static_cast<float *>(data)[i] = static_cast<float>(value);
    break;
  case REMAT_DTYPE_F64:
    static_cast<double *>(data)[i] = value;
    break;
  case REMAT_DTYPE_F16:
    static_cast<uint16_t *>(data)[i] = floatToHalf(static_cast<float>(value));
    break;
  case REMAT_DTYPE_BF16:
    static_cast<uint16_t *>(data)[i] = floatToBf16(static_cast<float>(value));
    break;
  default:
    break;
  }
}

void storeInt(const remat_buffer_info &info, void *data, int64_t i,
              int64_t value) {
  switch (info.dtype) {
  case REMAT_DTYPE_I64:
    static_cast<int64_t *>(data)[i] = value;
    break;
  case REMAT_DTYPE_I32:
    static_cast<int32_t *>(data)[i] = static_cast<int32_t>(value);
    break;
  case REMAT_DTYPE_I16:
    static_cast<int16_t *>(data)[i] = static_cast<int16_t>(value);
    break;
  case REMAT_DTYPE_I8:
    static_cast<int8_t *>(data)[i] = static_cast<int8_t>(value);
    break;
  case REMAT_DTYPE_I1:
    static_cast<uint8_t *>(data)[i] = static_cast<uint8_t>(value & 1);
    break;
  default:
    break;
  }
}

/// Deterministic contents: inputs uniform in [-1, 1); parameters scaled by
/// 1/sqrt(sqrt(elements)) (about 1/sqrt(fan-in) for square-ish weights);
/// integers in [0, int_range) (labels, indices) or [0, 1000).
void fill(const remat_buffer_info &info, void *data, uint64_t seed, int index) {
  Lcg lcg(seed ^ (0x9E3779B97F4A7C15ULL * static_cast<uint64_t>(index + 1)));
  if (isFloat(info.dtype)) {
    double scale = 1.0;
    if (info.kind == REMAT_KIND_PARAM)
      scale = 1.0 / std::sqrt(std::sqrt(static_cast<double>(info.elements)));
    for (int64_t i = 0; i < info.elements; ++i)
      storeFloat(info, data, i, (2.0 * lcg.uniform() - 1.0) * scale);
    return;
  }
  uint64_t range =
      info.int_range > 0 ? static_cast<uint64_t>(info.int_range) : 1000u;
  for (int64_t i = 0; i < info.elements; ++i)
    storeInt(info, data, i, static_cast<int64_t>(lcg.next() % range));
}

uint64_t fnv1a(const void *data, int64_t bytes) {
  uint64_t hash = 0xcbf29ce484222325ULL;
  const auto *p = static_cast<const unsigned char *>(data);
  for (int64_t i = 0; i < bytes; ++i) {
    hash ^= p[i];
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

void *allocate(int64_t bytes) {
  size_t size = static_cast<size_t>(bytes > 0 ? bytes : 1);
#ifdef REMAT_TARGET_CUDA
  return remat_cuda_alloc_managed(size);
#else
  size = (size + 63) / 64 * 64;
  return std::aligned_alloc(64, size);
#endif
}

void release(void *data) {
#ifdef REMAT_TARGET_CUDA
  remat_cuda_free(data);
#else
  std::free(data);
#endif
}

int usage(const char *argv0) {
  std::fprintf(stderr,
               "usage: %s [--steps N] [--seed S] [--lr LR] [--dump DIR] "
               "[--threads T] [--weights FILE.index] [--inputs FILE.index] "
               "[--state FILE.index] [--state-out FILE.index]\n",
               argv0);
  return 2;
}

const char *const kDtypeNames[] = {"f32", "f64", "f16", "bf16", "i64",
                                   "i32", "i16", "i8",  "i1",   "other"};

/// Loads the tensors of the tensor file `indexPath` into the input and
/// parameter buffers they name; sets `loaded[i]` for each. Returns false
/// after printing an error.
bool loadTensors(const std::string &indexPath,
                 const std::vector<void *> &buffers,
                 std::vector<bool> &loaded) {
  FILE *index = std::fopen(indexPath.c_str(), "r");
  if (!index) {
    std::fprintf(stderr, "error: cannot open tensor file '%s'\n",
                 indexPath.c_str());
    return false;
  }
  char magic[64] = {0}, dataName[4096] = {0};
  int version = 0;
  if (std::fscanf(index, "%63s %d %4095s", magic, &version, dataName) != 3 ||
      std::strcmp(magic, "remat-tensors") != 0 || version != 1) {
    std::fprintf(stderr, "error: '%s' is not a 'remat-tensors 1' index\n",
                 indexPath.c_str());
    std::fclose(index);
    return false;
  }
  std::string dir;
  if (size_t slash = indexPath.rfind('/'); slash != std::string::npos)
    dir = indexPath.substr(0, slash + 1);
  std::string dataPath = dir + dataName;
  FILE *data = std::fopen(dataPath.c_str(), "rb");
  if (!data) {
    std::fprintf(stderr, "error: cannot open '%s' (the data of '%s')\n",
                 dataPath.c_str(), indexPath.c_str());
    std::fclose(index);
    return false;
  }
  bool ok = true;
  char name[4096], dtype[16], source[4096];
  long long offset, bytes;
  int rank;
  while (ok && std::fscanf(index, "%4095s %15s %lld %lld %d", name, dtype,
                           &offset, &bytes, &rank) == 5) {
    std::vector<long long> dims(rank > 0 ? rank : 0);
    for (long long &d : dims)
      ok &= std::fscanf(index, "%lld", &d) == 1;
    ok &= std::fscanf(index, "%4095s", source) == 1;
    if (!ok) {
      std::fprintf(stderr, "error: malformed line for '%s' in '%s'\n", name,
                   indexPath.c_str());
      break;
    }
    int found = -1;
    for (int i = 0; i < REMAT_NUM_BUFFERS; ++i)
      if (remat_buffers[i].kind != REMAT_KIND_RESULT &&
          std::strcmp(remat_buffers[i].name, name) == 0)
        found = i;
    if (found < 0) {
      std::fprintf(stderr,
                   "error: tensor '%s' in '%s' names no input, parameter or "
                   "state of %s\n",
                   name, indexPath.c_str(), REMAT_ENTRY_NAME);
      ok = false;
      break;
    }
    const remat_buffer_info &info = remat_buffers[found];
    bool same = std::strcmp(dtype, kDtypeNames[info.dtype]) == 0 &&
                rank == info.rank && bytes == info.bytes;
    for (int d = 0; same && d < rank; ++d)
      same = dims[d] == info.shape[d];
    if (!same) {
      std::string want, got;
      for (int d = 0; d < rank; ++d)
        got += (d ? "x" : "") + std::to_string(dims[d]);
      for (int d = 0; d < info.rank; ++d)
        want += (d ? "x" : "") + std::to_string(info.shape[d]);
      std::fprintf(stderr,
                   "error: tensor '%s' in '%s' is %s [%s]; the entry's "
                   "buffer is %s [%s]\n",
                   name, indexPath.c_str(), dtype, got.c_str(),
                   kDtypeNames[info.dtype], want.c_str());
      ok = false;
      break;
    }
    if (std::fseek(data, offset, SEEK_SET) != 0 ||
        std::fread(buffers[found], 1, static_cast<size_t>(bytes), data) !=
            static_cast<size_t>(bytes)) {
      std::fprintf(stderr, "error: '%s' ends before tensor '%s'\n",
                   dataPath.c_str(), name);
      ok = false;
      break;
    }
    loaded[found] = true;
  }
  std::fclose(data);
  std::fclose(index);
  return ok;
}

/// Checks that every buffer of `kind` was loaded from `path`.
bool allLoaded(int kind, const std::vector<bool> &loaded,
               const std::string &path) {
  for (int i = 0; i < REMAT_NUM_BUFFERS; ++i)
    if (remat_buffers[i].kind == kind && !loaded[i]) {
      std::fprintf(stderr, "error: '%s' has no tensor for %s '%s'\n",
                   path.c_str(),
                   kind == REMAT_KIND_PARAM   ? "parameter"
                   : kind == REMAT_KIND_STATE ? "state"
                                              : "input",
                   remat_buffers[i].name);
      return false;
    }
  return true;
}

bool dump(const std::string &dir, const std::vector<void *> &buffers) {
  std::string manifestPath = dir + "/manifest.txt";
  FILE *manifest = std::fopen(manifestPath.c_str(), "w");
  if (!manifest) {
    std::fprintf(stderr, "error: cannot write %s\n", manifestPath.c_str());
    return false;
  }
  static const char *kinds[] = {"input", "param", "result", "state"};
  const char *const *dtypes = kDtypeNames;
  for (int i = 0; i < REMAT_NUM_BUFFERS; ++i) {
    const remat_buffer_info &info = remat_buffers[i];
    std::fprintf(manifest, "%s %s %s %d", info.name, kinds[info.kind],
                 dtypes[info.dtype], info.rank);
    for (int d = 0; d < info.rank; ++d)
      std::fprintf(manifest, " %lld", static_cast<long long>(info.shape[d]));
    std::fprintf(manifest, "\n");
    std::string path = dir + "/" + info.name + ".bin";
    FILE *file = std::fopen(path.c_str(), "wb");
    if (!file || std::fwrite(buffers[i], 1, static_cast<size_t>(info.bytes),
                             file) != static_cast<size_t>(info.bytes)) {
      std::fprintf(stderr, "error: cannot write %s\n", path.c_str());
      return false;
    }
    std::fclose(file);
  }
  std::fclose(manifest);
  return true;
}

/// Writes the next value of every state buffer (the results with a
/// `state_of`) as the tensor file `indexPath` (python/remat/tensorfile.py),
/// each tensor named after its state buffer. Returns false after an error.
bool writeState(const std::string &indexPath,
                const std::vector<void *> &buffers) {
  const std::string suffix = ".index";
  if (indexPath.size() <= suffix.size() ||
      indexPath.compare(indexPath.size() - suffix.size(), suffix.size(),
                        suffix) != 0) {
    std::fprintf(stderr, "error: --state-out '%s' must end in .index\n",
                 indexPath.c_str());
    return false;
  }
  std::string dataPath =
      indexPath.substr(0, indexPath.size() - suffix.size()) + ".bin";
  std::string dataName = dataPath.substr(dataPath.rfind('/') + 1);
  FILE *data = std::fopen(dataPath.c_str(), "wb");
  FILE *index = data ? std::fopen(indexPath.c_str(), "w") : nullptr;
  if (!data || !index) {
    std::fprintf(stderr, "error: cannot write %s\n",
                 data ? indexPath.c_str() : dataPath.c_str());
    if (data)
      std::fclose(data);
    return false;
  }
  bool ok = std::fprintf(index, "remat-tensors 1 %s\n", dataName.c_str()) > 0;
  long long offset = 0;
  static const char zeros[64] = {0};
  for (int i = 0; ok && i < REMAT_NUM_BUFFERS; ++i) {
    const remat_buffer_info &next = remat_buffers[i];
    if (next.state_of < 0)
      continue;
    long long pad = (64 - offset % 64) % 64;
    ok &= std::fwrite(zeros, 1, static_cast<size_t>(pad), data) ==
          static_cast<size_t>(pad);
    offset += pad;
    ok &= std::fwrite(buffers[i], 1, static_cast<size_t>(next.bytes), data) ==
          static_cast<size_t>(next.bytes);
    const remat_buffer_info &state = remat_buffers[next.state_of];
    std::fprintf(index, "%s %s %lld %lld %d", state.name,
                 kDtypeNames[state.dtype], offset,
                 static_cast<long long>(next.bytes), state.rank);
    for (int d = 0; d < state.rank; ++d)
      std::fprintf(index, " %lld", static_cast<long long>(state.shape[d]));
    std::fprintf(index, " -\n");
    offset += next.bytes;
  }
  ok &= std::fclose(data) == 0;
  ok &= std::fclose(index) == 0;
  if (!ok)
    std::fprintf(stderr, "error: cannot write %s\n", indexPath.c_str());
  return ok;
}

/// Most steps one run may take (a typo must not mean a run for ever).
constexpr long long kMaxSteps = 1000000;
/// Most threads one run may ask for.
constexpr long long kMaxThreads = 4096; // REMAT_CPU_MAX_THREADS

/// Parses all of `text` as a decimal integer in [lo, hi].
bool parseInteger(const char *text, long long lo, long long hi,
                  long long &value) {
  errno = 0;
  char *end = nullptr;
  value = std::strtoll(text, &end, 10);
  return errno == 0 && end != text && *end == '\0' && value >= lo &&
         value <= hi;
}

/// Parses all of `text` as an unsigned 64-bit decimal integer.
bool parseSeed(const char *text, uint64_t &value) {
  errno = 0;
  char *end = nullptr;
  if (*text == '-' || *text == '+')
    return false;
  value = std::strtoull(text, &end, 10);
  return errno == 0 && end != text && *end == '\0';
}

/// Parses all of `text` as a finite floating-point number.
bool parseFinite(const char *text, double &value) {
  errno = 0;
  char *end = nullptr;
  value = std::strtod(text, &end);
  return errno == 0 && end != text && *end == '\0' && std::isfinite(value);
}

int run(int argc, char **argv) {
  long long steps = 2;
  uint64_t seed = 1;
  double lr = 0.01;
  std::string dumpDir, weightsPath, inputsPath, statePath, stateOutPath;
  long long threads = 0; // 0: the default
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (i + 1 >= argc)
      return usage(argv[0]);
    const char *value = argv[i + 1];
    if (arg == "--steps" && !parseInteger(value, 1, kMaxSteps, steps)) {
      std::fprintf(stderr,
                   "error: --steps must be an integer in [1, %lld], "
                   "got '%s'\n",
                   kMaxSteps, value);
      return 2;
    }
    if (arg == "--seed" && !parseSeed(value, seed)) {
      std::fprintf(stderr,
                   "error: --seed must be an unsigned 64-bit "
                   "integer, got '%s'\n",
                   value);
      return 2;
    }
    if (arg == "--lr" && !parseFinite(value, lr)) {
      std::fprintf(stderr, "error: --lr must be a finite number, got '%s'\n",
                   value);
      return 2;
    }
    if (arg == "--steps" || arg == "--seed" || arg == "--lr")
      ++i;
    else if (arg == "--dump")
      dumpDir = argv[++i];
    else if (arg == "--threads") {
      if (!parseInteger(argv[++i], 1, kMaxThreads, threads)) {
        std::fprintf(stderr,
                     "error: --threads must be an integer in [1, %lld], "
                     "got '%s'\n",
                     kMaxThreads, argv[i]);
        return 2;
      }
    } else if (arg == "--weights")
      weightsPath = argv[++i];
    else if (arg == "--inputs")
      inputsPath = argv[++i];
    else if (arg == "--state")
      statePath = argv[++i];
    else if (arg == "--state-out")
      stateOutPath = argv[++i];
    else
      return usage(argv[0]);
  }
  if (abiSignature() != 1) {
    std::fprintf(stderr, "error: the object's ABI signature is corrupt\n");
    return 1;
  }

#ifdef REMAT_TARGET_CUDA
  const char *target = "cuda";
  if (remat_cuda_init() != 0)
    return 1;
  int64_t deviceBase = remat_cuda_device_used_bytes();
#else
  const char *target = "cpu";
  if (threads == 0) {
    // $REMAT_NUM_THREADS, else $OMP_NUM_THREADS, else the cores available.
    int fallback = remat_cpu_default_num_threads();
    if (fallback < 0) {
      const char *name = std::getenv("REMAT_NUM_THREADS") ? "REMAT_NUM_THREADS"
                                                          : "OMP_NUM_THREADS";
      std::fprintf(stderr,
                   "error: %s must be an integer in [1, %d], got '%s'\n", name,
                   REMAT_CPU_MAX_THREADS, std::getenv(name));
      return 2;
    }
    threads = fallback;
  }
  // The loops (OpenMP) and the BLAS get the same count.
  if (remat_cpu_set_num_threads(static_cast<int>(threads)) != 0) {
    std::fprintf(stderr, "error: cannot use %lld threads\n", threads);
    return 2;
  }
  std::printf("perf threads %d blas %s\n", remat_cpu_num_threads(),
              remat_cpu_blas_name());
  std::printf("perf isa %s\n", remat_cpu_isa());
#endif

  std::vector<void *> buffers(REMAT_NUM_BUFFERS);
  int64_t bufferBytes = 0;
  for (int i = 0; i < REMAT_NUM_BUFFERS; ++i) {
    const remat_buffer_info &info = remat_buffers[i];
    buffers[i] = allocate(info.bytes);
    if (!buffers[i]) {
      std::fprintf(stderr, "error: cannot allocate %lld bytes for %s\n",
                   static_cast<long long>(info.bytes), info.name);
      return 1;
    }
    bufferBytes += info.bytes;
    if (info.kind == REMAT_KIND_RESULT)
      std::memset(buffers[i], 0, static_cast<size_t>(info.bytes));
    else
      fill(info, buffers[i], seed, i);
  }

  if (!weightsPath.empty()) {
    std::vector<bool> loaded(REMAT_NUM_BUFFERS, false);
    if (!loadTensors(weightsPath, buffers, loaded) ||
        !allLoaded(REMAT_KIND_PARAM, loaded, weightsPath) ||
        (statePath.empty() &&
         !allLoaded(REMAT_KIND_STATE, loaded, weightsPath)))
      return 1;
  }
  if (!statePath.empty()) {
    std::vector<bool> loaded(REMAT_NUM_BUFFERS, false);
    if (!loadTensors(statePath, buffers, loaded) ||
        !allLoaded(REMAT_KIND_STATE, loaded, statePath))
      return 1;
  }
  if (!inputsPath.empty()) {
    std::vector<bool> loaded(REMAT_NUM_BUFFERS, false);
    if (!loadTensors(inputsPath, buffers, loaded) ||
        !allLoaded(REMAT_KIND_INPUT, loaded, inputsPath))
      return 1;
  }

  std::printf("entry %s target %s buffers %d inputs %d results %d\n",
              REMAT_ENTRY_NAME, target, REMAT_NUM_BUFFERS, REMAT_NUM_INPUTS,
              REMAT_NUM_RESULTS);
  std::printf("memory arena_bytes %lld lower_bound_bytes %lld buffer_bytes "
              "%lld planned_peak_bytes %lld\n",
              static_cast<long long>(REMAT_ARENA_BYTES),
              static_cast<long long>(REMAT_ARENA_LOWER_BOUND_BYTES),
              static_cast<long long>(bufferBytes),
              static_cast<long long>(REMAT_ARENA_BYTES + bufferBytes));

  int lossIndex = -1;
  for (int i = 0; i < REMAT_NUM_BUFFERS; ++i)
    if (remat_buffers[i].kind == REMAT_KIND_RESULT &&
        remat_buffers[i].rank == 0 && isFloat(remat_buffers[i].dtype) &&
        std::strcmp(remat_buffers[i].name, "loss") == 0)
      lossIndex = i;

  // The arena, once for all steps (the entry without it allocates its own
  // on every call).
  void *arena = nullptr;
#ifdef REMAT_ENTRY_ARENA
  arena = allocate(REMAT_ARENA_BYTES);
  if (!arena) {
    std::fprintf(stderr, "error: cannot allocate the arena\n");
    return 1;
  }
#endif

  double totalSeconds = 0.0;
  bool finite = true;
  for (long long step = 0; step < steps; ++step) {
#ifdef REMAT_TARGET_CUDA
    remat_cuda_reset_peak();
#endif
    auto start = std::chrono::steady_clock::now();
    callEntry(buffers.data(), arena);
    auto stop = std::chrono::steady_clock::now();
    double seconds = std::chrono::duration<double>(stop - start).count();
    totalSeconds += seconds;
    if (lossIndex >= 0) {
      double loss = loadFloat(remat_buffers[lossIndex], buffers[lossIndex], 0);
      finite &= std::isfinite(loss);
      std::printf("step %lld loss %.9g\n", step, loss);
    } else {
      std::printf("step %lld\n", step);
    }
    std::printf("perf step %lld ms %.3f\n", step, seconds * 1e3);
#ifdef REMAT_TARGET_CUDA
    std::printf(
        "perf step %lld device_peak_delta_bytes %lld\n", step,
        static_cast<long long>(remat_cuda_peak_used_bytes() - deviceBase));
#endif
    // SGD on the parameters and the state update, except after the last
    // step, so that the printed gradients belong to the parameters the last
    // step saw.
    if (step + 1 == steps)
      break;
    for (int i = 0; i < REMAT_NUM_BUFFERS; ++i)
      if (remat_buffers[i].state_of >= 0)
        std::memcpy(buffers[remat_buffers[i].state_of], buffers[i],
                    static_cast<size_t>(remat_buffers[i].bytes));
    for (int i = 0; i < REMAT_NUM_BUFFERS; ++i) {
      const remat_buffer_info &grad = remat_buffers[i];
      if (grad.grad_of < 0 || !isFloat(grad.dtype))
        continue;
      const remat_buffer_info &param = remat_buffers[grad.grad_of];
      for (int64_t k = 0; k < param.elements; ++k)
        storeFloat(param, buffers[grad.grad_of], k,
                   loadFloat(param, buffers[grad.grad_of], k) -
                       lr * loadFloat(grad, buffers[i], k));
    }
  }

  for (int i = 0; i < REMAT_NUM_BUFFERS; ++i) {
    const remat_buffer_info &info = remat_buffers[i];
    if (info.kind != REMAT_KIND_RESULT)
      continue;
    double sum = 0.0, sumSquares = 0.0;
    if (isFloat(info.dtype)) {
      for (int64_t k = 0; k < info.elements; ++k) {
        double v = loadFloat(info, buffers[i], k);
        sum += v;
        sumSquares += v * v;
      }
    }
    finite &= std::isfinite(sum) && std::isfinite(sumSquares);
    std::printf("result %s sum %.9g sumsq %.9g fnv1a %016llx\n", info.name, sum,
                sumSquares,
                static_cast<unsigned long long>(fnv1a(buffers[i], info.bytes)));
  }
  std::printf("finite %s\n", finite ? "yes" : "no");
  if (!dumpDir.empty() && !dump(dumpDir, buffers))
    return 1;
  if (!stateOutPath.empty() && !writeState(stateOutPath, buffers))
    return 1;

  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  std::printf("perf mean_step_ms %.3f max_rss_kib %ld\n",
              totalSeconds * 1e3 / static_cast<double>(steps), usage.ru_maxrss);
  for (void *buffer : buffers)
    release(buffer);
  if (arena)
    release(arena);
  return finite ? 0 : 3;
}

} // namespace remat_runner

int main(int argc, char **argv) { return remat_runner::run(argc, argv); }
