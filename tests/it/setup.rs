//! `lookout setup <runtime>` against the runtimes' own command lines: stand-in `claude` and
//! `openclaw` programs that record how they were called (default tier), and the real
//! `claude` from the npm registry, pinned, which validates, installs and removes the plugin
//! (full tier).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use crate::support::{BINARY, build_aside, npm_install};

/// The Claude Code release the full tier checks the plugin and its wakes with.
pub const CLAUDE_CODE_VERSION: &str = "2.1.332";

/// A home of its own for one test: `HOME`, the data folder, a `bin` folder first on `PATH`.
struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn new() -> Home {
        let home = Home {
            dir: tempfile::tempdir().unwrap(),
        };
        std::fs::create_dir(home.bin()).unwrap();
        home
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn bin(&self) -> PathBuf {
        self.path().join("bin")
    }

    /// A stand-in for `program` that appends its arguments to `<program>.calls`.
    fn stand_in(&self, program: &str) {
        let calls = self.path().join(format!("{program}.calls"));
        let script = format!(
            "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '{}'\necho \"ok: $1 $2\"\n",
            calls.display()
        );
        let path = self.bin().join(program);
        std::fs::write(&path, script).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    fn calls(&self, program: &str) -> Vec<String> {
        std::fs::read_to_string(self.path().join(format!("{program}.calls")))
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect()
    }

    /// Runs `lookout setup …` here; (exit code, stdout).
    fn setup(&self, args: &[&str], path_after: &str) -> (i32, String) {
        let output = Command::new(BINARY)
            .arg("setup")
            .args(args)
            .args(["--socket", &self.path().join("no.sock").to_string_lossy()])
            .env_clear()
            .env("HOME", self.path())
            .env("XDG_DATA_HOME", self.path().join("data"))
            .env("PATH", format!("{}:{path_after}", self.bin().display()))
            .output()
            .unwrap();
        (
            output.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&output.stdout).into_owned()
                + &String::from_utf8_lossy(&output.stderr),
        )
    }

    fn plugin_folder(&self) -> PathBuf {
        self.path().join("data/lookout/claude-code")
    }
}

fn repository(path: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap()
}

#[test]
fn setup_claude_code_writes_the_plugin_installs_it_through_claude_and_undoes_it() {
    let home = Home::new();
    home.stand_in("claude");
    let (code, said) = home.setup(&["claude-code"], "/usr/bin:/bin");
    assert_eq!(code, 0, "{said}");
    let folder = home.plugin_folder();
    for place in [
        ".claude-plugin/plugin.json",
        "hooks/hooks.json",
        "skills/lookout/SKILL.md",
    ] {
        assert_eq!(
            std::fs::read_to_string(folder.join("plugins/lookout").join(place)).unwrap(),
            repository(&format!("contrib/claude-code/plugins/lookout/{place}")),
            "{place}"
        );
    }
    let marketplace: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(folder.join(".claude-plugin/marketplace.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(marketplace["plugins"][0]["source"], "./plugins/lookout");
    assert_eq!(
        home.calls("claude"),
        [
            format!("plugin marketplace add {}", folder.display()),
            "plugin install lookout@lookout".to_owned()
        ]
    );
    assert!(said.contains("Wrote 4 files of the plugin"), "{said}");
    assert!(said.contains("No daemon answers"), "{said}");

    // Again: nothing to write, the same two idempotent commands.
    let (code, said) = home.setup(&["claude-code"], "/usr/bin:/bin");
    assert_eq!(code, 0, "{said}");
    assert!(said.contains("is up to date"), "{said}");

    let (code, said) = home.setup(&["claude-code", "--undo"], "/usr/bin:/bin");
    assert_eq!(code, 0, "{said}");
    assert_eq!(
        home.calls("claude")[4..],
        [
            "plugin uninstall lookout@lookout".to_owned(),
            "plugin marketplace remove lookout".to_owned()
        ]
    );
    assert!(!folder.exists(), "the plugin folder is removed");
}

#[test]
fn without_claude_on_path_setup_prints_the_two_commands() {
    let home = Home::new();
    let (code, said) = home.setup(&["claude-code"], "/usr/bin:/bin");
    assert_eq!(code, 0, "{said}");
    assert!(
        said.contains(&format!(
            "claude plugin marketplace add {}",
            home.plugin_folder().display()
        )) && said.contains("claude plugin install lookout@lookout"),
        "{said}"
    );
}

#[test]
fn setup_openclaw_sets_the_mcp_server_and_the_skill() {
    let home = Home::new();
    home.stand_in("openclaw");
    let (code, said) = home.setup(&["openclaw"], "/usr/bin:/bin");
    assert_eq!(code, 0, "{said}");
    assert_eq!(
        home.calls("openclaw"),
        [r#"mcp set lookout {"command":"lookout","args":["mcp"]}"#]
    );
    let skill = home.path().join(".openclaw/skills/lookout/SKILL.md");
    assert_eq!(
        std::fs::read_to_string(&skill).unwrap(),
        repository("contrib/openclaw/SKILL.md")
    );
    assert!(
        said.contains("Wakes: checked once the daemon runs"),
        "{said}"
    );
    assert!(said.contains("[recall] sources = [\"openclaw\"]"), "{said}");
    let (code, said) = home.setup(&["openclaw", "--undo"], "/usr/bin:/bin");
    assert_eq!(code, 0, "{said}");
    assert_eq!(home.calls("openclaw")[1], "mcp unset lookout");
    assert!(!skill.exists());
}

#[test]
fn setup_codex_adds_its_table_once_and_undo_leaves_the_rest() {
    let home = Home::new();
    let config = home.path().join(".codex/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(&config, "model = \"o4-mini\"\n").unwrap();
    let (code, said) = home.setup(&["codex"], "/usr/bin:/bin");
    assert_eq!(code, 0, "{said}");
    let written = std::fs::read_to_string(&config).unwrap();
    assert_eq!(
        written,
        "model = \"o4-mini\"\n\n[mcp_servers.lookout]\ncommand = \"lookout\"\nargs = [\"mcp\"]\n"
    );
    assert!(
        written.parse::<toml::Table>().is_ok(),
        "still TOML: {written}"
    );
    let (_, said) = home.setup(&["codex"], "/usr/bin:/bin");
    assert!(said.contains("left as it is"), "{said}");
    assert_eq!(std::fs::read_to_string(&config).unwrap(), written);
    let (code, _) = home.setup(&["codex", "--undo"], "/usr/bin:/bin");
    assert_eq!(code, 0);
    assert_eq!(
        std::fs::read_to_string(&config).unwrap(),
        "model = \"o4-mini\"\n\n"
    );
}

/// The real Claude Code, pinned, installed from the npm registry under the target folder on
/// first use; the folder of its `claude`.
pub fn real_claude() -> PathBuf {
    static MADE: Mutex<Option<PathBuf>> = Mutex::new(None);
    let mut made = MADE.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(bin) = made.as_ref() {
        return bin.clone();
    }
    let package = format!("@anthropic-ai/claude-code@{CLAUDE_CODE_VERSION}");
    let folder = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("claude-code-{CLAUDE_CODE_VERSION}"));
    let bin = folder.join("node_modules/.bin");
    if !bin.join("claude").exists() {
        build_aside(&folder, |building| npm_install(building, &package, &[]));
    }
    *made = Some(bin.clone());
    bin
}

#[test]
#[cfg_attr(
    not(lookout_full_tests),
    ignore = "full tier (LOOKOUT_FULL_TESTS=1): needs npm and the npm registry (the real claude)"
)]
fn the_real_claude_validates_installs_and_removes_the_plugin() {
    let claude_bin = real_claude();
    let home = Home::new();
    let path_after = format!("{}:/usr/bin:/bin", claude_bin.display());
    let claude = |args: &[&str]| {
        let output = Command::new(claude_bin.join("claude"))
            .args(args)
            .env("HOME", home.path())
            .env("PATH", &path_after)
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&output.stdout).into_owned()
            + &String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "claude {args:?}: {said}");
        said
    };
    let root = env!("CARGO_MANIFEST_DIR");
    for manifest in [
        root.to_owned(),
        format!("{root}/contrib/claude-code/plugins/lookout"),
    ] {
        let said = claude(&["plugin", "validate", &manifest]);
        // The checks of Anthropic's plugin directory (an icon for its listing) are printed
        // apart and "do not change the result below": the manifest itself warns of nothing.
        let manifest_checks = match said.split_once("Plugin directory checks") {
            Some((before, rest)) => {
                before.to_owned() + rest.split_once("do not change the result below").unwrap().1
            }
            None => said.clone(),
        };
        assert!(
            said.contains("Validation passed")
                && !manifest_checks.contains("warning")
                && !manifest_checks.contains('⚠')
                && !said.contains("LICENSE_MISSING"),
            "claude plugin validate {manifest}: {said}"
        );
    }
    let (code, said) = home.setup(&["claude-code"], &path_after);
    assert_eq!(code, 0, "{said}");
    let listed = claude(&["plugin", "list"]);
    assert!(
        listed.contains("lookout@lookout") && listed.contains("enabled"),
        "{listed}"
    );
    let (code, said) = home.setup(&["claude-code"], &path_after);
    assert_eq!(code, 0, "run again: {said}");
    let (code, said) = home.setup(&["claude-code", "--undo"], &path_after);
    assert_eq!(code, 0, "{said}");
    let listed = claude(&["plugin", "list"]);
    assert!(!listed.contains("lookout@lookout"), "{listed}");
}
