// @toolnorm/node: toolnorm's normalizer in Node.js. The parts are the `NormalizedToolPart`
// of @toolnorm/types (generated from the Rust types, generated/ts/toolnorm.ts).
import type { NormalizedToolPart, PartsLine, UpdateLine } from "@toolnorm/types";

export type { NormalizedToolPart };

/** The reading flags of `toolnorm normalize`, camel-cased; `rules` and `redactPatterns` take the files' text. */
export interface NormalizeOptions {
  /** `--provider`: `"auto"` (the default: detected from the first lines) or one of {@link dialects}. */
  provider?: string;
  /** `--rules`: title and kind rules, as TOML text, tried before the built-in ones. */
  rules?: string;
  /** `--output-cap`: the bytes of output a call keeps, partial and final (flagged `outputTruncated`, with `outputTotalBytes`); without it, partial output is kept to 1 MiB and the final output whole. */
  outputCap?: number;
  /** `--mcp-server`: MCP server names, to split OpenCode's `<server>_<tool>` names. */
  mcpServers?: string[];
  /** `--cwd`: the directory the session ran in, for relative paths in titles where the stream names none. */
  cwd?: string;
  /** `--redact`: secrets become `[REDACTED:<kind>]` in the parts and the diagnostics. */
  redact?: boolean;
  /** `--redact-patterns`: more patterns, TOML text of `[[pattern]]` tables with `kind` and `regex`; implies `redact`. */
  redactPatterns?: string;
  /** `--redact-pattern`: more patterns, each `KIND=REGEX`; implies `redact`. */
  redactPattern?: string[];
}

/** The JSON formats of `toolnorm normalize --format` besides `parts`. */
export type LinesFormat = "updates" | "events" | "acp" | "ai-sdk" | "ag-ui" | "otel";

/** The options of {@link normalize} in another format than `parts`. */
export interface FormatOptions extends NormalizeOptions {
  /** `--format`: the lines of this format are given (`otel`: one OTLP/JSON `ExportTraceServiceRequest` per line). */
  format: LinesFormat;
  /** `--otel-content`: with `format: "otel"`, each call's input and output on its span. */
  otelContent?: boolean;
}

/** What kind of problem a diagnostic reports. */
export type DiagnosticKind =
  | "invalid-json"
  | "lone-surrogate"
  | "truncated-line"
  | "unknown-event"
  | "malformed-event"
  | "foreign-dialect"
  | "undetected-dialect"
  | "rejected"
  | "unknown-call"
  | "io";

/** One problem with the input. */
export interface Diagnostic {
  /** The 1-based input line, when it is about one. */
  line: number | null;
  kind: DiagnosticKind;
  /** `error`: a line that could not be used; `notice`: a well-formed event this version does not know. */
  severity: "error" | "notice";
  /** What happened, for people. */
  message: string;
  /** The line `toolnorm normalize` writes on stderr for it: `line N: message` or `line N: notice: message`. */
  text: string;
}

/** Counts of what went through: every line is in one of the four `…Lines` classes. */
export interface Stats {
  lines: number;
  appliedLines: number;
  knownLines: number;
  noticeLines: number;
  errorLines: number;
  events: number;
  changes: number;
  duplicates: number;
  diagnostics: number;
  errors: number;
  notices: number;
}

/** What {@link normalize} gives. */
export interface Normalized {
  /** The parts, as `toolnorm normalize --format parts` writes them: terminal calls as they end, then the open ones. */
  parts: PartsLine[];
  /** The diagnostics, in input order. */
  diagnostics: Diagnostic[];
  stats: Stats;
  /** The dialect read; `null` when no line was an event of a known dialect. */
  dialect: string | null;
}

/** What {@link normalize} gives in another format than `parts`. */
export interface NormalizedLines {
  /** The lines `toolnorm normalize --format <format>` writes, parsed. */
  lines: Record<string, unknown>[];
  /** The diagnostics, in input order. */
  diagnostics: Diagnostic[];
  stats: Stats;
  /** The dialect read; `null` when no line was an event of a known dialect. */
  dialect: string | null;
}

/** What one {@link Normalizer.push} or {@link Normalizer.finish} gives. */
export interface Updates {
  /** A part snapshot per change, as `toolnorm normalize --format updates` writes them. */
  updates: UpdateLine[];
  /** The diagnostics, in input order. */
  diagnostics: Diagnostic[];
}

/** Normalizes a whole stream (JSON Lines of a dialect toolnorm reads) into its parts. */
export function normalize(
  data: string | Uint8Array,
  options?: NormalizeOptions & { format?: "parts"; otelContent?: never },
): Normalized;
/** Normalizes a whole stream into the lines of another JSON format of the command. */
export function normalize(data: string | Uint8Array, options: FormatOptions): NormalizedLines;

/** A stream normalized as it comes: {@link push} each chunk (cut anywhere), then {@link finish}. */
export class Normalizer {
  constructor(options?: NormalizeOptions);
  /** Feeds a chunk; the part snapshots and diagnostics of the lines it completed. */
  push(chunk: string | Uint8Array): Updates;
  /** Ends the stream: a last line without newline, and what the adapter held. */
  finish(): Updates;
  /** The dialect, once known. */
  readonly dialect: string | null;
  /** The counts so far. */
  readonly stats: Stats;
}

/** The dialects the addon reads: the values of `provider`, besides `"auto"`. */
export function dialects(): string[];
