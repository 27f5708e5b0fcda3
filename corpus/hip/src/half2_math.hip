// Packed half arithmetic as HIP code writes it with `__half2`-style vectors (clang's
// ext_vector_type(2) of _Float16) and short2: clang 22 makes v_pk_fma_f16, v_pk_add_f16,
// v_pk_mul_f16 (op_sel, neg, inline constants), v_pk_min/max_num_f16, the packed 16-bit integer
// ops, and scalar v_fma_f16 / v_max_num_f16 for the lanes. Inputs are quarters in [-4, 4], so
// every result is exact in f16 and the reference needs no tolerance.
#include "hx_hip.h"

typedef _Float16 h2 __attribute__((ext_vector_type(2)));
typedef short s2 __attribute__((ext_vector_type(2)));

KERNEL void half2_math(const u32 *x, const u32 *y, const u32 *z, float *out, i32 *iout, u32 n) {
  u32 i = block_x() * 64 + thread_x();
  if (i >= n) return;
  h2 a = __builtin_bit_cast(h2, x[i]), b = __builtin_bit_cast(h2, y[i]), c = __builtin_bit_cast(h2, z[i]);
  h2 r[4];
  r[0] = __builtin_elementwise_fma(a, b, c);
  r[1] = __builtin_elementwise_minnum(a, b) * (h2)(_Float16)0.5f;
  r[2] = r[0].yx - __builtin_elementwise_maxnum(a + b, a * c);
  r[3] = -a * b + (h2)(_Float16)1.0f;
  for (int k = 0; k < 4; k++) {
    out[10 * i + 2 * k] = (float)r[k].x;
    out[10 * i + 2 * k + 1] = (float)r[k].y;
  }
  _Float16 d = a.x * b.x + a.y * b.y;
  out[10 * i + 8] = (float)d + (float)__builtin_fmaf16(c.x, c.y, a.x);
  out[10 * i + 9] = (float)__builtin_elementwise_max(a.y, c.x);
  s2 ia = __builtin_bit_cast(s2, x[i]), ib = __builtin_bit_cast(s2, y[i]);
  iout[2 * i] = __builtin_bit_cast(i32, ia + ib);
  iout[2 * i + 1] = __builtin_bit_cast(i32, (ia >> (s2)3) * ib - __builtin_elementwise_max(ia, ib));
}
