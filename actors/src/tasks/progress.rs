//! Reading progress out of what the agent writes: "Step 2 done", "steps 1-3 complete", "✓ 4".
//! Pure text logic; knows nothing of storage or actors.
//!
//! The reading is deliberately conservative. A step wrongly read as done makes the agent skip
//! work; a missed report only costs the agent saying it again. So a statement counts only when
//! it names steps, carries a completion word or mark, and carries nothing that negates,
//! postpones, hedges or questions it.
//!
//! How a text is read:
//! 1. Lowercase it, fold dash and apostrophe variants, and split it into sentences at `. ! ? ;`
//!    followed by whitespace (so "v1.2.3" survives) and at line breaks. Questions are skipped.
//! 2. Tokenize each sentence and recognise step references: "step 2", "steps 1-3",
//!    "steps 1, 2 and 3", "step two", "#2", "✓ 2", "all steps".
//! 3. Cut the sentence into statements at commas, dashes, "and", "then", "so" (unless they sit
//!    inside a list of step numbers) and at "but", "however", "although", so that
//!    "Step 3 done, starting step 4" reads as two statements.
//! 4. A statement naming no step lends its verdict to its neighbour when it is only a verdict
//!    ("Step 2 — done", "Step 2, not done yet") or opens with a hedge ("…, except the docs").
//! 5. Each statement that names steps, reports completion and is not blocked counts.

use std::collections::BTreeSet;

mod lexicon;

use lexicon::*;

/// Step numbers (1-based, only those within 1..=plan_len) that `text` reports as finished.
pub fn steps_reported_done(text: &str, plan_len: u32) -> BTreeSet<u32> {
    let mut done = BTreeSet::new();
    if plan_len == 0 {
        return done;
    }
    for_each_reported_done(text, |steps| mark_done(&mut done, steps, plan_len));
    done
}

/// Step numbers past the plan's end that `text` reports as finished ("Step 9 done" on a
/// 6-step plan): the reply says they were not marked. The first of a range stands for it.
pub fn steps_reported_beyond(text: &str, plan_len: u32) -> BTreeSet<u32> {
    let mut beyond = BTreeSet::new();
    for_each_reported_done(text, |steps| {
        if let StepRef::Ranges(ranges) = steps {
            for &(first, last) in ranges {
                if last > plan_len && first <= last {
                    beyond.insert(first.max(plan_len + 1));
                }
            }
        }
    });
    beyond
}

/// Calls `report` with each step reference `text` says is finished.
fn for_each_reported_done(text: &str, mut report: impl FnMut(&StepRef)) {
    let normalized = normalize(text);
    for sentence in split_sentences(&normalized) {
        if sentence.is_question {
            continue;
        }
        let tokens = tokenize(sentence.text);
        if opens_like_question(&tokens) {
            continue;
        }
        let items = parse_items(&tokens);
        for statement in statements(&items) {
            if statement.reports_done() {
                for steps in statement.steps {
                    report(steps);
                }
            }
        }
    }
}

fn mark_done(done: &mut BTreeSet<u32>, steps: &StepRef, plan_len: u32) {
    match steps {
        StepRef::All => done.extend(1..=plan_len),
        StepRef::Ranges(ranges) => {
            for &(first, last) in ranges {
                // Clamped rather than rejected: "steps 4-7 done" on a 5-step plan still reports
                // 4 and 5. A reversed range ("steps 3-1") is empty.
                done.extend(first.max(1)..=last.min(plan_len));
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Sentences and tokens.

fn normalize(text: &str) -> String {
    text.chars()
        .flat_map(char::to_lowercase)
        .map(|c| match c {
            // hyphen, non-breaking hyphen, figure dash, en dash, em dash, horizontal bar, minus
            '\u{2010}'..='\u{2015}' | '\u{2212}' => '-',
            '\u{2018}' | '\u{2019}' | '\u{02BC}' => '\'',
            '\r' => '\n',
            other => other,
        })
        .collect()
}

struct Sentence<'a> {
    text: &'a str,
    is_question: bool,
}

fn is_sentence_end(c: char) -> bool {
    matches!(c, '.' | '!' | '?' | ';' | '…')
}

fn split_sentences(text: &str) -> Vec<Sentence<'_>> {
    let mut sentences = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((index, c)) = chars.next() {
        if c == '\n' {
            sentences.push(Sentence {
                text: &text[start..index],
                is_question: false,
            });
            start = index + c.len_utf8();
            continue;
        }
        if !is_sentence_end(c) {
            continue;
        }
        // Take the whole run ("?!", "...") so that where it ends is checked once.
        let mut run_end = index + c.len_utf8();
        let mut is_question = c == '?';
        while let Some(&(next_index, next)) = chars.peek() {
            if !is_sentence_end(next) {
                break;
            }
            is_question |= next == '?';
            run_end = next_index + next.len_utf8();
            chars.next();
        }
        // Only punctuation before whitespace ends a sentence: "v1.2.3" and "done?)" stay whole
        // (the stray '?' then blocks its statement as a question).
        if chars.peek().is_none_or(|&(_, next)| next.is_whitespace()) {
            sentences.push(Sentence {
                text: &text[start..index],
                is_question,
            });
            start = run_end;
        }
    }
    sentences.push(Sentence {
        text: &text[start..],
        is_question: false,
    });
    sentences
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Word(String),
    /// A run of ASCII digits; `None` when too large to be any step number.
    Number(Option<u32>),
    Symbol(char),
}

fn tokenize(sentence: &str) -> Vec<Token> {
    let chars: Vec<char> = sentence.chars().collect();
    let mut tokens = Vec::new();
    let mut index = 0;
    while index < chars.len() {
        let c = chars[index];
        if c.is_alphanumeric() {
            let start = index;
            index += 1;
            while index < chars.len()
                && (chars[index].is_alphanumeric() || joins_word(&chars, index))
            {
                index += 1;
            }
            push_word(&mut tokens, chars[start..index].iter().collect());
        } else {
            // Emoji variation selectors and joiners only restyle the mark before them.
            if !c.is_whitespace() && !matches!(c, '\u{FE0F}' | '\u{FE0E}' | '\u{200D}') {
                tokens.push(Token::Symbol(c));
            }
            index += 1;
        }
    }
    tokens
}

/// Punctuation that belongs inside a word: the dots of "v1.2.3", the apostrophe of "isn't",
/// the hyphen of "re-run". Hyphens join letters only, so "1-3" stays a range.
fn joins_word(chars: &[char], index: usize) -> bool {
    let before = index
        .checked_sub(1)
        .and_then(|previous| chars.get(previous));
    let (Some(&before), Some(&after)) = (before, chars.get(index + 1)) else {
        return false;
    };
    match chars[index] {
        '.' | '_' => before.is_alphanumeric() && after.is_alphanumeric(),
        '\'' | '-' => before.is_alphabetic() && after.is_alphabetic(),
        _ => false,
    }
}

fn push_word(tokens: &mut Vec<Token>, word: String) {
    let all_digits = |text: &str| !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
    if all_digits(&word) {
        tokens.push(Token::Number(word.parse().ok()));
    } else if let Some(digits) = word
        .strip_prefix("step")
        .filter(|digits| all_digits(digits))
    {
        // "step2", written without the space.
        tokens.push(Token::Word("step".to_owned()));
        tokens.push(Token::Number(digits.parse().ok()));
    } else {
        tokens.push(Token::Word(word));
    }
}

fn word_at(tokens: &[Token], index: usize) -> Option<&str> {
    match tokens.get(index) {
        Some(Token::Word(word)) => Some(word),
        _ => None,
    }
}

/// "Is step 2 done" asks, even without its question mark.
fn opens_like_question(tokens: &[Token]) -> bool {
    let first = tokens
        .iter()
        .find(|token| !matches!(token, Token::Symbol(_)));
    matches!(first, Some(Token::Word(word)) if QUESTION_OPENERS.contains(&word.as_str()))
}

// ---------------------------------------------------------------------------------------------
// Step references.

#[derive(Debug, PartialEq, Eq)]
enum StepRef {
    All,
    /// Inclusive (first, last) pairs; a single step is (n, n).
    Ranges(Vec<(u32, u32)>),
}

#[derive(Debug)]
enum Item {
    Steps(StepRef),
    Word(String),
    /// A number that names no step: "done in 5 minutes".
    Number,
    /// ✓ ✔ ☑ ✅ or a ticked checkbox "[x]".
    Check,
    /// ✗ ❌ ⏳: the opposite of a check.
    NotDone,
    /// A '?' inside a sentence ("done?)"), which questions its statement.
    Question,
    /// Where statements may part: "," "-" "&" "|" "and" "then" "so".
    Break,
    /// Where statements always part: "but", "however", "although".
    Contrast,
    Other,
}

fn parse_items(tokens: &[Token]) -> Vec<Item> {
    let mut items = Vec::new();
    let mut index = 0;
    while index < tokens.len() {
        if let Some((steps, next)) = step_reference(tokens, index) {
            items.push(Item::Steps(steps));
            index = next;
            continue;
        }
        if let Some(next) = check_mark(tokens, index) {
            items.push(Item::Check);
            index = next;
            // "✓ 4": a number right after a check mark names a step.
            if let Some((ranges, next)) = number_list(tokens, index, ListIntro::Bare) {
                items.push(Item::Steps(StepRef::Ranges(ranges)));
                index = next;
            }
            continue;
        }
        items.push(match &tokens[index] {
            Token::Word(word) if BREAK_WORDS.contains(&word.as_str()) => Item::Break,
            Token::Word(word) if CONTRAST_WORDS.contains(&word.as_str()) => Item::Contrast,
            Token::Word(word) => Item::Word(word.clone()),
            Token::Number(_) => Item::Number,
            Token::Symbol('?') => Item::Question,
            Token::Symbol(',' | '-' | '&' | '|') => Item::Break,
            Token::Symbol(c) if NOT_DONE_MARKS.contains(c) => Item::NotDone,
            Token::Symbol(_) => Item::Other,
        });
        index += 1;
    }
    items
}

/// The index after a check mark ("✓", "[x]", "[✓]") starting at `index`, if there is one.
fn check_mark(tokens: &[Token], index: usize) -> Option<usize> {
    match tokens.get(index)? {
        Token::Symbol(c) if CHECK_MARKS.contains(c) => Some(index + 1),
        Token::Symbol('[') => {
            let ticked = match tokens.get(index + 1)? {
                Token::Word(word) => word == "x",
                Token::Symbol(c) => CHECK_MARKS.contains(c),
                Token::Number(_) => false,
            };
            (ticked && tokens.get(index + 2) == Some(&Token::Symbol(']'))).then_some(index + 3)
        }
        _ => None,
    }
}

/// A step reference starting at `index`, and the index after it.
fn step_reference(tokens: &[Token], index: usize) -> Option<(StepRef, usize)> {
    // "the second step", "2nd step"
    if let Some(number) = word_at(tokens, index).and_then(ordinal)
        && word_at(tokens, index + 1) == Some("step")
    {
        return Some((StepRef::Ranges(vec![(number, number)]), index + 2));
    }
    match tokens.get(index)? {
        Token::Word(word) if word == "step" || word == "steps" => {
            let (ranges, next) = number_list(tokens, index + 1, ListIntro::StepWord)?;
            Some((StepRef::Ranges(ranges), next))
        }
        Token::Word(word) if word == "all" || word == "every" => {
            all_steps_end(tokens, index + 1).map(|next| (StepRef::All, next))
        }
        // "#4 done" names a step, but "PR #4 done" names a pull request.
        Token::Symbol('#') if index == 0 || !matches!(tokens[index - 1], Token::Word(_)) => {
            let (ranges, next) = number_list(tokens, index, ListIntro::Bare)?;
            Some((StepRef::Ranges(ranges), next))
        }
        _ => None,
    }
}

/// After "all" or "every": the index past "[of] [the] [single] [N] step(s)", if that follows.
fn all_steps_end(tokens: &[Token], mut index: usize) -> Option<usize> {
    for filler in ["of", "the", "single"] {
        if word_at(tokens, index) == Some(filler) {
            index += 1;
        }
    }
    let counted = matches!(tokens.get(index), Some(Token::Number(_)))
        || word_at(tokens, index).is_some_and(|word| number_word(word).is_some());
    if counted {
        index += 1;
    }
    matches!(word_at(tokens, index), Some("step" | "steps")).then_some(index + 1)
}

/// Whether a list of step numbers follows the word "step(s)" or stands bare after "#" or "✓".
/// A bare number must look like a list item on its own: "✓ 4" but not "✓ 2 tests pass".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ListIntro {
    StepWord,
    Bare,
}

/// "2", "1-3", "1 to 3", "1, 2 and 3", "2 & step 3", "#2", "two": the ranges named and the
/// index after them. Numbers too large for `u32` are consumed but name nothing.
fn number_list(
    tokens: &[Token],
    start: usize,
    intro: ListIntro,
) -> Option<(Vec<(u32, u32)>, usize)> {
    let (mut first, mut next) = step_number(tokens, start)?;
    if intro == ListIntro::Bare && !ends_list_item(tokens, next) {
        return None;
    }
    let mut ranges = Vec::new();
    loop {
        let mut last = first;
        if let Some((end, after)) = range_end(tokens, next) {
            last = end;
            next = after;
        }
        if let (Some(first), Some(last)) = (first, last) {
            ranges.push((first, last));
        }
        match list_continuation(tokens, next) {
            Some((number, after)) => {
                first = number;
                next = after;
            }
            None => return Some((ranges, next)),
        }
    }
}

/// A step number ("2", "#2", "two") at `index`, and the index after it.
fn step_number(tokens: &[Token], index: usize) -> Option<(Option<u32>, usize)> {
    let index = if tokens.get(index) == Some(&Token::Symbol('#')) {
        index + 1
    } else {
        index
    };
    match tokens.get(index)? {
        Token::Number(number) => Some((*number, index + 1)),
        Token::Word(word) => number_word(word).map(|number| (Some(number), index + 1)),
        Token::Symbol(_) => None,
    }
}

/// "-3", "to 3", "through 3" at `index`: the range's last step and the index after it.
fn range_end(tokens: &[Token], index: usize) -> Option<(Option<u32>, usize)> {
    let is_range_word = matches!(word_at(tokens, index), Some("to" | "through" | "thru"));
    if tokens.get(index) != Some(&Token::Symbol('-')) && !is_range_word {
        return None;
    }
    let (end, after) = step_number(tokens, index + 1)?;
    ends_list_item(tokens, after).then_some((end, after))
}

/// ", 3", "and 3", ", and 3", "& 3", "and step 3" at `index`: the next listed step and the
/// index after it.
fn list_continuation(tokens: &[Token], index: usize) -> Option<(Option<u32>, usize)> {
    let mut index = index;
    let comma = tokens.get(index) == Some(&Token::Symbol(','));
    if comma {
        index += 1;
    }
    let conjunction =
        tokens.get(index) == Some(&Token::Symbol('&')) || word_at(tokens, index) == Some("and");
    if conjunction {
        index += 1;
    }
    if !comma && !conjunction {
        return None;
    }
    // "steps 2 and step 3" repeats the step word, which makes the item explicit. After a lone
    // comma a step word more likely opens a new statement: "step 3 done, step 4 next".
    if conjunction && matches!(word_at(tokens, index), Some("step" | "steps")) {
        return step_number(tokens, index + 1);
    }
    let (number, after) = step_number(tokens, index)?;
    ends_list_item(tokens, after).then_some((number, after))
}

/// Whether the token at `index` may follow a listed step number.
fn ends_list_item(tokens: &[Token], index: usize) -> bool {
    match tokens.get(index) {
        None => true,
        Some(Token::Symbol(c)) => {
            matches!(
                c,
                ',' | '-' | '&' | ':' | '(' | ')' | '[' | ']' | '.' | '!' | '|'
            ) || CHECK_MARKS.contains(c)
        }
        Some(Token::Word(word)) => {
            is_completion_word(word) || LIST_FOLLOWERS.contains(&word.as_str())
        }
        Some(Token::Number(_)) => false,
    }
}

// ---------------------------------------------------------------------------------------------
// Statements.

/// What one statement ("step 3 done", "starting step 4", "not done yet") says.
#[derive(Debug, Default)]
struct Statement<'a> {
    steps: Vec<&'a StepRef>,
    has_completion: bool,
    is_blocked: bool,
    /// Nothing but completion, blocker and filler words and marks: "done", "not done yet".
    is_verdict_only: bool,
    /// Opens with a word that qualifies the statement before it: "except the docs".
    opens_with_hedge: bool,
}

impl<'a> Statement<'a> {
    fn read(items: &'a [Item]) -> Self {
        let mut statement = Statement {
            is_verdict_only: true,
            ..Statement::default()
        };
        let mut seen_word = false;
        for (index, item) in items.iter().enumerate() {
            let next = items.get(index + 1);
            match item {
                Item::Steps(steps) => {
                    statement.steps.push(steps);
                    statement.is_verdict_only = false;
                }
                Item::Word(word) => {
                    if !seen_word {
                        statement.opens_with_hedge = HEDGES.contains(&word.as_str());
                        seen_word = true;
                    }
                    let next_word = match next {
                        Some(Item::Word(next_word)) => Some(next_word.as_str()),
                        _ => None,
                    };
                    let is_order = word == "complete" && matches!(next, Some(Item::Steps(_)));
                    let completes = is_completion_word(word) && !is_order;
                    let blocks = is_blocker(word, next_word);
                    statement.has_completion |= completes;
                    statement.is_blocked |= blocks;
                    if !completes && !blocks && !VERDICT_FILLERS.contains(&word.as_str()) {
                        statement.is_verdict_only = false;
                    }
                }
                Item::Check => statement.has_completion = true,
                Item::NotDone | Item::Question => statement.is_blocked = true,
                Item::Number => statement.is_verdict_only = false,
                Item::Break | Item::Contrast | Item::Other => {}
            }
        }
        statement
    }

    fn names_steps(&self) -> bool {
        !self.steps.is_empty()
    }

    fn reports_done(&self) -> bool {
        self.names_steps() && self.has_completion && !self.is_blocked
    }
}

/// The statements of one sentence that name steps, with the verdicts of their step-less
/// neighbours folded in.
fn statements(items: &[Item]) -> Vec<Statement<'_>> {
    let mut named = Vec::new();
    for clause in items.split(|item| matches!(item, Item::Contrast)) {
        let mut parts: Vec<Statement<'_>> = clause
            .split(|item| matches!(item, Item::Break))
            .flat_map(split_run_on_reports)
            .filter(|part| !part.is_empty())
            .map(Statement::read)
            .collect();
        fold_stepless_parts(&mut parts);
        named.extend(parts.into_iter().filter(Statement::names_steps));
    }
    named
}

/// Splits a part that reports one step and goes on to name another without a break, as in
/// "Step 1 ✅ Step 2 ✅ Step 3 ⏳" or "[x] 1 [x] 2": a new statement begins at the next step
/// reference, or at the check mark right before it, once the current one has named steps and
/// reported completion.
fn split_run_on_reports(part: &[Item]) -> Vec<&[Item]> {
    let is_completion = |item: &Item| match item {
        Item::Check => true,
        Item::Word(word) => is_completion_word(word),
        _ => false,
    };
    let mut pieces = Vec::new();
    let mut start = 0;
    let (mut named_steps, mut completed) = (false, false);
    for (index, item) in part.iter().enumerate() {
        let opens_reference = match item {
            Item::Steps(_) => true,
            Item::Check => matches!(part.get(index + 1), Some(Item::Steps(_))),
            _ => false,
        };
        if opens_reference && named_steps && completed {
            pieces.push(&part[start..index]);
            start = index;
            (named_steps, completed) = (false, false);
        }
        named_steps |= matches!(item, Item::Steps(_));
        completed |= is_completion(item);
    }
    pieces.push(&part[start..]);
    pieces
}

/// Lends what a step-less part says to the adjacent part that names steps, so "Step 2 — done"
/// and "Done, step 5" report completion while "Step 2, not done yet" and "Step 2 done, except
/// the docs" do not. Any other step-less part ("built image") is a remark of its own.
fn fold_stepless_parts(parts: &mut [Statement<'_>]) {
    for index in 0..parts.len() {
        let part = &parts[index];
        if part.names_steps() {
            continue;
        }
        let awaits_verdict =
            |candidate: &Statement<'_>| candidate.names_steps() && !candidate.has_completion;
        let previous = index.checked_sub(1);
        let target = if part.opens_with_hedge {
            previous.filter(|&previous| parts[previous].names_steps())
        } else if part.is_verdict_only && part.has_completion {
            previous
                .filter(|&previous| awaits_verdict(&parts[previous]))
                .or(Some(index + 1).filter(|&next| parts.get(next).is_some_and(awaits_verdict)))
        } else {
            None
        };
        if let Some(target) = target {
            let (has_completion, is_blocked) = (part.has_completion, part.is_blocked);
            parts[target].has_completion |= has_completion;
            parts[target].is_blocked |= is_blocked;
        }
    }
}

#[cfg(test)]
mod tests;
