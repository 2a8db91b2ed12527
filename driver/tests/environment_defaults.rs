//! `driver::set_environment_defaults` and the workspace's `.cargo/config.toml`, which must give `cargo test`
//! and `cargo run` the same settings. One test in its own binary, because it changes the process
//! environment.

use driver::{set_environment_defaults, ENVIRONMENT_DEFAULTS};

/// The `[env]` table of the workspace's `.cargo/config.toml`: (name, value) per `NAME = "value"` line.
fn cargo_env() -> Vec<(String, String)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../.cargo/config.toml");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut in_env = false;
    let mut out = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            in_env = line == "[env]";
        } else if in_env && !line.is_empty() && !line.starts_with('#') {
            let (k, v) = line
                .split_once('=')
                .unwrap_or_else(|| panic!("{path}: not `NAME = \"value\"`: {line}"));
            out.push((k.trim().to_string(), v.trim().trim_matches('"').to_string()));
        }
    }
    out
}

#[test]
fn defaults_fill_only_what_the_environment_leaves_unset() {
    let want: Vec<(String, String)> = ENVIRONMENT_DEFAULTS
        .iter()
        .map(|&(k, v)| (k.to_string(), v.to_string()))
        .collect();
    assert_eq!(
        cargo_env(),
        want,
        ".cargo/config.toml and ENVIRONMENT_DEFAULTS differ"
    );

    let (name, value) = ENVIRONMENT_DEFAULTS[0];
    std::env::remove_var(name);
    assert_eq!(set_environment_defaults(), vec![name]);
    assert_eq!(std::env::var(name).as_deref(), Ok(value));
    // A value the user set stays.
    std::env::set_var(name, "256");
    assert!(set_environment_defaults().is_empty());
    assert_eq!(std::env::var(name).as_deref(), Ok("256"));
}
