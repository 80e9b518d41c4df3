//! The edits themselves, on a [`toml_edit::DocumentMut`]: a server's
//! keys set, restored or removed keeping their decor; server tables added
//! and removed keeping the comments around them; a server written as a
//! table; the document rendered back with the file's line endings.

use super::*;

pub(super) fn no_server(server: &str) -> String {
    format!("there is no server \"{server}\" in the file")
}

/// Sets a toggled `key` of `server` to `value` (the key's default when
/// `is_default`), so that returning to the value the file had gives back
/// its text: the first change remembers the key as it was in `originals`.
pub(super) fn toggle_server_key(
    document: &mut DocumentMut,
    originals: &mut Vec<Original>,
    server: &str,
    key: &'static str,
    value: Value,
    is_default: bool,
) -> std::result::Result<(), String> {
    let current = server_item(document, server)?
        .as_table_like()
        .and_then(|table| table.get(key))
        .and_then(Item::as_value)
        .cloned();
    let index = match originals
        .iter()
        .position(|original| original.server == server && original.key == key)
    {
        Some(index) => index,
        None => {
            originals.push(Original {
                server: server.to_owned(),
                key,
                value: current,
            });
            originals.len() - 1
        }
    };
    match &originals[index].value {
        None if is_default => remove_server_key(document, server, key),
        Some(original) if same_value(original, &value) => {
            let original = original.clone();
            restore_server_key(document, server, key, original)
        }
        _ => set_server_key(document, server, key, value),
    }
}

/// Whether two values are equal, whatever their formatting.
pub(super) fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::String(a), Value::String(b)) => a.value() == b.value(),
        (Value::Integer(a), Value::Integer(b)) => a.value() == b.value(),
        (Value::Float(a), Value::Float(b)) => a.value() == b.value(),
        (Value::Boolean(a), Value::Boolean(b)) => a.value() == b.value(),
        (Value::Datetime(a), Value::Datetime(b)) => a.value() == b.value(),
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b.iter()).all(|(a, b)| same_value(a, b))
        }
        (Value::InlineTable(a), Value::InlineTable(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(key, a)| b.get(key).is_some_and(|b| same_value(a, b)))
        }
        _ => false,
    }
}

/// The item of `server` in `servers`.
pub(super) fn server_item<'d>(
    document: &'d mut DocumentMut,
    server: &str,
) -> std::result::Result<&'d mut Item, String> {
    document
        .get_mut("servers")
        .and_then(Item::as_table_like_mut)
        .and_then(|servers| servers.get_mut(server))
        .ok_or_else(|| no_server(server))
}

/// The `deny_tools` array of `server`, if it has the key.
pub(super) fn deny_array<'d>(
    document: &'d mut DocumentMut,
    server: &str,
) -> std::result::Result<Option<&'d mut Array>, String> {
    let table = server_item(document, server)?
        .as_table_like_mut()
        .ok_or_else(|| no_server(server))?;
    match table.get_mut("deny_tools") {
        None => Ok(None),
        Some(item) => item
            .as_array_mut()
            .map(Some)
            .ok_or_else(|| format!("server \"{server}\": `deny_tools` is not an array")),
    }
}

/// Appends `tool` to `array`; it takes over the spacing before `]`
/// (`[ "a" ]` → `[ "a", "b" ]`).
pub(super) fn push_keeping_spacing(array: &mut Array, tool: &str) {
    let count = array.len();
    let closing = array.get_mut(count.wrapping_sub(1)).map(|last| {
        let suffix = last
            .decor()
            .suffix()
            .and_then(|suffix| suffix.as_str())
            .unwrap_or("")
            .to_owned();
        last.decor_mut().set_suffix("");
        suffix
    });
    array.push(tool);
    if let (Some(suffix), Some(pushed)) = (closing, array.get_mut(count)) {
        pushed.decor_mut().set_suffix(suffix);
    }
}

/// Removes entry `index` of `array`; a removed last entry's spacing before
/// `]` goes to the new last one, a removed first entry's spacing after `[`
/// to the new first one.
pub(super) fn remove_keeping_spacing(array: &mut Array, index: usize) {
    let was_last = index + 1 == array.len();
    let removed = array.remove(index);
    let decor = |get: Option<&toml_edit::RawString>| {
        get.and_then(|raw| raw.as_str()).unwrap_or("").to_owned()
    };
    if was_last {
        let suffix = decor(removed.decor().suffix());
        if let Some(last) = array.get_mut(index.wrapping_sub(1)) {
            last.decor_mut().set_suffix(suffix);
        } else if decor(removed.decor().prefix()).is_empty() {
            // The list is empty now, and the entry sat right after `[`, as
            // `deny_tool` puts one into `[  ]`: the spacing it took over
            // goes back inside (`[  ]`, denied and allowed, stays `[  ]`;
            // found by a property test of tests/properties.rs). A user's
            // `[ "x" ]` still empties to `[]`.
            let trailing = decor(Some(array.trailing()));
            array.set_trailing(format!("{suffix}{trailing}"));
        }
    } else if index == 0 {
        let prefix = decor(removed.decor().prefix());
        if let Some(first) = array.get_mut(0) {
            first.decor_mut().set_prefix(prefix);
        }
    }
}

/// Puts back `original`, with its own formatting, as the value of `key`.
pub(super) fn restore_server_key(
    document: &mut DocumentMut,
    server: &str,
    key: &str,
    original: Value,
) -> std::result::Result<(), String> {
    let table = server_item(document, server)?
        .as_table_like_mut()
        .ok_or_else(|| no_server(server))?;
    match table.get_mut(key) {
        Some(item) => *item = Item::Value(original),
        None => {
            table.insert(key, Item::Value(original));
        }
    }
    Ok(())
}

/// Removes `key` (added by this editor) from the table of `server`; in an
/// inline table the spacing before the closing brace, which the key took
/// over when it was added, goes back to the new last key.
pub(super) fn remove_server_key(
    document: &mut DocumentMut,
    server: &str,
    key: &str,
) -> std::result::Result<(), String> {
    match server_item(document, server)? {
        Item::Value(Value::InlineTable(table)) => {
            let was_last = table.iter().last().is_some_and(|(last, _)| last == key);
            let Some(removed) = table.remove(key) else {
                return Ok(());
            };
            if was_last {
                let suffix = removed
                    .decor()
                    .suffix()
                    .and_then(|suffix| suffix.as_str())
                    .unwrap_or("")
                    .to_owned();
                if let Some((_, last)) = table.iter_mut().last() {
                    last.decor_mut().set_suffix(suffix);
                }
            }
        }
        item => {
            let table = item.as_table_like_mut().ok_or_else(|| no_server(server))?;
            table.remove(key);
        }
    }
    Ok(())
}

/// Sets `key` in the table of `server`, keeping the formatting around an
/// existing value.
pub(super) fn set_server_key(
    document: &mut DocumentMut,
    server: &str,
    key: &str,
    value: Value,
) -> std::result::Result<(), String> {
    match server_item(document, server)? {
        Item::Value(Value::InlineTable(table)) => set_in_inline_table(table, key, value),
        item => {
            let table = item.as_table_like_mut().ok_or_else(|| no_server(server))?;
            match table.get_mut(key) {
                Some(existing) => replace_keeping_decor(existing, value),
                None => {
                    table.insert(key, Item::Value(value));
                }
            }
        }
    }
    Ok(())
}

pub(super) fn replace_keeping_decor(item: &mut Item, mut value: Value) {
    match item.as_value_mut() {
        Some(old) => {
            *value.decor_mut() = old.decor().clone();
            *old = value;
        }
        None => *item = Item::Value(value),
    }
}

/// Sets `key` in an inline table; a new key goes last, taking over the
/// spacing before the closing brace (`{ a = 1 }` → `{ a = 1, key = v }`).
pub(super) fn set_in_inline_table(table: &mut InlineTable, key: &str, value: Value) {
    if let Some((_, existing)) = table.get_key_value_mut(key) {
        replace_keeping_decor(existing, value);
        return;
    }
    let closing_space = table.iter_mut().last().map(|(_, last)| {
        let suffix = last
            .decor()
            .suffix()
            .and_then(|suffix| suffix.as_str())
            .unwrap_or("")
            .to_owned();
        last.decor_mut().set_suffix("");
        suffix
    });
    table.insert(key, value);
    if let (Some(suffix), Some(inserted)) = (closing_space, table.get_mut(key)) {
        inserted.decor_mut().set_prefix(" ");
        inserted.decor_mut().set_suffix(suffix);
    }
}

/// The TOML that importing `server` adds (its comment, its table), as
/// the import screen previews it.
pub fn import_preview(server: &NewServer) -> std::result::Result<String, String> {
    let mut table = server_table(&server.server, &|text: &str| text.to_owned())?;
    if let Some(comment) = &server.comment {
        let line: String = comment
            .chars()
            .map(|c| if c.is_control() { '?' } else { c })
            .collect();
        table.decor_mut().set_prefix(format!("# {line}\n"));
    }
    let mut document = DocumentMut::new();
    add_server_table(&mut document, &server.server.name, table)?;
    Ok(document.to_string())
}

pub(super) fn add_server_table(
    document: &mut DocumentMut,
    name: &str,
    mut table: Table,
) -> std::result::Result<(), String> {
    // Without a position a new table is printed right after its previous
    // sibling; place it after every table instead.
    let last = table_positions(document.as_table())
        .into_iter()
        .map(|(position, _)| position)
        .max()
        .unwrap_or(0);
    table.set_position(Some(last + 1));
    let servers = document.entry("servers").or_insert_with(|| {
        let mut servers = Table::new();
        servers.set_implicit(true);
        Item::Table(servers)
    });
    let servers = servers.as_table_mut().ok_or_else(|| {
        "`servers` is not written as [servers.NAME] sections; add the server by hand".to_owned()
    })?;
    if servers.contains_key(name) {
        return Err(format!("a server named \"{name}\" already exists"));
    }
    servers.insert(name, Item::Table(table));
    Ok(())
}

pub(super) fn remove_server_table(
    document: &mut DocumentMut,
    server: &str,
) -> std::result::Result<(), String> {
    let servers = document
        .get_mut("servers")
        .and_then(Item::as_table_like_mut)
        .ok_or_else(|| no_server(server))?;
    let removed = servers.remove(server).ok_or_else(|| no_server(server))?;
    if let Item::Table(table) = removed {
        keep_detached_comments(document, &table);
    }
    Ok(())
}

/// Moves the comments above a removed table's header that are separated
/// from it by a blank line (e.g. a file header) to the next table, or to the
/// end of the file.
pub(super) fn keep_detached_comments(document: &mut DocumentMut, removed: &Table) {
    let prefix = removed
        .decor()
        .prefix()
        .and_then(|prefix| prefix.as_str())
        .unwrap_or("");
    let mut kept_len = 0;
    let mut offset = 0;
    for line in prefix.split_inclusive('\n') {
        offset += line.len();
        if line.trim().is_empty() {
            kept_len = offset;
        }
    }
    let kept = &prefix[..kept_len];
    if !kept.contains('#') {
        return;
    }
    let next = removed
        .position()
        .and_then(|position| next_table_path(document.as_table(), position));
    let next = next.and_then(|path| {
        path.iter().try_fold(document.as_table_mut(), |table, key| {
            table.get_mut(key).and_then(Item::as_table_mut)
        })
    });
    match next {
        Some(table) => {
            let old = table
                .decor()
                .prefix()
                .and_then(|prefix| prefix.as_str())
                .unwrap_or("")
                .trim_start_matches(['\n', '\r'])
                .to_owned();
            table.decor_mut().set_prefix(format!("{kept}{old}"));
        }
        None => {
            let trailing = document.trailing().as_str().unwrap_or("").to_owned();
            document.set_trailing(format!("{kept}{trailing}"));
        }
    }
}

/// The position (display order) and key path of every table with a header.
pub(super) fn table_positions(root: &Table) -> Vec<(isize, Vec<String>)> {
    fn walk(table: &Table, path: &mut Vec<String>, out: &mut Vec<(isize, Vec<String>)>) {
        for (key, item) in table.iter() {
            if let Item::Table(child) = item {
                path.push(key.to_owned());
                if let Some(position) = child.position()
                    && !child.is_implicit()
                {
                    out.push((position, path.clone()));
                }
                walk(child, path, out);
                path.pop();
            }
        }
    }
    let mut out = Vec::new();
    walk(root, &mut Vec::new(), &mut out);
    out
}

/// The key path of the first table after `position`.
pub(super) fn next_table_path(root: &Table, position: isize) -> Option<Vec<String>> {
    table_positions(root)
        .into_iter()
        .filter(|&(p, _)| p > position)
        .min_by_key(|&(p, _)| p)
        .map(|(_, path)| path)
}

/// The `[servers.NAME]` table for `server`, writing only non-default values.
pub(super) fn server_table(
    server: &ServerConfig,
    escape: &dyn Fn(&str) -> String,
) -> std::result::Result<Table, String> {
    let mut table = Table::new();
    let mut put = |key: &str, value: Value| {
        table.insert(key, Item::Value(value));
    };
    let pairs = |pairs: &[(String, String)]| -> InlineTable {
        pairs
            .iter()
            .map(|(name, value)| (name.as_str(), Value::from(escape(value))))
            .collect()
    };
    match &server.transport {
        TransportConfig::Stdio {
            command,
            args,
            env,
            cwd,
        } => {
            put("command", Value::from(escape(command)));
            if !args.is_empty() {
                put(
                    "args",
                    Value::Array(args.iter().map(|arg| escape(arg)).collect()),
                );
            }
            if !env.is_empty() {
                put("env", Value::InlineTable(pairs(env)));
            }
            if let Some(cwd) = cwd {
                let cwd = cwd.to_str().ok_or_else(|| {
                    format!(
                        "the working directory {} of server \"{}\" is not valid UTF-8",
                        cwd.display(),
                        server.name
                    )
                })?;
                put("cwd", Value::from(escape(cwd)));
            }
        }
        TransportConfig::Http {
            url,
            headers,
            transport,
            ca_file,
            insecure,
            ..
        } => {
            put("url", Value::from(escape(url)));
            if !headers.is_empty() {
                put("headers", Value::InlineTable(pairs(headers)));
            }
            if *transport != HttpTransportKind::Auto {
                put("transport", Value::from(transport.name()));
            }
            if let Some(ca) = ca_file {
                let ca = ca.to_str().ok_or_else(|| {
                    format!(
                        "the ca_file {} of server \"{}\" is not valid UTF-8",
                        ca.display(),
                        server.name
                    )
                })?;
                put("ca_file", Value::from(escape(ca)));
            }
            if *insecure {
                put("insecure", Value::from(true));
            }
        }
    }
    if !server.enabled {
        put("enabled", Value::from(false));
    }
    if !server.deny_tools.is_empty() {
        put(
            "deny_tools",
            Value::Array(server.deny_tools.iter().map(String::as_str).collect()),
        );
    }
    if !server.allow_tools.is_empty() {
        put(
            "allow_tools",
            Value::Array(server.allow_tools.iter().map(String::as_str).collect()),
        );
    }
    if server.protocol != ProtocolPin::Auto {
        put("protocol", Value::from(server.protocol.name()));
    }
    if let Some(timeout) = server.timeout {
        put("timeout", seconds(timeout));
    }
    Ok(table)
}

/// A duration as whole seconds when exact, else fractional seconds.
pub(super) fn seconds(duration: Duration) -> Value {
    match i64::try_from(duration.as_secs()) {
        Ok(whole) if duration.subsec_nanos() == 0 => Value::from(whole),
        _ => Value::from(duration.as_secs_f64()),
    }
}

/// The document as text, in the line-ending and end-of-file style of
/// `original`.
pub(super) fn render(document: &DocumentMut, original: &str) -> String {
    let crlf = original.contains("\r\n") && !original.replace("\r\n", "").contains('\n');
    let mut text = document.to_string();
    let original = if crlf {
        text = text.replace("\r\n", "\n");
        Cow::Owned(original.replace("\r\n", "\n"))
    } else {
        Cow::Borrowed(original)
    };
    if original.is_empty() {
        // A new file starts with its first line (an imported server's
        // comment brings a blank line before it).
        text = text.trim_start_matches('\n').to_owned();
    } else {
        // A removed first table leaves the blank line that separated it.
        if !original.starts_with('\n') {
            text = text.trim_start_matches('\n').to_owned();
        }
        if !original.ends_with('\n') {
            text.truncate(text.trim_end_matches('\n').len());
        } else if !original.ends_with("\n\n") {
            // Removing the last table can leave blank lines at the end.
            let content = text.trim_end_matches('\n').len();
            if content > 0 {
                text.truncate(content + 1);
            }
        }
    }
    if crlf {
        text = text.replace('\n', "\r\n");
    }
    // toml_edit drops a byte order mark: give it back (found by the
    // `config` fuzz target).
    if original.starts_with('\u{feff}') && !text.starts_with('\u{feff}') {
        text.insert(0, '\u{feff}');
    }
    text
}
