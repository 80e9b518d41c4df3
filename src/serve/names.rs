//! The names the agent sees. One server is served transparently (its own
//! names); several are aggregated: tools and prompts as `SERVER__NAME`,
//! resources (and templates) under the URI prefix `mcpdeck://SERVER/`
//! followed by the server's own URI, so `file:///tmp/a` of server `fs`
//! becomes `mcpdeck://fs/file:///tmp/a`. The prefix holds no `{` or `}`,
//! so a template stays a valid RFC 6570 template; the mapping back strips
//! the prefix, nothing else.

use crate::mcp::manager::QUALIFIER;

/// The scheme of aggregated resource URIs.
pub const URI_SCHEME: &str = "mcpdeck://";

/// How names are mapped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Naming {
    /// One server, its names as they are.
    Transparent,
    /// Several servers: names qualified by server.
    Aggregated,
}

impl Naming {
    /// The agent's name of a server's tool or prompt.
    pub fn name(self, server: &str, name: &str) -> String {
        match self {
            Naming::Transparent => name.to_string(),
            Naming::Aggregated => format!("{server}{QUALIFIER}{name}"),
        }
    }

    /// The server and its own name of an agent's tool or prompt name;
    /// `only` is the one server in transparent mode.
    pub fn split<'a>(self, name: &'a str, only: Option<&'a str>) -> Option<(&'a str, &'a str)> {
        match self {
            Naming::Transparent => only.map(|s| (s, name)),
            Naming::Aggregated => crate::mcp::manager::split_qualified(name),
        }
    }

    /// The agent's URI (or URI template) of a server's resource.
    pub fn uri(self, server: &str, uri: &str) -> String {
        match self {
            Naming::Transparent => uri.to_string(),
            Naming::Aggregated => format!("{URI_SCHEME}{server}/{uri}"),
        }
    }

    /// The server and its own URI of an agent's URI.
    pub fn split_uri<'a>(self, uri: &'a str, only: Option<&'a str>) -> Option<(&'a str, &'a str)> {
        match self {
            Naming::Transparent => only.map(|s| (s, uri)),
            Naming::Aggregated => uri
                .strip_prefix(URI_SCHEME)?
                .split_once('/')
                .filter(|(server, _)| !server.is_empty()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aggregated_names_round_trip() {
        let n = Naming::Aggregated;
        assert_eq!(n.name("fs", "read_file"), "fs__read_file");
        assert_eq!(n.split("fs__read_file", None), Some(("fs", "read_file")));
        assert_eq!(n.split("fs__a__b", None), Some(("fs", "a__b")));
        assert_eq!(n.split("read_file", None), None);
        let uri = n.uri("fs", "file:///tmp/a b?x#y");
        assert_eq!(uri, "mcpdeck://fs/file:///tmp/a b?x#y");
        assert_eq!(n.split_uri(&uri, None), Some(("fs", "file:///tmp/a b?x#y")));
        assert_eq!(n.split_uri("file:///tmp/a", None), None);
        assert_eq!(n.split_uri("mcpdeck:///x", None), None);
    }

    #[test]
    fn templates_stay_templates() {
        let n = Naming::Aggregated;
        let t = n.uri("everything", "test://template/{id}/data{?q}");
        assert_eq!(t, "mcpdeck://everything/test://template/{id}/data{?q}");
        assert_eq!(crate::uritemplate::validate(&t), Ok(()));
        assert_eq!(crate::uritemplate::variables(&t), ["id", "q"]);
    }

    #[test]
    fn transparent_names_are_kept() {
        let n = Naming::Transparent;
        assert_eq!(n.name("fs", "read_file"), "read_file");
        assert_eq!(n.split("read_file", Some("fs")), Some(("fs", "read_file")));
        assert_eq!(n.uri("fs", "file:///a"), "file:///a");
        assert_eq!(
            n.split_uri("file:///a", Some("fs")),
            Some(("fs", "file:///a"))
        );
    }
}
