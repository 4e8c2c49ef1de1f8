//===- DotOpToMMAv2.cpp - brick.dot on #mma (version 2) as mma.sync.m16n8k* --------------===//
//
// Every layout involved is linear, so the lowering finds the registers of each instruction by coordinates:
// for an accumulator tile at (m, n) and a K step at k (lane 0 of warp 0's view; other threads hold the same
// registers at their own offsets),
//   a: words at (m, k), (m + 8, k), (m, k + 4 kWidth), (m + 8, k + 4 kWidth), each kWidth elements along K;
//   b: words at (k, n), (k + 4 kWidth, n);
//   c: (m, n), (m, n + 1), (m + 8, n), (m + 8, n + 1).
// A batched dot ([B, M, K] x [B, K, N]) does the same for each batch a thread's registers hold. 8-bit operands
// (i8, e4m3, e5m2) take m16n8k32, four elements along K a word.
// f32 inputs are rounded to tf32 (cvt.rna, as ptxas does not round); tf32x3 splits each into a tf32 "big" part and
// the tf32 of what is left, and adds small*big + big*small + big*big, which is about as exact as f32 FMAs.
//
//===----------------------------------------------------------------------===//

#include "Ldmatrix.h"
#include "brick/Dialect/Brick/Float8.h"

namespace mlir::brick::lowering {
namespace {
using brickgpu::LinearLayout;

struct MmaV2DotLowering : ConvertOpToLLVMPattern<DotOp> {
  MmaV2DotLowering(LLVMTypeConverter &converter) : ConvertOpToLLVMPattern(converter, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(DotOp op, OpAdaptor adaptor, ConversionPatternRewriter &b) const override {
    auto cType = cast<RankedTensorType>(op.getType());
    if (!isa_and_present<brickgpu::MmaEncodingAttr>(cType.getEncoding()))
      return failure();
    auto aType = cast<RankedTensorType>(op.getA().getType());
    auto bType = cast<RankedTensorType>(op.getB().getType());
    auto aEncoding = cast<brickgpu::DotOperandEncodingAttr>(aType.getEncoding());
    Location loc = op.getLoc();
    MLIRContext *context = b.getContext();
    unsigned kWidth = aEncoding.getKWidth(), instrK = aEncoding.getInstrK();
    unsigned rank = cType.getRank();
    int64_t K = aType.getDimSize(rank - 1);
    Type inputElement = aType.getElementType(), accElement = cType.getElementType();
    bool tf32 = inputElement.isF32(), threeTf32 = tf32 && op.getInputPrecision() == InputPrecision::tf32x3;
    bool f16Accumulator = accElement.isF16();

    LinearLayout aLayout = brickgpu::getLinearLayout(aType), bLayout = brickgpu::getLinearLayout(bType),
                 cLayout = brickgpu::getLinearLayout(cType);
    RegisterIndex aIndex(aLayout), bIndex(bLayout), cIndex(cLayout);
    // The accumulator tiles this thread holds, in register order; each needs its fragments in the operands'
    // registers (layouts that do not fit together, as hand-written IR may have, are refused before any code).
    SmallVector<std::tuple<int64_t, int64_t, int64_t>> tiles; // (m, n, batch)
    for (unsigned reg = 0; reg < cLayout.getNumRegisters(); ++reg) {
      LinearLayout::Coordinate c = cLayout.registerCoordinate(reg);
      int64_t m = c[rank - 2], n = c[rank - 1], batch = rank == 3 ? c[0] : 0;
      std::tuple<int64_t, int64_t, int64_t> tile{m - m % 16, n - n % 8, batch};
      if (!llvm::is_contained(tiles, tile))
        tiles.push_back(tile);
    }
    for (int64_t k = 0; k < K; k += instrK)
      for (auto [m, n, batch] : tiles)
        for (int64_t step : {int64_t(0), int64_t(4 * kWidth)})
          if (!aIndex.contains(m, k + step, batch) || !aIndex.contains(m + 8, k + step, batch) ||
              !bIndex.contains(k + step, n, batch) || !cIndex.contains(m + 8, n + 1, batch))
            return b.notifyMatchFailure(op, "the operands' #dot_op layouts do not hold the accumulator's fragments");
    SmallVector<Value> acc = unpack(b, loc, adaptor.getC());
    Type i32 = b.getI32Type();
    Type llvmInput = getTypeConverter()->convertType(inputElement);

    // An operand's registers: read from shared memory K step by K step when its local_load was left to us.
    struct Operand {
      std::optional<LdmatrixReader> reader;
      SmallVector<Value> unpacked;
      Value get(unsigned reg) { return reader ? reader->get(reg) : unpacked[reg]; }
    };
    auto operand = [&](Value original, Value converted) {
      Operand result;
      if (auto load = original.getDefiningOp<brickgpu::LocalLoadOp>(); load && isReadByMmaDot(load))
        result.reader = LdmatrixReader::create(b, loc, cast<RankedTensorType>(original.getType()),
                                               load.getSrc().getType(), b.getRemappedValue(load.getSrc()),
                                               *getTypeConverter());
      if (!result.reader)
        result.unpacked = unpack(b, loc, converted);
      return result;
    };
    Operand aOperand = operand(op.getA(), adaptor.getA()), bOperand = operand(op.getB(), adaptor.getB());

    // The words mma.sync takes (f16 as vector<2xf16>, everything else as i32) of kWidth registers from `first`,
    // each made once. f32 is rounded to tf32 first: `Part` says whether the word holds the tf32 value ("big")
    // or, for tf32x3, the tf32 of what rounding left ("small").
    enum class Part { Whole, Big, Small };
    auto toTf32 = [&](Value x) {
      Value rounded = NVVM::ConvertFloatToTF32Op::create(b, loc, i32, x, NVVM::FPRoundingMode::RNA,
                                                         NVVM::SaturationMode::NONE, false);
      return LLVM::BitcastOp::create(b, loc, llvmInput, rounded).getResult();
    };
    DenseMap<std::tuple<Operand *, unsigned, Part>, Value> words;
    auto word = [&](Operand &source, unsigned first, Part part) -> Value {
      if (Value known = words.lookup({&source, first, part}))
        return known;
      SmallVector<Value> elements;
      for (unsigned i = 0; i < kWidth; ++i) {
        Value x = source.get(first + i);
        if (part != Part::Whole) {
          Value big = toTf32(x);
          x = part == Part::Big ? big : toTf32(LLVM::FSubOp::create(b, loc, x, big));
        }
        elements.push_back(x);
      }
      Value vector = buildVector(b, loc, VectorType::get({kWidth}, llvmInput), elements);
      Value packed = inputElement.isF16() ? vector : Value(LLVM::BitcastOp::create(b, loc, i32, vector));
      return words[{&source, first, part}] = packed;
    };

    NVVM::MMATypes ptxType = inputElement.isF16()    ? NVVM::MMATypes::f16
                             : inputElement.isBF16() ? NVVM::MMATypes::bf16
                             : tf32                  ? NVVM::MMATypes::tf32
                                                     : NVVM::MMATypes::s8;
    // nvvm.mma.sync has no 8-bit float forms in MLIR 22; LLVM's intrinsic does (sm_89, PTX 8.4). Its name
    // gives the result, A, B and accumulator types: e4m3 and e5m2 pair freely.
    std::optional<std::string> float8Intrinsic;
    if (isFloat8(inputElement)) {
      auto name = [](Type t) { return isa<Float8E5M2Type>(t) ? "e5m2" : "e4m3"; };
      float8Intrinsic = (llvm::Twine("llvm.nvvm.mma.m16n8k32.row.col.f32.") + name(inputElement) + "." +
                         name(bType.getElementType()) + ".f32")
                            .str();
    }
    std::optional<NVVM::MMAIntOverflow> overflow;
    if (inputElement.isInteger(8))
      overflow = NVVM::MMAIntOverflow::wrapped; // i32 accumulation wraps, as on the interpreter
    Type llvmAcc = getTypeConverter()->convertType(accElement);
    Type accWord = f16Accumulator ? Type(VectorType::get({2}, llvmAcc)) : llvmAcc;
    unsigned accWords = f16Accumulator ? 2 : 4;
    auto resultType = LLVM::LLVMStructType::getLiteral(context, SmallVector<Type>(accWords, accWord));

    // Tensor cores add into the accumulator with truncation; over a long K loop that costs tf32x3 its f32
    // accuracy (3e-5 at K = 4096). So tf32x3 sums this dot's products from zero and adds them to the
    // accumulator once, rounding to nearest.
    SmallVector<Value> incoming;
    if (threeTf32) {
      incoming = acc;
      Value zero = LLVM::ConstantOp::create(b, loc, llvmAcc, b.getFloatAttr(llvmAcc, 0.0));
      acc.assign(acc.size(), zero);
    }
    for (int64_t k = 0; k < K; k += instrK) {
      for (auto [m, n, batch] : tiles) {
        unsigned c[4] = {cIndex.at(m, n, batch), cIndex.at(m, n + 1, batch), cIndex.at(m + 8, n, batch),
                         cIndex.at(m + 8, n + 1, batch)};
        auto run = [&, m = m, n = n, batch = batch](Part aPart, Part bPart) {
          SmallVector<Value> aOperands{word(aOperand, aIndex.at(m, k, batch), aPart),
                                       word(aOperand, aIndex.at(m + 8, k, batch), aPart),
                                       word(aOperand, aIndex.at(m, k + 4 * kWidth, batch), aPart),
                                       word(aOperand, aIndex.at(m + 8, k + 4 * kWidth, batch), aPart)};
          SmallVector<Value> bOperands{word(bOperand, bIndex.at(k, n, batch), bPart),
                                       word(bOperand, bIndex.at(k + 4 * kWidth, n, batch), bPart)};
          SmallVector<Value> cOperands;
          if (f16Accumulator) {
            for (unsigned pair = 0; pair < 2; ++pair) {
              Value v = LLVM::UndefOp::create(b, loc, accWord);
              v = LLVM::InsertElementOp::create(b, loc, v, acc[c[2 * pair]], i32Constant(b, loc, 0));
              cOperands.push_back(LLVM::InsertElementOp::create(b, loc, v, acc[c[2 * pair + 1]], i32Constant(b, loc, 1)));
            }
          } else {
            cOperands = {acc[c[0]], acc[c[1]], acc[c[2]], acc[c[3]]};
          }
          Value result;
          if (float8Intrinsic) {
            SmallVector<Value> arguments(aOperands);
            llvm::append_range(arguments, bOperands);
            llvm::append_range(arguments, cOperands);
            result = LLVM::CallIntrinsicOp::create(b, loc, resultType, b.getStringAttr(*float8Intrinsic), arguments)
                         .getResult(0);
          } else {
            result = NVVM::MmaOp::create(b, loc, resultType, aOperands, bOperands, cOperands, {16, 8, instrK},
                                         std::nullopt, overflow, std::array<NVVM::MMATypes, 2>{ptxType, ptxType},
                                         std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row, NVVM::MMALayout::col})
                         .getResult();
          }
          SmallVector<Value> d = unpack(b, loc, result);
          if (f16Accumulator) {
            for (unsigned i = 0; i < 4; ++i)
              acc[c[i]] = LLVM::ExtractElementOp::create(b, loc, d[i / 2], i32Constant(b, loc, i % 2));
          } else {
            for (unsigned i = 0; i < 4; ++i)
              acc[c[i]] = d[i];
          }
        };
        if (!tf32) {
          run(Part::Whole, Part::Whole);
        } else if (!threeTf32) {
          run(Part::Big, Part::Big);
        } else { // the small products first, so that they are not lost against the big one
          run(Part::Small, Part::Big);
          run(Part::Big, Part::Small);
          run(Part::Big, Part::Big);
        }
      }
    }
    for (auto [sum, before] : llvm::zip(acc, incoming))
      sum = LLVM::FAddOp::create(b, loc, before, sum);
    b.replaceOp(op, pack(b, loc, getTypeConverter()->convertType(cType), acc));
    return success();
  }
};
} // namespace

void populateMmaDotPatterns(LLVMTypeConverter &converter, RewritePatternSet &patterns, const LoweringContext &) {
  patterns.add<MmaV2DotLowering>(converter);
}

} // namespace mlir::brick::lowering
