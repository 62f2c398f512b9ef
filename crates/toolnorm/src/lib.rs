//! toolnorm: one canonical lifecycle for the tool calls of AI coding agents.
#![deny(missing_docs)]
