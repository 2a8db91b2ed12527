//! Records the source commit the tool is built from, so every report can say which code made it: the
//! `CONFORMANCE_GIT_COMMIT` environment variable of the build (12 hex digits, `-dirty` when the tree had changes),
//! or nothing when git or the repository is not there (a source tarball, a vendored build).

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    if let Some(commit) = git(&["rev-parse", "--short=12", "HEAD"]) {
        let dirty =
            git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
        let suffix = if dirty { "-dirty" } else { "" };
        println!("cargo:rustc-env=CONFORMANCE_GIT_COMMIT={commit}{suffix}");
    }
    // Rebuild when HEAD moves or the index changes; paths that do not exist are ignored by cargo's check.
    if let Some(dir) = git(&["rev-parse", "--git-dir"]) {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
        for f in ["HEAD", "index"] {
            println!("cargo:rerun-if-changed={}", dir.join(f).display());
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}
