//! `toolnorm-mock-mcp`: a stdio MCP server with the tools `echo` and `divide`.

fn main() -> std::process::ExitCode {
    match toolnorm_recorder::mcp::serve_stdio() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("toolnorm-mock-mcp: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
