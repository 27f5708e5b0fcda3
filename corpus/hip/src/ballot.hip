// Ballots and votes, read per 32-lane segment so that a wave32 and a wave64 build agree: the
// number of lanes whose input is positive, this lane's rank among them, any and all.
#include "hx_hip.h"

KERNEL void ballot(const i32 *in, u32 *count, u32 *rank, u32 *votes) {
  u64 g = (u64)block_x() * block_dim_x() + thread_x();
  bool p = in[g] > 0;
  u32 lane = lane_id();
  // The 64-bit ballot compiles for both wave sizes (a wave32 ballot's upper half reads 0).
  u64 b = __builtin_amdgcn_ballot_w64(p);
  u32 seg = (u32)(b >> (lane & 32));
  u32 below = seg & ((1u << (lane & 31)) - 1u);
  count[g] = __builtin_popcount(seg);
  rank[g] = p ? __builtin_popcount(below) : ~0u;
  votes[g] = (seg != 0 ? 1u : 0u) | (seg == ~0u ? 2u : 0u);
}
