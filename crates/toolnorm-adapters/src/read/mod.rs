//! Reading wire data: JSON lines with diagnostics that say what is wrong, and tool input
//! that is still streaming (partial JSON), and the probe that tells dialects apart.

pub mod json;
pub mod partial_json;
pub mod probe;
