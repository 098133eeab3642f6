; A loop whose exit depends on data (no trip count) but which has an induction variable:
; the probe is gated on the IV itself, ((iv.next - start) & mask) == 0, so no counter is
; added. Body cost 6 (the load counts 2, address arithmetic and casts 0), B = 600: 100
; iterations, rounded to the nearest power of two, 128. The IV steps by 4, so the mask
; covers two more bits: (128 << 2) - 1 = 511.
; RUN: %opt -passes=quanta-clock -quanta-bound=600 -S %s | FileCheck %s

; CHECK-LABEL: define i64 @scan(
; CHECK-NOT: quanta.budget
; CHECK: %quanta.iters = sub i64 %off.next, %start
; CHECK-NEXT: %quanta.stride = and i64 %quanta.iters, 511
; CHECK-NEXT: %quanta.fire = icmp eq i64 %quanta.stride, 0
; CHECK-NEXT: br i1 %quanta.fire, label %[[PROBE:.*]], label
; CHECK: [[PROBE]]:
; CHECK-NEXT: call i64 @llvm.readcyclecounter()
define i64 @scan(ptr %base, i64 %start) {
entry:
  br label %loop
loop:
  %off = phi i64 [ %start, %entry ], [ %off.next, %loop ]
  %acc = phi i64 [ 0, %entry ], [ %acc.next, %loop ]
  %p = getelementptr inbounds i8, ptr %base, i64 %off
  %v = load i32, ptr %p
  %w = sext i32 %v to i64
  %acc.next = add i64 %acc, %w
  %off.next = add i64 %off, 4
  %stop = icmp eq i32 %v, 0
  br i1 %stop, label %done, label %loop
done:
  ret i64 %acc.next
}
