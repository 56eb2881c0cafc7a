//! The progress reader against a table of real phrasings.

use super::*;

/// (text, plan_len, steps expected done)
type Row = (&'static str, u32, &'static [u32]);

const REPORTED_DONE: &[Row] = &[
    ("Step 2 done", 5, &[2]),
    ("step 2 complete", 5, &[2]),
    ("Step 2 completed", 5, &[2]),
    ("step 2 finished", 5, &[2]),
    ("finished step 3", 5, &[3]),
    ("completed step 3", 5, &[3]),
    ("done with step 4", 5, &[4]),
    ("Done: step 5", 5, &[5]),
    ("steps 1-3 done", 5, &[1, 2, 3]),
    ("steps 1–3 complete", 5, &[1, 2, 3]),
    ("steps 1 to 3 done", 5, &[1, 2, 3]),
    ("Steps 1, 2 and 3 done", 5, &[1, 2, 3]),
    ("steps 2 & 3 finished", 5, &[2, 3]),
    ("✓ 2", 5, &[2]),
    ("✔ step 2", 5, &[2]),
    ("step 2 ✓", 5, &[2]),
    ("[x] step 2", 5, &[2]),
    ("Step 2: done", 5, &[2]),
    ("Step 2 — done", 5, &[2]),
    ("Step 2 is done", 5, &[2]),
    ("step #2 done", 5, &[2]),
    ("Step two done", 5, &[2]),
    ("Marked step 2 as done", 5, &[2]),
    ("Step 1 done — built image, tagged v1.2.3", 5, &[1]),
    ("step 3 passed", 5, &[3]),
    ("all steps done", 4, &[1, 2, 3, 4]),
    ("all steps complete", 3, &[1, 2, 3]),
    ("Started step 4. Step 3 done.", 5, &[3]),
    // beyond the brief's list
    ("Step 3 done, starting step 4", 5, &[3]),
    ("Finished step 3 and started step 4.", 5, &[3]),
    ("Step 3 done; will do step 4 next", 5, &[3]),
    ("Step 2 done but step 3 failed", 5, &[2]),
    ("Step 2 done, no errors", 5, &[2]),
    ("Steps 1, 2, and 3 complete!", 5, &[1, 2, 3]),
    ("steps one through three done", 5, &[1, 2, 3]),
    ("- [x] step 1\n- [ ] step 2\n- [x] step 3", 5, &[1, 3]),
    ("✅ Step 4", 5, &[4]),
    ("#3 done", 5, &[3]),
    ("Done, step 5", 5, &[5]),
    ("step2 done", 5, &[2]),
    ("STEP 2 DONE", 5, &[2]),
    ("Step 2 done. Step 3 done.", 5, &[2, 3]),
    ("Completed all 3 steps", 3, &[1, 2, 3]),
    ("steps 4-7 done", 5, &[4, 5]),
    ("Step 2 done\r\nnext: step 3", 5, &[2]),
    ("Finished step 3, 4 more to go", 5, &[3]),
    ("Step 1 ✅ Step 2 ✅ Step 3 ⏳", 5, &[1, 2]),
    ("[x] 1 [x] 2", 5, &[1, 2]),
    ("The second step is done", 5, &[2]),
    ("| step 2 | done |", 5, &[2]),
    ("Step 3 done — build failed on step 4", 5, &[3]),
    ("Step 2: DONE ✔️", 5, &[2]),
];

const NOT_REPORTED_DONE: &[Row] = &[
    ("step 2 is not done", 5, &[]),
    ("step 2 not done yet", 5, &[]),
    ("will do step 4", 5, &[]),
    ("going to finish step 5", 5, &[]),
    ("about to complete step 2", 5, &[]),
    ("need to finish step 2", 5, &[]),
    ("starting step 3", 5, &[]),
    ("step 3 failed", 5, &[]),
    ("haven't finished step 2", 5, &[]),
    ("haven’t finished step 2", 5, &[]),
    ("step 2 almost done", 5, &[]),
    ("step 2 nearly complete", 5, &[]),
    ("Step 2 done?", 5, &[]),
    ("next: step 3", 5, &[]),
    ("trying to complete step 2", 5, &[]),
    ("step 2 isn't done", 5, &[]),
    ("step 2 undone", 5, &[]),
    ("plan to finish step 3 tomorrow", 5, &[]),
    ("pushed v1.2.3", 5, &[]),
    ("done in 5 minutes", 5, &[]),
    ("Step 9 done", 5, &[]),
    // beyond the brief's list
    ("Step 2 — not done yet", 5, &[]),
    ("Step 2 done, except the docs", 5, &[]),
    ("Is step 2 done", 5, &[]),
    ("Step 2 done (right?)", 5, &[]),
    ("complete step 2", 5, &[]),
    ("Mark step 2 as done", 5, &[]),
    ("✓ 2 tests pass", 5, &[]),
    ("PR #4 done", 5, &[]),
    ("❌ step 2", 5, &[]),
    ("not all steps done", 5, &[]),
    ("Once step 2 is done, deploy", 5, &[]),
    ("step 1.2 done", 5, &[]),
    ("All done", 5, &[]),
    ("Step 2 should be done by now", 5, &[]),
    ("step 2 to be done after review", 5, &[]),
    ("step 99999999999999999999 done", 5, &[]),
    ("steps 1-99999999999999999999 done", 5, &[]),
    ("Step 2 done", 0, &[]),
    ("", 5, &[]),
    ("步骤 2 完成 ✓ — ünïcödé", 5, &[]),
];

#[test]
fn reads_the_table() {
    let failures: Vec<String> = REPORTED_DONE
        .iter()
        .chain(NOT_REPORTED_DONE)
        .filter_map(|&(text, plan_len, expected)| {
            let got = steps_reported_done(text, plan_len);
            let expected: BTreeSet<u32> = expected.iter().copied().collect();
            (got != expected).then(|| {
                format!("{text:?} (plan of {plan_len}): expected {expected:?}, got {got:?}")
            })
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} row(s) failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn table_is_big_enough() {
    let positive = REPORTED_DONE.iter().filter(|row| !row.2.is_empty()).count();
    let negative = NOT_REPORTED_DONE
        .iter()
        .filter(|row| row.2.is_empty())
        .count();
    assert!(
        positive >= 20 && negative >= 15,
        "{positive} positive, {negative} negative"
    );
}

#[test]
fn never_panics_on_odd_input() {
    let odd = [
        "step",
        "steps",
        "#",
        "✓",
        "[x",
        "step -",
        "steps 3-1 done",
        "step 0 done",
        "…?!;\n",
        "step 4294967295 done",
        "steps 1-4294967296 done",
        "all",
        "all of the",
        "\u{FE0F}",
        "step 2 \u{200D}✔\u{FE0F}",
        "a'",
        "'",
        "-",
        "step 2-",
        "steps 1,",
        "steps 1 and",
    ];
    for text in odd {
        for plan_len in [0, 1, 5, 1000] {
            let _ = steps_reported_done(text, plan_len);
        }
    }
    assert_eq!(
        steps_reported_done("step 4294967295 done", u32::MAX),
        BTreeSet::from([u32::MAX])
    );
}

#[test]
fn steps_past_the_plan_are_found_and_not_marked() {
    use super::steps_reported_beyond;
    assert_eq!(steps_reported_done("Step 9 done", 6), BTreeSet::new());
    assert_eq!(steps_reported_beyond("Step 9 done", 6), BTreeSet::from([9]));
    assert_eq!(
        steps_reported_beyond("steps 4-8 done", 6),
        BTreeSet::from([7])
    );
    assert_eq!(steps_reported_beyond("all steps done", 6), BTreeSet::new());
    assert_eq!(steps_reported_beyond("is step 9 done?", 6), BTreeSet::new());
    assert_eq!(steps_reported_beyond("Step 3 done", 6), BTreeSet::new());
}
