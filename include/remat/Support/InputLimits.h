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

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

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

} // namespace remat

#endif // REMAT_SUPPORT_INPUTLIMITS_H
