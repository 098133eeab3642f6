; Straight-line code: with B = 10 a chain of 25 adds needs a probe after every 10 of them,
; and no probe-free stretch of code is longer than B.
; RUN: %opt -passes=quanta-clock -quanta-bound=10 -S %s | FileCheck %s

; The probe reads the runtime's initial-exec TLS deadline.
; CHECK: @quanta_deadline_tsc = external thread_local(initialexec) global i64

; CHECK-LABEL: define i64 @chain(
; CHECK-COUNT-10: add i64
; CHECK: call i64 @llvm.readcyclecounter()
; CHECK: load i64, ptr %{{.*}}, align 8
; CHECK: icmp uge i64
; CHECK: call void @quanta_probe_slow()
; CHECK-COUNT-10: add i64
; CHECK: call i64 @llvm.readcyclecounter()
; CHECK-NOT: readcyclecounter
; CHECK: ret i64
define i64 @chain(i64 %x) {
  %a1 = add i64 %x, 1
  %a2 = add i64 %a1, 2
  %a3 = add i64 %a2, 3
  %a4 = add i64 %a3, 4
  %a5 = add i64 %a4, 5
  %a6 = add i64 %a5, 6
  %a7 = add i64 %a6, 7
  %a8 = add i64 %a7, 8
  %a9 = add i64 %a8, 9
  %a10 = add i64 %a9, 10
  %a11 = add i64 %a10, 11
  %a12 = add i64 %a11, 12
  %a13 = add i64 %a12, 13
  %a14 = add i64 %a13, 14
  %a15 = add i64 %a14, 15
  %a16 = add i64 %a15, 16
  %a17 = add i64 %a16, 17
  %a18 = add i64 %a17, 18
  %a19 = add i64 %a18, 19
  %a20 = add i64 %a19, 20
  %a21 = add i64 %a20, 21
  %a22 = add i64 %a21, 22
  %a23 = add i64 %a22, 23
  %a24 = add i64 %a23, 24
  ret i64 %a24
}

; Short functions get nothing: the bound is about paths, not about entries.
; CHECK-LABEL: define i64 @tiny(
; CHECK-NOT: readcyclecounter
; CHECK: ret i64
define i64 @tiny(i64 %x) {
  %a = add i64 %x, 1
  ret i64 %a
}
