//! The options into a normalizer, as `toolnorm normalize` builds one from its flags
//! (the library's [`ReadOptions`], shared with the command): the rules and the redaction
//! patterns come as TOML text rather than as files.

use toolnorm_adapters::{
    Dialect, Format, NormalizerBuilder, OtelOptions, ReadOptions, Toml, format_names,
};

use crate::Error;
use crate::api::NormalizeOptions;

/// The name the rules text and the redaction patterns text have in error messages.
const RULES_ORIGIN: &str = "rules";
const PATTERNS_ORIGIN: &str = "redactPatterns";

/// The normalizer `options` ask for: the command's settings (finished calls dropped from
/// memory once written, no events kept).
pub(crate) fn builder(options: &NormalizeOptions) -> Result<NormalizerBuilder, Error> {
    let output_cap = options
        .output_cap
        .map(|cap| usize::try_from(cap).map_err(|_| Error::OutputCap(cap)))
        .transpose()?;
    let dialect = dialect(options.provider.as_deref())?;
    let patterns = options
        .redact_pattern
        .iter()
        .flatten()
        .map(|pattern| {
            pattern
                .split_once('=')
                .ok_or_else(|| Error::RedactPattern(pattern.clone()))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let read = ReadOptions {
        dialect,
        rules: toml(options.rules.as_deref(), RULES_ORIGIN),
        output_cap,
        mcp_servers: options.mcp_servers.as_deref().unwrap_or_default(),
        cwd: options.cwd.as_deref(),
        redact: options.redact == Some(true),
        redact_patterns: toml(options.redact_patterns.as_deref(), PATTERNS_ORIGIN),
        redact_pattern: &patterns,
    };
    Ok(read.prepare()?.builder())
}

/// The format `normalize` writes (`format`, JSON formats only) and how `otel` makes its
/// spans (`otelContent`, with `otel` only).
pub(crate) fn written(options: &NormalizeOptions) -> Result<(Format, OtelOptions), Error> {
    let format = match options.format.as_deref() {
        None => Format::Parts,
        Some(name) => Format::from_name(name)
            .filter(|format| !format.for_people())
            .ok_or_else(|| Error::UnknownFormat {
                name: name.to_owned(),
                known: format_names("", |spec| !spec.for_people),
            })?,
    };
    let content = options.otel_content == Some(true);
    if content && format.as_str() != "otel" {
        return Err(Error::OtelContent(format.to_string()));
    }
    let otel = OtelOptions {
        content,
        session_id: None,
    };
    Ok((format, otel))
}

/// `provider`: `None` (detect) for nothing or `auto`, else the dialect of that name.
fn dialect(provider: Option<&str>) -> Result<Option<Dialect>, Error> {
    match provider {
        None | Some("auto") => Ok(None),
        Some(name) => Dialect::from_name(name).map(Some).ok_or_else(|| {
            let known: Vec<String> = Dialect::all().map(|d| format!("`{d}`")).collect();
            Error::UnknownProvider {
                name: name.to_owned(),
                known: known.join(", "),
            }
        }),
    }
}

/// A TOML text option and its name in messages.
fn toml<'a>(text: Option<&'a str>, origin: &'a str) -> Option<Toml<'a>> {
    text.map(|text| Toml { text, origin })
}
