//! Local consistency of a solved table: each position's value agrees with
//! the rules and with its successors' values (`tablebase verify`).

use super::depth::{DRAW, Depths, ILLEGAL};
use super::game::{Game, Moves, Sets};
use super::table::{Table, Value};

/// Checks position `index` of `game`'s table `table` (and its depth, when
/// `depths` is given): an illegal position is marked illegal and nothing
/// else is; a position that is over is lost; a win has a lost successor; a
/// loss has only won successors; a draw has a drawn successor and no lost
/// one. With depths: a win in `d` has a lost successor in `d − 1` and none
/// quicker; a loss in `d` has its longest successor in `d − 1` (`d = 0`:
/// over, or no move).
///
/// # Errors
/// What is inconsistent, in words.
pub fn check_position(
    game: &Game,
    table: &Table,
    depths: Option<&Depths>,
    index: u64,
) -> Result<(), String> {
    let r = game.ranking();
    let (a, b) = r.position(index);
    let value = table.get(index);
    let at = || format!("position {index} (south {a:#x}, north {b:#x})");
    let block = index / r.block_len();
    // A twin of a symmetric block (`rank.rs`) holds no position: marked
    // illegal.
    let illegal = r.multiplicity(block, a, b) == 0 || game.is_illegal(a, b);
    if illegal != (value == Value::Illegal) {
        return Err(format!("{}: {value}, but illegal is {illegal}", at()));
    }
    if illegal {
        return match depths.map(|d| d.get(index)) {
            Some(d) if d != ILLEGAL => Err(format!("{}: illegal with depth {d}", at())),
            _ => Ok(()),
        };
    }
    let over = game.is_over(a, b);
    if over && value != Value::Loss {
        return Err(format!("{}: over (north has won) but {value}", at()));
    }
    let (mut moves, mut next) = (Moves::new(game), Sets::new());
    let successors: Vec<u64> = if over {
        Vec::new()
    } else {
        game.successors(a, b, &mut moves, &mut next);
        let mover = r.rotate(b);
        next.as_slice()
            .iter()
            .map(|&other| r.index(mover, other))
            .collect()
    };
    let values: Vec<Value> = successors.iter().map(|&s| table.get(s)).collect();
    let has = |v: Value| values.contains(&v);
    let consistent = match value {
        Value::Win => has(Value::Loss),
        Value::Loss => values.iter().all(|&v| v == Value::Win),
        Value::Draw => !has(Value::Loss) && has(Value::Draw),
        Value::Illegal => false,
    };
    if !consistent {
        return Err(format!(
            "{}: {value}, but its {} successors are {}",
            at(),
            values.len(),
            summary(&values)
        ));
    }
    if let Some(depths) = depths {
        let d = depths.get(index);
        let succ: Vec<u8> = successors.iter().map(|&s| depths.get(s)).collect();
        let expected = match value {
            Value::Win => succ
                .iter()
                .filter(|&&s| s != DRAW && s != ILLEGAL && s % 2 == 0)
                .min()
                .map(|&s| s + 1),
            Value::Loss => Some(succ.iter().max().map_or(0, |&s| s + 1)),
            _ => Some(DRAW),
        };
        if expected != Some(d) {
            return Err(format!(
                "{}: {value} with depth {d}, expected {expected:?}",
                at()
            ));
        }
    }
    Ok(())
}

fn summary(values: &[Value]) -> String {
    let parts: Vec<String> = Value::ALL
        .iter()
        .filter_map(|&v| {
            let n = values.iter().filter(|&&x| x == v).count();
            (n > 0).then(|| format!("{n} {v}"))
        })
        .collect();
    if parts.is_empty() {
        "none".to_owned()
    } else {
        parts.join(", ")
    }
}
