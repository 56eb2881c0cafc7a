//! The house rules the compiler cannot see, checked on the source tree: every file says what
//! it is for, no stale markers, the layers keep to their side (no sockets or environment in
//! `actors`, no async runtime in `storage`, no import from `waits` in `tasks`), no module
//! grows past the size where it stops being readable, a supervisor hears of its children's
//! deaths, and every path ARCHITECTURE.md names exists.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every file under `folder` whose name ends with one of `extensions`, skipping build output.
fn files(folder: &Path, extensions: &[&str]) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![folder.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if path.is_dir() {
                if !matches!(name.as_str(), "target" | ".git" | "corpus" | "artifacts") {
                    pending.push(path);
                }
            } else if extensions.iter().any(|ext| name.ends_with(ext)) {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

fn rust_files() -> Vec<PathBuf> {
    [
        "src",
        "actors/src",
        "storage/src",
        "recall/src",
        "tests",
        "benches",
        "examples",
        "fuzz",
    ]
    .iter()
    .flat_map(|folder| files(&root().join(folder), &[".rs"]))
    .collect()
}

fn relative(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap_or(path)
        .display()
        .to_string()
}

/// Whether a file is test or benchmark support rather than daemon code.
fn is_test_code(path: &Path) -> bool {
    let text = relative(path);
    text.starts_with("tests/")
        || text.starts_with("benches/")
        || text.contains("/tests/")
        || text.ends_with("/tests.rs")
        || text.ends_with("test_display.rs")
        || text.contains("/testkit/")
        || text.ends_with("/synthetic.rs")
}

/// The file's text before its inline test module, if any.
fn without_inline_tests(text: &str) -> &str {
    match text.find("#[cfg(test)]\nmod tests {") {
        Some(at) => &text[..at],
        None => text,
    }
}

#[test]
fn every_rust_file_opens_with_a_module_comment() {
    let missing: Vec<String> = rust_files()
        .into_iter()
        .filter(|path| {
            let text = std::fs::read_to_string(path).unwrap();
            !text.trim_start().starts_with("//!")
        })
        .map(|path| relative(&path))
        .collect();
    assert!(
        missing.is_empty(),
        "these files do not open with a `//!` saying what they are for: {missing:?}"
    );
}

#[test]
fn no_stale_markers() {
    let markers = ["(later)", "(and, later", ", later,", "TODO", "FIXME", "XXX"];
    let mut documents = rust_files();
    documents.extend(files(&root(), &[".md"]));
    let mut found = Vec::new();
    for path in documents {
        let text = std::fs::read_to_string(&path).unwrap();
        for (number, line) in text.lines().enumerate() {
            // This file names the markers it looks for.
            if path.ends_with("tests/it/tidy.rs") {
                continue;
            }
            if let Some(marker) = markers.iter().find(|marker| line.contains(*marker)) {
                found.push(format!("{}:{}: {marker}", relative(&path), number + 1));
            }
        }
    }
    assert!(found.is_empty(), "stale markers: {found:#?}");
}

/// The files of `actors` that connect to a socket as a client (a compositor, sway's IPC);
/// none listens, and nothing else opens one.
const ACTORS_CLIENT_SOCKETS: [&str; 2] = [
    "actors/src/sight/capture/wayland/client.rs",
    "actors/src/sight/capture/wayland/sway.rs",
];

#[test]
fn actors_listen_on_no_socket_speak_no_json_rpc_and_read_no_environment() {
    let mut found = Vec::new();
    for path in files(&root().join("actors/src"), &[".rs"]) {
        if is_test_code(&path) {
            continue;
        }
        let name = relative(&path);
        let text = std::fs::read_to_string(&path).unwrap();
        let code: String = without_inline_tests(&text)
            .lines()
            .filter(|line| !line.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        let mut forbidden = vec![
            "std::env::var",
            "env::var",
            "UnixListener",
            "TcpListener",
            "jsonrpc",
            "JSON-RPC",
        ];
        if !ACTORS_CLIENT_SOCKETS.contains(&name.as_str()) {
            forbidden.extend(["tokio::net", "std::net", "unix::net"]);
        }
        for word in forbidden {
            if code.contains(word) {
                found.push(format!("{name}: {word}"));
            }
        }
    }
    assert!(
        found.is_empty(),
        "actors listens on no socket, knows nothing of JSON-RPC and reads no environment \
         (src/ does): {found:?}"
    );
    // A build fact too: the edge crate is not among actors' dependencies, so nothing of the
    // server, the config or the protocol can be named there.
    let manifest = std::fs::read_to_string(root().join("actors/Cargo.toml")).unwrap();
    assert!(
        !manifest.contains("lookout-agent"),
        "actors depends on the edge crate"
    );
}

/// Only the Registry touches the database: the handle to it (`Arc<Store>`) is passed from the
/// tree's arguments through the Root to the Registry and held nowhere else, and everyone
/// else reads through `registry::read` closures the Registry runs and writes through it.
#[test]
fn only_the_registry_holds_the_database() {
    let allowed = [
        "actors/src/tree/args.rs",
        "actors/src/root.rs",
        "actors/src/registry.rs",
    ];
    let mut found = Vec::new();
    for path in files(&root().join("actors/src"), &[".rs"]) {
        let name = relative(&path);
        if is_test_code(&path) || name.contains("/testkit/") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let code = without_inline_tests(&text);
        let holds = code.contains("Arc<Store>") && !allowed.contains(&name.as_str());
        let writes = code.contains("store.apply(") && name != "actors/src/registry.rs";
        if holds || writes {
            found.push(name);
        }
    }
    assert!(
        found.is_empty(),
        "only the Registry holds the database; read with registry::read and write through \
         the Registry instead: {found:?}"
    );
}

#[test]
fn storage_knows_nothing_of_the_runtime_or_the_actors() {
    let manifest = std::fs::read_to_string(root().join("storage/Cargo.toml")).unwrap();
    let dependencies = manifest
        .split("[dependencies]")
        .nth(1)
        .unwrap_or_default()
        .split("\n[")
        .next()
        .unwrap_or_default();
    for crate_name in ["tokio", "ractor", "actors"] {
        assert!(
            !dependencies
                .lines()
                .any(|line| line.trim_start().starts_with(crate_name)),
            "storage must not depend on {crate_name}"
        );
    }
    for path in files(&root().join("storage/src"), &[".rs"]) {
        let text = std::fs::read_to_string(&path).unwrap();
        for forbidden in ["tokio::", "ractor::", "jsonrpc"] {
            assert!(
                !text.contains(forbidden),
                "{} uses {forbidden}",
                relative(&path)
            );
        }
    }
}

/// The backticked names in ARCHITECTURE.md that look like paths: `waits/actor.rs`, `src/`,
/// `config.example.toml`.
fn named_paths(document: &str) -> Vec<String> {
    let mut names = Vec::new();
    for (index, piece) in document.split('`').enumerate() {
        if index % 2 == 0 || piece.contains(' ') || piece.starts_with("../") {
            continue;
        }
        let looks_like_file = [
            ".rs", ".toml", ".md", ".redb", ".json", ".service", ".socket",
        ]
        .iter()
        .any(|ext| piece.ends_with(ext));
        let looks_like_folder = piece.ends_with('/') && piece.len() > 1 && !piece.contains(':');
        if (looks_like_file || looks_like_folder) && !piece.contains('*') && !piece.contains('<') {
            names.push(piece.to_owned());
        }
    }
    names
}

#[test]
fn every_path_architecture_names_exists() {
    let document = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let mut everything: Vec<String> = files(&root(), &[""])
        .into_iter()
        .map(|path| relative(&path))
        .collect();
    // Folders too, with a trailing slash.
    let folders: Vec<String> = everything
        .iter()
        .filter_map(|file| Path::new(file).parent())
        .flat_map(|parent| {
            parent
                .ancestors()
                .map(Path::to_path_buf)
                .collect::<Vec<_>>()
        })
        .filter(|folder| !folder.as_os_str().is_empty())
        .map(|folder| format!("{}/", folder.display()))
        .collect();
    everything.extend(folders);
    let missing: Vec<String> = named_paths(&document)
        .into_iter()
        .filter(|name| {
            let name = name.trim_start_matches("./");
            !everything
                .iter()
                .any(|path| path == name || path.ends_with(&format!("/{name}")))
        })
        .collect();
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names paths that do not exist: {missing:?}"
    );
}

#[test]
fn the_path_finder_sees_what_it_should() {
    let found = named_paths(
        "`waits/actor.rs` and `src/` and `lookout call` and `../shared/design.md` and `x: y/`",
    );
    assert_eq!(found, ["waits/actor.rs", "src/"]);
}

/// Modules over the reading limit, each waiting for a named split; a module that shrinks
/// under the limit must leave this list, so it only ever gets shorter.
const OVER_THE_LIMIT: [(&str, &str); 3] = [
    ("src/cli/mod.rs", "one module per command family"),
    (
        "src/tools/wire/tasks.rs",
        "task views apart from task packets",
    ),
    (
        "storage/src/store.rs",
        "the reads apart from opening and writing",
    ),
];

#[test]
fn no_module_outgrows_a_reading() {
    const MAX_LINES: usize = 700;
    let mut too_long = Vec::new();
    let mut over: Vec<String> = Vec::new();
    for folder in ["src", "actors/src", "storage/src", "recall/src"] {
        for path in files(&root().join(folder), &[".rs"]) {
            if is_test_code(&path) {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let lines = without_inline_tests(&text).lines().count();
            let name = relative(&path);
            if lines > MAX_LINES {
                over.push(name.clone());
                if !OVER_THE_LIMIT.iter().any(|(file, _)| *file == name) {
                    too_long.push(format!("{name} ({lines} lines)"));
                }
            }
        }
    }
    assert!(
        too_long.is_empty(),
        "split these by concern (at most {MAX_LINES} lines besides tests): {too_long:?}"
    );
    let shrunk: Vec<&str> = OVER_THE_LIMIT
        .iter()
        .map(|(file, _)| *file)
        .filter(|file| !over.iter().any(|name| name == file))
        .collect();
    assert!(
        shrunk.is_empty(),
        "these are within the limit now: take them off OVER_THE_LIMIT: {shrunk:?}"
    );
}

/// Unit tests sit at the end of their module while they are short enough to read with it;
/// longer ones move to a sibling `tests.rs` (`mod tests;`), so a module reads as its code.
#[test]
fn long_unit_tests_live_in_a_sibling_file() {
    const MAX_INLINE_TEST_LINES: usize = 250;
    let mut too_long = Vec::new();
    for folder in ["src", "actors/src", "storage/src", "recall/src"] {
        for path in files(&root().join(folder), &[".rs"]) {
            let text = std::fs::read_to_string(&path).unwrap();
            let code = without_inline_tests(&text);
            let lines = text[code.len()..].lines().count();
            if lines > MAX_INLINE_TEST_LINES {
                too_long.push(format!("{} ({lines} lines)", relative(&path)));
            }
        }
    }
    assert!(
        too_long.is_empty(),
        "move these inline tests to a sibling tests.rs (`#[cfg(test)] mod tests;`): {too_long:?}"
    );
}

#[test]
fn tasks_and_waits_do_not_import_each_other() {
    // Waits hand their changes to tasks (`tasks::TaskMsg`), so the arrow points waits → tasks;
    // what both need lives beside them (`linkage`, `wake::outbox`, `words`).
    let back: Vec<String> = files(&root().join("actors/src/tasks"), &[".rs"])
        .into_iter()
        .filter(|path| {
            std::fs::read_to_string(path)
                .unwrap()
                .contains("crate::waits")
        })
        .map(|path| relative(&path))
        .collect();
    assert!(back.is_empty(), "tasks imports waits in {back:?}");
}

/// The documentation stands on its own, and every link in it leads somewhere: a relative link
/// names a file of the repository (never one outside it) and, after `#`, a heading of that
/// file; no backticked path climbs out of the repository either.
#[test]
fn every_link_between_the_documents_leads_somewhere() {
    let mut broken = Vec::new();
    for path in files(&root(), &[".md"]) {
        let text = std::fs::read_to_string(&path).unwrap();
        for (number, line) in text.lines().enumerate() {
            if line.contains("`../") {
                broken.push(format!(
                    "{}:{}: a path outside the repository",
                    relative(&path),
                    number + 1
                ));
            }
        }
        for (number, link) in markdown_links(&text) {
            let at = format!("{}:{number}: ({link})", relative(&path));
            if link.contains("://") || link.starts_with("mailto:") {
                continue;
            }
            let (file, anchor) = match link.split_once('#') {
                Some((file, anchor)) => (file, Some(anchor)),
                None => (link.as_str(), None),
            };
            let document = if file.is_empty() {
                path.clone()
            } else {
                lexically_normal(&path.parent().unwrap().join(file))
            };
            if !document.starts_with(root()) {
                broken.push(format!("{at} points outside the repository"));
            } else if !document.exists() {
                broken.push(format!("{at}: no such file"));
            } else if let Some(anchor) = anchor {
                let target = std::fs::read_to_string(&document).unwrap_or_default();
                if !heading_anchors(&target).iter().any(|known| known == anchor) {
                    broken.push(format!("{at}: no such heading in {}", relative(&document)));
                }
            }
        }
    }
    assert!(
        broken.is_empty(),
        "links that lead nowhere:\n{}",
        broken.join("\n")
    );
}

/// The targets of the inline links `[text](target)` of a Markdown text, with their line
/// numbers, outside code blocks and code spans.
fn markdown_links(text: &str) -> Vec<(usize, String)> {
    let mut links = Vec::new();
    let mut fenced = false;
    for (index, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // Code spans hold examples, not links: drop them before looking.
        let prose: String = line
            .split('`')
            .enumerate()
            .filter(|(part, _)| part % 2 == 0)
            .map(|(_, text)| text)
            .collect::<Vec<_>>()
            .join(" ");
        let mut rest = prose.as_str();
        while let Some(start) = rest.find("](") {
            let after = &rest[start + 2..];
            let Some(end) = after.find(')') else { break };
            links.push((index + 1, after[..end].to_owned()));
            rest = &after[end..];
        }
    }
    links
}

/// `a/b/../c` as `a/c`, without asking the file system (the file may not exist).
fn lexically_normal(path: &Path) -> PathBuf {
    let mut normal = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::ParentDir => {
                normal.pop();
            }
            std::path::Component::CurDir => {}
            other => normal.push(other),
        }
    }
    normal
}

/// The anchors GitHub gives a document's headings: lower case, punctuation dropped, spaces
/// as hyphens, a repeated one numbered.
fn heading_anchors(text: &str) -> Vec<String> {
    let mut anchors = Vec::new();
    let mut seen = std::collections::HashMap::<String, usize>::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        if fenced || !line.starts_with('#') {
            continue;
        }
        let title = line.trim_start_matches('#').trim();
        let slug: String = title
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        let repeats = seen.entry(slug.clone()).or_default();
        *repeats += 1;
        let repeats = *repeats - 1;
        anchors.push(if repeats == 0 {
            slug
        } else {
            format!("{slug}-{repeats}")
        });
    }
    anchors
}

#[test]
fn the_link_reader_sees_what_it_should() {
    let text = "See [a](docs/a.md#the-b) and `[no](x.md)`.\n```\n[no](y.md)\n```\n[c](#run-it-as-a-service-systemd)";
    let links: Vec<String> = markdown_links(text)
        .into_iter()
        .map(|(_, link)| link)
        .collect();
    assert_eq!(links, ["docs/a.md#the-b", "#run-it-as-a-service-systemd"]);
    assert_eq!(
        heading_anchors(
            "## Run it as a service (systemd)\n### How `wake_when` is read\n## Notes\n## Notes"
        ),
        [
            "run-it-as-a-service-systemd",
            "how-wake_when-is-read",
            "notes",
            "notes-1"
        ]
    );
    assert_eq!(
        lexically_normal(Path::new("/r/docs/../contrib/x.md")),
        Path::new("/r/contrib/x.md")
    );
}

/// The folders of `src/` import one another in one direction: a cycle between two rooms
/// (as `spine → catalogue → params → spine` once was) means one holds what belongs to the
/// other.
#[test]
fn the_rooms_of_src_import_without_cycles() {
    use std::collections::{BTreeMap, BTreeSet};
    let mut imports: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for path in files(&root().join("src"), &[".rs"]) {
        let inside = path.strip_prefix(root().join("src")).unwrap();
        let room = inside
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        for used in text.split("crate::").skip(1) {
            let other: String = used
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || *c == '_')
                .collect();
            if !other.is_empty() && other != room {
                imports.entry(room.clone()).or_default().insert(other);
            }
        }
    }
    let reaches = |from: &str, to: &str| {
        let mut seen = BTreeSet::new();
        let mut pending = vec![from.to_owned()];
        while let Some(room) = pending.pop() {
            for next in imports.get(&room).into_iter().flatten() {
                if next == to {
                    return true;
                }
                if seen.insert(next.clone()) {
                    pending.push(next.clone());
                }
            }
        }
        false
    };
    let cycles: Vec<String> = imports
        .iter()
        .flat_map(|(room, others)| others.iter().map(move |other| (room, other)))
        .filter(|(room, other)| reaches(other, room))
        .map(|(room, other)| format!("{room} -> {other} -> … -> {room}"))
        .collect();
    assert!(
        cycles.is_empty(),
        "import cycles between the rooms of src/: {cycles:#?}"
    );
}

/// Comments and documents cite only what is in the repository: the founding documents'
/// passages the code relies on are restated in docs/contract.md, and every `docs/…` a
/// comment names exists.
#[test]
fn citations_name_only_what_the_repository_holds() {
    let outside = [
        "seed 00",
        "seeds/",
        "design.md",
        "shared/research",
        "research/",
    ];
    let mut found = Vec::new();
    let mut sources = rust_files();
    sources.extend(files(&root(), &[".md"]));
    for path in sources {
        if path.ends_with("tests/it/tidy.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for (number, line) in text.lines().enumerate() {
            if let Some(word) = outside.iter().find(|word| line.contains(*word)) {
                found.push(format!("{}:{}: {word}", relative(&path), number + 1));
            }
            for cited in line.split("docs/").skip(1) {
                let name: String = cited
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || "-_.".contains(*c))
                    .collect();
                let name = name.trim_end_matches('.');
                if name.ends_with(".md") && !root().join("docs").join(name).exists() {
                    found.push(format!("{}:{}: docs/{name}", relative(&path), number + 1));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "cite docs/contract.md (restate the passage there), not documents outside the \
         repository: {found:#?}"
    );
}

/// An actor that spawns linked children hears of their deaths: ractor's default
/// `handle_supervisor_evt` drops them, so a child that panicked would be gone unnoticed.
/// Checked per actor folder (the wait actor spawns its watcher in one file and handles its
/// events in another).
#[test]
fn every_supervisor_handles_its_children_s_events() {
    let mut unheard = Vec::new();
    for path in files(&root().join("actors/src"), &[".rs"]) {
        if is_test_code(&path) {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        if !without_inline_tests(&text).contains("spawn_linked(") {
            continue;
        }
        let folder = path.parent().unwrap();
        let handled = files(folder, &[".rs"]).iter().any(|sibling| {
            sibling.parent() == Some(folder)
                && std::fs::read_to_string(sibling)
                    .unwrap()
                    .contains("fn handle_supervisor_evt(")
        });
        if !handled {
            unheard.push(relative(&path));
        }
    }
    assert!(
        unheard.is_empty(),
        "these spawn linked children but no actor beside them overrides \
         handle_supervisor_evt: {unheard:?}"
    );
}

/// The README is what a newcomer reads first, in one sitting: what lookout is, the two
/// commands, install, a quick start, connecting a runtime, the tools. Engineering detail
/// lives in `docs/`, BENCHMARKS.md and CONTRIBUTING.md.
#[test]
fn the_readme_reads_in_one_sitting() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(
        lines <= 400,
        "README.md has {lines} lines; move detail to docs/ and link it (at most 400)"
    );
}
