#version 450
// The computation of exact.comp in plain GLSL floats: the device's own rounding, denormals, NaNs and
// contraction. `conformance bench-gpu` states its speed as the cost of exactness, and counts its lanes that
// differ from the model.
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer In { vec4 src[]; };
layout(std430, binding = 1) writeonly buffer Out { vec4 dst[]; };
layout(push_constant) uniform P { uint turns; float a; float b; uint steps; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    vec4 v = src[i];
    for (uint t = 0u; t < turns; t++) {
        for (uint u = 0u; u < steps; u++) {
            v = v * a + b;
        }
    }
    dst[i] = v;
}
