//===- RematDialect.cpp - remat dialect -------------------------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/Dialect/Remat/IR/RematOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace remat;

#include "remat/Dialect/Remat/IR/RematDialect.cpp.inc"
#include "remat/Dialect/Remat/IR/RematEnums.cpp.inc"
#include "remat/Dialect/Remat/IR/RematInterfaces.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "remat/Dialect/Remat/IR/RematAttributes.cpp.inc"

void RematDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "remat/Dialect/Remat/IR/RematOps.cpp.inc"
      >();
  registerAttributes();
}

void RematDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "remat/Dialect/Remat/IR/RematAttributes.cpp.inc"
      >();
}

LogicalResult RematDialect::verifyOperationAttribute(Operation *op,
                                                     NamedAttribute attr) {
  StringRef name = attr.getName().strref();
  if (name == getPhaseAttrName()) {
    if (!isa<PhaseAttr>(attr.getValue()))
      return op->emitError() << "'" << name
                             << "' must be a #remat.phase attribute";
    return success();
  }
  if (name == getNoRecomputeAttrName()) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "'" << name << "' must be a unit attribute";
    if (op->getNumRegions() != 0 || op->getNumResults() == 0)
      return op->emitError() << "'" << name
                             << "' applies to ops with results and no regions";
    return success();
  }
  if (name == getTrainingStepAttrName()) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "'" << name << "' must be a unit attribute";
    return success();
  }
  if (name == getForwardOnlyAttrName()) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "'" << name << "' must be a unit attribute";
    if (!isa<FunctionOpInterface>(op))
      return op->emitError() << "'" << name << "' applies to functions";
    Operation *backward = nullptr;
    op->walk([&](Operation *inner) {
      if (getPhase(inner) != Phase::backward)
        return WalkResult::advance();
      backward = inner;
      return WalkResult::interrupt();
    });
    if (backward)
      return op->emitError()
             << "'" << name << "' function holds the backward op '"
             << backward->getName() << "'";
    return success();
  }
  if (name == getPlanAttrName()) {
    if (!isa<DictionaryAttr>(attr.getValue()))
      return op->emitError() << "'" << name << "' must be a dictionary";
    if (!isa<FunctionOpInterface>(op))
      return op->emitError() << "'" << name << "' applies to functions";
    return success();
  }
  if (name == getParamAttrName())
    return op->emitError() << "'" << name
                           << "' is an argument attribute of a function";
  return op->emitError() << "unknown remat attribute '" << name << "'";
}

LogicalResult RematDialect::verifyRegionArgAttribute(Operation *op,
                                                     unsigned regionIndex,
                                                     unsigned argIndex,
                                                     NamedAttribute attr) {
  StringRef name = attr.getName().strref();
  if (name != getParamAttrName())
    return op->emitError() << "unknown remat argument attribute '" << name
                           << "'";
  if (!isa<UnitAttr>(attr.getValue()))
    return op->emitError() << "'" << name << "' must be a unit attribute";
  Region &region = op->getRegion(regionIndex);
  if (region.empty())
    return success();
  Type type = region.getArgument(argIndex).getType();
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape() ||
      !isa<FloatType>(tensor.getElementType()))
    return op->emitError() << "'" << name << "' argument #" << argIndex
                           << " must be a statically shaped float tensor, got "
                           << type;
  return success();
}

Phase remat::getPhase(Operation *op) {
  if (auto attr = op->getAttrOfType<PhaseAttr>(RematDialect::getPhaseAttrName()))
    return attr.getValue();
  return Phase::forward;
}

void remat::setPhase(Operation *op, Phase phase) {
  if (phase == Phase::forward) {
    op->removeAttr(RematDialect::getPhaseAttrName());
    return;
  }
  op->setAttr(RematDialect::getPhaseAttrName(),
              PhaseAttr::get(op->getContext(), phase));
}
