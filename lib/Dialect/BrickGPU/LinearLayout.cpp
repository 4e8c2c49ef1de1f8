//===- LinearLayout.cpp - Layouts as linear maps from thread bits to element bits ---===//

#include "brick/Dialect/BrickGPU/LinearLayout.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVectorExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir::brickgpu;

LinearLayout::LinearLayout(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<Coordinate> registerBases,
                           llvm::ArrayRef<Coordinate> laneBases, llvm::ArrayRef<Coordinate> warpBases)
    : shape_(shape), registerBases_(registerBases), laneBases_(laneBases), warpBases_(warpBases) {}

namespace {
void xorBases(LinearLayout::Coordinate &into, llvm::ArrayRef<LinearLayout::Coordinate> bases, unsigned bits) {
  for (auto [bit, basis] : llvm::enumerate(bases))
    if (bits >> bit & 1)
      for (auto [x, b] : llvm::zip(into, basis))
        x ^= b;
}

bool isZero(const LinearLayout::Coordinate &basis) {
  return llvm::all_of(basis, [](int64_t x) { return x == 0; });
}

LinearLayout::Coordinate without(const LinearLayout::Coordinate &basis, unsigned dim) {
  LinearLayout::Coordinate result(basis);
  result.erase(result.begin() + dim);
  return result;
}

LinearLayout::Coordinate with(const LinearLayout::Coordinate &basis, unsigned dim) {
  LinearLayout::Coordinate result(basis);
  result.insert(result.begin() + dim, 0);
  return result;
}
} // namespace

LinearLayout::Coordinate LinearLayout::apply(unsigned reg, unsigned lane, unsigned warp) const {
  Coordinate result(shape_.size(), 0);
  xorBases(result, registerBases_, reg);
  xorBases(result, laneBases_, lane);
  xorBases(result, warpBases_, warp);
  return result;
}

LinearLayout LinearLayout::removeDimension(unsigned dim) const {
  llvm::SmallVector<int64_t, 4> shape(shape_);
  shape.erase(shape.begin() + dim);
  llvm::SmallVector<Coordinate> registers, lanes, warps;
  for (const Coordinate &basis : registerBases_)
    if (Coordinate reduced = without(basis, dim); !isZero(reduced))
      registers.push_back(reduced);
  for (const Coordinate &basis : laneBases_)
    lanes.push_back(without(basis, dim));
  for (const Coordinate &basis : warpBases_)
    warps.push_back(without(basis, dim));
  return LinearLayout(shape, registers, lanes, warps);
}

LinearLayout LinearLayout::insertDimension(unsigned dim) const {
  llvm::SmallVector<int64_t, 4> shape(shape_);
  shape.insert(shape.begin() + dim, 1);
  auto expand = [&](llvm::ArrayRef<Coordinate> bases) {
    return llvm::map_to_vector(bases, [&](const Coordinate &basis) { return with(basis, dim); });
  };
  return LinearLayout(shape, expand(registerBases_), expand(laneBases_), expand(warpBases_));
}

bool LinearLayout::isInjective() const {
  auto anyZero = [](llvm::ArrayRef<Coordinate> bases) { return llvm::any_of(bases, isZero); };
  return !anyZero(registerBases_) && !anyZero(laneBases_) && !anyZero(warpBases_);
}

unsigned LinearLayout::getContiguousRegisters(unsigned dim) const {
  unsigned count = 1;
  for (const Coordinate &basis : registerBases_) {
    Coordinate expected(shape_.size(), 0);
    expected[dim] = count;
    if (basis != expected)
      break;
    count *= 2;
  }
  return count;
}

std::string LinearLayout::str() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  auto print = [&](llvm::StringRef name, llvm::ArrayRef<Coordinate> bases) {
    os << name << "=[";
    llvm::interleaveComma(bases, os, [&](const Coordinate &basis) {
      os << "[";
      llvm::interleaveComma(basis, os);
      os << "]";
    });
    os << "] ";
  };
  print("regs", registerBases_);
  print("lanes", laneBases_);
  print("warps", warpBases_);
  os << "shape=[";
  llvm::interleaveComma(shape_, os);
  os << "]";
  return text;
}
