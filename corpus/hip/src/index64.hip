// 64-bit index math: a strided scatter whose addresses are 64-bit products of the work-item index,
// 64-bit multiply, shift, division and remainder.
#include "hx_hip.h"

KERNEL void index64(const u64 *in, u64 *out, u64 *quot, i64 stride, i64 offset) {
  u64 g = (u64)block_x() * block_dim_x() + thread_x();
  u64 v = in[g];
  u64 h = v * 0x9E3779B97F4A7C15ull ^ (g << 33);
  out[(i64)g * stride + offset] = h;
  quot[2 * g] = v / (g + 3);
  quot[2 * g + 1] = (u64)((i64)v % (i64)-(i64)(g + 7));
}
