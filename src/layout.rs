//! Who plays which sets, in turn order (RULES §2).
//!
//! Text form: the players in turn order separated by `/`, each player's start
//! triangles separated by `+` (`south/north`, `south+north_west+north_east/north+south_east+south_west`),
//! or a standard layout's short name: `1` (a set alone: the solitaire
//! crossing), `2`, `3`, `4`, `6`, `2x3` (two players with three sets each)
//! and `3x2`.

use std::fmt;
use std::str::FromStr;

use crate::board::Triangle;
use crate::error::{ParseError, ParseErrorKind};

/// The most sets a game can have: one per triangle.
pub const MAX_SETS: usize = 6;

/// The players of a game in turn order, and the start triangle of each of
/// their sets. A set always heads for the triangle opposite its start.
///
/// ```
/// use sternhalma::{Layout, Triangle};
/// let layout = Layout::standard(3)?;
/// assert_eq!(layout.player_count(), 3);
/// assert_eq!(layout.sets_of(1).collect::<Vec<_>>(), [Triangle::NorthWest]);
/// assert_eq!(layout.to_string(), "south/north_west/north_east");
/// assert_eq!("2x3".parse::<Layout>()?.sets_of(0).count(), 3);
/// # Ok::<(), sternhalma::ParseError>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(try_from = "String", into = "String"))]
pub struct Layout {
    /// Start triangle of each set, sets of player 0 first.
    triangles: [Triangle; MAX_SETS],
    /// Owner of each set.
    owners: [u8; MAX_SETS],
    set_count: u8,
    player_count: u8,
}

impl Layout {
    /// A layout from each player's start triangles, in turn order.
    ///
    /// # Errors
    /// No players, a player without sets, or a triangle used twice.
    pub fn new<P: AsRef<[Triangle]>>(players: &[P]) -> Result<Layout, ParseError> {
        let describe = || {
            players
                .iter()
                .map(|p| {
                    p.as_ref()
                        .iter()
                        .map(|t| t.name())
                        .collect::<Vec<_>>()
                        .join("+")
                })
                .collect::<Vec<_>>()
                .join("/")
        };
        if players.is_empty() {
            return Err(ParseError::new(
                ParseErrorKind::Layout,
                "",
                "a game needs at least one player",
            ));
        }
        let mut layout = Layout {
            triangles: [Triangle::North; MAX_SETS],
            owners: [0; MAX_SETS],
            set_count: 0,
            player_count: players.len() as u8,
        };
        for (player, sets) in players.iter().enumerate() {
            if sets.as_ref().is_empty() {
                return Err(ParseError::new(
                    ParseErrorKind::Layout,
                    &describe(),
                    format!("player {player} has no set"),
                ));
            }
            for &triangle in sets.as_ref() {
                if layout.triangles().any(|t| t == triangle) {
                    return Err(ParseError::new(
                        ParseErrorKind::Layout,
                        &describe(),
                        format!("{triangle} is the start of more than one set"),
                    ));
                }
                let index = usize::from(layout.set_count);
                layout.triangles[index] = triangle;
                layout.owners[index] = player as u8;
                layout.set_count += 1;
            }
        }
        Ok(layout)
    }

    /// The standard layout for 1, 2, 3, 4 or 6 players with one set each.
    /// One player is the solitaire crossing: a set alone, from south.
    ///
    /// # Errors
    /// Any other number of players.
    pub fn standard(players: usize) -> Result<Layout, ParseError> {
        use Triangle::*;
        let players: &[&[Triangle]] = match players {
            1 => &[&[South]],
            2 => &[&[South], &[North]],
            3 => &[&[South], &[NorthWest], &[NorthEast]],
            4 => &[&[South], &[SouthWest], &[North], &[NorthEast]],
            6 => &[
                &[South],
                &[SouthWest],
                &[NorthWest],
                &[North],
                &[NorthEast],
                &[SouthEast],
            ],
            _ => {
                return Err(ParseError::new(
                    ParseErrorKind::Layout,
                    &players.to_string(),
                    "standard layouts exist for 1, 2, 3, 4 and 6 players",
                ));
            }
        };
        Layout::new(players)
    }

    /// Two players with three sets each (RULES §2, multi-set).
    #[must_use]
    pub fn two_players_three_sets() -> Layout {
        use Triangle::*;
        Layout::new(&[[South, NorthWest, NorthEast], [North, SouthEast, SouthWest]])
            .expect("a valid layout")
    }

    /// Three players with two opposite sets each (RULES §2, multi-set).
    #[must_use]
    pub fn three_players_two_sets() -> Layout {
        use Triangle::*;
        Layout::new(&[
            [South, North],
            [SouthWest, NorthEast],
            [NorthWest, SouthEast],
        ])
        .expect("a valid layout")
    }

    /// Number of players.
    #[must_use]
    pub fn player_count(&self) -> usize {
        usize::from(self.player_count)
    }

    /// Number of sets.
    #[must_use]
    pub fn set_count(&self) -> usize {
        usize::from(self.set_count)
    }

    /// Start triangles of all sets, player 0's first.
    pub fn triangles(&self) -> impl Iterator<Item = Triangle> + '_ {
        self.triangles[..self.set_count()].iter().copied()
    }

    /// Start triangles of one player's sets.
    pub fn sets_of(&self, player: usize) -> impl Iterator<Item = Triangle> + '_ {
        self.triangles()
            .zip(self.owners)
            .filter(move |&(_, owner)| usize::from(owner) == player)
            .map(|(t, _)| t)
    }

    /// The start triangle of set `set` (an index into [`Layout::triangles`]).
    #[must_use]
    pub fn set_triangle(&self, set: usize) -> Triangle {
        self.triangles[set]
    }

    /// The player owning set `set`.
    #[must_use]
    pub fn set_owner(&self, set: usize) -> usize {
        usize::from(self.owners[set])
    }

    /// The set starting in `triangle`, if any.
    #[must_use]
    pub fn set_starting_in(&self, triangle: Triangle) -> Option<usize> {
        self.triangles().position(|t| t == triangle)
    }

    /// Whether `triangle` is neither the start nor the target of any set.
    #[must_use]
    pub fn is_unused(&self, triangle: Triangle) -> bool {
        !self
            .triangles()
            .any(|t| t == triangle || t.opposite() == triangle)
    }
}

impl fmt::Debug for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Layout({self})")
    }
}

impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for player in 0..self.player_count() {
            if player > 0 {
                f.write_str("/")?;
            }
            for (i, t) in self.sets_of(player).enumerate() {
                if i > 0 {
                    f.write_str("+")?;
                }
                f.write_str(t.name())?;
            }
        }
        Ok(())
    }
}

impl FromStr for Layout {
    type Err = ParseError;

    fn from_str(text: &str) -> Result<Layout, ParseError> {
        match text {
            "2x3" => return Ok(Layout::two_players_three_sets()),
            "3x2" => return Ok(Layout::three_players_two_sets()),
            _ => {}
        }
        if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
            let players = text
                .parse()
                .map_err(|_| ParseError::new(ParseErrorKind::Layout, text, "too many players"))?;
            return Layout::standard(players);
        }
        let players = text
            .split('/')
            .map(|player| {
                player
                    .split('+')
                    .map(|name| {
                        name.parse::<Triangle>().map_err(|e| {
                            ParseError::new(
                                ParseErrorKind::Layout,
                                text,
                                format!("{name:?}: {}", e.reason()),
                            )
                        })
                    })
                    .collect::<Result<Vec<_>, _>>()
            })
            .collect::<Result<Vec<_>, _>>()?;
        Layout::new(&players)
    }
}

impl TryFrom<String> for Layout {
    type Error = ParseError;
    fn try_from(text: String) -> Result<Layout, ParseError> {
        text.parse()
    }
}

impl From<Layout> for String {
    fn from(layout: Layout) -> String {
        layout.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_layouts_follow_the_table() {
        assert_eq!(Layout::standard(2).unwrap().to_string(), "south/north");
        assert_eq!(
            Layout::standard(4).unwrap().to_string(),
            "south/south_west/north/north_east"
        );
        assert_eq!(
            Layout::standard(6).unwrap().to_string(),
            "south/south_west/north_west/north/north_east/south_east"
        );
        assert_eq!(
            Layout::two_players_three_sets().to_string(),
            "south+north_west+north_east/north+south_east+south_west"
        );
        assert_eq!(
            Layout::three_players_two_sets().to_string(),
            "south+north/south_west+north_east/north_west+south_east"
        );
        assert!(Layout::standard(5).is_err());
    }

    #[test]
    fn layouts_round_trip_and_refuse_nonsense() {
        for text in ["1", "2", "3", "4", "6", "2x3", "3x2"] {
            let layout: Layout = text.parse().unwrap();
            assert_eq!(layout.to_string().parse::<Layout>(), Ok(layout));
        }
        for text in ["", "5", "south/south", "south//north", "south+west", "0"] {
            assert!(text.parse::<Layout>().is_err(), "{text:?}");
        }
    }

    #[test]
    fn unused_triangles() {
        let two = Layout::standard(2).unwrap();
        let unused: Vec<_> = Triangle::ALL
            .into_iter()
            .filter(|&t| two.is_unused(t))
            .collect();
        assert_eq!(
            unused,
            [
                Triangle::NorthEast,
                Triangle::SouthEast,
                Triangle::SouthWest,
                Triangle::NorthWest
            ]
        );
        let three = Layout::standard(3).unwrap();
        assert_eq!(
            Triangle::ALL
                .into_iter()
                .filter(|&t| three.is_unused(t))
                .count(),
            0
        );
    }
}
