//===- FuzzSupport.h - shared helpers of the remat fuzz targets -*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Helpers shared by the libFuzzer targets of remat: a reader that turns fuzz
/// bytes into bounded integers, a diagnostic sink that keeps the messages of
/// one input (printed only when a property fails), and `fuzzCheck`, which
/// aborts with a message when a property the target checks does not hold, so
/// that libFuzzer (or the replay driver) records the input as a crash.
///
//===----------------------------------------------------------------------===//

#ifndef REMAT_TOOLS_REMAT_FUZZ_FUZZSUPPORT_H
#define REMAT_TOOLS_REMAT_FUZZ_FUZZSUPPORT_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <string>

namespace remat {
namespace fuzz {

/// Reads bounded values from the fuzz input, front to back; past the end
/// every read returns the smallest value it may return.
class ByteReader {
public:
  ByteReader(const uint8_t *data, size_t size) : data(data), size(size) {}

  /// A byte, 0 past the end.
  uint8_t byte() { return pos < size ? data[pos++] : 0; }
  /// A value in [lo, hi] (inclusive, hi - lo < 2^32).
  uint64_t range(uint64_t lo, uint64_t hi) {
    uint64_t span = hi - lo + 1, value = 0;
    for (uint64_t reach = 1; reach < span && pos < size; reach <<= 8)
      value = (value << 8) | byte();
    return lo + (span ? value % span : value);
  }
  bool flag() { return byte() & 1; }
  bool empty() const { return pos >= size; }

private:
  const uint8_t *data;
  size_t size;
  size_t pos = 0;
};

/// Collects the diagnostics emitted in a context while alive (they would
/// otherwise go to stderr for every rejected input); `fuzzCheck` prints them
/// when a property fails. At most one log is active at a time.
class DiagnosticLog {
public:
  explicit DiagnosticLog(mlir::MLIRContext &context)
      : handler(&context, [this](mlir::Diagnostic &diag) {
          text += diag.str();
          text += "\n";
          return mlir::success();
        }) {
    active() = this;
  }
  ~DiagnosticLog() { active() = nullptr; }
  const std::string &str() const { return text; }
  void clear() { text.clear(); }

  /// The log of the input being run, if any.
  static DiagnosticLog *&active() {
    static DiagnosticLog *log = nullptr;
    return log;
  }

private:
  std::string text;
  mlir::ScopedDiagnosticHandler handler;
};

/// Aborts, printing `what`, `details` and the diagnostics logged for this
/// input, if `holds` is false.
inline void fuzzCheck(bool holds, const llvm::Twine &what,
                      const llvm::Twine &details = "") {
  if (holds)
    return;
  llvm::errs() << "remat-fuzz: property violated: " << what << "\n"
               << details << "\n";
  if (DiagnosticLog *log = DiagnosticLog::active())
    llvm::errs() << "diagnostics of this input:\n" << log->str();
  llvm::errs().flush();
  std::abort();
}

} // namespace fuzz
} // namespace remat

#endif // REMAT_TOOLS_REMAT_FUZZ_FUZZSUPPORT_H
