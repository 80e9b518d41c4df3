//! The raw JSON side: text a person can read (characters that would act
//! on the terminal or hide themselves written as `\uXXXX` escapes, which
//! are the same JSON) and the places in it where a value is typed.

use std::borrow::Cow;

use serde_json::Value;

/// Characters the terminal must not get raw (controls other than newline
/// and tab, bidi overrides), as JSON escapes: `"a\u001bb"` shows as typed
/// and parses to the same value. Outside a string such a character was
/// not JSON anyway.
pub fn escape_invisible(text: &str) -> Cow<'_, str> {
    if matches!(crate::sanitize::visible(text), Cow::Borrowed(_)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    let mut buf = [0u8; 4];
    for c in text.chars() {
        let one = c.encode_utf8(&mut buf);
        if c != '\n' && c != '\t' && matches!(crate::sanitize::visible(one), Cow::Owned(_)) {
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{u:04x}"));
            }
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A value as the JSON editor shows it: pretty, nothing invisible.
pub fn json_text(v: &Value) -> String {
    let text = serde_json::to_string_pretty(v).unwrap_or_else(|_| "{}".into());
    escape_invisible(&text).into_owned()
}

/// Where values are typed in this JSON, one per `"key": value` line:
/// (row, first column, end column), in characters. A string's slot is
/// between its quotes; a scalar's is the scalar; an empty `{}` or `[]`'s
/// is inside it. A value that opens a block on its own line has none (its
/// members have theirs).
pub fn slots(lines: &[String]) -> Vec<(usize, usize, usize)> {
    lines
        .iter()
        .enumerate()
        .filter_map(|(row, line)| line_slot(line).map(|(a, b)| (row, a, b)))
        .collect()
}

fn line_slot(line: &str) -> Option<(usize, usize)> {
    let chars: Vec<char> = line.chars().collect();
    let (mut in_str, mut esc) = (false, false);
    for (i, c) in chars.iter().enumerate() {
        if in_str {
            if esc {
                esc = false;
            } else if *c == '\\' {
                esc = true;
            } else if *c == '"' {
                in_str = false;
            }
            continue;
        }
        match c {
            '"' => in_str = true,
            ':' => {
                let mut j = i + 1;
                while j < chars.len() && chars[j] == ' ' {
                    j += 1;
                }
                return match chars.get(j) {
                    None => Some((j, j)),
                    Some('"') => {
                        let mut k = j + 1;
                        let mut esc = false;
                        while k < chars.len() {
                            if esc {
                                esc = false;
                            } else if chars[k] == '\\' {
                                esc = true;
                            } else if chars[k] == '"' {
                                break;
                            }
                            k += 1;
                        }
                        Some((j + 1, k))
                    }
                    Some('{' | '[') => {
                        // `{}` / `[]`: inside; a block that goes on: none.
                        let rest: String = chars[j + 1..].iter().collect();
                        let rest = rest.trim_end().trim_end_matches(',');
                        (rest == "}" || rest == "]").then_some((j + 1, j + 1))
                    }
                    Some(_) => {
                        let mut k = j;
                        while k < chars.len() && !matches!(chars[k], ',' | '}' | ']') {
                            k += 1;
                        }
                        while k > j && chars[k - 1] == ' ' {
                            k -= 1;
                        }
                        Some((j, k))
                    }
                };
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn invisible_characters_become_escapes_of_the_same_value() {
        let v = json!({"a\u{1b}[31m": "x\u{202e}y\u{7}", "n": "ü\tok"});
        let text = json_text(&v);
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{202e}'),
            "{text}"
        );
        assert!(
            text.contains("\\u001b[31m") && text.contains("\\u202e"),
            "{text}"
        );
        let back: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back, v);
        assert!(matches!(escape_invisible("plain ü"), Cow::Borrowed(_)));
    }

    #[test]
    fn slots_are_where_values_are_typed() {
        let text = json_text(
            &json!({"city": "", "n": 12, "tags": [], "cfg": {"on": true}, "q": "a\"b: c"}),
        );
        let lines: Vec<String> = text.lines().map(str::to_string).collect();
        let found: Vec<(usize, String)> = slots(&lines)
            .into_iter()
            .map(|(r, a, b)| (r, lines[r].chars().skip(a).take(b - a).collect()))
            .collect();
        let want = [(1, ""), (2, "12"), (3, ""), (5, "true"), (7, "a\\\"b: c")];
        assert_eq!(
            found,
            want.iter()
                .map(|(r, s)| (*r, s.to_string()))
                .collect::<Vec<_>>(),
            "{text}"
        );
    }
}
