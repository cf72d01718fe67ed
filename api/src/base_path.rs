//! The path prefix a server answers under behind a proxy that keeps it
//! (`sternhalma serve --base-path /services/game`): JupyterHub forwards
//! `/services/game/...` to the game server with the prefix, so the server
//! must answer there, and every address it names (pages, assets, API
//! calls of the pages, redirects, `Location`, Swagger UI's document) must
//! lead back under it.
//!
//! The prefix is parsed once ([`BasePath`]); [`answer_under`] is the
//! outermost layer of the app: it strips the prefix from a request's path
//! before anything routes, limits or counts it (so routes, per-client
//! limits and metrics labels are those of the root), and prefixes every
//! `Location` the app answers with a path, as a reverse proxy's "reverse"
//! rule does (Apache's `ProxyPassReverse`). A request without the prefix
//! is served as before: programs on the same machine use the server's own
//! address. The pages carry the prefix in their links
//! ([`crate::pages`]), and the downloads listing in its addresses.

use std::fmt;
use std::str::FromStr;

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::Uri;
use actix_web::http::header::{self, HeaderValue};
use actix_web::http::uri::PathAndQuery;
use actix_web::middleware::Next;
use actix_web::{Error, HttpResponse};

/// A path prefix the server answers under: empty (none, the default), or
/// `/` followed by segments of unreserved URL characters (letters, digits,
/// `-._~`), with no trailing slash: `/services/game`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BasePath(String);

/// Why a text is not a base path. Its message is written for whoever typed
/// `--base-path`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BasePathError {
    /// The text does not start with `/` (`services/game`).
    NotAbsolute,
    /// Two slashes in a row (`/services//game`).
    EmptySegment,
    /// A segment `.` or `..`, which browsers and proxies resolve away.
    DotSegment,
    /// A character outside letters, digits and `-._~` (a space, `%`, `?`,
    /// `#`, a non-ASCII letter...).
    Character(char),
}

impl BasePathError {
    /// A stable machine-readable code.
    pub fn code(&self) -> &'static str {
        match self {
            BasePathError::NotAbsolute => "not_absolute",
            BasePathError::EmptySegment => "empty_segment",
            BasePathError::DotSegment => "dot_segment",
            BasePathError::Character(_) => "character",
        }
    }
}

impl fmt::Display for BasePathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BasePathError::NotAbsolute => {
                f.write_str("a base path starts with / (e.g. /services/game)")
            }
            BasePathError::EmptySegment => f.write_str("a base path has no empty segment (//)"),
            BasePathError::DotSegment => f.write_str("a base path has no . or .. segment"),
            BasePathError::Character(c) => write!(
                f,
                "a base path holds only letters, digits, -, ., _, ~ and /, not {c:?}"
            ),
        }
    }
}

impl std::error::Error for BasePathError {}

impl FromStr for BasePath {
    type Err = BasePathError;

    /// Parses a prefix. Empty text and `/` are no prefix; one trailing
    /// slash is dropped (`/game/` is `/game`).
    ///
    /// # Errors
    /// The text does not start with `/`, has an empty, `.` or `..`
    /// segment, or a character other than letters, digits, `-._~` and
    /// `/` (so no `%`, `?`, `#`, space or non-ASCII letter).
    ///
    /// ```
    /// use sternhalma_api::base_path::BasePath;
    /// let base: BasePath = "/services/game/".parse().unwrap();
    /// assert_eq!(base.as_str(), "/services/game");
    /// assert_eq!(base.join("/v1/catalogue"), "/services/game/v1/catalogue");
    /// assert!("/".parse::<BasePath>().unwrap().is_none());
    /// assert!("services/game".parse::<BasePath>().is_err());
    /// ```
    fn from_str(text: &str) -> Result<BasePath, BasePathError> {
        let text = text.strip_suffix('/').unwrap_or(text);
        if text.is_empty() {
            return Ok(BasePath::default());
        }
        let Some(rest) = text.strip_prefix('/') else {
            return Err(BasePathError::NotAbsolute);
        };
        for segment in rest.split('/') {
            if segment.is_empty() {
                return Err(BasePathError::EmptySegment);
            }
            if segment == "." || segment == ".." {
                return Err(BasePathError::DotSegment);
            }
            if let Some(c) = segment
                .chars()
                .find(|&c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~')))
            {
                return Err(BasePathError::Character(c));
            }
        }
        Ok(BasePath(text.to_owned()))
    }
}

impl fmt::Display for BasePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl BasePath {
    /// The prefix (`/services/game`), or `""` for none.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether there is no prefix (the server answers at its root only).
    pub fn is_none(&self) -> bool {
        self.0.is_empty()
    }

    /// The address of `path`, a path of the server's root (`/v1/matches`),
    /// under the prefix: `/services/game/v1/matches`.
    pub fn join(&self, path: &str) -> String {
        format!("{}{path}", self.0)
    }

    /// What of `path` names a path of the server's root: the rest after
    /// the prefix (`/services/game/v1` → `/v1`), `Some("")` for the
    /// prefix itself, `None` for a path not under it (`/services/gamex`,
    /// `/v1`).
    fn strip<'a>(&self, path: &'a str) -> Option<&'a str> {
        path.strip_prefix(self.0.as_str())
            .filter(|rest| rest.is_empty() || rest.starts_with('/'))
    }

    /// `location` as a client outside sees it: a path of the server's root
    /// (`/docs/`) under the prefix; anything else (a full URL, `//host`, a
    /// relative reference) as it is.
    fn reverse(&self, location: &str) -> Option<String> {
        (location.starts_with('/') && !location.starts_with("//")).then(|| self.join(location))
    }
}

/// The outermost layer of the app (see the module's documentation): a
/// request under `base` is routed as its path without the prefix (the query
/// kept); the prefix alone is redirected (308) to the prefix with a slash,
/// the home page's address; a `Location` answered with a path gets the
/// prefix. With no prefix, the request passes untouched.
pub async fn answer_under<B: MessageBody>(
    base: BasePath,
    mut request: ServiceRequest,
    next: Next<B>,
) -> Result<ServiceResponse<EitherBody<B>>, Error> {
    if base.is_none() {
        return Ok(next.call(request).await?.map_into_left_body());
    }
    let uri = &request.head().uri;
    if let Some(rest) = base.strip(uri.path()) {
        let cut = base.as_str().len();
        let path_and_query = uri.path_and_query().map_or("", PathAndQuery::as_str);
        if rest.is_empty() {
            let response = HttpResponse::PermanentRedirect()
                .insert_header((
                    header::LOCATION,
                    format!("{base}/{}", &path_and_query[cut..]),
                ))
                .finish();
            return Ok(request.into_response(response).map_into_right_body());
        }
        let mut parts = uri.clone().into_parts();
        // A suffix of a valid path-and-query that starts with `/` is one.
        if let Ok(stripped) = PathAndQuery::try_from(&path_and_query[cut..]) {
            parts.path_and_query = Some(stripped);
            if let Ok(uri) = Uri::from_parts(parts) {
                // As actix's NormalizePath rewrites a path: the head, and
                // the router's view of it (nothing is matched yet).
                request.match_info_mut().get_mut().update(&uri);
                request.head_mut().uri = uri;
            }
        }
    }
    let mut response = next.call(request).await?;
    let reversed = response
        .headers()
        .get(header::LOCATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|location| base.reverse(location))
        .and_then(|location| HeaderValue::try_from(location).ok());
    if let Some(location) = reversed {
        response.headers_mut().insert(header::LOCATION, location);
    }
    Ok(response.map_into_left_body())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<String, BasePathError> {
        text.parse::<BasePath>().map(|base| base.to_string())
    }

    #[test]
    fn parses_and_normalises_prefixes() {
        for (text, base) in [
            ("", ""),
            ("/", ""),
            ("/game", "/game"),
            ("/game/", "/game"),
            ("/services/game", "/services/game"),
            ("/services/game/", "/services/game"),
            ("/a-b.c_d~e/2024", "/a-b.c_d~e/2024"),
            ("/...", "/..."),
        ] {
            assert_eq!(parse(text), Ok(base.to_owned()), "{text:?}");
        }
    }

    #[test]
    fn refuses_what_is_not_a_plain_prefix() {
        for (text, error) in [
            ("game", BasePathError::NotAbsolute),
            ("services/game/", BasePathError::NotAbsolute),
            ("http://host/game", BasePathError::NotAbsolute),
            ("//game", BasePathError::EmptySegment),
            ("/services//game", BasePathError::EmptySegment),
            ("/game//", BasePathError::EmptySegment),
            ("/.", BasePathError::DotSegment),
            ("/services/../game", BasePathError::DotSegment),
            ("/game/.", BasePathError::DotSegment),
            ("/ga me", BasePathError::Character(' ')),
            ("/game?x=1", BasePathError::Character('?')),
            ("/game#top", BasePathError::Character('#')),
            ("/g%61me", BasePathError::Character('%')),
            ("/jeu/é", BasePathError::Character('é')),
            ("/a\"b", BasePathError::Character('"')),
            ("/a<b", BasePathError::Character('<')),
            ("/a\\b", BasePathError::Character('\\')),
        ] {
            assert_eq!(parse(text), Err(error.clone()), "{text:?}");
        }
        assert_eq!(
            BasePathError::Character('%').to_string(),
            "a base path holds only letters, digits, -, ., _, ~ and /, not '%'"
        );
    }

    #[test]
    fn strips_whole_segments_only() {
        let base: BasePath = "/services/game".parse().unwrap();
        assert_eq!(base.strip("/services/game/v1/x"), Some("/v1/x"));
        assert_eq!(base.strip("/services/game/"), Some("/"));
        assert_eq!(base.strip("/services/game"), Some(""));
        assert_eq!(base.strip("/services/gamex/v1"), None);
        assert_eq!(base.strip("/services"), None);
        assert_eq!(base.strip("/v1/catalogue"), None);
    }

    #[test]
    fn names_paths_under_the_prefix() {
        let base: BasePath = "/game".parse().unwrap();
        assert_eq!(base.reverse("/docs/"), Some("/game/docs/".to_owned()));
        assert_eq!(base.reverse("//other.example/x"), None);
        assert_eq!(base.reverse("https://other.example/x"), None);
        assert_eq!(base.reverse("docs/"), None);
        assert_eq!(BasePath::default().join("/v1"), "/v1");
    }
}
