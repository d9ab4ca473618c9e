//! The server crate's integration tests in one binary: one module per former test file
//! (one link instead of one per file; see docs/architecture.md, "Tests"). Tests that
//! need a process of their own (a global allocator that counts, the process's RSS, their
//! own `main`) stay in files of their own beside this folder.

mod bad_requests;
#[path = "../common/mod.rs"]
mod common;
mod endpoints;
mod faults;
mod fcgi_hostile;
mod grpc;
mod grpc_clients;
mod grpc_faults;
mod h2;
mod h2_hostile;
mod h3;
mod h3_held;
mod h3_hostile;
mod lifecycle;
mod matrix;
mod parsers;
mod pipeline;
mod tls;
mod ws_conformance;
mod ws_hostile;
