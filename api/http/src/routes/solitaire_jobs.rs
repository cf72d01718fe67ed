//! Solve jobs: a solitaire solve that runs on after its request is answered,
//! polled (or long-polled) for its progress and answer.

use std::time::Duration;

use actix_web::http::header;
use actix_web::{HttpResponse, get, post, web};
use serde::Deserialize;
use utoipa::IntoParams;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::clients::LongPollSlot;
use crate::error::{ApiError, BodyErrors, HeavyErrors, Problem};
use crate::heavy::HeavyClient;
use crate::jobs::{JobId, JobView, SolveJobs};
use crate::limits::MAX_JOB_WAIT_MS;
use crate::routes::solitaire::{SolveRequest, SolveSettings};
use sternhalma::wire::whole::Object;

/// Registers this module's routes.
pub fn configure(config: &mut ServiceConfig) {
    config.service(create_job).service(get_job);
}

/// Starts a solve job: the same request, budgets and answers as
/// `POST /v1/solitaire/solve`, but answered at once (202, with the job's URL
/// in `Location`) while the search runs on the heavy-work pool. Poll the job
/// for its progress (the lower bound proven so far and the nodes expanded)
/// and, once finished, its crossing or problem. The request is checked
/// first: an unknown board or a budget over its cap (`max_nodes` 1,000,000:
/// a job holds a heavy-work thread a few seconds at most) is a 422 and
/// starts no job. A job counts against its client's cap of heavy requests
/// until it finishes: beyond it the answer is 429 `too_many_heavy_requests`
/// with `Retry-After`. When the pool and its queue are full the answer is
/// 503 `busy` with `Retry-After`. A finished job is kept 10 minutes, and only the 256 most
/// recently finished. The job's id is 128 random bits: whoever knows it
/// may read the job, and nobody can guess it (on the rare system that
/// gives no randomness, 503 `unavailable`).
#[utoipa::path(
    tag = "solitaire",
    request_body = SolveRequest,
    responses(
        (status = 202, description = "The job, queued", body = JobView,
         headers(("Location" = String, description = "The job's URL"))),
        BodyErrors,
        (status = 422, description = "Unknown board, `max_nodes` out of range (`max_nodes_out_of_range`: 1 to 1,000,000), `max_memory_mb` out of range (`max_memory_out_of_range`: 1 to 1024); or a required field missing (`missing_field`)", body = Problem, content_type = "application/problem+json"),
        HeavyErrors,
    )
)]
#[post("/v1/solitaire/jobs")]
pub async fn create_job(
    body: web::Json<Object<SolveRequest>>,
    heavy: HeavyClient,
    jobs: web::Data<SolveJobs>,
) -> Result<HttpResponse, ApiError> {
    let settings = SolveSettings::new(body.into_inner().0)?;
    let id = jobs.create(settings.clone(), heavy.counted_key())?;
    let table = jobs.get_ref().clone();
    let cost = settings.cost();
    let started = heavy.spawn(cost, move || {
        table.start(id);
        let mut report = |p: &sternhalma::solitaire::Progress| {
            table.report(id, p.bound, p.nodes);
            std::ops::ControlFlow::Continue(())
        };
        // A panic in the solver must not leave the job running forever:
        // it finishes with an internal problem (the pool logs the panic).
        let answer = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            settings.solve(Some(&mut report))
        }))
        .unwrap_or_else(|_| {
            Err(ApiError::new(
                actix_web::http::StatusCode::INTERNAL_SERVER_ERROR,
                "internal",
                "Internal error",
                "the solver failed; the job has stopped",
            ))
        });
        table.finish(id, answer);
    });
    if let Err(busy) = started {
        jobs.remove(id);
        return Err(busy);
    }
    let view = jobs.view(id)?;
    Ok(HttpResponse::Accepted()
        .insert_header((header::LOCATION, view.url.clone()))
        .json(view))
}

/// How long to wait for a job.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct JobQuery {
    /// Wait at most this many milliseconds for the job to finish (0 to
    /// 30000; default 0: answer at once). The answer comes as soon as it
    /// finishes.
    #[param(value_type = Option<u64>, minimum = 0, maximum = 30000)]
    pub wait_ms: Option<u32>,
}

/// A solve job: `queued`, `running` (with `progress`: the lower bound proven
/// so far and the nodes expanded, and `bounds`: each bound with the nodes
/// when it was proven), `done` (with `solution`, as `POST
/// /v1/solitaire/solve` answers it) or `failed` (with `problem`: 422
/// `node_limit` or `memory_limit` with the lower bound, `unsolvable`). With
/// `wait_ms` it is a long-poll that answers once the job finishes or the
/// time is up, whichever comes first (then check `status`). The id is the
/// job's capability: anyone who knows it may read the job.
#[utoipa::path(
    tag = "solitaire",
    params(("id" = String, Path, description = "The job id, as the answer that created the job gave it: 32 hexadecimal digits", pattern = "^[0-9a-f]{32}$"), JobQuery),
    responses(
        (status = 200, description = "The job", body = JobView),
        (status = 400, description = "Malformed query (`malformed_query`), e.g. `wait_ms` over 30000", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such job (`not_found`): never created, finished more than 10 minutes ago, or not an id at all", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/solitaire/jobs/{id}")]
pub async fn get_job(
    id: web::Path<String>,
    query: web::Query<JobQuery>,
    jobs: web::Data<SolveJobs>,
    long_poll: LongPollSlot,
) -> Result<web::Json<JobView>, ApiError> {
    let wait_ms = query.into_inner().wait_ms.unwrap_or(0);
    if wait_ms > MAX_JOB_WAIT_MS {
        return Err(ApiError::bad_request(
            "malformed_query",
            format!("wait_ms is at most {MAX_JOB_WAIT_MS}"),
        ));
    }
    // A long-poll is counted (and refused over the cap) whatever its id,
    // as before ids were checked.
    let _open = if wait_ms > 0 {
        long_poll.enter()?
    } else {
        None
    };
    let id = JobId::parse(&id).ok_or_else(|| {
        ApiError::not_found(
            "no such solve job: a job's id is the 32 hexadecimal digits its creation answered",
        )
    })?;
    if wait_ms > 0 {
        jobs.wait(id, Duration::from_millis(u64::from(wait_ms)))
            .await?;
    }
    Ok(web::Json(jobs.view(id)?))
}
