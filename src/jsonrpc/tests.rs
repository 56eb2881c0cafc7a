//! The envelope's tests: parsing lines and batches, checking requests, building responses,
//! and proptests over arbitrary bytes and JSON.

use super::*;

fn single(line: &str) -> Result<Request, Value> {
    match parse_line(line.as_bytes()) {
        Ok(Incoming::Single(request)) => request,
        Ok(Incoming::Batch(_)) => panic!("batch"),
        Err(response) => Err(response),
    }
}

fn code(response: &Value) -> i64 {
    response["error"]["code"].as_i64().unwrap()
}

#[test]
fn well_formed_requests_and_notifications() {
    let request = single(r#"{"jsonrpc":"2.0","id":7,"method":"task_list"}"#).unwrap();
    assert_eq!(
        (request.id, request.method.as_str(), request.params),
        (Some(json!(7)), "task_list", json!({}))
    );
    let notification =
        single(r#"{"jsonrpc":"2.0","method":"task_list","params":{"limit":1}}"#).unwrap();
    assert_eq!(notification.id, None);
}

#[test]
fn envelope_errors_have_the_right_codes_and_keep_the_id() {
    let parse = parse_line(br#"{"jsonrpc":"2.0","id":3,"method":"#).unwrap_err();
    assert_eq!(code(&parse), codes::PARSE_ERROR);
    assert_eq!(parse["id"], Value::Null);
    assert!(
        parse["error"]["data"]["hint"]
            .as_str()
            .unwrap()
            .contains("one JSON-RPC")
    );

    let no_version = single(r#"{"id":"a","method":"x"}"#).unwrap_err();
    assert_eq!(
        (code(&no_version), no_version["id"].clone()),
        (codes::INVALID_REQUEST, json!("a"))
    );
    assert_eq!(
        code(&single(r#"{"jsonrpc":"2.0","id":1}"#).unwrap_err()),
        codes::INVALID_REQUEST
    );
    assert_eq!(
        code(&single(r#"[1]"#.trim_matches(['[', ']'])).unwrap_err()),
        codes::INVALID_REQUEST
    );
    let positional = single(r#"{"jsonrpc":"2.0","id":1,"method":"x","params":[1]}"#).unwrap_err();
    assert_eq!(code(&positional), codes::INVALID_PARAMS);
    assert_eq!(
        code(&single(r#"{"jsonrpc":"2.0","id":{},"method":"x"}"#).unwrap_err()),
        codes::INVALID_REQUEST
    );
    assert_eq!(
        code(&parse_line(b"[]").unwrap_err()),
        codes::INVALID_REQUEST
    );
    assert_eq!(
        code(&parse_line(b"\xff\xfe").unwrap_err()),
        codes::PARSE_ERROR
    );
    let deep = "[".repeat(10_000);
    assert_eq!(
        code(&parse_line(deep.as_bytes()).unwrap_err()),
        codes::PARSE_ERROR
    );
}

#[test]
fn batches_check_each_entry() {
    let Ok(Incoming::Batch(entries)) = parse_line(
        br#"[{"jsonrpc":"2.0","id":1,"method":"a"}, 5, {"jsonrpc":"2.0","method":"b"}]"#,
    ) else {
        panic!("expected a batch");
    };
    let entries: Vec<_> = entries.into_iter().map(check_entry).collect();
    assert!(entries[0].is_ok());
    assert_eq!(
        code(entries[1].as_ref().unwrap_err()),
        codes::INVALID_REQUEST
    );
    assert_eq!(entries[2].as_ref().unwrap().id, None);
}

/// Asserts `response` is one well-formed JSON-RPC error response carrying `id`, and
/// returns its code.
fn assert_error_response(response: &Value, id: &Value) -> i64 {
    let Value::Object(members) = response else {
        panic!("not an object: {response}");
    };
    let mut keys: Vec<&str> = members.keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["error", "id", "jsonrpc"], "{response}");
    assert_eq!(response["jsonrpc"], "2.0");
    assert_eq!(&response["id"], id, "{response}");
    assert!(
        response["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty())
    );
    assert!(
        response["error"]["data"]["hint"]
            .as_str()
            .is_some_and(|h| !h.is_empty())
    );
    // The server writes `to_string()` plus a newline: one line per response.
    assert!(!response.to_string().contains('\n'));
    response["error"]["code"].as_i64().expect("an integer code")
}

/// The id a reply must carry: the request's id when it can be read, else null.
fn readable_id(value: &Value) -> Value {
    match value.get("id") {
        Some(id @ (Value::Null | Value::String(_) | Value::Number(_))) => id.clone(),
        _ => Value::Null,
    }
}

/// A line read whole: its request, or each entry of its batch checked.
#[derive(Debug)]
enum Checked {
    Single(Result<Request, Value>),
    Batch(Vec<Result<Request, Value>>),
}

/// Decodes `line` and checks every reply it owes, whatever the outcome.
fn decode_and_check_shapes(line: &[u8]) -> Result<Checked, Value> {
    let decoded = parse_line(line).map(|incoming| match incoming {
        Incoming::Single(entry) => Checked::Single(entry),
        Incoming::Batch(entries) => Checked::Batch(entries.into_iter().map(check_entry).collect()),
    });
    match &decoded {
        Err(response) | Ok(Checked::Single(Err(response))) => {
            assert_error_response(response, &response["id"].clone());
        }
        Ok(Checked::Single(Ok(request))) => assert!(request.params.is_object()),
        Ok(Checked::Batch(entries)) => {
            assert!(!entries.is_empty());
            for entry in entries {
                match entry {
                    Err(response) => {
                        assert_error_response(response, &response["id"].clone());
                    }
                    Ok(request) => assert!(request.params.is_object()),
                }
            }
        }
    }
    decoded
}

mod properties {
    use proptest::prelude::*;

    use super::*;

    fn key() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("id".to_owned()),
            Just("jsonrpc".to_owned()),
            Just("method".to_owned()),
            Just("params".to_owned()),
            ".{0,8}",
        ]
    }

    fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            // Few digits: serde_json (without float_roundtrip) reads these back exactly.
            (any::<i32>(), 0..4i32)
                .prop_map(|(mantissa, scale)| Value::from(f64::from(mantissa) / 10f64.powi(scale))),
            Just(Value::from("2.0")),
            ".{0,16}".prop_map(Value::from),
        ];
        leaf.prop_recursive(4, 48, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                prop::collection::vec((key(), inner), 0..6)
                    .prop_map(|members| Value::Object(members.into_iter().collect())),
            ]
        })
    }

    fn request_id() -> impl Strategy<Value = Option<Value>> {
        prop::option::of(prop_oneof![
            Just(Value::Null),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            ".{0,16}".prop_map(Value::from),
        ])
    }

    fn params() -> impl Strategy<Value = Option<Value>> {
        prop::option::of(prop_oneof![
            Just(Value::Null),
            prop::collection::vec((".{0,8}", json_value()), 0..4)
                .prop_map(|members| Value::Object(members.into_iter().collect())),
        ])
    }

    fn valid_request() -> impl Strategy<Value = (Option<Value>, String, Option<Value>)> {
        (request_id(), ".{0,24}", params())
    }

    fn encode(id: Option<&Value>, method: &str, params: Option<&Value>) -> Map<String, Value> {
        let mut object = Map::new();
        object.insert("jsonrpc".into(), Value::from("2.0"));
        if let Some(id) = id {
            object.insert("id".into(), id.clone());
        }
        object.insert("method".into(), Value::from(method));
        if let Some(params) = params {
            object.insert("params".into(), params.clone());
        }
        object
    }

    /// One way to break a valid request, and the code the break must earn.
    #[derive(Clone, Debug)]
    enum Mutation {
        DropVersion,
        WrongVersion(Value),
        DropMethod,
        MethodNotAString(Value),
        ParamsNotAnObject(Value),
        ExtraMember(String, Value),
        IdNotAScalar(Value),
    }

    fn not_a_string() -> impl Strategy<Value = Value> {
        json_value().prop_filter("not a string", |v| !v.is_string())
    }

    fn mutation() -> impl Strategy<Value = Mutation> {
        prop_oneof![
            Just(Mutation::DropVersion),
            json_value()
                .prop_filter("not \"2.0\"", |v| v != "2.0")
                .prop_map(Mutation::WrongVersion),
            Just(Mutation::DropMethod),
            not_a_string().prop_map(Mutation::MethodNotAString),
            json_value()
                .prop_filter("neither an object nor null", |v| !v.is_object()
                    && !v.is_null())
                .prop_map(Mutation::ParamsNotAnObject),
            (".{0,8}", json_value())
                .prop_filter("not an envelope member", |(k, _)| {
                    !["id", "jsonrpc", "method", "params"].contains(&k.as_str())
                })
                .prop_map(|(k, v)| Mutation::ExtraMember(k, v)),
            json_value()
                .prop_filter("not a scalar id", |v| {
                    v.is_boolean() || v.is_array() || v.is_object()
                })
                .prop_map(Mutation::IdNotAScalar),
        ]
    }

    /// Applies `mutation`; returns the code and the id the error response must carry.
    fn apply(mutation: &Mutation, object: &mut Map<String, Value>) -> (i64, Value) {
        let id = object.get("id").cloned().unwrap_or(Value::Null);
        match mutation {
            Mutation::DropVersion => {
                object.remove("jsonrpc");
            }
            Mutation::WrongVersion(version) => {
                object.insert("jsonrpc".into(), version.clone());
            }
            Mutation::DropMethod => {
                object.remove("method");
            }
            Mutation::MethodNotAString(method) => {
                object.insert("method".into(), method.clone());
            }
            Mutation::ParamsNotAnObject(params) => {
                object.insert("params".into(), params.clone());
                if params.is_array() {
                    return (codes::INVALID_PARAMS, id);
                }
            }
            Mutation::ExtraMember(key, value) => {
                object.insert(key.clone(), value.clone());
            }
            Mutation::IdNotAScalar(bad_id) => {
                object.insert("id".into(), bad_id.clone());
                return (codes::INVALID_REQUEST, Value::Null);
            }
        }
        (codes::INVALID_REQUEST, id)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn arbitrary_bytes_never_panic_and_every_reply_is_well_formed(
            line in prop::collection::vec(any::<u8>(), 0..256)
        ) {
            let _ = decode_and_check_shapes(&line);
        }

        #[test]
        fn json_shaped_bytes_never_panic_and_every_reply_is_well_formed(
            line in prop::collection::vec(
                prop::sample::select(b"{}[]\":,0123456789.eE-+nultrfasjonrpcidmethod\\u \xff".to_vec()),
                0..96,
            )
        ) {
            let _ = decode_and_check_shapes(&line);
        }

        #[test]
        fn arbitrary_json_gets_a_reply_with_the_id_when_one_can_be_read(value in json_value()) {
            let line = value.to_string();
            let entries = match decode_and_check_shapes(line.as_bytes()) {
                Err(response) => {
                    // Only an empty batch fails as a whole once the JSON parsed.
                    prop_assert_eq!(&value, &json!([]));
                    prop_assert_eq!(&response["id"], &Value::Null);
                    return Ok(());
                }
                Ok(Checked::Single(entry)) => vec![(value, entry)],
                Ok(Checked::Batch(entries)) => {
                    let Value::Array(values) = &value else {
                        panic!("a batch from a non-array: {value}");
                    };
                    prop_assert_eq!(values.len(), entries.len());
                    values.iter().cloned().zip(entries).collect()
                }
            };
            for (value, entry) in entries {
                match entry {
                    Ok(request) => {
                        // A notification owes nothing; a call owes its id back.
                        prop_assert_eq!(request.id.as_ref(), value.get("id"));
                        prop_assert_eq!(
                            Some(&Value::from(request.method.as_str())),
                            value.get("method")
                        );
                    }
                    Err(response) => prop_assert_eq!(&response["id"], &readable_id(&value)),
                }
            }
        }

        #[test]
        fn a_valid_request_round_trips((id, method, params) in valid_request()) {
            let line = Value::Object(encode(id.as_ref(), &method, params.as_ref())).to_string();
            let Ok(Checked::Single(Ok(request))) = decode_and_check_shapes(line.as_bytes()) else {
                panic!("a valid request was refused: {line}");
            };
            let expected_params = match params {
                None | Some(Value::Null) => json!({}),
                Some(params) => params,
            };
            prop_assert_eq!(request, Request { id, method, params: expected_params });
        }

        #[test]
        fn a_mutated_request_gets_the_right_error_with_its_id(
            (id, method, params) in valid_request(),
            mutation in mutation(),
        ) {
            let mut object = encode(id.as_ref(), &method, params.as_ref());
            let (expected_code, expected_id) = apply(&mutation, &mut object);
            let line = Value::Object(object).to_string();
            let Ok(Checked::Single(Err(response))) = decode_and_check_shapes(line.as_bytes()) else {
                panic!("a broken request was accepted: {line}");
            };
            prop_assert_eq!(assert_error_response(&response, &expected_id), expected_code);
        }

        #[test]
        fn a_batch_answers_each_entry_in_order(
            entries in prop::collection::vec(
                (valid_request(), prop::option::of(mutation())),
                1..8,
            )
        ) {
            let mut objects = Vec::new();
            let mut expected = Vec::new();
            for ((id, method, params), mutation) in entries {
                let mut object = encode(id.as_ref(), &method, params.as_ref());
                expected.push(mutation.map(|mutation| apply(&mutation, &mut object)));
                objects.push(Value::Object(object));
            }
            let line = Value::Array(objects).to_string();
            let Ok(Checked::Batch(decoded)) = decode_and_check_shapes(line.as_bytes()) else {
                panic!("not a batch: {line}");
            };
            prop_assert_eq!(decoded.len(), expected.len());
            for (entry, expected) in decoded.iter().zip(expected) {
                match (entry, expected) {
                    (Ok(_), None) => {}
                    (Err(response), Some((code, id))) => {
                        prop_assert_eq!(assert_error_response(response, &id), code);
                    }
                    (entry, expected) => panic!("{entry:?} where {expected:?} was due"),
                }
            }
        }
    }
}

#[test]
fn a_batch_over_the_entry_limit_is_refused_whole_without_holding_its_entries() {
    let line = format!("[{}1]", "1,".repeat(MAX_BATCH_ENTRIES * 500));
    let response = parse_line(line.as_bytes()).unwrap_err();
    assert_eq!(code(&response), codes::TOO_LARGE);
    assert!(
        response["error"]["message"]
            .as_str()
            .unwrap()
            .contains(&format!("{} entries", MAX_BATCH_ENTRIES * 500 + 1)),
        "{response}"
    );
    let at_the_limit = format!("[{}1]", "1,".repeat(MAX_BATCH_ENTRIES - 1));
    let Ok(Incoming::Batch(entries)) = parse_line(at_the_limit.as_bytes()) else {
        panic!("a batch at the limit is a batch");
    };
    assert_eq!(entries.len(), MAX_BATCH_ENTRIES);
}

#[test]
fn call_errors_map_to_application_codes() {
    let error: RpcError = CallError::conflict("task is completed", "reopen it").into();
    assert_eq!(error.code, codes::CONFLICT);
    assert_eq!(error.to_json()["data"]["hint"], "reopen it");
}
