//! HTTP/1.1's client side as the load engine drives it, beside [`crate::h2::client`]: the
//! run's requests encoded once in sending order ([`encoded`]), a connection's response parser
//! ([`parser`]), and the connection's session behind the common interface ([`client`]). The
//! codec both sides share (heads, body framing, chunked) stays at the crate's root.

pub mod client;
pub mod encoded;
pub mod parser;
