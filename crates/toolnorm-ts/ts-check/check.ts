// The exported TypeScript must be identical to the contract's types, in both directions.
// `contract.d.ts` is the contract's TypeScript block, verbatim (a test compares the two);
// as a script without imports, its types are global: NormalizedToolPart, ToolKind, ToolState.

import type {
  Approval,
  ApprovalRequested,
  ApprovalResolved,
  LegacyStateByToolState,
  LegacyToolState as ExportedLegacyToolState,
  NormalizedToolPart as ExportedPart,
  ToolKind as ExportedKind,
  ToolState as ExportedState,
  ToolStateByLegacyState,
  ToolEvent,
} from "../../../generated/ts/toolnorm";

/** True only when A and B are the same type: `unknown` is not `any`, `a?: T` is not `a: T | undefined`. */
type Equals<A, B> =
  (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false;

/** True when each is assignable to the other. */
type Mutual<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

function assert<T extends true>(): T | void {}

assert<Equals<ExportedKind, ToolKind>>();
assert<Equals<ExportedState, ToolState>>();
assert<Equals<ExportedPart, NormalizedToolPart>>();
assert<Mutual<ExportedKind, ToolKind>>();
assert<Mutual<ExportedState, ToolState>>();
assert<Mutual<ExportedPart, NormalizedToolPart>>();

// Field by field, so a failure names the field.
type Fields = keyof NormalizedToolPart;
assert<Equals<keyof ExportedPart, Fields>>();
assert<Equals<ExportedPart["input"], unknown>>();
assert<Equals<ExportedPart["output"], unknown>>();
assert<Equals<ExportedPart["error"], NormalizedToolPart["error"]>>();
assert<Equals<ExportedPart["timing"], NormalizedToolPart["timing"]>>();
assert<Equals<ExportedPart["metadata"], NormalizedToolPart["metadata"]>>();

// The compatibility path covers every state, both ways.
type LegacyName = "calling" | "output-available" | "output-error";
assert<Equals<ExportedLegacyToolState, LegacyName>>();
assert<Equals<keyof LegacyStateByToolState, ToolState>>();
assert<Equals<LegacyStateByToolState[ToolState], LegacyName>>();
assert<Equals<keyof ToolStateByLegacyState, LegacyName>>();
assert<Mutual<ToolStateByLegacyState[LegacyName], "running" | "complete" | "error">>();

// A call's approval (`metadata.approval`): the statuses, deciders and scopes a UI switches on.
assert<Equals<Approval["status"], "pending" | "approved" | "denied" | "cancelled">>();
assert<Equals<Approval["decidedBy"], "user" | "policy" | "reviewer" | undefined>>();
assert<Equals<Approval["scope"], "once" | "session" | "always" | undefined>>();
assert<Equals<ApprovalResolved["decision"], "approved" | "denied" | "cancelled">>();
type Fits<A, B> = [A] extends [B] ? true : false;
assert<Fits<{ approval: Approval }, NonNullable<ExportedPart["metadata"]>>>();
assert<Equals<Extract<ToolEvent, { type: "approvalRequested" }>, { type: "approvalRequested" } & ApprovalRequested>>();
