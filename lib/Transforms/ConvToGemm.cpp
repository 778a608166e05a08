//===- ConvToGemm.cpp - convolutions as im2col, GEMM and col2im ----------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// --remat-conv-to-gemm: the convolutions that remat-linalg-to-blas would
// send to the runtime (ConvToBlas.h: forward, input gradient, filter
// gradient) become, in chunks of images, an im2col copy into a column
// buffer, linalg.batch_matmul / linalg.matmul ops on views of it and, for
// the input gradient, a col2im gather. On the CUDA path without cuDNN the
// copies become kernels and the matmuls cuBLAS calls (remat-linalg-to-blas
// target=cuda). The column buffer is a memref.alloc planned into the arena.
//
// Shapes (row-major, g the group): x [N, G, C, H, W] (padded), w
// [G, F, C, KH, KW], y [N, G, F, OH, OW]; four-dimensional operands of the
// ungrouped named convolution get a unit group dimension. The column buffer
// of a chunk of Nc images from image n0 is col [G, C, KH, KW, Nc, OH, OW],
// per group a (C KH KW) x (Nc OH OW) matrix:
//   col[g, c, kh, kw, n, oh, ow] =
//       x[n0 + n, g, c, oh sh + kh dh, ow sw + kw dw]
//
//===----------------------------------------------------------------------===//

#include "ConvToBlas.h"

#include "remat/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/Builders.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

namespace remat {
#define GEN_PASS_DEF_REMATCONVTOGEMM
#include "remat/Transforms/Passes.h.inc"
} // namespace remat

using namespace mlir;
using namespace remat;

namespace {

/// The sizes of a matched convolution (ConvMatch::sizes, by name).
struct Sizes {
  int64_t n, g, c, h, w, f, kh, kw, oh, ow, sh, sw, dh, dw;

  explicit Sizes(const std::array<int64_t, 14> &s)
      : n(s[0]), g(s[1]), c(s[2]), h(s[3]), w(s[4]), f(s[5]), kh(s[6]),
        kw(s[7]), oh(s[8]), ow(s[9]), sh(s[10]), sw(s[11]), dh(s[12]),
        dw(s[13]) {}
  /// Rows of the column matrix: C KH KW.
  int64_t rows() const { return c * kh * kw; }
  /// Output pixels per image: OH OW.
  int64_t pixels() const { return oh * ow; }
  /// A 1x1, stride-1 convolution of the whole (padded) input: the column
  /// matrix of image n and group g is x[n, g] itself (C x H W).
  bool pointwise() const {
    return kh == 1 && kw == 1 && sh == 1 && sw == 1 && oh == h && ow == w;
  }
};

/// The images per chunk: one when there are groups (the GEMMs are then
/// batched over the groups); else the largest divisor of N whose column
/// buffer stays within `maxBytes` (at least one image). A function of the
/// shapes only, so the order of every sum is too.
int64_t imagesPerChunk(const Sizes &s, int64_t maxBytes) {
  if (s.g != 1)
    return 1;
  int64_t perImage = std::max<int64_t>(s.rows() * s.pixels() * 4, 1);
  for (int64_t d = s.n; d > 1; --d)
    if (s.n % d == 0 && d <= maxBytes / perImage)
      return d;
  return 1;
}

/// Whether the column buffer of one image has fewer than 2^31 elements (so
/// its GEMM sizes fit an int and remat-linalg-to-blas takes the matmuls).
/// rows() and pixels() are each below 2^31 (matchConvolution), so their
/// product does not overflow.
bool columnsFit(const Sizes &s) {
  int64_t elements;
  return !llvm::MulOverflow(s.rows() * s.pixels(), s.g, elements) &&
         elements <= std::numeric_limits<int32_t>::max();
}

/// Builds the replacement of one convolution in front of it.
class Lowering {
public:
  Lowering(Operation *op, const Sizes &s, int64_t chunk)
      : b(op), loc(op->getLoc()), s(s), chunk(chunk) {}

  void forward(Value x, Value w, Value y);
  void inputGrad(Value w, Value dy, Value dx);
  void filterGrad(Value x, Value dy, Value gw);

private:
  /// An activation operand ([N, C, H, W] or [N, G, C, H, W]) as rank 5.
  Value activation(Value v, int64_t channels, int64_t height, int64_t width) {
    if (cast<MemRefType>(v.getType()).getRank() == 5)
      return v;
    return memref::ExpandShapeOp::create(
        b, loc, ArrayRef<int64_t>{s.n, 1, channels, height, width}, v,
        ArrayRef<ReassociationIndices>{{0}, {1, 2}, {3}, {4}});
  }
  /// A filter operand ([F, C, KH, KW] or [G, F, C, KH, KW]) as
  /// [G, F, C KH KW].
  Value filter(Value v) {
    if (cast<MemRefType>(v.getType()).getRank() == 4)
      v = memref::ExpandShapeOp::create(
          b, loc, ArrayRef<int64_t>{1, s.f, s.c, s.kh, s.kw}, v,
          ArrayRef<ReassociationIndices>{{0, 1}, {2}, {3}, {4}});
    return collapse(v, {{0}, {1}, {2, 3, 4}});
  }
  Value collapse(Value v, ArrayRef<ReassociationIndices> groups) {
    return memref::CollapseShapeOp::create(b, loc, v, groups);
  }
  /// The unit-stride subview of `v` at `offsets` of `sizes`, with the unit
  /// dimensions that `shape` leaves out dropped.
  Value view(Value v, ArrayRef<int64_t> offsets, ArrayRef<int64_t> sizes,
             ArrayRef<int64_t> shape) {
    auto type = cast<MemRefType>(v.getType());
    SmallVector<int64_t> strides(sizes.size(), 1);
    MemRefType result = memref::SubViewOp::inferRankReducedResultType(
        shape, type, offsets, sizes, strides);
    return memref::SubViewOp::create(b, loc, result, v, offsets, sizes,
                                     strides);
  }
  /// Images [n0, n0 + chunk) of a rank-5 activation.
  Value images(Value v, int64_t n0) {
    ArrayRef<int64_t> shape = cast<MemRefType>(v.getType()).getShape();
    return view(v, {n0, 0, 0, 0, 0},
                {chunk, shape[1], shape[2], shape[3], shape[4]},
                {chunk, shape[1], shape[2], shape[3], shape[4]});
  }
  /// The column buffer [G, C, KH, KW, chunk, OH, OW].
  Value allocColumns() {
    auto type = MemRefType::get({s.g, s.c, s.kh, s.kw, chunk, s.oh, s.ow},
                                b.getF32Type());
    return memref::AllocOp::create(b, loc, type, b.getI64IntegerAttr(64));
  }
  /// col = the windows of `x` (the chunk's images, rank 5).
  void im2col(Value x, Value col);
  /// dx (the chunk's images, rank 5) += the windows' sums of col.
  void col2im(Value col, Value dx);
  /// The column buffer as [G, C KH KW, chunk, OH OW].
  Value matrices(Value col) {
    return collapse(col, {{0}, {1, 2, 3}, {4}, {5, 6}});
  }
  /// One matmul (`batched`: linalg.batch_matmul, loops b, m, n, k; else
  /// linalg.matmul, loops m, n, k) with the given operand maps.
  void matmul(bool batched, Value lhs, AffineMap lhsMap, Value rhs,
              AffineMap rhsMap, Value out, AffineMap outMap) {
    Operation *op;
    if (batched)
      op = linalg::BatchMatmulOp::create(b, loc, ValueRange{lhs, rhs},
                                         ValueRange{out});
    else
      op = linalg::MatmulOp::create(b, loc, ValueRange{lhs, rhs},
                                    ValueRange{out});
    op->setAttr("indexing_maps",
                b.getAffineMapArrayAttr({lhsMap, rhsMap, outMap}));
  }
  /// The first group's matrix of `filters` ([G, F, CKK]) repeated `count`
  /// times: [count, F, CKK] with a batch stride of 0.
  Value broadcast(Value filters, int64_t count) {
    auto type = cast<MemRefType>(filters.getType());
    Value offset =
        memref::ExtractStridedMetadataOp::create(b, loc, filters).getOffset();
    auto layout = StridedLayoutAttr::get(b.getContext(), ShapedType::kDynamic,
                                         {0, s.rows(), 1});
    auto result =
        MemRefType::get({count, s.f, s.rows()}, type.getElementType(), layout);
    return memref::ReinterpretCastOp::create(
        b, loc, result, filters, OpFoldResult(offset),
        ArrayRef<OpFoldResult>{b.getIndexAttr(count), b.getIndexAttr(s.f),
                               b.getIndexAttr(s.rows())},
        ArrayRef<OpFoldResult>{b.getIndexAttr(0), b.getIndexAttr(s.rows()),
                               b.getIndexAttr(1)});
  }
  /// An affine map of `count` loops onto the dimensions `dims`.
  AffineMap map(unsigned count, ArrayRef<unsigned> dims) {
    SmallVector<AffineExpr> results;
    for (unsigned d : dims)
      results.push_back(b.getAffineDimExpr(d));
    return AffineMap::get(count, 0, results, b.getContext());
  }

  OpBuilder b;
  Location loc;
  Sizes s;
  int64_t chunk;
};

void Lowering::im2col(Value x, Value col) {
  // Loops (g, c, kh, kw, n, oh, ow) over col.
  MLIRContext *ctx = b.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  AffineMap in = AffineMap::get(
      7, 0,
      {d(4), d(0), d(1), d(5) * s.sh + d(2) * s.dh, d(6) * s.sw + d(3) * s.dw},
      ctx);
  SmallVector<utils::IteratorType> parallel(7, utils::IteratorType::parallel);
  linalg::GenericOp::create(
      b, loc, TypeRange{}, ValueRange{x}, ValueRange{col},
      ArrayRef<AffineMap>{in, AffineMap::getMultiDimIdentityMap(7, ctx)},
      parallel, [](OpBuilder &nested, Location l, ValueRange args) {
        linalg::YieldOp::create(nested, l, args[0]);
      });
}

void Lowering::col2im(Value col, Value dx) {
  // One thread per element (n, g, c, y, x) of dx: the terms
  // col[g, c, kh, kw, n, oh, ow] with oh sh + kh dh = y and ow sw + kw dw = x,
  // kh then kw ascending, added to dx one after the other.
  MLIRContext *ctx = b.getContext();
  SmallVector<utils::IteratorType> parallel(5, utils::IteratorType::parallel);
  const Sizes sz = s;
  linalg::GenericOp::create(
      b, loc, TypeRange{}, ValueRange{}, ValueRange{dx},
      ArrayRef<AffineMap>{AffineMap::getMultiDimIdentityMap(5, ctx)}, parallel,
      [col, sz](OpBuilder &nb, Location l, ValueRange args) {
        auto constant = [&](int64_t v) {
          return arith::ConstantIndexOp::create(nb, l, v).getResult();
        };
        Value n = linalg::IndexOp::create(nb, l, 0);
        Value g = linalg::IndexOp::create(nb, l, 1);
        Value c = linalg::IndexOp::create(nb, l, 2);
        Value y = linalg::IndexOp::create(nb, l, 3);
        Value x = linalg::IndexOp::create(nb, l, 4);
        Value zero = constant(0), one = constant(1);
        // The output row (column) that kernel row kh (column kw) reaches
        // from y (x), and whether there is one.
        auto source = [&](OpBuilder &ob, Value pos, Value k, int64_t dilation,
                          int64_t stride, int64_t size) {
          Value t = arith::SubIOp::create(
              ob, l, pos, arith::MulIOp::create(ob, l, k, constant(dilation)));
          Value q = arith::DivSIOp::create(ob, l, t, constant(stride));
          Value r = arith::RemSIOp::create(ob, l, t, constant(stride));
          Value ok = arith::AndIOp::create(
              ob, l,
              arith::CmpIOp::create(ob, l, arith::CmpIPredicate::sge, t, zero),
              arith::CmpIOp::create(ob, l, arith::CmpIPredicate::eq, r, zero));
          ok = arith::AndIOp::create(
              ob, l, ok,
              arith::CmpIOp::create(ob, l, arith::CmpIPredicate::slt, q,
                                    constant(size)));
          return std::make_pair(q, ok);
        };
        auto rows = scf::ForOp::create(
            nb, l, zero, constant(sz.kh), one, ValueRange{args[0]},
            [&](OpBuilder &rb, Location rl, Value kh, ValueRange rowAcc) {
              auto [oh, rowOk] = source(rb, y, kh, sz.dh, sz.sh, sz.oh);
              auto cols = scf::ForOp::create(
                  rb, rl, zero, constant(sz.kw), one, rowAcc,
                  [&](OpBuilder &cb, Location cl, Value kw, ValueRange acc) {
                    auto [ow, colOk] = source(cb, x, kw, sz.dw, sz.sw, sz.ow);
                    Value ok = arith::AndIOp::create(cb, cl, rowOk, colOk);
                    auto add = scf::IfOp::create(
                        cb, cl, ok,
                        [&](OpBuilder &tb, Location tl) {
                          Value term = memref::LoadOp::create(
                              tb, tl, col, ValueRange{g, c, kh, kw, n, oh, ow});
                          scf::YieldOp::create(tb, tl,
                                               ValueRange{arith::AddFOp::create(
                                                   tb, tl, acc[0], term)});
                        },
                        [&](OpBuilder &eb, Location el) {
                          scf::YieldOp::create(eb, el, acc);
                        });
                    scf::YieldOp::create(cb, cl, add.getResults());
                  });
              scf::YieldOp::create(rb, rl, cols.getResults());
            });
        linalg::YieldOp::create(nb, l, rows.getResults());
      });
}

void Lowering::forward(Value x, Value w, Value y) {
  x = activation(x, s.c, s.h, s.w);
  y = activation(y, s.f, s.oh, s.ow);
  Value filters = filter(w); // [G, F, CKK]
  // A pointwise convolution multiplies the input itself: no column buffer.
  bool direct = s.pointwise();
  Value col, cols, pixels;
  if (direct)
    pixels = collapse(x, {{0}, {1}, {2}, {3, 4}}); // [N, G, C, P]
  else
    cols = matrices(col = allocColumns()); // [G, CKK, chunk, P]
  // [N, G, F, P]
  Value out = collapse(y, {{0}, {1}, {2}, {3, 4}});
  int64_t ckk = s.rows(), p = s.pixels();
  for (int64_t n0 = 0; n0 < s.n; n0 += chunk) {
    if (!direct)
      im2col(images(x, n0), col);
    if (chunk == 1) {
      // y[n0, g] (F x P) += w[g] (F x CKK) col[g] (CKK x P), batched over g.
      matmul(true, filters, map(4, {0, 1, 3}),
             direct
                 ? view(pixels, {n0, 0, 0, 0}, {1, s.g, ckk, p}, {s.g, ckk, p})
                 : view(cols, {0, 0, 0, 0}, {s.g, ckk, 1, p}, {s.g, ckk, p}),
             map(4, {0, 3, 2}),
             view(out, {n0, 0, 0, 0}, {1, s.g, s.f, p}, {s.g, s.f, p}),
             map(4, {0, 1, 2}));
      continue;
    }
    // One group: y[n0 + i] (F x P) += w (F x CKK) col[:, i, :] (CKK x P),
    // batched over the chunk's images i (w broadcast).
    Value perImage =
        direct
            ? view(pixels, {n0, 0, 0, 0}, {chunk, 1, ckk, p}, {chunk, ckk, p})
            : memref::TransposeOp::create(
                  b, loc,
                  view(cols, {0, 0, 0, 0}, {1, ckk, chunk, p}, {ckk, chunk, p}),
                  AffineMapAttr::get(AffineMap::getPermutationMap(
                      ArrayRef<unsigned>{1, 0, 2}, b.getContext())))
                  .getResult();
    matmul(true, view(filters, {0, 0, 0}, {1, s.f, ckk}, {s.f, ckk}),
           map(4, {1, 3}), perImage, map(4, {0, 3, 2}),
           view(out, {n0, 0, 0, 0}, {chunk, 1, s.f, p}, {chunk, s.f, p}),
           map(4, {0, 1, 2}));
  }
  if (col)
    memref::DeallocOp::create(b, loc, col);
}

void Lowering::inputGrad(Value w, Value dy, Value dx) {
  dx = activation(dx, s.c, s.h, s.w);
  dy = activation(dy, s.f, s.oh, s.ow);
  Value filters = filter(w); // [G, F, CKK]
  // A pointwise convolution multiplies straight into dx: no column buffer,
  // no col2im.
  bool direct = s.pointwise();
  Value col, cols, pixels;
  if (direct)
    pixels = collapse(dx, {{0}, {1}, {2}, {3, 4}}); // [N, G, C, P]
  else
    cols = matrices(col = allocColumns()); // [G, CKK, chunk, P]
  // [N, G, F, P]
  Value grad = collapse(dy, {{0}, {1}, {2}, {3, 4}});
  int64_t ckk = s.rows(), p = s.pixels();
  Value zero;
  if (!direct)
    zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
  for (int64_t n0 = 0; n0 < s.n; n0 += chunk) {
    // The matmuls add to col: it starts at zero.
    if (!direct)
      linalg::FillOp::create(b, loc, ValueRange{zero}, ValueRange{col});
    if (chunk == 1) {
      // col[g] (CKK x P) += w[g]^T (CKK x F) dy[n0, g] (F x P), over g.
      matmul(true, filters, map(4, {0, 3, 1}),
             view(grad, {n0, 0, 0, 0}, {1, s.g, s.f, p}, {s.g, s.f, p}),
             map(4, {0, 3, 2}),
             direct
                 ? view(pixels, {n0, 0, 0, 0}, {1, s.g, ckk, p}, {s.g, ckk, p})
                 : view(cols, {0, 0, 0, 0}, {s.g, ckk, 1, p}, {s.g, ckk, p}),
             map(4, {0, 1, 2}));
    } else {
      // One group: col[:, i, :] += w^T dy[n0 + i], over the images i.
      Value perImage =
          direct
              ? view(pixels, {n0, 0, 0, 0}, {chunk, 1, ckk, p}, {chunk, ckk, p})
              : memref::TransposeOp::create(
                    b, loc,
                    view(cols, {0, 0, 0, 0}, {1, ckk, chunk, p},
                         {ckk, chunk, p}),
                    AffineMapAttr::get(AffineMap::getPermutationMap(
                        ArrayRef<unsigned>{1, 0, 2}, b.getContext())))
                    .getResult();
      // linalg.batch_matmul has no transposed broadcast operand: w is
      // given a batch dimension of stride 0.
      matmul(true, broadcast(filters, chunk), map(4, {0, 3, 1}),
             view(grad, {n0, 0, 0, 0}, {chunk, 1, s.f, p}, {chunk, s.f, p}),
             map(4, {0, 3, 2}), perImage, map(4, {0, 1, 2}));
    }
    if (!direct)
      col2im(col, images(dx, n0));
  }
  if (col)
    memref::DeallocOp::create(b, loc, col);
}

void Lowering::filterGrad(Value x, Value dy, Value gw) {
  x = activation(x, s.c, s.h, s.w);
  dy = activation(dy, s.f, s.oh, s.ow);
  Value filters = filter(gw); // [G, F, CKK]
  Value col = allocColumns();
  Value cols = matrices(col); // [G, CKK, chunk, P]
  // [N, G, F, P]
  Value grad = collapse(dy, {{0}, {1}, {2}, {3, 4}});
  int64_t ckk = s.rows(), p = s.pixels();
  // With several images per chunk (one group), dy of the chunk is first
  // gathered into [F, chunk, P] so that (image, pixel) is one GEMM depth.
  Value gathered;
  if (chunk != 1)
    gathered = memref::AllocOp::create(
        b, loc, MemRefType::get({s.f, chunk, p}, b.getF32Type()),
        b.getI64IntegerAttr(64));
  MLIRContext *ctx = b.getContext();
  for (int64_t n0 = 0; n0 < s.n; n0 += chunk) {
    im2col(images(x, n0), col);
    if (chunk == 1) {
      // gw[g] (F x CKK) += dy[n0, g] (F x P) col[g]^T (P x CKK), over g.
      matmul(true, view(grad, {n0, 0, 0, 0}, {1, s.g, s.f, p}, {s.g, s.f, p}),
             map(4, {0, 1, 3}),
             view(cols, {0, 0, 0, 0}, {s.g, ckk, 1, p}, {s.g, ckk, p}),
             map(4, {0, 2, 3}), filters, map(4, {0, 1, 2}));
      continue;
    }
    // gathered[f, i, q] = dy[n0 + i, 0, f, q].
    SmallVector<utils::IteratorType> parallel(3, utils::IteratorType::parallel);
    linalg::GenericOp::create(
        b, loc, TypeRange{},
        ValueRange{
            view(grad, {n0, 0, 0, 0}, {chunk, 1, s.f, p}, {chunk, s.f, p})},
        ValueRange{gathered},
        ArrayRef<AffineMap>{map(3, {1, 0, 2}),
                            AffineMap::getMultiDimIdentityMap(3, ctx)},
        parallel, [](OpBuilder &nested, Location l, ValueRange args) {
          linalg::YieldOp::create(nested, l, args[0]);
        });
    // gw (F x CKK) += gathered (F x chunk P) col^T (chunk P x CKK).
    matmul(
        false, collapse(gathered, {{0}, {1, 2}}), map(3, {0, 2}),
        collapse(view(cols, {0, 0, 0, 0}, {1, ckk, chunk, p}, {ckk, chunk, p}),
                 {{0}, {1, 2}}),
        map(3, {1, 2}), view(filters, {0, 0, 0}, {1, s.f, ckk}, {s.f, ckk}),
        map(3, {0, 1}));
  }
  if (gathered)
    memref::DeallocOp::create(b, loc, gathered);
  memref::DeallocOp::create(b, loc, col);
}

struct ConvToGemmPass
    : public remat::impl::RematConvToGemmBase<ConvToGemmPass> {
  using Base::Base;

  void runOnOperation() override {
    if (static_cast<int64_t>(maxColumnBytes) < 1) {
      getOperation().emitError()
          << "remat-conv-to-gemm: max-column-bytes must be positive, got "
          << static_cast<int64_t>(maxColumnBytes);
      return signalPassFailure();
    }
    SmallVector<blas::ConvMatch> matches;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (std::optional<blas::ConvMatch> match =
              blas::matchConvolution(op, /*cuda=*/true))
        matches.push_back(*match);
    });
    for (const blas::ConvMatch &match : matches) {
      Sizes s(match.sizes);
      // A larger column buffer: the convolution stays a kernel.
      if (!columnsFit(s))
        continue;
      int64_t chunk = imagesPerChunk(s, static_cast<int64_t>(maxColumnBytes));
      Lowering lowering(match.op, s, chunk);
      auto [a, b, out] = match.operands;
      if (s.n != 0 && s.g != 0 && s.pixels() != 0 && s.rows() != 0 &&
          s.f != 0) {
        if (match.callee == blas::kCudaSconv2d)
          lowering.forward(a, b, out);
        else if (match.callee == blas::kCudaSconv2dInputGrad)
          lowering.inputGrad(a, b, out);
        else
          lowering.filterGrad(a, b, out);
      }
      match.op->erase();
    }
  }
};

} // namespace
