; Counter mode (the Compiler-Interrupts-style baseline): every block adds its IR cost to
; the thread-local quanta_ic_count; past the threshold the block resets it and runs a
; clock probe. Many cheap probes, versus few expensive-but-sparse clock probes.
; RUN: %opt -passes=quanta-counter -quanta-counter-threshold=1000 -S %s | FileCheck %s

; CHECK: @quanta_ic_count = weak thread_local(initialexec) global i64 0
; CHECK-LABEL: define i64 @f(
; CHECK: entry:
; CHECK: %quanta.ic = add i64 %{{.*}}, 2
; CHECK-NEXT: %quanta.icfire = icmp uge i64 %quanta.ic, 1000
; CHECK: loop:
; CHECK: add i64 %{{.*}}, 4
; CHECK: call i64 @llvm.readcyclecounter()
define i64 @f(i64 %n) {
entry:
  %z = add i64 %n, 0
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %i.next = add i64 %i, 1
  %x = mul i64 %i.next, 3
  %c = icmp ult i64 %x, %z
  br i1 %c, label %loop, label %done
done:
  ret i64 %i
}
