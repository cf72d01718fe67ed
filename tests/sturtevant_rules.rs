//! The solved game's rules (RULES §7) as positions play them, under
//! `illegal_positions = sturtevant`: no move into an illegal position (one
//! that completes the opponent's target, or leaves a target blocked), no
//! passing, a player without a move loses, illegal setups refused; and the
//! `target_lock` option.
//!
//! Hole ids of the boards used (`cargo run --example show_board --
//! rhombus7p3`): on `rhombus7p3` north's home is 0, 1, 2 and south's 46,
//! 47, 48; on `rhombus6p6` north's is 0-5 (tip 0; its outer edges 1, 2, 3,
//! 5) and south's 30-35; on `rhombus4p6` north's is 0-5 and south's 10-15.
//!
//! Beside hand-built positions, random games and every position of the
//! smallest boards check each position's moves against two independent
//! definitions: a brute-force filter (every move
//! the same rules without `illegal_positions` allow, played, and its
//! position validated under the solved game's rules) and the reference of
//! `common` (RULES §7 from its words, with the blocked target's holes found
//! from rows and columns).

mod common;

use common::{reference_illegal_after, reference_is_over, reference_moves};
use sternhalma::{
    Board, Cell, DrawReason, Finisher, IllegalMove, IllegalPositions, Layout, Move, MoveError,
    Outcome, Position, Rules, Setup, SetupProblem, perft,
};

fn position(text: &str) -> Position {
    text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn problems(text: &str) -> Vec<SetupProblem> {
    let setup: Setup = text.parse().unwrap();
    match setup.validate() {
        Ok(p) => panic!("{text} is valid: {p}"),
        Err(e) => e.problems().to_vec(),
    }
}

fn illegal(error: MoveError) -> IllegalMove {
    match error {
        MoveError::Illegal(e) => e,
        MoveError::Malformed(e) => panic!("malformed: {e}"),
    }
}

fn texts(moves: &[Move]) -> Vec<String> {
    moves.iter().map(ToString::to_string).collect()
}

/// The same position under other rules (validated: it must be valid).
fn under(position: &Position, rules: Rules) -> Position {
    let mut setup = position.to_setup();
    setup.rules = rules;
    setup
        .validate()
        .unwrap_or_else(|e| panic!("{position} under {rules}: {e}"))
}

/// The position without the rule against illegal positions.
fn free(position: &Position) -> Position {
    under(
        position,
        Rules {
            illegal_positions: IllegalPositions::None,
            ..*position.rules()
        },
    )
}

/// The legal moves by brute force: every move of the position without the
/// rule, played, whose position validates under the position's own rules.
fn brute_force(position: &Position) -> Vec<Move> {
    let free = free(position);
    free.legal_moves()
        .into_iter()
        .filter(|&mv| {
            let mut after = free.play(mv).unwrap().to_setup();
            after.rules = *position.rules();
            after.validate().is_ok()
        })
        .collect()
}

/// Perft by the brute-force moves.
fn brute_perft(position: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = brute_force(position);
    if depth == 1 {
        return moves.len() as u64;
    }
    moves
        .into_iter()
        .map(|mv| brute_perft(&position.play(mv).unwrap(), depth - 1))
        .sum()
}

// ---------------------------------------------------------------------------
// Moves into illegal positions
// ---------------------------------------------------------------------------

/// South (0) to move; north's target, 46-48, holds north's pegs on 47 and
/// 48, and south's peg on 43 neighbours 46.
const COMPLETES: &str = "rhombus7p3 sturtevant south:5,20,43/north:10,47,48 0 10 -";

#[test]
fn a_move_completing_the_opponents_target_is_not_generated_and_is_refused() {
    let position = position(COMPLETES);
    let step = Move::Step {
        from: Cell::new(43).unwrap(),
        to: Cell::new(46).unwrap(),
    };
    // Without the rule the step is legal and hands north the win.
    let free = free(&position);
    assert!(free.legal_moves().contains(&step));
    assert_eq!(
        free.play(step).unwrap().outcome(),
        Outcome::Won { winner: 1 }
    );
    // With it the step does not exist.
    let legal = position.legal_moves();
    assert!(!legal.is_empty() && !legal.contains(&step), "{legal:?}");
    assert!(!legal.contains(&Move::Pass));
    assert_eq!(position.count_legal_moves(), legal.len());
    assert!(
        !position
            .legal_moves_from(Cell::new(43).unwrap())
            .contains(&step)
    );
    assert!(!position.is_legal(step));
    let refusal = position.play(step).unwrap_err();
    assert_eq!(refusal.code(), "leads_to_illegal_position");
    assert!(
        matches!(refusal, IllegalMove::LeadsToIllegalPosition { from: 43, to: 46, reason } if reason.contains("complete the opponent's target")),
        "{refusal:?}"
    );
    assert!(
        refusal
            .to_string()
            .contains("complete the opponent's target")
    );
    // Every way in says the same.
    assert_eq!(illegal(position.play_text("43-46").unwrap_err()), refusal);
    assert_eq!(
        position.parse_move(&"43-46".parse().unwrap()),
        Err(refusal.clone())
    );
    assert_eq!(
        position.resolve(&"43-46".parse().unwrap()).unwrap_err(),
        refusal
    );
    let action = position.action(step);
    assert_eq!(position.action_move(action), Err(refusal));
    // A pass is no way out while there are moves.
    assert_eq!(position.play(Move::Pass), Err(IllegalMove::PassNotAllowed));
}

#[test]
fn the_movers_own_win_is_legal_and_ends_the_game() {
    let before = position("rhombus7p3 sturtevant south:0,1,5/north:20,30,40 0 10 -");
    let won = before.play_text("5-2").unwrap();
    assert_eq!(won.outcome(), Outcome::Won { winner: 0 });
    assert!(won.is_game_over() && won.legal_moves().is_empty());
    assert_eq!(won.results(), [1.0, -1.0]);
    assert_eq!(
        won.to_string(),
        "rhombus7p3 sturtevant south:0-2/north:20,30,40 1 11 0@11"
    );
    // The finished position is legal: it reads back, over.
    assert_eq!(position(&won.to_string()), won);
    assert_eq!(won.play_text("20-21"), Err(IllegalMove::GameOver.into()));
}

/// North (1) to move. On `rhombus6p6` north holds 1, 2 and 3, three of the
/// four holes of the outer edges of south's target (0-5, tip 0, empty);
/// its peg on 9 neighbours the fourth, 5. On `rhombus4p6` the same with
/// north's peg on 8.
const BLOCKS: [(&str, &str); 2] = [
    (
        "rhombus6p6 sturtevant south:30-35/north:1-3,9,20,21 1 20 -",
        "9-5",
    ),
    (
        "rhombus4p6 sturtevant south:10-15/north:1-3,6-8 1 20 -",
        "8-5",
    ),
];

#[test]
fn a_move_leaving_a_target_blocked_is_not_generated_and_is_refused() {
    for (text, mv) in BLOCKS {
        let position = position(text);
        let step = position.parse_move(&"1-0".parse().unwrap()).unwrap();
        assert_eq!(step.to_string(), "1-0", "{text}: another move is legal");
        let free = free(&position);
        let blocking = free.parse_move(&mv.parse().unwrap()).unwrap();
        // Its position, under the solved game's rules, is refused as blocked.
        let mut after = free.play(blocking).unwrap().to_setup();
        after.rules = Rules::sturtevant();
        assert_eq!(
            after.validate().unwrap_err().problems(),
            [SetupProblem::TargetBlocked { player: 0, tip: 0 }],
            "{text}"
        );
        assert!(
            !position.legal_moves().contains(&blocking),
            "{text}: {mv} generated"
        );
        let refusal = illegal(position.play_text(mv).unwrap_err());
        assert_eq!(refusal.code(), "leads_to_illegal_position", "{text}");
        assert!(
            refusal
                .to_string()
                .contains("leave the opponent's target blocked"),
            "{refusal}"
        );
        assert_eq!(brute_force(&position), position.legal_moves(), "{text}");
    }
}

// ---------------------------------------------------------------------------
// No move, no pass: a loss
// ---------------------------------------------------------------------------

/// SplitMix64.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A random position of `board` under the solved game's rules: each
/// player's pegs on random holes, a random player to move; `None` if it is
/// not valid.
fn random_position(board: Board, rng: &mut Rng) -> Option<Position> {
    let mut holes: Vec<usize> = (0..board.geometry().len()).collect();
    for i in (1..holes.len()).rev() {
        holes.swap(i, rng.below(i + 1));
    }
    let pegs = board.pegs_per_set();
    let mut setup = Setup::start(board, Layout::standard(2).unwrap(), Rules::sturtevant());
    setup.players[0][0].pegs = holes[..pegs].to_vec();
    setup.players[1][0].pegs = holes[pegs..2 * pegs].to_vec();
    setup.side_to_move = rng.below(2);
    setup.ply = 10;
    setup.validate().ok()
}

#[test]
fn a_player_without_a_legal_move_loses() {
    // The homes of rhombus2p2 are its four holes: at the start nobody can
    // move.
    for side in 0..2 {
        let text = format!("rhombus2p2 sturtevant south:2,3/north:0,1 {side} 0 -");
        let position = position(&text);
        assert!(position.legal_moves().is_empty(), "{text}");
        assert_eq!(
            position.outcome(),
            Outcome::Won { winner: 1 - side },
            "{text}"
        );
        assert!(position.is_game_over(), "{text}");
        let mut results = [1.0, 1.0];
        results[side] = -1.0;
        assert_eq!(position.results(), results, "{text}");
        assert!(position.finishers().is_empty(), "{text}");
        assert_eq!(
            position.play(Move::Pass),
            Err(IllegalMove::GameOver),
            "{text}"
        );
        let any = if side == 0 { "2-0" } else { "0-2" };
        assert_eq!(
            position.play_text(any),
            Err(IllegalMove::GameOver.into()),
            "{text}"
        );
        // Under other rules nobody can move, and it is a draw.
        assert_eq!(
            under(&position, Rules::research()).outcome(),
            Outcome::Draw {
                reason: DrawReason::NoMoves
            },
            "{text}"
        );
    }
}

// ---------------------------------------------------------------------------
// Setups
// ---------------------------------------------------------------------------

#[test]
fn a_position_where_the_side_to_move_has_won_is_refused() {
    let won = "rhombus7p3 sturtevant south:0-2/north:20,30,40";
    assert_eq!(
        problems(&format!("{won} 0 10 -")),
        [SetupProblem::SideToMoveHasWon { side: 0 }]
    );
    // Listed as finished or not.
    assert_eq!(
        problems(&format!("{won} 0 10 0@9")),
        [SetupProblem::SideToMoveHasWon { side: 0 }]
    );
    let message = SetupProblem::SideToMoveHasWon { side: 0 }.to_string();
    assert!(
        message.contains("player 0") && message.contains("won"),
        "{message}"
    );
    assert_eq!(
        SetupProblem::SideToMoveHasWon { side: 0 }.code(),
        "side_to_move_has_won"
    );
    // Other rules allow it: the game is simply over.
    assert!(position("rhombus7p3 research south:0-2/north:20,30,40 0 10 0@9").is_game_over());
    // The other player to move: a finished game, over, as in every variant
    // with its finisher recorded.
    let over = position(&format!("{won} 1 10 0@10"));
    assert_eq!(over.outcome(), Outcome::Won { winner: 0 });
    assert!(over.legal_moves().is_empty());
    // The board alone says so: a position that leaves the finisher out is
    // the same finished game, its finish recorded at the position's ply.
    let implied = position(&format!("{won} 1 10 -"));
    assert_eq!(implied, over);
    assert_eq!(implied.to_string(), over.to_string());
    assert_eq!(implied.outcome(), Outcome::Won { winner: 0 });
    // Under other rules the finisher must be listed, as in every variant.
    assert_eq!(
        problems("rhombus7p3 research south:0-2/north:20,30,40 0 10 -"),
        [SetupProblem::HomeButNotFinished { player: 0 }]
    );
    // Both players home, south's target filled by a north peg too: illegal.
    assert_eq!(
        problems("rhombus7p3 sturtevant south:0,1,46/north:2,47,48 1 10 0@10"),
        [SetupProblem::SideToMoveHasWon { side: 1 }]
    );
}

#[test]
fn a_blocked_target_is_refused() {
    let found = problems("rhombus6p6 sturtevant south:30-35/north:1-3,5,20,21 0 20 -");
    assert_eq!(found, [SetupProblem::TargetBlocked { player: 0, tip: 0 }]);
    assert_eq!(found[0].code(), "target_blocked");
    assert!(found[0].to_string().contains("hole 0"), "{}", found[0]);
    // North's too (south's home, tip 35, edges 30, 32, 33, 34).
    assert_eq!(
        problems("rhombus6p6 sturtevant south:30,32-34,20,21/north:0-5 0 20 -"),
        [SetupProblem::TargetBlocked { player: 1, tip: 35 }]
    );
    // The middle of the last row does not count, the tip does.
    position("rhombus6p6 sturtevant south:30-35/north:1-4,20,21 0 20 -");
    position("rhombus6p6 sturtevant south:0,31-35/north:1-3,5,20,21 0 20 -");
    // Not without the rule.
    position("rhombus6p6 research south:30-35/north:1-3,5,20,21 0 20 -");
}

#[test]
fn the_solved_game_needs_two_players_one_set_each_and_its_rules() {
    assert_eq!(
        problems("rhombus7p3 sturtevant south:46-48 0 0 -"),
        [SetupProblem::SolvedGameLayout {
            players: 1,
            sets: 1
        }]
    );
    assert_eq!(
        problems("star2 sturtevant south:34-36/north_west:3,4,10/north_east:8,9,15 0 0 -"),
        [SetupProblem::SolvedGameLayout {
            players: 3,
            sets: 3
        }]
    );
    let two_sets = problems(
        "star2 sturtevant south:34-36+north_west:3,4,10/north:0-2+south_east:26,32,33 0 0 -",
    );
    assert_eq!(
        two_sets,
        [SetupProblem::SolvedGameLayout {
            players: 2,
            sets: 4
        }]
    );
    assert_eq!(two_sets[0].code(), "solved_game_layout");
    assert!(
        two_sets[0]
            .to_string()
            .contains("two players with one set each")
    );
    let rules = problems(
        "rhombus7p3 sturtevant,anti_spoiling=none,finish=round south:46-48/north:0-2 0 0 -",
    );
    assert_eq!(
        rules,
        [
            SetupProblem::SolvedGameRules {
                option: "anti_spoiling",
                needed: "fill_available"
            },
            SetupProblem::SolvedGameRules {
                option: "finish",
                needed: "first"
            }
        ]
    );
    assert_eq!(rules[0].code(), "solved_game_rules");
    // Any board with two homes: the default, the homes of 2 and 4 pegs, a star.
    for board in [
        "rhombus7p3",
        "rhombus7p2",
        "rhombus5p4",
        "rhombus4p6",
        "star2",
    ] {
        let start = Position::start(
            board.parse().unwrap(),
            Layout::standard(2).unwrap(),
            Rules::sturtevant(),
        )
        .unwrap();
        assert!(!start.legal_moves().is_empty(), "{board}");
        assert_eq!(brute_force(&start), start.legal_moves(), "{board}");
    }
}

// ---------------------------------------------------------------------------
// The target lock
// ---------------------------------------------------------------------------

#[test]
fn target_lock_off_lets_a_peg_leave_its_target_and_the_default_keeps_it() {
    // South's peg on 1 is in its target (north's home); 3 is an empty
    // neighbour outside it.
    let pegs = "south:1,20,25/north:10,30,40 0 10 -";
    for (rules, leaves) in [
        ("research", false),
        ("research,target_lock=on", false),
        ("research,target_lock=off", true),
        ("sturtevant", true),
        ("sturtevant,target_lock=on", false),
        ("classic,target_lock=off", true),
    ] {
        let position = position(&format!("rhombus7p3 {rules} {pegs}"));
        let generated = texts(&position.legal_moves_from(Cell::new(1).unwrap()));
        assert_eq!(
            generated.contains(&"1-3".to_owned()),
            leaves,
            "{rules}: {generated:?}"
        );
        match position.play_text("1-3") {
            Ok(next) => {
                assert!(leaves, "{rules}");
                assert_eq!(
                    next.pegs(0).iter().map(Cell::id).collect::<Vec<_>>(),
                    [3, 20, 25]
                );
            }
            Err(e) => {
                assert!(!leaves, "{rules}: {e}");
                assert_eq!(
                    illegal(e),
                    IllegalMove::LeavesTarget { from: 1, to: 3 },
                    "{rules}"
                );
            }
        }
    }
    assert!(Rules::classic().target_lock);
    assert!(!Rules::sturtevant().target_lock);
    assert_eq!(
        "classic,target_lock=off"
            .parse::<Rules>()
            .unwrap()
            .to_string(),
        "classic,target_lock=off"
    );
}

// ---------------------------------------------------------------------------
// Against the brute-force filter and the reference
// ---------------------------------------------------------------------------

#[test]
fn perft_from_the_7x7_start_agrees_with_the_brute_force_filter() {
    let start = Position::start(
        Board::rhombus_pegs(7, 3).unwrap(),
        Layout::standard(2).unwrap(),
        Rules::sturtevant(),
    )
    .unwrap();
    assert_eq!(
        start.to_string(),
        "rhombus7p3 sturtevant south:46-48/north:0-2 0 0 -"
    );
    for depth in 1..=3 {
        assert_eq!(
            perft(&start, depth),
            brute_perft(&start, depth),
            "depth {depth}"
        );
    }
}

/// How far `mv` brings its peg towards its target: the fewest steps from
/// its start to a target hole, less those from its end.
fn progress(position: &Position, mv: Move) -> i32 {
    let geometry = position.geometry();
    let (Some(from), Some(to)) = (mv.from(), mv.to()) else {
        return 0;
    };
    let target = position.target(position.side_to_move());
    let nearest = |cell: Cell| {
        target
            .iter()
            .map(|t| geometry.distance(cell, t))
            .min()
            .unwrap() as i32
    };
    nearest(from) - nearest(to)
}

/// What the random games met.
#[derive(Default, Debug)]
struct Met {
    positions: usize,
    dropped_completing: usize,
    dropped_blocking: usize,
    won: usize,
    stuck: usize,
}

/// Every check of one position: its moves against the brute-force filter
/// and the reference, every dropped move refused with its reason, the
/// outcome.
fn check(position: &Position, met: &mut Met) {
    let text = position.to_string();
    let side = position.side_to_move();
    let legal = position.legal_moves();
    met.positions += 1;
    assert_eq!(legal, brute_force(position), "brute force: {text}");
    let reference = if reference_is_over(position) {
        Vec::new()
    } else {
        reference_moves(position, side)
    };
    assert_eq!(legal, reference, "reference: {text}");
    assert_eq!(position.count_legal_moves(), legal.len(), "{text}");
    for peg in position.pegs(side) {
        let from_peg: Vec<Move> = legal
            .iter()
            .copied()
            .filter(|m| m.from() == Some(peg))
            .collect();
        assert_eq!(
            position.legal_moves_from(peg),
            from_peg,
            "{text}: from {peg}"
        );
    }
    let pseudo = free(position).legal_moves();
    for &mv in pseudo.iter().filter(|&&mv| mv != Move::Pass) {
        let dropped = !legal.contains(&mv);
        assert_eq!(
            dropped,
            reference_illegal_after(position, side, mv),
            "{text}: {mv}"
        );
        match position.play(mv) {
            Ok(_) => assert!(!dropped, "{text}: {mv} played"),
            Err(IllegalMove::GameOver) => assert!(legal.is_empty(), "{text}: {mv}"),
            Err(IllegalMove::LeadsToIllegalPosition { reason, .. }) => {
                assert!(dropped, "{text}: {mv}");
                if reason.contains("complete") {
                    met.dropped_completing += 1;
                } else {
                    met.dropped_blocking += 1;
                }
            }
            Err(e) => panic!("{text}: {mv}: {e}"),
        }
    }
    let outcome = position.outcome();
    if legal.is_empty() {
        assert!(outcome.is_over(), "{text}");
        if position.finishers().is_empty() && position.ply() < position.rules().ply_limit() {
            assert_eq!(outcome, Outcome::Won { winner: 1 - side }, "{text}");
            met.stuck += 1;
        } else if !position.finishers().is_empty() {
            assert_eq!(
                outcome,
                Outcome::Won { winner: 1 - side },
                "the mover won: {text}"
            );
            met.won += 1;
        }
    } else {
        assert_eq!(outcome, Outcome::InProgress, "{text}");
    }
}

#[test]
fn random_games_agree_with_the_brute_force_filter_and_the_reference() {
    let mut rng = Rng(2019);
    let mut met = Met::default();
    let mut six_pegs = Met::default();
    for board in [
        "rhombus7p3",
        "rhombus4p6",
        "rhombus5p6",
        "rhombus6p6",
        "rhombus5p4",
        "rhombus4p2",
        "rhombus3p1",
    ] {
        let board: Board = board.parse().unwrap();
        let met = if board.pegs_per_set() == 6 {
            &mut six_pegs
        } else {
            &mut met
        };
        for game in 0..12 {
            let mut position =
                Position::start(board, Layout::standard(2).unwrap(), Rules::sturtevant()).unwrap();
            // Some games from random positions, to meet crowded targets.
            if game % 3 == 2 {
                if let Some(random) = (0..100).find_map(|_| random_position(board, &mut rng)) {
                    position = random;
                }
            }
            for _ in 0..300 {
                check(&position, met);
                let moves = position.legal_moves();
                if moves.is_empty() {
                    break;
                }
                // Mostly forwards, so that games reach their targets.
                let mv = if rng.below(4) == 0 {
                    moves[rng.below(moves.len())]
                } else {
                    let best = moves.iter().map(|&m| progress(&position, m)).max().unwrap();
                    let forward: Vec<Move> = moves
                        .iter()
                        .copied()
                        .filter(|&m| progress(&position, m) == best)
                        .collect();
                    forward[rng.below(forward.len())]
                };
                position = position.play(mv).unwrap();
            }
        }
    }
    assert!(
        met.dropped_completing > 0 && six_pegs.dropped_completing > 0,
        "{met:?} {six_pegs:?}"
    );
    assert!(six_pegs.dropped_blocking > 0, "{six_pegs:?}");
    assert!(met.won + six_pegs.won >= 20, "{met:?} {six_pegs:?}");
}

/// Every `k`-subset of `items`, in order.
fn subsets(items: &[usize], k: usize) -> Vec<Vec<usize>> {
    if k == 0 {
        return vec![Vec::new()];
    }
    let mut all = Vec::new();
    for (i, &first) in items.iter().enumerate() {
        for mut rest in subsets(&items[i + 1..], k - 1) {
            rest.insert(0, first);
            all.push(rest);
        }
    }
    all
}

/// Every valid position of `board` under the solved game's rules at ply
/// 10, either player to move; the other player finished (at ply 10) where
/// they are home.
fn every_position(board: Board) -> Vec<Position> {
    let holes: Vec<usize> = (0..board.geometry().len()).collect();
    let pegs = board.pegs_per_set();
    let mut positions = Vec::new();
    for south in subsets(&holes, pegs) {
        let rest: Vec<usize> = holes
            .iter()
            .copied()
            .filter(|h| !south.contains(h))
            .collect();
        for north in subsets(&rest, pegs) {
            for side in 0..2 {
                let mut setup =
                    Setup::start(board, Layout::standard(2).unwrap(), Rules::sturtevant());
                setup.players[0][0].pegs = south.clone();
                setup.players[1][0].pegs = north.clone();
                setup.side_to_move = side;
                setup.ply = 10;
                match setup.validate() {
                    Ok(position) => positions.push(position),
                    Err(e)
                        if e.problems()
                            == [SetupProblem::HomeButNotFinished { player: 1 - side }] =>
                    {
                        setup.finished = vec![Finisher {
                            player: 1 - side,
                            ply: 10,
                        }];
                        positions.push(setup.validate().unwrap());
                    }
                    Err(_) => {}
                }
            }
        }
    }
    positions
}

#[test]
fn every_position_of_the_smallest_boards_agrees_with_the_brute_force_filter_and_the_reference() {
    let mut met = Met::default();
    for board in [
        "rhombus2p2",
        "rhombus2p1",
        "rhombus3p1",
        "rhombus3p2",
        "rhombus3p3",
        "rhombus4p2",
    ] {
        let positions = every_position(board.parse().unwrap());
        assert!(!positions.is_empty(), "{board}");
        for position in positions {
            check(&position, &mut met);
        }
    }
    assert!(
        met.stuck > 0 && met.won > 100 && met.dropped_completing > 100,
        "{met:?}"
    );
}

#[test]
fn boards_whose_homes_are_not_symmetric_have_no_mirror_image() {
    let two = Position::start(
        "rhombus7p2".parse().unwrap(),
        Layout::standard(2).unwrap(),
        Rules::sturtevant(),
    )
    .unwrap();
    assert!(two.mirrored().is_none());
    let four = Position::start(
        "rhombus7p4".parse().unwrap(),
        Layout::standard(2).unwrap(),
        Rules::sturtevant(),
    )
    .unwrap();
    assert_eq!(four.mirrored(), Some(four.clone()));
}
