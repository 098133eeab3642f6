// The per-object record in section "quanta_probes" (layout: include/quanta/probe_record.h),
// built as an LLVM constant.
#pragma once

#include <cstdint>

#include "llvm/IR/Module.h"

namespace quanta {

struct ProbeRecordCounts {
  uint16_t mode = 0;  // quanta_probe_record_mode: 0 lock bracketing only, else a Mode
  unsigned probes = 0, lockSites = 0, functions = 0;
  unsigned twins = 0;  // flag mode: clock twins, not in the counts above
};

// Adds this module's record: a private constant in section "quanta_probes", kept by
// llvm.compiler.used (no code refers to it), so it survives into the object and the
// linked program.
void emitProbeRecord(llvm::Module& M, const ProbeRecordCounts& counts);

}  // namespace quanta
