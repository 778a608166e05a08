//===- InputLimits.cpp - Limits checked before upstream parsers -----------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Support/InputLimits.h"

using namespace remat;

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
