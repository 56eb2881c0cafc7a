//! The reading of `wake_when` against a table of phrasings: quote styles, connectives,
//! negations, the seed's and the schema's own examples, and conditions with no quotes.
//!
//! Each row gives the condition and a sketch of its reading: alternatives separated by
//! ` | `, clauses of one alternative by ` & `, a negated clause with `!`; a clause is its
//! quoted phrases (`"ALL DONE"`, several joined by `+`) or its detector: `finish`,
//! `finish-ok` (status 0), `error`, `prompt`, `quiet30` (seconds), `num(progress≥100%)`,
//! `model`.

use super::*;

fn sketch(reading: &Reading) -> String {
    reading
        .groups
        .iter()
        .map(|group| {
            group
                .iter()
                .map(|clause| {
                    let test = match &clause.test {
                        Test::Phrases(phrases) => phrases
                            .iter()
                            .map(|p| format!("\"{p}\""))
                            .collect::<Vec<_>>()
                            .join("+"),
                        Test::Ends(Outcome::Any) => "finish".into(),
                        Test::Ends(Outcome::Success) => "finish-ok".into(),
                        Test::Ends(Outcome::Failure) => "fail".into(),
                        Test::Ends(Outcome::Code(code)) => format!("exit={code}"),
                        Test::Ends(Outcome::NotCode(code)) => format!("exit!={code}"),
                        Test::Line(LineKind::Error) => "error".into(),
                        Test::Line(LineKind::Warning) => "warning".into(),
                        Test::Count(count) => format!(
                            "count({}{}{})",
                            if count.kind == LineKind::Error {
                                "errors"
                            } else {
                                "warnings"
                            },
                            count.comparison.symbol(),
                            count.value
                        ),
                        Test::Prompt => "prompt".into(),
                        Test::Quiet(d) => format!("quiet{}", d.as_secs()),
                        Test::Number(n) => format!("num({})", n.to_string().replace(' ', "")),
                        Test::Model => "model".into(),
                    };
                    if clause.negated {
                        format!("!{test}")
                    } else {
                        test
                    }
                })
                .collect::<Vec<_>>()
                .join(" & ")
        })
        .collect::<Vec<_>>()
        .join(" | ")
}

/// (condition, sketch of its reading)
const PHRASINGS: &[(&str, &str)] = &[
    // ---- one quoted phrase, every quote style and lead-in ----
    ("'DONE'", "\"DONE\""),
    ("\"DONE\"", "\"DONE\""),
    ("“DONE”", "\"DONE\""),
    ("‘DONE’", "\"DONE\""),
    ("`DONE`", "\"DONE\""),
    ("«DONE»", "\"DONE\""),
    ("wait until it prints 'DONE'", "\"DONE\""),
    ("when you see 'DONE'", "\"DONE\""),
    ("when the output contains 'DONE'", "\"DONE\""),
    ("the log says \"DONE\"", "\"DONE\""),
    ("wake me when 'ALL DONE' is printed", "\"ALL DONE\""),
    (
        "wake me up when \"BUILD SUCCESSFUL\" appears",
        "\"BUILD SUCCESSFUL\"",
    ),
    (
        "notify me when `ready on port 8080` shows up",
        "\"ready on port 8080\"",
    ),
    (
        "let me know once “Deployed to prod” is in the log",
        "\"Deployed to prod\"",
    ),
    ("as soon as 'Listening' appears", "\"Listening\""),
    (
        "once the server prints 'Listening on :3000'",
        "\"Listening on :3000\"",
    ),
    ("until 'Tests: 0 failed'", "\"Tests: 0 failed\""),
    ("tell me when the terminal shows 'login:'", "\"login:\""),
    (
        "please wake me when 'migration complete' appears",
        "\"migration complete\"",
    ),
    ("when 'Done in' shows", "\"Done in\""),
    ("when the page title becomes 'Dashboard'", "model"),
    (
        "wait for 'Compiled successfully'",
        "\"Compiled successfully\"",
    ),
    ("after 'Server started' is logged", "\"Server started\""),
    ("whenever 'OK' is printed", "\"OK\""),
    ("if 'Connection refused' appears", "\"Connection refused\""),
    (
        "when the dialog says 'Download complete'",
        "\"Download complete\"",
    ),
    ("when 'don't panic' is printed", "\"don't panic\""),
    ("when it's done and 'Saved' appears", "finish & \"Saved\""),
    (
        "when the build doesn't fail and 'Deployed' shows",
        "!fail & \"Deployed\"",
    ),
    ("when 'it's ready' appears", "\"it's ready\""),
    ("when the line 'step 3/3' shows", "\"step 3/3\""),
    ("when 'v1.2.3' is tagged", "model"),
    ("when '100%' appears", "\"100%\""),
    ("when \"exit code 0\" is printed", "\"exit code 0\""),
    ("when 'PASS' appears in the output", "\"PASS\""),
    // ---- several phrases: or, and, lists, either/both ----
    (
        "when 'tests passed' or 'error' appears in the log",
        "\"tests passed\" | \"error\"",
    ),
    ("when \"A\" and \"B\" are printed", "\"A\" & \"B\""),
    ("when 'A' or 'B' appears", "\"A\" | \"B\""),
    ("either 'PASSED' or 'FAILED'", "\"PASSED\" | \"FAILED\""),
    (
        "when either 'PASSED' or 'FAILED' is printed",
        "\"PASSED\" | \"FAILED\"",
    ),
    (
        "when both 'built' and 'pushed' appear",
        "\"built\" & \"pushed\"",
    ),
    (
        "'DONE', 'FINISHED' or 'READY'",
        "\"DONE\" | \"FINISHED\" | \"READY\"",
    ),
    (
        "when 'A', 'B' and 'C' are all printed",
        "\"A\" & \"B\" & \"C\"",
    ),
    ("when 'A', 'B', or 'C' shows", "\"A\" | \"B\" | \"C\""),
    ("'x' or 'y' or 'z'", "\"x\" | \"y\" | \"z\""),
    ("when 'A' 'B' appear together", "\"A\"+\"B\""),
    (
        "when 'ready' appears or else 'timeout' does",
        "\"ready\" | \"timeout\"",
    ),
    ("'A' and 'B' or 'C'", "\"A\" & \"B\" | \"C\""),
    ("'A' or 'B' and 'C'", "\"A\" | \"B\" & \"C\""),
    (
        "when “Build failed” or \"Build succeeded\" appears",
        "\"Build failed\" | \"Build succeeded\"",
    ),
    (
        "when 'up-to-date' or 'Already up to date' shows",
        "\"up-to-date\" | \"Already up to date\"",
    ),
    ("'OK'; 'DONE'", "\"OK\"+\"DONE\""),
    ("'OK'; or 'DONE'", "\"OK\" | \"DONE\""),
    // ---- phrases with negation ----
    (
        "when 'DONE' appears unless 'ERROR' appears",
        "\"DONE\" & !\"ERROR\"",
    ),
    (
        "when 'DONE' appears but not 'ERROR'",
        "\"DONE\" & !\"ERROR\"",
    ),
    (
        "when 'DONE' appears and not 'ERROR'",
        "\"DONE\" & !\"ERROR\"",
    ),
    (
        "when 'DONE' appears and 'ERROR' does not",
        "\"DONE\" & !\"ERROR\"",
    ),
    (
        "'Tests:' appears without 'failed'",
        "\"Tests:\" & !\"failed\"",
    ),
    (
        "when 'DONE' shows except if 'WARN' shows",
        "\"DONE\" & !\"WARN\"",
    ),
    (
        "when 'DONE' is printed and 'retrying' is not",
        "\"DONE\" & !\"retrying\"",
    ),
    ("when 'ERROR' does not appear", "model"),
    ("unless 'ERROR'", "model"),
    // ---- the seed's and the schema's own examples ----
    (
        "wake me when 'ALL DONE' is printed or an error appears",
        "\"ALL DONE\" | error",
    ),
    (
        "File download completes (the 'Download complete' notification appears), or an error dialog/message appears",
        "\"Download complete\" | error",
    ),
    (
        "the download completes or an error dialog appears",
        "finish | error",
    ),
    (
        "the data table is fully rendered with rows visible",
        "model",
    ),
    ("the page has loaded", "model"),
    ("the login form is visible", "model"),
    // ---- phrase plus detector ----
    (
        "when 'BUILD SUCCESSFUL' appears or the process exits",
        "\"BUILD SUCCESSFUL\" | finish",
    ),
    ("when 'ready' appears or it crashes", "\"ready\" | fail"),
    (
        "when \"Listening\" shows or the server exits",
        "\"Listening\" | finish",
    ),
    ("'PASSED' or any error", "\"PASSED\" | error"),
    (
        "when 'deployed' appears or the command fails",
        "\"deployed\" | fail",
    ),
    (
        "when 'ok' is printed and the prompt returns",
        "\"ok\" & prompt",
    ),
    (
        "when 'Done' appears or nothing new is printed for 60 seconds",
        "\"Done\" | quiet60",
    ),
    ("'ready' or a traceback", "\"ready\" | error"),
    (
        "when 'Tests passed' appears or a panic happens",
        "\"Tests passed\" | error",
    ),
    (
        "when 'up' shows and the log is quiet for 10s",
        "\"up\" & quiet10",
    ),
    // ---- finishing ----
    ("when the command finishes", "finish"),
    ("when the build finishes", "finish"),
    ("when the process exits", "finish"),
    ("when it finishes", "finish"),
    ("when it's done", "finish"),
    ("when the job is done", "finish"),
    ("when the script completes", "finish"),
    ("when the tests finish", "finish"),
    ("the install is complete", "finish"),
    ("when the download completes", "finish"),
    ("the command ends", "finish"),
    ("when the program terminates", "finish"),
    ("once the process has stopped", "finish"),
    ("when the server dies", "finish"),
    ("when it quits", "finish"),
    ("when the build succeeds", "finish-ok"),
    ("when the command completes successfully", "finish-ok"),
    ("when the build finishes without errors", "finish & !error"),
    ("when it finishes with 0 errors", "finish-ok"),
    ("when the migration finishes with no errors", "finish-ok"),
    ("when the deploy is over", "finish"),
    ("the command returns", "finish"),
    ("when make finishes or fails", "finish | fail"),
    (
        "when the tests finish, or when an error appears",
        "finish | error",
    ),
    (
        "when the upload finishes and the log is idle",
        "finish & quiet30",
    ),
    // ---- errors ----
    ("when an error appears", "error"),
    ("if it fails", "fail"),
    ("when the build fails", "fail"),
    ("on any error or failure", "error | fail"),
    ("when an exception is thrown", "error"),
    ("when a traceback is printed", "error"),
    ("when it panics", "fail"),
    ("when something fatal happens", "error"),
    ("when the server crashes", "fail"),
    ("when the tests fail", "fail"),
    ("when compilation errors show up", "error"),
    ("if the job aborts", "fail"),
    ("when there are no errors", "model"),
    ("when it segfaults", "fail"),
    ("when the build breaks", "fail"),
    // ---- the prompt ----
    ("when the prompt returns", "prompt"),
    ("when the prompt is back", "prompt"),
    ("when the shell prompt appears again", "prompt"),
    ("when the shell is ready", "prompt"),
    (
        "when the command finishes and the prompt returns",
        "finish & prompt",
    ),
    // ---- quiet ----
    ("when the output stops changing", "quiet30"),
    ("when the output stops changing for 10 seconds", "quiet10"),
    ("when there is no new output for 2 minutes", "quiet120"),
    ("when nothing new is printed for 45s", "quiet45"),
    ("when the log is quiet for 5 min", "quiet300"),
    ("when the screen stays still for 20 seconds", "quiet20"),
    ("when the terminal is idle for a minute", "quiet60"),
    ("when it stops printing", "quiet30"),
    ("when the log goes silent", "quiet30"),
    ("no output for 90 s", "quiet90"),
    ("when the page stops moving", "quiet30"),
    (
        "when the output has been unchanged for 1.5 minutes",
        "quiet90",
    ),
    // ---- numbers ----
    ("when progress reaches 100%", "num(progress≥100%)"),
    ("when the download is at 100%", "num(download≥100%)"),
    ("when the progress bar hits 100%", "num(progress≥100%)"),
    ("progress is 100%", "num(progress≥100%)"),
    ("when at least 3 passed", "num(≥3passed)"),
    ("when at least 10 tests passed", "num(≥10passed)"),
    ("when coverage is above 80%", "num(coverage>80%)"),
    ("when coverage exceeds 90 percent", "num(coverage>90%)"),
    ("when memory drops below 500 mb", "num(memory<500mb)"),
    ("when cpu falls below 10%", "num(cpu<10%)"),
    ("when the queue has fewer than 5 items", "num(queue<5items)"),
    ("when more than 100 rows are loaded", "model"),
    ("when progress ≥ 75%", "num(progress≥75%)"),
    ("when progress >= 75%", "num(progress≥75%)"),
    ("when progress > 50%", "num(progress>50%)"),
    ("when epoch gets to 10 epochs", "num(epoch≥10epochs)"),
    ("when accuracy reaches 0.95 acc", "num(accuracy≥0.95acc)"),
    ("when the count reaches 1,000 files", "num(≥1000files)"),
    ("when exactly 3 passed", "num(=3passed)"),
    ("when at most 2 failed", "num(≤2failed)"),
    ("when it is 5", "model"),
    (
        "when the download reaches 100% or fails",
        "num(download≥100%) | fail",
    ),
    // ---- conditions only a model can judge ----
    ("when the page looks right", "model"),
    ("when the tests look green", "model"),
    ("when the chart shows an upward trend", "model"),
    ("when the video starts playing", "model"),
    ("when the user logs in", "model"),
    ("when the spreadsheet has data in column B", "model"),
    (
        "when 'ready' appears and the dashboard is healthy",
        "\"ready\" & model",
    ),
    (
        "when the deploy is healthy or 'rollback' appears",
        "model | \"rollback\"",
    ),
    ("when the map has loaded", "model"),
    ("something interesting happens", "model"),
    // ---- odd input ----
    ("", "model"),
    ("   ", "model"),
    ("''", "model"),
    ("when", "model"),
    ("or", "model"),
    ("and and", "model"),
    ("'unclosed quote", "model"),
    ("when 'A' and", "\"A\""),
    ("(when 'A' appears)", "\"A\""),
    ("when the build (and the tests) finish", "finish"),
    ("when 'A' appears, then 'B'", "\"A\" & \"B\""),
];

#[test]
fn every_phrasing_reads_as_expected() {
    assert!(PHRASINGS.len() >= 150, "{} phrasings", PHRASINGS.len());
    let wrong: Vec<String> = PHRASINGS
        .iter()
        .filter_map(|(condition, expected)| {
            let got = sketch(&Reading::parse(condition));
            (got != *expected)
                .then(|| format!("{condition:?}\n    expected {expected}\n    read     {got}"))
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "{} of {} phrasings misread:\n{}",
        wrong.len(),
        PHRASINGS.len(),
        wrong.join("\n")
    );
}

#[test]
fn clause_texts_are_what_the_agent_wrote() {
    let reading = Reading::parse("wake me when 'ALL DONE' is printed or an error appears");
    let texts: Vec<&str> = reading.clauses().map(|c| c.text.as_str()).collect();
    assert_eq!(texts, ["'ALL DONE' is printed", "an error appears"]);
    let reading = Reading::parse("when “A” and \"B\" are printed");
    let texts: Vec<&str> = reading.clauses().map(|c| c.text.as_str()).collect();
    assert_eq!(texts, ["“A”", "\"B\" are printed"]);
}

#[test]
fn who_judges_each_clause_depends_on_the_target_and_the_model() {
    let reading = Reading::parse(
        "'ALL DONE' or an error or the process exits or the page looks right or quiet for 10s",
    );
    let file = Judges {
        text: true,
        exit_known: false,
        has_prompt: false,
        model: Reach::None,
    };
    let judged: Vec<String> = reading
        .judged_by(file)
        .into_iter()
        .map(|(_, by)| by.to_string())
        .collect();
    assert_eq!(judged[0], "phrase match");
    assert_eq!(judged[1], "error lines");
    assert!(
        judged[2].starts_with("a line that says the work ended"),
        "{}",
        judged[2]
    );
    assert_eq!(judged[3], "nobody: no model configured");
    assert_eq!(judged[4], "no change for 10s");

    let terminal = Judges {
        exit_known: true,
        has_prompt: true,
        model: Reach::Full,
        ..file
    };
    let judged: Vec<JudgedBy> = reading
        .judged_by(terminal)
        .into_iter()
        .map(|(_, by)| by)
        .collect();
    assert_eq!(
        judged[2],
        JudgedBy::Detector("exit status, either way".into())
    );
    assert_eq!(judged[3], JudgedBy::Model);

    let window = Judges {
        text: false,
        exit_known: false,
        has_prompt: false,
        model: Reach::None,
    };
    assert!(
        reading
            .judged_by(window)
            .iter()
            .take(4)
            .all(|(_, by)| *by == JudgedBy::Nobody),
        "pixels need a model for everything but quiet"
    );
}

#[test]
fn phrases_and_quiet_clauses_are_found() {
    let reading = Reading::parse("'A' or 'B' and no new output for 15 seconds");
    assert_eq!(reading.phrases(), ["A", "B"]);
    assert_eq!(reading.quiet_clause(), Some(Duration::from_secs(15)));
}

#[test]
fn every_quote_style_reads_its_phrase_whole_and_keeps_every_character() {
    let styles = [
        ("'", "'"),
        ("\"", "\""),
        ("“", "”"),
        ("‘", "’"),
        ("„", "“"),
        ("‚", "‘"),
        ("`", "`"),
        ("«", "»"),
        ("»", "«"),
        ("‹", "›"),
        ("「", "」"),
        ("『", "』"),
        ("《", "》"),
    ];
    for (open, close) in styles {
        for phrase in ["Fertig", "完了", "don't stop", "v1.2.3"] {
            let quoted = format!("{open}{phrase}{close}");
            let reading = Reading::parse(&quoted);
            assert_eq!(reading.phrases(), [phrase], "{quoted}");
            let texts: Vec<&str> = reading.clauses().map(|c| c.text.as_str()).collect();
            assert_eq!(texts, [quoted.as_str()], "{quoted}");
        }
        // Next to Japanese, which has no spaces, a quote is still a quote.
        let japanese = format!("ログに{open}DONE{close}が出たら");
        assert_eq!(Reading::parse(&japanese).phrases(), ["DONE"], "{japanese}");
    }
}
