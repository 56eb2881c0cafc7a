//! The forms of a verb that no ending makes ("caught" of "catch", "ran" of "run"), so a
//! question in one tense finds a record written in another, and the plurals of a noun no
//! ending makes ("pence" of "penny"). Pure data and a lookup.

use crate::synonyms::others_in;

/// The forms of a verb or a noun that no ending makes ("caught" of "catch", "ran" of
/// "run", "pence" of "penny"): each group is one word, so a form counts as much as the word
/// itself.
pub(crate) const FORMS: &[&[&str]] = &[
    &["break", "broke", "broken"],
    &["bring", "brought"],
    &["build", "built"],
    &["buy", "bought"],
    &["catch", "caught"],
    &["choose", "chose", "chosen"],
    &["come", "came"],
    &["dig", "dug"],
    &["do", "did", "done"],
    &["draw", "drew", "drawn"],
    &["drive", "drove", "driven"],
    &["eat", "ate", "eaten"],
    &["fall", "fell", "fallen"],
    &["feed", "fed"],
    &["feel", "felt"],
    &["find", "found"],
    &["fly", "flew", "flown"],
    &["forget", "forgot", "forgotten"],
    &["freeze", "froze", "frozen"],
    &["get", "got", "gotten"],
    &["give", "gave", "given"],
    &["go", "went", "gone"],
    &["grow", "grew", "grown"],
    &["hang", "hung"],
    &["hide", "hid", "hidden"],
    &["hold", "held"],
    &["keep", "kept"],
    &["know", "knew", "known"],
    &["lay", "laid"],
    &["lead", "led"],
    &["leave", "left"],
    &["lose", "lost"],
    &["make", "made"],
    &["mean", "meant"],
    &["overwrite", "overwrote", "overwritten"],
    &["pay", "paid"],
    &["rebuild", "rebuilt"],
    &["rewrite", "rewrote", "rewritten"],
    &["rise", "rose", "risen"],
    &["run", "ran"],
    &["say", "said"],
    &["see", "saw", "seen"],
    &["seek", "sought"],
    &["sell", "sold"],
    &["send", "sent"],
    &["shake", "shook", "shaken"],
    &["shoot", "shot"],
    &["sink", "sank", "sunk"],
    &["sit", "sat"],
    &["sleep", "slept"],
    &["speak", "spoke", "spoken"],
    &["spend", "spent"],
    &["stand", "stood"],
    &["steal", "stole", "stolen"],
    &["stick", "stuck"],
    &["strike", "struck"],
    &["swear", "swore", "sworn"],
    &["take", "took", "taken"],
    &["teach", "taught"],
    &["tear", "tore", "torn"],
    &["tell", "told"],
    &["think", "thought"],
    &["throw", "threw", "thrown"],
    &["wear", "wore", "worn"],
    &["undo", "undid", "undone"],
    &["wake", "woke", "woken"],
    &["wear", "wore", "worn"],
    &["win", "won"],
    &["write", "wrote", "written"],
    // A noun's plural that no ending makes.
    &["penny", "pennies", "pence"],
    &["person", "people"],
    &["child", "children"],
    &["mouse", "mice"],
    &["index", "indices", "indexes"],
    &["matrix", "matrices"],
    &["vertex", "vertices"],
    &["analysis", "analyses"],
    &["leaf", "leaves"],
    &["half", "halves"],
];

/// The other forms of `word` that no ending makes ("caught" for "catch", "catch" for
/// "caught").
pub fn forms_of(word: &str) -> Vec<&'static str> {
    others_in(FORMS, word)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_form_finds_the_others() {
        assert_eq!(forms_of("caught"), ["catch"]);
        assert_eq!(forms_of("run"), ["ran"]);
        assert_eq!(forms_of("took"), ["take", "taken"]);
        assert_eq!(forms_of("pennies"), ["pence", "penny"]);
        assert!(forms_of("deploy").is_empty());
    }
}
