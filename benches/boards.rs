//! Three two-player positions on every board the crate knows
//! ([`Board::all`]): the start, a middle and an end position, named like
//! `star4/start`, `rhombus9p10/middle`, `rhombus11p55/end`.
//!
//! Shared, without criterion, by `benches/movegen.rs` (group `boards`) and
//! `examples/movegen_calls.rs` (the loop `benches/callgrind_movegen.py` runs
//! under callgrind); it uses only the public API, so the same file builds
//! at older revisions too.
//!
//! The middle and end come from one seeded game per board, played by
//! [`Playout`] with [`Policy::Forward`] (as `examples/playouts.rs
//! positions` does by hand): each ply a uniformly random move
//! ([`Rng`], seeds from 1 upwards) among those that bring the moved peg
//! nearer its target's apex, the target hole farthest from its start (and
//! from the centre); a uniformly random move when none does. The game's
//! length is the ply at which someone finishes; a game that reaches
//! [`PLY_CAP`] or ends without a finisher is dropped for the next seed. The
//! middle is the game at half its length, the end at 85 % of it.
//!
//! The start is the `classic` preset where the board takes it, else
//! `research` ([`BoardCase::rules`] says which).

// Each user reads only part of this module. (Cargo.toml turns off bench
// discovery, so this file is not a bench target of its own.)
#![allow(dead_code)]

use sternhalma::search::{Playout, Policy, Rng};
use sternhalma::{Board, Layout, Move, Position, Rules};

/// Plies after which a game is given up (and the next seed tried).
pub const PLY_CAP: u32 = 5_000;

/// Seeds tried per board before giving up.
pub const MAX_SEEDS: u64 = 1_000;

/// Where in its game a position is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// The start position.
    Start,
    /// Half of the game's length.
    Middle,
    /// 85 % of the game's length.
    End,
}

impl Phase {
    /// Every phase, in game order.
    pub const ALL: [Phase; 3] = [Phase::Start, Phase::Middle, Phase::End];

    /// `start`, `middle` or `end`.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Start => "start",
            Phase::Middle => "middle",
            Phase::End => "end",
        }
    }

    /// The ply of this phase in a game of `length` plies.
    pub fn ply(self, length: u32) -> u32 {
        match self {
            Phase::Start => 0,
            Phase::Middle => length / 2,
            Phase::End => length * 85 / 100,
        }
    }
}

/// The seeded game a board's middle and end come from.
#[derive(Clone, Debug)]
pub struct Game {
    /// The start position.
    pub start: Position,
    /// The preset of the start: `classic` or `research`.
    pub rules: &'static str,
    /// The seed of the first game that finished.
    pub seed: u64,
    /// Its moves, until the first player finished.
    pub moves: Vec<Move>,
}

impl Game {
    /// The game's length in plies.
    pub fn length(&self) -> u32 {
        self.moves.len() as u32
    }

    /// The position after the first `ply` plies.
    pub fn at(&self, ply: u32) -> Position {
        let mut position = self.start.clone();
        for &mv in &self.moves[..ply as usize] {
            position.make_move(mv);
        }
        position
    }
}

/// One position to time.
#[derive(Clone, Debug)]
pub struct BoardCase {
    /// `board/phase`, e.g. `star4/start`.
    pub name: String,
    /// The board.
    pub board: Board,
    /// Where in the game.
    pub phase: Phase,
    /// The preset: `classic` or `research`.
    pub rules: &'static str,
    /// The seed of the game the position comes from.
    pub seed: u64,
    /// The game's length in plies.
    pub length: u32,
    /// The position.
    pub position: Position,
    /// Its number of legal moves.
    pub moves: usize,
}

/// The two-player start on `board`: `classic` if the board takes it, else
/// `research`; with the preset's name.
pub fn start(board: Board) -> (Position, &'static str) {
    let layout = Layout::standard(2).expect("two players");
    match Position::start(board, layout, Rules::classic()) {
        Ok(position) => (position, "classic"),
        Err(classic) => match Position::start(board, layout, Rules::research()) {
            Ok(position) => (position, "research"),
            Err(research) => {
                panic!("{board}: no two-player start (classic: {classic}; research: {research})")
            }
        },
    }
}

/// Plays the forward-random game of `seed` from `start`: its moves, and
/// whether someone finished (rather than the game ending otherwise or
/// reaching [`PLY_CAP`]).
pub fn play(start: &Position, seed: u64) -> (Vec<Move>, bool) {
    let mut rng = Rng::new(seed);
    let mut playout = Playout::new(start, Policy::Forward);
    let mut position = start.clone();
    let mut moves = Vec::new();
    while moves.len() < PLY_CAP as usize {
        if !position.finishers().is_empty() {
            return (moves, true);
        }
        let Some(mv) = playout.choose(&position, &mut rng) else {
            break;
        };
        position.make_move(mv);
        moves.push(mv);
    }
    let finished = !position.finishers().is_empty();
    (moves, finished)
}

/// The game of `board`: the first seed from 1 whose game finishes.
///
/// # Panics
/// If none of the first [`MAX_SEEDS`] does.
pub fn game(board: Board) -> Game {
    let (start, rules) = start(board);
    (1..=MAX_SEEDS)
        .find_map(|seed| {
            let (moves, finished) = play(&start, seed);
            finished.then(|| Game {
                start: start.clone(),
                rules,
                seed,
                moves,
            })
        })
        .unwrap_or_else(|| panic!("{board}: no game from seeds 1 to {MAX_SEEDS} finished"))
}

/// The three cases of `board`, in phase order.
///
/// # Panics
/// If a case's game is over (it cannot be, before the first finisher) or
/// has no legal move.
pub fn board_cases(board: Board) -> Vec<BoardCase> {
    let game = game(board);
    Phase::ALL
        .into_iter()
        .map(|phase| {
            let position = game.at(phase.ply(game.length()));
            let name = format!("{board}/{}", phase.name());
            assert!(
                !position.outcome().is_over(),
                "{name}: the game must still be in progress"
            );
            let moves = position.legal_moves().len();
            assert!(moves > 0, "{name}: no legal move");
            BoardCase {
                name,
                board,
                phase,
                rules: game.rules,
                seed: game.seed,
                length: game.length(),
                position,
                moves,
            }
        })
        .collect()
}

/// Every board's cases: stars first, then rhombi by side and home rows.
pub fn cases() -> Vec<BoardCase> {
    Board::all().flat_map(board_cases).collect()
}

/// The case called `name` (`board/phase`), computing only its board.
pub fn case(name: &str) -> Option<BoardCase> {
    let (board, _) = name.split_once('/')?;
    let board: Board = board.parse().ok()?;
    board_cases(board)
        .into_iter()
        .find(|case| case.name == name)
}
