//! The solver against plain breadth-first searches over the crate's own
//! move generator, on boards small enough for the test suite.

use std::collections::{HashMap, VecDeque};

use super::heuristic::{Heuristic, MAX_STATES, UNREACHABLE};
use super::moves::{BitMove, generate};
use super::tables::Tables;
use super::*;
use crate::board::Triangle;
use crate::cell::CellSet;
use crate::moves::MoveKind;
use crate::setup::{PegSet, Setup};

/// The single-player position with the south set on `pegs`.
fn position_with(board: Board, pegs: u128) -> Option<Position> {
    Setup {
        board,
        rules: Problem::rules(),
        players: vec![vec![PegSet {
            triangle: Triangle::South,
            pegs: CellSet(pegs).iter().map(Cell::id).collect(),
        }]],
        neutral: None,
        side_to_move: 0,
        ply: 0,
        finished: Vec::new(),
        resigned: Vec::new(),
    }
    .validate()
    .ok()
}

/// The crate's moves of the lone set, hops only if asked.
fn crate_moves(position: &Position, hops_only: bool) -> Vec<Move> {
    position
        .legal_moves()
        .into_iter()
        .filter(|mv| mv.kind() != MoveKind::Pass && (!hops_only || mv.kind() == MoveKind::Hop))
        .collect()
}

/// Every position reachable from the start, with the crate's moves, and
/// for each its successors: the explicit graph of the problem.
fn explore(problem: &Problem) -> HashMap<u128, Vec<u128>> {
    let start = problem.start_position();
    let mut graph = HashMap::new();
    let mut queue = VecDeque::from([start]);
    graph.insert(queue[0].pegs(0).0, Vec::new());
    while let Some(position) = queue.pop_front() {
        let pegs = position.pegs(0).0;
        if position.is_home(0) {
            continue;
        }
        let mut children = Vec::new();
        for mv in crate_moves(&position, problem.hops_only) {
            let child = position.play(mv).expect("legal");
            let key = child.pegs(0).0;
            children.push(key);
            if let std::collections::hash_map::Entry::Vacant(slot) = graph.entry(key) {
                slot.insert(Vec::new());
                queue.push_back(child);
            }
        }
        graph.insert(pegs, children);
    }
    graph
}

/// Exact distance to the goal of every position of the graph (absent:
/// the goal cannot be reached from it).
fn distances_to_goal(graph: &HashMap<u128, Vec<u128>>, goal: u128) -> HashMap<u128, u32> {
    let mut parents: HashMap<u128, Vec<u128>> = HashMap::new();
    for (&state, children) in graph {
        for &child in children {
            parents.entry(child).or_default().push(state);
        }
    }
    let mut distance = HashMap::from([(goal, 0u32)]);
    let mut queue = VecDeque::from([goal]);
    while let Some(state) = queue.pop_front() {
        let d = distance[&state];
        for &parent in parents.get(&state).map_or(&[][..], Vec::as_slice) {
            if let std::collections::hash_map::Entry::Vacant(slot) = distance.entry(parent) {
                slot.insert(d + 1);
                queue.push_back(parent);
            }
        }
    }
    distance
}

fn small_problems() -> Vec<Problem> {
    let mut problems = Vec::new();
    for (side, rows) in [(3, 1), (4, 1), (4, 2), (5, 2), (6, 2), (4, 3)] {
        for hops_only in [false, true] {
            problems.push(Problem::new(Board::rhombus(side, rows).unwrap(), hops_only));
        }
    }
    for hops_only in [false, true] {
        problems.push(Problem::new(Board::star(1).unwrap(), hops_only));
        problems.push(Problem::new(Board::star(2).unwrap(), hops_only));
    }
    problems
}

#[test]
fn moves_on_the_bit_set_are_the_crate_moves() {
    for problem in small_problems() {
        let tables = Tables::new(problem.board);
        let graph = explore(&problem);
        for &pegs in graph.keys() {
            if pegs == tables.goal {
                continue;
            }
            let position = position_with(problem.board, pegs).expect("valid");
            let mut ours = Vec::new();
            generate(&tables, pegs, problem.hops_only, &mut ours);
            ours.sort_unstable_by_key(|m| (m.from, m.to));
            let theirs: Vec<BitMove> = crate_moves(&position, problem.hops_only)
                .into_iter()
                .map(|mv| BitMove {
                    from: mv.from().unwrap().id() as u8,
                    to: mv.to().unwrap().id() as u8,
                })
                .collect();
            assert_eq!(ours, theirs, "{problem:?} {:?}", CellSet(pegs));
        }
    }
}

#[test]
fn lower_bound_never_exceeds_the_exact_distance() {
    for problem in small_problems() {
        let tables = Tables::new(problem.board);
        let heuristic = Heuristic::new(&tables, problem.hops_only, MAX_STATES);
        let graph = explore(&problem);
        let exact = distances_to_goal(&graph, tables.goal);
        for &pegs in graph.keys() {
            let bound = heuristic.bound(pegs);
            // A dead end (no exact distance) admits any bound.
            if let Some(&d) = exact.get(&pegs) {
                assert!(u32::from(bound) <= d, "{problem:?} {pegs:b}: {bound} > {d}");
            }
            if bound == UNREACHABLE {
                assert!(!exact.contains_key(&pegs));
            }
        }
    }
}

#[test]
fn solver_agrees_with_breadth_first_search_and_replays() {
    for problem in small_problems() {
        let tables = Tables::new(problem.board);
        let graph = explore(&problem);
        let exact = distances_to_goal(&graph, tables.goal);
        // The search from both ends (the default); IDA* without the
        // perimeter (which covers these small boards whole), where the line
        // projections and the search do all the work; and with it.
        let result = solve(&problem, SolveOptions::default());
        for perimeter_states in [0, 200_000] {
            let ida = solve(
                &problem,
                SolveOptions {
                    method: Method::Ida,
                    perimeter_states,
                    table_bits: 16,
                    ..SolveOptions::default()
                },
            );
            assert_eq!(
                result.as_ref().map(|s| s.length),
                ida.as_ref().map(|s| s.length),
                "{problem:?}"
            );
            assert_eq!(
                ida.as_ref().map(|s| s.optimal).ok(),
                result.as_ref().map(|s| s.optimal).ok()
            );
        }
        match exact.get(&tables.start) {
            Some(&d) => {
                let solution = result.expect("solvable");
                assert_eq!(solution.length as u32, d, "{problem:?}");
                assert!(solution.optimal);
                let mut position = problem.start_position();
                for &mv in &solution.moves {
                    assert!(!problem.hops_only || mv.kind() == MoveKind::Hop);
                    position = position.play(mv).expect("legal");
                }
                assert!(position.is_home(0));
                assert_eq!(position.pegs(0).0, tables.goal);
            }
            None => assert_eq!(result, Err(SolveError::Unsolvable), "{problem:?}"),
        }
    }
}

#[test]
fn node_limit_reports_a_proven_lower_bound() {
    let problem = Problem::new(Board::rhombus(7, 3).unwrap(), false);
    let start = initial_lower_bound(&problem).unwrap();
    match solve(
        &problem,
        SolveOptions {
            max_nodes: Some(100),
            perimeter_states: 1000,
            table_bits: 16,
            ..SolveOptions::default()
        },
    ) {
        Err(SolveError::NodeLimit { lower_bound, nodes }) => {
            // The heuristic's bound, or the perimeter's if higher; the
            // optimum is 17 (the BFS test above checks smaller boards).
            assert!((start..=17).contains(&lower_bound), "{lower_bound}");
            assert!(nodes <= 101);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn progress_is_reported_and_can_stop_the_search() {
    let problem = Problem::new(Board::rhombus(9, 3).unwrap(), false);
    let mut calls = 0;
    let mut callback = |p: &Progress| {
        calls += 1;
        assert!(p.nodes > 0 && p.bound > 0);
        ControlFlow::Break(())
    };
    let result = solve(
        &problem,
        SolveOptions {
            progress: Some(&mut callback),
            progress_interval: Duration::ZERO,
            perimeter_states: 1000,
            table_bits: 16,
            ..SolveOptions::default()
        },
    );
    assert!(matches!(result, Err(SolveError::Interrupted { .. })));
    assert_eq!(calls, 1);
}

#[test]
fn pinned_optimal_lengths() {
    // Found and proven by this solver; the boards up to 6x2 are also
    // checked against breadth-first search above. `None`: impossible.
    let cases: [(&str, bool, Option<usize>); 10] = [
        // RULES §6: Bell's 23 for six pegs; with hops only 35 (this
        // solver's, proven by both methods).
        ("rhombus9p6", false, Some(23)),
        ("rhombus9p6", true, Some(35)),
        ("rhombus5p3", false, Some(11)),
        ("rhombus7p3", false, Some(17)),
        ("rhombus7p3", true, None),
        ("rhombus9p3", false, Some(23)),
        ("rhombus7p6", false, Some(17)),
        ("rhombus5p6", true, Some(15)),
        ("star2", false, Some(11)),
        ("star2", true, None),
    ];
    for (board, hops_only, length) in cases {
        let problem = Problem::new(board.parse().unwrap(), hops_only);
        let options = SolveOptions {
            perimeter_states: 100_000,
            ..SolveOptions::default()
        };
        let found = match solve(&problem, options) {
            Ok(solution) => Some(solution.length),
            Err(SolveError::Unsolvable) => None,
            Err(e) => panic!("{board}: {e}"),
        };
        assert_eq!(found, length, "{board} hops_only={hops_only}");
    }
}

#[test]
fn a_weight_finds_a_crossing_not_proven_optimal() {
    let problem = Problem::new(Board::rhombus(7, 3).unwrap(), false);
    let solution = solve(
        &problem,
        SolveOptions {
            weight: 2.0,
            ..SolveOptions::default()
        },
    )
    .unwrap();
    assert!(!solution.optimal);
    assert!((17..=34).contains(&solution.length));
    let mut position = problem.start_position();
    for &mv in &solution.moves {
        position = position.play(mv).unwrap();
    }
    assert!(position.is_home(0));
}

#[test]
fn a_child_is_bounded_from_its_parent_as_from_scratch() {
    use super::heuristic::ChildBound;
    use crate::search::Rng;
    for (board, hops_only) in [
        ("rhombus7p6", false),
        ("star3", false),
        ("rhombus9p6", true),
    ] {
        let tables = Tables::new(board.parse().unwrap());
        let heuristic = Heuristic::new(&tables, hops_only, super::heuristic::MAX_STATES);
        let mut rng = Rng::new(7);
        let mut pegs = tables.start;
        let mut moves = Vec::new();
        for _ in 0..300 {
            moves.clear();
            super::moves::generate_with(&tables, pegs, hops_only, false, &mut moves);
            let prepared = heuristic.prepare(pegs);
            for mv in &moves {
                let child = pegs ^ (1u128 << mv.from) ^ (1u128 << mv.to);
                let exact = heuristic.bound(child);
                for limit in 0..40 {
                    let expected = if exact == UNREACHABLE {
                        ChildBound::Unreachable
                    } else if u32::from(exact) > limit {
                        ChildBound::Over
                    } else {
                        ChildBound::Within
                    };
                    let got = heuristic.child_within(&prepared, mv.from, mv.to, limit);
                    // Stopping at the first projection over the limit may
                    // report Over where a later one is unreachable.
                    let agrees = got == expected
                        || (got == ChildBound::Over && expected == ChildBound::Unreachable);
                    assert!(agrees, "{board}: {got:?} vs {expected:?} at {limit}");
                }
            }
            if moves.is_empty() {
                break;
            }
            let mv = moves[rng.below(moves.len())];
            pegs ^= (1u128 << mv.from) ^ (1u128 << mv.to);
        }
    }
}

#[test]
fn every_board_has_the_half_turn_that_swaps_start_and_goal() {
    let mut boards: Vec<Board> = (1..=4)
        .map(|n| format!("star{n}").parse().unwrap())
        .collect();
    for side in 2..=11 {
        for home in 1..side {
            if let Ok(board) = format!("rhombus{side}x{home}").parse() {
                boards.push(board);
            }
        }
    }
    for board in boards {
        let tables = Tables::new(board);
        let image = super::meet::half_turn(&tables).expect("a half turn");
        for (hole, &turned) in image.iter().enumerate() {
            assert_eq!(usize::from(image[usize::from(turned)]), hole, "{board}");
            let (a, b) = (tables.axes[hole], tables.axes[usize::from(turned)]);
            // Half a turn keeps every line's direction: neighbours stay
            // neighbours.
            assert_eq!(
                a[0] + b[0],
                tables.axes[0][0] + tables.axes[usize::from(image[0])][0]
            );
            assert_eq!(
                a[1] + b[1],
                tables.axes[0][1] + tables.axes[usize::from(image[0])][1]
            );
        }
        let mut goal = 0u128;
        for (hole, &turned) in image.iter().enumerate() {
            if tables.start & (1u128 << hole) != 0 {
                goal |= 1u128 << turned;
            }
        }
        assert_eq!(goal, tables.goal, "{board}");
    }
}

#[test]
fn the_memory_budget_is_counted_and_stops_with_a_proven_bound() {
    let problem = Problem::new(Board::rhombus(7, 3).unwrap(), false);
    let solve_within = |budget: Option<u64>| {
        solve(
            &problem,
            SolveOptions {
                max_memory_bytes: budget,
                ..SolveOptions::default()
            },
        )
    };
    let free = solve_within(None).unwrap();
    assert_eq!(free.length, 17);
    // Counted, not measured: 16 bytes a position, so a multiple of 16.
    let needed = free.memory_bytes;
    assert!(needed > 0 && needed % 16 == 0, "{needed}");
    // Exactly what the solve reported is enough, and gives the same answer.
    let exact = solve_within(Some(needed)).unwrap();
    assert_eq!((exact.length, exact.nodes), (free.length, free.nodes));
    assert_eq!(exact.memory_bytes, needed);
    // A byte less stops it, with a proven bound, the same every time.
    let start = initial_lower_bound(&problem).unwrap();
    let stopped = solve_within(Some(needed - 1));
    match &stopped {
        Err(SolveError::MemoryLimit {
            lower_bound,
            nodes,
            memory_bytes,
        }) => {
            assert!((start..=17).contains(lower_bound), "{lower_bound}");
            assert!(*nodes <= free.nodes);
            assert!(*memory_bytes >= needed, "{memory_bytes}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(solve_within(Some(needed - 1)), stopped);
    assert!(
        stopped
            .unwrap_err()
            .to_string()
            .starts_with("memory budget reached after ")
    );
    // IDA* holds no levels: the budget does not stop it.
    let ida = solve(
        &problem,
        SolveOptions {
            method: Method::Ida,
            max_memory_bytes: Some(1),
            perimeter_states: 1000,
            table_bits: 16,
            ..SolveOptions::default()
        },
    )
    .unwrap();
    assert_eq!((ida.length, ida.memory_bytes), (17, 0));
}
