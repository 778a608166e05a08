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
  if (name == getGradSeedAttrName()) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "'" << name << "' must be a unit attribute";
    if (op->getNumResults() == 0 || isa<FunctionOpInterface>(op))
      return op->emitError() << "'" << name << "' applies to ops with results";
    return success();
  }
  if (name == getParamAttrName())
    return op->emitError() << "'" << name
                           << "' is an argument attribute of a function";
  if (name == getStateAttrName())
    return op->emitError() << "'" << name
                           << "' is an argument or result attribute of a "
                              "function";
  return op->emitError() << "unknown remat attribute '" << name << "'";
}

LogicalResult RematDialect::verifyRegionArgAttribute(Operation *op,
                                                     unsigned regionIndex,
                                                     unsigned argIndex,
                                                     NamedAttribute attr) {
  StringRef name = attr.getName().strref();
  bool param = name == getParamAttrName();
  if (!param && name != getStateAttrName())
    return op->emitError() << "unknown remat argument attribute '" << name
                           << "'";
  if (!isa<UnitAttr>(attr.getValue()))
    return op->emitError() << "'" << name << "' must be a unit attribute";
  Region &region = op->getRegion(regionIndex);
  if (region.empty())
    return success();
  Type type = region.getArgument(argIndex).getType();
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (param) {
    if (!tensor || !tensor.hasStaticShape() ||
        !isa<FloatType>(tensor.getElementType()))
      return op->emitError()
             << "'" << name << "' argument #" << argIndex
             << " must be a statically shaped float tensor, got " << type;
    return success();
  }
  if (!tensor || !tensor.hasStaticShape())
    return op->emitError() << "'" << name << "' argument #" << argIndex
                           << " must be a statically shaped tensor, got "
                           << type;
  if (auto func = dyn_cast<FunctionOpInterface>(op);
      func && func.getArgAttr(argIndex, getParamAttrName()))
    return op->emitError() << "argument #" << argIndex << " is marked both '"
                           << getParamAttrName() << "' and '" << name
                           << "': state is not trained";
  return success();
}

LogicalResult RematDialect::verifyRegionResultAttribute(Operation *op,
                                                        unsigned regionIndex,
                                                        unsigned resultIndex,
                                                        NamedAttribute attr) {
  StringRef name = attr.getName().strref();
  if (name != getStateAttrName())
    return op->emitError() << "unknown remat result attribute '" << name
                           << "'";
  auto func = dyn_cast<FunctionOpInterface>(op);
  auto index = dyn_cast<IntegerAttr>(attr.getValue());
  if (!func || !index || !index.getType().isInteger(64))
    return op->emitError()
           << "'" << name << "' on result #" << resultIndex
           << " must be an i64 naming the state argument it updates";
  int64_t arg = index.getInt();
  if (arg < 0 || arg >= static_cast<int64_t>(func.getNumArguments()) ||
      !func.getArgAttr(arg, getStateAttrName()))
    return op->emitError() << "'" << name << "' on result #" << resultIndex
                           << " names argument #" << arg
                           << ", which is not a '" << name << "' argument";
  Type argType = func.getArgumentTypes()[arg];
  Type resultType = func.getResultTypes()[resultIndex];
  if (argType != resultType)
    return op->emitError() << "result #" << resultIndex << " (" << resultType
                           << ") updates state argument #" << arg << " of type "
                           << argType << "; the types must match";
  for (unsigned other = 0; other < resultIndex; ++other)
    if (auto prior = func.getResultAttrOfType<IntegerAttr>(other, name);
        prior && prior.getValue() == index.getValue())
      return op->emitError() << "results #" << other << " and #"
                             << resultIndex << " both update state argument #"
                             << arg;
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
