//! docs/grpc/barrage.proto's `barrage.test.v1.Test` on tonic, with the code tonic-prost-build
//! generates (build.rs), answering as `barrage serve` does (crates/server/src/grpc.rs): `Echo`
//! and `Chat` give each request's payload back (or `size` bytes of the pattern, byte i = i mod
//! 251, when size > 0) with its text; `Stream` sends `count` replies of `size` pattern bytes;
//! `Sum` answers the count and the sum of the values it read.
//!
//!     grpc-tonic ADDR      the study's contender: serves on ADDR (host:port) until killed
//!     grpc-tonic --peer    barrage's interop test's peer (crates/engine/tests/it/grpc_tonic.rs):
//!                          serves on 127.0.0.1, port chosen by the system, also the service
//!                          `Failing` (every call UNAVAILABLE "asked to fail"); prints `port=N`
//!                          once serving and, when stdin ends, stops and prints `calls=N
//!                          messages=M`: the calls it answered and the request messages they read.
//!
//! Tokio's runtime has one worker per CPU the process may run on (its affinity), so a server
//! pinned to one CPU runs one worker.

use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};

use tokio::io::AsyncReadExt;
use tokio_stream::Stream;
use tonic::codec::CompressionEncoding;
use tonic::transport::server::TcpIncoming;
use tonic::transport::Server;
use tonic::{Request, Response, Status, Streaming};

mod pb {
    tonic::include_proto!("barrage.test.v1");
}

use pb::failing_server::{Failing, FailingServer};
use pb::test_server::{Test, TestServer};
use pb::{EchoReply, EchoRequest, StreamRequest, SumReply, SumRequest};

/// The largest reply payload made, as barrage serve's (`size` asks for more: INVALID_ARGUMENT).
const MAX_REPLY: u32 = 4 << 20;

/// What the server answered: calls, and the request messages they read. Counted in both modes
/// (two relaxed atomic additions a call), so the study measures the code the test checks.
#[derive(Default)]
struct Counts {
    calls: AtomicU64,
    messages: AtomicU64,
}

impl Counts {
    fn answered(&self, messages: u64) {
        self.calls.fetch_add(1, Ordering::Relaxed);
        self.messages.fetch_add(messages, Ordering::Relaxed);
    }
}

#[derive(Clone, Default)]
struct Service {
    counts: Arc<Counts>,
}

fn pattern(n: u32) -> Vec<u8> {
    (0..n).map(|i| (i % 251) as u8).collect()
}

/// Echo's and Chat's reply.
fn echo(req: EchoRequest) -> Result<EchoReply, Status> {
    if req.size > MAX_REPLY {
        return Err(Status::invalid_argument(format!(
            "size {} is over the {MAX_REPLY} bytes a reply may have",
            req.size
        )));
    }
    let payload = if req.size > 0 {
        pattern(req.size)
    } else {
        req.payload
    };
    Ok(EchoReply {
        payload,
        text: req.text,
    })
}

type Replies = Pin<Box<dyn Stream<Item = Result<EchoReply, Status>> + Send>>;

#[tonic::async_trait]
impl Test for Service {
    async fn echo(&self, req: Request<EchoRequest>) -> Result<Response<EchoReply>, Status> {
        self.counts.answered(1);
        echo(req.into_inner()).map(Response::new)
    }

    type StreamStream = Replies;

    async fn stream(
        &self,
        req: Request<StreamRequest>,
    ) -> Result<Response<Self::StreamStream>, Status> {
        self.counts.answered(1);
        let StreamRequest { count, size } = req.into_inner();
        if size > MAX_REPLY {
            return Err(Status::invalid_argument(format!(
                "size {size} is over the {MAX_REPLY} bytes a reply may have"
            )));
        }
        let reply = EchoReply {
            payload: pattern(size),
            text: String::new(),
        };
        // One reply made at a time as the stream is polled: a call asking for a million holds
        // one.
        let replies = tokio_stream::iter((0..count).map(move |_| Ok(reply.clone())));
        Ok(Response::new(Box::pin(replies)))
    }

    async fn sum(&self, req: Request<Streaming<SumRequest>>) -> Result<Response<SumReply>, Status> {
        let mut input = req.into_inner();
        let (mut count, mut sum) = (0u64, 0i64);
        let ended = loop {
            match input.message().await {
                Ok(Some(m)) => {
                    count += 1;
                    sum = sum.wrapping_add(m.value);
                }
                Ok(None) => break Ok(()),
                Err(e) => break Err(e),
            }
        };
        self.counts.answered(count);
        ended.map(|()| Response::new(SumReply { count, sum }))
    }

    type ChatStream = Chat;

    async fn chat(
        &self,
        req: Request<Streaming<EchoRequest>>,
    ) -> Result<Response<Self::ChatStream>, Status> {
        Ok(Response::new(Chat {
            input: req.into_inner(),
            counts: self.counts.clone(),
            read: 0,
            done: false,
        }))
    }
}

/// Chat's replies: each request's echo as it arrives, made as the response is polled (no task
/// or channel between); the call is counted when the requests end, before the status goes.
struct Chat {
    input: Streaming<EchoRequest>,
    counts: Arc<Counts>,
    read: u64,
    done: bool,
}

impl Stream for Chat {
    type Item = Result<EchoReply, Status>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.done {
            return Poll::Ready(None);
        }
        let next = match Pin::new(&mut self.input).poll_next(cx) {
            Poll::Pending => return Poll::Pending,
            Poll::Ready(next) => next,
        };
        let reply = match next {
            Some(Ok(req)) => {
                self.read += 1;
                echo(req)
            }
            Some(Err(e)) => Err(e),
            None => {
                self.done = true;
                self.counts.answered(self.read);
                return Poll::Ready(None);
            }
        };
        if reply.is_err() {
            // The status ends the call: count it now.
            self.done = true;
            self.counts.answered(self.read);
        }
        Poll::Ready(Some(reply))
    }
}

#[tonic::async_trait]
impl Failing for Service {
    async fn echo(&self, _req: Request<EchoRequest>) -> Result<Response<EchoReply>, Status> {
        self.counts.answered(1);
        Err(Status::unavailable("asked to fail"))
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let arg = std::env::args().nth(1).unwrap_or_default();
    let service = Service::default();
    let counts = service.counts.clone();
    if arg == "--peer" {
        let incoming =
            TcpIncoming::bind(SocketAddr::from(([127, 0, 0, 1], 0)))?.with_nodelay(Some(true));
        println!("port={}", incoming.local_addr()?.port());
        let stdin_ends = async {
            let mut sink = Vec::new();
            let _ = tokio::io::stdin().read_to_end(&mut sink).await;
        };
        Server::builder()
            .add_service(
                TestServer::new(service.clone()).accept_compressed(CompressionEncoding::Gzip),
            )
            .add_service(FailingServer::new(service).accept_compressed(CompressionEncoding::Gzip))
            .serve_with_incoming_shutdown(incoming, stdin_ends)
            .await?;
        println!(
            "calls={} messages={}",
            counts.calls.load(Ordering::Relaxed),
            counts.messages.load(Ordering::Relaxed)
        );
        return Ok(());
    }
    let addr: SocketAddr = arg
        .parse()
        .map_err(|e| format!("usage: grpc-tonic HOST:PORT | --peer ({arg:?}: {e})"))?;
    Server::builder()
        .add_service(TestServer::new(service).accept_compressed(CompressionEncoding::Gzip))
        .serve(addr)
        .await?;
    Ok(())
}
