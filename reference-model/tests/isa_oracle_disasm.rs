//! The `oracle disasm` implementation (oracle-runner/src/disasm.rs) is plain std + this crate, so its tests
//! run here too, before the binary wires it up.
#[path = "../../oracle-runner/src/disasm.rs"]
#[allow(dead_code)]
mod disasm;
