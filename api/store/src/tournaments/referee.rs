//! The tournament director's decisions, as a pure step over plain data:
//! `(state, what was read, now) -> effects`.
//!
//! The [`Referee`] keeps what the director knows of every game it follows
//! (the plies and timeouts already told, the version its deadline was set
//! for, the deadline, when it last moved) and, with several replicas, what
//! it reconciles by (the games over and told, the matches that are not
//! tournament games, the tournament versions told, the next sweep). Each
//! method takes what the director read from the store and the time `now`
//! the director read from its clock, changes that state, and answers the
//! [`Effect`]s the director applies: events to send, deadlines to show, a
//! timeout to play, bots to kick, games to read or schedule. Nothing here
//! reads the clock, the store or a channel, so the tests drive it with
//! virtual time.
//!
//! The rules it keeps:
//!
//! - **Events.** Every new move of a followed game is told once, in
//!   order; a timeout at a ply is told once, before that ply's move (the
//!   move the server played for the entrant), with the entrant's count of
//!   timeouts in that game so far and whether it forfeited with it
//!   (`max_timeouts`).
//! - **Deadlines.** When an open entrant is to move, it gets the
//!   tournament's `move_ms` from the moment the director sees the turn: a
//!   fresh deadline when the match's version changed (or none ran), the
//!   running one kept otherwise; none when a bot is to move. A deadline
//!   passed fires one timeout, and not again until the game is read again.
//! - **Game over.** A game that ended is no longer followed, its deadline
//!   cleared; its result, the standings and the next games follow.
//! - **Stalls** (several replicas): a game that stood still for [`STALL`]
//!   has its bots kicked (the replica playing them may have died).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::{Duration, Instant};

use crate::matches::status::MatchStatus;
use crate::tournaments::logic::{GameProgress, Tracked};

/// With several replicas: how long a followed game may stand still before
/// this replica kicks its bots itself (the replica playing them may have
/// died). Only a liveness bound: whichever replica stores a bot's move
/// first, the move is the same (bots are seeded and count their work in
/// nodes), and the other's is dropped by the version check.
pub const STALL: Duration = Duration::from_secs(10);

/// What happened in a game, for its tournament's event stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GameEvent {
    /// A game started.
    GameStarted {
        /// Its number.
        game: usize,
        /// Its match.
        match_id: i64,
        /// Who sits where.
        seats: Vec<EventSeat>,
    },
    /// A move was stored.
    Move {
        /// The game.
        game: usize,
        /// Its match.
        match_id: i64,
        /// The ply it was played at.
        ply: u32,
        /// The seat that played it.
        seat: usize,
        /// The entrant in that seat.
        entrant: usize,
        /// Its path (`95-75-57`) or `pass`, as stored.
        text: String,
    },
    /// An entrant missed its deadline.
    Timeout {
        /// The game.
        game: usize,
        /// Its match.
        match_id: i64,
        /// The ply.
        ply: u32,
        /// The seat.
        seat: usize,
        /// The entrant.
        entrant: usize,
        /// Its timeouts in this game so far.
        timeouts: u32,
        /// Whether it forfeited the game with this one.
        forfeited: bool,
    },
}

/// A seat of a game that starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventSeat {
    /// The seat.
    pub seat: usize,
    /// The entrant.
    pub entrant: usize,
    /// The entrant's name.
    pub name: String,
}

/// What the director does after a decision, in the order given.
#[derive(Clone, Debug)]
pub enum Effect {
    /// Send `event` on the event stream of `tournament`.
    Emit {
        /// The tournament.
        tournament: i64,
        /// The event.
        event: GameEvent,
    },
    /// Show the deadline of match `match_id` at `ply`: the open entrant to
    /// move has until `at`.
    SetDeadline {
        /// The match.
        match_id: i64,
        /// The ply the deadline is for.
        ply: u32,
        /// When the time is up.
        at: Instant,
    },
    /// No deadline runs in match `match_id`.
    ClearDeadline {
        /// The match.
        match_id: i64,
    },
    /// Wake whoever waits on a change of `tournament` (the long-poll).
    Bump {
        /// The tournament.
        tournament: i64,
    },
    /// Game `game` of `tournament` (match `match_id`) ended: read its
    /// status and result and send them as a `game_over` event.
    GameOver {
        /// The tournament.
        tournament: i64,
        /// The game's number.
        game: usize,
        /// Its match.
        match_id: i64,
    },
    /// Send the standings of `tournament` on its event stream (if anyone
    /// listens: they are read for it).
    Standings {
        /// The tournament.
        tournament: i64,
    },
    /// Start the games of `tournament` that can start, and tell its end when
    /// none is left (a write; what it started comes back to
    /// [`Referee::scheduled`]).
    Schedule {
        /// The tournament.
        tournament: i64,
    },
    /// The deadline of `seat` in the game `tracked` passed at `version`:
    /// play its timeout (the greedy bot's move, or a forfeit), unless the
    /// match moved on since.
    FireTimeout {
        /// The game.
        tracked: Tracked,
        /// The match's version the deadline was set for.
        version: i64,
        /// The open seat to move.
        seat: usize,
    },
    /// Kick the bots of match `match_id` (nothing happens if no bot is to
    /// move).
    Kick {
        /// The match.
        match_id: i64,
    },
    /// Read match `match_id` at the next turn of the director's loop (its
    /// first deadline, its moves so far).
    ReadGame {
        /// The match.
        match_id: i64,
    },
    /// Read tournament `tournament` at the next turn of the director's loop
    /// (its new status).
    ReadTournament {
        /// The tournament.
        tournament: i64,
    },
}

/// A game the referee follows.
#[derive(Clone, Debug)]
struct Game {
    tracked: Tracked,
    /// Plies already sent as events.
    seen_ply: u32,
    /// Timeouts already sent as events (whichever replica played them), as
    /// (ply, seat).
    told_timeouts: HashSet<(u32, usize)>,
    /// The version its deadline was set for.
    version: i64,
    /// The open seat to move and when its time is up.
    deadline: Option<(usize, Instant)>,
    /// A timeout is being played: do not fire again until the game is read.
    timing_out: bool,
    /// When its version last changed here (or it was kicked for standing
    /// still): see [`STALL`].
    moved_at: Instant,
}

/// The director's state and decisions: see the [module](self).
#[derive(Debug)]
pub struct Referee {
    /// Several replicas share the database.
    shared: bool,
    /// The games followed, by match.
    games: BTreeMap<i64, Game>,
    /// With several replicas: the games over and told (never adopted
    /// again), the matches known not to be tournament games, the version
    /// of every tournament last told, and when to reconcile next.
    done: HashSet<i64>,
    plain: HashSet<i64>,
    told_versions: HashMap<i64, i64>,
    next_sweep: Instant,
}

impl Referee {
    /// A referee following no game yet; with several replicas (`shared`),
    /// its first sweep [`STALL`]/2 after `now`.
    pub fn new(shared: bool, now: Instant) -> Referee {
        Referee {
            shared,
            games: BTreeMap::new(),
            done: HashSet::new(),
            plain: HashSet::new(),
            told_versions: HashMap::new(),
            next_sweep: now + STALL / 2,
        }
    }

    /// Whether several replicas share the database.
    pub fn is_shared(&self) -> bool {
        self.shared
    }

    /// Whether match `match_id` is a game followed.
    pub fn follows(&self, match_id: i64) -> bool {
        self.games.contains_key(&match_id)
    }

    /// The matches followed, in order.
    pub fn followed(&self) -> Vec<i64> {
        self.games.keys().copied().collect()
    }

    /// The tournaments of the games followed, in order, once each.
    pub fn followed_tournaments(&self) -> Vec<i64> {
        let mut ids: Vec<i64> = self
            .games
            .values()
            .map(|game| game.tracked.tournament)
            .collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    }

    /// What to read of followed match `match_id`: its game, and the ply
    /// from which its moves are new.
    pub fn to_read(&self, match_id: i64) -> Option<(Tracked, u32)> {
        self.games
            .get(&match_id)
            .map(|game| (game.tracked.clone(), game.seen_ply))
    }

    /// Follows `tracked` from `now` on, its first `seen_ply` plies and the
    /// `told_timeouts` (ply, seat) already told, or never to be told: a
    /// game under way resumed at a start. Its deadline is set when it is
    /// next read ([`Referee::on_progress`]): a full `move_ms` from then.
    pub fn follow(
        &mut self,
        tracked: Tracked,
        seen_ply: u32,
        told_timeouts: HashSet<(u32, usize)>,
        now: Instant,
    ) {
        let match_id = tracked.match_id;
        self.games.insert(
            match_id,
            Game {
                tracked,
                seen_ply,
                told_timeouts,
                version: 0,
                deadline: None,
                timing_out: false,
                moved_at: now,
            },
        );
    }

    /// Follows `tracked`, a game just started (here or by another replica),
    /// from its first ply: the effects announce it (`game_started`).
    pub fn follow_new(&mut self, tracked: Tracked, now: Instant) -> Vec<Effect> {
        let announce = Effect::Emit {
            tournament: tracked.tournament,
            event: started(&tracked),
        };
        self.follow(tracked, 0, HashSet::new(), now);
        vec![announce]
    }

    /// With several replicas, whether a change of match `match_id` may be
    /// a game another replica started, to read: it is not followed, not a
    /// game over and told, not known to be a plain match. Never with one
    /// replica (it starts every game itself).
    pub fn may_adopt(&self, match_id: i64) -> bool {
        self.shared
            && !self.games.contains_key(&match_id)
            && !self.done.contains(&match_id)
            && !self.plain.contains(&match_id)
    }

    /// Match `match_id` is not a tournament game: never read as one again.
    pub fn not_a_game(&mut self, match_id: i64) {
        self.plain.insert(match_id);
    }

    /// The games of a tournament under way as read (several replicas):
    /// those neither followed nor over and told (another replica started
    /// them) are announced, followed and read.
    pub fn started_elsewhere(&mut self, games: Vec<Tracked>, now: Instant) -> Vec<Effect> {
        let mut effects = Vec::new();
        for tracked in games {
            let match_id = tracked.match_id;
            if self.games.contains_key(&match_id) || self.done.contains(&match_id) {
                continue;
            }
            effects.extend(self.follow_new(tracked, now));
            effects.push(Effect::ReadGame { match_id });
        }
        effects
    }

    /// The games of `tournament` this director just `started`, and whether
    /// it `finished` (no game left): each started game announced, followed,
    /// its bots kicked and read; a finished tournament's standings sent and
    /// the tournament read.
    pub fn scheduled(
        &mut self,
        tournament: i64,
        started: Vec<Tracked>,
        finished: bool,
        now: Instant,
    ) -> Vec<Effect> {
        let mut effects = Vec::new();
        for tracked in started {
            let match_id = tracked.match_id;
            effects.extend(self.follow_new(tracked, now));
            effects.push(Effect::Kick { match_id });
            // Read at the next turn of the loop: its first deadline.
            effects.push(Effect::ReadGame { match_id });
        }
        if finished {
            effects.push(Effect::Standings { tournament });
            effects.push(Effect::ReadTournament { tournament });
        }
        effects
    }

    /// With several replicas, tournament `tournament` was told at
    /// `version`: answers the version told before, if any. With one
    /// replica nothing is kept (it never reconciles).
    pub fn tournament_told(&mut self, tournament: i64, version: i64) -> Option<i64> {
        if self.shared {
            self.told_versions.insert(tournament, version)
        } else {
            None
        }
    }

    /// Followed match `match_id` as read at `now` (`progress`, from the
    /// ply [`Referee::to_read`] gave): its new moves and timeouts told, in
    /// order; if it ended, no longer followed and its end told; else its
    /// deadline set, kept or cleared. Nothing for a game not followed.
    pub fn on_progress(
        &mut self,
        match_id: i64,
        progress: &GameProgress,
        now: Instant,
    ) -> Vec<Effect> {
        let Some(game) = self.games.get_mut(&match_id) else {
            return Vec::new();
        };
        let tracked = &game.tracked;
        let tournament = tracked.tournament;
        let mut effects = Vec::new();
        for stored in &progress.moves {
            tell_timeouts_before(
                tracked,
                progress,
                &mut game.told_timeouts,
                stored.ply + 1,
                &mut effects,
            );
            effects.push(Effect::Emit {
                tournament,
                event: GameEvent::Move {
                    game: tracked.game,
                    match_id,
                    ply: stored.ply,
                    seat: stored.seat,
                    entrant: tracked.entrants.get(stored.seat).copied().unwrap_or(0),
                    text: stored.path.clone(),
                },
            });
        }
        tell_timeouts_before(
            tracked,
            progress,
            &mut game.told_timeouts,
            u32::MAX,
            &mut effects,
        );
        if let Some(last) = progress.moves.last() {
            game.seen_ply = last.ply + 1;
        }
        game.timing_out = false;
        let changed = game.version != progress.version || !progress.moves.is_empty();
        if progress.status != MatchStatus::InProgress {
            let number = game.tracked.game;
            self.games.remove(&match_id);
            if self.shared {
                self.done.insert(match_id);
            }
            effects.extend([
                Effect::ClearDeadline { match_id },
                Effect::GameOver {
                    tournament,
                    game: number,
                    match_id,
                },
                Effect::Standings { tournament },
                Effect::Bump { tournament },
                Effect::Schedule { tournament },
            ]);
            return effects;
        }
        match progress.open_to_move {
            Some(seat) if game.version != progress.version || game.deadline.is_none() => {
                // An absent or withdrawn entrant's turn gets no time: it is
                // forfeited at once.
                let time = if progress.gone_to_move {
                    0
                } else {
                    game.tracked.move_ms
                };
                let at = now + Duration::from_millis(u64::from(time));
                game.deadline = Some((seat, at));
                effects.push(Effect::SetDeadline {
                    match_id,
                    ply: progress.ply,
                    at,
                });
            }
            Some(_) => {}
            None => {
                game.deadline = None;
                effects.push(Effect::ClearDeadline { match_id });
            }
        }
        if game.version != progress.version {
            game.moved_at = now;
        }
        game.version = progress.version;
        if changed {
            effects.push(Effect::Bump { tournament });
        }
        effects
    }

    /// A timeout to play for every game whose deadline has passed at
    /// `now` and is not being played already; each fires once, until the
    /// game is read again ([`Referee::on_progress`]).
    pub fn due(&mut self, now: Instant) -> Vec<Effect> {
        let mut effects = Vec::new();
        for game in self.games.values_mut() {
            let Some((seat, at)) = game.deadline else {
                continue;
            };
            if game.timing_out || at > now {
                continue;
            }
            game.timing_out = true;
            effects.push(Effect::FireTimeout {
                tracked: game.tracked.clone(),
                version: game.version,
                seat,
            });
        }
        effects
    }

    /// When the director must wake without being told anything: the
    /// earliest deadline not being played and, with several replicas, the
    /// next sweep.
    pub fn next_wake(&self) -> Option<Instant> {
        let deadline = self
            .games
            .values()
            .filter(|game| !game.timing_out)
            .filter_map(|game| game.deadline.map(|(_, at)| at))
            .min();
        let sweep = self.shared.then_some(self.next_sweep);
        match (deadline, sweep) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// With several replicas, whether a sweep is due at `now` (the
    /// director then reads every running tournament and followed game
    /// again, and calls [`Referee::sweep`]). Never with one replica.
    pub fn sweep_due(&self, now: Instant) -> bool {
        self.shared && now >= self.next_sweep
    }

    /// A sweep done at `now`: kicks the bots of every followed game that
    /// has stood still for [`STALL`] (a kick where no bot is to move does
    /// nothing), counting its stillness anew; the next sweep [`STALL`]/2
    /// later.
    pub fn sweep(&mut self, now: Instant) -> Vec<Effect> {
        let mut effects = Vec::new();
        for (&match_id, game) in &mut self.games {
            if now.saturating_duration_since(game.moved_at) >= STALL {
                game.moved_at = now;
                effects.push(Effect::Kick { match_id });
            }
        }
        self.next_sweep = now + STALL / 2;
        effects
    }

    /// Tournament `tournament` is over: its games are no longer followed,
    /// their deadlines cleared (with several replicas, remembered as over,
    /// so that a later notification of their end does not adopt them).
    pub fn tournament_over(&mut self, tournament: i64) -> Vec<Effect> {
        let over: Vec<i64> = self
            .games
            .iter()
            .filter(|(_, game)| game.tracked.tournament == tournament)
            .map(|(&match_id, _)| match_id)
            .collect();
        let mut effects = Vec::new();
        for match_id in over {
            self.games.remove(&match_id);
            effects.push(Effect::ClearDeadline { match_id });
            if self.shared {
                self.done.insert(match_id);
            }
        }
        effects
    }
}

/// The `game_started` event of `tracked`.
fn started(tracked: &Tracked) -> GameEvent {
    GameEvent::GameStarted {
        game: tracked.game,
        match_id: tracked.match_id,
        seats: tracked
            .entrants
            .iter()
            .zip(&tracked.names)
            .enumerate()
            .map(|(seat, (&entrant, name))| EventSeat {
                seat,
                entrant,
                name: name.clone(),
            })
            .collect(),
    }
}

/// Tells every timeout of `progress` at a ply before `ply` not yet `told`
/// (a timeout at a ply is told before that ply's move, the move the server
/// played for the entrant, as it happened; each once).
fn tell_timeouts_before(
    tracked: &Tracked,
    progress: &GameProgress,
    told: &mut HashSet<(u32, usize)>,
    ply: u32,
    effects: &mut Vec<Effect>,
) {
    for &(at, seat) in &progress.timeouts {
        if at >= ply || !told.insert((at, seat)) {
            continue;
        }
        // A seat times out at most once per ply: its count so far.
        let timeouts = progress
            .timeouts
            .iter()
            .filter(|&&(p, s)| s == seat && p <= at)
            .count();
        let timeouts = u32::try_from(timeouts).unwrap_or(u32::MAX);
        effects.push(Effect::Emit {
            tournament: tracked.tournament,
            event: GameEvent::Timeout {
                game: tracked.game,
                match_id: tracked.match_id,
                ply: at,
                seat,
                entrant: tracked.entrants.get(seat).copied().unwrap_or(0),
                timeouts,
                forfeited: timeouts >= tracked.max_timeouts
                    || progress.forfeits.contains(&(at, seat)),
            },
        });
    }
}

#[cfg(test)]
mod tests {
    //! Virtual time: every `now` is a base instant plus an offset; nothing
    //! sleeps.

    use super::*;
    use crate::matches::storage::MoveRow;

    const MOVE_MS: u32 = 1000;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    /// Game `match_id` of tournament `tournament`: entrant `10 + seat` on
    /// every seat, open where `open` says.
    fn tracked(tournament: i64, match_id: i64, open: &[bool]) -> Tracked {
        Tracked {
            tournament,
            game: usize::try_from(match_id).unwrap(),
            match_id,
            entrants: (0..open.len()).map(|seat| 10 + seat).collect(),
            names: (0..open.len()).map(|seat| format!("e{seat}")).collect(),
            open: open.to_vec(),
            move_ms: MOVE_MS,
            max_timeouts: 2,
        }
    }

    /// A game in progress at `version` after `ply` plies, seat `to_move`
    /// open to move (if any), with the `moves` (ply, seat) read and the
    /// game's `timeouts` (ply, seat).
    fn progress(
        version: i64,
        ply: u32,
        open_to_move: Option<usize>,
        moves: &[(u32, usize)],
        timeouts: &[(u32, usize)],
    ) -> GameProgress {
        GameProgress {
            version,
            ply,
            status: MatchStatus::InProgress,
            moves: moves
                .iter()
                .map(|&(ply, seat)| MoveRow {
                    ply,
                    seat,
                    path: format!("m{ply}"),
                    played_at: jiff::Timestamp::UNIX_EPOCH,
                })
                .collect(),
            open_to_move,
            timeouts: timeouts.to_vec(),
            forfeits: Vec::new(),
            gone_to_move: false,
        }
    }

    /// The effects, shortly, times as milliseconds after `t0`.
    fn show(effects: &[Effect], t0: Instant) -> Vec<String> {
        let at = |at: &Instant| at.duration_since(t0).as_millis();
        effects
            .iter()
            .map(|effect| match effect {
                Effect::Emit { tournament, event } => match event {
                    GameEvent::GameStarted { match_id, seats, .. } => {
                        format!("t{tournament} started {match_id} seats {}", seats.len())
                    }
                    GameEvent::Move {
                        match_id,
                        ply,
                        seat,
                        entrant,
                        text,
                        ..
                    } => format!("t{tournament} move {match_id} ply {ply} seat {seat} e{entrant} {text}"),
                    GameEvent::Timeout {
                        match_id,
                        ply,
                        seat,
                        entrant,
                        timeouts,
                        forfeited,
                        ..
                    } => format!(
                        "t{tournament} timeout {match_id} ply {ply} seat {seat} e{entrant} #{timeouts}{}",
                        if *forfeited { " forfeited" } else { "" }
                    ),
                },
                Effect::SetDeadline { match_id, ply, at: when } => {
                    format!("deadline {match_id} ply {ply} at {}", at(when))
                }
                Effect::ClearDeadline { match_id } => format!("clear {match_id}"),
                Effect::Bump { tournament } => format!("bump t{tournament}"),
                Effect::GameOver {
                    tournament,
                    game,
                    match_id,
                } => format!("t{tournament} game over {game} match {match_id}"),
                Effect::Standings { tournament } => format!("standings t{tournament}"),
                Effect::Schedule { tournament } => format!("schedule t{tournament}"),
                Effect::FireTimeout {
                    tracked,
                    version,
                    seat,
                } => format!("fire {} v{version} seat {seat}", tracked.match_id),
                Effect::Kick { match_id } => format!("kick {match_id}"),
                Effect::ReadGame { match_id } => format!("read {match_id}"),
                Effect::ReadTournament { tournament } => format!("read t{tournament}"),
            })
            .collect()
    }

    /// A referee following game 7 of tournament 1 (seat 0 open, seat 1 a
    /// bot) from `t0`.
    fn following(shared: bool, t0: Instant) -> Referee {
        let mut referee = Referee::new(shared, t0);
        referee.follow(tracked(1, 7, &[true, false]), 0, HashSet::new(), t0);
        referee
    }

    #[test]
    fn a_deadline_is_set_move_ms_after_now_when_an_open_seat_is_to_move() {
        let t0 = Instant::now();
        let mut referee = following(false, t0);
        let effects = referee.on_progress(7, &progress(1, 0, Some(0), &[], &[]), t0 + ms(5));
        assert_eq!(show(&effects, t0), ["deadline 7 ply 0 at 1005", "bump t1"]);
        assert_eq!(referee.next_wake(), Some(t0 + ms(1005)));
    }

    // An absent (or withdrawn) entrant's turn gets no time: its deadline
    // is now, and its timeout (a forfeit, as the write decides) fires at
    // once; the same game's next turn, the entrant back, gets its time.
    #[test]
    fn an_absent_entrants_turn_is_due_at_once() {
        let t0 = Instant::now();
        let mut referee = following(false, t0);
        let gone = GameProgress {
            gone_to_move: true,
            ..progress(1, 0, Some(0), &[], &[])
        };
        let effects = referee.on_progress(7, &gone, t0 + ms(5));
        assert_eq!(show(&effects, t0), ["deadline 7 ply 0 at 5", "bump t1"]);
        assert_eq!(show(&referee.due(t0 + ms(5)), t0), ["fire 7 v1 seat 0"]);
        let back = referee.on_progress(7, &progress(2, 1, Some(0), &[], &[]), t0 + ms(10));
        assert_eq!(show(&back, t0), ["deadline 7 ply 1 at 1010", "bump t1"]);
    }

    #[test]
    fn no_deadline_when_a_bot_is_to_move() {
        let t0 = Instant::now();
        let mut referee = following(false, t0);
        let effects = referee.on_progress(7, &progress(2, 1, None, &[(0, 0)], &[]), t0);
        assert_eq!(
            show(&effects, t0),
            ["t1 move 7 ply 0 seat 0 e10 m0", "clear 7", "bump t1"]
        );
        assert_eq!(referee.next_wake(), None);
        assert!(referee.due(t0 + Duration::from_secs(3600)).is_empty());
    }

    #[test]
    fn the_bots_turn_clears_the_open_seats_deadline() {
        let t0 = Instant::now();
        let mut referee = following(false, t0);
        referee.on_progress(7, &progress(1, 0, Some(0), &[], &[]), t0);
        let effects = referee.on_progress(7, &progress(2, 1, None, &[(0, 0)], &[]), t0 + ms(200));
        assert_eq!(
            show(&effects, t0),
            ["t1 move 7 ply 0 seat 0 e10 m0", "clear 7", "bump t1"]
        );
        assert_eq!(referee.next_wake(), None);
        assert!(referee.due(t0 + ms(5000)).is_empty());
    }

    #[test]
    fn the_deadline_is_kept_on_progress_at_the_same_version() {
        let t0 = Instant::now();
        let mut referee = following(false, t0);
        referee.on_progress(7, &progress(1, 0, Some(0), &[], &[]), t0);
        let effects = referee.on_progress(7, &progress(1, 0, Some(0), &[], &[]), t0 + ms(400));
        assert!(effects.is_empty(), "{:?}", show(&effects, t0));
        assert_eq!(referee.next_wake(), Some(t0 + ms(1000)));
        assert_eq!(show(&referee.due(t0 + ms(1000)), t0), ["fire 7 v1 seat 0"]);
    }

    #[test]
    fn a_new_version_gives_a_fresh_deadline() {
        let t0 = Instant::now();
        let mut referee = Referee::new(false, t0);
        referee.follow(tracked(1, 7, &[true, true]), 0, HashSet::new(), t0);
        referee.on_progress(7, &progress(1, 0, Some(0), &[], &[]), t0);
        let effects =
            referee.on_progress(7, &progress(2, 1, Some(1), &[(0, 0)], &[]), t0 + ms(300));
        assert_eq!(
            show(&effects, t0),
            [
                "t1 move 7 ply 0 seat 0 e10 m0",
                "deadline 7 ply 1 at 1300",
                "bump t1"
            ]
        );
        assert!(referee.due(t0 + ms(1299)).is_empty());
        assert_eq!(show(&referee.due(t0 + ms(1300)), t0), ["fire 7 v2 seat 1"]);
    }

    #[test]
    fn a_deadline_fires_once_at_its_time_and_again_only_after_progress() {
        let t0 = Instant::now();
        let mut referee = following(false, t0);
        referee.on_progress(7, &progress(1, 0, Some(0), &[], &[]), t0);
        assert!(referee.due(t0).is_empty());
        assert!(referee.due(t0 + ms(999)).is_empty());
        assert_eq!(show(&referee.due(t0 + ms(1000)), t0), ["fire 7 v1 seat 0"]);
        // Being played: neither fired again nor waited for.
        assert!(referee.due(t0 + ms(1001)).is_empty());
        assert!(referee.due(t0 + ms(60_000)).is_empty());
        assert_eq!(referee.next_wake(), None);
        // The timeout was not stored (the game read again unchanged): the
        // deadline, passed, fires again.
        let effects = referee.on_progress(7, &progress(1, 0, Some(0), &[], &[]), t0 + ms(2000));
        assert!(effects.is_empty(), "{:?}", show(&effects, t0));
        assert_eq!(referee.next_wake(), Some(t0 + ms(1000)));
        assert_eq!(show(&referee.due(t0 + ms(2000)), t0), ["fire 7 v1 seat 0"]);
        // The timeout stored: told, and the next turn (a bot's) waited for.
        let effects = referee.on_progress(
            7,
            &progress(2, 1, None, &[(0, 0)], &[(0, 0)]),
            t0 + ms(2100),
        );
        assert_eq!(
            show(&effects, t0),
            [
                "t1 timeout 7 ply 0 seat 0 e10 #1",
                "t1 move 7 ply 0 seat 0 e10 m0",
                "clear 7",
                "bump t1"
            ]
        );
        assert!(referee.due(t0 + ms(60_000)).is_empty());
    }

    #[test]
    fn a_late_entrant_gets_a_fresh_deadline_after_its_timeout_move() {
        let t0 = Instant::now();
        let mut referee = Referee::new(false, t0);
        // Two open seats: after seat 0's timeout, seat 1 is to move.
        referee.follow(tracked(1, 7, &[true, true]), 0, HashSet::new(), t0);
        referee.on_progress(7, &progress(1, 0, Some(0), &[], &[]), t0);
        assert_eq!(show(&referee.due(t0 + ms(1000)), t0), ["fire 7 v1 seat 0"]);
        let effects = referee.on_progress(
            7,
            &progress(2, 1, Some(1), &[(0, 0)], &[(0, 0)]),
            t0 + ms(1010),
        );
        assert_eq!(
            show(&effects, t0),
            [
                "t1 timeout 7 ply 0 seat 0 e10 #1",
                "t1 move 7 ply 0 seat 0 e10 m0",
                "deadline 7 ply 1 at 2010",
                "bump t1"
            ]
        );
        assert_eq!(referee.next_wake(), Some(t0 + ms(2010)));
        assert!(referee.due(t0 + ms(2009)).is_empty());
        assert_eq!(show(&referee.due(t0 + ms(2010)), t0), ["fire 7 v2 seat 1"]);
    }

    #[test]
    fn timeouts_are_told_once_each_in_order_before_their_plys_move() {
        let t0 = Instant::now();
        let mut referee = Referee::new(false, t0);
        referee.follow(tracked(1, 7, &[true, true]), 0, HashSet::new(), t0);
        // Seat 0 timed out at plies 0 and 2 (its second: forfeited, as
        // max_timeouts is 2), seat 1 at ply 1.
        let read = progress(
            4,
            3,
            Some(1),
            &[(0, 0), (1, 1), (2, 0)],
            &[(0, 0), (1, 1), (2, 0)],
        );
        let effects = referee.on_progress(7, &read, t0);
        assert_eq!(
            show(&effects, t0),
            [
                "t1 timeout 7 ply 0 seat 0 e10 #1",
                "t1 move 7 ply 0 seat 0 e10 m0",
                "t1 timeout 7 ply 1 seat 1 e11 #1",
                "t1 move 7 ply 1 seat 1 e11 m1",
                "t1 timeout 7 ply 2 seat 0 e10 #2 forfeited",
                "t1 move 7 ply 2 seat 0 e10 m2",
                "deadline 7 ply 3 at 1000",
                "bump t1"
            ]
        );
        // Read again (from ply 3): nothing told twice.
        assert_eq!(referee.to_read(7).map(|(_, since)| since), Some(3));
        let effects = referee.on_progress(7, &progress(4, 3, Some(1), &[], &read.timeouts), t0);
        assert!(effects.is_empty(), "{:?}", show(&effects, t0));
    }

    #[test]
    fn a_timeout_without_a_move_is_told_after_the_moves() {
        let t0 = Instant::now();
        let mut referee = following(false, t0);
        referee.on_progress(7, &progress(1, 0, Some(0), &[], &[]), t0);
        // Read before the moves: a timeout at ply 2 (no move stored there)
        // comes after ply 1's move, and is told once.
        let timeouts = [(0, 0), (2, 0)];
        let effects = referee.on_progress(
            7,
            &progress(3, 2, Some(0), &[(0, 0), (1, 1)], &timeouts),
            t0 + ms(10),
        );
        assert_eq!(
            show(&effects, t0),
            [
                "t1 timeout 7 ply 0 seat 0 e10 #1",
                "t1 move 7 ply 0 seat 0 e10 m0",
                "t1 move 7 ply 1 seat 1 e11 m1",
                "t1 timeout 7 ply 2 seat 0 e10 #2 forfeited",
                "deadline 7 ply 2 at 1010",
                "bump t1"
            ]
        );
        let effects = referee.on_progress(7, &progress(3, 2, Some(0), &[], &timeouts), t0 + ms(20));
        assert!(effects.is_empty(), "{:?}", show(&effects, t0));
    }

    #[test]
    fn a_finished_game_is_told_over_and_no_longer_followed() {
        let t0 = Instant::now();
        let mut referee = following(false, t0);
        referee.on_progress(7, &progress(1, 0, Some(0), &[], &[]), t0);
        let mut over = progress(2, 1, None, &[(0, 0)], &[]);
        over.status = MatchStatus::Finished;
        let effects = referee.on_progress(7, &over, t0 + ms(10));
        assert_eq!(
            show(&effects, t0),
            [
                "t1 move 7 ply 0 seat 0 e10 m0",
                "clear 7",
                "t1 game over 7 match 7",
                "standings t1",
                "bump t1",
                "schedule t1"
            ]
        );
        assert!(!referee.follows(7));
        assert_eq!(referee.next_wake(), None);
        assert!(referee.due(t0 + ms(60_000)).is_empty());
        assert!(referee.on_progress(7, &over, t0 + ms(20)).is_empty());
        // One replica never adopts a game.
        assert!(!referee.may_adopt(7));
    }

    #[test]
    fn an_abandoned_game_with_several_replicas_is_not_adopted_again() {
        let t0 = Instant::now();
        let mut referee = following(true, t0);
        let mut over = progress(2, 0, None, &[], &[]);
        over.status = MatchStatus::Abandoned;
        let effects = referee.on_progress(7, &over, t0);
        assert_eq!(
            show(&effects, t0),
            [
                "clear 7",
                "t1 game over 7 match 7",
                "standings t1",
                "bump t1",
                "schedule t1"
            ]
        );
        assert!(!referee.may_adopt(7));
        assert!(referee.may_adopt(8));
        // Nor followed when its tournament is read again.
        let effects = referee.started_elsewhere(vec![tracked(1, 7, &[true, false])], t0);
        assert!(effects.is_empty(), "{:?}", show(&effects, t0));
    }

    #[test]
    fn next_wake_is_the_earliest_deadline_not_being_played() {
        let t0 = Instant::now();
        let mut referee = Referee::new(false, t0);
        referee.follow(tracked(1, 7, &[true, false]), 0, HashSet::new(), t0);
        referee.follow(tracked(1, 8, &[true, false]), 0, HashSet::new(), t0);
        referee.follow(tracked(1, 9, &[false, false]), 0, HashSet::new(), t0);
        assert_eq!(referee.next_wake(), None);
        referee.on_progress(8, &progress(1, 0, Some(0), &[], &[]), t0 + ms(300));
        referee.on_progress(7, &progress(1, 0, Some(0), &[], &[]), t0 + ms(500));
        referee.on_progress(9, &progress(1, 0, None, &[], &[]), t0 + ms(100));
        assert_eq!(referee.next_wake(), Some(t0 + ms(1300)));
        assert_eq!(show(&referee.due(t0 + ms(1300)), t0), ["fire 8 v1 seat 0"]);
        assert_eq!(referee.next_wake(), Some(t0 + ms(1500)));
        assert_eq!(show(&referee.due(t0 + ms(1500)), t0), ["fire 7 v1 seat 0"]);
        assert_eq!(referee.next_wake(), None);
    }

    #[test]
    fn with_several_replicas_next_wake_includes_the_sweep() {
        let t0 = Instant::now();
        let mut referee = following(true, t0);
        assert_eq!(referee.next_wake(), Some(t0 + STALL / 2));
        referee.on_progress(7, &progress(1, 0, Some(0), &[], &[]), t0);
        assert_eq!(referee.next_wake(), Some(t0 + ms(1000)));
        assert!(!referee.sweep_due(t0 + STALL / 2 - ms(1)));
        assert!(referee.sweep_due(t0 + STALL / 2));
        referee.sweep(t0 + ms(5500));
        assert_eq!(referee.next_wake(), Some(t0 + ms(1000)));
        referee.due(t0 + ms(1000));
        assert_eq!(referee.next_wake(), Some(t0 + ms(5500) + STALL / 2));
        // One replica never sweeps.
        let single = following(false, t0);
        assert_eq!(single.next_wake(), None);
        assert!(!single.sweep_due(t0 + Duration::from_secs(3600)));
    }

    #[test]
    fn a_game_standing_still_for_stall_is_kicked_and_one_that_moved_is_not() {
        let t0 = Instant::now();
        let mut referee = Referee::new(true, t0);
        referee.follow(tracked(1, 7, &[false, false]), 0, HashSet::new(), t0);
        referee.follow(tracked(1, 8, &[false, false]), 0, HashSet::new(), t0);
        referee.on_progress(7, &progress(1, 0, None, &[], &[]), t0);
        referee.on_progress(8, &progress(1, 0, None, &[], &[]), t0);
        // Game 8 moves at 8 s; game 7 stands still.
        referee.on_progress(8, &progress(2, 1, None, &[(0, 0)], &[]), t0 + ms(8000));
        assert!(referee.sweep(t0 + STALL - ms(1)).is_empty());
        assert_eq!(show(&referee.sweep(t0 + STALL), t0), ["kick 7"]);
        // Kicked: still again only STALL later.
        assert!(referee.sweep(t0 + ms(15_000)).is_empty());
        assert_eq!(show(&referee.sweep(t0 + ms(18_000)), t0), ["kick 8"]);
        assert_eq!(show(&referee.sweep(t0 + ms(20_000)), t0), ["kick 7"]);
        // A read at the same version is no move.
        referee.on_progress(8, &progress(2, 1, None, &[], &[]), t0 + ms(27_000));
        assert_eq!(show(&referee.sweep(t0 + ms(28_000)), t0), ["kick 8"]);
    }

    #[test]
    fn a_game_resumed_at_a_start_gets_a_full_move_ms_from_then() {
        let t0 = Instant::now();
        let mut referee = Referee::new(false, t0);
        // Stored: 5 plies, a timeout of seat 0 at ply 2 (told before the
        // restart, or never to be).
        let told: HashSet<(u32, usize)> = [(2, 0)].into_iter().collect();
        referee.follow(tracked(1, 7, &[true, false]), 5, told, t0);
        assert_eq!(referee.to_read(7).map(|(_, since)| since), Some(5));
        let effects = referee.on_progress(7, &progress(9, 5, Some(0), &[], &[(2, 0)]), t0 + ms(40));
        assert_eq!(show(&effects, t0), ["deadline 7 ply 5 at 1040", "bump t1"]);
        assert!(referee.due(t0 + ms(1039)).is_empty());
        assert_eq!(show(&referee.due(t0 + ms(1040)), t0), ["fire 7 v9 seat 0"]);
    }

    #[test]
    fn a_tournament_over_clears_its_games_deadlines() {
        let t0 = Instant::now();
        let mut referee = Referee::new(true, t0);
        referee.follow(tracked(1, 7, &[true, false]), 0, HashSet::new(), t0);
        referee.follow(tracked(1, 8, &[true, false]), 0, HashSet::new(), t0);
        referee.follow(tracked(2, 9, &[true, false]), 0, HashSet::new(), t0);
        for id in [7, 8, 9] {
            referee.on_progress(id, &progress(1, 0, Some(0), &[], &[]), t0);
        }
        assert_eq!(referee.followed_tournaments(), [1, 2]);
        let effects = referee.tournament_over(1);
        assert_eq!(show(&effects, t0), ["clear 7", "clear 8"]);
        assert_eq!(referee.followed(), [9]);
        assert_eq!(show(&referee.due(t0 + ms(1000)), t0), ["fire 9 v1 seat 0"]);
        // Its games' end, notified later, adopts nothing.
        assert!(!referee.may_adopt(7) && !referee.may_adopt(8));
        assert!(referee.tournament_over(1).is_empty());
    }

    #[test]
    fn started_games_are_announced_kicked_and_read() {
        let t0 = Instant::now();
        let mut referee = Referee::new(false, t0);
        let effects = referee.scheduled(
            1,
            vec![tracked(1, 7, &[true, false]), tracked(1, 8, &[false, true])],
            false,
            t0,
        );
        assert_eq!(
            show(&effects, t0),
            [
                "t1 started 7 seats 2",
                "kick 7",
                "read 7",
                "t1 started 8 seats 2",
                "kick 8",
                "read 8"
            ]
        );
        assert_eq!(referee.followed(), [7, 8]);
        // No deadline before the game is read.
        assert_eq!(referee.next_wake(), None);
        let effects = referee.scheduled(1, Vec::new(), true, t0);
        assert_eq!(show(&effects, t0), ["standings t1", "read t1"]);
    }

    #[test]
    fn games_started_elsewhere_are_adopted_once() {
        let t0 = Instant::now();
        let mut referee = following(true, t0);
        let effects = referee.started_elsewhere(
            vec![tracked(1, 7, &[true, false]), tracked(1, 8, &[true, false])],
            t0,
        );
        assert_eq!(show(&effects, t0), ["t1 started 8 seats 2", "read 8"]);
        assert!(!referee.may_adopt(8));
        referee.not_a_game(20);
        assert!(!referee.may_adopt(20));
        assert!(referee.may_adopt(21));
        assert_eq!(
            show(&referee.follow_new(tracked(1, 21, &[true, false]), t0), t0),
            ["t1 started 21 seats 2"]
        );
        assert!(!referee.may_adopt(21));
    }

    #[test]
    fn tournament_versions_are_kept_with_several_replicas() {
        let t0 = Instant::now();
        let mut shared = Referee::new(true, t0);
        assert_eq!(shared.tournament_told(1, 3), None);
        assert_eq!(shared.tournament_told(1, 4), Some(3));
        let mut single = Referee::new(false, t0);
        assert_eq!(single.tournament_told(1, 3), None);
        assert_eq!(single.tournament_told(1, 4), None);
    }

    #[test]
    fn a_game_not_followed_decides_nothing() {
        let t0 = Instant::now();
        let mut referee = following(false, t0);
        assert!(
            referee
                .on_progress(8, &progress(1, 0, Some(0), &[], &[]), t0)
                .is_empty()
        );
        assert_eq!(referee.to_read(8).map(|(_, since)| since), None);
        assert_eq!(referee.followed(), [7]);
    }
}
