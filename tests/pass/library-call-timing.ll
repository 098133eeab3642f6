; Counting builds (-quanta-count-probes) time the calls into the library: each call to a
; function TargetLibraryInfo knows, and each memory intrinsic whose length is not a
; constant (the backend may call libc for it), sits between two cycle-counter reads whose
; difference is added to quanta_stat_library_cycles. The benchmark subtracts that from
; each quantum to find the stretches the probes left (bench/real/task_main.c). Calls to
; the program's own functions, a constant-length copy (expanded inline), a call that does
; not return, and every call of a build that does not count are left alone.
; RUN: %opt -passes=quanta-clock -quanta-count-probes -S %s | FileCheck %s
; RUN: %opt -passes=quanta-clock -S %s | FileCheck %s --check-prefix=PLAIN

; CHECK: @quanta_stat_library_cycles = weak global i64 0
; CHECK-LABEL: define void @work(
; CHECK: [[T0:%quanta.lib.start]] = call i64 @llvm.readcyclecounter()
; CHECK-NEXT: %p = call ptr @malloc(i64 %n)
; CHECK-NEXT: [[T1:%.*]] = call i64 @llvm.readcyclecounter()
; CHECK-NEXT: [[D:%.*]] = sub i64 [[T1]], [[T0]]
; CHECK-NEXT: [[SUM:%.*]] = load i64, ptr @quanta_stat_library_cycles
; CHECK-NEXT: [[NEW:%.*]] = add i64 [[SUM]], [[D]]
; CHECK-NEXT: store i64 [[NEW]], ptr @quanta_stat_library_cycles
; CHECK: call i64 @llvm.readcyclecounter()
; CHECK-NEXT: call void @llvm.memcpy.p0.p0.i64(ptr %p, ptr %src, i64 %n, i1 false)
; CHECK-NEXT: call i64 @llvm.readcyclecounter()
; CHECK-NOT: readcyclecounter
; CHECK: call void @llvm.memcpy.p0.p0.i64(ptr %p, ptr %src, i64 16, i1 false)
; CHECK-NEXT: call void @helper(ptr %p)
; CHECK-NEXT: call i64 @llvm.readcyclecounter()
; CHECK-NEXT: call void @free(ptr %p)
; CHECK-NEXT: call i64 @llvm.readcyclecounter()
; CHECK-LABEL: define void @leave(
; CHECK-NOT: readcyclecounter
; CHECK: call void @exit(i32 1)

; PLAIN-NOT: quanta_stat_library_cycles
; PLAIN-NOT: readcyclecounter

declare ptr @malloc(i64)
declare void @free(ptr)
declare void @exit(i32) noreturn
declare void @helper(ptr)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

define void @work(ptr %src, i64 %n) {
entry:
  %p = call ptr @malloc(i64 %n)
  call void @llvm.memcpy.p0.p0.i64(ptr %p, ptr %src, i64 %n, i1 false)
  call void @llvm.memcpy.p0.p0.i64(ptr %p, ptr %src, i64 16, i1 false)
  call void @helper(ptr %p)
  call void @free(ptr %p)
  ret void
}

define void @leave() {
entry:
  call void @exit(i32 1)
  unreachable
}
