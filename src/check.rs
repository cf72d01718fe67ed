//! Checking submitted moves, with the precise reason for a refusal.

use crate::cell::Cell;
use crate::moves::{IllegalMove, Move, MoveText};
use crate::position::Position;
use crate::rules::AntiSpoiling;

impl Position {
    /// Turns a move text into the legal move it names.
    ///
    /// `pass`; two holes name a move by its ends (any legal step, hop chain
    /// or swap between them); three or more holes are a hop chain, checked
    /// hop by hop, whose last hop may land on a peg to swap with (under the
    /// swap rule). A path names at most as many holes as the board has
    /// ([`Position::path_cells`]).
    ///
    /// ```
    /// use sternhalma::{Board, IllegalMove, Layout, Position, Rules};
    /// let start = Position::start(Board::STANDARD, Layout::standard(2)?, Rules::classic())?;
    /// let hop = start.parse_move(&"115-104".parse()?)?;
    /// assert_eq!(hop.to_string(), "115-104");
    /// assert_eq!(start.witness_path(hop).iter().map(|c| c.id()).collect::<Vec<_>>(), [115, 104]);
    /// let err = start.parse_move(&"111-112".parse()?).unwrap_err();
    /// assert_eq!(err, IllegalMove::Occupied { hole: 112 });
    /// let err = start.parse_move(&"0-10".parse()?).unwrap_err();
    /// assert_eq!(err.code(), "not_your_peg");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// The move is illegal here; the error says exactly why.
    pub fn parse_move(&self, text: &MoveText) -> Result<Move, IllegalMove> {
        match text {
            MoveText::Pass => self.check_move(Move::Pass).map(|()| Move::Pass),
            MoveText::Path(_) => {
                let path = self.path_cells(text)?;
                let found = if path.len() == 2 {
                    self.move_between(path[0], path[1])
                } else {
                    self.move_along(&path)
                };
                self.over_if_stuck(found)
            }
        }
    }

    /// A refused move in a game where nobody can move (under
    /// `illegal_positions = sturtevant`: the player to move cannot) is
    /// refused because the game is over. Checked only on refusal: a legal
    /// move shows that its player can move, and the check generates
    /// everyone's moves.
    pub(crate) fn over_if_stuck(
        &self,
        found: Result<Move, IllegalMove>,
    ) -> Result<Move, IllegalMove> {
        match found {
            Err(e) if e != IllegalMove::GameOver && self.over_for_want_of_moves() => {
                Err(IllegalMove::GameOver)
            }
            found => found,
        }
    }

    /// The holes of a path written as a move text, each on the board, not
    /// checked as a move (for drawing a highlight, say); none for `pass`.
    ///
    /// A path names at most as many holes as the board has. A chain may
    /// come back to a hole it left (`docs/rules.md`), but one longer than
    /// that must, and cutting the loop out leaves a chain between the same
    /// ends: the same move. So the limit refuses no move, and bounds the
    /// work a submitted path can ask for.
    ///
    /// ```
    /// use sternhalma::{Board, IllegalMove, Layout, Position, Rules};
    /// let start = Position::start(Board::STANDARD, Layout::standard(2)?, Rules::classic())?;
    /// let cells = start.path_cells(&"115-104".parse()?)?;
    /// assert_eq!(cells.iter().map(|c| c.id()).collect::<Vec<_>>(), [115, 104]);
    /// let looping = ["115", "104"].repeat(61).join("-");
    /// let err = start.path_cells(&looping.parse()?).unwrap_err();
    /// assert_eq!(err, IllegalMove::PathTooLong { length: 122, holes: 121 });
    /// assert_eq!(err.code(), "path_too_long");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`IllegalMove::PathTooLong`], or [`IllegalMove::OffBoard`] for the
    /// first hole the board does not have.
    pub fn path_cells(&self, text: &MoveText) -> Result<Vec<Cell>, IllegalMove> {
        let MoveText::Path(holes) = text else {
            return Ok(Vec::new());
        };
        if holes.len() > self.geometry.len() {
            return Err(IllegalMove::PathTooLong {
                length: holes.len(),
                holes: self.geometry.len(),
            });
        }
        holes
            .iter()
            .map(|&hole| {
                self.geometry.cell(hole).ok_or(IllegalMove::OffBoard {
                    hole,
                    holes: self.geometry.len(),
                })
            })
            .collect()
    }

    /// As [`Position::parse_move`], for a move submitted on behalf of
    /// `player`: refused with [`IllegalMove::NotYourTurn`] if another player
    /// is to move.
    ///
    /// # Errors
    /// Not `player`'s turn, or the move is illegal here.
    pub fn parse_move_for(&self, player: usize, text: &MoveText) -> Result<Move, IllegalMove> {
        if self.is_decided() {
            return Err(IllegalMove::GameOver);
        }
        if player != self.side_to_move() {
            return Err(IllegalMove::NotYourTurn {
                player,
                to_move: self.side_to_move(),
            });
        }
        self.parse_move(text)
    }

    /// Whether `mv` is legal here, and if not, why.
    ///
    /// # Errors
    /// The move is illegal here.
    pub fn check_move(&self, mv: Move) -> Result<(), IllegalMove> {
        match (mv.from(), mv.to()) {
            (Some(from), Some(to)) => {
                for cell in [from, to] {
                    if !self.geometry.contains(cell) {
                        return Err(IllegalMove::OffBoard {
                            hole: cell.id(),
                            holes: self.geometry.len(),
                        });
                    }
                }
                let legal = self.over_if_stuck(self.move_between(from, to))?;
                if legal == mv {
                    Ok(())
                } else {
                    // Right ends, wrong kind: a hand-built Move value.
                    Err(IllegalMove::Unreachable {
                        from: from.id(),
                        to: to.id(),
                    })
                }
            }
            _ => {
                if self.is_decided() {
                    return Err(IllegalMove::GameOver);
                }
                match self.legal_moves()[..] {
                    [Move::Pass] => Ok(()),
                    [] => Err(IllegalMove::GameOver),
                    _ => Err(IllegalMove::PassNotAllowed),
                }
            }
        }
    }

    /// The checks common to every non-pass move: the game is on, the start
    /// holds a peg of the player to move, who may move it. Returns the set.
    fn check_start(&self, from: Cell, to: Cell) -> Result<usize, IllegalMove> {
        // `over_if_stuck` completes the game-over check on refusal.
        if self.is_decided() {
            return Err(IllegalMove::GameOver);
        }
        let player = self.side_to_move();
        if !self.occupied.contains(from) {
            return Err(IllegalMove::EmptyHole { hole: from.id() });
        }
        let set = self.set_at(from);
        let owner = set.map(|s| self.layout.set_owner(s));
        if owner != Some(player) {
            return Err(IllegalMove::NotYourPeg {
                hole: from.id(),
                owner,
                to_move: player,
            });
        }
        if self.must_pass_finished(player) {
            return Err(IllegalMove::FinishedMustPass { player });
        }
        if from == to {
            return Err(IllegalMove::ReturnsToStart { hole: from.id() });
        }
        Ok(set.expect("the owner is known"))
    }

    /// The legal move from `from` to `to`, by any way, or the most precise
    /// reason there is none.
    pub(crate) fn move_between(&self, from: Cell, to: Cell) -> Result<Move, IllegalMove> {
        let found = self.reachable_between(from, to)?;
        self.refuse_if_illegal_after(found)
    }

    /// As [`Position::move_between`], before the rule against moves into
    /// illegal positions.
    fn reachable_between(&self, from: Cell, to: Cell) -> Result<Move, IllegalMove> {
        let set = self.check_start(from, to)?;
        let player = self.side_to_move();
        // A step to an empty hole the peg may end on needs no chain or
        // swap search (a swap lands on a peg).
        if self.geometry.neighbor_set(from).contains(to) && !self.occupied.contains(to) {
            let free = self.geometry.all().difference(self.no_rest(player));
            if self.allowed_ends(free, set, from).contains(to) {
                return Ok(Move::Step { from, to });
            }
        }
        let (normal, swaps) = self.destinations(from, set, player);
        let adjacent = self.geometry.neighbor_set(from).contains(to);
        if swaps.contains(to) {
            return Ok(Move::Swap { from, to });
        }
        if normal.contains(to) {
            return Ok(if adjacent {
                Move::Step { from, to }
            } else {
                Move::Hop { from, to }
            });
        }
        let (reach, _) = self.unrestricted_destinations(from, set, player);
        if reach.contains(to) {
            return Err(self
                .restriction(from, to, set)
                .expect("a restriction removed it"));
        }
        if self.occupied.contains(to) {
            return Err(self
                .why_no_swap(to, set, player)
                .unwrap_or(IllegalMove::SwapNotAllowed {
                    hole: to.id(),
                    reason: "no step, hop or chain of hops ends on the peg",
                }));
        }
        // Explain by the direct line when there is one; otherwise no chain
        // of hops leads there.
        if let Some((direction, 2)) = self.geometry.line_between(from, to) {
            let over = self
                .geometry
                .neighbor(from, direction)
                .expect("the middle of a line on the board is on the board");
            if !self.occupied.contains(over) {
                return Err(IllegalMove::NothingToHopOver {
                    from: from.id(),
                    to: to.id(),
                });
            }
        }
        Err(IllegalMove::Unreachable {
            from: from.id(),
            to: to.id(),
        })
    }

    /// Checks a hop chain of three or more holes, hop by hop. Under the
    /// swap rule its last hop may land on a peg it can swap with.
    fn move_along(&self, path: &[Cell]) -> Result<Move, IllegalMove> {
        let (from, to) = (path[0], path[path.len() - 1]);
        // A chain may come back to its start on the way; only its end
        // matters for ReturnsToStart, checked after the hops.
        let set = self.check_start(from, if from == to { path[1] } else { to })?;
        let player = self.side_to_move();
        let others = self.occupied.without(from);
        let hops = path.len() - 1;
        for (i, pair) in path.windows(2).enumerate() {
            let (a, b) = (pair[0], pair[1]);
            let refusal = |reason: fn(usize, usize) -> IllegalMove| Err(reason(a.id(), b.id()));
            let Some((direction, distance)) = self.geometry.line_between(a, b) else {
                return refusal(|from, to| IllegalMove::NotAStepOrHop { from, to });
            };
            if distance == 1 {
                return refusal(|from, to| IllegalMove::StepInChain { from, to });
            }
            if distance > 2 && !self.rules.long_jumps {
                return refusal(|from, to| IllegalMove::LongJumpsOff { from, to });
            }
            match self.jump(a, direction.index(), others) {
                Some((landing, true)) if landing == b => {}
                Some((landing, false)) if landing == b => {
                    if i + 1 < hops {
                        return Err(self.why_not_on(b, set, player));
                    }
                    return match self.why_no_swap(b, set, player) {
                        None => self.refuse_if_illegal_after(Move::Swap { from, to }),
                        Some(refusal) => Err(refusal),
                    };
                }
                _ if distance == 2 => {
                    if others.contains(b) {
                        return Err(IllegalMove::Occupied { hole: b.id() });
                    }
                    return refusal(|from, to| IllegalMove::NothingToHopOver { from, to });
                }
                _ => return refusal(|from, to| IllegalMove::NotASymmetricJump { from, to }),
            }
        }
        if from == to {
            return Err(IllegalMove::ReturnsToStart { hole: from.id() });
        }
        if let Some(refusal) = self.restriction(from, to, set) {
            return Err(refusal);
        }
        self.refuse_if_illegal_after(if self.geometry.neighbor_set(from).contains(to) {
            Move::Step { from, to }
        } else {
            Move::Hop { from, to }
        })
    }

    /// The target lock or resting rule that forbids ending on `to`, if any.
    fn restriction(&self, from: Cell, to: Cell, set: usize) -> Option<IllegalMove> {
        let target = self.frame.targets[set];
        if self.rules.target_lock && target.contains(from) && !target.contains(to) {
            return Some(IllegalMove::LeavesTarget {
                from: from.id(),
                to: to.id(),
            });
        }
        if self.no_rest(self.side_to_move()).contains(to) {
            return Some(IllegalMove::EndsInForeignTriangle {
                to: to.id(),
                triangle: self
                    .geometry
                    .triangle_of(to)
                    .expect("foreign holes lie in triangles"),
            });
        }
        None
    }

    /// Why a hop may not land on the peg on `to`, or `None` if it may,
    /// as the last hop of a move: a swap. Without the swap rule the hole is
    /// simply occupied.
    fn why_no_swap(&self, to: Cell, set: usize, player: usize) -> Option<IllegalMove> {
        let hole = to.id();
        if self.rules.anti_spoiling != AntiSpoiling::Swap {
            return Some(IllegalMove::Occupied { hole });
        }
        let reason = if !self.frame.targets[set].contains(to) {
            "swaps happen only in the moving peg's own target triangle"
        } else if self.neutral.contains(to) {
            "neutral pegs are never swapped"
        } else if self.player_pegs(player).contains(to) {
            "the peg there is your own"
        } else {
            return None;
        };
        Some(IllegalMove::SwapNotAllowed { hole, reason })
    }

    /// Why a chain may not land on the peg on `hole` before its last hop:
    /// the hole is occupied, and if the peg there could be swapped with,
    /// the swap would have had to end the move.
    fn why_not_on(&self, hole: Cell, set: usize, player: usize) -> IllegalMove {
        match self.why_no_swap(hole, set, player) {
            None => IllegalMove::SwapNotAllowed {
                hole: hole.id(),
                reason: "a swap ends the move; no hop may follow it",
            },
            Some(_) => IllegalMove::Occupied { hole: hole.id() },
        }
    }
}

/// The other peg of a swap: its owner, and where it went.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Swapped {
    /// Its owner.
    pub player: usize,
    /// Where it was: the mover's end hole.
    pub from: Cell,
    /// Where it went: the mover's start hole.
    pub to: Cell,
}

/// A move as every surface reports it once it is known to be legal: the
/// move, who plays it, one path of it, and for a swap the other peg.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Played {
    /// The legal move.
    pub mv: Move,
    /// Who plays it.
    pub player: usize,
    /// Its path: the chain as submitted when a full path was given, else
    /// the chain with the fewest hops ([`Position::witness_path`]); empty
    /// for a pass.
    pub path: Vec<Cell>,
    /// For a swap, the peg that changes places with the mover.
    pub swapped: Option<Swapped>,
}

impl Position {
    /// Resolves a move text against this position, checking it once: the
    /// legal move it names, with the path and swap partner every surface
    /// reports. A path of three or more holes is kept as given (it was
    /// checked hop by hop); two holes or a pass get the witness path.
    ///
    /// ```
    /// use sternhalma::{Board, Layout, Position, Rules};
    /// let start = Position::start(Board::STANDARD, Layout::standard(2)?, Rules::classic())?;
    /// let played = start.resolve(&"115-104".parse()?)?;
    /// assert_eq!(played.mv.to_string(), "115-104");
    /// assert_eq!(played.path.iter().map(|c| c.id()).collect::<Vec<_>>(), [115, 104]);
    /// assert_eq!((played.player, played.swapped), (0, None));
    /// let next = start.after(&played);
    /// assert_eq!(next.side_to_move(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// The move is illegal here; the error says exactly why.
    pub fn resolve(&self, text: &MoveText) -> Result<Played, IllegalMove> {
        let mv = self.parse_move(text)?;
        let path = match text {
            MoveText::Path(holes) if holes.len() > 2 => holes
                .iter()
                .map(|&hole| {
                    self.geometry
                        .cell(hole)
                        .expect("parse_move checked every hole")
                })
                .collect(),
            _ => self.witness_path(mv),
        };
        Ok(self.played_along(mv, path))
    }

    /// What a legal move of this position does ([`Played`]), with its
    /// witness path: for moves chosen by a program, such as a bot's.
    ///
    /// The move must be legal here.
    #[must_use]
    pub fn played(&self, mv: Move) -> Played {
        self.played_along(mv, self.witness_path(mv))
    }

    fn played_along(&self, mv: Move, path: Vec<Cell>) -> Played {
        let swapped = match mv {
            Move::Swap { from, to } => Some(Swapped {
                player: self.owner_at(to).expect("a swap has a peg to swap with"),
                from: to,
                to: from,
            }),
            _ => None,
        };
        Played {
            mv,
            player: self.side_to_move(),
            path,
            swapped,
        }
    }

    /// The position after a resolved move, which must come from this
    /// position ([`Position::resolve`] or [`Position::played`]); no second
    /// legality check.
    #[must_use]
    pub fn after(&self, played: &Played) -> Position {
        let mut next = self.clone();
        next.make_move(played.mv);
        next
    }
}
