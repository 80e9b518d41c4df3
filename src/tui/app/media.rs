//! The clipboard (OSC 52) and saving a result's media to files.

use super::model::*;
use super::*;

pub(crate) fn copy(s: &mut State, text: String, fx: &mut Vec<Effect>) {
    s.status = Some(copy_effect(text, fx));
}

/// Send `text` to the terminal's clipboard (OSC 52); what happened, for
/// the status bar. Text over what terminals take that way goes to a file
/// instead (`[settings] save_dir`, else the current directory), and the
/// status names it. Whether the terminal took the text cannot be known:
/// the status says it was sent.
pub fn copy_effect(text: String, fx: &mut Vec<Effect>) -> String {
    copy_or_save(text, "mcpdeck-copy.txt", fx)
}

/// [`copy_effect`], with the name of the file used when it is too large.
pub fn copy_or_save(text: String, file: &str, fx: &mut Vec<Effect>) -> String {
    // What is copied is as safe as what is shown: control and bidi
    // characters go as `\uXXXX` (JSON keeps its meaning), and the status
    // says so.
    let (safe, escaped) = crate::sanitize::escape_controls(&text);
    let text = safe.into_owned();
    let escaped_note = if escaped > 0 {
        format!("; {escaped} control or bidi characters escaped as \\uXXXX")
    } else {
        String::new()
    };
    if text.len() > COPY_LIMIT {
        let n = text.len();
        fx.push(Effect::Save(vec![(file.to_string(), text.into_bytes())]));
        return format!(
            "{n} bytes is more than a terminal's clipboard takes (about {COPY_LIMIT} through OSC 52): saving it to a file instead{escaped_note}…"
        );
    }
    let note = format!(
        "sent {} bytes to the terminal's clipboard (OSC 52; a terminal may ignore it){escaped_note}",
        text.len()
    );
    fx.push(Effect::Copy(text));
    note
}

/// A file-name-safe form of a tool's name.
pub(crate) fn safe_name(tool: &str) -> String {
    tool.chars()
        .take(64)
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The result as one file: its structured content or JSON text as
/// `.json` (pretty), other text as `.txt`, an error as `.txt`; a result
/// of media alone has none (its media are saved apart).
pub(crate) fn result_file(
    tool: &str,
    result: &Result<crate::mcp::types::CallResult, crate::mcp::manager::CallError>,
) -> Option<(String, Vec<u8>)> {
    use crate::mcp::types::Content;
    let safe = safe_name(tool);
    let r = match result {
        Ok(r) => r,
        Err(e) => {
            return Some((
                format!("mcpdeck-{safe}-error.txt"),
                e.to_string().into_bytes(),
            ));
        }
    };
    let pretty = |v: &serde_json::Value| serde_json::to_vec_pretty(v).unwrap_or_default();
    if let Some(v) = r.raw.get("structuredContent").filter(|v| !v.is_null()) {
        return Some((format!("mcpdeck-{safe}.json"), pretty(v)));
    }
    let texts: Vec<&str> = r
        .content
        .iter()
        .filter_map(|b| match b {
            Content::Text { text } => Some(text.as_str()),
            Content::Resource { text: Some(t), .. } => Some(t.as_str()),
            _ => None,
        })
        .collect();
    if let [one] = texts.as_slice()
        && let Ok(v) = serde_json::from_str::<serde_json::Value>(one)
        && (v.is_object() || v.is_array())
    {
        return Some((format!("mcpdeck-{safe}.json"), pretty(&v)));
    }
    if !texts.is_empty() {
        let mut body = texts.join("\n\n");
        if !body.ends_with('\n') {
            body.push('\n');
        }
        return Some((format!("mcpdeck-{safe}.txt"), body.into_bytes()));
    }
    let media = r.content.iter().any(|b| {
        matches!(
            b,
            Content::Image { .. } | Content::Audio { .. } | Content::Resource { blob: Some(_), .. }
        )
    });
    // Links and other blocks: the result as it came.
    (!media).then(|| (format!("mcpdeck-{safe}.json"), pretty(&r.raw)))
}

/// Save the result shown: its text or JSON to one file, and its images,
/// audio and blobs each to a file of their own.
pub(crate) fn save_result(s: &mut State, fx: &mut Vec<Effect>) {
    let Some(Outcome { tool, result, .. }) = s.outcome.as_ref().filter(|_| s.inflight().is_none())
    else {
        s.status = Some("nothing to save yet: no result".into());
        return;
    };
    let mut files: Vec<(String, Vec<u8>)> = result_file(tool, result).into_iter().collect();
    let (media, bad) = match result {
        Ok(r) => media_files(tool, r),
        Err(_) => (Vec::new(), 0),
    };
    files.extend(media);
    if files.is_empty() {
        s.status = Some("the media is not valid base64; nothing saved".into());
        return;
    }
    if bad > 0 {
        s.status = Some(format!(
            "{bad} media blocks are not valid base64 and were left out"
        ));
    }
    fx.push(Effect::Save(files));
}

/// The result's images, audio and blobs as files, and how many were not
/// valid base64.
fn media_files(tool: &str, r: &crate::mcp::types::CallResult) -> (Vec<(String, Vec<u8>)>, usize) {
    use crate::mcp::types::Content;
    use base64::Engine;
    let ext = |mime: &str| match mime {
        "image/png" => "png",
        "image/jpeg" => "jpg",
        "image/gif" => "gif",
        "image/webp" => "webp",
        "image/svg+xml" => "svg",
        "audio/wav" | "audio/x-wav" | "audio/wave" => "wav",
        "audio/mpeg" => "mp3",
        "audio/ogg" => "ogg",
        "application/json" => "json",
        "application/pdf" => "pdf",
        _ => "bin",
    };
    let safe = safe_name(tool);
    let mut files = Vec::new();
    let mut bad = 0;
    for (i, block) in r.content.iter().enumerate() {
        let (mime, data) = match block {
            Content::Image { mime, data } | Content::Audio { mime, data } => (mime.as_str(), data),
            Content::Resource {
                mime,
                blob: Some(b),
                ..
            } => (mime.as_deref().unwrap_or(""), b),
            _ => continue,
        };
        match base64::engine::general_purpose::STANDARD.decode(data.trim()) {
            Ok(bytes) => files.push((format!("mcpdeck-{safe}-{}.{}", i + 1, ext(mime)), bytes)),
            Err(_) => bad += 1,
        }
    }
    (files, bad)
}
