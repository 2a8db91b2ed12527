use measurements::job::plan_jobs;
use measurements::store::Dataset;
use std::collections::BTreeMap;
fn main() {
    let ds = Dataset::load(&["measurements/data".into()]).unwrap();
    let mut refused: BTreeMap<String, usize> = BTreeMap::new();
    let mut seen = std::collections::BTreeSet::new();
    let (mut ok, mut bad) = (0, 0);
    for s in ds.suites.values() {
        for pj in plan_jobs(s) {
            let j = &pj.job;
            let key = (j.suite.clone(), j.kernel.name.clone());
            if !seen.insert(key) { continue; }
            match recompiler::job::prepare(j, 1000) {
                Err(e) => { *refused.entry(format!("{e}")).or_default() += 1; }
                Ok(p) => {
                    let path = format!("/tmp/spv/{}-{}.spv", j.suite, j.kernel.name);
                    let bytes: Vec<u8> = p.module.spirv.iter().flat_map(|w| w.to_le_bytes()).collect();
                    std::fs::write(&path, bytes).unwrap();
                    let o = std::process::Command::new("spirv-val").args(["--target-env", "vulkan1.1", &path]).output().unwrap();
                    if o.status.success() { ok += 1 } else { bad += 1; println!("INVALID {path}: {}", String::from_utf8_lossy(&o.stderr).lines().take(4).collect::<Vec<_>>().join(" | ")); }
                }
            }
        }
    }
    for (r, n) in &refused { println!("{n:5} {r}"); }
    println!("valid {ok} invalid {bad} refused {}", refused.values().sum::<usize>());
}
