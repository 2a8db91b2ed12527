#version 450
// v_mul_f32 then v_add_f32, four independent chains per lane, `steps` steps per turn, written by hand with the gfx10 semantics of
// MODE 0xc0 (round to nearest even, f32 denormals flushed in and out, IEEE_MODE 0, DX10_CLAMP 1): what
// `conformance bench-gpu` holds the recompiled guest kernel against. Bit-exact on any Vulkan device with
// f32 round-to-nearest-even float controls; the argument is in the comments.
#extension GL_EXT_spirv_intrinsics : require
// RoundingModeRTE (4462) for 32-bit floats, capability RoundingModeRTE (4467), SPV_KHR_float_controls.
spirv_execution_mode(extensions = ["SPV_KHR_float_controls"], capabilities = [4467], 4462, 32);

layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer In { uvec4 src[]; };
layout(std430, binding = 1) writeonly buffer Out { uvec4 dst[]; };
layout(push_constant) uniform P { uint turns; uint a; uint b; uint steps; };

const uint SIGN = 0x80000000u, MAG = 0x7fffffffu, INF = 0x7f800000u, MINN = 0x00800000u;
const uint DNAN = 0xffc00000u;
const float S64 = 18446744073709551616.0; // 2^64

// A denormal input reads as its signed zero (MODE f32 denormal field 0: rule f32.denorm.arith).
uint flushed(uint x) { return (x & INF) == 0u ? x & SIGN : x; }
bool nan(uint x) { return (x & MAG) > INF; }
bool normal(uint x) { return (x & MAG) - MINN < INF - MINN; }
// A finite result above the smallest normal is the exact result rounded once and not tiny, whatever the
// device does with denormals; at the smallest normal or below the exact value decides.
bool clear(uint r) { return (r & MAG) - (MINN + 1u) < INF - MINN - 1u; }

uint mul_slow(uint x, uint y) {
    if (nan(x)) return x; // the first NaN source (nan.select.first_source), unquieted at IEEE_MODE 0 (nan.quiet.ieee_only)
    if (nan(y)) return y;
    uint s = (x ^ y) & SIGN;
    bool z = (x & MAG) == 0u || (y & MAG) == 0u;
    if ((x & MAG) == INF || (y & MAG) == INF) return z ? DNAN : s | INF; // inf * 0: nan.default
    if (z) return s;
    precise float r = uintBitsToFloat(x) * uintBitsToFloat(y);
    if (isinf(r)) return s | INF; // overflow rounds to infinity
    // Both factors lie in [2^-126, 2] here, so the product scaled by 2^128 is normal and rounded once at 24
    // bits: tiny after rounding (f32.tininess.after_rounding) exactly when it is below 2^2.
    precise float t = (uintBitsToFloat(x) * S64) * (uintBitsToFloat(y) * S64);
    return abs(t) < 4.0 ? s : s | MINN;
}

uint add_slow(uint x, uint y) {
    if (nan(x)) return x;
    if (nan(y)) return y;
    bool ix = (x & MAG) == INF, iy = (y & MAG) == INF;
    if (ix && iy && x != y) return DNAN;
    if (ix) return x;
    if (iy) return y;
    if ((x & MAG) == 0u && (y & MAG) == 0u) return x & y; // -0 only from -0 + -0
    if ((x & MAG) == 0u) return y;
    if ((y & MAG) == 0u) return x;
    precise float r = uintBitsToFloat(x) + uintBitsToFloat(y);
    if (isinf(r)) return floatBitsToUint(r);
    // A sum at or below the smallest normal: with an operand of 2^-60 or more it cancelled exactly (every
    // operand near it is a multiple of 2^-84), else the sum scaled by 2^64 is exact.
    if (max(x & MAG, y & MAG) >= 0x21800000u) return 0u;
    precise float t = uintBitsToFloat(x) * S64 + uintBitsToFloat(y) * S64;
    uint tb = floatBitsToUint(t);
    if ((tb & MAG) == 0u) return 0u;
    if ((tb & MAG) < 0x20800000u) return tb & SIGN; // tiny: flushed to its signed zero
    return (tb & SIGN) | MINN;
}

uint mul(uint x, uint y) {
    x = flushed(x);
    y = flushed(y);
    if (normal(x) && normal(y)) {
        precise float r = uintBitsToFloat(x) * uintBitsToFloat(y);
        uint rb = floatBitsToUint(r);
        if (clear(rb)) return rb;
    }
    return mul_slow(x, y);
}

uint add(uint x, uint y) {
    x = flushed(x);
    y = flushed(y);
    if (normal(x) && normal(y)) {
        precise float r = uintBitsToFloat(x) + uintBitsToFloat(y);
        uint rb = floatBitsToUint(r);
        if (clear(rb)) return rb;
    }
    return add_slow(x, y);
}

void main() {
    uint i = gl_GlobalInvocationID.x;
    uvec4 v = src[i];
    for (uint t = 0u; t < turns; t++) {
        for (uint u = 0u; u < steps; u++) {
            v.x = add(mul(v.x, a), b);
            v.y = add(mul(v.y, a), b);
            v.z = add(mul(v.z, a), b);
            v.w = add(mul(v.w, a), b);
        }
    }
    dst[i] = v;
}
