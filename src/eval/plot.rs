//! The APFD curves of a report's rankings as one SVG plot (PAF Figure 4's axes): share of the
//! ranked list examined against share of faults detected. It draws the report's curves and
//! computes nothing.

use plotters::prelude::*;

use super::EvalReport;

/// Line colors, one per ranking in report order (repeating after eight).
const PALETTE: [RGBColor; 8] = [
    RGBColor(214, 39, 40),
    RGBColor(255, 127, 14),
    RGBColor(31, 119, 180),
    RGBColor(127, 127, 127),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(23, 190, 207),
];

/// The SVG document; `Err` only if plotters fails to draw (a bug).
pub fn svg(report: &EvalReport) -> Result<String, String> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (760, 480)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let title = if report.inputs.is_empty() {
            "APFD curves".to_string()
        } else {
            format!("APFD curves: {}", report.inputs.join(", "))
        };
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 16))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(50)
            .build_cartesian_2d(0f64..1f64, 0f64..1.02f64)
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .x_desc("share of the ranked list examined")
            .y_desc("share of faults detected")
            .x_labels(11)
            .y_labels(11)
            .draw()
            .map_err(|e| e.to_string())?;
        // A ranking whose APFD is undefined has no curve.
        let defined = report
            .rankings
            .iter()
            .filter_map(|r| Some((r, r.apfd.value?)));
        for (i, (r, value)) in defined.enumerate() {
            let color = PALETTE[i % PALETTE.len()];
            let label = match &r.spread {
                Some(s) => format!("{}: {value:.3} (mean of {} orders)", r.name, s.runs),
                None => format!("{}: {value:.3}", r.name),
            };
            chart
                .draw_series(LineSeries::new(
                    r.curve.iter().map(|p| (p[0], p[1])),
                    color.stroke_width(2),
                ))
                .map_err(|e| e.to_string())?
                .label(label)
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
                });
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .background_style(WHITE.mix(0.9))
            .border_style(BLACK)
            .draw()
            .map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(out)
}
