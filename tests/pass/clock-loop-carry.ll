; A loop inside another keeps its distance to the next probe from one entry to the next,
; whichever way it leaves. The parent charges nothing for its child's iterations (the child
; probes itself), so a child entered again and again for fewer iterations than its stride
; must go on counting where the last entry stopped, or it would never probe: here a
; scanner's skip loop, left through its data exit (a non-space byte) on almost every entry.
; Body cost 9 per skip iteration, B = 600: stride 64. The distance is a register carried
; through the parent (a PHI in its header), set to the stride at function entry; the data
; exit saves probe.at minus the IV of the iteration it leaves, the counted exit what the
; quanta.hit block computes.
; RUN: %opt -passes=quanta-clock -quanta-bound=600 -S %s | FileCheck %s
; Fixed strides (-quanta-adaptive=0) carry it the same way, in place of the per-entry
; `(iv - start) & mask` count, which would restart at every entry.
; RUN: %opt -passes=quanta-clock -quanta-bound=600 -quanta-adaptive=0 -S %s | FileCheck %s --check-prefix=FIXED
; Flag mode polls a branchy loop without calls on every iteration (flag-poll.ll), so the
; carry shows in @calls, whose loops call an instrumented function (the callee may switch
; threads, so both keep a stride): the child's data exit saves the distance the same way.
; RUN: %opt -passes=quanta-flag -S %s | FileCheck %s --check-prefix=FLAG

; CHECK-LABEL: define i64 @words(
; CHECK-NOT: %quanta.left = alloca
; CHECK: outer:
; CHECK: %quanta.left.0 = phi i64 [ 64, %entry ], [ [[CARRIED:%.*]], %{{.*}} ]
; CHECK: %quanta.probe.first = add i64 %i, %quanta.left.0
; CHECK: skip:
; CHECK: %quanta.probe.at = phi i64 [ %quanta.probe.first, %outer ]
; CHECK: br i1 %space, label %skip.latch, label %word
; CHECK: %quanta.at.limit = icmp eq i64 %j.next, %quanta.limit
;   the data exit
; CHECK: word:
; CHECK: [[CARRIED]] = sub i64 %quanta.probe.at, %j
;   the counted exit, through quanta.hit (it leaves the function: nothing to carry)
; CHECK: quanta.hit:
; CHECK: quanta.probe:
; CHECK-NEXT: %quanta.gap.next = call i64 @__quanta_clock_gap(ptr %quanta.gap, i64 64, i64 4096, i64 0)

; FIXED-LABEL: define i64 @words(
; FIXED: %quanta.left.0 = phi i64 [ 64, %entry ], [ [[CARRIED:%.*]], %{{.*}} ]
; FIXED: %quanta.probe.first = add i64 %i, %quanta.left.0
; FIXED-NOT: quanta.iters
; FIXED: word:
; FIXED: [[CARRIED]] = sub i64 %quanta.probe.at, %j
; FIXED: quanta.probe:
; FIXED-NEXT: %quanta.probe.next = add i64 %quanta.iv, 64
; FIXED: call i64 @llvm.readcyclecounter()

; FLAG-LABEL: define i64 @calls(
; FLAG: %quanta.left.0 = phi i64 [ [[STRIDE:[0-9]+]], %{{.*}} ], [ [[CARRIED:%.*]], %{{.*}} ]
; FLAG: %quanta.probe.first = add i64 %i, %quanta.left.0
; FLAG: word:
; FLAG: [[CARRIED]] = sub i64 %quanta.probe.at, %j
; FLAG: quanta.probe:
; FLAG-NEXT: %quanta.probe.next = add i64 %quanta.iv, [[STRIDE]]
; FLAG: load volatile i32

declare void @note(i64)

define i64 @words(ptr %a, i64 %n) {
entry:
  br label %outer
outer:
  %i = phi i64 [ 0, %entry ], [ %i.after, %outer.latch ]
  %w = phi i64 [ 0, %entry ], [ %w.next, %outer.latch ]
  br label %skip
skip:
  %j = phi i64 [ %i, %outer ], [ %j.next, %skip.latch ]
  %p = getelementptr inbounds i8, ptr %a, i64 %j
  %c = load i8, ptr %p
  %space = icmp eq i8 %c, 32
  br i1 %space, label %skip.latch, label %word
skip.latch:
  %j.next = add nuw nsw i64 %j, 1
  %more = icmp ne i64 %j.next, %n
  br i1 %more, label %skip, label %done
word:
  %w.next = add i64 %w, 1
  call void @note(i64 %w.next)
  %i.after = add nuw nsw i64 %j, 1
  %end = icmp ult i64 %i.after, %n
  br label %outer.latch
outer.latch:
  br i1 %end, label %outer, label %done
done:
  %r = phi i64 [ %w, %skip.latch ], [ %w.next, %outer.latch ]
  ret i64 %r
}

define internal i64 @weigh(i8 %c) {
  %z = zext i8 %c to i64
  %r = mul i64 %z, 31
  ret i64 %r
}

define i64 @calls(ptr %a, i64 %n) {
entry:
  br label %outer
outer:
  %i = phi i64 [ 0, %entry ], [ %i.after, %outer.latch ]
  %w = phi i64 [ 0, %entry ], [ %w.next, %outer.latch ]
  br label %skip
skip:
  %j = phi i64 [ %i, %outer ], [ %j.next, %skip.latch ]
  %p = getelementptr inbounds i8, ptr %a, i64 %j
  %c = load i8, ptr %p
  %space = icmp eq i8 %c, 32
  br i1 %space, label %skip.latch, label %word
skip.latch:
  %k = call i64 @weigh(i8 %c)
  %j.next = add nuw nsw i64 %j, 1
  %more = icmp ne i64 %j.next, %n
  br i1 %more, label %skip, label %done
word:
  %v = call i64 @weigh(i8 %c)
  %w.next = add i64 %w, %v
  %i.after = add nuw nsw i64 %j, 1
  %end = icmp ult i64 %i.after, %n
  br label %outer.latch
outer.latch:
  br i1 %end, label %outer, label %done
done:
  %r = phi i64 [ %w, %skip.latch ], [ %w.next, %outer.latch ]
  ret i64 %r
}
