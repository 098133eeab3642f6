; The flag must be re-read on every probe. With a plain load, -O3 (GVN load PRE, LICM)
; would reuse the value loaded before the loop on the hot back-edge and the task would
; never see the flag: the bug in the published Concord pass. Our probe loads through
; quanta_flag_word with volatile loads, which no optimization may merge or hoist, so
; running the full -O3 pipeline after the pass still leaves one flag load per probe
; inside the loop.
; RUN: %opt -passes='quanta-flag,default<O3>' -quanta-flag-stride=1 -S %s | FileCheck %s

; CHECK-LABEL: define {{.*}} @spin(
; CHECK-NOT: threadlocal.address
; CHECK: {{^}}loop:
; CHECK: call i64 asm sideeffect "movq quanta_preempt_flag@gottpoff(%rip), $0"
; CHECK-NEXT: inttoptr i64 %{{.*}} to ptr addrspace(257)
; CHECK-NEXT: load atomic volatile i32, ptr addrspace(257)
; CHECK: br i1 %{{.*}}, label %loop, label %done
define void @spin(ptr %x, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %p = getelementptr inbounds i64, ptr %x, i64 %i
  %v = load volatile i64, ptr %p
  %i.next = add i64 %i, 1
  %c = icmp ult i64 %i.next, %n
  br i1 %c, label %loop, label %done
done:
  ret void
}
