// Functions marked QUANTA_NO_PREEMPT (annotate("quanta_no_preempt") in
// llvm.global.annotations) and the runtime's own quanta_* functions get no probe and no
// lock bracketing; an unmarked twin of the same code does.
// RUN: %clang -O2 -S -emit-llvm -I %quanta_include -mllvm -quanta-mode=clock -mllvm -quanta-bound=50 %s -o - | FileCheck %s
// RUN: %clang -O2 -S -emit-llvm -I %quanta_include -mllvm -quanta-mode=flag %s -o - | FileCheck %s
#include <pthread.h>
#include <quanta/probe.h>

pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static long work(const long* p) {
  long s = 0;
  while (*p) s += *p++ * 3;
  return s;
}

// CHECK-LABEL: define {{.*}} @marked(
// CHECK-NOT: quanta_probe_slow
// CHECK-NOT: quanta_flag_probe_slow
// CHECK-NOT: quanta_preempt
// CHECK: ret i64
QUANTA_NO_PREEMPT long marked(const long* p) {
  pthread_mutex_lock(&mu);
  long s = work(p);
  pthread_mutex_unlock(&mu);
  return s;
}

// CHECK-LABEL: define {{.*}} @quanta_helper(
// CHECK-NOT: quanta_probe_slow
// CHECK-NOT: quanta_flag_probe_slow
// CHECK: ret i64
long quanta_helper(const long* p) { return work(p); }

// CHECK-LABEL: define {{.*}} @unmarked(
// CHECK: call void @quanta_preempt_disable()
// CHECK: call {{(preserve_mostcc )?}}void @{{(__)?(quanta_probe_slow|quanta_flag_probe_slow)(_stub)?}}()
// CHECK: ret i64
long unmarked(const long* p) {
  pthread_mutex_lock(&mu);
  long s = work(p);
  pthread_mutex_unlock(&mu);
  return s;
}
