// Loads and stores through the V# of a 0-byte array (NUM_RECORDS 0: every access is out of range, loads read
// 0, stores are dropped). Lane L: v2 = -1, then loaded from the empty array (0); v3 = in[L], also stored to
// the empty array (dropped); out[2L] = v2, out[2L+1] = v3.
// User SGPRs: s[0:3] V# of in, s[4:7] V# of out, s[8:11] V# of empty.
v_lshlrev_b32 v1, 2, v0
v_mov_b32 v2, -1
buffer_load_dword v2, v1, s[8:11], 0 offen
buffer_load_dword v3, v1, s[0:3], 0 offen
v_lshlrev_b32 v6, 3, v0
s_waitcnt vmcnt(0)
buffer_store_dword v3, v1, s[8:11], 0 offen
buffer_store_dwordx2 v[2:3], v6, s[4:7], 0 offen
s_endpgm
