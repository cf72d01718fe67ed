//! The writer thread's queue: the jobs of the store's commands (`Store::commit`),
//! two lanes. A player's turn (a seat's move, a resignation, a bot's move,
//! a timeout) is [`Priority::Turn`] and goes ahead of every other write
//! waiting (a match or a tournament created, a tournament started, games
//! settled), so that a move never waits behind a class creating
//! tournaments of thousands of games. The other lane is not starved: after
//! [`TURNS_IN_A_ROW`] turns in a row while it waits, one of its jobs goes.
//! Within a lane, jobs run in the order they came.

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex, PoisonError};

/// Which lane a write job waits in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Priority {
    /// A player's turn: a move, a resignation, a bot's move, a timeout.
    Turn,
    /// Any other write.
    Other,
}

/// Turns that may go ahead of a waiting other job, one after another.
pub const TURNS_IN_A_ROW: usize = 16;

/// The queue of write jobs, for one writer thread.
pub struct WriteQueue<J> {
    lanes: Mutex<Lanes<J>>,
    arrived: Condvar,
}

struct Lanes<J> {
    turns: VecDeque<J>,
    others: VecDeque<J>,
    /// Turns taken in a row while an other job waited.
    in_a_row: usize,
    closed: bool,
}

impl<J> Default for WriteQueue<J> {
    fn default() -> Self {
        WriteQueue {
            lanes: Mutex::new(Lanes {
                turns: VecDeque::new(),
                others: VecDeque::new(),
                in_a_row: 0,
                closed: false,
            }),
            arrived: Condvar::new(),
        }
    }
}

impl<J> WriteQueue<J> {
    /// Queues `job` in its lane; `false` (and the job dropped) once the
    /// queue is closed.
    pub fn push(&self, priority: Priority, job: J) -> bool {
        let mut lanes = self.lanes.lock().unwrap_or_else(PoisonError::into_inner);
        if lanes.closed {
            return false;
        }
        match priority {
            Priority::Turn => lanes.turns.push_back(job),
            Priority::Other => lanes.others.push_back(job),
        }
        drop(lanes);
        self.arrived.notify_one();
        true
    }

    /// The next job to run, waiting for one; `None` once the queue is
    /// closed and empty.
    pub fn pop(&self) -> Option<J> {
        let mut lanes = self.lanes.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            let other_waits = !lanes.others.is_empty();
            if lanes.in_a_row < TURNS_IN_A_ROW || !other_waits {
                if let Some(job) = lanes.turns.pop_front() {
                    lanes.in_a_row = if other_waits { lanes.in_a_row + 1 } else { 0 };
                    return Some(job);
                }
            }
            if let Some(job) = lanes.others.pop_front() {
                lanes.in_a_row = 0;
                return Some(job);
            }
            if lanes.closed {
                return None;
            }
            lanes = self
                .arrived
                .wait(lanes)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// No job is taken any more; those waiting still run.
    pub fn close(&self) {
        self.lanes
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .closed = true;
        self.arrived.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(queue: &WriteQueue<&'static str>) -> Vec<&'static str> {
        queue.close();
        std::iter::from_fn(|| queue.pop()).collect()
    }

    #[test]
    fn a_turn_goes_ahead_of_other_writes_waiting() {
        let queue = WriteQueue::default();
        for job in ["create 1", "create 2", "create 3"] {
            assert!(queue.push(Priority::Other, job));
        }
        assert!(queue.push(Priority::Turn, "move a"));
        assert!(queue.push(Priority::Turn, "move b"));
        assert_eq!(
            drain(&queue),
            ["move a", "move b", "create 1", "create 2", "create 3"]
        );
        assert!(!queue.push(Priority::Turn, "late"), "closed");
    }

    #[test]
    fn a_flood_of_turns_lets_an_other_write_through_now_and_then() {
        let queue = WriteQueue::default();
        queue.push(Priority::Other, "create");
        let moves: Vec<&'static str> = (0..40).map(|_| "move").collect();
        for job in &moves {
            queue.push(Priority::Turn, *job);
        }
        let order = drain(&queue);
        let create = order.iter().position(|j| *j == "create").unwrap();
        assert_eq!(create, TURNS_IN_A_ROW, "{order:?}");
        assert_eq!(order.len(), 41);
    }

    #[test]
    fn the_writer_waits_for_a_job_and_stops_when_closed() {
        let queue = std::sync::Arc::new(WriteQueue::default());
        let writer = {
            let queue = std::sync::Arc::clone(&queue);
            std::thread::spawn(move || std::iter::from_fn(|| queue.pop()).collect::<Vec<_>>())
        };
        queue.push(Priority::Other, "one");
        queue.push(Priority::Turn, "two");
        queue.close();
        let ran = writer.join().unwrap();
        assert_eq!(ran.len(), 2, "{ran:?}");
    }
}
