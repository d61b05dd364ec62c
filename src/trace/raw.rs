//! The records of trace format v1 exactly as they appear in JSON, before any checking.
//!
//! Records are flat structs of optional fields rather than serde enums: that keeps parsing
//! fast (no buffering of internally tagged enums) and lets the reader say precisely which
//! field a record of a given kind lacks.

use std::borrow::Cow;

use serde::Deserialize;

use super::model::{ExceptionInfo, How, Outcome, Role};

#[derive(Deserialize)]
pub struct Manifest {
    pub format: String,
    pub version: u64,
    #[serde(default)]
    pub producer: Option<String>,
    #[serde(default)]
    pub subject: Option<String>,
}

#[derive(Deserialize)]
pub struct Statement {
    pub id: u64,
    pub class: String,
    #[serde(default)]
    pub method: Option<String>,
    pub file: String,
    pub line: u32,
    #[serde(default)]
    pub bci: Option<u32>,
}

#[derive(Deserialize)]
pub struct StaticDua {
    pub def: u64,
    #[serde(rename = "use")]
    pub use_: u64,
    pub var: String,
}

/// The record kinds of `tests.jsonl`.
#[derive(Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
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
#[derive(Deserialize, Default)]
pub struct Var<'a> {
    #[serde(borrow, default)]
    pub local: Option<Cow<'a, str>>,
    #[serde(default)]
    pub frame: Option<u64>,
    #[serde(borrow, default)]
    pub field: Option<Cow<'a, str>>,
    #[serde(default)]
    pub obj: Option<u64>,
    #[serde(borrow, default, rename = "static")]
    pub static_: Option<Cow<'a, str>>,
    #[serde(default)]
    pub elem: Option<u64>,
    #[serde(default)]
    pub index: Option<u64>,
    #[serde(borrow, default)]
    pub name: Option<Cow<'a, str>>,
    #[serde(default)]
    pub ret: Option<u64>,
}

#[derive(Deserialize)]
pub struct FieldDefault<'a> {
    #[serde(borrow)]
    pub field: Cow<'a, str>,
    pub stmt: u64,
}

/// Any line of `tests.jsonl`.
#[derive(Deserialize)]
pub struct Record<'a> {
    pub k: Kind,
    #[serde(borrow, default)]
    pub test: Option<Cow<'a, str>>,
    #[serde(default)]
    pub outcome: Option<Outcome>,
    #[serde(default)]
    pub exception: Option<ExceptionInfo>,
    #[serde(default)]
    pub events: Option<u64>,
    #[serde(default)]
    pub truncated: Option<bool>,
    #[serde(default)]
    pub frame: Option<u64>,
    #[serde(borrow, default)]
    pub method: Option<Cow<'a, str>>,
    #[serde(default)]
    pub caller: Option<u64>,
    #[serde(default)]
    pub this: Option<u64>,
    #[serde(borrow, default)]
    pub throw: Option<Cow<'a, str>>,
    #[serde(default)]
    pub stmt: Option<u64>,
    #[serde(borrow, default)]
    pub var: Option<Var<'a>>,
    #[serde(borrow, default)]
    pub from: Option<Var<'a>>,
    #[serde(default)]
    pub cast: Option<bool>,
    #[serde(default)]
    pub how: Option<How>,
    #[serde(borrow, default)]
    pub callee: Option<Cow<'a, str>>,
    #[serde(default)]
    pub role: Option<Role>,
    #[serde(default)]
    pub null: Option<bool>,
    #[serde(borrow, default)]
    pub uses: Option<Vec<Var<'a>>>,
    #[serde(default)]
    pub obj: Option<u64>,
    #[serde(borrow, default)]
    pub fields: Option<Vec<FieldDefault<'a>>>,
    #[serde(default)]
    pub length: Option<u64>,
}
