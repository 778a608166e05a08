//===- ToolOptions.cpp - Command-line help of the remat tools -------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Support/ToolOptions.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"

using namespace remat;
namespace cl = llvm::cl;

void remat::hideForeignOptions(
    llvm::ArrayRef<const cl::OptionCategory *> toolCategories,
    bool keepMLIROptions) {
  auto &options = cl::getRegisteredOptions();
  // The categories that stay listed: the tool's, and those of LLVM's own
  // `--help` and `--color` (Generic and Color options).
  llvm::SmallVector<const cl::OptionCategory *> kept(toolCategories.begin(),
                                                     toolCategories.end());
  for (llvm::StringRef name : {"help", "color"})
    if (cl::Option *option = options.lookup(name))
      kept.append(option->Categories.begin(), option->Categories.end());
  for (const auto &entry : options) {
    cl::Option *option = entry.second;
    if (llvm::any_of(option->Categories, [&](const cl::OptionCategory *cat) {
          return llvm::is_contained(kept, cat);
        }))
      continue;
    if (keepMLIROptions && entry.first.starts_with("mlir-"))
      continue;
    if (option->getOptionHiddenFlag() == cl::NotHidden)
      option->setHiddenFlag(cl::Hidden);
  }
}
