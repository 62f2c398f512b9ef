// @toolnorm/node: toolnorm's normalizer in Node.js. The native addon (crates/toolnorm-node,
// built by `npm run build` or shipped prebuilt per platform) writes the parts as JSON text,
// as `toolnorm normalize` does (a whole stream's in batches, read on a thread of its own
// while the last is parsed); this module loads it and parses that text.
import { Buffer } from "node:buffer";
import { createRequire } from "node:module";

import { platformName } from "./platform.js";

const require = createRequire(import.meta.url);

/** The addon: built here (`npm run build`), else the prebuilt package of this platform. */
function loadNative() {
  const name = platformName();
  for (const candidate of [`./toolnorm.${name}.node`, `@toolnorm/node-${name}`]) {
    try {
      return require(candidate);
    } catch (error) {
      if (error?.code !== "MODULE_NOT_FOUND") throw error;
    }
  }
  throw new Error(
    `@toolnorm/node: no native addon for ${name}: build it from source with \`npm run build\` ` +
      `(needs cargo), or install the package @toolnorm/node-${name}`,
  );
}

const native = loadNative();

const OPTIONS = new Set([
  "provider",
  "rules",
  "outputCap",
  "mcpServers",
  "cwd",
  "redact",
  "redactPatterns",
  "redactPattern",
  "format",
  "otelContent",
]);

/** The options, refused when one is unknown (a typo would otherwise be ignored). */
function checkOptions(options) {
  if (options === undefined || options === null) return undefined;
  if (typeof options !== "object") throw new TypeError("options: expected an object");
  for (const key of Object.keys(options)) {
    if (!OPTIONS.has(key)) {
      throw new TypeError(`options: unknown option \`${key}\` (known: ${[...OPTIONS].join(", ")})`);
    }
  }
  return options;
}

/** A string or a Buffer, as the addon takes them (a Uint8Array is viewed, not copied). */
function input(data, what) {
  if (typeof data === "string" || Buffer.isBuffer(data)) return data;
  if (data instanceof Uint8Array) return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  throw new TypeError(`${what}: expected a string, a Buffer or a Uint8Array`);
}

const diagnostic = ({ line, kind, severity, message, text }) => ({
  line: line ?? null,
  kind,
  severity,
  message,
  text,
});

/**
 * Normalizes a whole stream: the parts of `toolnorm normalize --format parts` (or, with
 * `format`, the lines of that format, as `lines`). The addon reads it on a thread of its
 * own and hands the lines over in batches, each parsed here while the next is read.
 */
export function normalize(data, options) {
  const run = native.startNormalize(input(data, "data"), checkOptions(options));
  const lines = options?.format === undefined || options.format === "parts" ? "parts" : "lines";
  const parts = [];
  let result;
  try {
    for (let batch = run.nextBatch(); batch != null; batch = run.nextBatch()) {
      for (const part of JSON.parse(batch)) parts.push(part);
    }
  } finally {
    // Also when parsing threw: the reading stops and its thread ends.
    result = run.end();
  }
  return {
    [lines]: parts,
    diagnostics: result.diagnostics.map(diagnostic),
    stats: result.stats,
    dialect: result.dialect ?? null,
  };
}

/** A stream normalized as it comes: `push` each chunk, then `finish`. */
export class Normalizer {
  #native;
  /** A string chunk's last UTF-16 unit when it opens a surrogate pair: sent with the next. */
  #highSurrogate = "";

  constructor(options) {
    this.#native = new native.NativeNormalizer(checkOptions(options));
  }

  /** Feeds a chunk, cut anywhere; the part snapshots and diagnostics of the lines it completed. */
  push(chunk) {
    let data = input(chunk, "chunk");
    if (typeof data === "string") {
      data = this.#highSurrogate + data;
      this.#highSurrogate = "";
      const last = data.charCodeAt(data.length - 1);
      if (last >= 0xd800 && last <= 0xdbff) {
        this.#highSurrogate = data.slice(-1);
        data = data.slice(0, -1);
      }
    }
    return updates(this.#native.push(data));
  }

  /** Ends the stream; the snapshots and diagnostics of what was left. */
  finish() {
    if (this.#highSurrogate !== "") {
      const held = this.#native.push(this.#highSurrogate);
      this.#highSurrogate = "";
      const rest = updates(this.#native.finish());
      const first = updates(held);
      return {
        updates: [...first.updates, ...rest.updates],
        diagnostics: [...first.diagnostics, ...rest.diagnostics],
      };
    }
    return updates(this.#native.finish());
  }

  /** The dialect, once known (`null` before). */
  get dialect() {
    return this.#native.dialect ?? null;
  }

  /** The counts so far. */
  get stats() {
    return this.#native.stats;
  }
}

const updates = (chunk) => ({
  updates: JSON.parse(chunk.json),
  diagnostics: chunk.diagnostics.map(diagnostic),
});

/** The dialects the addon reads: the values of `provider`, besides `auto`. */
export function dialects() {
  return native.dialects();
}
