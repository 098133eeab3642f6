#include "ProbeRecord.h"

#include <cstddef>
#include <string>

#include "Config.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"
#include "quanta/probe_record.h"

using namespace llvm;

namespace quanta {

// The IR constant below spells out struct quanta_probe_record field by field (a C type
// cannot be imported into IR); these pin the offsets it assumes to the header's.
static_assert(offsetof(quanta_probe_record, magic) == 0);
static_assert(offsetof(quanta_probe_record, version) == 4);
static_assert(offsetof(quanta_probe_record, mode) == 6);
static_assert(offsetof(quanta_probe_record, probes) == 8);
static_assert(offsetof(quanta_probe_record, lock_sites) == 12);
static_assert(offsetof(quanta_probe_record, functions) == 16);
static_assert(offsetof(quanta_probe_record, twins) == 20);
static_assert(offsetof(quanta_probe_record, module) == 24);
static_assert(sizeof(quanta_probe_record) == 24 + QUANTA_PROBE_RECORD_MODULE_BYTES);
static_assert(uint16_t(Mode::Clock) == QUANTA_PROBE_MODE_CLOCK && uint16_t(Mode::Flag) == QUANTA_PROBE_MODE_FLAG &&
              uint16_t(Mode::Counter) == QUANTA_PROBE_MODE_COUNTER);

// The last MODULE_BYTES - 1 bytes of the source file name, NUL-padded: long paths share
// their beginnings, their ends name the file.
static std::string moduleField(const Module& M) {
  std::string name = M.getSourceFileName();
  if (name.empty()) name = M.getModuleIdentifier();
  const size_t keep = QUANTA_PROBE_RECORD_MODULE_BYTES - 1;
  if (name.size() > keep) name.erase(0, name.size() - keep);
  name.resize(QUANTA_PROBE_RECORD_MODULE_BYTES, '\0');
  return name;
}

void emitProbeRecord(Module& M, const ProbeRecordCounts& counts) {
  LLVMContext& ctx = M.getContext();
  Type* i16 = Type::getInt16Ty(ctx);
  Type* i32 = Type::getInt32Ty(ctx);
  ArrayType* moduleTy = ArrayType::get(Type::getInt8Ty(ctx), QUANTA_PROBE_RECORD_MODULE_BYTES);
  // Packed: each field starts right after the previous one, as the static_asserts above
  // say the C struct's do, whatever the target's data layout would pad.
  StructType* recordTy = StructType::get(ctx, {i32, i16, i16, i32, i32, i32, i32, moduleTy},
                                         /*isPacked=*/true);
  assert(M.getDataLayout().getTypeAllocSize(recordTy) == sizeof(quanta_probe_record));

  Constant* fields[] = {
      ConstantInt::get(i32, QUANTA_PROBE_RECORD_MAGIC),
      ConstantInt::get(i16, QUANTA_PROBE_RECORD_VERSION),
      ConstantInt::get(i16, counts.mode),
      ConstantInt::get(i32, counts.probes),
      ConstantInt::get(i32, counts.lockSites),
      ConstantInt::get(i32, counts.functions),
      ConstantInt::get(i32, counts.twins),
      ConstantDataArray::getString(ctx, moduleField(M), /*AddNull=*/false),
  };
  auto* GV = new GlobalVariable(M, recordTy, /*isConstant=*/true, GlobalValue::PrivateLinkage,
                                ConstantStruct::get(recordTy, fields), "__quanta_probe_record");
  GV->setSection(QUANTA_PROBE_RECORD_SECTION);
  // Every object's record is 8-aligned and a multiple of 8 long, so the linker lays the
  // records end to end and a reader steps through the section a record at a time.
  GV->setAlignment(Align(alignof(uint64_t)));
  appendToCompilerUsed(M, {GV});
}

}  // namespace quanta
