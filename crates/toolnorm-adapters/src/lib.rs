//! Provider adapters: the tool events of agent CLIs into toolnorm's canonical lifecycle.
//!
//! A [`Normalizer`] reads one stream: it detects the [`Dialect`] from the first lines
//! (unless told; a dialect that claims a line is taken only once it understands one of
//! the first lines, so a file of an agent toolnorm does not read is of no known dialect,
//! see [`Normalizer::rejected`]), has that provider's [`Adapter`] read each line into facts about tool
//! calls, turns the facts into canonical [`ToolEvent`](toolnorm::ToolEvent)s, folds them
//! into parts, and reports each change and each [`Diagnostic`] as a [`Step`]. A
//! [`Writer`] writes the steps in one of the command line's [`Format`]s; an
//! [`AcpEmitter`] turns parts into ACP frames, an [`AiSdkEmitter`] into AI SDK UI message
//! stream chunks, an [`AgUiEmitter`] into AG-UI events.
//!
//! ```
//! use toolnorm_adapters::{Format, Normalizer, Writer};
//!
//! let stream = concat!(
//!     r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}]}}"#, "\n",
//!     r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"a.txt"}]}}"#, "\n",
//! );
//! let mut normalizer = Normalizer::builder().evict_finished(true).build();
//! let mut writer = Writer::new(Format::Parts, Vec::new());
//! let mut on_step = |step: toolnorm_adapters::Step<'_>| writer.step(&step).unwrap();
//! normalizer.push(stream.as_bytes(), &mut on_step);
//! normalizer.finish(&mut on_step);
//! writer.finish(normalizer.fold()).unwrap();
//! let parts = String::from_utf8(writer.into_inner()).unwrap();
//! assert!(parts.starts_with(r#"{"id":"toolu_1","name":"Bash","kind":"bash","title":"ls""#));
//! ```
//!
//! The crate is laid out by role, and its modules depend on each other in one direction
//! (`pipeline` → `dialects` → `track` → `rules`, each reading the ones below it;
//! `emit` reads `pipeline`'s steps; a test, `layers`, checks the arrows):
//!
//! | module | role |
//! | --- | --- |
//! | `driver` | the [`Driver`]: the loop every host runs over a stream, into a [`Sink`] |
//! | `pipeline` | the [`Normalizer`]: lines, detection, the fold, steps, the audit copy |
//! | `read_options` | the reading options of `toolnorm normalize` into a [`NormalizerBuilder`], for the command and the bindings |
//! | `emit` | the output formats (one module and one table row each) and their emitters: ACP, the AI SDK UI message stream, AG-UI |
//! | `dialects` | one folder per dialect (its reader, its claims, its rules file) and the table that lists them |
//! | `adapter` | the [`Adapter`] trait a dialect's reader implements |
//! | `track` | the tracker: facts into canonical events, the same for every provider |
//! | `rules` | kind and title rules (TOML), the fallbacks, MCP names |
//! | `read` | reading JSON lines, partial JSON, and the top-level keys of a line |
//! | `acp` | the ACP vocabulary the emitter and the ACP reader share |
//! | `dialect` | [`Dialect`], the name of what a stream speaks |
//!
//! Each dialect folder is a cargo feature, named as the folder with `-` for `_` (the
//! folder `claude_code` is the feature `claude-code`); `all-dialects`, the default, turns
//! them all on, and [`Dialect::feature`] names the one a dialect needs. Without a
//! dialect's feature, its folder, its [`Dialect`] constants and its row of the table are
//! not compiled, nor its generated wire types in `toolnorm-wire`. The event log
//! ([`Dialect::EVENTS`]) is always read; the ACP emitter is always there.
//!
//! The book tells the rest: [the command](https://github.com/toolnorm/toolnorm/blob/main/docs/src/user-guide/command.md) and its reading
//! options, the [output formats](https://github.com/toolnorm/toolnorm/blob/main/docs/src/formats/README.md), the
//! [rules files](https://github.com/toolnorm/toolnorm/blob/main/docs/src/user-guide/providers.md), and for contributors
//! [adding a dialect](https://github.com/toolnorm/toolnorm/blob/main/docs/src/contributor/adding-a-dialect.md) and
//! [adding a format](https://github.com/toolnorm/toolnorm/blob/main/docs/src/contributor/adding-a-format.md).
#![deny(missing_docs)]
// Input data never panics the library: no unwrap, expect, panic or unchecked indexing.
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
// Helpers several dialects share go unused when only some dialects are compiled; the
// default build (`all-dialects`) is linted in full.
#![cfg_attr(not(feature = "all-dialects"), allow(dead_code, unused_imports))]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod acp;
mod adapter;
mod diagnostic;
mod dialect;
mod dialects;
mod driver;
mod emit;
mod error;
mod pipeline;
mod read;
mod read_options;
mod redact;
mod rules;
mod store;
mod track;

pub use acp::{META_KEY, OutputChunk, ToolnormMeta, Truncated, Truncation};
pub use adapter::Adapter;
pub use diagnostic::{Diagnostic, DiagnosticKind, Severity, unrecognized_input};
pub use dialect::Dialect;
pub use dialects::{detect_line, recordings};
pub use driver::{Driver, HEAD, HELD, Sink, StreamEnd};
pub use emit::{
    AcpEmitter, AcpOptions, AgUiEmitter, AiSdkEmitter, Format, FormatSpec, FormatWriter, StepOut,
    UI_META_KEY, UiMeta, Writer, WriterOptions, first_line, format_names, human_duration,
};
#[cfg(feature = "otel")]
pub use emit::{OtelEmitter, OtelOptions, otel_attr, otel_spans};
pub use error::Error;
/// The OTLP types (`opentelemetry-proto`) the `otel` format's spans are made of.
#[cfg(feature = "otel")]
pub use opentelemetry_proto as otlp;
pub use pipeline::{DETECTION_WINDOW, Normalizer, NormalizerBuilder, Stats, Step};
pub use read::log_line::{LogLines, is_log_line};
pub use read_options::{ReadOptions, Reading, Toml};
pub use redact::Redactor;
pub use rules::{TitleRules, ToolRef};
pub use store::Store;
pub use track::{Ending, Facts, Sighting};

/// The README's Rust examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct ReadmeExamples;

/// The Rust examples of the book's page on the core library, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/src/user-guide/core-library.md")]
struct BookCoreLibraryExamples;

/// The Rust examples of the book's page on providers and rules, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/src/user-guide/providers.md")]
struct BookProvidersExamples;

/// The Rust examples of the book's page on ACP, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/src/formats/acp.md")]
struct BookAcpExamples;
