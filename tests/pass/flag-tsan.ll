; A ThreadSanitizer build runs its instrumentation after the pass. The flag probe reads the
; thread's flag %fs-relative (address space 257, an offset from the thread pointer, not a
; pointer): an atomic load there would become __tsan_atomic32_load(offset), which faults on
; the offset. In a function built with ThreadSanitizer the probe's load is volatile and not
; atomic, which TSan leaves alone outside address space 0 (the same single mov on x86).
; RUN: %opt -passes='quanta-flag,function(tsan),tsan-module' -quanta-flag-stride=1 -S %s | FileCheck %s
; Without ThreadSanitizer the load stays atomic.
; RUN: sed 's/ sanitize_thread//' %s | %opt -passes=quanta-flag -quanta-flag-stride=1 -S | FileCheck %s --check-prefix=PLAIN

; CHECK-LABEL: define {{.*}} @spin(
; CHECK-NOT: __tsan_atomic32_load
; CHECK: load volatile i32, ptr addrspace(257)
; CHECK-NOT: __tsan_atomic32_load
; CHECK: ret void
; PLAIN-LABEL: define {{.*}} @spin(
; PLAIN: load atomic volatile i32, ptr addrspace(257) {{.*}} monotonic
define void @spin(ptr %x, i64 %n) sanitize_thread {
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
