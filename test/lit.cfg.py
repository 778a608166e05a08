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
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
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
tools = ["remat-opt", "mlir-opt", "mlir-runner", "mlir-translate", "llvm-nm", "not", "count",
         ToolSubst("remat-compile", unresolved="ignore"),
         ToolSubst("remat-import", unresolved="ignore"),
         ToolSubst("remat-runner", unresolved="ignore")]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# The dialect and pass plugin for upstream mlir-opt (tools/remat-plugin).
remat_plugin = os.path.join(config.remat_obj_root, "lib", "RematPlugin.so")
config.substitutions.append(("%remat_plugin", remat_plugin))
config.substitutions.append(("%remat_obj_root", config.remat_obj_root))
if os.path.exists(remat_plugin):
    config.available_features.add("remat-plugin")
if shutil.which("cmake") and shutil.which("ninja"):
    config.available_features.add("cmake")

# The published benchmark graphs live beside the project root.
if os.path.isdir(os.path.join(config.remat_src_root, "..", "shared", "benchmarks")):
    config.available_features.add("shared-benchmarks")

# The milp strategy exists only when the build found CBC (lib/Scheduling).
def _built_with_cbc():
    try:
        with open(os.path.join(config.remat_obj_root, "CMakeCache.txt")) as f:
            return any(l.strip() == "REMAT_CBC_FOUND:INTERNAL=1" for l in f)
    except OSError:
        return False

if _built_with_cbc():
    config.available_features.add("cbc")

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
