#!/usr/bin/env bash
# Recompiles the bench-gpu GLSL (Debian glslang-tools); the .spv files are committed so the command needs no glslang.
set -euo pipefail
cd "$(dirname "$0")"
for f in exact native; do
    glslangValidator -s --target-env vulkan1.2 -o "$f.spv" "$f.comp"
    spirv-val --target-env vulkan1.2 "$f.spv"
done
