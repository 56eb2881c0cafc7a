//! The config's parsing, defaults, validation and resolution against the environment.

use actors::sight::capture::portal::PortalSettings;
use actors::sight::capture::wayland::ScreenAccess;

use super::display::configured_else_environment;
use super::*;

#[test]
fn the_example_config_is_the_defaults() {
    let example = Config::parse(EXAMPLE, Path::new("config.example.toml")).unwrap();
    assert_eq!(example, Config::default());
}

#[test]
fn unknown_keys_name_the_key_and_the_file() {
    let error =
        Config::parse("max_request_byte = 5\n", Path::new("/etc/lookout.toml")).unwrap_err();
    let text = format!("{error:#}");
    assert!(text.contains("/etc/lookout.toml"), "{text}");
    assert!(text.contains("max_request_byte"), "{text}");
    let nested =
        Config::parse("[storage]\ngroup_comit = false\n", Path::new("c.toml")).unwrap_err();
    assert!(format!("{nested:#}").contains("group_comit"));
}

#[test]
fn the_page_cache_size_is_bounded() {
    let parse = |mib: u64| {
        Config::parse(
            &format!("[storage]\ncache_mib = {mib}\n"),
            Path::new("c.toml"),
        )
    };
    assert_eq!(parse(64).unwrap().storage.cache_mib, 64);
    for refused in [0, MAX_CACHE_MIB + 1] {
        let text = format!("{:#}", parse(refused).unwrap_err());
        assert!(
            text.contains(&format!(
                "[storage] cache_mib = {refused} must be between 1 and 16384"
            )),
            "{text}"
        );
    }
}

#[test]
fn the_commented_sink_examples_are_valid_config() {
    let uncommented: String = EXAMPLE
        .lines()
        .map(|line| match line.strip_prefix("# ") {
            Some(rest)
                if rest.starts_with("[[wake.sinks]]")
                    || rest.contains(" = ")
                        && !rest.starts_with("data_dir")
                        && !rest.starts_with("socket_path") =>
            {
                rest
            }
            _ => line,
        })
        .collect::<Vec<_>>()
        .join("\n");
    let config =
        Config::parse(&uncommented, Path::new("config.example.toml (uncommented)")).unwrap();
    let kinds: Vec<&str> = config.wake.sinks.iter().map(SinkConfig::kind).collect();
    assert_eq!(kinds, ["openclaw", "openclaw-cli", "command", "webhook"]);
    let SinkConfig::Webhook(webhook) = &config.wake.sinks[3] else {
        unreachable!()
    };
    assert_eq!(webhook.token_env.as_deref(), Some("OPENCLAW_HOOKS_TOKEN"));
    assert!(
        Config::parse(
            "[[wake.sinks]]\nkind = \"carrier-pigeon\"\n",
            Path::new("c.toml")
        )
        .is_err()
    );
    let extra = Config::parse(
        "[[wake.sinks]]\nkind = \"command\"\nprogram = \"x\"\nshell = true\n",
        Path::new("c.toml"),
    );
    assert!(format!("{:#}", extra.unwrap_err()).contains("shell"));
}

#[test]
fn the_commented_vision_examples_are_valid_config() {
    let vision_block = EXAMPLE
        .split("[vision]")
        .nth(1)
        .expect("the example has a [vision] table");
    let uncommented: String = vision_block
        .lines()
        .take_while(|line| !line.starts_with('['))
        .map(|line| match line.strip_prefix("# ") {
            Some(rest) if rest.contains(" = ") => rest,
            _ => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
        .replace("backend = \"none\"", "backend = \"openai\"");
    let config = Config::parse(
        &format!("[vision]{uncommented}"),
        Path::new("config.example.toml (vision, uncommented)"),
    )
    .unwrap();
    assert_eq!(config.vision.backend, VisionBackend::Openai);
    assert_eq!(config.vision.model.as_deref(), Some("gpt-4o-mini"));
    assert_eq!(config.vision.api_key_env.as_deref(), Some("OPENAI_API_KEY"));
    for bad in [
        "[vision]\nbackend = \"gpt\"\n",
        "[vision]\nmax_concurrency = 0\n",
        "[vision]\njpeg_quality = 101\n",
        "[vision]\nmax_image_px = 10\n",
        "[vision]\nimage_format = \"webp\"\n",
        "[vision]\napi_key = \"sk-...\"\n",
    ] {
        assert!(Config::parse(bad, Path::new("c.toml")).is_err(), "{bad}");
    }
}

fn surroundings(
    wayland_display: Option<&str>,
    swaysock: Option<&str>,
    session_bus: Option<&str>,
) -> WaylandEnvironment {
    WaylandEnvironment {
        wayland_display: wayland_display.map(str::to_owned),
        swaysock: swaysock.map(PathBuf::from),
        session_bus: session_bus.map(str::to_owned),
        runtime_dir: PathBuf::from("/run/user/1000"),
        data_folder: PathBuf::from("/home/u/.local/share/lookout"),
    }
}

#[test]
fn the_session_is_wayland_when_a_compositor_is_named_else_x11() {
    let run = Path::new("/run/user/1000");
    let auto = WaylandConfig::default();
    assert_eq!(
        auto.resolve(surroundings(None, None, None)),
        None,
        "no WAYLAND_DISPLAY: X11"
    );
    let found = auto
        .resolve(surroundings(
            Some("wayland-1"),
            Some("/run/sway.sock"),
            None,
        ))
        .unwrap();
    assert_eq!(found.socket, run.join("wayland-1"));
    assert_eq!(found.sway, Some(PathBuf::from("/run/sway.sock")));
    let x11 = WaylandConfig {
        session: Session::X11,
        ..WaylandConfig::default()
    };
    assert_eq!(
        x11.resolve(surroundings(Some("wayland-1"), None, None)),
        None
    );
    let forced = WaylandConfig {
        session: Session::Wayland,
        display: Some("/tmp/wl/wayland-9".into()),
        sway_socket: Some("/tmp/wl/ipc.sock".into()),
        ..WaylandConfig::default()
    };
    let found = forced
        .resolve(surroundings(
            Some("wayland-1"),
            Some("/run/other.sock"),
            None,
        ))
        .unwrap();
    assert_eq!(found.socket, PathBuf::from("/tmp/wl/wayland-9"));
    assert_eq!(found.sway, Some(PathBuf::from("/tmp/wl/ipc.sock")));
    let default_socket = WaylandConfig {
        session: Session::Wayland,
        ..WaylandConfig::default()
    };
    assert_eq!(
        default_socket
            .resolve(surroundings(None, None, None))
            .unwrap()
            .socket,
        run.join("wayland-0")
    );
    let error = Config::parse("[wayland]\nsession = \"mir\"\n", Path::new("c.toml")).unwrap_err();
    let error = format!("{error:#}");
    assert!(
        error.contains("unknown variant `mir`") && error.contains("session"),
        "{error}"
    );
}

#[test]
fn pixels_are_read_by_screencopy_or_the_portal_with_its_token_in_the_data_folder() {
    let token = PathBuf::from("/home/u/.local/share/lookout").join(PORTAL_TOKEN_FILE);
    let found = WaylandConfig::default()
        .resolve(surroundings(
            Some("wayland-0"),
            None,
            Some("unix:path=/tmp/b"),
        ))
        .unwrap();
    assert_eq!(
        found.access,
        ScreenAccess::Auto(PortalSettings {
            bus: "unix:path=/tmp/b".into(),
            token_file: token.clone(),
        }),
        "auto: the portal where screencopy is missing, on the session's bus"
    );
    let portal = WaylandConfig {
        capture: Capture::Portal,
        ..WaylandConfig::default()
    };
    let found = portal.resolve(surroundings(None, None, None)).unwrap();
    assert_eq!(
        found.access,
        ScreenAccess::Portal(PortalSettings {
            bus: "unix:path=/run/user/1000/bus".into(),
            token_file: token,
        }),
        "the portal needs no compositor named; the bus defaults to the runtime folder's"
    );
    let screencopy = WaylandConfig {
        capture: Capture::Screencopy,
        session_bus: Some("unix:path=/elsewhere".into()),
        ..WaylandConfig::default()
    };
    let found = screencopy
        .resolve(surroundings(Some("wayland-0"), None, None))
        .unwrap();
    assert_eq!(found.access, ScreenAccess::Screencopy);
    let error =
        Config::parse("[wayland]\ncapture = \"pipewire\"\n", Path::new("c.toml")).unwrap_err();
    let error = format!("{error:#}");
    assert!(
        error.contains("unknown variant `pipewire`") && error.contains("capture"),
        "{error}"
    );
}

#[test]
fn the_display_is_the_config_key_else_display() {
    assert_eq!(
        configured_else_environment(Some(":1"), Some(":0".into())),
        Some(":1".into())
    );
    assert_eq!(
        configured_else_environment(None, Some(":0".into())),
        Some(":0".into())
    );
    assert_eq!(
        configured_else_environment(Some(" "), Some(":0".into())),
        Some(":0".into())
    );
    assert_eq!(configured_else_environment(None, Some(String::new())), None);
    assert_eq!(configured_else_environment(None, None), None);
    let config = Config::parse("[x11]\ndisplay = \":7\"\n", Path::new("c.toml")).unwrap();
    assert_eq!(config.x11.resolved_display(), Some(":7".into()));
}

#[test]
fn values_are_checked() {
    assert!(Config::parse("max_request_bytes = 10\n", Path::new("c.toml")).is_err());
    assert!(Config::parse("log_level = \"loud\"\n", Path::new("c.toml")).is_err());
    assert!(Config::parse("[wait]\nfloor_s = 0\n", Path::new("c.toml")).is_err());
    let floor = Config::parse("[wait]\nfloor_s = 30\n", Path::new("c.toml")).unwrap();
    assert_eq!(floor.wait.floor(), std::time::Duration::from_secs(30));
    let grace = Config::parse("[wait]\nwindow_gone_grace_s = 5\n", Path::new("c.toml")).unwrap();
    assert_eq!(
        grace.wait.window_gone_grace(),
        std::time::Duration::from_secs(5)
    );
    let custom = Config::parse("data_dir = \"/srv/lookout\"\n", Path::new("c.toml")).unwrap();
    assert_eq!(custom.data_dir, Some(PathBuf::from("/srv/lookout")));
}

#[test]
fn procedures_from_a_model_need_a_model_that_describes() {
    for vision in ["", "[vision]\nbackend = \"ocr\"\n"] {
        let text = format!("[recall]\nprocedures = \"model\"\n{vision}");
        let error = format!(
            "{:#}",
            Config::parse(&text, Path::new("c.toml")).unwrap_err()
        );
        assert!(
            error.contains("backend = \"openai\" or \"anthropic\""),
            "{error}"
        );
    }
    let text =
        "[recall]\nprocedures = \"model\"\n[vision]\nbackend = \"anthropic\"\nmodel = \"m\"\n";
    let config = Config::parse(text, Path::new("c.toml")).unwrap();
    assert_eq!(config.recall.procedures, Procedures::Model);
    let error = Config::parse("[recall]\nprocedures = \"ai\"\n", Path::new("c.toml")).unwrap_err();
    assert!(format!("{error:#}").contains("`model`"), "{error:#}");
}
