//! Text helpers of titles: paths relative to the working directory, shell wrappers, hosts.

use std::borrow::Cow;

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
/// they are. Read as `shlex` splits the command; a command whose words need no unquoting
/// to tell (the usual case: a plain program name, or a plain shell and flag and one
/// single-quoted script) is told without splitting it.
pub fn unwrap_shell(command: &str) -> Cow<'_, str> {
    match plain_wrapper(command) {
        Some(Plain::NotWrapped) => Cow::Borrowed(command),
        Some(Plain::Script(script)) => Cow::Borrowed(script),
        None => Cow::Owned(split_wrapper(command)),
    }
}

/// What a command is, told from its plain words.
enum Plain<'a> {
    /// Its first word is a plain program that is not a shell, or its second word a plain
    /// word that is not a script flag: not a wrapper.
    NotWrapped,
    /// A plain shell, a plain flag, then one single-quoted script without quotes inside.
    Script(&'a str),
}

/// [`unwrap_shell`]'s answer without splitting, when `command`'s words tell it as plain
/// text (the whitespace `shlex` splits on, no quote, backslash or comment where a word
/// is read); `None` when it takes `shlex`.
fn plain_wrapper(command: &str) -> Option<Plain<'_>> {
    const SPACE: [char; 3] = [' ', '\t', '\n'];
    // A word `shlex` reads as it is written.
    let plain = |word: &str| !word.starts_with('#') && !word.contains(['\'', '"', '\\']);
    let rest = command.trim_start_matches(SPACE);
    let (shell, rest) = rest.split_once(SPACE).unwrap_or((rest, ""));
    if !plain(shell) || shell.is_empty() {
        return None;
    }
    if !is_shell(shell) {
        return Some(Plain::NotWrapped);
    }
    let rest = rest.trim_start_matches(SPACE);
    let (flag, rest) = rest.split_once(SPACE).unwrap_or((rest, ""));
    if !plain(flag) || flag.is_empty() {
        return None;
    }
    if !is_script_flag(flag) {
        return Some(Plain::NotWrapped);
    }
    let script = rest
        .trim_matches(SPACE)
        .strip_prefix('\'')?
        .strip_suffix('\'')?;
    (!script.contains('\'')).then_some(Plain::Script(script))
}

/// [`unwrap_shell`] by splitting the command into its words as `shlex` does.
fn split_wrapper(command: &str) -> String {
    let Some(words) = shlex::split(command) else {
        return command.to_owned();
    };
    match words.as_slice() {
        [shell, flag, script] if is_shell(shell) && is_script_flag(flag) => script.clone(),
        _ => command.to_owned(),
    }
}

/// Whether a shell's flag makes its next word the script it runs.
fn is_script_flag(flag: &str) -> bool {
    matches!(flag, "-c" | "-lc" | "-ic" | "-lic")
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

    /// Every command of a few words, plain, quoted, spaced or commented: told as
    /// splitting it tells.
    #[test]
    fn a_plain_command_is_told_as_splitting_tells() {
        let words = [
            "bash",
            "/bin/bash",
            "sh",
            "zsh",
            "ls",
            "python",
            "-c",
            "-lc",
            "-ic",
            "-lic",
            "-x",
            "'ls -la'",
            "'a'",
            "''",
            "'it''s'",
            "\"ls\"",
            "'a\nb # c'",
            "#x",
            "a#b",
            "'unterminated",
            "x\\",
            "'a\\b'",
            "\"",
            "'\"'",
        ];
        let spaces = [" ", "  ", "\t", "\n", " \r "];
        let mut checked = 0;
        for first in words {
            for second in words {
                for third in words.iter().chain(&[""]) {
                    for space in spaces {
                        let command = format!("{first}{space}{second}{space}{third}");
                        for command in [
                            command.clone(),
                            format!(" {command} "),
                            format!("{command}\n"),
                        ] {
                            assert_eq!(
                                unwrap_shell(&command),
                                split_wrapper(&command),
                                "{command:?}"
                            );
                            checked += 1;
                        }
                    }
                }
            }
        }
        assert!(checked > 40_000);
    }

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
