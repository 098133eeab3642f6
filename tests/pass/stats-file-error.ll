; A statistics file that cannot be opened fails the compile with an error diagnostic that
; names the setting and the path, and no crash banner or stack dump (a user's mistake,
; not a compiler bug), in opt and in clang.
; RUN: rm -rf %t.dir && mkdir -p %t.dir
; RUN: env QUANTA_STATS_FILE=%t.dir not %opt -passes=quanta-clock -disable-output %s 2>&1 | FileCheck %s --check-prefix=ENV
; RUN: not %opt -passes=quanta-clock -quanta-stats-file=%t.dir/missing/stats -disable-output %s 2>&1 | FileCheck %s --check-prefix=OPT
; RUN: env QUANTA_STATS_FILE=%t.dir not %clang -O1 -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=CLANG
; ENV: error: quanta pass: cannot open QUANTA_STATS_FILE '{{.*}}.dir': Is a directory
; ENV-NOT: PLEASE submit a bug report
; ENV-NOT: Stack dump
; OPT: error: quanta pass: cannot open -quanta-stats-file '{{.*}}.dir/missing/stats': No such file or directory
; OPT-NOT: PLEASE submit a bug report
; OPT-NOT: Stack dump
; CLANG: error: quanta pass: cannot open QUANTA_STATS_FILE '{{.*}}.dir': Is a directory
; CLANG-NOT: PLEASE submit a bug report
; CLANG-NOT: Stack dump

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
