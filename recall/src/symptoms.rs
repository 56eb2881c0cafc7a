//! How people put what went wrong or changed — slow, chatting, missing, grew, noisy,
//! crashed, cost, stuck — in words that mean the same, kept apart from the names of computing things
//! ([`crate::synonyms`], which reads them as groups of its own). Written as those are:
//! lowercase, as the index spells them. Pure data.

/// Symptoms and changes that mean the same, each group on its own.
pub(crate) const SYMPTOM_GROUPS: &[&[&str]] = &[
    &[
        "slow",
        "slowly",
        "sluggish",
        "laggy",
        "stutter",
        "stutters",
        "janky",
        "performance",
    ],
    &["chatting", "chatter", "talking", "talked"],
    &["missing", "gone", "lost", "disappeared", "vanished"],
    &[
        "increase",
        "increased",
        "grew",
        "growing",
        "rise",
        "rising",
        "tripled",
        "gain",
        "gained",
        "improve",
        "improved",
    ],
    &[
        "noisy", "noise", "flood", "floods", "flooding", "spam", "spammy",
    ],
    &[
        "crash", "crashes", "crashed", "crashing", "killed", "dies", "died",
    ],
    &[
        "cost",
        "costs",
        "bill",
        "spend",
        "spending",
        "charge",
        "charges",
        "charged",
        "pay",
        "paying",
        "paid",
        "expensive",
        "pricey",
        "cheap",
        "cheaper",
    ],
    &["switch", "switched", "move", "moved", "moving", "migration"],
    &[
        "stuck", "hang", "hangs", "hung", "frozen", "freeze", "freezes", "freezing",
    ],
    &["old", "older", "previous", "outdated", "stale"],
];
