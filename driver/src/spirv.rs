//! A structural check of a SPIR-V module before it reaches the driver.
//!
//! Drivers are not required to survive malformed SPIR-V (the Vulkan spec makes a module that
//! is not valid SPIR-V undefined behaviour, `VUID-VkShaderModuleCreateInfo-pCode-08737`), so the
//! crate first checks what it can cheaply: the header, that every instruction's word count
//! stays inside the module, and that the named entry point exists and is a `GLCompute` one.
//! It also reads the entry point's `LocalSize` so the workgroup size can be checked against
//! the device's limits. Semantic validity (types, IDs, control flow) is left to the
//! validation layer and the driver.

const MAGIC: u32 = 0x0723_0203;
const OP_ENTRY_POINT: u32 = 15;
const OP_EXECUTION_MODE: u32 = 16;
const OP_DECORATE: u32 = 71;
const OP_EXECUTION_MODE_ID: u32 = 331;
const EXECUTION_MODEL_GLCOMPUTE: u32 = 5;
const EXECUTION_MODE_LOCAL_SIZE: u32 = 17;
const EXECUTION_MODE_LOCAL_SIZE_ID: u32 = 38;
const DECORATION_BUILTIN: u32 = 11;
const BUILTIN_WORKGROUP_SIZE: u32 = 25;

/// What the check learned about the module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ModuleFacts {
    /// The entry point's literal `LocalSize`, when it has one and nothing overrides it
    /// (`LocalSizeId` or a `WorkgroupSize` built-in constant).
    pub local_size: Option<[u32; 3]>,
}

/// Decodes a SPIR-V literal string (little-endian bytes, NUL-terminated, padded to words).
fn literal_string(words: &[u32]) -> Option<String> {
    let mut bytes = Vec::new();
    for w in words {
        for byte in w.to_le_bytes() {
            if byte == 0 {
                return String::from_utf8(bytes).ok();
            }
            bytes.push(byte);
        }
    }
    None
}

/// Checks the module's structure and finds `entry`. The error is a sentence for
/// [`crate::DriverError::ShaderRejected`].
pub(crate) fn inspect(words: &[u32], entry: &str) -> Result<ModuleFacts, String> {
    let (header, body) = match words.split_first_chunk::<5>() {
        Some(parts) => parts,
        None => {
            return Err(format!(
                "a SPIR-V module has a 5-word header; this one has {} words",
                words.len()
            ))
        }
    };
    let [magic, version, _generator, bound, schema] = *header;
    if magic != MAGIC {
        if magic == MAGIC.swap_bytes() {
            return Err("the module's words are byte-swapped (pass them in host order)".into());
        }
        return Err(format!(
            "not a SPIR-V module: the first word is {magic:#010x}, not the magic number {MAGIC:#010x}"
        ));
    }
    let (major, minor) = ((version >> 16) & 0xff, (version >> 8) & 0xff);
    if major != 1 || minor > 6 || version & 0xff00_00ff != 0 {
        return Err(format!(
            "unknown SPIR-V version word {version:#010x} (this crate knows 1.0 to 1.6)"
        ));
    }
    if bound == 0 || schema != 0 {
        return Err(format!(
            "invalid SPIR-V header: ID bound {bound}, schema {schema} (want a bound above 0 and schema 0)"
        ));
    }

    let mut entry_id = None;
    let mut other_model = None;
    let mut local_size = None;
    let mut size_by_id = false;
    let mut workgroup_size_builtin = false;
    let mut modes: Vec<(u32, u32, &[u32])> = Vec::new();

    let mut rest = body;
    let mut offset = 5usize;
    while let Some(&first) = rest.first() {
        let count = (first >> 16) as usize;
        let opcode = first & 0xffff;
        if count == 0 {
            return Err(format!(
                "instruction at word {offset} (opcode {opcode}) has a word count of 0"
            ));
        }
        let Some((inst, tail)) = rest.split_at_checked(count) else {
            return Err(format!(
                "instruction at word {offset} (opcode {opcode}) claims {count} words but only {} remain",
                rest.len()
            ));
        };
        let operands = inst.get(1..).unwrap_or_default();
        match opcode {
            OP_ENTRY_POINT => {
                if let [model, id, name @ ..] = operands {
                    if literal_string(name).as_deref() == Some(entry) {
                        if *model == EXECUTION_MODEL_GLCOMPUTE {
                            entry_id = Some(*id);
                        } else {
                            other_model = Some(*model);
                        }
                    }
                } else {
                    return Err(format!("OpEntryPoint at word {offset} is too short"));
                }
            }
            OP_EXECUTION_MODE | OP_EXECUTION_MODE_ID => {
                if let [target, mode, args @ ..] = operands {
                    modes.push((*target, *mode, args));
                } else {
                    return Err(format!("an execution mode at word {offset} is too short"));
                }
            }
            OP_DECORATE => {
                if let [_target, DECORATION_BUILTIN, BUILTIN_WORKGROUP_SIZE, ..] = operands {
                    workgroup_size_builtin = true;
                }
            }
            _ => {}
        }
        rest = tail;
        offset += count;
    }

    let Some(id) = entry_id else {
        return Err(match other_model {
            Some(m) => {
                format!("the entry point {entry:?} has execution model {m}, not GLCompute (5)")
            }
            None => format!("the module has no GLCompute entry point named {entry:?}"),
        });
    };
    for (target, mode, args) in modes {
        if target != id {
            continue;
        }
        match (mode, args) {
            (EXECUTION_MODE_LOCAL_SIZE, [x, y, z, ..]) => local_size = Some([*x, *y, *z]),
            (EXECUTION_MODE_LOCAL_SIZE, _) => {
                return Err("the LocalSize execution mode has fewer than 3 operands".into())
            }
            (EXECUTION_MODE_LOCAL_SIZE_ID, _) => size_by_id = true,
            _ => {}
        }
    }
    if size_by_id || workgroup_size_builtin {
        local_size = None;
    }
    Ok(ModuleFacts { local_size })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn string_words(s: &str) -> Vec<u32> {
        let mut bytes = s.as_bytes().to_vec();
        bytes.push(0);
        while bytes.len() % 4 != 0 {
            bytes.push(0);
        }
        bytes
            .chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }

    fn module(entry_model: u32, name: &str, local: Option<[u32; 3]>) -> Vec<u32> {
        let mut w = vec![MAGIC, 0x0001_0300, 0, 10, 0];
        let name = string_words(name);
        w.push(((3 + name.len() as u32) << 16) | OP_ENTRY_POINT);
        w.push(entry_model);
        w.push(4);
        w.extend(name);
        if let Some([x, y, z]) = local {
            w.extend([
                (6 << 16) | OP_EXECUTION_MODE,
                4,
                EXECUTION_MODE_LOCAL_SIZE,
                x,
                y,
                z,
            ]);
        }
        w
    }

    #[test]
    fn finds_entry_and_local_size() {
        let m = module(5, "main", Some([64, 2, 1]));
        assert_eq!(
            inspect(&m, "main"),
            Ok(ModuleFacts {
                local_size: Some([64, 2, 1])
            })
        );
        assert!(inspect(&m, "other").unwrap_err().contains("no GLCompute"));
    }

    #[test]
    fn rejects_wrong_model() {
        let m = module(0, "main", None);
        assert!(inspect(&m, "main")
            .unwrap_err()
            .contains("execution model 0"));
    }

    #[test]
    fn rejects_bad_headers_and_truncation() {
        assert!(inspect(&[], "main").is_err());
        assert!(inspect(&[MAGIC, 0x0001_0000, 0, 1], "main").is_err());
        assert!(inspect(&[MAGIC.swap_bytes(), 0x0001_0000, 0, 1, 0], "main")
            .unwrap_err()
            .contains("byte-swapped"));
        assert!(inspect(&[1, 2, 3, 4, 5], "main")
            .unwrap_err()
            .contains("magic"));
        assert!(inspect(&[MAGIC, 0x0002_0000, 0, 1, 0], "main").is_err());
        let mut m = module(5, "main", Some([1, 1, 1]));
        m.truncate(m.len() - 1);
        assert!(inspect(&m, "main").unwrap_err().contains("claims"));
        let mut m = module(5, "main", None);
        m.push(0);
        assert!(inspect(&m, "main").unwrap_err().contains("word count of 0"));
    }

    #[test]
    fn any_words_no_panic() {
        // A cheap exhaustive-ish sweep: every short module built from a few interesting words.
        let interesting = [
            0u32,
            1,
            MAGIC,
            0x0001_0000,
            0xffff_ffff,
            0x0004_000f,
            0x0001_0010,
        ];
        for a in interesting {
            for b in interesting {
                for c in interesting {
                    let m = [MAGIC, 0x0001_0000, 0, 5, 0, a, b, c];
                    let _ = inspect(&m, "main");
                }
            }
        }
    }
}
