//! Drawing a position as pixels: an RGB image for learning code (the
//! `rgb_array` frames of a Gymnasium or PettingZoo environment, a video)
//! that has no SVG renderer at hand.
//!
//! The picture is the one [`render_svg`](crate::render_svg) draws, from the
//! same geometry and palette (both renderers read them from the SVG module):
//! the board, the tinted triangles, the holes and the pegs, and in the
//! legend's band the colours of the player to move (or of the winner). It
//! leaves out what needs a font or a choice (the legend's text, hole ids,
//! highlighted moves), and it does not antialias: a pixel takes the colour
//! of the topmost shape that covers its centre. So every colour in the
//! image is exact (a peg's pixels are its set's colour), which tests and
//! learning code can rely on.

use crate::board::Triangle;
use crate::position::Position;
use crate::svg::{
    BACKGROUND, BOARD_EDGE, BOARD_FILL, EDGE_WIDTH, Frame, HOLE_RADIUS, HOLE_STROKE,
    HOLE_STROKE_WIDTH, PEG_RADIUS, PEG_STROKE, PEG_STROKE_WIDTH, RIM, SWATCH_RADIUS, SWATCH_STEP,
    TRIANGLE_PAD, hole_fill, legend, outline, peg_fill, rgb, triangle_colour, triangle_fill,
};

/// Size and orientation of a [`render_rgb`] image; every field has a
/// sensible default.
///
/// ```
/// use sternhalma::{RasterOptions, Triangle};
/// let options = RasterOptions { size: Some(96), bottom: Some(Triangle::North) };
/// assert_eq!(RasterOptions::default().size, None);
/// # let _ = options;
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RasterOptions {
    /// Width of the image in pixels (at least 1); the height follows the
    /// board's aspect, as in [`SvgOptions::size`](crate::SvgOptions::size).
    /// `None` means 480.
    pub size: Option<u32>,
    /// Turn the board so that this triangle is at the bottom, as
    /// [`SvgOptions::bottom`](crate::SvgOptions::bottom) does. `None` keeps
    /// north at the top.
    pub bottom: Option<Triangle>,
}

/// An RGB image: `height` rows of `width` pixels, three bytes each (red,
/// green, blue), row after row from the top left; the layout of a numpy
/// array of shape `(height, width, 3)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Raster {
    /// Pixels in a row.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// `width * height * 3` bytes.
    pub pixels: Vec<u8>,
}

impl Raster {
    /// The colour of the pixel in column `x` of row `y`, or `None` outside
    /// the image.
    ///
    /// ```
    /// use sternhalma::{Board, Layout, Position, RasterOptions, Rules, render_rgb};
    /// let start = Position::start(Board::STANDARD, Layout::standard(2)?, Rules::classic())?;
    /// let image = render_rgb(&start, &RasterOptions::default());
    /// assert_eq!(image.pixel(0, 0), Some([255, 255, 255]));   // the background
    /// assert_eq!(image.pixel(image.width, 0), None);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn pixel(&self, x: u32, y: u32) -> Option<[u8; 3]> {
        if x >= self.width || y >= self.height {
            return None;
        }
        let at = 3 * (y as usize * self.width as usize + x as usize);
        Some([self.pixels[at], self.pixels[at + 1], self.pixels[at + 2]])
    }
}

/// Draws `position` as an RGB image: the picture of
/// [`render_svg`](crate::render_svg) at the same size, from the same
/// geometry and palette, without what needs a font (the legend's text).
///
/// Pegs have their set's colour ([`triangle_colour`]), neutral pegs grey,
/// each with a dark rim; holes and triangles are tinted as in the SVG, and
/// the legend's band shows the colours of the player to move (or of the
/// winner). There is no antialiasing: a pixel takes the colour of the
/// topmost shape that covers its centre, so a peg's pixels are exactly its
/// set's colour. The image has the width and height the SVG declares for
/// the same size and board, and the same picture is always the same bytes.
///
/// ```
/// use sternhalma::{Board, Layout, Position, RasterOptions, Rules, render_rgb};
/// let start = Position::start(Board::STANDARD, Layout::standard(2)?, Rules::classic())?;
/// let image = render_rgb(&start, &RasterOptions { size: Some(120), ..RasterOptions::default() });
/// assert_eq!(image.width, 120);
/// assert_eq!(image.pixels.len(), 120 * image.height as usize * 3);
/// // South's orange pegs are there, and so are north's blue ones.
/// let has = |colour: [u8; 3]| image.pixels.chunks(3).any(|p| p == colour);
/// assert!(has([0xd5, 0x5e, 0x00]) && has([0x00, 0x72, 0xb2]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn render_rgb(position: &Position, options: &RasterOptions) -> Raster {
    let frame = Frame::of(position.geometry(), legend(position), options.bottom);
    let mut canvas = Canvas::new(&frame, options.size);
    canvas.fill(rgb(BACKGROUND));
    let board: Vec<Vec<(f64, f64)>> = outline(position.geometry())
        .iter()
        .map(|polygon| polygon.iter().map(|&p| frame.point(p)).collect())
        .collect();
    // The edge colour first, wider, so that only the union's border shows.
    for (colour, pad) in [(BOARD_EDGE, RIM + EDGE_WIDTH), (BOARD_FILL, RIM)] {
        for polygon in &board {
            canvas.rounded_polygon(polygon, pad, rgb(colour));
        }
    }
    let geometry = position.geometry();
    for &triangle in position.board().triangles() {
        let colour = rgb(&triangle_fill(position, triangle));
        canvas.rounded_polygon(&frame.triangle_hull(triangle), TRIANGLE_PAD, colour);
    }
    for cell in geometry.cells() {
        let colour = rgb(&hole_fill(position, cell));
        canvas.ringed_disk(
            frame.cell(cell),
            HOLE_RADIUS,
            HOLE_STROKE_WIDTH,
            rgb(HOLE_STROKE),
            colour,
        );
    }
    for cell in position.occupied() {
        let colour = rgb(peg_fill(position, cell));
        canvas.ringed_disk(
            frame.cell(cell),
            PEG_RADIUS,
            PEG_STROKE_WIDTH,
            rgb(PEG_STROKE),
            colour,
        );
    }
    // The legend's swatches, centred, as there is no text beside them.
    let swatches = &frame.legend.0;
    let left = (frame.width - swatches.len() as f64 * SWATCH_STEP) / 2.0;
    for (i, &triangle) in swatches.iter().enumerate() {
        let centre = (left + (i as f64 + 0.5) * SWATCH_STEP, frame.legend_y());
        let colour = rgb(triangle_colour(triangle));
        canvas.ringed_disk(
            centre,
            SWATCH_RADIUS,
            PEG_STROKE_WIDTH,
            rgb(PEG_STROKE),
            colour,
        );
    }
    canvas.image
}

/// An image being painted, with the mapping from the frame's units to
/// pixels that an SVG viewer uses (uniform scale, centred:
/// `preserveAspectRatio="xMidYMid meet"`).
struct Canvas {
    image: Raster,
    scale: f64,
    offset: (f64, f64),
}

impl Canvas {
    fn new(frame: &Frame, size: Option<u32>) -> Canvas {
        let (width, height) = frame.image_size(size);
        let (w, h) = (f64::from(width), f64::from(height));
        let scale = (w / frame.width).min(h / frame.height);
        Canvas {
            image: Raster {
                width,
                height,
                pixels: vec![0; width as usize * height as usize * 3],
            },
            scale,
            offset: (
                (w - frame.width * scale) / 2.0,
                (h - frame.height * scale) / 2.0,
            ),
        }
    }

    /// The pixel whose area holds a point of the frame, clamped to the
    /// image.
    #[cfg(test)]
    fn pixel_at(&self, (x, y): (f64, f64)) -> (u32, u32) {
        let clamp = |v: f64, limit: u32| (v.floor().max(0.0) as u32).min(limit - 1);
        (
            clamp(x * self.scale + self.offset.0, self.image.width),
            clamp(y * self.scale + self.offset.1, self.image.height),
        )
    }

    fn fill(&mut self, colour: [u8; 3]) {
        for pixel in self.image.pixels.chunks_exact_mut(3) {
            pixel.copy_from_slice(&colour);
        }
    }

    /// Paints `colour` on every pixel in the box (`left, top, right,
    /// bottom`, in frame units) whose centre `inside` accepts (given in
    /// frame units).
    fn paint(
        &mut self,
        (left, top, right, bottom): (f64, f64, f64, f64),
        colour: [u8; 3],
        inside: impl Fn(f64, f64) -> bool,
    ) {
        let range = |low: f64, high: f64, offset: f64, limit: u32| {
            let first = (low * self.scale + offset).floor().max(0.0) as u32;
            let end = ((high * self.scale + offset).ceil().max(0.0) as u32).min(limit);
            first..end
        };
        let columns = range(left, right, self.offset.0, self.image.width);
        let rows = range(top, bottom, self.offset.1, self.image.height);
        let width = self.image.width as usize;
        for row in rows {
            let y = (f64::from(row) + 0.5 - self.offset.1) / self.scale;
            for column in columns.clone() {
                let x = (f64::from(column) + 0.5 - self.offset.0) / self.scale;
                if inside(x, y) {
                    let at = 3 * (row as usize * width + column as usize);
                    self.image.pixels[at..at + 3].copy_from_slice(&colour);
                }
            }
        }
    }

    fn disk(&mut self, (cx, cy): (f64, f64), radius: f64, colour: [u8; 3]) {
        let area = (cx - radius, cy - radius, cx + radius, cy + radius);
        self.paint(area, colour, |x, y| {
            (x - cx).powi(2) + (y - cy).powi(2) <= radius * radius
        });
    }

    /// A disk with a ring of `stroke` centred on its edge, as SVG strokes a
    /// circle.
    fn ringed_disk(
        &mut self,
        centre: (f64, f64),
        radius: f64,
        stroke: f64,
        ring: [u8; 3],
        colour: [u8; 3],
    ) {
        self.disk(centre, radius + stroke / 2.0, ring);
        self.disk(centre, radius - stroke / 2.0, colour);
    }

    /// A polygon grown by `pad` all round with rounded corners: what SVG
    /// draws for a filled polygon stroked `2 * pad` wide with round joins.
    /// One point makes a disk, two a capsule.
    fn rounded_polygon(&mut self, points: &[(f64, f64)], pad: f64, colour: [u8; 3]) {
        if points.is_empty() {
            return;
        }
        let (mut left, mut top, mut right, mut bottom) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
        for &(x, y) in points {
            left = left.min(x - pad);
            right = right.max(x + pad);
            top = top.min(y - pad);
            bottom = bottom.max(y + pad);
        }
        self.paint((left, top, right, bottom), colour, |x, y| {
            contains(points, (x, y)) || distance_to_outline(points, (x, y)) <= pad
        });
    }
}

/// Whether a point is inside a polygon (crossing number; a degenerate
/// polygon of fewer than three points contains nothing).
fn contains(polygon: &[(f64, f64)], (x, y): (f64, f64)) -> bool {
    let mut inside = false;
    let mut previous = polygon[polygon.len() - 1];
    for &(px, py) in polygon {
        let (qx, qy) = previous;
        if (py > y) != (qy > y) && x < px + (y - py) * (qx - px) / (qy - py) {
            inside = !inside;
        }
        previous = (px, py);
    }
    inside && polygon.len() >= 3
}

/// The distance from a point to the nearest edge of a closed polygon.
fn distance_to_outline(polygon: &[(f64, f64)], point: (f64, f64)) -> f64 {
    let mut previous = polygon[polygon.len() - 1];
    let mut nearest = f64::MAX;
    for &corner in polygon {
        nearest = nearest.min(distance_to_segment(point, previous, corner));
        previous = corner;
    }
    nearest
}

fn distance_to_segment((x, y): (f64, f64), (ax, ay): (f64, f64), (bx, by): (f64, f64)) -> f64 {
    let (dx, dy) = (bx - ax, by - ay);
    let length = dx * dx + dy * dy;
    let t = if length == 0.0 {
        0.0
    } else {
        (((x - ax) * dx + (y - ay) * dy) / length).clamp(0.0, 1.0)
    };
    (x - ax - t * dx).hypot(y - ay - t * dy)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;
    use crate::cell::Cell;
    use crate::layout::Layout;
    use crate::rules::{Rules, UnusedTriangles};
    use crate::svg::{SvgOptions, render_svg};

    fn standard(players: usize) -> Position {
        Position::start(
            Board::STANDARD,
            Layout::standard(players).unwrap(),
            Rules::classic(),
        )
        .unwrap()
    }

    fn cell(id: usize) -> Cell {
        Cell::new(id).unwrap()
    }

    /// The colour at the centre of a hole, as drawn with `options`.
    fn colour_at(position: &Position, options: &RasterOptions, hole: Cell) -> [u8; 3] {
        let frame = Frame::of(position.geometry(), legend(position), options.bottom);
        let canvas = Canvas::new(&frame, options.size);
        let (x, y) = canvas.pixel_at(frame.cell(hole));
        render_rgb(position, options).pixel(x, y).unwrap()
    }

    /// The value of attribute `name` in an SVG element's text.
    fn attribute(element: &str, name: &str) -> f64 {
        let start = element.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
        let end = start + element[start..].find('"').unwrap();
        element[start..end].parse().unwrap()
    }

    #[test]
    fn the_image_has_the_size_of_the_svg_picture() {
        let rhombus = Position::start(
            Board::rhombus(5, 2).unwrap(),
            Layout::standard(1).unwrap(),
            Rules::classic(),
        )
        .unwrap();
        for position in [standard(2), standard(6), rhombus] {
            for size in [None, Some(1), Some(64), Some(333)] {
                let image = render_rgb(
                    &position,
                    &RasterOptions {
                        size,
                        ..RasterOptions::default()
                    },
                );
                let svg = render_svg(
                    &position,
                    &SvgOptions {
                        size,
                        ..SvgOptions::default()
                    },
                );
                let root = svg.lines().find(|l| l.starts_with("<svg ")).unwrap();
                assert_eq!(f64::from(image.width), attribute(root, "width"));
                assert_eq!(f64::from(image.height), attribute(root, "height"));
                assert_eq!(
                    image.pixels.len(),
                    image.width as usize * image.height as usize * 3
                );
            }
        }
        let zero = render_rgb(
            &standard(2),
            &RasterOptions {
                size: Some(0),
                ..RasterOptions::default()
            },
        );
        assert_eq!(
            (zero.width, zero.pixels.len()),
            (1, 3 * zero.height as usize)
        );
    }

    #[test]
    fn pegs_have_their_sets_colour_and_empty_holes_the_hole_colour() {
        let position = standard(2).play_text("115-104").unwrap();
        let options = RasterOptions::default();
        let south = rgb(triangle_colour(Triangle::South));
        let north = rgb(triangle_colour(Triangle::North));
        assert_eq!(colour_at(&position, &options, cell(104)), south);
        assert_eq!(colour_at(&position, &options, cell(111)), south);
        assert_eq!(colour_at(&position, &options, cell(0)), north);
        // The centre hole is plain; the hole south just left is tinted
        // with south's colour, as in the SVG.
        assert_eq!(colour_at(&position, &options, cell(60)), rgb("#d2d2d2"));
        let vacated = colour_at(&position, &options, cell(115));
        assert_eq!(vacated, rgb(&hole_fill(&position, cell(115))));
        assert_ne!(vacated, rgb("#d2d2d2"));
        assert_ne!(vacated, south);
    }

    #[test]
    fn every_hole_of_the_svg_picture_is_a_hole_or_a_peg_here() {
        let mut rules = Rules::classic();
        rules.unused_triangles = UnusedTriangles::Filled;
        let neutral =
            Position::start(Board::STANDARD, Layout::standard(2).unwrap(), rules).unwrap();
        assert!(!neutral.neutral().is_empty());
        for position in [standard(3), neutral] {
            for bottom in [None, Some(Triangle::NorthEast)] {
                let size = Some(300);
                let image = render_rgb(&position, &RasterOptions { size, bottom });
                let svg = render_svg(
                    &position,
                    &SvgOptions {
                        size,
                        bottom,
                        ..SvgOptions::default()
                    },
                );
                let root = svg.lines().find(|l| l.starts_with("<svg ")).unwrap();
                let view: Vec<f64> = root
                    .split("viewBox=\"")
                    .nth(1)
                    .unwrap()
                    .split('"')
                    .next()
                    .unwrap()
                    .split(' ')
                    .map(|v| v.parse().unwrap())
                    .collect();
                let scale = f64::from(image.width) / view[2];
                for element in svg.lines().filter(|l| l.contains(r#"class="hole""#)) {
                    let hole = cell(attribute(element, "data-hole") as usize);
                    let (x, y) = (attribute(element, "cx"), attribute(element, "cy"));
                    let pixel = image.pixel((x * scale) as u32, (y * scale) as u32).unwrap();
                    let expected = if position.occupied().contains(hole) {
                        rgb(peg_fill(&position, hole))
                    } else {
                        rgb(&hole_fill(&position, hole))
                    };
                    assert_eq!(pixel, expected, "hole {hole}, bottom {bottom:?}");
                }
            }
        }
    }

    #[test]
    fn the_chosen_triangle_is_at_the_bottom() {
        let position = standard(2);
        let options = RasterOptions {
            size: Some(200),
            bottom: Some(Triangle::North),
        };
        let image = render_rgb(&position, &options);
        let rows_with = |colour: [u8; 3]| {
            (0..image.height)
                .filter(|&y| (0..image.width).any(|x| image.pixel(x, y) == Some(colour)))
                .collect::<Vec<u32>>()
        };
        let north = rows_with(rgb(triangle_colour(Triangle::North)));
        let south = rows_with(rgb(triangle_colour(Triangle::South)));
        // North's pegs are in the lower half now, south's in the upper one
        // (north's colour is also the legend's: player 0 moves first, but
        // that swatch is south's).
        assert!(north.iter().all(|&y| y > image.height / 2), "{north:?}");
        assert!(south.iter().any(|&y| y < image.height / 3), "{south:?}");
    }

    #[test]
    fn the_legend_shows_the_colours_of_the_player_to_move() {
        for (position, colour) in [
            (standard(2), Triangle::South),
            (standard(2).play_text("115-104").unwrap(), Triangle::North),
        ] {
            let frame = Frame::of(position.geometry(), legend(&position), None);
            let canvas = Canvas::new(&frame, None);
            let (x, y) = canvas.pixel_at((frame.width / 2.0, frame.legend_y()));
            let image = render_rgb(&position, &RasterOptions::default());
            assert_eq!(image.pixel(x, y), Some(rgb(triangle_colour(colour))));
            assert_eq!(image.pixel(0, y), Some(rgb(BACKGROUND)));
        }
    }

    #[test]
    fn the_same_position_gives_the_same_bytes() {
        let position = standard(4).play_text("115-104").unwrap();
        let reparsed: Position = position.to_string().parse().unwrap();
        let options = RasterOptions {
            size: Some(150),
            bottom: Some(Triangle::SouthWest),
        };
        assert_eq!(
            render_rgb(&position, &options),
            render_rgb(&reparsed, &options)
        );
        assert_ne!(
            render_rgb(&position, &options),
            render_rgb(&standard(4), &options)
        );
    }

    #[test]
    fn polygon_helpers() {
        let square = [(0.0, 0.0), (2.0, 0.0), (2.0, 2.0), (0.0, 2.0)];
        assert!(contains(&square, (1.0, 1.0)));
        assert!(!contains(&square, (3.0, 1.0)));
        assert!(!contains(&[(0.0, 0.0), (2.0, 2.0)], (1.0, 1.0)));
        assert!((distance_to_outline(&square, (1.0, 3.0)) - 1.0).abs() < 1e-12);
        assert!((distance_to_outline(&square, (3.0, 3.0)) - 2f64.sqrt()).abs() < 1e-12);
        assert_eq!(distance_to_outline(&[(1.0, 1.0)], (1.0, 4.0)), 3.0);
    }
}
