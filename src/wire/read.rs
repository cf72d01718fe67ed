//! Reading JSON values with errors that name the field and say what was
//! expected, in the user's words.

use serde_json::{Map, Value};

use crate::error::{ParseError, ParseErrorKind};

/// A JSON value in a few words, for error messages: `a string "x"`,
/// `1.5`, `an array`, ...
pub fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(flag) => format!("{flag}"),
        Value::Number(number) => number.to_string(),
        Value::String(text) if text.chars().count() <= 40 => format!("the string {text:?}"),
        Value::String(_) => "a string".to_owned(),
        Value::Array(_) => "an array".to_owned(),
        Value::Object(_) => "an object".to_owned(),
    }
}

fn wrong(at: &str, expected: &str, found: &Value) -> ParseError {
    ParseError::new(
        ParseErrorKind::Json,
        at,
        format!("expected {expected}, found {}", describe(found)),
    )
}

/// The path of `key` inside the object at `at`.
fn field_path(at: &str, key: &str) -> String {
    if at.is_empty() {
        key.to_owned()
    } else {
        format!("{at}.{key}")
    }
}

/// A whole number of type `T`: `7` and `7.0` alike; refused when negative,
/// fractional or out of `T`'s range.
pub fn whole<T: TryFrom<u64>>(value: &Value, at: &str, what: &str) -> Result<T, ParseError> {
    match value {
        Value::Number(number) => super::whole::number(number).ok_or_else(|| {
            ParseError::new(
                ParseErrorKind::Json,
                at,
                format!("expected {what} (a whole number), found {number}"),
            )
        }),
        other => Err(wrong(at, &format!("{what} (a whole number)"), other)),
    }
}

/// The number as an integer of any sign (`-3`, `7`, `7.0`), if it is one.
pub fn integer(number: &serde_json::Number) -> Option<i128> {
    number
        .as_i64()
        .map(i128::from)
        .or_else(|| number.as_u64().map(i128::from))
        .or_else(|| {
            let float = number.as_f64()?;
            (float.fract() == 0.0 && float.abs() < 1.8e19).then_some(float as i128)
        })
}

/// The items of a JSON array.
pub fn list<'a>(value: &'a Value, at: &str, what: &str) -> Result<&'a [Value], ParseError> {
    match value {
        Value::Array(items) => Ok(items),
        other => Err(wrong(at, what, other)),
    }
}

/// The fields of a JSON object, checked against the names it may have.
pub struct Fields<'a> {
    map: &'a Map<String, Value>,
    at: String,
}

impl<'a> Fields<'a> {
    /// The object at `at`; refused if `value` is not an object or has a
    /// field not in `allowed`.
    pub fn of(
        value: &'a Value,
        at: &str,
        what: &str,
        allowed: &[&str],
    ) -> Result<Fields<'a>, ParseError> {
        let Value::Object(map) = value else {
            return Err(wrong(at, what, value));
        };
        if let Some(unknown) = map.keys().find(|key| !allowed.contains(&key.as_str())) {
            return Err(ParseError::new(
                ParseErrorKind::Json,
                &field_path(at, unknown),
                format!(
                    "unknown field; the fields of {what} are {}",
                    allowed.join(", ")
                ),
            ));
        }
        Ok(Fields {
            map,
            at: at.to_owned(),
        })
    }

    fn path(&self, key: &str) -> String {
        field_path(&self.at, key)
    }

    /// Every field, in the order given.
    pub fn entries(&self) -> impl Iterator<Item = (&'a str, &'a Value)> + use<'a> {
        self.map.iter().map(|(key, value)| (key.as_str(), value))
    }

    /// A field that may be absent.
    pub fn optional(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key)
    }

    /// A field that may be absent or `null` (both `None`).
    pub fn given(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key).filter(|value| !value.is_null())
    }

    /// A field that must be there.
    pub fn required(&self, key: &str) -> Result<&'a Value, ParseError> {
        self.map.get(key).ok_or_else(|| {
            ParseError::new(
                ParseErrorKind::MissingField,
                &self.path(key),
                "this field is required and missing",
            )
        })
    }

    /// A required string field.
    pub fn string(&self, key: &str) -> Result<&'a str, ParseError> {
        match self.required(key)? {
            Value::String(text) => Ok(text),
            other => Err(wrong(&self.path(key), "a string", other)),
        }
    }

    /// A required list field.
    pub fn list(&self, key: &str, what: &str) -> Result<&'a [Value], ParseError> {
        list(self.required(key)?, &self.path(key), what)
    }

    /// A required whole-number field.
    pub fn whole<T: TryFrom<u64>>(&self, key: &str, what: &str) -> Result<T, ParseError> {
        whole(self.required(key)?, &self.path(key), what)
    }

    /// A whole-number field with a default when absent.
    pub fn whole_or<T: TryFrom<u64>>(
        &self,
        key: &str,
        what: &str,
        default: T,
    ) -> Result<T, ParseError> {
        match self.optional(key) {
            None => Ok(default),
            Some(value) => whole(value, &self.path(key), what),
        }
    }
}

/// A serde_json error message without its position suffix (` at line 1
/// column 7`), which means nothing to someone who sent a one-line body.
pub fn plain_serde_message(error: &serde_json::Error) -> String {
    let message = error.to_string();
    match message.rfind(" at line ") {
        Some(cut) => message[..cut].to_owned(),
        None => message,
    }
}
