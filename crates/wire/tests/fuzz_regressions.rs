//! The fuzz targets' inputs replayed through the targets' own harnesses (fuzz/harness/*.rs, the
//! very functions `cargo fuzz` runs): every crash input kept in fuzz/regressions/<target>/, and
//! the seed corpus in fuzz/corpus/<target>/, so a fixed crash stays fixed under `cargo test`
//! (see fuzz/README.md). The engine's `targets` target is replayed by the engine's tests.

#[path = "../../../fuzz/harness/chunked.rs"]
mod chunked;
#[path = "../../../fuzz/harness/fcgi.rs"]
mod fcgi;
#[path = "../../../fuzz/harness/grpc.rs"]
mod grpc;
#[path = "../../../fuzz/harness/h1_client.rs"]
mod h1_client;
#[path = "../../../fuzz/harness/h2.rs"]
mod h2;
#[path = "../../../fuzz/harness/h2_client.rs"]
mod h2_client;
#[path = "../../../fuzz/harness/h2_server.rs"]
mod h2_server;
#[path = "../../../fuzz/harness/h3.rs"]
mod h3;
#[path = "../../../fuzz/harness/h3_client.rs"]
mod h3_client;
#[path = "../../../fuzz/harness/h3_server.rs"]
mod h3_server;
#[path = "../../../fuzz/harness/request.rs"]
mod request;
#[path = "../../../fuzz/harness/response.rs"]
mod response;
#[path = "../../../fuzz/harness/split.rs"]
mod split;
#[path = "../../../fuzz/harness/ws.rs"]
mod ws;
#[path = "../../../fuzz/harness/ws_client.rs"]
mod ws_client;

#[path = "../../../fuzz/harness/replay.rs"]
mod replay;

#[test]
fn request() {
    replay::all("request", request::run);
}

#[test]
fn response() {
    replay::all("response", response::run);
}

#[test]
fn chunked() {
    replay::all("chunked", chunked::run);
}

#[test]
fn h1_client() {
    replay::all("h1_client", h1_client::run);
}

#[test]
fn h2() {
    replay::all("h2", h2::run);
}

#[test]
fn fcgi() {
    replay::all("fcgi", fcgi::run);
}

#[test]
fn h2_client() {
    replay::all("h2_client", h2_client::run);
}

#[test]
fn h2_server() {
    replay::all("h2_server", h2_server::run);
}

#[test]
fn h3() {
    replay::all("h3", h3::run);
}

#[test]
fn h3_client() {
    replay::all("h3_client", h3_client::run);
}

#[test]
fn h3_server() {
    replay::all("h3_server", h3_server::run);
}

#[test]
fn ws() {
    replay::all("ws", ws::run);
}

#[test]
fn ws_client() {
    replay::all("ws_client", ws_client::run);
}

#[test]
fn grpc() {
    replay::all("grpc", grpc::run);
}
