//! The cutter against a reference: the JSON parsed, each string cut to its longest prefix
//! of whole characters under the bound.

use serde::de::IgnoredAny;
use serde_json::Value;

use super::*;

/// Every kind of character and escape, and a nested object with keys.
const SAMPLE: &str = r#"{"a":"héllo \"wörld\" \\ \/ \n\t 😀 \ud83d\ude00 \u00e9\u0041 € end","b":["xyz",1,true,null,{"k":"\u20ac€x"}],"c":-1.5e3}"#;

fn cut(input: &[u8], keep: usize) -> (Vec<u8>, Vec<Cut>) {
    let mut cutter = Cutter::new(keep);
    let mut out = Vec::new();
    cutter.feed(input, &mut out);
    let cuts = cutter.finish(&mut out);
    (out, cuts)
}

/// `text` cut to its longest prefix of whole characters of at most `keep` bytes.
fn prefix(text: &str, keep: usize) -> &str {
    &text[..text.floor_char_boundary(keep)]
}

/// The value with every string and key cut, and the cuts it takes.
fn reference(value: &Value, keep: usize, cuts: &mut Vec<(u64, u64, String)>) -> Value {
    match value {
        Value::String(text) => Value::String(cut_text(text, keep, cuts)),
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|item| reference(item, keep, cuts))
                .collect(),
        ),
        Value::Object(object) => {
            let mut cut_object = serde_json::Map::new();
            for (key, item) in object {
                let key = cut_text(key, keep, cuts);
                cut_object.insert(key, reference(item, keep, cuts));
            }
            Value::Object(cut_object)
        }
        other => other.clone(),
    }
}

/// One string of the reference, and its cut.
fn cut_text(text: &str, keep: usize, cuts: &mut Vec<(u64, u64, String)>) -> String {
    let kept = prefix(text, keep);
    if kept.len() < text.len() {
        let tail = &kept[kept.ceil_char_boundary(kept.len().saturating_sub(64))..];
        cuts.push((kept.len() as u64, text.len() as u64, tail.to_owned()));
    }
    kept.to_owned()
}

/// Whether a line is not JSON as the readers see it (read as UTF-8 text).
fn invalid(line: &[u8]) -> bool {
    std::str::from_utf8(line).is_err() || serde_json::from_slice::<IgnoredAny>(line).is_err()
}

fn sorted(mut cuts: Vec<(u64, u64, String)>) -> Vec<(u64, u64, String)> {
    cuts.sort();
    cuts
}

#[test]
fn every_bound_keeps_whole_characters() {
    let original: Value = serde_json::from_str(SAMPLE).unwrap();
    for keep in 1..=80 {
        let (out, cuts) = cut(SAMPLE.as_bytes(), keep);
        let got: Value = serde_json::from_slice(&out).unwrap_or_else(|error| {
            panic!("keep {keep}: {error}: {}", String::from_utf8_lossy(&out))
        });
        let mut expected_cuts = Vec::new();
        assert_eq!(
            got,
            reference(&original, keep, &mut expected_cuts),
            "keep {keep}"
        );
        let cuts = cuts
            .into_iter()
            .map(|cut| (cut.kept, cut.total, cut.tail))
            .collect();
        assert_eq!(sorted(cuts), sorted(expected_cuts), "keep {keep}");
    }
    let (out, cuts) = cut(SAMPLE.as_bytes(), 1000);
    assert_eq!(
        out,
        SAMPLE.as_bytes(),
        "nothing long: the line passes as it is"
    );
    assert!(cuts.is_empty());
}

#[test]
fn chunks_cut_anywhere_give_the_same_line() {
    for keep in [0, 3, 7, 12, 1000] {
        let whole = cut(SAMPLE.as_bytes(), keep);
        for at in 0..=SAMPLE.len() {
            let (head, tail) = SAMPLE.as_bytes().split_at(at);
            let mut cutter = Cutter::new(keep);
            let mut out = Vec::new();
            cutter.feed(head, &mut out);
            cutter.feed(tail, &mut out);
            let cuts = cutter.finish(&mut out);
            assert_eq!((out, cuts), whole, "keep {keep}, split at {at}");
        }
        let mut cutter = Cutter::new(keep);
        let mut out = Vec::new();
        for byte in SAMPLE.as_bytes() {
            cutter.feed(std::slice::from_ref(byte), &mut out);
        }
        let cuts = cutter.finish(&mut out);
        assert_eq!((out, cuts), whole, "keep {keep}, byte by byte");
    }
}

#[test]
fn a_line_ended_anywhere_stays_cut_short() {
    for keep in [2, 9, 1000] {
        for end in 0..SAMPLE.len() {
            let line = &SAMPLE.as_bytes()[..end];
            let (out, _) = cut(line, keep);
            let original = serde_json::from_slice::<IgnoredAny>(line);
            let cut = serde_json::from_slice::<IgnoredAny>(&out);
            assert_eq!(
                original.as_ref().map_err(serde_json::Error::is_eof).err(),
                cut.as_ref().map_err(serde_json::Error::is_eof).err(),
                "keep {keep}, end {end}: {}",
                String::from_utf8_lossy(&out)
            );
        }
    }
}

#[test]
fn pieces_in_every_order_cut_like_the_reference() {
    // Raw JSON string content, and what it decodes to.
    let pieces: [(&str, &str); 10] = [
        ("a", "a"),
        ("é", "é"),
        ("😀", "😀"),
        (r"\n", "\n"),
        (r#"\""#, "\""),
        (r"\\", "\\"),
        (r"\u00e9", "é"),
        (r"\u20ac", "€"),
        (r"\ud83d\ude00", "😀"),
        (r"\u0000", "\u{0}"),
    ];
    for a in &pieces {
        for b in &pieces {
            for c in &pieces {
                let raw = format!("[\"{}{}{}\",\"{}\"]", a.0, b.0, c.0, b.0);
                let decoded = format!("{}{}{}", a.1, b.1, c.1);
                for keep in 0..14 {
                    let (out, cuts) = cut(raw.as_bytes(), keep);
                    let got: Vec<String> = serde_json::from_slice(&out)
                        .unwrap_or_else(|error| panic!("{raw} keep {keep}: {error}"));
                    assert_eq!(
                        got,
                        [prefix(&decoded, keep), prefix(b.1, keep)],
                        "{raw} keep {keep}"
                    );
                    let dropped: u64 = cuts.iter().map(Cut::dropped).sum();
                    let expected = decoded.len() - prefix(&decoded, keep).len() + b.1.len()
                        - prefix(b.1, keep).len();
                    assert_eq!(dropped, expected as u64, "{raw} keep {keep}");
                }
            }
        }
    }
}

#[test]
fn what_is_dropped_is_still_checked() {
    // A line that is not JSON is not JSON once cut, whatever was dropped.
    let bad: [&[u8]; 9] = [
        b"\x01",
        br"\q",
        br"\u12G4",
        br"\u12",
        b"\xff",
        b"\xc3\x28",
        b"\xc0\x80",
        b"\xed\xa0\x80",
        b"\xf4\x90\x80\x80",
    ];
    for bad in bad {
        let mut line = br#"{"a":"xxxxxxxxxx"#.to_vec();
        line.extend_from_slice(bad);
        line.extend_from_slice(br#"yyyy","b":1}"#);
        assert!(invalid(&line));
        let (out, cuts) = cut(&line, 4);
        assert!(invalid(&out), "{}", String::from_utf8_lossy(&out));
        assert_eq!(cuts.len(), 1);
        // Kept whole, it is copied as it is.
        assert_eq!(cut(&line, 1000).0, line);
    }
}

#[test]
fn lone_surrogates_are_units_of_their_own() {
    // JSON read as text rejects a lone surrogate; a value skipped does not: a cut that
    // drops one gives a line both accept.
    for lone in [
        r"\ud800",
        r"\udc00",
        r"\ud800\u0041",
        r"\ud800\ud800\udc00",
        r"\ud800\n",
    ] {
        let line = format!(r#"{{"a":"xx{lone}yy","b":1}}"#);
        let (out, cuts) = cut(line.as_bytes(), 2);
        assert_eq!(out, br#"{"a":"xx","b":1}"#, "{lone}");
        assert_eq!(cuts.len(), 1);
        let (out, _) = cut(line.as_bytes(), 1000);
        assert_eq!(out, line.as_bytes());
    }
    let (_, cuts) = cut(br#"["\ud800\u0041\ud83d\ude00"]"#, 0);
    assert_eq!(cuts[0].total, 3 + 1 + 4);
}

#[test]
fn a_huge_string_keeps_its_start_and_counts_the_rest() {
    let text = "0123456789".repeat(100_000);
    let line = format!(r#"{{"type":"x","output":"{text}","n":2}}"#);
    let (out, cuts) = cut(line.as_bytes(), 64);
    let value: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(value["output"].as_str(), Some(&text[..64]));
    assert_eq!(value["n"], 2);
    assert_eq!(
        cuts,
        [Cut {
            tail: text[..64].to_owned(),
            kept: 64,
            total: 1_000_000,
        }]
    );
}

proptest::proptest! {
    /// Over text of JSON's characters in any order: no panic, the same line however the
    /// chunks fall, and a line that is JSON stays JSON, its strings cut to whole
    /// characters.
    #[test]
    fn any_text_is_cut_safely(
        text in r#"[\[\]{}",:a0-9\\unté😀\x01 ]{0,48}"#,
        keep in 0usize..12,
        at in 0usize..48,
    ) {
        let bytes = text.as_bytes();
        let whole = cut(bytes, keep);
        let (head, tail) = bytes.split_at(at.min(bytes.len()));
        let mut cutter = Cutter::new(keep);
        let mut out = Vec::new();
        cutter.feed(head, &mut out);
        cutter.feed(tail, &mut out);
        let cuts = cutter.finish(&mut out);
        proptest::prop_assert_eq!(&(out, cuts), &whole);
        if let Ok(original) = serde_json::from_slice::<Value>(bytes) {
            let got: Value = serde_json::from_slice(&whole.0).map_err(|error| {
                proptest::test_runner::TestCaseError::fail(format!("{error}"))
            })?;
            // Keys cut alike may merge in an object: the reference is compared on arrays.
            if !text.contains('{') {
                let mut cuts = Vec::new();
                proptest::prop_assert_eq!(got, reference(&original, keep, &mut cuts));
            }
        }
    }
}
