// Runtime helpers a UI needs around toolnorm's parts: type guards, the state-discriminated
// view, the legacy state names, and the fold of `--format updates` lines.

import type {
  LegacyStateByToolState,
  LegacyToolState,
  NormalizedToolPart,
  ToolError,
  ToolKind,
  ToolState,
  ToolStateByLegacyState,
} from "./toolnorm.js";

/** Every state, in lifecycle order. */
export const TOOL_STATES = ["started", "running", "complete", "error"] as const satisfies readonly ToolState[];

/** Every kind, in the contract's order. */
export const TOOL_KINDS = [
  "web_search",
  "browser",
  "file_read",
  "file_write",
  "file_edit",
  "bash",
  "subagent",
  "mcp",
  "question",
  "todo",
  "unknown",
] as const satisfies readonly ToolKind[];

/** Every legacy UI state. */
export const LEGACY_TOOL_STATES = ["calling", "output-available", "output-error"] as const satisfies readonly LegacyToolState[];

/** The part without the fields whose presence the state decides. */
type PartBase = Omit<NormalizedToolPart, "state" | "output" | "error">;

/** A call not yet ended: no output, no error. */
export type OpenToolPart = PartBase & { state: "started" | "running"; output?: never; error?: never };

/** A call that ended well: maybe an output, never an error. */
export type CompleteToolPart = PartBase & { state: "complete"; output?: unknown; error?: never };

/** A call that failed: always an error, never an output. */
export type FailedToolPart = PartBase & { state: "error"; error: ToolError; output?: never };

/**
 * `NormalizedToolPart` discriminated by `state`: `error` is required exactly when the
 * state is `error`, and `output` is absent then (the invariants toolnorm keeps).
 */
export type ToolPart = OpenToolPart | CompleteToolPart | FailedToolPart;

/** A part with its legacy UI state name (the contract's compatibility path). */
export type LegacyToolPart = Omit<NormalizedToolPart, "state"> & { state: LegacyToolState };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const isOptional = (value: unknown, check: (value: unknown) => boolean): boolean =>
  value === undefined || check(value);

const isTimestamp = (value: unknown): boolean => typeof value === "string" || typeof value === "number";

/** Whether `value` is a state name. */
export function isToolState(value: unknown): value is ToolState {
  return (TOOL_STATES as readonly unknown[]).includes(value);
}

/** Whether `value` is a kind name. */
export function isToolKind(value: unknown): value is ToolKind {
  return (TOOL_KINDS as readonly unknown[]).includes(value);
}

/** Whether `value` is a legacy UI state name. */
export function isLegacyToolState(value: unknown): value is LegacyToolState {
  return (LEGACY_TOOL_STATES as readonly unknown[]).includes(value);
}

/** Whether `value` is a tool error: a message, maybe a code and details. */
export function isToolError(value: unknown): value is ToolError {
  return isObject(value) && typeof value.message === "string" && isOptional(value.code, (code) => typeof code === "string");
}

/** Whether `value` has the shape of a `NormalizedToolPart` (as the contract types it). */
export function isNormalizedToolPart(value: unknown): value is NormalizedToolPart {
  if (!isObject(value)) return false;
  const { timing, metadata } = value;
  return (
    typeof value.id === "string" &&
    typeof value.name === "string" &&
    isToolKind(value.kind) &&
    typeof value.title === "string" &&
    "input" in value &&
    isToolState(value.state) &&
    isOptional(value.error, isToolError) &&
    isOptional(
      timing,
      (timing) =>
        isObject(timing) &&
        isOptional(timing.startedAt, isTimestamp) &&
        isOptional(timing.completedAt, isTimestamp) &&
        isOptional(timing.elapsedMs, (ms) => typeof ms === "number"),
    ) &&
    isOptional(metadata, isObject)
  );
}

/**
 * Whether `value` is a part that also keeps the state invariants (output only when
 * complete, error exactly when failed), i.e. a `ToolPart`.
 */
export function isToolPart(value: unknown): value is ToolPart {
  if (!isNormalizedToolPart(value)) return false;
  switch (value.state) {
    case "error":
      return value.error !== undefined && value.output === undefined;
    case "complete":
      return value.error === undefined;
    default:
      return value.error === undefined && value.output === undefined;
  }
}

/** The part as a `ToolPart`, or `undefined` when it breaks the state invariants. */
export function toToolPart(part: NormalizedToolPart): ToolPart | undefined {
  return isToolPart(part) ? part : undefined;
}

/** Whether the call is not yet ended (`started` or `running`). */
export function isOpen(part: ToolPart): part is OpenToolPart;
export function isOpen(part: NormalizedToolPart): boolean;
export function isOpen(part: NormalizedToolPart): boolean {
  return part.state === "started" || part.state === "running";
}

/** Whether the call ended well. */
export function isComplete(part: ToolPart): part is CompleteToolPart;
export function isComplete(part: NormalizedToolPart): part is NormalizedToolPart & { state: "complete" };
export function isComplete(part: NormalizedToolPart): boolean {
  return part.state === "complete";
}

/** Whether the call failed; on a `NormalizedToolPart` also that it carries its error. */
export function isFailed(part: ToolPart): part is FailedToolPart;
export function isFailed(part: NormalizedToolPart): part is NormalizedToolPart & { state: "error"; error: ToolError };
export function isFailed(part: NormalizedToolPart): boolean {
  return part.state === "error" && part.error !== undefined;
}

/** Whether the state is final (`complete` or `error`). */
export function isTerminal(state: ToolState): state is "complete" | "error" {
  return state === "complete" || state === "error";
}

/** The legacy UI state of each state. */
export const LEGACY_STATE_BY_TOOL_STATE = {
  started: "calling",
  running: "calling",
  complete: "output-available",
  error: "output-error",
} as const satisfies LegacyStateByToolState;

/** The state each legacy UI state maps back to (`calling` is taken as `running`). */
export const TOOL_STATE_BY_LEGACY_STATE = {
  calling: "running",
  "output-available": "complete",
  "output-error": "error",
} as const satisfies ToolStateByLegacyState;

/** The legacy UI state name of a state: `calling`, `output-available` or `output-error`. */
export function toLegacyState<S extends ToolState>(state: S): LegacyStateByToolState[S] {
  return LEGACY_STATE_BY_TOOL_STATE[state];
}

/** The state a legacy UI state name maps back to. */
export function fromLegacyState<L extends LegacyToolState>(legacy: L): ToolStateByLegacyState[L] {
  return TOOL_STATE_BY_LEGACY_STATE[legacy];
}

/** The part with its legacy UI state name, every other field as it is. */
export function toLegacyToolPart(part: NormalizedToolPart): LegacyToolPart {
  return { ...part, state: toLegacyState(part.state) };
}

/** Parts by call id, in the order the calls were first seen. */
export type PartsById = ReadonlyMap<string, NormalizedToolPart>;

/**
 * A `--format updates` line as a part: `undefined` for a blank line; an error for a line
 * that is not JSON or not a part.
 */
export function parseUpdateLine(line: string): NormalizedToolPart | undefined {
  if (line.trim() === "") return undefined;
  const value: unknown = JSON.parse(line);
  if (!isNormalizedToolPart(value)) {
    throw new TypeError(`not a toolnorm part: ${line.slice(0, 200)}`);
  }
  return value;
}

/**
 * The reducer of `--format updates`: the parts with `update` (a whole snapshot) in place
 * of its call's earlier one. Returns a new map (first-seen order kept) and leaves `parts`
 * as it was, as a React reducer wants.
 */
export function reduceUpdate(parts: PartsById, update: NormalizedToolPart): Map<string, NormalizedToolPart> {
  const next = new Map(parts);
  next.set(update.id, update);
  return next;
}

/** Folds `--format updates` output (lines, or parts) into the parts by id. */
export function foldUpdates(lines: Iterable<string | NormalizedToolPart>): Map<string, NormalizedToolPart> {
  const parts = new Map<string, NormalizedToolPart>();
  for (const line of lines) {
    const part = typeof line === "string" ? parseUpdateLine(line) : line;
    if (part !== undefined) parts.set(part.id, part);
  }
  return parts;
}
