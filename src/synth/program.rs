//! The synthetic program: the statement ids of its planted faults and traps, its
//! order-dependent pairs and its filler classes, as the statement table lists them.

use crate::trace::raw::Statement;

pub(super) const WORK_CLASSES: usize = 40;
pub(super) const WORK_METHODS: usize = 6;
pub(super) const WORK_FIELDS: usize = 4;

/// Statement ids of one filler class: its field declarations, and per method its entry and
/// four body statements.
pub(super) struct WorkClass {
    pub(super) fields: Vec<u64>,
    pub(super) methods: Vec<(u64, [u64; 4])>,
}

/// Statement ids of the synthetic program.
pub(super) struct Program {
    pub(super) statements: Vec<Statement>,
    pub(super) work: Vec<WorkClass>,
    /// Per fault: (line 11, 12, 13) ids.
    pub(super) faults: Vec<[u64; 3]>,
    /// Per trap: (field decl, setTarget entry, setTarget store, use deref) ids.
    pub(super) traps: Vec<[u64; 4]>,
    /// Per order-dependent pair: (reset store, get deref) ids.
    pub(super) shared: Vec<[u64; 2]>,
}

impl Program {
    pub(super) fn new(faults: usize, traps: usize, shared: usize) -> Program {
        let mut p = Program {
            statements: Vec::new(),
            work: Vec::new(),
            faults: Vec::new(),
            traps: Vec::new(),
            shared: Vec::new(),
        };
        let mut add = |class: &str, method: Option<&str>, file: &str, line: u32| {
            let id = p.statements.len() as u64;
            p.statements.push(Statement {
                id,
                class: class.to_string(),
                method: method.map(str::to_string),
                file: file.to_string(),
                line,
                bci: None,
                access: None,
            });
            id
        };
        for c in 0..WORK_CLASSES {
            let (class, file) = (format!("synth.Work{c}"), format!("Work{c}.java"));
            let fields = (0..WORK_FIELDS)
                .map(|f| add(&class, None, &file, 2 + f as u32))
                .collect();
            let methods = (0..WORK_METHODS)
                .map(|m| {
                    let name = format!("m{m}");
                    let base = 10 + 8 * m as u32;
                    let entry = add(&class, Some(&name), &file, base);
                    let body = [1, 2, 3, 4].map(|d| add(&class, Some(&name), &file, base + d));
                    (entry, body)
                })
                .collect();
            p.work.push(WorkClass { fields, methods });
        }
        for k in 0..faults {
            let (class, file) = (format!("synth.Fault{k}"), format!("Fault{k}.java"));
            let ids = [11, 12, 13].map(|line| add(&class, Some("run"), &file, line));
            p.faults.push(ids);
        }
        for v in 0..traps {
            let (class, file) = (format!("synth.Trap{v}"), format!("Trap{v}.java"));
            p.traps.push([
                add(&class, None, &file, 2),
                add(&class, Some("setTarget"), &file, 5),
                add(&class, Some("setTarget"), &file, 6),
                add(&class, Some("use"), &file, 10),
            ]);
        }
        for k in 0..shared {
            let (class, file) = (format!("synth.Shared{k}"), format!("Shared{k}.java"));
            p.shared.push([
                add(&class, Some("reset"), &file, 7),
                add(&class, Some("get"), &file, 11),
            ]);
        }
        p
    }
}
