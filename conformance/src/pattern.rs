//! Name patterns of the command line and the known-differences file: `--suite`, `--kernel` and a known
//! difference's `backend`.
//!
//! The syntax is the usual shell glob, as the `globset` crate reads it: `*` any run of characters (names hold
//! no path separator, so `*` and `**` are the same), `?` one character, `[abc]` / `[!abc]` / `[a-z]` a set,
//! `{a,b}` either pattern, `\` escapes the next character. Matching is case-sensitive and covers the whole name.
//!
//! Why `globset` rather than a hand-written matcher: it compiles the pattern to a finite automaton, so matching
//! takes time linear in the name whatever the pattern; the recursive matcher it replaced took time exponential
//! in the number of `*` (`--suite '************z'` ran for minutes). It is the matcher ripgrep and most Rust
//! tools use, so its syntax is what users already know.

use globset::{GlobBuilder, GlobMatcher, GlobSet, GlobSetBuilder};

/// One compiled pattern.
#[derive(Debug, Clone)]
pub struct Pattern {
    text: String,
    matcher: GlobMatcher,
}

impl Pattern {
    /// Compiles `text`; the error names the pattern and what is wrong with it (an unclosed `[`, a reversed
    /// range, ...).
    pub fn new(text: &str) -> Result<Pattern, String> {
        Ok(Pattern {
            text: text.to_string(),
            matcher: glob(text)?.compile_matcher(),
        })
    }

    /// Does the whole of `name` match?
    pub fn matches(&self, name: &str) -> bool {
        self.matcher.is_match(name)
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }
}

/// A list of patterns, any of which may match (a repeated command-line option). An empty list matches every
/// name, as an option that was not given selects everything.
#[derive(Debug, Clone)]
pub struct Patterns {
    texts: Vec<String>,
    set: GlobSet,
}

impl Default for Patterns {
    fn default() -> Self {
        Patterns {
            texts: Vec::new(),
            set: GlobSet::empty(),
        }
    }
}

impl Patterns {
    /// Compiles every pattern of `texts`; the first bad one is the error.
    pub fn new<S: AsRef<str>>(texts: &[S]) -> Result<Patterns, String> {
        let mut b = GlobSetBuilder::new();
        for t in texts {
            b.add(glob(t.as_ref())?);
        }
        Ok(Patterns {
            texts: texts.iter().map(|t| t.as_ref().to_string()).collect(),
            set: b
                .build()
                .map_err(|e| format!("patterns {:?}: {e}", texts_of(texts)))?,
        })
    }

    /// True when no pattern was given (everything matches).
    pub fn is_empty(&self) -> bool {
        self.texts.is_empty()
    }

    /// Does `name` match one of the patterns (or is the list empty)?
    pub fn matches(&self, name: &str) -> bool {
        self.texts.is_empty() || self.set.is_match(name)
    }

    /// The patterns as written.
    pub fn texts(&self) -> &[String] {
        &self.texts
    }
}

fn texts_of<S: AsRef<str>>(texts: &[S]) -> Vec<&str> {
    texts.iter().map(AsRef::as_ref).collect()
}

fn glob(text: &str) -> Result<globset::Glob, String> {
    GlobBuilder::new(text)
        // Names are not paths: nothing is a separator, and `\` escapes on every platform alike.
        .literal_separator(false)
        .backslash_escape(true)
        .build()
        .map_err(|e| format!("pattern `{text}`: {}", e.kind()))
}

/// Does `name` match `pattern`? A convenience for one-off checks; a pattern that does not compile matches
/// nothing.
pub fn matches(pattern: &str, name: &str) -> bool {
    Pattern::new(pattern).is_ok_and(|p| p.matches(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns() {
        assert!(matches("peer-f32-*", "peer-f32-min-max-nan"));
        assert!(matches("*nan", "peer-f32-min-max-nan"));
        assert!(!matches("peer-f16-*", "peer-f32-min-max-nan"));
        assert!(matches("Code", "Code"));
        assert!(!matches("Code", "Code2"));
        assert!(matches("peer-f?2-*", "peer-f32-min-max-nan"));
        assert!(matches(
            "peer-{f16,f32}-min-max-nan",
            "peer-f16-min-max-nan"
        ));
        assert!(matches("vulkan:*", "vulkan:lavapipe"));
        assert!(!matches("vulkan:*", "model"));
        assert!(matches("a\\*b", "a*b") && !matches("a\\*b", "axb"));
        assert!(Patterns::default().matches("anything"));
    }

    #[test]
    fn a_bad_pattern_is_named() {
        let e = Pattern::new("peer-[f32").unwrap_err();
        assert!(e.contains("peer-[f32") && e.contains("unclosed"), "{e}");
        let e = Patterns::new(&["ok", "[z-a]"]).unwrap_err();
        assert!(e.contains("[z-a]"), "{e}");
    }

    /// Regression: the recursive matcher took time exponential in the number of `*`.
    #[test]
    fn many_stars_match_in_linear_time() {
        let t = std::time::Instant::now();
        let name = "peer-f32-arithmetic-nan-".repeat(40);
        for stars in [13, 40, 200] {
            let p = format!("{}z", "*".repeat(stars));
            assert!(!matches(&p, &name));
            let p = Patterns::new(&[p]).unwrap();
            assert!(!p.matches(&name));
        }
        assert!(
            t.elapsed() < std::time::Duration::from_secs(5),
            "{:?}",
            t.elapsed()
        );
    }

    /// The exponential matcher this module replaced, kept as the reference for `*` and `?`: obviously right,
    /// and fast enough on the short inputs of the property below.
    fn reference(p: &[u8], n: &[u8]) -> bool {
        match p.split_first() {
            None => n.is_empty(),
            Some((b'*', rest)) => (0..=n.len()).any(|i| reference(rest, &n[i..])),
            Some((b'?', rest)) => !n.is_empty() && reference(rest, &n[1..]),
            Some((c, rest)) => n.first() == Some(c) && reference(rest, &n[1..]),
        }
    }

    proptest::proptest! {
        #[test]
        fn agrees_with_the_reference(p in "[ab*?-]{0,10}", n in "[ab-]{0,12}") {
            proptest::prop_assert_eq!(matches(&p, &n), reference(p.as_bytes(), n.as_bytes()), "{} {}", p, n);
        }
    }
}
