//! The contract's compatibility path: the UI's legacy state names.
//!
//! Until a renderer switches to `started/running/complete/error`, it keeps
//! `calling/output-available/output-error`. Going to the legacy names loses the
//! started/running distinction; coming back, `calling` maps to `running` (the call is
//! in flight, which is what the legacy renderer shows).

use serde::{Deserialize, Serialize};

use crate::part::ToolState;

/// The legacy UI tool state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum LegacyToolState {
    /// In flight: `started` or `running`.
    Calling,
    /// Finished with output: `complete`.
    OutputAvailable,
    /// Finished with an error: `error`.
    OutputError,
}

impl LegacyToolState {
    /// Every legacy state.
    pub const ALL: [LegacyToolState; 3] = [
        LegacyToolState::Calling,
        LegacyToolState::OutputAvailable,
        LegacyToolState::OutputError,
    ];

    /// The wire name, e.g. `"output-available"`.
    pub fn as_str(self) -> &'static str {
        match self {
            LegacyToolState::Calling => "calling",
            LegacyToolState::OutputAvailable => "output-available",
            LegacyToolState::OutputError => "output-error",
        }
    }
}

impl From<ToolState> for LegacyToolState {
    fn from(state: ToolState) -> Self {
        match state {
            ToolState::Started | ToolState::Running => LegacyToolState::Calling,
            ToolState::Complete => LegacyToolState::OutputAvailable,
            ToolState::Error => LegacyToolState::OutputError,
        }
    }
}

impl From<LegacyToolState> for ToolState {
    fn from(state: LegacyToolState) -> Self {
        match state {
            LegacyToolState::Calling => ToolState::Running,
            LegacyToolState::OutputAvailable => ToolState::Complete,
            LegacyToolState::OutputError => ToolState::Error,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legacy_names_on_the_wire() {
        let names: Vec<_> = LegacyToolState::ALL
            .iter()
            .map(|state| serde_json::to_value(state).unwrap())
            .collect();
        assert_eq!(names, ["calling", "output-available", "output-error"]);
        for state in LegacyToolState::ALL {
            assert_eq!(serde_json::to_value(state).unwrap(), state.as_str());
        }
    }

    #[test]
    fn states_map_both_ways() {
        let cases = [
            (
                ToolState::Started,
                LegacyToolState::Calling,
                ToolState::Running,
            ),
            (
                ToolState::Running,
                LegacyToolState::Calling,
                ToolState::Running,
            ),
            (
                ToolState::Complete,
                LegacyToolState::OutputAvailable,
                ToolState::Complete,
            ),
            (
                ToolState::Error,
                LegacyToolState::OutputError,
                ToolState::Error,
            ),
        ];
        for (state, legacy, back) in cases {
            assert_eq!(LegacyToolState::from(state), legacy);
            assert_eq!(ToolState::from(legacy), back);
            assert_eq!(state.is_terminal(), back.is_terminal());
        }
    }
}
