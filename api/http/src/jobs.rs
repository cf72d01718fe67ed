//! Solve jobs: solitaire solves that run on the heavy-work pool after their
//! request is answered, kept in memory with their progress and answer.
//!
//! A job is queued, then running, then done (a crossing) or failed (a
//! problem). Unfinished jobs are bounded by the pool and its queue; a
//! finished job is kept [`JOB_KEEP_SECONDS`], at most
//! [`MAX_FINISHED_JOBS_PER_CLIENT`] of one client's (its oldest go first)
//! and [`MAX_FINISHED_JOBS`] in all (beyond, the oldest of the client
//! keeping the most go first): a client sending many jobs pushes out its
//! own answers, never another's. Time only decides how long an answer is
//! kept, never what it is.
//!
//! A job's id is 128 bits of the system's random source ([`JobId`]): there
//! is no list of jobs, so whoever knows an id is whoever created the job,
//! or was told it. Nobody reads another's job by counting.

use std::collections::HashMap;
use std::fmt;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use serde::Serialize;
use tokio::sync::watch;
use utoipa::ToSchema;

use actix_web::http::StatusCode;

use crate::error::{ApiError, Problem};
use crate::limits::{JOB_KEEP_SECONDS, MAX_FINISHED_JOBS, MAX_FINISHED_JOBS_PER_CLIENT};
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

/// A job's id: 128 random bits, written as 32 lowercase hexadecimal digits.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct JobId(u128);

impl JobId {
    /// A new id from the system's random source.
    ///
    /// # Errors
    /// 503 `unavailable` when the system gives no randomness.
    pub fn random() -> Result<JobId, ApiError> {
        let mut bytes = [0_u8; 16];
        getrandom::fill(&mut bytes).map_err(|e| {
            tracing::error!(error = %e, "no randomness for a solve job's id");
            ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "unavailable",
                "Service unavailable",
                "no randomness available for a job id; try again",
            )
        })?;
        Ok(JobId(u128::from_le_bytes(bytes)))
    }

    /// The id written as `text`: 32 hexadecimal digits (either case).
    pub fn parse(text: &str) -> Option<JobId> {
        // Checked first: `from_str_radix` alone would take a `+` sign.
        (text.len() == 32 && text.bytes().all(|b| b.is_ascii_hexdigit()))
            .then(|| u128::from_str_radix(text, 16).ok().map(JobId))
            .flatten()
    }
}

impl fmt::Display for JobId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:032x}", self.0)
    }
}

impl fmt::Debug for JobId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "JobId({self})")
    }
}

/// A solve job: its settings, where it is, and its answer once finished.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct JobView {
    /// The job's id: 32 hexadecimal digits (128 random bits). Whoever knows
    /// it may read the job: keep it to yourself.
    #[schema(
        example = "3f9c2a7e51b04d8e9a6c0b1d2e3f4a5b",
        pattern = "^[0-9a-f]{32}$"
    )]
    pub id: String,
    /// The job's URL (also sent as `Location` when it is created).
    #[schema(example = "/v1/solitaire/jobs/3f9c2a7e51b04d8e9a6c0b1d2e3f4a5b")]
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
    /// Whose it is (the client's key), if it came with an address.
    client: Option<IpAddr>,
    finished: Option<Instant>,
    /// Turns true when the job finishes, for the long-polls waiting on it.
    done: watch::Sender<bool>,
}

#[derive(Default)]
struct Table {
    jobs: HashMap<JobId, Job>,
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

    /// A new queued job for `settings`, of the client keyed `client`; its
    /// id.
    ///
    /// # Errors
    /// 503 `unavailable` when the system gives no randomness for its id.
    pub fn create(
        &self,
        settings: SolveSettings,
        client: Option<IpAddr>,
    ) -> Result<JobId, ApiError> {
        let mut id = JobId::random()?;
        let mut table = self.lock();
        table.purge(Instant::now());
        // Two equal draws of 128 bits do not happen; were they to, the
        // first job is kept.
        while table.jobs.contains_key(&id) {
            id = JobId::random()?;
        }
        table.jobs.insert(
            id,
            Job {
                view: JobView {
                    id: id.to_string(),
                    url: format!("/v1/solitaire/jobs/{id}"),
                    status: JobStatus::Queued,
                    settings,
                    progress: None,
                    bounds: Vec::new(),
                    solution: None,
                    problem: None,
                },
                client,
                finished: None,
                done: watch::Sender::new(false),
            },
        );
        Ok(id)
    }

    /// Forgets a job that never ran (the pool refused it).
    pub fn remove(&self, id: JobId) {
        self.lock().jobs.remove(&id);
    }

    /// Marks a job running.
    pub fn start(&self, id: JobId) {
        if let Some(job) = self.lock().jobs.get_mut(&id) {
            job.view.status = JobStatus::Running;
            job.view.progress = Some(JobProgress { bound: 0, nodes: 0 });
        }
    }

    /// Records a report of a running job's search.
    pub fn report(&self, id: JobId, bound: u32, nodes: u64) {
        if let Some(job) = self.lock().jobs.get_mut(&id) {
            let progress = JobProgress { bound, nodes };
            job.view.progress = Some(progress);
            if job.view.bounds.last().is_none_or(|last| last.bound < bound) {
                job.view.bounds.push(progress);
            }
        }
    }

    /// Records a job's answer, and wakes whoever waits for it.
    pub fn finish(&self, id: JobId, answer: Result<SolveResponse, ApiError>) {
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
    pub fn view(&self, id: JobId) -> Result<JobView, ApiError> {
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
    pub async fn wait(&self, id: JobId, wait: Duration) -> Result<(), ApiError> {
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
    /// Drops the finished jobs kept long enough, then a client's oldest
    /// finished ones beyond its bound, then, beyond the bound of all, the
    /// oldest of the client keeping the most.
    fn purge(&mut self, now: Instant) {
        let keep = Duration::from_secs(JOB_KEEP_SECONDS);
        self.jobs.retain(|_, job| {
            job.finished
                .is_none_or(|finished| now.duration_since(finished) < keep)
        });
        // Each client's finished jobs, newest first (a pop takes the
        // oldest).
        let mut by_client: HashMap<Option<IpAddr>, Vec<(Instant, JobId)>> = HashMap::new();
        for (&id, job) in &self.jobs {
            if let Some(at) = job.finished {
                by_client.entry(job.client).or_default().push((at, id));
            }
        }
        let mut kept = 0;
        for finished in by_client.values_mut() {
            finished.sort_unstable_by(|a, b| b.cmp(a));
            while finished.len() > MAX_FINISHED_JOBS_PER_CLIENT {
                let (_, id) = finished.pop().expect("more than the bound");
                self.jobs.remove(&id);
            }
            kept += finished.len();
        }
        while kept > MAX_FINISHED_JOBS {
            let Some(most) = by_client.values_mut().max_by_key(|finished| finished.len()) else {
                break;
            };
            let (_, id) = most.pop().expect("the client keeping the most keeps some");
            self.jobs.remove(&id);
            kept -= 1;
        }
    }
}

fn not_found(id: JobId) -> ApiError {
    ApiError::not_found(format!(
        "no solve job {id}: never created, or finished more than {JOB_KEEP_SECONDS} s ago"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_128_random_bits_written_in_hex() {
        let ids: Vec<JobId> = (0..64).map(|_| JobId::random().unwrap()).collect();
        for id in &ids {
            let text = id.to_string();
            assert_eq!(text.len(), 32);
            assert!(
                text.bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
            );
            assert_eq!(JobId::parse(&text), Some(*id));
            assert_eq!(JobId::parse(&text.to_uppercase()), Some(*id));
        }
        let distinct: std::collections::HashSet<_> = ids.iter().collect();
        assert_eq!(distinct.len(), ids.len());
        // Not consecutive, as counted ids would be.
        assert!(ids.windows(2).all(|w| w[1].0 != w[0].0.wrapping_add(1)));
        for malformed in [
            "",
            "1",
            "+0000000000000000000000000000000",
            &"0".repeat(33),
            &"g".repeat(32),
        ] {
            assert_eq!(JobId::parse(malformed), None, "{malformed}");
        }
    }

    fn settings() -> SolveSettings {
        SolveSettings {
            board: "rhombus4p6".to_owned(),
            hops_only: false,
            method: crate::routes::solitaire::SolveMethod::Meet,
            max_nodes: 1,
            max_memory_mb: 1,
        }
    }

    /// A job of `client`, finished at once.
    fn finished(jobs: &SolveJobs, client: &str) -> JobId {
        let id = jobs
            .create(settings(), Some(client.parse().unwrap()))
            .unwrap();
        jobs.finish(id, Err(ApiError::internal("on purpose")));
        id
    }

    // A client sending many jobs pushes out its own oldest answers, never
    // another's; beyond the bound of all, the client keeping the most
    // gives first.
    #[test]
    fn a_flood_of_jobs_pushes_out_its_own_answers_only() {
        let jobs = SolveJobs::new();
        let polite = finished(&jobs, "10.0.0.9");
        let flood: Vec<JobId> = (0..MAX_FINISHED_JOBS_PER_CLIENT + 4)
            .map(|_| finished(&jobs, "10.0.0.1"))
            .collect();
        assert!(jobs.view(polite).is_ok());
        for (n, id) in flood.iter().enumerate() {
            assert_eq!(jobs.view(*id).is_ok(), n >= 4, "job {n}");
        }
        // Seventeen clients keeping their most: the bound of all holds, and
        // the polite client's one answer stays.
        for client in 0..17 {
            for _ in 0..MAX_FINISHED_JOBS_PER_CLIENT {
                finished(&jobs, &format!("10.0.1.{client}"));
            }
        }
        assert!(jobs.view(polite).is_ok());
        let kept = jobs.lock().jobs.len();
        assert_eq!(kept, MAX_FINISHED_JOBS);
    }
}
