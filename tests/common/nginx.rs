//! nginx in front of replicas, as the load harness runs it (`workbench/load/balancer.rs`).

use super::free_addr;

#[path = "../../workbench/load/balancer.rs"]
mod balancer;

#[allow(unused_imports)] // used by the replica tests only
pub use balancer::{Balancer as Nginx, Routing};
