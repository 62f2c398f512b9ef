//! `toolnorm view`: a session's tool calls as one self-contained HTML page (inline CSS
//! and script, no request to any network), or served live (`--serve`, see [`serve`]).
//!
//! The page is `page.html` with the style, the script and the data put in. The data is
//! JSON in a `<script type="application/json">` element, with `<`, `>`, `&`, U+2028 and
//! U+2029 escaped, so nothing in a session can end that element; the script reads it
//! with `JSON.parse` and builds the page with `textContent` only. The Content-Security-
//! Policy allows only the page's own script (by its SHA-256), inline style and `data:`
//! images, and, live, event-stream requests to the page's own origin.

mod serve;

use std::fs::File;
use std::io::{self, Write};
use std::process::ExitCode;

use base64::Engine;
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::catalog::db::Index;
use crate::normalize::builder;
use crate::sessions::{self, Session};
use crate::{EXIT_USAGE, ViewArgs, finish_output};

const TEMPLATE: &str = include_str!("page.html");
const STYLE: &str = include_str!("page.css");
/// The page's script: `human.js`, `page.js` and `detail.js` in one function (they share
/// its scope).
const SCRIPT: &str = concat!(
    "\"use strict\";\n(function () {\n",
    include_str!("human.js"),
    include_str!("page.js"),
    include_str!("detail.js"),
    "})();\n"
);

/// What the page shows: the sessions, and whether it is fed live.
#[derive(Debug, Serialize)]
struct PageData<'a> {
    sessions: &'a [Session],
    live: bool,
}

/// `s` as JSON safe inside a `<script>` element: `<`, `>` and `&` (which could end the
/// element or open a comment) and U+2028, U+2029 escaped; they only occur in strings,
/// where the escape means the same character.
pub(crate) fn script_safe_json(value: &impl Serialize) -> serde_json::Result<String> {
    let json = serde_json::to_string(value)?;
    let mut safe = String::with_capacity(json.len());
    for char in json.chars() {
        match char {
            '<' => safe.push_str("\\u003c"),
            '>' => safe.push_str("\\u003e"),
            '&' => safe.push_str("\\u0026"),
            '\u{2028}' => safe.push_str("\\u2028"),
            '\u{2029}' => safe.push_str("\\u2029"),
            other => safe.push(other),
        }
    }
    Ok(safe)
}

/// The page showing `sessions`; `live` pages also fetch `/events` from their origin.
pub(crate) fn page(sessions: &[Session], live: bool) -> serde_json::Result<String> {
    let data = script_safe_json(&PageData { sessions, live })?;
    let hash = base64::engine::general_purpose::STANDARD.encode(Sha256::digest(SCRIPT));
    let connect = if live { "'self'" } else { "'none'" };
    let csp = format!(
        "default-src 'none'; script-src 'sha256-{hash}'; style-src 'unsafe-inline'; \
         img-src data:; connect-src {connect}; base-uri 'none'; form-action 'none'"
    );
    // Each placeholder is looked for in the template only, never in what was put in.
    let mut html = String::with_capacity(TEMPLATE.len() + STYLE.len() + SCRIPT.len() + data.len());
    let mut rest = TEMPLATE;
    for (key, value) in [
        ("{{CSP}}", csp.as_str()),
        ("{{STYLE}}", STYLE),
        ("{{DATA}}", data.as_str()),
        ("{{SCRIPT}}", SCRIPT),
    ] {
        if let Some((before, after)) = rest.split_once(key) {
            html.push_str(before);
            html.push_str(value);
            rest = after;
        }
    }
    html.push_str(rest);
    Ok(html)
}

/// `toolnorm view`.
pub fn view(args: &ViewArgs, stdout: impl Write, stderr: &mut impl Write) -> ExitCode {
    if let Err(message) = builder(&args.read) {
        let _ = writeln!(stderr, "toolnorm: {message}");
        return ExitCode::from(EXIT_USAGE);
    }
    if args.serve {
        // `--serve` follows one file of lines as it grows.
        if let Some(path) = args
            .inputs
            .iter()
            .find(|path| crate::sqlite_stores::is_sqlite(path))
        {
            let _ = writeln!(
                stderr,
                "toolnorm: {}: a session database is shown without --serve",
                path.display()
            );
            return ExitCode::from(EXIT_USAGE);
        }
        return serve::serve(args, stderr);
    }
    let read = match &args.db {
        Some(db) => indexed(db.as_deref(), &args.inputs).map_err(|message| {
            let _ = writeln!(stderr, "toolnorm: {message}");
            ExitCode::from(EXIT_USAGE)
        }),
        None => sessions::read_all(&args.inputs, &args.read, stderr),
    };
    let (sessions, status) = match read {
        Ok(read) => read,
        Err(status) => return status,
    };
    if sessions.is_empty() {
        return status;
    }
    let html = match page(&sessions, false) {
        Ok(html) => html,
        Err(error) => {
            let _ = writeln!(stderr, "toolnorm: {error}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let written = match &args.output {
        Some(path) if path.as_os_str() != "-" => File::create(path)
            .and_then(|mut file| file.write_all(html.as_bytes()))
            .map_err(|error| (path.display().to_string(), error)),
        _ => write_all(stdout, &html).map_err(|error| ("stdout".to_owned(), error)),
    };
    match written {
        Ok(()) => status,
        Err((_, error)) if error.kind() == io::ErrorKind::BrokenPipe => status,
        Err((name, error)) => {
            let _ = writeln!(stderr, "toolnorm: {name}: {}", crate::io_message(&error));
            finish_output(Err(error))
        }
    }
}

/// The sessions of the index each of `names` names (see [`Index::find`]), in order; a
/// name that names none is an error.
fn indexed(
    db: Option<&std::path::Path>,
    names: &[std::path::PathBuf],
) -> Result<(Vec<Session>, ExitCode), String> {
    let mut index = Index::open_read_only(&crate::catalog::db::location(db)?)?;
    let mut sessions = Vec::new();
    for name in names {
        let name = name.display().to_string();
        let ids = index.find(&name).map_err(|error| index.fail(error))?;
        if ids.is_empty() {
            return Err(format!(
                "{}: no session `{name}` (`toolnorm sessions --db` lists them)",
                index.location()
            ));
        }
        for id in ids {
            let session = index.session(id).map_err(|error| index.fail(error))?;
            sessions.extend(session);
        }
    }
    Ok((sessions, ExitCode::SUCCESS))
}

fn write_all(mut out: impl Write, text: &str) -> io::Result<()> {
    out.write_all(text.as_bytes())?;
    out.flush()
}
