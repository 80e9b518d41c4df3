//! The verification steps of a load, as pure functions over a
//! `resources/read` answer and the entry held: the same checks as
//! `mcp::skills::load` and `read_file`, taken one answer at a time so the
//! view never waits. What fails is an `Err` with the reason, and none of
//! its content is returned.

use serde_json::{Map, Value};

use crate::mcp::skills::{self, Files, Skill, SkillFile};

/// Why an entry is never loaded, in one line.
fn invalid(skill: &Skill) -> String {
    format!("the entry is invalid: {}", skill.problems.join("; "))
}

/// Whether `uri` may be read for `skill` at all, before any request: the
/// file as the entry lists it (`None` for a dynamic skill, whose files
/// have no digest), or why it is refused (an invalid entry, a file the
/// entry does not list, a file outside a dynamic skill).
pub fn may_read<'a>(skill: &'a Skill, uri: &str) -> Result<Option<&'a SkillFile>, String> {
    if !skill.loadable() {
        return Err(invalid(skill));
    }
    match &skill.files {
        Some(Files::Listed(_)) => skill.file(uri).map(Some).ok_or_else(|| {
            format!(
                "{uri} is not listed in the skill's resources (an unlisted file is a verification failure): not read"
            )
        }),
        _ if skills::inside(skill.root(), uri) => Ok(None),
        _ => Err(format!(
            "{uri} is outside the skill {}: not read",
            skill.root()
        )),
    }
}

/// A verification message without the URI it starts with (the view says
/// which file it is about).
fn without_uri(e: String, uri: &str) -> String {
    match e.strip_prefix(&format!("{uri}: ")) {
        Some(rest) => rest.to_string(),
        None => e,
    }
}

/// The bytes of `uri` in a `resources/read` answer, checked against the
/// entry: size then digest for a listed file; the extension's 16 MiB
/// limit for a dynamic skill's.
pub fn check_file(skill: &Skill, uri: &str, result: &Value) -> Result<Vec<u8>, String> {
    let listed = may_read(skill, uri)?;
    let bytes = skills::content_bytes(result, uri).map_err(|e| without_uri(e.0, uri))?;
    match listed {
        Some(f) => skills::verify(f, &bytes).map_err(|e| without_uri(e.0, uri))?,
        None if bytes.len() as u64 > skills::MAX_BYTES => {
            return Err("larger than the extension's 16 MiB limit".into());
        }
        None => {}
    }
    Ok(bytes)
}

/// The fields where a file's frontmatter and the entry's differ, by name
/// only (compared as `skills::compare` does, one field at a time): the
/// values of a file that failed are not shown, not even in the reason.
fn differing_fields(entry: &Map<String, Value>, file: &Map<String, Value>) -> Vec<String> {
    let one = |m: &Map<String, Value>, k: &str| {
        m.get(k)
            .map(|v| Map::from_iter([(k.to_string(), v.clone())]))
            .unwrap_or_default()
    };
    let mut out = Vec::new();
    for k in entry.keys() {
        if !file.contains_key(k) {
            out.push(format!("`{k}` is missing from SKILL.md"));
        } else if !skills::compare(&one(entry, k), &one(file, k)).is_empty() {
            out.push(format!("`{k}` differs"));
        }
    }
    for k in file.keys().filter(|k| !entry.contains_key(*k)) {
        out.push(format!("`{k}` is in SKILL.md, not in the entry"));
    }
    out
}

/// A skill's `SKILL.md` from a `resources/read` answer, verified: its
/// bytes (size and digest, when the entry lists files), then its YAML
/// frontmatter compared field by field with the entry's. The text, and
/// whether it was digest-verified (`false`: a dynamic skill).
pub fn check_skill_md(skill: &Skill, result: &Value) -> Result<(String, bool), String> {
    let bytes = check_file(skill, &skill.uri, result)?;
    let text = String::from_utf8(bytes).map_err(|_| "SKILL.md is not UTF-8 text".to_string())?;
    let parsed = skills::frontmatter(&text).map_err(|e| format!("SKILL.md: {e}"))?;
    let differences = differing_fields(&skill.frontmatter, &parsed);
    if !differences.is_empty() {
        return Err(format!(
            "the frontmatter of SKILL.md differs from the entry's: {}",
            differences.join("; ")
        ));
    }
    Ok((text, skill.listed().is_some()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const MD: &str = "---\nname: tour\ndescription: A tour.\n---\n\n# Tour\n";

    fn entry(md: &str, extra: Option<(&str, &[u8])>) -> Skill {
        let mut resources = vec![json!({
            "uri": "skill://tour/SKILL.md",
            "digest": skills::digest_of(md.as_bytes()),
            "size": md.len(),
        })];
        if let Some((uri, bytes)) = extra {
            resources
                .push(json!({"uri": uri, "digest": skills::digest_of(bytes), "size": bytes.len()}));
        }
        Skill::from_entry(&json!({
            "uri": "skill://tour/SKILL.md",
            "frontmatter": {"name": "tour", "description": "A tour."},
            "resources": resources,
        }))
    }

    fn read(uri: &str, text: &str) -> Value {
        json!({"contents": [{"uri": uri, "mimeType": "text/markdown", "text": text}]})
    }

    #[test]
    fn a_matching_skill_md_is_verified() {
        let s = entry(MD, None);
        assert!(s.loadable(), "{:?}", s.problems);
        let (text, verified) = check_skill_md(&s, &read(&s.uri, MD)).unwrap();
        assert_eq!(text, MD);
        assert!(verified);
    }

    #[test]
    fn size_digest_and_frontmatter_mismatches_fail() {
        let s = entry(MD, None);
        let e = check_skill_md(&s, &read(&s.uri, "---\nname: tour\n---\n")).unwrap_err();
        assert!(e.contains("bytes read, the entry says"), "{e}");
        assert!(!e.starts_with("skill://"), "{e}");
        let same_size = MD.replace("Tour", "Tuor");
        let e = check_skill_md(&s, &read(&s.uri, &same_size)).unwrap_err();
        assert!(e.starts_with("digest sha256:"), "{e}");
        // Digest right, frontmatter not as the entry says.
        let other = "---\nname: tour\ndescription: Another.\n---\n";
        let s = Skill::from_entry(&json!({
            "uri": "skill://tour/SKILL.md",
            "frontmatter": {"name": "tour", "description": "A tour."},
            "resources": [{"uri": "skill://tour/SKILL.md", "digest": skills::digest_of(other.as_bytes()), "size": other.len()}],
        }));
        let e = check_skill_md(&s, &read(&s.uri, other)).unwrap_err();
        assert!(e.ends_with("`description` differs"), "{e}");
        assert!(!e.contains("Another"), "{e}");
    }

    #[test]
    fn unlisted_and_invalid_are_refused_before_reading() {
        let s = entry(MD, Some(("skill://tour/a.md", b"a")));
        assert!(may_read(&s, "skill://tour/a.md").unwrap().is_some());
        let e = may_read(&s, "skill://tour/b.md").unwrap_err();
        assert!(e.contains("not listed"), "{e}");
        let bad = Skill::from_entry(&json!({"uri": "skill://x/SKILL.md"}));
        assert!(may_read(&bad, &bad.uri).unwrap_err().contains("invalid"));
        let dynamic = Skill::from_entry(&json!({
            "uri": "skill://tour/SKILL.md",
            "frontmatter": {"name": "tour", "description": "A tour."},
            "resources": "dynamic",
        }));
        assert!(may_read(&dynamic, "skill://tour/x.md").unwrap().is_none());
        assert!(may_read(&dynamic, "skill://other/x.md").is_err());
        let (_, verified) = check_skill_md(&dynamic, &read(&dynamic.uri, MD)).unwrap();
        assert!(!verified);
    }

    #[test]
    fn a_blob_is_decoded_and_verified() {
        let bytes = [0u8, 159, 146, 150];
        let s = entry(MD, Some(("skill://tour/x.bin", &bytes)));
        let v = json!({"contents": [{"uri": "skill://tour/x.bin", "blob": "AJ+Slg=="}]});
        assert_eq!(check_file(&s, "skill://tour/x.bin", &v).unwrap(), bytes);
    }
}
