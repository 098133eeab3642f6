; A loop whose only dynamic child keeps the function's budget (a hash probe sequence,
; `at = (at + 1) & mask`, has no affine IV) strides on its own IV: its exit test carries
; the probe (`inc == limit`), so an outer iteration (one lookup) pays nothing for it, and
; the child alone charges the budget. Before, the parent charged the budget too: one
; subtract and branch per lookup, ~10% of hash_lookup where lookups overlap their misses.
; RUN: %opt -passes=quanta-clock -S %s | FileCheck %s --check-prefix=CLOCK
; RUN: %opt -passes=quanta-clock -quanta-stride-over-children=0 -S %s | FileCheck %s --check-prefix=CHARGED
; Flag mode, which shares no exit test, polls the same loop (it has branches of its own).
; RUN: %opt -passes=quanta-flag -S %s | FileCheck %s --check-prefix=POLLED

; CLOCK-LABEL: define i64 @lookups(
; CLOCK: for.body:
; CLOCK: %quanta.limit = phi i64
; CLOCK-NOT: sub i64 %quanta.budget
; CLOCK: while.body:
; CLOCK: sub i64 %quanta.budget{{.*}}, 8
; CLOCK: call i64 @quanta_clock_gap(
; CLOCK: while.end:
; CLOCK-NOT: %quanta.budget{{.*}} = sub
; CLOCK: %quanta.at.limit = icmp eq i64 %inc, %quanta.limit
; CLOCK-NEXT: br i1 %quanta.at.limit, label %quanta.hit, label %for.body

; CHARGED-LABEL: define i64 @lookups(
; CHARGED: for.body:
; CHARGED: sub i64 %quanta.budget{{.*}}, 16
; CHARGED-NOT: %quanta.limit
; CHARGED: %exitcond.not = icmp eq i64 %inc, %n

; POLLED-LABEL: define i64 @lookups(
; POLLED: for.body:
; POLLED: %quanta.flag = load atomic volatile i32
; POLLED-NOT: %quanta.limit
; POLLED: %exitcond.not = icmp eq i64 %inc, %n

define i64 @lookups(ptr %keys, ptr %q, i64 %n) {
entry:
  %cmp28 = icmp sgt i64 %n, 0
  br i1 %cmp28, label %for.body, label %for.cond.cleanup

for.cond.cleanup:
  %hits.0.lcssa = phi i64 [ 0, %entry ], [ %add11, %while.end ]
  ret i64 %hits.0.lcssa

for.body:
  %hits.030 = phi i64 [ %add11, %while.end ], [ 0, %entry ]
  %i.029 = phi i64 [ %inc, %while.end ], [ 0, %entry ]
  %arrayidx = getelementptr inbounds i64, ptr %q, i64 %i.029
  %0 = load i64, ptr %arrayidx, align 8
  %mul = mul i64 %0, -7046029254386353131
  %shr = lshr i64 %mul, 44
  %arrayidx123 = getelementptr inbounds i64, ptr %keys, i64 %shr
  %1 = load i64, ptr %arrayidx123, align 8
  %tobool.not24 = icmp eq i64 %1, 0
  %cmp4.not25 = icmp eq i64 %1, %0
  %or.cond26 = or i1 %tobool.not24, %cmp4.not25
  br i1 %or.cond26, label %while.end, label %while.body.preheader

while.body.preheader:
  %conv = trunc nuw nsw i64 %shr to i32
  br label %while.body

while.body:
  %at.027 = phi i32 [ %and, %while.body ], [ %conv, %while.body.preheader ]
  %add = add nuw nsw i32 %at.027, 1
  %and = and i32 %add, 1023
  %idxprom = zext nneg i32 %and to i64
  %arrayidx1 = getelementptr inbounds i64, ptr %keys, i64 %idxprom
  %2 = load i64, ptr %arrayidx1, align 8
  %tobool.not = icmp eq i64 %2, 0
  %cmp4.not = icmp eq i64 %2, %0
  %or.cond = or i1 %tobool.not, %cmp4.not
  br i1 %or.cond, label %while.end, label %while.body

while.end:
  %cmp4.not.lcssa = phi i1 [ %cmp4.not25, %for.body ], [ %cmp4.not, %while.body ]
  %conv10 = zext i1 %cmp4.not.lcssa to i64
  %add11 = add i64 %hits.030, %conv10
  %inc = add nuw nsw i64 %i.029, 1
  %exitcond.not = icmp eq i64 %inc, %n
  br i1 %exitcond.not, label %for.cond.cleanup, label %for.body
}
