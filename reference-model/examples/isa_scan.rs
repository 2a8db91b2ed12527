//! Lists the non-canonical words of the peer corpus kernels (a helper for maintaining tests/isa_corpus.rs).
//!
//! `cargo run -p reference-model --example isa_scan`

use reference_model::isa::{self, Target};

fn main() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/corpus/peer");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("corpus")
        .flatten()
        .map(|e| e.path())
        .collect();
    files.sort();
    for f in files {
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&f).expect("read")).expect("json");
        for k in v["kernels"].as_array().into_iter().flatten() {
            let words: Vec<u32> = k["words"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|w| u32::from_str_radix(w.as_str().unwrap_or("0"), 16).unwrap_or(0))
                .collect();
            let mut i = 0;
            while i < words.len() {
                match isa::decode(Target::Gfx1013, &words, i) {
                    Ok(inst) => {
                        if !inst.canonical {
                            println!(
                                "{} {} word {i}: {:08x?} {}",
                                f.file_name().unwrap_or_default().to_string_lossy(),
                                k["name"],
                                inst.encoded(),
                                inst
                            );
                        }
                        i += inst.size as usize;
                    }
                    Err(e) => {
                        println!("{} {}: {e}", f.display(), k["name"]);
                        break;
                    }
                }
            }
        }
    }
}
