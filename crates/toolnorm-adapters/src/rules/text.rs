//! Text helpers of titles: paths relative to the working directory, shell wrappers, hosts.

/// `path` relative to `cwd` when it lies inside it; otherwise `path` as it is.
pub fn relative_to<'p>(path: &'p str, cwd: Option<&str>) -> &'p str {
    let Some(cwd) = cwd
        .map(|cwd| cwd.trim_end_matches('/'))
        .filter(|cwd| !cwd.is_empty())
    else {
        return path;
    };
    match path.strip_prefix(cwd) {
        Some("") => ".",
        Some(rest) if rest.starts_with('/') => &rest[1..],
        _ => path,
    }
}

/// The script of a shell wrapper (`/bin/bash -lc "ls -la"` → `ls -la`); other commands as
/// they are.
pub fn unwrap_shell(command: &str) -> String {
    let Some(words) = shlex::split(command) else {
        return command.to_owned();
    };
    match words.as_slice() {
        [shell, flag, script]
            if is_shell(shell) && matches!(flag.as_str(), "-c" | "-lc" | "-ic" | "-lic") =>
        {
            script.clone()
        }
        _ => command.to_owned(),
    }
}

fn is_shell(program: &str) -> bool {
    let name = program.rsplit('/').next().unwrap_or(program);
    matches!(name, "bash" | "sh" | "zsh" | "dash" | "fish")
}

/// The host of a URL (`https://apnews.com/x` → `apnews.com`), `www.` dropped; a bare
/// host is returned as it is.
pub fn host_of(text: &str) -> Option<&str> {
    let after_scheme = text.split_once("://").map_or(text, |(_, rest)| rest);
    let authority = after_scheme.split(['/', '?', '#']).next()?;
    let host = authority.rsplit('@').next()?;
    let host = match host.rsplit_once(':') {
        Some((name, port)) if port.chars().all(|c| c.is_ascii_digit()) => name,
        _ => host,
    };
    let host = host.strip_prefix("www.").unwrap_or(host);
    (!host.is_empty()).then_some(host)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_wrappers_are_unwrapped() {
        assert_eq!(
            unwrap_shell("/bin/bash -lc \"echo hi; exit 3\""),
            "echo hi; exit 3"
        );
        assert_eq!(unwrap_shell("bash -c 'rm notes.txt'"), "rm notes.txt");
        assert_eq!(unwrap_shell("ls -la"), "ls -la");
        assert_eq!(unwrap_shell("python -c 'print(1)'"), "python -c 'print(1)'");
        assert_eq!(
            unwrap_shell("bash -lc \"unterminated"),
            "bash -lc \"unterminated"
        );
    }

    #[test]
    fn hosts() {
        assert_eq!(host_of("https://apnews.com"), Some("apnews.com"));
        assert_eq!(
            host_of("http://user@www.example.org:8080/x"),
            Some("example.org")
        );
        assert_eq!(host_of("apnews.com/politics"), Some("apnews.com"));
        assert_eq!(host_of(""), None);
    }
}
