//! Terminal tables that fit: the CLI says how wide the terminal is and whether it shows UTF-8
//! ([`TableStyle`]); [`fit`] gives each column its content's width and, when the table is too
//! wide, shortens the least important columns first (their cells wrap), down to a minimum,
//! then hides them, least important first. Rows, cells and order come from the caller.

use comfy_table::{ColumnConstraint, ContentArrangement, Table, Width, presets};
use unicode_width::UnicodeWidthStr;

/// How a table is drawn: `width` (the terminal's columns; `None`: as wide as the content,
/// for pipes and files) and plain ASCII borders or UTF-8 box drawing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TableStyle {
    pub width: Option<u16>,
    pub ascii: bool,
}

impl TableStyle {
    /// As wide as the content, in ASCII: what pipes and files get.
    pub const PLAIN: TableStyle = TableStyle {
        width: None,
        ascii: true,
    };
}

/// A column: its header, the width it may shrink to, and its importance (`None`: it never
/// shrinks; otherwise lower numbers shrink and hide first).
#[derive(Clone, Copy, Debug)]
pub struct Column {
    pub name: &'static str,
    pub min: u16,
    pub shrink: Option<u8>,
}

impl Column {
    /// A column that always keeps its content's width.
    pub const fn fixed(name: &'static str) -> Column {
        Column {
            name,
            min: 0,
            shrink: None,
        }
    }

    /// A column that keeps its content's width but may be left out (priority `shrink`).
    pub const fn hides(name: &'static str, shrink: u8) -> Column {
        Column {
            name,
            min: u16::MAX,
            shrink: Some(shrink),
        }
    }

    /// A column that may shrink to `min` (priority `shrink`: lower goes first).
    pub const fn shrinks(name: &'static str, min: u16, shrink: u8) -> Column {
        Column {
            name,
            min,
            shrink: Some(shrink),
        }
    }
}

/// A table laid out for a style, and the columns left out because the width had no room.
pub struct Fitted {
    pub table: Table,
    pub hidden: Vec<&'static str>,
    /// The rows' short forms were used (see [`fit_or_shorten`]).
    pub shortened: bool,
}

/// A line of text under a table, with a final newline: wrapped to the style's width (later
/// lines indented by `indent`), or whole when the style has none.
pub fn prose(text: &str, indent: &str, style: TableStyle) -> String {
    // Optimal fit, but a line may overflow the width only when one word is longer than it:
    // textwrap's default penalty lets a line overflow when that costs less than a ragged
    // paragraph, and these lines must fit.
    let penalties = textwrap::wrap_algorithms::Penalties {
        overflow_penalty: 1 << 30,
        ..textwrap::wrap_algorithms::Penalties::new()
    };
    let mut out = match style.width {
        Some(w) => textwrap::fill(
            text,
            textwrap::Options::new(usize::from(w))
                .subsequent_indent(indent)
                .wrap_algorithm(textwrap::WrapAlgorithm::OptimalFit(penalties)),
        ),
        None => text.to_string(),
    };
    out.push('\n');
    out
}

/// [`fit`] as text: the table, a newline, and a line naming the columns left out for the width.
pub fn fit_text(columns: &[Column], rows: Vec<Vec<String>>, style: TableStyle) -> String {
    let f = fit(columns, rows, style);
    let mut out = f.table.to_string();
    out.push('\n');
    if !f.hidden.is_empty() {
        let note = format!(
            "({} left out to fit {} columns; --format json has everything)",
            f.hidden.join(", "),
            style.width.unwrap_or_default()
        );
        out.push_str(&prose(&note, "", style));
    }
    out
}

/// Lays out `rows` under `columns` for `style`.
pub fn fit(columns: &[Column], rows: Vec<Vec<String>>, style: TableStyle) -> Fitted {
    let mut table = Table::new();
    table
        .load_style(if style.ascii {
            presets::ASCII_FULL_CONDENSED
        } else {
            presets::UTF8_FULL_CONDENSED
        })
        .set_header(columns.iter().map(|c| c.name).collect::<Vec<_>>());
    let natural = natural(columns, &rows);
    for row in rows {
        table.add_row(row);
    }
    let Some(width) = style.width else {
        // No width: every cell on one line, the same bytes on every machine.
        table.set_content_arrangement(ContentArrangement::Disabled);
        return Fitted {
            table,
            hidden: Vec::new(),
            shortened: false,
        };
    };
    let (widths, hidden) = widths(columns, &natural, width);
    table
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_width(width);
    for (i, column) in table.column_iter_mut().enumerate() {
        column.set_constraint(match widths[i] {
            None => ColumnConstraint::Hidden,
            // comfy-table's absolute widths include the padding, one space either side.
            Some(w) => ColumnConstraint::Absolute(Width::Fixed(w.saturating_add(2))),
        });
    }
    Fitted {
        table,
        hidden: hidden.into_iter().map(|i| columns[i].name).collect(),
        shortened: false,
    }
}

/// Like [`fit`], with `short`, the same rows with shorter cells (file names for repository
/// paths), used when `long` would not fit the width whole: shortening text comes before
/// wrapping or leaving out columns.
pub fn fit_or_shorten(
    columns: &[Column],
    long: Vec<Vec<String>>,
    short: Vec<Vec<String>>,
    style: TableStyle,
) -> Fitted {
    let too_wide = style.width.is_some_and(|width| {
        let natural = natural(columns, &long);
        let (widths, hidden) = widths(columns, &natural, width);
        !hidden.is_empty() || widths.iter().zip(&natural).any(|(w, n)| *w != Some(*n))
    });
    if too_wide && long != short {
        let mut fitted = fit(columns, short, style);
        fitted.shortened = true;
        fitted
    } else {
        fit(columns, long, style)
    }
}

/// Each column's content width: its widest line, header included.
fn natural(columns: &[Column], rows: &[Vec<String>]) -> Vec<u16> {
    (0..columns.len())
        .map(|i| {
            let cells = rows.iter().filter_map(|r| r.get(i)).map(String::as_str);
            std::iter::once(columns[i].name)
                .chain(cells)
                .flat_map(str::lines)
                .map(|l| u16::try_from(l.width()).unwrap_or(u16::MAX))
                .max()
                .unwrap_or(0)
        })
        .collect()
}

/// Each column's content width within `width` (`None`: hidden), and the hidden columns.
/// A drawn column costs its content plus three (two spaces of padding and a border), and the
/// table one more border.
fn widths(columns: &[Column], natural: &[u16], width: u16) -> (Vec<Option<u16>>, Vec<usize>) {
    let mut order: Vec<usize> = (0..columns.len())
        .filter(|&i| columns[i].shrink.is_some())
        .collect();
    order.sort_by_key(|&i| (columns[i].shrink, i));
    let mut hidden: Vec<usize> = Vec::new();
    loop {
        let visible = columns.len() - hidden.len();
        let budget = usize::from(width).saturating_sub(3 * visible + 1);
        let mut w: Vec<Option<u16>> = natural.iter().map(|&n| Some(n)).collect();
        for &i in &hidden {
            w[i] = None;
        }
        let total = |w: &[Option<u16>]| w.iter().flatten().map(|&x| usize::from(x)).sum::<usize>();
        let mut excess = total(&w).saturating_sub(budget);
        for &i in order.iter().filter(|i| !hidden.contains(i)) {
            if excess == 0 {
                break;
            }
            let now = w[i].unwrap_or(0);
            let floor = columns[i].min.min(now);
            let cut = usize::from(now - floor).min(excess);
            w[i] = Some(now - u16::try_from(cut).unwrap_or(0));
            excess -= cut;
        }
        let next = order.iter().find(|i| !hidden.contains(i));
        match (excess, next) {
            (0, _) | (_, None) => return (w, hidden),
            (_, Some(&i)) => hidden.push(i),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const COLUMNS: [Column; 3] = [
        Column::fixed("Rank"),
        Column::shrinks("Where", 6, 2),
        Column::shrinks("Tests", 5, 1),
    ];

    #[test]
    fn content_that_fits_keeps_its_width() {
        // 4 + 10 + 10 plus 3 per column and 1: 34.
        let (w, hidden) = widths(&COLUMNS, &[4, 10, 10], 34);
        assert_eq!(w, [Some(4), Some(10), Some(10)]);
        assert!(hidden.is_empty());
    }

    #[test]
    fn the_least_important_column_shrinks_first() {
        // Four columns too many: all from Tests (priority 1), none from Where.
        let (w, _) = widths(&COLUMNS, &[4, 10, 10], 30);
        assert_eq!(w, [Some(4), Some(10), Some(6)]);
        // Tests stops at its minimum, 5; Where gives the rest.
        let (w, _) = widths(&COLUMNS, &[4, 10, 10], 26);
        assert_eq!(w, [Some(4), Some(7), Some(5)]);
    }

    #[test]
    fn columns_are_hidden_when_their_minimums_do_not_fit() {
        // Minimums need 4 + 6 + 5 + 10 = 25; at 20, Tests goes, and Where has 20 - 7 - 4 = 9.
        let (w, hidden) = widths(&COLUMNS, &[4, 10, 10], 20);
        assert_eq!(w, [Some(4), Some(9), None]);
        assert_eq!(hidden, [2]);
    }

    #[test]
    fn short_forms_are_used_only_when_the_long_ones_do_not_fit() {
        let long = vec![vec![
            "1".into(),
            "src/main/java/a/B.java:3".into(),
            "t".into(),
        ]];
        let short = vec![vec!["1".into(), "B.java:3".into(), "t".into()]];
        // The long row needs 4 + 24 + 5 plus 10 of borders: 43 columns.
        let wide = TableStyle {
            width: Some(43),
            ascii: true,
        };
        let f = fit_or_shorten(&COLUMNS, long.clone(), short.clone(), wide);
        assert!(!f.shortened);
        assert!(f.table.to_string().contains("src/main/java/a/B.java:3"));
        let narrow = TableStyle {
            width: Some(42),
            ascii: true,
        };
        let f = fit_or_shorten(&COLUMNS, long.clone(), short.clone(), narrow);
        assert!(f.shortened);
        assert!(f.table.to_string().contains("| B.java:3 "));
        assert!(!fit_or_shorten(&COLUMNS, long, short, TableStyle::PLAIN).shortened);
    }

    #[test]
    fn every_line_of_a_fitted_table_is_within_the_width() {
        let rows = vec![vec![
            "1".to_string(),
            "src/main/java/org/example/Parser.java:26".to_string(),
            "RegressionTest0.test17 (+12 more)".to_string(),
        ]];
        for width in [30u16, 40, 80] {
            let style = TableStyle {
                width: Some(width),
                ascii: false,
            };
            let out = fit(&COLUMNS, rows.clone(), style).table.to_string();
            for line in out.lines() {
                assert!(line.width() <= usize::from(width), "{width}: {line:?}");
            }
        }
    }
}
