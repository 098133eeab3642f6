; Flag mode places probes where Concord does: at the entry of non-trivial functions, right
; after calls into uninstrumented code, and on loop back-edges, strided so that a tight
; loop reads the flag once per ~1000 IR instructions (-quanta-flag-stride) of its body.
; RUN: %opt -passes=quanta-flag -S %s | FileCheck %s

; CHECK-LABEL: define i64 @handler(
; CHECK-NEXT: entry:
;   (the loop's distance to its next probe is a register: no slot is left)
; CHECK-NOT: alloca
; CHECK-NEXT: call ptr @llvm.threadlocal.address.p0(ptr @quanta_flag_word)
; CHECK-NEXT: load volatile ptr
; CHECK-NEXT: load atomic volatile i32
;   after the external call
; CHECK: %e = call i64 @external(
; CHECK-NEXT: call ptr @llvm.threadlocal.address.p0(ptr @quanta_flag_word)
;   the loop: body cost 6, stride 1000 -> every 128 iterations on the IV (1000 / 6 rounded
;   down to a power of two); the loop is counted,
;   so the probe shares its exit compare (clock-loop-exit-merge.ll)
; CHECK: loop:
; CHECK: %quanta.at.limit = icmp eq i64 %i.next, %quanta.limit
; CHECK: quanta.probe:
; CHECK-NEXT: %quanta.probe.next = add i64 %quanta.iv, 128
; CHECK: load atomic volatile i32
; CHECK: call void @quanta_flag_probe_slow()
define i64 @handler(ptr %a, i64 %n) {
entry:
  %e = call i64 @external(i64 %n)
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi i64 [ %e, %entry ], [ %s.next, %loop ]
  %p = getelementptr inbounds i64, ptr %a, i64 %i
  %v = load i64, ptr %p
  %s.next = add i64 %s, %v
  %i.next = add nuw i64 %i, 1
  %end = icmp eq i64 %i.next, %n
  br i1 %end, label %done, label %loop
done:
  ret i64 %s.next
}

; Trivial functions (no loop, no call, tiny) get no probe.
; CHECK-LABEL: define i64 @leaf(
; CHECK-NOT: quanta_flag_word
; CHECK: ret i64
define i64 @leaf(i64 %x) {
  %y = mul i64 %x, 3
  ret i64 %y
}

declare i64 @external(i64)
