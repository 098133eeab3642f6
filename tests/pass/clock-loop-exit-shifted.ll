; A loop inside another whose latch tests the IV itself against a bound, `j < last`, as a
; scanner's word loop does (`while (i < n && s[i] != ' ')` rotated), shares that compare
; with its adaptive probe too, although its distance is carried across entries: the
; tested value is the IV (`x = iv + off`, here off = -1 from x's value before its first
; test), so the probe's IV values are x's, `probe.first = (i - 1) + left`, and the latch
; tests `j >= min(last, probe.at)`. Only quanta.hit tells the end from a probe. The word
; exit saves `probe.at - (j - 1)` for the next entry; the latch's end saves
; `probe.at - j`, one step when it is 0 (an add of the compare, no select). A constant
; off is kept in the saved distance (it holds `probe.at - iv`), so the entry's add and the
; word exit's subtract are one instruction each. Body cost 9,
; B = 600: stride 64, at most 64 * 64 = 4096 steps ahead, and `last` < 2^32 cannot wrap
; that far. Before, the probe had a compare of its own on the IV's next value: +3
; instructions a byte in word_count (two IVs kept).
; RUN: %opt -passes=quanta-clock -quanta-bound=600 -S %s | FileCheck %s
; On x86 the site's address is computed at the quanta_clock_gap() call by an asm with side effects,
; which machine LICM cannot hoist into a register held across the loop.
; RUN: %opt -mtriple=x86_64-unknown-linux-gnu -passes=quanta-clock -quanta-bound=600 -S %s | FileCheck %s --check-prefix=X86

; CHECK-LABEL: define i64 @words(
; CHECK: outer:
;   the constant off is folded into the carried distance: it starts at 64 - 1
; CHECK: %quanta.left.0 = phi i64 [ 63, %entry ], [ [[CARRIED:%.*]], %{{.*}} ]
; CHECK: %quanta.probe.first = add i64 %i, %quanta.left.0
; CHECK-NEXT: %quanta.limit.next = call i64 @llvm.smin.i64(i64 %last, i64 %quanta.probe.first)
; CHECK: word.latch:
; CHECK-NOT: icmp slt i64 %j, %last
; CHECK: %quanta.at.limit = icmp sge i64 %j, %quanta.limit
; CHECK-NEXT: br i1 %quanta.at.limit, label %quanta.hit, label %word
;   the word exit: x's value before this iteration's test is j - 1, so the distance
;   is probe.at - (j - 1), kept as that plus off: one subtract
; CHECK: found:
; CHECK-NOT: add i64 %j, -1
; CHECK: [[CARRIED]] = sub i64 %quanta.probe.at, %j
; CHECK: quanta.hit:
; CHECK-NEXT: %quanta.iv = call i64 asm "", "=r,0"(i64 %j)
; CHECK-NEXT: [[LEFT:%.*]] = sub i64 %quanta.probe.at, %quanta.iv
; CHECK-NEXT: [[DUE:%.*]] = icmp eq i64 [[LEFT]], 0
; CHECK-NEXT: [[ONE:%.*]] = zext i1 [[DUE]] to i64
; CHECK-NEXT: [[CLAMPED:%.*]] = add i64 [[LEFT]], [[ONE]]
; CHECK-NEXT: add i64 [[CLAMPED]], -1
; CHECK-NEXT: %quanta.end = icmp sge i64 %quanta.iv, %last
; CHECK-NEXT: br i1 %quanta.end, label %done.loopexit, label %quanta.probe
; CHECK: quanta.probe:
; CHECK-NEXT: %quanta.gap.next = call i64 @quanta_clock_gap(ptr %quanta.gap, i64 64, i64 4096, i64 0, i64 8192)
; CHECK: %quanta.probe.next = add i64 %quanta.iv,
; CHECK-NEXT: call i64 @llvm.smin.i64(i64 %last, i64 %quanta.probe.next)
; CHECK-NEXT: br label %word

; A bound of full width could be passed 4096 steps ahead by a wrap: the probe's adds
; saturate instead (a saturated probe is only nearer). A saturated probe.at is the range's
; end, off x's lattice, so the distance an entry saves may be under one step: the next
; entry takes at least one (the end saves `probe.at - x` as it is).
; CHECK-LABEL: define i64 @wide(
; CHECK: %quanta.probe.base = add i64 %i, -1
; CHECK-NEXT: %quanta.probe.left.step = call i64 @llvm.smax.i64(i64 %quanta.left.0, i64 1)
; CHECK-NEXT: [[START:%.*]] = add i64 %quanta.probe.base, 1
; CHECK-NEXT: [[REST:%.*]] = sub i64 %quanta.probe.left.step, 1
; CHECK-NEXT: %quanta.probe.first = call i64 @llvm.sadd.sat.i64(i64 [[START]], i64 [[REST]])
; CHECK-NOT: %quanta.fire
; CHECK: %quanta.at.limit = icmp sge i64 %j, %quanta.limit
; CHECK: quanta.hit:
; CHECK-NEXT: %quanta.iv = call i64 asm "", "=r,0"(i64 %j)
; CHECK-NEXT: [[LEFT:%.*]] = sub i64 %quanta.probe.at, %quanta.iv
; CHECK-NEXT: %quanta.end = icmp sge i64 %quanta.iv, %last
; CHECK: quanta.probe:
; CHECK: %quanta.probe.next = call i64 @llvm.sadd.sat.i64(i64 %quanta.iv,
; CHECK-NEXT: call i64 @llvm.smin.i64(i64 %last, i64 %quanta.probe.next)

; X86-LABEL: define i64 @words(
; X86: quanta.probe:
; X86-NEXT: %quanta.site = call ptr asm sideeffect "leaq $1, $0", "=r,*m"(ptr elementtype([6 x i64]) %quanta.gap)
; X86-NEXT: %quanta.gap.next = call i64 @quanta_clock_gap(ptr %quanta.site, i64 64, i64 4096, i64 0, i64 8192)

declare void @note(i64)

define i64 @words(ptr %a, i32 %n32) {
entry:
  %n = zext i32 %n32 to i64
  %last = add nsw i64 %n, -1
  br label %outer
outer:
  %i = phi i64 [ 0, %entry ], [ %i.after, %outer.latch ]
  br label %word
word:
  %j = phi i64 [ %i, %outer ], [ %j.next, %word.latch ]
  %h = phi i64 [ 7, %outer ], [ %h.next, %word.latch ]
  %p = getelementptr inbounds i8, ptr %a, i64 %j
  %c = load i8, ptr %p
  %space = icmp eq i8 %c, 32
  br i1 %space, label %found, label %word.latch
word.latch:
  %j.next = add nsw i64 %j, 1
  %z = zext i8 %c to i64
  %x = xor i64 %h, %z
  %h.next = mul i64 %x, 31
  %more = icmp slt i64 %j, %last
  br i1 %more, label %word, label %done
found:
  call void @note(i64 %h)
  %i.after = add nsw i64 %j, 1
  br label %outer.latch
outer.latch:
  %again = icmp slt i64 %i.after, %n
  br i1 %again, label %outer, label %done
done:
  %r = phi i64 [ %h.next, %word.latch ], [ %i.after, %outer.latch ]
  ret i64 %r
}

define i64 @wide(ptr %a, i64 %last) {
entry:
  br label %outer
outer:
  %i = phi i64 [ 0, %entry ], [ %i.after, %outer.latch ]
  br label %word
word:
  %j = phi i64 [ %i, %outer ], [ %j.next, %word.latch ]
  %h = phi i64 [ 7, %outer ], [ %h.next, %word.latch ]
  %p = getelementptr inbounds i8, ptr %a, i64 %j
  %c = load i8, ptr %p
  %space = icmp eq i8 %c, 32
  br i1 %space, label %found, label %word.latch
word.latch:
  %j.next = add nsw i64 %j, 1
  %z = zext i8 %c to i64
  %x = xor i64 %h, %z
  %h.next = mul i64 %x, 31
  %more = icmp slt i64 %j, %last
  br i1 %more, label %word, label %done
found:
  call void @note(i64 %h)
  %i.after = add nsw i64 %j, 1
  br label %outer.latch
outer.latch:
  %again = icmp slt i64 %i.after, %last
  br i1 %again, label %outer, label %done
done:
  %r = phi i64 [ %h.next, %word.latch ], [ %i.after, %outer.latch ]
  ret i64 %r
}

; A step of 3 (histogram's `i < n; i += 3`, tested on i + 3): the probe's values stay on
; the tested value's lattice (first = 0 + 64 * 3), so the relational limit is met exactly
; and "due now" saves a whole step (a select: adc's one would leave the lattice). Before,
; the probe had a compare of its own and loop strength reduction a second IV: +5
; instructions a pixel.
; CHECK-LABEL: define i64 @pixels(
; CHECK: %quanta.probe.first = add i64 0, 192
; CHECK-NEXT: %quanta.limit.next = call i64 @llvm.umin.i64(i64 50331648, i64 %quanta.probe.first)
; CHECK: loop:
; CHECK-NOT: %quanta.fire
; CHECK: %quanta.at.limit = icmp uge i64 %i.next, %quanta.limit
; CHECK-NEXT: br i1 %quanta.at.limit, label %quanta.hit, label %loop
; CHECK: quanta.hit:
; CHECK-NEXT: %quanta.iv = call i64 asm "", "=r,0"(i64 %i.next)
; CHECK-NEXT: [[LEFT:%.*]] = sub i64 %quanta.probe.at, %quanta.iv
; CHECK-NEXT: [[DUE:%.*]] = icmp eq i64 [[LEFT]], 0
; CHECK-NEXT: select i1 [[DUE]], i64 3, i64 [[LEFT]]
; CHECK: quanta.probe:
; CHECK: %quanta.probe.next = add i64 %quanta.iv,
; CHECK-NEXT: call i64 @llvm.umin.i64(i64 50331648, i64 %quanta.probe.next)

define i64 @pixels(ptr %img, ptr %counts) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %p = getelementptr inbounds i8, ptr %img, i64 %i
  %c = load i8, ptr %p
  %z = zext i8 %c to i64
  %q = getelementptr inbounds i32, ptr %counts, i64 %z
  %old = load i32, ptr %q
  %new = add i32 %old, 1
  store i32 %new, ptr %q
  %i.next = add nuw i64 %i, 3
  %more = icmp ult i64 %i.next, 50331648
  br i1 %more, label %loop, label %done
done:
  ret i64 %i.next
}

; Counting down two at a time while `k > 1` (bzip2's quadrant loop unrolled by two): the
; probe saturates at 0, and an entry from an odd start ends at k = 1 with probe.at = 0,
; saving -1. Taken as it is, the next entry's first probe, `(start - 2) -sat (-1 + 2)`
; wrapped to 0 and that entry ran to its end probe-free; at least one step (-2) puts the
; probe at its first test (tests/pass/runtime, InstrumentedStride.Countdown*: every round
; yields). Its trip count is known at entry, so short trips take a probe-free clone first.
; CHECK-LABEL: define i64 @down_by_two(
; CHECK: count.quanta.ph:
; CHECK: %quanta.probe.left.step = call i64 @llvm.smin.i64(i64 %quanta.left.0, i64 -2)
; CHECK-NEXT: [[FROM:%.*]] = add i64 %{{.*}}, -2
; CHECK-NEXT: [[REST:%.*]] = sub i64 %quanta.probe.left.step, -2
; CHECK-NEXT: [[BACK:%.*]] = sub i64 0, [[REST]]
; CHECK-NEXT: %quanta.probe.first = call i64 @llvm.usub.sat.i64(i64 [[FROM]], i64 [[BACK]])
; CHECK-NEXT: %quanta.limit.next = call i64 @llvm.umax.i64(i64 1, i64 %quanta.probe.first)
; CHECK: %quanta.at.limit = icmp ule i64 %k.next, %quanta.limit
define i64 @down_by_two(ptr %a, i64 %top, i64 %rounds) {
entry:
  br label %outer
outer:
  %r = phi i64 [ 0, %entry ], [ %r.next, %outer.latch ]
  %s = phi i64 [ 0, %entry ], [ %h.next, %outer.latch ]
  br label %count
count:
  %k = phi i64 [ %top, %outer ], [ %k.next, %count ]
  %h = phi i64 [ %s, %outer ], [ %h.next, %count ]
  %p = getelementptr inbounds i8, ptr %a, i64 %k
  %c = load i8, ptr %p
  %z = zext i8 %c to i64
  %m = mul i64 %h, 31
  %h.next = add i64 %m, %z
  %k.next = add i64 %k, -2
  %more = icmp ugt i64 %k.next, 1
  br i1 %more, label %count, label %outer.latch
outer.latch:
  %r.next = add i64 %r, 1
  %again = icmp ult i64 %r.next, %rounds
  br i1 %again, label %outer, label %done
done:
  ret i64 %h.next
}
