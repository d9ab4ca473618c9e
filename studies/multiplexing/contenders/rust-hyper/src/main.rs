//! Hello-world server on hyper 1 for the multiplexing study: GET / answers 200 "Hello, World!"
//! (text/plain), anything else 404. One port serves HTTP/1.1 (keep-alive; pipelined responses
//! flushed together) and HTTP/2 over cleartext with prior knowledge (h2c): hyper-util's
//! `server::conn::auto::Builder` reads the first bytes of each connection and picks the protocol.
//! One thread: a tokio current_thread runtime. Usage: hello PORT

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{HeaderValue, CONTENT_TYPE};
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto::Builder;
use std::convert::Infallible;
use std::net::SocketAddr;

static HELLO: &[u8] = b"Hello, World!";

async fn hello(req: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    let (status, body) = if req.uri().path() == "/" {
        (StatusCode::OK, Bytes::from_static(HELLO))
    } else {
        (StatusCode::NOT_FOUND, Bytes::from_static(b"not found"))
    };
    let mut res = Response::new(Full::new(body));
    *res.status_mut() = status;
    res.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("text/plain"));
    Ok(res)
}

fn main() {
    let port: u16 = match std::env::args().nth(1).and_then(|p| p.parse().ok()) {
        Some(p) => p,
        None => {
            eprintln!("usage: hello PORT");
            std::process::exit(2);
        }
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()
        .expect("tokio runtime");
    rt.block_on(serve(SocketAddr::from(([127, 0, 0, 1], port))));
}

async fn serve(addr: SocketAddr) {
    let socket = tokio::net::TcpSocket::new_v4().expect("socket");
    socket.set_reuseaddr(true).expect("SO_REUSEADDR");
    socket.bind(addr).expect("bind");
    let listener = socket.listen(1024).expect("listen");
    let mut builder = Builder::new(TokioExecutor::new());
    builder.http1().keep_alive(true).pipeline_flush(true);
    builder.http2().max_concurrent_streams(256);
    loop {
        let (stream, _) = match listener.accept().await {
            Ok(conn) => conn,
            Err(e) => {
                eprintln!("accept: {e}");
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let conn = builder
            .serve_connection(TokioIo::new(stream), service_fn(hello))
            .into_owned();
        tokio::spawn(async move {
            let _ = conn.await;
        });
    }
}
