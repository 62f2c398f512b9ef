//! The tokens of a script: identifiers, numbers, strings, template literals, regular
//! expressions and punctuation, comments skipped. Unterminated strings, comments and
//! templates end at the end of the source; nothing here panics.

use super::script::DEPTH_MAX;

/// A token and where it is in the source (byte offsets, on character boundaries).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Token {
    pub what: What,
    pub start: usize,
    pub end: usize,
}

/// What a token is.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum What {
    Ident(String),
    Number(String),
    /// A string, or a template literal without substitutions: its text.
    Text(String),
    /// A template literal with substitutions, or an unterminated string.
    Computed,
    Regex,
    Punct(&'static str),
    /// Any other character.
    Other,
}

/// Splits a source into tokens.
pub(super) struct Scanner<'a> {
    source: &'a str,
    at: usize,
    depth: usize,
    tokens: Vec<Token>,
}

impl<'a> Scanner<'a> {
    pub(super) fn new(source: &'a str) -> Self {
        Scanner {
            source,
            at: 0,
            depth: 0,
            tokens: Vec::new(),
        }
    }

    pub(super) fn tokens(mut self) -> Vec<Token> {
        self.scan_until_close();
        self.tokens
    }

    fn peek(&self) -> Option<char> {
        self.source.get(self.at..)?.chars().next()
    }

    fn peek_second(&self) -> Option<char> {
        let mut chars = self.source.get(self.at..)?.chars();
        chars.next();
        chars.next()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.at += c.len_utf8();
        Some(c)
    }

    fn push(&mut self, what: What, start: usize) {
        self.tokens.push(Token {
            what,
            start,
            end: self.at,
        });
    }

    /// Scans tokens to the end of the source or, inside a template substitution, to the
    /// `}` that closes it (consumed, not pushed).
    fn scan_until_close(&mut self) {
        let mut braces = 0usize;
        while let Some(c) = self.peek() {
            let start = self.at;
            match c {
                c if c.is_whitespace() => {
                    self.bump();
                }
                '/' if self.peek_second() == Some('/') => self.skip_line(),
                '/' if self.peek_second() == Some('*') => self.skip_block_comment(),
                '/' if self.regex_allowed() => {
                    self.skip_regex();
                    self.push(What::Regex, start);
                }
                '"' | '\'' => {
                    let what = self.string(c);
                    self.push(what, start);
                }
                '`' => {
                    let what = self.template();
                    self.push(what, start);
                }
                c if c.is_ascii_digit()
                    || (c == '.' && self.peek_second().is_some_and(|d| d.is_ascii_digit())) =>
                {
                    self.number();
                    let text = self.slice(start).to_owned();
                    self.push(What::Number(text), start);
                }
                c if is_ident_start(c) => {
                    while self.peek().is_some_and(is_ident_part) {
                        self.bump();
                    }
                    let text = self.slice(start).to_owned();
                    self.push(What::Ident(text), start);
                }
                '}' if self.depth > 0 && braces == 0 => {
                    self.bump();
                    return;
                }
                _ => {
                    let punct = self.punct();
                    match punct {
                        Some(punct) => {
                            if punct == "{" {
                                braces += 1;
                            } else if punct == "}" {
                                braces = braces.saturating_sub(1);
                            }
                            self.push(What::Punct(punct), start);
                        }
                        None => {
                            self.bump();
                            self.push(What::Other, start);
                        }
                    }
                }
            }
        }
    }

    fn slice(&self, start: usize) -> &str {
        self.source.get(start..self.at).unwrap_or_default()
    }

    fn skip_line(&mut self) {
        while let Some(c) = self.bump() {
            if c == '\n' {
                break;
            }
        }
    }

    fn skip_block_comment(&mut self) {
        self.at += 2;
        while let Some(c) = self.bump() {
            if c == '*' && self.peek() == Some('/') {
                self.bump();
                break;
            }
        }
    }

    /// Whether a `/` here begins a regular expression rather than a division: after an
    /// operator, an opening bracket, a keyword or nothing.
    fn regex_allowed(&self) -> bool {
        match self.tokens.last().map(|token| &token.what) {
            None => true,
            Some(What::Punct(punct)) => !matches!(*punct, ")" | "]" | "}"),
            Some(What::Ident(word)) => matches!(
                word.as_str(),
                "return"
                    | "typeof"
                    | "instanceof"
                    | "in"
                    | "of"
                    | "new"
                    | "delete"
                    | "void"
                    | "throw"
                    | "case"
                    | "do"
                    | "else"
                    | "await"
                    | "yield"
            ),
            Some(_) => false,
        }
    }

    fn skip_regex(&mut self) {
        self.bump();
        let mut in_class = false;
        while let Some(c) = self.peek() {
            match c {
                '\n' => break,
                '\\' => {
                    self.bump();
                    if self.peek().is_some_and(|c| c != '\n') {
                        self.bump();
                    }
                    continue;
                }
                '[' => in_class = true,
                ']' => in_class = false,
                '/' if !in_class => {
                    self.bump();
                    while self.peek().is_some_and(is_ident_part) {
                        self.bump();
                    }
                    return;
                }
                _ => {}
            }
            self.bump();
        }
    }

    fn number(&mut self) {
        while let Some(c) = self.peek() {
            let exponent_sign = (c == '+' || c == '-')
                && self
                    .source
                    .get(..self.at)
                    .is_some_and(|before| before.ends_with(['e', 'E']))
                && !self.number_is_hex();
            if c.is_ascii_alphanumeric() || c == '_' || c == '.' || exponent_sign {
                self.bump();
            } else {
                break;
            }
        }
    }

    /// Whether the number being scanned is hexadecimal (its `e` is a digit there).
    fn number_is_hex(&self) -> bool {
        let before = self.source.get(..self.at).unwrap_or_default();
        let start = before
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
            .map_or(0, |i| i + 1);
        before
            .get(start..)
            .is_some_and(|text| text.starts_with("0x") || text.starts_with("0X"))
    }

    /// A quoted string, its escapes decoded; unterminated (at a line end or the end of
    /// the source) it is no literal.
    fn string(&mut self, quote: char) -> What {
        self.bump();
        let mut text = String::new();
        while let Some(c) = self.bump() {
            match c {
                c if c == quote => return What::Text(text),
                '\n' => return What::Computed,
                '\\' => self.escape(&mut text),
                c => text.push(c),
            }
        }
        What::Computed
    }

    /// A template literal: its text when it has no substitution.
    fn template(&mut self) -> What {
        self.bump();
        let mut text = String::new();
        let mut substituted = false;
        while let Some(c) = self.bump() {
            match c {
                '`' => {
                    return if substituted {
                        What::Computed
                    } else {
                        What::Text(text)
                    };
                }
                '\\' => self.escape(&mut text),
                '$' if self.peek() == Some('{') => {
                    self.bump();
                    substituted = true;
                    self.substitution();
                }
                c => text.push(c),
            }
        }
        What::Computed
    }

    /// The expression of a `${…}`: scanned (its strings, comments and nested templates
    /// may hold braces and backticks) and dropped.
    fn substitution(&mut self) {
        if self.depth >= DEPTH_MAX {
            // Too deep to follow: the rest of the source is this template's.
            self.at = self.source.len();
            return;
        }
        let mut inner = Scanner {
            source: self.source,
            at: self.at,
            depth: self.depth + 1,
            tokens: Vec::new(),
        };
        inner.scan_until_close();
        self.at = inner.at;
    }

    /// An escape after `\`, decoded into `text`.
    fn escape(&mut self, text: &mut String) {
        let Some(c) = self.bump() else { return };
        match c {
            'n' => text.push('\n'),
            't' => text.push('\t'),
            'r' => text.push('\r'),
            'b' => text.push('\u{8}'),
            'f' => text.push('\u{c}'),
            'v' => text.push('\u{b}'),
            '0' if !self.peek().is_some_and(|d| d.is_ascii_digit()) => text.push('\0'),
            '\r' => {
                if self.peek() == Some('\n') {
                    self.bump();
                }
            }
            '\n' | '\u{2028}' | '\u{2029}' => {}
            'x' => self.hex_escape(text, 2),
            'u' if self.peek() == Some('{') => {
                self.bump();
                let start = self.at;
                while self.peek().is_some_and(|d| d.is_ascii_hexdigit()) {
                    self.bump();
                }
                let digits = self.slice(start).to_owned();
                if self.peek() == Some('}') {
                    self.bump();
                }
                push_code(text, &digits);
            }
            'u' => self.hex_escape(text, 4),
            c => text.push(c),
        }
    }

    fn hex_escape(&mut self, text: &mut String, len: usize) {
        let start = self.at;
        for _ in 0..len {
            if self.peek().is_some_and(|d| d.is_ascii_hexdigit()) {
                self.bump();
            }
        }
        let digits = self.slice(start).to_owned();
        push_code(text, &digits);
    }

    /// The punctuator here, longest first, consumed.
    fn punct(&mut self) -> Option<&'static str> {
        const PUNCTS: &[&str] = &[
            "...", "?.", "=>", "(", ")", "[", "]", "{", "}", ",", ":", ";", ".", "=", "+", "-",
            "*", "%", "<", ">", "!", "?", "&", "|", "^", "~", "/", "@", "#",
        ];
        let rest = self.source.get(self.at..)?;
        let punct = PUNCTS.iter().copied().find(|punct| {
            // `?.` followed by a digit is `?` then a number.
            rest.starts_with(punct)
                && !(*punct == "?."
                    && rest
                        .get(2..)
                        .is_some_and(|after| after.starts_with(|c: char| c.is_ascii_digit())))
        })?;
        self.at += punct.len();
        Some(punct)
    }
}

/// Pushes the character of a hexadecimal code (U+FFFD when it is none).
fn push_code(text: &mut String, digits: &str) {
    let c = u32::from_str_radix(digits, 16)
        .ok()
        .and_then(char::from_u32)
        .unwrap_or(char::REPLACEMENT_CHARACTER);
    text.push(c);
}

fn is_ident_start(c: char) -> bool {
    c == '_' || c == '$' || c.is_alphabetic()
}

fn is_ident_part(c: char) -> bool {
    c == '_' || c == '$' || c.is_alphanumeric() || c == '\u{200c}' || c == '\u{200d}'
}
