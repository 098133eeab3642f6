; Flag mode also emits a clock-probed twin of every function it instruments (Concord's
; dispatcher copy): the twin has clock probes and no flag probes, its direct calls to
; instrumented functions go to their twins, calls through pointers stay as they are, and a
; table of (function, twin) pairs is registered with the runtime by a constructor.
; RUN: %opt -passes=quanta-flag -S %s | FileCheck %s
; RUN: %opt -passes=quanta-flag -quanta-flag-twins=0 -S %s | FileCheck %s --check-prefix=OFF
; RUN: env QUANTA_FLAG_TWINS=0 %opt -passes=quanta-flag -S %s | FileCheck %s --check-prefix=OFF
; Clock mode needs no twins.
; RUN: %opt -passes=quanta-clock -S %s | FileCheck %s --check-prefix=OFF
; A bad value is an error naming the variable.
; RUN: env QUANTA_FLAG_TWINS=maybe not %opt -passes=quanta-flag -S %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD

; The table: one pair per instrumented function, in module order; the weak hooks; the
; constructor and the destructor.
; CHECK: @__quanta_flag_twins = private constant [2 x { ptr, ptr }] [{ ptr, ptr } { ptr @leaf, ptr @leaf.quanta_clock }, { ptr, ptr } { ptr @handler, ptr @handler.quanta_clock }]
; CHECK: @llvm.global_ctors = appending global {{.*}} @__quanta_flag_twins_register
; CHECK: @llvm.global_dtors = appending global {{.*}} @__quanta_flag_twins_unregister

; The functions as compiled: flag probes, calls unchanged.
; CHECK-LABEL: define i64 @leaf(
; CHECK-NOT: readcyclecounter
; CHECK: quanta_preempt_flag@gottpoff
; CHECK-NOT: readcyclecounter
; CHECK: ret i64
; CHECK-LABEL: define i64 @handler(
; CHECK-NOT: readcyclecounter
; CHECK: call i64 @leaf(
; CHECK: call i64 %fp(
; CHECK-NOT: readcyclecounter
; CHECK: ret i64

; The twins: internal, in quanta_text, clock probes only; @leaf's twin is called, the
; pointer call is left alone.
; (the loop's clock probe is the adaptive one, a call to the runtime's quanta_clock_gap(),
; which reads the clock and quanta_deadline_tsc)
; CHECK-LABEL: define internal i64 @leaf.quanta_clock(
; CHECK-SAME: section "quanta_text"
; CHECK-NOT: quanta_flag
; CHECK: call i64 @quanta_clock_gap(
; CHECK-NOT: quanta_flag
; CHECK: ret i64
; CHECK-LABEL: define internal i64 @handler.quanta_clock(
; CHECK-NOT: quanta_flag
; CHECK: call i64 @leaf.quanta_clock(
; CHECK-NOT: quanta_flag
; CHECK: call i64 %fp(
; CHECK-NOT: quanta_flag
; CHECK: ret i64

; The constructor registers the table only when the runtime is linked in.
; CHECK: declare extern_weak void @quanta_register_flag_twins(ptr, i64)
; CHECK-LABEL: define internal void @__quanta_flag_twins_register(
; CHECK: icmp eq ptr @quanta_register_flag_twins, null
; CHECK: call void @quanta_register_flag_twins(ptr @__quanta_flag_twins, i64 2)
; CHECK-LABEL: define internal void @__quanta_flag_twins_unregister(
; CHECK: call void @quanta_unregister_flag_twins(ptr @__quanta_flag_twins)

; OFF-NOT: .quanta_clock
; OFF-NOT: quanta_flag_twins
; OFF-NOT: global_ctors

; BAD: invalid value 'maybe' for QUANTA_FLAG_TWINS

define i64 @leaf(ptr %a, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi i64 [ 0, %entry ], [ %s.next, %loop ]
  %p = getelementptr inbounds i64, ptr %a, i64 %i
  %v = load i64, ptr %p
  %s.next = add i64 %s, %v
  %i.next = add nuw i64 %i, 1
  %end = icmp eq i64 %i.next, %n
  br i1 %end, label %done, label %loop
done:
  ret i64 %s.next
}

define i64 @handler(ptr %a, i64 %n, ptr %fp) {
entry:
  %x = call i64 @leaf(ptr %a, i64 %n)
  %y = call i64 %fp(i64 %x)
  %z = call i64 @leaf(ptr %a, i64 %y)
  ret i64 %z
}
