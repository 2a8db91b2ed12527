use measurements::job::{plan_jobs, Backend};
use measurements::store::Dataset;
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let ds = Dataset::load(&["measurements/data".into()]).unwrap();
    let s = &ds.suites[&a[1]];
    let t = std::time::Instant::now();
    let b = conformance::vulkan::VulkanBackend::open(None, Default::default())
        .unwrap()
        .with_timeout(std::time::Duration::from_secs(
            a.get(3).map_or(20, |x| x.parse().unwrap()),
        ));
    for pj in plan_jobs(s) {
        if pj.job.kernel.name != a[2] {
            continue;
        }
        let p = recompiler::job::prepare(&pj.job, Default::default()).unwrap();
        println!(
            "spirv words {} prepare {:?}",
            p.module.spirv.len(),
            t.elapsed()
        );
        let bytes: Vec<u8> = p
            .module
            .spirv
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect();
        std::fs::write("/tmp/one.spv", bytes).unwrap();
        let t = std::time::Instant::now();
        let r = b.run(&pj.job);
        let m = reference_model::exec::ModelBackend::default().run(&pj.job);
        println!(
            "run {:?} equal {:?}",
            t.elapsed(),
            r.as_ref().ok() == m.as_ref().ok()
        );
        if let Err(e) = &r {
            println!("{e}");
        }
        if let (Ok(a), Ok(b)) = (&r, &m) {
            for ((n, x), (_, y)) in a.arrays.iter().zip(&b.arrays) {
                for (i, (p, q)) in x.iter().zip(y).enumerate() {
                    if p != q {
                        println!("{n}[{i}] vulkan {p:08x} model {q:08x}");
                    }
                }
            }
        }
        break;
    }
}
