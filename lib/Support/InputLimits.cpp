//===- InputLimits.cpp - Limits checked before upstream parsers -----------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Support/InputLimits.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

using namespace remat;
namespace cl = llvm::cl;

InputLimitOptions::InputLimitOptions(NestingSyntax syntax,
                                     cl::OptionCategory &category)
    : maxNesting("max-nesting",
                 cl::desc(syntax == NestingSyntax::MLIR
                              ? "Refuse input whose brackets ((, [, {, <) nest "
                                "deeper (checked before the MLIR parser, "
                                "which would run out of stack)"
                              : "Refuse files whose brackets nest deeper "
                                "(checked before the JSON parser, which "
                                "would run out of stack)"),
                 cl::init(kDefaultMaxNesting), cl::cat(category)),
      maxInputBytes("max-input-bytes",
                    cl::desc("Refuse input files larger than this (bytes)"),
                    cl::init(kDefaultMaxInputBytes), cl::cat(category)) {}

llvm::LogicalResult remat::checkMLIRInputLimits(
    const llvm::MemoryBuffer &input, const InputLimits &limits,
    llvm::function_ref<void(const llvm::Twine &)> emitError) {
  llvm::StringRef text = input.getBuffer();
  if (text.size() > limits.maxInputBytes) {
    emitError(input.getBufferIdentifier() + ": the input has " +
              llvm::Twine(text.size()) + " bytes, more than the limit of " +
              llvm::Twine(limits.maxInputBytes) + " (--max-input-bytes)");
    return llvm::failure();
  }
  std::optional<size_t> at =
      findExcessiveNesting(text, limits.maxNesting, NestingSyntax::MLIR);
  if (!at)
    return llvm::success();
  // A source manager over a view of the buffer, only to locate the error.
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(text, input.getBufferIdentifier(),
                                       /*RequiresNullTerminator=*/false),
      llvm::SMLoc());
  sourceMgr.PrintMessage(
      llvm::errs(), llvm::SMLoc::getFromPointer(text.data() + *at),
      llvm::SourceMgr::DK_Error,
      "brackets nest deeper than " + llvm::Twine(limits.maxNesting) +
          " levels (--max-nesting)");
  return llvm::failure();
}

std::optional<size_t> remat::findExcessiveNesting(llvm::StringRef text,
                                                  unsigned maxDepth,
                                                  NestingSyntax syntax) {
  bool mlir = syntax == NestingSyntax::MLIR;
  uint64_t depth = 0;
  for (size_t i = 0, e = text.size(); i < e; ++i) {
    char c = text[i];
    switch (c) {
    case '"':
      // Skip the string; an unterminated one is the parser's error.
      for (++i; i < e && text[i] != '"'; ++i)
        if (text[i] == '\\')
          ++i;
      break;
    case '/':
      if (mlir && i + 1 < e && text[i + 1] == '/')
        while (i < e && text[i] != '\n')
          ++i;
      break;
    case '-':
      if (mlir && i + 1 < e && text[i + 1] == '>')
        ++i;
      break;
    case '(':
    case '<':
      if (!mlir)
        break;
      [[fallthrough]];
    case '[':
    case '{':
      if (++depth > maxDepth)
        return i;
      break;
    case ')':
    case '>':
      if (!mlir)
        break;
      [[fallthrough]];
    case ']':
    case '}':
      // Unbalanced closers are the parser's error; never go below zero.
      if (depth > 0)
        --depth;
      break;
    default:
      break;
    }
  }
  return std::nullopt;
}
