//! A tournament's standings, computed from its stored results: pure
//! functions, no database, no HTTP.
//!
//! # Scoring
//!
//! Every finished game is scored pairwise, seat against seat. For each pair
//! of seats in a game, the seat with the higher result beat the other (a win
//! for it, a loss for the other); equal results are a draw for both. A seat
//! earns [`Points::win`], [`Points::draw`] or [`Points::loss`] per opponent.
//! So in a 2-player game a win is worth one `win` (1 point with the
//! defaults), and in a `k`-player ranking game the first place earns
//! `(k-1)·win`: points by place fall out of the same rule (a 4-player game
//! ranked 1st, 2nd, 3rd, 4th gives 3, 2, 1, 0 with the defaults; two seats
//! sharing a place draw with each other). The `wins`, `draws` and `losses`
//! of a row count these pairwise results: for 2-player games, the usual
//! game wins, draws and losses.
//!
//! # Ratings
//!
//! Every entrant starts at the Weng-Lin default (mu 25, sigma 25/3). The
//! games are then taken in schedule order ([`FinishedGame::game`]; equal
//! indices in the order given) and each one updates the ratings of its
//! seats with skillratings' [`weng_lin_multi_team`], each seat a one-player
//! team, ranked by result (equal results share a rank), with the default
//! [`WengLinConfig`] (beta 25/6). An entrant without games keeps the
//! default.
//!
//! # Ranking
//!
//! Points descending, then rating descending, then entrant index. Entrants
//! equal on points and rating share a rank ("1, 1, 3").
//!
//! # Accuracy
//!
//! On a board a solved table covers (the game of RULES §7), each finished
//! game is judged against perfect play once, when its outcome is recorded
//! ([`Judged`], from `sternhalma::solve::analysis`): a move kept the
//! game-theoretic value (best or merely slower) or was a mistake. A row's
//! [`StandingRow::accuracy`] is the share of its judged moves that kept the
//! value, over all its judged games; `None` when none of its games was
//! judged (another board, or no table installed when the game ended).
//!
//! # Games that are not counted
//!
//! A game is skipped (and not counted in [`Standings::games_counted`]) when
//! it has fewer than two seats, when its per-seat lists differ in length,
//! when a seat names an entrant not in the list of entrants, when an entrant
//! sits more than once, or when a result is not a finite number. The caller
//! stores only well-formed games, so none of this is expected; it keeps a
//! bad record from breaking a whole table.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use skillratings::MultiTeamOutcome;
use skillratings::weng_lin::{WengLinConfig, WengLinRating, weng_lin_multi_team};

/// The name of the rating system, as [`Standings::rating_system`] gives it.
pub const RATING_SYSTEM: &str = "weng_lin";

/// An entrant as the standings show it.
#[derive(Clone, Debug)]
pub struct EntrantRef {
    /// The entrant's index in the tournament (what [`FinishedGame::entrants`]
    /// names).
    pub entrant: usize,
    /// Its display name.
    pub name: String,
    /// A built-in bot (else an open entrant, playing through its token).
    pub bot: bool,
}

/// One finished (not abandoned) game: who sat where and how each seat did.
#[derive(Clone, Debug)]
pub struct FinishedGame {
    /// The game's index in the schedule; ratings are updated in this order.
    pub game: usize,
    /// The entrant index of each seat, in seat order.
    pub entrants: Vec<usize>,
    /// Each seat's result: higher is better, equal values are a tie between
    /// those seats (`[1, -1]`, `[0, 0]`, `[1, 0, -1]`, `[1, 0.5, 0.5, -1]`).
    pub results: Vec<f64>,
    /// Each seat's timeouts recorded in this game.
    pub timeouts: Vec<u32>,
    /// Whether each seat forfeited this game (too many timeouts).
    pub forfeited: Vec<bool>,
    /// Each seat's moves judged against perfect play, when a table covered
    /// the game; `None` otherwise.
    pub judged: Option<Vec<Judged>>,
}

/// One seat's moves in one game, judged against perfect play (a solved
/// table's analysis of the game).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Judged {
    /// Moves it made.
    pub moves: u32,
    /// Moves that kept the value (best or slower).
    pub kept: u32,
    /// Moves that threw a win to a draw or a loss, or a draw to a loss.
    pub mistakes: u32,
}

/// A game under way, for the timeouts and forfeits so far: the standings
/// count them as they happen, not only once the game is over.
#[derive(Clone, Debug, PartialEq)]
pub struct LiveGame {
    /// The entrant index of each seat, in seat order.
    pub entrants: Vec<usize>,
    /// Each seat's timeouts so far.
    pub timeouts: Vec<u32>,
    /// Whether each seat has forfeited already.
    pub forfeited: Vec<bool>,
}

impl Standings {
    /// Adds the timeouts and forfeits of the games under way to the rows
    /// of their entrants (a game under way changes nothing else).
    pub fn count_live(&mut self, games: &[LiveGame]) {
        for game in games {
            for (seat, entrant) in game.entrants.iter().enumerate() {
                if let Some(row) = self.rows.iter_mut().find(|row| row.entrant == *entrant) {
                    row.timeouts += game.timeouts.get(seat).copied().unwrap_or(0);
                    row.forfeits += u32::from(game.forfeited.get(seat).copied().unwrap_or(false));
                }
            }
        }
    }
}

/// Points per opponent: a game is scored pairwise, seat against seat, and
/// each seat earns these for each other seat it beat, drew or lost to.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Points {
    /// For each opponent with a lower result; default 1.
    pub win: f64,
    /// For each opponent with an equal result; default 0.5.
    pub draw: f64,
    /// For each opponent with a higher result; default 0.
    pub loss: f64,
}

impl Default for Points {
    /// Win 1, draw 0.5, loss 0.
    fn default() -> Points {
        Points {
            win: 1.0,
            draw: 0.5,
            loss: 0.0,
        }
    }
}

/// A tournament's standings: the ranked table and the cross table.
#[derive(Clone, Debug, PartialEq)]
pub struct Standings {
    /// One row per entrant, ranked: points descending, then rating
    /// descending, then entrant index.
    pub rows: Vec<StandingRow>,
    /// One row per entrant, in entrant order: its results against each
    /// entrant it met.
    pub cross_table: Vec<CrossRow>,
    /// The finished games counted.
    pub games_counted: usize,
    /// The points per opponent used.
    pub points: Points,
    /// The rating system, [`RATING_SYSTEM`]: Weng-Lin (a Bayesian
    /// approximation like TrueSkill) as computed by the `skillratings`
    /// crate.
    pub rating_system: String,
}

/// One entrant's line of the standings.
#[derive(Clone, Debug, PartialEq)]
pub struct StandingRow {
    /// The rank, from 1; entrants equal on points and rating share a rank.
    pub rank: usize,
    /// The entrant's index in the tournament.
    pub entrant: usize,
    /// Its display name.
    pub name: String,
    /// A built-in bot (else an open entrant).
    pub bot: bool,
    /// Finished games it played.
    pub games: u32,
    /// Opponents it beat, counted pairwise per game (for 2-player games,
    /// games won).
    pub wins: u32,
    /// Opponents it drew with, counted pairwise per game.
    pub draws: u32,
    /// Opponents it lost to, counted pairwise per game.
    pub losses: u32,
    /// Its points: `wins·win + draws·draw + losses·loss`.
    pub points: f64,
    /// Timeouts recorded in its games, those under way included.
    pub timeouts: u32,
    /// Games it forfeited (too many timeouts), those under way included
    /// (with three or more players a game goes on without it).
    pub forfeits: u32,
    /// Its Weng-Lin rating (mu): the estimated skill, 25 at the start.
    pub rating: f64,
    /// The uncertainty of its rating (Weng-Lin sigma): 25/3 ≈ 8.333 at the
    /// start, smaller as it plays.
    pub uncertainty: f64,
    /// Its moves judged against perfect play: those of its finished games
    /// on a board a solved table covers (0 on other boards).
    pub judged_moves: u32,
    /// How many of them were mistakes: a win thrown to a draw or a loss, a
    /// draw to a loss.
    pub mistakes: u32,
    /// The share of its judged moves that kept the game-theoretic value
    /// (the best move, or a slower one that kept it), from 0 to 1; `None`
    /// when no move of its was judged.
    pub accuracy: Option<f64>,
}

/// One entrant's row of the cross table.
#[derive(Clone, Debug, PartialEq)]
pub struct CrossRow {
    /// The entrant's index in the tournament.
    pub entrant: usize,
    /// Its display name.
    pub name: String,
    /// One cell per other entrant that it met at least once, in entrant
    /// order.
    pub against: Vec<CrossCell>,
}

/// An entrant's results against one opponent.
#[derive(Clone, Debug, PartialEq)]
pub struct CrossCell {
    /// The opponent's entrant index.
    pub opponent: usize,
    /// Finished games both played in.
    pub games: u32,
    /// The points this entrant scored against that opponent in those games
    /// (pairwise).
    pub points: f64,
}

#[derive(Clone, Copy, Default)]
struct Tally {
    games: u32,
    wins: u32,
    draws: u32,
    losses: u32,
    points: f64,
    timeouts: u32,
    forfeits: u32,
    judged: Judged,
}

#[derive(Clone, Copy, Default)]
struct Meeting {
    games: u32,
    points: f64,
}

/// The standings of `entrants` after `games`, scored with `points` (see the
/// module documentation for the rules). Entrants are identified by
/// [`EntrantRef::entrant`]; a repeated index keeps its first entry.
pub fn compute(entrants: &[EntrantRef], games: &[FinishedGame], points: Points) -> Standings {
    let mut order: Vec<&EntrantRef> = entrants.iter().collect();
    order.sort_by_key(|e| e.entrant); // stable: the first of a repeated index stays first
    order.dedup_by_key(|e| e.entrant);
    let slot: BTreeMap<usize, usize> = order
        .iter()
        .enumerate()
        .map(|(slot, e)| (e.entrant, slot))
        .collect();
    let n = order.len();

    let mut counted: Vec<&FinishedGame> = games.iter().filter(|g| usable(g, &slot)).collect();
    counted.sort_by_key(|g| g.game); // stable: equal indices keep their order

    let mut tallies = vec![Tally::default(); n];
    let mut meetings = vec![vec![Meeting::default(); n]; n];
    let mut ratings = vec![WengLinRating::new(); n];
    let config = WengLinConfig::new();

    for game in &counted {
        let seats: Vec<usize> = game.entrants.iter().map(|e| slot[e]).collect();
        for (seat, &a) in seats.iter().enumerate() {
            let tally = &mut tallies[a];
            tally.games += 1;
            tally.timeouts += game.timeouts[seat];
            tally.forfeits += u32::from(game.forfeited[seat]);
            if let Some(judged) = game.judged.as_ref().and_then(|j| j.get(seat)) {
                tally.judged.moves += judged.moves;
                tally.judged.kept += judged.kept;
                tally.judged.mistakes += judged.mistakes;
            }
        }
        for i in 0..seats.len() {
            for j in i + 1..seats.len() {
                let (a, b) = (seats[i], seats[j]);
                let (to_a, to_b) = match game.results[i].total_cmp(&game.results[j]) {
                    Ordering::Greater => {
                        tallies[a].wins += 1;
                        tallies[b].losses += 1;
                        (points.win, points.loss)
                    }
                    Ordering::Less => {
                        tallies[a].losses += 1;
                        tallies[b].wins += 1;
                        (points.loss, points.win)
                    }
                    Ordering::Equal => {
                        tallies[a].draws += 1;
                        tallies[b].draws += 1;
                        (points.draw, points.draw)
                    }
                };
                tallies[a].points += to_a;
                tallies[b].points += to_b;
                meetings[a][b].games += 1;
                meetings[a][b].points += to_a;
                meetings[b][a].games += 1;
                meetings[b][a].points += to_b;
            }
        }
        let teams: Vec<[WengLinRating; 1]> = seats.iter().map(|&a| [ratings[a]]).collect();
        let ranked: Vec<(&[WengLinRating], MultiTeamOutcome)> = teams
            .iter()
            .zip(&game.results)
            .map(|(team, &result)| {
                let above = game.results.iter().filter(|&&r| r > result).count();
                (&team[..], MultiTeamOutcome::new(1 + above))
            })
            .collect();
        let updated = weng_lin_multi_team(&ranked, &config);
        for (&a, team) in seats.iter().zip(updated) {
            ratings[a] = team[0];
        }
    }

    let mut ranked: Vec<usize> = (0..n).collect();
    ranked.sort_by(|&a, &b| {
        tallies[b]
            .points
            .total_cmp(&tallies[a].points)
            .then(ratings[b].rating.total_cmp(&ratings[a].rating))
            .then(order[a].entrant.cmp(&order[b].entrant))
    });
    let mut rows: Vec<StandingRow> = Vec::with_capacity(n);
    for (place, &a) in ranked.iter().enumerate() {
        let rank = match rows.last() {
            Some(previous)
                if previous.points == tallies[a].points && previous.rating == ratings[a].rating =>
            {
                previous.rank
            }
            _ => place + 1,
        };
        let tally = tallies[a];
        rows.push(StandingRow {
            rank,
            entrant: order[a].entrant,
            name: order[a].name.clone(),
            bot: order[a].bot,
            games: tally.games,
            wins: tally.wins,
            draws: tally.draws,
            losses: tally.losses,
            points: tally.points,
            timeouts: tally.timeouts,
            forfeits: tally.forfeits,
            rating: ratings[a].rating,
            uncertainty: ratings[a].uncertainty,
            judged_moves: tally.judged.moves,
            mistakes: tally.judged.mistakes,
            accuracy: (tally.judged.moves > 0)
                .then(|| f64::from(tally.judged.kept) / f64::from(tally.judged.moves)),
        });
    }

    let cross_table = (0..n)
        .map(|a| CrossRow {
            entrant: order[a].entrant,
            name: order[a].name.clone(),
            against: (0..n)
                .filter(|&b| b != a && meetings[a][b].games > 0)
                .map(|b| CrossCell {
                    opponent: order[b].entrant,
                    games: meetings[a][b].games,
                    points: meetings[a][b].points,
                })
                .collect(),
        })
        .collect();

    Standings {
        rows,
        cross_table,
        games_counted: counted.len(),
        points,
        rating_system: RATING_SYSTEM.to_owned(),
    }
}

/// Whether `game` is counted (see the module documentation).
fn usable(game: &FinishedGame, slot: &BTreeMap<usize, usize>) -> bool {
    let seats = game.entrants.len();
    let mut seen = std::collections::BTreeSet::new();
    seats >= 2
        && game.results.len() == seats
        && game.timeouts.len() == seats
        && game.forfeited.len() == seats
        && game.results.iter().all(|r| r.is_finite())
        && game
            .entrants
            .iter()
            .all(|e| slot.contains_key(e) && seen.insert(*e))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entrant(entrant: usize, name: &str) -> EntrantRef {
        EntrantRef {
            entrant,
            name: name.to_owned(),
            bot: entrant % 2 == 1,
        }
    }

    fn entrants(names: &[&str]) -> Vec<EntrantRef> {
        names
            .iter()
            .enumerate()
            .map(|(i, name)| entrant(i, name))
            .collect()
    }

    fn game(game: usize, seats: &[usize], results: &[f64]) -> FinishedGame {
        FinishedGame {
            game,
            entrants: seats.to_vec(),
            results: results.to_vec(),
            timeouts: vec![0; seats.len()],
            forfeited: vec![false; seats.len()],
            judged: None,
        }
    }

    fn row(standings: &Standings, entrant: usize) -> &StandingRow {
        standings
            .rows
            .iter()
            .find(|r| r.entrant == entrant)
            .expect("a row per entrant")
    }

    /// A mixed schedule: 2-, 3- and 4-player games, decided and drawn pairs.
    fn schedule() -> Vec<FinishedGame> {
        vec![
            game(0, &[0, 1], &[1.0, -1.0]),
            game(1, &[2, 3], &[0.0, 0.0]),
            game(2, &[0, 2, 3], &[1.0, 0.0, -1.0]),
            game(3, &[1, 2, 3, 0], &[1.0, 0.5, 0.5, -1.0]),
            game(4, &[3, 1], &[1.0, -1.0]),
            game(5, &[0, 1, 2, 3], &[0.0, 0.0, 0.0, 0.0]),
        ]
    }

    #[test]
    fn points_add_up() {
        let points = Points {
            win: 3.0,
            draw: 1.0,
            loss: -0.5,
        };
        let games = schedule();
        let standings = compute(&entrants(&["a", "b", "c", "d"]), &games, points);
        let mut expected = 0.0;
        for g in &games {
            for i in 0..g.results.len() {
                for j in i + 1..g.results.len() {
                    expected += if g.results[i] == g.results[j] {
                        2.0 * points.draw
                    } else {
                        points.win + points.loss
                    };
                }
            }
        }
        let total: f64 = standings.rows.iter().map(|r| r.points).sum();
        assert_eq!(total, expected);
        let wins: u32 = standings.rows.iter().map(|r| r.wins).sum();
        let losses: u32 = standings.rows.iter().map(|r| r.losses).sum();
        assert_eq!(wins, losses);
        for r in &standings.rows {
            let own = f64::from(r.wins) * points.win
                + f64::from(r.draws) * points.draw
                + f64::from(r.losses) * points.loss;
            assert_eq!(r.points, own, "{}", r.name);
        }
        assert_eq!(standings.games_counted, games.len());
    }

    #[test]
    fn two_player_win_draw_loss() {
        // a beats b, a draws c, c beats a, b beats c.
        let mut games = vec![
            game(0, &[0, 1], &[1.0, -1.0]),
            game(1, &[2, 0], &[0.0, 0.0]),
            game(2, &[0, 2], &[-1.0, 1.0]),
            game(3, &[1, 2], &[1.0, -1.0]),
        ];
        games[2].timeouts = vec![2, 0];
        games[2].forfeited = vec![true, false];
        let standings = compute(&entrants(&["a", "b", "c"]), &games, Points::default());
        let a = row(&standings, 0);
        assert_eq!(
            (a.games, a.wins, a.draws, a.losses, a.points),
            (3, 1, 1, 1, 1.5)
        );
        assert_eq!((a.timeouts, a.forfeits), (2, 1));
        let b = row(&standings, 1);
        assert_eq!(
            (b.games, b.wins, b.draws, b.losses, b.points),
            (2, 1, 0, 1, 1.0)
        );
        assert_eq!((b.timeouts, b.forfeits), (0, 0));
        let c = row(&standings, 2);
        assert_eq!(
            (c.games, c.wins, c.draws, c.losses, c.points),
            (3, 1, 1, 1, 1.5)
        );
        assert_eq!(standings.rows[2].entrant, 1, "b is last on points");
        assert_eq!(standings.rows[2].rank, 3);
        assert_eq!(standings.games_counted, 4);
    }

    #[test]
    fn four_player_ranking_game_gives_places() {
        let names = entrants(&["a", "b", "c", "d"]);
        let standings = compute(
            &names,
            &[game(0, &[2, 0, 3, 1], &[1.0, 0.0, -1.0, 0.5])],
            Points::default(),
        );
        let by_rank: Vec<(usize, usize, f64)> = standings
            .rows
            .iter()
            .map(|r| (r.rank, r.entrant, r.points))
            .collect();
        assert_eq!(
            by_rank,
            [(1, 2, 3.0), (2, 1, 2.0), (3, 0, 1.0), (4, 3, 0.0)]
        );
        let first = row(&standings, 2);
        assert_eq!((first.wins, first.draws, first.losses), (3, 0, 0));

        // Two seats sharing second place draw with each other.
        let shared = compute(
            &names,
            &[game(0, &[0, 1, 2, 3], &[1.0, 0.5, 0.5, -1.0])],
            Points::default(),
        );
        let points: Vec<f64> = (0..4).map(|e| row(&shared, e).points).collect();
        assert_eq!(points, [3.0, 1.5, 1.5, 0.0]);
        let b = row(&shared, 1);
        assert_eq!((b.wins, b.draws, b.losses), (1, 1, 1));
        let c = row(&shared, 2);
        assert_eq!(b.rank, c.rank, "equal points and rating share a rank");
        assert_eq!(b.rating, c.rating);
        assert_eq!(b.rank, 2);
        assert_eq!(row(&shared, 3).rank, 4);
    }

    #[test]
    fn cross_table_is_symmetric() {
        let games = schedule();
        let points = Points::default();
        let standings = compute(&entrants(&["a", "b", "c", "d"]), &games, points);
        assert_eq!(standings.cross_table.len(), 4);
        let mut pairs = 0;
        for row in &standings.cross_table {
            let opponents: Vec<usize> = row.against.iter().map(|c| c.opponent).collect();
            assert!(opponents.windows(2).all(|w| w[0] < w[1]), "entrant order");
            assert!(!opponents.contains(&row.entrant), "not against itself");
            for cell in &row.against {
                let back = standings.cross_table[cell.opponent]
                    .against
                    .iter()
                    .find(|c| c.opponent == row.entrant)
                    .expect("the opponent met it too");
                assert_eq!(cell.games, back.games);
                pairs += 1;
            }
        }
        assert_eq!(pairs, 12, "everyone met everyone");
        let cell = |a: usize, b: usize| {
            standings.cross_table[a]
                .against
                .iter()
                .find(|c| c.opponent == b)
                .unwrap()
                .clone()
        };
        // a and b met in games 0, 3 and 5: a won, lost, drew.
        assert_eq!(cell(0, 1).games, 3);
        assert_eq!((cell(0, 1).points, cell(1, 0).points), (1.5, 1.5));

        // Without draws, each pair's points add up to games·(win+loss).
        let decided = vec![
            game(0, &[0, 1], &[1.0, -1.0]),
            game(1, &[0, 1, 2], &[-1.0, 1.0, 0.0]),
            game(2, &[2, 0], &[1.0, -1.0]),
        ];
        let points = Points {
            win: 2.0,
            draw: 1.0,
            loss: 0.25,
        };
        let standings = compute(&entrants(&["a", "b", "c", "d"]), &decided, points);
        for row in &standings.cross_table {
            for cell in &row.against {
                let back = standings.cross_table[cell.opponent]
                    .against
                    .iter()
                    .find(|c| c.opponent == row.entrant)
                    .unwrap();
                assert_eq!(
                    cell.points + back.points,
                    f64::from(cell.games) * (points.win + points.loss)
                );
            }
        }
        assert!(
            standings.cross_table[3].against.is_empty(),
            "d never played"
        );
    }

    #[test]
    fn winner_rating_rises_and_uncertainty_falls() {
        let standings = compute(
            &entrants(&["a", "b"]),
            &[game(0, &[1, 0], &[1.0, -1.0])],
            Points::default(),
        );
        let start = WengLinRating::new();
        let winner = row(&standings, 1);
        let loser = row(&standings, 0);
        assert!(winner.rating > start.rating);
        assert!(winner.uncertainty < start.uncertainty);
        assert!(loser.rating < start.rating);
        assert!(loser.uncertainty < start.uncertainty);
        assert_eq!(standings.rows[0].entrant, 1);
        assert_eq!(standings.rating_system, "weng_lin");
    }

    #[test]
    fn ratings_follow_schedule_order_and_are_deterministic() {
        let names = entrants(&["a", "b", "c", "d"]);
        let games = schedule();
        let once = compute(&names, &games, Points::default());
        let mut shuffled = games.clone();
        shuffled.reverse();
        let again = compute(&names, &shuffled, Points::default());
        for (x, y) in once.rows.iter().zip(&again.rows) {
            assert_eq!(
                (x.rank, x.entrant, x.points, x.rating, x.uncertainty),
                (y.rank, y.entrant, y.points, y.rating, y.uncertainty)
            );
        }
        // Order matters to Weng-Lin: a loss then a win is not a win then a loss.
        let forward = compute(
            &names,
            &[
                game(0, &[0, 1], &[1.0, -1.0]),
                game(1, &[0, 1], &[-1.0, 1.0]),
            ],
            Points::default(),
        );
        let backward = compute(
            &names,
            &[
                game(1, &[0, 1], &[1.0, -1.0]),
                game(0, &[0, 1], &[-1.0, 1.0]),
            ],
            Points::default(),
        );
        assert!(row(&forward, 0).rating < row(&backward, 0).rating);
    }

    #[test]
    fn accuracy_sums_the_judged_moves_of_every_judged_game() {
        let judged = |moves, kept| Judged {
            moves,
            kept,
            mistakes: moves - kept,
        };
        let mut games = vec![
            game(0, &[0, 1], &[1.0, -1.0]),
            game(1, &[1, 2], &[1.0, -1.0]),
            game(2, &[2, 0], &[-1.0, 1.0]),
        ];
        games[0].judged = Some(vec![judged(10, 10), judged(9, 6)]);
        games[1].judged = Some(vec![judged(12, 11), judged(12, 4)]);
        // Game 2 was not judged (no table when it ended): entrant 0's
        // accuracy is game 0's alone; entrant 2 keeps game 1's.
        let standings = compute(&entrants(&["a", "b", "c", "d"]), &games, Points::default());
        let of = |e| {
            let r = row(&standings, e);
            (r.judged_moves, r.mistakes, r.accuracy)
        };
        assert_eq!(of(0), (10, 0, Some(1.0)));
        assert_eq!(of(1), (21, 4, Some(17.0 / 21.0)));
        assert_eq!(of(2), (12, 8, Some(4.0 / 12.0)));
        assert_eq!(of(3), (0, 0, None));
    }

    #[test]
    fn entrant_without_games() {
        let names = entrants(&["a", "b", "idle"]);
        let standings = compute(&names, &[game(0, &[0, 1], &[0.0, 0.0])], Points::default());
        let idle = row(&standings, 2);
        assert_eq!(
            (idle.games, idle.wins, idle.draws, idle.losses, idle.points),
            (0, 0, 0, 0, 0.0)
        );
        let start = WengLinRating::new();
        assert_eq!(
            (idle.rating, idle.uncertainty),
            (start.rating, start.uncertainty)
        );
        assert_eq!(idle.rank, 3);
        assert!(standings.cross_table[2].against.is_empty());
        // Draws share a rank only if the ratings agree too: a and b drew
        // from equal starts, so they do.
        assert_eq!(row(&standings, 0).rank, 1);
        assert_eq!(row(&standings, 1).rank, 1);
    }

    #[test]
    fn malformed_games_are_skipped() {
        let names = entrants(&["a", "b"]);
        let mut short = game(1, &[0, 1], &[1.0, -1.0]);
        short.timeouts.pop();
        let games = vec![
            game(0, &[0, 1], &[1.0, -1.0]),
            short,
            game(2, &[0, 7], &[1.0, -1.0]),
            game(3, &[0, 0], &[1.0, -1.0]),
            game(4, &[0, 1], &[f64::NAN, -1.0]),
            game(5, &[0], &[1.0]),
        ];
        let standings = compute(&names, &games, Points::default());
        assert_eq!(standings.games_counted, 1);
        assert_eq!(row(&standings, 0).games, 1);
    }

    #[test]
    fn timeouts_and_forfeits_of_games_under_way_count_at_once() {
        let games = vec![FinishedGame {
            game: 0,
            entrants: vec![0, 1],
            results: vec![1.0, -1.0],
            timeouts: vec![0, 2],
            forfeited: vec![false, false],
            judged: None,
        }];
        let mut standings = compute(&entrants(&["a", "b", "c"]), &games, Points::default());
        let before: Vec<(usize, u32, u32)> = standings
            .rows
            .iter()
            .map(|r| (r.entrant, r.timeouts, r.forfeits))
            .collect();
        standings.count_live(&[LiveGame {
            entrants: vec![1, 2],
            timeouts: vec![3, 1],
            forfeited: vec![true, false],
        }]);
        let row = |entrant: usize| {
            standings
                .rows
                .iter()
                .find(|r| r.entrant == entrant)
                .unwrap()
        };
        assert_eq!((row(1).timeouts, row(1).forfeits), (5, 1));
        assert_eq!((row(2).timeouts, row(2).forfeits), (1, 0));
        assert_eq!((row(0).timeouts, row(0).forfeits), (0, 0));
        assert_eq!(row(1).games, 1, "a game under way is not a game played");
        assert_eq!(before.len(), standings.rows.len());
    }
}
