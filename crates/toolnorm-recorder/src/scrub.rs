//! Scrubbing raw recordings into stable fixtures.
//!
//! Volatile values (temp paths, ports, UUIDs, time-ordered ids, timestamps,
//! durations, process ids) are replaced consistently: the same raw value always
//! becomes the same placeholder within a fixture, distinct values stay
//! distinct, and ordered values (timestamps, time-sortable ids) keep their
//! order. The rewrite works on the JSON text itself, so key order, types and
//! layout stay exactly as the CLI wrote them.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use regex::Regex;

use crate::error::{Error, Result};

mod text;

/// Base of the normalized clock: 2026-01-01T00:00:00Z.
const BASE_EPOCH_S: i64 = 1_767_225_600;

/// Literal substitutions applied to every string before pattern rewriting
/// (e.g. the scratch directory becomes `/workspace`).
#[derive(Debug, Clone, Default)]
pub struct Substitutions {
    pairs: Vec<(String, String)>,
    patterns: Vec<(Regex, String)>,
    counted: Vec<(Regex, String)>,
    timestamps_by_position: bool,
}

impl Substitutions {
    /// Adds a literal replacement; longer needles are applied first.
    pub fn add(&mut self, from: impl Into<String>, to: impl Into<String>) {
        let from = from.into();
        if !from.is_empty() {
            self.pairs.push((from, to.into()));
            self.pairs.sort_by_key(|p| std::cmp::Reverse(p.0.len()));
        }
    }

    /// Adds a pattern replacement (regex syntax, `$1` expansions allowed),
    /// applied after the literal ones.
    pub fn add_pattern(&mut self, pattern: &str, to: impl Into<String>) -> Result<()> {
        let re = Regex::new(pattern).map_err(|e| Error::Server(format!("regex {pattern}: {e}")))?;
        self.patterns.push((re, to.into()));
        Ok(())
    }

    /// Adds a volatile-id pattern: each distinct match becomes `prefix`
    /// followed by a counter (in order of first appearance), padded to the
    /// length of the match.
    pub fn add_counted(&mut self, pattern: &str, prefix: impl Into<String>) -> Result<()> {
        let re = Regex::new(pattern).map_err(|e| Error::Server(format!("regex {pattern}: {e}")))?;
        self.counted.push((re, prefix.into()));
        Ok(())
    }

    /// Numbers every ISO timestamp by its place (its line, then its order in the line)
    /// instead of by its value: for a CLI whose events a few milliseconds apart fall
    /// in the same millisecond in one run and not in the next, which would merge or
    /// split their placeholders. Equal timestamps at two places then differ.
    pub fn number_timestamps_by_position(&mut self) {
        self.timestamps_by_position = true;
    }

    fn apply(&self, s: &str) -> String {
        let mut out = s.to_owned();
        for (from, to) in &self.pairs {
            if out.contains(from.as_str()) {
                out = out.replace(from.as_str(), to);
            }
        }
        for (re, to) in &self.patterns {
            if re.is_match(&out) {
                out = re.replace_all(&out, to.as_str()).into_owned();
            }
        }
        out
    }
}

/// A JSON token of interest in a line.
enum Tok {
    /// A string token: its byte range (quotes included), its decoded value
    /// (`None` when it does not decode) and, for a value, its key.
    Str {
        start: usize,
        end: usize,
        value: Option<String>,
        key: Option<String>,
    },
    /// A number token: its byte range and the key it is the value of, if any.
    Num {
        start: usize,
        end: usize,
        key: Option<String>,
    },
}

/// Scans one JSON text for string and number tokens, decoding each string
/// once.
fn scan(line: &str) -> Vec<Tok> {
    let b = line.as_bytes();
    let mut toks = Vec::new();
    let mut i = 0;
    // The key whose value comes next (set by `"key":`, used by the next scalar).
    let mut pending_key: Option<String> = None;
    while i < b.len() {
        match b[i] {
            b'"' => {
                let start = i;
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                i += 1;
                let end = i.min(b.len());
                let mut j = end;
                while j < b.len() && (b[j] as char).is_ascii_whitespace() {
                    j += 1;
                }
                let value = serde_json::from_str::<String>(&line[start..end]).ok();
                let key = if j < b.len() && b[j] == b':' {
                    pending_key.clone_from(&value);
                    None
                } else {
                    pending_key.take()
                };
                toks.push(Tok::Str {
                    start,
                    end,
                    value,
                    key,
                });
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                while i < b.len() && matches!(b[i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                {
                    i += 1;
                }
                toks.push(Tok::Num {
                    start,
                    end: i,
                    key: pending_key.take(),
                });
            }
            b'[' | b'{' => {
                pending_key = None;
                i += 1;
            }
            _ => i += 1,
        }
    }
    toks
}

/// Normalizer for one fixture (all lines share the placeholder maps).
pub struct Normalizer {
    subs: Substitutions,
    uuid: Regex,
    sortable_id: Regex,
    iso: Regex,
    duration_key: Regex,
    pid_key: Regex,
    uuids: HashMap<String, String>,
    ids: HashMap<String, String>,
    iso_map: HashMap<String, String>,
    ms_map: HashMap<String, i64>,
    s_map: HashMap<String, String>,
    counted: HashMap<String, String>,
    slugs: HashMap<String, String>,
    /// With [`Substitutions::number_timestamps_by_position`]: the slot of the line
    /// being rewritten and how many timestamps it has shown so far.
    position: Option<(usize, usize)>,
    /// Keeps the lines that are not JSON (a logger's, captured with the events),
    /// rewritten as text, instead of dropping them.
    text: Option<text::TextLines>,
}

impl Normalizer {
    /// Creates a normalizer with the given literal substitutions.
    pub fn new(subs: Substitutions) -> Result<Self> {
        let re = |p: &str| Regex::new(p).map_err(|e| Error::Server(format!("regex {p}: {e}")));
        Ok(Normalizer {
            subs,
            uuid: re(
                r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}",
            )?,
            sortable_id: re(r"\b([a-z]{2,5})_([0-9a-f]{12}[0-9A-Za-z]{14})\b")?,
            iso: re(r"\b(20\d\d)-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(\.\d+)?(Z|[+-]\d\d:\d\d)?")?,
            duration_key: re(
                r"(?i)(duration|elapsed|latency|ttft|time_to_|first_content|streamms|wall_?time|wallclock|^secs$|^nanos$|startup_?ms|api_?time_?ms|retry_?delay|retry_?in_?ms)",
            )?,
            pid_key: re(r"(?i)^(pid|process_id|processid)$")?,
            uuids: HashMap::new(),
            ids: HashMap::new(),
            iso_map: HashMap::new(),
            ms_map: HashMap::new(),
            s_map: HashMap::new(),
            counted: HashMap::new(),
            slugs: HashMap::new(),
            position: None,
            text: None,
        })
    }

    /// Numbers UUIDs as `other` did, and new ones after its own: a stream written
    /// beside another (a Codex rollout file beside the app-server's stream) names its
    /// thread and items with the same placeholders.
    pub fn share_uuids(&mut self, other: &Normalizer) {
        self.uuids.clone_from(&other.uuids);
    }

    /// Normalizes a whole recording: every line that is JSON is rewritten; other
    /// lines are dropped and counted, or kept as text ([`Normalizer::keep_text_lines`]).
    pub fn normalize_lines(&mut self, lines: &[String]) -> (Vec<String>, usize) {
        let (json, dropped) = self.normalize_json_lines(lines);
        if self.text.is_none() {
            return (json, dropped);
        }
        let mut json = json.into_iter();
        let mut out = Vec::with_capacity(lines.len());
        for (index, line) in lines.iter().enumerate() {
            if serde_json::from_str::<serde_json::Value>(line).is_ok() {
                out.extend(json.next());
            } else if !line.trim().is_empty() {
                out.push(self.text_line(line, index));
            }
        }
        (out, 0)
    }

    /// The JSON lines of a recording, rewritten; the number of other lines (not blank).
    fn normalize_json_lines(&mut self, lines: &[String]) -> (Vec<String>, usize) {
        let json_lines: Vec<&String> = lines
            .iter()
            .filter(|l| serde_json::from_str::<serde_json::Value>(l).is_ok())
            .collect();
        let dropped = lines.iter().filter(|l| !l.trim().is_empty()).count() - json_lines.len();
        // Each line is tokenised once, for both passes.
        let tokens: Vec<Vec<Tok>> = json_lines.iter().map(|l| scan(l)).collect();
        // Pass 1: timestamps are numbered by the line where a value first
        // appears (and by their order within that line), so that a collision
        // or a small shift in one run changes only that value, not every
        // later one; time-sortable ids are numbered by rank.
        let mut sortable: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (line_no, (line, toks)) in json_lines.iter().zip(&tokens).enumerate() {
            let mut isos: BTreeSet<(String, String)> = BTreeSet::new();
            let mut ms: BTreeSet<i64> = BTreeSet::new();
            let mut secs: BTreeSet<String> = BTreeSet::new();
            for tok in toks {
                match tok {
                    Tok::Str { value, .. } => {
                        let Some(s) = value else {
                            continue;
                        };
                        let s = self.subs.apply(s);
                        for m in self.iso.find_iter(&s) {
                            if !self.iso_map.contains_key(m.as_str()) {
                                isos.insert((sort_key_iso(m.as_str()), m.as_str().to_owned()));
                            }
                        }
                        for c in self.sortable_id.captures_iter(&s) {
                            if let (Some(p), Some(full)) = (c.get(1), c.get(0)) {
                                sortable
                                    .entry(p.as_str().to_owned())
                                    .or_default()
                                    .insert(full.as_str().to_owned());
                            }
                        }
                    }
                    Tok::Num { start, end, key } => {
                        let raw = &line[*start..*end];
                        if key.as_deref().is_some_and(|k| {
                            self.duration_key.is_match(k) || self.pid_key.is_match(k)
                        }) {
                            continue;
                        }
                        if let Some(v) = epoch_ms(raw) {
                            if !self.ms_map.contains_key(raw) {
                                ms.insert(v);
                            }
                        } else if let Some(v) = epoch_s(raw)
                            && !self.s_map.contains_key(&v)
                        {
                            secs.insert(v);
                        }
                    }
                }
            }
            let slot = line_no as i64 * 10;
            for (rank, (_, raw)) in isos.iter().enumerate() {
                let placeholder = iso_placeholder(raw, (slot + rank as i64) as usize);
                self.iso_map.insert(raw.clone(), placeholder);
            }
            for (rank, v) in ms.iter().enumerate() {
                self.ms_map
                    .insert(v.to_string(), (BASE_EPOCH_S + slot) * 1000 + rank as i64);
            }
            for (rank, v) in secs.iter().enumerate() {
                self.s_map
                    .insert(v.clone(), (BASE_EPOCH_S + slot + rank as i64).to_string());
            }
        }
        for (prefix, set) in &sortable {
            for (rank, raw) in set.iter().enumerate() {
                self.ids
                    .insert(raw.clone(), format!("{prefix}_{:026}", rank + 1));
            }
        }
        let by_position = self.subs.timestamps_by_position;
        let out = json_lines
            .iter()
            .zip(&tokens)
            .enumerate()
            .map(|(line_no, (l, toks))| {
                self.position = by_position.then_some((line_no * 10, 0));
                let line = self.rewrite(l, toks);
                self.position = None;
                line
            })
            .collect();
        (out, dropped)
    }

    fn rewrite(&mut self, line: &str, toks: &[Tok]) -> String {
        let mut out = String::with_capacity(line.len());
        let mut pos = 0;
        for tok in toks {
            match tok {
                Tok::Str {
                    start: a,
                    end: b,
                    value,
                    key,
                } => {
                    let (a, b) = (*a, *b);
                    out.push_str(&line[pos..a]);
                    match value {
                        Some(s) => {
                            let s = s.as_str();
                            let n = match key.as_deref() {
                                Some(k)
                                    if self.pid_key.is_match(k)
                                        && !s.is_empty()
                                        && s.chars().all(|c| c.is_ascii_digit()) =>
                                {
                                    "4242".to_owned()
                                }
                                // OpenCode's random session slugs ("jolly-circuit").
                                Some("slug") => {
                                    let n = self.slugs.len() + 1;
                                    self.slugs
                                        .entry(s.to_owned())
                                        .or_insert_with(|| format!("slug-{n}"))
                                        .clone()
                                }
                                _ => self.string(s),
                            };
                            if n == s {
                                out.push_str(&line[a..b]);
                            } else {
                                out.push_str(
                                    &serde_json::to_string(&n)
                                        .unwrap_or_else(|_| line[a..b].into()),
                                );
                            }
                        }
                        None => out.push_str(&line[a..b]),
                    }
                    pos = b;
                }
                Tok::Num { start, end, key } => {
                    out.push_str(&line[pos..*start]);
                    out.push_str(&self.number(&line[*start..*end], key.as_deref()));
                    pos = *end;
                }
            }
        }
        out.push_str(&line[pos..]);
        out
    }

    fn number(&mut self, raw: &str, key: Option<&str>) -> String {
        if let Some(k) = key {
            if self.duration_key.is_match(k) {
                return if raw.contains('.') || raw.contains('e') {
                    "0.1".into()
                } else {
                    "100".into()
                };
            }
            if self.pid_key.is_match(k) {
                return "4242".into();
            }
        }
        if let Some(v) = self.ms_map.get(raw) {
            return v.to_string();
        }
        if let Some(v) = epoch_s(raw).and_then(|s| self.s_map.get(&s)) {
            return if raw.contains('.') {
                format!("{v}.0")
            } else {
                v.clone()
            };
        }
        raw.to_owned()
    }

    /// Normalizes one string value.
    pub fn string(&mut self, s: &str) -> String {
        let mut s = self.subs.apply(s);
        for (re, prefix) in self.subs.counted.clone() {
            s = re
                .replace_all(&s, |c: &regex::Captures<'_>| {
                    let raw = c.get(0).map(|m| m.as_str()).unwrap_or("").to_owned();
                    let n = self.counted.len() + 1;
                    self.counted
                        .entry(raw.clone())
                        .or_insert_with(|| {
                            let width = raw.len().saturating_sub(prefix.len()).max(1);
                            format!("{prefix}{n:0width$}")
                        })
                        .clone()
                })
                .into_owned();
        }
        let s = self
            .iso
            .replace_all(&s, |c: &regex::Captures<'_>| {
                let raw = c.get(0).map(|m| m.as_str()).unwrap_or("");
                if let Some((slot, seen)) = &mut self.position {
                    let rank = *slot + (*seen).min(9);
                    *seen += 1;
                    return iso_placeholder(raw, rank);
                }
                self.iso_map
                    .get(raw)
                    .cloned()
                    .unwrap_or_else(|| raw.to_owned())
            })
            .into_owned();
        let s = self
            .sortable_id
            .replace_all(&s, |c: &regex::Captures<'_>| {
                let raw = c.get(0).map(|m| m.as_str()).unwrap_or("");
                self.ids.get(raw).cloned().unwrap_or_else(|| raw.to_owned())
            })
            .into_owned();
        let uuid = self.uuid.clone();
        uuid.replace_all(&s, |c: &regex::Captures<'_>| {
            let raw = c
                .get(0)
                .map(|m| m.as_str().to_ascii_lowercase())
                .unwrap_or_default();
            let n = self.uuids.len() + 1;
            self.uuids
                .entry(raw)
                .or_insert_with(|| format!("00000000-0000-4000-8000-{n:012}"))
                .clone()
        })
        .into_owned()
    }
}

fn epoch_ms(raw: &str) -> Option<i64> {
    if raw.contains('.') || raw.contains('e') || raw.starts_with('-') {
        return None;
    }
    let v: i64 = raw.parse().ok()?;
    (1_500_000_000_000..2_500_000_000_000)
        .contains(&v)
        .then_some(v)
}

fn epoch_s(raw: &str) -> Option<String> {
    let v: f64 = raw.parse().ok()?;
    (1_500_000_000.0..2_500_000_000.0)
        .contains(&v)
        .then(|| format!("{}", v.trunc() as i64))
}

fn sort_key_iso(raw: &str) -> String {
    // Zone-less and Z timestamps sort lexically; good enough within one run.
    raw.to_owned()
}

fn iso_placeholder(raw: &str, rank: usize) -> String {
    let secs = BASE_EPOCH_S as usize + rank;
    let day_secs = secs % 86_400;
    let (h, m, s) = (day_secs / 3600, (day_secs % 3600) / 60, day_secs % 60);
    let frac = raw
        .find('.')
        .map(|i| {
            let digits = raw[i + 1..]
                .chars()
                .take_while(char::is_ascii_digit)
                .count();
            format!(".{}", "0".repeat(digits))
        })
        .unwrap_or_default();
    let zone = if raw.ends_with('Z') {
        "Z".to_owned()
    } else if raw.len() > 6
        && (raw[raw.len() - 6..].starts_with('+') || raw[raw.len() - 6..].starts_with('-'))
    {
        "+00:00".to_owned()
    } else {
        String::new()
    };
    format!("2026-01-01T{h:02}:{m:02}:{s:02}{frac}{zone}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_order_types_and_identity() -> Result<()> {
        let mut subs = Substitutions::default();
        subs.add("/tmp/run-123/work", "/workspace");
        let mut n = Normalizer::new(subs)?;
        let lines = vec![
            r#"{"b":1,"a":"/tmp/run-123/work/x","id":"6f1c2d3e-1111-4222-8333-444455556666","t":1764474678123,"duration_ms":532}"#.to_owned(),
            r#"{"id":"6F1C2D3E-1111-4222-8333-444455556666","other":"aaaaaaaa-1111-4222-8333-444455556666","t":1764474679000,"at":"2026-11-30T03:51:18.123Z"}"#.to_owned(),
            "not json".to_owned(),
        ];
        let (out, dropped) = n.normalize_lines(&lines);
        assert_eq!(dropped, 1);
        assert_eq!(
            out[0],
            r#"{"b":1,"a":"/workspace/x","id":"00000000-0000-4000-8000-000000000001","t":1767225600000,"duration_ms":100}"#
        );
        assert_eq!(
            out[1],
            r#"{"id":"00000000-0000-4000-8000-000000000001","other":"00000000-0000-4000-8000-000000000002","t":1767225610000,"at":"2026-01-01T00:00:10.000Z"}"#
        );
        Ok(())
    }

    #[test]
    fn a_stream_beside_another_shares_its_uuids() -> Result<()> {
        let (thread, other) = (
            "6f1c2d3e-1111-4222-8333-444455556666",
            "aaaaaaaa-1111-4222-8333-444455556666",
        );
        let mut main = Normalizer::new(Substitutions::default())?;
        main.normalize_lines(&[format!(
            r#"{{"installation":"{other}","thread":"{thread}"}}"#
        )]);
        let mut beside = Normalizer::new(Substitutions::default())?;
        beside.share_uuids(&main);
        let new = "bbbbbbbb-1111-4222-8333-444455556666";
        let (out, _) = beside.normalize_lines(&[format!(r#"{{"id":"{thread}","turn":"{new}"}}"#)]);
        assert_eq!(
            out[0],
            r#"{"id":"00000000-0000-4000-8000-000000000002","turn":"00000000-0000-4000-8000-000000000003"}"#
        );
        Ok(())
    }

    #[test]
    fn timestamps_by_position_do_not_depend_on_collisions() -> Result<()> {
        let run = |times: [&str; 3]| -> Result<Vec<String>> {
            let mut subs = Substitutions::default();
            subs.number_timestamps_by_position();
            let mut n = Normalizer::new(subs)?;
            let lines = [
                format!(r#"{{"start":"{}","last":"{}"}}"#, times[0], times[1]),
                format!(r#"{{"t":"{}"}}"#, times[2]),
            ];
            Ok(n.normalize_lines(&lines).0)
        };
        let apart = run([
            "2026-11-30T10:00:00.001Z",
            "2026-11-30T10:00:00.002Z",
            "2026-11-30T10:00:00.003Z",
        ])?;
        let same = run([
            "2026-11-30T10:00:00.001Z",
            "2026-11-30T10:00:00.001Z",
            "2026-11-30T10:00:00.001Z",
        ])?;
        assert_eq!(apart, same);
        assert_eq!(
            apart,
            [
                r#"{"start":"2026-01-01T00:00:00.000Z","last":"2026-01-01T00:00:01.000Z"}"#,
                r#"{"t":"2026-01-01T00:00:10.000Z"}"#,
            ]
        );
        Ok(())
    }

    #[test]
    fn sortable_ids_keep_order() -> Result<()> {
        let mut n = Normalizer::new(Substitutions::default())?;
        let lines = vec![
            r#"{"a":"msg_d1e2f3a4b5c6ZZZZZZZZZZZZZZ","b":"msg_d1e2f3a4b5c5ZZZZZZZZZZZZZZ"}"#
                .to_owned(),
        ];
        let (out, _) = n.normalize_lines(&lines);
        assert_eq!(
            out[0],
            r#"{"a":"msg_00000000000000000000000002","b":"msg_00000000000000000000000001"}"#
        );
        Ok(())
    }
}
