//! The reading options of `normalize` and `Normalizer`: the options of
//! `toolnorm normalize` (`--provider`, `--rules`, `--output-cap`, `--mcp-server`, `--cwd`,
//! `--redact…`), made into a [`NormalizerBuilder`].

use std::path::{Path, PathBuf};

use toolnorm_adapters::{Dialect, Normalizer, NormalizerBuilder, Redactor, TitleRules};

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
        let mut builder = Normalizer::builder()
            .dialect(dialect)
            .output_cap(self.output_cap.unwrap_or(toolnorm::DEFAULT_OUTPUT_CAP))
            .cap_final_output(self.output_cap.is_some())
            .evict_finished(true)
            .rules(rules(self.rules.as_deref())?)
            .mcp_servers(self.mcp_servers.iter().cloned());
        if let Some(cwd) = &self.cwd {
            builder = builder.cwd(cwd.as_str());
        }
        if let Some(redactor) = self.redactor()? {
            builder = builder.redact(redactor);
        }
        if let Some(source) = &self.source {
            builder = builder.metadata("source", source.as_str());
        }
        Ok(builder)
    }

    /// The redactor asked for, if any: the built-in patterns, then the file's and the
    /// given ones before them, as `--redact-patterns` and `--redact-pattern` add them.
    fn redactor(&self) -> Result<Option<Redactor>, Error> {
        if !self.redact && self.redact_patterns.is_none() && self.redact_pattern.is_empty() {
            return Ok(None);
        }
        let mut redactor = Redactor::builtin();
        if let Some(path) = &self.redact_patterns {
            let text = read(path)?;
            redactor = redactor
                .with_patterns_toml(&text, &path.display().to_string())
                .map_err(|error| Error::Option(error.to_string()))?;
        }
        for pattern in self.redact_pattern.iter().rev() {
            let Some((kind, regex)) = pattern.split_once('=') else {
                return Err(Error::Option(format!(
                    "redact_pattern {pattern}: expected KIND=REGEX"
                )));
            };
            redactor = redactor
                .with_pattern(kind, regex)
                .map_err(|error| Error::Option(error.to_string()))?;
        }
        Ok(Some(redactor))
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

/// The user's rules file, then the built-in rules.
fn rules(path: Option<&Path>) -> Result<TitleRules, Error> {
    let builtin = TitleRules::builtin();
    let Some(path) = path else { return Ok(builtin) };
    let text = read(path)?;
    let user = TitleRules::from_toml(&text, &path.display().to_string())
        .map_err(|error| Error::Option(error.to_string()))?;
    Ok(user.then(builtin))
}

fn read(path: &Path) -> Result<String, Error> {
    std::fs::read_to_string(path)
        .map_err(|error| Error::Option(format!("{}: {error}", path.display())))
}
