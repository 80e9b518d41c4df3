//! `--junit FILE`: the run as JUnit XML, the format GitHub Actions
//! (through the usual report actions), GitLab (`artifacts:reports:junit`),
//! Jenkins and others read: `<testsuites>`, a `<testsuite>` a file, a
//! `<testcase>` a step with `<failure>`, `<error>` or `<skipped>`.

use std::path::Path;

use super::report::diff_lines_plain;
use super::{Status, SuiteReport};

/// Text made safe for XML 1.0, line ends kept.
fn escape(s: &str) -> String {
    crate::text::escape_xml(s, true)
}

fn secs(d: std::time::Duration) -> String {
    format!("{:.3}", d.as_secs_f64())
}

/// The XML of a run.
pub fn render(reports: &[SuiteReport]) -> String {
    let n = |s: Status| -> usize { reports.iter().map(|r| r.count(s)).sum() };
    let total: usize = reports.iter().map(|r| r.steps.len()).sum();
    let time: std::time::Duration = reports.iter().map(|r| r.took).sum();
    let mut x = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    x.push_str(&format!(
        "<testsuites name=\"mcpdeck test\" tests=\"{total}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{}\">\n",
        n(Status::Failed),
        n(Status::Error),
        n(Status::Skipped),
        secs(time)
    ));
    for r in reports {
        let file = escape(&super::report::shown_path(&r.file));
        x.push_str(&format!(
            "  <testsuite name=\"{}\" file=\"{file}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{}\">\n",
            escape(&r.name),
            r.steps.len(),
            r.count(Status::Failed),
            r.count(Status::Error),
            r.count(Status::Skipped),
            secs(r.took)
        ));
        for s in &r.steps {
            let head = format!(
                "    <testcase name=\"{}\" classname=\"{}\" file=\"{file}\" line=\"{}\" time=\"{}\"",
                escape(&s.label),
                escape(&r.name),
                s.line,
                secs(s.took)
            );
            match s.status {
                Status::Passed => x.push_str(&format!("{head}/>\n")),
                Status::Failed => {
                    x.push_str(&format!("{head}>\n"));
                    let first = s.failures.first();
                    let mut body = String::new();
                    for f in &s.failures {
                        body.push_str(&format!("{}: {}\n", f.assertion, f.message));
                        for l in diff_lines_plain(f) {
                            body.push_str(&format!("    {l}\n"));
                        }
                    }
                    x.push_str(&format!(
                        "      <failure message=\"{}\" type=\"{}\">{}</failure>\n",
                        escape(first.map_or("", |f| f.message.as_str())),
                        escape(first.map_or("", |f| f.assertion.as_str())),
                        escape(&body)
                    ));
                    x.push_str("    </testcase>\n");
                }
                Status::Error => {
                    let e = escape(s.error.as_deref().unwrap_or("error"));
                    x.push_str(&format!(
                        "{head}>\n      <error message=\"{e}\" type=\"error\">{e}</error>\n    </testcase>\n"
                    ));
                }
                Status::Skipped => {
                    let e = escape(s.error.as_deref().unwrap_or("skipped"));
                    x.push_str(&format!(
                        "{head}>\n      <skipped message=\"{e}\"/>\n    </testcase>\n"
                    ));
                }
            }
        }
        x.push_str("  </testsuite>\n");
    }
    x.push_str("</testsuites>\n");
    x
}

/// Write the XML of a run to `path`, atomically.
pub fn write(path: &Path, reports: &[SuiteReport]) -> std::io::Result<()> {
    crate::fsutil::write_atomic(path, render(reports).as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_what_xml_cannot_hold() {
        assert_eq!(
            escape("a<b & \"c\" 'd'>"),
            "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;"
        );
        assert_eq!(escape("x\u{1b}[31my\u{0}\n"), "x\u{fffd}[31my\u{fffd}\n");
    }
}
