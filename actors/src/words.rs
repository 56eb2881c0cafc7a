//! Small helpers for the texts lookout writes to agents: shortening with an ellipsis and
//! counting nouns right ("1 step", "3 steps"). Every module that writes a text uses these
//! instead of its own.

/// `text` cut to at most `max` characters (not bytes), with an ellipsis when cut.
pub fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let cut: String = text.chars().take(max.saturating_sub(1)).collect();
    format!("{}…", cut.trim_end())
}

/// "1 step", "2 steps", "0 steps": the noun in the number's form. `plural` is the noun's
/// plural when it is not the singular with an `s` ("1 match", "2 matches").
pub fn count(number: impl Into<u64>, singular: &str, plural: Option<&str>) -> String {
    let number = number.into();
    match (number, plural) {
        (1, _) => format!("1 {singular}"),
        (_, Some(plural)) => format!("{number} {plural}"),
        (_, None) => format!("{number} {singular}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shorten_counts_characters_and_marks_the_cut() {
        assert_eq!(shorten("héllo", 5), "héllo");
        assert_eq!(shorten("héllo wörld", 7), "héllo…");
        assert_eq!(shorten("abc", 1), "…");
    }

    #[test]
    fn counts_read_right() {
        assert_eq!(count(1u32, "step", None), "1 step");
        assert_eq!(count(0u32, "step", None), "0 steps");
        assert_eq!(count(3u64, "match", Some("matches")), "3 matches");
    }
}
