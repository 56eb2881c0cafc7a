//! The spine of the tool surface: every method the daemon answers, listed once, as a type.
//!
//! [`Method`] names each tool and each of the daemon's own methods. Everything that speaks of
//! a method starts here rather than from a string: the catalogue gives each tool's entry
//! (`catalogue::entry`, an exhaustive match), the dispatch in `methods.rs`
//! matches every method, the harness keeps its ledger by method, the CLI, the MCP server and
//! the docs tests walk [`Method::ALL`]. A new method is one line below; the compiler then
//! points at its catalogue entry and its handler until both exist.

/// Declares [`Method`] with its wire names from one list, in the order tools are listed.
macro_rules! spine {
    ($($(#[$doc:meta])* $variant:ident = $name:literal,)*) => {
        /// A method of the daemon's protocol: a tool, or one of the daemon's own.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Method {
            $($(#[$doc])* $variant,)*
        }

        impl Method {
            /// Every method, tools first in the catalogue's order, then the daemon's own.
            pub const ALL: &'static [Method] = &[$(Method::$variant,)*];

            /// The method's name on the wire (JSON-RPC `method`, MCP tool name).
            pub const fn name(self) -> &'static str {
                match self {
                    $(Method::$variant => $name,)*
                }
            }
        }
    };
}

spine! {
    TaskRegister = "task_register",
    TaskUpdate = "task_update",
    TaskPlanUpdate = "task_plan_update",
    TaskList = "task_list",
    TaskThread = "task_thread",
    TaskGet = "task_get",
    MemoryRecall = "memory_recall",
    SmartWait = "smart_wait",
    WaitUpdate = "wait_update",
    WaitCancel = "wait_cancel",
    WaitStatus = "wait_status",
    TermStart = "term_start",
    TermSend = "term_send",
    TermRead = "term_read",
    TermStop = "term_stop",
    /// The catalogue, as MCP's `tools/list` gives it.
    ToolsList = "tools.list",
    /// The daemon's own state: version, counts, sinks, vision, recorder.
    DaemonStatus = "daemon.status",
    /// Streams wake events on the connection that calls it (the socket server answers it).
    EventsSubscribe = "events.subscribe",
    RecallPause = "recall.pause",
    RecallResume = "recall.resume",
    RecallForget = "recall.forget",
}

impl Method {
    /// The method called `name`, if there is one.
    pub fn named(name: &str) -> Option<Method> {
        Self::ALL
            .iter()
            .copied()
            .find(|method| method.name() == name)
    }

    /// The methods agents see as tools, in the catalogue's order.
    pub fn tools() -> impl Iterator<Item = Method> {
        Self::ALL.iter().copied().filter(|method| method.is_tool())
    }

    /// The daemon's own methods (status, the event stream, the recorder).
    pub fn daemon_methods() -> impl Iterator<Item = Method> {
        Self::ALL.iter().copied().filter(|method| !method.is_tool())
    }

    /// Whether agents see it as a tool; the daemon's own methods have dotted names and no
    /// catalogue entry (a test in `catalogue` holds the two together).
    pub const fn is_tool(self) -> bool {
        !matches!(
            self,
            Method::ToolsList
                | Method::DaemonStatus
                | Method::EventsSubscribe
                | Method::RecallPause
                | Method::RecallResume
                | Method::RecallForget
        )
    }
}

impl std::fmt::Display for Method {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    #[test]
    fn every_method_is_found_by_its_name_and_no_name_is_used_twice() {
        let names: BTreeSet<&str> = Method::ALL.iter().map(|method| method.name()).collect();
        assert_eq!(names.len(), Method::ALL.len(), "a name is used twice");
        for &method in Method::ALL {
            assert_eq!(Method::named(method.name()), Some(method));
        }
        assert_eq!(Method::named("task_regster"), None);
    }

    #[test]
    fn tools_come_first_and_only_daemon_methods_have_dotted_names() {
        // Tools are listed before the daemon's methods, so `tools.list` keeps its order.
        let first_daemon_method = Method::ALL.iter().position(|m| !m.is_tool()).unwrap();
        assert!(
            Method::ALL[first_daemon_method..]
                .iter()
                .all(|m| !m.is_tool())
        );
        assert_eq!(Method::tools().count(), 15);
        // The daemon's methods have dotted names; tools never do (MCP tool names).
        assert!(Method::tools().all(|m| !m.name().contains('.')));
        assert!(Method::daemon_methods().all(|m| m.name().contains('.')));
    }
}
