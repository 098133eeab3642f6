// Where the per-module "quanta-stats:" line goes (Config::stats, Config::statsFile).
#pragma once

#include <string>

#include "Config.h"
#include "llvm/IR/LLVMContext.h"

namespace quanta {

// Sends one finished line (ending in '\n') to stderr, or appends it to cfg.statsFile.
// A file that cannot be opened or written is an error of the compile, reported through
// ctx with the setting's name and the path.
void emitStatsLine(llvm::LLVMContext& ctx, const Config& cfg, const std::string& line);

}  // namespace quanta
