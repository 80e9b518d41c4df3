//! `skills TARGET` and `skill TARGET NAME`: Agent Skills (SEP-2640) the
//! way a careful host takes them. Listing reads no file; loading a skill
//! reads its `SKILL.md` and nothing else unless asked (`--file`,
//! `--all-files`); everything read is verified against the entry (size,
//! digest, frontmatter), and what fails is not shown.

use std::io::Write;

use clap::Args;
use serde_json::{Value, json};

use super::*;
use crate::mcp::skills::{self, Files, LoadError, Skill};
use crate::text::human_size;

/// `skill TARGET NAME`, or `skill NAME -- CMD ARGS…`.
#[derive(Args, Debug)]
pub struct SkillArgs {
    /// TARGET NAME (NAME alone with `-- CMD`); NAME is the skill's name,
    /// its path (acme/billing/refunds) or the URI of its SKILL.md
    #[arg(value_name = "WORDS", num_args = 1..=2, required = true)]
    pub words: Vec<String>,
    /// Also read this file of the skill (a path relative to its root, or a
    /// URI), verified against the entry; repeatable
    #[arg(long = "file", value_name = "PATH")]
    pub files: Vec<String>,
    /// Read and verify every file the entry lists
    #[arg(long)]
    pub all_files: bool,
    /// Print {"skill": entry, "verified", "text", "files": [...]}
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub limit: crate::cli::target::Limit,
    /// An ad-hoc stdio server
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,
}

fn not_skills(name: &str) -> Failure {
    Failure::new(
        Exit::Usage,
        format!(
            "the server does not declare the {} extension, so it has no skill {name:?} (its files, if any, are ordinary resources: `mcpdeck read`)",
            skills::EXTENSION
        ),
    )
}

fn refused<E>(e: LoadError<E>, json_out: bool) -> Failure
where
    E: Into<CallError>,
{
    match e {
        LoadError::Request(e) => failure(e.into(), json_out),
        LoadError::Refused(m) => Failure::new(
            Exit::ToolError,
            format!("{}; the skill is not loaded", sanitize::one_line(&m)),
        ),
    }
}

/// The files line: `2 files, 1.2 KB`, or `dynamic (no digests)`.
fn files_text(s: &Skill) -> String {
    match &s.files {
        Some(Files::Listed(f)) => format!(
            "{} file{}, {}",
            f.len(),
            if f.len() == 1 { "" } else { "s" },
            human_size(s.total_size().unwrap_or(0) as usize)
        ),
        Some(Files::Dynamic) => "dynamic (no digests: its content cannot be verified)".into(),
        None => "no usable file list".into(),
    }
}

pub async fn skills_list(config: &Config, a: &ListArgs, trace: bool) -> Outcome {
    with_link(config, &a.target, trace, async |s: &mut Link| {
        if skills::declared(s.capabilities()).is_none() {
            return Ok(not_declared(a.json, skills::EXTENSION, json!({"skills": []})));
        }
        let mut request = async |m: &'static str, p: Value| s.request(m, p).await;
        let listing = skills::list(&mut request)
            .await
            .map_err(|e| failure(e, a.json))?;
        let mut out = crate::cli::output::stdout();
        if a.json {
            let problems: Vec<Value> = listing
                .skills
                .iter()
                .filter(|k| !k.loadable())
                .map(|k| json!({"uri": k.uri, "problems": k.problems}))
                .collect();
            let mut v = json!({
                "skills": listing.skills.iter().map(|k| k.raw.clone()).collect::<Vec<_>>(),
                "problems": problems,
            });
            if let Some(t) = listing.ttl_ms {
                v["ttlMs"] = t.into();
            }
            if let Some(c) = &listing.cache_scope {
                v["cacheScope"] = c.clone().into();
            }
            if listing.truncated {
                v["truncated"] = true.into();
            }
            let _ = writeln!(out, "{}", json_pretty(&v));
            return Ok(Exit::Ok);
        }
        if listing.skills.is_empty() {
            let _ = writeln!(
                out,
                "The server lists no skills (a listing may be partial: `mcpdeck skill TARGET URI` loads one by the URI of its SKILL.md)."
            );
        }
        for (k, label) in listing.skills.iter().zip(listing.labels()) {
            let _ = writeln!(
                out,
                "{}  {}",
                sanitize::one_line(&label),
                sanitize::one_line(&k.description)
            );
            let _ = writeln!(
                out,
                "  {} · {}",
                sanitize::one_line(&k.uri),
                files_text(k)
            );
            for p in &k.problems {
                let _ = writeln!(out, "  ✗ invalid: {}", sanitize::one_line(p));
            }
        }
        if let Some(t) = listing.ttl_ms {
            let scope = listing.cache_scope.as_deref().unwrap_or("unspecified");
            let fresh = if t == 0 {
                "is not to be reused (ttlMs 0)".to_string()
            } else {
                format!(
                    "stays current for {}",
                    crate::text::fmt_duration(std::time::Duration::from_millis(t))
                )
            };
            let _ = writeln!(
                out,
                "(the server says this listing {fresh}; cache scope {})",
                sanitize::one_line(scope)
            );
        }
        if listing.truncated {
            let _ = writeln!(out, "(stopped after {} pages)", skills::MAX_PAGES);
        }
        Ok(Exit::Ok)
    })
    .await
}

pub async fn skill(config: &Config, a: &SkillArgs, trace: bool) -> Outcome {
    let (target, wanted) = split_words(&a.words, &a.command, "skill", "NAME")?;
    with_link(config, &target, trace, async |s: &mut Link| {
        if skills::declared(s.capabilities()).is_none() {
            return Err(not_skills(&wanted));
        }
        let mut request = async |m: &'static str, p: Value| s.request(m, p).await;
        // A URI needs no listing (a listing may be partial); a name or a
        // path is looked up in it.
        let skill = if wanted.contains("://") {
            skills::get(&mut request, &wanted)
                .await
                .map_err(|e| failure(e, a.json))?
                .map_err(|m| Failure::new(Exit::Connect, m.0))?
        } else {
            let listing = skills::list(&mut request)
                .await
                .map_err(|e| failure(e, a.json))?;
            listing
                .find(&wanted)
                .map_err(|m| Failure::new(Exit::Usage, sanitize::one_line(&m.0)))?
                .clone()
        };
        let loaded = skills::load(&mut request, &skill)
            .await
            .map_err(|e| refused(e, a.json))?;
        // The files asked for, each verified; one that fails ends the
        // command and nothing of it is shown.
        let mut wanted_files: Vec<String> = a.files.iter().map(|f| skill.resolve(f)).collect();
        if a.all_files
            && let Some(list) = skill.listed()
        {
            for f in list {
                if f.uri != skill.uri && !wanted_files.contains(&f.uri) {
                    wanted_files.push(f.uri.clone());
                }
            }
        }
        let mut read: Vec<(String, Vec<u8>)> = Vec::new();
        for uri in &wanted_files {
            let bytes = skills::read_file(&mut request, &skill, uri)
                .await
                .map_err(|e| refused(e, a.json))?;
            read.push((uri.clone(), bytes));
        }
        let mut out = crate::cli::output::stdout();
        if a.json {
            let files: Vec<Value> = match skill.listed() {
                Some(list) => list
                    .iter()
                    .map(|f| {
                        let mut v = json!({
                            "uri": f.uri,
                            "path": skill.relative(&f.uri),
                            "size": f.size,
                            "digest": f.digest,
                            "read": f.uri == skill.uri || read.iter().any(|(u, _)| u == &f.uri),
                        });
                        if let Some((_, b)) = read.iter().find(|(u, _)| u == &f.uri) {
                            content_json(&mut v, b);
                        }
                        v
                    })
                    .collect(),
                None => read
                    .iter()
                    .map(|(u, b)| {
                        let mut v = json!({"uri": u, "path": skill.relative(u), "read": true});
                        content_json(&mut v, b);
                        v
                    })
                    .collect(),
            };
            let v = json!({
                "skill": skill.raw,
                "verified": loaded.verified,
                "text": loaded.text,
                "files": files,
            });
            let _ = writeln!(out, "{}", json_pretty(&v));
            return Ok(Exit::Ok);
        }
        let _ = writeln!(
            out,
            "{}  {}",
            sanitize::one_line(&skill.name),
            sanitize::one_line(&skill.description)
        );
        let _ = writeln!(out, "{} · {}", sanitize::one_line(&skill.uri), files_text(&skill));
        for (k, v) in &skill.frontmatter {
            if k == "name" || k == "description" {
                continue;
            }
            let shown = match v {
                Value::String(t) => t.clone(),
                other => other.to_string(),
            };
            let _ = writeln!(out, "{}: {}", sanitize::one_line(k), sanitize::one_line(&shown));
        }
        if skill.frontmatter.contains_key("allowed-tools") {
            let _ = writeln!(
                out,
                "note: `allowed-tools` asks for wider permissions on the host; over MCP it grants nothing without your explicit approval"
            );
        }
        let _ = writeln!(
            out,
            "{}",
            if loaded.verified {
                "✓ SKILL.md verified: size, sha256 and frontmatter match the entry"
            } else {
                "! SKILL.md read; the skill is dynamic, so only its frontmatter could be checked"
            }
        );
        let _ = writeln!(out, "\n{}", sanitize::visible(&loaded.text).trim_end());
        if let Some(list) = skill.listed() {
            let others: Vec<_> = list.iter().filter(|f| f.uri != skill.uri).collect();
            if !others.is_empty() {
                let _ = writeln!(out, "\nfiles:");
                for f in others {
                    let state = if read.iter().any(|(u, _)| u == &f.uri) {
                        "verified"
                    } else {
                        "not read"
                    };
                    let _ = writeln!(
                        out,
                        "  {}  {}  {state}",
                        sanitize::one_line(skill.relative(&f.uri)),
                        human_size(f.size as usize)
                    );
                }
            }
        }
        for (uri, bytes) in &read {
            let _ = writeln!(out, "\n── {} ──", sanitize::one_line(skill.relative(uri)));
            match std::str::from_utf8(bytes) {
                Ok(t) => {
                    let _ = writeln!(out, "{}", sanitize::visible(t).trim_end());
                }
                Err(_) => {
                    let _ = writeln!(out, "({}, binary: not shown)", human_size(bytes.len()));
                }
            }
        }
        if wanted_files.is_empty() && skill.listed().is_some_and(|l| l.len() > 1) {
            let _ = writeln!(
                out,
                "\n(files are read when asked for: --file PATH, or --all-files)"
            );
        }
        Ok(Exit::Ok)
    })
    .await
}

fn content_json(v: &mut Value, bytes: &[u8]) {
    match std::str::from_utf8(bytes) {
        Ok(t) => v["text"] = t.into(),
        Err(_) => {
            use base64::Engine as _;
            v["blob"] = base64::engine::general_purpose::STANDARD
                .encode(bytes)
                .into();
        }
    }
}
