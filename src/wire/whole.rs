//! Numbers and objects as JSON Schema reads them, where serde's defaults
//! differ; for the wire types of every surface.
//! - whole numbers: `7` and `7.0` are the same integer, but serde refuses
//!   `7.0` for an integer field, so ids and counts deserialise through
//!   [`one`], [`optional`], [`list`] and [`nullable`];
//! - objects: serde accepts a JSON array for a struct (fields by position),
//!   which a schema forbids, so a struct is read through [`Object`], which
//!   takes only a JSON object.

use serde::Deserialize;
use serde::de::{DeserializeOwned, Deserializer, Error};

/// A `T` read from a JSON object only (never from an array).
#[derive(Clone, Debug)]
pub struct Object<T>(pub T);

impl<T: serde::Serialize> serde::Serialize for Object<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl<'de, T: DeserializeOwned> Deserialize<'de> for Object<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let map = serde_json::Map::<String, serde_json::Value>::deserialize(deserializer)?;
        T::deserialize(serde_json::Value::Object(map))
            .map(Object)
            .map_err(D::Error::custom)
    }
}

/// The number as a `T`, if it is a non-negative whole number (`7` or `7.0`)
/// that fits.
///
/// ```
/// use sternhalma::wire::whole::number;
/// let n = |text: &str| number::<u32>(&serde_json::from_str(text).unwrap());
/// assert_eq!((n("7"), n("7.0"), n("3e2")), (Some(7), Some(7), Some(300)));
/// assert_eq!((n("7.5"), n("-1"), n("4294967296")), (None, None, None));
/// ```
#[must_use]
pub fn number<T: TryFrom<u64>>(number: &serde_json::Number) -> Option<T> {
    let whole = number.as_u64().or_else(|| {
        let float = number.as_f64()?;
        // 2^64 is exactly representable; anything below it that is whole fits.
        (float.fract() == 0.0 && (0.0..18_446_744_073_709_551_616.0).contains(&float))
            .then_some(float as u64)
    })?;
    T::try_from(whole).ok()
}

fn convert<T: TryFrom<u64>, E: Error>(value: &serde_json::Number) -> Result<T, E> {
    number(value).ok_or_else(|| E::custom(format!("{value} is not a whole number in range")))
}

/// A whole number.
///
/// # Errors
/// Not a whole number in `T`'s range.
pub fn one<'de, D: Deserializer<'de>, T: TryFrom<u64>>(deserializer: D) -> Result<T, D::Error> {
    convert(&serde_json::Number::deserialize(deserializer)?)
}

/// An optional whole number (`null` or absent: `None`).
///
/// # Errors
/// Not a whole number in `T`'s range.
pub fn optional<'de, D: Deserializer<'de>, T: TryFrom<u64>>(
    deserializer: D,
) -> Result<Option<T>, D::Error> {
    Option::<serde_json::Number>::deserialize(deserializer)?
        .map(|n| convert(&n))
        .transpose()
}

/// A list of whole numbers.
///
/// # Errors
/// An item that is not a whole number in `T`'s range.
pub fn list<'de, D: Deserializer<'de>, T: TryFrom<u64>>(
    deserializer: D,
) -> Result<Vec<T>, D::Error> {
    Vec::<serde_json::Number>::deserialize(deserializer)?
        .iter()
        .map(convert)
        .collect()
}

/// A field that may be absent (outer `None`), `null` (`Some(None)`) or a
/// whole number.
///
/// # Errors
/// Not a whole number in `T`'s range.
pub fn nullable<'de, D: Deserializer<'de>, T: TryFrom<u64>>(
    deserializer: D,
) -> Result<Option<Option<T>>, D::Error> {
    optional(deserializer).map(Some)
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    #[derive(Deserialize)]
    struct Sample {
        #[serde(deserialize_with = "super::one")]
        n: u32,
        #[serde(deserialize_with = "super::list")]
        list: Vec<usize>,
    }

    #[test]
    fn objects_only() {
        let ok: super::Object<Sample> = serde_json::from_str(r#"{"n": 1, "list": []}"#).unwrap();
        assert_eq!(ok.0.n, 1);
        assert!(serde_json::from_str::<super::Object<Sample>>("[1, []]").is_err());
        assert!(
            serde_json::from_str::<Sample>("[1, []]").is_ok(),
            "what serde does alone"
        );
    }

    #[test]
    fn whole_floats_are_integers() {
        let s: Sample = serde_json::from_str(r#"{"n": 7.0, "list": [1, 2.0, 3e2]}"#).unwrap();
        assert_eq!((s.n, s.list), (7, vec![1, 2, 300]));
        for bad in [
            r#"{"n": 7.5, "list": []}"#,
            r#"{"n": -1, "list": []}"#,
            r#"{"n": 4294967296, "list": []}"#,
            r#"{"n": 1, "list": [1e30]}"#,
        ] {
            assert!(serde_json::from_str::<Sample>(bad).is_err(), "{bad}");
        }
    }
}
