//! The Sternhalma server: the stateless HTTP surface (`sternhalma-http`)
//! and the stored matches and tournaments (`sternhalma-store`) wired into
//! one app, with what runs beside the requests ([`Background`]: the bot
//! runner and the tournament director), the token-guarded routes, the web
//! pages and the `sternhalma` command. `docs/architecture.md` draws the
//! crates and what each may import.

pub mod admin;
pub mod base_path;
pub mod director;
pub mod failure;
pub mod pages;
pub mod routes;
pub mod runner;
pub mod tokens;
pub mod wire;

use actix_cors::Cors;
use actix_web::dev::{ServiceFactory, ServiceRequest, ServiceResponse};
use actix_web::middleware::{Condition, from_fn};
use actix_web::{App, HttpRequest, HttpResponse, web};
use utoipa::openapi::{OpenApi, PathItem};
use utoipa::{Modify, OpenApi as _};
use utoipa_actix_web::AppExt;
use utoipa_swagger_ui::SwaggerUi;

pub use crate::admin::AdminKey;
pub use crate::base_path::BasePath;
use crate::director::Tournaments;
use crate::runner::BotRunner;
use sternhalma_http::error::ApiError;
pub use sternhalma_http::{
    BodyTimeout, ClientLimits, Heavy, HeavyPool, Metrics, RateLimit, WriterQueue,
};
pub use sternhalma_store::Store;

/// Who may call the API from a browser page of another origin. Programs
/// (scripts, notebooks, bots) are not browsers and may call whatever the
/// policy.
#[derive(Clone, Debug)]
pub enum CorsPolicy {
    /// Any origin (`--cors-origins '*'`): pages served from anywhere may
    /// call, e.g. a student's bot page opened from a file.
    Any,
    /// Only these origins (`--cors-origins https://a.example,...`).
    Origins(Vec<String>),
    /// Same origin only, the default of `sternhalma serve`: no CORS headers
    /// at all, so a browser lets only pages served by this server call it,
    /// and a page elsewhere cannot make a visitor's browser fill the
    /// server's database.
    Off,
}

/// How one server treats its clients: CORS, the per-client limits, the
/// admin key and the metrics. The limits and the metrics hold state (counts
/// per client, the registry): build the configuration once per server and
/// clone it into every worker's app, so that all workers count together.
#[derive(Clone)]
pub struct ServerConfig {
    /// Who may call from browser pages of other origins.
    pub cors: CorsPolicy,
    /// Rates of writes and heavy work per client (and per token), the
    /// long-poll cap and the connection cap (which the server enforces
    /// where it accepts connections: [`ClientLimits::on_connect`]).
    pub limits: ClientLimits,
    /// How long a request's body may take to arrive (20 s by default).
    pub body_timeout: BodyTimeout,
    /// When set, creating a match needs `Authorization: Bearer <key>`.
    pub admin_key: Option<AdminKey>,
    /// The registry behind `/metrics`.
    pub metrics: Metrics,
    /// Where the web pages come from (compiled in, by default).
    pub web: pages::WebAssets,
    /// The folder of wheels offered at `/downloads/` (`dist`, by default).
    pub downloads: routes::downloads::DownloadsDir,
    /// The reverse proxies whose `X-Forwarded-*` headers are believed
    /// (none, by default).
    pub trusted_proxies: routes::downloads::TrustedProxies,
    /// The path prefix the server also answers under, and names in every
    /// address it gives (none, by default: `--base-path`).
    pub base_path: BasePath,
}

impl Default for ServerConfig {
    /// The defaults of `sternhalma serve`: same origin only, the classroom
    /// limits ([`ClientLimits::classroom`]), no admin key, a fresh registry.
    fn default() -> ServerConfig {
        ServerConfig {
            cors: CorsPolicy::Off,
            limits: ClientLimits::classroom(),
            body_timeout: BodyTimeout::default(),
            admin_key: None,
            metrics: Metrics::new(),
            web: pages::WebAssets::Embedded,
            downloads: routes::downloads::DownloadsDir::default(),
            trusted_proxies: routes::downloads::TrustedProxies::default(),
            base_path: BasePath::default(),
        }
    }
}

impl ServerConfig {
    /// `cors`, no per-client limit, the default body timeout, no admin key,
    /// a fresh registry.
    pub fn unlimited(cors: CorsPolicy) -> ServerConfig {
        ServerConfig {
            cors,
            limits: ClientLimits::off(),
            body_timeout: BodyTimeout::default(),
            admin_key: None,
            metrics: Metrics::new(),
            web: pages::WebAssets::Embedded,
            downloads: routes::downloads::DownloadsDir::default(),
            trusted_proxies: routes::downloads::TrustedProxies::default(),
            base_path: BasePath::default(),
        }
    }
}

/// Document-level facts the handlers cannot state.
#[derive(utoipa::OpenApi)]
#[openapi(
    info(
        title = "Sternhalma",
        description = "The reference rules engine for Chinese Checkers, over HTTP. Every request carries the rules and the position (as the compact position string or as JSON); every answer carries the new position, its legal moves or outcome. Errors are RFC 9457 problem details with a stable `code`. Unknown routes answer 404 and known routes called with another method 405, both as problem details. Request bodies are limited to 1 MiB (413 beyond). Stored matches (`/v1/matches`) live in the server's database (a SQLite file, or PostgreSQL shared by several replicas): open seats are played with `Authorization: Bearer <seat token>`.",
        license(name = "MIT OR Apache-2.0")
    ),
    tags(
        (name = "meta", description = "Health"),
        (name = "catalogue", description = "Presets, options, boards and their geometry"),
        (name = "positions", description = "Start positions, validation and conversion"),
        (name = "play", description = "Legal moves, playing moves, outcomes, replays"),
        (name = "render", description = "Pictures of positions"),
        (name = "matches", description = "Stored matches: seats, tokens, moves, long-poll, history, export"),
        (name = "bots", description = "Bots: a move chosen by search on a stateless position"),
        (name = "solitaire", description = "Shortest solitaire crossings, proven shortest: answered while the client waits, or as jobs polled for progress"),
        (name = "tablebases", description = "The solved game (RULES §7) on small rhombi: the tables the server installed, any covered position's value with every move's (`win in 7`), and a game checked move by move against perfect play"),
        (name = "tournaments", description = "Tournaments: entrants with one token each, round robins and gauntlets played by the server, deadlines, events, standings with ratings"),
        (name = "downloads", description = "Wheels of the Python module and its dependencies, to install with pip without a Rust toolchain or internet; the JavaScript example clients"),
    ),
    components(schemas(crate::wire::tournaments::TournamentEvent)),
    modifiers(&Servers, &Security)
)]
struct ApiDoc;

struct Servers;

impl Modify for Servers {
    fn modify(&self, openapi: &mut OpenApi) {
        openapi.servers = Some(vec![utoipa::openapi::Server::new("/")]);
    }
}

struct Security;

impl Modify for Security {
    fn modify(&self, openapi: &mut OpenApi) {
        use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
        let components = openapi.components.get_or_insert_with(Default::default);
        let bearer = |description: &str| {
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some(description))
                    .build(),
            )
        };
        components.add_security_scheme(
            "seat_token",
            bearer("A seat's token, given once when the match is created"),
        );
        components.add_security_scheme(
            "admin_token",
            bearer("The creator's token of a match or a tournament, given once when it is created (a tournament's also abandons its games)"),
        );
        components.add_security_scheme(
            "entrant_token",
            bearer("A tournament entrant's token, given once when the tournament is created: it plays all the entrant's games"),
        );
        components.add_security_scheme(
            "admin_key",
            bearer(
                "The server's admin key (`sternhalma serve --admin-key`), on servers that set one",
            ),
        );
    }
}

/// The OpenAPI document of every route.
pub fn openapi() -> OpenApi {
    let (_, mut api) = routes_app(ServerConfig::unlimited(CorsPolicy::Any)).split_for_parts();
    sternhalma_http::clients::document(&mut api);
    api
}

fn routes_app(
    config: ServerConfig,
) -> utoipa_actix_web::UtoipaApp<
    impl ServiceFactory<
        ServiceRequest,
        Config = (),
        Response = ServiceResponse<impl actix_web::body::MessageBody>,
        Error = actix_web::Error,
        InitError = (),
    >,
> {
    let limits = config.limits;
    let body_timeout = config.body_timeout;
    // The last wrapped runs first: metrics see every answer, CORS headers
    // go on refusals too, and a refused request costs no routing nor waits
    // for its body. A method HTTP does not define is answered before the
    // metrics, whose labels would otherwise grow with every name a client
    // makes up.
    App::new()
        .wrap(from_fn(move |request, next| {
            body_timeout.clone().enforce(request, next)
        }))
        .wrap(from_fn(move |request, next| {
            sternhalma_http::clients::enforce(limits.clone(), request, next)
        }))
        .wrap(Condition::new(
            !matches!(config.cors, CorsPolicy::Off),
            cors_middleware(config.cors),
        ))
        .wrap(config.metrics.middleware())
        .wrap(from_fn(standard_methods_only))
        .into_utoipa_app()
        .openapi(ApiDoc::openapi())
        .configure(sternhalma_http::configure)
        .configure(routes::matches::configure)
        .configure(routes::tournaments::configure)
        .configure(routes::analysis::configure)
        .configure(routes::downloads::configure)
        .configure(routes::table_downloads::configure)
        .configure(sternhalma_http::metrics::configure)
}

fn cors_middleware(policy: CorsPolicy) -> Cors {
    let base = Cors::default()
        .allowed_methods(["GET", "POST"])
        .allowed_headers([
            actix_web::http::header::CONTENT_TYPE,
            actix_web::http::header::ACCEPT,
            actix_web::http::header::AUTHORIZATION,
            actix_web::http::header::IF_NONE_MATCH,
        ])
        .expose_headers([
            actix_web::http::header::ETAG,
            actix_web::http::header::LOCATION,
            actix_web::http::header::RETRY_AFTER,
        ])
        .max_age(3600);
    match policy {
        CorsPolicy::Any => base.allow_any_origin(),
        CorsPolicy::Origins(origins) => origins
            .iter()
            .fold(base, |cors, origin| cors.allowed_origin(origin)),
        CorsPolicy::Off => base,
    }
}

/// What runs beside the requests of one server over one store: the bot
/// runner (stored matches' built-in bots) and the tournament director.
/// Started once, by the server's start-up ([`Background::start`]), never
/// by the app factory; cloned into every worker's app. The director hears
/// of committed changes by subscribing to the store's events, and so does
/// the runner.
#[derive(Clone)]
pub struct Background {
    /// The bot runner, shared by every worker and the director.
    pub runner: BotRunner,
    /// The tournament director's handle.
    pub tournaments: Tournaments,
}

impl Background {
    /// Starts the director of `store` (on a thread of its own) with a bot
    /// runner searching on `pool`; the director resumes the tournaments it
    /// finds running. Matches' bots are resumed by
    /// [`BotRunner::resume_all`].
    pub fn start(store: &Store, pool: &HeavyPool) -> Background {
        Background::start_resuming(store, pool, true)
    }

    /// [`Background::start`], resuming the tournaments left running only
    /// when `resume` (`sternhalma serve --no-resume` starts with nothing
    /// under way).
    pub fn start_resuming(store: &Store, pool: &HeavyPool, resume: bool) -> Background {
        let runner = BotRunner::start(store.clone(), pool.clone());
        let tournaments = Tournaments::start(store, pool, &runner, resume);
        Background {
            runner,
            tournaments,
        }
    }
}

/// The whole application: the stateless routes, the stored matches and
/// tournaments over `store`, `/openapi.json`, Swagger UI at `/docs/`, the
/// web pages, and problem details for unknown routes (404) and methods
/// (405). The solved tables every route reads are the store's
/// ([`Store::tables`]). Build `config`, `heavy` and `background` once per
/// server and clone them into every worker's app, so that all workers
/// share one heavy pool, one table of jobs, one registry, one director,
/// one set of tables.
pub fn app_configured(
    config: ServerConfig,
    store: Store,
    heavy: Heavy,
    background: Background,
) -> App<
    impl ServiceFactory<
        ServiceRequest,
        Config = (),
        Response = ServiceResponse<impl actix_web::body::MessageBody>,
        Error = actix_web::Error,
        InitError = (),
    >,
> {
    let (app, mut api) = routes_app(config.clone()).split_for_parts();
    sternhalma_http::clients::document(&mut api);
    let routes = web::Data::new(RouteTable::new(&api));
    let base = config.base_path.clone();
    if !base.is_none() {
        // Swagger UI's "Try it out" sends to the first server: through the
        // proxy, under the prefix.
        api.servers = Some(vec![
            utoipa::openapi::server::ServerBuilder::new()
                .url(base.as_str())
                .description(Some(
                    "Under the server's base path (--base-path), as through its proxy",
                ))
                .build(),
            utoipa::openapi::server::ServerBuilder::new()
                .url("/")
                .description(Some("The server's own root, without the prefix"))
                .build(),
        ]);
    }
    // The document stays registered at /openapi.json (routes see paths
    // with the prefix stripped); Swagger UI fetches it through the prefix.
    let docs = SwaggerUi::new("/docs/{_:.*}")
        .url("/openapi.json", api)
        .config(utoipa_swagger_ui::Config::new([base.join("/openapi.json")]));
    let app = match config.admin_key {
        Some(key) => app.app_data(web::Data::new(key)),
        None => app,
    };
    let writer = {
        let store = store.clone();
        WriterQueue::new(move || store.pending_writes())
    };
    app.configure(sternhalma_http::extractor_errors)
        .configure(|app_config| sternhalma_http::data(app_config, &heavy, store.tables()))
        .app_data(routes)
        .app_data(web::Data::new(background.runner))
        .app_data(web::Data::new(background.tournaments))
        .app_data(web::Data::new(config.limits))
        .app_data(web::Data::new(config.body_timeout))
        .app_data(web::Data::new(config.metrics))
        .app_data(web::Data::new(writer))
        .app_data(web::Data::new(store))
        .app_data(web::Data::new(config.web))
        .app_data(web::Data::new(config.downloads))
        .app_data(web::Data::new(config.trusted_proxies))
        .app_data(web::Data::new(base.clone()))
        .configure(pages::configure)
        .wrap(from_fn(docs_headers))
        .service(docs)
        .route("/docs", web::get().to(docs_redirect))
        .route("/downloads", web::get().to(downloads_redirect))
        .default_service(web::to(fallback))
        // Outermost: every layer and route sees the path without the
        // prefix (the access log, wrapped around the app by `sternhalma
        // serve`, the path as the client sent it).
        .wrap(from_fn(move |request, next| {
            base_path::answer_under(base.clone(), request, next)
        }))
}

/// The pages' policy ([`pages::CONTENT_SECURITY_POLICY`]) for Swagger UI,
/// but for the one inline style its bundle applies, allowed by its hash
/// (no `'unsafe-inline'`): a new bundle with another style shows in the
/// browser test, which fails on a refused style.
pub const DOCS_CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; \
     style-src 'self' 'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='; \
     img-src 'self' data: blob:; connect-src 'self'; font-src 'self'; manifest-src 'self'; \
     base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// Swagger UI (`/docs/`) is served with the pages' policy and headers: it
/// shares their origin, where the pages keep tokens in session storage, so
/// it may not be framed, leak its address or run scripts from elsewhere.
async fn docs_headers<B: actix_web::body::MessageBody>(
    request: ServiceRequest,
    next: actix_web::middleware::Next<B>,
) -> Result<ServiceResponse<B>, actix_web::Error> {
    let docs = request.path() == "/docs" || request.path().starts_with("/docs/");
    let mut response = next.call(request).await?;
    if docs {
        use actix_web::http::header::{self, HeaderValue};
        let headers = response.headers_mut();
        for (name, value) in [
            (
                header::CONTENT_SECURITY_POLICY,
                DOCS_CONTENT_SECURITY_POLICY,
            ),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
            (header::REFERRER_POLICY, "no-referrer"),
            (header::X_FRAME_OPTIONS, "DENY"),
        ] {
            headers.insert(name, HeaderValue::from_static(value));
        }
    }
    Ok(response)
}

async fn docs_redirect() -> HttpResponse {
    HttpResponse::PermanentRedirect()
        .insert_header((actix_web::http::header::LOCATION, "/docs/"))
        .finish()
}

async fn downloads_redirect() -> HttpResponse {
    HttpResponse::PermanentRedirect()
        .insert_header((actix_web::http::header::LOCATION, "/downloads/"))
        .finish()
}

/// The paths of the OpenAPI document and their methods, to tell an unknown
/// route (404) from a known one called with the wrong method (405).
struct RouteTable {
    routes: Vec<(Vec<String>, Vec<&'static str>)>,
}

impl RouteTable {
    fn new(api: &OpenApi) -> RouteTable {
        let mut routes: Vec<(Vec<String>, Vec<&'static str>)> = api
            .paths
            .paths
            .iter()
            .map(|(path, item)| (segments(path), methods(item)))
            .collect();
        routes.push((segments("/openapi.json"), vec!["GET"]));
        routes.push((segments("/docs"), vec!["GET"]));
        routes.push((segments("/downloads"), vec!["GET"]));
        for (path, _) in pages::PAGES {
            routes.push((segments(path), vec!["GET"]));
        }
        RouteTable { routes }
    }

    fn allowed(&self, path: &str) -> Option<&[&'static str]> {
        let wanted: Vec<String> = segments(path);
        self.routes.iter().find_map(|(pattern, methods)| {
            (pattern.len() == wanted.len()
                && pattern
                    .iter()
                    .zip(&wanted)
                    // A parameter is never empty: `/downloads/examples/`
                    // is no route (404), not `{file}` called wrongly (405).
                    .all(|(p, w)| {
                        p == w || (p.starts_with('{') && p.ends_with('}') && !w.is_empty())
                    }))
            .then_some(methods.as_slice())
        })
    }
}

/// A path's segments. A trailing slash is a segment of its own (an empty
/// one): `/v1/matches/1/` is not `/v1/matches/1`, so it is a 404, not a
/// 405 that names the very method it was called with.
fn segments(path: &str) -> Vec<String> {
    path.split('/').map(str::to_owned).collect()
}

fn methods(item: &PathItem) -> Vec<&'static str> {
    let mut methods = Vec::new();
    if item.get.is_some() {
        methods.push("GET");
    }
    if item.post.is_some() {
        methods.push("POST");
    }
    if item.put.is_some() {
        methods.push("PUT");
    }
    if item.delete.is_some() {
        methods.push("DELETE");
    }
    if item.patch.is_some() {
        methods.push("PATCH");
    }
    methods
}

async fn fallback(
    request: HttpRequest,
    routes: web::Data<RouteTable>,
) -> Result<HttpResponse, ApiError> {
    Err(no_route(&request, &routes))
}

/// 405 for a known path called with another method, else 404.
fn no_route(request: &HttpRequest, routes: &RouteTable) -> ApiError {
    let path = request.path();
    match routes.allowed(path) {
        Some(methods) => ApiError::method_not_allowed(request.method().as_str(), path, methods),
        None => ApiError::not_found(format!("no route {path}; see /openapi.json or /docs/")),
    }
}

/// Answers a request whose method HTTP does not define (`FOO`) as the
/// fallback would (405 or 404), before anything counts it.
async fn standard_methods_only<B: actix_web::body::MessageBody>(
    request: ServiceRequest,
    next: actix_web::middleware::Next<B>,
) -> Result<ServiceResponse<actix_web::body::EitherBody<B>>, actix_web::Error> {
    use actix_web::http::Method;
    const STANDARD: [Method; 9] = [
        Method::GET,
        Method::POST,
        Method::PUT,
        Method::DELETE,
        Method::PATCH,
        Method::HEAD,
        Method::OPTIONS,
        Method::TRACE,
        Method::CONNECT,
    ];
    if STANDARD.contains(request.method()) {
        return Ok(next.call(request).await?.map_into_left_body());
    }
    let error = match request.app_data::<web::Data<RouteTable>>() {
        Some(routes) => no_route(request.request(), routes),
        None => ApiError::not_found(format!("no route {}", request.path())),
    };
    let response = actix_web::ResponseError::error_response(&error);
    Ok(request.into_response(response).map_into_right_body())
}
