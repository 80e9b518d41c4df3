//! The clipboard (OSC 52) and saving a result's media to files.

use super::model::*;
use super::*;

pub(crate) fn copy(s: &mut State, text: String, fx: &mut Vec<Effect>) {
    s.status = Some(copy_effect(text, fx));
}

/// Copy `text` to the clipboard (OSC 52) unless it is too large for a
/// terminal; what happened, for the status bar.
pub fn copy_effect(text: String, fx: &mut Vec<Effect>) -> String {
    // What is copied is as safe as what is shown: control and bidi
    // characters go as `\uXXXX` (JSON keeps its meaning), and the status
    // says so.
    let (safe, escaped) = crate::sanitize::escape_controls(&text);
    let text = safe.into_owned();
    if text.len() > COPY_LIMIT {
        return format!(
            "too large to copy ({} bytes; terminals take about {COPY_LIMIT} through OSC 52)",
            text.len()
        );
    }
    let mut note = format!("copied {} bytes (OSC 52)", text.len());
    if escaped > 0 {
        note.push_str(&format!(
            "; {escaped} control or bidi characters escaped as \\uXXXX"
        ));
    }
    fx.push(Effect::Copy(text));
    note
}

/// Save the result's images, audio and blobs to files.
pub(super) fn save_media(s: &mut State, fx: &mut Vec<Effect>) {
    use crate::mcp::types::Content;
    use base64::Engine;
    let Some(Outcome {
        tool,
        result: Ok(r),
        ..
    }) = &s.outcome
    else {
        s.status = Some("no result with media to save".into());
        return;
    };
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
    let safe: String = tool
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
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
    if files.is_empty() {
        s.status = Some(if bad > 0 {
            "the media is not valid base64; nothing saved".into()
        } else {
            "this result has no image, audio or blob".into()
        });
        return;
    }
    fx.push(Effect::Save(files));
}
