//! The versioned envelope every stored value travels in.
//!
//! A value is a postcard-encoded enum whose variant index is the record's format version
//! (one byte for the first 128 versions). Variants are append-only: a new format adds a
//! variant and a conversion from the old one, so a file written by any earlier version
//! still decodes. Decoding always yields the current record type.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::model::{MessageRecord, PlanRevisionRecord, TaskRecord};

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

envelope_v1!(TaskRecord, TaskEnvelope, TaskEnvelopeRef, "task");
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
    fn garbage_is_an_error_not_a_panic() {
        assert!(TaskRecord::decode(&[7, 1, 2, 3]).is_err());
        assert!(TaskRecord::decode(&[]).is_err());
    }
}
