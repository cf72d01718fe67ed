//! Drawing a position as text: a picture for a terminal, a log or a test.
//!
//! The holes sit where the SVG picture ([`crate::render_svg`]) puts them,
//! one character each, on a grid where a row is shifted half a hole from the
//! next: north at the top, hole 0 the top hole, unless the board is turned
//! ([`TextOptions::bottom`]). A peg shows its owner (player 0 to 5), so the
//! picture reads the same in every terminal font; colour, when asked for, is
//! its set's colour in the SVG picture.

use std::fmt::Write;

use crate::board::Triangle;
use crate::position::Position;
use crate::svg::{NEUTRAL_PEG, legend, rgb, rotate, triangle_colour};

/// The characters of a [`render_text`] picture.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Charset {
    /// Plain ASCII: `.` an empty hole, `0`-`5` a player's peg, `*` a
    /// neutral peg. Safe in any terminal, file or log.
    #[default]
    Ascii,
    /// `·` an empty hole, `⓪`-`⑤` a player's peg, `◆` a neutral peg.
    Unicode,
}

impl Charset {
    fn empty(self) -> char {
        match self {
            Charset::Ascii => '.',
            Charset::Unicode => '·',
        }
    }

    fn neutral(self) -> char {
        match self {
            Charset::Ascii => '*',
            Charset::Unicode => '◆',
        }
    }

    fn player(self, player: usize) -> char {
        match self {
            Charset::Ascii => char::from_digit(player as u32, 36).unwrap_or('?'),
            Charset::Unicode => match player {
                0 => '⓪',
                // ① is U+2460, ② U+2461, ... (⓪ stands apart, at U+24EA).
                1..=20 => char::from_u32(0x2460 + player as u32 - 1).unwrap_or('?'),
                _ => '?',
            },
        }
    }
}

/// Options of [`render_text`]; every field has a sensible default.
///
/// ```
/// use sternhalma::{Charset, TextOptions};
/// let options = TextOptions { charset: Charset::Unicode, ..TextOptions::default() };
/// assert!(options.legend && !options.colours);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextOptions {
    /// The characters to draw with.
    pub charset: Charset,
    /// Colour each peg with its set's colour (24-bit ANSI escape codes, for
    /// a terminal; off by default, so the text is plain).
    pub colours: bool,
    /// Turn the board so that this triangle is at the bottom, as with
    /// [`crate::SvgOptions::bottom`]. `None`: north at the top.
    pub bottom: Option<Triangle>,
    /// End with a line naming the player to move and the ply, or the
    /// outcome once the game is over (the SVG picture's legend).
    pub legend: bool,
}

impl Default for TextOptions {
    fn default() -> TextOptions {
        TextOptions {
            charset: Charset::Ascii,
            colours: false,
            bottom: None,
            legend: true,
        }
    }
}

/// Draws `position` as lines of text, each ended by `\n`, without trailing
/// spaces.
///
/// ```
/// use sternhalma::{Board, Layout, Position, Rules, TextOptions, render_text};
/// let start = Position::start(Board::STANDARD, Layout::standard(2)?, Rules::classic())?;
/// let text = render_text(&start, &TextOptions::default());
/// let lines: Vec<&str> = text.lines().collect();
/// assert_eq!(lines.len(), 17 + 1);
/// assert_eq!(lines[0].trim(), "1");
/// assert_eq!(lines[8].trim(), ". . . . . . . . .");
/// assert_eq!(lines[16].trim(), "0");
/// assert_eq!(lines[17], "player 0 to move, ply 0");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn render_text(position: &Position, options: &TextOptions) -> String {
    let geometry = position.geometry();
    let turns = options
        .bottom
        .map_or(0, |t| (Triangle::South.index() + 6 - t.index()) % 6);
    // Column 2q + r puts each row half a hole (one column) from the next.
    let placed: Vec<_> = geometry
        .cells()
        .map(|cell| {
            let (q, r) = rotate(geometry.coordinates(cell), turns);
            (r, 2 * q + r, cell)
        })
        .collect();
    let top = placed.iter().map(|p| p.0).min().unwrap_or(0);
    let bottom = placed.iter().map(|p| p.0).max().unwrap_or(0);
    let left = placed.iter().map(|p| p.1).min().unwrap_or(0);
    let rows = usize::try_from(bottom - top + 1).unwrap_or(0);
    let mut grid: Vec<Vec<(i32, String)>> = vec![Vec::new(); rows];
    for &(r, column, cell) in &placed {
        let glyph = match (position.owner_at(cell), position.set_at(cell)) {
            (Some(player), set) => {
                let colour = set.map(|s| triangle_colour(position.layout().set_triangle(s)));
                paint(options.charset.player(player), colour, options.colours)
            }
            (None, _) if position.neutral().contains(cell) => paint(
                options.charset.neutral(),
                Some(NEUTRAL_PEG),
                options.colours,
            ),
            (None, _) => options.charset.empty().to_string(),
        };
        grid[(r - top) as usize].push((column - left, glyph));
    }
    let mut text = String::new();
    for mut row in grid {
        row.sort_by_key(|&(column, _)| column);
        let mut at = 0;
        for (column, glyph) in row {
            for _ in at..column {
                text.push(' ');
            }
            text.push_str(&glyph);
            at = column + 1;
        }
        text.push('\n');
    }
    if options.legend {
        let _ = writeln!(text, "{}", legend(position).1);
    }
    text
}

/// A glyph, in `colour` when colours are on.
fn paint(glyph: char, colour: Option<&str>, colours: bool) -> String {
    match colour {
        Some(colour) if colours => {
            let [r, g, b] = rgb(colour);
            format!("\x1b[38;2;{r};{g};{b}m{glyph}\x1b[0m")
        }
        _ => glyph.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Board, Layout, Rules};

    fn start(players: usize) -> Position {
        Position::start(
            Board::STANDARD,
            Layout::standard(players).unwrap(),
            Rules::classic(),
        )
        .unwrap()
    }

    /// The glyph at each hole, read back from the picture row by row.
    fn read_back(text: &str) -> Vec<char> {
        text.lines()
            .take(17)
            .flat_map(|line| {
                line.chars()
                    .filter(|c| !c.is_whitespace())
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    #[test]
    fn every_hole_once_in_hole_order() {
        let mut position = start(6);
        position = position.play_text("115-104").unwrap();
        let text = render_text(&position, &TextOptions::default());
        let glyphs = read_back(&text);
        assert_eq!(glyphs.len(), 121);
        for cell in position.geometry().cells() {
            let expected = match position.owner_at(cell) {
                Some(player) => char::from_digit(player as u32, 10).unwrap(),
                None => '.',
            };
            assert_eq!(glyphs[cell.id()], expected, "hole {}", cell.id());
        }
        assert!(text.lines().all(|line| !line.ends_with(' ')));
    }

    #[test]
    fn rows_are_shifted_half_a_hole() {
        let text = render_text(&start(2), &TextOptions::default());
        let lines: Vec<&str> = text.lines().collect();
        // The widest rows (13 holes) span 25 columns from the left edge.
        assert_eq!(lines[4], ". ".repeat(12) + ".");
        assert_eq!(lines[0], " ".repeat(12) + "1");
        assert_eq!(lines[12].len(), 25);
    }

    #[test]
    fn turning_puts_the_chosen_triangle_at_the_bottom() {
        let position = start(2);
        let turned = render_text(
            &position,
            &TextOptions {
                bottom: Some(Triangle::North),
                legend: false,
                ..TextOptions::default()
            },
        );
        let lines: Vec<&str> = turned.lines().collect();
        assert_eq!(lines.len(), 17);
        assert_eq!(lines[0].trim(), "0");
        assert_eq!(lines[16].trim(), "1");
    }

    #[test]
    fn unicode_and_colours() {
        let position = start(3);
        let plain = render_text(
            &position,
            &TextOptions {
                charset: Charset::Unicode,
                ..TextOptions::default()
            },
        );
        assert_eq!(plain.matches('⓪').count(), 10);
        assert_eq!(plain.matches('①').count(), 10);
        assert_eq!(plain.matches('②').count(), 10);
        assert!(plain.contains('·') && !plain.contains('\x1b'));
        let coloured = render_text(
            &position,
            &TextOptions {
                colours: true,
                ..TextOptions::default()
            },
        );
        let [r, g, b] = rgb(triangle_colour(Triangle::South));
        assert_eq!(
            coloured
                .matches(&format!("\x1b[38;2;{r};{g};{b}m0\x1b[0m"))
                .count(),
            10
        );
    }

    #[test]
    fn the_legend_tells_the_outcome() {
        let position: Position = "star1 classic south:2/north:6 0 0 -".parse().unwrap();
        let over = position.play_text("2-0").unwrap();
        let text = render_text(&over, &TextOptions::default());
        assert!(text.lines().last().unwrap().contains("won"), "{text}");
    }
}
