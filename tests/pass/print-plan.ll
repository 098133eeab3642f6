; print<quanta-plan> prints each function's loop plans, as a real run of the configured
; mode makes them, and leaves the module as it was: the strategy of each loop (nested
; loops indented), its iteration cost, stride or budget, and the rule that chose it,
; after the function's summary as its callers see it (unprobed from entry, before its
; returns, and entry to return with no probe at all).
; RUN: %opt -passes='print<quanta-plan>' -disable-output %s 2>&1 | FileCheck %s
; RUN: %opt -passes='print<quanta-plan>' -quanta-mode=flag -disable-output %s 2>&1 | FileCheck %s --check-prefix=FLAG
; RUN: %opt -passes='print<quanta-plan>' -S %s 2>/dev/null | FileCheck %s --check-prefix=SAME

; CHECK-LABEL: function rows: summary entry=18 exit=18 through=18
; CHECK-NEXT:   loop outer: Counter iter-cost=8 bound=1000 budget=1000 charge=8: children with dynamic costs charge the function's budget
; CHECK-NEXT:     loop inner: Version (long trips: IVStride) iter-cost=8 bound=1000 stride=128: innermost with a trip count known at entry: a probe-free clone runs short trips
; A function on a call-graph cycle ticks at entry; its charge is its summary's entry, the
; longest path from the entry before a probe, a return or a call back into the cycle. The
; tick after its recursive call charges the 2 units to the return: its ticked exit.
; CHECK-LABEL: function rec: entry tick, charge 4 (on a call-graph cycle); summary entry=4 exit=3 through=3 ticked-exit=2{{$}}
; CHECK-NEXT:   no loops

; Flag mode polls the branchy outer loop; the inner one counts a fixed stride per entry.
; FLAG-LABEL: function rows:
; FLAG-NEXT:   loop outer: Poll iter-cost=8 bound=1000 poll-at=top: flag mode, branches of its own and no calls
; FLAG-NEXT:     loop inner: IVStride iter-cost=8 bound=1000 stride=128: counts iterations on its induction variable

; SAME-NOT: quanta
; SAME-NOT: readcyclecounter

define void @rows(ptr %a, i64 %n, i64 %m) {
entry:
  br label %outer
outer:
  %i = phi i64 [ 0, %entry ], [ %i.next, %outer.latch ]
  %row = mul i64 %i, %m
  %empty = icmp eq i64 %m, 0
  br i1 %empty, label %outer.latch, label %inner
inner:
  %j = phi i64 [ 0, %outer ], [ %j.next, %inner ]
  %k = add i64 %row, %j
  %p = getelementptr i64, ptr %a, i64 %k
  %v = load i64, ptr %p
  %w = add i64 %v, 1
  store i64 %w, ptr %p
  %j.next = add i64 %j, 1
  %jc = icmp ne i64 %j.next, %m
  br i1 %jc, label %inner, label %outer.latch
outer.latch:
  %i.next = add i64 %i, 1
  %ic = icmp ne i64 %i.next, %n
  br i1 %ic, label %outer, label %done
done:
  ret void
}

define i64 @rec(ptr %n) {
entry:
  %null = icmp eq ptr %n, null
  br i1 %null, label %done, label %more
more:
  %next = load ptr, ptr %n
  %s = call i64 @rec(ptr %next)
  %r = add i64 %s, 1
  ret i64 %r
done:
  ret i64 0
}
