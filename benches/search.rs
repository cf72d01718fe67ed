//! Search speed: alpha-beta nodes per second at a fixed node budget, and
//! MCTS playouts per second at a fixed playout budget.
//!
//! Each bench asserts the work it times (the nodes or playouts the search
//! reports, and the move it chooses), so a change in the search shows up as
//! a failure rather than as a different speed. A bench never passes or
//! fails on time. Results are in `BENCHMARKS.md`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use sternhalma::Position;
use sternhalma::search::{BotConfig, BotKind, Budget, new_bot};

/// The 2-player middle game of `benches/movegen.rs` (40 plies, 71 moves).
const TWO_PLAYER_MIDDLE: &str = "star4 classic \
    south:59,64,72,80,81,91,102,105,116,120/north:5,6,14,17,29,32,38,42,54,90 0 40 -";

/// The 3-player start, for the paranoid search.
const THREE_PLAYER_START: &str = "star4 classic \
    south:111-120/north_west:10-13,23-25,35,36,46/north_east:19-22,32-34,44,45,55 0 0 -";

fn searches(c: &mut Criterion) {
    let middle: Position = TWO_PLAYER_MIDDLE.parse().unwrap();
    let three: Position = THREE_PLAYER_START.parse().unwrap();
    let cases = [
        (
            "alphabeta_2p_middle_100k_nodes",
            BotKind::AlphaBeta,
            100_000,
            &middle,
        ),
        (
            "paranoid_3p_start_100k_nodes",
            BotKind::Paranoid,
            100_000,
            &three,
        ),
        ("mcts_2p_middle_2k_playouts", BotKind::Mcts, 2_000, &middle),
    ];
    let mut group = c.benchmark_group("search");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(8));
    for (name, kind, nodes, position) in cases {
        let config = BotConfig::new(kind)
            .with_budget(Budget::nodes(nodes))
            .with_seed(1);
        let expected = new_bot(&config, None).search(position);
        assert_eq!(expected.nodes, nodes, "{name}: the budget is used in full");
        group.throughput(Throughput::Elements(nodes));
        group.bench_function(name, |b| {
            b.iter(|| {
                let result = new_bot(&config, None).search(black_box(position));
                assert_eq!(
                    (result.best_move, result.nodes),
                    (expected.best_move, nodes)
                );
            });
        });
    }
    group.finish();
}

criterion_group!(benches, searches);
criterion_main!(benches);
