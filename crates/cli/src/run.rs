//! `barrage run` (being written).

use std::process::ExitCode;

#[derive(clap::Args, Default)]
pub struct Args {}

pub fn main(_args: Args) -> anyhow::Result<ExitCode> {
    anyhow::bail!("barrage run is not built yet")
}
