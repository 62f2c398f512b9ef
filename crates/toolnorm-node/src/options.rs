//! The options into a normalizer, as `toolnorm normalize` builds one from its flags
//! (`crates/toolnorm-cli`: `--provider`, `--rules`, `--output-cap`, `--mcp-server`,
//! `--cwd`, `--redact`, `--redact-patterns`, `--redact-pattern`). The rules and the
//! redaction patterns come as TOML text rather than as files.

use toolnorm_adapters::{Dialect, Normalizer, NormalizerBuilder, Redactor, TitleRules};

use crate::Error;
use crate::api::NormalizeOptions;

/// The name the rules text and the redaction patterns text have in error messages.
const RULES_ORIGIN: &str = "rules";
const PATTERNS_ORIGIN: &str = "redactPatterns";

/// The normalizer `options` ask for: the command's settings (finished calls dropped from
/// memory once written, no events kept).
pub(crate) fn builder(options: &NormalizeOptions) -> Result<NormalizerBuilder, Error> {
    let output_cap = match options.output_cap {
        None => toolnorm::DEFAULT_OUTPUT_CAP,
        Some(cap) => usize::try_from(cap).map_err(|_| Error::OutputCap(cap))?,
    };
    let mut builder = Normalizer::builder()
        .dialect(dialect(options.provider.as_deref())?)
        .output_cap(output_cap)
        // As the command: a cap named cuts the output a call ends with too.
        .cap_final_output(options.output_cap.is_some())
        .evict_finished(true)
        .keep_events(false)
        .rules(rules(options.rules.as_deref())?)
        .mcp_servers(options.mcp_servers.iter().flatten().cloned());
    if let Some(cwd) = &options.cwd {
        builder = builder.cwd(cwd.as_str());
    }
    if let Some(redactor) = redactor(options)? {
        builder = builder.redact(redactor);
    }
    Ok(builder)
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

/// The user's rules, then the built-in ones.
fn rules(text: Option<&str>) -> Result<TitleRules, Error> {
    let builtin = TitleRules::builtin();
    match text {
        None => Ok(builtin),
        Some(text) => Ok(TitleRules::from_toml(text, RULES_ORIGIN)?.then(builtin)),
    }
}

/// The redactor the options ask for, if any: any pattern implies `redact`, and the
/// patterns go first in the order given, as on the command line.
fn redactor(options: &NormalizeOptions) -> Result<Option<Redactor>, Error> {
    let patterns = options.redact_pattern.as_deref().unwrap_or_default();
    if options.redact != Some(true) && options.redact_patterns.is_none() && patterns.is_empty() {
        return Ok(None);
    }
    let mut redactor = Redactor::builtin();
    if let Some(text) = &options.redact_patterns {
        redactor = redactor.with_patterns_toml(text, PATTERNS_ORIGIN)?;
    }
    for pattern in patterns.iter().rev() {
        let Some((kind, regex)) = pattern.split_once('=') else {
            return Err(Error::RedactPattern(pattern.clone()));
        };
        redactor = redactor.with_pattern(kind, regex)?;
    }
    Ok(Some(redactor))
}
