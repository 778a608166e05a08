//===- RematDialect.h - remat dialect ---------------------------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DIALECT_REMAT_IR_REMATDIALECT_H
#define REMAT_DIALECT_REMAT_IR_REMATDIALECT_H

#include "mlir/IR/Dialect.h"

#include "remat/Dialect/Remat/IR/RematDialect.h.inc"

#endif // REMAT_DIALECT_REMAT_IR_REMATDIALECT_H
