//! The reading options of `toolnorm normalize` (`--provider`, `--rules`, `--output-cap`,
//! `--mcp-server`, `--cwd`, `--redact`, `--redact-patterns`, `--redact-pattern`) into a
//! [`NormalizerBuilder`]: one place for the command and the Node and Python bindings,
//! which take the same options under their own names.

use crate::{Dialect, Error, Normalizer, NormalizerBuilder, Redactor, TitleRules};

/// A TOML text and the name it has in error messages (a file's path, or an option's
/// name when the text is given inline).
#[derive(Debug, Clone, Copy)]
pub struct Toml<'a> {
    /// The TOML text.
    pub text: &'a str,
    /// What error messages call it.
    pub origin: &'a str,
}

/// How a stream is read, as `toolnorm normalize`'s reading flags say it, the files they
/// name already read. Made into normalizers by [`ReadOptions::prepare`].
#[derive(Debug, Clone, Default)]
pub struct ReadOptions<'a> {
    /// `--provider`: the dialect, or `None` to detect it from the first lines.
    pub dialect: Option<Dialect>,
    /// `--rules`: title and kind rules, tried before the built-in ones.
    pub rules: Option<Toml<'a>>,
    /// `--output-cap`: the bytes of output a call keeps; `None` keeps partial output to
    /// [`toolnorm::DEFAULT_OUTPUT_CAP`] and the output a call ends with whole, a cap named
    /// cuts both.
    pub output_cap: Option<usize>,
    /// `--mcp-server`: MCP server names, to split OpenCode's `<server>_<tool>` names.
    pub mcp_servers: &'a [String],
    /// `--cwd`: the directory the session ran in, where the stream names none.
    pub cwd: Option<&'a str>,
    /// `--redact`: secrets become `[REDACTED:<kind>]`.
    pub redact: bool,
    /// `--redact-patterns`: `[[pattern]]` tables of `kind` and `regex` (implies `redact`).
    pub redact_patterns: Option<Toml<'a>>,
    /// `--redact-pattern`: `(kind, regex)` pairs, in the order given (imply `redact`).
    pub redact_pattern: &'a [(&'a str, &'a str)],
}

/// The reading options with their rules and redactor parsed: makes any number of
/// normalizers, the same each time.
#[derive(Debug, Clone)]
pub struct Reading {
    dialect: Option<Dialect>,
    output_cap: Option<usize>,
    mcp_servers: Vec<String>,
    cwd: Option<String>,
    rules: TitleRules,
    redactor: Option<Redactor>,
}

impl ReadOptions<'_> {
    /// Parses the rules and the redaction patterns; the library's error when one does
    /// not read.
    pub fn prepare(&self) -> Result<Reading, Error> {
        Ok(Reading {
            dialect: self.dialect,
            output_cap: self.output_cap,
            mcp_servers: self.mcp_servers.to_vec(),
            cwd: self.cwd.map(str::to_owned),
            rules: self.title_rules()?,
            redactor: self.redactor()?,
        })
    }

    /// The user's rules, then the built-in ones.
    fn title_rules(&self) -> Result<TitleRules, Error> {
        let builtin = TitleRules::builtin();
        match self.rules {
            None => Ok(builtin),
            Some(toml) => Ok(TitleRules::from_toml(toml.text, toml.origin)?.then(builtin)),
        }
    }

    /// The redactor asked for, if any: any pattern implies `redact`; the built-in
    /// patterns, then the file's and the given ones before them, the first given first.
    fn redactor(&self) -> Result<Option<Redactor>, Error> {
        if !self.redact && self.redact_patterns.is_none() && self.redact_pattern.is_empty() {
            return Ok(None);
        }
        let mut redactor = Redactor::builtin();
        if let Some(toml) = self.redact_patterns {
            redactor = redactor.with_patterns_toml(toml.text, toml.origin)?;
        }
        for (kind, regex) in self.redact_pattern.iter().rev() {
            redactor = redactor.with_pattern(kind, regex)?;
        }
        Ok(Some(redactor))
    }
}

impl Reading {
    /// A normalizer's builder with these options and the command's settings: finished
    /// calls dropped from memory once reported, no events kept (set `keep_events` for a
    /// format that writes them).
    pub fn builder(&self) -> NormalizerBuilder {
        let mut builder = Normalizer::builder()
            .dialect(self.dialect)
            .output_cap(self.output_cap.unwrap_or(toolnorm::DEFAULT_OUTPUT_CAP))
            .cap_final_output(self.output_cap.is_some())
            .evict_finished(true)
            .keep_events(false)
            .rules(self.rules.clone())
            .mcp_servers(self.mcp_servers.iter().cloned());
        if let Some(cwd) = &self.cwd {
            builder = builder.cwd(cwd.as_str());
        }
        if let Some(redactor) = &self.redactor {
            builder = builder.redact(redactor.clone());
        }
        builder
    }
}
