//! The versioned envelope every stored value travels in.
//!
//! A value is a postcard-encoded enum whose variant index is the record's format version
//! (one byte for the first 128 versions). Variants are append-only: a new format adds a
//! variant and a conversion from the old one, so a file written by any earlier version
//! still decodes. Decoding always yields the current record type.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::legacy::{
    TaskRecordV1, TaskRecordV2, TaskRecordV3, WaitRecordV1, WaitRecordV2, WaitRecordV3,
};
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

/// Task records: V1 (schema version 1), V2 (before the origin) and V3 (before step
/// evidence) decode into the current V4.
#[derive(Deserialize)]
pub enum TaskEnvelope {
    V1(TaskRecordV1),
    V2(TaskRecordV2),
    V3(TaskRecordV3),
    V4(TaskRecord),
}

/// Encodes the current format only; the `Retired` variants hold indexes 0–2 (V1–V3) so
/// that V4 keeps index 3. They are never constructed.
#[derive(Serialize)]
enum TaskEnvelopeRef<'a> {
    #[allow(dead_code)]
    RetiredV1,
    #[allow(dead_code)]
    RetiredV2,
    #[allow(dead_code)]
    RetiredV3,
    V4(&'a TaskRecord),
}

impl Versioned for TaskRecord {
    type Envelope = TaskEnvelope;
    const KIND: &'static str = "task";

    fn encode(&self) -> Vec<u8> {
        postcard::to_stdvec(&TaskEnvelopeRef::V4(self))
            .expect("postcard encodes plain records into a Vec without error")
    }

    fn from_envelope(envelope: TaskEnvelope) -> Self {
        match envelope {
            TaskEnvelope::V1(old) => old.into(),
            TaskEnvelope::V2(old) => old.into(),
            TaskEnvelope::V3(old) => old.into(),
            TaskEnvelope::V4(record) => record,
        }
    }
}

/// Wait records: V1 (schema versions 3 and 4), V2 (before the boot-relative deadline) and
/// V3 (before a wait could prove a step) decode into the current V4.
#[derive(Deserialize)]
pub enum WaitEnvelope {
    V1(WaitRecordV1),
    V2(WaitRecordV2),
    V3(WaitRecordV3),
    V4(WaitRecord),
}

/// Encodes the current format only (see [`TaskEnvelopeRef`]).
#[derive(Serialize)]
enum WaitEnvelopeRef<'a> {
    #[allow(dead_code)]
    RetiredV1,
    #[allow(dead_code)]
    RetiredV2,
    #[allow(dead_code)]
    RetiredV3,
    V4(&'a WaitRecord),
}

impl Versioned for WaitRecord {
    type Envelope = WaitEnvelope;
    const KIND: &'static str = "wait";

    fn encode(&self) -> Vec<u8> {
        postcard::to_stdvec(&WaitEnvelopeRef::V4(self))
            .expect("postcard encodes plain records into a Vec without error")
    }

    fn from_envelope(envelope: WaitEnvelope) -> Self {
        match envelope {
            WaitEnvelope::V1(old) => old.into(),
            WaitEnvelope::V2(old) => old.into(),
            WaitEnvelope::V3(old) => old.into(),
            WaitEnvelope::V4(record) => record,
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
    fn task_records_are_written_as_v4_and_v3_ones_read_as_claimed() {
        use crate::evidence::{StepEvidence, StepProof};
        let mut task = crate::tests::sample_task();
        task.completed_steps.extend([1, 2]);
        let proof = StepProof::Session {
            session_id: "s-1a2b3c".into(),
            command: "cargo test".into(),
            exit_code: 0,
        };
        let at = Timestamp::from_secs(1_771_004_100);
        task.step_evidence.insert(1, StepEvidence { proof, at });
        let bytes = task.encode();
        assert_eq!(bytes[0], 3, "V4 is variant index 3");
        assert_eq!(TaskRecord::decode(&bytes).unwrap(), task);
        // A V3 record is the V4 one without its last field (an empty map, one 0 byte).
        task.step_evidence.clear();
        let v4 = task.encode();
        assert_eq!(v4.last(), Some(&0));
        let mut v3 = vec![2];
        v3.extend_from_slice(&v4[1..v4.len() - 1]);
        let old = TaskRecord::decode(&v3).unwrap();
        assert_eq!(old, task);
        assert!(
            old.step_evidence.is_empty(),
            "its two done steps are claimed"
        );
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        assert!(TaskRecord::decode(&[7, 1, 2, 3]).is_err());
        assert!(TaskRecord::decode(&[]).is_err());
    }

    fn a_wait(deadline_boot: Option<crate::model::BootDeadline>, step: Option<u32>) -> WaitRecord {
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
            step,
        }
    }

    #[test]
    fn wait_records_are_written_as_v4_and_v3_and_v2_ones_still_read() {
        let anchored = a_wait(
            Some(crate::model::BootDeadline {
                boot_id: "b07-1d".into(),
                at_ms: 123_456,
            }),
            Some(2),
        );
        let bytes = anchored.encode();
        assert_eq!(bytes[0], 3, "V4 is variant index 3");
        assert_eq!(WaitRecord::decode(&bytes).unwrap(), anchored);
        // A V3 record is the V4 one without its last field (no step, one 0 byte), and a V2
        // record the V3 one without its own last field (an absent anchor, one 0 byte).
        let plain = a_wait(None, None);
        let v4 = plain.encode();
        assert_eq!(&v4[v4.len() - 2..], &[0, 0]);
        let mut v3 = vec![2];
        v3.extend_from_slice(&v4[1..v4.len() - 1]);
        assert_eq!(WaitRecord::decode(&v3).unwrap(), plain);
        let mut v2 = vec![1];
        v2.extend_from_slice(&v4[1..v4.len() - 2]);
        assert_eq!(WaitRecord::decode(&v2).unwrap(), plain);
    }
}
