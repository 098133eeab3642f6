; Scan chains (clock, adaptive): a tokenizer's separator loop and word loop walk one IV,
; the word loop starting where the separator loop stopped. They share one distance to the
; next probe (one `quanta.left` PHI in the outer loop, not two) and one adaptive site, and
; the word loop starts from the separator loop's probe position as it stands: its limit
; takes `quanta.probe.at` itself, with no `start + left` add (folded after promotion).
; B = 600, both bodies stride 64. With -quanta-chain-scans=0 each loop keeps its own
; distance and site (word_count: two instructions and a spilled register more per word).
; RUN: %opt -passes=quanta-clock -quanta-bound=600 -S %s | FileCheck %s
; RUN: %opt -passes=quanta-clock -quanta-bound=600 -quanta-chain-scans=0 -S %s | FileCheck %s --check-prefix=APART

; Both loops test `iv.next != end` (the u64 tokenizer at -O3): the slot keeps its usual
; meaning, the distance from the stepped IV, and starts at 64.
; CHECK-LABEL: define i64 @tokens(
; CHECK: outer:
; CHECK: %quanta.left.0 = phi i64 [ 64, %entry ],
; CHECK-NOT: %quanta.left{{[0-9]+}}
; CHECK: %quanta.probe.first = add i64 %i, %quanta.left.0
; CHECK: sep:
; CHECK: %quanta.probe.at = phi i64 [ %quanta.probe.first,
; CHECK: %quanta.at.limit = icmp eq i64 %k.next, %quanta.limit
; CHECK: word:
; CHECK-NEXT: %quanta.limit{{[0-9]+}} = phi
; CHECK-NEXT: %quanta.probe.at{{[0-9]+}} = phi i64 [ %quanta.probe.at, %word.preheader ],
; CHECK: call i64 @quanta_clock_gap(ptr %[[SITE:quanta.gap]], i64 64, i64 4096, i64 0, i64 8192)
; CHECK: call i64 @quanta_clock_gap(ptr %[[SITE]], i64 64, i64 4096, i64 0, i64 8192)
; APART-LABEL: define i64 @tokens(
; APART: %quanta.left{{[0-9]+}}.0 = phi i64 [ 64, %entry ],
; APART: %quanta.left.0 = phi i64 [ 64, %entry ],
; APART: %quanta.probe.first{{[0-9]+}} = add i64 %k.lcssa, %quanta.left{{[0-9]+}}.0

; word_count's shape: the separator loop's exit test is on the low 32 bits (no exit test
; to share: a compare of its own), the word loop's `j < last` is tested before the step.
; The slot counts from the IV before the step (starts at 63), and the separator loop's
; own compare is made on that IV, `k`, not `k.next`.
; CHECK-LABEL: define i64 @words(
; CHECK: %quanta.left.0 = phi i64 [ 63, %entry ],
; CHECK-NOT: %quanta.left{{[0-9]+}}
; CHECK: sep.latch:
; CHECK: %quanta.fire = icmp eq i64 %k, %quanta.probe.at
; CHECK: %quanta.gap.next = call i64 @quanta_clock_gap(ptr %[[SITE2:quanta.gap]], i64 64, i64 4096, i64 0, i64 8192)
; CHECK: %quanta.probe.next = add i64 %k,
; CHECK: word.preheader:
; CHECK-NOT: add i64 %k.lcssa, %quanta.left
; CHECK: %quanta.limit.next = call i64 @llvm.smin.i64(i64 %last, i64 %quanta.probe.at)
; CHECK: %quanta.at.limit = icmp sge i64 %j, %quanta.limit
; CHECK: quanta.probe:
; CHECK-NEXT: call i64 @quanta_clock_gap(ptr %[[SITE2]], i64 64, i64 4096, i64 0, i64 8192)
; APART-LABEL: define i64 @words(
; APART: %quanta.left{{[0-9]+}}.0 = phi i64 [ 63, %entry ],
; APART: %quanta.left.0 = phi i64 [ 64, %entry ],
; APART: %quanta.fire = icmp eq i64 %k.next, %quanta.probe.at
; APART: %quanta.probe.first{{[0-9]+}} = add i64 %k.lcssa, %quanta.left{{[0-9]+}}.0

; Neither loop has an exit test to share (both on the low 32 bits): both compare their
; stepped IV with probe.at, and the word loop, probing with a compare of its own, still
; starts from the separator loop's probe position.
; CHECK-LABEL: define i64 @words32(
; CHECK: %quanta.left.0 = phi i64 [ 64, %entry ],
; CHECK-NOT: %quanta.left{{[0-9]+}}
; CHECK: %quanta.fire = icmp eq i64 %k.next, %quanta.probe.at
; CHECK: word:
; CHECK-NEXT: %quanta.probe.at{{[0-9]+}} = phi i64 [ %quanta.probe.at, %word.preheader ],
; APART-LABEL: define i64 @words32(
; APART: %quanta.left{{[0-9]+}}.0 = phi i64 [ 64, %entry ],
; APART: %quanta.left.0 = phi i64 [ 64, %entry ],

define i64 @tokens(ptr %b, i64 %n) {
entry:
  br label %outer
outer:
  %i = phi i64 [ 0, %entry ], [ %i.after, %outer.latch ]
  %s = phi i64 [ 0, %entry ], [ %s.next, %outer.latch ]
  %i1 = add nuw i64 %i, 1
  %sep.end = call i64 @llvm.umax.i64(i64 %n, i64 %i1)
  br label %sep
sep:
  %k = phi i64 [ %i, %outer ], [ %k.next, %sep.latch ]
  %pk = getelementptr inbounds i8, ptr %b, i64 %k
  %ck = load i8, ptr %pk
  %isSep = icmp ult i8 %ck, 64
  br i1 %isSep, label %sep.latch, label %word.pre
sep.latch:
  %k.next = add i64 %k, 1
  %sep.done = icmp eq i64 %k.next, %sep.end
  br i1 %sep.done, label %done, label %sep
word.pre:
  %inText = icmp ult i64 %k, %n
  br i1 %inText, label %word, label %outer.latch
word:
  %h = phi i64 [ 7, %word.pre ], [ %h.next, %word.latch ]
  %j = phi i64 [ %k, %word.pre ], [ %j.next, %word.latch ]
  %pj = getelementptr inbounds i8, ptr %b, i64 %j
  %cj = load i8, ptr %pj
  %isWord = icmp ugt i8 %cj, 63
  br i1 %isWord, label %word.latch, label %outer.latch
word.latch:
  %j.next = add i64 %j, 1
  %z = zext i8 %cj to i64
  %x = xor i64 %h, %z
  %h.next = mul i64 %x, 31
  %word.done = icmp eq i64 %j.next, %n
  br i1 %word.done, label %done, label %word
outer.latch:
  %i.after = phi i64 [ %k, %word.pre ], [ %j, %word ]
  %hw = phi i64 [ 7, %word.pre ], [ %h, %word ]
  %s.mul = mul i64 %s, 33
  %s.next = add i64 %hw, %s.mul
  %more = icmp ult i64 %i.after, %n
  br i1 %more, label %outer, label %done
done:
  %r = phi i64 [ %s, %sep.latch ], [ %h.next, %word.latch ], [ %s.next, %outer.latch ]
  ret i64 %r
}


define i64 @words(ptr %b, i32 %n32) {
entry:
  %n = zext i32 %n32 to i64
  %last = add nsw i64 %n, -1
  br label %outer
outer:
  %i = phi i64 [ 0, %entry ], [ %i.after, %outer.latch ]
  %s = phi i64 [ 0, %entry ], [ %s.next, %outer.latch ]
  br label %sep
sep:
  %k = phi i64 [ %i, %outer ], [ %k.next, %sep.latch ]
  %pk = getelementptr inbounds i8, ptr %b, i64 %k
  %ck = load i8, ptr %pk
  %isSep = icmp eq i8 %ck, 32
  br i1 %isSep, label %sep.latch, label %word.pre
sep.latch:
  %k.next = add nsw i64 %k, 1
  %k.low = and i64 %k.next, 4294967295
  %sep.done = icmp eq i64 %k.low, %n
  br i1 %sep.done, label %done, label %sep
word.pre:
  %inText = icmp slt i64 %k, %last
  br i1 %inText, label %word, label %outer.latch
word:
  %h = phi i64 [ 7, %word.pre ], [ %h.next, %word.latch ]
  %j = phi i64 [ %k, %word.pre ], [ %j.next, %word.latch ]
  %pj = getelementptr inbounds i8, ptr %b, i64 %j
  %cj = load i8, ptr %pj
  %isSpace = icmp eq i8 %cj, 32
  br i1 %isSpace, label %outer.latch, label %word.latch
word.latch:
  %j.next = add nsw i64 %j, 1
  %z = zext i8 %cj to i64
  %x = xor i64 %h, %z
  %h.next = mul i64 %x, 31
  %more = icmp slt i64 %j, %last
  br i1 %more, label %word, label %done
outer.latch:
  %i.after = phi i64 [ %k, %word.pre ], [ %j, %word ]
  %hw = phi i64 [ 7, %word.pre ], [ %h, %word ]
  %s.mul = mul i64 %s, 33
  %s.next = add i64 %hw, %s.mul
  %more.text = icmp slt i64 %i.after, %last
  br i1 %more.text, label %outer, label %done
done:
  %r = phi i64 [ %s, %sep.latch ], [ %h.next, %word.latch ], [ %s.next, %outer.latch ]
  ret i64 %r
}

declare i64 @llvm.umax.i64(i64, i64)

define i64 @words32(ptr %b, i32 %n32) {
entry:
  %n = zext i32 %n32 to i64
  %last = add nsw i64 %n, -1
  br label %outer
outer:
  %i = phi i64 [ 0, %entry ], [ %i.after, %outer.latch ]
  %s = phi i64 [ 0, %entry ], [ %s.next, %outer.latch ]
  br label %sep
sep:
  %k = phi i64 [ %i, %outer ], [ %k.next, %sep.latch ]
  %pk = getelementptr inbounds i8, ptr %b, i64 %k
  %ck = load i8, ptr %pk
  %isSep = icmp eq i8 %ck, 32
  br i1 %isSep, label %sep.latch, label %word.pre
sep.latch:
  %k.next = add nsw i64 %k, 1
  %k.low = and i64 %k.next, 4294967295
  %sep.done = icmp eq i64 %k.low, %n
  br i1 %sep.done, label %done, label %sep
word.pre:
  %inText = icmp slt i64 %k, %last
  br i1 %inText, label %word, label %outer.latch
word:
  %h = phi i64 [ 7, %word.pre ], [ %h.next, %word.latch ]
  %j = phi i64 [ %k, %word.pre ], [ %j.next, %word.latch ]
  %pj = getelementptr inbounds i8, ptr %b, i64 %j
  %cj = load i8, ptr %pj
  %isSpace = icmp eq i8 %cj, 32
  br i1 %isSpace, label %outer.latch, label %word.latch
word.latch:
  %j.next = add nsw i64 %j, 1
  %z = zext i8 %cj to i64
  %x = xor i64 %h, %z
  %h.next = mul i64 %x, 31
  %j.low = and i64 %j.next, 4294967295
  %word.done = icmp eq i64 %j.low, %n
  br i1 %word.done, label %done, label %word
outer.latch:
  %i.after = phi i64 [ %k, %word.pre ], [ %j, %word ]
  %hw = phi i64 [ 7, %word.pre ], [ %h, %word ]
  %s.mul = mul i64 %s, 33
  %s.next = add i64 %hw, %s.mul
  %more.text = icmp slt i64 %i.after, %last
  br i1 %more.text, label %outer, label %done
done:
  %r = phi i64 [ %s, %sep.latch ], [ %h.next, %word.latch ], [ %s.next, %outer.latch ]
  ret i64 %r
}
