# -*- Python -*-
import os
import shutil
import subprocess

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "REMAT"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "corpus", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.remat_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%remat_src", config.remat_src_root))
config.substitutions.append(("%shared", os.path.join(config.remat_src_root, "..", "shared")))
config.substitutions.append(("%mlir_lib_dir", config.mlir_lib_dir))
config.substitutions.append(("%python", config.python_executable))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

tool_dirs = [config.remat_tools_dir, config.llvm_tools_dir]
tools = ["remat-opt", "mlir-opt", "mlir-runner", "mlir-translate", "llvm-nm",
         "llvm-dwarfdump", "not", "count",
         ToolSubst("remat-compile", unresolved="ignore"),
         ToolSubst("remat-import", unresolved="ignore"),
         ToolSubst("remat-runner", unresolved="ignore"),
         ToolSubst("remat-bench", unresolved="ignore"),
         ToolSubst("remat-fuzz-import", unresolved="ignore"),
         ToolSubst("remat-fuzz-opt", unresolved="ignore"),
         ToolSubst("remat-fuzz-schedule", unresolved="ignore")]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# Sanitizer builds (cmake/RematSanitize.cmake). The instrumented tools call the
# uninstrumented Debian libMLIR, which poisons memory of its own allocators:
# ASan must ignore that poisoning. Every report aborts (SIGABRT), so that a
# report fails even a `not` RUN line (which accepts any non-zero exit).
# Options already in the environment come last and win.
def _sanitizer_env(name, defaults):
    config.environment[name] = ":".join(
        [defaults] + ([os.environ[name]] if os.environ.get(name) else []))

if config.remat_sanitize:
    config.available_features.add("sanitizer")
    _sanitizer_env("ASAN_OPTIONS",
                   "allow_user_poisoning=0:detect_leaks=1:abort_on_error=1")
    _sanitizer_env("UBSAN_OPTIONS",
                   "print_stacktrace=1:halt_on_error=1:abort_on_error=1")
    # The suppressions of scripts/test.sh's gtest steps (scripts/lsan.supp:
    # leaks inside CoinUtils, not remat's memory).
    _sanitizer_env("LSAN_OPTIONS", "suppressions=" + os.path.join(
        config.remat_src_root, "scripts", "lsan.supp"))
# The fuzz targets are libFuzzer binaries (REMAT_BUILD_FUZZERS) or, otherwise,
# replay the files named on their command line (tools/remat-fuzz).
if config.remat_build_fuzzers.upper() in ("ON", "1", "TRUE", "YES"):
    config.available_features.add("libfuzzer")

# The dialect and pass plugin for upstream mlir-opt (tools/remat-plugin).
remat_plugin = os.path.join(config.remat_obj_root, "lib", "RematPlugin.so")
config.substitutions.append(("%remat_plugin", remat_plugin))
config.substitutions.append(("%remat_obj_root", config.remat_obj_root))
if os.path.exists(remat_plugin):
    config.available_features.add("remat-plugin")
# The OMPT tool that counts the OpenMP regions a program enters
# (bench/omp-regions.cpp), built where libomp's omp-tools.h was found.
omp_regions = os.path.join(config.remat_obj_root, "lib", "libRematOmpRegions.so")
config.substitutions.append(("%omp_regions", omp_regions))
if os.path.exists(omp_regions):
    config.available_features.add("omp-regions")
if shutil.which("cmake") and shutil.which("ninja"):
    config.available_features.add("cmake")

# The reference generated from the .td files (docs/CMakeLists.txt, remat-doc).
if os.path.exists(os.path.join(config.remat_obj_root, "docs", "generated", "RematOps.md")):
    config.available_features.add("generated-docs")

# MLIR counts pass statistics only when LLVM was built with them (assertions
# or LLVM_FORCE_ENABLE_STATS); with Debian's release packages every statistic
# is a no-op and -mlir-pass-statistics prints an empty report.
def _has_pass_statistics():
    opt = os.path.join(config.remat_tools_dir, "remat-opt")
    try:
        out = subprocess.run(
            [opt, "--remat-memory-report", "-mlir-pass-statistics", "-o", os.devnull],
            input="func.func @f() {\n  return\n}\n", capture_output=True, text=True,
            timeout=60)
        return "functions-reported" in out.stderr
    except Exception:
        return False

if _has_pass_statistics():
    config.available_features.add("pass-statistics")

# The published benchmark graphs live beside the project root.
if os.path.isdir(os.path.join(config.remat_src_root, "..", "shared", "benchmarks")):
    config.available_features.add("shared-benchmarks")

# The milp strategy exists only when the build found CBC (lib/Scheduling).
def _built_with_cbc():
    try:
        with open(os.path.join(config.remat_obj_root, "CMakeCache.txt")) as f:
            return any(l.strip() == "REMAT_HAVE_CBC:INTERNAL=ON" for l in f)
    except OSError:
        return False

if _built_with_cbc():
    config.available_features.add("cbc")

# The CUDA runtime has the cuDNN convolutions (lib/Runtime/CMakeLists.txt),
# and remat-compile --target=cuda calls them by default.
def _built_with_cudnn():
    try:
        with open(os.path.join(config.remat_obj_root, "CMakeCache.txt")) as f:
            return any(l.strip() == "REMAT_HAVE_CUDNN:INTERNAL=ON" for l in f)
    except OSError:
        return False

if _built_with_cudnn():
    config.available_features.add("cudnn")

# GPU execution tests need an NVIDIA driver and a device.
def _has_cuda_device():
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    try:
        out = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=20)
        return out.returncode == 0 and "GPU" in out.stdout
    except Exception:
        return False

if _has_cuda_device():
    config.available_features.add("cuda-device")
if os.path.exists("/usr/local/cuda/bin/ptxas"):
    config.available_features.add("ptxas")
