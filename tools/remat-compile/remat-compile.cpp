//===- remat-compile.cpp - compile a training step --------------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// remat-compile model.mlir [--budget=B] [--strategy=S] [--grad-seed=NAME]
//     [--target=cpu|cuda] [--chip=sm_90] [--emit=...] [-o out]
//     [--header=entry.h]
//
// A thin command line over remat::driver (lib/Driver).
//
//===----------------------------------------------------------------------===//

#include "remat/Driver/Driver.h"
#include "remat/Driver/TimeModel.h"
#include "remat/Support/AtomicOutput.h"
#include "remat/Support/InputLimits.h"
#include "remat/Support/ToolOptions.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

#include <cmath>

using namespace llvm;
using namespace remat::driver;

/// The options `--help` lists (remat/Support/ToolOptions.h).
static cl::OptionCategory compileCategory("remat-compile options");

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input.mlir>"),
                                      cl::init("-"), cl::cat(compileCategory));
static cl::opt<std::string> outputFile("o", cl::desc("Output file"),
                                       cl::value_desc("file"), cl::init("-"),
                                       cl::cat(compileCategory));
static cl::opt<std::string>
    headerFile("header", cl::desc("Write the C header of the entry point"),
               cl::value_desc("file.h"), cl::cat(compileCategory));
static cl::opt<std::string>
    emitKind("emit",
             cl::desc("What to write: mlir-remat, mlir-linalg, mlir-buffers, "
                      "mlir-llvm, llvm, ptx, obj (default), cubin"),
             cl::init("obj"), cl::cat(compileCategory));
static cl::opt<std::string> target("target", cl::desc("cpu (default) or cuda"),
                                   cl::init("cpu"), cl::cat(compileCategory));
static cl::opt<std::string> chip("chip", cl::desc("CUDA architecture"),
                                 cl::init("sm_90"), cl::cat(compileCategory));
static cl::opt<std::string>
    cudaPath("cuda-path",
             cl::desc("CUDA toolkit root (default: $CUDA_ROOT, $CUDA_HOME, "
                      "$CUDA_PATH, /usr/local/cuda)"),
             cl::cat(compileCategory));
static cl::opt<long long>
    budget("budget",
           cl::desc("Memory budget in bytes for --remat-rematerialize"),
           cl::init(-1), cl::cat(compileCategory));
static cl::opt<std::string>
    strategy("strategy",
             cl::desc("Rematerialization strategy for --remat-rematerialize"),
             cl::cat(compileCategory));
static cl::opt<std::string> gradSeed(
    "grad-seed",
    cl::desc("Name location (loc(\"NAME\")) of the op that seeds the "
             "gradient of a step written without #remat.phase marks, for "
             "--remat-rematerialize (as the remat.grad_seed attribute; needs "
             "a positive --budget or --strategy)"),
    cl::value_desc("NAME"), cl::cat(compileCategory));
static cl::opt<std::string>
    entry("entry", cl::desc("Function to compile (default: the training step)"),
          cl::cat(compileCategory));
static cl::opt<std::string>
    cpu("cpu", cl::desc("Host CPU: native (default) or an LLVM CPU name"),
        cl::init("native"), cl::cat(compileCategory));
static cl::opt<unsigned> optLevel("O", cl::desc("LLVM optimization level"),
                                  cl::init(2), cl::Prefix,
                                  cl::cat(compileCategory));
static cl::opt<long long> blockSize("gpu-block-size",
                                    cl::desc("Threads per GPU block"),
                                    cl::init(256), cl::cat(compileCategory));
static cl::opt<std::string>
    arenaReport("arena-report",
                cl::desc("Write remat-plan-arena's JSON report to this file"),
                cl::cat(compileCategory));

static remat::InputLimitOptions inputLimits(remat::NestingSyntax::MLIR,
                                            compileCategory);

static cl::opt<bool> gpuLoopsOnCpu(
    "cpu-gpu-loops",
    cl::desc("Testing aid (--target=cpu): lower with the loop structure of "
             "the CUDA path (block reductions in their kernels' order) and "
             "run it sequentially"),
    cl::init(false), cl::cat(compileCategory));

static cl::opt<bool>
    blas("blas",
         cl::desc("f32 matmuls (and on the CPU convolutions) call the "
                  "runtime's GEMM: cblas_sgemm (CPU) or cuBLAS (CUDA) "
                  "(default); --blas=false keeps them as loops/kernels"),
         cl::init(true), cl::cat(compileCategory));

static cl::opt<bool>
    cudnn("cudnn",
          cl::desc("CUDA: f32 convolutions (forward, input and filter "
                   "gradients) call the CUDA runtime's cuDNN convolutions "
                   "(default: whether this build's runtime has them); "
                   "--cudnn=false: im2col / col2im kernels around cuBLAS"),
          cl::init(REMAT_HAVE_CUDNN != 0), cl::cat(compileCategory));

static cl::opt<long long> splitThreshold(
    "split-threshold",
    cl::desc("Outline the top-level loops of host functions with more LLVM "
             "instructions than this into functions of their own before "
             "optimizing (compile time; -1: never)"),
    cl::init(20000), cl::cat(compileCategory));

static cl::opt<double> timeGflops(
    "time-gflops",
    cl::desc("With --budget or --strategy: GFLOP/s of the step time "
             "estimate's remark (one thread, f32 GEMM work; default 100)"),
    cl::init(100), cl::cat(compileCategory));
static cl::opt<double> timeGBps(
    "time-gbps",
    cl::desc("With --budget or --strategy: GB/s of the step time estimate's "
             "remark (bytes an op streams; default 7.5)"),
    cl::init(7.5), cl::cat(compileCategory));
static cl::opt<std::string> timeModel(
    "time-model",
    cl::desc("With --budget or --strategy: a calibrated time model (JSON "
             "table written by bench/calibrate_time.py) whose estimate of "
             "the step and its recompute is reported in a second remark"),
    cl::value_desc("file"), cl::init(""), cl::cat(compileCategory));
static cl::opt<long long> parallelThreshold(
    "parallel-threshold",
    cl::desc("CPU: linalg ops with at least this many loop iterations run "
             "their outermost parallel loop on OpenMP threads; smaller ones "
             "stay sequential (-1: no OpenMP)"),
    cl::init(32768), cl::cat(compileCategory));
static cl::opt<bool> debugLines(
    "g",
    cl::desc("CPU: line tables (DWARF) from the input's locations, so that "
             "a profiler (perf report --sort srcline) or a debugger names "
             "the input line of every loop"),
    cl::init(false), cl::cat(compileCategory));
static cl::opt<bool> parallelBodyWork(
    "parallel-body-work",
    cl::desc("CPU: --parallel-threshold counts loop iterations times the "
             "work of one iteration (operands, operations, 4 per division, "
             "16 per math function) instead of iterations"),
    cl::init(false), cl::cat(compileCategory));

enum class CpuVectorizer { LLVM, Contractions, Upstream };
static cl::opt<CpuVectorizer> cpuVectorize(
    "cpu-vectorize",
    cl::desc("CPU: who vectorises the loops that call no library"),
    cl::values(clEnumValN(CpuVectorizer::LLVM, "llvm",
                          "LLVM's loop and SLP vectorizers at -O<n>"),
               clEnumValN(CpuVectorizer::Contractions, "contractions",
                          "remat-cpu-vectorize for the matmuls that call "
                          "no library (f64/f16/bf16), LLVM for the rest"),
               clEnumValN(CpuVectorizer::Upstream, "upstream",
                          "remat-cpu-vectorize: linalg tiling and "
                          "linalg::vectorize, then vector to LLVM, every "
                          "op it can take (default)")),
    cl::init(CpuVectorizer::Upstream), cl::cat(compileCategory));
static cl::opt<bool> cpuRowReductions(
    "cpu-row-reductions",
    cl::desc("CPU: fold the reductions over the unit-stride dimension "
             "(softmax, layer-norm rows) in 8 vector lanes, then the lanes "
             "in a fixed tree (docs/Conventions.md, \"Row reductions "
             "(CPU)\"); false: one scalar chain per row"),
    cl::init(true), cl::cat(compileCategory));

static cl::opt<bool> verbose("v",
                             cl::desc("Print each stage and its wall time to "
                                      "stderr as it finishes"),
                             cl::init(false), cl::cat(compileCategory));
static cl::opt<bool> timing("timing",
                            cl::desc("Print the time of every stage and pass "
                                     "at the end (like --mlir-timing)"),
                            cl::init(false), cl::cat(compileCategory));

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  mlir::DialectRegistry registry;
  registerDriverDependencies(registry);
  // The usual MLIR flags: --mlir-timing, --mlir-print-ir-after-all,
  // --mlir-pass-statistics, --mlir-print-op-on-diagnostic, ...
  mlir::registerMLIRContextCLOptions();
  mlir::registerAsmPrinterCLOptions();
  mlir::registerPassManagerCLOptions();
  mlir::registerDefaultTimingManagerCLOptions();
  remat::hideForeignOptions({&compileCategory}, /*keepMLIROptions=*/true);
  cl::ParseCommandLineOptions(argc, argv,
                              "remat-compile: training step to object code\n");

  CompileOptions options;
  std::optional<Emit> emit = parseEmit(emitKind);
  if (!emit) {
    errs() << "error: unknown --emit=" << emitKind << "\n";
    return 1;
  }
  options.emit = *emit;
  if (isBinaryEmit(options.emit) && outputFile == "-" &&
      sys::Process::StandardOutIsDisplayed()) {
    errs() << "error: refusing to write a binary " << emitKind
           << " to a terminal; use -o <file>\n";
    return 1;
  }
  if (target == "cpu") {
    options.target = Target::CPU;
  } else if (target == "cuda") {
    options.target = Target::CUDA;
  } else {
    errs() << "error: unknown --target=" << target << " (cpu or cuda)\n";
    return 1;
  }
  if (budget.getNumOccurrences()) {
    if (budget < 0) {
      errs() << "error: --budget must be non-negative\n";
      return 1;
    }
    options.budget = budget;
  }
  if (blockSize <= 0 || blockSize > 1024) {
    errs() << "error: --gpu-block-size must be in [1, 1024]\n";
    return 1;
  }
  if (!headerFile.empty() && options.emit < Emit::MlirBuffers) {
    errs() << "error: --header needs --emit=mlir-buffers or a later stage "
              "(the arena is planned at the buffer level)\n";
    return 1;
  }
  if (!gradSeed.empty() && budget <= 0 && strategy.empty()) {
    errs() << "error: --grad-seed=" << gradSeed
           << " needs a positive --budget or --strategy (the seed places the "
              "forward/backward split for rematerialization)\n";
    return 1;
  }
  options.strategy = strategy;
  options.gradSeed = gradSeed;
  options.chip = chip;
  options.cudaPath = cudaPath;
  options.entry = entry;
  options.cpu = cpu;
  options.optLevel = optLevel;
  options.gpuBlockSize = blockSize;
  options.arenaReport = arenaReport;
  options.gpuLoopsOnCpu = gpuLoopsOnCpu;
  options.blas = blas;
  options.cudnn = cudnn;
  options.verbose = verbose;
  options.splitInstructions = splitThreshold;
  options.parallelThreshold = parallelThreshold;
  options.parallelBodyWork = parallelBodyWork;
  options.debugLines = debugLines;
  options.upstreamVectorize = cpuVectorize == CpuVectorizer::Upstream;
  options.upstreamContractions = cpuVectorize == CpuVectorizer::Contractions;
  options.rowReductions = cpuRowReductions;
  if (!(timeGflops > 0) || !(timeGBps > 0) || !std::isfinite(timeGflops) ||
      !std::isfinite(timeGBps)) {
    errs() << "error: --time-gflops and --time-gbps must be positive\n";
    return 1;
  }
  options.timeGflops = timeGflops;
  options.timeGBps = timeGBps;
  std::optional<CalibratedTimeModel> calibrated;
  if (!timeModel.empty()) {
    Expected<CalibratedTimeModel> loaded = loadTimeModel(timeModel);
    if (!loaded) {
      errs() << "error: " << toString(loaded.takeError()) << "\n";
      return 1;
    }
    calibrated = std::move(*loaded);
    options.timeModel = &*calibrated;
  }
  options.configurePassManager = [](mlir::PassManager &pm) {
    return mlir::applyPassManagerCLOptions(pm);
  };
  mlir::DefaultTimingManager timingManager;
  mlir::applyDefaultTimingManagerCLOptions(timingManager);
  if (timing)
    timingManager.setEnabled(true);
  mlir::TimingScope rootTiming = timingManager.getRootScope();
  options.timing = &rootTiming;
  if (std::optional<std::string> problem = checkTargetNames(options)) {
    errs() << "error: " << *problem << "\n";
    return 1;
  }

  mlir::MLIRContext context(registry);
  // Diagnostics point at source locations; the op dump adds nothing there
  // (unless --mlir-print-op-on-diagnostic is given).
  if (!cl::getRegisteredOptions()["mlir-print-op-on-diagnostic"]
           ->getNumOccurrences())
    context.printOpOnDiagnostic(false);
  std::string message;
  auto input = mlir::openInputFile(inputFile, &message);
  if (!input) {
    errs() << "error: " << message << "\n";
    return 1;
  }
  if (failed(remat::checkMLIRInputLimits(
          *input, inputLimits.get(), [](const Twine &message) {
            errs() << "error: " << message << "\n";
          })))
    return 1;
  SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(input), SMLoc());
  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &context);

  ArgumentNames names;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      parseInput(sourceMgr, context, names);
  if (!module)
    return 1;

  // Compile into memory; write the output only on success.
  std::string result;
  raw_string_ostream resultStream(result);
  EntryInfo info;
  if (mlir::failed(compile(*module, options, names, resultStream, info)))
    return 1;

  // Both outputs go to temporary files first and replace the destinations
  // only when both are written: a failure leaves the previous object and
  // header in place, never a new object beside a stale header (the header
  // first: a failed object rename leaves a new header, which the runner's
  // ABI check rejects with the old object).
  auto fail = [](Error error) {
    errs() << "error: " << toString(std::move(error)) << "\n";
    return 1;
  };
  Expected<std::unique_ptr<remat::AtomicOutput>> output =
      remat::AtomicOutput::create(outputFile);
  if (!output)
    return fail(output.takeError());
  std::unique_ptr<remat::AtomicOutput> header;
  if (!headerFile.empty()) {
    Expected<std::unique_ptr<remat::AtomicOutput>> opened =
        remat::AtomicOutput::create(headerFile);
    if (!opened)
      return fail(opened.takeError());
    header = std::move(*opened);
    writeHeader(info, header->os());
  }
  (*output)->os() << result;
  if (header)
    if (Error error = header->commit())
      return fail(std::move(error));
  if (Error error = (*output)->commit())
    return fail(std::move(error));
  return 0;
}
