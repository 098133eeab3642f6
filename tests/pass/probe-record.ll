; Every module with instrumented functions carries one 128-byte record in section
; quanta_probes (include/quanta/probe_record.h): magic "QPRB", version 1, mode
; (1 clock, 2 flag, 3 counter, 0 lock bracketing only), probes, lock sites, functions,
; clock twins (flag mode; 0 otherwise), and the tail of the source file name. The counts
; are the quanta-stats line's: the flag functions' alone, their twins only by number.
; RUN: rm -f %t.stats
; RUN: env QUANTA_STATS_FILE=%t.stats %opt -passes=quanta-clock -S %s -o %t.clock.ll
; RUN: env QUANTA_STATS_FILE=%t.stats %opt -passes=quanta-flag -S %s -o %t.flag.ll
; RUN: env QUANTA_STATS_FILE=%t.stats %opt -passes=quanta-counter -S %s -o %t.counter.ll
; RUN: env QUANTA_STATS_FILE=%t.stats %opt -passes=quanta-locks -S %s -o %t.locks.ll
; RUN: cat %t.stats %t.clock.ll %t.flag.ll %t.counter.ll %t.locks.ll | FileCheck %s

; CHECK: quanta-stats: {{.*}} mode=clock functions=2 probes=[[CP:[1-9][0-9]*]] lock_sites=2
; CHECK: quanta-stats: {{.*}} mode=flag functions=2 probes=[[FP:[1-9][0-9]*]] lock_sites=2 {{.*}} twins=2 twin_probes={{[1-9][0-9]*}}
; CHECK: quanta-stats: {{.*}} mode=counter functions=2 probes=[[NP:[1-9][0-9]*]] lock_sites=2
; CHECK: quanta-stats: {{.*}} functions=2 probes=0 lock_sites=2

; A name longer than 103 bytes keeps its last 103, then a NUL (the module field is 104).
; CHECK: @__quanta_probe_record = private constant <{ i32, i16, i16, i32, i32, i32, i32, [104 x i8] }> <{ i32 1112690769, i16 1, i16 1, i32 [[CP]], i32 2, i32 2, i32 0, [104 x i8] c"/a-rather-long-checkout-directory-name/third_party/some-library/src/internal/probe_record_module_name.c\00" }>, section "quanta_probes", align 8
; CHECK: @llvm.compiler.used = appending global {{.*}}@__quanta_probe_record
; CHECK: @__quanta_probe_record = {{.*}} <{ i32 1112690769, i16 1, i16 2, i32 [[FP]], i32 2, i32 2, i32 2,
; CHECK: @__quanta_probe_record = {{.*}} <{ i32 1112690769, i16 1, i16 3, i32 [[NP]], i32 2, i32 2, i32 0,
; CHECK: @__quanta_probe_record = {{.*}} <{ i32 1112690769, i16 1, i16 0, i32 0, i32 2, i32 2, i32 0,

; No function to instrument (declarations only), no record.
; RUN: echo "declare void @g()" | %opt -passes=quanta-clock -S | FileCheck %s --check-prefix=NONE
; NONE-NOT: quanta_probe_record
; Once per module, also when the pass runs twice.
; RUN: %opt -passes=quanta-clock,quanta-clock -S %s | FileCheck %s --check-prefix=ONCE
; ONCE-COUNT-1: @__quanta_probe_record =
; ONCE-NOT: @__quanta_probe_record =

source_filename = "/home/builder/a-rather-long-checkout-directory-name/third_party/some-library/src/internal/probe_record_module_name.c"

define i64 @sum(i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi i64 [ 0, %entry ], [ %s.next, %loop ]
  %s.next = add i64 %s, %i
  %i.next = add i64 %i, 1
  %c = icmp ult i64 %i.next, %n
  br i1 %c, label %loop, label %done
done:
  ret i64 %s.next
}

define void @critical(ptr %m, ptr %x) {
  %r = call i32 @pthread_mutex_lock(ptr %m)
  %v = load i64, ptr %x
  %w = add i64 %v, 1
  store i64 %w, ptr %x
  %u = call i32 @pthread_mutex_unlock(ptr %m)
  ret void
}

declare i32 @pthread_mutex_lock(ptr)
declare i32 @pthread_mutex_unlock(ptr)
