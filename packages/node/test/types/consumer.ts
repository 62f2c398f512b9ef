// Compiled with tsc --strict (npm test): the package's declarations give the parts as the
// NormalizedToolPart of @toolnorm/types, and refuse what the functions refuse.
import type { NormalizedToolPart, ToolPart } from "@toolnorm/types";
import { toToolPart } from "@toolnorm/types";

import {
  Normalizer,
  dialects,
  normalize,
  type Diagnostic,
  type NormalizeOptions,
  type Normalized,
  type NormalizedLines,
  type Stats,
  type Updates,
} from "../../index.js";

const options: NormalizeOptions = {
  provider: "claude-code",
  rules: '[[rule]]\ntool = "Bash"\ntitle = "{command|line}"\n',
  outputCap: 1 << 20,
  mcpServers: ["toolbox"],
  cwd: "/workspace",
  redact: true,
  redactPatterns: '[[pattern]]\nkind = "ticket"\nregex = "TICKET-[0-9]+"\n',
  redactPattern: ["ticket=TICKET-[0-9]+"],
};

const result: Normalized = normalize(new Uint8Array(), options);
const parts: NormalizedToolPart[] = result.parts;
const view: (ToolPart | undefined)[] = parts.map(toToolPart);
const lines: (number | null)[] = result.diagnostics.map((d: Diagnostic) => d.line);
const severity: "error" | "notice" | undefined = result.diagnostics[0]?.severity;
const dialect: string | null = result.dialect;
const counted: number = result.stats.appliedLines;

const normalizer = new Normalizer({ provider: "auto" });
const chunk: Updates = normalizer.push("{}\n");
const snapshot: NormalizedToolPart | undefined = chunk.updates[0];
const rest: Updates = normalizer.finish();
const stats: Stats = normalizer.stats;
const names: string[] = dialects();

const spans: NormalizedLines = normalize("", { format: "otel", otelContent: true });
const firstLine: Record<string, unknown> | undefined = spans.lines[0];
// @ts-expect-error: otelContent is for another format than parts
normalize("", { otelContent: true });
// @ts-expect-error: a format for people is not a format of normalize
normalize("", { format: "pretty" });

// @ts-expect-error: an unknown option
normalize("", { output_cap: 1 });
// @ts-expect-error: the input is text or bytes
normalize(42);
// @ts-expect-error: a state the contract does not have
const state: "done" = parts[0]!.state;
// @ts-expect-error: read-only
normalizer.dialect = "codex-exec";

export { firstLine, view, lines, severity, dialect, counted, snapshot, rest, stats, names, state };
