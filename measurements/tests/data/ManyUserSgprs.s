// Reads user SGPR s19, the 20th: more than the 16 COMPUTE_USER_DATA registers of a gfx10 compute launch.
// Lane L: out[L] = in[L] + s19.
// User SGPRs: s[0:3] V# of in, s[4:7] V# of out, s8..s19 literals.
v_lshlrev_b32 v1, 2, v0
buffer_load_dword v2, v1, s[0:3], 0 offen
s_waitcnt vmcnt(0)
v_add_nc_u32 v3, s19, v2
buffer_store_dword v3, v1, s[4:7], 0 offen
s_endpgm
