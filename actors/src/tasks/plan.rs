//! Plan arithmetic: where a task stands on its plan, and how completion marks carry over
//! when the plan is revised. Step numbers are 1-based everywhere. Pure; no I/O.

use std::collections::{BTreeSet, HashMap, VecDeque};

/// A step's text without the number the agent may have written before it (`1. `, `1) `,
/// `Step 1: `, `#1 - `), for every place lookout numbers the steps itself; the stored text
/// keeps it. A number that is part of the text (`1.5 GB download`, `2 replicas up`) stays.
pub fn step_text(step: &str) -> &str {
    let trimmed = step.trim_start();
    let rest = strip_prefix_ignoring_case(trimmed, "step")
        .map(str::trim_start)
        .unwrap_or(trimmed);
    let rest = rest.strip_prefix('#').unwrap_or(rest);
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 {
        return step;
    }
    let after_number = rest[digits..].trim_start_matches(' ');
    let Some(after_mark) = after_number
        .strip_prefix(['.', ')', ':', '-', '–', '—'])
        .filter(|after| after.starts_with(char::is_whitespace))
    else {
        return step;
    };
    match after_mark.trim_start() {
        "" => step,
        text => text,
    }
}

fn strip_prefix_ignoring_case<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let head = text.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &text[prefix.len()..])
}

/// The seed's `plan_progress`: done steps, the step in hand, what is left, and the share done.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanProgress {
    pub completed: Vec<u32>,
    /// The step in hand: the one the agent named, else the first not done; none when all are.
    pub current: Option<u32>,
    /// Steps not done, other than the current one.
    pub remaining: Vec<u32>,
    /// Percentage of steps done, rounded.
    pub pct: u32,
}

impl PlanProgress {
    pub fn new(plan_len: usize, completed: &BTreeSet<u32>, current_step: Option<u32>) -> Self {
        let plan_len = plan_len as u32;
        let done: Vec<u32> = completed
            .iter()
            .copied()
            .filter(|s| (1..=plan_len).contains(s))
            .collect();
        let open = |step: &u32| !completed.contains(step);
        let current = current_step
            .filter(|step| (1..=plan_len).contains(step) && open(step))
            .or_else(|| (1..=plan_len).find(open));
        let remaining = (1..=plan_len)
            .filter(|step| open(step) && Some(*step) != current)
            .collect();
        let pct = if plan_len == 0 {
            0
        } else {
            (done.len() as u32 * 200 + plan_len) / (plan_len * 2)
        };
        Self {
            completed: done,
            current,
            remaining,
            pct,
        }
    }

    pub fn all_done(&self) -> bool {
        self.current.is_none() && self.remaining.is_empty()
    }
}

/// Which steps a budgeted answer shows: a run of `shown` steps from the step in hand on, and
/// the numbers of the rest, split into done and open, so nothing is hidden without a word.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanWindow {
    pub shown: std::ops::RangeInclusive<u32>,
    pub hidden_done: Vec<u32>,
    pub hidden_open: Vec<u32>,
}

impl PlanWindow {
    /// Up to `size` steps starting at the current one (or ending at the last step when all
    /// are done, or when the window would run past the end).
    pub fn new(plan_len: usize, progress: &PlanProgress, size: usize) -> Self {
        let plan_len = plan_len as u32;
        let size = (size as u32).clamp(1, plan_len.max(1));
        let anchor = progress.current.unwrap_or(plan_len).max(1);
        let start = anchor.min(plan_len.saturating_sub(size) + 1).max(1);
        let shown = start..=(start + size - 1).min(plan_len);
        let (mut hidden_done, mut hidden_open) = (Vec::new(), Vec::new());
        for step in (1..=plan_len).filter(|step| !shown.contains(step)) {
            if progress.completed.binary_search(&step).is_ok() {
                hidden_done.push(step);
            } else {
                hidden_open.push(step);
            }
        }
        Self {
            shown,
            hidden_done,
            hidden_open,
        }
    }

    pub fn is_whole(&self) -> bool {
        self.hidden_done.is_empty() && self.hidden_open.is_empty()
    }
}

/// Completion carried over to a revised plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Remapped {
    /// Completed step numbers in the new plan.
    pub completed: BTreeSet<u32>,
    /// The explicit current step, when its text survived.
    pub current_step: Option<u32>,
    /// New numbers of the steps whose completion was kept.
    pub kept: Vec<u32>,
    /// Each kept step's old number and its new one, so what proved it moves with it.
    pub moved: Vec<(u32, u32)>,
    /// Old numbers and texts of completed steps that no longer appear.
    pub dropped: Vec<(u32, String)>,
}

/// Keeps each completion mark whose step text is unchanged in the new plan (ignoring case,
/// surrounding space, repeated inner space and a leading "N." or "N)" number); drops the rest.
pub fn remap_progress(
    old_plan: &[String],
    new_plan: &[String],
    completed: &BTreeSet<u32>,
    current_step: Option<u32>,
) -> Remapped {
    let mut positions: HashMap<String, VecDeque<u32>> = HashMap::new();
    for (index, step) in new_plan.iter().enumerate() {
        positions
            .entry(normalized_step(step))
            .or_default()
            .push_back(index as u32 + 1);
    }
    let mut take_new_number = |old_step: u32| -> Option<u32> {
        let text = old_plan.get(old_step as usize - 1)?;
        positions.get_mut(&normalized_step(text))?.pop_front()
    };
    let mut kept = Vec::new();
    let mut moved = Vec::new();
    let mut dropped = Vec::new();
    for &old_step in completed.iter().filter(|&&s| s >= 1) {
        match take_new_number(old_step) {
            Some(new_step) => {
                kept.push(new_step);
                moved.push((old_step, new_step));
            }
            None => {
                let text = old_plan
                    .get(old_step as usize - 1)
                    .cloned()
                    .unwrap_or_default();
                dropped.push((old_step, text));
            }
        }
    }
    let current_step = current_step
        .filter(|s| *s >= 1)
        .and_then(&mut take_new_number);
    kept.sort_unstable();
    Remapped {
        completed: kept.iter().copied().collect(),
        current_step,
        kept,
        moved,
        dropped,
    }
}

/// A step's text as compared across revisions.
pub fn normalized_step(step: &str) -> String {
    let trimmed = step.trim();
    let digits = trimmed.bytes().take_while(u8::is_ascii_digit).count();
    let without_number = match trimmed[digits..].chars().next() {
        Some('.' | ')') if digits > 0 => &trimmed[digits + 1..],
        _ => trimmed,
    };
    without_number
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// Step numbers as short ranges: `[1, 2, 3, 5]` → "1-3, 5".
pub fn step_ranges(steps: &[u32]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut index = 0;
    while index < steps.len() {
        let start = steps[index];
        let mut end = start;
        while index + 1 < steps.len() && steps[index + 1] == end + 1 {
            index += 1;
            end = steps[index];
        }
        parts.push(if start == end {
            start.to_string()
        } else {
            format!("{start}-{end}")
        });
        index += 1;
    }
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(steps: &[&str]) -> Vec<String> {
        steps.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_number_the_agent_wrote_is_dropped_where_lookout_numbers_steps() {
        for (written, shown) in [
            ("1. Build Docker image", "Build Docker image"),
            ("2) Push to registry", "Push to registry"),
            ("Step 3: SSH into server", "SSH into server"),
            ("step 4 - Pull and run", "Pull and run"),
            ("#5 – Verify", "Verify"),
            ("  12.  Tag the release", "Tag the release"),
            ("1.5 GB download finishes", "1.5 GB download finishes"),
            ("2 replicas up", "2 replicas up"),
            ("Steps overview", "Steps overview"),
            ("3.", "3."),
            ("Build Docker image", "Build Docker image"),
        ] {
            assert_eq!(step_text(written), shown, "{written:?}");
        }
    }

    #[test]
    fn progress_reports_current_remaining_and_pct() {
        let done = BTreeSet::from([1, 2]);
        let progress = PlanProgress::new(5, &done, None);
        assert_eq!(progress.completed, [1, 2]);
        assert_eq!(progress.current, Some(3));
        assert_eq!(progress.remaining, [4, 5]);
        assert_eq!(progress.pct, 40);

        let named = PlanProgress::new(5, &done, Some(4));
        assert_eq!((named.current, named.remaining), (Some(4), vec![3, 5]));

        // A named step that is already done does not stay current.
        let stale = PlanProgress::new(5, &done, Some(2));
        assert_eq!(stale.current, Some(3));

        let finished = PlanProgress::new(3, &BTreeSet::from([1, 2, 3]), None);
        assert!(finished.all_done());
        assert_eq!(finished.pct, 100);
        assert_eq!(PlanProgress::new(3, &BTreeSet::from([1]), None).pct, 33);
        assert_eq!(PlanProgress::new(3, &BTreeSet::from([1, 2]), None).pct, 67);
    }

    #[test]
    fn revision_keeps_marks_of_unchanged_steps_only() {
        let old = plan(&["1. Build Docker image", "2. Push to registry", "3. Deploy"]);
        let new = plan(&[
            "build docker image",
            "Run migrations",
            "  Push   to registry ",
            "Deploy v2",
        ]);
        let remapped = remap_progress(&old, &new, &BTreeSet::from([1, 2, 3]), None);
        assert_eq!(remapped.kept, [1, 3]);
        assert_eq!(remapped.completed, BTreeSet::from([1, 3]));
        assert_eq!(remapped.dropped, vec![(3, "3. Deploy".to_string())]);
    }

    #[test]
    fn duplicate_steps_map_one_to_one_and_current_follows_its_text() {
        let old = plan(&["Test", "Fix", "Test"]);
        let new = plan(&["Test", "Fix", "Review", "Test"]);
        let remapped = remap_progress(&old, &new, &BTreeSet::from([1, 3]), Some(2));
        assert_eq!(remapped.kept, [1, 4]);
        assert_eq!(remapped.current_step, Some(2));
        let gone = remap_progress(&old, &plan(&["Ship"]), &BTreeSet::new(), Some(2));
        assert_eq!(gone.current_step, None);
    }

    #[test]
    fn normalisation_strips_numbering_case_and_spacing() {
        assert_eq!(normalized_step(" 12) Pull  and RUN "), "pull and run");
        assert_eq!(normalized_step("3.Verify"), "verify");
        assert_eq!(normalized_step("2026 plans"), "2026 plans");
    }

    #[test]
    fn ranges_compress_runs() {
        assert_eq!(step_ranges(&[1, 2, 3, 5, 7, 8]), "1-3, 5, 7-8");
        assert_eq!(step_ranges(&[]), "");
        assert_eq!(step_ranges(&[4]), "4");
    }

    #[test]
    fn a_window_starts_at_the_step_in_hand_and_names_the_rest() {
        let done: BTreeSet<u32> = (1..=40).chain([45]).collect();
        let progress = PlanProgress::new(100, &done, None);
        let window = PlanWindow::new(100, &progress, 10);
        assert_eq!(window.shown, 41..=50);
        assert_eq!(step_ranges(&window.hidden_done), "1-40");
        assert_eq!(step_ranges(&window.hidden_open), "51-100");

        // Near the end the window slides back to use its size; all done shows the last steps.
        let late = PlanProgress::new(10, &(1..=8).collect(), None);
        assert_eq!(PlanWindow::new(10, &late, 4).shown, 7..=10);
        let finished = PlanProgress::new(10, &(1..=10).collect(), None);
        let window = PlanWindow::new(10, &finished, 3);
        assert_eq!(
            (window.shown, step_ranges(&window.hidden_done)),
            (8..=10, "1-7".to_owned())
        );

        // A window as big as the plan hides nothing.
        let small = PlanProgress::new(3, &BTreeSet::new(), None);
        let whole = PlanWindow::new(3, &small, 10);
        assert!(whole.is_whole());
        assert_eq!(whole.shown, 1..=3);
    }
}
