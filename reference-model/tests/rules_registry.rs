//! The rules registry tells the truth: a rule's status is what its evidence supports, every rule short of
//! measured names the measurement that would settle it, and the model's code names a registered rule wherever it
//! applies a behaviour that is not plain IEEE 754 (and every registered rule is applied somewhere).

use reference_model::rules::{self, Status, RULES, SETTLE, SUITES};
use std::collections::BTreeSet;
use std::path::Path;

#[test]
fn names_are_unique_and_every_reference_resolves() {
    let mut seen = BTreeSet::new();
    for r in RULES {
        assert!(seen.insert(r.name), "rule {} is registered twice", r.name);
        assert!(
            !r.text.is_empty() && !r.evidence.is_empty(),
            "rule {} lacks text or evidence",
            r.name
        );
    }
    for (name, _) in SUITES {
        assert!(
            rules::lookup(name).is_some(),
            "SUITES names unknown rule {name}"
        );
    }
    for (name, template) in SETTLE {
        assert!(
            rules::lookup(name).is_some(),
            "SETTLE names unknown rule {name}"
        );
        assert!(
            template.len() > 40,
            "SETTLE entry of {name} does not say what to measure"
        );
    }
}

/// A measured rule cites the seed passage (seeds 000, 001 and 003 hold the project's hardware facts) or
/// measurement IDs; a peer-pinned one names the pinned rows.
#[test]
fn statuses_match_their_evidence() {
    let is_id = |w: &str| {
        let w = w.trim_matches(|c: char| !c.is_ascii_alphanumeric() && c != '-');
        w.len() == 18 && w.starts_with("M-") && w[2..].bytes().all(|b| b.is_ascii_hexdigit())
    };
    for r in RULES {
        match r.status {
            Status::Measured => assert!(
                ["Seed 000", "Seed 001", "Seed 003"]
                    .iter()
                    .any(|s| r.evidence.contains(s))
                    || r.evidence.split_whitespace().any(is_id),
                "measured rule {} names no seed passage or measurement ID: {}",
                r.name,
                r.evidence
            ),
            Status::PeerPinned => assert!(
                r.evidence.contains("pinned"),
                "peer-pinned rule {} does not name the pinned rows: {}",
                r.name,
                r.evidence
            ),
            Status::Documented | Status::Inferred => {}
        }
    }
}

#[test]
fn every_rule_short_of_measured_names_the_measurement_that_settles_it() {
    let missing: Vec<&str> = RULES
        .iter()
        .filter(|r| matches!(r.status, Status::Inferred | Status::PeerPinned))
        .filter(|r| rules::settle_of(r.name).is_none())
        .map(|r| r.name)
        .collect();
    assert!(missing.is_empty(), "no SETTLE template for: {missing:?}");
}

fn sources(dir: &Path, out: &mut Vec<(String, String)>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") && !p.ends_with("rules.rs") {
            out.push((
                p.display().to_string(),
                std::fs::read_to_string(&p).unwrap(),
            ));
        }
    }
}

/// Every rule name the code cites (a dotted name after "rule" or "rules" in a comment) is registered, and every
/// registered rule is cited by the code that applies it.
#[test]
fn the_code_and_the_registry_name_the_same_rules() {
    let mut files = Vec::new();
    sources(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut files,
    );
    let registered: BTreeSet<&str> = RULES.iter().map(|r| r.name).collect();
    let mut cited = BTreeSet::new();
    let mut unknown = Vec::new();
    for (path, text) in &files {
        let mut context = 0usize;
        for (n, line) in text.lines().enumerate() {
            // Comments and doc attributes; a citation may sit a line or two after the word "rule".
            let Some(c) = line.find("//").or_else(|| line.find("#[doc")) else {
                context = 0;
                continue;
            };
            let comment = &line[c..];
            if comment.to_ascii_lowercase().contains("rule") {
                context = 3;
            }
            for tok in
                comment.split(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '.' || ch == '_'))
            {
                let tok = tok.trim_end_matches('.');
                let dotted = tok.contains('.')
                    && tok.split('.').all(|p| {
                        !p.is_empty()
                            && p.bytes()
                                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
                    });
                if !dotted {
                    continue;
                }
                if registered.contains(tok) {
                    cited.insert(tok.to_string());
                } else if context > 0
                    && !tok.ends_with(".rs")
                    && registered
                        .iter()
                        .any(|r| r.split('.').next() == tok.split('.').next())
                {
                    unknown.push(format!("{path}:{}: {tok}", n + 1));
                }
            }
            context = context.saturating_sub(1);
        }
    }
    assert!(
        unknown.is_empty(),
        "the code cites unregistered rules:\n{}",
        unknown.join("\n")
    );
    let uncited: Vec<&&str> = registered.iter().filter(|r| !cited.contains(**r)).collect();
    assert!(
        uncited.is_empty(),
        "registered rules no code cites: {uncited:?}"
    );
}
