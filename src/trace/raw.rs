//! The records of trace format v1 exactly as they appear in JSON, before any checking; the
//! same structs serialize records when paf writes a bundle (`paf synth`).
//!
//! Records are flat structs of optional fields rather than serde enums: that keeps parsing
//! fast (no buffering of internally tagged enums) and lets the reader say precisely which
//! field a record of a given kind lacks.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use super::model::{Access, EntryValues, ExceptionInfo, How, Outcome, Role};

#[derive(Deserialize, Serialize)]
pub struct Manifest {
    pub format: String,
    pub version: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub producer: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    /// Directories holding the sources, relative to the repository root (`src/main/java`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub source_roots: Vec<String>,
}

#[derive(Deserialize, Serialize)]
pub struct Statement {
    pub id: u64,
    pub class: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    pub file: String,
    pub line: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bci: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access: Option<Access>,
}

#[derive(Deserialize, Serialize)]
pub struct StaticDua {
    pub def: u64,
    #[serde(rename = "use")]
    pub use_: u64,
    pub var: String,
}

/// The record kinds of `tests.jsonl`.
#[derive(Deserialize, Serialize, Clone, Copy, Debug, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    #[default]
    Begin,
    End,
    Enter,
    Exit,
    Def,
    Use,
    Branch,
    Alloc,
}

/// A variable reference; exactly one of the kind fields must be present.
#[derive(Deserialize, Serialize, Default, Clone, Debug, PartialEq)]
pub struct Var<'a> {
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub local: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame: Option<u64>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub field: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub obj: Option<u64>,
    #[serde(
        borrow,
        default,
        rename = "static",
        skip_serializing_if = "Option::is_none"
    )]
    pub static_: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elem: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<u64>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub name: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ret: Option<u64>,
}

#[derive(Deserialize, Serialize, Clone, Debug, PartialEq)]
pub struct FieldDefault<'a> {
    #[serde(borrow)]
    pub field: Cow<'a, str>,
    pub stmt: u64,
}

/// Any line of `tests.jsonl`.
#[derive(Deserialize, Serialize, Default, Debug, PartialEq)]
pub struct Record<'a> {
    pub k: Kind,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub test: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Outcome>,
    /// Boxed, as `values`: rare fields, and a record is built for every line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exception: Option<Box<ExceptionInfo>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub events: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub truncated: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame: Option<u64>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub method: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub caller: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub this: Option<u64>,
    /// On an `enter` from the test body: the test method's line that made the call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test_line: Option<u64>,
    /// With `test_line`: the call came from uninstrumented code the line called (a callback).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub callback: Option<bool>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub throw: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stmt: Option<u64>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub var: Option<Var<'a>>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub from: Option<Var<'a>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cast: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub how: Option<How>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub callee: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<Role>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub null: Option<bool>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub uses: Option<Vec<Var<'a>>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub obj: Option<u64>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub fields: Option<Vec<FieldDefault<'a>>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub length: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<Box<EntryValues>>,
}
