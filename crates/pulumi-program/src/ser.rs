//! A serde `Serializer` into the YAML tree ([`Y`]), so Pulumi properties can be typed structs
//! while the writer in `yaml.rs`, and so every emitted byte, stays as it is.
//!
//! It accepts the program's data model: strings, integers, booleans, sequences, maps and structs
//! (entries in field order). A `None` field or map value is left out: the program has no null,
//! and an absent property is how Pulumi YAML says "not set", so optional properties need no
//! `skip_serializing_if`. Floats, bytes and units have no form in the program and are errors.

use serde::ser::{self, Impossible, Serialize};

use super::yaml::Y;

/// Why a value cannot become part of the program.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub(super) enum Error {
    /// A value of a type the program cannot hold.
    #[error("{0} has no form in a Pulumi YAML program")]
    Unsupported(&'static str),
    /// A map key that is not a string.
    #[error("a map key must be a string")]
    KeyNotString,
    /// An error a `Serialize` implementation raised.
    #[error("{0}")]
    Custom(String),
}

impl ser::Error for Error {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Error::Custom(msg.to_string())
    }
}

/// The YAML tree of a value.
pub(super) fn to_yaml<T: Serialize + ?Sized>(value: &T) -> Result<Y, Error> {
    value.serialize(Serializer)?.ok_or(Error::Unsupported("a missing value (`None`)"))
}

/// Serializes into `Some(tree)`, or `None` for a value to leave out.
struct Serializer;

type Out = Result<Option<Y>, Error>;

fn int(value: impl Into<i64>) -> Out {
    Ok(Some(Y::Int(value.into())))
}

impl ser::Serializer for Serializer {
    type Ok = Option<Y>;
    type Error = Error;
    type SerializeSeq = Seq;
    type SerializeTuple = Seq;
    type SerializeTupleStruct = Seq;
    type SerializeTupleVariant = Impossible<Option<Y>, Error>;
    type SerializeMap = Map;
    type SerializeStruct = Map;
    type SerializeStructVariant = Impossible<Option<Y>, Error>;

    fn serialize_bool(self, v: bool) -> Out {
        Ok(Some(Y::Bool(v)))
    }
    fn serialize_i8(self, v: i8) -> Out {
        int(v)
    }
    fn serialize_i16(self, v: i16) -> Out {
        int(v)
    }
    fn serialize_i32(self, v: i32) -> Out {
        int(v)
    }
    fn serialize_i64(self, v: i64) -> Out {
        int(v)
    }
    fn serialize_u8(self, v: u8) -> Out {
        int(v)
    }
    fn serialize_u16(self, v: u16) -> Out {
        int(v)
    }
    fn serialize_u32(self, v: u32) -> Out {
        int(v)
    }
    // Seconds and counts in a plan are far below `i64::MAX`; saturate rather than wrap.
    fn serialize_u64(self, v: u64) -> Out {
        int(i64::try_from(v).unwrap_or(i64::MAX))
    }
    fn serialize_f32(self, _: f32) -> Out {
        Err(Error::Unsupported("a float"))
    }
    // A finite number is written as Rust writes it shortest (the same bytes every time).
    fn serialize_f64(self, v: f64) -> Out {
        if v.is_finite() {
            Ok(Some(Y::Number(format!("{v}"))))
        } else {
            Err(Error::Unsupported("a float that is not finite"))
        }
    }
    fn serialize_char(self, v: char) -> Out {
        Ok(Some(Y::Str(v.to_string())))
    }
    fn serialize_str(self, v: &str) -> Out {
        Ok(Some(Y::Str(v.to_owned())))
    }
    fn serialize_bytes(self, _: &[u8]) -> Out {
        Err(Error::Unsupported("a byte string"))
    }
    fn serialize_none(self) -> Out {
        Ok(None)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Out {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Out {
        Err(Error::Unsupported("a unit"))
    }
    fn serialize_unit_struct(self, _: &'static str) -> Out {
        Err(Error::Unsupported("a unit struct"))
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Out {
        Ok(Some(Y::Str(variant.to_owned())))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, value: &T) -> Out {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Out {
        Ok(Some(Y::Map(vec![(variant.to_owned(), to_yaml(value)?)])))
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Seq, Error> {
        Ok(Seq(Vec::with_capacity(len.unwrap_or(0))))
    }
    fn serialize_tuple(self, len: usize) -> Result<Seq, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<Seq, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        Err(Error::Unsupported("a tuple variant"))
    }
    fn serialize_map(self, len: Option<usize>) -> Result<Map, Error> {
        Ok(Map { entries: Vec::with_capacity(len.unwrap_or(0)), key: None })
    }
    fn serialize_struct(self, _: &'static str, len: usize) -> Result<Map, Error> {
        self.serialize_map(Some(len))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        Err(Error::Unsupported("a struct variant"))
    }
}

/// A sequence being built.
struct Seq(Vec<Y>);

impl ser::SerializeSeq for Seq {
    type Ok = Option<Y>;
    type Error = Error;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.0.push(to_yaml(value)?);
        Ok(())
    }
    fn end(self) -> Out {
        Ok(Some(Y::List(self.0)))
    }
}

impl ser::SerializeTuple for Seq {
    type Ok = Option<Y>;
    type Error = Error;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Out {
        ser::SerializeSeq::end(self)
    }
}

impl ser::SerializeTupleStruct for Seq {
    type Ok = Option<Y>;
    type Error = Error;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Out {
        ser::SerializeSeq::end(self)
    }
}

/// A mapping being built, in insertion order; `key` waits for its value.
struct Map {
    entries: Vec<(String, Y)>,
    key: Option<String>,
}

impl Map {
    fn entry<T: Serialize + ?Sized>(&mut self, key: String, value: &T) -> Result<(), Error> {
        if let Some(value) = value.serialize(Serializer)? {
            self.entries.push((key, value));
        }
        Ok(())
    }
}

impl ser::SerializeMap for Map {
    type Ok = Option<Y>;
    type Error = Error;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        let Y::Str(key) = to_yaml(key)? else { return Err(Error::KeyNotString) };
        self.key = Some(key);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        let key = self.key.take().ok_or_else(|| Error::Custom("a map value without its key".to_owned()))?;
        self.entry(key, value)
    }
    fn end(self) -> Out {
        Ok(Some(Y::Map(self.entries)))
    }
}

impl ser::SerializeStruct for Map {
    type Ok = Option<Y>;
    type Error = Error;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), Error> {
        self.entry(key.to_owned(), value)
    }
    fn end(self) -> Out {
        Ok(Some(Y::Map(self.entries)))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde::Serialize;

    use super::super::yaml::{Y, i, m, s};
    use super::*;

    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Props<'a> {
        name: &'a str,
        fifo_queue: Option<bool>,
        visibility_timeout_seconds: u64,
        subnet_ids: Vec<String>,
        #[serde(rename = "fn::toJSON")]
        json: BTreeMap<&'a str, u16>,
    }

    #[test]
    fn structs_keep_field_order_and_leave_out_none() {
        let props = Props {
            name: "q",
            fifo_queue: None,
            visibility_timeout_seconds: u64::MAX,
            subnet_ids: vec!["a".to_owned()],
            json: BTreeMap::from([("port", 443)]),
        };
        assert_eq!(
            to_yaml(&props),
            Ok(m([
                ("name", s("q")),
                ("visibilityTimeoutSeconds", i(i64::MAX)),
                ("subnetIds", Y::List(vec![s("a")])),
                ("fn::toJSON", m([("port", i(443))])),
            ]))
        );
    }

    #[test]
    fn values_without_a_form_are_errors() {
        assert_eq!(to_yaml(&1.5_f32), Err(Error::Unsupported("a float")));
        assert_eq!(to_yaml(&f64::NAN), Err(Error::Unsupported("a float that is not finite")));
        assert_eq!(to_yaml(&f64::INFINITY), Err(Error::Unsupported("a float that is not finite")));
        assert_eq!(to_yaml(&1.5_f64), Ok(Y::Number("1.5".to_owned())));
        assert_eq!(to_yaml(&2.0_f64), Ok(Y::Number("2".to_owned())));
        assert!(to_yaml(&None::<u8>).is_err());
        assert!(to_yaml(&vec![None::<u8>]).is_err());
        assert_eq!(to_yaml(&BTreeMap::from([(1, 2)])), Err(Error::KeyNotString));
    }
}
