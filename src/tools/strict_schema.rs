//! The strict form of a tool's parameters: what OpenAI's strict function calling (and the
//! OpenAI Agents SDK in its default strict mode) accepts as it is, so that nothing rewrites
//! it on the way to the model.
//!
//! Strict mode wants every property listed in `required`, `additionalProperties: false` on
//! every object, `anyOf` rather than `oneOf`, no open objects, and no length or numeric
//! bounds. So, from the catalogue's schema:
//! - an optional property becomes required and nullable (`"type": ["integer", "null"]`, or a
//!   `{"type": "null"}` alternative), and the daemon takes `null` as "not given";
//! - an open object of strings (`term_start.env`) becomes an array of `{name, value}` pairs,
//!   any other open object (`task_register.metadata`) a string holding a JSON object; the
//!   daemon takes both forms;
//! - `oneOf` becomes `anyOf`;
//! - bounds (`minimum`, `maxLength`, `maxItems`, …) leave the schema and join the
//!   description as text (`1–86400`); the daemon still enforces them, with errors that say so.

use serde_json::{Map, Value, json};

/// Keywords strict mode does not take; their meaning moves into the description.
const BOUNDS: [&str; 8] = [
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "pattern",
    "format",
];

/// The strict form of a tool's `parameters` (an object schema).
pub fn strict_parameters(schema: &Value) -> Value {
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut properties = Map::new();
    if let Some(given) = schema["properties"].as_object() {
        for (name, spec) in given {
            let strict = strict_value(spec);
            let strict = if required.contains(&name.as_str()) {
                strict
            } else {
                nullable(strict)
            };
            properties.insert(name.clone(), strict);
        }
    }
    let names: Vec<Value> = properties.keys().cloned().map(Value::String).collect();
    json!({
        "type": "object",
        "properties": properties,
        "required": names,
        "additionalProperties": false,
    })
}

/// One value's schema in strict form (not yet nullable).
fn strict_value(spec: &Value) -> Value {
    let Some(fields) = spec.as_object() else {
        return spec.clone();
    };
    let mut strict = Map::new();
    let mut bounds = Vec::new();
    for (key, value) in fields {
        match key.as_str() {
            "oneOf" | "anyOf" => {
                let choices = value
                    .as_array()
                    .map(|choices| choices.iter().map(strict_value).collect())
                    .unwrap_or_default();
                strict.insert("anyOf".into(), Value::Array(choices));
            }
            "items" => {
                strict.insert(key.clone(), strict_value(value));
            }
            key if BOUNDS.contains(&key) => bounds.push((key.to_owned(), value.clone())),
            _ => {
                strict.insert(key.clone(), value.clone());
            }
        }
    }
    if strict.get("type") == Some(&json!("object")) && !strict.contains_key("properties") {
        return open_object(&strict);
    }
    if strict.get("type") == Some(&json!("object")) {
        return strict_parameters(&Value::Object(strict));
    }
    if let Some(text) = bounds_text(&bounds) {
        let description = match strict.get("description").and_then(Value::as_str) {
            Some(description) => format!("{description} ({text})"),
            None => text,
        };
        strict.insert("description".into(), Value::String(description));
    }
    Value::Object(strict)
}

/// An object with no declared properties: name/value pairs when its values are strings,
/// else a string of JSON.
fn open_object(spec: &Map<String, Value>) -> Value {
    let described = spec
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or("")
        .trim_end_matches('.');
    if spec
        .get("additionalProperties")
        .is_some_and(|values| values["type"] == "string")
    {
        return json!({
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "value": {"type": "string"}},
                "required": ["name", "value"],
                "additionalProperties": false
            },
            "description": format!("{described}, as [{{\"name\", \"value\"}}] pairs"),
        });
    }
    json!({
        "type": "string",
        "description": format!("{described}; a JSON object written as a string"),
    })
}

/// "1–86400", "at most 256 items", … for the description.
fn bounds_text(bounds: &[(String, Value)]) -> Option<String> {
    let get = |name: &str| {
        bounds
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.to_string())
    };
    let range = |low: Option<String>, high: Option<String>, unit: &str| match (low, high) {
        (Some(low), None) if low == "1" && !unit.is_empty() => Some("not empty".to_owned()),
        (Some(low), Some(high)) => Some(format!("{low}–{high}{unit}")),
        (Some(low), None) => Some(format!("at least {low}{unit}")),
        (None, Some(high)) => Some(format!("at most {high}{unit}")),
        (None, None) => None,
    };
    let parts: Vec<String> = [
        range(get("minimum"), get("maximum"), ""),
        range(get("minLength"), get("maxLength"), " characters"),
        range(get("minItems"), get("maxItems"), " items"),
    ]
    .into_iter()
    .flatten()
    .collect();
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// The schema that also takes `null`.
fn nullable(spec: Value) -> Value {
    let Value::Object(mut fields) = spec else {
        return spec;
    };
    if let Some(Value::Array(choices)) = fields.get_mut("anyOf") {
        choices.push(json!({"type": "null"}));
        return Value::Object(fields);
    }
    if fields.contains_key("enum") {
        // A nullable enum as the SDKs write one: the enum, or null.
        let description = fields.remove("description");
        let mut nullable = json!({"anyOf": [Value::Object(fields), {"type": "null"}]});
        if let Some(description) = description {
            nullable["description"] = description;
        }
        return nullable;
    }
    match fields.get("type").cloned() {
        Some(Value::String(kind)) => {
            fields.insert("type".into(), json!([kind, "null"]));
        }
        Some(Value::Array(mut kinds)) if !kinds.contains(&json!("null")) => {
            kinds.push(json!("null"));
            fields.insert("type".into(), Value::Array(kinds));
        }
        _ => {}
    }
    Value::Object(fields)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn optional_properties_become_required_and_nullable() {
        let schema = json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "minLength": 1, "description": "The name"},
                "timeout": {"type": "integer", "minimum": 1, "maximum": 86400, "description": "Seconds"},
                "status": {"type": "string", "enum": ["active", "paused"], "description": "New status"},
                "plan": {"type": "array", "items": {"type": "string", "maxLength": 500}, "maxItems": 200}
            },
            "required": ["name"],
            "additionalProperties": false
        });
        let strict = strict_parameters(&schema);
        assert_eq!(
            strict["required"],
            json!(["name", "timeout", "status", "plan"])
        );
        assert_eq!(strict["additionalProperties"], false);
        assert_eq!(
            strict["properties"]["name"],
            json!({"type": "string", "description": "The name (not empty)"})
        );
        assert_eq!(
            strict["properties"]["timeout"],
            json!({"type": ["integer", "null"], "description": "Seconds (1–86400)"})
        );
        assert_eq!(
            strict["properties"]["status"],
            json!({"anyOf": [{"type": "string", "enum": ["active", "paused"]}, {"type": "null"}],
                   "description": "New status"})
        );
        assert_eq!(
            strict["properties"]["plan"],
            json!({"type": ["array", "null"], "items": {"type": "string", "description": "at most 500 characters"},
                   "description": "at most 200 items"})
        );
    }

    #[test]
    fn open_objects_and_one_of_take_the_forms_strict_mode_allows() {
        let schema = json!({
            "type": "object",
            "properties": {
                "command": {"oneOf": [{"type": "string", "minLength": 1},
                                      {"type": "array", "items": {"type": "string"}, "minItems": 1}],
                            "description": "argv or a shell line"},
                "env": {"type": "object", "additionalProperties": {"type": "string"},
                        "description": "Extra environment variables"},
                "metadata": {"type": "object", "description": "Context to keep."}
            },
            "required": ["command"]
        });
        let strict = strict_parameters(&schema);
        let command = &strict["properties"]["command"];
        assert!(command.get("oneOf").is_none());
        assert_eq!(command["anyOf"][1]["type"], "array");
        assert_eq!(
            strict["properties"]["env"]["type"],
            json!(["array", "null"])
        );
        assert_eq!(
            strict["properties"]["env"]["items"]["required"],
            json!(["name", "value"])
        );
        assert_eq!(
            strict["properties"]["metadata"],
            json!({"type": ["string", "null"],
                   "description": "Context to keep; a JSON object written as a string"})
        );
    }
}
