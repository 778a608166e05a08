//===- AtomicOutput.h - Output files replaced only on success --*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The remat tools write every output to a temporary file beside it and
/// rename it over the destination only when the whole run succeeded: a failed
/// run leaves an existing file untouched (llvm::ToolOutputFile truncates it
/// first and deletes it on failure), and a tool writing several files
/// (remat-compile's object and header) commits them together, so a new
/// object never sits beside a stale header.
///
//===----------------------------------------------------------------------===//

#ifndef REMAT_SUPPORT_ATOMICOUTPUT_H
#define REMAT_SUPPORT_ATOMICOUTPUT_H

#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <optional>
#include <string>

namespace remat {

/// One output file. "-" is standard output; an existing file that is not a
/// regular file (/dev/null, a pipe) is written directly, since it cannot be
/// replaced by a rename.
class AtomicOutput {
public:
  /// Opens a temporary file beside `path` (or stdout / the special file).
  static llvm::Expected<std::unique_ptr<AtomicOutput>>
  create(llvm::StringRef path);
  AtomicOutput(const AtomicOutput &) = delete;
  AtomicOutput &operator=(const AtomicOutput &) = delete;
  /// Removes the temporary file unless it was committed.
  ~AtomicOutput();

  llvm::raw_ostream &os() { return *stream; }
  /// Flushes and renames the temporary file over the destination.
  llvm::Error commit();

private:
  AtomicOutput() = default;

  std::string path;
  std::optional<llvm::sys::fs::TempFile> temp;
  std::unique_ptr<llvm::raw_fd_ostream> owned;
  llvm::raw_ostream *stream = nullptr;
};

} // namespace remat

#endif // REMAT_SUPPORT_ATOMICOUTPUT_H
