// One dispatch that writes two arrays. Lane L loads x = in[L], then
//   out[2L] = x + 1, out[2L+1] = ~x              (out: lane stride 2)
//   scratch[4L+1] = x << 4, scratch[4L] keeps its fill   (scratch: lane stride 4)
// User SGPRs: s[0:3] V# of in, s[4:7] V# of out, s[8:11] V# of scratch.
v_lshlrev_b32 v1, 2, v0
buffer_load_dword v2, v1, s[0:3], 0 offen
v_lshlrev_b32 v6, 3, v0
v_lshlrev_b32 v7, 4, v0
s_waitcnt vmcnt(0)
v_add_nc_u32 v3, 1, v2
v_not_b32 v4, v2
v_lshlrev_b32 v5, 4, v2
buffer_store_dwordx2 v[3:4], v6, s[4:7], 0 offen
buffer_store_dword v5, v7, s[8:11], 0 offen offset:4
s_endpgm
