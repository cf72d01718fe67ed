//! Sternhalma's stateless HTTP surface: every request carries the rules and
//! the position, and every answer carries what the client needs next. The
//! routes over the rules crate (catalogue, positions, play, render, bots,
//! solitaire, tablebases), problem details ([`error`]), the per-client limits
//! ([`clients`]), `/metrics`, the access log and the heavy-work pool. No
//! database: the server (`sternhalma-api`) adds the stored matches and
//! tournaments beside these routes, and [`app`] serves these alone.
//!
//! All rules live in the `sternhalma` crate; this crate converts, calls it,
//! and converts back.

pub mod access_log;
pub mod body_timeout;
pub mod clients;
pub mod connections;
pub mod dto;
pub mod error;
pub mod heavy;
pub mod jobs;
pub mod limits;
pub mod metrics;
pub mod peers;
pub mod routes;

use std::sync::{Arc, OnceLock};

use actix_web::dev::{ServiceFactory, ServiceRequest, ServiceResponse};
use actix_web::{App, web};
use sternhalma::solve::Tablebases;
use utoipa_actix_web::AppExt;
use utoipa_actix_web::service_config::ServiceConfig;

pub use crate::body_timeout::BodyTimeout;
pub use crate::clients::{ClientLimits, RateLimit};
pub use crate::error::ApiError;
pub use crate::heavy::HeavyPool;
use crate::jobs::SolveJobs;
pub use crate::metrics::{Metrics, WriterQueue};

/// What the workers of one server share for heavy work: the pool and the
/// solve jobs that run on it. Clones share both.
#[derive(Clone)]
pub struct Heavy {
    pool: HeavyPool,
    jobs: SolveJobs,
}

impl Heavy {
    /// Heavy work on `pool`, with an empty table of solve jobs.
    pub fn new(pool: HeavyPool) -> Heavy {
        Heavy {
            pool,
            jobs: SolveJobs::new(),
        }
    }

    /// The process's default: a pool of one worker per core and a queue of
    /// four tasks per worker, created on first use and shared by every app
    /// that asks for it.
    pub fn process_default() -> Heavy {
        static DEFAULT: OnceLock<Heavy> = OnceLock::new();
        DEFAULT
            .get_or_init(|| Heavy::new(HeavyPool::with_defaults()))
            .clone()
    }

    /// The pool.
    pub fn pool(&self) -> &HeavyPool {
        &self.pool
    }

    /// The table of solve jobs.
    pub fn jobs(&self) -> &SolveJobs {
        &self.jobs
    }
}

/// Registers every stateless route and `/metrics`. Their handlers take as
/// app data a [`HeavyPool`], the [`SolveJobs`], the solved [`Tablebases`],
/// the [`ClientLimits`] and the [`Metrics`] (and, for `/metrics`, a
/// [`WriterQueue`] when there is a database); [`data`] gives the first
/// three.
pub fn configure(config: &mut ServiceConfig) {
    routes::catalogue::configure(config);
    routes::positions::configure(config);
    routes::play::configure(config);
    routes::render::configure(config);
    routes::bots::configure(config);
    routes::solitaire::configure(config);
    routes::solitaire_jobs::configure(config);
    routes::tablebases::configure(config);
}

/// The app data of the routes that share state: `heavy`'s pool and its
/// jobs (the heavy routes), and `tables`, the solved tables the tablebase
/// routes and the `perfect` bot read (the server's one set, given to every
/// worker's app).
pub fn data(app_config: &mut web::ServiceConfig, heavy: &Heavy, tables: &Arc<Tablebases>) {
    app_config
        .app_data(web::Data::new(heavy.pool.clone()))
        .app_data(web::Data::new(heavy.jobs.clone()))
        .app_data(web::Data::from(Arc::clone(tables)));
}

/// How bodies, queries and paths that do not fit are answered: problem
/// details (400, 404, 413, 415, 422), as every route documents.
pub fn extractor_errors(app_config: &mut web::ServiceConfig) {
    app_config
        .app_data(
            web::JsonConfig::default()
                .limit(limits::MAX_BODY_BYTES)
                .error_handler(|e, _| error::json_error(e).into()),
        )
        .app_data(web::QueryConfig::default().error_handler(|e, _| error::query_error(e).into()))
        .app_data(web::PathConfig::default().error_handler(|e, _| error::path_error(e).into()));
}

/// The stateless routes alone, with no database, no per-client limit, the
/// default body timeout and a registry of their own behind `/metrics`;
/// heavy work on `heavy`, the solved tables `tables` (empty: no table). What
/// a bot author's test or an embedding program serves; the `sternhalma`
/// server serves these routes beside its stored ones.
pub fn app(
    heavy: Heavy,
    tables: Arc<Tablebases>,
) -> App<
    impl ServiceFactory<
        ServiceRequest,
        Config = (),
        Response = ServiceResponse<impl actix_web::body::MessageBody>,
        Error = actix_web::Error,
        InitError = (),
    >,
> {
    let metrics = Metrics::new();
    let body_timeout = BodyTimeout::default();
    let timeout = body_timeout.clone();
    let (app, _) = App::new()
        .wrap(actix_web::middleware::from_fn(move |request, next| {
            timeout.clone().enforce(request, next)
        }))
        .wrap(metrics.middleware())
        .into_utoipa_app()
        .configure(configure)
        .configure(metrics::configure)
        .split_for_parts();
    app.configure(extractor_errors)
        .configure(|config| data(config, &heavy, &tables))
        .app_data(web::Data::new(ClientLimits::off()))
        .app_data(web::Data::new(body_timeout))
        .app_data(web::Data::new(metrics))
}
