//! Opens a report in headless Chromium and returns the DOM after its script ran: how tests prove the page
//! renders in a real browser, offline.

use std::path::Path;
use std::process::Command;

/// The Chromium binary: `$CHROMIUM` when set, else Debian's `/usr/bin/chromium`.
pub fn chromium() -> Option<std::path::PathBuf> {
    let p = std::env::var_os("CHROMIUM")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| "/usr/bin/chromium".into());
    p.is_file().then_some(p)
}

/// Loads `html` (a file) in headless Chromium with networking off and returns the serialized DOM.
pub fn dump_dom(html: &Path) -> Result<String, String> {
    let bin =
        chromium().ok_or("Chromium not found: install Debian's `chromium` or set CHROMIUM")?;
    let profile = std::env::temp_dir().join(format!(
        "reports-chromium-{}-{}",
        std::process::id(),
        unique()
    ));
    let abs = std::fs::canonicalize(html).map_err(|e| format!("{}: {e}", html.display()))?;
    let out = Command::new(bin)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--virtual-time-budget=2000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--dump-dom")
        .arg(format!("file://{}", abs.display()))
        .output()
        .map_err(|e| format!("running chromium: {e}"))?;
    let _ = std::fs::remove_dir_all(&profile);
    if !out.status.success() {
        return Err(format!(
            "chromium failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}
