//! The versioned envelope every stored value travels in.
//!
//! A value is a postcard-encoded enum whose variant index is the record's format version
//! (one byte for the first 128 versions). Variants are append-only: a new format adds a
//! variant and a conversion from the old one, so a file written by any earlier version
//! still decodes. Decoding always yields the current record type.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::legacy::{TaskRecordV1, TaskRecordV2, WaitRecordV1, WaitRecordV2};
use crate::model::{
    EventRecord, MessageRecord, PlanRevisionRecord, StuckInfo, TaskRecord, WaitRecord,
};

/// A record type with a versioned on-disk envelope.
pub trait Versioned: Sized {
    /// The owned envelope, one variant per format version.
    type Envelope: DeserializeOwned;
    /// Human name for errors.
    const KIND: &'static str;

    fn encode(&self) -> Vec<u8>;
    fn from_envelope(envelope: Self::Envelope) -> Self;

    fn decode(bytes: &[u8]) -> Result<Self, postcard::Error> {
        postcard::from_bytes::<Self::Envelope>(bytes).map(Self::from_envelope)
    }
}

/// Declares the envelope pair (owned for decoding, borrowed for encoding without a copy)
/// for a record whose only format so far is `V1`.
macro_rules! envelope_v1 {
    ($record:ty, $owned:ident, $borrowed:ident, $kind:literal) => {
        #[derive(Deserialize)]
        pub enum $owned {
            V1($record),
        }

        #[derive(Serialize)]
        enum $borrowed<'a> {
            V1(&'a $record),
        }

        impl Versioned for $record {
            type Envelope = $owned;
            const KIND: &'static str = $kind;

            fn encode(&self) -> Vec<u8> {
                postcard::to_stdvec(&$borrowed::V1(self))
                    .expect("postcard encodes plain records into a Vec without error")
            }

            fn from_envelope(envelope: $owned) -> Self {
                match envelope {
                    $owned::V1(record) => record,
                }
            }
        }
    };
}

envelope_v1!(
    MessageRecord,
    MessageEnvelope,
    MessageEnvelopeRef,
    "message"
);
envelope_v1!(
    PlanRevisionRecord,
    PlanRevisionEnvelope,
    PlanRevisionEnvelopeRef,
    "plan revision"
);
envelope_v1!(EventRecord, EventEnvelope, EventEnvelopeRef, "event");
envelope_v1!(
    StuckInfo,
    StuckInfoEnvelope,
    StuckInfoEnvelopeRef,
    "stuck index entry"
);

/// Task records: V1 (schema version 1) and V2 (before the origin) decode into the current V3.
#[derive(Deserialize)]
pub enum TaskEnvelope {
    V1(TaskRecordV1),
    V2(TaskRecordV2),
    V3(TaskRecord),
}

/// Encodes the current format only; the `Retired` variants hold indexes 0 (V1) and 1 (V2)
/// so that V3 keeps index 2. They are never constructed.
#[derive(Serialize)]
enum TaskEnvelopeRef<'a> {
    #[allow(dead_code)]
    RetiredV1,
    #[allow(dead_code)]
    RetiredV2,
    V3(&'a TaskRecord),
}

impl Versioned for TaskRecord {
    type Envelope = TaskEnvelope;
    const KIND: &'static str = "task";

    fn encode(&self) -> Vec<u8> {
        postcard::to_stdvec(&TaskEnvelopeRef::V3(self))
            .expect("postcard encodes plain records into a Vec without error")
    }

    fn from_envelope(envelope: TaskEnvelope) -> Self {
        match envelope {
            TaskEnvelope::V1(old) => old.into(),
            TaskEnvelope::V2(old) => old.into(),
            TaskEnvelope::V3(record) => record,
        }
    }
}

/// Wait records: V1 (schema versions 3 and 4) and V2 (before the boot-relative deadline)
/// decode into the current V3.
#[derive(Deserialize)]
pub enum WaitEnvelope {
    V1(WaitRecordV1),
    V2(WaitRecordV2),
    V3(WaitRecord),
}

/// Encodes the current format only (see [`TaskEnvelopeRef`]).
#[derive(Serialize)]
enum WaitEnvelopeRef<'a> {
    #[allow(dead_code)]
    RetiredV1,
    #[allow(dead_code)]
    RetiredV2,
    V3(&'a WaitRecord),
}

impl Versioned for WaitRecord {
    type Envelope = WaitEnvelope;
    const KIND: &'static str = "wait";

    fn encode(&self) -> Vec<u8> {
        postcard::to_stdvec(&WaitEnvelopeRef::V3(self))
            .expect("postcard encodes plain records into a Vec without error")
    }

    fn from_envelope(envelope: WaitEnvelope) -> Self {
        match envelope {
            WaitEnvelope::V1(old) => old.into(),
            WaitEnvelope::V2(old) => old.into(),
            WaitEnvelope::V3(record) => record,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{MsgType, Role, Timestamp};

    #[test]
    fn envelope_starts_with_the_version_byte_and_round_trips() {
        let message = MessageRecord {
            role: Role::Agent,
            msg_type: MsgType::Text,
            content: "Step 2 done".into(),
            created_at: Timestamp(1_771_002_000_000),
        };
        let bytes = message.encode();
        assert_eq!(bytes[0], 0, "variant V1 is encoded as index 0");
        assert_eq!(MessageRecord::decode(&bytes).unwrap(), message);
    }

    #[test]
    fn task_records_are_written_as_v3() {
        let bytes = crate::tests::sample_task().encode();
        assert_eq!(bytes[0], 2, "V3 is variant index 2");
        assert_eq!(
            TaskRecord::decode(&bytes).unwrap(),
            crate::tests::sample_task()
        );
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        assert!(TaskRecord::decode(&[7, 1, 2, 3]).is_err());
        assert!(TaskRecord::decode(&[]).is_err());
    }

    fn a_wait(deadline_boot: Option<crate::model::BootDeadline>) -> WaitRecord {
        use crate::model::{WaitCounters, WaitId, WaitState};
        WaitRecord {
            id: WaitId::from_sequence(1),
            target: "file:/tmp/build.log".into(),
            condition: "'DONE'".into(),
            task_id: None,
            session_key: None,
            state: WaitState::Watching,
            created_at: Timestamp::from_secs(1_771_004_000),
            started_at: Timestamp::from_secs(1_771_004_000),
            deadline: Timestamp::from_secs(1_771_004_300),
            timeout_s: 300,
            poll_interval_ms: 2_000,
            last_observation: None,
            ended_at: None,
            counters: WaitCounters::default(),
            history: Vec::new(),
            match_existing: false,
            baseline: None,
            deadline_boot,
        }
    }

    #[test]
    fn wait_records_are_written_as_v3_and_v2_ones_still_read() {
        let anchored = a_wait(Some(crate::model::BootDeadline {
            boot_id: "b07-1d".into(),
            at_ms: 123_456,
        }));
        let bytes = anchored.encode();
        assert_eq!(bytes[0], 2, "V3 is variant index 2");
        assert_eq!(WaitRecord::decode(&bytes).unwrap(), anchored);
        // A V2 record is the V3 one without its last field (an absent anchor, one 0 byte).
        let plain = a_wait(None);
        let v3 = plain.encode();
        assert_eq!(v3.last(), Some(&0));
        let mut v2 = vec![1];
        v2.extend_from_slice(&v3[1..v3.len() - 1]);
        assert_eq!(WaitRecord::decode(&v2).unwrap(), plain);
    }
}
