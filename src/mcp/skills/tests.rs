use std::cell::RefCell;

use super::*;

const SKILL_MD: &str = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\nlicense: MIT\nmetadata:\n  version: \"2.1\"\n  tags: [pdf, forms]\n---\n\n# PDF\n\nSee references/FORMS.md.\n";
const FORMS: &str = "Supporting content.\n";

fn entry(skill_md: &str) -> Value {
    json!({
        "uri": "skill://pdf-processing/SKILL.md",
        "frontmatter": {
            "name": "pdf-processing",
            "description": "Extract, fill, and assemble PDF documents",
            "license": "MIT",
            "metadata": {"version": "2.1", "tags": ["pdf", "forms"]}
        },
        "resources": [
            {"uri": "skill://pdf-processing/SKILL.md", "digest": digest_of(skill_md.as_bytes()), "size": skill_md.len()},
            {"uri": "skill://pdf-processing/references/FORMS.md", "digest": digest_of(FORMS.as_bytes()), "size": FORMS.len()}
        ]
    })
}

/// A server of files: what was read, in order.
struct Files {
    served: Vec<(&'static str, String)>,
    reads: RefCell<Vec<String>>,
}

impl Files {
    fn new(skill_md: &str) -> Files {
        Files {
            served: vec![
                ("skill://pdf-processing/SKILL.md", skill_md.to_string()),
                (
                    "skill://pdf-processing/references/FORMS.md",
                    FORMS.to_string(),
                ),
                (
                    "skill://pdf-processing/scripts/evil.sh",
                    "rm -rf /\n".to_string(),
                ),
            ],
            reads: RefCell::new(Vec::new()),
        }
    }

    fn request(&self) -> impl AsyncFnMut(&'static str, Value) -> Result<Value, SkillError> + '_ {
        async move |method: &'static str, params: Value| {
            assert_eq!(method, "resources/read");
            let uri = params["uri"].as_str().unwrap_or_default().to_string();
            self.reads.borrow_mut().push(uri.clone());
            let text = self
                .served
                .iter()
                .find(|(u, _)| *u == uri)
                .map(|(_, t)| t.clone())
                .ok_or_else(|| SkillError(format!("no {uri}")))?;
            Ok(json!({"contents": [{"uri": uri, "mimeType": "text/markdown", "text": text}]}))
        }
    }
}

fn block_on<T>(f: impl std::future::Future<Output = T>) -> T {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime")
        .block_on(f)
}

#[test]
fn a_good_entry_loads_and_reads_only_what_is_asked() {
    let skill = Skill::from_entry(&entry(SKILL_MD));
    assert!(skill.loadable(), "{:?}", skill.problems);
    assert_eq!(skill.name, "pdf-processing");
    assert_eq!(skill.path, "pdf-processing");
    assert_eq!(
        skill.total_size(),
        Some((SKILL_MD.len() + FORMS.len()) as u64)
    );
    let files = Files::new(SKILL_MD);
    let mut req = files.request();
    let loaded = block_on(load(&mut req, &skill)).expect("loads");
    assert!(loaded.verified);
    assert_eq!(loaded.text, SKILL_MD);
    assert_eq!(*files.reads.borrow(), ["skill://pdf-processing/SKILL.md"]);
    let forms = block_on(read_file(&mut req, &skill, "references/FORMS.md")).expect("verified");
    assert_eq!(forms, FORMS.as_bytes());
    // A file the entry does not list is refused without a read.
    let before = files.reads.borrow().len();
    match block_on(read_file(&mut req, &skill, "scripts/evil.sh")) {
        Err(LoadError::Refused(m)) => assert!(m.contains("not listed"), "{m}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(files.reads.borrow().len(), before);
}

#[test]
fn a_tampered_body_a_wrong_size_or_other_frontmatter_is_refused() {
    let skill = Skill::from_entry(&entry(SKILL_MD));
    // Same size, other bytes: the digest fails.
    let evil = SKILL_MD.replace("# PDF", "# EVL");
    let files = Files::new(&evil);
    let mut req = files.request();
    match block_on(load(&mut req, &skill)) {
        Err(LoadError::Refused(m)) => assert!(m.contains("digest"), "{m}"),
        other => panic!("{other:?}"),
    }
    // Extra bytes: the size fails first.
    let longer = format!("{SKILL_MD}more\n");
    let files = Files::new(&longer);
    let mut req = files.request();
    match block_on(load(&mut req, &skill)) {
        Err(LoadError::Refused(m)) => assert!(m.contains("bytes read"), "{m}"),
        other => panic!("{other:?}"),
    }
    // The entry's digest matches the file, but the frontmatter differs.
    let other = SKILL_MD.replace("license: MIT", "license: GPL-3.0");
    let skill = Skill::from_entry(&{
        let mut e = entry(&other);
        e["frontmatter"]["license"] = json!("MIT");
        e
    });
    let files = Files::new(&other);
    let mut req = files.request();
    match block_on(load(&mut req, &skill)) {
        Err(LoadError::Refused(m)) => {
            // The field is named; the file's (unverified) value is not shown.
            assert!(m.contains("`license`") && !m.contains("GPL-3.0"), "{m}")
        }
        other => panic!("{other:?}"),
    }
    // Nothing after a failure: only SKILL.md was read.
    assert_eq!(*files.reads.borrow(), ["skill://pdf-processing/SKILL.md"]);
}

#[test]
fn invalid_entries_say_why_and_never_load() {
    let cases = [
        (
            json!({"uri": "skill://x/SKILL.md", "frontmatter": {"name": "x", "description": "d"}}),
            "no `resources`",
        ),
        (
            json!({"uri": "skill://x/SKILL.md", "frontmatter": {"name": "y", "description": "d"}, "resources": "dynamic"}),
            "not the last segment",
        ),
        (
            json!({"uri": "skill://x/SKILL.md", "frontmatter": {"name": "x", "description": "d"}, "resources": []}),
            "does not list SKILL.md",
        ),
        (
            json!({"uri": "skill://x/SKILL.md", "frontmatter": {"name": "x", "description": "d"}, "resources": [{"uri": "skill://x/SKILL.md", "digest": "md5:00", "size": 1}]}),
            "digest",
        ),
        (
            json!({"uri": "skill://x/SKILL.md", "frontmatter": {"name": "x", "description": "d"}, "resources": [{"uri": "skill://x/SKILL.md", "digest": digest_of(b"a"), "size": 1}, {"uri": "skill://other/a", "digest": digest_of(b"a"), "size": 1}]}),
            "outside",
        ),
        (
            json!({"uri": "skill://Bad_Name/SKILL.md", "frontmatter": {"name": "Bad_Name", "description": "d"}, "resources": "dynamic"}),
            "naming rule",
        ),
        (
            json!({"uri": "skill://x/SKILL.md", "frontmatter": {"name": "x", "description": "d"}, "resources": [{"uri": "skill://x/SKILL.md", "digest": digest_of(b"a"), "size": MAX_BYTES + 1}]}),
            "16 MiB",
        ),
        (
            json!({"uri": "skill://x/README.md", "frontmatter": {"name": "x", "description": "d"}, "resources": "dynamic"}),
            "does not end in /SKILL.md",
        ),
    ];
    for (e, why) in cases {
        let s = Skill::from_entry(&e);
        assert!(!s.loadable(), "{e}");
        assert!(
            s.problems.iter().any(|p| p.contains(why)),
            "{why}: {:?}",
            s.problems
        );
        let files = Files::new(SKILL_MD);
        let mut req = files.request();
        assert!(matches!(
            block_on(load(&mut req, &s)),
            Err(LoadError::Refused(_))
        ));
        assert!(
            files.reads.borrow().is_empty(),
            "nothing read for an invalid entry"
        );
    }
}

#[test]
fn a_dynamic_skill_loads_unverified_but_frontmatter_is_still_compared() {
    let e = json!({"uri": "skill://pdf-processing/SKILL.md", "frontmatter": entry(SKILL_MD)["frontmatter"], "resources": "dynamic"});
    let skill = Skill::from_entry(&e);
    assert!(skill.loadable(), "{:?}", skill.problems);
    let files = Files::new(SKILL_MD);
    let mut req = files.request();
    let loaded = block_on(load(&mut req, &skill)).expect("loads");
    assert!(!loaded.verified);
    // Outside the skill's root: refused unread.
    assert!(matches!(
        block_on(read_file(&mut req, &skill, "skill://elsewhere/x")),
        Err(LoadError::Refused(_))
    ));
}

#[test]
fn names_that_collide_are_told_apart_by_path() {
    let mk = |path: &str, name: &str| {
        Skill::from_entry(
            &json!({"uri": format!("skill://{path}/SKILL.md"), "frontmatter": {"name": name, "description": "d"}, "resources": "dynamic"}),
        )
    };
    let listing = Listing {
        skills: vec![
            mk("acme/billing/refunds", "refunds"),
            mk("acme/support/refunds", "refunds"),
            mk("git", "git"),
        ],
        ..Listing::default()
    };
    assert_eq!(
        listing.labels(),
        ["acme/billing/refunds", "acme/support/refunds", "git"]
    );
    let e = listing.find("refunds").expect_err("ambiguous").0;
    assert!(
        e.contains("acme/billing/refunds") && e.contains("acme/support/refunds"),
        "{e}"
    );
    assert_eq!(
        listing
            .find("acme/support/refunds")
            .map(|s| s.path.as_str()),
        Ok("acme/support/refunds")
    );
    assert_eq!(
        listing
            .find("skill://git/SKILL.md")
            .map(|s| s.name.as_str()),
        Ok("git")
    );
    assert_eq!(listing.find("git").map(|s| s.name.as_str()), Ok("git"));
    assert!(listing.find("nope").is_err());
}

#[test]
fn listing_follows_cursors_and_reads_no_file() {
    let calls = RefCell::new(Vec::new());
    let mut req = async |method: &'static str, params: Value| -> Result<Value, SkillError> {
        calls.borrow_mut().push((method, params.clone()));
        Ok(match params.get("cursor").and_then(Value::as_str) {
            None => {
                json!({"skills": [entry(SKILL_MD)], "nextCursor": "p2", "ttlMs": 5000, "cacheScope": "public"})
            }
            Some("p2") => {
                json!({"skills": [{"uri": "skill://a/b/SKILL.md", "frontmatter": {"name": "b", "description": "d"}, "resources": "dynamic"}]})
            }
            Some(_) => json!({"skills": []}),
        })
    };
    let l = block_on(list(&mut req)).expect("lists");
    assert_eq!(l.skills.len(), 2);
    assert_eq!(l.ttl_ms, Some(5000));
    assert_eq!(l.cache_scope.as_deref(), Some("public"));
    assert!(calls.borrow().iter().all(|(m, _)| *m == "skills/list"));
    assert_eq!(calls.borrow().len(), 2);
}

#[test]
fn frontmatter_reads_yaml_as_the_core_schema_says() {
    let md = "---\nname: x\ndescription: >\n  folded\n  text\nliteral: |\n  a\n  b\nn: 3\nf: 1.5\nb: true\nq: \"3\"\ns: !!str 4\nz: ~\nlist:\n  - a\n  - 2\nflow: {k: v}\nanchor: &a hi\nalias: *a\n---\nbody\n";
    let fm = frontmatter(md).expect("parses");
    assert_eq!(
        Value::Object(fm),
        json!({"name": "x", "description": "folded text\n", "literal": "a\nb\n", "n": 3, "f": 1.5, "b": true, "q": "3", "s": "4", "z": null, "list": ["a", 2], "flow": {"k": "v"}, "anchor": "hi", "alias": "hi"})
    );
    for (bad, why) in [
        ("no frontmatter\n", "does not begin"),
        ("---\nname: x\n", "no closing"),
        ("---\n- a\n---\n", "not a mapping"),
        ("---\nname: [x\n---\n", "not valid YAML"),
        ("---\na: 1\na: 2\n---\n", "twice"),
    ] {
        let e = frontmatter(bad).expect_err(bad).0;
        assert!(e.contains(why), "{bad:?}: {e}");
    }
    // CRLF line ends and a BOM are fine.
    let crlf = "\u{feff}---\r\nname: x\r\ndescription: d\r\n---\r\n";
    assert_eq!(frontmatter(crlf).expect("crlf")["description"], "d");
}

#[test]
fn an_alias_bomb_is_refused_quickly() {
    let mut md =
        String::from("---\nname: x\ndescription: d\na0: &a0 [q, q, q, q, q, q, q, q, q, q]\n");
    for n in 1..9 {
        md.push_str(&format!(
            "a{n}: &a{n} [{}]\n",
            vec![format!("*a{}", n - 1); 10].join(", ")
        ));
    }
    md.push_str("---\n");
    let started = std::time::Instant::now();
    let e = frontmatter(&md).expect_err("refused").0;
    assert!(e.contains("more than 10000 values"), "{e}");
    assert!(started.elapsed() < std::time::Duration::from_secs(2));
    // A few aliases are fine.
    let ok = frontmatter("---\nname: x\ndescription: &d hi\nsame: *d\n---\n").expect("parses");
    assert_eq!(ok["same"], "hi");
}

#[test]
fn dot_segments_and_twins_are_problems() {
    let e = json!({"uri": "skill://a/SKILL.md", "frontmatter": {"name": "a", "description": "d"},
        "resources": [{"uri": "skill://a/SKILL.md", "digest": digest_of(b"x"), "size": 1},
                      {"uri": "skill://a/../b/x", "digest": digest_of(b"x"), "size": 1},
                      {"uri": "skill://a/%2E%2e/c", "digest": digest_of(b"x"), "size": 1}]});
    let s = Skill::from_entry(&e);
    assert_eq!(
        s.problems.iter().filter(|p| p.contains("outside")).count(),
        2,
        "{:?}",
        s.problems
    );
    let good = |uri: &str| json!({"uri": uri, "frontmatter": {"name": "a", "description": "d"}, "resources": "dynamic"});
    let mut l = Listing {
        skills: vec![
            Skill::from_entry(&good("skill://a/SKILL.md")),
            Skill::from_entry(&good("skill://a/SKILL.md")),
        ],
        ..Listing::default()
    };
    l.mark_twins();
    assert!(l.skills.iter().all(|s| !s.loadable()));
    assert!(inside("skill://a", "skill://a/b/c.md"));
    assert!(!inside("skill://a", "skill://ab/c.md"));
}

#[test]
fn big_integers_compare_exactly() {
    let a = json!({"n": 9007199254740993u64});
    let b = json!({"n": 9007199254740992u64});
    assert_eq!(
        differing_fields(a.as_object().expect("o"), b.as_object().expect("o")),
        ["n"]
    );
}

#[test]
fn frontmatter_comparison_names_every_difference() {
    // A block scalar's last line break is not a difference.
    let folded =
        frontmatter("---\nname: x\ndescription: >\n  two\n  lines\n---\n").expect("parses");
    let rendered = json!({"name": "x", "description": "two lines"});
    assert!(compare(rendered.as_object().expect("object"), &folded).is_empty());
    let a = json!({"name": "x", "description": "d", "n": 1, "only_entry": true});
    let b = json!({"name": "x", "description": "other", "n": 1.0, "only_file": 2});
    let d = compare(
        a.as_object().expect("object"),
        b.as_object().expect("object"),
    );
    assert_eq!(d.len(), 3, "{d:?}");
    assert!(d.iter().any(|l| l.contains("`description`")));
    assert!(d.iter().any(|l| l.contains("`only_entry`")));
    assert!(d.iter().any(|l| l.contains("`only_file`")));
}

#[test]
fn declared_reads_the_extension_and_its_setting() {
    assert_eq!(declared(&json!({"tools": {}})), None);
    assert_eq!(
        declared(&json!({"extensions": {EXTENSION: {}}})),
        Some(Declared {
            directory_read: false
        })
    );
    assert_eq!(
        declared(&json!({"extensions": {EXTENSION: {"directoryRead": true}}})),
        Some(Declared {
            directory_read: true
        })
    );
}

#[test]
fn blob_contents_are_decoded() {
    let r = json!({"contents": [{"uri": "u", "blob": "aGk="}]});
    assert_eq!(content_bytes(&r, "u").expect("decodes"), b"hi");
    let r = json!({"contents": [{"uri": "u", "blob": "aGk"}]});
    assert_eq!(content_bytes(&r, "u").expect("decodes"), b"hi");
    assert!(content_bytes(&json!({}), "u").is_err());
}
