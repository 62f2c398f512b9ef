//! Kinds: one title per kind of tool call (`bash`, `read`, `glob`, …), written once in
//! `rules/kinds.toml` for every dialect, and the bucket each kind falls in.
//!
//! A rule names a kind (`kind = "glob"`); the kind gives the rule's bucket (its
//! [`ToolKind`]) and, when the rule's file opts in (`kind_title = true`) and the rule has
//! no title of its own, its titles, read through the dialect's argument aliases.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use serde::Deserialize;
use serde::de::IntoDeserializer;
use toolnorm::ToolKind;

use super::template::{Aliases, Template};
use crate::error::Error;

/// Where the built-in kinds come from.
pub(super) const BUILTIN: (&str, &str) =
    ("rules/kinds.toml", include_str!("../../rules/kinds.toml"));

/// A `[[kind]]` of a rules file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct KindSpec {
    name: String,
    bucket: Option<ToolKind>,
    #[serde(default)]
    title: super::file::OneOrMany,
}

/// A kind: its bucket and its titles.
#[derive(Debug)]
struct Kind {
    bucket: ToolKind,
    titles: Vec<Template>,
}

/// Kinds by name. A rule set holds the kinds its files define (a user's overrides); a
/// name none defines is looked up in `rules/kinds.toml`.
#[derive(Debug, Default, Clone)]
pub(super) struct Kinds {
    by_name: HashMap<String, Arc<Kind>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct KindsFile {
    #[serde(default, rename = "kind")]
    kinds: Vec<KindSpec>,
}

impl Kinds {
    /// The kinds of `rules/kinds.toml`.
    fn builtin() -> &'static Kinds {
        static KINDS: OnceLock<Kinds> = OnceLock::new();
        KINDS.get_or_init(|| {
            let (origin, text) = BUILTIN;
            // The file is tested to parse; were it not to, the kinds would give no titles
            // (and the test suite would fail) rather than panic here.
            let parsed = super::builtin::read::<KindsFile>(origin, text).and_then(|file| {
                Kinds::parse(file.kinds, None, origin).map_err(|error| error.to_string())
            });
            parsed.unwrap_or_default()
        })
    }

    /// The kinds of a file's `[[kind]]` tables; a kind without a `bucket` keeps the
    /// built-in kind's.
    pub(super) fn of(specs: Vec<KindSpec>, origin: &str) -> Result<Kinds, Error> {
        Kinds::parse(specs, Some(Kinds::builtin()), origin)
    }

    /// The kinds of `specs`; a kind without a `bucket` keeps `base`'s, or is named after
    /// its bucket.
    fn parse(specs: Vec<KindSpec>, base: Option<&Kinds>, origin: &str) -> Result<Kinds, Error> {
        let mut by_name = HashMap::new();
        for spec in specs {
            let titles = spec
                .title
                .into_vec()
                .iter()
                .map(|text| Template::parse(text, origin))
                .collect::<Result<_, _>>()?;
            let bucket = match spec.bucket {
                Some(bucket) => bucket,
                None => base
                    .and_then(|base| base.get(&spec.name))
                    .map(|kind| kind.bucket)
                    .or_else(|| bucket_named(&spec.name))
                    .ok_or_else(|| Error::Rules {
                        origin: origin.to_owned(),
                        message: format!(
                            "kind `{}` needs a `bucket` (one of {})",
                            spec.name,
                            buckets()
                        ),
                    })?,
            };
            by_name.insert(spec.name, Arc::new(Kind { bucket, titles }));
        }
        Ok(Kinds { by_name })
    }

    /// These kinds, then `fallback`'s: a kind both define is this one's.
    pub(super) fn then(&self, fallback: &Kinds) -> Kinds {
        let mut by_name = fallback.by_name.clone();
        by_name.extend(self.by_name.iter().map(|(k, v)| (k.clone(), v.clone())));
        Kinds { by_name }
    }

    fn get(&self, name: &str) -> Option<&Kind> {
        self.by_name.get(name).map(Arc::as_ref)
    }

    /// The kind called `name`: these kinds', else the built-in one.
    fn find(&self, name: &str) -> Option<&Kind> {
        self.get(name).or_else(|| Kinds::builtin().get(name))
    }

    /// The bucket of the kind `name` (or of the bucket `name` itself).
    pub(super) fn bucket(&self, name: &str, origin: &str) -> Result<ToolKind, Error> {
        self.find(name)
            .map(|kind| kind.bucket)
            .or_else(|| bucket_named(name))
            .ok_or_else(|| Error::Rules {
                origin: origin.to_owned(),
                message: format!(
                    "unknown kind `{name}`: not in rules/kinds.toml nor one of {}",
                    buckets()
                ),
            })
    }

    /// The titles of the kind `name`, each read through `aliases`; `plain` keeps the
    /// templates without holes (`Running a command`).
    pub(super) fn titles(&self, name: &str, aliases: &Aliases, plain: bool) -> Vec<Template> {
        self.find(name).map_or_else(Vec::new, |kind| {
            kind.titles
                .iter()
                .filter(|template| plain || template.has_holes())
                .map(|template| template.with_aliases(aliases))
                .collect()
        })
    }
}

/// The bucket spelled `name` (`file_read`, …), if it is one.
fn bucket_named(name: &str) -> Option<ToolKind> {
    let name: serde::de::value::StrDeserializer<'_, serde::de::value::Error> =
        name.into_deserializer();
    ToolKind::deserialize(name).ok()
}

/// The buckets' names, for errors.
fn buckets() -> String {
    ToolKind::ALL
        .iter()
        .map(|kind| format!("`{}`", kind.as_str()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// What a rule that takes its kind's titles keeps to resolve them once the rule set's
/// kinds are known: the kind, the aliases of its file and rule, and whether the kind's
/// templates without holes apply.
#[derive(Debug)]
pub(super) struct KindTitle {
    /// The kind's name.
    pub(super) name: String,
    /// The argument spellings of the rule's dialect.
    pub(super) aliases: Aliases,
    /// Whether templates without holes apply.
    pub(super) plain: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_kinds_parse_and_name_their_bucket() {
        let (origin, text) = BUILTIN;
        let file: KindsFile = toml::from_str(text).unwrap();
        let kinds = Kinds::parse(file.kinds, None, origin).unwrap();
        assert!(!kinds.by_name.is_empty());
        for (name, kind) in &kinds.by_name {
            // A kind named after a bucket is in it.
            if let Some(bucket) = bucket_named(name) {
                assert_eq!(kind.bucket, bucket, "{name}");
            }
            assert!(!kind.titles.is_empty(), "{name}");
        }
        assert_eq!(Kinds::builtin().by_name.len(), kinds.by_name.len());
    }
}
