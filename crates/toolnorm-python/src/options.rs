//! The reading options of `normalize` and `Normalizer`: the options of
//! `toolnorm normalize` (`--provider`, `--rules`, `--output-cap`, `--mcp-server`, `--cwd`,
//! `--redact…`), made into a [`NormalizerBuilder`] by the library's [`ReadOptions`], as
//! the command makes its own.

use std::path::{Path, PathBuf};

use toolnorm_adapters::{Dialect, NormalizerBuilder, ReadOptions, Toml};

use crate::error::Error;

/// How a stream is read, as given from Python.
pub(crate) struct Options {
    /// `auto` or a dialect name.
    pub provider: String,
    /// A TOML file of title and kind rules, tried before the built-in ones.
    pub rules: Option<PathBuf>,
    /// The cap on output kept per call, in bytes: partial output, and with a cap named the
    /// output a call ends with too (as `--output-cap`); none keeps partial output to
    /// [`toolnorm::DEFAULT_OUTPUT_CAP`] and the final output whole.
    pub output_cap: Option<usize>,
    /// MCP server names, to split OpenCode's `<server>_<tool>` names.
    pub mcp_servers: Vec<String>,
    /// The directory the session ran in.
    pub cwd: Option<String>,
    /// Replace secrets with `[REDACTED:<kind>]`.
    pub redact: bool,
    /// A TOML file of `[[pattern]]` tables to redact (implies `redact`).
    pub redact_patterns: Option<PathBuf>,
    /// `KIND=REGEX` patterns to redact (imply `redact`).
    pub redact_pattern: Vec<String>,
    /// `metadata.source` of every call, as `toolnorm normalize DIR` sets it.
    pub source: Option<String>,
}

impl Options {
    /// The normalizer these options ask for, finished calls dropped once reported (as the
    /// command does); the files named read now.
    pub(crate) fn builder(&self) -> Result<NormalizerBuilder, Error> {
        let dialect = dialect(&self.provider)?;
        let rules = self.rules.as_deref().map(read).transpose()?;
        let patterns = self.redact_patterns.as_deref().map(read).transpose()?;
        let pairs = self
            .redact_pattern
            .iter()
            .map(|pattern| {
                pattern.split_once('=').ok_or_else(|| {
                    Error::Option(format!("redact_pattern {pattern}: expected KIND=REGEX"))
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let options = ReadOptions {
            dialect,
            rules: toml(rules.as_ref()),
            output_cap: self.output_cap,
            mcp_servers: &self.mcp_servers,
            cwd: self.cwd.as_deref(),
            redact: self.redact,
            redact_patterns: toml(patterns.as_ref()),
            redact_pattern: &pairs,
        };
        let reading = options
            .prepare()
            .map_err(|error| Error::Option(error.to_string()))?;
        let mut builder = reading.builder();
        if let Some(source) = &self.source {
            builder = builder.metadata("source", source.as_str());
        }
        Ok(builder)
    }
}

/// The dialect `provider` names: `None` for `auto` (detected from the first lines).
fn dialect(provider: &str) -> Result<Option<Dialect>, Error> {
    if provider == "auto" {
        return Ok(None);
    }
    Dialect::from_name(provider).map(Some).ok_or_else(|| {
        let names: Vec<&str> = std::iter::once("auto")
            .chain(Dialect::all().map(Dialect::as_str))
            .collect();
        Error::Option(format!(
            "unknown provider `{provider}`: expected one of {}",
            names.join(", ")
        ))
    })
}

/// A file's text and its name in messages.
fn read(path: &Path) -> Result<(String, String), Error> {
    let text = std::fs::read_to_string(path)
        .map_err(|error| Error::Option(format!("{}: {error}", path.display())))?;
    Ok((text, path.display().to_string()))
}

/// A file's text and name as the library takes them.
fn toml(read: Option<&(String, String)>) -> Option<Toml<'_>> {
    read.map(|(text, origin)| Toml { text, origin })
}
