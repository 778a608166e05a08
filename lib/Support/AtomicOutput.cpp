//===- AtomicOutput.cpp - Output files replaced only on success -----------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Support/AtomicOutput.h"

using namespace remat;
namespace fs = llvm::sys::fs;

llvm::Expected<std::unique_ptr<AtomicOutput>>
AtomicOutput::create(llvm::StringRef path) {
  std::unique_ptr<AtomicOutput> out(new AtomicOutput());
  out->path = path.str();
  if (path == "-") {
    out->stream = &llvm::outs();
    return std::move(out);
  }
  fs::file_status status;
  if (!fs::status(path, status) && fs::exists(status) &&
      status.type() != fs::file_type::regular_file) {
    std::error_code error;
    out->owned = std::make_unique<llvm::raw_fd_ostream>(path, error);
    if (error)
      return llvm::createFileError(path, error);
    out->stream = out->owned.get();
    return std::move(out);
  }
  llvm::Expected<fs::TempFile> temp =
      fs::TempFile::create(path + ".tmp-%%%%%%%%");
  if (!temp)
    return llvm::createFileError(path, temp.takeError());
  out->temp.emplace(std::move(*temp));
  out->owned = std::make_unique<llvm::raw_fd_ostream>(out->temp->FD,
                                                      /*shouldClose=*/false);
  out->stream = out->owned.get();
  return std::move(out);
}

AtomicOutput::~AtomicOutput() {
  if (temp)
    llvm::consumeError(temp->discard());
}

llvm::Error AtomicOutput::commit() {
  stream->flush();
  if (owned && owned->has_error()) {
    std::error_code error = owned->error();
    owned->clear_error();
    return llvm::createFileError(path, error);
  }
  if (!temp)
    return llvm::Error::success();
  owned.reset();
  llvm::Error error = temp->keep(path);
  temp.reset();
  if (error)
    return llvm::createFileError(path, std::move(error));
  return llvm::Error::success();
}
