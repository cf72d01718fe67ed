//! A time limit on reading a request's body: the whole body must arrive
//! within it, or the answer is 408 `body_timeout` and the connection is
//! closed.
//!
//! actix bounds the wait for a request's head (5 s), not for its body: a
//! client that sends `Content-Length: 1000` and then nothing held its
//! connection, and a file of the server, for as long as it liked. The
//! limit counts from the moment the head has been read, whatever the body's
//! size (1 MiB at most: [`crate::limits::MAX_BODY_BYTES`]) and whichever
//! extractor reads it.

use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::error::PayloadError;
use actix_web::http::{ConnectionType, StatusCode};
use actix_web::middleware::Next;
use actix_web::web::Bytes;
use actix_web::{HttpMessage, ResponseError};

use crate::error::ApiError;

/// Seconds a request's whole body may take to arrive by default: 1 MiB
/// (the largest body taken) in 20 s is 420 kbit/s, slower than any
/// classroom's network; an honest client's body of a few hundred bytes
/// arrives in one packet.
pub const DEFAULT_BODY_TIMEOUT_SECONDS: u64 = 20;

/// The body timeout of one server, and the requests it ended: build once
/// per server and clone into every worker's app (clones share the count).
#[derive(Clone, Debug)]
pub struct BodyTimeout {
    limit: Option<Duration>,
    timeouts: Arc<AtomicU64>,
}

impl Default for BodyTimeout {
    /// [`DEFAULT_BODY_TIMEOUT_SECONDS`].
    fn default() -> BodyTimeout {
        BodyTimeout::new(Some(Duration::from_secs(DEFAULT_BODY_TIMEOUT_SECONDS)))
    }
}

impl BodyTimeout {
    /// A body must arrive within `limit` (`None`, or zero: no limit).
    pub fn new(limit: Option<Duration>) -> BodyTimeout {
        BodyTimeout {
            limit: limit.filter(|limit| !limit.is_zero()),
            timeouts: Arc::default(),
        }
    }

    /// The limit, if any.
    pub fn limit(&self) -> Option<Duration> {
        self.limit
    }

    /// Requests answered 408 `body_timeout` since the server started.
    pub fn timeouts(&self) -> u64 {
        self.timeouts.load(Ordering::Relaxed)
    }

    /// The middleware: the request's body, if it has one, ends in an error
    /// at the limit; a request whose body did so is answered 408
    /// `body_timeout` (whatever its handler made of the error), and its
    /// connection closed, since the rest of the body may still come.
    pub async fn enforce<B: MessageBody>(
        self,
        mut request: ServiceRequest,
        next: Next<B>,
    ) -> Result<ServiceResponse<EitherBody<B>>, actix_web::Error> {
        let Some(limit) = self.limit else {
            return Ok(next.call(request).await?.map_into_left_body());
        };
        let payload = request.take_payload();
        if matches!(payload, Payload::None) {
            request.set_payload(payload);
            return Ok(next.call(request).await?.map_into_left_body());
        }
        let timed_out = Rc::new(Cell::new(false));
        request.set_payload(Payload::Stream {
            payload: Box::pin(Deadline {
                body: payload,
                deadline: Box::pin(actix_web::rt::time::sleep(limit)),
                timed_out: Rc::clone(&timed_out),
                ended: false,
            }),
        });
        let response = next.call(request).await?;
        if !timed_out.get() {
            return Ok(response.map_into_left_body());
        }
        self.timeouts.fetch_add(1, Ordering::Relaxed);
        let error = ApiError::new(
            StatusCode::REQUEST_TIMEOUT,
            "body_timeout",
            "Request timeout",
            format!(
                "the request's body did not arrive whole within {} s; send it at once after the head",
                limit.as_secs_f64()
            ),
        );
        let mut answer = error.error_response();
        answer.head_mut().set_connection_type(ConnectionType::Close);
        let (request, _) = response.into_parts();
        Ok(ServiceResponse::new(request, answer).map_into_right_body())
    }
}

/// A request body that ends in an error at its deadline.
struct Deadline {
    body: Payload,
    deadline: Pin<Box<actix_web::rt::time::Sleep>>,
    timed_out: Rc<Cell<bool>>,
    ended: bool,
}

impl futures_core::Stream for Deadline {
    type Item = Result<Bytes, PayloadError>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        if this.ended {
            return Poll::Ready(None);
        }
        match Pin::new(&mut this.body).poll_next(cx) {
            Poll::Ready(None) => {
                this.ended = true;
                Poll::Ready(None)
            }
            Poll::Ready(Some(chunk)) => Poll::Ready(Some(chunk)),
            Poll::Pending => {
                if this.deadline.as_mut().poll(cx).is_pending() {
                    return Poll::Pending;
                }
                this.ended = true;
                this.timed_out.set(true);
                Poll::Ready(Some(Err(PayloadError::Io(std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    "the body did not arrive in time",
                )))))
            }
        }
    }
}
