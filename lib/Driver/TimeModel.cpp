//===- TimeModel.cpp - op times from a calibration table ------------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Driver/TimeModel.h"

#include "remat/Dialect/Remat/IR/RematOps.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cmath>

using namespace mlir;
using namespace remat;
using namespace remat::driver;

static constexpr const char *kClassNames[kNumOpClasses] = {
    "gemm",        "conv",    "conv_grad", "grouped_conv",
    "elementwise", "exp_log", "tanh",      "reduction"};

StringRef driver::getOpClassName(OpClass opClass) {
  return kClassNames[static_cast<size_t>(opClass)];
}

bool driver::isSizedByFlops(OpClass opClass) {
  return opClass == OpClass::Gemm || opClass == OpClass::Conv ||
         opClass == OpClass::ConvGrad || opClass == OpClass::GroupedConv;
}

std::optional<OpClass> driver::classifyOp(Operation *op) {
  if (isa<MatmulOp>(op))
    return OpClass::Gemm;
  // The forward apart from the gradients: recomputation runs forward
  // convolutions only, which run faster per flop than the gradients at the
  // same shape (bench/calibrate_time.py).
  auto convClass = [](int64_t groups, OpClass oneGroup) {
    return groups > 1 ? OpClass::GroupedConv : oneGroup;
  };
  if (auto conv = dyn_cast<Conv2DOp>(op))
    return convClass(conv.getGroups(), OpClass::Conv);
  if (auto conv = dyn_cast<Conv2DInputGradOp>(op))
    return convClass(conv.getGroups(), OpClass::ConvGrad);
  if (auto conv = dyn_cast<Conv2DFilterGradOp>(op))
    return convClass(conv.getGroups(), OpClass::ConvGrad);
  // LLVM lowers a vector tanh to one libm call per lane: about 6x the time
  // of an exp per element on this machine (bench/calibrate_time.py).
  if (isa<GeluOp, TanhOp, GeluGradOp>(op))
    return OpClass::Tanh;
  if (isa<GeluErfOp, SigmoidOp, ExpOp, LogOp, GeluErfGradOp>(op))
    return OpClass::ExpLog;
  if (isa<SoftmaxOp, LogSoftmaxOp, SoftmaxGradOp, LogSoftmaxGradOp, LayerNormOp,
          BatchNormOp, LayerNormGradOp, BatchNormGradOp, MaxPool2DOp,
          AvgPool2DOp, MaxPool2DGradOp, AvgPool2DGradOp, GlobalAvgPoolOp,
          GlobalAvgPoolGradOp, SumToOp, EmbeddingGradOp, SoftmaxCrossEntropyOp,
          SoftmaxCrossEntropyGradOp, MseOp, MseGradOp>(op))
    return OpClass::Reduction;
  // tanh_grad and sigmoid_grad read the forward result (1 - y^2, y (1 - y));
  // dropout's mask is an integer hash.
  if (isa<AddOp, SubOp, MulOp, DivOp, ReluOp, Relu6Op, NegOp, ReluGradOp,
          Relu6GradOp, TanhGradOp, SigmoidGradOp, DropoutOp, TransposeOp,
          ConcatOp, SliceOp, SliceGradOp, BroadcastToOp, EmbeddingOp>(op))
    return OpClass::Elementwise;
  // remat.reshape (a view), keep, yield, recompute (its body is costed op by
  // op), opaque (no code), constants and other dialects.
  return std::nullopt;
}

double ThroughputCurve::rateAt(double size) const {
  if (points.empty())
    return 0;
  if (size <= points.front().first)
    return points.front().second;
  if (size >= points.back().first)
    return points.back().second;
  // The first point above `size`; its predecessor is at or below it.
  auto upper = llvm::upper_bound(
      points, size, [](double s, const std::pair<double, double> &point) {
        return s < point.first;
      });
  const auto &hi = *upper;
  const auto &lo = *std::prev(upper);
  double t = (std::log2(size) - std::log2(lo.first)) /
             (std::log2(hi.first) - std::log2(lo.first));
  return lo.second + t * (hi.second - lo.second);
}

double CalibratedTimeModel::seconds(OpClass opClass, double size) const {
  if (size <= 0)
    return 0;
  double rate = curves[static_cast<size_t>(opClass)].rateAt(size);
  return rate > 0 ? size / rate : 0;
}

static llvm::Error makeError(StringRef source, const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 (source + ": " + message).str());
}

/// One class's points: an array of [size, rate] pairs, both positive and
/// finite, sizes strictly increasing.
static llvm::Error parseCurve(const llvm::json::Value *value, StringRef name,
                              StringRef source, ThroughputCurve &curve) {
  std::string where = ("classes." + name).str();
  if (!value)
    return makeError(source, "no class '" + where +
                                 "' (every class needs its measured points)");
  const llvm::json::Array *array = value->getAsArray();
  if (!array || array->empty())
    return makeError(source, where + ": expected a non-empty array of "
                                     "[size, rate] pairs");
  for (auto [index, element] : llvm::enumerate(*array)) {
    std::string at = llvm::formatv("{0}[{1}]", where, index).str();
    const llvm::json::Array *pair = element.getAsArray();
    std::optional<double> size, rate;
    if (pair && pair->size() == 2) {
      size = (*pair)[0].getAsNumber();
      rate = (*pair)[1].getAsNumber();
    }
    if (!size || !rate)
      return makeError(source, at + ": expected [size, rate], two numbers");
    if (!(*size > 0) || !(*rate > 0) || !std::isfinite(*size) ||
        !std::isfinite(*rate))
      return makeError(source,
                       at + ": size and rate must be positive and finite");
    if (!curve.points.empty() && *size <= curve.points.back().first)
      return makeError(source, at + ": sizes must increase");
    curve.points.emplace_back(*size, *rate);
  }
  return llvm::Error::success();
}

llvm::Expected<CalibratedTimeModel> driver::parseTimeModel(StringRef json,
                                                           StringRef source) {
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(json);
  if (!parsed)
    return makeError(source, llvm::toString(parsed.takeError()));
  const llvm::json::Object *root = parsed->getAsObject();
  if (!root)
    return makeError(source, "expected a JSON object");
  std::optional<StringRef> format = root->getString("format");
  if (!format || *format != "remat-time-model-1")
    return makeError(source, "'format' must be \"remat-time-model-1\"");
  const llvm::json::Object *classes = root->getObject("classes");
  if (!classes)
    return makeError(source, "no object 'classes'");
  CalibratedTimeModel model;
  model.source = source.str();
  for (size_t i = 0; i < kNumOpClasses; ++i)
    if (llvm::Error error = parseCurve(classes->get(kClassNames[i]),
                                       kClassNames[i], source, model.curves[i]))
      return std::move(error);
  for (const auto &entry : *classes)
    if (!llvm::is_contained(kClassNames, entry.first.str()))
      return makeError(source,
                       "unknown class 'classes." + entry.first.str() + "'");
  return model;
}

llvm::Expected<CalibratedTimeModel> driver::loadTimeModel(StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return makeError(path, "cannot read the time model: " +
                               buffer.getError().message());
  return parseTimeModel((*buffer)->getBuffer(), path);
}
