//! Ping-pong server on axum: `POST /` with body `ping` answers `pong`, anything else 400.

use axum::{body::Bytes, http::StatusCode, routing::post, Router};

async fn ping(body: Bytes) -> (StatusCode, &'static str) {
    if body.as_ref() == b"ping" {
        (StatusCode::OK, "pong")
    } else {
        (StatusCode::BAD_REQUEST, "bad request")
    }
}

#[tokio::main]
async fn main() {
    let port: u16 = std::env::args()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(8080);
    let app = Router::new().route("/", post(ping));
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
        .await
        .expect("bind");
    axum::serve(listener, app).await.expect("serve");
}
