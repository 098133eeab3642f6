; A module that defines the slow path itself (a test double, a runtime built with the pass)
; keeps its definition's convention: its probes call it as it is, with no stub.
; RUN: %opt -passes=quanta-clock -quanta-bound=10 -quanta-slow-path-preserve-most=1 -S %s | FileCheck %s
target triple = "x86_64-unknown-linux-gnu"

@calls = global i64 0

; CHECK-LABEL: define i64 @chain(
; CHECK: call i64 @llvm.readcyclecounter()
; CHECK: call void @quanta_probe_slow()
; CHECK-NOT: _stub
define i64 @chain(i64 %x) {
  %a1 = add i64 %x, 1
  %a2 = mul i64 %a1, %x
  %a3 = add i64 %a2, 3
  %a4 = mul i64 %a3, %a1
  %a5 = add i64 %a4, 5
  %a6 = mul i64 %a5, %a2
  %a7 = add i64 %a6, 7
  %a8 = mul i64 %a7, %a3
  %a9 = add i64 %a8, 9
  %a10 = mul i64 %a9, %a4
  %a11 = add i64 %a10, 11
  %a12 = mul i64 %a11, %a5
  %a13 = add i64 %a12, 13
  ret i64 %a13
}

define void @quanta_probe_slow() {
  %n = load i64, ptr @calls
  %m = add i64 %n, 1
  store i64 %m, ptr @calls
  ret void
}
