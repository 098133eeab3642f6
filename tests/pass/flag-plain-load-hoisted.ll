; Why flag-volatile-O3.ll exists: the same probe written with a *plain* load (as the
; published Concord pass emits it) is optimized away from the loop by -O3. This test pins
; that behaviour of the optimizer: if it starts failing, re-check that the volatile test
; still guards against something real.
; RUN: %opt -passes='default<O3>' -S %s | FileCheck %s

@flag = external global i32

; After -O3 the only load of @flag is before the loop (or merged into the exit path);
; none is left on the loop's back-edge.
; CHECK-LABEL: define {{.*}} @spin_buggy(
; CHECK: load i32, ptr @flag
; CHECK: {{^}}loop:
; CHECK-NOT: load i32, ptr @flag
; CHECK: br i1 %{{.*}}, label %loop
define void @spin_buggy(ptr %x, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %cont ]
  %f = load i32, ptr @flag
  %set = icmp ne i32 %f, 0
  br i1 %set, label %slow, label %cont
slow:
  store i32 0, ptr @flag
  br label %cont
cont:
  %p = getelementptr inbounds i64, ptr %x, i64 %i
  %v = load volatile i64, ptr %p
  %i.next = add i64 %i, 1
  %c = icmp ult i64 %i.next, %n
  br i1 %c, label %loop, label %done
done:
  ret void
}
