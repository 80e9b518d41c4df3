//! Text helpers shared by the CLI, `serve` and the TUI (and the core's
//! messages): durations, sizes, safe file names for resources,
//! percent-decoding, a file extension for a MIME type, and the
//! did-you-mean of a mistyped name. Pure functions, no I/O.

use std::time::Duration;

/// A duration for a person: `850 ms`, `2 s`, `1.5 s`.
pub fn fmt_duration(d: Duration) -> String {
    // One style everywhere (the servers pane, the detail, the latency
    // table, the log): a number, a space, a unit; at most seven columns.
    let us = d.as_micros();
    let secs = d.as_secs_f64();
    if us < 9_950 {
        format!("{:.1} ms", us as f64 / 1e3)
    } else if us < 999_500 {
        format!("{:.0} ms", us as f64 / 1e3)
    } else if d.subsec_millis() == 0 && d.as_secs() < 1000 {
        format!("{} s", d.as_secs())
    } else if secs < 99.95 {
        format!("{secs:.1} s")
    } else if secs < 999.5 {
        format!("{secs:.0} s")
    } else if secs / 60.0 < 99.5 {
        format!("{:.0} min", secs / 60.0)
    } else if secs / 3_600.0 < 9_999.5 {
        format!("{:.0} h", secs / 3_600.0)
    } else {
        "long".into()
    }
}

/// Human size: `512 B`, `1.2 KiB`, `3.4 MiB`.
pub fn human_size(n: usize) -> String {
    const KIB: f64 = 1024.0;
    let f = n as f64;
    if f < KIB {
        format!("{n} B")
    } else if f < KIB * KIB {
        format!("{:.1} KiB", f / KIB)
    } else {
        format!("{:.1} MiB", f / KIB / KIB)
    }
}

/// A safe file name for a resource URI: the URI without its scheme,
/// percent-decoded, every character other than ASCII letters, digits, `.`,
/// `_` and `-` made `_`, no leading dot, at most 100 characters (the end of
/// the URI kept); an extension from the mime type if it has none.
pub fn file_name_for(uri: &str, mime: Option<&str>) -> String {
    let rest = match uri.split_once(':') {
        Some((scheme, rest))
            if scheme
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic())
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '.' | '-')) =>
        {
            rest
        }
        _ => uri,
    };
    let decoded = percent_decode(rest);
    let mut name = String::new();
    for c in decoded.chars() {
        let c = if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
            c
        } else {
            '_'
        };
        if c == '_' && name.ends_with('_') {
            continue;
        }
        name.push(c);
    }
    let trim = |s: &str| s.trim_matches(|c| matches!(c, '_' | '.' | '-')).to_string();
    let mut name = trim(&name);
    const MAX: usize = 100;
    if name.len() > MAX {
        // ASCII only, so any byte index is a char boundary.
        name = trim(&name[name.len() - MAX..]);
    }
    if name.is_empty() {
        name = "resource".into();
    }
    let has_ext = name
        .rsplit_once('.')
        .is_some_and(|(s, e)| !s.is_empty() && !e.is_empty() && e.len() <= 8);
    if !has_ext && let Some(ext) = mime.and_then(extension_for) {
        name.push('.');
        name.push_str(ext);
    }
    name
}

/// The usual file extension for a MIME type (parameters ignored), if known.
pub fn extension_for(mime: &str) -> Option<&'static str> {
    let essence = mime
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    Some(match essence.as_str() {
        "image/png" => "png",
        "image/jpeg" => "jpg",
        "image/gif" => "gif",
        "image/webp" => "webp",
        "image/svg+xml" => "svg",
        "audio/wav" | "audio/x-wav" => "wav",
        "audio/mpeg" => "mp3",
        "application/pdf" => "pdf",
        "application/json" => "json",
        "application/zip" => "zip",
        "application/gzip" => "gz",
        "application/octet-stream" => "bin",
        "text/plain" => "txt",
        "text/markdown" => "md",
        "text/html" => "html",
        "text/csv" => "csv",
        _ => return None,
    })
}

/// Decode `%XX` escapes; anything malformed stays as it is, and bytes that
/// are not UTF-8 become U+FFFD.
pub fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if let Some(b) = escaped_byte(bytes, i) {
            out.push(b);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Decode `%XX` escapes strictly: `None` for a malformed escape or a result
/// that is not UTF-8.
pub fn percent_decode_strict(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            out.push(escaped_byte(bytes, i)?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The byte of a `%XX` escape starting at `i`, if there is a valid one.
fn escaped_byte(bytes: &[u8], i: usize) -> Option<u8> {
    if bytes.get(i) != Some(&b'%') {
        return None;
    }
    let h = (*bytes.get(i + 1)? as char).to_digit(16)?;
    let l = (*bytes.get(i + 2)? as char).to_digit(16)?;
    Some((h * 16 + l) as u8)
}

/// A word as a POSIX shell reads it back: as it is when it holds nothing
/// the shell treats specially, else in single quotes.
pub fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=@%+,".contains(c) || !c.is_ascii());
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// `; did you mean "x"?` for the name in `names` closest to `wanted`, if
/// one is close.
pub fn did_you_mean(names: &[&str], wanted: &str) -> Option<String> {
    names
        .iter()
        .map(|n| (strsim::jaro_winkler(n, wanted), n))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, n)| format!("; did you mean {:?}?", crate::sanitize::one_line(n)))
}

/// Split a command line into words: spaces separate, quotes group, and a
/// backslash escapes the next character.
pub fn split_command(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (None, '"' | '\'') => {
                quote = Some(c);
                in_word = true;
            }
            (q, '\\') if q != Some('\'') => match chars.next() {
                Some(n) => {
                    word.push(n);
                    in_word = true;
                }
                None => return Err("the command ends with a lone backslash".into()),
            },
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            (_, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if quote.is_some() {
        return Err("a quote is not closed".into());
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

/// `text` made safe for XML text and attribute values: the five special
/// characters escaped; tabs and line ends kept (`line_ends`) or made
/// spaces; the characters XML 1.0 cannot hold (controls, C1, U+FFFE,
/// U+FFFF) replaced with U+FFFD.
pub fn escape_xml(text: &str, line_ends: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' if line_ends => out.push(c),
            '\t' | '\n' | '\r' => out.push(' '),
            c if (c as u32) < 0x20
                || matches!(c, '\u{7f}'..='\u{9f}' | '\u{fffe}' | '\u{ffff}') =>
            {
                out.push('\u{fffd}')
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_never_escape_the_directory() {
        for (uri, want) in [
            ("demo://resource/dynamic/blob/1", "resource_dynamic_blob_1"),
            ("file:///etc/passwd", "etc_passwd"),
            ("../../etc/passwd", "etc_passwd"),
            ("x:%2e%2e%2f%2e%2e%2fsecret", "secret"),
            ("demo://a/..", "a"),
            ("demo://", "resource"),
            ("demo://x/.hidden", "x_.hidden"),
            ("demo://x/a b?c=d#e", "x_a_b_c_d_e"),
            ("demo://x/logo.png", "x_logo.png"),
            ("C:\\Windows\\system32", "Windows_system32"),
            ("demo://x/\u{1b}[31mred\u{202e}", "x_31mred"),
        ] {
            let got = file_name_for(uri, None);
            assert_eq!(got, want, "{uri}");
            assert!(!got.starts_with('.') && !got.contains('/') && !got.contains('\\'));
        }
        let long = format!("demo://{}/end.bin", "a/".repeat(200));
        let got = file_name_for(&long, None);
        assert!(got.len() <= 100 && got.ends_with("end.bin"), "{got}");
    }

    #[test]
    fn file_names_get_an_extension_from_the_mime_type() {
        assert_eq!(
            file_name_for("demo://resource/dynamic/blob/1", Some("text/plain")),
            "resource_dynamic_blob_1.txt"
        );
        assert_eq!(
            file_name_for("demo://logo", Some("image/png; x=y")),
            "logo.png"
        );
        assert_eq!(
            file_name_for("demo://logo.gif", Some("image/png")),
            "logo.gif"
        );
        assert_eq!(file_name_for("demo://logo", Some("weird/type")), "logo");
    }

    #[test]
    fn sizes_and_durations() {
        assert_eq!(human_size(512), "512 B");
        assert_eq!(human_size(2048), "2.0 KiB");
        assert_eq!(human_size(3 * 1024 * 1024 + 400 * 1024), "3.4 MiB");
        assert_eq!(fmt_duration(Duration::from_millis(850)), "850 ms");
        assert_eq!(fmt_duration(Duration::from_secs(2)), "2 s");
        assert_eq!(fmt_duration(Duration::from_millis(1500)), "1.5 s");
        let us = Duration::from_micros;
        for (v, want) in [
            (0, "0.0 ms"),
            (716, "0.7 ms"),
            (3_000, "3.0 ms"),
            (9_949, "9.9 ms"),
            (9_950, "10 ms"),
            (999_499, "999 ms"),
            (999_500, "1.0 s"),
            (7_583_000, "7.6 s"),
            (120_000_000, "120 s"),
            (999_499_999, "999 s"),
            (999_500_000, "17 min"),
            (5_940_000_000, "99 min"),
            (5_970_000_000, "2 h"),
            (u64::MAX, "long"),
        ] {
            let got = fmt_duration(us(v));
            assert_eq!(got, want, "{v} µs");
            assert!(got.chars().count() <= 7, "{got}");
        }
    }

    #[test]
    fn percent_decoding() {
        assert_eq!(percent_decode("a%2Fb%zz%4"), "a/b%zz%4");
        assert_eq!(percent_decode("%+1"), "%+1");
        assert_eq!(percent_decode_strict("caf%C3%A9").as_deref(), Some("café"));
        assert_eq!(percent_decode_strict("%zz"), None);
        assert_eq!(percent_decode_strict("%ff"), None);
    }
}

/// A Unix time as a UTC calendar date and time: (year, month, day, hour,
/// minute, second), in the proleptic Gregorian calendar (Howard Hinnant's
/// days-to-civil algorithm).
pub fn civil_utc(secs: u64) -> (i64, i64, i64, u64, u64, u64) {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day, rem / 3_600, rem % 3_600 / 60, rem % 60)
}

/// Seconds since the Unix epoch (0 before it).
pub fn unix_secs(t: std::time::SystemTime) -> u64 {
    t.duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// A Unix time's clock time as `15:04:05 UTC`.
pub fn fmt_utc_time(secs: u64) -> String {
    let (_, _, _, h, m, s) = civil_utc(secs);
    format!("{h:02}:{m:02}:{s:02} UTC")
}

/// A Unix time as `2026-11-24 15:04 UTC`.
pub fn fmt_utc(secs: u64) -> String {
    let (year, month, day, h, m, _) = civil_utc(secs);
    format!("{year:04}-{month:02}-{day:02} {h:02}:{m:02} UTC")
}

/// Where and how JSON failed, without serde's message (it can quote
/// whatever the file holds, secrets included).
pub fn json_error_detail(e: &serde_json::Error) -> String {
    use serde_json::error::Category;
    let what = match e.classify() {
        Category::Io => "could not be read",
        Category::Syntax => "not valid JSON",
        Category::Data => "unexpected content",
        Category::Eof => "cut short",
    };
    if e.line() == 0 {
        what.to_string()
    } else {
        format!("{what} at line {} column {}", e.line(), e.column())
    }
}

#[cfg(test)]
mod did_you_mean_tests {
    use super::did_you_mean;

    #[test]
    fn only_a_close_name_is_offered() {
        let names = ["everything", "filesystem", "remote"];
        assert_eq!(
            did_you_mean(&names, "everythin").as_deref(),
            Some("; did you mean \"everything\"?")
        );
        assert_eq!(did_you_mean(&names, "zzz"), None);
        assert_eq!(did_you_mean(&[], "x"), None);
    }
}

#[cfg(test)]
mod shell_word_tests {
    use super::shell_word;

    #[test]
    fn words_are_quoted_only_when_needed() {
        assert_eq!(shell_word("/usr/bin/node"), "/usr/bin/node");
        assert_eq!(shell_word("--api-key=••••••"), "--api-key=••••••");
        assert_eq!(shell_word("a b"), "'a b'");
        assert_eq!(shell_word("it's"), "'it'\\''s'");
        assert_eq!(shell_word(""), "''");
    }
}

#[cfg(test)]
mod utc_tests {
    use super::fmt_utc;

    #[test]
    fn unix_times_read_as_utc_dates() {
        assert_eq!(fmt_utc(0), "1970-01-01 00:00 UTC");
        // 2000-02-29 (a leap day in a century leap year) 12:34.
        assert_eq!(fmt_utc(951_827_640), "2000-02-29 12:34 UTC");
        assert_eq!(fmt_utc(1_795_999_999), "2026-11-30 00:53 UTC");
    }
}
