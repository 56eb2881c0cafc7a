//! Finding a quoted phrase in what tesseract read: letters may be misread, digits, signs
//! and punctuation may not. "Tests: 0 failed" must never match "Tests: 3 failed, 97
//! passed"; "Download complete" may match "Download compIete".
//!
//! The rules come from tesseract 5 reading real xterm windows under Xvfb (DejaVu Sans Mono
//! and Liberation Mono, dark on light and light on dark, `--psm 4`): letters are sometimes
//! dropped or swapped ("pass" → "ass", "Uploaded" → "tptoaded"), a lone zero drawn slashed
//! or dotted is read as `@`, `©` or `®`, and other digits are read right or become another
//! digit (a bitmap "9" read as "3"). So a digit of the phrase matches only itself or, for a
//! zero, those glyphs; a sign or a punctuation mark only itself; and no digit may appear
//! inside the match that the phrase does not have. Whitespace is folded, and a phrase that
//! begins or ends with a digit must not continue a longer number ('0 failed' is not in
//! "10 failed").

/// What tesseract was seen to read for a digit, besides the digit.
fn read_as(text: char, digit: char) -> bool {
    text == digit || (digit == '0' && matches!(text, '@' | '©' | '®' | 'o'))
}

/// A cost that rules an alignment out.
const NEVER: usize = usize::MAX / 4;

/// Lowercase, whitespace runs as one space, dashes and quotes of every kind folded.
pub fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = false;
    for c in text.chars() {
        let c = match c {
            '\u{2010}'..='\u{2015}' | '\u{2212}' => '-',
            '‘' | '’' | '`' => '\'',
            '“' | '”' => '"',
            other => other,
        };
        if c.is_whitespace() {
            space = !out.is_empty();
            continue;
        }
        if space {
            out.push(' ');
            space = false;
        }
        out.extend(c.to_lowercase());
    }
    out
}

/// Letter errors tolerated in a phrase with `letters` letters: none up to 3, then about one
/// in six.
pub fn allowed_errors(letters: usize) -> usize {
    if letters <= 3 { 0 } else { (letters + 2) / 6 }
}

fn substitution(p: char, t: char) -> usize {
    if p == t || (p.is_ascii_digit() && read_as(t, p)) {
        0
    } else if p.is_alphabetic() || (p == ' ' && !t.is_ascii_digit()) {
        1
    } else {
        NEVER
    }
}

/// OCR left out a character of the phrase.
fn dropped(p: char) -> usize {
    if p.is_alphabetic() || p == ' ' {
        1
    } else {
        NEVER
    }
}

/// OCR read a character the phrase does not have.
fn inserted(t: char) -> usize {
    if t.is_ascii_digit() { NEVER } else { 1 }
}

/// The stretch of `haystack` that reads as `needle` (both [`normalize`]d) within the
/// allowed letter errors, closest first: approximate substring matching (Sellers'
/// algorithm) with the costs above.
pub fn find(needle: &str, haystack: &str) -> Option<String> {
    let pattern: Vec<char> = needle.chars().collect();
    let text: Vec<char> = haystack.chars().collect();
    if pattern.is_empty() {
        return None;
    }
    let letters = pattern.iter().filter(|c| c.is_alphabetic()).count();
    let allowed = allowed_errors(letters);
    // Row i: for each end position j in the text, the best cost of pattern[..i] ending
    // there, and where that alignment starts.
    let mut previous: Vec<(usize, usize)> = (0..=text.len()).map(|j| (0, j)).collect();
    let mut current = previous.clone();
    for &p in &pattern {
        current[0] = (previous[0].0.saturating_add(dropped(p)).min(NEVER), 0);
        for j in 1..=text.len() {
            let t = text[j - 1];
            let options = [
                (
                    previous[j - 1].0.saturating_add(substitution(p, t)),
                    previous[j - 1].1,
                ),
                (previous[j].0.saturating_add(dropped(p)), previous[j].1),
                (
                    current[j - 1].0.saturating_add(inserted(t)),
                    current[j - 1].1,
                ),
            ];
            current[j] = options
                .into_iter()
                .min_by_key(|(cost, _)| *cost)
                .map(|(cost, start)| (cost.min(NEVER), start))
                .unwrap_or((NEVER, j));
        }
        std::mem::swap(&mut previous, &mut current);
    }
    let digit_at = |index: Option<usize>| {
        index
            .and_then(|i| text.get(i))
            .is_some_and(char::is_ascii_digit)
    };
    let first_is_digit = pattern.first().is_some_and(char::is_ascii_digit);
    let last_is_digit = pattern.last().is_some_and(char::is_ascii_digit);
    let mut ends: Vec<(usize, usize, usize)> = previous
        .iter()
        .enumerate()
        .filter(|(_, (cost, _))| *cost <= allowed)
        .map(|(end, (cost, start))| (*cost, *start, end))
        .collect();
    ends.sort_unstable();
    ends.into_iter()
        .find(|(_, start, end)| {
            let continues_before = first_is_digit && digit_at(start.checked_sub(1));
            let continues_after = last_is_digit && digit_at(Some(*end));
            !(continues_before || continues_after)
        })
        .map(|(_, start, end)| {
            text[start..end]
                .iter()
                .collect::<String>()
                .trim()
                .to_owned()
        })
}

#[cfg(test)]
mod tests;
