; Lock calls are bracketed so a lock holder is never preempted: disable before acquiring
; (a probe cannot fire between acquiring and disabling), enable after releasing, and on a
; failed acquire (non-zero result) enable again right away.
; RUN: %opt -passes=quanta-clock -S %s | FileCheck %s
; RUN: %opt -passes=quanta-flag -S %s | FileCheck %s
; Bracketing alone, without probes:
; RUN: %opt -passes=quanta-locks -S %s | FileCheck %s

; CHECK-LABEL: define void @critical(
; CHECK: call void @quanta_preempt_disable()
; CHECK-NEXT: %r = call i32 @pthread_mutex_lock(ptr %m)
; CHECK-NEXT: %quanta.lockfail = icmp ne i32 %r, 0
; CHECK-NEXT: br i1 %quanta.lockfail, label %[[UNDO:.*]], label
; CHECK: [[UNDO]]:
; CHECK-NEXT: call void @quanta_preempt_enable()
; CHECK: call i32 @pthread_mutex_unlock(ptr %m)
; CHECK-NEXT: call void @quanta_preempt_enable()
define void @critical(ptr %m, ptr %x) {
  %r = call i32 @pthread_mutex_lock(ptr %m)
  %v = load i64, ptr %x
  %w = add i64 %v, 1
  store i64 %w, ptr %x
  %u = call i32 @pthread_mutex_unlock(ptr %m)
  ret void
}

; trylock: enabled again only when the lock was not taken.
; CHECK-LABEL: define i32 @try(
; CHECK: call void @quanta_preempt_disable()
; CHECK-NEXT: %r = call i32 @pthread_mutex_trylock(ptr %m)
; CHECK-NEXT: %quanta.lockfail = icmp ne i32 %r, 0
; CHECK: call void @quanta_preempt_enable()
define i32 @try(ptr %m) {
  %r = call i32 @pthread_mutex_trylock(ptr %m)
  ret i32 %r
}

; spin locks and rwlocks too.
; CHECK-LABEL: define void @others(
; CHECK: call void @quanta_preempt_disable()
; CHECK-NEXT: call i32 @pthread_spin_lock(
; CHECK: call i32 @pthread_spin_unlock(
; CHECK-NEXT: call void @quanta_preempt_enable()
; CHECK: call void @quanta_preempt_disable()
; CHECK-NEXT: call i32 @pthread_rwlock_wrlock(
; CHECK: call i32 @pthread_rwlock_unlock(
; CHECK-NEXT: call void @quanta_preempt_enable()
define void @others(ptr %s, ptr %rw) {
  %a = call i32 @pthread_spin_lock(ptr %s)
  %b = call i32 @pthread_spin_unlock(ptr %s)
  %c = call i32 @pthread_rwlock_wrlock(ptr %rw)
  %d = call i32 @pthread_rwlock_unlock(ptr %rw)
  ret void
}

; Where the path reaches the bound at a lock call, the probe goes before the disable, not
; between it and the lock (there it is muted: quanta_preempt_disable() sets the deadline
; out of reach). And the enable reads the clock itself, so the work after an unlock starts
; a fresh path: 12 adds after it (bound 14) need no probe.
; RUN: %opt -passes=quanta-clock -quanta-bound=14 -quanta-ext-call-cost=5 -S %s | FileCheck %s --check-prefix=BOUND
; RUN: %opt -passes=quanta-flag -quanta-flag-stride=14 -quanta-ext-call-cost=5 -S %s | FileCheck %s --check-prefix=FLAGBOUND
; BOUND-LABEL: define void @long_then_lock(
; BOUND: store i64 %a8
; BOUND-NEXT: call i64 @llvm.readcyclecounter()
; BOUND: call void @quanta_preempt_disable()
; BOUND-NEXT: %r = call i32 @pthread_mutex_lock(ptr %m)
; FLAGBOUND-LABEL: define void @long_then_lock(
; FLAGBOUND: store i64 %a8
; FLAGBOUND-NEXT: call i64 asm sideeffect "movq quanta_preempt_flag@gottpoff
; FLAGBOUND: call void @quanta_flag_probe_slow()
; FLAGBOUND: call void @quanta_preempt_disable()
; FLAGBOUND-NEXT: %r = call i32 @pthread_mutex_lock(ptr %m)
define void @long_then_lock(ptr %m, i64 %x, ptr %out) {
  %a1 = add i64 %x, 1
  %a2 = add i64 %a1, 2
  %a3 = add i64 %a2, 3
  %a4 = add i64 %a3, 4
  %a5 = add i64 %a4, 5
  %a6 = add i64 %a5, 6
  %a7 = add i64 %a6, 7
  %a8 = add i64 %a7, 8
  store i64 %a8, ptr %out
  %r = call i32 @pthread_mutex_lock(ptr %m)
  %u = call i32 @pthread_mutex_unlock(ptr %m)
  ret void
}

; BOUND-LABEL: define i64 @unlock_then_work(
; BOUND: %u = call i32 @pthread_mutex_unlock(ptr %m)
; BOUND-NEXT: call void @quanta_preempt_enable()
; BOUND-NOT: readcyclecounter
; BOUND: ret i64
define i64 @unlock_then_work(ptr %m, i64 %x) {
  %r = call i32 @pthread_mutex_lock(ptr %m)
  %u = call i32 @pthread_mutex_unlock(ptr %m)
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
  ret i64 %a12
}

declare i32 @pthread_mutex_lock(ptr)
declare i32 @pthread_mutex_trylock(ptr)
declare i32 @pthread_mutex_unlock(ptr)
declare i32 @pthread_spin_lock(ptr)
declare i32 @pthread_spin_unlock(ptr)
declare i32 @pthread_rwlock_wrlock(ptr)
declare i32 @pthread_rwlock_unlock(ptr)
