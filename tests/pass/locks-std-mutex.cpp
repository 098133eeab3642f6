// std::mutex, std::shared_mutex and try_lock lower to pthread calls at -O2 (checked with
// clang++-19 -O2 -S -emit-llvm); the bracketing catches them with no hand edits.
// RUN: %clang -x c++ -std=c++20 -O2 -S -emit-llvm -mllvm -quanta-mode=clock %s -o - | FileCheck %s
#include <mutex>
#include <shared_mutex>

std::mutex m;
std::shared_mutex sm;
long x;

// CHECK-LABEL: define {{.*}} @_Z6lockedv(
// CHECK: call void @quanta_preempt_disable()
// CHECK-NEXT: call {{.*}} i32 @pthread_mutex_lock(
// CHECK: call {{.*}} i32 @pthread_mutex_unlock(
// CHECK-NEXT: call void @quanta_preempt_enable()
void locked() {
  std::lock_guard<std::mutex> g(m);
  x++;
}

// CHECK-LABEL: define {{.*}} @_Z5triedv(
// CHECK: call void @quanta_preempt_disable()
// CHECK-NEXT: call {{.*}} i32 @pthread_mutex_trylock(
// CHECK: call void @quanta_preempt_enable()
void tried() {
  std::unique_lock<std::mutex> g(m, std::try_to_lock);
  if (g) x++;
}

// CHECK-LABEL: define {{.*}} @_Z6sharedv(
// CHECK: call void @quanta_preempt_disable()
// CHECK-NEXT: call {{.*}} i32 @pthread_rwlock_rdlock(
// CHECK: call {{.*}} i32 @pthread_rwlock_unlock(
// CHECK-NEXT: call void @quanta_preempt_enable()
long shared() {
  std::shared_lock<std::shared_mutex> g(sm);
  return x;
}
