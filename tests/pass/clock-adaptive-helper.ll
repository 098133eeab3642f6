; The adaptive loop probe's helper (AdaptiveProbe.cpp), one per module, private and out of
; line. It reads the clock and the deadline, yields through quanta_probe_slow() once the
; site's yield time (the deadline minus what the site learned to aim early, word 5) has
; passed, and plans the next gap toward that time: what is left (capped by
; -quanta-probe-max-cycles), times the units the last gap ran, over the cycles it took, plus
; one; at most 4x the last gap and at most the site's maximum; the static gap while the rate
; is unknown (start word 0). The speed it plans with is the last gap's, or the one before
; when that was clearly (1.5x) slower. Before yielding it reads the clock again, waiting for
; older work (rdtscp on x86, a plain read elsewhere): the difference is the site's lead
; (word 4, averaged with the last one). After the yield, how far the runtime's stop stamp
; (quanta_task_last_stop_tsc()) is past the deadline the probe yielded at moves the aim by
; an eighth (clamped to [0, cap]; an error beyond the cap, or a stamp older than the probe,
; leaves it). A site whose
; lead is over 1024 cycles (a serial backlog of dependent misses; it takes two such
; measurements in a row) reads its clock with rdtscp at every probe and keeps its lead. After a yield the planning reads the clock and
; the deadline again in a second function, out of line (the task may resume on another
; thread), and starts the gap `lead` cycles back (0 for a serial site).
; RUN: %opt -passes=quanta-clock -quanta-bound=600 -quanta-probe-max-cycles=4096 -mtriple=x86_64-unknown-linux-gnu -S %s | FileCheck %s
; RUN: %opt -passes=quanta-clock -quanta-bound=600 -quanta-probe-max-cycles=4096 -mtriple=aarch64-unknown-linux-gnu -S %s | FileCheck %s --check-prefix=OTHER

; CHECK-LABEL: define i64 @scan(
; CHECK: %quanta.gap = alloca [6 x i64]
; CHECK-DAG: [[L0:%.*]] = getelementptr inbounds i64, ptr %quanta.gap, i32 4
; CHECK-DAG: store i64 0, ptr [[L0]]
; CHECK-DAG: [[A0:%.*]] = getelementptr inbounds i64, ptr %quanta.gap, i32 5
; CHECK-DAG: store i64 0, ptr [[A0]]

; CHECK-LABEL: define private i64 @__quanta_clock_gap_resumed(ptr %0, i64 %1, i64 %2, i64 %3, i64 %4, i64 %5)
; CHECK: [[RNOW:%.*]] = call i64 @llvm.readcyclecounter()
; CHECK: [[RDL:%.*]] = load i64, ptr %{{.*}}
; CHECK-NEXT: [[STOP:%.*]] = call i64 @quanta_task_last_stop_tsc()
; CHECK-NEXT: [[AW0:%.*]] = getelementptr inbounds i64, ptr %0, i32 5
; CHECK-NEXT: [[OLDA:%.*]] = load i64, ptr [[AW0]]
; CHECK-NEXT: [[ERR:%.*]] = sub i64 [[STOP]], %5
; CHECK-NEXT: [[SH:%.*]] = add i64 [[ERR]], 4096
; CHECK-NEXT: [[OK:%.*]] = icmp ult i64 [[SH]], 8192
; CHECK-NEXT: [[NEWER:%.*]] = icmp ugt i64 [[STOP]], %1
; CHECK-NEXT: [[OK2:%.*]] = and i1 [[OK]], [[NEWER]]
; CHECK-NEXT: [[STEP:%.*]] = ashr i64 [[ERR]], 3
; CHECK-NEXT: [[SUMA:%.*]] = add i64 [[OLDA]], [[STEP]]
; CHECK-NEXT: [[LO:%.*]] = call i64 @llvm.smax.i64(i64 [[SUMA]], i64 0)
; CHECK-NEXT: [[HI:%.*]] = call i64 @llvm.smin.i64(i64 [[LO]], i64 4096)
; CHECK-NEXT: [[NEWA:%.*]] = select i1 [[OK2]], i64 [[HI]], i64 [[OLDA]]
; CHECK-NEXT: store i64 [[NEWA]], ptr [[AW0]]
; CHECK: [[RLW:%.*]] = getelementptr inbounds i64, ptr %0, i32 4
; CHECK-NEXT: [[RLEAD:%.*]] = load i64, ptr [[RLW]]
; CHECK-NEXT: [[RSER:%.*]] = icmp ugt i64 [[RLEAD]], 1024
; CHECK-NEXT: [[RSHIFT:%.*]] = select i1 [[RSER]], i64 0, i64 [[RLEAD]]
; CHECK-NEXT: [[RSTART:%.*]] = call i64 @llvm.usub.sat.i64(i64 [[RNOW]], i64 [[RSHIFT]])
; CHECK: [[RAW:%.*]] = getelementptr inbounds i64, ptr %0, i32 5
; CHECK-NEXT: [[RAIM:%.*]] = load i64, ptr [[RAW]]
; CHECK-NEXT: [[RAT:%.*]] = call i64 @llvm.usub.sat.i64(i64 [[RDL]], i64 [[RAIM]])
; CHECK: store i64 [[RSTART]], ptr
; CHECK: sub i64 [[RAT]], [[RSTART]]

; CHECK-LABEL: define private i64 @__quanta_clock_gap(ptr %0, i64 %1, i64 %2, i64 %3)
; CHECK: [[LW:%.*]] = getelementptr inbounds i64, ptr %0, i32 4
; CHECK-NEXT: [[LEAD:%.*]] = load i64, ptr [[LW]]
; CHECK-NEXT: [[SER:%.*]] = icmp ugt i64 [[LEAD]], 1024
; CHECK-NEXT: br i1 [[SER]], label %[[RS:.*]], label %[[RP:.*]]
; CHECK: [[RS]]:
; CHECK-NEXT: [[TS0:%.*]] = call { i64, i32 } @llvm.x86.rdtscp()
; CHECK-NEXT: [[NOWS:%.*]] = extractvalue { i64, i32 } [[TS0]], 0
; CHECK: [[RP]]:
; CHECK-NEXT: [[NOWP:%.*]] = call i64 @llvm.readcyclecounter()
; CHECK: [[NOW:%.*]] = phi i64 [ [[NOWS]], %[[RS]] ], [ [[NOWP]], %[[RP]] ]
; CHECK: [[DL:%.*]] = load i64, ptr
; CHECK: [[AW:%.*]] = getelementptr inbounds i64, ptr %0, i32 5
; CHECK-NEXT: [[AIM:%.*]] = load i64, ptr [[AW]]
; CHECK-NEXT: [[AT:%.*]] = call i64 @llvm.usub.sat.i64(i64 [[DL]], i64 [[AIM]])
; CHECK-NEXT: [[LATE:%.*]] = icmp uge i64 [[NOW]], [[AT]]
; CHECK-NEXT: br i1 [[LATE]], label %[[YIELD:.*]], label %[[PLAN:.*]]
; CHECK: [[YIELD]]:
; CHECK-NEXT: [[TSCP:%.*]] = call { i64, i32 } @llvm.x86.rdtscp()
; CHECK-NEXT: [[DRAINED:%.*]] = extractvalue { i64, i32 } [[TSCP]], 0
; CHECK-NEXT: [[LD:%.*]] = call i64 @llvm.usub.sat.i64(i64 [[DRAINED]], i64 [[NOW]])
; CHECK-NEXT: [[LDC:%.*]] = call i64 @llvm.umin.i64(i64 [[LD]], i64 4096)
; CHECK-NEXT: [[SUML:%.*]] = add i64 [[LEAD]], [[LDC]]
; CHECK-NEXT: [[AVGL:%.*]] = lshr i64 [[SUML]], 1
; CHECK-NEXT: [[WAS:%.*]] = icmp uge i64 [[LEAD]], 1024
; CHECK-NEXT: [[IS:%.*]] = icmp ugt i64 [[LDC]], 1024
; CHECK-NEXT: [[TWICE:%.*]] = and i1 [[WAS]], [[IS]]
; CHECK-NEXT: [[CAPL:%.*]] = call i64 @llvm.umin.i64(i64 [[AVGL]], i64 1024)
; CHECK-NEXT: [[KEEP:%.*]] = select i1 [[TWICE]], i64 [[AVGL]], i64 [[CAPL]]
; CHECK-NEXT: [[NEWL:%.*]] = select i1 [[SER]], i64 [[LEAD]], i64 [[KEEP]]
; CHECK-NEXT: [[LW2:%.*]] = getelementptr inbounds i64, ptr %0, i32 4
; CHECK-NEXT: store i64 [[NEWL]], ptr [[LW2]]
; CHECK-NEXT: call void @quanta_probe_slow()
; CHECK-NEXT: [[G:%.*]] = call i64 @__quanta_clock_gap_resumed(ptr %0, i64 [[NOW]], i64 %1, i64 %2, i64 %3, i64 [[DL]])
; CHECK-NEXT: ret i64 [[G]]
; CHECK: [[PLAN]]:
; CHECK: store i64 [[NOW]], ptr
; CHECK: sub i64 [[AT]], [[NOW]]
; CHECK: [[A:%.*]] = mul i64 %{{.*}}, 2
; CHECK: [[B:%.*]] = mul i64 %{{.*}}, 3
; CHECK: icmp ugt i64 [[A]], [[B]]
; CHECK: call i64 @llvm.umin.i64(i64 %{{.*}}, i64 4096)
; CHECK: udiv i64
; CHECK: mul i64 %{{.*}}, 4
; CHECK: call i64 @llvm.umin.i64(i64 %{{.*}}, i64 %2)
; CHECK: select i1 %{{.*}}, i64 %{{.*}}, i64 %1
; CHECK: attributes #{{[0-9]+}} = { cold noinline nounwind }

; Without rdtscp the second read is a plain one (lead ~0; the aim still learns).
; OTHER-LABEL: define private i64 @__quanta_clock_gap(
; OTHER: read.serial:
; OTHER-NEXT: %now.serial = call i64 @llvm.readcyclecounter()
; OTHER: late:
; OTHER-NEXT: %drained = call i64 @llvm.readcyclecounter()
; OTHER-NOT: rdtscp

define i64 @scan(ptr %base, i64 %start) {
entry:
  br label %loop
loop:
  %off = phi i64 [ %start, %entry ], [ %off.next, %loop ]
  %acc = phi i64 [ 0, %entry ], [ %acc.next, %loop ]
  %p = getelementptr inbounds i8, ptr %base, i64 %off
  %v = load i32, ptr %p
  %w = sext i32 %v to i64
  %acc.next = add i64 %acc, %w
  %off.next = add i64 %off, 4
  %stop = icmp eq i32 %v, 0
  br i1 %stop, label %done, label %loop
done:
  ret i64 %acc.next
}
