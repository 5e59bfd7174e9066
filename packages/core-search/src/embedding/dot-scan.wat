;; Dot products of one query against every row of a row-major f32 matrix, four
;; lanes at a time (WebAssembly SIMD). Rows are `stride` floats apart, and
;; `stride` is a multiple of 4 (rows are zero-padded), so there is no lane tail.
;;
;; Four rows run side by side, each with its own accumulator: one accumulator's
;; chain of dependent adds left the SIMD unit waiting on the previous add; four
;; independent chains keep it busy, and each query load serves four rows. Every
;; row's lanes still add in the same order as a one-row loop (lane j: elements j,
;; j+4, ... in turn), so the scores are bit-identical to it and to the JavaScript
;; fallback. Each row's score is (lane0 + lane1) + (lane2 + lane3), as there too.
(module
  (memory (export "memory") 1)

  (func (export "scan")
    (param $matrix i32) (param $query i32) (param $out i32) (param $rows i32) (param $stride i32)
    (local $rowBytes i32) (local $end i32) (local $end4 i32) (local $i i32) (local $q v128)
    (local $r1 i32) (local $r2 i32) (local $r3 i32)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local.set $rowBytes (i32.shl (local.get $stride) (i32.const 2)))
    (local.set $end (i32.add (local.get $out) (i32.shl (local.get $rows) (i32.const 2))))
    ;; Where the groups of four rows end: `rows` rounded down to a multiple of four.
    (local.set $end4
      (i32.add (local.get $out) (i32.shl (i32.and (local.get $rows) (i32.const -4)) (i32.const 2))))
    (block $quadsDone
      (loop $quad
        (br_if $quadsDone (i32.ge_u (local.get $out) (local.get $end4)))
        (local.set $r1 (i32.add (local.get $matrix) (local.get $rowBytes)))
        (local.set $r2 (i32.add (local.get $r1) (local.get $rowBytes)))
        (local.set $r3 (i32.add (local.get $r2) (local.get $rowBytes)))
        (local.set $a0 (v128.const i32x4 0 0 0 0))
        (local.set $a1 (v128.const i32x4 0 0 0 0))
        (local.set $a2 (v128.const i32x4 0 0 0 0))
        (local.set $a3 (v128.const i32x4 0 0 0 0))
        (local.set $i (i32.const 0))
        (block $lanesDone
          (loop $lanes
            (br_if $lanesDone (i32.ge_u (local.get $i) (local.get $rowBytes)))
            (local.set $q (v128.load (i32.add (local.get $query) (local.get $i))))
            (local.set $a0 (f32x4.add (local.get $a0)
              (f32x4.mul (v128.load (i32.add (local.get $matrix) (local.get $i))) (local.get $q))))
            (local.set $a1 (f32x4.add (local.get $a1)
              (f32x4.mul (v128.load (i32.add (local.get $r1) (local.get $i))) (local.get $q))))
            (local.set $a2 (f32x4.add (local.get $a2)
              (f32x4.mul (v128.load (i32.add (local.get $r2) (local.get $i))) (local.get $q))))
            (local.set $a3 (f32x4.add (local.get $a3)
              (f32x4.mul (v128.load (i32.add (local.get $r3) (local.get $i))) (local.get $q))))
            (local.set $i (i32.add (local.get $i) (i32.const 16)))
            (br $lanes)))
        (f32.store offset=0 (local.get $out) (f32.add
            (f32.add (f32x4.extract_lane 0 (local.get $a0)) (f32x4.extract_lane 1 (local.get $a0)))
            (f32.add (f32x4.extract_lane 2 (local.get $a0)) (f32x4.extract_lane 3 (local.get $a0)))))
        (f32.store offset=4 (local.get $out) (f32.add
            (f32.add (f32x4.extract_lane 0 (local.get $a1)) (f32x4.extract_lane 1 (local.get $a1)))
            (f32.add (f32x4.extract_lane 2 (local.get $a1)) (f32x4.extract_lane 3 (local.get $a1)))))
        (f32.store offset=8 (local.get $out) (f32.add
            (f32.add (f32x4.extract_lane 0 (local.get $a2)) (f32x4.extract_lane 1 (local.get $a2)))
            (f32.add (f32x4.extract_lane 2 (local.get $a2)) (f32x4.extract_lane 3 (local.get $a2)))))
        (f32.store offset=12 (local.get $out) (f32.add
            (f32.add (f32x4.extract_lane 0 (local.get $a3)) (f32x4.extract_lane 1 (local.get $a3)))
            (f32.add (f32x4.extract_lane 2 (local.get $a3)) (f32x4.extract_lane 3 (local.get $a3)))))
        (local.set $matrix (i32.add (local.get $r3) (local.get $rowBytes)))
        (local.set $out (i32.add (local.get $out) (i32.const 16)))
        (br $quad)))
    ;; The last rows (fewer than four), one at a time.
    (block $done
      (loop $row
        (br_if $done (i32.ge_u (local.get $out) (local.get $end)))
        (local.set $a0 (v128.const i32x4 0 0 0 0))
        (local.set $i (i32.const 0))
        (block $rowDone
          (loop $lane
            (br_if $rowDone (i32.ge_u (local.get $i) (local.get $rowBytes)))
            (local.set $a0
              (f32x4.add (local.get $a0)
                (f32x4.mul
                  (v128.load (i32.add (local.get $matrix) (local.get $i)))
                  (v128.load (i32.add (local.get $query) (local.get $i))))))
            (local.set $i (i32.add (local.get $i) (i32.const 16)))
            (br $lane)))
        (f32.store (local.get $out) (f32.add
            (f32.add (f32x4.extract_lane 0 (local.get $a0)) (f32x4.extract_lane 1 (local.get $a0)))
            (f32.add (f32x4.extract_lane 2 (local.get $a0)) (f32x4.extract_lane 3 (local.get $a0)))))
        (local.set $matrix (i32.add (local.get $matrix) (local.get $rowBytes)))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (br $row))))

  ;; The k-th largest of `rows` f32 scores (NaN skipped), or -infinity when fewer than k
  ;; are numbers: a min-heap of the k largest at $heap, its root the smallest kept. Most
  ;; scores lose to the root at one comparison. (In JavaScript this loop over 10.5k scores
  ;; cost more than the dot products themselves.)
  (func (export "kth") (param $scores i32) (param $rows i32) (param $k i32) (param $heap i32) (result f32)
    (local $end i32) (local $size i32) (local $s f32) (local $pos i32) (local $parent i32)
    (local $child i32) (local $c f32)
    (local.set $end (i32.add (local.get $scores) (i32.shl (local.get $rows) (i32.const 2))))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $scores) (local.get $end)))
        ;; Once the heap is full, four scores none above the root are passed over at one
        ;; vector comparison (NaN compares false, as below): most of the scores.
        (if (i32.and (i32.ge_u (local.get $size) (local.get $k))
              (i32.le_u (i32.add (local.get $scores) (i32.const 16)) (local.get $end)))
          (then
            (if (i32.eqz (v128.any_true
                  (f32x4.gt (v128.load (local.get $scores)) (f32x4.splat (f32.load (local.get $heap))))))
              (then
                (local.set $scores (i32.add (local.get $scores) (i32.const 16)))
                (br $next)))))
        (local.set $s (f32.load (local.get $scores)))
        (local.set $scores (i32.add (local.get $scores) (i32.const 4)))
        (br_if $next (f32.ne (local.get $s) (local.get $s)))
        (if (i32.lt_u (local.get $size) (local.get $k))
          (then
            ;; Sift up from the new last place.
            (local.set $pos (local.get $size))
            (local.set $size (i32.add (local.get $size) (i32.const 1)))
            (block $placed
              (loop $up
                (br_if $placed (i32.eqz (local.get $pos)))
                (local.set $parent (i32.shr_u (i32.sub (local.get $pos) (i32.const 1)) (i32.const 1)))
                (local.set $c (f32.load (i32.add (local.get $heap) (i32.shl (local.get $parent) (i32.const 2)))))
                (br_if $placed (f32.le (local.get $c) (local.get $s)))
                (f32.store (i32.add (local.get $heap) (i32.shl (local.get $pos) (i32.const 2))) (local.get $c))
                (local.set $pos (local.get $parent))
                (br $up)))
            (f32.store (i32.add (local.get $heap) (i32.shl (local.get $pos) (i32.const 2))) (local.get $s))
            (br $next)))
        (br_if $next (i32.eqz (f32.gt (local.get $s) (f32.load (local.get $heap)))))
        ;; Replace the root and sift down.
        (local.set $pos (i32.const 0))
        (block $placed
          (loop $down
            (local.set $child (i32.add (i32.shl (local.get $pos) (i32.const 1)) (i32.const 1)))
            (br_if $placed (i32.ge_u (local.get $child) (local.get $k)))
            (local.set $c (f32.load (i32.add (local.get $heap) (i32.shl (local.get $child) (i32.const 2)))))
            (if (i32.lt_u (i32.add (local.get $child) (i32.const 1)) (local.get $k))
              (then
                (if (f32.lt
                      (f32.load (i32.add (local.get $heap) (i32.shl (i32.add (local.get $child) (i32.const 1)) (i32.const 2))))
                      (local.get $c))
                  (then
                    (local.set $child (i32.add (local.get $child) (i32.const 1)))
                    (local.set $c (f32.load (i32.add (local.get $heap) (i32.shl (local.get $child) (i32.const 2)))))))))
            (br_if $placed (f32.ge (local.get $c) (local.get $s)))
            (f32.store (i32.add (local.get $heap) (i32.shl (local.get $pos) (i32.const 2))) (local.get $c))
            (local.set $pos (local.get $child))
            (br $down)))
        (f32.store (i32.add (local.get $heap) (i32.shl (local.get $pos) (i32.const 2))) (local.get $s))
        (br $next)))
    (if (result f32) (i32.lt_u (local.get $size) (local.get $k))
      (then (f32.const -inf))
      (else (f32.load (local.get $heap)))))

  ;; Writes the index of every score >= $min (in order) as i32 at $out; returns how many.
  (func (export "atLeast") (param $scores i32) (param $rows i32) (param $min f32) (param $out i32) (result i32)
    (local $i i32) (local $count i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $rows)))
        ;; Four scores below $min at one vector comparison: most of them.
        (if (i32.le_u (i32.add (local.get $i) (i32.const 4)) (local.get $rows))
          (then
            (if (i32.eqz (v128.any_true
                  (f32x4.ge
                    (v128.load (i32.add (local.get $scores) (i32.shl (local.get $i) (i32.const 2))))
                    (f32x4.splat (local.get $min)))))
              (then
                (local.set $i (i32.add (local.get $i) (i32.const 4)))
                (br $next)))))
        (if (f32.ge (f32.load (i32.add (local.get $scores) (i32.shl (local.get $i) (i32.const 2)))) (local.get $min))
          (then
            (i32.store (i32.add (local.get $out) (i32.shl (local.get $count) (i32.const 2))) (local.get $i))
            (local.set $count (i32.add (local.get $count) (i32.const 1)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (local.get $count))

  ;; Dot products for the rows listed at $slots (i32 row indices), each in the lane
  ;; order of "scan", so each is bit-identical to that row's score there. The rows are
  ;; scattered and, with other work between two searches, not in the caches: four run
  ;; side by side, so four rows' loads are in flight at once rather than one row's.
  (func (export "gather")
    (param $matrix i32) (param $query i32) (param $slots i32) (param $count i32) (param $stride i32)
    (param $out i32)
    (local $rowBytes i32) (local $end i32) (local $end4 i32) (local $i i32) (local $q v128)
    (local $r0 i32) (local $r1 i32) (local $r2 i32) (local $r3 i32)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local.set $rowBytes (i32.shl (local.get $stride) (i32.const 2)))
    (local.set $end (i32.add (local.get $slots) (i32.shl (local.get $count) (i32.const 2))))
    (local.set $end4
      (i32.add (local.get $slots) (i32.shl (i32.and (local.get $count) (i32.const -4)) (i32.const 2))))
    (block $quadsDone
      (loop $quad
        (br_if $quadsDone (i32.ge_u (local.get $slots) (local.get $end4)))
        (local.set $r0 (i32.add (local.get $matrix) (i32.mul (i32.load (local.get $slots)) (local.get $rowBytes))))
        (local.set $r1
          (i32.add (local.get $matrix) (i32.mul (i32.load offset=4 (local.get $slots)) (local.get $rowBytes))))
        (local.set $r2
          (i32.add (local.get $matrix) (i32.mul (i32.load offset=8 (local.get $slots)) (local.get $rowBytes))))
        (local.set $r3
          (i32.add (local.get $matrix) (i32.mul (i32.load offset=12 (local.get $slots)) (local.get $rowBytes))))
        (local.set $a0 (v128.const i32x4 0 0 0 0))
        (local.set $a1 (v128.const i32x4 0 0 0 0))
        (local.set $a2 (v128.const i32x4 0 0 0 0))
        (local.set $a3 (v128.const i32x4 0 0 0 0))
        (local.set $i (i32.const 0))
        (block $lanesDone
          (loop $lanes
            (br_if $lanesDone (i32.ge_u (local.get $i) (local.get $rowBytes)))
            (local.set $q (v128.load (i32.add (local.get $query) (local.get $i))))
            (local.set $a0 (f32x4.add (local.get $a0)
              (f32x4.mul (v128.load (i32.add (local.get $r0) (local.get $i))) (local.get $q))))
            (local.set $a1 (f32x4.add (local.get $a1)
              (f32x4.mul (v128.load (i32.add (local.get $r1) (local.get $i))) (local.get $q))))
            (local.set $a2 (f32x4.add (local.get $a2)
              (f32x4.mul (v128.load (i32.add (local.get $r2) (local.get $i))) (local.get $q))))
            (local.set $a3 (f32x4.add (local.get $a3)
              (f32x4.mul (v128.load (i32.add (local.get $r3) (local.get $i))) (local.get $q))))
            (local.set $i (i32.add (local.get $i) (i32.const 16)))
            (br $lanes)))
        (f32.store offset=0 (local.get $out) (f32.add
            (f32.add (f32x4.extract_lane 0 (local.get $a0)) (f32x4.extract_lane 1 (local.get $a0)))
            (f32.add (f32x4.extract_lane 2 (local.get $a0)) (f32x4.extract_lane 3 (local.get $a0)))))
        (f32.store offset=4 (local.get $out) (f32.add
            (f32.add (f32x4.extract_lane 0 (local.get $a1)) (f32x4.extract_lane 1 (local.get $a1)))
            (f32.add (f32x4.extract_lane 2 (local.get $a1)) (f32x4.extract_lane 3 (local.get $a1)))))
        (f32.store offset=8 (local.get $out) (f32.add
            (f32.add (f32x4.extract_lane 0 (local.get $a2)) (f32x4.extract_lane 1 (local.get $a2)))
            (f32.add (f32x4.extract_lane 2 (local.get $a2)) (f32x4.extract_lane 3 (local.get $a2)))))
        (f32.store offset=12 (local.get $out) (f32.add
            (f32.add (f32x4.extract_lane 0 (local.get $a3)) (f32x4.extract_lane 1 (local.get $a3)))
            (f32.add (f32x4.extract_lane 2 (local.get $a3)) (f32x4.extract_lane 3 (local.get $a3)))))
        (local.set $slots (i32.add (local.get $slots) (i32.const 16)))
        (local.set $out (i32.add (local.get $out) (i32.const 16)))
        (br $quad)))
    ;; The last rows (fewer than four), one at a time.
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $slots) (local.get $end)))
        (local.set $r0
          (i32.add (local.get $matrix) (i32.mul (i32.load (local.get $slots)) (local.get $rowBytes))))
        (local.set $a0 (v128.const i32x4 0 0 0 0))
        (local.set $i (i32.const 0))
        (block $rowDone
          (loop $lane
            (br_if $rowDone (i32.ge_u (local.get $i) (local.get $rowBytes)))
            (local.set $a0
              (f32x4.add (local.get $a0)
                (f32x4.mul
                  (v128.load (i32.add (local.get $r0) (local.get $i)))
                  (v128.load (i32.add (local.get $query) (local.get $i))))))
            (local.set $i (i32.add (local.get $i) (i32.const 16)))
            (br $lane)))
        (f32.store (local.get $out)
          (f32.add
            (f32.add (f32x4.extract_lane 0 (local.get $a0)) (f32x4.extract_lane 1 (local.get $a0)))
            (f32.add (f32x4.extract_lane 2 (local.get $a0)) (f32x4.extract_lane 3 (local.get $a0)))))
        (local.set $slots (i32.add (local.get $slots) (i32.const 4)))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (br $next))))

  ;; Bounds on each row's score from its int8 copy. Row r's `$dims` int8 values start at
  ;; $values + r x $dims (packed: no padding between rows), and its f32 scale, f32 a
  ;; (length of the int8 row as scaled) and f32 b (length of what quantising lost) are
  ;; entries r of three f32 arrays at $params, $params + $plane and $params + 2 x $plane.
  ;; The query comes as `$stride16` i16 values (a multiple of 16, zeros beyond $dims) with
  ;; its own scale $qs, so the bytes a row's last step reads past its own values (the next
  ;; row's, or the padding after the last row) count zero. The integer dot product is exact;
  ;; times both scales it is the score of the two quantised vectors, which is within
  ;; a x $qe + b x $qn of the float score (see quantized-rows.ts). Writes that score minus
  ;; and plus the margin as f32 to $lo and $hi. Four rows side by side, as in "scan",
  ;; sixteen values a step; their four sums are gathered into one vector (integers: the
  ;; order of the additions cannot change them) and their bounds computed four at a time,
  ;; each lane the same float32 operations as a row alone.
  (func (export "bounds")
    (param $values i32) (param $dims i32) (param $params i32) (param $plane i32) (param $query i32)
    (param $lo i32) (param $hi i32) (param $rows i32) (param $stride16 i32)
    (param $qs f32) (param $qe f32) (param $qn f32)
    (local $end i32) (local $end4 i32) (local $i i32) (local $x v128)
    (local $qlo v128) (local $qhi v128) (local $r1 i32) (local $r2 i32) (local $r3 i32)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local $score v128) (local $margin v128)
    (local.set $end (i32.add (local.get $lo) (i32.shl (local.get $rows) (i32.const 2))))
    (local.set $end4
      (i32.add (local.get $lo) (i32.shl (i32.and (local.get $rows) (i32.const -4)) (i32.const 2))))
    (block $quadsDone
      (loop $quad
        (br_if $quadsDone (i32.ge_u (local.get $lo) (local.get $end4)))
        (local.set $r1 (i32.add (local.get $values) (local.get $dims)))
        (local.set $r2 (i32.add (local.get $r1) (local.get $dims)))
        (local.set $r3 (i32.add (local.get $r2) (local.get $dims)))
        (local.set $a0 (v128.const i32x4 0 0 0 0))
        (local.set $a1 (v128.const i32x4 0 0 0 0))
        (local.set $a2 (v128.const i32x4 0 0 0 0))
        (local.set $a3 (v128.const i32x4 0 0 0 0))
        (local.set $i (i32.const 0))
        (block $lanesDone
          (loop $lanes
            (br_if $lanesDone (i32.ge_u (local.get $i) (local.get $stride16)))
            (local.set $qlo (v128.load (i32.add (local.get $query) (i32.shl (local.get $i) (i32.const 1)))))
            (local.set $qhi
              (v128.load offset=16 (i32.add (local.get $query) (i32.shl (local.get $i) (i32.const 1)))))
            (local.set $x (v128.load (i32.add (local.get $values) (local.get $i))))
            (local.set $a0 (i32x4.add (local.get $a0)
              (i32x4.add
                (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $x)) (local.get $qlo))
                (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $x)) (local.get $qhi)))))
            (local.set $x (v128.load (i32.add (local.get $r1) (local.get $i))))
            (local.set $a1 (i32x4.add (local.get $a1)
              (i32x4.add
                (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $x)) (local.get $qlo))
                (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $x)) (local.get $qhi)))))
            (local.set $x (v128.load (i32.add (local.get $r2) (local.get $i))))
            (local.set $a2 (i32x4.add (local.get $a2)
              (i32x4.add
                (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $x)) (local.get $qlo))
                (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $x)) (local.get $qhi)))))
            (local.set $x (v128.load (i32.add (local.get $r3) (local.get $i))))
            (local.set $a3 (i32x4.add (local.get $a3)
              (i32x4.add
                (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $x)) (local.get $qlo))
                (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $x)) (local.get $qhi)))))
            (local.set $i (i32.add (local.get $i) (i32.const 16)))
            (br $lanes)))
        ;; [a0.0+a0.2, a0.1+a0.3, a1.0+a1.2, a1.1+a1.3] and the same of a2, a3; then the pairs.
        (local.set $a0 (i32x4.add
          (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $a0) (local.get $a1))
          (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $a0) (local.get $a1))))
        (local.set $a2 (i32x4.add
          (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $a2) (local.get $a3))
          (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $a2) (local.get $a3))))
        (local.set $a0 (i32x4.add
          (i8x16.shuffle 0 1 2 3 8 9 10 11 16 17 18 19 24 25 26 27 (local.get $a0) (local.get $a2))
          (i8x16.shuffle 4 5 6 7 12 13 14 15 20 21 22 23 28 29 30 31 (local.get $a0) (local.get $a2))))
        (local.set $score
          (f32x4.mul (f32x4.convert_i32x4_s (local.get $a0))
            (f32x4.mul (v128.load (local.get $params)) (f32x4.splat (local.get $qs)))))
        (local.set $margin
          (f32x4.add
            (f32x4.mul (v128.load (i32.add (local.get $params) (local.get $plane))) (f32x4.splat (local.get $qe)))
            (f32x4.mul
              (v128.load (i32.add (local.get $params) (i32.shl (local.get $plane) (i32.const 1))))
              (f32x4.splat (local.get $qn)))))
        (v128.store (local.get $lo) (f32x4.sub (local.get $score) (local.get $margin)))
        (v128.store (local.get $hi) (f32x4.add (local.get $score) (local.get $margin)))
        (local.set $values (i32.add (local.get $r3) (local.get $dims)))
        (local.set $params (i32.add (local.get $params) (i32.const 16)))
        (local.set $lo (i32.add (local.get $lo) (i32.const 16)))
        (local.set $hi (i32.add (local.get $hi) (i32.const 16)))
        (br $quad)))
    ;; The last rows (fewer than four), one at a time.
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $lo) (local.get $end)))
        (local.set $a0 (v128.const i32x4 0 0 0 0))
        (local.set $i (i32.const 0))
        (block $rowDone
          (loop $lane
            (br_if $rowDone (i32.ge_u (local.get $i) (local.get $stride16)))
            (local.set $x (v128.load (i32.add (local.get $values) (local.get $i))))
            (local.set $a0 (i32x4.add (local.get $a0)
              (i32x4.add
                (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $x))
                  (v128.load (i32.add (local.get $query) (i32.shl (local.get $i) (i32.const 1)))))
                (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $x))
                  (v128.load offset=16 (i32.add (local.get $query) (i32.shl (local.get $i) (i32.const 1))))))))
            (local.set $i (i32.add (local.get $i) (i32.const 16)))
            (br $lane)))
        (call $bound (local.get $a0) (local.get $params) (local.get $plane)
          (local.get $lo) (local.get $hi) (local.get $qs) (local.get $qe) (local.get $qn))
        (local.set $values (i32.add (local.get $values) (local.get $dims)))
        (local.set $params (i32.add (local.get $params) (i32.const 4)))
        (local.set $lo (i32.add (local.get $lo) (i32.const 4)))
        (local.set $hi (i32.add (local.get $hi) (i32.const 4)))
        (br $next))))

  ;; One row's bounds from its integer dot product (four lanes) and its scale, a and b
  ;; (at $params, $params + $plane, $params + 2 x $plane): a lane of the four-row step.
  (func $bound (param $acc v128) (param $params i32) (param $plane i32) (param $lo i32) (param $hi i32)
    (param $qs f32) (param $qe f32) (param $qn f32)
    (local $score f32) (local $margin f32)
    (local.set $score
      (f32.mul
        (f32.convert_i32_s
          (i32.add
            (i32.add (i32x4.extract_lane 0 (local.get $acc)) (i32x4.extract_lane 1 (local.get $acc)))
            (i32.add (i32x4.extract_lane 2 (local.get $acc)) (i32x4.extract_lane 3 (local.get $acc)))))
        (f32.mul (f32.load (local.get $params)) (local.get $qs))))
    (local.set $margin
      (f32.add
        (f32.mul (f32.load (i32.add (local.get $params) (local.get $plane))) (local.get $qe))
        (f32.mul (f32.load (i32.add (local.get $params) (i32.shl (local.get $plane) (i32.const 1))))
          (local.get $qn))))
    (f32.store (local.get $lo) (f32.sub (local.get $score) (local.get $margin)))
    (f32.store (local.get $hi) (f32.add (local.get $score) (local.get $margin)))))
