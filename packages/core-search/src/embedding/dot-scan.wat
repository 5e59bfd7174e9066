;; Dot products of one query against every row of a row-major f32 matrix, four
;; lanes at a time (WebAssembly SIMD). Rows are `stride` floats apart, and
;; `stride` is a multiple of 4 (rows are zero-padded), so there is no tail loop.
(module
  (memory (export "memory") 1)
  (func (export "scan")
    (param $matrix i32) (param $query i32) (param $out i32) (param $rows i32) (param $stride i32)
    (local $rowBytes i32) (local $end i32) (local $i i32) (local $acc v128)
    (local.set $rowBytes (i32.shl (local.get $stride) (i32.const 2)))
    (local.set $end (i32.add (local.get $out) (i32.shl (local.get $rows) (i32.const 2))))
    (block $done
      (loop $row
        (br_if $done (i32.ge_u (local.get $out) (local.get $end)))
        (local.set $acc (v128.const i32x4 0 0 0 0))
        (local.set $i (i32.const 0))
        (block $rowDone
          (loop $lane
            (br_if $rowDone (i32.ge_u (local.get $i) (local.get $rowBytes)))
            (local.set $acc
              (f32x4.add (local.get $acc)
                (f32x4.mul
                  (v128.load (i32.add (local.get $matrix) (local.get $i)))
                  (v128.load (i32.add (local.get $query) (local.get $i))))))
            (local.set $i (i32.add (local.get $i) (i32.const 16)))
            (br $lane)))
        ;; (lane0 + lane1) + (lane2 + lane3): the JavaScript fallback adds in this order too.
        (f32.store (local.get $out)
          (f32.add
            (f32.add (f32x4.extract_lane 0 (local.get $acc)) (f32x4.extract_lane 1 (local.get $acc)))
            (f32.add (f32x4.extract_lane 2 (local.get $acc)) (f32x4.extract_lane 3 (local.get $acc)))))
        (local.set $matrix (i32.add (local.get $matrix) (local.get $rowBytes)))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (br $row)))))
