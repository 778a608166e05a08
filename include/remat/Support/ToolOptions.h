//===- ToolOptions.h - Command-line help of the remat tools -----*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The remat tools link libLLVM and libMLIR, whose static initializers
/// register several hundred command-line options for LLVM's own tools
/// (AMDGPU, ARM, profiling, ...). Left alone, `--help` lists all of them
/// and the tool's own options are lost among them. Each tool puts its
/// options in its own category and calls `hideForeignOptions` before
/// parsing: the foreign options stay accepted and are listed by
/// `--help-hidden`. LLVM's `cl::HideUnrelatedOptions` is not used: it makes
/// them ReallyHidden (absent from `--help-hidden` too) and would hide MLIR's
/// `--mlir-*` options and `--color` as well.
///
//===----------------------------------------------------------------------===//

#ifndef REMAT_SUPPORT_TOOLOPTIONS_H
#define REMAT_SUPPORT_TOOLOPTIONS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/CommandLine.h"

namespace remat {

/// Hides from `--help` every registered option that belongs to none of
/// `toolCategories` nor to the categories of `--help`, `--version` and
/// `--color`, except, with `keepMLIROptions`, MLIR's own `--mlir-*` options
/// (IR printing, timing, diagnostics), which a tool that runs MLIR passes
/// documents too. Hidden options are still accepted and listed by
/// `--help-hidden`.
void hideForeignOptions(
    llvm::ArrayRef<const llvm::cl::OptionCategory *> toolCategories,
    bool keepMLIROptions);

} // namespace remat

#endif // REMAT_SUPPORT_TOOLOPTIONS_H
