//! One self-contained HTML page: inline style and script, no network, no external assets.

use crate::escape;
use crate::model::{Counts, Mismatch, Summary};
use std::fmt::Write as _;

const STYLE: &str = "
body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#1b1b1b;background:#fafafa}
h1,h2,h3{font-weight:600}
table{border-collapse:collapse;margin:.5em 0 1.5em}
th,td{border:1px solid #ccc;padding:.25em .6em;text-align:right}
th:first-child,td:first-child{text-align:left}
th{background:#eee}
tr.total td{font-weight:600;background:#f2f2f2}
td.bad{background:#fbd5d5}
td.warn{background:#fdf0c8}
td.good{background:#d9f2d9}
code,.mono{font-family:ui-monospace,monospace}
details.mismatch{border:1px solid #ddd;background:#fff;margin:.3em 0;padding:.3em .6em}
details.mismatch table td{text-align:left}
.bits span{display:inline-block;width:.75em;text-align:center}
.bits span.d{background:#e33;color:#fff}
.muted{color:#666}
";

const SCRIPT: &str = r#"
(function(){
  document.querySelectorAll('select.suite-filter').forEach(function(sel){
    sel.addEventListener('change',function(){
      var v=sel.value, b=sel.dataset.backend;
      document.querySelectorAll('details.mismatch[data-backend="'+b+'"]').forEach(function(d){
        d.style.display=(v===''||d.dataset.suite===v)?'':'none';});
    });
  });
  document.body.dataset.mismatchesListed=String(document.querySelectorAll('details.mismatch').length);
  document.body.dataset.ready='1';
})();
"#;

fn class_of(c: &Counts) -> &'static str {
    if c.mismatched > c.known_differences || c.errors > 0 {
        "bad"
    } else if c.unsupported > 0 {
        "warn"
    } else {
        "good"
    }
}

fn counts_cells(s: &mut String, c: &Counts, backend: &str, suite: &str) {
    let fields = [
        ("cells", c.cells),
        ("matched", c.matched),
        ("matched_with_tolerance", c.matched_with_tolerance),
        ("mismatched", c.mismatched),
        ("known_differences", c.known_differences),
        ("unsupported", c.unsupported),
        ("errors", c.errors),
    ];
    for (key, v) in fields {
        let _ = write!(
            s,
            "<td data-backend=\"{}\" data-suite=\"{}\" data-key=\"{key}\">{v}</td>",
            escape(backend),
            escape(suite)
        );
    }
    let _ = write!(
        s,
        "<td class=\"{}\">{:.1}</td>",
        class_of(c),
        c.pass_percent()
    );
}

const HEAD: &str =
    "<th>cells</th><th>matched</th><th>tolerance</th><th>mismatched</th><th>of which known</th>\
                    <th>unsupported</th><th>errors</th><th>pass %</th>";

fn bits(m: &Mismatch) -> String {
    let parse = |t: &str| u32::from_str_radix(t, 16).unwrap_or(0);
    let (e, a, d) = (
        parse(&m.expected),
        parse(&m.actual),
        parse(&m.differing_bits),
    );
    let row = |v: u32| -> String {
        (0..32)
            .rev()
            .map(|i| {
                let b = v >> i & 1;
                if d >> i & 1 == 1 {
                    format!("<span class=\"d\">{b}</span>")
                } else {
                    format!("<span>{b}</span>")
                }
            })
            .collect()
    };
    format!(
        "<div class=\"bits mono\">expected {}<br>actual&nbsp;&nbsp; {}</div>",
        row(e),
        row(a)
    )
}

/// Renders the whole report as one HTML document.
pub fn page(summary: &Summary) -> String {
    let mut s = String::from("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n");
    s.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    s.push_str("<title>Conformance report</title>\n<style>");
    s.push_str(STYLE);
    s.push_str("</style></head><body>\n<h1>Conformance report</h1>\n");
    if !summary.run.tool.is_empty() {
        let _ = writeln!(
            s,
            "<p class=\"muted\" id=\"run\">{}</p>",
            escape(&summary.run.line())
        );
    }
    let _ = writeln!(
        s,
        "<p class=\"muted\">Measurements: {} &middot; <span id=\"rows\">{}</span> rows &middot; cells compared bit for \
         bit under their masks</p>",
        escape(&summary.measurements.join(", ")),
        summary.rows
    );

    s.push_str("<h2>Summary</h2>\n<table id=\"summary\"><tr><th>backend</th>");
    s.push_str(HEAD);
    s.push_str("</tr>\n");
    for b in &summary.backends {
        let _ = write!(s, "<tr><td>{}</td>", escape(&b.name));
        counts_cells(&mut s, &b.counts, &b.name, "");
        s.push_str("</tr>\n");
    }
    s.push_str("</table>\n");

    for (bi, b) in summary.backends.iter().enumerate() {
        let _ = writeln!(s, "<h2>Backend <code>{}</code></h2>", escape(&b.name));
        s.push_str("<table class=\"evidence\"><tr><th>evidence</th>");
        s.push_str(HEAD);
        s.push_str("</tr>\n");
        for (k, c) in b.by_evidence() {
            let _ = write!(s, "<tr data-evidence=\"{k}\"><td>{}</td>", escape(&k));
            counts_cells(&mut s, &c, &b.name, &format!("evidence:{k}"));
            s.push_str("</tr>\n");
        }
        s.push_str("</table>\n");
        s.push_str("<table class=\"suites\"><tr><th>suite</th><th>evidence</th>");
        s.push_str(HEAD);
        s.push_str("</tr>\n");
        for su in &b.suites {
            let _ = write!(
                s,
                "<tr><td>{}</td><td>{}</td>",
                escape(&su.suite),
                escape(&su.evidence_label())
            );
            counts_cells(&mut s, &su.counts, &b.name, &su.suite);
            s.push_str("</tr>\n");
        }
        s.push_str("<tr class=\"total\"><td>total</td><td></td>");
        counts_cells(&mut s, &b.counts, &b.name, "*");
        s.push_str("</tr></table>\n");

        if !b.problems.is_empty() {
            s.push_str("<h3>Not run</h3>\n<table class=\"problems\"><tr><th>suite / kernel</th><th>mode</th><th>kind</th>\
                        <th>cells</th><th>reason</th></tr>\n");
            for p in &b.problems {
                let _ = writeln!(
                    s,
                    "<tr><td>{}/{}</td><td class=\"mono\">{}</td><td>{}</td><td>{}</td><td style=\"text-align:left\">{}</td></tr>",
                    escape(&p.suite),
                    escape(&p.kernel),
                    escape(&p.mode),
                    escape(&p.kind),
                    p.cells,
                    escape(&p.message)
                );
            }
            s.push_str("</table>\n");
        }

        let _ = writeln!(
            s,
            "<h3>Mismatches ({} listed, {} omitted)</h3>",
            b.mismatches.len(),
            b.mismatches_omitted
        );
        if !b.mismatches.is_empty() {
            s.push_str("<label>Suite: <select class=\"suite-filter\" data-backend=\"");
            let _ = write!(s, "{bi}");
            s.push_str("\"><option value=\"\">all</option>");
            let mut suites: Vec<&str> = b.mismatches.iter().map(|m| m.suite.as_str()).collect();
            suites.dedup();
            for su in suites {
                let _ = write!(s, "<option>{}</option>", escape(su));
            }
            s.push_str("</select></label>\n");
        }
        for m in &b.mismatches {
            let _ = writeln!(
                s,
                "<details class=\"mismatch\" data-backend=\"{bi}\" data-id=\"{id}\" data-suite=\"{suite}\"><summary><code>{id}</code> {suite}/{kernel} \
                 lane {lane} out[{col}] {label}: expected <code>{exp}</code>, got <code>{act}</code>{known}</summary>\n\
                 <table><tr><td>measurement</td><td class=\"mono\">{id}</td></tr>\
                 <tr><td>kernel</td><td>{suite}/{kernel}</td></tr><tr><td>lane</td><td>{lane}</td></tr>\
                 <tr><td>target</td><td>{target}</td></tr><tr><td>mode</td><td class=\"mono\">{mode}</td></tr>\
                 <tr><td>evidence</td><td>{evidence}</td></tr><tr><td>inputs</td><td class=\"mono\">{inputs}</td></tr>\
                 <tr><td>output dword</td><td>{col} {label}</td></tr>\
                 <tr><td>expected</td><td class=\"mono\">{exp}</td></tr><tr><td>actual</td><td class=\"mono\">{act}</td></tr>\
                 <tr><td>mask</td><td class=\"mono\">{mask}</td></tr><tr><td>check</td><td>{check}</td></tr>\
                 <tr><td>differing bits</td><td class=\"mono\">{diff}</td></tr>{reason}</table>{bits}</details>",
                id = escape(&m.id),
                suite = escape(&m.suite),
                kernel = escape(&m.kernel),
                lane = m.lane,
                col = m.column,
                label = escape(&m.label),
                exp = escape(&m.expected),
                act = escape(&m.actual),
                known = if m.known_difference.is_some() { " (known difference)" } else { "" },
                target = escape(&m.target),
                mode = escape(&m.mode),
                evidence = escape(&m.evidence),
                inputs = escape(&m.inputs.join(" ")),
                mask = escape(&m.mask),
                check = escape(&m.check),
                diff = escape(&m.differing_bits),
                bits = bits(m),
                reason = m.known_difference.as_ref().map_or(String::new(), |r| format!(
                    "<tr><td>known difference</td><td>{}</td></tr>",
                    escape(r)
                )),
            );
        }
    }
    if !summary.rules.is_empty() {
        s.push_str("<h2>Rules and evidence</h2>\n<table id=\"rules\"><tr><th>rule</th><th>status</th><th style=\"text-align:left\">what the model does</th><th style=\"text-align:left\">evidence</th><th>suites</th>");
        for b in &summary.backends {
            let _ = write!(s, "<th>{} pass / cells</th>", escape(&b.name));
        }
        s.push_str("</tr>\n");
        for r in &summary.rules {
            let _ = write!(
                s,
                "<tr data-rule=\"{name}\"><td class=\"mono\">{name}</td><td>{status}</td><td style=\"text-align:left\">{text}</td><td style=\"text-align:left\">{evidence}</td><td>{suites}</td>",
                name = escape(&r.name),
                status = escape(&r.status),
                text = escape(&r.text),
                evidence = escape(&r.evidence),
                suites = escape(&r.suites.join(", ")),
            );
            for b in &summary.backends {
                match r.results.get(&b.name) {
                    Some(c) if c.cells > 0 => {
                        let _ = write!(
                            s,
                            "<td class=\"{}\">{} / {}<br><small>{}</small></td>",
                            class_of(c),
                            c.matched + c.matched_with_tolerance,
                            c.cells,
                            escape(&r.evidence_split(&b.name))
                        );
                    }
                    _ => s.push_str("<td>-</td>"),
                }
            }
            s.push_str("</tr>\n");
        }
        s.push_str("</table>\n");
    }
    s.push_str("<script>");
    s.push_str(SCRIPT);
    s.push_str("</script>\n</body></html>\n");
    s
}
