//! Reading a code-mode script without running it: the `tools.NAME(ARGUMENTS)` calls it
//! makes, with their arguments as far as a JavaScript literal says them.
//!
//! A small scanner ([`scan`](super::scan)) splits the source into tokens (identifiers, numbers, strings, template
//! literals, regular expressions, punctuation), skipping comments; a reader then finds
//! each `tools.NAME(` or `tools["NAME"](` and reads its first argument as a literal:
//! strings (template literals without substitutions too), numbers, `true`, `false`,
//! `null`, arrays and objects. Whatever else stands in a value's place (an identifier, a
//! shorthand property, a template with substitutions, an expression) is not evaluated: it
//! becomes `{"$expr": "<its source text>"}`. Nothing here panics, whatever the input:
//! unterminated strings, comments and brackets end at the end of the source.

use serde_json::{Map, Number, Value};

use super::scan::{Scanner, Token, What};

/// The key of the object that stands for a value the script computes (`{"$expr": "x"}`).
pub(crate) const EXPR_KEY: &str = "$expr";

/// The longest source text kept for a value the script computes, in characters.
const EXPR_TEXT_MAX: usize = 200;

/// How deeply template substitutions and literals may nest before the rest is skipped.
pub(super) const DEPTH_MAX: usize = 64;

/// One tool call a script makes, as written.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ScriptCall {
    /// The tool, as the script names it (`exec_command`, `mcp__toolbox__echo`).
    pub tool: String,
    /// Its first argument, read as a literal (`Value::Null` when it has none).
    pub arguments: Value,
}

/// The tool calls a script makes, in the order they are written.
pub(crate) fn script_calls(source: &str) -> Vec<ScriptCall> {
    let tokens = Scanner::new(source).tokens();
    let reader = Reader {
        source,
        tokens: &tokens,
    };
    reader.calls()
}

/// Finds the tool calls among the tokens and reads their arguments.
struct Reader<'a> {
    source: &'a str,
    tokens: &'a [Token],
}

impl Reader<'_> {
    fn what(&self, at: usize) -> Option<&What> {
        self.tokens.get(at).map(|token| &token.what)
    }

    fn is_punct(&self, at: usize, punct: &str) -> bool {
        matches!(self.what(at), Some(What::Punct(p)) if *p == punct)
    }

    fn calls(&self) -> Vec<ScriptCall> {
        let mut calls = Vec::new();
        for at in 0..self.tokens.len() {
            let Some(What::Ident(word)) = self.what(at) else {
                continue;
            };
            // `tools`, not a property `x.tools`.
            let member = at
                .checked_sub(1)
                .is_some_and(|before| self.is_punct(before, ".") || self.is_punct(before, "?."));
            if word != "tools" || member {
                continue;
            }
            if let Some(call) = self.call_at(at + 1) {
                calls.push(call);
            }
        }
        calls
    }

    /// A call `.NAME(…)`, `?.NAME(…)` or `["NAME"](…)` after `tools`.
    fn call_at(&self, at: usize) -> Option<ScriptCall> {
        let (tool, after) = if self.is_punct(at, ".") || self.is_punct(at, "?.") {
            match self.what(at + 1)? {
                What::Ident(name) => (name.clone(), at + 2),
                _ => return None,
            }
        } else if self.is_punct(at, "[") && self.is_punct(at + 2, "]") {
            match self.what(at + 1)? {
                What::Text(name) => (name.clone(), at + 3),
                _ => return None,
            }
        } else {
            return None;
        };
        let open = if self.is_punct(after, "?.") {
            after + 1
        } else {
            after
        };
        if !self.is_punct(open, "(") {
            return None;
        }
        let arguments = if self.is_punct(open + 1, ")") {
            Value::Null
        } else {
            self.value(open + 1, 0).0
        };
        Some(ScriptCall { tool, arguments })
    }

    /// The value that begins at token `at`, and the index of the token after it.
    fn value(&self, at: usize, depth: usize) -> (Value, usize) {
        let (literal, after) = match self.what(at) {
            _ if depth >= DEPTH_MAX => (None, at),
            Some(What::Text(text)) => (Some(Value::String(text.clone())), at + 1),
            Some(What::Number(text)) => (number(text, false), at + 1),
            Some(What::Punct("-" | "+")) => match self.what(at + 1) {
                Some(What::Number(text)) => (number(text, self.is_punct(at, "-")), at + 2),
                _ => (None, at),
            },
            Some(What::Ident(word)) => match word.as_str() {
                "true" => (Some(Value::Bool(true)), at + 1),
                "false" => (Some(Value::Bool(false)), at + 1),
                "null" => (Some(Value::Null), at + 1),
                _ => (None, at),
            },
            Some(What::Punct("[")) => {
                let (array, after) = self.array(at + 1, depth + 1);
                (Some(array), after)
            }
            Some(What::Punct("{")) => {
                let (object, after) = self.object(at + 1, depth + 1);
                (Some(object), after)
            }
            _ => (None, at),
        };
        match literal {
            // A literal the value ends with (`"a" + b` is no literal).
            Some(value) if self.ends_value(after) => (value, after),
            _ => {
                let end = self.skip_expression(at);
                (self.expression(at, end), end)
            }
        }
    }

    /// Whether a value ends before token `at`.
    fn ends_value(&self, at: usize) -> bool {
        match self.what(at) {
            None => true,
            Some(What::Punct(punct)) => matches!(*punct, "," | ")" | "]" | "}" | ";"),
            Some(_) => false,
        }
    }

    /// The index of the token after the expression that begins at `at`: the first `,`,
    /// `;` or unmatched closing bracket at its level.
    fn skip_expression(&self, mut at: usize) -> usize {
        let mut depth = 0usize;
        while let Some(what) = self.what(at) {
            match what {
                What::Punct("(" | "[" | "{") => depth += 1,
                What::Punct(")" | "]" | "}") if depth == 0 => return at,
                What::Punct(")" | "]" | "}") => depth -= 1,
                What::Punct("," | ";") if depth == 0 => return at,
                _ => {}
            }
            at += 1;
        }
        at
    }

    /// The stand-in for the value the tokens `start..end` compute: their source text.
    fn expression(&self, start: usize, end: usize) -> Value {
        let from = self.tokens.get(start).map(|token| token.start);
        let to = end
            .checked_sub(1)
            .and_then(|last| self.tokens.get(last))
            .map(|token| token.end);
        let text = match (from, to) {
            (Some(from), Some(to)) if from < to => self.source.get(from..to).unwrap_or_default(),
            _ => "",
        };
        let mut text: String = text.chars().take(EXPR_TEXT_MAX).collect();
        if text.len() < to.unwrap_or(0).saturating_sub(from.unwrap_or(0)) {
            text.push('…');
        }
        let mut stand_in = Map::new();
        stand_in.insert(EXPR_KEY.to_owned(), Value::String(text));
        Value::Object(stand_in)
    }

    /// The array whose elements begin at `at` (after `[`), and the token after its `]`.
    fn array(&self, mut at: usize, depth: usize) -> (Value, usize) {
        let mut items = Vec::new();
        loop {
            match self.what(at) {
                None => return (Value::Array(items), at),
                Some(What::Punct("]")) => return (Value::Array(items), at + 1),
                Some(What::Punct(",")) => at += 1,
                Some(What::Punct(")" | "}" | ";")) => {
                    // A bracket that does not close the array: no literal.
                    return (Value::Array(items), at);
                }
                Some(_) => {
                    let (item, after) = self.value(at, depth);
                    items.push(item);
                    at = self.after_element(after);
                }
            }
        }
    }

    /// The token after an element's `,` (or at the closing bracket).
    fn after_element(&self, at: usize) -> usize {
        if self.is_punct(at, ",") {
            return at + 1;
        }
        if self.is_punct(at, "]") || self.is_punct(at, "}") || self.what(at).is_none() {
            return at;
        }
        // Something the element did not end at: skip past it.
        let end = self.skip_expression(at);
        if end == at { at + 1 } else { end }
    }

    /// The object whose properties begin at `at` (after `{`), and the token after its `}`.
    fn object(&self, mut at: usize, depth: usize) -> (Value, usize) {
        let mut fields = Map::new();
        loop {
            let key = match self.what(at) {
                None => return (Value::Object(fields), at),
                Some(What::Punct("}")) => return (Value::Object(fields), at + 1),
                Some(What::Punct(",")) => {
                    at += 1;
                    continue;
                }
                Some(What::Punct(")" | "]" | ";")) => return (Value::Object(fields), at),
                Some(What::Ident(key) | What::Text(key) | What::Number(key)) => key.clone(),
                // A spread, a computed key, a method: not read.
                Some(_) => {
                    at = self.after_element(self.skip_expression(at));
                    continue;
                }
            };
            let value_at = at + 1;
            if self.is_punct(value_at, ":") {
                let (value, after) = self.value(value_at + 1, depth);
                fields.insert(key, value);
                at = self.after_element(after);
            } else if self.is_punct(value_at, ",") || self.is_punct(value_at, "}") {
                // Shorthand `{ key }`: the value of a variable.
                fields.insert(key, self.expression(at, value_at));
                at = value_at;
            } else {
                // A method or getter: skipped with its body.
                at = self.after_element(self.skip_expression(value_at));
            }
        }
    }
}

/// A JavaScript numeric literal as a JSON number, when it is one.
fn number(text: &str, negative: bool) -> Option<Value> {
    let digits: String = text.chars().filter(|c| *c != '_').collect();
    let radix = [
        ("0x", 16),
        ("0X", 16),
        ("0o", 8),
        ("0O", 8),
        ("0b", 2),
        ("0B", 2),
    ]
    .iter()
    .find_map(|(prefix, radix)| digits.strip_prefix(prefix).map(|rest| (rest, *radix)));
    let value = match radix {
        Some((rest, radix)) => {
            let whole = i64::from_str_radix(rest, radix).ok()?;
            let whole = if negative {
                whole.checked_neg()?
            } else {
                whole
            };
            Value::Number(Number::from(whole))
        }
        None if digits.ends_with('n') => return None,
        None => {
            let parsed: f64 = digits.parse().ok()?;
            let parsed = if negative { -parsed } else { parsed };
            let integral = parsed.fract() == 0.0 && parsed.abs() < 9.0e15;
            if integral && !digits.contains(['.', 'e', 'E']) {
                #[allow(clippy::cast_possible_truncation)]
                Value::Number(Number::from(parsed as i64))
            } else {
                Value::Number(Number::from_f64(parsed)?)
            }
        }
    };
    Some(value)
}

#[cfg(test)]
#[path = "script_tests.rs"]
mod tests;
