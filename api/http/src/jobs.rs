//! Solve jobs: solitaire solves that run on the heavy-work pool after their
//! request is answered, kept in memory with their progress and answer.
//!
//! A job is queued, then running, then done (a crossing) or failed (a
//! problem). Unfinished jobs are bounded by the pool and its queue; a
//! finished job is kept [`JOB_KEEP_SECONDS`] and at most
//! [`MAX_FINISHED_JOBS`] of them (the oldest go first). Time only decides how
//! long an answer is kept, never what it is.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use serde::Serialize;
use tokio::sync::watch;
use utoipa::ToSchema;

use crate::error::{ApiError, Problem};
use crate::limits::{JOB_KEEP_SECONDS, MAX_FINISHED_JOBS};
use crate::routes::solitaire::{SolveResponse, SolveSettings};

/// Where a job is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum JobStatus {
    /// Waiting for a heavy-work thread.
    Queued,
    /// Searching: see `progress` and `bounds`.
    Running,
    /// Finished with a crossing: see `solution`.
    Done,
    /// Finished without one: see `problem` (`node_limit`, `memory_limit`,
    /// `unsolvable`, `internal`).
    Failed,
}

/// The latest report of a running search.
#[derive(Clone, Copy, Debug, Serialize, ToSchema)]
pub struct JobProgress {
    /// Every crossing takes at least this many moves (proven so far).
    #[schema(example = 22)]
    pub bound: u32,
    /// Positions expanded so far.
    #[schema(example = 91995)]
    pub nodes: u64,
}

/// A solve job: its settings, where it is, and its answer once finished.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct JobView {
    /// The job's id.
    #[schema(example = 1)]
    pub id: u64,
    /// The job's URL (also sent as `Location` when it is created).
    #[schema(example = "/v1/solitaire/jobs/1")]
    pub url: String,
    /// Where the job is.
    pub status: JobStatus,
    /// The request, with every default filled in.
    pub settings: SolveSettings,
    /// The latest report of the search; absent while queued.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub progress: Option<JobProgress>,
    /// Each lower bound the search has proven, with the nodes expanded when
    /// it was first reported (after every step of the search, so the list
    /// is the same for the same request).
    pub bounds: Vec<JobProgress>,
    /// The crossing, once `done`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub solution: Option<SolveResponse>,
    /// Why there is no crossing, once `failed`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<Problem>,
}

struct Job {
    view: JobView,
    finished: Option<Instant>,
    /// Turns true when the job finishes, for the long-polls waiting on it.
    done: watch::Sender<bool>,
}

#[derive(Default)]
struct Table {
    next_id: u64,
    jobs: BTreeMap<u64, Job>,
}

/// The solve jobs of one server. Clones share the table.
#[derive(Clone, Default)]
pub struct SolveJobs {
    table: Arc<Mutex<Table>>,
}

impl SolveJobs {
    /// An empty table.
    pub fn new() -> SolveJobs {
        SolveJobs::default()
    }

    /// A new queued job for `settings`; its id.
    pub fn create(&self, settings: SolveSettings) -> u64 {
        let mut table = self.lock();
        table.purge(Instant::now());
        table.next_id += 1;
        let id = table.next_id;
        table.jobs.insert(
            id,
            Job {
                view: JobView {
                    id,
                    url: format!("/v1/solitaire/jobs/{id}"),
                    status: JobStatus::Queued,
                    settings,
                    progress: None,
                    bounds: Vec::new(),
                    solution: None,
                    problem: None,
                },
                finished: None,
                done: watch::Sender::new(false),
            },
        );
        id
    }

    /// Forgets a job that never ran (the pool refused it).
    pub fn remove(&self, id: u64) {
        self.lock().jobs.remove(&id);
    }

    /// Marks a job running.
    pub fn start(&self, id: u64) {
        if let Some(job) = self.lock().jobs.get_mut(&id) {
            job.view.status = JobStatus::Running;
            job.view.progress = Some(JobProgress { bound: 0, nodes: 0 });
        }
    }

    /// Records a report of a running job's search.
    pub fn report(&self, id: u64, bound: u32, nodes: u64) {
        if let Some(job) = self.lock().jobs.get_mut(&id) {
            let progress = JobProgress { bound, nodes };
            job.view.progress = Some(progress);
            if job.view.bounds.last().is_none_or(|last| last.bound < bound) {
                job.view.bounds.push(progress);
            }
        }
    }

    /// Records a job's answer, and wakes whoever waits for it.
    pub fn finish(&self, id: u64, answer: Result<SolveResponse, ApiError>) {
        let mut table = self.lock();
        let now = Instant::now();
        if let Some(job) = table.jobs.get_mut(&id) {
            match answer {
                Ok(solution) => {
                    job.view.status = JobStatus::Done;
                    job.view.solution = Some(solution);
                }
                Err(error) => {
                    job.view.status = JobStatus::Failed;
                    job.view.problem = Some(error.problem().clone());
                }
            }
            job.finished = Some(now);
            job.done.send_replace(true);
        }
        table.purge(now);
    }

    /// A job as it is now.
    ///
    /// # Errors
    /// 404 `not_found` for an id that names no job (never created, or
    /// expired).
    pub fn view(&self, id: u64) -> Result<JobView, ApiError> {
        let mut table = self.lock();
        table.purge(Instant::now());
        table
            .jobs
            .get(&id)
            .map(|job| job.view.clone())
            .ok_or_else(|| not_found(id))
    }

    /// Waits at most `wait` for the job to finish (at once if it has).
    ///
    /// # Errors
    /// 404 `not_found` as [`SolveJobs::view`].
    pub async fn wait(&self, id: u64, wait: Duration) -> Result<(), ApiError> {
        let mut finished = self
            .lock()
            .jobs
            .get(&id)
            .map(|job| job.done.subscribe())
            .ok_or_else(|| not_found(id))?;
        // A job expired meanwhile ends the wait too (its sender is gone).
        let _ = actix_web::rt::time::timeout(wait, finished.wait_for(|done| *done)).await;
        Ok(())
    }

    fn lock(&self) -> MutexGuard<'_, Table> {
        self.table.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Table {
    /// Drops the finished jobs kept long enough, and the oldest finished
    /// ones beyond the bound.
    fn purge(&mut self, now: Instant) {
        let keep = Duration::from_secs(JOB_KEEP_SECONDS);
        self.jobs.retain(|_, job| {
            job.finished
                .is_none_or(|finished| now.duration_since(finished) < keep)
        });
        let mut finished: Vec<(Instant, u64)> = self
            .jobs
            .iter()
            .filter_map(|(&id, job)| job.finished.map(|at| (at, id)))
            .collect();
        if finished.len() > MAX_FINISHED_JOBS {
            finished.sort_unstable();
            for &(_, id) in &finished[..finished.len() - MAX_FINISHED_JOBS] {
                self.jobs.remove(&id);
            }
        }
    }
}

fn not_found(id: u64) -> ApiError {
    ApiError::not_found(format!(
        "no solve job {id}: never created, or finished more than {JOB_KEEP_SECONDS} s ago"
    ))
}
