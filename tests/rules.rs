//! One test per rule of RULES.md §2–4, each on a hand-built position.
//!
//! Positions on the standard board are built from axial coordinates (see
//! `Scene`): the pegs a test is about are placed by hand, and the rest of each
//! set is parked in a side triangle far from the action. Small boards (star1,
//! star2, rhombus4p6) are written as position strings; `cargo run --example
//! show_board -- star1` prints their hole ids.

use sternhalma::{
    Board, Cell, DrawReason, IllegalMove, Layout, Move, MoveKind, MoveText, Outcome, Position,
    Setup, Swapped, Triangle,
};

/// A two-player position on the standard board, built from coordinates.
struct Scene {
    rules: &'static str,
    south: Vec<(i32, i32)>,
    north: Vec<(i32, i32)>,
    side: usize,
}

fn cell(q: i32, r: i32) -> Cell {
    Board::STANDARD
        .geometry()
        .cell_at(q, r)
        .unwrap_or_else(|| panic!("({q}, {r}) is not on the board"))
}

impl Scene {
    fn new(rules: &'static str) -> Scene {
        Scene {
            rules,
            south: Vec::new(),
            north: Vec::new(),
            side: 0,
        }
    }

    fn south(mut self, pegs: &[(i32, i32)]) -> Scene {
        self.south.extend_from_slice(pegs);
        self
    }

    fn north(mut self, pegs: &[(i32, i32)]) -> Scene {
        self.north.extend_from_slice(pegs);
        self
    }

    /// The position, with south's remaining pegs parked in the south-west
    /// triangle and north's in the south-east one.
    fn build(self) -> Position {
        let geometry = Board::STANDARD.geometry();
        let ids = |pegs: &[(i32, i32)]| -> Vec<usize> {
            pegs.iter().map(|&(q, r)| cell(q, r).id()).collect()
        };
        let (mut south, mut north) = (ids(&self.south), ids(&self.north));
        for (pegs, park) in [
            (&mut south, Triangle::SouthWest),
            (&mut north, Triangle::SouthEast),
        ] {
            let mut spare = geometry.triangle(park).iter().map(Cell::id);
            while pegs.len() < 10 {
                pegs.push(spare.next().expect("a triangle has 10 holes"));
            }
        }
        let setup: Setup = format!(
            "star4 {} south:{}/north:{} {} 0 -",
            self.rules,
            list(&south),
            list(&north),
            self.side
        )
        .parse()
        .unwrap();
        setup.validate().unwrap()
    }
}

fn list(ids: &[usize]) -> String {
    ids.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// A move text from coordinates.
fn path(holes: &[(i32, i32)]) -> MoveText {
    MoveText::Path(holes.iter().map(|&(q, r)| cell(q, r).id()).collect())
}

fn ends(position: &Position, from: (i32, i32)) -> Vec<(i32, i32)> {
    let geometry = position.geometry();
    position
        .legal_moves_from(cell(from.0, from.1))
        .iter()
        .map(|mv| geometry.coordinates(mv.to().unwrap()))
        .collect()
}

fn position(text: &str) -> Position {
    text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn play(position: &Position, text: &str) -> Position {
    position
        .play_text(text)
        .unwrap_or_else(|e| panic!("{text} in {position}: {e}"))
}

// ---- §3 A turn: steps and hops --------------------------------------------

#[test]
fn a_step_goes_to_an_adjacent_empty_hole() {
    let p = Scene::new("classic")
        .south(&[(0, 0)])
        .north(&[(1, 0)])
        .build();
    let targets = ends(&p, (0, 0));
    for neighbour in [(0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1)] {
        assert!(targets.contains(&neighbour), "{neighbour:?}");
    }
    assert!(!targets.contains(&(1, 0)), "occupied");
    assert_eq!(
        p.parse_move(&path(&[(0, 0), (0, 1)])).unwrap(),
        Move::Step {
            from: cell(0, 0),
            to: cell(0, 1)
        }
    );
}

#[test]
fn a_hop_chain_goes_over_pegs_of_any_colour_and_turns() {
    // Over the mover's own peg at (1,0), then over north's at (2,1).
    let p = Scene::new("classic")
        .south(&[(0, 0), (1, 0)])
        .north(&[(2, 1)])
        .build();
    let targets = ends(&p, (0, 0));
    assert!(targets.contains(&(2, 0)));
    assert!(targets.contains(&(2, 2)));
    let mv = p.parse_move(&path(&[(0, 0), (2, 0), (2, 2)])).unwrap();
    assert_eq!(mv.kind(), MoveKind::Hop);
    assert_eq!(
        p.witness_path(mv),
        [cell(0, 0), cell(2, 0), cell(2, 2)],
        "the witness is the chain"
    );
    // Stopping after the first hop is a move of its own.
    assert!(p.parse_move(&path(&[(0, 0), (2, 0)])).is_ok());
}

#[test]
fn the_start_hole_counts_as_empty_during_a_chain() {
    // The chain may land on its own start hole and go on from there.
    let p = Scene::new("classic")
        .south(&[(0, 0)])
        .north(&[(1, 0), (0, 1)])
        .build();
    let mv = p
        .parse_move(&path(&[(0, 0), (2, 0), (0, 0), (0, 2)]))
        .unwrap();
    assert_eq!(mv.to(), Some(cell(0, 2)));

    // With long jumps the empty start hole can lie on a later jump's line:
    // (0,0) -> (2,0) -> (2,-2), then from (2,-2) south-west over (-1,1),
    // three holes away with the start hole (0,0) between, to (-4,4). Were the
    // start hole occupied, that jump would not exist.
    let p = Scene::new("super")
        .south(&[(0, 0)])
        .north(&[(1, 0), (2, -1), (-1, 1)])
        .build();
    assert!(ends(&p, (0, 0)).contains(&(-4, 4)));
    let mv = p
        .parse_move(&path(&[(0, 0), (2, 0), (2, -2), (-4, 4)]))
        .unwrap();
    assert_eq!(mv.to(), Some(cell(-4, 4)));
}

#[test]
fn a_chain_back_to_its_start_is_not_a_move() {
    let p = Scene::new("classic")
        .south(&[(0, 0)])
        .north(&[(1, 0)])
        .build();
    assert_eq!(
        p.parse_move(&path(&[(0, 0), (2, 0), (0, 0)])),
        Err(IllegalMove::ReturnsToStart {
            hole: cell(0, 0).id()
        })
    );
    assert!(!ends(&p, (0, 0)).contains(&(0, 0)));
}

#[test]
fn a_chain_may_revisit_holes_but_names_at_most_the_boards_holes() {
    // (0,0) hops over (1,0) to (2,0) and back, again and again, then on over
    // (0,1) to (0,2): the same move as the loop-free (0,0)-(0,2).
    let p = Scene::new("classic")
        .south(&[(0, 0)])
        .north(&[(1, 0), (0, 1)])
        .build();
    let chain = |loops: usize| {
        let mut holes = vec![(0, 0)];
        for _ in 0..loops {
            holes.extend([(2, 0), (0, 0)]);
        }
        holes.push((0, 2));
        path(&holes)
    };
    let hop = Move::Hop {
        from: cell(0, 0),
        to: cell(0, 2),
    };
    let holes = Board::STANDARD.geometry().len();
    // 2 * loops + 2 holes: 60 loops make 122, one more than the board's 121.
    assert_eq!(p.parse_move(&chain(1)), Ok(hop));
    assert_eq!(p.parse_move(&chain(59)), Ok(hop));
    assert_eq!(
        p.parse_move(&chain(60)),
        Err(IllegalMove::PathTooLong {
            length: holes + 1,
            holes
        })
    );
    assert_eq!(p.resolve(&chain(60)).unwrap_err().code(), "path_too_long");
    assert_eq!(p.path_cells(&chain(59)).unwrap().len(), holes - 1);
    assert_eq!(p.path_cells(&MoveText::Pass), Ok(Vec::new()));
}

#[test]
fn two_chains_to_one_hole_are_one_move() {
    // (0,0) reaches (2,2) through (2,0) and through (0,2).
    let p = Scene::new("classic")
        .south(&[(0, 0)])
        .north(&[(1, 0), (0, 1), (2, 1), (1, 2)])
        .build();
    let targets = ends(&p, (0, 0));
    assert_eq!(targets.iter().filter(|&&t| t == (2, 2)).count(), 1);
    for chain in [[(0, 0), (2, 0), (2, 2)], [(0, 0), (0, 2), (2, 2)]] {
        assert_eq!(
            p.parse_move(&path(&chain)).unwrap(),
            Move::Hop {
                from: cell(0, 0),
                to: cell(2, 2)
            }
        );
    }
    let all = p.legal_moves();
    let mut pairs: Vec<_> = all.iter().map(|m| (m.from(), m.to())).collect();
    pairs.dedup();
    assert_eq!(pairs.len(), all.len());
}

#[test]
fn a_full_path_is_checked_hop_by_hop() {
    let p = Scene::new("classic")
        .south(&[(0, 0)])
        .north(&[(1, 0), (2, 1), (3, -1)])
        .build();
    let id = |q, r| cell(q, r).id();
    let cases = [
        (
            vec![(0, 0), (2, 0), (3, 2)],
            IllegalMove::NotAStepOrHop {
                from: id(2, 0),
                to: id(3, 2),
            },
        ),
        (
            vec![(0, 0), (2, 0), (3, 0)],
            IllegalMove::StepInChain {
                from: id(2, 0),
                to: id(3, 0),
            },
        ),
        (
            vec![(0, 0), (2, 0), (2, -2)],
            IllegalMove::NothingToHopOver {
                from: id(2, 0),
                to: id(2, -2),
            },
        ),
        (
            vec![(0, 0), (2, 0), (2, 3)],
            IllegalMove::LongJumpsOff {
                from: id(2, 0),
                to: id(2, 3),
            },
        ),
        (
            vec![(0, 0), (2, 0), (4, -2), (4, 0)],
            IllegalMove::NothingToHopOver {
                from: id(4, -2),
                to: id(4, 0),
            },
        ),
    ];
    for (holes, expected) in cases {
        assert_eq!(p.parse_move(&path(&holes)), Err(expected), "{holes:?}");
    }
    // Landing on a peg.
    let blocked = Scene::new("classic")
        .south(&[(0, 0)])
        .north(&[(1, 0), (2, 1), (2, 2)])
        .build();
    assert_eq!(
        blocked.parse_move(&path(&[(0, 0), (2, 0), (2, 2)])),
        Err(IllegalMove::Occupied { hole: id(2, 2) })
    );
}

#[test]
fn a_move_named_by_its_ends_gets_the_precise_refusal() {
    let p = Scene::new("classic")
        .south(&[(0, 0)])
        .north(&[(1, 0)])
        .build();
    let id = |q, r| cell(q, r).id();
    let refuse = |text: String| p.parse_move(&text.parse().unwrap()).unwrap_err();
    assert_eq!(
        refuse(format!("{}-{}", id(0, 0), id(1, 0))),
        IllegalMove::Occupied { hole: id(1, 0) }
    );
    assert_eq!(
        refuse(format!("{}-{}", id(0, 0), id(0, -2))),
        IllegalMove::NothingToHopOver {
            from: id(0, 0),
            to: id(0, -2)
        }
    );
    assert_eq!(
        refuse(format!("{}-{}", id(0, 0), id(4, 0))),
        IllegalMove::Unreachable {
            from: id(0, 0),
            to: id(4, 0)
        }
    );
    assert_eq!(
        refuse(format!("{}-{}", id(-2, -2), id(-2, -1))),
        IllegalMove::EmptyHole { hole: id(-2, -2) }
    );
    assert_eq!(
        refuse(format!("{}-{}", id(1, 0), id(2, 0))),
        IllegalMove::NotYourPeg {
            hole: id(1, 0),
            owner: Some(1),
            to_move: 0
        }
    );
    assert_eq!(
        refuse(format!("{}-500", id(0, 0))),
        IllegalMove::OffBoard {
            hole: 500,
            holes: 121
        }
    );
    assert_eq!(
        refuse(format!("{0}-{0}", id(0, 0))),
        IllegalMove::ReturnsToStart { hole: id(0, 0) }
    );
    assert_eq!(refuse("pass".into()), IllegalMove::PassNotAllowed);
    assert_eq!(
        p.parse_move_for(1, &format!("{}-{}", id(0, 0), id(0, 1)).parse().unwrap()),
        Err(IllegalMove::NotYourTurn {
            player: 1,
            to_move: 0
        })
    );
}

// ---- §3 Target lock ----------------------------------------------------------

#[test]
fn a_peg_in_its_target_must_end_in_it_but_may_pass_outside() {
    // South's peg at (1,-5) is in the north triangle, its target. A chain out
    // through (1,-3) and back in to (3,-5) is legal; ending outside is not.
    let p = Scene::new("classic")
        .south(&[(1, -5)])
        .north(&[(1, -4), (2, -4)])
        .build();
    let north = p.geometry().triangle(Triangle::North);
    let targets = ends(&p, (1, -5));
    assert!(targets.contains(&(3, -5)), "{targets:?}");
    assert!(targets.contains(&(2, -5)));
    assert!(targets.iter().all(|&(q, r)| north.contains(cell(q, r))));
    let id = |q, r| cell(q, r).id();
    assert_eq!(
        p.parse_move(&path(&[(1, -5), (1, -3), (3, -5)]))
            .unwrap()
            .to(),
        Some(cell(3, -5))
    );
    for out in [(0, -4), (1, -3)] {
        assert_eq!(
            p.parse_move(&path(&[(1, -5), out])),
            Err(IllegalMove::LeavesTarget {
                from: id(1, -5),
                to: id(out.0, out.1)
            })
        );
    }
}

// ---- §3 Resting ------------------------------------------------------------

#[test]
fn resting_forbidden_keeps_moves_out_of_other_players_triangles() {
    // Three players: south (0), north_west (1), north_east (2). For south the
    // foreign triangles are the others' starts (north_west, north_east) and
    // targets (south_east, south_west). Hopping through is allowed.
    let geometry = Board::STANDARD.geometry();
    let ids = |cells: &[(i32, i32)]| -> Vec<usize> {
        cells.iter().map(|&(q, r)| cell(q, r).id()).collect()
    };
    let fill = |mut pegs: Vec<usize>, triangle: Triangle| -> String {
        for c in geometry.triangle(triangle) {
            if pegs.len() < 10 && !pegs.contains(&c.id()) {
                pegs.push(c.id());
            }
        }
        list(&pegs)
    };
    let text = |rules: &str| {
        format!(
            "star4 {rules} south:{}/north_west:{}/north_east:{} 0 0 -",
            fill(ids(&[(-4, 2), (-4, 3)]), Triangle::South),
            fill(vec![], Triangle::NorthWest),
            fill(ids(&[(-5, 2), (-5, 1)]), Triangle::NorthEast),
        )
    };
    let forbidden = position(&text("masters"));
    let allowed = position(&text("classic"));
    // (-4,2) -> over (-5,2) -> (-6,2) [south_west] -> over (-5,1) -> (-4,0).
    assert!(ends(&forbidden, (-4, 2)).contains(&(-4, 0)));
    assert!(!ends(&forbidden, (-4, 2)).contains(&(-6, 2)));
    assert!(ends(&allowed, (-4, 2)).contains(&(-6, 2)));
    assert_eq!(
        forbidden.parse_move(&path(&[(-4, 3), (-5, 3)])),
        Err(IllegalMove::EndsInForeignTriangle {
            to: cell(-5, 3).id(),
            triangle: Triangle::SouthWest
        })
    );
    assert!(allowed.parse_move(&path(&[(-4, 3), (-5, 3)])).is_ok());
}

#[test]
fn resting_forbidden_in_two_player_games() {
    // Read literally, the rule also closes the mover's own start triangle
    // (the opponent's target) but not the four unused side triangles.
    let p = Scene::new("masters").south(&[(-3, 4)]).build();
    assert_eq!(
        p.parse_move(&path(&[(-3, 4), (-3, 5)])),
        Err(IllegalMove::EndsInForeignTriangle {
            to: cell(-3, 5).id(),
            triangle: Triangle::South
        })
    );
    let classic = Scene::new("classic").south(&[(-3, 4)]).build();
    assert!(classic.parse_move(&path(&[(-3, 4), (-3, 5)])).is_ok());
    // The north-east triangle is unused with two players: resting is fine.
    let p = Scene::new("masters").south(&[(4, -1)]).build();
    assert!(p.parse_move(&path(&[(4, -1), (5, -1)])).is_ok());
    // The standard opening is unaffected.
    let start = Position::start(
        Board::STANDARD,
        Layout::standard(2).unwrap(),
        "masters".parse().unwrap(),
    )
    .unwrap();
    assert_eq!(start.legal_moves().len(), 14);
}

// ---- §3 Long jumps -----------------------------------------------------------

#[test]
fn long_jumps_go_over_one_peg_midway_along_an_empty_line() {
    let p = Scene::new("super")
        .south(&[(0, 0)])
        .north(&[(2, 0)])
        .build();
    assert!(ends(&p, (0, 0)).contains(&(4, 0)));
    let classic = Scene::new("classic")
        .south(&[(0, 0)])
        .north(&[(2, 0)])
        .build();
    assert!(!ends(&classic, (0, 0)).contains(&(4, 0)));
    assert_eq!(
        classic.parse_move(&path(&[(0, 0), (4, 0), (4, 2)])),
        Err(IllegalMove::LongJumpsOff {
            from: cell(0, 0).id(),
            to: cell(4, 0).id()
        })
    );
    // A second peg on the far side of the line blocks the jump.
    let blocked = Scene::new("super")
        .south(&[(0, 0)])
        .north(&[(2, 0), (3, 0)])
        .build();
    assert!(!ends(&blocked, (0, 0)).contains(&(4, 0)));
    // The ordinary hop is the shortest long jump.
    let short = Scene::new("super")
        .south(&[(0, 0)])
        .north(&[(1, 0)])
        .build();
    assert!(ends(&short, (0, 0)).contains(&(2, 0)));
    assert!(!ends(&short, (0, 0)).contains(&(4, 0)));
    // The landing must be as far beyond the peg as the peg is from the start.
    assert_eq!(
        p.parse_move(&path(&[(0, 0), (3, 0), (3, 2)])),
        Err(IllegalMove::NotASymmetricJump {
            from: cell(0, 0).id(),
            to: cell(3, 0).id()
        })
    );
}

// ---- §3 No legal move --------------------------------------------------------

/// rhombus4p6: north home 0-5, middle 6-9, south home 10-15. South's pegs
/// 0-4 fill its target with north's peg on 5, so they are locked; south's
/// last peg sits on 15, the tip of north's target, walled in by 10-14.
const SOUTH_STUCK: &str = "rhombus4p6 classic south:0-4,15/north:5,10-14 0 0 -";
/// The same with north's peg on 0 instead of 5: north is walled in too.
const ALL_STUCK: &str = "rhombus4p6 classic south:1-5,15/north:0,10-14 0 0 -";

#[test]
fn a_player_who_cannot_move_passes() {
    let p = position(SOUTH_STUCK);
    assert_eq!(p.legal_moves(), [Move::Pass]);
    assert_eq!(p.outcome(), Outcome::InProgress);
    assert_eq!(
        p.parse_move(&"4-8".parse().unwrap()),
        Err(IllegalMove::LeavesTarget { from: 4, to: 8 })
    );
    let after = play(&p, "pass");
    assert_eq!((after.side_to_move(), after.ply()), (1, 1));
    assert!(
        after
            .legal_moves()
            .iter()
            .all(|m| m.from() == Some(Cell::new(5).unwrap()))
    );
}

#[test]
fn the_game_is_drawn_when_everyone_must_pass() {
    for side in [0, 1] {
        let p = position(&ALL_STUCK.replace(" 0 0 -", &format!(" {side} 0 -")));
        assert!(p.legal_moves().is_empty());
        assert_eq!(
            p.outcome(),
            Outcome::Draw {
                reason: DrawReason::NoMoves
            }
        );
        assert_eq!(p.results(), [0.0, 0.0]);
        assert_eq!(
            p.parse_move(&"pass".parse().unwrap()),
            Err(IllegalMove::GameOver)
        );
    }
}

// ---- §2 Unused triangles -----------------------------------------------------

#[test]
fn filled_unused_triangles_hold_neutral_pegs_that_never_move() {
    let start = Position::start(
        Board::STANDARD,
        Layout::standard(2).unwrap(),
        "classic,unused_triangles=filled".parse().unwrap(),
    )
    .unwrap();
    let geometry = start.geometry();
    let side_triangles = [
        Triangle::NorthEast,
        Triangle::SouthEast,
        Triangle::SouthWest,
        Triangle::NorthWest,
    ]
    .iter()
    .fold(sternhalma::CellSet::EMPTY, |all, &t| {
        all.union(geometry.triangle(t))
    });
    assert_eq!(start.neutral(), side_triangles);
    let corner = geometry.triangle(Triangle::SouthWest).first_cell().unwrap();
    assert!(matches!(
        start.parse_move(&MoveText::Path(vec![corner.id(), 60])),
        Err(IllegalMove::NotYourPeg { owner: None, .. })
    ));
    // Three players use every triangle: nothing to fill.
    let three = Position::start(
        Board::STANDARD,
        Layout::standard(3).unwrap(),
        "classic,unused_triangles=filled".parse().unwrap(),
    )
    .unwrap();
    assert!(three.neutral().is_empty());
}

/// Why no test hops over a neutral peg: every hop over a triangle's hole
/// lands inside that triangle or off the board, and a filled triangle is
/// full. The engine still treats neutral pegs as pegs to hop over.
#[test]
fn a_hop_over_a_triangle_hole_lands_in_the_triangle_or_off_the_board() {
    for size in 1..=4 {
        let geometry = Board::star(size).unwrap().geometry();
        for over in geometry.cells() {
            let Some(triangle) = geometry.triangle_of(over) else {
                continue;
            };
            for from in geometry.neighbors(over) {
                let Some((direction, 1)) = geometry.line_between(from, over) else {
                    unreachable!()
                };
                if let Some(landing) = geometry.neighbor(over, direction) {
                    assert!(
                        geometry.triangle_of(from) == Some(triangle)
                            || geometry.triangle_of(landing) == Some(triangle),
                        "star{size}: {from} over {over} to {landing}"
                    );
                }
            }
        }
    }
}

// ---- §4 Anti-spoiling --------------------------------------------------------

#[test]
fn without_anti_spoiling_a_blocked_target_is_not_home() {
    // rhombus4p6: south fills its target 0-5 except 5; north's peg holds 0.
    let classic = position("rhombus4p6 classic south:1-4,6,9/north:0,10-14 0 0 -");
    let after = play(&classic, "9-5");
    assert!(!after.is_player_home(0));
    assert_eq!(after.outcome(), Outcome::InProgress);
    // Blocking is legal: north may keep its peg on 0 for ever.
    assert_eq!(after.owner_at(Cell::new(0).unwrap()), Some(1));
}

#[test]
fn fill_available_counts_a_full_target_with_the_others_pegs_as_home() {
    let research = position("rhombus4p6 research south:1-4,6,9/north:0,10-14 0 0 -");
    let after = play(&research, "9-5");
    assert!(after.is_player_home(0));
    assert_eq!(after.outcome(), Outcome::Won { winner: 0 });
    assert_eq!(after.results(), [1.0, -1.0]);
    // The start position is not home: a set needs at least one peg of its own
    // in its target.
    let start = Position::start(
        "rhombus9p10".parse().unwrap(),
        Layout::standard(2).unwrap(),
        "research".parse().unwrap(),
    )
    .unwrap();
    assert!(!start.is_player_home(0) && !start.is_player_home(1));
    // A position where both are home must say so.
    let err = "rhombus4p6 research south:1-5,15/north:0,10-14 0 0 -"
        .parse::<Position>()
        .unwrap_err();
    assert!(err.to_string().contains("not listed as finished"), "{err}");
}

#[test]
fn swap_exchanges_with_another_players_peg_in_the_movers_target() {
    // star1 holes: 0 is the north tip (south's target), 2 and 3 lie below it.
    let p = position("star1 masters south:2/north:0 0 0 -");
    let swap = Move::Swap {
        from: Cell::new(2).unwrap(),
        to: Cell::new(0).unwrap(),
    };
    assert!(p.legal_moves().contains(&swap));
    let after = p.play(swap).unwrap();
    assert_eq!(after.owner_at(Cell::new(0).unwrap()), Some(0));
    assert_eq!(after.owner_at(Cell::new(2).unwrap()), Some(1));
    assert_eq!(after.outcome(), Outcome::Won { winner: 0 });
    // Without the swap rule the occupied target hole is just occupied.
    let classic = position("star1 classic south:2/north:0 0 0 -");
    assert_eq!(
        classic.parse_move(&"2-0".parse().unwrap()),
        Err(IllegalMove::Occupied { hole: 0 })
    );
    // Only in the mover's own target: hole 2 is not in south's.
    let outside = position("star1 masters south:6/north:2 0 0 -");
    assert!(matches!(
        outside.parse_move(&"6-2".parse().unwrap()),
        Err(IllegalMove::SwapNotAllowed { hole: 2, .. })
    ));
}

fn ids(cells: &[Cell]) -> Vec<usize> {
    cells.iter().map(|c| c.id()).collect()
}

fn swap(from: usize, to: usize) -> Move {
    Move::Swap {
        from: Cell::new(from).unwrap(),
        to: Cell::new(to).unwrap(),
    }
}

#[test]
fn a_swap_may_be_a_step_a_hop_or_the_last_hop_of_a_chain() {
    // A single hop: three players on star1, south on 7 hops over
    // north_west's peg on 3 onto north_east's peg on 0, in south's target.
    let p = position("star1 masters south:7/north_west:3/north_east:0 0 0 -");
    assert!(p.legal_moves().contains(&swap(7, 0)));
    assert_eq!(ids(&p.witness_path(swap(7, 0))), [7, 0]);
    let after = p.play(swap(7, 0)).unwrap();
    assert_eq!(after.owner_at(Cell::new(7).unwrap()), Some(2));
    assert_eq!(after.owner_at(Cell::new(0).unwrap()), Some(0));

    // A chain (star2): south's peg on 20 hops over 14 to the empty 7, then
    // over north's peg on 2 onto north's peg on 0, in south's target.
    let p = position("star2 masters south:20,34,35/north:0,2,14 0 0 -");
    let chain = swap(20, 0);
    assert!(p.legal_moves().contains(&chain));
    assert!(p.legal_moves_from(Cell::new(20).unwrap()).contains(&chain));
    assert_eq!(p.parse_move(&"20-0".parse().unwrap()), Ok(chain));
    assert_eq!(ids(&p.witness_path(chain)), [20, 7, 0]);
    let played = p.resolve(&"20-0".parse().unwrap()).unwrap();
    assert_eq!(ids(&played.path), [20, 7, 0]);
    assert_eq!(
        played.swapped,
        Some(Swapped {
            player: 1,
            from: Cell::new(0).unwrap(),
            to: Cell::new(20).unwrap(),
        })
    );
    // The displaced peg goes to the hole where the move began, not to the
    // chain's last empty landing; the hash follows.
    let after = p.play(chain).unwrap();
    assert_eq!(after.owner_at(Cell::new(0).unwrap()), Some(0));
    assert_eq!(after.owner_at(Cell::new(20).unwrap()), Some(1));
    assert_eq!(after.owner_at(Cell::new(7).unwrap()), None);
    assert_eq!(after.occupied(), p.occupied());
    assert_eq!(
        after.to_string(),
        "star2 masters south:0,34,35/north:2,14,20 1 1 -"
    );
    let rebuilt = after.to_setup().validate().unwrap();
    assert_eq!(rebuilt.zobrist_hash(), after.zobrist_hash());
    let mut undone = p.clone();
    let undo = undone.make_move(chain);
    undone.unmake_move(chain, undo);
    assert_eq!((&undone, undone.zobrist_hash()), (&p, p.zobrist_hash()));
}

#[test]
fn a_swap_chain_may_use_long_jumps() {
    // star2: 33 hops over 26 to 20, then long-jumps over 7 (14 and 2
    // empty) onto north's peg on 0.
    let text = "star2 masters,long_jumps=on south:33-35/north:0,7,26 0 0 -";
    let p = position(text);
    assert!(p.legal_moves().contains(&swap(33, 0)));
    assert_eq!(ids(&p.witness_path(swap(33, 0))), [33, 20, 0]);
    assert_eq!(p.parse_move(&"33-20-0".parse().unwrap()), Ok(swap(33, 0)));
    let after = p.play(swap(33, 0)).unwrap();
    assert_eq!(after.owner_at(Cell::new(33).unwrap()), Some(1));
    // Without long jumps no chain ends on 0.
    let p = position(&text.replace(",long_jumps=on", ""));
    assert!(!p.legal_moves().contains(&swap(33, 0)));
    assert_eq!(
        p.parse_move(&"33-0".parse().unwrap()),
        Err(IllegalMove::SwapNotAllowed {
            hole: 0,
            reason: "no step, hop or chain of hops ends on the peg"
        })
    );
    assert_eq!(
        p.parse_move(&"33-20-0".parse().unwrap()),
        Err(IllegalMove::LongJumpsOff { from: 20, to: 0 })
    );
}

#[test]
fn a_swap_chain_may_finish_the_mover() {
    // Four players on star1: south's peg on 12 hops over 10 to 7, then over
    // 3 onto north_east's peg on 0, south's whole target. North_east's peg
    // goes to 12, which is not its target: south alone finishes.
    let p = position("star1 masters south:12/south_west:10/north:3/north_east:0 0 0 -");
    assert_eq!(ids(&p.witness_path(swap(12, 0))), [12, 7, 0]);
    let after = play(&p, "12-7-0");
    assert_eq!(after.owner_at(Cell::new(12).unwrap()), Some(3));
    assert_eq!(after.outcome(), Outcome::Won { winner: 0 });
    assert_eq!(after.finishers().len(), 1);
}

#[test]
fn one_swap_may_finish_two_players() {
    // As above, but the peg on 0 is north's, whose target is 12: the mover
    // finishes by the swap and the displaced peg finishes north. Both are
    // recorded on the same ply, the mover first, and share the win.
    let text = "star1 masters south:12/south_west:10/north:0/north_east:3 0 0 -";
    let after = play(&position(text), "12-0");
    let finishers: Vec<(usize, u32)> = after
        .finishers()
        .iter()
        .map(|f| (f.player, f.ply))
        .collect();
    assert_eq!(finishers, [(0, 1), (2, 1)]);
    assert_eq!(
        after.outcome(),
        Outcome::Tie {
            winners: vec![0, 2]
        }
    );
    // Under ranking they share the first rank and the game goes on.
    let ranking = text.replace("masters", "masters,finish=ranking");
    let after = play(&position(&ranking), "12-0");
    assert_eq!(after.outcome(), Outcome::InProgress);
    assert_eq!(after.side_to_move(), 1);
}

#[test]
fn a_full_path_may_end_in_a_swap_but_not_go_on_after_one() {
    let p = position("star2 masters south:20,34,35/north:0,2,14 0 0 -");
    assert_eq!(p.parse_move(&"20-7-0".parse().unwrap()), Ok(swap(20, 0)));
    assert_eq!(
        ids(&p.resolve(&"20-7-0".parse().unwrap()).unwrap().path),
        [20, 7, 0]
    );
    // A middle landing on a peg: occupied (7 is outside south's target).
    let blocked = position("star2 masters south:20,34,35/north:0,2,7 0 0 -");
    assert_eq!(
        blocked.parse_move(&"20-7-0".parse().unwrap()),
        Err(IllegalMove::Occupied { hole: 7 })
    );
    assert_eq!(
        blocked
            .parse_move(&"20-7-0".parse().unwrap())
            .unwrap_err()
            .code(),
        "hole_occupied"
    );
    // A middle landing on a peg that could be swapped with: the swap would
    // end the move. South's peg on 14 hops over 7 onto north's peg on 2,
    // then tries to hop on over 6 to 12.
    let p = position("star2 masters south:6,14,34/north:0,2,7 0 0 -");
    assert!(p.legal_moves().contains(&swap(14, 2)));
    assert_eq!(
        p.parse_move(&"14-2-12".parse().unwrap()),
        Err(IllegalMove::SwapNotAllowed {
            hole: 2,
            reason: "a swap ends the move; no hop may follow it"
        })
    );
}

#[test]
fn a_chain_onto_the_movers_own_peg_or_a_neutral_peg_is_no_swap() {
    // Standard board: south's peg on (2,-3) hops over (3,-4) into its target
    // at (4,-5), then over (4,-6) onto (4,-7).
    let chain = [(2, -3), (4, -5), (4, -7)];
    let id = |q, r| cell(q, r).id();
    let own = Scene::new("masters")
        .south(&[(2, -3), (4, -7)])
        .north(&[(3, -4), (4, -6)])
        .build();
    let refusal = IllegalMove::SwapNotAllowed {
        hole: id(4, -7),
        reason: "the peg there is your own",
    };
    assert_eq!(own.parse_move(&path(&chain)), Err(refusal.clone()));
    assert_eq!(
        own.parse_move(&format!("{}-{}", id(2, -3), id(4, -7)).parse().unwrap()),
        Err(refusal)
    );
    assert!(!ends(&own, (2, -3)).contains(&(4, -7)));
    // The same chain onto north's peg is a swap, through the target hole.
    let other = Scene::new("masters")
        .south(&[(2, -3)])
        .north(&[(3, -4), (4, -6), (4, -7)])
        .build();
    let mv = other.parse_move(&path(&chain)).unwrap();
    assert_eq!(mv.kind(), MoveKind::Swap);
    assert_eq!(ids(&other.witness_path(mv)), chain.map(|(q, r)| id(q, r)));
    // star2 with neutral pegs: 18 hops over 19 to 20, then over the neutral
    // peg on 15 onto the neutral peg on 9, outside south's target.
    let neutral =
        position("star2 masters,unused_triangles=filled south:18,34,35/north:0,1,19 0 0 -");
    let refusal = IllegalMove::SwapNotAllowed {
        hole: 9,
        reason: "swaps happen only in the moving peg's own target triangle",
    };
    assert_eq!(
        neutral.parse_move(&"18-20-9".parse().unwrap()),
        Err(refusal.clone())
    );
    assert_eq!(neutral.parse_move(&"18-9".parse().unwrap()), Err(refusal));
}

// ---- §4 Winning and how the game ends ---------------------------------------
// star1 holes: 0 north tip, 1 north_west tip, 4 north_east tip, 6 centre,
// 8 south_west tip, 11 south_east tip, 12 south tip.

fn play_all(position: &Position, moves: &[&str]) -> Position {
    moves.iter().fold(position.clone(), |p, mv| play(&p, mv))
}

#[test]
fn finish_first_ends_the_game_at_the_first_finisher() {
    let p = position("star1 classic south:2/north:6 0 0 -");
    let after = play(&p, "2-0");
    assert_eq!(after.outcome(), Outcome::Won { winner: 0 });
    assert_eq!(after.finishers()[0].ply, 1);
    assert!(after.legal_moves().is_empty());
    assert_eq!(
        after.parse_move(&"6-5".parse().unwrap()),
        Err(IllegalMove::GameOver)
    );
}

#[test]
fn finish_round_plays_the_round_out_and_shares_the_win() {
    let p = position("star1 classic,finish=round south:2/north:10 0 0 -");
    let first = play(&p, "2-0");
    assert_eq!(first.outcome(), Outcome::InProgress, "north still moves");
    assert_eq!(first.side_to_move(), 1);
    assert_eq!(
        play(&first, "10-12").outcome(),
        Outcome::Tie {
            winners: vec![0, 1]
        }
    );
    assert_eq!(play(&first, "10-12").results(), [0.0, 0.0]);
    assert_eq!(play(&first, "10-9").outcome(), Outcome::Won { winner: 0 });
    // The last player of the round finishing ends it at once.
    let p = position("star1 classic,finish=round south:6/north:10 1 1 -");
    assert_eq!(play(&p, "10-12").outcome(), Outcome::Won { winner: 1 });
}

#[test]
fn finish_ranking_skips_finished_players_until_one_is_left() {
    let p = position("star1 classic,finish=ranking south:2/north_west:7/north_east:5 0 0 -");
    let after = play_all(&p, &["2-0", "7-3", "5-9"]);
    assert_eq!(after.outcome(), Outcome::InProgress);
    assert_eq!(after.side_to_move(), 1, "south has finished and is skipped");
    let end = play_all(&after, &["3-7", "9-8"]);
    assert_eq!(
        end.outcome(),
        Outcome::Ranking {
            ranks: vec![vec![0], vec![2], vec![1]]
        }
    );
    assert_eq!(end.results(), [1.0, -1.0, 0.0]);
}

#[test]
fn the_move_limit_draws_among_those_not_finished() {
    let p = position("star1 classic,max_plies=2 south:6/north:2 0 0 -");
    let end = play_all(&p, &["6-5", "2-3"]);
    assert_eq!(
        end.outcome(),
        Outcome::Draw {
            reason: DrawReason::MoveLimit
        }
    );
    assert!(end.legal_moves().is_empty());
    let ranking = position(
        "star1 classic,finish=ranking,max_plies=3 south:2/north_west:7/north_east:5 0 0 -",
    );
    assert_eq!(
        play_all(&ranking, &["2-0", "7-3", "5-9"]).outcome(),
        Outcome::Ranking {
            ranks: vec![vec![0], vec![1, 2]]
        }
    );
}

// ---- §2 Setup: layouts, turn order, first player -----------------------------

#[test]
fn turns_pass_clockwise_and_the_first_player_is_an_input() {
    let mut p = Position::start(
        Board::STANDARD,
        Layout::standard(6).unwrap(),
        "classic".parse().unwrap(),
    )
    .unwrap();
    let mut movers = Vec::new();
    for _ in 0..7 {
        let mv = p.legal_moves()[0];
        let set = p.set_at(mv.from().unwrap()).unwrap();
        movers.push(p.layout().set_triangle(set));
        p = p.play(mv).unwrap();
    }
    use Triangle::*;
    assert_eq!(
        movers,
        [
            South, SouthWest, NorthWest, North, NorthEast, SouthEast, South
        ]
    );
    let mut setup = Setup::start(
        Board::STANDARD,
        Layout::standard(2).unwrap(),
        "classic".parse().unwrap(),
    );
    setup.side_to_move = 1;
    let north_first = setup.validate().unwrap();
    let north = north_first.geometry().triangle(North);
    assert!(
        north_first
            .legal_moves()
            .iter()
            .all(|m| north.contains(m.from().unwrap()))
    );
}

#[test]
fn a_player_with_several_sets_moves_any_of_them_and_finishes_with_all() {
    let p = Position::start(
        Board::STANDARD,
        Layout::two_players_three_sets(),
        "classic".parse().unwrap(),
    )
    .unwrap();
    let geometry = p.geometry();
    let mut moved_from: Vec<Triangle> = p
        .legal_moves()
        .iter()
        .map(|m| geometry.triangle_of(m.from().unwrap()).unwrap())
        .collect();
    moved_from.sort();
    moved_from.dedup();
    assert_eq!(
        moved_from,
        [Triangle::NorthEast, Triangle::South, Triangle::NorthWest]
    );
    // star1: player 0's south and north_west sets are home, north_east is
    // not; the game goes on until it is.
    let p = position(
        "star1 classic south:0+north_west:11+north_east:5/north:6+south_east:3+south_west:10 0 0 -",
    );
    assert!(p.is_home(0) && p.is_home(1) && !p.is_home(2));
    assert_eq!(p.outcome(), Outcome::InProgress);
    assert_eq!(play(&p, "5-8").outcome(), Outcome::Won { winner: 0 });
}

#[test]
fn under_round_a_finished_player_passes_until_the_round_ends() {
    // star1, family rules (fill_available, round), three players: north_west
    // (player 1) is home on 11, recorded as finished at ply 1, and it is
    // their turn: they pass, the round ends after player 2, and player 1 wins.
    let p = position("star1 family south:6/north_west:11/north_east:5 1 1 1@1");
    assert_eq!(p.legal_moves(), [Move::Pass]);
    assert_eq!(
        p.parse_move(&"11-7".parse().unwrap()),
        Err(IllegalMove::FinishedMustPass { player: 1 })
    );
    let after = play(&p, "pass");
    assert_eq!(
        (after.side_to_move(), after.outcome()),
        (2, Outcome::InProgress)
    );
    assert_eq!(play(&after, "5-9").outcome(), Outcome::Won { winner: 1 });
}

// ---- Resigning with three or more players (docs/rules.md) ---------------------

const FOUR: &str =
    "star2 classic south:34-36/south_west:21,27,28/north:0-2/north_east:8,9,15 0 0 -";
const THREE: &str = "star2 classic south:34-36/north_west:3,4,10/north_east:8,9,15 0 0 -";

#[test]
fn a_resigning_player_leaves_and_the_others_play_on() {
    // Four players; south (0) moves, then south_west (1) resigns on its turn.
    let p = position(FOUR).play_text("34-29").unwrap();
    assert_eq!(p.side_to_move(), 1);
    let after = p.resign(1).unwrap();
    assert!(after.is_resigned(1));
    assert_eq!(after.outcome(), Outcome::InProgress);
    assert_eq!(after.side_to_move(), 2, "the turn passes on");
    assert_eq!(after.ply(), 1, "a resignation is not a move");
    // Its pegs stay on the board, and its turns are skipped from now on.
    assert_eq!(after.player_pegs(1), p.player_pegs(1));
    let mut game = after.clone();
    for _ in 0..6 {
        let mover = game.side_to_move();
        assert_ne!(mover, 1, "a resigned player never moves");
        let mv = game.legal_moves()[0];
        game = game.play(mv).unwrap();
    }
    // The string and the JSON-free setup carry the resignation, and the
    // hash follows it.
    assert_eq!(
        after.to_string(),
        "star2 classic south:29,35,36/south_west:21,27,28/north:0-2/north_east:8,9,15 2 1 - 1@1"
    );
    let back: Position = after.to_string().parse().unwrap();
    assert_eq!(back, after);
    assert_eq!(back.zobrist_hash(), after.zobrist_hash());
    assert_ne!(after.zobrist_hash(), p.zobrist_hash());
}

#[test]
fn a_resigned_players_pegs_are_obstacles_that_can_be_hopped() {
    // north_west (1) resigns with a peg on 24, next to south's 30 ...
    let p = position("star2 classic south:30,35,36/north_west:3,4,24/north_east:8,9,15 1 0 -");
    let after = p.resign(1).unwrap();
    assert_eq!(after.side_to_move(), 2);
    let after = after.play_text("8-7").unwrap();
    // ... and south hops over it: from 30 (-1, 2) over 24 (0, 1) to 19 (1, 0).
    let hop = after.parse_move(&"30-19".parse().unwrap()).unwrap();
    assert_eq!(hop.kind(), MoveKind::Hop);
}

#[test]
fn the_game_ends_when_one_player_is_left_resigners_ranked_last() {
    let p = position(THREE);
    let one = p.resign(0).unwrap();
    let over = one.resign(2).unwrap();
    assert!(over.is_game_over());
    assert!(over.legal_moves().is_empty());
    // The last to resign ranks above the first.
    assert_eq!(
        over.outcome(),
        Outcome::Ranking {
            ranks: vec![vec![1], vec![2], vec![0]]
        }
    );
    assert_eq!(over.results(), [-1.0, 1.0, 0.0]);
    assert_eq!(over.resign(1), Err(IllegalMove::GameOver));
}

#[test]
fn a_draw_by_the_move_limit_ranks_resigners_below_the_rest() {
    let p = position(&THREE.replace("classic", "classic,max_plies=2"));
    let p = p.resign(1).unwrap().play_text("34-29").unwrap();
    let p = p.play(p.legal_moves()[0]).unwrap();
    assert_eq!(p.ply(), 2);
    assert_eq!(
        p.outcome(),
        Outcome::Ranking {
            ranks: vec![vec![0, 2], vec![1]]
        }
    );
    assert_eq!(p.results(), [0.5, -1.0, 0.5]);
}

#[test]
fn a_finisher_still_wins_under_first() {
    // south (0) one step from home on star1, three players; north_west resigned.
    let p = position("star1 classic south:2/north_west:3/north_east:9 0 0 -");
    let p = p.resign(1).unwrap();
    let won = p.play_text("2-0").unwrap();
    assert_eq!(won.outcome(), Outcome::Won { winner: 0 });
}

#[test]
fn resignations_the_rules_refuse() {
    let code = |result: Result<Position, IllegalMove>| result.unwrap_err().code();
    // Two players: a resignation ends the game (Outcome::resignation).
    let two = position("star4 classic south:111-120/north:0-9 0 0 -");
    assert_eq!(code(two.resign(0)), "cannot_resign");
    let three = position(THREE);
    assert_eq!(code(three.resign(3)), "cannot_resign");
    assert_eq!(code(three.resign(1).unwrap().resign(1)), "cannot_resign");
    let finished =
        position("star1 classic,finish=ranking south:0/north_west:3/north_east:9 1 1 0@1");
    assert_eq!(code(finished.resign(0)), "cannot_resign");
}

#[test]
fn resignations_in_a_setup_are_validated() {
    let problems = |text: &str| -> Vec<&'static str> {
        text.parse::<Setup>()
            .unwrap()
            .validate()
            .unwrap_err()
            .problems()
            .iter()
            .map(|p| p.code())
            .collect()
    };
    let base = "star2 classic south:34-36/north_west:3,4,10/north_east:8,9,15";
    assert_eq!(
        problems(&format!("{base} 1 0 - 1@0")),
        ["side_to_move_resigned"]
    );
    assert_eq!(problems(&format!("{base} 0 0 - 5@0")), ["bad_resignation"]);
    assert_eq!(
        problems(&format!("{base} 0 0 - 1@0,1@0")),
        ["bad_resignation"]
    );
    assert_eq!(problems(&format!("{base} 0 0 - 1@3")), ["bad_resignation"]);
    assert_eq!(
        problems("star4 classic south:111-120/north:0-9 0 0 - 1@0"),
        ["bad_resignation"],
        "no resignation with two players"
    );
    assert!(format!("{base} 0 0 - 1@0").parse::<Position>().is_ok());
}

#[test]
fn a_resigned_player_never_finishes() {
    // north_west (1) resigned with its only peg already in its target (11):
    // home, but it has left the game, so it is not finished, and the
    // position is valid without listing it.
    let p = position("star1 classic south:12/north_west:11/north_east:4 0 0 - 1@0");
    assert!(p.is_player_home(1));
    assert!(!p.is_finished(1));
    assert_eq!(p.outcome(), Outcome::InProgress);
    let after = p.play_text("12-9").unwrap();
    assert!(!after.is_finished(1));
    assert_eq!(after.side_to_move(), 2, "its turn is skipped");
}
