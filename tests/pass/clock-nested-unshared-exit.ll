; A loop inside another whose latch tests something other than its IV (here a loaded
; byte, `while (s[i] != 0) i++`, as a varint or token scan does) charges the function's
; budget, as its parent does, rather than counting on its IV: the IV's compare with the
; next probe would cost each iteration what the budget's subtract does, and the IV
; also pays on every entry and exit to carry the distance between entries. Where the
; latch tests the IV itself (`i < n`), the probe rides on that test for free, so the loop
; keeps counting on its IV. Flag mode shares no exit test and keeps its IV strides.
; RUN: %opt -passes='print<quanta-plan>' -disable-output %s 2>&1 | FileCheck %s
; RUN: %opt -passes='print<quanta-plan>' -quanta-mode=flag -disable-output %s 2>&1 | FileCheck %s --check-prefix=FLAG
; RUN: %opt -passes=quanta-clock -S %s | FileCheck %s --check-prefix=IR

; (The outer loop, whose child now keeps the budget, counts on its own IV.)
; CHECK-LABEL: function tokens:
; CHECK-NEXT: loop outer: IVStride iter-cost=5 bound=1000 stride=256: its dynamic children keep the budget
; CHECK-NEXT: loop scan: Counter iter-cost=5 bound=1000 budget=1000 charge=5: inside another loop, with an exit test the probe cannot share: it charges the budget
; CHECK-LABEL: function rows:
; CHECK-NEXT: loop outer: Counter
; CHECK-NEXT: loop row: Version (long trips: IVStride) iter-cost=7 bound=1000 stride=128:

; FLAG-LABEL: function tokens:
; FLAG-NEXT: loop outer: Counter
; FLAG-NEXT: loop scan: IVStride iter-cost=5 bound=1000 stride=256: counts iterations on its induction variable

;   no carried distance or adaptive site for the scan: one budget for the nest
; IR-LABEL: define i64 @tokens(
; IR-NOT: quanta.left
; IR-NOT: quanta_clock_gap(ptr %quanta.gap, i64 128
; IR: ret i64

define i64 @tokens(ptr %s, i64 %n) {
entry:
  br label %outer

outer:
  %start = phi i64 [ 0, %entry ], [ %next.start, %token.end ]
  %count = phi i64 [ 0, %entry ], [ %count.next, %token.end ]
  br label %scan

scan:
  %i = phi i64 [ %start, %outer ], [ %i.next, %scan ]
  %i.next = add nuw i64 %i, 1
  %p = getelementptr inbounds i8, ptr %s, i64 %i.next
  %c = load i8, ptr %p, align 1
  %more = icmp ne i8 %c, 0
  br i1 %more, label %scan, label %token.end

token.end:
  %next.start = add nuw i64 %i.next, 1
  %count.next = add i64 %count, 1
  %again = icmp ult i64 %next.start, %n
  br i1 %again, label %outer, label %done

done:
  ret i64 %count.next
}

define i64 @rows(ptr %a, ptr %len, i64 %rows) {
entry:
  br label %outer

outer:
  %r = phi i64 [ 0, %entry ], [ %r.next, %row.end ]
  %sum = phi i64 [ 0, %entry ], [ %sum.row, %row.end ]
  %lp = getelementptr inbounds i64, ptr %len, i64 %r
  %n = load i64, ptr %lp, align 8
  %empty = icmp eq i64 %n, 0
  br i1 %empty, label %row.end, label %row

row:
  %j = phi i64 [ 0, %outer ], [ %j.next, %row ]
  %acc = phi i64 [ %sum, %outer ], [ %acc.next, %row ]
  %ap = getelementptr inbounds i64, ptr %a, i64 %j
  %x = load i64, ptr %ap, align 8
  %x2 = mul i64 %x, %x
  %acc.next = add i64 %acc, %x2
  %j.next = add nuw i64 %j, 1
  %in = icmp ult i64 %j.next, %n
  br i1 %in, label %row, label %row.end

row.end:
  %sum.row = phi i64 [ %sum, %outer ], [ %acc.next, %row ]
  %r.next = add nuw i64 %r, 1
  %again = icmp ult i64 %r.next, %rows
  br i1 %again, label %outer, label %done

done:
  ret i64 %sum.row
}
