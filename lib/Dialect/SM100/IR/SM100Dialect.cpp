//===- SM100Dialect.cpp - sm100 dialect, types and attributes --------------===//
//
// Dialect registration, the TMEM type and the UMMA attributes, whose
// verifiers delegate to the encoder library (include/nvfp4/Support).
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Dialect/SM100/IR/SM100Dialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace nvfp4;
using namespace nvfp4::sm100;

#include "nvfp4/Dialect/SM100/IR/SM100Enums.cpp.inc"
#include "nvfp4/Dialect/SM100/IR/SM100OpsDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "nvfp4/Dialect/SM100/IR/SM100Attrs.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "nvfp4/Dialect/SM100/IR/SM100OpsTypes.cpp.inc"

void SM100Dialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "nvfp4/Dialect/SM100/IR/SM100Ops.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "nvfp4/Dialect/SM100/IR/SM100OpsTypes.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "nvfp4/Dialect/SM100/IR/SM100Attrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Helpers shared with the ops and the conversion
//===----------------------------------------------------------------------===//

bool nvfp4::sm100::isSharedMemory(MemRefType type) {
  Attribute space = type.getMemorySpace();
  if (auto gpuSpace = dyn_cast_or_null<gpu::AddressSpaceAttr>(space))
    return gpuSpace.getValue() == gpu::AddressSpace::Workgroup;
  if (auto intSpace = dyn_cast_or_null<IntegerAttr>(space))
    return intSpace.getInt() ==
           static_cast<int64_t>(NVVM::NVVMMemorySpace::Shared);
  return false;
}

std::optional<umma::ElemType> nvfp4::sm100::toUMMAElemType(Type type) {
  using umma::ElemType;
  if (type.isBF16())
    return ElemType::BF16;
  if (type.isF16())
    return ElemType::F16;
  if (type.isTF32())
    return ElemType::TF32;
  if (type.isF32())
    return ElemType::F32;
  if (isa<Float8E4M3FNType>(type))
    return ElemType::E4M3;
  if (isa<Float8E5M2Type>(type))
    return ElemType::E5M2;
  if (isa<Float6E2M3FNType>(type))
    return ElemType::E2M3;
  if (isa<Float6E3M2FNType>(type))
    return ElemType::E3M2;
  if (isa<Float4E2M1FNType>(type))
    return ElemType::E2M1;
  if (auto intType = dyn_cast<IntegerType>(type)) {
    if (intType.getWidth() == 32 && !intType.isUnsigned())
      return ElemType::S32;
    if (intType.getWidth() == 8)
      return intType.isUnsigned() ? ElemType::U8 : ElemType::S8;
  }
  return std::nullopt;
}

umma::Swizzle nvfp4::sm100::toUMMA(Swizzle s) {
  // The dialect's enum values are the descriptor codes (PTX Table 40).
  return static_cast<umma::Swizzle>(static_cast<uint32_t>(s));
}
umma::Major nvfp4::sm100::toUMMA(Major m) {
  return m == Major::k ? umma::Major::K : umma::Major::MN;
}
umma::MmaKind nvfp4::sm100::toUMMA(MmaKind k) {
  switch (k) {
  case MmaKind::f16:
    return umma::MmaKind::F16;
  case MmaKind::tf32:
    return umma::MmaKind::TF32;
  case MmaKind::f8f6f4:
    return umma::MmaKind::F8F6F4;
  case MmaKind::i8:
    return umma::MmaKind::I8;
  case MmaKind::mxf8f6f4:
    return umma::MmaKind::MXF8F6F4;
  case MmaKind::mxf4:
    return umma::MmaKind::MXF4;
  case MmaKind::mxf4nvf4:
    return umma::MmaKind::MXF4NVF4;
  }
  llvm_unreachable("unknown mma kind");
}
tmem::LdStShape nvfp4::sm100::toTMEM(LdStShape s) {
  switch (s) {
  case LdStShape::shape_16x64b:
    return tmem::LdStShape::S16x64b;
  case LdStShape::shape_16x128b:
    return tmem::LdStShape::S16x128b;
  case LdStShape::shape_16x256b:
    return tmem::LdStShape::S16x256b;
  case LdStShape::shape_32x32b:
    return tmem::LdStShape::S32x32b;
  case LdStShape::shape_16x32bx2:
    return tmem::LdStShape::S16x32bx2;
  }
  llvm_unreachable("unknown ld/st shape");
}

//===----------------------------------------------------------------------===//
// TmemType
//===----------------------------------------------------------------------===//

Type TmemType::parse(AsmParser &parser) {
  SmallVector<int64_t> dims;
  Type elementType;
  std::string layoutName;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess() ||
      parser.parseDimensionList(dims, /*allowDynamic=*/false,
                                /*withTrailingX=*/true) ||
      parser.parseType(elementType) || parser.parseComma() ||
      parser.parseKeywordOrString(&layoutName) || parser.parseGreater())
    return {};
  if (dims.size() != 2) {
    parser.emitError(loc) << "expected a 2-D shape (rows x columns), got "
                          << dims.size() << " dimensions";
    return {};
  }
  std::optional<TmemLayout> layout = symbolizeTmemLayout(layoutName);
  if (!layout) {
    parser.emitError(loc)
        << "expected a TMEM layout (acc, acc_m64, operand_a, scales), got '"
        << layoutName << "'";
    return {};
  }
  return getChecked([&] { return parser.emitError(loc); },
                    parser.getContext(), dims[0], dims[1], elementType,
                    *layout);
}

void TmemType::print(AsmPrinter &printer) const {
  printer << "<" << getRows() << "x" << getCols() << "x" << getElementType()
          << ", " << stringifyTmemLayout(getLayout()) << ">";
}

int64_t TmemType::getNumColumns() const {
  switch (getLayout()) {
  case TmemLayout::acc:
  case TmemLayout::acc_m64:
    // One element per 32-bit cell; 16-bit accumulators are unpacked.
    return getCols();
  case TmemLayout::operand_a:
  case TmemLayout::scales:
    return getCols() * getElementType().getIntOrFloatBitWidth() / 32;
  }
  llvm_unreachable("unknown TMEM layout");
}

LogicalResult TmemType::verify(function_ref<InFlightDiagnostic()> emitError,
                               int64_t rows, int64_t cols, Type elementType,
                               TmemLayout layout) {
  if (rows <= 0 || cols <= 0)
    return emitError() << "expected a positive TMEM shape, got " << rows << "x"
                       << cols;
  if (!elementType.isIntOrFloat())
    return emitError() << "expected an integer or float element type, got "
                       << elementType;
  unsigned bits = elementType.getIntOrFloatBitWidth();
  if (bits != 4 && bits != 6 && bits != 8 && bits != 16 && bits != 32)
    return emitError() << "expected a 4-, 6-, 8-, 16- or 32-bit element type, "
                          "got "
                       << elementType;
  // More 32-bit columns than TMEM has can never fit; also keeps the column
  // arithmetic below far from overflow.
  if (cols > int64_t(tmem::kColumns) * 32 / bits)
    return emitError() << "expected at most " << tmem::kColumns
                       << " TMEM columns, got " << cols << " columns of "
                       << bits << "-bit elements";
  int64_t expectedRows = layout == TmemLayout::acc_m64 ? 64 : tmem::kLanes;
  if (rows != expectedRows)
    return emitError() << "expected " << expectedRows << " rows for layout '"
                       << stringifyTmemLayout(layout) << "', got " << rows;
  int64_t columns = 0;
  switch (layout) {
  case TmemLayout::acc:
  case TmemLayout::acc_m64:
    if (bits != 32 && bits != 16)
      return emitError() << "expected a 16- or 32-bit accumulator element "
                            "type, got "
                         << elementType;
    columns = cols;
    break;
  case TmemLayout::operand_a:
  case TmemLayout::scales:
    if (layout == TmemLayout::scales && bits != 8)
      return emitError() << "expected an 8-bit scale element type, got "
                         << elementType;
    if ((cols * bits) % 32 != 0)
      return emitError() << "expected " << cols << " columns of " << bits
                         << "-bit elements to fill whole 32-bit TMEM columns";
    columns = cols * bits / 32;
    break;
  }
  if (columns > tmem::kColumns)
    return emitError() << "expected at most " << tmem::kColumns
                       << " TMEM columns, got " << columns;
  return success();
}

//===----------------------------------------------------------------------===//
// SmemLayoutAttr
//===----------------------------------------------------------------------===//

LogicalResult
SmemLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                       Major major, Swizzle swizzle, Type element, int64_t mn,
                       int64_t k, bool kFirst) {
  std::optional<umma::ElemType> elem = toUMMAElemType(element);
  if (!elem || elem == umma::ElemType::F32 || elem == umma::ElemType::S32)
    return emitError() << "expected a UMMA operand element type (f16, bf16, "
                          "tf32, f8E4M3FN, f8E5M2, f6E2M3FN, f6E3M2FN, "
                          "f4E2M1FN, si8, ui8), got "
                       << element;
  if (mn <= 0 || k <= 0 || mn > UINT32_MAX || k > UINT32_MAX)
    return emitError() << "expected a positive tile shape, got mn = " << mn
                       << ", k = " << k;
  umma::SmemLayout layout{sm100::toUMMA(major), sm100::toUMMA(swizzle), *elem,
                          static_cast<uint32_t>(mn),
                          static_cast<uint32_t>(k)};
  layout.kFirst = kFirst;
  // Shared memory per CTA on SM100 (CUDA C Programming Guide, compute
  // capability 10.0: 227 KB usable); also bounds the descriptor's byte
  // offsets well inside their 18-bit encodable range.
  constexpr uint64_t kMaxSharedBytes = 227 * 1024;
  if (umma::tileBytes(layout) > kMaxSharedBytes)
    return emitError() << "expected the tile to fit in shared memory ("
                       << kMaxSharedBytes << " bytes), got "
                       << umma::tileBytes(layout) << " bytes";
  std::string error;
  if (!umma::deriveCanonicalStrides(layout, &error))
    return emitError() << error;
  return success();
}

umma::SmemLayout SmemLayoutAttr::toUMMA() const {
  umma::SmemLayout layout{sm100::toUMMA(getMajor()), sm100::toUMMA(getSwizzle()),
                          *toUMMAElemType(getElement()),
                          static_cast<uint32_t>(getMn()),
                          static_cast<uint32_t>(getK())};
  layout.kFirst = getKFirst();
  return layout;
}

uint64_t SmemLayoutAttr::getTileBytes() const {
  return umma::tileBytes(toUMMA());
}

int64_t SmemLayoutAttr::getKPerMma() const {
  // Every UMMA kind consumes 32 bytes of K per instruction.
  return 256 / umma::elemBits(*toUMMAElemType(getElement()));
}

int64_t SmemLayoutAttr::getNumKSlices() const { return getK() / getKPerMma(); }

//===----------------------------------------------------------------------===//
// IDescAttr
//===----------------------------------------------------------------------===//

static FailureOr<umma::InstrDescFields>
buildInstrDescFields(function_ref<InFlightDiagnostic()> emitError,
                     MmaKind kind, Type a, Type b, Type d, int64_t m,
                     int64_t n, Major aMajor, Major bMajor, bool negateA,
                     bool negateB, int64_t ctaGroup, ScaleType scaleType) {
  umma::InstrDescFields f;
  f.kind = toUMMA(kind);
  auto mapType = [&](Type t, const char *which,
                     umma::ElemType &out) -> LogicalResult {
    std::optional<umma::ElemType> e = toUMMAElemType(t);
    if (!e) {
      if (emitError)
        emitError() << "expected a UMMA element type for " << which
                    << ", got " << t;
      return failure();
    }
    out = *e;
    return success();
  };
  if (failed(mapType(a, "a", f.a)) || failed(mapType(b, "b", f.b)) ||
      failed(mapType(d, "d", f.d)))
    return failure();
  if (m <= 0 || n <= 0 || m > 1024 || n > 1024) {
    if (emitError)
      emitError() << "expected M and N in [1, 1024], got M = " << m
                  << ", N = " << n;
    return failure();
  }
  f.m = static_cast<uint32_t>(m);
  f.n = static_cast<uint32_t>(n);
  f.aMajor = toUMMA(aMajor);
  f.bMajor = toUMMA(bMajor);
  f.negateA = negateA;
  f.negateB = negateB;
  if (ctaGroup != 1 && ctaGroup != 2) {
    if (emitError)
      emitError() << "expected cta_group 1 or 2, got " << ctaGroup;
    return failure();
  }
  f.ctaGroup = static_cast<unsigned>(ctaGroup);
  f.scaleType = scaleType == ScaleType::ue4m3 ? umma::ScaleType::UE4M3
                                              : umma::ScaleType::UE8M0;
  if (kind == MmaKind::mxf4nvf4 && scaleType == ScaleType::ue4m3)
    f.scaleVecSize = 16;
  return f;
}

LogicalResult IDescAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                MmaKind kind, Type a, Type b, Type d,
                                int64_t m, int64_t n, Major aMajor,
                                Major bMajor, bool negateA, bool negateB,
                                int64_t ctaGroup, ScaleType scaleType) {
  FailureOr<umma::InstrDescFields> fields =
      buildInstrDescFields(emitError, kind, a, b, d, m, n, aMajor, bMajor,
                           negateA, negateB, ctaGroup, scaleType);
  if (failed(fields))
    return failure();
  if (umma::isBlockScaled(fields->kind) && !d.isF32())
    return emitError() << "expected d = f32 for the block-scaled kind "
                       << stringifyMmaKind(kind) << ", got " << d;
  if (std::optional<std::string> error = umma::verifyInstrDesc(*fields))
    return emitError() << *error;
  return success();
}

umma::InstrDescFields IDescAttr::toFields() const {
  return *buildInstrDescFields(nullptr, getKind(), getA(), getB(), getD(),
                               getM(), getN(), getAMajor(), getBMajor(),
                               getNegateA(), getNegateB(), getCtaGroup(),
                               getScaleType());
}

uint32_t IDescAttr::getEncoding() const {
  return *umma::encodeInstrDesc(toFields());
}

int64_t IDescAttr::getK() const { return umma::mmaK(sm100::toUMMA(getKind())); }
