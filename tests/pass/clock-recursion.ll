; Recursion: every call of a list walk stays far under the bound, so without a rule across
; calls no path inside one function ever needs a probe, and walking a million nodes runs
; probe-free. Each function on a call-graph cycle (a self-call, or functions calling each
; other) probes at entry, which cuts every cycle of calls. Unwinding is a cycle too: each
; level's work after its recursive call adds up over the returns, and what a callee of
; the same cycle leaves behind it is taken to be the whole bound, so the path after such a
; call probes before it does any work of its own.
; RUN: %opt -passes=quanta-clock -S %s | FileCheck %s
; Before call summaries (the hidden comparison option), nothing is placed at all.
; RUN: %opt -passes=quanta-clock -quanta-call-summaries=0 -S %s | FileCheck %s --check-prefix=OLD
; OLD-NOT: readcyclecounter

; Direct recursion: a probe first, after the allocas, and one between the recursive call
; and the add that follows it.
; CHECK-LABEL: define i64 @sum(
; CHECK-NEXT: entry:
; CHECK-NEXT: %slot = alloca i64
; CHECK-NEXT: call i64 @llvm.readcyclecounter()
; CHECK: %s = call i64 @sum(ptr %next)
; CHECK-NEXT: call i64 @llvm.readcyclecounter()
; CHECK: %r = add i64 %s, %v
; CHECK-NEXT: ret i64 %r
define i64 @sum(ptr %n) {
entry:
  %slot = alloca i64
  %null = icmp eq ptr %n, null
  br i1 %null, label %done, label %rec
rec:
  %v = load i64, ptr %n
  %nextp = getelementptr i8, ptr %n, i64 8
  %next = load ptr, ptr %nextp
  %s = call i64 @sum(ptr %next)
  %r = add i64 %s, %v
  ret i64 %r
done:
  ret i64 0
}

; A tree walk: the second recursive call needs no probe before it (the callee probes
; first), the return after it does.
; CHECK-LABEL: define void @walk(
; CHECK-NEXT: entry:
; CHECK-NEXT: call i64 @llvm.readcyclecounter()
; CHECK: call void @walk(ptr %l)
; CHECK-NOT: readcyclecounter
; CHECK: call void @walk(ptr %r)
; CHECK-NEXT: call i64 @llvm.readcyclecounter()
; CHECK: ret void
define void @walk(ptr %n) {
entry:
  %null = icmp eq ptr %n, null
  br i1 %null, label %done, label %rec
rec:
  %lp = getelementptr i8, ptr %n, i64 8
  %l = load ptr, ptr %lp
  %rp = getelementptr i8, ptr %n, i64 16
  %r = load ptr, ptr %rp
  call void @walk(ptr %l)
  call void @walk(ptr %r)
  br label %done
done:
  ret void
}

; Mutual recursion: both functions of the cycle probe at entry; @leaf, which they call but
; which calls nothing back, is not on the cycle and stays probe-free.
; CHECK-LABEL: define i1 @is_even(
; CHECK-NEXT: entry:
; CHECK-NEXT: call i64 @llvm.readcyclecounter()
; CHECK-LABEL: define i1 @is_odd(
; CHECK-NEXT: entry:
; CHECK-NEXT: call i64 @llvm.readcyclecounter()
; CHECK-LABEL: define i64 @leaf(
; CHECK-NOT: readcyclecounter
; CHECK: ret i64
define i1 @is_even(i64 %n) {
entry:
  %z = icmp eq i64 %n, 0
  br i1 %z, label %yes, label %rec
rec:
  %m = sub i64 %n, 1
  %x = call i64 @leaf(i64 %m)
  %o = call i1 @is_odd(i64 %x)
  ret i1 %o
yes:
  ret i1 true
}

define i1 @is_odd(i64 %n) {
entry:
  %z = icmp eq i64 %n, 0
  br i1 %z, label %no, label %rec
rec:
  %m = sub i64 %n, 1
  %e = call i1 @is_even(i64 %m)
  ret i1 %e
no:
  ret i1 false
}

define i64 @leaf(i64 %n) {
  %a = add i64 %n, 1
  %b = sub i64 %a, 1
  ret i64 %b
}

; A caller of a recursive function is not on its cycle: no entry probe, and nothing after
; the call either, since @sum's own last probe comes right before its add.
; CHECK-LABEL: define i64 @start(
; CHECK-NOT: readcyclecounter
; CHECK: ret i64
define i64 @start(ptr %list) {
  %s = call i64 @sum(ptr %list)
  %t = add i64 %s, 1
  ret i64 %t
}
