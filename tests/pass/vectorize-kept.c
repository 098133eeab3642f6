// Probes go in at the optimizer-last extension point, after the loop vectorizer and the
// unroller: the loop below is still vectorized (<4 x i32> or wider) and the probe lands on
// the vector loop's back-edge, once, not once per unrolled copy.
// RUN: %clang -O3 -S -emit-llvm -mllvm -quanta-mode=clock %s -o - | FileCheck %s
// CHECK-LABEL: define {{.*}} @saxpy(
// CHECK: vector.body:
// CHECK: <{{[0-9]+}} x i32>
// CHECK: %quanta.at.limit{{[0-9]*}} = icmp eq i64 %index.next, %quanta.limit{{[0-9]*}}
// CHECK: call i64 @quanta_clock_gap(
void saxpy(int* restrict y, const int* restrict x, int a, long n) {
  for (long i = 0; i < n; i++) y[i] += a * x[i];
}
