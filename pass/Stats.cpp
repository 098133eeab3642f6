#include "Stats.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "llvm/ADT/Twine.h"
#include "llvm/Support/raw_ostream.h"

namespace quanta {

// Reported as an error diagnostic, as a bad option value is (Config.h), not with
// report_fatal_error: inside clang a fatal error prints LLVM's crash banner and a stack
// dump, which reads like a compiler bug; a diagnostic prints "error: quanta pass: ..." and
// fails the compile with status 1 (opt: the same message, status 1).
static void fileError(llvm::LLVMContext& ctx, const Config& cfg, const char* what, int err) {
  ctx.emitError(llvm::Twine("quanta pass: cannot ") + what + " " + cfg.statsFileSetting + " '" +
                cfg.statsFile + "': " + std::strerror(err));
}

void emitStatsLine(llvm::LLVMContext& ctx, const Config& cfg, const std::string& line) {
  if (cfg.statsFile.empty()) {
    llvm::errs() << line;
    return;
  }
  // make -j runs many compilers that append to the same file. With O_APPEND each write()
  // lands at the end of the file as one piece, so the line goes out in a single write():
  // lines of parallel compiles may come in either order but never mixed. Opened per
  // line, not kept open: nothing of the pass outlives the module it runs on.
  int fd;
  do fd = ::open(cfg.statsFile.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
  while (fd < 0 && errno == EINTR);
  if (fd < 0) return fileError(ctx, cfg, "open", errno);
  ssize_t n;
  do n = ::write(fd, line.data(), line.size());
  while (n < 0 && errno == EINTR);
  int writeErr = n < 0 ? errno : ENOSPC;  // a short write to a regular file: out of space
  ::close(fd);
  // The rest of a short write is not sent: a second write() could land after another
  // compiler's line and split this one in two.
  if (n != ssize_t(line.size())) fileError(ctx, cfg, "write to", writeErr);
}

}  // namespace quanta
