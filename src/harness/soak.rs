//! The seeded soak: random operations and random faults, all drawn from one seed, with the
//! invariants checked every few steps and at the end. A failure names its seed; the same
//! seed replays the same operations and faults (`LOOKOUT_SOAK_SEED=<seed>`).

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use actors::ActorKind;
use actors::waits::scripted::ScriptedTarget;
use serde_json::{Value, json};

use super::invariants::Report;
use super::{Harness, Reply};
use crate::tools::spine::Method;

/// How long one call may take before the soak calls it a hang.
const CALL_LIMIT: Duration = Duration::from_secs(60);
/// Invariants are checked after this many steps (and at the end).
const CHECK_EVERY: usize = 25;

const ACTOR_KINDS: [ActorKind; 8] = [
    ActorKind::Registry,
    ActorKind::Tasks,
    ActorKind::Task,
    ActorKind::Waits,
    ActorKind::Wait,
    ActorKind::Watcher,
    ActorKind::Vision,
    ActorKind::Wake,
];

/// What a soak run did.
#[derive(Clone, Debug, Default)]
pub struct SoakReport {
    pub seed: u64,
    pub steps: usize,
    pub calls_ok: usize,
    /// Calls answered with an error (expected under faults; never a hang).
    pub calls_failed: usize,
    pub faults: usize,
    pub crashes: usize,
    pub restarts: usize,
    pub last_check: Report,
}

/// A broken invariant or a hung call, with what replays it.
#[derive(Clone, Debug)]
pub struct SoakFailure {
    pub seed: u64,
    pub step: usize,
    pub what: String,
}

impl fmt::Display for SoakFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "soak seed {} failed at step {}: {}\nreplay it: LOOKOUT_SOAK_SEED={} cargo test --all-features -p lookout-agent --test it harness::soak",
            self.seed, self.step, self.what, self.seed
        )
    }
}

impl std::error::Error for SoakFailure {}

/// splitmix64: small, fast, and the same sequence on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        if items.is_empty() {
            None
        } else {
            items.get(self.below(items.len()))
        }
    }
}

struct Soak {
    rng: Rng,
    report: SoakReport,
    tasks: Vec<String>,
    waits: Vec<String>,
    targets: BTreeMap<String, ScriptedTarget>,
}

/// Runs `steps` random steps from `seed` on a fresh harness.
pub async fn soak(seed: u64, steps: usize) -> Result<SoakReport, SoakFailure> {
    let fail = |step: usize, what: String| SoakFailure { seed, step, what };
    let mut harness = Harness::start_with(|config| {
        config.stuck.threshold_s = 600;
        config.stuck.scan_interval_s = 60;
        config.stuck.cooldown_s = 1800;
    })
    .await
    .map_err(|error| fail(0, format!("the harness did not start: {error:#}")))?;
    let mut soak = Soak {
        rng: Rng(seed),
        report: SoakReport {
            seed,
            ..SoakReport::default()
        },
        tasks: Vec::new(),
        waits: Vec::new(),
        targets: BTreeMap::new(),
    };
    for step in 1..=steps {
        soak.step(&mut harness, step)
            .await
            .map_err(|what| fail(step, what))?;
        if step % CHECK_EVERY == 0 || step == steps {
            clear_faults(&harness);
            harness
                .settle()
                .await
                .map_err(|error| fail(step, format!("the tree did not settle: {error:#}")))?;
            soak.report.last_check = harness
                .check_invariants()
                .await
                .map_err(|violations| fail(step, violations.to_string()))?;
        }
        soak.report.steps = step;
    }
    harness.shutdown().await;
    Ok(soak.report)
}

fn clear_faults(harness: &Harness) {
    harness.faults().disarm_all();
    harness.storage_faults().clear();
    harness.sink().fail_next(0);
}

impl Soak {
    async fn call(
        &mut self,
        harness: &Harness,
        method: Method,
        params: Value,
    ) -> Result<Option<Value>, String> {
        match tokio::time::timeout(CALL_LIMIT, harness.call(method, params.clone())).await {
            Ok(Ok(result)) => {
                self.report.calls_ok += 1;
                Ok(Some(result))
            }
            Ok(Err(_)) => {
                self.report.calls_failed += 1;
                Ok(None)
            }
            Err(_) => Err(format!(
                "{method}({params}) did not answer within {}s",
                CALL_LIMIT.as_secs()
            )),
        }
    }

    async fn step(&mut self, harness: &mut Harness, step: usize) -> Result<(), String> {
        match self.rng.below(100) {
            0..=9 => {
                let params = json!({
                    "name": format!("soak task {step}"),
                    "plan": ["Build", "Test", "Deploy"],
                });
                if let Some(result) = self.call(harness, Method::TaskRegister, params).await? {
                    self.tasks
                        .extend(result["task_id"].as_str().map(str::to_owned));
                }
            }
            10..=29 => {
                let Some(task) = self.rng.pick(&self.tasks).cloned() else {
                    return Ok(());
                };
                let mut params = json!({"task_id": task, "message": format!("note {step}")});
                match self.rng.below(6) {
                    0 => params["completed_steps"] = json!([1 + self.rng.below(3)]),
                    1 => params["current_step"] = json!(1 + self.rng.below(3)),
                    2 => params["status"] = json!("completed"),
                    3 => params["status"] = json!("active"),
                    4 => params["query"] = json!("where am I?"),
                    _ => {}
                }
                self.call(harness, Method::TaskUpdate, params).await?;
            }
            30..=41 => {
                let name = format!("tmux:soak-{}", self.rng.below(6));
                if !self.targets.contains_key(&name) {
                    let target = harness.target(&name, "idle");
                    self.targets.insert(name.clone(), target);
                }
                let wake_when = if self.rng.below(2) == 0 {
                    format!("'DONE {step}'")
                } else {
                    "the build is green".to_owned()
                };
                let mut params = json!({
                    "target": name,
                    "wake_when": wake_when,
                    "timeout": 60 + self.rng.below(600),
                });
                if let Some(task) = self.rng.pick(&self.tasks).cloned()
                    && self.rng.below(2) == 0
                {
                    params["task_id"] = json!(task);
                }
                if let Some(result) = self.call(harness, Method::SmartWait, params).await? {
                    self.waits
                        .extend(result["wait_id"].as_str().map(str::to_owned));
                }
            }
            42..=53 => {
                let names: Vec<String> = self.targets.keys().cloned().collect();
                let Some(name) = self.rng.pick(&names).cloned() else {
                    return Ok(());
                };
                let text = match self.rng.below(3) {
                    0 => format!("step {step}\nthe build is green"),
                    1 => format!("DONE {}", step.saturating_sub(self.rng.below(40))),
                    _ => format!("compiling {step}"),
                };
                self.targets[&name].show(actors::sight::content::Content::text(text));
            }
            54..=58 => {
                let Some(wait) = self.rng.pick(&self.waits).cloned() else {
                    return Ok(());
                };
                self.call(harness, Method::WaitCancel, json!({"wait_id": wait}))
                    .await?;
            }
            59..=62 => {
                let Some(wait) = self.rng.pick(&self.waits).cloned() else {
                    return Ok(());
                };
                let params = json!({"wait_id": wait, "timeout": 60 + self.rng.below(300)});
                self.call(harness, Method::WaitUpdate, params).await?;
            }
            63..=77 => {
                let by = Duration::from_secs(1 + self.rng.below(180) as u64);
                harness
                    .advance(by)
                    .await
                    .map_err(|error| format!("advancing {by:?}: {error:#}"))?;
            }
            78..=85 => {
                let (method, params) = match self.rng.below(4) {
                    0 => (Method::TaskList, json!({"status": "all"})),
                    1 => (Method::WaitStatus, json!({})),
                    2 => (Method::DaemonStatus, json!({})),
                    _ => match self.rng.pick(&self.tasks) {
                        Some(task) => (Method::TaskThread, json!({"task_id": task})),
                        None => (Method::TaskList, json!({})),
                    },
                };
                self.call(harness, method, params).await?;
            }
            86..=97 => {
                self.report.faults += 1;
                match self.rng.below(9) {
                    0 | 1 => {
                        let kind = ACTOR_KINDS[self.rng.below(ACTOR_KINDS.len())];
                        harness
                            .faults()
                            .panic_on_nth(kind, 1 + self.rng.below(3) as u32);
                    }
                    2 => harness.storage_faults().fail_next_commits(1),
                    3 => harness.storage_faults().fail_next_reads(1),
                    4 => harness.sink().fail_next(1 + self.rng.below(3) as u32),
                    5 => harness
                        .model()
                        .push(Reply::Transient("HTTP 503 from the provider".into())),
                    6 => harness.model().push(Reply::Timeout),
                    7 => harness
                        .model()
                        .push(Reply::Garbage("probably? hard to say".into())),
                    _ => harness.model().push(Reply::Answer {
                        met: false,
                        observation: "not yet".into(),
                    }),
                }
            }
            98 => {
                self.report.crashes += 1;
                clear_faults(harness);
                harness
                    .crash()
                    .await
                    .map_err(|error| format!("reopening after a crash: {error:#}"))?;
            }
            _ => {
                self.report.restarts += 1;
                clear_faults(harness);
                harness
                    .restart()
                    .await
                    .map_err(|error| format!("restarting: {error:#}"))?;
            }
        }
        Ok(())
    }
}
