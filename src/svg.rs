//! Drawing a position as a self-contained SVG image.
//!
//! One renderer serves every surface (the HTTP API's `render.svg`, the
//! Python module's `_repr_svg_`), so a set has the same colour everywhere:
//! the colour of the triangle it starts in ([`triangle_colour`]).
//!
//! The image is plain SVG 1.1 text: no scripts, no external resources, no
//! fonts beyond the generic `sans-serif`. Holes sit on a pointy-top hex
//! layout, north at the top, so hole 0 is the top hole. Numbers have two
//! decimals and nothing depends on hashing or time, so the same input always
//! gives byte-identical text.

use std::fmt::Write;

use crate::board::{BoardShape, Triangle};
use crate::cell::Cell;
use crate::geometry::Geometry;
use crate::outcome::Outcome;
use crate::position::Position;

/// Styling and highlights for [`render_svg`]; every field has a sensible
/// default.
///
/// ```
/// use sternhalma::{Cell, SvgOptions};
/// let options = SvgOptions {
///     size: Some(320),
///     highlight_path: vec![Cell::new(115).unwrap(), Cell::new(93).unwrap()],
///     ..SvgOptions::default()
/// };
/// assert!(!options.show_ids);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SvgOptions {
    /// Width of the image in pixels (at least 1); the height follows the
    /// board's aspect. `None` means 480.
    pub size: Option<u32>,
    /// A move's path to draw, hole by hole (for instance the last move,
    /// from [`Position::witness_path`]): arrows from hole to hole, the start
    /// and end ringed. Not drawn if it names a hole the board lacks.
    pub highlight_path: Vec<Cell>,
    /// Mark the legal destinations of the peg on this hole
    /// ([`Position::legal_moves_from`]). Nothing is marked for a hole
    /// without a peg of the player to move, or one the board lacks.
    pub destinations_of: Option<Cell>,
    /// Print every hole's id in it.
    pub show_ids: bool,
    /// Turn the board (by sixths of a turn) so that this triangle is at the
    /// bottom, as a player sees the board from their side of the table.
    /// `None` keeps the standard view: north at the top, south at the
    /// bottom. The legend stays upright.
    pub bottom: Option<Triangle>,
}

// The geometry and the palette below are shared with the pixel renderer
// (`raster.rs`), so that both draw the same picture.

/// The image width when [`SvgOptions::size`] is `None`.
pub(crate) const DEFAULT_SIZE: u32 = 480;

/// Distance between neighbouring holes, in viewBox units.
pub(crate) const SPACING: f64 = 20.0;
pub(crate) const HOLE_RADIUS: f64 = 0.17 * SPACING;
pub(crate) const HOLE_STROKE_WIDTH: f64 = 0.03 * SPACING;
pub(crate) const PEG_RADIUS: f64 = 0.38 * SPACING;
pub(crate) const PEG_STROKE_WIDTH: f64 = 0.05 * SPACING;
const RING_RADIUS: f64 = 0.47 * SPACING;
/// How far the board's rim reaches beyond the outermost holes' centres.
pub(crate) const RIM: f64 = 0.62 * SPACING;
/// The board's edge colour shows this far beyond the rim.
pub(crate) const EDGE_WIDTH: f64 = 0.05 * SPACING;
/// How far a triangle's tint reaches beyond its corner holes' centres.
pub(crate) const TRIANGLE_PAD: f64 = 0.45 * SPACING;
const MARGIN: f64 = 0.25 * SPACING;
const LEGEND_HEIGHT: f64 = 1.3 * SPACING;
pub(crate) const SWATCH_RADIUS: f64 = 0.3 * SPACING;
const FONT_SIZE: f64 = 0.6 * SPACING;
const ID_FONT_SIZE: f64 = 0.3 * SPACING;

pub(crate) const BACKGROUND: &str = "#ffffff";
pub(crate) const BOARD_FILL: &str = "#f3ede2";
pub(crate) const BOARD_EDGE: &str = "#b9ad98";
/// A triangle that no set starts in or is headed to.
const UNUSED_TRIANGLE_FILL: &str = "#e2dccf";
const HOLE_FILL: &str = "#d2d2d2";
pub(crate) const HOLE_STROKE: &str = "#9a9a9a";
pub(crate) const NEUTRAL_PEG: &str = "#8f8f8f";
pub(crate) const PEG_STROKE: &str = "#222222";
const MARK: &str = "#1a1a1a";
const TEXT: &str = "#222222";

/// The colour of the set that starts in `triangle`, as `#rrggbb`: fixed per
/// triangle, so a set looks the same on every surface. The six are the
/// Okabe–Ito colours, told apart with the common colour-vision deficiencies.
///
/// ```
/// use sternhalma::{Triangle, triangle_colour};
/// assert_eq!(triangle_colour(Triangle::South), "#d55e00");
/// assert_ne!(triangle_colour(Triangle::North), triangle_colour(Triangle::South));
/// ```
#[must_use]
pub fn triangle_colour(triangle: Triangle) -> &'static str {
    match triangle {
        Triangle::North => "#0072b2",
        Triangle::NorthEast => "#009e73",
        Triangle::SouthEast => "#cc79a7",
        Triangle::South => "#d55e00",
        Triangle::SouthWest => "#f0e442",
        Triangle::NorthWest => "#56b4e9",
    }
}

/// Draws `position` as a standalone SVG 1.1 document (UTF-8 text with an
/// XML declaration), fit for an `<img src>` or Jupyter's `_repr_svg_`.
///
/// Pegs are coloured by their set's start triangle ([`triangle_colour`]),
/// neutral pegs grey; each triangle is tinted with the colour of the set
/// that starts there (or, failing that, of the set headed there). A legend
/// under the board names the player to move, with their sets' colours, and
/// the ply; once the game is over it states the outcome instead (with the
/// winner's colours if one player won).
///
/// Elements carry classes for styling and for tests: `hole`; `peg` with the
/// start triangle's name and `player-N`, or `peg neutral`; `triangle` with
/// its name; `path-start`, `path-end`, `path-segment`, `path-arrow`;
/// `selected` and `destination`; `hole-id`; `legend` and `legend-set`.
/// Every element drawn at one hole (`hole`, `peg`, `selected`,
/// `destination`, `hole-id`) names it in a `data-hole` attribute, so that a
/// web page can attach clicks and styles to the picture by hole id, however
/// the board is turned ([`SvgOptions::bottom`]).
///
/// ```
/// use sternhalma::{Board, Layout, Position, Rules, SvgOptions, render_svg};
/// let start = Position::start(Board::STANDARD, Layout::standard(2)?, Rules::classic())?;
/// let svg = render_svg(&start, &SvgOptions::default());
/// assert!(svg.contains(r#"xmlns="http://www.w3.org/2000/svg""#));
/// assert_eq!(svg.matches(r#"class="peg "#).count(), 20);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn render_svg(position: &Position, options: &SvgOptions) -> String {
    render(position, options, legend(position))
}

/// The line under the board when the caller knows more than the position:
/// the colours of some players' sets, then a text. A stored match that was
/// resigned, forfeited or abandoned is over, while its position still has a
/// player to move; [`render_svg_with_legend`] says how it ended instead.
///
/// ```
/// use sternhalma::Legend;
/// let legend = Legend { players: vec![1], text: "finished: seat 1 won; seat 0 resigned".to_owned() };
/// assert_eq!(legend.players, [1]);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Legend {
    /// The players whose sets' colours lead the text (the winners, say);
    /// players the layout lacks are left out.
    pub players: Vec<usize>,
    /// The text.
    pub text: String,
}

/// [`render_svg`] with `legend` under the board instead of the position's
/// own (the player to move and the ply, or the outcome).
///
/// ```
/// use sternhalma::{Board, Layout, Legend, Position, Rules, SvgOptions, render_svg_with_legend};
/// let start = Position::start(Board::STANDARD, Layout::standard(2)?, Rules::classic())?;
/// let legend = Legend { players: vec![1], text: "finished: seat 1 won; seat 0 resigned".to_owned() };
/// let svg = render_svg_with_legend(&start, &SvgOptions::default(), &legend);
/// assert!(svg.contains(">finished: seat 1 won; seat 0 resigned</text>"));
/// assert!(!svg.contains("to move"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn render_svg_with_legend(
    position: &Position,
    options: &SvgOptions,
    legend: &Legend,
) -> String {
    let players = position.layout().player_count();
    let swatches = legend
        .players
        .iter()
        .filter(|&&player| player < players)
        .flat_map(|&player| position.layout().sets_of(player))
        .collect();
    render(position, options, (swatches, legend.text.clone()))
}

fn render(position: &Position, options: &SvgOptions, legend: (Vec<Triangle>, String)) -> String {
    let geometry = position.geometry();
    let frame = Frame::of(geometry, legend, options.bottom);
    let (width, height) = frame.image_size(options.size);
    let mut svg = String::new();
    svg.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{width}" height="{height}" viewBox="0 0 {} {}">"#,
        num(frame.width),
        num(frame.height),
    );
    let _ = writeln!(svg, "<title>{}</title>", escape(&position.to_string()));
    let _ = writeln!(
        svg,
        r#"<rect class="background" x="0" y="0" width="{}" height="{}" fill="{BACKGROUND}"/>"#,
        num(frame.width),
        num(frame.height),
    );
    draw_board(&mut svg, geometry, &frame);
    draw_triangles(&mut svg, position, &frame);
    draw_holes(&mut svg, position, &frame);
    let path = highlighted_path(geometry, &options.highlight_path);
    draw_path_ends(&mut svg, path, &frame);
    draw_pegs(&mut svg, position, &frame);
    if let Some(cell) = options.destinations_of {
        draw_destinations(&mut svg, position, cell, &frame);
    }
    draw_path_segments(&mut svg, path, &frame);
    if options.show_ids {
        draw_ids(&mut svg, position, &frame);
    }
    draw_legend(&mut svg, &frame);
    svg.push_str("</svg>\n");
    svg
}

/// Where things go: the viewBox and the offset of the board's origin in it.
pub(crate) struct Frame {
    geometry: &'static Geometry,
    /// Sixths of a turn clockwise applied to every point.
    turns: usize,
    pub(crate) width: f64,
    pub(crate) height: f64,
    origin_x: f64,
    origin_y: f64,
    pub(crate) legend: (Vec<Triangle>, String),
}

impl Frame {
    pub(crate) fn of(
        geometry: &'static Geometry,
        legend: (Vec<Triangle>, String),
        bottom_triangle: Option<Triangle>,
    ) -> Frame {
        // Clockwise sixths that bring the chosen triangle where south is.
        let turns = bottom_triangle.map_or(0, |t| (Triangle::South.index() + 6 - t.index()) % 6);
        let (mut left, mut right, mut top, mut bottom) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
        for cell in geometry.cells() {
            let (x, y) = axial_to_pixel(rotate(geometry.coordinates(cell), turns));
            left = left.min(x);
            right = right.max(x);
            top = top.min(y);
            bottom = bottom.max(y);
        }
        let pad = RIM + MARGIN;
        let board_width = right - left + 2.0 * pad;
        let width = board_width.max(legend_width(&legend) + 2.0 * MARGIN);
        Frame {
            geometry,
            turns,
            width,
            height: bottom - top + 2.0 * pad + LEGEND_HEIGHT,
            // Centre the board when the legend is the wider of the two.
            origin_x: -left + pad + (width - board_width) / 2.0,
            origin_y: -top + pad,
            legend,
        }
    }

    pub(crate) fn point(&self, (q, r): (i32, i32)) -> (f64, f64) {
        let (x, y) = axial_to_pixel(rotate((q, r), self.turns));
        (x + self.origin_x, y + self.origin_y)
    }

    pub(crate) fn cell(&self, cell: Cell) -> (f64, f64) {
        self.point(self.geometry.coordinates(cell))
    }

    /// The corners of a triangle's tint: the convex hull of its holes'
    /// centres (one point for a triangle of one hole).
    pub(crate) fn triangle_hull(&self, triangle: Triangle) -> Vec<(f64, f64)> {
        let points: Vec<(f64, f64)> = self
            .geometry
            .triangle(triangle)
            .iter()
            .map(|c| self.cell(c))
            .collect();
        convex_hull(&points)
    }

    /// The image's width and height in pixels for a requested width
    /// (`None`: [`DEFAULT_SIZE`]): the height follows the aspect.
    pub(crate) fn image_size(&self, size: Option<u32>) -> (u32, u32) {
        let width = size.unwrap_or(DEFAULT_SIZE).max(1);
        let height = ((f64::from(width) * self.height / self.width).round() as u32).max(1);
        (width, height)
    }

    /// The height of the legend's middle line.
    pub(crate) fn legend_y(&self) -> f64 {
        self.height - MARGIN - LEGEND_HEIGHT / 2.0
    }
}

/// Axial coordinates turned `turns` sixths of a turn clockwise on screen
/// about the centre hole: in cube coordinates `(q, r, s)` one sixth is
/// `(-r, -s, -q)`.
pub(crate) fn rotate((q, r): (i32, i32), turns: usize) -> (i32, i32) {
    (0..turns % 6).fold((q, r), |(q, r), _| (-r, q + r))
}

/// Pointy-top hex layout: rows horizontal, each row half a hole to the right
/// of the one above.
fn axial_to_pixel((q, r): (i32, i32)) -> (f64, f64) {
    let (q, r) = (f64::from(q), f64::from(r));
    ((q + r / 2.0) * SPACING, r * SPACING * 3f64.sqrt() / 2.0)
}

/// The board's outline as polygons in axial coordinates, through the
/// centres of its corner holes: the star is two overlapping big triangles
/// (RULES §1: all of q, r, s ≥ −n, or all ≤ n), the rhombus one rhombus.
pub(crate) fn outline(geometry: &Geometry) -> Vec<Vec<(i32, i32)>> {
    match geometry.board().shape() {
        BoardShape::Star { size } => {
            let n = i32::from(size);
            vec![
                vec![(2 * n, -n), (-n, 2 * n), (-n, -n)],
                vec![(n, -2 * n), (n, n), (-2 * n, n)],
            ]
        }
        BoardShape::Rhombus { .. } | BoardShape::RhombusPegs { .. } => {
            // Corners are the holes with extreme q and s (r = -q - s).
            let coordinates: Vec<(i32, i32)> =
                geometry.cells().map(|c| geometry.coordinates(c)).collect();
            let low = coordinates.iter().map(|&(q, _)| q).min().unwrap_or(0);
            let high = coordinates.iter().map(|&(q, _)| q).max().unwrap_or(0);
            vec![vec![
                (high, -2 * high),
                (high, -high - low),
                (low, -2 * low),
                (low, -low - high),
            ]]
        }
    }
}

fn draw_board(svg: &mut String, geometry: &Geometry, frame: &Frame) {
    let polygons = outline(geometry);
    // A wide stroke with round joins pads each polygon by the rim; the edge
    // colour is drawn a little wider first so that only the union's border
    // shows.
    for (class, colour, stroke) in [
        ("board-edge", BOARD_EDGE, 2.0 * (RIM + EDGE_WIDTH)),
        ("board", BOARD_FILL, 2.0 * RIM),
    ] {
        for polygon in &polygons {
            let points: Vec<(f64, f64)> = polygon.iter().map(|&p| frame.point(p)).collect();
            let _ = writeln!(
                svg,
                r#"<polygon class="{class}" points="{}" fill="{colour}" stroke="{colour}" stroke-width="{}" stroke-linejoin="round"/>"#,
                points_text(&points),
                num(stroke),
            );
        }
    }
}

/// The colour a triangle is tinted with: its set's, else the colour of the
/// set headed there, else none.
fn triangle_tint(position: &Position, triangle: Triangle) -> Option<&'static str> {
    let layout = position.layout();
    if layout.set_starting_in(triangle).is_some() {
        Some(triangle_colour(triangle))
    } else if layout.set_starting_in(triangle.opposite()).is_some() {
        Some(triangle_colour(triangle.opposite()))
    } else {
        None
    }
}

/// The fill of a triangle: its tint, a quarter strength on the board.
pub(crate) fn triangle_fill(position: &Position, triangle: Triangle) -> String {
    triangle_tint(position, triangle).map_or(UNUSED_TRIANGLE_FILL.to_string(), |colour| {
        mix(colour, BOARD_FILL, 0.25)
    })
}

/// The fill of an empty hole: its triangle's tint, a third strength.
pub(crate) fn hole_fill(position: &Position, cell: Cell) -> String {
    match position
        .geometry()
        .triangle_of(cell)
        .and_then(|t| triangle_tint(position, t))
    {
        Some(colour) => mix(colour, HOLE_FILL, 0.35),
        None => HOLE_FILL.to_string(),
    }
}

/// The fill of the peg on `cell`: its set's colour, or grey if neutral.
pub(crate) fn peg_fill(position: &Position, cell: Cell) -> &'static str {
    position.set_at(cell).map_or(NEUTRAL_PEG, |set| {
        triangle_colour(position.layout().set_triangle(set))
    })
}

fn draw_triangles(svg: &mut String, position: &Position, frame: &Frame) {
    for &triangle in position.board().triangles() {
        let tint = triangle_fill(position, triangle);
        let hull = frame.triangle_hull(triangle);
        let class = format!("triangle {}", triangle.name());
        let pad = TRIANGLE_PAD;
        if let [(x, y)] = hull[..] {
            let _ = writeln!(
                svg,
                r#"<circle class="{class}" cx="{}" cy="{}" r="{}" fill="{tint}"/>"#,
                num(x),
                num(y),
                num(pad),
            );
        } else {
            let _ = writeln!(
                svg,
                r#"<polygon class="{class}" points="{}" fill="{tint}" stroke="{tint}" stroke-width="{}" stroke-linejoin="round"/>"#,
                points_text(&hull),
                num(2.0 * pad),
            );
        }
    }
}

fn draw_holes(svg: &mut String, position: &Position, frame: &Frame) {
    let geometry = position.geometry();
    for cell in geometry.cells() {
        let (x, y) = frame.cell(cell);
        let fill = hole_fill(position, cell);
        let _ = writeln!(
            svg,
            r#"<circle class="hole" data-hole="{}" cx="{}" cy="{}" r="{}" fill="{fill}" stroke="{HOLE_STROKE}" stroke-width="{}"/>"#,
            cell.id(),
            num(x),
            num(y),
            num(HOLE_RADIUS),
            num(HOLE_STROKE_WIDTH),
        );
    }
}

fn draw_pegs(svg: &mut String, position: &Position, frame: &Frame) {
    for cell in position.occupied() {
        let (x, y) = frame.cell(cell);
        let class = match position.set_at(cell) {
            Some(set) => format!(
                "peg {} player-{}",
                position.layout().set_triangle(set).name(),
                position.layout().set_owner(set)
            ),
            None => "peg neutral".to_string(),
        };
        let fill = peg_fill(position, cell);
        let _ = writeln!(
            svg,
            r#"<circle class="{class}" data-hole="{}" cx="{}" cy="{}" r="{}" fill="{fill}" stroke="{PEG_STROKE}" stroke-width="{}"/>"#,
            cell.id(),
            num(x),
            num(y),
            num(PEG_RADIUS),
            num(PEG_STROKE_WIDTH),
        );
    }
}

/// The path to highlight, or nothing if it leaves the board.
fn highlighted_path<'a>(geometry: &Geometry, path: &'a [Cell]) -> &'a [Cell] {
    if path.iter().all(|&c| geometry.contains(c)) {
        path
    } else {
        &[]
    }
}

/// Rings around the path's start (dashed) and end (solid).
fn draw_path_ends(svg: &mut String, path: &[Cell], frame: &Frame) {
    let Some((&start, rest)) = path.split_first() else {
        return;
    };
    let dashed = format!(
        r#" stroke-dasharray="{} {}""#,
        num(0.12 * SPACING),
        num(0.1 * SPACING)
    );
    let mut ends = vec![("path-start", start, dashed.as_str())];
    if let Some(&end) = rest.last() {
        ends.push(("path-end", end, ""));
    }
    for (class, cell, dash) in ends {
        let (x, y) = frame.cell(cell);
        let _ = writeln!(
            svg,
            r#"<circle class="{class}" cx="{}" cy="{}" r="{}" fill="none" stroke="{MARK}" stroke-width="{}"{dash}/>"#,
            num(x),
            num(y),
            num(RING_RADIUS),
            num(0.07 * SPACING),
        );
    }
}

/// An arrow for each pair of consecutive distinct holes of the path.
fn draw_path_segments(svg: &mut String, path: &[Cell], frame: &Frame) {
    let head_length = 0.3 * SPACING;
    let head_half_width = 0.16 * SPACING;
    for pair in path.windows(2) {
        let (ax, ay) = frame.cell(pair[0]);
        let (bx, by) = frame.cell(pair[1]);
        let length = (bx - ax).hypot(by - ay);
        if length == 0.0 {
            continue;
        }
        let (dx, dy) = ((bx - ax) / length, (by - ay) / length);
        // The tip stops short of the end hole's centre, inside its peg.
        let tip = (bx - dx * 0.15 * SPACING, by - dy * 0.15 * SPACING);
        let base = (tip.0 - dx * head_length, tip.1 - dy * head_length);
        let start = (ax + dx * 0.12 * SPACING, ay + dy * 0.12 * SPACING);
        let line_end = (base.0 + dx * 0.05 * SPACING, base.1 + dy * 0.05 * SPACING);
        let _ = writeln!(
            svg,
            r#"<line class="path-segment" x1="{}" y1="{}" x2="{}" y2="{}" stroke="{MARK}" stroke-width="{}" stroke-linecap="round" stroke-opacity="0.85"/>"#,
            num(start.0),
            num(start.1),
            num(line_end.0),
            num(line_end.1),
            num(0.09 * SPACING),
        );
        let head = [
            tip,
            (base.0 - dy * head_half_width, base.1 + dx * head_half_width),
            (base.0 + dy * head_half_width, base.1 - dx * head_half_width),
        ];
        let _ = writeln!(
            svg,
            r#"<polygon class="path-arrow" points="{}" fill="{MARK}" fill-opacity="0.85"/>"#,
            points_text(&head),
        );
    }
}

/// The selected peg ringed, and a dot in its colour on each hole it may
/// move to.
fn draw_destinations(svg: &mut String, position: &Position, cell: Cell, frame: &Frame) {
    if !position.geometry().contains(cell) {
        return;
    }
    let moves = position.legal_moves_from(cell);
    if moves.is_empty() {
        return;
    }
    let colour = position.set_at(cell).map_or(NEUTRAL_PEG, |set| {
        triangle_colour(position.layout().set_triangle(set))
    });
    let (x, y) = frame.cell(cell);
    let _ = writeln!(
        svg,
        r#"<circle class="selected" data-hole="{}" cx="{}" cy="{}" r="{}" fill="none" stroke="{MARK}" stroke-width="{}"/>"#,
        cell.id(),
        num(x),
        num(y),
        num(RING_RADIUS),
        num(0.1 * SPACING),
    );
    for to in moves.iter().filter_map(|mv| mv.to()) {
        let (x, y) = frame.cell(to);
        let _ = writeln!(
            svg,
            r#"<circle class="destination" data-hole="{}" cx="{}" cy="{}" r="{}" fill="{colour}" fill-opacity="0.8" stroke="{MARK}" stroke-width="{}"/>"#,
            to.id(),
            num(x),
            num(y),
            num(0.22 * SPACING),
            num(0.05 * SPACING),
        );
    }
}

fn draw_ids(svg: &mut String, position: &Position, frame: &Frame) {
    for cell in position.geometry().cells() {
        let (x, y) = frame.cell(cell);
        let fill = match position.set_at(cell) {
            Some(set) => text_on(triangle_colour(position.layout().set_triangle(set))),
            None if position.neutral().contains(cell) => text_on(NEUTRAL_PEG),
            None => TEXT,
        };
        let _ = writeln!(
            svg,
            r#"<text class="hole-id" data-hole="{}" x="{}" y="{}" font-family="sans-serif" font-size="{}" text-anchor="middle" fill="{fill}">{}</text>"#,
            cell.id(),
            num(x),
            num(y + 0.35 * ID_FONT_SIZE),
            num(ID_FONT_SIZE),
            cell.id(),
        );
    }
}

/// What the legend says: the colours of the sets of the player to move (or
/// of the winner) and a line of text.
pub(crate) fn legend(position: &Position) -> (Vec<Triangle>, String) {
    let outcome = position.outcome();
    if outcome.is_over() {
        let swatches = match outcome {
            Outcome::Won { winner } => position.layout().sets_of(winner).collect(),
            _ => Vec::new(),
        };
        (swatches, format!("{outcome}, ply {}", position.ply()))
    } else {
        let player = position.side_to_move();
        (
            position.layout().sets_of(player).collect(),
            format!("player {player} to move, ply {}", position.ply()),
        )
    }
}

pub(crate) const SWATCH_STEP: f64 = 0.8 * SPACING;

/// Estimated width of the legend: swatches, then text of average-width
/// characters.
fn legend_width((swatches, text): &(Vec<Triangle>, String)) -> f64 {
    swatches.len() as f64 * SWATCH_STEP + text.chars().count() as f64 * 0.55 * FONT_SIZE
}

fn draw_legend(svg: &mut String, frame: &Frame) {
    let (swatches, text) = &frame.legend;
    let mut x = (frame.width - legend_width(&frame.legend)) / 2.0;
    let y = frame.legend_y();
    for &triangle in swatches {
        let _ = writeln!(
            svg,
            r#"<circle class="legend-set {}" cx="{}" cy="{}" r="{}" fill="{}" stroke="{PEG_STROKE}" stroke-width="{}"/>"#,
            triangle.name(),
            num(x + SWATCH_STEP / 2.0),
            num(y),
            num(SWATCH_RADIUS),
            triangle_colour(triangle),
            num(PEG_STROKE_WIDTH),
        );
        x += SWATCH_STEP;
    }
    let _ = writeln!(
        svg,
        r#"<text class="legend" x="{}" y="{}" font-family="sans-serif" font-size="{}" fill="{TEXT}">{}</text>"#,
        num(x + 0.1 * SPACING),
        num(y + 0.35 * FONT_SIZE),
        num(FONT_SIZE),
        escape(text),
    );
}

/// The convex hull of points, counter-clockwise on screen, without
/// collinear points (Andrew's monotone chain). Sorted input order makes the
/// result independent of the order given.
fn convex_hull(points: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let mut sorted = points.to_vec();
    sorted.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    sorted.dedup();
    if sorted.len() < 3 {
        return sorted;
    }
    let cross = |o: (f64, f64), a: (f64, f64), b: (f64, f64)| {
        (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0)
    };
    // Coordinates are exact multiples of SPACING/2 and SPACING*sqrt(3)/2, so
    // collinear points give a cross product of (nearly) zero.
    let epsilon = 1e-6 * SPACING * SPACING;
    let mut hull: Vec<(f64, f64)> = Vec::with_capacity(2 * sorted.len());
    for pass in [
        &sorted[..],
        &sorted.iter().rev().copied().collect::<Vec<_>>()[..],
    ] {
        let floor = hull.len();
        for &p in pass {
            while hull.len() >= floor + 2
                && cross(hull[hull.len() - 2], hull[hull.len() - 1], p) <= epsilon
            {
                hull.pop();
            }
            hull.push(p);
        }
        hull.pop();
    }
    hull
}

/// `colour` mixed with `base`, `amount` of the first: `#rrggbb` in and out.
fn mix(colour: &str, base: &str, amount: f64) -> String {
    let (a, b) = (rgb(colour), rgb(base));
    let channel =
        |i: usize| (f64::from(a[i]) * amount + f64::from(b[i]) * (1.0 - amount)).round() as u8;
    format!("#{:02x}{:02x}{:02x}", channel(0), channel(1), channel(2))
}

pub(crate) fn rgb(colour: &str) -> [u8; 3] {
    let byte = |i: usize| u8::from_str_radix(&colour[1 + 2 * i..3 + 2 * i], 16).unwrap_or(0);
    [byte(0), byte(1), byte(2)]
}

/// Black or white, whichever reads better on `background`.
fn text_on(background: &str) -> &'static str {
    let [r, g, b] = rgb(background);
    let luma = 0.299 * f64::from(r) + 0.587 * f64::from(g) + 0.114 * f64::from(b);
    if luma > 140.0 { "#000000" } else { "#ffffff" }
}

/// A number with two decimals, never `-0.00`.
fn num(value: f64) -> String {
    let text = format!("{value:.2}");
    if text == "-0.00" {
        "0.00".to_string()
    } else {
        text
    }
}

fn points_text(points: &[(f64, f64)]) -> String {
    points
        .iter()
        .map(|&(x, y)| format!("{},{}", num(x), num(y)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Text made safe for XML character data and attribute values.
fn escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&apos;"),
            _ => escaped.push(c),
        }
    }
    escaped
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;
    use crate::layout::Layout;
    use crate::moves::Move;
    use crate::rules::{Rules, UnusedTriangles};

    /// One element of a parsed document: its name and attributes.
    #[derive(Debug)]
    struct Element {
        name: String,
        attributes: Vec<(String, String)>,
    }

    impl Element {
        fn attribute(&self, name: &str) -> Option<&str> {
            self.attributes
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.as_str())
        }

        fn has_class(&self, class: &str) -> bool {
            self.attribute("class")
                .is_some_and(|c| c.split(' ').any(|token| token == class))
        }
    }

    fn is_name(text: &str) -> bool {
        let mut chars = text.chars();
        chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ':'))
    }

    /// Character data or an attribute value: no `<`, and every `&` starts
    /// one of the five predefined entities.
    fn check_text(text: &str) -> Result<(), String> {
        if text.contains('<') {
            return Err(format!("raw '<' in {text:?}"));
        }
        for (i, _) in text.match_indices('&') {
            let rest = &text[i..];
            if !["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"]
                .iter()
                .any(|entity| rest.starts_with(entity))
            {
                return Err(format!("bad entity in {text:?}"));
            }
        }
        Ok(())
    }

    /// A small well-formedness check, enough for what the renderer writes:
    /// one XML declaration first, then one root element; tags balanced and
    /// properly nested; names well formed; attributes quoted, unique and
    /// escaped; text escaped. Returns the elements in document order.
    fn parse_xml(document: &str) -> Result<Vec<Element>, String> {
        let mut rest = document
            .strip_prefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>")
            .ok_or("no XML declaration")?;
        let mut elements = Vec::new();
        let mut open: Vec<String> = Vec::new();
        let mut roots = 0;
        while !rest.is_empty() {
            let lt = rest.find('<').unwrap_or(rest.len());
            let text = &rest[..lt];
            check_text(text)?;
            if open.is_empty() && !text.trim().is_empty() {
                return Err(format!("text outside the root: {text:?}"));
            }
            rest = &rest[lt..];
            if rest.is_empty() {
                break;
            }
            let gt = rest.find('>').ok_or("unclosed tag")?;
            let tag = &rest[1..gt];
            rest = &rest[gt + 1..];
            if let Some(name) = tag.strip_prefix('/') {
                match open.pop() {
                    Some(top) if top == name => {}
                    other => return Err(format!("</{name}> closes {other:?}")),
                }
                continue;
            }
            if tag.starts_with('?') || tag.starts_with('!') {
                return Err(format!("unexpected markup <{tag}>"));
            }
            let (tag, empty) = match tag.strip_suffix('/') {
                Some(inner) => (inner, true),
                None => (tag, false),
            };
            let name_end = tag.find(char::is_whitespace).unwrap_or(tag.len());
            let name = &tag[..name_end];
            if !is_name(name) {
                return Err(format!("bad element name {name:?}"));
            }
            let mut attributes: Vec<(String, String)> = Vec::new();
            let mut attrs = tag[name_end..].trim_start();
            while !attrs.is_empty() {
                let eq = attrs
                    .find('=')
                    .ok_or(format!("attribute without value in <{tag}>"))?;
                let attribute = &attrs[..eq];
                if !is_name(attribute) {
                    return Err(format!("bad attribute name {attribute:?}"));
                }
                let after = &attrs[eq + 1..];
                let quote = after.chars().next().filter(|&c| c == '"' || c == '\'');
                let quote = quote.ok_or(format!("unquoted attribute {attribute}"))?;
                let close = after[1..].find(quote).ok_or("unclosed attribute value")?;
                let value = &after[1..=close];
                check_text(value)?;
                if attributes.iter().any(|(n, _)| n == attribute) {
                    return Err(format!("attribute {attribute} twice in <{name}>"));
                }
                attributes.push((attribute.to_string(), value.to_string()));
                let next = &after[close + 2..];
                if !next.is_empty() && !next.starts_with(char::is_whitespace) {
                    return Err(format!("no space between attributes in <{tag}>"));
                }
                attrs = next.trim_start();
            }
            if open.is_empty() {
                roots += 1;
            }
            elements.push(Element {
                name: name.to_string(),
                attributes,
            });
            if !empty {
                open.push(name.to_string());
            }
        }
        if !open.is_empty() {
            return Err(format!("unclosed elements {open:?}"));
        }
        if roots != 1 {
            return Err(format!("{roots} root elements"));
        }
        Ok(elements)
    }

    fn count_class(elements: &[Element], class: &str) -> usize {
        elements.iter().filter(|e| e.has_class(class)).count()
    }

    fn filled() -> Rules {
        let mut rules = Rules::classic();
        rules.unused_triangles = UnusedTriangles::Filled;
        rules
    }

    /// A start position of every layout and unused-triangle rule that fits
    /// each board.
    fn sample_positions() -> Vec<Position> {
        let mut layouts: Vec<Layout> = [1, 2, 3, 4, 6]
            .iter()
            .map(|&players| Layout::standard(players).unwrap())
            .collect();
        layouts.push(Layout::two_players_three_sets());
        layouts.push(Layout::three_players_two_sets());
        let mut positions = Vec::new();
        for board in Board::all() {
            for layout in &layouts {
                for rules in [Rules::classic(), filled()] {
                    if let Ok(position) = Position::start(board, *layout, rules) {
                        positions.push(position);
                    }
                }
            }
        }
        positions
    }

    fn standard(players: usize) -> Position {
        Position::start(
            Board::STANDARD,
            Layout::standard(players).unwrap(),
            Rules::classic(),
        )
        .unwrap()
    }

    fn cells(ids: &[usize]) -> Vec<Cell> {
        ids.iter().map(|&id| Cell::new(id).unwrap()).collect()
    }

    #[test]
    fn the_checker_refuses_malformed_documents() {
        let declaration = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
        for body in [
            "<svg><g></svg>",
            "<svg></g>",
            "<svg/><svg/>",
            "<svg a=1/>",
            "<svg a=\"1\" a=\"2\"/>",
            "<svg><text>a < b</text></svg>",
            "<svg><text>R&D</text></svg>",
            "<svg a=\"x\"b=\"y\"/>",
            "<svg>",
        ] {
            assert!(
                parse_xml(&format!("{declaration}{body}")).is_err(),
                "{body}"
            );
        }
        assert!(
            parse_xml(&format!(
                "{declaration}<svg a=\"&amp;\"><g/>x &lt; y</svg>\n"
            ))
            .is_ok()
        );
    }

    #[test]
    fn every_board_and_layout_renders_well_formed_with_one_circle_per_peg() {
        let positions = sample_positions();
        // Every board, and on the star every layout with both rules.
        assert!(positions.len() > Board::all().count() + 4 * 12);
        for position in positions {
            let svg = render_svg(&position, &SvgOptions::default());
            let elements = parse_xml(&svg).unwrap_or_else(|e| panic!("{position}: {e}"));
            let root = &elements[0];
            assert_eq!(root.name, "svg");
            assert_eq!(root.attribute("xmlns"), Some("http://www.w3.org/2000/svg"));
            assert_eq!(root.attribute("version"), Some("1.1"));
            assert_eq!(root.attribute("width"), Some("480"));
            assert!(root.attribute("height").is_some());
            assert!(root.attribute("viewBox").is_some());
            let geometry = position.geometry();
            assert_eq!(count_class(&elements, "hole"), geometry.len());
            assert_eq!(count_class(&elements, "peg"), position.occupied().len());
            assert_eq!(count_class(&elements, "neutral"), position.neutral().len());
            for (set, triangle) in position.layout().triangles().enumerate() {
                let pegs = elements
                    .iter()
                    .filter(|e| e.has_class("peg") && e.has_class(triangle.name()))
                    .filter(|e| e.attribute("fill") == Some(triangle_colour(triangle)))
                    .count();
                assert_eq!(pegs, position.pegs(set).len(), "{position}: {triangle}");
            }
            let no_external = [
                "<script",
                "href",
                "url(",
                "<image",
                "<foreignObject",
                "@import",
            ];
            for forbidden in no_external {
                assert!(!svg.contains(forbidden), "{position}: {forbidden}");
            }
        }
    }

    #[test]
    fn pegs_sit_on_holes_rows_are_level_and_hole_0_is_on_top() {
        for position in [standard(6), standard(2)] {
            let svg = render_svg(&position, &SvgOptions::default());
            let elements = parse_xml(&svg).unwrap();
            let centre = |e: &Element| {
                (
                    e.attribute("cx").unwrap().to_string(),
                    e.attribute("cy").unwrap().to_string(),
                )
            };
            let holes: Vec<(String, String)> = elements
                .iter()
                .filter(|e| e.has_class("hole"))
                .map(centre)
                .collect();
            let geometry = position.geometry();
            for peg in elements.iter().filter(|e| e.has_class("peg")) {
                assert!(holes.contains(&centre(peg)));
            }
            for (cell, (_, y)) in geometry.cells().zip(&holes) {
                let (_, r) = geometry.coordinates(cell);
                let (_, top_r) = geometry.coordinates(Cell::new(0).unwrap());
                let y: f64 = y.parse().unwrap();
                let top: f64 = holes[0].1.parse().unwrap();
                // Same row, same height; every other row lower than hole 0.
                let expected = top + f64::from(r - top_r) * SPACING * 3f64.sqrt() / 2.0;
                assert!((y - expected).abs() < 0.01, "hole {cell}");
            }
            // In a row, ids grow to the right one spacing apart.
            let (x10, x11): (f64, f64) =
                (holes[10].0.parse().unwrap(), holes[11].0.parse().unwrap());
            assert!((x11 - x10 - SPACING).abs() < 0.01);
        }
    }

    #[test]
    fn a_highlighted_path_draws_an_arrow_per_hop_and_rings_its_ends() {
        let position = standard(2)
            .play_text("115-104")
            .unwrap()
            .play_text("5-16")
            .unwrap();
        let mv = Move::Hop {
            from: Cell::new(120).unwrap(),
            to: Cell::new(102).unwrap(),
        };
        let path = position.witness_path(mv);
        assert_eq!(path.len(), 3);
        let after = position.play(mv).unwrap();
        for (path, segments, ends) in [
            (path.clone(), 2, 1),
            (cells(&[111, 102]), 1, 1),
            (cells(&[60]), 0, 0),
            (Vec::new(), 0, 0),
        ] {
            let options = SvgOptions {
                highlight_path: path.clone(),
                ..SvgOptions::default()
            };
            let elements = parse_xml(&render_svg(&after, &options)).unwrap();
            assert_eq!(count_class(&elements, "path-segment"), segments, "{path:?}");
            assert_eq!(count_class(&elements, "path-arrow"), segments, "{path:?}");
            assert_eq!(count_class(&elements, "path-end"), ends, "{path:?}");
            assert_eq!(
                count_class(&elements, "path-start"),
                usize::from(!path.is_empty()),
                "{path:?}"
            );
        }
        // A path with a hole the board lacks is not drawn at all.
        let small: Position = "star1 classic south:12/north:0 0 0 -".parse().unwrap();
        let options = SvgOptions {
            highlight_path: cells(&[12, 9, 13]),
            ..SvgOptions::default()
        };
        let elements = parse_xml(&render_svg(&small, &options)).unwrap();
        for class in ["path-segment", "path-arrow", "path-start", "path-end"] {
            assert_eq!(count_class(&elements, class), 0, "{class}");
        }
        // The end ring is drawn around the hole where the peg now stands.
        let options = SvgOptions {
            highlight_path: path,
            ..SvgOptions::default()
        };
        let elements = parse_xml(&render_svg(&after, &options)).unwrap();
        let end = elements.iter().find(|e| e.has_class("path-end")).unwrap();
        let peg_at_end = elements.iter().any(|e| {
            e.has_class("peg")
                && e.attribute("cx") == end.attribute("cx")
                && e.attribute("cy") == end.attribute("cy")
        });
        assert!(peg_at_end);
    }

    #[test]
    fn destinations_are_the_legal_moves_of_the_peg() {
        let mut swap = Rules::masters();
        swap.max_plies = None;
        let positions = [
            standard(2),
            standard(2)
                .play_text("115-104")
                .unwrap()
                .play_text("5-16")
                .unwrap(),
            Position::start(Board::STANDARD, Layout::two_players_three_sets(), filled()).unwrap(),
            Position::start(Board::STANDARD, Layout::standard(3).unwrap(), swap).unwrap(),
        ];
        let mut marked = 0;
        for position in positions {
            for cell in position.geometry().cells() {
                let options = SvgOptions {
                    destinations_of: Some(cell),
                    ..SvgOptions::default()
                };
                let elements = parse_xml(&render_svg(&position, &options)).unwrap();
                let moves = position.legal_moves_from(cell);
                assert_eq!(count_class(&elements, "destination"), moves.len(), "{cell}");
                assert_eq!(
                    count_class(&elements, "selected"),
                    usize::from(!moves.is_empty())
                );
                marked += moves.len();
            }
        }
        assert!(marked > 0);
        let off_board = SvgOptions {
            destinations_of: Cell::new(100),
            ..SvgOptions::default()
        };
        let rhombus = Position::start(
            Board::rhombus(4, 2).unwrap(),
            Layout::standard(2).unwrap(),
            Rules::classic(),
        )
        .unwrap();
        let elements = parse_xml(&render_svg(&rhombus, &off_board)).unwrap();
        assert_eq!(count_class(&elements, "destination"), 0);
    }

    #[test]
    fn every_element_at_a_hole_names_it() {
        let position = standard(2);
        let options = SvgOptions {
            destinations_of: Cell::new(115),
            show_ids: true,
            ..SvgOptions::default()
        };
        let elements = parse_xml(&render_svg(&position, &options)).unwrap();
        let hole_of = |e: &Element| {
            e.attribute("data-hole")
                .map(|v| v.parse::<usize>().unwrap())
        };
        let holes: Vec<usize> = elements
            .iter()
            .filter(|e| e.has_class("hole"))
            .map(|e| hole_of(e).unwrap())
            .collect();
        assert_eq!(holes, (0..121).collect::<Vec<_>>());
        let pegs: Vec<usize> = elements
            .iter()
            .filter(|e| e.has_class("peg"))
            .map(|e| hole_of(e).unwrap())
            .collect();
        let occupied: Vec<usize> = position.occupied().iter().map(Cell::id).collect();
        assert_eq!(pegs, occupied);
        let mut destinations: Vec<usize> = elements
            .iter()
            .filter(|e| e.has_class("destination"))
            .map(|e| hole_of(e).unwrap())
            .collect();
        destinations.sort_unstable();
        let mut legal: Vec<usize> = position
            .legal_moves_from(Cell::new(115).unwrap())
            .iter()
            .filter_map(|mv| mv.to().map(Cell::id))
            .collect();
        legal.sort_unstable();
        assert_eq!(destinations, legal);
        let selected = elements.iter().find(|e| e.has_class("selected")).unwrap();
        assert_eq!(hole_of(selected), Some(115));
        assert_eq!(
            elements.iter().filter(|e| e.has_class("hole-id")).count(),
            121
        );
        assert!(
            elements
                .iter()
                .filter(|e| e.has_class("hole-id"))
                .all(|e| hole_of(e).is_some())
        );
    }

    /// The centre of each hole, by id, as drawn.
    fn hole_centres(svg: &str) -> Vec<(f64, f64)> {
        parse_xml(svg)
            .unwrap()
            .iter()
            .filter(|e| e.has_class("hole"))
            .map(|e| {
                let number = |name| e.attribute(name).unwrap().parse::<f64>().unwrap();
                (number("cx"), number("cy"))
            })
            .collect()
    }

    #[test]
    fn the_chosen_triangle_is_turned_to_the_bottom() {
        let position = standard(6);
        let geometry = position.geometry();
        let plain = hole_centres(&render_svg(&position, &SvgOptions::default()));
        for triangle in Triangle::ALL {
            let options = SvgOptions {
                bottom: Some(triangle),
                ..SvgOptions::default()
            };
            let svg = render_svg(&position, &options);
            let centres = hole_centres(&svg);
            // The triangle's holes are the lowest ones on the picture, as
            // south's are without a turn.
            let lowest = |centres: &[(f64, f64)], t: Triangle| {
                geometry
                    .triangle(t)
                    .iter()
                    .map(|c| centres[c.id()].1)
                    .fold(f64::MIN, f64::max)
            };
            let low = lowest(&centres, triangle);
            for other in Triangle::ALL.into_iter().filter(|&t| t != triangle) {
                assert!(lowest(&centres, other) < low, "{triangle} vs {other}");
            }
            // A turn keeps the distances: neighbours stay one spacing apart.
            let distance =
                |c: &[(f64, f64)], a: usize, b: usize| (c[a].0 - c[b].0).hypot(c[a].1 - c[b].1);
            assert!((distance(&centres, 10, 11) - distance(&plain, 10, 11)).abs() < 0.02);
            assert!((distance(&centres, 0, 120) - distance(&plain, 0, 120)).abs() < 0.02);
            // Pegs still sit on their holes; the picture is still well formed.
            let elements = parse_xml(&svg).unwrap();
            for peg in elements.iter().filter(|e| e.has_class("peg")) {
                let id: usize = peg.attribute("data-hole").unwrap().parse().unwrap();
                let cx: f64 = peg.attribute("cx").unwrap().parse().unwrap();
                assert!((cx - centres[id].0).abs() < 0.01);
            }
        }
        let south = SvgOptions {
            bottom: Some(Triangle::South),
            ..SvgOptions::default()
        };
        assert_eq!(
            render_svg(&position, &south),
            render_svg(&position, &SvgOptions::default())
        );
        // The rhombus turns too (it is not symmetric under a sixth).
        let rhombus = Position::start(
            Board::rhombus(4, 2).unwrap(),
            Layout::standard(2).unwrap(),
            Rules::classic(),
        )
        .unwrap();
        let turned = SvgOptions {
            bottom: Some(Triangle::North),
            ..SvgOptions::default()
        };
        assert!(parse_xml(&render_svg(&rhombus, &turned)).is_ok());
    }

    #[test]
    fn ids_are_printed_in_every_hole_when_asked() {
        let position = standard(3);
        let plain = render_svg(&position, &SvgOptions::default());
        assert!(!plain.contains("hole-id"));
        let options = SvgOptions {
            show_ids: true,
            ..SvgOptions::default()
        };
        let svg = render_svg(&position, &options);
        let elements = parse_xml(&svg).unwrap();
        assert_eq!(count_class(&elements, "hole-id"), 121);
        for id in 0..121 {
            assert_eq!(svg.matches(&format!(">{id}</text>")).count(), 1, "{id}");
        }
    }

    #[test]
    fn the_legend_names_the_player_to_move_or_the_outcome() {
        let moved = standard(2).play_text("115-104").unwrap();
        let svg = render_svg(&moved, &SvgOptions::default());
        assert!(svg.contains(">player 1 to move, ply 1</text>"));
        let elements = parse_xml(&svg).unwrap();
        let swatches: Vec<&Element> = elements
            .iter()
            .filter(|e| e.has_class("legend-set"))
            .collect();
        assert_eq!(swatches.len(), 1);
        assert_eq!(
            swatches[0].attribute("fill"),
            Some(triangle_colour(Triangle::North))
        );

        let multi = Position::start(
            Board::STANDARD,
            Layout::two_players_three_sets(),
            Rules::classic(),
        )
        .unwrap();
        let elements = parse_xml(&render_svg(&multi, &SvgOptions::default())).unwrap();
        assert_eq!(count_class(&elements, "legend-set"), 3);

        let won: Position = "star1 classic south:0/north:6 1 1 0@1".parse().unwrap();
        let svg = render_svg(&won, &SvgOptions::default());
        assert!(svg.contains(">player 0 won, ply 1</text>"));
        assert_eq!(count_class(&parse_xml(&svg).unwrap(), "legend-set"), 1);

        let mut limited = Rules::classic();
        limited.max_plies = Some(1);
        let drawn = Position::start(Board::STANDARD, Layout::standard(2).unwrap(), limited)
            .unwrap()
            .play_text("115-104")
            .unwrap();
        let svg = render_svg(&drawn, &SvgOptions::default());
        assert!(
            svg.contains(">draw by the move limit, ply 1</text>"),
            "{svg}"
        );
        assert_eq!(count_class(&parse_xml(&svg).unwrap(), "legend-set"), 0);
    }

    // A stored match that ended off the board (a resignation, a forfeit)
    // says so under its position, which still has a player to move.
    #[test]
    fn a_legend_of_the_callers_replaces_the_positions_own() {
        let moved = standard(2).play_text("115-104").unwrap();
        let legend = Legend {
            players: vec![0, 7],
            text: "finished: seat 0 won; seat 1 forfeited (3 timeouts)".to_owned(),
        };
        let svg = render_svg_with_legend(&moved, &SvgOptions::default(), &legend);
        assert!(svg.contains(">finished: seat 0 won; seat 1 forfeited (3 timeouts)</text>"));
        assert!(!svg.contains("to move"));
        let elements = parse_xml(&svg).unwrap();
        let swatches: Vec<&Element> = elements
            .iter()
            .filter(|e| e.has_class("legend-set"))
            .collect();
        assert_eq!(swatches.len(), 1, "player 7 is not in the layout");
        assert_eq!(
            swatches[0].attribute("fill"),
            Some(triangle_colour(Triangle::South))
        );
        // The same pegs as the position's own picture.
        let plain = render_svg(&moved, &SvgOptions::default());
        assert_eq!(
            svg.matches("class=\"peg ").count(),
            plain.matches("class=\"peg ").count()
        );
    }

    #[test]
    fn output_is_deterministic() {
        for position in sample_positions().into_iter().step_by(7) {
            let options = SvgOptions {
                size: Some(300),
                highlight_path: cells(&[0, 1]),
                destinations_of: position.occupied().first_cell(),
                show_ids: true,
                bottom: Some(Triangle::NorthEast),
            };
            let first = render_svg(&position, &options);
            let reparsed: Position = position.to_string().parse().unwrap();
            assert_eq!(render_svg(&reparsed, &options.clone()), first);
            assert_eq!(render_svg(&position, &options), first);
        }
    }

    #[test]
    fn the_size_sets_the_width_and_the_height_follows() {
        let position = standard(2);
        let width_and_height = |size| {
            let options = SvgOptions {
                size,
                ..SvgOptions::default()
            };
            let elements = parse_xml(&render_svg(&position, &options)).unwrap();
            let number = |name| elements[0].attribute(name).unwrap().parse::<u32>().unwrap();
            (number("width"), number("height"))
        };
        let (w, h) = width_and_height(None);
        assert_eq!(w, DEFAULT_SIZE);
        let (w2, h2) = width_and_height(Some(960));
        assert_eq!(w2, 960);
        assert!(h2.abs_diff(2 * h) <= 1);
        assert!(h > w, "the star with its legend is taller than wide");
        assert_eq!(width_and_height(Some(0)).0, 1);
    }

    #[test]
    fn text_and_numbers_are_formatted_safely() {
        assert_eq!(
            escape(r#"<a & "b" 'c'>"#),
            "&lt;a &amp; &quot;b&quot; &apos;c&apos;&gt;"
        );
        assert_eq!(num(-0.001), "0.00");
        assert_eq!(num(1.005_1), "1.01");
        assert_eq!(num(-2.5), "-2.50");
        assert_eq!(mix("#000000", "#ffffff", 0.5), "#808080");
        assert_eq!(text_on("#f0e442"), "#000000");
        assert_eq!(text_on("#0072b2"), "#ffffff");
        let colours: Vec<&str> = Triangle::ALL.iter().map(|&t| triangle_colour(t)).collect();
        for (i, a) in colours.iter().enumerate() {
            assert!(!colours[i + 1..].contains(a));
        }
    }

    #[test]
    fn triangles_hulls_are_their_corners() {
        let geometry = Board::STANDARD.geometry();
        let frame = Frame::of(geometry, (Vec::new(), String::new()), None);
        for triangle in Triangle::ALL {
            let points: Vec<(f64, f64)> = geometry
                .triangle(triangle)
                .iter()
                .map(|c| frame.cell(c))
                .collect();
            assert_eq!(convex_hull(&points).len(), 3, "{triangle}");
        }
        assert_eq!(convex_hull(&[(1.0, 2.0)]), [(1.0, 2.0)]);
    }
}
