//! English for titles: a `verb_object` tool name as action text.

/// Turns a `verb_object` tool name into action text: `create_issue` → `Creating issue`,
/// `getWeather` → `Getting weather`. `None` for a name with no word.
pub fn action_text(tool: &str) -> Option<String> {
    let words = split_words(tool);
    let (verb, object) = words.split_first()?;
    let mut title = capitalize(&gerund(verb));
    for word in object {
        title.push(' ');
        title.push_str(word);
    }
    Some(title)
}

fn split_words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    for chunk in name.split(['_', '-', '.', ' ']) {
        let mut word = String::new();
        let mut previous_lower = false;
        for c in chunk.chars() {
            if c.is_uppercase() && previous_lower && !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            previous_lower = c.is_lowercase() || c.is_ascii_digit();
            word.extend(c.to_lowercase());
        }
        if !word.is_empty() {
            words.push(word);
        }
    }
    words
}

fn capitalize(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// The -ing form of an English verb, by the usual spelling rules and a few exceptions.
fn gerund(verb: &str) -> String {
    const IRREGULAR: &[(&str, &str)] = &[
        ("be", "being"),
        ("see", "seeing"),
        ("lie", "lying"),
        ("die", "dying"),
        ("tie", "tying"),
        ("ls", "listing"),
        ("rm", "removing"),
        ("mv", "moving"),
        ("cp", "copying"),
        ("mkdir", "making directory"),
        ("cd", "changing directory"),
    ];
    if let Some((_, form)) = IRREGULAR.iter().find(|(base, _)| *base == verb) {
        return (*form).to_owned();
    }
    if verb.ends_with("ing") && verb.len() > 4 {
        return verb.to_owned();
    }
    let chars: Vec<char> = verb.chars().collect();
    let vowel = |c: char| "aeiou".contains(c);
    match chars.as_slice() {
        [.., a, 'e'] if !vowel(*a) && *a != 'e' => format!("{}ing", &verb[..verb.len() - 1]),
        // Short consonant-vowel-consonant verbs double the last consonant: get → getting.
        [c1, v, c2] if !vowel(*c1) && vowel(*v) && !vowel(*c2) && !"wxy".contains(*c2) => {
            format!("{verb}{c2}ing")
        }
        _ => format!("{verb}ing"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generic_action_text() {
        assert_eq!(
            action_text("create_issue").as_deref(),
            Some("Creating issue")
        );
        assert_eq!(
            action_text("getWeather").as_deref(),
            Some("Getting weather")
        );
        assert_eq!(
            action_text("list_pull_requests").as_deref(),
            Some("Listing pull requests")
        );
        assert_eq!(action_text("write").as_deref(), Some("Writing"));
        assert_eq!(action_text("run-tests").as_deref(), Some("Running tests"));
        assert_eq!(action_text("search").as_deref(), Some("Searching"));
        assert_eq!(action_text("echo").as_deref(), Some("Echoing"));
        assert_eq!(action_text("__"), None);
    }
}
