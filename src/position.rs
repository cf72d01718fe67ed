//! A validated position: pegs on a board, under rules, with a player to move.

use std::fmt;
use std::hash::{Hash, Hasher};

use crate::board::{Board, Triangle};
use crate::cell::{Cell, CellSet};
use crate::geometry::Geometry;
use crate::layout::{Layout, MAX_SETS};
use crate::moves::{IllegalMove, Move, MoveError, MoveText};
use crate::rules::{AntiSpoiling, Finish, Resting, Rules};
use crate::setup::{Finisher, Resignation, Setup, SetupError};
use crate::zobrist::KEYS;

/// A legal position. Only made through validation ([`Setup::validate`]) or
/// from a start ([`Position::start`]), so one that exists obeys every rule.
///
/// Two ways to play:
/// - checked: [`Position::play`] returns a new position or says why not;
/// - fast, for search: [`Position::make_move`] and [`Position::unmake_move`]
///   change the position in place and trust the move to be legal.
///
/// ```
/// use sternhalma::{Board, Layout, Position, Rules};
/// let start = Position::start(Board::STANDARD, Layout::standard(2)?, Rules::classic())?;
/// assert_eq!(start.legal_moves().len(), 14);
/// let next = start.play_text("111-102")?;
/// assert_eq!(next.side_to_move(), 1);
/// assert_eq!(next.to_string(), "star4 classic south:102,112-120/north:0-9 1 1 -");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct Position {
    pub(crate) geometry: &'static Geometry,
    pub(crate) rules: Rules,
    pub(crate) layout: Layout,
    /// Pegs of each set, in layout order.
    pub(crate) pegs: [CellSet; MAX_SETS],
    /// Every peg, neutral ones included.
    pub(crate) occupied: CellSet,
    /// `occupied` as the geometry's bitboard lanes (`bitboard.rs`), kept
    /// in step by `make_move` and `unmake_move` for the hop chains.
    pub(crate) lanes: [u64; 4],
    pub(crate) neutral: CellSet,
    pub(crate) side: u8,
    pub(crate) ply: u32,
    pub(crate) finished: [(u8, u32); MAX_SETS],
    pub(crate) finished_len: u8,
    /// Players who resigned, as a bit mask, and in order with the ply.
    pub(crate) resigned_mask: u8,
    pub(crate) resigned: [(u8, u32); MAX_SETS],
    pub(crate) hash: u64,
    /// Fixed for the game, derived from the layout and the geometry.
    pub(crate) frame: Frame,
}

/// What follows from the board and the layout alone, kept for speed.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Frame {
    /// Target triangle of each set.
    pub(crate) targets: [CellSet; MAX_SETS],
    /// Sets of each player, as a bit mask over set indices.
    pub(crate) player_sets: [u8; MAX_SETS],
    /// Holes where each player's moves may not end when resting is forbidden.
    pub(crate) foreign: [CellSet; MAX_SETS],
    /// Every set's target: a move touching none of these finishes nobody.
    pub(crate) any_target: CellSet,
}

impl Frame {
    fn new(geometry: &Geometry, layout: &Layout) -> Frame {
        let mut frame = Frame {
            targets: [CellSet::EMPTY; MAX_SETS],
            player_sets: [0; MAX_SETS],
            foreign: [CellSet::EMPTY; MAX_SETS],
            any_target: CellSet::EMPTY,
        };
        for (set, start) in layout.triangles().enumerate() {
            frame.targets[set] = geometry.triangle(start.opposite());
            frame.any_target = frame.any_target.union(frame.targets[set]);
            frame.player_sets[layout.set_owner(set)] |= 1 << set;
        }
        for player in 0..layout.player_count() {
            let mut own_targets = CellSet::EMPTY;
            let mut others = CellSet::EMPTY;
            for (set, start) in layout.triangles().enumerate() {
                let both = geometry
                    .triangle(start)
                    .union(geometry.triangle(start.opposite()));
                if layout.set_owner(set) == player {
                    own_targets = own_targets.union(frame.targets[set]);
                } else {
                    others = others.union(both);
                }
            }
            frame.foreign[player] = others.difference(own_targets);
        }
        frame
    }
}

/// What [`Position::make_move`] returns, for [`Position::unmake_move`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Undo {
    hash: u64,
    side: u8,
    finished_len: u8,
    set: u8,
    other_set: u8,
}

impl Position {
    /// The start position of a game: each set fills its start triangle,
    /// unused triangles are filled with neutral pegs if the rules say so, and
    /// the layout's first player is to move.
    ///
    /// # Errors
    /// A layout that does not fit the board (a triangle the board lacks).
    pub fn start(board: Board, layout: Layout, rules: Rules) -> Result<Position, SetupError> {
        Setup::start(board, layout, rules).validate()
    }

    /// Builds a position from parts already checked by [`Setup::validate`].
    pub(crate) fn from_checked(
        setup: &Setup,
        layout: Layout,
        pegs: [CellSet; MAX_SETS],
        neutral: CellSet,
    ) -> Position {
        let geometry = setup.board.geometry();
        let occupied = pegs.iter().fold(neutral, |all, &set| all.union(set));
        let mut position = Position {
            geometry,
            rules: setup.rules,
            layout,
            pegs,
            occupied,
            lanes: geometry.lanes().split(occupied),
            neutral,
            side: setup.side_to_move as u8,
            ply: setup.ply,
            finished: [(0, 0); MAX_SETS],
            finished_len: 0,
            resigned_mask: 0,
            resigned: [(0, 0); MAX_SETS],
            hash: 0,
            frame: Frame::new(geometry, &layout),
        };
        for f in &setup.finished {
            position.finished[usize::from(position.finished_len)] = (f.player as u8, f.ply);
            position.finished_len += 1;
        }
        for r in &setup.resigned {
            let index = position.resigned_mask.count_ones() as usize;
            position.resigned[index] = (r.player as u8, r.ply);
            position.resigned_mask |= 1 << r.player;
        }
        position.hash = position.compute_hash();
        position
    }

    fn compute_hash(&self) -> u64 {
        let mut hash = KEYS.side[usize::from(self.side)];
        for (set, start) in self.layout.triangles().enumerate() {
            for cell in self.pegs[set] {
                hash ^= KEYS.pegs[start.index()][cell.id()];
            }
        }
        for &(player, _) in self.finishers_raw() {
            hash ^= KEYS.finished[usize::from(player)];
        }
        for &(player, _) in self.resigned_raw() {
            hash ^= KEYS.resigned[usize::from(player)];
        }
        hash
    }

    /// The board.
    #[must_use]
    pub fn board(&self) -> Board {
        self.geometry.board()
    }

    /// The board's geometry.
    #[must_use]
    pub fn geometry(&self) -> &'static Geometry {
        self.geometry
    }

    /// The rules.
    #[must_use]
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The players and their sets.
    #[must_use]
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The player to move (0-based, in turn order).
    #[must_use]
    pub fn side_to_move(&self) -> usize {
        usize::from(self.side)
    }

    /// Plies (single moves, passes included) played since the start.
    #[must_use]
    pub fn ply(&self) -> u32 {
        self.ply
    }

    /// The 64-bit Zobrist hash of pegs, player to move and finished players
    /// (not of the ply counter). Kept incrementally by every move.
    #[must_use]
    pub fn zobrist_hash(&self) -> u64 {
        self.hash
    }

    /// The pegs of a set, by its index in [`Layout::triangles`].
    #[must_use]
    pub fn pegs(&self, set: usize) -> CellSet {
        self.pegs[set]
    }

    /// The pegs of the set that started in `triangle`, if there is one.
    #[must_use]
    pub fn pegs_of_triangle(&self, triangle: Triangle) -> Option<CellSet> {
        self.layout
            .set_starting_in(triangle)
            .map(|set| self.pegs[set])
    }

    /// All pegs of one player.
    #[must_use]
    pub fn player_pegs(&self, player: usize) -> CellSet {
        self.sets_of(player)
            .fold(CellSet::EMPTY, |all, set| all.union(self.pegs[set]))
    }

    /// The neutral pegs (in unused triangles under `unused_triangles = filled`).
    #[must_use]
    pub fn neutral(&self) -> CellSet {
        self.neutral
    }

    /// Every peg on the board, neutral ones included.
    #[must_use]
    pub fn occupied(&self) -> CellSet {
        self.occupied
    }

    /// The set a peg on `cell` belongs to, if any (`None` for empty holes and
    /// neutral pegs).
    #[must_use]
    pub fn set_at(&self, cell: Cell) -> Option<usize> {
        (0..self.layout.set_count()).find(|&set| self.pegs[set].contains(cell))
    }

    /// The player owning the peg on `cell`, if any.
    #[must_use]
    pub fn owner_at(&self, cell: Cell) -> Option<usize> {
        self.set_at(cell).map(|set| self.layout.set_owner(set))
    }

    /// The target triangle's holes of a set.
    #[must_use]
    pub fn target(&self, set: usize) -> CellSet {
        self.frame.targets[set]
    }

    /// Set indices of one player.
    pub(crate) fn sets_of(&self, player: usize) -> impl Iterator<Item = usize> + use<> {
        let mask = self.frame.player_sets[player];
        (0..MAX_SETS).filter(move |set| mask & (1 << set) != 0)
    }

    pub(crate) fn finishers_raw(&self) -> &[(u8, u32)] {
        &self.finished[..usize::from(self.finished_len)]
    }

    /// The players who have finished, in finishing order, with the ply at
    /// which each did.
    #[must_use]
    pub fn finishers(&self) -> Vec<Finisher> {
        self.finishers_raw()
            .iter()
            .map(|&(player, ply)| Finisher {
                player: usize::from(player),
                ply,
            })
            .collect()
    }

    pub(crate) fn resigned_raw(&self) -> &[(u8, u32)] {
        &self.resigned[..self.resigned_mask.count_ones() as usize]
    }

    /// The players who have resigned, in order, with the ply at which each
    /// did (only in games of three or more: [`Position::resign`]).
    #[must_use]
    pub fn resignations(&self) -> Vec<Resignation> {
        self.resigned_raw()
            .iter()
            .map(|&(player, ply)| Resignation {
                player: usize::from(player),
                ply,
            })
            .collect()
    }

    /// Whether `player` has resigned.
    #[must_use]
    #[inline]
    pub fn is_resigned(&self, player: usize) -> bool {
        player < MAX_SETS && self.resigned_mask & (1 << player) != 0
    }

    /// A game of three or more players after `player` resigns: they leave
    /// the game, their pegs stay on the board as obstacles, their turns are
    /// skipped, and they rank below every player still in the game (the
    /// later a resignation, the higher among those who resigned). If it was
    /// their turn, the next player's comes. The game ends when one player is
    /// left (RULES leaves resignation to the referee; `docs/rules.md`). With
    /// two players a resignation simply loses: [`crate::Outcome::resignation`].
    ///
    /// ```
    /// use sternhalma::{Outcome, Position};
    /// let three: Position = "star2 classic south:34-36/north_west:3,4,10/north_east:8,9,15 0 0 -".parse()?;
    /// let after = three.resign(0)?;
    /// assert_eq!(after.side_to_move(), 1);
    /// assert!(!after.is_game_over());
    /// let over = after.resign(2)?;
    /// assert_eq!(over.outcome(), Outcome::Ranking { ranks: vec![vec![1], vec![2], vec![0]] });
    /// assert_eq!(over.results(), [-1.0, 1.0, 0.0]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// The game is over, has fewer than three players, or `player` does not
    /// exist, has finished or has resigned already.
    pub fn resign(&self, player: usize) -> Result<Position, IllegalMove> {
        let players = self.layout.player_count();
        let refuse = |reason| Err(IllegalMove::CannotResign { player, reason });
        if self.is_game_over() {
            return Err(IllegalMove::GameOver);
        }
        if players < 3 {
            return refuse("with two players a resignation ends the game: it loses");
        }
        if player >= players {
            return refuse("there is no such player");
        }
        if self.is_finished(player) {
            return refuse("the player has finished");
        }
        if self.is_resigned(player) {
            return refuse("the player has resigned already");
        }
        let mut next = self.clone();
        let index = next.resigned_mask.count_ones() as usize;
        next.resigned[index] = (player as u8, next.ply);
        next.resigned_mask |= 1 << player;
        next.hash ^= KEYS.resigned[player];
        if usize::from(next.side) == player {
            let to_move = next.next_player(player);
            next.hash ^= KEYS.side[player] ^ KEYS.side[to_move];
            next.side = to_move as u8;
        }
        Ok(next)
    }

    /// For replaying a game record: this position after the resignations
    /// of `resignations` that happened at its ply, in their order (those at
    /// other plies are left for later).
    ///
    /// # Errors
    /// A resignation the game does not allow ([`Position::resign`]).
    pub fn resign_due(&self, resignations: &[Resignation]) -> Result<Position, IllegalMove> {
        let mut position = self.clone();
        for r in resignations.iter().filter(|r| r.ply == self.ply) {
            if !position.is_resigned(r.player) {
                position = position.resign(r.player)?;
            }
        }
        Ok(position)
    }

    /// Whether `player` has finished (all sets home, at some point).
    #[must_use]
    pub fn is_finished(&self, player: usize) -> bool {
        self.finishers_raw()
            .iter()
            .any(|&(p, _)| usize::from(p) == player)
    }

    /// Whether a set is home (RULES §4), under the rules' anti-spoiling
    /// variant.
    #[must_use]
    pub fn is_home(&self, set: usize) -> bool {
        let target = self.frame.targets[set];
        let own = self.pegs[set].intersection(target);
        match self.rules.anti_spoiling {
            AntiSpoiling::None | AntiSpoiling::Swap => own == target,
            AntiSpoiling::FillAvailable => {
                let player = self.layout.set_owner(set);
                let others = self
                    .occupied
                    .difference(self.neutral)
                    .difference(self.player_pegs(player));
                !own.is_empty() && target.difference(own).is_subset(others)
            }
        }
    }

    /// Whether every set of `player` is home right now.
    #[must_use]
    pub fn is_player_home(&self, player: usize) -> bool {
        self.sets_of(player).all(|set| self.is_home(set))
    }

    /// Holes where `player`'s moves may not end under the current rules.
    #[inline]
    pub(crate) fn no_rest(&self, player: usize) -> CellSet {
        match self.rules.rest_in_foreign_triangles {
            Resting::Allowed => CellSet::EMPTY,
            Resting::Forbidden => self.frame.foreign[player],
        }
    }

    /// The player who moves after `player`: the next in turn order, skipping
    /// players who resigned, and finished players under `finish = ranking`.
    pub(crate) fn next_player(&self, player: usize) -> usize {
        let count = self.layout.player_count();
        if self.rules.finish == Finish::Ranking || self.resigned_mask != 0 {
            (1..=count)
                .map(|i| (player + i) % count)
                .find(|&p| self.takes_turns(p))
                .unwrap_or(player)
        } else {
            (player + 1) % count
        }
    }

    /// Whether `player` still gets turns: not resigned, and not finished
    /// under `finish = ranking`.
    pub fn takes_turns(&self, player: usize) -> bool {
        !(self.is_resigned(player)
            || self.rules.finish == Finish::Ranking && self.is_finished(player))
    }

    /// Plays a legal move in place, fast: no checks. Returns what
    /// [`Position::unmake_move`] needs to take it back.
    ///
    /// The move must be one of [`Position::legal_moves`]; anything else
    /// leaves the position inconsistent (debug builds assert the basics).
    pub fn make_move(&mut self, mv: Move) -> Undo {
        let mover = usize::from(self.side);
        let mut undo = Undo {
            hash: self.hash,
            side: self.side,
            finished_len: self.finished_len,
            set: u8::MAX,
            other_set: u8::MAX,
        };
        if let Some((from, to)) = mv.from().zip(mv.to()) {
            let set = self
                .sets_of(mover)
                .find(|&s| self.pegs[s].contains(from))
                .expect("make_move: no peg of the player to move on the start hole");
            let start = self.layout.set_triangle(set).index();
            self.pegs[set] = self.pegs[set].without(from).with(to);
            self.hash ^= KEYS.pegs[start][from.id()] ^ KEYS.pegs[start][to.id()];
            undo.set = set as u8;
            if let Move::Swap { .. } = mv {
                let other = (0..self.layout.set_count())
                    .find(|&s| s != set && self.pegs[s].contains(to))
                    .expect("make_move: a swap needs a peg to swap with");
                let other_start = self.layout.set_triangle(other).index();
                self.pegs[other] = self.pegs[other].without(to).with(from);
                self.hash ^= KEYS.pegs[other_start][to.id()] ^ KEYS.pegs[other_start][from.id()];
                undo.other_set = other as u8;
            } else {
                debug_assert!(
                    !self.occupied.contains(to),
                    "make_move: the end hole is occupied"
                );
                self.occupied = self.occupied.without(from).with(to);
                self.geometry.lanes().shift(&mut self.lanes, from, to);
            }
            self.ply += 1;
            self.record_finishers(mover, from, to);
        } else {
            self.ply += 1;
        }
        let next = self.next_player(mover);
        self.hash ^= KEYS.side[mover] ^ KEYS.side[next];
        self.side = next as u8;
        debug_assert_eq!(self.lanes, self.geometry.lanes().split(self.occupied));
        undo
    }

    /// Takes back the move that `make_move` returned `undo` for. Moves must
    /// be taken back in the reverse order they were made.
    pub fn unmake_move(&mut self, mv: Move, undo: Undo) {
        self.side = undo.side;
        self.finished_len = undo.finished_len;
        self.hash = undo.hash;
        self.ply -= 1;
        if let Some((from, to)) = mv.from().zip(mv.to()) {
            let set = usize::from(undo.set);
            self.pegs[set] = self.pegs[set].without(to).with(from);
            if undo.other_set == u8::MAX {
                self.occupied = self.occupied.without(to).with(from);
                self.geometry.lanes().shift(&mut self.lanes, to, from);
            } else {
                let other = usize::from(undo.other_set);
                self.pegs[other] = self.pegs[other].without(from).with(to);
            }
        }
    }

    /// After a move from `from` to `to` by `mover`: records every player not
    /// yet finished whose sets are now all home, the mover first, then the
    /// others in turn order. Only sets whose target holds `from` or `to` can
    /// have changed.
    fn record_finishers(&mut self, mover: usize, from: Cell, to: Cell) {
        let touched = CellSet::EMPTY.with(from).with(to);
        if touched.intersection(self.frame.any_target).is_empty() {
            return;
        }
        let count = self.layout.player_count();
        for i in 0..count {
            let player = (mover + i) % count;
            // A resigned player has left: their sets may be filled by
            // others' moves, but they never finish.
            if self.is_finished(player) || self.is_resigned(player) {
                continue;
            }
            let affected = self
                .sets_of(player)
                .any(|set| !self.frame.targets[set].intersection(touched).is_empty());
            if affected && self.is_player_home(player) {
                self.finished[usize::from(self.finished_len)] = (player as u8, self.ply);
                self.finished_len += 1;
                self.hash ^= KEYS.finished[player];
            }
        }
    }

    /// Plays a move, checked: the new position, or why the move is illegal.
    ///
    /// # Errors
    /// The move is not legal here.
    pub fn play(&self, mv: Move) -> Result<Position, IllegalMove> {
        self.check_move(mv)?;
        let mut next = self.clone();
        next.make_move(mv);
        Ok(next)
    }

    /// Parses a move text and plays it, checked.
    ///
    /// # Errors
    /// Malformed text, or a move illegal here.
    pub fn play_text(&self, text: &str) -> Result<Position, MoveError> {
        let mv = self.parse_move(&text.parse::<MoveText>()?)?;
        Ok(self.play(mv).expect("parse_move returns legal moves"))
    }

    /// Whether `mv` is legal here.
    #[must_use]
    pub fn is_legal(&self, mv: Move) -> bool {
        self.check_move(mv).is_ok()
    }

    /// The position as plain data, e.g. to edit it or to serialise it.
    #[must_use]
    pub fn to_setup(&self) -> Setup {
        Setup::from_position(self)
    }

    /// The position with left and right exchanged: each hole replaced by its
    /// mirror image and each set renamed by the mirror image of its start
    /// triangle (north and south stay; north_west and north_east trade
    /// names, as do south_west and south_east), owners unchanged. `None` if
    /// the result is not a valid position, or if the board is not its own
    /// mirror image (the homes of 2 pegs of `rhombus<M>p2`, RULES §7, are
    /// not symmetric). Used to count positions up to symmetry.
    #[must_use]
    pub fn mirrored(&self) -> Option<Position> {
        let geometry = self.geometry;
        let symmetric = self.board().triangles().iter().all(|&triangle| {
            let image: CellSet = geometry
                .triangle(triangle)
                .iter()
                .map(|cell| geometry.mirror(cell))
                .collect();
            image == geometry.triangle(mirror_triangle(triangle))
        });
        if !symmetric {
            return None;
        }
        let mut setup = self.to_setup();
        for player in &mut setup.players {
            for set in player.iter_mut() {
                set.triangle = mirror_triangle(set.triangle);
                for hole in &mut set.pegs {
                    *hole = self.geometry.mirror(Cell(*hole as u8)).id();
                }
                set.pegs.sort_unstable();
            }
        }
        setup.validate().ok()
    }
}

/// The triangle's image in the left-right mirror.
#[must_use]
pub fn mirror_triangle(triangle: Triangle) -> Triangle {
    match triangle {
        Triangle::North => Triangle::North,
        Triangle::South => Triangle::South,
        Triangle::NorthEast => Triangle::NorthWest,
        Triangle::NorthWest => Triangle::NorthEast,
        Triangle::SouthEast => Triangle::SouthWest,
        Triangle::SouthWest => Triangle::SouthEast,
    }
}

impl PartialEq for Position {
    fn eq(&self, other: &Position) -> bool {
        self.hash == other.hash
            && self.geometry.board() == other.geometry.board()
            && self.rules == other.rules
            && self.layout == other.layout
            && self.pegs == other.pegs
            && self.neutral == other.neutral
            && self.side == other.side
            && self.ply == other.ply
            && self.finishers_raw() == other.finishers_raw()
            && self.resigned_raw() == other.resigned_raw()
    }
}

impl Eq for Position {}

impl Hash for Position {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({self})")
    }
}
