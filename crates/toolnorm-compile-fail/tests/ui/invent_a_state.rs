use toolnorm::{CallState, ToolState};

struct Paused;

impl CallState for Paused {
    type Data = ();
    const STATE: ToolState = ToolState::Running;
}

fn main() {}
