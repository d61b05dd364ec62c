//! Renderers of an [`EvalReport`]: a terminal table (like PAF Tables 5 and 6 and Figure 5 side
//! by side), JSON (`paf.eval/1`) and CSV; and of `paf localize`'s [`Localization`]
//! (`paf.localize/1`). They only format; every number is in the report.

use super::sbfl::{Formula, Localization, Score};
use super::{ClusterParams, ClusteringEval, Count, EvalReport, RankingEval, Weighting};
use crate::report::layout::{self, Column, TableStyle};

/// The `paf.eval/1` JSON document, pretty-printed, with a final newline.
pub fn json(report: &EvalReport) -> String {
    let mut out = serde_json::to_string_pretty(report).expect("a report always serializes");
    out.push('\n');
    out
}

/// A table laid out for `style` (docs/formats.md: sized to the terminal, as wide as its content
/// in a pipe or a file).
fn fitted(columns: &[Column], rows: Vec<Vec<String>>, style: TableStyle) -> String {
    layout::fit_text(columns, rows, style)
}

/// The rankings' columns, in the order they give way to a narrow terminal: the share of false
/// alarms, the undetected faults, the unit, the first detections, recall, n (shrinking where
/// their cells can wrap, then left out); APFD wraps its range. The ranking's name, APFD, the
/// alarms and their precision stay.
const RANKING_COLUMNS: [Column; 10] = [
    Column::fixed("Ranking"),
    Column::hides("Unit", 3),
    Column::hides("n", 6),
    Column::shrinks("APFD", 13, 7),
    Column::shrinks("First (TF)", 10, 4),
    Column::shrinks("Undetected", 10, 2),
    Column::fixed("True / Alarms"),
    Column::fixed("Precision"),
    Column::hides("Recall", 5),
    Column::shrinks("False-alarm share", 6, 1),
];

const CLUSTERING_COLUMNS: [Column; 4] = [
    Column::shrinks("Clustering", 16, 1),
    Column::fixed("F-measure"),
    Column::fixed("Clusters"),
    Column::fixed("Purity"),
];

/// The lines' columns: the method wraps first, then the location.
const LOCALIZATION_COLUMNS: [Column; 8] = [
    Column::shrinks("Line", 16, 2),
    Column::shrinks("Method", 16, 1),
    Column::fixed("e_f"),
    Column::fixed("e_p"),
    Column::fixed("Ochiai"),
    Column::fixed("Rank"),
    Column::fixed("DStar"),
    Column::fixed("Rank"),
];

fn fixed(v: f64) -> String {
    format!("{v:.3}")
}

fn opt(v: Option<f64>) -> String {
    v.map_or("-".to_string(), fixed)
}

fn count(c: Count) -> String {
    match c {
        Count::Exact(n) => n.to_string(),
        Count::Mean(x) => format!("{x:.1}"),
    }
}

fn apfd_cell(r: &RankingEval) -> String {
    match (&r.spread, r.apfd.value) {
        (Some(s), _) => format!(
            "{} ± {} ({}-{})",
            fixed(s.mean),
            fixed(s.stddev),
            fixed(s.min),
            fixed(s.max)
        ),
        (None, Some(v)) => fixed(v),
        (None, None) => "undefined".to_string(),
    }
}

/// A parameter in at most three decimals, without trailing zeros (1, 0.5, 0.269).
fn short(v: f64) -> String {
    let s = format!("{v:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s.is_empty() || s == "-" {
        "0".to_string()
    } else {
        s.to_string()
    }
}

fn first_cell(r: &RankingEval) -> String {
    if r.apfd.first.is_empty() {
        return "-".to_string();
    }
    r.apfd
        .first
        .iter()
        .map(|(f, t)| format!("{f} {}", t.map_or("-".to_string(), count)))
        .collect::<Vec<_>>()
        .join(", ")
}

fn clustering_name(c: &ClusteringEval) -> String {
    match &c.params {
        Some(ClusterParams::ReBucket { c: cc, o, d, .. }) => format!(
            "{} (c={}, o={}, d={})",
            c.name,
            short(*cc),
            short(*o),
            short(*d)
        ),
        Some(ClusterParams::MSeer { medoids, .. }) => {
            format!(
                "{} (Ochiai, {})",
                c.name,
                crate::words::counted(*medoids, "medoid")
            )
        }
        None => c.name.clone(),
    }
}

/// The terminal tables: rankings (APFD and alarms), then clusterings, then how to read them.
pub fn table(report: &EvalReport, style: TableStyle) -> String {
    let mut out = wrapped(&heading(report), style);
    if !report.rankings.is_empty() {
        out.push_str(&rankings_table(&report.rankings, style));
    }
    if !report.clusterings.is_empty() {
        out.push_str(&clusterings_table(report, style));
    }
    let legend = legend(report);
    out.push_str(&match style.width {
        Some(_) => wrapped(&paragraphs(&legend), style),
        None => legend,
    });
    out
}

/// The legend's lines joined into paragraphs: a line that starts in lower case continues the
/// sentence above it (the legend is written broken at about 100 columns).
fn paragraphs(text: &str) -> String {
    let mut out = String::new();
    let mut after_text = false;
    for line in text.lines() {
        if after_text && line.starts_with(|c: char| c.is_ascii_lowercase()) {
            out.pop();
            out.push(' ');
        }
        out.push_str(line);
        out.push('\n');
        after_text = !line.is_empty();
    }
    out
}

/// Each line of `text` wrapped to the style's width (continuations indented by two spaces).
fn wrapped(text: &str, style: TableStyle) -> String {
    if style.width.is_none() {
        return text.to_string();
    }
    text.lines()
        .map(|line| layout::prose(line, "  ", style))
        .collect()
}

/// What was evaluated, against which truth, with which seed.
fn heading(report: &EvalReport) -> String {
    let mut out = String::new();
    let faults: Vec<String> = report
        .truth
        .faults
        .iter()
        .map(|f| format!("{}: {}", f.fault, crate::words::counted(f.tests, "test")))
        .collect();
    out.push_str(&format!("paf eval: {}\n", report.inputs.join(", ")));
    if let Some(subject) = &report.subject {
        out.push_str(&format!("subject: {subject}\n"));
    }
    let faults = if faults.is_empty() {
        "no fault".to_string()
    } else {
        format!(
            "{} ({})",
            crate::words::counted(faults.len(), "fault"),
            faults.join(", ")
        )
    };
    out.push_str(&format!(
        "truth: {}: {faults}, {}",
        report.truth.file,
        crate::words::counted(report.truth.revealing_tests, "fault-revealing test")
    ));
    if let Some(n) = report.failing {
        out.push_str(&format!(" among {n} failing"));
    }
    out.push_str(&format!("; seed {}\n", report.seed));
    if report.truth.faults.is_empty() {
        out.push_str(
            "the truth names no fault: APFD is undefined and every alarm is a false alarm\n",
        );
    }
    if !report.clusterings.is_empty() {
        out.push_str(match report.weighting {
            Weighting::Truth => {
                "F-measure weighting: truth (the standard one, which gives PAF's Table 5; \
                 or --weighting produced)\n"
            }
            Weighting::Produced => {
                "F-measure weighting: produced (the formula as printed in PAF section 5.1; \
                 or --weighting truth)\n"
            }
        });
    }
    out
}

/// The rankings' table, after a blank line and its title.
fn rankings_table(rankings: &[RankingEval], style: TableStyle) -> String {
    let mut out =
        "\nPrioritization (APFD, PAF Eq. 2 and Figure 5) and alarms (PAF Table 6)\n".to_string();
    let rows = rankings.iter().map(ranking_row).collect();
    out.push_str(&fitted(&RANKING_COLUMNS, rows, style));
    out
}

/// One ranking's row: its APFD, first detections, undetected faults and alarms.
fn ranking_row(r: &RankingEval) -> Vec<String> {
    let (alarms, precision, recall, false_share) = match &r.alarms {
        Some(a) => (
            format!("{} / {}", a.true_alarms, a.alarms),
            opt(a.precision),
            opt(a.recall),
            opt(a.false_alarm_share),
        ),
        None => ("-".into(), "-".into(), "-".into(), "-".into()),
    };
    vec![
        r.name.clone(),
        r.unit.to_string(),
        r.apfd.n.to_string(),
        apfd_cell(r),
        first_cell(r),
        if r.apfd.undetected.is_empty() {
            "-".to_string()
        } else {
            r.apfd.undetected.join(", ")
        },
        alarms,
        precision,
        recall,
        false_share,
    ]
}

/// The clusterings' table with the optimal clustering last, after a blank line and its title.
fn clusterings_table(report: &EvalReport, style: TableStyle) -> String {
    let mut out =
        "\nClustering of the fault-revealing tests (F-measure, PAF Table 5)\n".to_string();
    if report.truth.revealing_tests == 0 {
        out.push_str("no fault-revealing test: nothing to measure\n");
        return out;
    }
    let mut rows: Vec<Vec<String>> = report
        .clusterings
        .iter()
        .map(|c| {
            vec![
                clustering_name(c),
                opt(c.f_measure.value),
                c.f_measure.clusters.to_string(),
                opt(c.f_measure.purity),
            ]
        })
        .collect();
    rows.push(vec![
        "optimal (one cluster per fault)".to_string(),
        fixed(1.0),
        report.truth.true_clusters.to_string(),
        fixed(1.0),
    ]);
    out.push_str(&fitted(&CLUSTERING_COLUMNS, rows, style));
    out
}

/// How to read the tables: the APFD columns, the random orders, the alarms, the clusterings.
fn legend(report: &EvalReport) -> String {
    let mut out = String::new();
    if !report.rankings.is_empty() {
        out.push_str("\nn: items ranked; First (TF): rank of the first item revealing each fault. An undetected fault\n");
        out.push_str("stays in m and adds nothing to the area (APFD = p - sum TF/(n m) + p/(2n), p = share detected).\n");
    } else {
        out.push('\n');
    }
    if let Some(why) = report
        .rankings
        .iter()
        .find_map(|r| r.apfd.undefined.as_ref())
    {
        out.push_str(&format!("APFD undefined: {why}.\n"));
    }
    if let Some(s) = report.rankings.iter().find_map(|r| r.spread.as_ref()) {
        out.push_str(&format!(
            "Randomized rankings: mean ± standard deviation (min-max) over {} orders, seeds {}..{};\n",
            s.runs, s.seeds[0], s.seeds[1]
        ));
        out.push_str("classifiers rank their alarms (\"no precondition violation\") first, each group in random order.\n");
    }
    if report.rankings.iter().any(|r| r.alarms.is_some()) {
        out.push_str("False-alarm share: alarms revealing no fault over all items revealing no fault (for PAF, the\n");
        out.push_str("share of them put in the local group).\n");
    }
    if let Some(c) = report.clusterings.first() {
        let w = match c.f_measure.weighting {
            Weighting::Truth => "each fault by its size, best produced cluster (--weighting truth)",
            Weighting::Produced => {
                "each produced cluster by its size, best fault (--weighting produced)"
            }
        };
        out.push_str(&format!("F-measure weights {w}.\n"));
    }
    let trained = report.clusterings.iter().any(|c| {
        matches!(
            c.params,
            Some(ClusterParams::ReBucket { trained: true, .. })
        )
    });
    if trained {
        out.push_str("ReBucket trained: c and o (0 to 2, steps of 0.1) and d chosen for the best F-measure on this\n");
        out.push_str("truth (in-sample, so an upper bound); untrained: fixed defaults.\n");
    }
    out
}

fn csv_opt(v: Option<f64>) -> String {
    v.map_or(String::new(), |v| v.to_string())
}

/// One CSV row per ranking and per clustering; cells that do not apply are empty.
pub fn csv(report: &EvalReport) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    let header = [
        "kind",
        "name",
        "unit",
        "n",
        "m",
        "apfd",
        "apfd_stddev",
        "apfd_min",
        "apfd_max",
        "runs",
        "tf_sum",
        "undetected",
        "alarms",
        "true_alarms",
        "relevant",
        "precision",
        "recall",
        "false_alarm_share",
        "f_measure",
        "clusters",
        "purity",
        "weighting",
    ];
    // Writing to memory cannot fail.
    w.write_record(header).expect("write to memory");
    for r in &report.rankings {
        let s = r.spread.as_ref();
        let a = r.alarms.as_ref();
        let tf = match r.apfd.tf_sum {
            Count::Exact(n) => n.to_string(),
            Count::Mean(x) => x.to_string(),
        };
        w.write_record([
            "ranking".to_string(),
            r.name.clone(),
            r.unit.to_string(),
            r.apfd.n.to_string(),
            r.apfd.m.to_string(),
            csv_opt(r.apfd.value),
            csv_opt(s.map(|s| s.stddev)),
            csv_opt(s.map(|s| s.min)),
            csv_opt(s.map(|s| s.max)),
            s.map_or(String::new(), |s| s.runs.to_string()),
            tf,
            r.apfd.undetected.join(" "),
            a.map_or(String::new(), |a| a.alarms.to_string()),
            a.map_or(String::new(), |a| a.true_alarms.to_string()),
            a.map_or(String::new(), |a| a.relevant.to_string()),
            csv_opt(a.and_then(|a| a.precision)),
            csv_opt(a.and_then(|a| a.recall)),
            csv_opt(a.and_then(|a| a.false_alarm_share)),
            String::new(),
            String::new(),
            String::new(),
            String::new(),
        ])
        .expect("write to memory");
    }
    for c in &report.clusterings {
        let mut row = vec![String::new(); header.len()];
        row[0] = "clustering".into();
        row[1] = clustering_name(c);
        row[18] = csv_opt(c.f_measure.value);
        row[19] = c.f_measure.clusters.to_string();
        row[20] = csv_opt(c.f_measure.purity);
        row[21] = serde_json::to_value(c.f_measure.weighting)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        w.write_record(&row).expect("write to memory");
    }
    String::from_utf8(w.into_inner().expect("flush to memory")).expect("CSV of UTF-8 strings")
}

/// `paf localize`'s report as a table: the lines in the report's order with their spectra,
/// scores and ranks under both formulas.
pub fn localization_table(l: &Localization, style: TableStyle) -> String {
    let mut out = format!("paf localize: bundle {}\n", l.bundle);
    if let Some(subject) = &l.subject {
        out.push_str(&format!("subject: {subject}\n"));
    }
    let by = match l.by {
        Formula::Ochiai => "Ochiai",
        Formula::Dstar => "DStar",
    };
    out.push_str(&format!(
        "spectra of {} failing and {}: {} covered by a failing test, {} shown, by {by}\n\n",
        l.failing,
        crate::words::count(l.passing as usize, "passing test", "passing tests"),
        crate::words::counted(l.candidates, "line"),
        l.lines.len()
    ));
    let rows = l
        .lines
        .iter()
        .map(|s| {
            vec![
                format!("{}:{}", s.file, s.line),
                s.method.clone(),
                s.ef.to_string(),
                s.ep.to_string(),
                format!("{:.4}", s.ochiai),
                s.ochiai_rank.to_string(),
                score(s.dstar),
                s.dstar_rank.to_string(),
            ]
        })
        .collect();
    let mut out = wrapped(&out, style);
    out.push_str(&fitted(&LOCALIZATION_COLUMNS, rows, style));
    out.push_str(&wrapped(
        "\ne_f, e_p: failing and passing tests covering the line. Ochiai = e_f / sqrt(F (e_f + e_p));\n\
         DStar = e_f^2 / (e_p + n_f) (inf: every failing test and no passing test covers it).\n\
         Rank: 1 + the lines scoring strictly higher (tied lines share the best rank).\n",
        style,
    ));
    out
}

fn score(s: Score) -> String {
    match s {
        Score::Finite(v) => format!("{v:.4}"),
        Score::Infinite => "inf".to_string(),
    }
}

/// `paf localize`'s report as JSON (`paf.localize/1`), pretty-printed, with a final newline.
pub fn localization_json(l: &Localization) -> String {
    let mut out = serde_json::to_string_pretty(l).expect("a report always serializes");
    out.push('\n');
    out
}

/// `paf localize`'s report as CSV, one row per line shown.
pub fn localization_csv(l: &Localization) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    // Writing to memory cannot fail.
    w.write_record([
        "file",
        "line",
        "method",
        "ef",
        "ep",
        "ochiai",
        "ochiai_rank",
        "dstar",
        "dstar_rank",
    ])
    .expect("write to memory");
    for s in &l.lines {
        let dstar = match s.dstar {
            Score::Finite(v) => v.to_string(),
            Score::Infinite => "inf".to_string(),
        };
        w.write_record([
            s.file.clone(),
            s.line.to_string(),
            s.method.clone(),
            s.ef.to_string(),
            s.ep.to_string(),
            s.ochiai.to_string(),
            s.ochiai_rank.to_string(),
            dstar,
            s.dstar_rank.to_string(),
        ])
        .expect("write to memory");
    }
    String::from_utf8(w.into_inner().expect("flush to memory")).expect("CSV of UTF-8 strings")
}
