; A bad option value stops the compiler with a message that names the option.
; RUN: not %opt -passes=quanta -quanta-mode=fast -S %s 2>&1 | FileCheck %s --check-prefix=OPT
; RUN: env QUANTA_MODE=fast not %opt -passes=quanta -S %s 2>&1 | FileCheck %s --check-prefix=ENV
; RUN: env QUANTA_BOUND=abc not %opt -passes=quanta-clock -S %s 2>&1 | FileCheck %s --check-prefix=BOUND
; OPT: invalid value 'fast' for -quanta-mode (expected clock, flag, counter or none)
; ENV: invalid value 'fast' for QUANTA_MODE
; BOUND: invalid value 'abc' for QUANTA_BOUND
define void @f() {
  ret void
}
