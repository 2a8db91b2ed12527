//! The HTML page in a real browser: headless Chromium loads it offline, runs its script, and the DOM holds the
//! summary numbers and the drill-down of each mismatch.

use reports::{BackendSummary, Counts, Mismatch, Problem, SuiteSummary, Summary};

fn sample() -> Summary {
    let counts = Counts {
        cells: 20,
        matched: 16,
        matched_nan_rule: 1,
        matched_with_tolerance: 1,
        mismatched: 2,
        known_differences: 0,
        unsupported: 1,
        errors: 0,
    };
    let mismatch = |col: u32, exp: &str, act: &str, diff: &str| Mismatch {
        id: format!("M-00000000000000{col:02x}"),
        suite: "peer-f32-min-max-nan".into(),
        kernel: "Code".into(),
        target: "rdna2".into(),
        lane: 7,
        mode: "c0/0/1/0".into(),
        evidence: "peer-pinned".into(),
        inputs: vec!["7fc00000".into(), "3f800000".into()],
        column: col,
        label: "v_min_f32 <&>".into(),
        expected: exp.into(),
        actual: act.into(),
        mask: "ffffffff".into(),
        check: "x".into(),
        differing_bits: diff.into(),
        known_difference: None,
    };
    Summary {
        backends: vec![BackendSummary {
            name: "model".into(),
            counts,
            suites: vec![SuiteSummary {
                suite: "peer-f32-min-max-nan".into(),
                counts,
                by_evidence: [("peer-pinned".to_string(), counts)].into_iter().collect(),
            }],
            mismatches: vec![
                mismatch(3, "3f800000", "7fc00000", "40400000"),
                mismatch(4, "00000001", "00000000", "00000001"),
            ],
            mismatches_omitted: 0,
            problems: vec![Problem {
                suite: "peer-f32-min-max-nan".into(),
                kernel: "Code".into(),
                mode: "c0/0/1/0".into(),
                dispatch: "0123456789abcdef".into(),
                kind: "unsupported".into(),
                message: "unsupported: v_sin_f32 (word 9): no model".into(),
                cells: 1,
            }],
        }],
        measurements: vec!["measurements/data".into()],
        rows: 10,
        mismatch_limit: 100,
        rules: vec![reports::RuleSummary {
            name: "minmax.nan.ieee0".into(),
            status: "measured".into(),
            text: "NaN rules of v_min/v_max".into(),
            evidence: "peer suites".into(),
            suites: vec!["peer-f32-min-max-nan".into()],
            results: [("model".to_string(), counts)].into_iter().collect(),
            by_evidence: [(
                "model".to_string(),
                [("peer-pinned".to_string(), counts)].into_iter().collect(),
            )]
            .into_iter()
            .collect(),
        }],
        run: reports::model::RunInfo {
            tool: "conformance".into(),
            version: "0.1.0".into(),
            commit: Some("0123456789ab".into()),
            generated_at: "2026-12-01T20:07:27Z".into(),
        },
    }
}

#[test]
fn html_renders_in_headless_chromium() {
    // Outside CI a developer without Chromium may skip this test by setting REPORTS_SKIP_BROWSER, and it says so;
    // in CI (`CI` set, as .ci/run does) a missing Chromium fails.
    if reports::browser::chromium().is_none()
        && std::env::var_os("REPORTS_SKIP_BROWSER").is_some()
        && std::env::var_os("CI").is_none()
    {
        eprintln!("SKIPPED html_renders_in_headless_chromium: no Chromium and REPORTS_SKIP_BROWSER is set");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let s = sample();
    reports::write_all(dir.path(), &s).unwrap();
    let html = std::fs::read_to_string(dir.path().join("index.html")).unwrap();
    assert!(
        !html.contains("http://") && !html.contains("https://"),
        "the page must not reference the network"
    );
    let dom = reports::browser::dump_dom(&dir.path().join("index.html"))
        .expect("Chromium must load the page");
    assert!(
        dom.contains("data-ready=\"1\""),
        "the page's script did not run"
    );
    assert!(dom.contains("data-mismatches-listed=\"2\""));
    for (key, v) in [
        ("cells", 20),
        ("matched", 16),
        ("matched_with_tolerance", 1),
        ("mismatched", 2),
        ("unsupported", 1),
        ("errors", 0),
    ] {
        let cell = format!("data-backend=\"model\" data-suite=\"\" data-key=\"{key}\">{v}<");
        assert!(dom.contains(&cell), "summary cell {key}={v} missing");
        let cell = format!(
            "data-backend=\"model\" data-suite=\"peer-f32-min-max-nan\" data-key=\"{key}\">{v}<"
        );
        assert!(dom.contains(&cell), "suite cell {key}={v} missing");
    }
    // Drill-down: ID, kernel, lane, mode, inputs, expected, actual and differing bits of each mismatch.
    for needle in [
        "M-0000000000000003",
        "peer-f32-min-max-nan/Code",
        "c0/0/1/0",
        "7fc00000 3f800000",
        "40400000",
        "v_min_f32 &lt;&amp;&gt;",
    ] {
        assert!(dom.contains(needle), "drill-down lacks {needle}");
    }
    // The differing bits are highlighted: 0x40400000 has two set bits (30 and 22).
    let first = dom
        .split("data-id=\"M-0000000000000003\"")
        .nth(1)
        .unwrap()
        .split("</details>")
        .next()
        .unwrap();
    assert_eq!(
        first.matches("class=\"d\"").count(),
        2 * 2,
        "2 differing bits in the expected and actual rows"
    );
    assert!(
        dom.contains("v_sin_f32 (word 9)"),
        "unsupported reasons are listed"
    );
    // Who made it and when; every evidence kind, hardware included with 0 cells.
    assert!(dom.contains("conformance 0.1.0, commit 0123456789ab, 2026-12-01T20:07:27Z"));
    assert!(dom
        .contains("data-backend=\"model\" data-suite=\"evidence:hardware\" data-key=\"cells\">0<"));
    assert!(dom.contains(
        "data-backend=\"model\" data-suite=\"evidence:peer-pinned\" data-key=\"cells\">20<"
    ));
}

#[test]
fn json_and_junit_agree_with_the_model() {
    let s = sample();
    let back: Summary = serde_json::from_str(&reports::json(&s)).unwrap();
    assert_eq!(back, s);
    let x = reports::junit(&s);
    assert!(x.contains(
        "<testsuite name=\"model\" tests=\"1\" failures=\"1\" errors=\"0\" skipped=\"0\">"
    ));
    assert!(x.contains("<testcase classname=\"model\" name=\"peer-f32-min-max-nan\"><failure message=\"2 mismatched cells\">"));
    assert!(x.contains("<property name=\"commit\" value=\"0123456789ab\"/>"));
    assert!(x.contains(
        "<property name=\"evidence.hardware\" value=\"cells 0 matched 0 mismatched 0 known 0\"/>"
    ));
    assert!(x.contains("evidence: peer-pinned 20"));
    let md = reports::markdown(&s);
    assert!(
        md.contains("| peer-f32-min-max-nan | peer-pinned | 20 | 16 | 1 | 2 | 0 | 1 | 0 | 85.0 |")
    );
    assert!(md.contains("| hardware | 0 | 0 | 0 | 0 | 0 | 0 | 0 |"));
    assert!(md.contains("conformance 0.1.0, commit 0123456789ab, 2026-12-01T20:07:27Z"));
    let t = reports::table(&s);
    assert!(t.contains("peer-f32-min-max-nan") && t.contains("TOTAL"));
    assert!(t.contains("model by evidence: hardware 0 cells; peer-pinned 20 cells, 17 matched, 2 mismatched (0 known)"));
    assert!(t.contains("known"));
}
