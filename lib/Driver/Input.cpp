//===- Input.cpp - parse the input and describe the entry point -----------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "DriverInternal.h"

#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/Dialect/Remat/IR/RematOps.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/AsmParser/AsmParserState.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using namespace remat;
using namespace remat::driver;

/// Returns `text` as a C identifier: invalid characters become '_', a
/// leading digit gets a '_' prefix.
static std::string toIdentifier(StringRef text) {
  std::string name;
  for (char c : text)
    name.push_back(llvm::isAlnum(c) || c == '_' ? c : '_');
  if (name.empty() || llvm::isDigit(name.front()))
    name.insert(name.begin(), '_');
  return name;
}

OwningOpRef<ModuleOp> driver::parseInput(llvm::SourceMgr &sourceMgr,
                                         MLIRContext &context,
                                         ArgumentNames &names) {
  AsmParserState asmState;
  Block block;
  ParserConfig config(&context);
  if (failed(parseAsmSourceFile(sourceMgr, &block, config, &asmState)))
    return nullptr;
  // A single top-level module is the module; otherwise wrap the ops.
  OwningOpRef<ModuleOp> module;
  if (llvm::hasSingleElement(block) && isa<ModuleOp>(block.front())) {
    module = cast<ModuleOp>(&block.front());
    module.get()->remove();
  } else {
    module = ModuleOp::create(UnknownLoc::get(&context));
    Block &body = module->getBodyRegion().front();
    body.getOperations().splice(body.end(), block.getOperations());
  }
  // Record the SSA names of function arguments (`%x` -> "x").
  for (auto func : module->getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    const AsmParserState::BlockDefinition *def =
        asmState.getBlockDef(&func.getBody().front());
    if (!def)
      continue;
    std::vector<std::string> &argNames = names[func.getSymName().str()];
    for (const AsmParserState::SMDefinition &argDef : def->arguments) {
      const char *begin = argDef.loc.Start.getPointer();
      const char *end = argDef.loc.End.getPointer();
      StringRef text;
      if (begin && end > begin)
        text = StringRef(begin, end - begin);
      text.consume_front("%");
      argNames.push_back(text.empty() ? std::string() : toIdentifier(text));
    }
  }
  if (failed(verify(*module)))
    return nullptr;
  return module;
}

FailureOr<func::FuncOp> driver::findEntry(ModuleOp module, StringRef name) {
  if (!name.empty()) {
    auto func = module.lookupSymbol<func::FuncOp>(name);
    if (!func || func.isExternal())
      return module.emitError() << "no function '" << name << "' to compile";
    return func;
  }
  SmallVector<func::FuncOp> candidates, steps;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal() || func.isPrivate())
      continue;
    candidates.push_back(func);
    if (func->hasAttr(RematDialect::getTrainingStepAttrName()))
      steps.push_back(func);
  }
  if (steps.size() == 1)
    return steps.front();
  if (steps.empty() && candidates.size() == 1)
    return candidates.front();
  return module.emitError() << "cannot choose the function to compile ("
                            << candidates.size() << " public functions, "
                            << steps.size() << " training steps); use --entry";
}

/// The range [0, n) of integer values an argument can take, from its uses
/// as class labels or embedding indices; 0 if unconstrained.
static int64_t integerRange(BlockArgument arg) {
  int64_t range = 0;
  auto tighten = [&](int64_t n) {
    if (n > 0)
      range = range == 0 ? n : std::min(range, n);
  };
  auto lastDim = [](Value v) {
    auto type = cast<ShapedType>(v.getType());
    return type.getRank() ? type.getShape().back() : int64_t(0);
  };
  for (Operation *user : arg.getUsers()) {
    if (auto op = dyn_cast<SoftmaxCrossEntropyOp>(user)) {
      if (op.getLabels() == arg)
        tighten(lastDim(op.getLogits()));
    } else if (auto op = dyn_cast<SoftmaxCrossEntropyGradOp>(user)) {
      if (op.getLabels() == arg)
        tighten(lastDim(op.getLogits()));
    } else if (auto op = dyn_cast<EmbeddingOp>(user)) {
      if (op.getIndices() == arg)
        tighten(cast<ShapedType>(op.getTable().getType()).getShape().front());
    } else if (auto op = dyn_cast<EmbeddingGradOp>(user)) {
      if (op.getIndices() == arg)
        tighten(op.getResult().getType().getShape().front());
    }
  }
  return range;
}

/// Fills the name, element type and shape of `buffer` from `type`.
static LogicalResult describeType(Type type, BufferInfo &buffer, Location loc) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasStaticShape())
    return emitError(loc) << "the entry point takes and returns statically "
                             "shaped tensors or memrefs only, not "
                          << type;
  Type element = shaped.getElementType();
  if (!element.isIntOrFloat())
    return emitError(loc) << "unsupported element type " << element;
  std::string spelling;
  llvm::raw_string_ostream os(spelling);
  element.print(os);
  buffer.elementType = spelling;
  buffer.shape.assign(shaped.getShape().begin(), shaped.getShape().end());
  buffer.elementBytes = *getElementBytes(element);
  // The header states elements and bytes as int64_t: they must fit.
  std::optional<int64_t> bytes = buffer.elementBytes;
  for (int64_t d : shaped.getShape())
    if (bytes)
      bytes = llvm::checkedMul(*bytes, d);
  if (!bytes)
    return emitError(loc) << "the size in bytes of " << type
                          << " does not fit in 64 bits";
  buffer.bytes = *bytes;
  return success();
}

/// True if `name` is a C or C++ keyword, or a name the header or a C program
/// already gives a meaning (`main`, the header's `remat_`/`REMAT_` names).
static bool isReservedInC(StringRef name) {
  return llvm::StringSwitch<bool>(name)
      .Cases({"auto", "bool", "break", "case", "catch", "char", "class"}, true)
      .Cases({"const", "continue", "default", "delete", "do", "double"}, true)
      .Cases({"else", "enum", "extern", "false", "float", "for", "goto"}, true)
      .Cases({"if", "inline", "int", "long", "namespace", "new"}, true)
      .Cases({"operator", "private", "protected", "public", "register"}, true)
      .Cases({"restrict", "return", "short", "signed", "sizeof", "static"},
             true)
      .Cases({"struct", "switch", "template", "this", "throw", "true", "try"},
             true)
      .Cases({"typedef", "typename", "union", "unsigned", "using", "virtual"},
             true)
      .Cases({"void", "volatile", "while", "main"}, true)
      .Default(name.starts_with("remat_") || name.starts_with("REMAT_") ||
               name.starts_with("__"));
}

LogicalResult driver::describeEntry(func::FuncOp func,
                                    const ArgumentNames &names,
                                    EntryInfo &info) {
  // The entry's name becomes a C function in the header and the object:
  // refuse names a C compiler would reject, instead of writing a header
  // that does not compile.
  StringRef symbol = func.getSymName();
  if (toIdentifier(symbol) != symbol || isReservedInC(symbol))
    return emitError(func.getLoc())
           << "the entry point '@" << symbol
           << "' cannot be compiled: its name becomes a C function in the "
              "header, and it is not a C identifier or is reserved in C ("
              "main, a keyword, or a remat_/REMAT_/__ prefix); rename the "
              "function";
  info.function = symbol.str();
  info.buffers.clear();
  llvm::StringSet<> used;
  auto unique = [&](std::string name) {
    std::string candidate = name;
    for (int i = 1; !used.insert(candidate).second; ++i)
      candidate = name + "_" + std::to_string(i);
    return candidate;
  };

  std::vector<std::string> argNames;
  if (auto it = names.find(info.function); it != names.end())
    argNames = it->second;
  std::vector<int64_t> params;
  for (BlockArgument arg : func.getArguments()) {
    BufferInfo buffer;
    unsigned index = arg.getArgNumber();
    if (failed(describeType(arg.getType(), buffer, func.getLoc())))
      return failure();
    std::string name =
        index < argNames.size() ? argNames[index] : std::string();
    buffer.name = unique(name.empty() ? "arg" + std::to_string(index) : name);
    if (func.getArgAttr(index, RematDialect::getParamAttrName())) {
      buffer.kind = BufferKind::Param;
      params.push_back(index);
    } else if (func.getArgAttr(index, RematDialect::getStateAttrName())) {
      buffer.kind = BufferKind::State;
    } else {
      buffer.kind = BufferKind::Input;
    }
    if (isa<IntegerType>(cast<ShapedType>(arg.getType()).getElementType()))
      buffer.intRange = integerRange(arg);
    info.buffers.push_back(std::move(buffer));
  }
  info.numInputs = func.getNumArguments();

  // A training step returns the loss, one gradient per parameter and then
  // its state results (`remat.state = N`, named after argument N).
  unsigned numState = 0;
  for (unsigned i = 0, e = func.getNumResults(); i < e; ++i)
    numState += static_cast<bool>(
        func.getResultAttr(i, RematDialect::getStateAttrName()));
  bool step = func->hasAttr(RematDialect::getTrainingStepAttrName()) &&
              func.getNumResults() == params.size() + 1 + numState;
  for (auto [index, type] : llvm::enumerate(func.getResultTypes())) {
    BufferInfo buffer;
    buffer.kind = BufferKind::Result;
    if (failed(describeType(type, buffer, func.getLoc())))
      return failure();
    std::string name = "result" + std::to_string(index);
    if (auto state = func.getResultAttrOfType<IntegerAttr>(
            index, RematDialect::getStateAttrName())) {
      buffer.stateOf = state.getInt();
      name = "next_" + info.buffers[buffer.stateOf].name;
    } else if (step && index == 0) {
      name = "loss";
    } else if (step) {
      buffer.gradOf = params[index - 1];
      name = "grad_" + info.buffers[buffer.gradOf].name;
    }
    buffer.name = unique(name);
    info.buffers.push_back(std::move(buffer));
  }
  return success();
}

LogicalResult driver::checkEntrySignature(func::FuncOp func,
                                          const EntryInfo &info) {
  if (func.getNumResults() != 0 ||
      func.getNumArguments() != info.buffers.size())
    return func.emitError() << "expected " << info.buffers.size()
                            << " memref arguments and no results after "
                               "buffer-results-to-out-params, got "
                            << func.getFunctionType();
  for (auto [arg, buffer] : llvm::zip(func.getArguments(), info.buffers)) {
    auto type = dyn_cast<MemRefType>(arg.getType());
    BufferInfo actual;
    if (!type || !type.getLayout().isIdentity() ||
        failed(describeType(type, actual, func.getLoc())) ||
        actual.shape != buffer.shape ||
        actual.elementType != buffer.elementType)
      return func.emitError()
             << "argument " << arg.getArgNumber() << " does not match '"
             << buffer.name << "': " << arg.getType();
  }
  return success();
}
