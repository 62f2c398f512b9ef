//! The built-in rules files, read from the JSON `build.rs` writes of each: the same
//! documents, which every process reads at start-up, and JSON reads several times faster
//! than TOML. A file `build.rs` did not write (or wrote from other text) is read as TOML.

use serde::de::DeserializeOwned;

/// A built-in rules file as `build.rs` wrote it.
struct Converted {
    /// The file, from the crate's folder.
    origin: &'static str,
    /// Its TOML text.
    toml: &'static str,
    /// The same document as JSON.
    json: &'static str,
}

/// Every built-in rules file `build.rs` wrote as JSON.
static CONVERTED: &[Converted] = include!(concat!(env!("OUT_DIR"), "/builtin_rules.rs"));

/// The built-in file `origin`, whose TOML text is `toml`, read as `T`: from the JSON
/// `build.rs` wrote of that very text, else from the TOML. The error is the reading's.
pub(super) fn read<T: DeserializeOwned>(origin: &str, toml: &str) -> Result<T, String> {
    match CONVERTED
        .iter()
        .find(|file| file.origin == origin && file.toml == toml)
    {
        Some(file) => serde_json::from_str(file.json).map_err(|error| error.to_string()),
        None => toml::from_str(toml).map_err(|error| error.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn every_builtin_file_is_read_from_json_as_its_toml_reads() {
        let mut files = crate::dialects::rules_files();
        files.push(super::super::kinds::BUILTIN);
        for (origin, text) in files {
            let converted = CONVERTED
                .iter()
                .find(|file| file.origin == origin)
                .unwrap_or_else(|| panic!("{origin} was not written as JSON"));
            assert_eq!(converted.toml, text, "{origin}");
            let from_toml: Value = toml::from_str(text).unwrap();
            let from_json: Value = read(origin, text).unwrap();
            assert_eq!(from_json, from_toml, "{origin}");
        }
    }

    #[test]
    fn a_text_that_is_not_the_built_in_one_is_read_as_toml() {
        let (origin, _) = crate::dialects::DEFAULT_RULES;
        let other: Value = read(origin, "[[rule]]\ntool = \"x\"").unwrap();
        assert_eq!(other, serde_json::json!({"rule": [{"tool": "x"}]}));
        assert!(read::<Value>(origin, "[[rule]").is_err());
    }
}
