; QUANTA_STATS_FILE / -quanta-stats-file append the per-module "quanta-stats:" line to a
; file instead of printing it on stderr, and need no QUANTA_STATS=1 besides. stderr must
; stay empty: configure scripts take any compiler stderr output as a failed check.
; RUN: rm -f %t.stats
; RUN: env QUANTA_STATS_FILE=%t.stats %opt -passes=quanta-clock -disable-output %s 2>&1 | count 0
; RUN: env QUANTA_STATS_FILE=%t.stats QUANTA_STATS=0 %opt -passes=quanta-flag -disable-output %s 2>&1 | count 0
; RUN: %opt -passes=quanta-counter -quanta-stats-file=%t.stats -disable-output %s 2>&1 | count 0
; RUN: FileCheck %s < %t.stats
; Without a file the line still goes to stderr.
; RUN: env QUANTA_STATS=1 %opt -passes=quanta-clock -disable-output %s 2>&1 | FileCheck %s --check-prefix=STDERR

; Appended in order, one whole line per compile.
; CHECK: {{^}}quanta-stats: module={{.*}}stats-file.ll mode=clock functions=1 probes=1 lock_sites=0 loops_static=0
; CHECK-NEXT: {{^}}quanta-stats: module={{.*}}stats-file.ll mode=flag functions=1 probes={{[0-9]+}} lock_sites=0
; CHECK-NEXT: {{^}}quanta-stats: module={{.*}}stats-file.ll mode=counter functions=1 probes={{[1-9][0-9]*}} lock_sites=0
; CHECK-NOT: quanta-stats
; STDERR: {{^}}quanta-stats: module={{.*}}stats-file.ll mode=clock functions=1

define i64 @f(i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %i.next = add i64 %i, 1
  %c = icmp ult i64 %i.next, %n
  br i1 %c, label %loop, label %done
done:
  ret i64 %i
}
