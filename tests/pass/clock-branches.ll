; Branches: the longest path decides. The short arm stays probe-free; the long arm
; (1 + 10 instructions, B = 8) gets a probe; the join sees the longest incoming distance.
; RUN: %opt -passes=quanta-clock -quanta-bound=8 -quanta-ext-call-cost=20 -S %s | FileCheck %s

; CHECK-LABEL: define i64 @diamond(
; CHECK: short:
; CHECK-NOT: readcyclecounter
; CHECK: br label %join
; CHECK: long:
; CHECK: %l7 = mul
; CHECK-NEXT: call i64 @llvm.readcyclecounter()
; CHECK: %l8 = mul
; CHECK-NOT: readcyclecounter
; CHECK: join:
define i64 @diamond(i1 %c, i64 %x) {
entry:
  br i1 %c, label %short, label %long
short:
  %s1 = add i64 %x, 1
  br label %join
long:
  %l1 = mul i64 %x, 3
  %l2 = mul i64 %l1, 5
  %l3 = mul i64 %l2, 7
  %l4 = mul i64 %l3, 9
  %l5 = mul i64 %l4, 11
  %l6 = mul i64 %l5, 13
  %l7 = mul i64 %l6, 15
  %l8 = mul i64 %l7, 17
  %l9 = mul i64 %l8, 19
  %l10 = mul i64 %l9, 21
  br label %join
join:
  %v = phi i64 [ %s1, %short ], [ %l10, %long ]
  ret i64 %v
}

; A call to uninstrumented code costs -quanta-ext-call-cost (here 20 > B): the path is cut
; before the call and again right after it. A call to a function of this module costs 1.
; CHECK-LABEL: define i64 @calls(
; CHECK: call i64 @local(
; CHECK-NEXT: call i64 @local(
; CHECK: readcyclecounter
; CHECK: call i64 @external(
; CHECK: readcyclecounter
; CHECK: ret i64
define i64 @calls(i64 %x) {
  %a = call i64 @local(i64 %x)
  %b = call i64 @local(i64 %a)
  %c = call i64 @external(i64 %b)
  %d = add i64 %c, 1
  ret i64 %d
}

define i64 @local(i64 %x) {
  %r = add i64 %x, 1
  ret i64 %r
}
declare i64 @external(i64)
