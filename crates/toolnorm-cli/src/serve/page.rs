//! The catalog page: `catalog.html` with its style and script put in, the script allowed
//! by its SHA-256 in the Content-Security-Policy, requests only to the page's own origin.

use base64::Engine;
use sha2::{Digest, Sha256};

const TEMPLATE: &str = include_str!("catalog.html");
const STYLE: &str = include_str!("catalog.css");
/// The page's script: the view's `human.js` and `catalog.js` in one function.
const SCRIPT: &str = concat!(
    "\"use strict\";\n(function () {\n",
    include_str!("../view/human.js"),
    include_str!("catalog.js"),
    "})();\n"
);

/// The catalog page.
pub(super) fn catalog() -> Result<String, std::fmt::Error> {
    let hash = base64::engine::general_purpose::STANDARD.encode(Sha256::digest(SCRIPT));
    let csp = format!(
        "default-src 'none'; script-src 'sha256-{hash}'; style-src 'unsafe-inline'; \
         connect-src 'self'; base-uri 'none'; form-action 'none'"
    );
    let mut html = String::with_capacity(TEMPLATE.len() + STYLE.len() + SCRIPT.len());
    let mut rest = TEMPLATE;
    for (key, value) in [
        ("{{CSP}}", csp.as_str()),
        ("{{STYLE}}", STYLE),
        ("{{SCRIPT}}", SCRIPT),
    ] {
        let (before, after) = rest.split_once(key).ok_or(std::fmt::Error)?;
        html.push_str(before);
        html.push_str(value);
        rest = after;
    }
    html.push_str(rest);
    Ok(html)
}
