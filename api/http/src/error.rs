//! Every error the API sends: RFC 9457 problem details with a stable `code`.

use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpResponse, ResponseError};
use serde::Serialize;
use sternhalma::search::{BudgetTooLarge, UnknownBotKind};
use sternhalma::solve::TablebaseError;
use sternhalma::solve::analysis::AnalysisError;
use sternhalma::{IllegalMove, MoveError, ParseError, ParseErrorKind, PositionError, SetupError};
use utoipa::ToSchema;

/// The media type of problem details.
pub const PROBLEM_JSON: &str = "application/problem+json";

/// One problem of an invalid position.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ProblemItem {
    /// A stable machine-readable code, e.g. `two_pegs_on_hole`.
    #[schema(example = "two_pegs_on_hole")]
    pub code: String,
    /// The problem in words.
    #[schema(example = "hole 111 holds more than one peg")]
    pub message: String,
}

/// An error, as RFC 9457 problem details (`application/problem+json`).
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct Problem {
    /// A URI naming the kind of problem: `urn:sternhalma:problem:<code>`.
    #[serde(rename = "type")]
    #[schema(example = "urn:sternhalma:problem:illegal_move")]
    pub problem_type: String,
    /// A short summary of the kind of problem.
    #[schema(example = "Illegal move")]
    pub title: String,
    /// The HTTP status code.
    #[schema(example = 422)]
    pub status: u16,
    /// What exactly went wrong, in words.
    #[schema(example = "hole 112 is occupied")]
    pub detail: String,
    /// A stable machine-readable code: for an illegal move the reason
    /// (`hole_occupied`, `leaves_target`, ...), otherwise the kind of problem
    /// (`invalid_position`, `malformed_json`, ...).
    #[schema(example = "hole_occupied")]
    pub code: String,
    /// Every problem found, for an invalid position.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<ProblemItem>,
    /// For a replay or an analysis: the index in `moves` of the move that
    /// failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub move_index: Option<usize>,
    /// For a solitaire solve stopped at its node limit or memory budget:
    /// the fewest moves any crossing can take, as proven so far.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lower_bound: Option<u32>,
    /// For a solitaire solve stopped at its node limit or memory budget:
    /// positions visited.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u64>,
}

/// The errors every operation with a JSON body can answer, documented once.
#[derive(utoipa::IntoResponses)]
#[allow(dead_code)]
pub enum BodyErrors {
    /// Malformed JSON, or JSON that does not fit the schema: a value of the
    /// wrong type, an unknown field, a number that is not a whole number in
    /// range (`malformed_json`; `detail` names the field).
    #[response(status = 400, content_type = "application/problem+json")]
    Malformed(Problem),
    /// A required field is missing (`missing_field`; `detail` names it).
    /// Operations that document their own 422 answer this with it.
    #[response(status = 422, content_type = "application/problem+json")]
    MissingField(Problem),
    /// The body is larger than the limit of 1 MiB (`payload_too_large`).
    #[response(status = 413, content_type = "application/problem+json")]
    TooLarge(Problem),
    /// The body was not sent as `application/json` (`unsupported_media_type`).
    #[response(status = 415, content_type = "application/problem+json")]
    NotJson(Problem),
    /// The whole body did not arrive within the server's body timeout
    /// after the request's head (`body_timeout`; `--body-timeout-seconds`,
    /// 20 s by default); the connection is closed.
    #[response(status = 408, content_type = "application/problem+json")]
    TimedOut(Problem),
}

/// The error of every operation that uses the database, documented once.
#[derive(utoipa::IntoResponses)]
#[allow(dead_code)]
pub enum StorageErrors {
    /// The database is busy or unavailable (`unavailable`): nothing was
    /// stored; try again.
    #[response(status = 503, content_type = "application/problem+json")]
    Unavailable(Problem),
}

/// The refusal of a write when the server's disk is full, documented once
/// for every route that stores something.
#[derive(utoipa::IntoResponses)]
#[allow(dead_code)]
pub enum DiskErrors {
    /// The server's disk is full, or nearly (a new match or tournament is
    /// refused while less than `--min-free-disk-mb` is free): nothing was
    /// stored, and nothing stored before is lost (`disk_full`). The
    /// server's operator must free space.
    #[response(status = 507, content_type = "application/problem+json")]
    Full(Problem),
}

/// The errors of every operation that runs on the heavy-work pool counted
/// against the client's cap (`crate::heavy`), documented once. The 429
/// names the rate's refusal too: an operation documents one answer per
/// status, and [`crate::clients::document`] keeps this one.
#[derive(utoipa::IntoResponses)]
#[allow(dead_code)]
pub enum HeavyErrors {
    /// This client (its IP address) already has as much heavy work running
    /// or waiting as it may, counted by cost in requests at their largest
    /// budgets (`too_many_heavy_requests`; `--heavy-per-client`, 2 by
    /// default; a smaller budget is its share of one, a picture a
    /// thousandth): wait for one of them to answer. The same code when the
    /// queue is full and this client holds a share of it, or when its
    /// waiting request gave its place to a client holding less (a polite
    /// client's one question is never refused for others' backlogs). Or it has sent more heavy requests than its rate
    /// allows (`rate_limited`; `--heavy-rate`). Nothing was started; try
    /// again after `Retry-After` seconds.
    #[response(
        status = 429,
        content_type = "application/problem+json",
        headers(("Retry-After" = u32, description = "Seconds to wait before trying again"))
    )]
    TooMany(Problem),
    /// Every heavy-work thread is busy and the queue is full of requests
    /// no client holds a backlog of (`busy`): nothing was started; try
    /// again after `Retry-After` seconds.
    #[response(
        status = 503,
        content_type = "application/problem+json",
        headers(("Retry-After" = u32, description = "Seconds to wait before trying again"))
    )]
    Busy(Problem),
}

/// The refusal of an operation limited per client (`--write-rate`,
/// `--heavy-rate`), documented once; added to each limited operation from
/// the table that enforces the limits (`crate::clients`).
#[derive(utoipa::IntoResponses)]
#[allow(dead_code)]
pub enum RateLimited {
    /// This client (its IP address) has sent more of these requests than its
    /// rate allows, or, for a write with a bearer token that counts apart
    /// (`--write-tokens-per-client`), this token has (`rate_limited`; the
    /// detail says which): nothing was done; try again after `Retry-After`
    /// seconds.
    #[response(
        status = 429,
        content_type = "application/problem+json",
        headers(("Retry-After" = u32, description = "Seconds to wait before trying again"))
    )]
    RateLimited(Problem),
}

/// The refusal of a long-poll beyond the client's cap
/// (`--long-polls-per-client`), documented once.
#[derive(utoipa::IntoResponses)]
#[allow(dead_code)]
pub enum TooManyWaits {
    /// With `wait_ply` / `wait_ms`: this client (its IP address) already has
    /// as many long-polls open as it may (`too_many_waits`); wait for one to
    /// answer, or try again after `Retry-After` seconds. Also `rate_limited`
    /// for the other limits, where the operation has them.
    #[response(
        status = 429,
        content_type = "application/problem+json",
        headers(("Retry-After" = u32, description = "Seconds to wait before trying again"))
    )]
    TooManyWaits(Problem),
}

/// The error type of every handler: a status and its problem body, with
/// the headers some statuses carry. Errors of the rules crate and (with
/// the `store` feature) of the store convert into it, each mapped once.
#[derive(Clone, Debug)]
pub struct ApiError {
    status: StatusCode,
    // Boxed: errors travel in every handler's `Result`, and are rare.
    problem: Box<Problem>,
    allow: Option<String>,
    retry_after: Option<u32>,
    www_authenticate: bool,
}

impl ApiError {
    /// An error with a status, a code, a title and a detail.
    pub fn new(status: StatusCode, code: &str, title: &str, detail: impl Into<String>) -> ApiError {
        ApiError {
            status,
            problem: Box::new(Problem {
                problem_type: format!("urn:sternhalma:problem:{code}"),
                title: title.to_owned(),
                status: status.as_u16(),
                detail: detail.into(),
                code: code.to_owned(),
                problems: Vec::new(),
                move_index: None,
                lower_bound: None,
                nodes: None,
            }),
            allow: None,
            retry_after: None,
            www_authenticate: false,
        }
    }

    /// 401: no token, or not a bearer token (with `WWW-Authenticate: Bearer`).
    pub fn unauthorized(code: &str, detail: impl Into<String>) -> ApiError {
        let mut error = ApiError::new(StatusCode::UNAUTHORIZED, code, "Unauthorized", detail);
        error.www_authenticate = true;
        error
    }

    /// 403: a well-formed token that does not give this right.
    pub fn forbidden(code: &str, detail: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::FORBIDDEN, code, "Forbidden", detail)
    }

    /// 409: the request does not fit the resource's current state.
    pub fn conflict(code: &str, detail: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::CONFLICT, code, "Conflict", detail)
    }

    /// 400: the request body or query is not what the operation takes.
    pub fn bad_request(code: &str, detail: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, code, "Bad request", detail)
    }

    /// 404: no such route or resource.
    pub fn not_found(detail: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, "not_found", "Not found", detail)
    }

    /// 405, with the methods the route takes.
    pub fn method_not_allowed(method: &str, path: &str, allowed: &[&str]) -> ApiError {
        let mut error = ApiError::new(
            StatusCode::METHOD_NOT_ALLOWED,
            "method_not_allowed",
            "Method not allowed",
            format!(
                "{path} does not take {method}; it takes {}",
                allowed.join(", ")
            ),
        );
        error.allow = Some(allowed.join(", "));
        error
    }

    /// 503 `busy`: the server has no room for the work now; the client is
    /// asked to wait `retry_after` seconds (`Retry-After`).
    pub fn busy(detail: impl Into<String>, retry_after: u32) -> ApiError {
        let mut error = ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "busy",
            "Service unavailable",
            detail,
        );
        error.retry_after = Some(retry_after);
        error
    }

    /// 429: this client has sent too much; it is asked to wait
    /// `retry_after` seconds (`Retry-After`, at least 1).
    pub fn too_many_requests(code: &str, detail: impl Into<String>, retry_after: u32) -> ApiError {
        let mut error = ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            code,
            "Too many requests",
            detail,
        );
        error.retry_after = Some(retry_after.max(1));
        error
    }

    /// 500 `internal`: a bug; the details go to the log, not the client.
    pub fn internal(detail: impl Into<String>) -> ApiError {
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            "Internal error",
            detail,
        )
    }

    /// 422: well-formed text that is not a valid rules, board or layout value.
    pub fn unprocessable(code: &str, detail: impl Into<String>) -> ApiError {
        ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            code,
            "Unprocessable content",
            detail,
        )
    }

    /// 422 for a solved table that cannot answer (`no_tablebase`,
    /// `tablebase_other_game`, `tablebase_without_depths`, `game_over`,
    /// ...: [`TablebaseError::code`]). Where a table is missing, the detail
    /// (which already names the tables installed) says how a server gets
    /// one: the one place that wording lives, for the probe, the analysis
    /// and every refusal of the `perfect` bot, stored or not.
    pub fn tablebase(code: &str, detail: impl Into<String>) -> ApiError {
        let mut detail = detail.into();
        if matches!(code, "no_tablebase" | "tablebase_without_depths") {
            detail.push_str(TABLEBASE_HINT);
        }
        ApiError::unprocessable(code, detail)
    }

    /// Marks which move of a replay failed.
    #[must_use]
    pub fn at_move(mut self, index: usize) -> ApiError {
        self.problem.move_index = Some(index);
        self
    }

    /// Adds the lower bound proven and the nodes searched by a solve that
    /// stopped at its limit.
    #[must_use]
    pub fn with_bound(mut self, lower_bound: u32, nodes: u64) -> ApiError {
        self.problem.lower_bound = Some(lower_bound);
        self.problem.nodes = Some(nodes);
        self
    }

    /// The problem details.
    pub fn problem(&self) -> &Problem {
        &self.problem
    }

    /// The seconds sent in `Retry-After`, if any.
    pub fn retry_after(&self) -> Option<u32> {
        self.retry_after
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {}: {}",
            self.problem.status, self.problem.code, self.problem.detail
        )
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        self.status
    }

    fn error_response(&self) -> HttpResponse {
        let mut response = HttpResponse::build(self.status);
        response.insert_header((header::CONTENT_TYPE, HeaderValue::from_static(PROBLEM_JSON)));
        if let Some(allow) = &self.allow {
            response.insert_header((header::ALLOW, allow.as_str()));
        }
        if let Some(seconds) = self.retry_after {
            response.insert_header((header::RETRY_AFTER, seconds.to_string()));
        }
        if self.www_authenticate {
            response.insert_header((header::WWW_AUTHENTICATE, "Bearer"));
        }
        response.body(serde_json::to_string(&self.problem).expect("problems serialise"))
    }
}

impl From<ParseError> for ApiError {
    fn from(e: ParseError) -> ApiError {
        // The code is the core's; only the status is decided here: JSON of
        // the wrong shape is a bad request, everything else well-formed JSON
        // whose content cannot be used.
        match e.kind() {
            ParseErrorKind::Json => ApiError::bad_request(e.code(), e.to_string()),
            _ => ApiError::unprocessable(e.code(), e.to_string()),
        }
    }
}

impl From<SetupError> for ApiError {
    fn from(e: SetupError) -> ApiError {
        let mut error = ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            e.code(),
            "Invalid position",
            e.to_string(),
        );
        error.problem.problems = e
            .problems()
            .iter()
            .map(|p| ProblemItem {
                code: p.code().to_owned(),
                message: p.to_string(),
            })
            .collect();
        error
    }
}

impl From<PositionError> for ApiError {
    fn from(e: PositionError) -> ApiError {
        match e {
            PositionError::Malformed(e) => e.into(),
            PositionError::Invalid(e) => e.into(),
        }
    }
}

impl From<IllegalMove> for ApiError {
    fn from(e: IllegalMove) -> ApiError {
        ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            e.code(),
            "Illegal move",
            e.to_string(),
        )
    }
}

impl From<UnknownBotKind> for ApiError {
    fn from(e: UnknownBotKind) -> ApiError {
        ApiError::unprocessable(UnknownBotKind::CODE, e.to_string())
    }
}

impl From<BudgetTooLarge> for ApiError {
    fn from(e: BudgetTooLarge) -> ApiError {
        ApiError::unprocessable(BudgetTooLarge::CODE, e.to_string())
    }
}

/// How a server gets the tables it lacks, added to the refusals of
/// [`ApiError::tablebase`] that a table would lift.
pub const TABLEBASE_HINT: &str = "; a server installs tables at start with `sternhalma serve \
     --tablebases DIR` (files `sternhalma solve-game` wrote), and `--build-tablebases` solves the \
     small games (rhombus7p1, rhombus7p2, rhombus4p6) into DIR first; `GET /v1/tablebases` lists \
     those installed";

impl From<TablebaseError> for ApiError {
    fn from(e: TablebaseError) -> ApiError {
        ApiError::tablebase(e.code(), e.to_string())
    }
}

impl From<AnalysisError> for ApiError {
    fn from(e: AnalysisError) -> ApiError {
        match e {
            AnalysisError::Tablebase(e) => e.into(),
            AnalysisError::IllegalMove { ply, .. } => {
                ApiError::unprocessable(e.code(), e.to_string()).at_move(ply as usize)
            }
        }
    }
}

impl From<MoveError> for ApiError {
    fn from(e: MoveError) -> ApiError {
        match e {
            MoveError::Malformed(e) => e.into(),
            MoveError::Illegal(e) => e.into(),
        }
    }
}

/// Turns actix's JSON body errors into problem details.
pub fn json_error(error: actix_web::error::JsonPayloadError) -> ApiError {
    use actix_web::error::JsonPayloadError as E;
    match error {
        E::ContentType => ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
            "Unsupported media type",
            "the body must be JSON, sent with Content-Type: application/json",
        ),
        E::Overflow { limit } | E::OverflowKnownLength { limit, .. } => ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "payload_too_large",
            "Payload too large",
            format!("the body is larger than the limit of {limit} bytes"),
        ),
        E::Deserialize(e) => body_error(&e),
        other => ApiError::bad_request(
            "malformed_json",
            format!("could not read the JSON body: {other}"),
        ),
    }
}

/// A JSON body that serde could not read: a 422 `missing_field` naming the
/// field when only a field is missing, else a 400 `malformed_json`; the
/// message without serde's type names and line numbers.
fn body_error(error: &serde_json::Error) -> ApiError {
    let message = sternhalma::wire::plain_serde_message(error);
    let message = message.as_str();
    if let Some(field) = message
        .strip_prefix("missing field `")
        .and_then(|rest| rest.strip_suffix('`'))
    {
        return ApiError::unprocessable(
            ParseErrorKind::MissingField.code(),
            format!("{field}: this field is required and missing"),
        );
    }
    let message = if message.starts_with("data did not match any variant") {
        "the body does not have the shape the operation takes (see its schema)"
    } else {
        message
    };
    let detail = match error.classify() {
        serde_json::error::Category::Data => format!("the JSON body does not fit: {message}"),
        _ => format!("the body is not JSON: {message}"),
    };
    ApiError::bad_request(ParseErrorKind::Json.code(), detail)
}

/// Turns actix's query string errors into problem details.
pub fn query_error(error: actix_web::error::QueryPayloadError) -> ApiError {
    ApiError::bad_request("malformed_query", format!("invalid query string: {error}"))
}

/// Turns actix's path errors into problem details.
pub fn path_error(error: actix_web::error::PathError) -> ApiError {
    // actix's message names serde's target type ("can not parse ... to a
    // u64"); the user needs to know which ids exist.
    let _ = error;
    ApiError::not_found("no such resource: ids in paths are whole numbers, e.g. /v1/matches/12")
}

#[cfg(feature = "store")]
mod store;
