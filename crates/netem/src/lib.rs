//! barrage's link emulator: an emulated network between a contender and the load side, built
//! from what any Linux kernel with TUN has (no netem needed).
//!
//! - [`link`]: the link without I/O: a packet offered at time t is released at a time the link
//!   decides (delay, jitter without reordering, rate with a tail-drop queue) or dropped (loss,
//!   full queue). Table-tested.
//! - [`emulator`]: the I/O loop: one thread moving packets between two TUN devices through a
//!   link each way, measuring its own accuracy and CPU.
//! - [`ns`]: unnamed network namespaces held by file descriptors, entered per thread.
//! - [`tun`]: TUN devices and interface settings by ioctl.
//! - [`net`]: all of it set up as one [`Net`]: two namespaces, a device in each, the emulator.
//!
//! Nothing is named in the system: the namespaces and devices live as long as barrage holds
//! them (or a process runs in a namespace), so a crash leaves nothing behind.

pub mod emulator;
mod error;
pub mod link;
pub mod net;
pub mod ns;
pub mod tun;

pub use error::NetError;
pub use net::{Net, NetOptions, CONTENDER_ADDR, LOAD_ADDR};
pub use ns::Netns;
