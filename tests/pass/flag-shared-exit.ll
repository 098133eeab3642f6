; Flag mode, a loop directly inside a polled loop (the parent reads the flag on every
; iteration), with no probing loops of its own: each entry starts a whole stride, so its
; probe can share the loop's exit test at no cost on the hot path. The test may be
; relational (`j < n`, a scanner's bound) and on any affine value of the loop (here the
; pre-increment IV); the latch then compares with a limit, the nearer of the end and the
; next probe (min/max), and only when that fails does an off-path block tell the exit from
; the probe. The add saturates unless SCEV's ranges show it cannot wrap. Such a loop reads
; no flag on its hot path (word_count's hashing loop: one load, compare and branch per
; byte fewer). A top-level scanner keeps its poll: nothing bounds how much its entries
; add up to.
; RUN: %opt -passes=quanta-flag -S %s | FileCheck %s
; RUN: %opt -passes=quanta-flag -quanta-merge-exit=0 -S %s | FileCheck %s --check-prefix=OFF

; CHECK-LABEL: define i64 @words(
; CHECK: outer:
; CHECK: load atomic volatile i32, ptr addrspace(257)
; CHECK: [[NEXT:%quanta.probe.next]] = add nsw i64 %iz, 128
; CHECK-NEXT: [[L0:%quanta.limit.next]] = call i64 @llvm.smin.i64(i64 %n, i64 [[NEXT]])
; CHECK-NEXT: br label %scan
; CHECK: scan:
; CHECK: %quanta.limit = phi i64 [ [[L0]], %{{.*}} ], [ %quanta.limit, %scan.latch ], [ [[L1:%.*]], %{{.*}} ]
; CHECK-NOT: load volatile
; CHECK: scan.latch:
; CHECK-NOT: load volatile
; CHECK: %quanta.at.limit = icmp sge i64 %j, %quanta.limit
; CHECK-NEXT: br i1 %quanta.at.limit, label %quanta.hit, label %scan
; CHECK: quanta.hit:
; CHECK-NEXT: %quanta.iv = call i64 asm "", "=r,0"(i64 %j)
; CHECK-NEXT: %quanta.end = icmp sge i64 %quanta.iv, %n
; CHECK-NEXT: br i1 %quanta.end, label %word.end, label %quanta.probe
; CHECK: quanta.probe:
; CHECK-NEXT: [[N1:%.*]] = add nsw i64 %quanta.iv, 128
; CHECK-NEXT: [[L1]] = call i64 @llvm.smin.i64(i64 %n, i64 [[N1]])
; CHECK-NEXT: load atomic volatile i32, ptr addrspace(257)
; CHECK: word.end:
; CHECK-NOT: load volatile
; CHECK: ret i64
; Without the shared test, the inner scan polls on its own back-edge.
; OFF-LABEL: define i64 @words(
; OFF: scan.latch:
; OFF: %more = icmp slt i64 %j, %n
; OFF-NEXT: load atomic volatile i32, ptr addrspace(257)

; CHECK-LABEL: define i64 @words_wide(
; CHECK: call i64 @llvm.sadd.sat.i64(i64 %{{.*}}, i64 128)
; CHECK: icmp sge i64 %j.next, %quanta.limit
; CHECK: call i64 @llvm.sadd.sat.i64(i64 %quanta.iv, i64 128)

; CHECK-LABEL: define i64 @back(
; CHECK: call i64 @llvm.usub.sat.i64(i64 %{{.*}}, i64 128)
; CHECK-NEXT: call i64 @llvm.umax.i64(i64 %lo,
; CHECK: %quanta.at.limit = icmp ule i64 %k.next, %quanta.limit
; CHECK: %quanta.end = icmp ule i64 %quanta.iv, %lo

; CHECK-LABEL: define i64 @alone(
; CHECK-NOT: quanta.limit
; CHECK: %more = icmp slt i64 %j.next, %n
; CHECK-NEXT: load atomic volatile i32, ptr addrspace(257)
; CHECK: ret i64

; Words: the outer loop polls; the inner scan leaves on a space (header) or on j >= n
; (latch, a relational test of the pre-increment IV). Both j's start and n are below
; 2^32, so j + 128 cannot wrap.
define i64 @words(ptr %a, i32 %n32) {
entry:
  %n = zext i32 %n32 to i64
  br label %outer
outer:
  %i = phi i64 [ 0, %entry ], [ %i.next, %outer.latch ]
  %h = phi i64 [ 0, %entry ], [ %h.next, %outer.latch ]
  %iz = and i64 %i, 4294967295
  br label %scan
scan:
  %j = phi i64 [ %iz, %outer ], [ %j.next, %scan.latch ]
  %w = phi i64 [ 5381, %outer ], [ %w.next, %scan.latch ]
  %p = getelementptr inbounds i8, ptr %a, i64 %j
  %c = load i8, ptr %p
  %sp = icmp eq i8 %c, 32
  br i1 %sp, label %word.end, label %scan.latch
scan.latch:
  %cz = zext i8 %c to i64
  %w33 = mul i64 %w, 33
  %w.next = add i64 %w33, %cz
  %j.next = add nsw i64 %j, 1
  %more = icmp slt i64 %j, %n
  br i1 %more, label %scan, label %word.end
word.end:
  %jw = phi i64 [ %j, %scan ], [ %j.next, %scan.latch ]
  %ww = phi i64 [ %w, %scan ], [ %w.next, %scan.latch ]
  %odd = and i64 %ww, 1
  %isodd = icmp eq i64 %odd, 1
  br i1 %isodd, label %bump, label %outer.latch
bump:
  %hx = xor i64 %h, %ww
  br label %outer.latch
outer.latch:
  %h.next = phi i64 [ %h, %word.end ], [ %hx, %bump ]
  %i.next = add nsw i64 %jw, 1
  %go = icmp slt i64 %i.next, %n
  br i1 %go, label %outer, label %exit
exit:
  ret i64 %h.next
}

; The same scan with an i64 bound from the caller: j + 128 might wrap, so it saturates.
define i64 @words_wide(ptr %a, i64 %n) {
entry:
  br label %outer
outer:
  %i = phi i64 [ 0, %entry ], [ %i.next, %outer.latch ]
  %h = phi i64 [ 0, %entry ], [ %h.next, %outer.latch ]
  br label %scan
scan:
  %j = phi i64 [ %i, %outer ], [ %j.next, %scan.latch ]
  %p = getelementptr inbounds i8, ptr %a, i64 %j
  %c = load i8, ptr %p
  %sp = icmp eq i8 %c, 32
  br i1 %sp, label %word.end, label %scan.latch
scan.latch:
  %j.next = add nsw i64 %j, 1
  %more = icmp slt i64 %j.next, %n
  br i1 %more, label %scan, label %word.end
word.end:
  %jw = phi i64 [ %j, %scan ], [ %j.next, %scan.latch ]
  %odd = and i64 %jw, 1
  %isodd = icmp eq i64 %odd, 1
  br i1 %isodd, label %bump, label %outer.latch
bump:
  %hx = xor i64 %h, %jw
  br label %outer.latch
outer.latch:
  %h.next = phi i64 [ %h, %word.end ], [ %hx, %bump ]
  %i.next = add nsw i64 %jw, 1
  %go = icmp slt i64 %i.next, %n
  br i1 %go, label %outer, label %exit
exit:
  ret i64 %h.next
}

; Backwards: the inner scan counts k down while k >u lo.
define i64 @back(ptr %a, i64 %n, i64 %lo) {
entry:
  br label %outer
outer:
  %i = phi i64 [ 0, %entry ], [ %i.next, %outer.latch ]
  %s = phi i64 [ 0, %entry ], [ %s.next, %outer.latch ]
  %pi = getelementptr inbounds i8, ptr %a, i64 %i
  %ci = load i8, ptr %pi
  %nl = icmp eq i8 %ci, 10
  br i1 %nl, label %scan, label %outer.latch
scan:
  %k = phi i64 [ %i, %outer ], [ %k.next, %scan.latch ]
  %t = phi i64 [ %s, %outer ], [ %t.next, %scan.latch ]
  %p = getelementptr inbounds i8, ptr %a, i64 %k
  %c = load i8, ptr %p
  %sp = icmp eq i8 %c, 32
  br i1 %sp, label %scan.end, label %scan.latch
scan.latch:
  %cz = zext i8 %c to i64
  %t.next = add i64 %t, %cz
  %k.next = add i64 %k, -1
  %more = icmp ugt i64 %k.next, %lo
  br i1 %more, label %scan, label %scan.end
scan.end:
  %ts = phi i64 [ %t, %scan ], [ %t.next, %scan.latch ]
  br label %outer.latch
outer.latch:
  %s.next = phi i64 [ %s, %outer ], [ %ts, %scan.end ]
  %i.next = add i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %outer
exit:
  ret i64 %s.next
}

; A top-level scanner: nothing polls around it, so it polls itself.
define i64 @alone(ptr %a, i64 %n) {
entry:
  br label %scan
scan:
  %j = phi i64 [ 0, %entry ], [ %j.next, %scan.latch ]
  %p = getelementptr inbounds i8, ptr %a, i64 %j
  %c = load i8, ptr %p
  %sp = icmp eq i8 %c, 32
  br i1 %sp, label %out, label %scan.latch
scan.latch:
  %j.next = add nsw i64 %j, 1
  %more = icmp slt i64 %j.next, %n
  br i1 %more, label %scan, label %out
out:
  %r = phi i64 [ %j, %scan ], [ %n, %scan.latch ]
  ret i64 %r
}
