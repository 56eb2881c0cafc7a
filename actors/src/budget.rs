//! Byte budgets for what an agent reads: a reply is built at its most generous, measured as
//! compact JSON, and shrunk a step at a time until it fits. Every answer that can grow with
//! a task (a query answer, a thread page, a list, a resume packet) goes through [`fit`], so
//! none can swamp the context window it is meant to restore. Pure.

use std::io;

use serde_json::Value;

/// A reply that knows how to render itself at its current generosity and how to give up a
/// little more. Each `shrink` must make the rendering no larger (a few bytes either way are
/// tolerated: every candidate is measured).
pub trait Shrinkable {
    /// The reply as it stands.
    fn render(&self) -> Value;
    /// Give up the next thing (shorter texts, fewer items); `false` when nothing is left to give.
    fn shrink(&mut self) -> bool;
    /// A lower bound of the rendering's size, cheaper than rendering (the characters of its
    /// longest texts, say): a level whose bound is over the budget is skipped unrendered.
    fn at_least(&self) -> usize {
        0
    }
}

/// The reply at the most generous level that fits `max_bytes` of compact JSON, and its size;
/// `None` when even the last level does not fit (the caller then answers with its minimum).
pub fn fit(reply: &mut impl Shrinkable, max_bytes: usize) -> Option<(Value, usize)> {
    loop {
        if reply.at_least() > max_bytes {
            if !reply.shrink() {
                return None;
            }
            continue;
        }
        let value = reply.render();
        let bytes = json_bytes(&value);
        if bytes <= max_bytes {
            return Some((value, bytes));
        }
        if !reply.shrink() {
            return None;
        }
    }
}

/// The size of `value` as compact JSON, measured without building the text.
pub fn json_bytes(value: &Value) -> usize {
    let mut counter = ByteCounter(0);
    serde_json::to_writer(&mut counter, value).expect("a JSON value always serialises");
    counter.0
}

/// How many of `items`, taken in order, fit in `room` bytes as elements of a JSON array
/// (each costs its compact size and a comma).
pub fn items_that_fit(items: &[Value], room: usize) -> usize {
    let mut used = 0;
    items
        .iter()
        .take_while(|item| {
            used += json_bytes(item) + 1;
            used <= room + 1
        })
        .count()
}

/// Lowers a knob of a [`Shrinkable`] (a length, a count) to `to`; whether that gave up
/// anything (a knob already at or below it gives nothing, and the next one is tried).
pub fn lower(knob: &mut usize, to: usize) -> bool {
    let gave = *knob > to;
    *knob = (*knob).min(to);
    gave
}

struct ByteCounter(usize);

impl io::Write for ByteCounter {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0 += bytes.len();
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    struct Items(usize);

    impl Shrinkable for Items {
        fn render(&self) -> Value {
            json!({"items": vec!["abcdefghij"; self.0]})
        }

        fn shrink(&mut self) -> bool {
            if self.0 == 0 {
                return false;
            }
            self.0 -= 1;
            true
        }
    }

    #[test]
    fn the_most_generous_level_that_fits_wins() {
        // {"items":[]} is 12 bytes; each item adds 12 or 13 ("abcdefghij" and a comma).
        let (value, bytes) = fit(&mut Items(10), 12 + 12 * 3 + 2).unwrap();
        assert_eq!(value["items"].as_array().unwrap().len(), 3);
        assert_eq!(bytes, json_bytes(&value));
        assert_eq!(bytes, value.to_string().len());
    }

    #[test]
    fn items_are_counted_with_their_commas() {
        let items = vec![json!("abc"), json!("abc"), json!("abc")];
        // ["abc","abc"] inside the brackets is 11 bytes.
        assert_eq!(items_that_fit(&items, 11), 2);
        assert_eq!(items_that_fit(&items, 10), 1);
        assert_eq!(items_that_fit(&items, 100), 3);
        assert_eq!(items_that_fit(&items, 0), 0);
    }

    #[test]
    fn nothing_fits_below_the_minimum() {
        assert!(fit(&mut Items(10), 5).is_none());
    }

    #[test]
    fn lowering_a_knob_says_whether_it_gave_anything() {
        let mut knob = usize::MAX;
        assert!(lower(&mut knob, 400));
        assert_eq!(knob, 400);
        assert!(!lower(&mut knob, 800), "a knob is never raised");
        assert_eq!(knob, 400);
        assert!(!lower(&mut knob, 400));
    }
}
