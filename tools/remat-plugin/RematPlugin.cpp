//===- RematPlugin.cpp - remat as an mlir-opt dialect and pass plugin -----===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The entry points MLIR's plugin loader looks for. Loaded with
/// `--load-dialect-plugin`, the module registers the remat dialect and the
/// cost-model external models remat attaches to upstream ops; loaded with
/// `--load-pass-plugin`, it registers remat's passes (the same set
/// `remat-opt` registers, without upstream's, which the host already has).
///
//===----------------------------------------------------------------------===//

#include "remat/InitAll.h"

#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"

extern "C" LLVM_ATTRIBUTE_WEAK mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "Remat", LLVM_VERSION_STRING,
          [](mlir::DialectRegistry *registry) {
            remat::registerRematDialects(*registry);
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "RematPasses", LLVM_VERSION_STRING,
          []() { remat::registerRematOnlyPasses(); }};
}
