// @toolnorm/types: the types of everything `toolnorm normalize` writes, and the helpers a
// UI needs around its tool parts.

export type * from "./toolnorm.js";
export type * from "./wire.js";
export * from "./parts.js";
