; The iterations of a loop inside another add up to probes however the loop is left. The
; parent charges nothing for a child's iterations (the child probes itself), so a child
; entered again and again for fewer iterations than its stride (here a scanner's skip loop,
; left through its data exit, a non-space byte, on almost every entry) would otherwise
; never probe. Body cost 7 per skip iteration, B = 600: stride 64.
;
; Adaptive clock sites carry their distance to the next probe from one entry to the next
; (their gaps are planned by time, which runs on across entries): a register through the
; parent, set to the stride at function entry, that every exit sets to probe.at - iv again
; (the data exit from the IV of the iteration it leaves).
; RUN: %opt -passes=quanta-clock -quanta-bound=600 -S %s | FileCheck %s
; Fixed strides (-quanta-adaptive=0), under a parent that keeps the function's budget
; (@words: a Counter loop), start each entry afresh and charge the budget what the entry ran
; at every exit, (iv - start) * 7, in place of the per-entry `(iv - start) & mask` count
; alone. Under a parent without a budget (@fourwords: it runs four times, a Static loop)
; they carry the distance as adaptive sites do.
; RUN: %opt -passes=quanta-clock -quanta-bound=600 -quanta-adaptive=0 -S %s | FileCheck %s --check-prefix=FIXED
; Flag mode polls a branchy loop without calls on every iteration (flag-poll.ll), so @calls,
; whose loops call an instrumented function (the callee may switch threads, so both keep a
; stride), shows the charge there: 1000 / 7 -> 128 iterations, counted by a compare of its
; own (flag mode does not share the loop's exit test).
; RUN: %opt -passes=quanta-flag -S %s | FileCheck %s --check-prefix=FLAG

; CHECK-LABEL: define i64 @words(
; CHECK-NOT: %quanta.left = alloca
; CHECK: outer:
; CHECK: %quanta.left.0 = phi i64 [ 64, %entry ], [ [[CARRIED:%.*]], %{{.*}} ]
; CHECK: %quanta.probe.first = add i64 %i, %quanta.left.0
; CHECK: br i1 %space, label %skip.latch, label %word
; CHECK: %quanta.at.limit = icmp eq i64 %j.next, %quanta.limit
;   the data exit
; CHECK: word:
; CHECK: [[CARRIED]] = sub i64 %quanta.probe.at, %j
; CHECK-NOT: quanta.entry.cost
; CHECK: quanta.probe:
; CHECK-NEXT: %quanta.gap.next = call i64 @quanta_clock_gap(ptr %quanta.gap, i64 64, i64 4096, i64 0, i64 8192)

; CHECK-LABEL: define i64 @fourwords(
; CHECK: outer:
; CHECK-NEXT: %quanta.left.0 = phi i64 [ 64, %entry ], [ [[CARRIED:%.*]], %word ]
; CHECK: %quanta.probe.first = add i64 %i, %quanta.left.0
; CHECK: word:
; CHECK: [[CARRIED]] = sub i64 %quanta.probe.at, %j

; FIXED-LABEL: define i64 @words(
; FIXED-NOT: quanta.iters
; FIXED: %quanta.budget.0 = phi i64 [ 600, %entry ], [ %quanta.budget.1, %{{.*}} ]
; FIXED: %quanta.probe.first = add i64 %i, 64
; FIXED: word:
; FIXED: [[RAN:%.*]] = sub i64 %j, %i
; FIXED-NEXT: %quanta.entry.cost = mul i64 [[RAN]], 7
; FIXED-NEXT: sub i64 %quanta.budget.0, %quanta.entry.cost
; FIXED: quanta.hit:
; FIXED: %quanta.iv = call i64 asm
; FIXED: quanta.probe:
; FIXED-NEXT: %quanta.probe.next = add i64 %quanta.iv, 64
; FIXED: call i64 @llvm.readcyclecounter()
; FIXED: sub i64 %quanta.iv, %i
; FIXED-NEXT: mul i64 %{{.*}}, 7
; FIXED-LABEL: define i64 @fourwords(
; FIXED-NOT: quanta.iters
; FIXED: %quanta.left.0 = phi i64 [ 64, %entry ], [ [[CARRIED:%.*]], %word ]
; FIXED: [[CARRIED]] = sub i64 %quanta.probe.at, %j

; FLAG-LABEL: define i64 @calls(
; FLAG: %quanta.probe.first = add i64 %i, [[STRIDE:[0-9]+]]
; FLAG: %quanta.fire = icmp eq i64 %j.next, %quanta.probe.at
; FLAG: %quanta.probe.next = add i64 %j.next, [[STRIDE]]
; FLAG: load atomic volatile i32
; FLAG: word:
; FLAG: %quanta.entry.cost = mul i64 %{{.*}}, {{[0-9]+}}

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

define i64 @fourwords(ptr %a, i64 %n) {
entry:
  br label %outer
outer:
  %k = phi i32 [ 0, %entry ], [ %k.next, %word ]
  %i = phi i64 [ 0, %entry ], [ %i.after, %word ]
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
  %i.after = add nuw nsw i64 %j, 1
  %k.next = add nuw nsw i32 %k, 1
  %again = icmp ult i32 %k.next, 4
  br i1 %again, label %outer, label %done
done:
  %r = phi i64 [ %j.next, %skip.latch ], [ %i.after, %word ]
  ret i64 %r
}
