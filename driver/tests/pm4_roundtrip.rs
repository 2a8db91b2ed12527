//! Every bundled job written as a command buffer, run through the command processor on the model, gives what
//! the model gives for the job itself, array for array; in both queue kinds and with the indirect paths.

use driver::pm4::{encode_job, run_job, EncodeOptions, Engine};
use measurements::job::{plan_jobs, Backend};
use measurements::Dataset;
use reference_model::exec::ModelBackend;

#[test]
fn bundled_jobs_through_pm4_equal_the_direct_model_run() {
    let ds = Dataset::load(&[measurements::bundled_data_dir()]).unwrap();
    let model = ModelBackend::default();
    let variants = [
        EncodeOptions::default(),
        EncodeOptions {
            engine: Engine::Graphics,
            indirect_user_data: true,
            indirect_dispatch: true,
        },
        EncodeOptions {
            engine: Engine::Compute,
            indirect_user_data: true,
            indirect_dispatch: true,
        },
    ];
    let mut jobs = 0;
    for suite in ds.suites.values() {
        for (i, planned) in plan_jobs(suite).into_iter().enumerate() {
            let job = &planned.job;
            let direct = model.run(job);
            // Every job in the default form; the other forms on every fourth job (they share the dispatch).
            for (v, options) in variants.iter().enumerate() {
                if v > 0 && i % 4 != 0 {
                    continue;
                }
                let via = run_job(job, &model, options);
                if via != direct {
                    panic!(
                        "{} with {options:?}: {}",
                        job.describe(),
                        difference(&via, &direct)
                    );
                }
            }
            jobs += 1;
        }
    }
    // 93 jobs in the bundled data (2026-12-06).
    assert!(jobs >= 90, "{jobs} jobs");
}

/// Where two results first differ, briefly (the whole arrays would bury it).
fn difference(
    a: &Result<measurements::JobOutput, measurements::BackendError>,
    b: &Result<measurements::JobOutput, measurements::BackendError>,
) -> String {
    match (a, b) {
        (Ok(x), Ok(y)) => {
            for ((n, da), (_, db)) in x.arrays.iter().zip(&y.arrays) {
                if let Some(i) = da.iter().zip(db).position(|(p, q)| p != q) {
                    return format!(
                        "array `{n}` dword {i}: {:#010x} through PM4, {:#010x} direct",
                        da[i], db[i]
                    );
                }
            }
            format!("arrays {:?} and {:?}", x.arrays.len(), y.arrays.len())
        }
        _ => format!(
            "{:?} through PM4, {:?} direct",
            a.as_ref().err(),
            b.as_ref().err()
        ),
    }
}

#[test]
fn the_encoded_submission_is_the_agc_shape() {
    let ds = Dataset::load(&[measurements::bundled_data_dir()]).unwrap();
    let suite = ds.suites.values().next().unwrap();
    let job = &plan_jobs(suite)[0].job;
    let e = encode_job(job, &EncodeOptions::default()).unwrap();
    let body = e
        .memory
        .read_dwords(e.body, u64::from(e.body_dwords))
        .unwrap();
    let (text, err) = driver::pm4::dump(&body, Engine::Compute);
    assert_eq!(err, None);
    let names: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("0x"))
        .map(|l| l.split_whitespace().nth(2).unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "ACQUIRE_MEM",
            "SET_SH_REG",
            "SET_SH_REG",
            "SET_SH_REG",
            "SET_SH_REG",
            "SET_SH_REG",
            "SET_SH_REG",
            "SET_SH_REG",
            "DISPATCH_DIRECT",
            "EVENT_WRITE",
            "RELEASE_MEM"
        ],
        "{text}"
    );
}

/// A job whose arrays sit elsewhere than the backends would put them (as a title's memory would): through PM4
/// it runs at those addresses, and gives what the model gives for the job at the same fixed addresses.
#[test]
fn jobs_at_the_guests_own_addresses_run_there() {
    let ds = Dataset::load(&[measurements::bundled_data_dir()]).unwrap();
    let model = ModelBackend::default();
    let mut checked = 0;
    for suite in ds.suites.values() {
        let mut job = plan_jobs(suite).remove(0).job;
        // Arrays 3 MiB apart from 0x7_4000_0000, in reverse order of the memory list.
        let n = job.kernel.memory.len() as u64;
        job.addresses = Some(
            (0..n)
                .map(|i| 0x7_4000_0000 + (n - i) * (3 << 20))
                .collect(),
        );
        let direct = model.run(&job);
        assert!(direct.is_ok(), "{}: {:?}", job.describe(), direct.err());
        let via = run_job(&job, &model, &EncodeOptions::default());
        assert!(
            via == direct,
            "{}: {}",
            job.describe(),
            difference(&via, &direct)
        );
        checked += 1;
    }
    assert_eq!(checked, ds.suites.len());
}
