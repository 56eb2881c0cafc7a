//! lookout's storage: records, schema, codec and migrations on one redb file.
//!
//! Synchronous and self-contained: this crate knows nothing of tokio, ractor or JSON-RPC.
//! Only the Registry actor holds a [`Store`]; everything else asks the Registry.

mod codec;
pub mod doctor;
mod error;
pub mod evidence;
pub mod faults;
mod journal;
mod legacy;
pub mod locks;
pub mod model;
mod private;
mod schema;
mod space;
mod store;
#[cfg(any(test, feature = "testkit"))]
pub mod testkit;

pub use codec::Versioned;
pub use error::StorageError;
pub use evidence::{StepEvidence, StepProof};
pub use faults::StorageFaults;
pub use journal::{CHECKPOINT_RECORDS, JOURNAL_BYTES};
pub use model::{
    Author, BootDeadline, DeliveryOutcome, EventKind, EventRecord, MessageRecord, MsgType, Origin,
    PlanRevisionRecord, Rfc3339, Role, SinkDelivery, Status, StuckCandidate, StuckInfo, TaskId,
    TaskRecord, TextBaseline, Timestamp, WaitCounters, WaitEvent, WaitHistoryEntry, WaitId,
    WaitRecord, WaitState,
};
pub use schema::{Counter, SCHEMA_VERSION};
pub use space::SPACE_FOR_WRITES;
pub use store::{
    DEFAULT_CACHE_BYTES, ListCursor, Mutation, OpenOptions, StatusFilter, Store, StoreStats,
    TaskPage, WriteBatch,
};

#[cfg(test)]
pub(crate) mod tests;
