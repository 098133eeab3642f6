; A bad option value fails the compile with one error line that names the option or the
; variable, and no crash banner or stack dump (a user's mistake, not a compiler bug), in
; opt and in clang. Numbers are whole decimal numbers within 32 bits: strtoull would have
; read "-5" as 2^64 - 5 and saturated an overflowing number to 2^64 - 1, both taken as huge
; bounds.
; RUN: not %opt -passes=quanta -quanta-mode=fast -S %s 2>&1 | FileCheck %s --check-prefix=OPT
; RUN: env QUANTA_MODE=fast not %opt -passes=quanta -S %s 2>&1 | FileCheck %s --check-prefix=ENV
; RUN: env QUANTA_BOUND=abc not %opt -passes=quanta-clock -S %s 2>&1 | FileCheck %s --check-prefix=BOUND
; RUN: env QUANTA_BOUND=-5 not %opt -passes=quanta-clock -S %s 2>&1 | FileCheck %s --check-prefix=NEG
; RUN: env QUANTA_BOUND=99999999999999999999999 not %opt -passes=quanta-clock -S %s 2>&1 | FileCheck %s --check-prefix=OVER
; RUN: env QUANTA_EXT_CALL_COST=4294967296 not %opt -passes=quanta-clock -S %s 2>&1 | FileCheck %s --check-prefix=WIDE
; RUN: env QUANTA_BOUND=0 not %opt -passes=quanta-clock -S %s 2>&1 | FileCheck %s --check-prefix=ZERO
; RUN: env QUANTA_ADAPTIVE=maybe not %opt -passes=quanta-clock -S %s 2>&1 | FileCheck %s --check-prefix=BOOL
; RUN: env QUANTA_CYCLE_TICKS=2 not %opt -passes=quanta-clock -S %s 2>&1 | FileCheck %s --check-prefix=TICKS
; RUN: not %opt -passes=quanta-clock -quanta-bound=18446744073709551615 -S %s 2>&1 | FileCheck %s --check-prefix=OPTWIDE
; LLVM's own option parser refuses what is not an unsigned number, naming the option too.
; RUN: not %opt -passes=quanta-clock -quanta-bound=-5 -S %s 2>&1 | FileCheck %s --check-prefix=OPTNEG
; RUN: env QUANTA_BOUND=-5 not %clang -O1 -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=CLANG
; RUN: env QUANTA_BOUND=-5 not %clang -O1 -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=BANNER
; RUN: not %clang -O1 -mllvm -quanta-bound=4294967296 -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=CLANGOPT
; RUN: not %clang -O1 -mllvm -quanta-bound=-5 -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=CLANGNEG
; OPT: error: quanta pass: invalid value 'fast' for -quanta-mode (expected clock, flag, counter or none)
; ENV: error: quanta pass: invalid value 'fast' for QUANTA_MODE
; BOUND: error: quanta pass: invalid value 'abc' for QUANTA_BOUND (expected a whole number from 1 to 4294967295)
; NEG: error: quanta pass: invalid value '-5' for QUANTA_BOUND (expected a whole number from 1 to 4294967295)
; OVER: error: quanta pass: invalid value '99999999999999999999999' for QUANTA_BOUND
; WIDE: error: quanta pass: invalid value '4294967296' for QUANTA_EXT_CALL_COST (expected a whole number from 0 to 4294967295)
; ZERO: error: quanta pass: invalid value '0' for QUANTA_BOUND
; BOOL: error: quanta pass: invalid value 'maybe' for QUANTA_ADAPTIVE (expected 0 or 1)
; TICKS: error: quanta pass: invalid value '2' for QUANTA_CYCLE_TICKS (expected 0 or 1)
; OPTWIDE: error: quanta pass: invalid value '18446744073709551615' for -quanta-bound
; OPTNEG: for the --quanta-bound option: '-5' value invalid
; CLANG: error: quanta pass: invalid value '-5' for QUANTA_BOUND
; BANNER-NOT: PLEASE submit a bug report
; BANNER-NOT: Stack dump
; CLANGOPT: error: quanta pass: invalid value '4294967296' for -quanta-bound
; CLANGOPT-NOT: PLEASE submit a bug report
; CLANGOPT-NOT: Stack dump
; CLANGNEG: for the --quanta-bound option: '-5' value invalid
; CLANGNEG-NOT: Stack dump
define void @f() {
  ret void
}
