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

declare i32 @pthread_mutex_lock(ptr)
declare i32 @pthread_mutex_trylock(ptr)
declare i32 @pthread_mutex_unlock(ptr)
declare i32 @pthread_spin_lock(ptr)
declare i32 @pthread_spin_unlock(ptr)
declare i32 @pthread_rwlock_wrlock(ptr)
declare i32 @pthread_rwlock_unlock(ptr)
