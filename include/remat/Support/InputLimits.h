//===- InputLimits.h - Limits checked before upstream parsers --*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The upstream JSON and MLIR parsers are recursive descent: every nesting
/// level of a bracket costs stack frames, so a file with 100k nested `[`
/// overflows the stack instead of giving an error. The remat tools scan their
/// input for bracket nesting (and its size) before handing it to a parser,
/// and refuse it with a located error above a limit that real inputs never
/// approach.
///
//===----------------------------------------------------------------------===//

#ifndef REMAT_SUPPORT_INPUTLIMITS_H
#define REMAT_SUPPORT_INPUTLIMITS_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/LogicalResult.h"

#include <cstdint>
#include <optional>

namespace llvm {
class MemoryBuffer;
} // namespace llvm

namespace remat {

/// Default bracket nesting limit of remat-opt, remat-compile and
/// remat-import (the bundled examples and the published graphs nest at most
/// 10 deep; the parsers overflow an 8 MiB stack beyond a few thousand).
constexpr unsigned kDefaultMaxNesting = 512;
/// Default input size limit of the same tools: 1 GiB.
constexpr uint64_t kDefaultMaxInputBytes = uint64_t(1) << 30;

/// The bracket syntax of a text.
enum class NestingSyntax {
  /// `[` `{`; strings in double quotes with backslash escapes.
  JSON,
  /// `(` `[` `{` `<` (`->` is not a bracket); strings in double quotes with
  /// backslash escapes; `//` comments to the end of the line.
  MLIR,
};

/// Returns the offset in `text` of the first opening bracket that reaches
/// nesting depth `maxDepth + 1` (brackets in strings and comments do not
/// count), or std::nullopt if the text nests at most `maxDepth` deep. Linear
/// time and constant stack.
std::optional<size_t> findExcessiveNesting(llvm::StringRef text,
                                           unsigned maxDepth,
                                           NestingSyntax syntax);

/// The limits a tool checks its input against.
struct InputLimits {
  unsigned maxNesting = kDefaultMaxNesting;
  uint64_t maxInputBytes = kDefaultMaxInputBytes;
};

/// The `--max-nesting` and `--max-input-bytes` options of remat-opt,
/// remat-compile and remat-import. The options are registered when an object
/// of this class is constructed: make one static object per tool, before the
/// command line is parsed.
class InputLimitOptions {
public:
  /// `syntax` is the syntax of the tool's input; it only selects the wording
  /// of the help text. The options are listed in `--help` under `category`.
  explicit InputLimitOptions(
      NestingSyntax syntax,
      llvm::cl::OptionCategory &category = llvm::cl::getGeneralCategory());

  /// The limits given on the command line (or the defaults).
  InputLimits get() const { return {maxNesting, maxInputBytes}; }

private:
  llvm::cl::opt<unsigned> maxNesting;
  llvm::cl::opt<uint64_t> maxInputBytes;
};

/// Checks an MLIR input file before it is parsed. A file larger than
/// `limits.maxInputBytes` is reported as "<file>: the input has N bytes, more
/// than the limit of L (--max-input-bytes)" through `emitError`; brackets that
/// nest deeper than `limits.maxNesting` as an error located at the first
/// bracket too deep, printed to llvm::errs(). Returns failure after either.
llvm::LogicalResult
checkMLIRInputLimits(const llvm::MemoryBuffer &input, const InputLimits &limits,
                     llvm::function_ref<void(const llvm::Twine &)> emitError);

} // namespace remat

#endif // REMAT_SUPPORT_INPUTLIMITS_H
