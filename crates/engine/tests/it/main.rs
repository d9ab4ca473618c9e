//! The engine crate's integration tests in one binary: one module per former test file
//! (one link instead of one per file; see docs/architecture.md, "Tests"). Tests that
//! need a process of their own (a global allocator that counts, the process's RSS, their
//! own `main`) stay in files of their own beside this folder.

#[path = "../common/mod.rs"]
mod common;
mod fastcgi;
mod grpc;
mod grpc_go;
mod grpc_node;
mod grpc_peer;
mod grpc_python;
mod grpc_tonic;
mod h2;
mod h2_interop;
mod h2_serve;
mod h3;
mod h3_quicgo;
mod h3_serve;
mod http10;
mod nginx;
mod refill;
mod schema;
mod scripts;
mod scripts_serve;
mod server;
mod shards;
mod stages;
mod targets;
mod tls;
mod ws;
mod ws_headers;
