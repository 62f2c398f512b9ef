//! The table of output formats: one row per format, declaring what the hosts need to
//! know about it (its name, whether it needs the event log, takes a session id, has a
//! server-sent-events form) and how its [`FormatWriter`] is made. [`Format`] is a handle
//! into this table; the command line, the bindings and [`Writer`](super::Writer) read it.

use super::writer::{FormatWriter, WriterOptions};

/// One row of the format table.
#[derive(Debug)]
pub struct FormatSpec {
    /// The name used on the command line, e.g. `parts`.
    pub name: &'static str,
    /// A line's worth of help about the format.
    pub summary: &'static str,
    /// Whether the format needs each applied event (costs a copy per event).
    pub needs_events: bool,
    /// Whether the format writes a session id (`--session-id`).
    pub takes_session_id: bool,
    /// Whether the format can be framed as server-sent events (`--sse`).
    pub sse: bool,
    /// The last server-sent event of a framed stream (`[DONE]` for the AI SDK), written
    /// once after everything else.
    pub sse_terminator: Option<&'static str>,
    /// Whether the format is text for people rather than JSON lines: it may be coloured,
    /// ends with the line counts, and heads each file's output when many are read.
    pub for_people: bool,
    /// Makes the writer of the format.
    pub make: fn(&WriterOptions) -> Box<dyn FormatWriter>,
}

/// Every format, in the order the command line lists them. A new format is a file in
/// `emit/` with its [`FormatSpec`] and one row here.
const FORMATS: &[&FormatSpec] = &[
    &super::parts::FORMAT,
    &super::updates::FORMAT,
    &super::events::FORMAT,
    &super::pretty::FORMAT,
    &super::acp::FORMAT,
    &super::ai_sdk::FORMAT,
    &super::ag_ui::FORMAT,
    #[cfg(feature = "otel")]
    &super::otel::FORMAT,
];

/// An output format: a row of the format table.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Format(u8);

/// [`Format::ALL`]'s array, one handle per row. (Evaluated at compile time: an index out
/// of bounds would fail the build, not panic.)
#[allow(clippy::indexing_slicing)]
const ALL: [Format; FORMATS.len()] = {
    let mut all = [Format(0); FORMATS.len()];
    let mut at = 0;
    while at < FORMATS.len() {
        all[at] = Format(at as u8);
        at += 1;
    }
    all
};

#[allow(non_upper_case_globals)]
impl Format {
    /// One part per call, when it is terminal (the default).
    pub const Parts: Format = Format(0);
    /// One part snapshot per change.
    pub const Updates: Format = Format(1);
    /// The canonical event log.
    pub const Events: Format = Format(2);
    /// The calls for people, as a tree by parent.
    pub const Pretty: Format = Format(3);
    /// ACP `session/update` tool frames.
    pub const Acp: Format = Format(4);
    /// AI SDK UI message stream chunks.
    pub const AiSdk: Format = Format(5);
    /// AG-UI events.
    pub const AgUi: Format = Format(6);
    /// OpenTelemetry spans, OTLP/JSON.
    #[cfg(feature = "otel")]
    pub const Otel: Format = Format(7);

    /// Every format, in the table's order.
    pub const ALL: &[Format] = &ALL;

    /// Every format, in the table's order.
    pub fn all() -> impl Iterator<Item = Format> {
        ALL.into_iter()
    }

    /// The format's row of the table.
    pub fn spec(self) -> &'static FormatSpec {
        FORMATS
            .get(usize::from(self.0))
            .copied()
            .unwrap_or(&super::parts::FORMAT)
    }

    /// The name used on the command line, e.g. `parts`.
    pub fn as_str(self) -> &'static str {
        self.spec().name
    }

    /// The format with this command-line name.
    pub fn from_name(name: &str) -> Option<Format> {
        Format::all().find(|format| format.as_str() == name)
    }

    /// A line's worth of help about the format.
    pub fn summary(self) -> &'static str {
        self.spec().summary
    }

    /// Whether the format needs each applied event (costs a copy per event).
    pub fn needs_events(self) -> bool {
        self.spec().needs_events
    }

    /// Whether the format can be framed as server-sent events (`ai-sdk`, `ag-ui`).
    pub fn streams_to_ui(self) -> bool {
        self.spec().sse
    }

    /// Whether the format writes a session id (`acp`, `ai-sdk`, `ag-ui`).
    pub fn takes_session_id(self) -> bool {
        self.spec().takes_session_id
    }

    /// The last server-sent event of the format's framed stream, if it has one.
    pub fn sse_terminator(self) -> Option<&'static str> {
        self.spec().sse_terminator
    }

    /// Whether the format is text for people (`pretty`).
    pub fn for_people(self) -> bool {
        self.spec().for_people
    }
}

impl Default for Format {
    fn default() -> Self {
        Format::Parts
    }
}

impl std::fmt::Debug for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Format({})", self.as_str())
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The names of the formats that `declare`, for messages: `acp, ai-sdk and ag-ui`, each
/// name after `prefix`.
pub fn format_names(prefix: &str, declare: impl Fn(&FormatSpec) -> bool) -> String {
    let names: Vec<String> = Format::all()
        .filter(|format| declare(format.spec()))
        .map(|format| format!("{prefix}{format}"))
        .collect();
    match names.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_constants_name_their_rows() {
        let named = [
            (Format::Parts, "parts"),
            (Format::Updates, "updates"),
            (Format::Events, "events"),
            (Format::Pretty, "pretty"),
            (Format::Acp, "acp"),
            (Format::AiSdk, "ai-sdk"),
            (Format::AgUi, "ag-ui"),
            #[cfg(feature = "otel")]
            (Format::Otel, "otel"),
        ];
        for (format, name) in named {
            assert_eq!(format.as_str(), name);
            assert_eq!(Format::from_name(name), Some(format));
        }
        assert_eq!(Format::all().count(), FORMATS.len());
    }

    #[test]
    fn names_are_listed_as_people_write_them() {
        assert_eq!(
            format_names("", |spec| spec.takes_session_id),
            if cfg!(feature = "otel") {
                "acp, ai-sdk, ag-ui and otel"
            } else {
                "acp, ai-sdk and ag-ui"
            }
        );
        assert_eq!(
            format_names("--format ", |spec| spec.sse),
            "--format ai-sdk and --format ag-ui"
        );
        assert_eq!(format_names("", |spec| spec.for_people), "pretty");
    }
}
