//! Names whose NIDs the relinker recognises, for `relink report` and error messages. A NID is a hash,
//! so a name is known only if it is listed here (or given with `--names FILE`, one name a line).

use crate::nid::nid;
use std::collections::HashMap;

/// Names known without a names file: what the native libraries implement, the golden vectors, and
/// a few common system-library functions.
pub const BUILTIN: &[&str] = &[
    // libkernel
    "__tls_get_addr",
    "__stack_chk_guard",
    "__stack_chk_fail",
    "__error",
    "sceKernelUsleep",
    "sceKernelGetProcessTime",
    "sceKernelIsNeoMode",
    "scePthreadCreate",
    "scePthreadJoin",
    "scePthreadSelf",
    "scePthreadSetaffinity",
    "sceKernelWrite",
    "sceKernelLoadStartModule",
    "sceKernelDebugOutText",
    "getpid",
    "_write",
    "write",
    // libc
    "printf",
    "puts",
    "putchar",
    "snprintf",
    "strlen",
    "strcmp",
    "memcpy",
    "memset",
    "malloc",
    "free",
    "exit",
    "atexit",
    "abort",
    // not implemented natively
    "sceAgcCreateShader",
    "sceAgcDcbResetQueue",
    "sceGnmSubmitDone",
    "sceVideoOutOpen",
    "sceSysmoduleLoadModule",
];

/// A NID-to-name table.
#[derive(Debug, Clone, Default)]
pub struct KnownNames {
    map: HashMap<String, String>,
}

impl KnownNames {
    /// The built-in names.
    pub fn builtin() -> Self {
        let mut k = KnownNames::default();
        for n in BUILTIN {
            k.add(n);
        }
        k
    }

    pub fn add(&mut self, name: &str) {
        self.map.insert(nid(name), name.to_string());
    }

    /// Add the names of a text file, one per line (blank lines and `#` comments skipped).
    pub fn add_text(&mut self, text: &str) {
        for line in text.lines() {
            let l = line.trim();
            if !l.is_empty() && !l.starts_with('#') {
                self.add(l);
            }
        }
    }

    pub fn get(&self, nid: &str) -> Option<&str> {
        self.map.get(nid).map(String::as_str)
    }
}
