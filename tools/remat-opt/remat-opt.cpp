//===- remat-opt.cpp - remat optimizer driver -------------------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  remat::registerAllDialects(registry);
  remat::registerAllPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "remat optimizer driver\n", registry));
}
