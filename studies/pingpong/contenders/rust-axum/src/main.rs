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
    // Listen with a backlog of 1024 like every other contender: `TcpListener::bind` listens with
    // mio's 128, which drops SYNs at 500+ connections and measures a full accept queue, not axum.
    let socket = tokio::net::TcpSocket::new_v4().expect("socket");
    socket.set_reuseaddr(true).expect("SO_REUSEADDR");
    socket
        .bind(std::net::SocketAddr::from(([127, 0, 0, 1], port)))
        .expect("bind");
    let listener = socket.listen(1024).expect("listen");
    axum::serve(listener, app).await.expect("serve");
}
