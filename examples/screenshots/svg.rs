//! A vt100 screen drawn as SVG: the terminal's background, one rectangle
//! per run of cells sharing a background colour, and one `<text>` per run
//! of cells sharing colours and attributes, placed on a fixed monospace
//! grid (each run is stretched to its columns with `textLength`, so the
//! grid holds whatever font the viewer has).

use std::fmt::Write as _;

/// An RGB colour.
pub type Rgb = (u8, u8, u8);

/// The terminal the screen is drawn as: its default colours and its 16
/// ANSI colours (the rest of the 256 are the standard cube and greys).
pub struct Palette {
    pub background: Rgb,
    pub foreground: Rgb,
    pub ansi: [Rgb; 16],
}

/// A dark terminal (the colours of a common dark editor theme).
pub const DARK: Palette = Palette {
    background: (0x1e, 0x1e, 0x1e),
    foreground: (0xcc, 0xcc, 0xcc),
    ansi: [
        (0x00, 0x00, 0x00),
        (0xcd, 0x31, 0x31),
        (0x0d, 0xbc, 0x79),
        (0xe5, 0xe5, 0x10),
        (0x24, 0x72, 0xc8),
        (0xbc, 0x3f, 0xbc),
        (0x11, 0xa8, 0xcd),
        (0xe5, 0xe5, 0xe5),
        (0x76, 0x76, 0x76),
        (0xf1, 0x4c, 0x4c),
        (0x23, 0xd1, 0x8b),
        (0xf5, 0xf5, 0x43),
        (0x3b, 0x8e, 0xea),
        (0xd6, 0x70, 0xd6),
        (0x29, 0xb8, 0xdb),
        (0xff, 0xff, 0xff),
    ],
};

/// A light terminal, for the light theme.
pub const LIGHT: Palette = Palette {
    background: (0xff, 0xff, 0xff),
    foreground: (0x1f, 0x1f, 0x1f),
    ansi: [
        (0x00, 0x00, 0x00),
        (0xcd, 0x31, 0x31),
        (0x00, 0xbc, 0x00),
        (0x94, 0x98, 0x00),
        (0x04, 0x51, 0xa5),
        (0xbc, 0x05, 0xbc),
        (0x05, 0x98, 0xbc),
        (0x55, 0x55, 0x55),
        (0x66, 0x66, 0x66),
        (0xcd, 0x31, 0x31),
        (0x14, 0xce, 0x14),
        (0xb5, 0xba, 0x00),
        (0x04, 0x51, 0xa5),
        (0xbc, 0x05, 0xbc),
        (0x05, 0x98, 0xbc),
        (0xa5, 0xa5, 0xa5),
    ],
};

/// Font size, cell width and line height, in pixels.
const FONT_SIZE: f64 = 14.0;
const CELL_W: f64 = 8.4;
const LINE_H: f64 = 18.0;
/// Where the text's baseline is in its line.
const BASELINE: f64 = 13.5;
const PAD: f64 = 12.0;

impl Palette {
    /// The colour of a 256-colour index.
    fn indexed(&self, i: u8) -> Rgb {
        match i {
            0..=15 => self.ansi[usize::from(i)],
            16..=231 => {
                let level = |v: u8| if v == 0 { 0 } else { 55 + 40 * v };
                let i = i - 16;
                (level(i / 36), level(i / 6 % 6), level(i % 6))
            }
            _ => {
                let v = 8 + 10 * (i - 232);
                (v, v, v)
            }
        }
    }

    fn color(&self, c: vt100::Color) -> Option<Rgb> {
        match c {
            vt100::Color::Default => None,
            vt100::Color::Idx(i) => Some(self.indexed(i)),
            vt100::Color::Rgb(r, g, b) => Some((r, g, b)),
        }
    }
}

/// Box-drawing characters are drawn as lines, not glyphs, so borders join
/// up whatever the font: the weight of the line towards the left, right,
/// top and bottom edge of the cell (1 light, 2 heavy, 3 double).
fn box_lines(c: &str) -> Option<[u8; 4]> {
    let mut chars = c.chars();
    let (Some(c), None) = (chars.next(), chars.next()) else {
        return None;
    };
    let (w, shape) = match c {
        '─' | '│' | '┌' | '┐' | '└' | '┘' | '├' | '┤' | '┬' | '┴' | '┼' => {
            (1, c)
        }
        '╭' => (1, '┌'),
        '╮' => (1, '┐'),
        '╰' => (1, '└'),
        '╯' => (1, '┘'),
        '━' => (2, '─'),
        '┃' => (2, '│'),
        '┏' => (2, '┌'),
        '┓' => (2, '┐'),
        '┗' => (2, '└'),
        '┛' => (2, '┘'),
        '┣' => (2, '├'),
        '┫' => (2, '┤'),
        '┳' => (2, '┬'),
        '┻' => (2, '┴'),
        '╋' => (2, '┼'),
        '═' => (3, '─'),
        '║' => (3, '│'),
        '╔' => (3, '┌'),
        '╗' => (3, '┐'),
        '╚' => (3, '└'),
        '╝' => (3, '┘'),
        '╠' => (3, '├'),
        '╣' => (3, '┤'),
        '╦' => (3, '┬'),
        '╩' => (3, '┴'),
        '╬' => (3, '┼'),
        _ => return None,
    };
    let [l, r, u, d] = match shape {
        '─' => [1, 1, 0, 0],
        '│' => [0, 0, 1, 1],
        '┌' => [0, 1, 0, 1],
        '┐' => [1, 0, 0, 1],
        '└' => [0, 1, 1, 0],
        '┘' => [1, 0, 1, 0],
        '├' => [0, 1, 1, 1],
        '┤' => [1, 0, 1, 1],
        '┬' => [1, 1, 0, 1],
        '┴' => [1, 1, 1, 0],
        _ => [1, 1, 1, 1],
    };
    Some([l * w, r * w, u * w, d * w])
}

/// The box-drawing lines of a screen, in half-cell steps, joined where
/// they continue each other.
#[derive(Default)]
struct Lines {
    /// (colour, weight, row, from half-column, to half-column)
    across: Vec<(Rgb, u8, u16, u32, u32)>,
    /// (colour, weight, column, from half-row, to half-row)
    down: Vec<(Rgb, u8, u16, u32, u32)>,
}

impl Lines {
    fn add(&mut self, row: u16, col: u16, fg: Rgb, [l, r, u, d]: [u8; 4]) {
        let (c2, r2) = (u32::from(col) * 2, u32::from(row) * 2);
        for (w, from) in [(l, c2), (r, c2 + 1)] {
            if w > 0 {
                join(&mut self.across, (fg, w, row, from, from + 1));
            }
        }
        for (w, from) in [(u, r2), (d, r2 + 1)] {
            if w > 0 {
                join(&mut self.down, (fg, w, col, from, from + 1));
            }
        }
    }

    /// One `<path>` per colour and weight.
    fn svg(&self) -> String {
        let mut paths: Vec<((Rgb, u8), String)> = Vec::new();
        let mut path = |key: (Rgb, u8), d: String| match paths.iter_mut().find(|p| p.0 == key) {
            Some(p) => p.1.push_str(&d),
            None => paths.push((key, d)),
        };
        for &(fg, w, row, from, to) in &self.across {
            let y = PAD + (f64::from(row) + 0.5) * LINE_H;
            let (x1, x2) = (half_x(from), half_x(to));
            for dy in offsets(w) {
                path((fg, w), format!("M{x1:.1} {:.1}H{x2:.1}", y + dy));
            }
        }
        for &(fg, w, col, from, to) in &self.down {
            let x = PAD + (f64::from(col) + 0.5) * CELL_W;
            let (y1, y2) = (half_y(from), half_y(to));
            for dx in offsets(w) {
                path((fg, w), format!("M{:.1} {y1:.1}V{y2:.1}", x + dx));
            }
        }
        let mut out = String::new();
        for ((fg, w), d) in paths {
            let width = if w == 2 { 2.4 } else { 1.2 };
            let _ = writeln!(
                out,
                r#"<path d="{d}" stroke="{}" stroke-width="{width}" fill="none"/>"#,
                hex(fg)
            );
        }
        out
    }
}

/// Extend the last matching line when `seg` continues it.
fn join(lines: &mut Vec<(Rgb, u8, u16, u32, u32)>, seg: (Rgb, u8, u16, u32, u32)) {
    match lines
        .iter_mut()
        .rev()
        .find(|l| l.0 == seg.0 && l.1 == seg.1 && l.2 == seg.2 && l.4 == seg.3)
    {
        Some(line) => line.4 = seg.4,
        None => lines.push(seg),
    }
}

/// Double lines are two thin lines either side of the middle.
fn offsets(weight: u8) -> &'static [f64] {
    if weight == 3 { &[-1.5, 1.5] } else { &[0.0] }
}

fn half_x(half: u32) -> f64 {
    PAD + f64::from(half) * CELL_W / 2.0
}

fn half_y(half: u32) -> f64 {
    PAD + f64::from(half) * LINE_H / 2.0
}

/// Cells side by side that look the same.
struct Run {
    col: u16,
    cols: u16,
    /// Columns up to the last one that is not blank.
    ink: u16,
    look: Look,
    text: String,
}

/// How one cell is drawn, once reverse video, dim and the cursor are
/// resolved.
#[derive(Clone, PartialEq)]
struct Look {
    fg: Rgb,
    /// `None`: the terminal's background (nothing to draw).
    bg: Option<Rgb>,
    bold: bool,
    italic: bool,
    underline: bool,
}

fn hex((r, g, b): Rgb) -> String {
    format!("#{r:02x}{g:02x}{b:02x}")
}

fn blend(a: Rgb, b: Rgb) -> Rgb {
    let mix = |x: u8, y: u8| ((u16::from(x) + u16::from(y)) / 2) as u8;
    (mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// `text` made safe for XML text and attribute values (line ends as
/// spaces).
pub fn escape(text: &str) -> String {
    mcpdeck::text::escape_xml(text, false)
}

fn look(cell: &vt100::Cell, at_cursor: bool, p: &Palette) -> Look {
    let mut fg = p.color(cell.fgcolor()).unwrap_or(p.foreground);
    let mut bg = p.color(cell.bgcolor());
    // The cursor is drawn as a block: reverse video on its cell.
    if cell.inverse() != at_cursor {
        let under = bg.unwrap_or(p.background);
        bg = Some(fg);
        fg = under;
    }
    if cell.dim() {
        fg = blend(fg, bg.unwrap_or(p.background));
    }
    Look {
        fg,
        bg,
        bold: cell.bold(),
        italic: cell.italic(),
        underline: cell.underline(),
    }
}

/// The screen as a standalone SVG document titled `title`.
pub fn render(screen: &vt100::Screen, palette: &Palette, title: &str) -> String {
    let (rows, cols) = screen.size();
    let (rows, cols) = (rows.get(), cols.get());
    let width = PAD * 2.0 + f64::from(cols) * CELL_W;
    let height = PAD * 2.0 + f64::from(rows) * LINE_H;
    let cursor = (!screen.hide_cursor()).then(|| screen.cursor_position());

    let mut rects = String::new();
    let mut texts = String::new();
    let mut lines = Lines::default();
    for row in 0..rows {
        let mut runs: Vec<Run> = Vec::new();
        for col in 0..cols {
            let Some(cell) = screen.cell(row, col) else {
                continue;
            };
            if cell.is_wide_continuation() {
                if let Some(run) = runs.last_mut() {
                    run.cols += 1;
                    if !run.text.ends_with(' ') {
                        run.ink = run.cols;
                    }
                }
                continue;
            }
            let l = look(cell, cursor == Some((row, col)), palette);
            let text = match box_lines(cell.contents()) {
                Some(weights) => {
                    lines.add(row, col, l.fg, weights);
                    " "
                }
                None if cell.has_contents() => cell.contents(),
                None => " ",
            };
            let inked = !text.trim().is_empty();
            match runs.last_mut() {
                Some(run) if run.look == l => {
                    run.cols += 1;
                    run.text.push_str(text);
                    if inked {
                        run.ink = run.cols;
                    }
                }
                _ => runs.push(Run {
                    col,
                    cols: 1,
                    ink: u16::from(inked),
                    look: l,
                    text: text.to_string(),
                }),
            }
        }
        let y = PAD + f64::from(row) * LINE_H;
        // Backgrounds: runs of one colour, whatever their text looks like.
        let mut bgs: Vec<(u16, u16, Rgb)> = Vec::new();
        for run in &runs {
            let Some(bg) = run.look.bg else { continue };
            match bgs.last_mut() {
                Some(last) if last.2 == bg && last.0 + last.1 == run.col => last.1 += run.cols,
                _ => bgs.push((run.col, run.cols, bg)),
            }
        }
        for (col, n, bg) in bgs {
            let _ = writeln!(
                rects,
                r#"<rect x="{:.1}" y="{y:.1}" width="{:.1}" height="{LINE_H:.1}" fill="{}"/>"#,
                PAD + f64::from(col) * CELL_W,
                f64::from(n) * CELL_W,
                hex(bg)
            );
        }
        for Run {
            col,
            cols,
            ink,
            look: l,
            text,
        } in runs
        {
            // Trailing blanks are drawn by the background alone (underlined
            // ones keep their line).
            let (n, text) = if l.underline {
                (cols, text.as_str())
            } else {
                (ink, text.trim_end_matches(' '))
            };
            // Leading blanks too (each is one column).
            let lead = if l.underline {
                0
            } else {
                text.len() - text.trim_start_matches(' ').len()
            };
            let (col, n, text) = (
                col + lead as u16,
                n.saturating_sub(lead as u16),
                &text[lead..],
            );
            if n == 0 {
                continue;
            }
            let mut attrs = format!(r#" fill="{}""#, hex(l.fg));
            if l.bold {
                attrs.push_str(r#" font-weight="bold""#);
            }
            if l.italic {
                attrs.push_str(r#" font-style="italic""#);
            }
            if l.underline {
                attrs.push_str(r#" text-decoration="underline""#);
            }
            let _ = writeln!(
                texts,
                r#"<text x="{:.1}" y="{:.1}" textLength="{:.1}" lengthAdjust="spacingAndGlyphs"{attrs}>{}</text>"#,
                PAD + f64::from(col) * CELL_W,
                y + BASELINE,
                f64::from(n) * CELL_W,
                escape(text)
            );
        }
    }
    format!(
        concat!(
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w:.0}" height="{h:.0}" viewBox="0 0 {w:.1} {h:.1}">"#,
            "\n<title>{title}</title>\n",
            r#"<rect width="100%" height="100%" rx="8" fill="{bg}"/>"#,
            "\n",
            r#"<g shape-rendering="crispEdges">"#,
            "\n{rects}</g>\n",
            r#"<g stroke-linecap="square">"#,
            "\n{lines}</g>\n",
            r#"<g font-family="ui-monospace, 'SFMono-Regular', Menlo, Consolas, 'DejaVu Sans Mono', 'Liberation Mono', monospace" font-size="{fs}" xml:space="preserve" style="white-space:pre">"#,
            "\n{texts}</g>\n</svg>\n"
        ),
        w = width,
        h = height,
        title = escape(title),
        bg = hex(palette.background),
        rects = rects,
        lines = lines.svg(),
        fs = FONT_SIZE,
        texts = texts,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn screen(bytes: &[u8]) -> vt100::Screen {
        let n = |v| std::num::NonZeroU16::new(v).expect("non-zero");
        let mut parser = vt100::Parser::new(n(3), n(20), 0);
        parser.process(bytes);
        parser.screen().clone()
    }

    #[test]
    fn text_is_escaped() {
        let svg = render(&screen(b"\x1b[?25la<b>&\"c'"), &DARK, "x < y & \"z\"");
        assert!(
            svg.contains(">a&lt;b&gt;&amp;&quot;c&apos;</text>"),
            "{svg}"
        );
        assert!(
            svg.contains("<title>x &lt; y &amp; &quot;z&quot;</title>"),
            "{svg}"
        );
        assert!(!svg.contains("<b>"), "{svg}");
    }

    #[test]
    fn reversed_cells_swap_their_colours() {
        // Red on the default background, then the same reversed.
        let svg = render(&screen(b"\x1b[?25l\x1b[31mab\x1b[7mcd\x1b[0m"), &DARK, "t");
        let red = hex(DARK.ansi[1]);
        let bg = hex(DARK.background);
        assert!(
            svg.contains(&format!(
                r#"lengthAdjust="spacingAndGlyphs" fill="{red}">ab</text>"#
            )),
            "{svg}"
        );
        // Reversed: the text takes the background's colour on a red block
        // two cells wide at column 2.
        assert!(svg.contains(&format!(r#"fill="{bg}">cd</text>"#)), "{svg}");
        let x = PAD + 2.0 * CELL_W;
        assert!(
            svg.contains(&format!(
                r#"<rect x="{x:.1}" y="{PAD:.1}" width="{:.1}" height="{LINE_H:.1}" fill="{red}"/>"#,
                2.0 * CELL_W
            )),
            "{svg}"
        );
    }

    #[test]
    fn colours_bold_and_the_visible_cursor() {
        let svg = render(
            &screen(b"\x1b[1;38;5;196;48;2;1;2;3mX\x1b[0m\r\n"),
            &DARK,
            "t",
        );
        assert!(
            svg.contains(r##"fill="#ff0000" font-weight="bold">X</text>"##),
            "{svg}"
        );
        assert!(svg.contains(r##"fill="#010203"/>"##), "{svg}");
        // The cursor (at row 1, column 0) is a block in the text colour.
        let y = PAD + LINE_H;
        assert!(
            svg.contains(&format!(
                r#"<rect x="{PAD:.1}" y="{y:.1}" width="{CELL_W:.1}" height="{LINE_H:.1}" fill="{}"/>"#,
                hex(DARK.foreground)
            )),
            "{svg}"
        );
    }

    #[test]
    fn borders_are_lines_joined_across_cells() {
        let svg = render(&screen("\x1b[?25l┌──┐\r\n│ab│".as_bytes()), &DARK, "t");
        assert!(!svg.contains('─') && !svg.contains('│'), "{svg}");
        let fg = hex(DARK.foreground);
        // The top border is one line from the middle of the first cell to
        // the middle of the fourth.
        let y = PAD + 0.5 * LINE_H;
        let (x1, x2) = (PAD + 0.5 * CELL_W, PAD + 3.5 * CELL_W);
        assert!(svg.contains(&format!("M{x1:.1} {y:.1}H{x2:.1}")), "{svg}");
        assert!(svg.contains(&format!(r#"stroke="{fg}""#)), "{svg}");
        assert!(svg.contains(">ab</text>"), "{svg}");
    }

    #[test]
    fn wide_characters_take_two_columns() {
        let svg = render(&screen("\x1b[?25l日本x".as_bytes()), &DARK, "t");
        assert!(
            svg.contains(&format!(
                r#"textLength="{:.1}" lengthAdjust="spacingAndGlyphs" fill="{}">日本x</text>"#,
                5.0 * CELL_W,
                hex(DARK.foreground)
            )),
            "{svg}"
        );
    }
}
