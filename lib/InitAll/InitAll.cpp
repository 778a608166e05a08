//===- InitAll.cpp - register remat and upstream dialects/passes ---------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/InitAll.h"

#include "remat/Conversion/Passes.h"
#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/Dialect/Remat/IR/RematInterfaces.h"
#include "remat/Dialect/Remat/Transforms/Passes.h"
#include "remat/Driver/Passes.h"
#include "remat/Driver/Pipelines.h"
#include "remat/Transforms/Passes.h"

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"

void remat::registerRematDialects(mlir::DialectRegistry &registry) {
  registry.insert<remat::RematDialect>();
  remat::registerCostExternalModels(registry);
  remat::registerGradientExternalModels(registry);
}

void remat::registerRematOnlyPasses() {
  remat::registerRematPasses();
  remat::registerRematConversionPasses();
  remat::registerRematBufferPasses();
  remat::registerRematDriverPasses();
  remat::registerRematPipelines();
}

void remat::registerAllDialects(mlir::DialectRegistry &registry) {
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  registerRematDialects(registry);
}

void remat::registerAllPasses() {
  mlir::registerAllPasses();
  registerRematOnlyPasses();
}
