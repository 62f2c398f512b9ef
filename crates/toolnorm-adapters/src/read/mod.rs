//! Reading wire data: JSON lines with diagnostics that say what is wrong, and tool input
//! that is still streaming (partial JSON).

pub mod json;
pub mod partial_json;
