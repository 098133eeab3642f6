; Instrumented functions land in the quanta_text section, which the runtime's signal
; handler treats as safe to switch out of; a function that already has a section, a
; comdat function and a function the pass leaves alone (the runtime's own) do not.
; RUN: %opt -passes=quanta-clock -S %s | FileCheck %s
; RUN: %opt -passes=quanta-flag -S %s | FileCheck %s

$inline_copy = comdat any

; CHECK: define i64 @plain(i64 %n) {{.*}}section "quanta_text"
define i64 @plain(i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi i64 [ 0, %entry ], [ %s.next, %loop ]
  %s.next = add i64 %s, %i
  %i.next = add i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret i64 %s.next
}

; CHECK: define i64 @own_section(i64 %x) section "hot"
define i64 @own_section(i64 %x) section "hot" {
  %y = mul i64 %x, 3
  ret i64 %y
}

; CHECK: define linkonce_odr i64 @inline_copy(i64 %x) comdat {
define linkonce_odr i64 @inline_copy(i64 %x) comdat {
  %y = mul i64 %x, 5
  ret i64 %y
}

; CHECK: define i64 @quanta_runtime_helper(i64 %x) {
define i64 @quanta_runtime_helper(i64 %x) {
  %y = mul i64 %x, 7
  ret i64 %y
}
