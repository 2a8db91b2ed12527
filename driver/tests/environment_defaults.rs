//! `driver::set_environment_defaults` and the workspace's `.cargo/config.toml`, which must give `cargo test`
//! and `cargo run` the same settings. One test in its own binary, because it changes the process
//! environment.

use driver::{set_environment_defaults, ENVIRONMENT_DEFAULTS};

/// The `[env]` table of the workspace's `.cargo/config.toml`, as (name, value).
fn cargo_env() -> Vec<(String, String)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../.cargo/config.toml");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let config: toml::Table = toml::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    let env = config["env"].as_table().expect("an [env] table");
    env.iter()
        .map(|(k, v)| (k.clone(), v.as_str().expect("a string value").to_string()))
        .collect()
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
