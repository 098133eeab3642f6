// Clock mode keeps a pointer-chasing loop rolled: a probe fires at most once an iteration,
// and unrolled by four, an iteration of a chase that misses the cache is four misses
// (~1600 cycles on the dev VM), too coarse a step for a 2 us quantum. The marker goes on
// before the unroller runs (the vectorizer-start extension point). The walk's own loads
// wait on each other, so rolled it runs as fast. An array loop is unrolled as before, and
// flag mode leaves both alone.
// RUN: %clang -O3 -S -emit-llvm -mllvm -quanta-mode=clock %s -o - | FileCheck %s
// RUN: %clang -O3 -S -emit-llvm -mllvm -quanta-mode=flag %s -o - | FileCheck %s --check-prefix=FLAG

struct node {
  struct node* next;
  long value;
};

// CHECK-LABEL: define {{.*}} @walk(
// CHECK: load ptr
// CHECK-NOT: load ptr
// CHECK: br i1 %{{.*}}, !llvm.loop [[LOOP:![0-9]+]]
// CHECK: ret i64
// FLAG-LABEL: define {{.*}} @walk(
// FLAG-COUNT-4: load ptr
long walk(struct node* p, long steps) {
  long sum = 0;
  for (long i = 0; i < steps; i++) {
    sum += p->value;
    p = p->next;
  }
  return sum;
}

// CHECK-LABEL: define {{.*}} @sum_array(
// CHECK-COUNT-2: load <{{[0-9]+}} x i64>
long sum_array(const long* a, long n) {
  long s = 0;
  for (long i = 0; i < n; i++) s += a[i];
  return s;
}

// CHECK: [[LOOP]] = distinct !{[[LOOP]], {{.*}}[[DISABLE:![0-9]+]]}
// CHECK: [[DISABLE]] = !{!"llvm.loop.unroll.disable"}
