#!/bin/sh
# Regenerates src/isa/gen_tables.rs and src/isa/op.rs by probing llvm-mc 19 (Debian llvm-19), in a scratch
# directory (the intermediate JSON files are tens of MB and are not committed). About 30 minutes on 2 cores.
#   sh reference-model/src/isa/tablegen/run_all.sh [scratch-dir]
set -e
here=$(cd "$(dirname "$0")" && pwd)
work=${1:-/tmp/isa-tablegen}
mkdir -p "$work"
cp "$here"/*.py "$work"/
cd "$work"
python3 learn_vop.py && python3 learn_imm.py vop_learn.json
python3 learn_dpp.py && python3 learn_sdwa1.py && python3 learn_dpp_w0.py && python3 learn_imm.py dpp_learn.json
python3 learn_other.py && python3 learn_glc.py && python3 learn_mubuf_inv.py && python3 learn_imm.py other_learn.json
python3 learn_mimg.py && python3 learn_mimg2.py
ISA_OUT="$here/.." python3 gen.py
rustfmt --edition 2021 "$here/../op.rs"
