//! Reading a value with its generated type when the value lacks something the type
//! requires: a field the schema calls required that is missing or `null`, or an empty
//! object written `[]` (as Lua and PHP encoders write one). The value is read again with
//! the gap filled by the empty value of the field's type (`""`, `0`, `false`, `[]`, `{}`,
//! `null` where any value goes), and each gap filled is told ([`Repair`]), so the reader
//! still gives the event's call, with a notice naming the field, instead of an error that
//! drops it.
//!
//! serde's error names a missing field but not where it is: the objects of the value that
//! lack it are tried in turn, the outermost first, and a filling is kept when the value
//! then reads, or fails further on for another reason (an error that the filled value
//! itself causes, such as `invalid type: string ""`, means the filling was of the wrong
//! type, and the next is tried). A `null` or a `[]` is found the same way. What cannot be
//! filled (an enum, whose value would be invented; an id) keeps the first error.

use std::fmt;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::read::json;

/// At most this many gaps are filled in one value.
const MAX_REPAIRS: usize = 8;

/// At most this many readings of one value are tried in all.
const MAX_READINGS: usize = 256;

/// A value read as its type, and the gaps filled for it to read.
#[derive(Debug)]
pub(crate) struct Tolerated<T> {
    /// The value, read.
    pub value: T,
    /// What was filled in, in the order it was (empty when the value read as it is).
    pub repairs: Vec<Repair>,
}

impl<T> Tolerated<T> {
    /// The notice that tells what was filled in for `what` (the event or item) to read,
    /// or `None` when it read as it is.
    pub(crate) fn notice(&self, line: u64, what: &str) -> Option<Diagnostic> {
        repairs_notice(line, what, &self.repairs)
    }
}

/// The notice for `repairs` of `what` on `line`, when there are any.
/// An empty object written `[]` is that object (as its encoder writes it): not told.
pub(crate) fn repairs_notice(line: u64, what: &str, repairs: &[Repair]) -> Option<Diagnostic> {
    let told: Vec<&Repair> = repairs
        .iter()
        .filter(|repair| repair.problem != Problem::EmptyArray)
        .collect();
    if told.is_empty() {
        return None;
    }
    let said: Vec<String> = told.iter().map(|repair| repair.to_string()).collect();
    Some(Diagnostic::notice(
        line,
        DiagnosticKind::MalformedEvent,
        format!(
            "{what} does not match its schema: {}; read with {}",
            said.join("; "),
            if told.len() == 1 {
                "that value"
            } else {
                "those values"
            }
        ),
    ))
}

/// One gap filled.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Repair {
    /// Where, as `a.b[2].c` from the value read.
    pub path: String,
    /// What was wrong there.
    pub problem: Problem,
    /// The value read in its place.
    pub filled: Value,
}

/// What was wrong with a field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Problem {
    /// The schema requires it; the value has none.
    Missing,
    /// The schema requires a value; it is `null`.
    Null,
    /// An object written as an empty array.
    EmptyArray,
}

impl fmt::Display for Repair {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.problem {
            Problem::Missing => "missing required field",
            Problem::Null => "required field is null:",
            Problem::EmptyArray => "object written as `[]`:",
        };
        write!(f, "{what} `{}` (as `{}`)", self.path, self.filled)
    }
}

/// Reads `text` as `T`; when it does not read for a gap this module fills, reads it again
/// with the gaps filled. The error is that of the gap that could not be filled, else the
/// first reading's.
pub(crate) fn from_str<T: DeserializeOwned>(text: &str) -> Result<Tolerated<T>, serde_json::Error> {
    match serde_json::from_str::<T>(text) {
        Ok(value) => Ok(Tolerated {
            value,
            repairs: Vec::new(),
        }),
        Err(error) if fillable(&json::without_position(&error)) => {
            match serde_json::from_str::<Value>(text) {
                Ok(value) => repaired(value).map_err(|unfilled| unfilled.unwrap_or(error)),
                Err(_) => Err(error),
            }
        }
        Err(error) => Err(error),
    }
}

/// [`from_str`] of a value already parsed.
pub(crate) fn from_value<T: DeserializeOwned>(
    value: Value,
) -> Result<Tolerated<T>, serde_json::Error> {
    match T::deserialize(&value) {
        Ok(read) => Ok(Tolerated {
            value: read,
            repairs: Vec::new(),
        }),
        Err(error) if fillable(&error.to_string()) => {
            repaired(value).map_err(|unfilled| unfilled.unwrap_or(error))
        }
        Err(error) => Err(error),
    }
}

/// Whether a field names what an event is about (`id`, `callID`, `tool_id`, `type`,
/// `name`, `tool`, `tool_name`): filled in, it would make up a call or a tool. It is not.
fn names_the_call(field: &str) -> bool {
    matches!(field, "id" | "type" | "name" | "tool" | "tool_name")
        || ["_id", "Id", "ID"].iter().any(|end| field.ends_with(end))
}

/// Whether an error (its message) is of a gap this module fills.
fn fillable(message: &str) -> bool {
    missing_field(message).is_some_and(|field| !names_the_call(field))
        || message.starts_with("invalid type: null,")
        || empty_array_for_object(message)
}

/// The field a `missing field` error names.
fn missing_field(message: &str) -> Option<&str> {
    message.strip_prefix("missing field `")?.strip_suffix('`')
}

/// Whether the error is of an empty array where an object (a map or a struct) goes.
fn empty_array_for_object(message: &str) -> bool {
    message.starts_with("invalid type: sequence, expected a map")
        || (message.starts_with("invalid length 0, expected struct"))
}

/// The values tried for a missing or null field, in this order.
fn fillings() -> [Value; 6] {
    [
        Value::Null,
        Value::String(String::new()),
        Value::from(0),
        Value::Bool(false),
        Value::Array(Vec::new()),
        Value::Object(Map::new()),
    ]
}

/// Whether `message` is an error that `filled` itself causes: the filling is of the wrong
/// type for its field.
fn caused_by(message: &str, filled: &Value, field: Option<&str>) -> bool {
    let unexpected = match filled {
        Value::Null => "null".to_owned(),
        Value::String(text) => format!("string {text:?}"),
        Value::Number(number) => format!("integer `{number}`"),
        Value::Bool(flag) => format!("boolean `{flag}`"),
        Value::Array(_) => "sequence".to_owned(),
        Value::Object(_) => "map".to_owned(),
    };
    message.starts_with(&format!("invalid type: {unexpected},"))
        || message.starts_with(&format!("invalid value: {unexpected},"))
        || (filled.as_str() == Some("") && message.starts_with("unknown variant ``"))
        || message.starts_with("invalid length 0,")
        || message.starts_with("data did not match any variant")
        || field.is_some_and(|field| message.starts_with(&format!("unknown field `{field}`")))
}

/// Readings of one value as `T`, counted.
struct Reader<T> {
    left: usize,
    _type: std::marker::PhantomData<fn() -> T>,
}

/// How a reading went.
enum Reading<T> {
    Read(T),
    Failed(String),
    /// No readings left.
    Spent,
}

/// Why a value could not be read even with its gaps filled: the error of the gap that
/// could not be filled (or the first error, when the readings ran out).
type Unfilled = Option<serde_json::Error>;

impl<T: DeserializeOwned> Reader<T> {
    fn read(&mut self, value: &Value) -> Reading<T> {
        if self.left == 0 {
            return Reading::Spent;
        }
        self.left -= 1;
        match T::deserialize(value) {
            Ok(read) => Reading::Read(read),
            Err(error) => Reading::Failed(error.to_string()),
        }
    }
}

/// A place in the value: the path of keys and indexes to it.
#[derive(Debug, Clone)]
enum Step {
    Key(String),
    Index(usize),
}

fn path_text(path: &[Step]) -> String {
    let mut text = String::new();
    for step in path {
        match step {
            Step::Key(key) => {
                if !text.is_empty() {
                    text.push('.');
                }
                text.push_str(key);
            }
            Step::Index(index) => text.push_str(&format!("[{index}]")),
        }
    }
    text
}

fn at_mut<'v>(value: &'v mut Value, path: &[Step]) -> Option<&'v mut Value> {
    path.iter().try_fold(value, |value, step| match step {
        Step::Key(key) => value.get_mut(key.as_str()),
        Step::Index(index) => value.get_mut(*index),
    })
}

/// The places in `value` (outermost first, then in document order) where `wanted` holds.
fn places(value: &Value, wanted: &dyn Fn(&Value) -> bool) -> Vec<Vec<Step>> {
    let mut found = Vec::new();
    let mut level: Vec<(Vec<Step>, &Value)> = vec![(Vec::new(), value)];
    while !level.is_empty() {
        let mut next = Vec::new();
        for (path, value) in level {
            if wanted(value) {
                found.push(path.clone());
            }
            let children: Vec<(Step, &Value)> = match value {
                Value::Object(object) => object
                    .iter()
                    .map(|(key, child)| (Step::Key(key.clone()), child))
                    .collect(),
                Value::Array(items) => items
                    .iter()
                    .enumerate()
                    .map(|(index, child)| (Step::Index(index), child))
                    .collect(),
                _ => Vec::new(),
            };
            for (step, child) in children {
                let mut child_path = path.clone();
                child_path.push(step);
                next.push((child_path, child));
            }
        }
        level = next;
    }
    found
}

/// The value read with its gaps filled, and what was filled; else the error of the gap
/// that could not be filled (`None`: keep the first error).
fn repaired<T: DeserializeOwned>(mut value: Value) -> Result<Tolerated<T>, Unfilled> {
    let mut reader = Reader::<T> {
        left: MAX_READINGS,
        _type: std::marker::PhantomData,
    };
    let mut repairs = Vec::new();
    loop {
        let message = match reader.read(&value) {
            Reading::Read(read) => {
                return Ok(Tolerated {
                    value: read,
                    repairs,
                });
            }
            Reading::Failed(message) => message,
            Reading::Spent => return Err(None),
        };
        if repairs.len() == MAX_REPAIRS {
            return Err(None);
        }
        let Some(repair) = fill_one(&mut value, &message, &mut reader) else {
            return Err(T::deserialize(&value).err());
        };
        repairs.push(repair);
    }
}

/// Fills the gap `message` tells of, where filling it helps: the first place and
/// filling whose reading succeeds or fails on something else (not caused by the filling).
/// A place whose filling leaves the same error is kept as a last resort (the same gap may
/// be in several places).
fn fill_one<T: DeserializeOwned>(
    value: &mut Value,
    message: &str,
    reader: &mut Reader<T>,
) -> Option<Repair> {
    // Each candidate: the place, whether it is a key to add, the fillings to try.
    let (problem, field, candidates): (Problem, Option<String>, Vec<Vec<Step>>) =
        if let Some(field) = missing_field(message) {
            if names_the_call(field) {
                return None;
            }
            let field = field.to_owned();
            let lacking = |value: &Value| {
                value
                    .as_object()
                    .is_some_and(|object| !object.contains_key(field.as_str()))
            };
            (
                Problem::Missing,
                Some(field.clone()),
                places(value, &lacking),
            )
        } else if message.starts_with("invalid type: null,") {
            let mut nulls = places(value, &Value::is_null);
            nulls.retain(
                |place| !matches!(place.last(), Some(Step::Key(key)) if names_the_call(key)),
            );
            (Problem::Null, None, nulls)
        } else if empty_array_for_object(message) {
            let empty = |value: &Value| value.as_array().is_some_and(Vec::is_empty);
            (Problem::EmptyArray, None, places(value, &empty))
        } else {
            return None;
        };
    let fillings: Vec<Value> = match problem {
        Problem::Missing => fillings().into(),
        Problem::Null => fillings().into_iter().skip(1).collect(),
        Problem::EmptyArray => vec![Value::Object(Map::new())],
    };
    // A place where the gap is the same as elsewhere: filling it leaves the same error
    // (the next place with that gap), yet its field refuses `null` (it is required there)
    // or, for an empty array, a number (an object goes there).
    let mut fallback: Option<(Vec<Step>, Value)> = None;
    for place in candidates {
        let mut null_refused = false;
        let mut same: Option<&Value> = None;
        for (tried, filling) in fillings.iter().enumerate() {
            let before = set(value, &place, field.as_deref(), Some(filling.clone()))?;
            let outcome = reader.read(value);
            set(value, &place, field.as_deref(), before);
            match outcome {
                Reading::Spent => return None,
                Reading::Read(_) => return Some(keep(value, place, field, problem, filling)),
                Reading::Failed(after) if caused_by(&after, filling, field.as_deref()) => {
                    null_refused |= filling.is_null();
                }
                Reading::Failed(after) if after != message => {
                    return Some(keep(value, place, field, problem, filling));
                }
                Reading::Failed(_) => {
                    same = same.or(Some(filling));
                    // Neither `null` nor `""` changed anything: the field is not read
                    // here, or any value goes.
                    if tried >= 1 && same.is_some() && !null_refused && problem == Problem::Missing
                    {
                        break;
                    }
                }
            }
        }
        // An empty array whose `{}` leaves the same error is the gap again elsewhere when
        // its place refuses a number (an object goes there), else any value goes there.
        if problem == Problem::EmptyArray && same.is_some() && fallback.is_none() {
            let before = set(value, &place, None, Some(Value::from(0)))?;
            let outcome = reader.read(value);
            set(value, &place, None, before);
            match outcome {
                Reading::Spent => return None,
                Reading::Failed(after) if caused_by(&after, &Value::from(0), None) => {
                    null_refused = true;
                }
                _ => {}
            }
        }
        if let (Some(filling), true, true, None) =
            (same, null_refused, problem != Problem::Null, &fallback)
        {
            fallback = Some((place.clone(), filling.clone()));
        }
    }
    let (place, filling) = fallback?;
    Some(keep(value, place, field, problem, &filling))
}

/// Sets the value at `place` (its `field` when one is given) to `to` (`None` removes the
/// field); gives what was there before. `None` when the place is gone.
fn set(
    value: &mut Value,
    place: &[Step],
    field: Option<&str>,
    to: Option<Value>,
) -> Option<Option<Value>> {
    let target = at_mut(value, place)?;
    match field {
        Some(field) => {
            let object = target.as_object_mut()?;
            Some(match to {
                Some(to) => object.insert(field.to_owned(), to),
                None => object.remove(field),
            })
        }
        None => Some(Some(std::mem::replace(target, to.unwrap_or(Value::Null)))),
    }
}

fn keep(
    value: &mut Value,
    mut place: Vec<Step>,
    field: Option<String>,
    problem: Problem,
    filling: &Value,
) -> Repair {
    let _ = set(value, &place, field.as_deref(), Some(filling.clone()));
    if let Some(field) = field {
        place.push(Step::Key(field));
    }
    Repair {
        path: path_text(&place),
        problem,
        filled: filling.clone(),
    }
}

#[cfg(test)]
#[path = "tolerant_tests.rs"]
mod tests;
