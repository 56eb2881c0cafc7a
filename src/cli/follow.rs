//! The two commands for runtimes nothing can push a wake to: `lookout events --follow` prints
//! each wake event as it happens (optionally of one task or session), and `lookout wait`
//! blocks until one wait ends and prints its wake text, with an exit code by outcome. Both
//! read the subscription through `subscription::listen`, which reconnects when the daemon
//! restarts.

use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use serde_json::{Value, json};

use crate::cli::{EXIT_CALL_FAILED, EXIT_NO_DAEMON, fail, render};
use crate::client::subscription::{Heard, Patience, ended_wait, listen, reconnect};
use crate::client::{Client, ClientError};
use crate::tools::spine::Method;

/// `lookout wait` exit codes beyond 0 (resolved), 1 (a call failed) and 3 (no daemon).
pub const EXIT_WAIT_CHANGED: u8 = 4;
pub const EXIT_WAIT_TIMEOUT: u8 = 5;
pub const EXIT_WAIT_ERROR: u8 = 6;
pub const EXIT_WAIT_CANCELLED: u8 = 7;
/// `--timeout` passed while the wait still watches.
pub const EXIT_STILL_WATCHING: u8 = 8;

/// How often `lookout wait` asks for the wait's state besides listening (a cancelled wait
/// sends no event).
const STATUS_EVERY: Duration = Duration::from_secs(5);

/// Which events to print.
#[derive(Clone, Debug, Default)]
pub struct EventFilter {
    pub task_id: Option<String>,
    pub session_key: Option<String>,
    pub wait_id: Option<String>,
}

impl EventFilter {
    fn admits(&self, notification: &Value) -> bool {
        let params = &notification["params"];
        let matches = |wanted: &Option<String>, key: &str| {
            wanted
                .as_deref()
                .is_none_or(|wanted| params[key].as_str() == Some(wanted))
        };
        notification["method"] != "event"
            || matches(&self.task_id, "task_id")
                && matches(&self.session_key, "session_key")
                && matches(&self.wait_id, "wait_id")
    }
}

/// `lookout events --follow`: prints every admitted event until interrupted.
pub async fn events(socket: &Path, filter: EventFilter, json: bool) -> ExitCode {
    // Fail at once when there is no daemon at all; reconnect only after it was there.
    if let Err(error) = Client::connect(socket).await {
        return fail(&error.to_string(), EXIT_NO_DAEMON);
    }
    let mut heard = listen(socket, Patience::Bounded);
    let mut announced = false;
    while let Some(news) = heard.recv().await {
        match news {
            Heard::Subscribed if !json && !announced => {
                announced = true;
                eprintln!(
                    "Listening for wake events on {} (Ctrl-C to stop).",
                    socket.display()
                );
            }
            Heard::Subscribed => {}
            Heard::Event(notification) if filter.admits(&notification) => {
                if json {
                    println!("{notification}");
                } else {
                    println!("{}", render::event(&notification));
                }
            }
            Heard::Event(_) => {}
            Heard::Gone(error) => return fail(&error, EXIT_CALL_FAILED),
        }
    }
    ExitCode::SUCCESS
}

/// `lookout wait WAIT_ID`: blocks until the wait ends and prints its wake text.
pub async fn wait(socket: &Path, wait_id: &str, timeout: Option<Duration>, json: bool) -> ExitCode {
    let mut calls = match Client::connect(socket).await {
        Ok(client) => client,
        Err(error) => return fail(&error.to_string(), EXIT_NO_DAEMON),
    };
    // The wait must exist: a typo fails now, with the daemon's hint.
    if let Err((message, code)) = status_of(&mut calls, wait_id).await {
        return fail(&message, code);
    }
    let filter = EventFilter {
        wait_id: Some(wait_id.to_owned()),
        ..EventFilter::default()
    };
    let mut heard = listen(socket, Patience::Bounded);
    let until_deadline = async {
        match timeout {
            Some(timeout) => tokio::time::sleep(timeout).await,
            None => std::future::pending().await,
        }
    };
    tokio::pin!(until_deadline);
    let mut ticker = tokio::time::interval(STATUS_EVERY);
    loop {
        tokio::select! {
            news = heard.recv() => match news {
                Some(Heard::Event(notification)) if filter.admits(&notification)
                    && notification["method"] == "event" => {
                    let params = &notification["params"];
                    if json {
                        println!("{params}");
                    } else {
                        println!("{}", params["text"].as_str().unwrap_or_default());
                    }
                    return ExitCode::from(exit_for_kind(params["kind"].as_str().unwrap_or("")));
                }
                // Subscribed (again): the wait may have ended before or in between.
                Some(Heard::Subscribed) => {
                    if let Some(code) = ended(socket, &mut calls, wait_id, json).await {
                        return code;
                    }
                }
                Some(Heard::Event(_)) => {}
                Some(Heard::Gone(error)) => return fail(&error, EXIT_NO_DAEMON),
                None => return fail("the subscription ended", EXIT_CALL_FAILED),
            },
            _ = ticker.tick() => {
                if let Some(code) = ended(socket, &mut calls, wait_id, json).await {
                    return code;
                }
            }
            () = &mut until_deadline => {
                eprintln!(
                    "{wait_id} is still watching after {}s; run `lookout wait {wait_id}` again to keep waiting.",
                    timeout.unwrap_or_default().as_secs()
                );
                return ExitCode::from(EXIT_STILL_WATCHING);
            }
        }
    }
}

/// When the wait has ended: prints its status (its wake went out while nobody listened) and
/// returns the exit code.
async fn ended(socket: &Path, calls: &mut Client, wait_id: &str, json: bool) -> Option<ExitCode> {
    let status = match status_of(calls, wait_id).await {
        Ok(status) => status,
        Err(_) => {
            // The call connection died with the daemon: open another.
            *calls = reconnect(socket, Patience::Bounded, || true).await.ok()?;
            status_of(calls, wait_id).await.ok()?
        }
    };
    let (state, said) = ended_wait(&status)?;
    if json {
        println!("{status}");
    } else {
        println!("{wait_id} is {state}: {said}");
    }
    Some(ExitCode::from(exit_for_state(state)))
}

/// The wait's status, or what to print and the exit code.
async fn status_of(client: &mut Client, wait_id: &str) -> Result<Value, (String, u8)> {
    match client
        .call(Method::WaitStatus.name(), json!({"wait_id": wait_id}))
        .await
    {
        Ok(Ok(status)) => Ok(status),
        Ok(Err(error)) => Err((
            format!("{}\nhint: {}", error.message, error.hint),
            EXIT_CALL_FAILED,
        )),
        Err(error @ ClientError::NoDaemon { .. }) => Err((error.to_string(), EXIT_NO_DAEMON)),
        Err(error) => Err((error.to_string(), EXIT_CALL_FAILED)),
    }
}

fn exit_for_kind(kind: &str) -> u8 {
    match kind {
        "wait_resolved" => 0,
        "wait_changed" => EXIT_WAIT_CHANGED,
        "wait_timeout" => EXIT_WAIT_TIMEOUT,
        _ => EXIT_WAIT_ERROR,
    }
}

fn exit_for_state(state: &str) -> u8 {
    match state {
        "resolved" => 0,
        "changed" => EXIT_WAIT_CHANGED,
        "timeout" => EXIT_WAIT_TIMEOUT,
        "cancelled" => EXIT_WAIT_CANCELLED,
        _ => EXIT_WAIT_ERROR,
    }
}
