//! A payload read from any JSON text writes the bytes its value writes, whether it keeps
//! the text, keeps it without its spaces, or parses it.

use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use serde_json::Value;
use toolnorm::Payload;

/// A JSON tree as a provider may write it: any number, strings with characters that need
/// escaping, repeated keys.
#[derive(Debug, Clone)]
enum Tree {
    Null,
    Bool(bool),
    Int(i64),
    Big(u64),
    Float(f64),
    Text(String),
    List(Vec<Tree>),
    Map(Vec<(String, Tree)>),
}

fn tree() -> impl Strategy<Value = Tree> {
    let text = "[a-c \"\\\\/\\n\\t\u{1}\u{1f}\u{7f}é✓\u{2028}🦀]{0,6}";
    let leaf = prop_oneof![
        Just(Tree::Null),
        any::<bool>().prop_map(Tree::Bool),
        any::<i64>().prop_map(Tree::Int),
        any::<u64>().prop_map(Tree::Big),
        prop_oneof![Just(0.0), Just(-0.0), Just(1.5), Just(1e21), any::<f64>()]
            .prop_filter("finite", |float| float.is_finite())
            .prop_map(Tree::Float),
        text.prop_map(Tree::Text),
    ];
    leaf.prop_recursive(4, 32, 4, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Tree::List),
            prop::collection::vec(("[ab\"]{1,2}", inner), 0..4).prop_map(Tree::Map),
        ]
    })
}

/// How the text is written: as a JavaScript or Python agent might, with or without
/// spaces, escaping what need not be escaped.
#[derive(Debug, Clone, Copy)]
struct Style {
    space: bool,
    escape_all: bool,
    upper_hex: bool,
}

fn style() -> impl Strategy<Value = Style> {
    (any::<bool>(), any::<bool>(), any::<bool>()).prop_map(|(space, escape_all, upper_hex)| Style {
        space,
        escape_all,
        upper_hex,
    })
}

fn write(tree: &Tree, style: Style, out: &mut String) {
    let gap = if style.space { " " } else { "" };
    match tree {
        Tree::Null => out.push_str("null"),
        Tree::Bool(flag) => out.push_str(if *flag { "true" } else { "false" }),
        Tree::Int(int) => out.push_str(&int.to_string()),
        Tree::Big(big) => out.push_str(&big.to_string()),
        Tree::Float(float) => out.push_str(&format!("{float:?}")),
        Tree::Text(text) => write_string(text, style, out),
        Tree::List(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                    out.push_str(gap);
                }
                write(item, style, out);
            }
            out.push(']');
        }
        Tree::Map(entries) => {
            out.push('{');
            for (index, (key, item)) in entries.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                    out.push_str(gap);
                }
                write_string(key, style, out);
                out.push(':');
                out.push_str(gap);
                write(item, style, out);
            }
            out.push('}');
        }
    }
}

fn write_string(text: &str, style: Style, out: &mut String) {
    out.push('"');
    for char in text.chars() {
        match char {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '/' if style.escape_all => out.push_str("\\/"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            _ if (char as u32) < 0x20 || (style.escape_all && !char.is_ascii()) => {
                let mut units = [0u16; 2];
                for unit in char.encode_utf16(&mut units) {
                    if style.upper_hex {
                        out.push_str(&format!("\\u{unit:04X}"));
                    } else {
                        out.push_str(&format!("\\u{unit:04x}"));
                    }
                }
            }
            _ => out.push(char),
        }
    }
    out.push('"');
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 2000,
        failure_persistence: Some(Box::new(FileFailurePersistence::Off)),
        ..ProptestConfig::default()
    })]

    #[test]
    fn a_payload_writes_what_its_value_writes(tree in tree(), style in style(), pretty in any::<bool>()) {
        let mut text = String::new();
        write(&tree, style, &mut text);
        if pretty {
            let value: Value = serde_json::from_str(&text).unwrap();
            text = serde_json::to_string_pretty(&value).unwrap();
        }
        // What the value read from this text writes (floats need not survive a round trip
        // through serde_json's reader, so the value is read from the text compared).
        let value: Value = serde_json::from_str(&text).unwrap();
        let payload: Payload = serde_json::from_str(&text).unwrap();
        prop_assert_eq!(serde_json::to_string(&payload).unwrap(), serde_json::to_string(&value).unwrap());
        prop_assert_eq!(serde_json::to_value(&payload).unwrap(), value.clone());
        prop_assert_eq!(payload.value(), &value);
        prop_assert_eq!(payload.is_null(), value.is_null());
        prop_assert_eq!(payload.as_str(), value.as_str());
        let unread: Payload = serde_json::from_str(&text).unwrap();
        let text = unread.text();
        prop_assert_eq!(text.as_deref(), value.as_str());
        prop_assert_eq!(payload.is_object(), value.is_object());
        if let Some(kept) = payload.raw_text() {
            prop_assert_eq!(kept, serde_json::to_string(&value).unwrap());
        }
    }
}

#[test]
fn what_serde_json_writes_is_kept() {
    let text = r#"{"command":"ls -la","nested":{"list":[1,-2,null,true,"é ✓ \u001f"]}}"#;
    let payload: Payload = serde_json::from_str(text).unwrap();
    assert_eq!(payload.raw_text(), Some(text));
}
