//! Unchecked positions, and their validation into [`Position`]s.
//!
//! A [`Setup`] is plain data that can hold anything (pegs off the board, two
//! pegs on a hole); [`Setup::validate`] reports every problem at once, or
//! returns the [`Position`].

use std::fmt;

use crate::board::{Board, Triangle};
use crate::cell::{Cell, CellSet};
use crate::layout::{Layout, MAX_SETS};
use crate::position::Position;
use crate::rules::{AntiSpoiling, Finish, IllegalPositions, Rules, UnusedTriangles};

/// One set of pegs: the triangle it started in (which names it, and fixes
/// its target, the opposite triangle) and the holes its pegs are on.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub struct PegSet {
    /// The start triangle.
    pub triangle: Triangle,
    /// Hole ids of the pegs.
    #[cfg_attr(feature = "utoipa", schema(value_type = Vec<crate::wire::schema::HoleId>, example = json!([111, 112, 113, 114, 115, 116, 117, 118, 119, 120])))]
    pub pegs: Vec<usize>,
}

/// A player who has finished, and the ply count right after the move that
/// finished them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub struct Finisher {
    /// The player.
    #[cfg_attr(feature = "utoipa", schema(value_type = crate::wire::schema::PlayerIndex))]
    pub player: usize,
    /// Plies played when they finished.
    #[cfg_attr(feature = "utoipa", schema(value_type = crate::wire::schema::PlyCount))]
    pub ply: u32,
}

/// A player who resigned a game of three or more, and the ply count when
/// they did. A resigned player leaves the game: their pegs stay where they
/// are (obstacles, hopped over like any peg), their turns are skipped, and
/// they rank below everyone still playing (`docs/rules.md`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub struct Resignation {
    /// The player.
    #[cfg_attr(feature = "utoipa", schema(value_type = crate::wire::schema::PlayerIndex))]
    #[cfg_attr(feature = "serde", serde(deserialize_with = "crate::wire::whole::one"))]
    pub player: usize,
    /// Plies played when they resigned.
    #[cfg_attr(feature = "utoipa", schema(value_type = crate::wire::schema::PlyCount))]
    #[cfg_attr(feature = "serde", serde(deserialize_with = "crate::wire::whole::one"))]
    pub ply: u32,
}

/// A position as plain data, not yet checked.
///
/// ```
/// use sternhalma::{Setup, SetupProblem};
/// let setup: Setup = "star4 classic south:111-120/north:0-8,200 0 0 -".parse()?;
/// let err = setup.validate().unwrap_err();
/// assert!(err.problems().contains(&SetupProblem::PegOffBoard { hole: 200, holes: 121 }));
/// # Ok::<(), sternhalma::ParseError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Setup {
    /// The board.
    pub board: Board,
    /// The rules.
    pub rules: Rules,
    /// The players in turn order, each with their sets.
    pub players: Vec<Vec<PegSet>>,
    /// Neutral pegs; `None` means "as the rules say": every unused triangle
    /// full under `unused_triangles = filled`, none otherwise.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub neutral: Option<Vec<usize>>,
    /// The player to move, 0-based.
    #[cfg_attr(feature = "serde", serde(default))]
    pub side_to_move: usize,
    /// Plies played so far.
    #[cfg_attr(feature = "serde", serde(default))]
    pub ply: u32,
    /// Players who have finished, in finishing order.
    #[cfg_attr(feature = "serde", serde(default))]
    pub finished: Vec<Finisher>,
    /// Players who have resigned, in order.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub resigned: Vec<Resignation>,
}

/// One thing wrong with a [`Setup`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SetupProblem {
    /// No players at all.
    NoPlayers,
    /// A player with no set.
    PlayerWithoutSets {
        /// The player.
        player: usize,
    },
    /// Two sets start in the same triangle.
    TriangleUsedTwice {
        /// The triangle.
        triangle: Triangle,
    },
    /// A set names a triangle the board lacks (a rhombus has only north and
    /// south).
    TriangleNotOnBoard {
        /// The triangle.
        triangle: Triangle,
        /// The board.
        board: Board,
    },
    /// A peg on a hole id the board does not have.
    PegOffBoard {
        /// The id.
        hole: usize,
        /// Holes on the board.
        holes: usize,
    },
    /// More than one peg on a hole.
    TwoPegsOnHole {
        /// The hole.
        hole: usize,
    },
    /// A set with the wrong number of pegs.
    WrongPegCount {
        /// The set's start triangle.
        triangle: Triangle,
        /// Pegs a set has on this board.
        expected: usize,
        /// Pegs given.
        found: usize,
    },
    /// A neutral peg outside every unused triangle, or with unused triangles
    /// empty by the rules.
    NeutralPegNotInUnusedTriangle {
        /// The hole.
        hole: usize,
    },
    /// Under `unused_triangles = filled`, a hole of an unused triangle
    /// without its neutral peg.
    MissingNeutralPeg {
        /// The hole.
        hole: usize,
    },
    /// The player to move does not exist.
    SideToMoveOutOfRange {
        /// The index given.
        side: usize,
        /// Players in the game.
        players: usize,
    },
    /// Under `finish = ranking`, finished players are skipped, so one cannot
    /// be to move.
    SideToMoveFinished {
        /// The player.
        side: usize,
    },
    /// A finished player that does not exist, is listed twice, finished at
    /// a ply not yet played, or is not home (a finished player's pegs stay
    /// in its targets; but under `anti_spoiling = fill_available` with a
    /// game that goes on after a player finishes, `finish = round` or
    /// `ranking`, home counts others' pegs, which may leave, and the check
    /// is not made).
    BadFinisher {
        /// The player given.
        player: usize,
        /// What is wrong.
        reason: &'static str,
    },
    /// A player whose sets are all home but who is not listed as finished.
    /// Under the solved game's rules (`illegal_positions = sturtevant`) a
    /// player not to move who is home is recorded as finished instead (the
    /// board says the game is over, RULES §7), and one to move who is home
    /// is [`SetupProblem::SideToMoveHasWon`].
    HomeButNotFinished {
        /// The player.
        player: usize,
    },
    /// A resigned player that does not exist, is listed twice, has
    /// finished, or resigned at a ply not yet played; or a resignation with
    /// fewer than three players.
    BadResignation {
        /// The player given.
        player: usize,
        /// What is wrong.
        reason: &'static str,
    },
    /// A resigned player cannot be to move: their turns are skipped.
    SideToMoveResigned {
        /// The player.
        side: usize,
    },
    /// Under `illegal_positions = sturtevant` (the solved game, RULES §7),
    /// a layout other than two players with one set each.
    SolvedGameLayout {
        /// Players in the layout.
        players: usize,
        /// Sets in the layout, all players together.
        sets: usize,
    },
    /// Under `illegal_positions = sturtevant`, another value of an option
    /// the solved game fixes: its win is `anti_spoiling = fill_available`,
    /// and the first to win ends it (`finish = first`).
    SolvedGameRules {
        /// The option.
        option: &'static str,
        /// The value the solved game needs.
        needed: &'static str,
    },
    /// Under `illegal_positions = sturtevant`, the player to move has won
    /// (their target full, one of its pegs their own): a position that
    /// cannot arise, since the move into it does not exist.
    SideToMoveHasWon {
        /// The player.
        side: usize,
    },
    /// Under `illegal_positions = sturtevant`, a blocked target: its tip
    /// hole empty and the four holes of its outer edges (next to the tip,
    /// and the corners of its last row) held by the opponent of the
    /// target's owner. Only targets of six holes can be blocked.
    TargetBlocked {
        /// The player whose target it is.
        player: usize,
        /// The target's tip hole.
        tip: usize,
    },
}

impl SetupProblem {
    /// A stable snake_case code, for clients to act on.
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            SetupProblem::NoPlayers => "no_players",
            SetupProblem::PlayerWithoutSets { .. } => "player_without_sets",
            SetupProblem::TriangleUsedTwice { .. } => "triangle_used_twice",
            SetupProblem::TriangleNotOnBoard { .. } => "triangle_not_on_board",
            SetupProblem::PegOffBoard { .. } => "peg_off_board",
            SetupProblem::TwoPegsOnHole { .. } => "two_pegs_on_hole",
            SetupProblem::WrongPegCount { .. } => "wrong_peg_count",
            SetupProblem::NeutralPegNotInUnusedTriangle { .. } => {
                "neutral_peg_not_in_unused_triangle"
            }
            SetupProblem::MissingNeutralPeg { .. } => "missing_neutral_peg",
            SetupProblem::SideToMoveOutOfRange { .. } => "side_to_move_out_of_range",
            SetupProblem::SideToMoveFinished { .. } => "side_to_move_finished",
            SetupProblem::BadFinisher { .. } => "bad_finisher",
            SetupProblem::HomeButNotFinished { .. } => "home_but_not_finished",
            SetupProblem::BadResignation { .. } => "bad_resignation",
            SetupProblem::SideToMoveResigned { .. } => "side_to_move_resigned",
            SetupProblem::SolvedGameLayout { .. } => "solved_game_layout",
            SetupProblem::SolvedGameRules { .. } => "solved_game_rules",
            SetupProblem::SideToMoveHasWon { .. } => "side_to_move_has_won",
            SetupProblem::TargetBlocked { .. } => "target_blocked",
        }
    }
}

impl fmt::Display for SetupProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetupProblem::NoPlayers => write!(f, "there are no players"),
            SetupProblem::PlayerWithoutSets { player } => write!(f, "player {player} has no set"),
            SetupProblem::TriangleUsedTwice { triangle } => {
                write!(f, "more than one set starts in the {triangle} triangle")
            }
            SetupProblem::TriangleNotOnBoard { triangle, board } => {
                write!(f, "the {board} board has no {triangle} triangle")
            }
            SetupProblem::PegOffBoard { hole, holes } => {
                write!(
                    f,
                    "hole {hole} is not on the board (holes are 0 to {})",
                    holes - 1
                )
            }
            SetupProblem::TwoPegsOnHole { hole } => {
                write!(f, "hole {hole} holds more than one peg")
            }
            SetupProblem::WrongPegCount {
                triangle,
                expected,
                found,
            } => write!(
                f,
                "the {triangle} set has {found} peg{}; a set on this board has {expected}",
                if *found == 1 { "" } else { "s" }
            ),
            SetupProblem::NeutralPegNotInUnusedTriangle { hole } => write!(
                f,
                "neutral peg on hole {hole}, which is not in a triangle the rules fill with neutral pegs"
            ),
            SetupProblem::MissingNeutralPeg { hole } => write!(
                f,
                "hole {hole} lies in an unused triangle, which the rules fill with neutral pegs, but holds none"
            ),
            SetupProblem::SideToMoveOutOfRange { side, players } => write!(
                f,
                "player {side} is to move, but the players are 0 to {}",
                players.saturating_sub(1)
            ),
            SetupProblem::SideToMoveFinished { side } => write!(
                f,
                "player {side} is to move but has finished, and finished players are skipped"
            ),
            SetupProblem::BadFinisher { player, reason } => {
                write!(f, "finished player {player}: {reason}")
            }
            SetupProblem::HomeButNotFinished { player } => write!(
                f,
                "player {player} has every set home but is not listed as finished"
            ),
            SetupProblem::BadResignation { player, reason } => {
                write!(f, "resigned player {player}: {reason}")
            }
            SetupProblem::SideToMoveResigned { side } => write!(
                f,
                "player {side} is to move but has resigned, and resigned players are skipped"
            ),
            SetupProblem::SolvedGameLayout { players, sets } => write!(
                f,
                "illegal_positions=sturtevant is the solved two-player game: it needs two players with one set each, not {players} player{} with {sets} set{}",
                if *players == 1 { "" } else { "s" },
                if *sets == 1 { "" } else { "s" }
            ),
            SetupProblem::SolvedGameRules { option, needed } => write!(
                f,
                "illegal_positions=sturtevant is the solved two-player game: it needs {option}={needed}"
            ),
            SetupProblem::SideToMoveHasWon { side } => write!(
                f,
                "player {side} is to move but has already won (their target is full, one of its pegs their own): under illegal_positions=sturtevant such a position is illegal"
            ),
            SetupProblem::TargetBlocked { player, tip } => write!(
                f,
                "player {player}'s target is blocked (its tip, hole {tip}, is empty and the four holes of its outer edges hold the other player's pegs): under illegal_positions=sturtevant such a position is illegal"
            ),
        }
    }
}

/// Everything wrong with a [`Setup`], found at once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetupError {
    problems: Vec<SetupProblem>,
}

impl SetupError {
    /// The stable code of the error as a whole: `invalid_position` (each
    /// problem has its own [`code`](SetupProblem::code)).
    #[must_use]
    pub fn code(&self) -> &'static str {
        "invalid_position"
    }

    /// The problems, in the order found.
    #[must_use]
    pub fn problems(&self) -> &[SetupProblem] {
        &self.problems
    }
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid position: ")?;
        for (i, problem) in self.problems.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            problem.fmt(f)?;
        }
        Ok(())
    }
}

impl std::error::Error for SetupError {}

impl Setup {
    /// The start of a game: every set fills its start triangle, the layout's
    /// first player to move, nothing played.
    #[must_use]
    pub fn start(board: Board, layout: Layout, rules: Rules) -> Setup {
        let geometry = board.geometry();
        let players = (0..layout.player_count())
            .map(|player| {
                layout
                    .sets_of(player)
                    .map(|triangle| PegSet {
                        triangle,
                        pegs: geometry.triangle(triangle).iter().map(Cell::id).collect(),
                    })
                    .collect()
            })
            .collect();
        Setup {
            board,
            rules,
            players,
            neutral: None,
            side_to_move: 0,
            ply: 0,
            finished: Vec::new(),
            resigned: Vec::new(),
        }
    }

    pub(crate) fn from_position(position: &Position) -> Setup {
        let layout = position.layout();
        let players = (0..layout.player_count())
            .map(|player| {
                layout
                    .sets_of(player)
                    .map(|triangle| PegSet {
                        triangle,
                        pegs: position
                            .pegs_of_triangle(triangle)
                            .expect("the layout's own triangle")
                            .iter()
                            .map(Cell::id)
                            .collect(),
                    })
                    .collect()
            })
            .collect();
        Setup {
            board: position.board(),
            rules: *position.rules(),
            players,
            neutral: None,
            side_to_move: position.side_to_move(),
            ply: position.ply(),
            finished: position.finishers(),
            resigned: position.resignations(),
        }
    }

    /// Checks everything and returns the position.
    ///
    /// # Errors
    /// Every problem found, at once.
    pub fn validate(&self) -> Result<Position, SetupError> {
        let mut problems = Vec::new();
        let geometry = self.board.geometry();
        let holes = geometry.len();

        // The players and their sets.
        if self.players.is_empty() {
            problems.push(SetupProblem::NoPlayers);
        }
        let mut layout_ok = !self.players.is_empty();
        let mut starts: Vec<Triangle> = Vec::new();
        for (player, sets) in self.players.iter().enumerate() {
            if sets.is_empty() {
                problems.push(SetupProblem::PlayerWithoutSets { player });
                layout_ok = false;
            }
            for set in sets {
                if starts.contains(&set.triangle) {
                    problems.push(SetupProblem::TriangleUsedTwice {
                        triangle: set.triangle,
                    });
                    layout_ok = false;
                } else if !self.board.has_triangle(set.triangle) {
                    problems.push(SetupProblem::TriangleNotOnBoard {
                        triangle: set.triangle,
                        board: self.board,
                    });
                    layout_ok = false;
                }
                starts.push(set.triangle);
            }
        }
        if self.rules.illegal_positions == IllegalPositions::Sturtevant {
            let sets = self.players.iter().map(Vec::len).sum();
            if self.players.len() != 2 || self.players.iter().any(|p| p.len() != 1) {
                problems.push(SetupProblem::SolvedGameLayout {
                    players: self.players.len(),
                    sets,
                });
            }
            if self.rules.anti_spoiling != AntiSpoiling::FillAvailable {
                problems.push(SetupProblem::SolvedGameRules {
                    option: "anti_spoiling",
                    needed: "fill_available",
                });
            }
            if self.rules.finish != Finish::First {
                problems.push(SetupProblem::SolvedGameRules {
                    option: "finish",
                    needed: "first",
                });
            }
        }

        // The pegs.
        let mut taken = CellSet::EMPTY;
        let mut doubled = CellSet::EMPTY;
        let mut off_board: Vec<usize> = Vec::new();
        let mut place = |hole: usize, off_board: &mut Vec<usize>| match geometry.cell(hole) {
            None => {
                if !off_board.contains(&hole) {
                    off_board.push(hole);
                }
            }
            Some(cell) if taken.contains(cell) => doubled.insert(cell),
            Some(cell) => taken.insert(cell),
        };
        let expected = self.board.pegs_per_set();
        for set in self.players.iter().flatten() {
            for &hole in &set.pegs {
                place(hole, &mut off_board);
            }
            // A set whose triangle the board lacks is reported once, above.
            if set.pegs.len() != expected && self.board.has_triangle(set.triangle) {
                problems.push(SetupProblem::WrongPegCount {
                    triangle: set.triangle,
                    expected,
                    found: set.pegs.len(),
                });
            }
        }

        // Neutral pegs fill exactly the unused triangles under `filled`.
        let layout = layout_ok.then(|| {
            Layout::new(
                &self
                    .players
                    .iter()
                    .map(|sets| sets.iter().map(|s| s.triangle).collect::<Vec<_>>())
                    .collect::<Vec<_>>(),
            )
            .expect("checked above")
        });
        let unused = layout.map_or(CellSet::EMPTY, |layout| {
            self.board
                .triangles()
                .iter()
                .filter(|&&t| layout.is_unused(t))
                .fold(CellSet::EMPTY, |all, &t| all.union(geometry.triangle(t)))
        });
        let wanted_neutral = match self.rules.unused_triangles {
            UnusedTriangles::Filled => unused,
            UnusedTriangles::Empty => CellSet::EMPTY,
        };
        let neutral = match &self.neutral {
            None => {
                for cell in wanted_neutral {
                    place(cell.id(), &mut off_board);
                }
                wanted_neutral
            }
            Some(given) => {
                let mut neutral = CellSet::EMPTY;
                for &hole in given {
                    place(hole, &mut off_board);
                    if let Some(cell) = geometry.cell(hole) {
                        neutral.insert(cell);
                        if !wanted_neutral.contains(cell) {
                            problems.push(SetupProblem::NeutralPegNotInUnusedTriangle { hole });
                        }
                    }
                }
                if layout.is_some() {
                    for cell in wanted_neutral.difference(neutral) {
                        problems.push(SetupProblem::MissingNeutralPeg { hole: cell.id() });
                    }
                }
                neutral
            }
        };
        for hole in off_board {
            problems.push(SetupProblem::PegOffBoard { hole, holes });
        }
        for cell in doubled {
            problems.push(SetupProblem::TwoPegsOnHole { hole: cell.id() });
        }

        // Whose turn, and who has finished.
        let players = self.players.len();
        if self.side_to_move >= players && players > 0 {
            problems.push(SetupProblem::SideToMoveOutOfRange {
                side: self.side_to_move,
                players,
            });
        }
        let mut listed: Vec<usize> = Vec::new();
        for f in &self.finished {
            let reason = if f.player >= players {
                Some("no such player")
            } else if listed.contains(&f.player) {
                Some("listed twice")
            } else if f.ply > self.ply {
                Some("finished at a ply not yet played")
            } else {
                None
            };
            if let Some(reason) = reason {
                problems.push(SetupProblem::BadFinisher {
                    player: f.player,
                    reason,
                });
            }
            listed.push(f.player);
        }
        let mut resigned: Vec<usize> = Vec::new();
        for r in &self.resigned {
            let reason = if players < 3 {
                Some("only a game of three or more players goes on after a resignation")
            } else if r.player >= players {
                Some("no such player")
            } else if resigned.contains(&r.player) {
                Some("listed twice")
            } else if listed.contains(&r.player) {
                Some("has finished")
            } else if r.ply > self.ply {
                Some("resigned at a ply not yet played")
            } else {
                None
            };
            if let Some(reason) = reason {
                problems.push(SetupProblem::BadResignation {
                    player: r.player,
                    reason,
                });
            }
            resigned.push(r.player);
        }
        if resigned.contains(&self.side_to_move) && resigned.len() + 1 < players {
            problems.push(SetupProblem::SideToMoveResigned {
                side: self.side_to_move,
            });
        }
        if self.rules.finish == Finish::Ranking
            && listed.contains(&self.side_to_move)
            && listed.len() + resigned.len() + 1 < players
        {
            problems.push(SetupProblem::SideToMoveFinished {
                side: self.side_to_move,
            });
        }

        if !problems.is_empty() {
            return Err(SetupError { problems });
        }
        let layout = layout.expect("no problems, so the layout is valid");
        let mut pegs = [CellSet::EMPTY; MAX_SETS];
        for (set, peg_set) in self.players.iter().flatten().enumerate() {
            pegs[set] = peg_set.pegs.iter().map(|&hole| Cell(hole as u8)).collect();
        }
        let mut position = Position::from_checked(self, layout, pegs, neutral);
        // Under the solved game's rules (RULES §7) the board alone says
        // when the game is over: a player not to move whose target is
        // filled has won with the last move. Their finish is recorded at
        // the position's ply when the text leaves it out, as the move
        // that won would have.
        if self.rules.illegal_positions == IllegalPositions::Sturtevant {
            let implied: Vec<Finisher> = (0..players)
                .filter(|&p| {
                    p != self.side_to_move && !position.is_finished(p) && position.is_player_home(p)
                })
                .map(|player| Finisher {
                    player,
                    ply: self.ply,
                })
                .collect();
            if !implied.is_empty() {
                let mut completed = self.clone();
                completed.finished.extend(implied);
                position = Position::from_checked(&completed, layout, pegs, neutral);
            }
        }
        let illegal = position.illegal_position_problems();
        // A player to move who has won is illegal under the solved game's
        // rules, listed as finished or not: no need to say both.
        let has_won = |p: usize| illegal.contains(&SetupProblem::SideToMoveHasWon { side: p });
        let mut problems: Vec<SetupProblem> = (0..players)
            .filter(|&p| {
                !position.is_finished(p)
                    && !position.is_resigned(p)
                    && !has_won(p)
                    && position.is_player_home(p)
            })
            .map(|player| SetupProblem::HomeButNotFinished { player })
            .collect();
        // A finished player's pegs are in its targets and stay there: one
        // listed as finished and not home was never finished (its outcome
        // would name a winner the board does not show). Under
        // `fill_available` home counts others' pegs too, which may leave
        // after it finished when the game goes on (`round`, `ranking`);
        // under `first` nothing moves after.
        if self.rules.anti_spoiling != AntiSpoiling::FillAvailable
            || self.rules.finish == Finish::First
        {
            problems.extend(
                self.finished
                    .iter()
                    .filter(|f| !position.is_player_home(f.player))
                    .map(|f| SetupProblem::BadFinisher {
                        player: f.player,
                        reason: "not every set of theirs is home",
                    }),
            );
        }
        problems.extend(illegal);
        if problems.is_empty() {
            Ok(position)
        } else {
            Err(SetupError { problems })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problems(text: &str) -> Vec<SetupProblem> {
        text.parse::<Setup>()
            .unwrap()
            .validate()
            .unwrap_err()
            .problems()
            .to_vec()
    }

    #[test]
    fn every_problem_is_reported_at_once() {
        let found = problems("star4 classic south:111-120,111,130/north:0-8,120 5 0 -");
        assert_eq!(
            found,
            [
                SetupProblem::WrongPegCount {
                    triangle: Triangle::South,
                    expected: 10,
                    found: 12
                },
                SetupProblem::PegOffBoard {
                    hole: 130,
                    holes: 121
                },
                SetupProblem::TwoPegsOnHole { hole: 111 },
                SetupProblem::TwoPegsOnHole { hole: 120 },
                SetupProblem::SideToMoveOutOfRange {
                    side: 5,
                    players: 2
                },
            ]
        );
    }

    #[test]
    fn layout_problems() {
        let found = problems("rhombus9p10 research south:71-80/north_east:0-9+south:0-9 0 0 -");
        assert!(found.contains(&SetupProblem::TriangleUsedTwice {
            triangle: Triangle::South
        }));
        assert!(found.contains(&SetupProblem::TriangleNotOnBoard {
            triangle: Triangle::NorthEast,
            board: Board::rhombus(9, 4).unwrap()
        }));
    }

    #[test]
    fn neutral_pegs_fill_exactly_the_unused_triangles() {
        let start = Setup::start(
            Board::STANDARD,
            Layout::standard(2).unwrap(),
            "classic,unused_triangles=filled".parse().unwrap(),
        );
        let position = start.validate().unwrap();
        assert_eq!(position.neutral().len(), 40);
        let mut wrong = start.clone();
        wrong.neutral = Some(vec![60]);
        let found = wrong.validate().unwrap_err();
        assert!(
            found
                .problems()
                .contains(&SetupProblem::NeutralPegNotInUnusedTriangle { hole: 60 })
        );
        assert_eq!(
            found
                .problems()
                .iter()
                .filter(|p| matches!(p, SetupProblem::MissingNeutralPeg { .. }))
                .count(),
            40
        );
        let mut empty_rules = Setup::start(
            Board::STANDARD,
            Layout::standard(2).unwrap(),
            Rules::classic(),
        );
        empty_rules.neutral = Some(vec![10]);
        assert_eq!(
            empty_rules.validate().unwrap_err().problems(),
            [SetupProblem::NeutralPegNotInUnusedTriangle { hole: 10 }]
        );
    }

    #[test]
    fn finishers_are_checked() {
        let found = problems("star4 classic south:111-120/north:0-9 0 3 7@1,1@9,1@2");
        assert_eq!(found.len(), 3, "{found:?}");
        // A player home but not recorded.
        let found = problems("star4 classic south:0-9/north:111-120 0 30 -");
        assert_eq!(
            found,
            [
                SetupProblem::HomeButNotFinished { player: 0 },
                SetupProblem::HomeButNotFinished { player: 1 }
            ]
        );
        // Listed as finished, but not home: refused (the outcome would
        // name a winner the board does not show), and the reason says so.
        let found = problems("star4 classic south:111-120/north:0-9 1 1 0@1");
        assert_eq!(
            found,
            [SetupProblem::BadFinisher {
                player: 0,
                reason: "not every set of theirs is home"
            }]
        );
        assert!(
            found[0].to_string().contains("not every set"),
            "{}",
            found[0]
        );
        // The solved game's board too: a terminal position is written
        // with its finisher, home.
        let home: Position = "rhombus7p3 sturtevant south:0-2/north:20,30,40 1 9 0@9"
            .parse()
            .unwrap();
        assert!(home.is_finished(0));
        let found = problems("rhombus7p3 sturtevant south:4-6/north:20,30,40 1 9 0@9");
        assert!(
            found
                .iter()
                .any(|p| matches!(p, SetupProblem::BadFinisher { player: 0, .. })),
            "{found:?}"
        );
        // Under `fill_available` in a game that goes on after a finish,
        // home counts others' pegs, which may leave: not checked.
        let family = "star4 family south:111-120/north:0-9 1 1 0@1";
        assert!(family.parse::<Position>().is_ok());
    }

    #[cfg(feature = "serde")]
    #[test]
    fn json_round_trip() {
        let setup: Setup = "star4 masters south:111-120/north:0-9 1 1 -"
            .parse()
            .unwrap();
        let json = serde_json::to_string(&setup).unwrap();
        assert_eq!(serde_json::from_str::<Setup>(&json).unwrap(), setup);
    }
}
